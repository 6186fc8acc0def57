#include "partition.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

struct steer_partition {
	MPI_Comm comm; /* our duplicate: our collectives never meet the caller's */
	int rank, size;
	unsigned cuts;
	double box[4]; /* the box the first cut is made over: {x0, y0, x1, y1} (set_box) */
	/* The current cut: a Zoltan structure holding its RCB tree (KEEP_CUTS), the same
	 * on every rank. NULL with one rank, where everything is rank 0. */
	struct Zoltan_Struct *zz;
	/* The structure the next cut is made on, holding a tree along the same axes (the
	 * cut before, or the first cut made again); NULL until a cut needs it, and after
	 * a cut on it failed. */
	struct Zoltan_Struct *spare;
	/* The current tree's axes are an old box's (steer_partition_set_box): after the
	 * next cut it is dropped rather than kept as the spare. */
	bool old_axes;
	/* This rank's core (steer_partition_core), made again with every cut. */
	double core[4];
	/* The rank each of RCB's parts is given, and back (identity until a cut made
	 * again remaps them: assign_parts). */
	int *rank_of_part, *part_of_rank;
};

/* The points of one cut, as Zoltan's callbacks read them. */
struct points {
	size_t n;
	const double *x, *y;
	const float *w;          /* Zoltan's weights are float */
	unsigned long long base; /* this rank's first global id */
};

/* The initial cut: this many points with equal weights, spread evenly over the box. */
enum { GRID_POINTS = 64 * 64 };

/* What a cut's input can be wrong with, or-ed over the ranks so that every rank
 * reports the same failure. */
enum {
	BAD_COORD = 1,
	BAD_WEIGHT = 2,
	BAD_ARRAYS = 4,
	BAD_MANY = 8,
	BAD_NOMEM = 16,
};

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* MPI's default handler aborts the job on an error, so a failing call is only seen
 * with a handler the caller installed; then it is fatal here too, as the ranks could
 * no longer agree. */
static void mpi_check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "steer partition: %s failed (MPI error %d)\n", what, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static bool all_ranks(MPI_Comm comm, bool mine)
{
	int in = mine ? 1 : 0, out = 0;
	mpi_check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
	return out == 1;
}

static int num_obj(void *data, int *ierr)
{
	const struct points *pts = data;
	*ierr = ZOLTAN_OK;
	return (int)pts->n;
}

static void obj_list(void *data, int num_gid, int num_lid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int wdim, float *wgts, int *ierr)
{
	const struct points *pts = data;
	if (num_gid != 1 || num_lid != 1 || wdim != 1) {
		*ierr = ZOLTAN_FATAL;
		return;
	}
	for (size_t i = 0; i < pts->n; i++) {
		gids[i] = (ZOLTAN_ID_TYPE)(pts->base + i);
		lids[i] = (ZOLTAN_ID_TYPE)i;
		wgts[i] = pts->w[i];
	}
	*ierr = ZOLTAN_OK;
}

static int num_geom(void *data, int *ierr)
{
	(void)data;
	*ierr = ZOLTAN_OK;
	return 2;
}

static void geom_multi(void *data, int num_gid, int num_lid, int num_obj, ZOLTAN_ID_PTR gids,
                       ZOLTAN_ID_PTR lids, int num_dim, double *geom, int *ierr)
{
	const struct points *pts = data;
	(void)gids;
	if (num_gid != 1 || num_lid != 1 || num_dim != 2) {
		*ierr = ZOLTAN_FATAL;
		return;
	}
	for (int i = 0; i < num_obj; i++) {
		size_t k = lids[i];
		if (k >= pts->n) {
			*ierr = ZOLTAN_FATAL;
			return;
		}
		geom[2 * i] = pts->x[k];
		geom[2 * i + 1] = pts->y[k];
	}
	*ierr = ZOLTAN_OK;
}

/* pts as the points zz's callbacks read. */
static bool read_points(struct Zoltan_Struct *zz, struct points *pts)
{
	return Zoltan_Set_Num_Obj_Fn(zz, num_obj, pts) == ZOLTAN_OK &&
	       Zoltan_Set_Obj_List_Fn(zz, obj_list, pts) == ZOLTAN_OK &&
	       Zoltan_Set_Num_Geom_Fn(zz, num_geom, pts) == ZOLTAN_OK &&
	       Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, pts) == ZOLTAN_OK;
}

