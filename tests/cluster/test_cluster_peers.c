/* Halos and migrants travel point to point (cluster/cluster.c): over a long world cut
 * into strips, each rank exchanges with the strips beside it alone, across the seam
 * of a wrap world too; a vehicle that leaps past its neighbours in one tick still
 * arrives, the exchange going through every rank for that tick; the neighbours follow
 * a change of the edges; and every tick the world is the one one process makes.
 *
 *   mpirun -np N test_cluster_peers
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ranks.h"
#include "cluster.h"
#include "same_world.h"
#include "steer/command.h"

#define WIDTH  6000.0
#define HEIGHT 600.0
#define RACER  (12u * 150u + 1u) /* the id after the flocks */

static int rank, ranks;

static bool run_plain(steer_session *s, const char *line)
{
	steer_command cmd;
	steer_reply r;
	char err[256];
	steer_reply_init(&r);
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) == STEER_OK)
		steer_cmd_exec(&cmd, s, NULL, &r);
	else
		steer_reply_fail(&r, "%s", err);
	CHECK(r.ok, "one process: '%s': %s", line, r.ok ? "" : r.error);
	bool ok = r.ok;
	steer_reply_free(&r);
	return ok;
}

static bool run_cluster(steer_cluster *c, steer_session *s, const char *line)
{
	steer_reply r;
	steer_reply_init(&r);
	steer_cluster_command(c, s, NULL, line, &r);
	CHECK(r.ok, "%d ranks: '%s': %s", ranks, line, r.ok ? "" : r.error);
	bool ok = r.ok;
	steer_reply_free(&r);
	return ok;
}

static steer_world *world(steer_edges edges)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = WIDTH;
	cfg.height = HEIGHT;
	cfg.edges = edges;
	cfg.solid = false;
	cfg.seed = 5;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		abort();
	return w;
}

/* Flocks all along the world, then a racer that leaps past a strip in one tick (with
 * four ranks or more: 2,950 to its target, short of half the wrap world). */
static bool build(steer_cluster *c, steer_session *cs, steer_session *ps)
{
	char line[128];
	for (int k = 0; k < 12; k++) {
		snprintf(line, sizeof line, "spawn flock 150 %.0f 300 240", 250.0 + 500.0 * k);
		if (!run_cluster(c, cs, line) || !run_plain(ps, line))
			return false;
	}
	const char *racer[] = {"spawn 150 300 max_speed=200000 max_force=1e9 mass=1",
	                       "arrive 1801 3100 300"};
	for (int k = 0; k < 2; k++)
		if (!run_cluster(c, cs, racer[k]) || !run_plain(ps, racer[k]))
			return false;
	return true;
}

static void strips(steer_edges edges, const char *label)
{
	steer_world *w = world(edges), *plain = world(edges);
	steer_session cs = {.world = w}, ps = {.world = plain};
	steer_cluster_options opt = steer_cluster_options_default();
	opt.imbalance = 0.0; /* the cut at create stays: strips across the long side */
	char err[256];
	steer_cluster *c = steer_cluster_create(MPI_COMM_WORLD, w, &opt, err, sizeof err);
	CHECK(c, "cluster_create: %s", err);
	if (!c)
		abort();
	steer_cluster_figure *fig = calloc((size_t)ranks, sizeof *fig);
	if (!fig)
		abort();
	bool ok = build(c, &cs, &ps);
	unsigned wide_ticks = 0, most_peers = 0;
	int arrived_at = -1;
	for (int t = 1; ok && t <= 12; t++) {
		/* Halfway, the edges change: the neighbours across the seams with them. */
		if (t == 7) {
			const char *line = edges == STEER_EDGE_WRAP ? "world bounce" : "world wrap";
			ok = run_cluster(c, &cs, line) && run_plain(&ps, line);
		}
		ok = ok && steer_cluster_step(c, err, sizeof err) == STEER_OK;
		CHECK(ok, "%s tick %d: %s", label, t, err);
		CHECK(steer_world_step(plain) == STEER_OK, "plain step");
		ok = ok && same_world(MPI_COMM_WORLD, c, plain, label, (unsigned)t);
		steer_cluster_figures(c, fig);
		unsigned wide = 0;
		for (int r = 0; r < ranks; r++) {
			wide += fig[r].wide;
			most_peers = fig[r].peers > most_peers ? fig[r].peers : most_peers;
		}
		wide_ticks += wide > 0;
		const steer_vehicles *v = steer_world_vehicles(w);
		long i = steer_vehicle_index(w, RACER);
		int mine = i >= 0 && v->px[i] > 2500.0 ? t : INT32_MAX, first = INT32_MAX;
		MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (first != INT32_MAX && arrived_at < 0)
			arrived_at = first;
	}
	CHECK(arrived_at > 0, "%s: the racer never reached its target", label);
	if (ranks >= 4) {
		/* Strips: a rank's neighbours are the one or two beside it. */
		CHECK(most_peers <= 2, "%s: a rank exchanged with %u of %d other ranks", label,
		      most_peers, ranks - 1);
		CHECK(most_peers >= 1, "%s: no rank had a neighbour", label);
		/* The racer's leap past the neighbours, and only it, went wide. */
		CHECK(wide_ticks == 1, "%s: %u ticks exchanged through every rank", label,
		      wide_ticks);
	}
	free(fig);
	steer_cluster_destroy(c);
	steer_world_destroy(w);
	steer_world_destroy(plain);
}

static void neighbours_only(void)
{
	strips(STEER_EDGE_BOUNCE, "bounce");
	strips(STEER_EDGE_WRAP, "wrap");
}

int main(int argc, char **argv)
{
	if (!check_ranks_begin(&argc, &argv, &rank, &ranks))
		return 1;
	RUN(neighbours_only);
	return check_ranks_done(rank);
}
