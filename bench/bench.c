/* steer-bench: ticks a flock of N boids and prints how fast, and how much memory a
 * vehicle costs. The world is a wrap world sized so each boid has about --neighbours
 * others within sight_distance, the workload of the README's figures and of
 * OpenSteer's boids benchmark. --naive also runs the same rule with an all-pairs
 * neighbour loop on a copy of the same start, and prints the two side by side.
 * --clustered packs every boid into a small disc (hundreds within sight of each
 * other) to show the max_neighbours cap bounding the cost. A benchmark prints
 * figures; it asserts nothing. The grid line is followed by where its ticks went,
 * phase by phase. --threads 1,2,4 runs the same start once per thread count and
 * ends with a scaling table, and whether every count gave the one-thread bits.
 * --crowd N times a crowd instead (crowd.c): N walkers with avoidance on, each to a
 * random goal, among obstacles. --circle N runs RVO2's Circle scene until every agent
 * is home (circle.c). --avoid --obstacles M times N flocking boids with
 * avoid on among M drifting circles against the same among none (obstacles.c). */
#define _GNU_SOURCE /* mallinfo2 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "behaviors.h"
#include "bench_util.h"
#include "circle.h"
#include "crowd.h"
#include "obstacles.h"
#include "scenario.h"
#include "steer/world.h"

typedef struct bench_opts {
	long n;
	long ticks; /* 0: enough for about a second, at most 600 */
	double neighbours;
	int naive, clustered;
	int no_solid;    /* the world's solid rule off */
	int crowd;       /* --crowd: the crowd workload (crowd.c) instead of the flock */
	int circle;      /* --circle: RVO2's Circle scene (circle.c), until all are home */
	int avoid;       /* --avoid: boids with avoid among circles (obstacles.c) */
	long obstacles;  /* --obstacles M: the circles of --avoid */
	long pairs;      /* --pairs P: --avoid's interleaved pairs */
	int threads[16]; /* the thread counts to run, in order */
	int nthreads;
	long rounds; /* --rounds: times the list of counts is run, alternating its order */
	steer_simd_level simd; /* the world's cap */
	uint64_t seed;
	int n_given, seed_given; /* N and --seed were on the command line */
} bench_opts;

static int parse_simd(const char *name, steer_simd_level *out)
{
	for (int l = STEER_SIMD_SCALAR; l <= STEER_SIMD_AVX512; l++)
		if (!strcmp(name, steer_simd_name((steer_simd_level)l))) {
			*out = (steer_simd_level)l;
			return 0;
		}
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: steer-bench [N] [--ticks T] [--neighbours K] [--naive] [--clustered]\n"
	        "                   [--no-solid] [--threads N[,N...]] [--rounds R] [--simd "
	        "scalar|avx2|avx512] "
	        "[--seed S]\n"
	        "       steer-bench --crowd N [--ticks T] [--no-solid] [--threads N[,N...]] "
	        "[--simd L] [--seed S]\n"
	        "       steer-bench --circle N [--ticks T] [--no-solid] [--threads N[,N...]] "
	        "[--simd L] [--seed S]\n"
	        "       steer-bench [N] --avoid --obstacles M [--ticks T] [--pairs P]\n"
	        "                   [--no-solid] [--threads N] [--simd L] [--seed S]\n"
	        "  N             boids (default 10000)\n"
	        "  --ticks T     ticks to time (default: about one second's worth, <= 600)\n"
	        "  --neighbours  mean boids within sight_distance, sets the world size (10)\n"
	        "  --naive       also run the all-pairs baseline on the same start, side by side\n"
	        "  --clustered   all boids in one small disc (cost bounded by max_neighbours)\n"
	        "  --no-solid    turn the world's solid rule off (bodies may overlap)\n"
	        "  --threads     split the tick over N threads (same bits for any N); a list\n"
	        "                runs each count on the same start and prints a scaling table\n"
	        "  --rounds R    with a list of --threads: run the list R times (at most 64),\n"
	        "                its order reversed every other round, and print medians\n"
	        "  --simd        cap the vector lanes (default: the CPU's best; same bits)\n"
	        "  --crowd N     N walkers with avoidance on, each to a random goal (a new one\n"
	        "                on arrival) among circles and walls, at the flock's density;\n"
	        "                timed after 10 untimed ticks\n"
	        "  --circle N    RVO2's Circle scene (250 agents on a circle of radius 200, each\n"
	        "                to the point opposite; copies 500 apart up to N), run until\n"
	        "                every agent is home or T ticks (default 10000) have passed\n"
	        "  --avoid       N (default 5000) flocking boids with avoid on in a wrap world\n"
	        "                of 4000 x 3000 per 5,000, among --obstacles M drifting circles,\n"
	        "                against the same among none: P (default 5) interleaved pairs\n"
	        "                of T (default 60) ticks, and the median ratio (seed 3)\n");
}