/* A Zoltan structure on comm set up for RCB, or NULL; *ok says whether every
 * parameter took. A structure whose parameters failed is returned all the same:
 * destroying it frees a communicator, which every rank does together. */
static struct Zoltan_Struct *zoltan_new(MPI_Comm comm, bool *ok)
{
	static const char *const params[][2] = {
	    {"DEBUG_LEVEL", "0"},
	    {"LB_METHOD", "RCB"},
	    {"NUM_GID_ENTRIES", "1"},
	    {"NUM_LID_ENTRIES", "1"},
	    {"OBJ_WEIGHT_DIM", "1"},
	    {"RETURN_LISTS", "NONE"},
	    /* The tree of cuts, on every rank: owner() and near() walk it. */
	    {"KEEP_CUTS", "1"},
	    /* A cut midway between the nearest points on either side rather than on a
	     * point, so that with distinct coordinates no point lies on a cut and the
	     * regions' contents are exactly what RCB balanced. */
	    {"AVERAGE_CUTS", "1"},
	    {"RCB_REUSE", "0"},
	    /* Points sharing the cut's coordinate (a row of cells' centres) all go to one
	     * side, as owner() will put them, so each level balances the sets the
	     * regions really hold; otherwise RCB splits the row to balance and the
	     * geometry undoes it. */
	    {"RCB_RECTILINEAR_BLOCKS", "1"},
	    /* Each bisection as even as the points allow: the imbalance compounds over
	     * the levels of the tree. */
	    {"IMBALANCE_TOL", "1.01"},
	    /* A structure that holds a tree cuts again along its axes: RCB bisects the
	     * longer side of the points' box, and a square's sides, a hair apart, would
	     * turn the first bisection from x to y and move half the world between
	     * ranks. */
	    {"RCB_LOCK_DIRECTIONS", "1"},
	    /* Parts are given to ranks here (assign_parts), from the weights. */
	    {"REMAP", "0"},
	};
	struct Zoltan_Struct *zz = Zoltan_Create(comm);
	*ok = zz != NULL;
	for (size_t i = 0; *ok && i < sizeof params / sizeof params[0]; i++)
		*ok = Zoltan_Set_Param(zz, params[i][0], params[i][1]) == ZOLTAN_OK;
	return zz;
}

/* Collective: RCB over pts on zz (the ranks' zz alike). ZOLTAN_OK or the worst of
 * the ranks' failures, the same on every rank. */
