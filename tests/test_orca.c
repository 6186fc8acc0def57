/* The ORCA geometry and linear program on their own (sim/orca.c): bodies whose
 * velocities are set exactly as the program picks must never touch; and every
 * kernel form's lanes make the very lines steer_orca_body makes. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernel.h"
#include "orca.h"

#define DT 0.02

typedef struct disc {
	steer_vec2 p, v, goal;
	double r, max_speed;
} disc;

/* One step of n discs that all avoid each other (half each) and the still discs
 * rocks[0 .. nr) (in full): each picks its velocity from the same starting state,
 * then all move. */
static int step_no;

static void orca_step(disc *d, int n, const disc *rocks, int nr, double tau)
{
	step_no++;
	steer_vec2 next[16];
	for (int i = 0; i < n; i++) {
		steer_orca_line lines[STEER_ORCA_MAX_LINES];
		size_t m = 0;
		for (int k = 0; k < nr; k++) {
			steer_vec2 rel = v2_sub(rocks[k].p, d[i].p);
			steer_orca_segment(rel, rel, rocks[k].r + d[i].r, tau, d[i].v, v2(1, 0),
			                   &lines[m++]);
		}
		size_t hard = m;
		for (int j = 0; j < n; j++)
			if (j != i)
				lines[m++] = steer_orca_body(
				    v2_sub(d[j].p, d[i].p), v2_sub(d[i].v, d[j].v), d[i].r + d[j].r,
				    tau, DT, 0.5, d[i].v, v2(1, 0));
		steer_vec2 to = v2_sub(d[i].goal, d[i].p);
		steer_vec2 pref = v2_truncate(v2_scale(to, 1.0 / DT), d[i].max_speed);
		/* A small wobble, as the world's per-vehicle hash gives: a perfectly
		 * symmetric crowd has no side to give way on. */
		double a = 2.4 * i + 0.7 * (double)step_no;
		pref = v2_add(pref, v2_scale(v2(cos(a), sin(a)), 1e-2 * v2_len(pref)));
		next[i] = steer_orca_solve(lines, m, hard, d[i].max_speed, pref);
	}
	for (int i = 0; i < n; i++) {
		d[i].v = next[i];
		d[i].p = v2_add(d[i].p, v2_scale(d[i].v, DT));
	}
}

static double gap(const disc *a, const disc *b)
{
	return v2_len(v2_sub(a->p, b->p)) - a->r - b->r;
}

static void head_on_pair_never_touches(void)
{
	disc d[2] = {{v2(0, 0), v2(0, 0), v2(400, 0), 5, 100},
	             {v2(400, 0), v2(0, 0), v2(0, 0), 5, 100}};
	double worst = 1e9;
	for (int t = 0; t < 500; t++) {
		orca_step(d, 2, NULL, 0, 2.0);
		worst = fmin(worst, gap(&d[0], &d[1]));
	}
	CHECK(worst >= -1e-9, "the pair overlapped by %g", -worst);
	CHECK(v2_len(v2_sub(d[0].p, d[0].goal)) < 1 && v2_len(v2_sub(d[1].p, d[1].goal)) < 1,
	      "did not arrive: %g, %g", v2_len(v2_sub(d[0].p, d[0].goal)),
	      v2_len(v2_sub(d[1].p, d[1].goal)));
}

static void circle_of_eight_never_touches(void)
{
	disc d[8];
	for (int i = 0; i < 8; i++) {
		double a = STEER_TAU * i / 8;
		d[i] = (disc){v2(100 * cos(a), 100 * sin(a)), v2(0, 0),
		              v2(-100 * cos(a), -100 * sin(a)), 8, 50};
	}
	double worst = 1e9;
	for (int t = 0; t < 1500; t++) {
		orca_step(d, 8, NULL, 0, 1.0);
		for (int i = 0; i < 8; i++)
			for (int j = i + 1; j < 8; j++)
				worst = fmin(worst, gap(&d[i], &d[j]));
	}
	/* Reciprocity holds to rounding only. */
	CHECK(worst >= -1e-6, "two of the eight overlapped by %g", -worst);
	int arrived = 0;
	for (int i = 0; i < 8; i++)
		arrived += v2_len(v2_sub(d[i].p, d[i].goal)) < 1;
	CHECK(arrived == 8, "%d of 8 reached their antipodes", arrived);
}