/* "1,2,4": up to 16 counts, each 1..STEER_MAX_THREADS. More threads than cores are
 * allowed (to measure what oversubscribing costs), with a note. */
static int parse_threads(const char *list, bench_opts *o)
{
	o->nthreads = 0;
	const char *at = list;
	for (;;) {
		char *end;
		long t = strtol(at, &end, 10);
		if (end == at || t < 1 || t > STEER_MAX_THREADS || o->nthreads == 16 ||
		    (*end != ',' && *end != '\0')) {
			fprintf(stderr,
			        "steer-bench: --threads %s: give up to 16 counts, each 1..%d, "
			        "separated by commas\n",
			        list, STEER_MAX_THREADS);
			return -1;
		}
		o->threads[o->nthreads++] = (int)t;
		if (*end == '\0')
			break;
		at = end + 1;
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	for (int k = 0; k < o->nthreads; k++)
		if (cores > 0 && o->threads[k] > cores) {
			fprintf(
			    stderr,
			    "steer-bench: note: %d threads on %ld cores online: oversubscribed, "
			    "slower than %ld\n",
			    o->threads[k], cores, cores);
			break;
		}
	return 0;
}

/* The options that take a value. */
static const char *const valued[] = {"--crowd", "--circle",  "--obstacles", "--pairs",
                                     "--ticks", "--threads", "--simd",      "--neighbours",
                                     "--seed",  "--rounds"};

/* A whole number for option `opt` (or N when opt is NULL), or -1 with a message. */
static int whole(const char *opt, const char *val, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(val, &end, 10);
	if (end == val || *end != '\0' || errno == ERANGE) {
		fprintf(stderr, "steer-bench: %s takes a whole number, not '%s'\n", opt ? opt : "N",
		        val);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		for (size_t k = 0; !val && k < sizeof valued / sizeof *valued; k++)
			if (!strcmp(a, valued[k])) {
				fprintf(stderr, "steer-bench: %s needs a value\n", a);
				usage(stderr);
				return -1;
			}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--naive")) {
			o->naive = 1;
		} else if (!strcmp(a, "--crowd") && val) {
			o->crowd = 1;
			if (whole(a, val, &o->n) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--circle") && val) {
			o->circle = 1;
			if (whole(a, val, &o->n) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--avoid")) {
			o->avoid = 1;
		} else if (!strcmp(a, "--obstacles") && val) {
			o->obstacles = strtol(val, NULL, 10);
			i++;
		} else if (!strcmp(a, "--pairs") && val) {
			o->pairs = strtol(val, NULL, 10);
			i++;
		} else if (!strcmp(a, "--clustered")) {
			o->clustered = 1;
		} else if (!strcmp(a, "--no-solid")) {
			o->no_solid = 1;
		} else if (!strcmp(a, "--ticks") && val) {
			if (whole(a, val, &o->ticks) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--threads") && val) {
			if (parse_threads(val, o) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--rounds") && val) {
			if (whole(a, val, &o->rounds) != 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--simd") && val) {
			if (parse_simd(val, &o->simd) != 0) {
				fprintf(stderr,
				        "steer-bench: --simd takes scalar, avx2 or avx512\n");
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--neighbours") && val) {
			o->neighbours = strtod(val, NULL);
			i++;
		} else if (!strcmp(a, "--seed") && val) {
			o->seed = strtoull(val, NULL, 10);
			o->seed_given = 1;
			i++;
		} else if (a[0] != '-') {
			if (whole(NULL, a, &o->n) != 0)
				return -1;
			o->n_given = 1;
		} else {
			fprintf(stderr, "steer-bench: unknown argument '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if ((o->crowd || o->circle) && (o->naive || o->clustered || (o->crowd && o->circle))) {
		fprintf(stderr, "steer-bench: --crowd and --circle take neither --naive nor "
		                "--clustered, nor each other\n");
		return -1;
	}
	if (o->avoid && (o->crowd || o->circle || o->naive || o->clustered || o->nthreads > 1 ||
	                 o->obstacles < 0 || o->pairs < 0)) {
		fprintf(stderr, "steer-bench: --avoid takes one thread count, obstacles and pairs "
		                ">= 0, and none of --crowd, --naive, --clustered\n");
		return -1;
	}
	if (o->rounds < 1 || o->rounds > 64 || (o->rounds > 1 && (o->nthreads < 2 || o->avoid))) {
		fprintf(stderr, "steer-bench: --rounds takes 1..64, and a list of --threads\n");
		return -1;
	}
	if (o->n < 2 || o->n > 20000000 || o->ticks < 0 || !(o->neighbours > 0)) {
		fprintf(stderr, "steer-bench: N must be 2..20000000, ticks >= 0, neighbours > 0\n");
		return -1;
	}
	return 0;
}

/* --- the naive baseline: plain arrays, every pair tested -------------------------- */

typedef struct naive_world {
	size_t n;
	double w, h, dt;
	steer_params prm;
	double *px, *py, *vx, *vy, *hx, *hy, *fx, *fy;
	uint32_t *id;
} naive_world;

static double wrapd(double d, double size)
{
	return d > size * 0.5 ? d - size : d < -size * 0.5 ? d + size : d;
}

static void naive_step(naive_world *s)
{
	const steer_params *p = &s->prm;
	double sight2 = p->sight_distance * p->sight_distance;
	double close2 = p->too_close_distance * p->too_close_distance;
	for (size_t i = 0; i < s->n; i++) {
		steer_agent a = {v2(s->vx[i], s->vy[i]), v2(s->hx[i], s->hy[i]), p};
		steer_vec2 sep = v2(0, 0), sd = v2(0, 0), sv = v2(0, 0);
		size_t n = 0;
		for (size_t j = 0; j < s->n; j++) {
			double dx = wrapd(s->px[j] - s->px[i], s->w),
			       dy = wrapd(s->py[j] - s->py[i], s->h);
			double d2 = dx * dx + dy * dy;
			if (j == i || d2 > sight2 ||
			    (p->field_of_view && dx * a.h.x + dy * a.h.y < 0))
				continue;
			n++;
			sd = v2_add(sd, v2(dx, dy));
			sv = v2_add(sv, v2(s->vx[j], s->vy[j]));
			if (d2 < close2)
				sep = v2_add(
				    sep, steer_separate_one(&a, v2(dx, dy), s->id[i], s->id[j]));
		}
		steer_vec2 parts[STEER_PART_COUNT];
		uint32_t mask = 0;
		if (n) {
			parts[STEER_PART_SEPARATION] = v2_scale(sep, p->separation_weight);
			parts[STEER_PART_COHESION] =
			    v2_scale(steer_cohere(&a, v2_scale(sd, 1.0 / n)), p->cohesion_weight);
			parts[STEER_PART_ALIGNMENT] =
			    v2_scale(steer_align(&a, v2_scale(sv, 1.0 / n)), p->alignment_weight);
			mask = (1u << STEER_PART_SEPARATION) | (1u << STEER_PART_COHESION) |
			       (1u << STEER_PART_ALIGNMENT);
		}
		steer_vec2 f = steer_combine_parts(parts, mask, p, s->dt);
		s->fx[i] = f.x;
		s->fy[i] = f.y;
	}
	for (size_t i = 0; i < s->n; i++) {
		steer_vec2 vel = v2_truncate(v2(s->vx[i] + s->fx[i] / p->mass * s->dt,
		                                s->vy[i] + s->fy[i] / p->mass * s->dt),
		                             p->max_speed);
		s->vx[i] = vel.x;
		s->vy[i] = vel.y;
		s->px[i] = fmod(s->px[i] + vel.x * s->dt + s->w, s->w);
		s->py[i] = fmod(s->py[i] + vel.y * s->dt + s->h, s->h);
		if (v2_len2(vel) > 1e-18) {
			s->hx[i] = vel.x / v2_len(vel);
			s->hy[i] = vel.y / v2_len(vel);
		}
	}
}

static int naive_copy(naive_world *s, const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	memset(s, 0, sizeof *s);
	s->n = v->count;
	s->w = steer_world_config_get(w)->width;
	s->h = steer_world_config_get(w)->height;
	s->dt = steer_world_dt(w);
	s->prm = *steer_vehicle_params_at(w, 0);
	double **arrays[] = {&s->px, &s->py, &s->vx, &s->vy, &s->hx, &s->hy, &s->fx, &s->fy};
	const double *from[] = {v->px, v->py, v->vx, v->vy, v->hx, v->hy, v->fx, v->fy};
	for (size_t k = 0; k < 8; k++) {
		*arrays[k] = malloc(s->n * sizeof(double));
		if (!*arrays[k])
			return -1;
		memcpy(*arrays[k], from[k], s->n * sizeof(double));
	}
	s->id = malloc(s->n * sizeof *s->id);
	if (!s->id)
		return -1;
	memcpy(s->id, v->id, s->n * sizeof *s->id);
	return 0;
}

static void naive_free(naive_world *s)
{
	free(s->px), free(s->py), free(s->vx), free(s->vy);
	free(s->hx), free(s->hy), free(s->fx), free(s->fy), free(s->id);
}

/* --- measuring -------------------------------------------------------------------- */

typedef struct timing {
	long ticks;
	double mean_ms, best_ms, p50_ms, p99_ms, ns_per_vehicle;
} timing;

/* Times `ticks` steps (sized from one warm-up step when 0) of either world. */
static timing run(steer_world *w, naive_world *nv, long ticks, size_t n)
{
	double t0 = bench_clock(CLOCK_MONOTONIC);
	if (nv)
		naive_step(nv);
	else
		steer_world_step(w);
	double one = bench_clock(CLOCK_MONOTONIC) - t0;
	if (!ticks)
		ticks = (long)fmax(3.0, fmin(600.0, 1.0 / fmax(one, 1e-6)));
	double *ms = malloc((size_t)ticks * sizeof *ms);
	timing t = {ticks, 0, 0, 0, 0, 0};
	if (!ms)
		return t;
	if (w)
		steer_world_time_phases(w, true);
	double start = bench_clock(CLOCK_MONOTONIC);
	for (long k = 0; k < ticks; k++) {
		double a = bench_clock(CLOCK_MONOTONIC);
		if (nv)
			naive_step(nv);
		else if (steer_world_step(w) != STEER_OK) {
			fprintf(stderr, "steer-bench: step failed: out of memory\n");
			exit(1);
		}
		ms[k] = (bench_clock(CLOCK_MONOTONIC) - a) * 1e3;
	}
	double total = bench_clock(CLOCK_MONOTONIC) - start;
	qsort(ms, (size_t)ticks, sizeof *ms, bench_cmp_double);
	t.mean_ms = total * 1e3 / (double)ticks;
	t.best_ms = ms[0];
	t.p50_ms = ms[ticks / 2];
	t.p99_ms = ms[(size_t)((double)(ticks - 1) * 0.99)];
	t.ns_per_vehicle = t.mean_ms * 1e6 / (double)n;
	free(ms);
	return t;
}

static void print_timing(const char *what, const timing *t)
{
	printf("%-18s %5ld ticks: %8.1f ticks/s, mean %9.3f ms, best %9.3f ms, p50 %9.3f ms, "
	       "p99 %9.3f ms, %9.1f ns per vehicle-tick\n",
	       what, t->ticks, 1e3 / t->mean_ms, t->mean_ms, t->best_ms, t->p50_ms, t->p99_ms,
	       t->ns_per_vehicle);
}

/* Mean others within sight, from a sample of vehicles (all-pairs, outside timing). */
static double mean_neighbours(const steer_world *w, size_t samples)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sight = steer_vehicle_params_at(w, 0)->sight_distance;
	const steer_world_config *c = steer_world_config_get(w);
	size_t total = 0, step = v->count / samples ? v->count / samples : 1, taken = 0;
	for (size_t i = 0; i < v->count; i += step, taken++)
		for (size_t j = 0; j < v->count; j++) {
			double dx = wrapd(v->px[j] - v->px[i], c->width);
			double dy = wrapd(v->py[j] - v->py[i], c->height);
			total += j != i && dx * dx + dy * dy <= sight * sight;
		}
	return (double)total / (double)taken;
}

static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* What one thread count's run gave, for the scaling table. */
typedef struct bench_result {
	timing grid;
	uint64_t bits;
} bench_result;

/* Builds the workload, runs it on `threads` threads and prints the figures. */
static int bench_threads(const bench_opts *o, int threads, bench_result *out)
{
	steer_params p = steer_flock_params();
	double side = sqrt((double)o->n * (STEER_TAU / 2) * p.sight_distance * p.sight_distance /
	                   o->neighbours);
	/* Clustered: the same world, every boid inside a disc where ~500 see each other. */
	double disc = o->clustered ? sqrt((double)o->n / 500.0) * p.sight_distance : 0;
	if (disc > side / 2)
		disc = side / 2;
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = side;
	cfg.seed = o->seed;
	cfg.solid = !o->no_solid;
	size_t heap0 = heap_bytes();
	steer_simd_level simd;
	steer_world *w = bench_world(&cfg, threads, o->simd, &simd, "steer-bench");
	if (!w)
		return 1;
	steer_rng *rng = steer_world_rng(w);
	for (long k = 0; k < o->n; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		steer_vec2 pos;
		if (o->clustered) {
			double b = steer_rng_range(rng, 0, STEER_TAU);
			double d = disc * sqrt(steer_rng_unit(rng));
			pos = v2(side / 2 + d * cos(b), side / 2 + d * sin(b));
		} else {
			pos = v2(steer_rng_range(rng, 0, side), steer_rng_range(rng, 0, side));
		}
		uint32_t id;
		if (steer_vehicle_add(w, pos, v2(cos(a) * p.max_speed, sin(a) * p.max_speed), &p,
		                      &id) != STEER_OK ||
		    steer_vehicle_enable(w, id, STEER_FLOCK, true) != STEER_OK) {
			fprintf(stderr, "steer-bench: cannot add vehicle %ld\n", k);
			return 1;
		}
	}
	printf(
	    "workload: flock%s%s, N=%ld, wrap world %.0f x %.0f, sight_distance %.0f, density %.3g "
	    "per 1000 unit^2, max_neighbours %u, threads %d, simd %s\n",
	    o->clustered ? " (clustered)" : "", o->no_solid ? " (not solid)" : "", o->n, side, side,
	    p.sight_distance, (double)o->n / (side * side) * 1000.0, p.max_neighbours, threads,
	    steer_simd_name(simd));
	if (o->n <= 2000000)
		printf("mean neighbours within sight at start: %.1f\n", mean_neighbours(w, 200));

	naive_world nv;
	size_t naive0 = heap_bytes();
	if (o->naive && naive_copy(&nv, w) != 0) {
		fprintf(stderr, "steer-bench: out of memory\n");
		return 1;
	}
	size_t naive_bytes = heap_bytes() - naive0; /* not the world's: left out below */
	timing grid = run(w, NULL, o->ticks, (size_t)o->n);
	size_t heap1 = heap_bytes() - naive_bytes;
	print_timing("grid:", &grid);
	bench_print_phases("grid phases:      ", w);
	if (o->naive) {
		timing naive =
		    run(NULL, &nv, o->ticks ? o->ticks : (grid.ticks < 20 ? grid.ticks : 20),
		        (size_t)o->n);
		print_timing("naive all-pairs:", &naive);
		printf("grid is %.1fx faster than all-pairs\n", naive.mean_ms / grid.mean_ms);
		naive_free(&nv);
	}
	printf("memory: %.0f bytes per vehicle (heap in use, world with its grid and scratch, %zu "
	       "parameter set%s)\n",
	       (double)(heap1 - heap0) / (double)o->n, steer_world_param_sets(w),
	       steer_world_param_sets(w) == 1 ? "" : "s");
	if (o->n <= 2000000)
		printf("mean neighbours within sight at end: %.1f\n", mean_neighbours(w, 200));
	out->grid = grid;
	out->bits = bench_state_hash(steer_world_vehicles(w));
	steer_world_destroy(w);
	if (!out->bits) {
		fprintf(stderr, "steer-bench: out of memory hashing the world's state\n");
		return 1;
	}
	/* The same seed and ticks give the same bits on any build: this says which. */
	printf("state after the ticks: %016llx\n", (unsigned long long)out->bits);
	return 0;
}

/* One run of the workload on `threads`, its figures into *out; 1 on failure. Every
 * run ticks as often as the first, so that their worlds can be compared. */
static int run_once(bench_opts *o, crowd_opts *c, circle_opts *cc, int threads, bench_figures *out)
{
	if (o->crowd || o->circle) {
		c->threads = cc->threads = threads;
		if (o->crowd ? crowd_bench(c, out) : circle_bench(cc, out))
			return 1;
		c->ticks = out->ticks;
		return 0;
	}
	bench_result r;
	if (bench_threads(o, threads, &r) != 0)
		return 1;
	if (!o->ticks)
		o->ticks = r.grid.ticks;
	*out = (bench_figures){threads, r.grid.ticks, r.grid.mean_ms, r.grid.p50_ms, r.bits};
	return 0;
}

/* Which count runs s-th in round q: the list's order, reversed in every other round,
 * so that no count always runs first. */
static int at_turn(int q, int s, int n)
{
	return q % 2 ? n - 1 - s : s;
}

int main(int argc, char **argv)
{
	bench_opts o = {.n = 10000,
	                .neighbours = 10.0,
	                .threads = {1},
	                .nthreads = 1,
	                .rounds = 1,
	                .simd = STEER_SIMD_AVX512,
	                .seed = 1};
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	if (o.avoid) {
		obstacles_opts a = {
		    o.n_given ? o.n : 5000,    o.obstacles, o.ticks, o.pairs, o.threads[0], o.simd,
		    o.seed_given ? o.seed : 3, o.no_solid};
		return obstacles_bench(&a);
	}
	crowd_opts c = {o.n, o.ticks, 10, o.neighbours, o.threads[0], o.simd, o.seed, o.no_solid};
	circle_opts cc = {o.n, o.ticks ? o.ticks : 10000, 1, o.simd, o.seed, o.no_solid};
	bench_figures *f = calloc((size_t)(o.rounds * o.nthreads), sizeof *f);
	if (!f) {
		fprintf(stderr, "steer-bench: out of memory\n");
		return 1;
	}
	for (int q = 0; q < o.rounds; q++)
		for (int s = 0; s < o.nthreads; s++) {
			int k = at_turn(q, s, o.nthreads);
			if (q || s)
				printf("\n");
			if (run_once(&o, &c, &cc, o.threads[k], &f[q * o.nthreads + k]) != 0) {
				free(f);
				return 1;
			}
		}
	if (o.nthreads > 1)
		bench_print_scaling(f, o.nthreads, (int)o.rounds);
	free(f);
	return 0;
}