static int partition_on(MPI_Comm comm, struct Zoltan_Struct *zz, struct points *pts)
{
	int rc = read_points(zz, pts) ? ZOLTAN_OK : ZOLTAN_FATAL;
	int changes = 0, num_gid = 0, num_lid = 0, num_import = 0, num_export = 0;
	ZOLTAN_ID_PTR import_gids = NULL, import_lids = NULL, export_gids = NULL,
	              export_lids = NULL;
	int *import_procs = NULL, *import_parts = NULL, *export_procs = NULL, *export_parts = NULL;
	if (all_ranks(comm, rc == ZOLTAN_OK))
		rc =
		    Zoltan_LB_Partition(zz, &changes, &num_gid, &num_lid, &num_import, &import_gids,
		                        &import_lids, &import_procs, &import_parts, &num_export,
		                        &export_gids, &export_lids, &export_procs, &export_parts);
	else
		rc = ZOLTAN_FATAL;
	/* RETURN_LISTS NONE: the lists stay NULL, but freeing is the documented pairing. */
	Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
	Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
	/* ZOLTAN_WARN (positive) is a cut made: an imbalance it could not avoid. The
	 * worst over the ranks: 0 made, 1 failed, 2 out of memory. */
	int mine = rc >= ZOLTAN_OK ? 0 : rc == ZOLTAN_MEMERR ? 2 : 1, worst = 0;
	mpi_check(MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
	return worst == 0 ? ZOLTAN_OK : worst == 2 ? ZOLTAN_MEMERR : ZOLTAN_FATAL;
}

/* Collective: a new structure holding the equal-area cut of p's box (the first cut,
 * whose axes every later cut keeps), or NULL on every rank. */
static struct Zoltan_Struct *first_cut(steer_partition *p)
{
	/* Equal area: equal weights on points spread evenly. A Fibonacci lattice rather
	 * than a square grid, so that no two points share a coordinate and each cut can
	 * fall between any two of them, not only between whole rows. Each rank takes
	 * every size-th point; the positions depend on nothing but the box. */
	size_t mine = (GRID_POINTS - (size_t)p->rank + (size_t)p->size - 1) / (size_t)p->size;
	double *xs = malloc(mine * sizeof *xs), *ys = malloc(mine * sizeof *ys);
	float *ws = malloc(mine * sizeof *ws);
	bool made = false;
	struct Zoltan_Struct *zz = zoltan_new(p->comm, &made);
	bool ok = xs && ys && ws && made;
	if (ok) {
		const double golden = 0.6180339887498949;
		size_t k = 0;
		for (size_t i = (size_t)p->rank; i < GRID_POINTS; i += (size_t)p->size, k++) {
			double u = ((double)i + 0.5) / GRID_POINTS;
			double v = fmod((double)i * golden, 1.0);
			xs[k] = p->box[0] + u * (p->box[2] - p->box[0]);
			ys[k] = p->box[1] + v * (p->box[3] - p->box[1]);
			ws[k] = 1.0f;
		}
	}
	if (all_ranks(p->comm, ok)) {
		struct points pts = {mine, xs, ys, ws, 0};
		unsigned long long n = mine, base = 0;
		mpi_check(MPI_Exscan(&n, &base, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, p->comm),
		          "MPI_Exscan");
		pts.base = p->rank == 0 ? 0 : base;
		ok = partition_on(p->comm, zz, &pts) == ZOLTAN_OK;
	} else {
		ok = false;
	}
	if (!ok && zz)
		Zoltan_Destroy(&zz);
	free(xs);
	free(ys);
	free(ws);
	return zz;
}

/* Collective: replaces p's cut by RCB over pts (already checked: some weight is
 * positive somewhere), or leaves it and says why. The cut is made on the spare
 * structure, whose tree has the current one's axes, so that a failed cut leaves the
 * current tree untouched; the two then trade places. */
static steer_status rcb(steer_partition *p, struct points *pts, char *err, size_t errlen)
{
	if (!p->spare && !(p->spare = first_cut(p))) {
		say(err, errlen,
		    "partition: Zoltan could not be set up (out of memory?); the previous cut "
		    "stays");
		return STEER_ERR_NOMEM;
	}
	int rc = partition_on(p->comm, p->spare, pts);
	if (rc != ZOLTAN_OK) {
		/* Its tree may be half made: the next cut starts from the first again. */
		Zoltan_Destroy(&p->spare);
		say(err, errlen,
		    "partition: Zoltan's RCB failed (%s on some rank); the previous cut stays",
		    rc == ZOLTAN_MEMERR ? "out of memory" : "an error");
		return rc == ZOLTAN_MEMERR ? STEER_ERR_NOMEM : STEER_ERR_INVALID;
	}
	struct Zoltan_Struct *last = p->zz;
	p->zz = p->spare;
	p->spare = last;
	if (p->old_axes)
		Zoltan_Destroy(&p->spare);
	p->old_axes = false;
	return STEER_OK;
}

static bool zoltan_ready(char *err, size_t errlen)
{
	static bool done;
	if (done)
		return true;
	float version = 0;
	if (Zoltan_Initialize(0, NULL, &version) != ZOLTAN_OK) {
		say(err, errlen, "partition: Zoltan_Initialize failed");
		return false;
	}
	done = true;
	return true;
}

/* This rank's core: its box, unless another region's box meets the box's inside.
 * Zoltan's box of a region sets each side from the deepest cut along its path that
 * bounds it, without meeting it with the cuts above: a cut that fell outside its
 * parent's interval (a set with no points on one side, whose cut averages to
 * +-DBL_MAX or lies at 0) makes the box reach past a cut above, over another
 * region. Every box still holds its region, so when no other box meets this one's
 * inside, every point inside is this rank's. */
static void update_core(steer_partition *p)
{
	double mine[4], other[4];
	steer_partition_box(p, p->rank, mine);
	bool alone = true;
	for (int r = 0; r < p->size && alone; r++) {
		if (r == p->rank)
			continue;
		steer_partition_box(p, r, other);
		alone = !(other[0] < mine[2] && other[2] > mine[0] && other[1] < mine[3] &&
		          other[3] > mine[1]);
	}
	if (alone) {
		memcpy(p->core, mine, sizeof mine);
	} else {
		p->core[0] = p->core[1] = INFINITY;
		p->core[2] = p->core[3] = -INFINITY;
	}
}

steer_partition *steer_partition_create(MPI_Comm comm, double x0, double y0, double x1, double y1,
                                        char *err, size_t errlen)
{
	int inited = 0;
	if (MPI_Initialized(&inited) != MPI_SUCCESS || !inited) {
		say(err, errlen, "partition: MPI is not initialised (call MPI_Init first)");
		return NULL;
	}
	bool box_ok =
	    isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1) && x0 < x1 && y0 < y1;
	if (!all_ranks(comm, box_ok)) {
		say(err, errlen,
		    "partition: the world's box [%g,%g]x[%g,%g] is empty or not finite (on some "
		    "rank)",
		    x0, x1, y0, y1);
		return NULL;
	}
	steer_partition *p = calloc(1, sizeof *p);
	bool ok = p != NULL;
	if (!all_ranks(comm, ok)) {
		free(p);
		say(err, errlen, "partition: out of memory");
		return NULL;
	}
	mpi_check(MPI_Comm_dup(comm, &p->comm), "MPI_Comm_dup");
	mpi_check(MPI_Comm_rank(p->comm, &p->rank), "MPI_Comm_rank");
	mpi_check(MPI_Comm_size(p->comm, &p->size), "MPI_Comm_size");
	p->rank_of_part = malloc((size_t)p->size * sizeof *p->rank_of_part);
	p->part_of_rank = malloc((size_t)p->size * sizeof *p->part_of_rank);
	if (!all_ranks(p->comm, p->rank_of_part && p->part_of_rank)) {
		steer_partition_destroy(p);
		say(err, errlen, "partition: out of memory");
		return NULL;
	}
	for (int r = 0; r < p->size; r++)
		p->rank_of_part[r] = p->part_of_rank[r] = r;
	p->box[0] = x0;
	p->box[1] = y0;
	p->box[2] = x1;
	p->box[3] = y1;
	if (p->size == 1) {
		update_core(p);
		return p;
	}

	if (!all_ranks(p->comm, zoltan_ready(err, errlen))) {
		say(err, errlen, "partition: Zoltan_Initialize failed (on some rank)");
		steer_partition_destroy(p);
		return NULL;
	}
	p->zz = first_cut(p);
	if (!p->zz) {
		say(err, errlen,
		    "partition: Zoltan could not cut the world's box (out of memory?)");
		steer_partition_destroy(p);
		return NULL;
	}
	update_core(p);
	return p;
}