/* A C-shaped cluster of still discs open towards the disc, the goal behind it: the
 * disc may be trapped, but it must never enter a rock. */
static void c_shaped_cluster_never_entered(void)
{
	disc rocks[9];
	for (int k = 0; k < 9; k++) {
		double a = -2.0 + 4.0 * k / 8; /* the C's arc, open to the left */
		rocks[k] = (disc){v2(300 + 40 * cos(a), 40 * sin(a)), v2(0, 0), v2(0, 0), 12, 0};
	}
	disc d = {v2(0, 0.5), v2(0, 0), v2(600, 0), 5, 100};
	double worst = 1e9;
	for (int t = 0; t < 1000; t++) {
		orca_step(&d, 1, rocks, 9, 1.0);
		for (int k = 0; k < 9; k++)
			worst = fmin(worst, gap(&d, &rocks[k]));
	}
	CHECK(worst >= -1e-9, "entered a rock by %g", -worst);
}

/* Opposing constraints cannot cancel: pushed from both sides, the velocity is the
 * one that violates both least, not the preferred one. */
static void opposing_lines_meet_halfway(void)
{
	steer_orca_line l[2] = {{v2(0, 1), v2(1, 0)},    /* permits y >= 1 */
	                        {v2(0, -1), v2(-1, 0)}}; /* permits y <= -1 */
	steer_vec2 v = steer_orca_solve(l, 2, 0, 10, v2(3, 5));
	CHECK(fabs(v.y) < 1e-9, "y %g, want 0", v.y);
	/* A hard line holds against a soft one. */
	v = steer_orca_solve(l, 2, 1, 10, v2(3, -5));
	CHECK(v.y >= 1 - 1e-9, "hard line broken: y %g", v.y);
	/* Nothing violated: the preferred velocity itself. */
	v = steer_orca_solve(l, 1, 1, 10, v2(3, 5));
	CHECK(v.x == 3 && v.y == 5, "moved a permitted velocity to (%g, %g)", v.x, v.y);
}

/* A segment across the way: heading straight at it the velocity is stopped short
 * of it; alongside it the velocity is left alone. */
static void segment_stops_the_approach(void)
{
	steer_orca_line l;
	steer_orca_segment(v2(-50, 20), v2(50, 20), 5, 1.0, v2(0, 100), v2(0, -1), &l);
	steer_vec2 v = steer_orca_solve(&l, 1, 1, 100, v2(0, 100));
	CHECK(v.y <= 15 + 1e-9, "would reach the segment within the horizon: vy %g", v.y);
	steer_orca_segment(v2(-50, 20), v2(50, 20), 5, 1.0, v2(100, 0), v2(0, -1), &l);
	CHECK(steer_orca_permits(&l, 1, v2(100, 0)), "sliding along it is forbidden");
	/* Touching: only moving away or along is permitted. */
	steer_orca_segment(v2(-50, 4), v2(50, 4), 5, 1.0, v2(0, 10), v2(0, -1), &l);
	CHECK(!steer_orca_permits(&l, 1, v2(0, 1)), "may close in while touching");
	CHECK(steer_orca_permits(&l, 1, v2(10, 0)), "may not slide while touching");
}

/* A body for each of steer_orca_body's cases, then random ones: apart and nearest
 * the cut-off disc, nearest either leg, dead ahead (the right leg), overlapping,
 * and on the very centre with no relative velocity (away decides). */
