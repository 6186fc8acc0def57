/* steer-snapshot-bench: what one client's snapshot costs, in bytes and encode time,
 * for a view the size of a 200 x 50 terminal over a big flock: the plain float
 * Snapshot against the CompactSnapshot as a key frame and as a delta on the
 * previous frame, and what the spatial index costs to build and to query. The world
 * is bench.c's: N boids in a wrap world sized for about 10 neighbours each. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "interest.h"
#include "scenario.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/wire.h"
#include "steer/world.h"

typedef struct opts {
	long n[8];
	int nn;
	long snapshots;
	double visible; /* vehicles the view should show */
	int cols, rows;
	uint64_t seed;
} opts;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: steer-snapshot-bench [N ...] [--snapshots K] [--visible V] [--cols C]\n"
	           "                            [--rows R] [--seed S]\n"
	           "  N            boids; several N run one after another (10000 100000)\n"
	           "  --snapshots  snapshots encoded, one per 3 ticks (200)\n"
	           "  --visible    vehicles the view should show, sets its zoom (3000)\n"
	           "  --cols/rows  the terminal's map area in cells (200 x 50)\n");
}

static int parse_args(int argc, char **argv, opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--snapshots") && val) {
			o->snapshots = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--visible") && val) {
			o->visible = strtod(argv[++i], NULL);
		} else if (!strcmp(a, "--cols") && val) {
			o->cols = atoi(argv[++i]);
		} else if (!strcmp(a, "--rows") && val) {
			o->rows = atoi(argv[++i]);
		} else if (!strcmp(a, "--seed") && val) {
			o->seed = strtoull(argv[++i], NULL, 10);
		} else if (a[0] != '-' && o->nn < 8) {
			o->n[o->nn++] = strtol(a, NULL, 10);
		} else {
			fprintf(stderr, "steer-snapshot-bench: unknown argument '%s'\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (o->nn == 0) {
		o->n[o->nn++] = 10000;
		o->n[o->nn++] = 100000;
	}
	for (int k = 0; k < o->nn; k++)
		if (o->n[k] < 2 || o->n[k] > 20000000)
			return -1;
	if (o->snapshots < 2 || !(o->visible >= 1) || o->cols < 1 || o->rows < 1 ||
	    o->cols > (int)STEER_COMPACT_MAX_CELLS || o->rows > (int)STEER_COMPACT_MAX_CELLS) {
		fprintf(stderr, "steer-snapshot-bench: snapshots >= 2, visible >= 1, cols and rows "
		                "1..4096\n");
		return -1;
	}
	return 0;
}