void steer_partition_destroy(steer_partition *p)
{
	if (!p)
		return;
	if (p->zz)
		Zoltan_Destroy(&p->zz);
	if (p->spare)
		Zoltan_Destroy(&p->spare);
	if (p->comm != MPI_COMM_NULL)
		MPI_Comm_free(&p->comm);
	free(p->rank_of_part);
	free(p->part_of_rank);
	free(p);
}

/* One rank's weight in one new part, for assign_parts. */
struct overlap {
	double weight;
	int rank, part;
};

static int heaviest_first(const void *a, const void *b)
{
	const struct overlap *u = a, *v = b;
	if (u->weight != v->weight)
		return u->weight > v->weight ? -1 : 1;
	if (u->rank != v->rank)
		return u->rank < v->rank ? -1 : 1;
	return (u->part > v->part) - (u->part < v->part);
}

/* Collective, after a cut: gives each rank the new part holding the most of the
 * weight it passed, heaviest overlaps first. RCB numbers its parts in the order of
 * its cuts, and a cut made again can number the same regions otherwise (the longer
 * side of a box decides which comes first): a rank would then send its whole region
 * to another and take another's. Every rank sorts the same gathered sums, so every
 * rank assigns alike. With memory short on any rank, parts go to ranks by number. */
static void assign_parts(steer_partition *p, const struct points *pts)
{
	size_t size = (size_t)p->size;
	double *mine = calloc(size, sizeof *mine), *all = malloc(size * size * sizeof *all);
	struct overlap *pairs = malloc(size * size * sizeof *pairs);
	bool ok = mine && all && pairs;
	for (size_t i = 0; ok && i < pts->n; i++) {
		double at[3] = {pts->x[i], pts->y[i], 0.0};
		int proc = -1, part = -1;
		if (Zoltan_LB_Point_PP_Assign(p->zz, at, &proc, &part) == ZOLTAN_OK && part >= 0 &&
		    part < p->size)
			mine[part] += pts->w[i];
	}
	if (all_ranks(p->comm, ok)) {
		mpi_check(
		    MPI_Allgather(mine, p->size, MPI_DOUBLE, all, p->size, MPI_DOUBLE, p->comm),
		    "MPI_Allgather");
		for (size_t k = 0; k < size * size; k++)
			pairs[k] = (struct overlap){all[k], (int)(k / size), (int)(k % size)};
		qsort(pairs, size * size, sizeof *pairs, heaviest_first);
		for (int r = 0; r < p->size; r++)
			p->rank_of_part[r] = p->part_of_rank[r] = -1;
		/* Every (rank, part) pair comes up: each rank gets a part. */
		for (size_t k = 0; k < size * size; k++)
			if (p->part_of_rank[pairs[k].rank] < 0 &&
			    p->rank_of_part[pairs[k].part] < 0) {
				p->part_of_rank[pairs[k].rank] = pairs[k].part;
				p->rank_of_part[pairs[k].part] = pairs[k].rank;
			}
	} else {
		for (int r = 0; r < p->size; r++)
			p->rank_of_part[r] = p->part_of_rank[r] = r;
	}
	free(mine);
	free(all);
	free(pairs);
}

