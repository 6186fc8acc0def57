/* The rewind history's pure parts (server/history.c): a checkpoint gives back a world
 * whose save is byte-identical and which continues identically, for every scenario;
 * rewinding and replaying a session with commands lands on the live world's bytes; a
 * change in the past forks; the memory budget drops the oldest checkpoints. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "history.h"
#include "savefile.h"
#include "scenario.h"
#include "testutil.h"

static steer_world *scenario_world(const char *name)
{
	steer_world_config cfg = steer_world_config_default();
	steer_world *w = steer_world_create(&cfg);
	if (!w || steer_scenario_load(w, name) != STEER_OK)
		abort();
	return w;
}

static void test_a_checkpoint_gives_back_the_same_world(void)
{
	for (const char *const *name = steer_scenario_names; *name; name++) {
		steer_world *w = scenario_world(*name);
		for (int k = 0; k < 40; k++)
			steer_world_step(w);
		history_image *img = history_image_take(w);
		CHECK(img && history_image_bytes(img) > 0, "%s: no image", *name);
		steer_world *back = img ? history_image_world(img) : NULL;
		CHECK(back, "%s: no world from the image", *name);
		if (back) {
			CHECK(same_save_bytes(w, back),
			      "%s: the checkpoint's world saves differently", *name);
			for (int k = 0; k < 60; k++) {
				steer_world_step(w);
				steer_world_step(back);
			}
			CHECK(same_save_bytes(w, back),
			      "%s: the checkpoint's world went on differently", *name);
		}
		steer_world_destroy(back);
		history_image_free(img);
		steer_world_destroy(w);
	}
}

/* A host whose history is h, as the server's (run all at once). */
static history *host_h;

static steer_status host_history(void *ud, const steer_command *cmd, steer_session *s,
                                 steer_reply *r)
{
	(void)ud;
	return history_goto_now(host_h, cmd, s, r);
}

/* One command line as the server runs it: the fork check, the command, the record. */
static char *run(history *h, steer_session *s, const char *line)
{
	static char out[1024];
	steer_command cmd;
	char err[256];
	steer_host host = {.history = host_history};
	host_h = h;
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK) {
		snprintf(out, sizeof out, "ERR %s", err);
		return out;
	}
	steer_reply r;
	steer_reply_init(&r);
	history_before(h, s, &cmd);
	if (!strcmp(cmd.entry->name, "step")) {
		for (uint32_t k = 0; k < cmd.count; k++)
			history_step(h, s);
	} else {
		steer_cmd_exec(&cmd, s, &host, &r);
		history_after(h, s, &cmd, &r);
	}
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_reply_text(&r, &b);
	snprintf(out, sizeof out, "%s", b.data ? b.data : "");
	steer_strbuf_free(&b);
	steer_reply_free(&r);
	return out;
}

static const char *const session[] = {
    "spawn flock 40 500 300 100",
    "step 10",
    "set 3 max_speed=30",
    "seek 4 10 10",
    "step 7",
    "wander 6 on",
    "obstacle 200 200 20",
    "step 13",
    "remove 8",
    "waypoint 9 900 500",
    "step 20",
    NULL,
};

/* Runs the session up to tick `until`: the world at it, before the commands stamped
 * there. */
static void run_until(history *h, steer_session *s, uint64_t until)
{
	for (const char *const *l = session; *l; l++) {
		uint64_t tick = steer_world_tick(s->world);
		if (!strncmp(*l, "step ", 5)) {
			uint64_t n = strtoull(*l + 5, NULL, 10);
			n = n < until - tick ? n : until - tick;
			char line[32];
			snprintf(line, sizeof line, "step %llu", (unsigned long long)n);
			if (n)
				run(h, s, line);
		} else if (tick >= until) {
			return;
		} else {
			run(h, s, *l);
		}
	}
}

static steer_session fresh(history *h)
{
	steer_world_config cfg = steer_world_config_default();
	steer_session s = {.world = steer_world_create(&cfg), .paused = true};
	if (!s.world)
		abort();
	history_restart(h, s.world);
	return s;
}

