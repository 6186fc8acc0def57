/* A world saved over N ranks in place (cluster/save.c): the file has the bytes one
 * process's save of the same world has, though the world ticks on while it is
 * written, and no step brings more than its share of the world to rank 0.
 *
 *   mpirun -np N test_cluster_save
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ranks.h"
#include "cluster.h"
#include "same_world.h"
#include "steer/command.h"

static int rank, ranks;

static steer_world *world(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = 3000;
	cfg.edges = STEER_EDGE_WRAP;
	cfg.seed = 5;
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		abort();
	return w;
}

/* The same lines on the cluster and on one process. */
static void both(steer_cluster *c, steer_session *s, steer_session *ps, const char *line)
{
	steer_reply r, pr;
	steer_reply_init(&r);
	steer_reply_init(&pr);
	steer_command cmd;
	char err[256];
	CHECK(steer_cmd_parse_line(&cmd, line, err, sizeof err) == STEER_OK, "%s: %s", line, err);
	steer_cmd_exec(&cmd, ps, NULL, &pr);
	steer_cluster_command(c, s, NULL, line, &r);
	CHECK(r.ok && pr.ok, "%s: %s / %s", line, r.error, pr.error);
	steer_reply_free(&r);
	steer_reply_free(&pr);
}

/* Appends n bytes to the file being made on rank 0, and to its sum. */
static void append(char **file, size_t *len, uint64_t *sum, const char *p, size_t n)
{
	char *grown = realloc(*file, *len + n + 1);
	if (!grown)
		abort();
	if (n)
		memcpy(grown + *len, p, n);
	*file = grown;
	*len += n;
	*sum = steer_save_sum(*sum, p, n);
}

/* The cluster's world saved in steps of `records`, the world ticking `ticks` times
 * between steps: the file on rank 0 (NULL elsewhere), and the most records a step
 * merged there. */
static char *save_in_place(steer_cluster *c, steer_world *w, size_t records, int ticks, size_t *len,
                           size_t *held)
{
	char err[256];
	*len = 0;
	*held = 0;
	steer_cluster_saver *s = steer_cluster_save_begin(MPI_COMM_WORLD, w, err, sizeof err);
	CHECK(s, "save_begin: %s", err);
	if (!s)
		abort();
	char *file = NULL;
	uint64_t sum = STEER_SAVE_SUM_START;
	size_t n;
	const char *text = steer_cluster_save_head(s, &n);
	if (rank == 0)
		append(&file, len, &sum, text, n);
	int rc;
	while ((rc = steer_cluster_save_step(s, records, &text, &n, err, sizeof err)) > 0) {
		if (rank == 0)
			append(&file, len, &sum, text, n);
		else
			CHECK(!text && !n, "rank %d was given text", rank);
		for (int t = 0; t < ticks; t++)
			CHECK(steer_cluster_step(c, err, sizeof err) == STEER_OK, "step: %s", err);
	}
	CHECK(rc == 0, "save_step: %s", err);
	if (rank == 0) {
		uint64_t count;
		text = steer_cluster_save_geometry(s, &n, &count);
		append(&file, len, &sum, text, n);
		steer_save_text end;
		steer_save_text_init(&end, 128);
		steer_save_put_end(&end, count, sum);
		append(&file, len, &sum, end.p, end.len);
		steer_save_text_free(&end);
		*held = steer_cluster_save_held_most(s);
	}
	steer_cluster_save_free(s);
	return file;
}

/* rank 0: whether file is plain's save; says where not. */
static void same_bytes(const char *file, size_t len, const steer_world *plain, const char *what)
{
	if (rank != 0)
		return;
	size_t plen;
	char *want = save_bytes(plain, &plen);
	bool same = plen == len && memcmp(want, file, len) == 0;
	char diff[512] = "";
	if (!same)
		first_difference(want, file ? file : "", diff, sizeof diff);
	CHECK(same, "%s on %d ranks (%zu bytes, one process %zu): %s", what, ranks, len, plen,
	      diff);
	free(want);
}

static void save_writes_in_place(void)
{
	steer_world *plain = world(), *w = world();
	steer_session ps = {.world = plain}, s = {.world = w};
	char err[256];
	steer_cluster *c = steer_cluster_create(MPI_COMM_WORLD, w, NULL, err, sizeof err);
	CHECK(c, "cluster_create: %s", err);
	if (!c)
		abort();

	/* An empty world saves as one process's. */
	size_t len, held;
	char *file = save_in_place(c, w, 100, 0, &len, &held);
	same_bytes(file, len, plain, "an empty world");
	free(file);

	/* Every kind of record: a flock, walkers with targets and routes, geometry, one
	 * obstacle drifting (the file keeps where it was when the save began). */
	const char *lines[] = {
	    "spawn flock 6000 1500 1500 1400",
	    "wall 400 150 400 380",
	    "polygon 560 400 660 400 610 500",
	    "obstacle 600 220 40 vx=15 vy=10",
	    "spawn 50 50 avoid_neighbours=8",
	    "spawn 2900 2900 radius=4 max_speed=60",
	    "spawn 700 700",
	};
	for (size_t k = 0; k < sizeof lines / sizeof *lines; k++)
		both(c, &s, &ps, lines[k]);
	both(c, &s, &ps, "seek 6004 900 500");
	both(c, &s, &ps, "goto 6005 100 100");
	both(c, &s, &ps, "pursue 6006 6004");
	for (int t = 0; t < 3; t++) {
		CHECK(steer_cluster_step(c, err, sizeof err) == STEER_OK, "step: %s", err);
		CHECK(steer_world_step(plain) == STEER_OK, "plain step");
	}
	file = save_in_place(c, w, 500, 1, &len, &held);
	same_bytes(file, len, plain, "a world that ticked on while it was saved");
	free(file);
	if (rank == 0) {
		CHECK(held <= 500u * (unsigned)ranks, "a step merged %zu records", held);
		if (ranks >= 3)
			CHECK(held < 6006, "one step merged %zu records: the whole world", held);
	}

	/* One record a step: the bound moves one id at a time. */
	both(c, &s, &ps, "reset");
	both(c, &s, &ps, "spawn flock 300 1500 1500 300");
	file = save_in_place(c, w, 1, 0, &len, &held);
	same_bytes(file, len, plain, "one record a step");
	free(file);
	if (rank == 0)
		CHECK(held <= (size_t)ranks, "a step of one merged %zu records", held);

	/* A save abandoned after a step leaves nothing behind (LeakSanitizer). */
	steer_cluster_saver *sv = steer_cluster_save_begin(MPI_COMM_WORLD, w, err, sizeof err);
	CHECK(sv, "save_begin: %s", err);
	const char *text;
	size_t n;
	if (sv)
		CHECK(steer_cluster_save_step(sv, 10, &text, &n, err, sizeof err) == 1, "step: %s",
		      err);
	steer_cluster_save_free(sv);

	steer_cluster_destroy(c);
	steer_world_destroy(w);
	steer_world_destroy(plain);
}

int main(int argc, char **argv)
{
	if (!check_ranks_begin(&argc, &argv, &rank, &ranks))
		return 1;
	RUN(save_writes_in_place);
	return check_ranks_done(rank);
}