static void fill_bodies(steer_orca_bodies *b, size_t n, uint64_t seed)
{
	static const double fixed[][6] = {
	    /* px, py, vx, vy, r, share */
	    {10, 0, 5, 0, 2, 0.5},   {10, 0, 0.9, 0.5, 2, 1},  {10, 0, 0.9, -0.5, 2, 0.5},
	    {10, 0, 1, 0, 2, 0.5},   {1, 0.5, 0.3, 0.1, 2, 1}, {0, 0, 0, 0, 2, 0.5},
	    {0, 0, 0.2, -0.1, 3, 1}, {3, 4, 0, 0, 5, 0.5},
	};
	const size_t nfixed = sizeof fixed / sizeof fixed[0];
	uint64_t x = seed;
	for (size_t k = 0; k < n + 8; k++) {
		double u[8];
		for (int m = 0; m < 8; m++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			u[m] = (double)(x >> 11) / 9007199254740992.0;
		}
		const double *f = fixed[k % nfixed];
		bool random = k >= nfixed;
		b->px[k] = random ? -8 + 16 * u[0] : f[0];
		b->py[k] = random ? -8 + 16 * u[1] : f[1];
		b->vx[k] = random ? -3 + 6 * u[2] : f[2];
		b->vy[k] = random ? -3 + 6 * u[3] : f[3];
		b->r[k] = random ? 0.5 + 3 * u[4] : f[4];
		b->share[k] = random ? (u[5] < 0.5 ? 0.5 : 1.0) : f[5];
		b->ax[k] = cos(6.283185307179586 * u[6]);
		b->ay[k] = sin(6.283185307179586 * u[6]);
	}
	b->tau = 0.5 + 10 * (double)(seed % 7) / 7.0;
	b->dt = 0.25;
	b->v = v2(0.7, -0.2);
}

static void lanes_make_the_scalar_lines(void)
{
	int forms;
	const steer_kernel *const *form = steer_kernel_forms(&forms);
	int laned = 0;
	for (int f = 0; f < forms; f++) {
		for (uint64_t seed = 1; seed <= 40; seed++) {
			static steer_orca_bodies b;
			steer_orca_line got[STEER_ORCA_BODIES_ROOM];
			size_t n = 1 + seed % STEER_ORCA_MAX_NEIGHBOURS;
			fill_bodies(&b, n, seed);
			size_t done = form[f]->orca_bodies(&b, n, got);
			CHECK(done == 0 || done == n, "form %d did %zu of %zu", f, done, n);
			laned += done > 0;
			for (size_t k = 0; k < done; k++) {
				steer_orca_line want = steer_orca_body(
				    v2(b.px[k], b.py[k]), v2(b.vx[k], b.vy[k]), b.r[k], b.tau, b.dt,
				    b.share[k], b.v, v2(b.ax[k], b.ay[k]));
				CHECK(!memcmp(&want, &got[k], sizeof want),
				      "form %d, body %zu of seed %llu: (%.17g, %.17g) dir (%.17g, "
				      "%.17g) "
				      "in lanes, (%.17g, %.17g) dir (%.17g, %.17g) by "
				      "steer_orca_body",
				      f, k, (unsigned long long)seed, got[k].point.x,
				      got[k].point.y, got[k].dir.x, got[k].dir.y, want.point.x,
				      want.point.y, want.dir.x, want.dir.y);
			}
		}
	}
	/* Every form but the one-lane one (which leaves the bodies to its caller). */
	CHECK(laned == (forms - 1) * 40, "%d of %d runs in lanes", laned, (forms - 1) * 40);
}

int main(void)
{
	RUN(head_on_pair_never_touches);
	RUN(circle_of_eight_never_touches);
	RUN(c_shaped_cluster_never_entered);
	RUN(opposing_lines_meet_halfway);
	RUN(segment_stops_the_approach);
	RUN(lanes_make_the_scalar_lines);
	return CHECK_DONE();
}