static void test_rewind_and_forward_is_the_live_world(void)
{
	history *h = history_new(64u << 20, 0.05); /* every 3 ticks at 60 Hz */
	history *twin_h = history_new(0, 1);
	steer_session s = fresh(h), twin = fresh(twin_h);
	run_until(h, &s, UINT64_MAX);
	run_until(twin_h, &twin, UINT64_MAX);
	CHECK(steer_world_tick(s.world) == 50, "tick %llu",
	      (unsigned long long)steer_world_tick(s.world));
	char *got = run(h, &s, "rewind 35");
	CHECK(starts(got, "OK {\"tick\":15,\"live_tick\":50,\"past\":true"), "%s", got);
	CHECK(history_past(h) && history_live_tick(h, s.world) == 50, "not in the past");
	got = run(h, &s, "goto-tick 12");
	CHECK(starts(got, "OK {\"tick\":12,"), "%s", got);
	run(h, &s, "step 20"); /* replays the recorded commands */
	got = run(h, &s, "goto-tick live");
	CHECK(starts(got, "OK {\"tick\":50,\"live_tick\":50,\"past\":false"), "%s", got);
	CHECK(same_save_bytes(s.world, twin.world), "forward to live differs from the twin");
	/* A fork: the future goes, the change stays, and the twin agrees. */
	run(h, &s, "goto-tick 17");
	got = run(h, &s, "spawn 5 5");
	CHECK(
	    strstr(got,
	           "\"forked\":{\"at_tick\":17,\"discarded_to\":50,\"kept_as\":\"rewound-17-1\"}"),
	    "%s", got);
	CHECK(!history_past(h) && history_live_tick(h, s.world) == 17, "the fork is live");
	got = run(h, &s, "goto-tick 30");
	CHECK(starts(got, "ERR goto-tick 30: beyond the live tick 17"), "%s", got);
	history_free(twin_h);
	steer_world_destroy(twin.world);
	twin_h = history_new(0, 1);
	twin = fresh(twin_h);
	run_until(twin_h, &twin, 17);
	run(twin_h, &twin, "spawn 5 5");
	CHECK(steer_world_tick(twin.world) == 17, "twin at %llu",
	      (unsigned long long)steer_world_tick(twin.world));
	CHECK(same_save_bytes(s.world, twin.world), "the fork differs from its twin");
	/* In the past, a failed command keeps the future; reset forks and starts afresh. */
	run(h, &s, "step 10");
	got = run(h, &s, "rewind 4");
	CHECK(starts(got, "OK {\"tick\":23,\"live_tick\":27,\"past\":true"), "%s", got);
	got = run(h, &s, "seek 9999 1 1");
	CHECK(starts(got, "ERR ") && !strstr(got, "forked"), "%s", got);
	CHECK(history_past(h), "a failed command ended the past");
	got = run(h, &s, "reset");
	CHECK(strstr(got, "\"kept_as\":\"rewound-23-2\""), "%s", got);
	CHECK(!history_past(h) && history_live_tick(h, s.world) == 0, "reset is live at 0");
	got = run(h, &s, "rewind 1");
	CHECK(starts(got, "ERR rewind 1: the world is only at tick 0"), "%s", got);
	history_free(h);
	history_free(twin_h);
	steer_world_destroy(s.world);
	steer_world_destroy(twin.world);
}

static void test_the_budget_drops_the_oldest(void)
{
	history *h = history_new(1, 0.05); /* a byte: no checkpoint fits */
	steer_session s = fresh(h);
	run(h, &s, "spawn flock 40 500 300 100");
	run(h, &s, "step 10");
	char *got = run(h, &s, "rewind 5");
	CHECK(starts(got, "ERR rewind: no checkpoint is kept"), "%s", got);
	history_free(h);
	steer_world_destroy(s.world);
	/* Room for a few: the oldest go, the reply names the oldest kept. */
	h = history_new(40000, 0.05);
	s = fresh(h);
	run(h, &s, "spawn flock 40 500 300 100");
	run(h, &s, "step 60");
	steer_strbuf b;
	steer_strbuf_init(&b);
	history_stats(h, s.world, &b);
	CHECK(strstr(b.data, "\"oldest_tick\":") && !strstr(b.data, "\"oldest_tick\":0"), "%s",
	      b.data);
	steer_strbuf_free(&b);
	got = run(h, &s, "goto-tick 1");
	CHECK(strstr(got, "ERR goto-tick: tick 1 is no longer kept; the oldest tick kept is "),
	      "%s", got);
	history_free(h);
	steer_world_destroy(s.world);
}

int main(void)
{
	RUN(test_a_checkpoint_gives_back_the_same_world);
	RUN(test_rewind_and_forward_is_the_live_world);
	RUN(test_the_budget_drops_the_oldest);
	return CHECK_DONE();
}
