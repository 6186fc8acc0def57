/* A world built in place over N ranks (cluster/cluster.c): `spawn flock` on a world
 * split over the ranks leaves each rank holding only its region's vehicles, at no
 * moment the whole spawn, and the world is the one one process makes.
 *
 *   mpirun -np N test_cluster_in_place
 */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ranks.h"
#include "cluster.h"
#include "same_world.h"
#include "steer/command.h"

/* More than two of spawn's chunks (65,536), over a world of about 30 boids in sight
 * of each. */
#define SPAWNED 140000u
#define SPAWN   "spawn flock 140000 6000 6000 8400"

static int rank, ranks;

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_KNOWN 0 /* the sanitizer's allocator: mallinfo2 sees glibc's, unused */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_KNOWN 0
#endif
#endif
#ifndef HEAP_KNOWN
#define HEAP_KNOWN 1
#endif

/* Bytes the allocator has handed out and not had back. */
static long long heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return (long long)(m.uordblks + m.hblkhd);
}

/* Runs line on s's world alone; the reply's text into text. */
static bool run_plain(steer_session *s, const char *line, char *text, size_t n)
{
	steer_command cmd;
	steer_reply r;
	char err[256];
	steer_reply_init(&r);
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) == STEER_OK)
		steer_cmd_exec(&cmd, s, NULL, &r);
	else
		steer_reply_fail(&r, "%s", err);
	bool ok = r.ok;
	snprintf(text, n, "%s", r.ok ? r.json.data ? r.json.data : "" : r.error);
	steer_reply_free(&r);
	return ok;
}

/* A wrap world every spawned point falls in, once wrapped; and the same world plain. */
static steer_world *world(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = 12000;
	cfg.edges = STEER_EDGE_WRAP;
	cfg.solid = false;
	cfg.seed = 11;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		abort();
	return w;
}

static void spawn_builds_regions_in_place(void)
{
	/* What the spawn costs one process, measured here first: the heap a whole
	 * world of it takes. */
	steer_world *plain = world();
	steer_session ps = {.world = plain};
	static char plain_reply[SPAWNED * 8 + 64], reply[SPAWNED * 8 + 64];
	long long heap0 = heap_in_use();
	CHECK(run_plain(&ps, SPAWN, plain_reply, sizeof plain_reply), "plain spawn: %.200s",
	      plain_reply);
	long long whole_heap = heap_in_use() - heap0;

	steer_world *w = world();
	steer_session s = {.world = w};
	char err[256];
	steer_cluster *c = steer_cluster_create(MPI_COMM_WORLD, w, NULL, err, sizeof err);
	CHECK(c, "cluster_create failed: %s", err);
	if (!c)
		abort();
	heap0 = heap_in_use();
	steer_reply r;
	steer_reply_init(&r);
	steer_cluster_command(c, &s, NULL, SPAWN, &r);
	CHECK(r.ok, "spawn on %d ranks: %s", ranks, r.error);
	snprintf(reply, sizeof reply, "%s", r.ok && r.json.data ? r.json.data : "");
	steer_reply_free(&r);
	long long heap = heap_in_use() - heap0;
	CHECK(strcmp(reply, plain_reply) == 0, "the spawn's reply differs from one process's");

	/* Every vehicle is on one rank; with several, none ever held them all: its
	 * storage would have grown to fit them, and its heap with it. */
	const steer_vehicles *v = steer_world_vehicles(w);
	unsigned long mine = v->count, all = 0, most = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
	CHECK(all == SPAWNED, "the ranks hold %lu vehicles, not %u", all, SPAWNED);
	if (ranks >= 3) {
		CHECK(v->cap < SPAWNED, "rank %d's storage grew to %zu places for %zu vehicles",
		      rank, v->cap, v->count);
		CHECK(most < SPAWNED * 2 / 3, "one rank holds %lu of %u", most, SPAWNED);
		if (HEAP_KNOWN) {
			CHECK(whole_heap > (long long)SPAWNED * 64,
			      "one process's heap grew by %lld bytes for %u vehicles", whole_heap,
			      SPAWNED);
			CHECK(heap < whole_heap * 3 / 4,
			      "rank %d's heap grew by %lld bytes, one process's by %lld", rank,
			      heap, whole_heap);
		}
	}

	/* The same world as one process's, then and after some ticks. */
	for (int t = 0; t <= 2; t += 2) {
		for (int k = 0; k < (t ? 2 : 0); k++) {
			CHECK(steer_cluster_step(c, err, sizeof err) == STEER_OK, "step: %s", err);
			CHECK(steer_world_step(plain) == STEER_OK, "plain step");
		}
		(void)same_world(MPI_COMM_WORLD, c, plain, "spawned in place", (unsigned)t);
	}
	steer_cluster_destroy(c);

	/* Out of the cluster, the world keeps every vehicle it is given again. */
	size_t before = steer_world_vehicles(w)->count;
	steer_vec2 at[4] = {{10, 10}, {11990, 10}, {10, 11990}, {11990, 11990}}, vel[4] = {{0}};
	CHECK(steer_vehicles_add(w, 4, at, vel, NULL, STEER_FLOCK, NULL) == STEER_OK, "add");
	CHECK(steer_world_vehicles(w)->count == before + 4,
	      "rank %d kept %zu of 4 vehicles after the cluster ended", rank,
	      steer_world_vehicles(w)->count - before);
	steer_world_destroy(w);
	steer_world_destroy(plain);
}

int main(int argc, char **argv)
{
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
		return 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (rank != 0 && !freopen("/dev/null", "w", stdout))
		return 1;
	RUN(spawn_builds_regions_in_place);
	return check_ranks_done(rank);
}
