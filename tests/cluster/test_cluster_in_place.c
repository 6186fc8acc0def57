/* A world built in place over N ranks (cluster/cluster.c): `spawn flock` on a world
 * split over the ranks leaves each rank holding only its region's vehicles, at no
 * moment the whole spawn, and the world is the one one process makes. So does a save
 * loaded over the ranks (cluster/load.c), and a bad one fails on every rank alike.
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

/* The file with its last line made again for its body as edited, so that the
 * checksum passes and the edit is what the reader meets. */
static char *reframe(const char *body, size_t len, uint64_t records, size_t *out_len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t k = 0; k < len; k++)
		h = (h ^ (unsigned char)body[k]) * 0x100000001b3ULL;
	char *out = malloc(len + 96);
	if (!out)
		abort();
	memcpy(out, body, len);
	*out_len = len + (size_t)snprintf(out + len, 96, "end records %llu fnv1a64 %016llx\n",
	                                  (unsigned long long)records, (unsigned long long)h);
	return out;
}

/* save with the first `from` after `after` (or after the start) replaced by `to`. */
static char *edited(const char *save, size_t len, const char *after, const char *from,
                    const char *to, size_t *out_len)
{
	const char *end = save + len - 1;
	while (end > save && end[-1] != '\n')
		end--;
	unsigned long long records = 0;
	if (sscanf(end, "end records %llu", &records) != 1)
		abort();
	const char *at = after ? strstr(save, after) : save;
	at = at ? strstr(at, from) : NULL;
	if (!at || at >= end)
		abort();
	size_t body = (size_t)(end - save), head = (size_t)(at - save), fl = strlen(from),
	       tl = strlen(to);
	char *b = malloc(body - fl + tl);
	if (!b)
		abort();
	memcpy(b, save, head);
	memcpy(b + head, to, tl);
	memcpy(b + head + tl, at + fl, body - head - fl);
	char *out = reframe(b, body - fl + tl, records, out_len);
	free(b);
	return out;
}

/* Loads file (rank 0's) over the ranks; the message into err. */
static steer_cluster *load(const char *file, size_t len, size_t max, steer_world **w, char *err,
                           size_t errlen)
{
	steer_save_stream *lead = NULL;
	if (rank == 0 && !(lead = steer_save_stream_open(file, len, err, errlen)))
		abort(); /* only files whose frame is sound come here */
	steer_cluster *c = steer_cluster_load(MPI_COMM_WORLD, lead, max, NULL, w, err, errlen);
	steer_save_stream_free(lead);
	return c;
}

#define LOADED     10000u
#define LOAD_SPAWN "spawn flock 10000 6000 6000 8400"