steer_status steer_partition_cut(steer_partition *p, size_t n, const double *x, const double *y,
                                 const double *weight, char *err, size_t errlen)
{
	int bad = 0;
	float wmax = 0.0f;
	float *w = NULL;
	if (n > 0 && (!x || !y || !weight))
		bad |= BAD_ARRAYS;
	/* Zoltan counts a rank's objects in an int. */
	if (n > INT_MAX)
		bad |= BAD_MANY;
	if (!bad && n > 0 && !(w = malloc(n * sizeof *w)))
		bad |= BAD_NOMEM;
	for (size_t i = 0; !bad && i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			bad |= BAD_COORD;
		if (!isfinite(weight[i]) || weight[i] < 0 || weight[i] > FLT_MAX) {
			bad |= BAD_WEIGHT;
			continue;
		}
		w[i] = (float)weight[i];
		if (w[i] > wmax)
			wmax = w[i];
	}
	unsigned long long count = n, total = 0, base = 0;
	float wmax_all = 0.0f;
	int bad_all = 0;
	mpi_check(MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_BOR, p->comm), "MPI_Allreduce");
	mpi_check(MPI_Allreduce(&count, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, p->comm),
	          "MPI_Allreduce");
	mpi_check(MPI_Allreduce(&wmax, &wmax_all, 1, MPI_FLOAT, MPI_MAX, p->comm), "MPI_Allreduce");
	mpi_check(MPI_Exscan(&count, &base, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, p->comm),
	          "MPI_Exscan");
	if (p->rank == 0)
		base = 0;
	/* Zoltan's global ids are ZOLTAN_ID_TYPE. */
	if (total > (unsigned long long)(ZOLTAN_ID_TYPE)-1)
		bad_all |= BAD_MANY;

	steer_status st = STEER_OK;
	if (bad_all & BAD_NOMEM) {
		say(err, errlen,
		    "partition: out of memory for the cut's weights; the previous cut stays");
		st = STEER_ERR_NOMEM;
	} else if (bad_all & BAD_MANY) {
		say(err, errlen,
		    "partition: %llu points are more than Zoltan can number; the previous cut "
		    "stays",
		    total);
		st = STEER_ERR_LIMIT;
	} else if (bad_all & BAD_ARRAYS) {
		say(err, errlen,
		    "partition: points without their arrays (NULL); the previous cut stays");
		st = STEER_ERR_INVALID;
	} else if (bad_all & BAD_COORD) {
		say(err, errlen,
		    "partition: a point's coordinate is not finite (NaN or infinity); the previous "
		    "cut "
		    "stays");
		st = STEER_ERR_INVALID;
	} else if (bad_all & BAD_WEIGHT) {
		say(err, errlen,
		    "partition: a weight is negative, not finite or beyond a float; the previous "
		    "cut "
		    "stays");
		st = STEER_ERR_INVALID;
	} else if (!(wmax_all > 0.0f)) {
		say(err, errlen,
		    "partition: no point with a positive weight on any rank (%llu points); the "
		    "previous cut stays",
		    total);
		st = STEER_ERR_INVALID;
	} else if (p->size > 1) {
		struct points pts = {n, x, y, w, base};
		st = rcb(p, &pts, err, errlen);
		if (st == STEER_OK) {
			assign_parts(p, &pts);
			update_core(p);
		}
	}
	free(w);
	if (st == STEER_OK)
		p->cuts++;
	return st;
}