/* bench.c's workload: N boids at random, heading anywhere at full speed. */
static steer_world *flock(long n, uint64_t seed, double *side)
{
	steer_params p = steer_flock_params();
	*side = sqrt((double)n * (STEER_TAU / 2) * p.sight_distance * p.sight_distance / 10.0);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = *side;
	cfg.seed = seed;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		return NULL;
	if (bench_add_flock(w, n, *side, &p) != STEER_OK) {
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

/* Sums over the snapshots of one run. */
typedef struct totals {
	double index_us, grid_us, scan_us, quantize_us, plain_us, key_us, delta_us, decode_us;
	double plain_bytes, key_bytes, delta_bytes, visible, delta_visible;
	double dense_us, dense_bytes, dense_occupied; /* the whole world zoomed out */
	double blob[STEER_BLOB_COUNT];
	size_t min_visible, max_visible;
	long snapshots, deltas;
} totals;

/* Everything one run owns. */
typedef struct run {
	steer_world *w;
	steer_interest ix;
	uint32_t *idx, *scan_idx;
	size_t cap, scan_cap, n;
	steer_compact_frame frames[2];
	steer_compact_scratch sc;
	steer_compact_state client;
	steer_density dense;
	steer_view world_view; /* the whole world, for the zoomed-out density frame */
	steer_snapshot snap;
	steer_server_msg msg;
	steer_strbuf out;
} run;

static void run_free(run *r)
{
	steer_world_destroy(r->w);
	steer_interest_free(&r->ix);
	free(r->idx);
	free(r->scan_idx);
	steer_compact_frame_free(&r->frames[0]);
	steer_compact_frame_free(&r->frames[1]);
	steer_compact_scratch_free(&r->sc);
	steer_compact_state_free(&r->client);
	steer_density_free(&r->dense);
	steer_snapshot_free(&r->snap);
	steer_strbuf_free(&r->msg.json);
	steer_strbuf_free(&r->out);
}

/* The message of the one delimited frame in out. */
static const uint8_t *body(const steer_strbuf *out, size_t *len)
{
	const uint8_t *p = (const uint8_t *)out->data;
	uint64_t n = 0;
	int i = steer_varint_decode(p, out->len, STEER_FRAME_PREFIX_MAX, &n);
	*len = i > 0 ? (size_t)n : 0;
	return p + (i > 0 ? i : 0);
}

/* One snapshot tick of the server for one client, timed part by part. */
static int snapshot(run *r, const steer_view *view, const opts *o, long k, totals *t)
{
	double t0 = now_us();
	if (steer_interest_build(&r->ix, r->w) != 0)
		return -1;
	double t1 = now_us();
	size_t nscan;
	if (steer_interest_collect(&r->ix, r->w, view, STEER_ORDER_INDEX, &r->idx, &r->cap,
	                           &r->n) != 0)
		return -1;
	double t2 = now_us();
	steer_interest_invalidate(&r->ix); /* the same query by a scan of every vehicle */
	if (steer_interest_collect(&r->ix, r->w, view, STEER_ORDER_INDEX, &r->scan_idx,
	                           &r->scan_cap, &nscan) != 0 ||
	    nscan != r->n)
		return -1;
	double t3 = now_us();
	steer_strbuf_clear(&r->out);
	if (steer_wire_snapshot_of(&r->out, r->w, false, view, r->idx, r->n) != STEER_OK)
		return -1;
	double t4 = now_us();
	t->plain_bytes += (double)r->out.len;
	t->index_us += t1 - t0;
	t->grid_us += t2 - t1;
	t->scan_us += t3 - t2;
	t->plain_us += t4 - t3;

	/* Compact: ids order, quantize, then a key frame and a delta on the last one. */
	if (steer_interest_build(&r->ix, r->w) != 0 ||
	    steer_interest_collect(&r->ix, r->w, view, STEER_ORDER_ID, &r->idx, &r->cap, &r->n) !=
	        0)
		return -1;
	steer_compact_frame *f = &r->frames[k & 1], *base = k ? &r->frames[(k + 1) & 1] : NULL;
	double t5 = now_us();
	if (steer_compact_frame_build(f, r->w, view, (uint32_t)o->cols, (uint32_t)o->rows, r->idx,
	                              r->n, (uint64_t)k + 1) != STEER_OK)
		return -1;
	double t6 = now_us();
	steer_strbuf_clear(&r->out);
	if (steer_wire_compact(&r->out, &r->sc, r->w, false, f, NULL) != STEER_OK)
		return -1;
	double t7 = now_us();
	t->quantize_us += t6 - t5;
	t->key_us += t7 - t6;
	t->key_bytes += (double)r->out.len;
	if (base) {
		steer_strbuf_clear(&r->out);
		double t8 = now_us();
		if (steer_wire_compact(&r->out, &r->sc, r->w, false, f, base) != STEER_OK)
			return -1;
		double t9 = now_us();
		t->delta_us += t9 - t8;
		t->delta_bytes += (double)r->out.len;
		t->delta_visible += (double)r->n;
		for (int b = 0; b < STEER_BLOB_COUNT; b++)
			t->blob[b] += (double)r->sc.blob[b].len;
		t->deltas++;
	}
	/* The client decodes what it was sent: the key first, then the deltas. */
	size_t len;
	const uint8_t *msg = body(&r->out, &len);
	char err[160];
	double t10 = now_us();
	if (steer_wire_decode_stream(msg, len, &r->msg, &r->snap, &r->client, err, sizeof err) !=
	        STEER_OK ||
	    r->snap.count != r->n) {
		fprintf(stderr, "steer-snapshot-bench: decode: %s\n", err);
		return -1;
	}
	t->decode_us += now_us() - t10;
	t->visible += (double)r->n;

	/* Zoomed out to the whole world on the same map: every vehicle in view, as
	 * cells. The index build is the same as above; the cost here is collecting
	 * every vehicle, counting them into cells and encoding those. */
	size_t all;
	double t11 = now_us();
	if (steer_interest_collect(&r->ix, r->w, &r->world_view, STEER_ORDER_INDEX, &r->scan_idx,
	                           &r->scan_cap, &all) != 0 ||
	    steer_density_build(&r->dense, r->w, &r->world_view, (uint32_t)o->cols,
	                        (uint32_t)o->rows, r->scan_idx, all) != STEER_OK)
		return -1;
	steer_strbuf_clear(&r->out);
	if (steer_wire_density(&r->out, r->w, false, &r->dense) != STEER_OK)
		return -1;
	t->dense_us += now_us() - t11;
	t->dense_bytes += (double)r->out.len;
	size_t occupied = 0;
	for (size_t c = 0; c < (size_t)o->cols * (size_t)o->rows; c++)
		occupied += r->dense.cell[c].count != 0;
	t->dense_occupied += (double)occupied;
	t->min_visible = r->n < t->min_visible ? r->n : t->min_visible;
	t->max_visible = r->n > t->max_visible ? r->n : t->max_visible;
	t->snapshots++;
	return 0;
}

static void report(const totals *t, long n)
{
	double s = (double)t->snapshots, d = (double)t->deltas;
	double vis = t->visible / s, dvis = t->delta_visible / d;
	printf("visible vehicles: mean %.0f (min %zu, max %zu) of %ld\n", vis, t->min_visible,
	       t->max_visible, n);
	printf("index build (one per snapshot tick, all %ld vehicles): %.0f us\n", n,
	       t->index_us / s);
	printf("view query: %.0f us through the index, %.0f us scanning every vehicle\n",
	       t->grid_us / s, t->scan_us / s);
	printf("  %-28s %14s %16s %16s\n", "encoding", "bytes/snapshot", "bytes/visible",
	       "encode us");
	printf("  %-28s %14.0f %16.2f %16.0f\n", "plain Snapshot (floats)", t->plain_bytes / s,
	       t->plain_bytes / t->visible, t->plain_us / s);
	printf("  %-28s %14.0f %16.2f %16.0f   (+ %.0f us quantizing)\n", "compact key frame",
	       t->key_bytes / s, t->key_bytes / t->visible, t->key_us / s, t->quantize_us / s);
	printf("  %-28s %14.0f %16.2f %16.0f   (+ %.0f us quantizing)\n", "compact delta (steady)",
	       t->delta_bytes / d, t->delta_bytes / t->delta_visible, t->delta_us / d,
	       t->quantize_us / s);
	static const char *const names[STEER_BLOB_COUNT] = {"ids",   "pos",   "heading",
	                                                    "speed", "group", "behaviors"};
	double blobs = 0;
	printf("  delta bytes per visible vehicle:");
	for (int b = 0; b < STEER_BLOB_COUNT; b++) {
		printf(" %s %.2f", names[b], t->blob[b] / d / dvis);
		blobs += t->blob[b];
	}
	printf(" rest %.2f\n", (t->delta_bytes - blobs) / d / dvis);
	printf("  client decode: %.0f us per snapshot\n", t->decode_us / s);
	printf("zoomed out to the whole world on the same map: density frame %.0f bytes "
	       "(%.0f occupied cells, %.2f bytes each; all %ld vehicles as compact key frames "
	       "would be about %.0f), %.0f us to collect, count and encode\n",
	       t->dense_bytes / s, t->dense_occupied / s, t->dense_bytes / t->dense_occupied, n,
	       t->key_bytes / t->visible * (double)n, t->dense_us / s);
}

static int bench(long n, const opts *o)
{
	run r;
	memset(&r, 0, sizeof r);
	steer_interest_init(&r.ix);
	steer_compact_frame_init(&r.frames[0]);
	steer_compact_frame_init(&r.frames[1]);
	steer_compact_scratch_init(&r.sc);
	steer_compact_state_init(&r.client);
	steer_strbuf_init(&r.msg.json);
	steer_strbuf_init(&r.out);
	steer_density_init(&r.dense);
	double side;
	r.w = flock(n, o->seed, &side);
	if (!r.w) {
		fprintf(stderr, "steer-snapshot-bench: cannot build the world\n");
		run_free(&r);
		return 1;
	}
	/* A terminal cell is twice as tall as wide (the client's camera): the view is
	 * cols x 2*rows column widths, sized to hold about o->visible vehicles. */
	double aspect = 2.0 * o->rows / o->cols;
	double vw = fmin(side, sqrt(o->visible * side * side / (double)n / aspect));
	double vh = fmin(side, vw * aspect);
	steer_view view = {true, (side - vw) / 2, (side - vh) / 2, (side + vw) / 2,
	                   (side + vh) / 2};
	r.world_view = (steer_view){true, 0, 0, side, side};
	printf("workload: flock (steer_flock_params), N=%ld boids, wrap world %.0f x %.0f "
	       "(about 10 neighbours within sight 100), stepped at 60 Hz\n",
	       n, side, side);
	printf("view: %.0f x %.0f world units at the centre = %d x %d cells (%.1f units per "
	       "column); compact quantum %.3f x %.3f units\n",
	       vw, vh, o->cols, o->rows, vw / o->cols, vw / (o->cols * STEER_COMPACT_SUB),
	       vh / (o->rows * STEER_COMPACT_SUB));
	printf("run: %ld snapshots, one every 3 ticks (20 Hz); delta = on the previous snapshot\n",
	       o->snapshots);
	totals t;
	memset(&t, 0, sizeof t);
	t.min_visible = (size_t)-1;
	for (long k = 0; k < o->snapshots; k++) {
		for (int s = 0; s < 3; s++)
			if (steer_world_step(r.w) != STEER_OK) {
				fprintf(stderr, "steer-snapshot-bench: step: out of memory\n");
				run_free(&r);
				return 1;
			}
		if (snapshot(&r, &view, o, k, &t) != 0) {
			fprintf(stderr, "steer-snapshot-bench: snapshot %ld failed\n", k);
			run_free(&r);
			return 1;
		}
	}
	report(&t, n);
	run_free(&r);
	return 0;
}

int main(int argc, char **argv)
{
	opts o = {{0}, 0, 200, 3000, 200, 50, 1};
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	for (int k = 0; k < o.nn; k++) {
		if (k)
			printf("\n");
		if (bench(o.n[k], &o) != 0)
			return 1;
		fflush(stdout);
	}
	return 0;
}