static void load_builds_regions_in_place(void)
{
	steer_world *plain = world();
	steer_session ps = {.world = plain};
	static char reply[LOADED * 8 + 64];
	CHECK(run_plain(&ps, LOAD_SPAWN, reply, sizeof reply), "plain spawn: %.200s", reply);
	CHECK(run_plain(&ps, "obstacle 3000 3000 40", reply, sizeof reply), "obstacle: %s", reply);
	CHECK(steer_world_step(plain) == STEER_OK, "plain step");
	size_t len;
	char *file = save_bytes(plain, &len);
	/* What one process's read of the file holds. */
	char err[512];
	long long heap0 = heap_in_use();
	steer_world *whole = steer_save_decode(file, len, err, sizeof err);
	long long whole_heap = heap_in_use() - heap0;
	CHECK(whole, "decode: %s", err);
	steer_world_destroy(whole);

	heap0 = heap_in_use();
	steer_world *w = NULL;
	steer_cluster *c = load(file, len, 0, &w, err, sizeof err);
	long long heap = heap_in_use() - heap0;
	CHECK(c && w, "load on %d ranks: %s", ranks, err);
	if (!c)
		abort();
	const steer_vehicles *v = steer_world_vehicles(w);
	unsigned long mine = v->count, all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
	CHECK(all == LOADED, "the ranks hold %lu vehicles, not %u", all, LOADED);
	CHECK(steer_world_config_get(w)->max_vehicles == 0, "max_vehicles %zu",
	      steer_world_config_get(w)->max_vehicles);
	if (ranks >= 3) {
		/* Rank 0 too never held them all: its storage would have grown to fit. */
		CHECK(v->cap < LOADED, "rank %d's storage grew to %zu places for %zu vehicles",
		      rank, v->cap, v->count);
		if (HEAP_KNOWN)
			CHECK(heap < whole_heap * 3 / 4,
			      "rank %d's heap grew by %lld bytes, one process's read by %lld", rank,
			      heap, whole_heap);
	}
	for (int t = 0; t <= 2; t += 2) {
		for (int k = 0; k < (t ? 2 : 0); k++) {
			CHECK(steer_cluster_step(c, err, sizeof err) == STEER_OK, "step: %s", err);
			CHECK(steer_world_step(plain) == STEER_OK, "plain step");
		}
		(void)same_world(MPI_COMM_WORLD, c, plain, "loaded in place", (unsigned)t);
	}
	steer_cluster_destroy(c);
	steer_world_destroy(w);

	/* Bad records (whose frame is sound: a bad frame is refused by rank 0 alone, when
	 * it opens the file): no world, and on every rank the words one process's read
	 * gives. */
	size_t bad_len[3];
	char *bad[3];
	bad[0] = edited(file, len, NULL, "pursue 0 ", "pursue 2000000 ", &bad_len[0]);
	/* Past the first pieces: the last vehicle's mass. */
	bad[1] = edited(file, len, "vehicle 10000 ", " mass 0x", " mass zz", &bad_len[1]);
	/* next_id at the last vehicle's id: a check made against every id of the file. */
	char next_from[64], next_to[64];
	unsigned next_id = 0;
	if (sscanf(strstr(file, "next_id "), "next_id %u", &next_id) != 1)
		abort();
	snprintf(next_from, sizeof next_from, "next_id %u ", next_id);
	snprintf(next_to, sizeof next_to, "next_id %u ", LOADED);
	bad[2] = edited(file, len, NULL, next_from, next_to, &bad_len[2]);
	for (int k = 0; k < 3; k++) {
		char want[512];
		whole = steer_save_decode(bad[k], bad_len[k], want, sizeof want);
		CHECK(!whole && want[0], "bad file %d decoded", k);
		steer_world_destroy(whole);
		w = NULL;
		c = load(bad[k], bad_len[k], 0, &w, err, sizeof err);
		CHECK(!c && !w, "bad file %d loaded on rank %d", k, rank);
		CHECK(strcmp(err, want) == 0, "bad file %d on rank %d: '%s', not '%s'", k, rank,
		      err, want);
		free(bad[k]);
	}
	c = load(file, len, LOADED - 1, &w, err, sizeof err);
	CHECK(!c && !w && strstr(err, "exceed --max-vehicles"), "over max_vehicles: %s", err);

	/* A load ended before the file is read (the server stopping) leaves nothing. */
	steer_save_stream *lead = NULL;
	if (rank == 0 && !(lead = steer_save_stream_open(file, len, err, sizeof err)))
		abort();
	steer_cluster_loader *l =
	    steer_cluster_load_begin(MPI_COMM_WORLD, lead, 0, NULL, err, sizeof err);
	CHECK(l, "load_begin: %s", err);
	if (!l)
		abort();
	CHECK(steer_cluster_load_step(l, err, sizeof err) == 1, "one piece: %s", err);
	w = NULL;
	c = steer_cluster_load_end(l, &w, err, sizeof err);
	CHECK(!c && !w && strstr(err, "abandoned"), "ended early: %s", err);
	steer_save_stream_free(lead);
	free(file);
	steer_world_destroy(plain);
}

int main(int argc, char **argv)
{
	if (!check_ranks_begin(&argc, &argv, &rank, &ranks))
		return 1;
	RUN(spawn_builds_regions_in_place);
	RUN(load_builds_regions_in_place);
	return check_ranks_done(rank);
}
