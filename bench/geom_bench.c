/* What a change of the walls costs on a big scene: a world of polygons with many
 * points each (issue 34's scene: 100 of 4,096), then a wall added and removed again
 * and again, each followed by the grid's update that the next tick (or goto) needs.
 *
 *   steer-geom-bench [--polygons N] [--points N] [--rounds N]
 *
 * Prints the median and the worst time of an add and of a remove, each with its
 * update, and of the first full build. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "geometry.h"
#include "steer/world.h"
#include "world_internal.h"

#define STEER_PI 3.14159265358979323846

static double now(void)
{
	return bench_clock(CLOCK_MONOTONIC);
}

static long arg_long(int argc, char **argv, const char *name, long dflt)
{
	for (int k = 1; k + 1 < argc; k++)
		if (strcmp(argv[k], name) == 0)
			return strtol(argv[k + 1], NULL, 10);
	return dflt;
}

/* A wavy ring of n points round (cx, cy): no two edges cross. */
static void ring(steer_vec2 *p, size_t n, double cx, double cy, double r)
{
	for (size_t k = 0; k < n; k++) {
		double a = 2.0 * STEER_PI * (double)k / (double)n;
		double rr = r * (1.0 + 0.1 * sin(7.0 * a));
		p[k] = v2(cx + rr * cos(a), cy + rr * sin(a));
	}
}

static void report(const char *what, double *ms, size_t n)
{
	qsort(ms, n, sizeof *ms, bench_cmp_double);
	printf("%-22s median %8.2f ms  worst %8.2f ms  (%zu rounds)\n", what, ms[n / 2], ms[n - 1],
	       n);
}

int main(int argc, char **argv)
{
	long polys = arg_long(argc, argv, "--polygons", 100);
	long points = arg_long(argc, argv, "--points", 4096);
	long rounds = arg_long(argc, argv, "--rounds", 10);
	if (polys < 1 || points < 3 || points > (long)STEER_MAX_POLYGON_POINTS || rounds < 1) {
		fprintf(stderr,
		        "steer-geom-bench: --polygons >= 1, --points 3..%u, --rounds >= 1\n",
		        STEER_MAX_POLYGON_POINTS);
		return 2;
	}
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = 5000.0;
	cfg.edges = STEER_EDGE_BOUNCE;
	steer_world *w = steer_world_create(&cfg);
	steer_vec2 *p = malloc((size_t)points * sizeof *p);
	double *add = malloc((size_t)rounds * sizeof *add),
	       *del = malloc((size_t)rounds * sizeof *del),
	       *upd = malloc((size_t)rounds * sizeof *upd);
	if (!w || !p || !add || !del || !upd) {
		fprintf(stderr, "steer-geom-bench: out of memory\n");
		return 1;
	}
	long side = (long)ceil(sqrt((double)polys));
	double pitch = 5000.0 / (double)side;
	for (long i = 0; i < polys; i++) {
		ring(p, (size_t)points, pitch * (0.5 + (double)(i % side)),
		     pitch * (0.5 + (double)(i / side)), 0.4 * pitch);
		char err[256];
		uint32_t id;
		if (steer_polygon_add(w, p, (size_t)points, false, &id, err, sizeof err) !=
		    STEER_OK) {
			fprintf(stderr, "steer-geom-bench: polygon %ld: %s\n", i, err);
			return 1;
		}
	}
	double t = now();
	if (steer_geom_update(w) != STEER_OK) {
		fprintf(stderr, "steer-geom-bench: out of memory\n");
		return 1;
	}
	double first = (now() - t) * 1e3;
	printf("%ld polygons of %ld points: %zu segments, grid %u x %u\n", polys, points,
	       w->geom.nsegs, w->geom.nx, w->geom.ny);
	printf("%-22s %8.2f ms\n", "first build", first);
	for (long k = 0; k < rounds; k++) {
		uint32_t id;
		t = now();
		if (steer_wall_add(w, v2(10, 10), v2(20 + (double)k, 20), &id) != STEER_OK) {
			fprintf(stderr, "steer-geom-bench: cannot add a wall\n");
			return 1;
		}
		double mid = now();
		if (steer_geom_update(w) != STEER_OK) {
			fprintf(stderr, "steer-geom-bench: cannot add a wall\n");
			return 1;
		}
		add[k] = (now() - t) * 1e3;
		upd[k] = (now() - mid) * 1e3;
		t = now();
		if (steer_remove(w, id) != STEER_OK || steer_geom_update(w) != STEER_OK) {
			fprintf(stderr, "steer-geom-bench: cannot remove the wall\n");
			return 1;
		}
		del[k] = (now() - t) * 1e3;
	}
	report("wall added + update", add, (size_t)rounds);
	report("wall removed + update", del, (size_t)rounds);
	report("of which the update", upd, (size_t)rounds);
	free(p);
	free(add);
	free(del);
	free(upd);
	steer_world_destroy(w);
	return 0;
}
