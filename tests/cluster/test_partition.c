/* The partition of the plane into one region per rank (cluster/partition.c), run
 * under mpirun at several rank counts. Every rank runs every test on the same
 * points; a test passes when it passes on every rank, and rank 0 prints the lines. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "partition.h"

static int rank, size;

/* The world's box: not square, and not at the origin. */
static const double X0 = -40, Y0 = 10, X1 = 160, Y1 = 110;

/* A generator the same on every rank (and every run). */
static uint64_t rng_state;
static double uniform(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void seed(uint64_t s)
{
	rng_state = s;
}

/* A partition of the box [x0,x1]x[y0,y1]; the job ends if none can be made. */
static steer_partition *make_over(double x0, double y0, double x1, double y1)
{
	char err[256] = "";
	steer_partition *p =
	    steer_partition_create(MPI_COMM_WORLD, x0, y0, x1, y1, err, sizeof err);
	if (!p) {
		fprintf(stderr, "rank %d: steer_partition_create: %s\n", rank, err);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

static steer_partition *make(void)
{
	return make_over(X0, Y0, X1, Y1);
}

static int in_list(const int *ranks, int n, int r)
{
	for (int i = 0; i < n; i++)
		if (ranks[i] == r)
			return 1;
	return 0;
}

/* A list from near(): ascending, without repeats, every entry a rank. */
static int well_formed(const int *ranks, int n)
{
	if (n < 1 || n > size)
		return 0;
	for (int i = 0; i < n; i++)
		if (ranks[i] < 0 || ranks[i] >= size || (i > 0 && ranks[i] <= ranks[i - 1]))
			return 0;
	return 1;
}

/* Every rank computes the same owners: each rank's answers against the minimum and
 * maximum over the ranks. */
static void check_agree(const steer_partition *p, const double *x, const double *y, int n)
{
	int *mine = calloc((size_t)n, sizeof *mine), *lo = malloc((size_t)n * sizeof *lo),
	    *hi = malloc((size_t)n * sizeof *hi);
	if (!mine || !lo || !hi)
		abort();
	for (int i = 0; i < n; i++)
		mine[i] = steer_partition_owner(p, x[i], y[i]);
	MPI_Allreduce(mine, lo, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(mine, hi, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	int disagree = 0, out = 0;
	for (int i = 0; i < n; i++) {
		disagree += lo[i] != hi[i];
		out += mine[i] < 0 || mine[i] >= size;
	}
	CHECK(disagree == 0, "%d of %d points have owners that differ between ranks", disagree, n);
	CHECK(out == 0, "%d of %d owners are not ranks", out, n);
	free(mine);
	free(lo);
	free(hi);
}

enum { NPOINTS = 2000 };
static double px[NPOINTS], py[NPOINTS];

/* Random points over the box and a margin around it, plus far ones. */
static void random_points(void)
{
	seed(42);
	for (int i = 0; i < NPOINTS; i++) {
		px[i] = X0 - 20 + uniform() * (X1 - X0 + 40);
		py[i] = Y0 - 20 + uniform() * (Y1 - Y0 + 40);
	}
	px[0] = 1e12, py[0] = -1e12;
	px[1] = -1e12, py[1] = 1e12;
	px[2] = X0, py[2] = Y0;
	px[3] = X1, py[3] = Y1;
}

static void test_owners_agree(void)
{
	steer_partition *p = make();
	CHECK(steer_partition_ranks(p) == size, "ranks %d, comm size %d", steer_partition_ranks(p),
	      size);
	CHECK(steer_partition_cuts(p) == 0, "a new partition has %u cuts", steer_partition_cuts(p));
	check_agree(p, px, py, NPOINTS);
	if (size == 1)
		for (int i = 0; i < NPOINTS; i++)
			CHECK(steer_partition_owner(p, px[i], py[i]) == 0, "one rank owns all");
	steer_partition_destroy(p);
}

/* The owner of every point is in near() of a box around it and of the box that is
 * the point; the point's own box is that one region only (random points lie on no
 * cut); every region meets the world's box (they share its area). */
static void test_near(void)
{
	steer_partition *p = make();
	int *ranks = malloc((size_t)size * sizeof *ranks);
	if (!ranks)
		abort();
	int bad_form = 0, missing = 0, not_alone = 0, spread = 0;
	for (int i = 0; i < NPOINTS; i++) {
		int o = steer_partition_owner(p, px[i], py[i]);
		int n = steer_partition_near(p, px[i], py[i], px[i], py[i], ranks);
		bad_form += !well_formed(ranks, n);
		not_alone += n != 1 || ranks[0] != o;
		double h = 3.0;
		double bx0 = px[i] - h, by0 = py[i] - h, bx1 = px[i] + h, by1 = py[i] + h;
		n = steer_partition_near(p, bx0, by0, bx1, by1, ranks);
		bad_form += !well_formed(ranks, n);
		spread += n > 1;
		/* The owners of a lattice over the box, corners and edges included. */
		for (int a = 0; a <= 6; a++)
			for (int b = 0; b <= 6; b++) {
				double qx = bx0 + (bx1 - bx0) * a / 6,
				       qy = by0 + (by1 - by0) * b / 6;
				missing += !in_list(ranks, n, steer_partition_owner(p, qx, qy));
			}
	}
	CHECK(bad_form == 0, "%d lists from near() not ascending ranks", bad_form);
	CHECK(missing == 0, "%d owners of points in a box missing from its near()", missing);
	CHECK(not_alone == 0, "%d points' own boxes are not their owner alone", not_alone);
	/* Not everything is near everything: with several ranks some boxes are inside
	 * one region, some cross a border. */
	CHECK(size == 1 || (spread > 0 && spread < NPOINTS), "%d of %d boxes cross a border",
	      spread, NPOINTS);
	int n = steer_partition_near(p, X0, Y0, X1, Y1, ranks);
	CHECK(n == size, "the world's box meets %d of %d regions", n, size);
	free(ranks);
	steer_partition_destroy(p);
}

/* Points exactly on a cut: walk from a point of one region to one of another until
 * the two are adjacent doubles; each is in near() of itself and of the pair's box. */
static void test_on_the_cut(void)
{
	steer_partition *p = make();
	int *ranks = malloc((size_t)size * sizeof *ranks);
	if (!ranks)
		abort();
	int found = 0, missing = 0;
	for (int i = 0; i + 1 < NPOINTS && size > 1; i++) {
		for (int axis = 0; axis < 2; axis++) {
			double a = axis ? py[i] : px[i], b = axis ? py[i + 1] : px[i + 1];
			double fixed = axis ? px[i] : py[i];
#define OWNER(v) (axis ? steer_partition_owner(p, fixed, v) : steer_partition_owner(p, v, fixed))
			int oa = OWNER(a), ob = OWNER(b);
			if (oa == ob)
				continue;
			/* Owners differ at a and b: halve until a and b are adjacent. */
			while (nextafter(a, b) != b) {
				double m = a + (b - a) / 2;
				if (m == a || m == b)
					break;
				if (OWNER(m) == oa)
					a = m;
				else
					b = m;
			}
			oa = OWNER(a);
			ob = OWNER(b);
#undef OWNER
			found++;
			double lo = a < b ? a : b, hi = a < b ? b : a;
			int n;
			for (int k = 0; k < 2; k++) {
				double v = k ? b : a;
				int o = k ? ob : oa;
				n = axis ? steer_partition_near(p, fixed, v, fixed, v, ranks)
				         : steer_partition_near(p, v, fixed, v, fixed, ranks);
				missing += !in_list(ranks, n, o);
			}
			n = axis ? steer_partition_near(p, fixed, lo, fixed, hi, ranks)
			         : steer_partition_near(p, lo, fixed, hi, fixed, ranks);
			missing += !in_list(ranks, n, oa) + !in_list(ranks, n, ob);
		}
	}
	CHECK(size == 1 || found > 10, "only %d borders found", found);
	CHECK(missing == 0, "%d owners at a border missing from near()", missing);
	free(ranks);
	steer_partition_destroy(p);
}

/* The first cut shares the box's area: a uniform sample's owners, each within 25%
 * of an equal share. */
static void test_equal_area(void)
{
	steer_partition *p = make();
	enum { SIDE = 200 };
	long *count = calloc((size_t)size, sizeof *count);
	if (!count)
		abort();
	for (int i = 0; i < SIDE; i++)
		for (int j = 0; j < SIDE; j++) {
			double x = X0 + (X1 - X0) * (i + 0.5) / SIDE;
			double y = Y0 + (Y1 - Y0) * (j + 0.5) / SIDE;
			count[steer_partition_owner(p, x, y)]++;
		}
	double share = (double)SIDE * SIDE / size;
	for (int r = 0; r < size; r++)
		CHECK(fabs(count[r] - share) <= 0.25 * share,
		      "rank %d owns %.3f of the box, an equal share is %.3f", r,
		      count[r] / ((double)SIDE * SIDE), 1.0 / size);
	free(count);
	steer_partition_destroy(p);
}

/* A clustered crowd: half the points and most of the cost in a corner, the rest
 * spread thin and cheap, so that balancing counts would not balance costs. */
enum { CROWD = 20000 };
static double cx[CROWD], cy[CROWD], cw[CROWD];

static void crowd(void)
{
	seed(7);
	for (int i = 0; i < CROWD; i++) {
		if (i % 2 != 0) {
			/* A blob around a point near the low corner. */
			double r = 12 * sqrt(-2 * log(1 - uniform())),
			       t = 6.283185307179586 * uniform();
			cx[i] = fmin(fmax(X0 + 25 + r * cos(t), X0), X1);
			cy[i] = fmin(fmax(Y0 + 20 + r * sin(t), Y0), Y1);
			/* Dense, so dear (a crowd costs with the square of its density),
			 * and unevenly so. */
			cw[i] = 10 + (i % 7);
		} else {
			cx[i] = X0 + uniform() * (X1 - X0);
			cy[i] = Y0 + uniform() * (Y1 - Y0);
			cw[i] = 1;
		}
	}
}

/* The cost per rank under p, and its worst distance from the mean, as a fraction. */
static double imbalance(const steer_partition *p)
{
	double *sum = calloc((size_t)size, sizeof *sum), total = 0;
	if (!sum)
		abort();
	for (int i = 0; i < CROWD; i++) {
		sum[steer_partition_owner(p, cx[i], cy[i])] += cw[i];
		total += cw[i];
	}
	double mean = total / size, worst = 0;
	for (int r = 0; r < size; r++)
		worst = fmax(worst, fabs(sum[r] - mean) / mean);
	free(sum);
	return worst;
}

/* Each rank passes the points it owns now (as the world's ranks pass their cells):
 * the cut balances their cost, and every rank agrees on the new owners. */
static void test_cut_balances(void)
{
	steer_partition *p = make();
	enum { SHARED = 5 };
	double *x = malloc((CROWD + SHARED) * sizeof *x), *y = malloc((CROWD + SHARED) * sizeof *y),
	       *w = malloc((CROWD + SHARED) * sizeof *w);
	if (!x || !y || !w)
		abort();
	size_t n = 0;
	for (int i = 0; i < CROWD; i++)
		if (steer_partition_owner(p, cx[i], cy[i]) == rank) {
			x[n] = cx[i], y[n] = cy[i], w[n] = cw[i];
			n++;
		}
	double before = imbalance(p);
	char err[256] = "";
	steer_status st = steer_partition_cut(p, n, x, y, w, err, sizeof err);
	CHECK(st == STEER_OK, "cut: %s", err);
	double after = imbalance(p);
	if (rank == 0)
		printf("     %d ranks: cost imbalance (max |rank - mean| / mean) %.3f before the "
		       "cut, %.4f after\n",
		       size, before, after);
	CHECK(after <= 0.10, "after the cut a rank's cost is %.1f%% off the mean", 100 * after);
	CHECK(size == 1 || before > 0.5, "the crowd was not unbalanced to start with (%.3f)",
	      before);
	CHECK(steer_partition_cuts(p) == 1, "%u cuts", steer_partition_cuts(p));
	check_agree(p, cx, cy, CROWD);
	check_agree(p, px, py, NPOINTS);

	/* All the points on one rank, none on the others: the same balance. */
	st = steer_partition_cut(p, rank == size - 1 ? CROWD : 0, cx, cy, cw, err, sizeof err);
	CHECK(st == STEER_OK, "cut from one rank: %s", err);
	after = imbalance(p);
	CHECK(after <= 0.10, "cut from one rank: a rank's cost is %.1f%% off the mean",
	      100 * after);
	CHECK(steer_partition_cuts(p) == 2, "%u cuts", steer_partition_cuts(p));

	/* Every rank passes a share of the crowd and, besides, the same few points at
	 * one position (as cells on a border may be counted by both sides). */
	n = 0;
	for (int i = rank; i < CROWD; i += size)
		x[n] = cx[i], y[n] = cy[i], w[n] = cw[i], n++;
	for (int k = 0; k < SHARED; k++)
		x[n] = X0 + 30, y[n] = Y0 + 25, w[n] = 3, n++;
	st = steer_partition_cut(p, n, x, y, w, err, sizeof err);
	CHECK(st == STEER_OK, "cut with shared positions: %s", err);
	CHECK(steer_partition_cuts(p) == 3, "%u cuts", steer_partition_cuts(p));
	check_agree(p, cx, cy, CROWD);
	free(x);
	free(y);
	free(w);
	steer_partition_destroy(p);
}

/* The world's real input: the centres of a grid's cells, whole rows of them sharing
 * a coordinate, each costing with the square of the crowd in it (plus one for the
 * empty cell's bookkeeping). A straight cut takes whole rows, so the balance is as
 * fine as a row: within 12% of the mean here, where splitting rows as RCB does for
 * points would be well beyond (RCB_RECTILINEAR_BLOCKS). Cut again from each rank's
 * own cells, the regions stay as they are. */
static void test_cut_cells(void)
{
	enum { GX = 128, GY = 64 };
	static double cost[GX * GY];
	memset(cost, 0, sizeof cost);
	for (int i = 0; i < CROWD; i++) {
		int gx = (int)((cx[i] - X0) / (X1 - X0) * GX),
		    gy = (int)((cy[i] - Y0) / (Y1 - Y0) * GY);
		gx = gx < 0 ? 0 : gx >= GX ? GX - 1 : gx;
		gy = gy < 0 ? 0 : gy >= GY ? GY - 1 : gy;
		cost[gy * GX + gx] += 1;
	}
	double total = 0, heaviest = 0;
	for (int c = 0; c < GX * GY; c++) {
		cost[c] = 1 + cost[c] * cost[c];
		total += cost[c];
		heaviest = fmax(heaviest, cost[c]);
	}
	steer_partition *p = make();
	double *x = malloc(GX * GY * sizeof *x), *y = malloc(GX * GY * sizeof *y),
	       *w = malloc(GX * GY * sizeof *w);
	if (!x || !y || !w)
		abort();
	double worst = 0;
	for (int round = 0; round < 3; round++) {
		size_t n = 0;
		for (int c = 0; c < GX * GY; c++) {
			double ccx = X0 + (X1 - X0) * (c % GX + 0.5) / GX;
			double ccy = Y0 + (Y1 - Y0) * (c / GX + 0.5) / GY;
			if (steer_partition_owner(p, ccx, ccy) == rank)
				x[n] = ccx, y[n] = ccy, w[n] = cost[c], n++;
		}
		char err[256] = "";
		steer_status st = steer_partition_cut(p, n, x, y, w, err, sizeof err);
		CHECK(st == STEER_OK, "cut: %s", err);
		double *sum = calloc((size_t)size, sizeof *sum);
		if (!sum)
			abort();
		for (int c = 0; c < GX * GY; c++) {
			double ccx = X0 + (X1 - X0) * (c % GX + 0.5) / GX;
			double ccy = Y0 + (Y1 - Y0) * (c / GX + 0.5) / GY;
			sum[steer_partition_owner(p, ccx, ccy)] += cost[c];
		}
		worst = 0;
		for (int r = 0; r < size; r++)
			worst = fmax(worst, fabs(sum[r] - total / size) / (total / size));
		free(sum);
		CHECK(worst <= 0.12, "cut %d of cells: a rank's cost is %.1f%% off the mean",
		      round + 1, 100 * worst);
		if (rank == 0)
			printf(
			    "     %d ranks, cells: heaviest cell %.3f of a rank's share, imbalance "
			    "%.4f after cut %d\n",
			    size, heaviest / (total / size), worst, round + 1);
	}
	free(x);
	free(y);
	free(w);
	steer_partition_destroy(p);
}

/* The owners of the random points, for checking a failed cut changed nothing. */
static int same_owners(const steer_partition *p, const int *before)
{
	for (int i = 0; i < NPOINTS; i++)
		if (steer_partition_owner(p, px[i], py[i]) != before[i])
			return 0;
	return 1;
}

static void test_failures(void)
{
	char err[256];
	err[0] = 0;
	steer_partition *bad = steer_partition_create(MPI_COMM_WORLD, 5, 0, 5, 10, err, sizeof err);
	CHECK(!bad && strstr(err, "empty"), "an empty box: %p, '%s'", (void *)bad, err);
	steer_partition_destroy(bad);
	err[0] = 0;
	bad = steer_partition_create(MPI_COMM_WORLD, 0, 0, INFINITY, 10, err, sizeof err);
	CHECK(!bad && err[0], "an infinite box: %p, '%s'", (void *)bad, err);
	steer_partition_destroy(bad);

	steer_partition *p = make();
	int *before = malloc(NPOINTS * sizeof *before);
	if (!before)
		abort();
	for (int i = 0; i < NPOINTS; i++)
		before[i] = steer_partition_owner(p, px[i], py[i]);

	/* No points anywhere. */
	err[0] = 0;
	steer_status st = steer_partition_cut(p, 0, NULL, NULL, NULL, err, sizeof err);
	CHECK(st == STEER_ERR_INVALID && strstr(err, "no point") &&
	          strstr(err, "previous cut stays"),
	      "no points: %d '%s'", st, err);

	/* Points whose weights are all zero. */
	double x[3] = {1, 2, 3}, y[3] = {20, 30, 40}, w[3] = {0, 0, 0};
	err[0] = 0;
	st = steer_partition_cut(p, 3, x, y, w, err, sizeof err);
	CHECK(st == STEER_ERR_INVALID && strstr(err, "no point with a positive weight"),
	      "zero weights: %d '%s'", st, err);

	/* One rank's bad input fails the cut on every rank. */
	double w1[3] = {1, 1, 1}, nan_x[3] = {1, NAN, 3}, neg_w[3] = {1, -1, 1};
	err[0] = 0;
	st = steer_partition_cut(p, 3, rank == size - 1 ? nan_x : x, y, w1, err, sizeof err);
	CHECK(st == STEER_ERR_INVALID && strstr(err, "not finite"), "NaN on one rank: %d '%s'", st,
	      err);
	err[0] = 0;
	st = steer_partition_cut(p, 3, x, y, rank == 0 ? neg_w : w1, err, sizeof err);
	CHECK(st == STEER_ERR_INVALID && strstr(err, "weight"), "a negative weight: %d '%s'", st,
	      err);

	CHECK(steer_partition_cuts(p) == 0, "failed cuts counted: %u", steer_partition_cuts(p));
	CHECK(same_owners(p, before), "a failed cut changed the regions");
	free(before);
	steer_partition_destroy(p);
}

/* A square world's equal areas cut again by the weight of an even lattice, each rank
 * passing the points it owns (as the cluster passes its vehicles). RCB cuts the longer
 * side of the points' box first and numbers its parts in the order of its cuts, and a
 * square's two sides are a hair apart: a cut made again keeps the first cut's axes
 * (else at 2, 3 and 7 ranks the first bisection turns from x to y and moves half the
 * world), and gives each rank the part holding its points (else at 4 ranks two ranks
 * would swap their regions whole). No point may change owner. */
static void test_cut_keeps_regions(void)
{
	enum { SIDE = 64 };
	char err[256] = "";
	steer_partition *p = make_over(0, 0, 1000, 1000);
	static double x[SIDE * SIDE], y[SIDE * SIDE], w[SIDE * SIDE];
	static int before[SIDE * SIDE];
	size_t n = 0;
	for (int k = 0; k < SIDE * SIDE; k++) {
		double qx = (k / SIDE + 0.5) * 1000.0 / SIDE, qy = (k % SIDE + 0.5) * 1000.0 / SIDE;
		before[k] = steer_partition_owner(p, qx, qy);
		if (before[k] == rank)
			x[n] = qx, y[n] = qy, w[n] = 1.0, n++;
	}
	CHECK(steer_partition_cut(p, n, x, y, w, err, sizeof err) == STEER_OK, "cut: %s", err);
	int moved = 0;
	for (int k = 0; k < SIDE * SIDE; k++)
		moved += before[k] != steer_partition_owner(p, (k / SIDE + 0.5) * 1000.0 / SIDE,
		                                            (k % SIDE + 0.5) * 1000.0 / SIDE);
	if (rank == 0)
		printf("     %d ranks: %d of %d points changed owner\n", size, moved, SIDE * SIDE);
	CHECK(moved == 0, "%d of %d points changed owner", moved, SIDE * SIDE);
	/* Each rank's box still holds what it owns. */
	double box[4];
	steer_partition_box(p, rank, box);
	int outside = 0;
	for (int k = 0; k < SIDE * SIDE; k++) {
		double qx = (k / SIDE + 0.5) * 1000.0 / SIDE, qy = (k % SIDE + 0.5) * 1000.0 / SIDE;
		if (steer_partition_owner(p, qx, qy) == rank)
			outside += qx < box[0] || qx > box[2] || qy < box[1] || qy > box[3];
	}
	CHECK(outside == 0, "rank %d owns %d points outside its box", rank, outside);
	check_agree(p, px, py, NPOINTS);
	steer_partition_destroy(p);
}

/* Many cuts in a row, each from weights that move (a hot spot circling a square
 * world, every cell's weight jittered), each rank passing the cells it owns, as the
 * cluster does between recuts. After every cut: the ranks agree on every owner; every
 * rank's box, as any rank reads it, holds the points that rank owns, and no point
 * strictly inside a rank's core is another's; and near() of a point's small box
 * names its owner. A cut whose tree or boxes differ between ranks,
 * or disagree with the owners, would put a vehicle on two ranks or on none. */
static void test_many_cuts(void)
{
	enum { SIDE = 48, CUTS = 30 };
	const double S = 1000.0;
	char err[256] = "";
	steer_partition *p = make_over(0, 0, S, S);
	static double x[SIDE * SIDE], y[SIDE * SIDE], w[SIDE * SIDE];
	static int before[SIDE * SIDE];
	int *near = malloc((size_t)size * sizeof *near);
	double(*boxes)[4] = malloc((size_t)size * sizeof *boxes);
	if (!near || !boxes)
		abort();
	int most_moved = 0, bad_box = 0, bad_near = 0, claimed = 0;
	for (int cut = 0; cut < CUTS; cut++) {
		double a = cut * 0.7, hx = S / 2 + S / 3 * cos(a), hy = S / 2 + S / 3 * sin(a);
		size_t n = 0;
		seed(1000 + (uint64_t)cut);
		for (int k = 0; k < SIDE * SIDE; k++) {
			double qx = (k / SIDE + 0.5) * S / SIDE, qy = (k % SIDE + 0.5) * S / SIDE;
			double d2 = ((qx - hx) * (qx - hx) + (qy - hy) * (qy - hy)) / (S * S / 64);
			double wk = 1.0 + 0.2 * uniform() + 4.0 * exp(-d2);
			before[k] = steer_partition_owner(p, qx, qy);
			if (before[k] == rank)
				x[n] = qx, y[n] = qy, w[n] = wk, n++;
		}
		CHECK(steer_partition_cut(p, n, x, y, w, err, sizeof err) == STEER_OK, "cut %d: %s",
		      cut, err);
		int moved = 0;
		for (int k = 0; k < SIDE * SIDE; k++)
			moved += before[k] != steer_partition_owner(p, (k / SIDE + 0.5) * S / SIDE,
			                                            (k % SIDE + 0.5) * S / SIDE);
		if (moved > most_moved)
			most_moved = moved;
		for (int r = 0; r < size; r++)
			steer_partition_box(p, r, boxes[r]);
		double core[4];
		steer_partition_core(p, core);
		for (int i = 0; i < NPOINTS; i++) {
			double qx = (px[i] - X0) * S / (X1 - X0), qy = (py[i] - Y0) * S / (Y1 - Y0);
			int o = steer_partition_owner(p, qx, qy);
			const double *b = boxes[o];
			bad_box += qx < b[0] || qx > b[2] || qy < b[1] || qy > b[3];
			/* The cluster takes a point strictly inside its core as its own
			 * without a lookup. */
			claimed += o != rank && qx > core[0] && qx < core[2] && qy > core[1] &&
			           qy < core[3];
			int m = steer_partition_near(p, qx - 1, qy - 1, qx + 1, qy + 1, near);
			bad_near += !well_formed(near, m) || !in_list(near, m, o);
		}
		check_agree(p, px, py, NPOINTS);
	}
	CHECK(bad_box == 0, "%d points lie outside their owner's box", bad_box);
	CHECK(bad_near == 0, "%d points' near() lists miss their owner", bad_near);
	CHECK(claimed == 0, "%d points strictly inside rank %d's core are another's", claimed,
	      rank);
	if (rank == 0)
		printf("     %d ranks, %d cuts: at most %d of %d cells changed owner at a cut\n",
		       size, CUTS, most_moved, SIDE * SIDE);
	free(near);
	free(boxes);
	steer_partition_destroy(p);
}

/* Each rank passes the points of a SIDE x SIDE lattice over [0,w]x[0,h] that it
 * owns, with equal weights, and the partition is cut by them. */
static void cut_by_lattice(steer_partition *p, double w, double h)
{
	enum { SIDE = 64 };
	static double x[SIDE * SIDE], y[SIDE * SIDE], wt[SIDE * SIDE];
	size_t n = 0;
	for (int k = 0; k < SIDE * SIDE; k++) {
		double qx = (k / SIDE + 0.5) * w / SIDE, qy = (k % SIDE + 0.5) * h / SIDE;
		if (steer_partition_owner(p, qx, qy) == rank)
			x[n] = qx, y[n] = qy, wt[n] = 1.0, n++;
	}
	char err[256] = "";
	CHECK(steer_partition_cut(p, n, x, y, wt, err, sizeof err) == STEER_OK, "cut: %s", err);
}

/* The narrowest region of [0,w]x[0,h], its box clipped to it. */
static double narrowest(const steer_partition *p, double w)
{
	double least = INFINITY, box[4];
	for (int r = 0; r < size; r++) {
		steer_partition_box(p, r, box);
		least = fmin(least, fmin(box[2], w) - fmax(box[0], 0.0));
	}
	return least;
}

/* A wide world cut into upright strips, then made tall: its regions take the tall
 * box's own axes at the next cut (else they stay strips, narrower than the world is
 * wide). */
static void test_new_box_new_axes(void)
{
	steer_partition *p = make_over(0, 0, 4000, 1000);
	cut_by_lattice(p, 4000, 1000);
	steer_partition_set_box(p, 0, 0, 1000, 4000);
	cut_by_lattice(p, 1000, 4000);
	double least = narrowest(p, 1000);
	if (rank == 0)
		printf("     %d ranks: the narrowest region of the tall world is %.0f wide\n", size,
		       least);
	CHECK(least >= 600, "a region of the tall world is %.0f wide: the wide world's axes",
	      least);
	check_agree(p, px, py, NPOINTS);
	steer_partition_destroy(p);
}

/* A box of about the same shape keeps the axes: a world a hair taller than wide,
 * whose first cut is across y, made a hair wider, is cut again by the same weights
 * and no point changes owner (its own first cut would be across x). */
static void test_box_of_the_same_shape(void)
{
	steer_partition *p = make_over(0, 0, 1000, 1010);
	cut_by_lattice(p, 1000, 1000);
	int *before = malloc(NPOINTS * sizeof *before);
	if (!before)
		abort();
	for (int i = 0; i < NPOINTS; i++)
		before[i] = steer_partition_owner(p, (px[i] - X0) * 1000 / (X1 - X0),
		                                  (py[i] - Y0) * 1000 / (Y1 - Y0));
	steer_partition_set_box(p, 0, 0, 1010, 1000);
	cut_by_lattice(p, 1000, 1000);
	int moved = 0;
	for (int i = 0; i < NPOINTS; i++)
		moved += before[i] != steer_partition_owner(p, (px[i] - X0) * 1000 / (X1 - X0),
		                                            (py[i] - Y0) * 1000 / (Y1 - Y0));
	CHECK(moved == 0, "a box of about the same shape moved %d of %d points", moved, NPOINTS);
	free(before);
	steer_partition_destroy(p);
}

/* Cuts from almost no points: a set with no point on one side of its cut puts the cut
 * far outside it (AVERAGE_CUTS averages with the missing side's +-DBL_MAX), and
 * Zoltan's box of a region below it then reaches over others. Whatever the boxes do,
 * every point strictly inside this rank's core is this rank's. */
static void test_sparse_cuts(void)
{
	char err[256] = "";
	steer_partition *p = make_over(0, 0, 4000, 1000);
	double two_x[2] = {1000, 3000}, two_y[2] = {500, 500}, one[50];
	double col_x[50], col_y[50];
	for (int k = 0; k < 50; k++)
		col_x[k] = 2000, col_y[k] = 10 + k * 19.6, one[k] = 1.0;
	struct {
		size_t n;
		const double *x, *y;
	} sets[] = {
	    {2, two_x, two_y}, {50, col_x, col_y}, {1, two_x + 1, two_y}, {2, two_x, two_y}};
	double *box = malloc((size_t)size * 4 * sizeof *box);
	if (!box)
		abort();
	int wrong = 0, overlaps = 0;
	for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
		size_t n = rank == 0 ? sets[k].n : 0;
		CHECK(steer_partition_cut(p, n, sets[k].x, sets[k].y, one, err, sizeof err) ==
		          STEER_OK,
		      "cut %zu: %s", k, err);
		double core[4];
		steer_partition_core(p, core);
		for (int r = 0; r < size; r++)
			steer_partition_box(p, r, box + 4 * r);
		for (int i = 0; i < NPOINTS; i++) {
			double qx = (px[i] - X0) * 4000 / (X1 - X0),
			       qy = (py[i] - Y0) * 1000 / (Y1 - Y0);
			int o = steer_partition_owner(p, qx, qy);
			wrong += qx > core[0] && qx < core[2] && qy > core[1] && qy < core[3] &&
			         o != rank;
			for (int r = 0; r < size; r++) {
				const double *b = box + 4 * r;
				overlaps +=
				    r != o && qx > b[0] && qx < b[2] && qy > b[1] && qy < b[3];
			}
		}
		check_agree(p, px, py, NPOINTS);
	}
	if (rank == 0)
		printf(
		    "     %d ranks: %d times a point lay strictly inside a box not its owner's\n",
		    size, overlaps);
	CHECK(wrong == 0, "%d points strictly inside rank %d's core are another's", wrong, rank);
	free(box);
	steer_partition_destroy(p);
}

/* A test passes when it passed on every rank. */
static void run(void (*fn)(void), const char *name)
{
	int before = check_failures_;
	fn();
	int mine = check_failures_ != before, any = 0;
	MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any)
		tests_failed_++;
	else
		tests_passed_++;
	if (rank == 0)
		printf("%s %s (%d ranks)\n", any ? "FAIL" : "ok  ", name, size);
	fflush(stdout);
}
#define RUN_ALL(fn) run(fn, #fn)

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	random_points();
	crowd();
	RUN_ALL(test_owners_agree);
	RUN_ALL(test_near);
	RUN_ALL(test_on_the_cut);
	RUN_ALL(test_equal_area);
	RUN_ALL(test_cut_balances);
	RUN_ALL(test_cut_cells);
	RUN_ALL(test_cut_keeps_regions);
	RUN_ALL(test_many_cuts);
	RUN_ALL(test_new_box_new_axes);
	RUN_ALL(test_box_of_the_same_shape);
	RUN_ALL(test_sparse_cuts);
	RUN_ALL(test_failures);
	int failed = tests_failed_;
	if (rank == 0)
		printf("%d passed, %d failed\n", tests_passed_, tests_failed_);
	MPI_Finalize();
	return failed ? 1 : 0;
}