int steer_partition_owner(const steer_partition *p, double x, double y)
{
	if (!p->zz)
		return 0;
	double at[3] = {x, y, 0.0};
	int proc = -1, part = -1;
	/* It walks the tree every rank holds; it fails only without a tree, which a
	 * partition never is, so a failure is a broken invariant. */
	if (Zoltan_LB_Point_PP_Assign(p->zz, at, &proc, &part) != ZOLTAN_OK || proc < 0 ||
	    proc >= p->size) {
		fprintf(stderr, "steer partition: Zoltan could not place (%g, %g)\n", x, y);
		abort();
	}
	/* RCB's part p lies on process p: one part per process. */
	return p->rank_of_part[proc];
}

int steer_partition_near(const steer_partition *p, double x0, double y0, double x1, double y1,
                         int *ranks)
{
	if (!p->zz) {
		ranks[0] = 0;
		return 1;
	}
	int nprocs = 0, nparts = 0;
	/* Zoltan's walk keeps a branch when the box reaches the cut (<= and >=) while a
	 * point on the cut goes below it (<=): so the owner of every point of the box is
	 * in the list. */
	if (Zoltan_LB_Box_PP_Assign(p->zz, x0, y0, 0.0, x1, y1, 0.0, ranks, &nprocs, NULL,
	                            &nparts) != ZOLTAN_OK) {
		/* Only an allocation inside Zoltan can fail here: every rank is a
		 * superset that keeps the promise. */
		for (int r = 0; r < p->size; r++)
			ranks[r] = r;
		return p->size;
	}
	/* The parts' ranks, ascending again. */
	for (int k = 0; k < nprocs; k++) {
		int r = p->rank_of_part[ranks[k]], j = k;
		for (; j > 0 && ranks[j - 1] > r; j--)
			ranks[j] = ranks[j - 1];
		ranks[j] = r;
	}
	return nprocs;
}

void steer_partition_box(const steer_partition *p, int rank, double box[4])
{
	box[0] = box[1] = -INFINITY;
	box[2] = box[3] = INFINITY;
	if (!p->zz)
		return;
	int ndim = 0;
	double zmin, zmax;
	/* A failure leaves the whole plane: callers take the box as an outer bound. */
	if (Zoltan_RCB_Box(p->zz, p->part_of_rank[rank], &ndim, &box[0], &box[1], &zmin, &box[2],
	                   &box[3], &zmax) != ZOLTAN_OK) {
		box[0] = box[1] = -INFINITY;
		box[2] = box[3] = INFINITY;
	}
}

void steer_partition_core(const steer_partition *p, double box[4])
{
	memcpy(box, p->core, sizeof p->core);
}

void steer_partition_set_box(steer_partition *p, double x0, double y0, double x1, double y1)
{
	if (!(isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1) && x0 < x1 && y0 < y1))
		return;
	double was = (p->box[2] - p->box[0]) / (p->box[3] - p->box[1]);
	double now = (x1 - x0) / (y1 - y0);
	if (now <= was * 1.25 && now >= was / 1.25)
		return;
	p->box[0] = x0;
	p->box[1] = y0;
	p->box[2] = x1;
	p->box[3] = y1;
	/* The next cut starts from the first cut of the new box, on every rank alike. */
	if (p->spare)
		Zoltan_Destroy(&p->spare);
	p->old_axes = p->zz != NULL;
}

unsigned steer_partition_cuts(const steer_partition *p)
{
	return p->cuts;
}

int steer_partition_ranks(const steer_partition *p)
{
	return p->size;
}
