/* Planning time for goto: the planner (A* on a grid of half-radius cells, then string
 * pulling) against a visibility graph over inflated obstacles, on the same routes
 * through a world of 1,000 circles (and, with --walls, a maze's walls besides).
 *
 *   steer-plan-bench [--obstacles N] [--routes N] [--seed N] [--no-visibility]
 *
 * Prints, per method, the median and the worst time of a route, and the routes'
 * mean length. The visibility graph is a prototype kept to justify the choice: each
 * circle inflated by the radius becomes an octagon around it (its corners the graph's
 * nodes), A* over the nodes with the straight-line check of the planner for each edge
 * it looks at (lazily: an edge is tested only when it would improve a node). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner.h"
#include "steer/world.h"

#define STEER_PI 3.14159265358979323846

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double route_length(steer_vec2 start, const steer_route *r)
{
	double len = 0.0;
	steer_vec2 at = start;
	for (size_t k = 0; k < r->count; k++) {
		len += v2_len(v2_sub(r->points[k], at));
		at = r->points[k];
	}
	return len;
}

/* The visibility-graph prototype; returns the route's length, or -1 when none. */
static double visibility_plan(const steer_world *w, steer_vec2 start, steer_vec2 goal, double r,
                              steer_geom_hits *hits, size_t *tests)
{
	size_t nobs;
	const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
	size_t cap = nobs * 8 + 2, n = 0;
	steer_vec2 *node = malloc(cap * sizeof *node);
	double *g = malloc(cap * sizeof *g);
	unsigned char *closed = calloc(cap, 1);
	if (!node || !g || !closed)
		abort();
	node[n++] = start;
	node[n++] = goal;
	double grow = 1.0 / cos(STEER_PI / 8) * 1.001;
	for (size_t k = 0; k < nobs; k++)
		for (int q = 0; q < 8; q++) {
			double a = (q + 0.5) * (2 * STEER_PI / 8);
			steer_vec2 p = v2(obs[k].x + cos(a) * (obs[k].r + r) * grow,
			                  obs[k].y + sin(a) * (obs[k].r + r) * grow);
			if (p.x > 0 && p.y > 0 && p.x < steer_world_config_get(w)->width &&
			    p.y < steer_world_config_get(w)->height &&
			    !steer_geom_blocked(w, p, r, 0.0))
				node[n++] = p;
		}
	for (size_t k = 0; k < n; k++)
		g[k] = INFINITY;
	g[0] = 0.0;
	double found = -1.0;
	for (;;) {
		/* The open node of least f: a scan, as a prototype. */
		size_t cur = SIZE_MAX;
		double best = INFINITY;
		for (size_t k = 0; k < n; k++) {
			if (closed[k] || g[k] == INFINITY)
				continue;
			double f = g[k] + v2_len(v2_sub(goal, node[k]));
			if (f < best) {
				best = f;
				cur = k;
			}
		}
		if (cur == SIZE_MAX)
			break;
		if (cur == 1) {
			found = g[1];
			break;
		}
		closed[cur] = 1;
		for (size_t k = 0; k < n; k++) {
			if (closed[k])
				continue;
			double ng = g[cur] + v2_len(v2_sub(node[k], node[cur]));
			if (ng >= g[k])
				continue;
			++*tests;
			if (steer_plan_clear(w, node[cur], node[k], r * 0.999, hits))
				g[k] = ng;
		}
	}
	free(node);
	free(g);
	free(closed);
	return found;
}

int main(int argc, char **argv)
{
	int obstacles = 1000, routes = 20;
	unsigned long long seed = 1;
	int visibility = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--obstacles") && i + 1 < argc)
			obstacles = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--routes") && i + 1 < argc)
			routes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-visibility"))
			visibility = 0;
		else {
			fprintf(stderr,
			        "usage: steer-plan-bench [--obstacles N] [--routes N] [--seed N] "
			        "[--no-visibility]\n");
			return 2;
		}
	}
	if (obstacles < 0 || routes < 1) {
		fprintf(stderr, "steer-plan-bench: --obstacles >= 0 and --routes >= 1\n");
		return 2;
	}
	/* 1,000 circles of radius 10 to 30 cover about a fifth of 2000 x 2000. */
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = 2000;
	cfg.edges = STEER_EDGE_BOUNCE;
	cfg.seed = seed;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		return 1;
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < obstacles; k++) {
		steer_vec2 p = v2(steer_rng_range(rng, 0, 2000), steer_rng_range(rng, 0, 2000));
		if (steer_obstacle_add(w, p, v2(0, 0), steer_rng_range(rng, 10, 30), NULL) !=
		    STEER_OK)
			return 1;
	}
	if (steer_world_step(w) != STEER_OK) /* a fresh obstacle index */
		return 1;
	const double r = 5.0; /* the default vehicle */
	double *grid_t = calloc((size_t)routes, sizeof *grid_t);
	double *vis_t = calloc((size_t)routes, sizeof *vis_t);
	if (!grid_t || !vis_t)
		return 1;
	double grid_len = 0.0, vis_len = 0.0;
	size_t expanded = 0, cells = 0, tests = 0;
	int reached = 0;
	steer_geom_hits hits;
	memset(&hits, 0, sizeof hits);
	for (int k = 0; k < routes; k++) {
		/* Across the world: from near one side to near the other. */
		steer_vec2 a = v2(steer_rng_range(rng, 20, 200), steer_rng_range(rng, 20, 1980));
		steer_vec2 b = v2(steer_rng_range(rng, 1800, 1980), steer_rng_range(rng, 20, 1980));
		if (steer_world_free_point(w, a, r, &a) || steer_world_free_point(w, b, r, &b))
			return 1;
		steer_route route = {0};
		double t0 = now();
		if (steer_plan(w, a, b, r, &route) != STEER_OK)
			return 1;
		grid_t[k] = now() - t0;
		grid_len += route_length(a, &route);
		reached += route.reached;
		expanded += route.expanded;
		cells = route.cells;
		steer_route_free(&route);
		if (visibility) {
			t0 = now();
			double len = visibility_plan(w, a, b, r, &hits, &tests);
			vis_t[k] = now() - t0;
			vis_len += len;
		}
	}
	qsort(grid_t, (size_t)routes, sizeof *grid_t, cmp_double);
	qsort(vis_t, (size_t)routes, sizeof *vis_t, cmp_double);
	printf("world 2000 x 2000, %d circles r 10-30, vehicle r %.0f, %d routes across\n",
	       obstacles, r, routes);
	printf("grid A* + string pulling: median %.2f ms, worst %.2f ms, mean length %.0f, "
	       "%d/%d reached, %zu cells, %.0f expanded per route\n",
	       grid_t[routes / 2] * 1e3, grid_t[routes - 1] * 1e3, grid_len / routes, reached,
	       routes, cells, (double)expanded / routes);
	if (visibility)
		printf("visibility graph (prototype): median %.2f ms, worst %.2f ms, mean length "
		       "%.0f, %.0f edge tests per route\n",
		       vis_t[routes / 2] * 1e3, vis_t[routes - 1] * 1e3, vis_len / routes,
		       (double)tests / routes);
	steer_geom_hits_free(&hits);
	free(grid_t);
	free(vis_t);
	steer_world_destroy(w);
	return 0;
}
