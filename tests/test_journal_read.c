/* The journal reader (files/journal_read.c) on directories made by hand: the newest
 * usable checkpoint is taken; a log that continues the previous one is read on from
 * it even when its own checkpoint was never written; a replaced world without its
 * checkpoint ends the history; only whole batches are applied; another version is
 * refused. What a crash leaves (a torn tail, starts killed before their first
 * checkpoint) recovers; damage (a flipped byte with whole batches after it, a stray
 * copy of a log) is refused, and read past with the loss accepted; a crafted tail does
 * not make the damage scan slow. A reader that defers its worlds names their
 * checkpoints, and applies the records through the caller's operations. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cmdrun.h"
#include "journal_format.h"
#include "journal_read.h"
#include "savefile.h"

static char dir[256];

static void put_file(uint64_t seg, const char *ext, const char *data, size_t len)
{
	char path[512];
	journal_segment_path(path, sizeof path, dir, seg, ext);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(data, 1, len, f) == len, "cannot write %s", path);
	if (f)
		fclose(f);
}

static void put_world(uint64_t seg, const steer_world *w)
{
	char *data;
	size_t len;
	CHECK(steer_save_encode(w, &data, &len) == STEER_OK, "encode");
	put_file(seg, "steer", data, len);
	free(data);
}

static void put_log(uint64_t seg, steer_strbuf *b)
{
	put_file(seg, "log", b->data, b->len);
	steer_strbuf_clear(b);
}

static steer_world *new_world(void)
{
	steer_world_config cfg = steer_world_config_default();
	return steer_world_create(&cfg);
}

static void clean(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "rm");
	CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
}

/* Runs journal_read_apply over dir from its newest checkpoint. */
static steer_status recover(steer_session *s, journal_applied *a, char *err, size_t n)
{
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, n);
	if (!r)
		return STEER_ERR_IO;
	bool paused = false;
	s->world = journal_read_world(r, &paused, err, n);
	s->paused = paused;
	steer_status st =
	    s->world ? journal_read_apply(r, s, NULL, JOURNAL_UNTIL_END, a, err, n) : STEER_ERR_IO;
	journal_read_close(r);
	return st;
}

/* Operations that apply a journal to nothing, as a start over ranks applies it in
 * place: the ticks stepped to, the lines run, the checkpoints named. */
typedef struct applied_to {
	uint64_t tick;
	int execs, replaced;
	char line[128], checkpoint[512];
} applied_to;

static uint64_t to_tick(void *ud)
{
	return ((applied_to *)ud)->tick;
}

static steer_status to_step(void *ud, uint64_t t, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	((applied_to *)ud)->tick = t;
	return STEER_OK;
}

static steer_status to_exec(void *ud, const steer_command *cmd, const char *line,
                            steer_reply *reply)
{
	(void)cmd;
	(void)reply;
	applied_to *a = ud;
	a->execs++;
	snprintf(a->line, sizeof a->line, "%s", line);
	return STEER_OK;
}

/* The checkpoint read as its taker would: its world's tick is where ticks restart. */
static steer_status to_replace(void *ud, const journal_item *it, char *err, size_t errlen)
{
	applied_to *a = ud;
	a->replaced++;
	snprintf(a->checkpoint, sizeof a->checkpoint, "%s", it->checkpoint ? it->checkpoint : "");
	FILE *f = it->checkpoint ? fopen(it->checkpoint, "rb") : NULL;
	char buf[1 << 16];
	size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	steer_world *w = it->world ? NULL : steer_save_decode(buf, len, err, errlen);
	if (!w)
		return STEER_ERR_IO;
	a->tick = steer_world_tick(w);
	steer_world_destroy(w);
	return STEER_OK;
}

/* Segment 1: a checkpoint and spawn, mark. Segment 2 continues it without its
 * checkpoint: a spawn at tick 5 and a mark at 8. Recovery reads on through 2. */
static void continues_without_its_checkpoint(void)
{
	clean();
	steer_world *w = new_world();
	put_world(1, w);
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_journal_header(&b);
	steer_journal_begin(&b, 0, STEER_JOURNAL_BEGIN_PAUSED);
	steer_journal_command(&b, 0, "spawn 10 10", 11);
	steer_journal_mark(&b, 3);
	put_log(1, &b);
	steer_journal_header(&b);
	steer_journal_begin(&b, 3, STEER_JOURNAL_BEGIN_PAUSED | STEER_JOURNAL_BEGIN_CONTINUES);
	steer_journal_command(&b, 5, "spawn 20 20", 11);
	steer_journal_mark(&b, 8);
	steer_journal_command(&b, 8, "spawn 30 30", 11); /* after the last mark: dropped */
	put_log(2, &b);
	steer_session s = {0};
	journal_applied a;
	char err[300] = "";
	steer_status st = recover(&s, &a, err, sizeof err);
	CHECK(st == STEER_OK, "recover: %s", err);
	if (st == STEER_OK) {
		CHECK(steer_world_tick(s.world) == 8, "tick %llu",
		      (unsigned long long)steer_world_tick(s.world));
		CHECK(steer_world_vehicles(s.world)->count == 2, "%zu vehicles",
		      steer_world_vehicles(s.world)->count);
		CHECK(a.records == 2 && a.marks == 2 && a.dropped == 1,
		      "records %llu marks %llu dropped %llu", (unsigned long long)a.records,
		      (unsigned long long)a.marks, (unsigned long long)a.dropped);
		CHECK(s.paused, "the session's pause was lost");
	}
	steer_world_destroy(s.world);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
}

/* Segment 2 replaces the world but its checkpoint was never written: the history
 * ends before it. With the checkpoint, its world is taken. */
static void replacement_needs_its_checkpoint(void)
{
	clean();
	steer_world *w = new_world();
	put_world(1, w);
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_journal_header(&b);
	steer_journal_begin(&b, 0, 0);
	steer_journal_command(&b, 0, "spawn 10 10", 11);
	steer_journal_mark(&b, 2);
	put_log(1, &b);
	steer_journal_header(&b);
	steer_journal_begin(&b, 40, STEER_JOURNAL_BEGIN_PAUSED);
	steer_journal_mark(&b, 41);
	put_log(2, &b);
	steer_session s = {0};
	journal_applied a;
	char err[300] = "";
	CHECK(recover(&s, &a, err, sizeof err) == STEER_OK, "recover: %s", err);
	CHECK(s.world && steer_world_tick(s.world) == 2 && a.replaced == 0,
	      "went past a replacement without its checkpoint");
	steer_world_destroy(s.world);
	/* Its checkpoint, a world of 3 vehicles at tick 40, now written: the newest. */
	steer_session s2 = {.world = new_world()};
	CHECK(!strncmp(cmdrun(&s2, NULL, "spawn flock 3 100 100 10"), "OK", 2), "spawn");
	for (int k = 0; k < 40; k++)
		steer_world_step(s2.world);
	steer_world *w2 = s2.world;
	put_world(2, w2);
	memset(&s, 0, sizeof s);
	CHECK(recover(&s, &a, err, sizeof err) == STEER_OK, "recover: %s", err);
	CHECK(s.world && steer_world_tick(s.world) == 41 &&
	          steer_world_vehicles(s.world)->count == 3 && s.paused,
	      "the replaced world was not taken");
	steer_world_destroy(s.world);
	/* From the oldest: the first world, then the replacement handed over. */
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_OLDEST, err, sizeof err);
	CHECK(r, "open oldest: %s", err);
	if (r) {
		bool paused;
		steer_world *first = journal_read_world(r, &paused, err, sizeof err);
		CHECK(first && steer_world_tick(first) == 0, "the oldest world");
		int kinds[8], n = 0;
		journal_item it;
		do {
			CHECK(journal_read_next(r, &it, err, sizeof err) == STEER_OK, "next: %s",
			      err);
			kinds[n++] = it.kind;
			steer_world_destroy(it.world);
		} while (it.kind != JOURNAL_ITEM_END && n < 8);
		CHECK(n == 5 && kinds[0] == JOURNAL_ITEM_COMMAND && kinds[1] == JOURNAL_ITEM_MARK &&
		          kinds[2] == JOURNAL_ITEM_WORLD && kinds[3] == JOURNAL_ITEM_MARK,
		      "items %d: %d %d %d %d", n, kinds[0], kinds[1], kinds[2], kinds[3]);
		steer_world_destroy(first);
		journal_read_close(r);
	}
	/* Deferred, as over ranks: each world named by its checkpoint for the caller to
	 * read, and the records handed to the caller's operations. */
	r = journal_read_open(dir, JOURNAL_FROM_OLDEST, err, sizeof err);
	CHECK(r, "open oldest: %s", err);
	if (r) {
		char path[600], want[600];
		bool paused;
		journal_segment_path(want, sizeof want, dir, 1, "steer");
		CHECK(journal_read_world_path(r, &paused, path, sizeof path, err, sizeof err) ==
		              STEER_OK &&
		          !strcmp(path, want),
		      "the start's checkpoint: '%s', not '%s'", path, want);
		journal_read_defer_worlds(r);
		applied_to to = {0};
		journal_apply_ops ops = {to_tick, to_step, to_exec, to_replace, &to};
		journal_applied got;
		CHECK(journal_read_apply_ops(r, &ops, JOURNAL_UNTIL_END, &got, err, sizeof err) ==
		          STEER_OK,
		      "apply: %s", err);
		journal_segment_path(want, sizeof want, dir, 2, "steer");
		CHECK(to.replaced == 1 && got.replaced == 1 && !strcmp(to.checkpoint, want),
		      "replaced %d times, by '%s'", to.replaced, to.checkpoint);
		CHECK(to.execs == 1 && got.records == 1 && !strncmp(to.line, "spawn", 5),
		      "%d commands run, the last '%s'", to.execs, to.line);
		CHECK(to.tick == 41, "stepped to tick %llu, not 41", (unsigned long long)to.tick);
		journal_read_close(r);
	}
	steer_world_destroy(w);
	steer_world_destroy(w2);
	steer_strbuf_free(&b);
}

/* A log of another version anywhere in the directory refuses the whole journal. */
static void another_version_refused(void)
{
	clean();
	steer_world *w = new_world();
	put_world(1, w);
	put_world(2, w);
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_journal_header(&b);
	steer_journal_begin(&b, 0, 0);
	put_log(2, &b);
	steer_journal_header(&b);
	b.data[8] = 9;
	steer_journal_begin(&b, 0, 0);
	put_log(1, &b);
	char err[300] = "";
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, sizeof err);
	CHECK(!r && strstr(err, "version 9") && strstr(err, "version 1"), "opened, or: %s", err);
	journal_read_close(r);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
}

/* Segment 1: a checkpoint, three spawns in three batches, to tick 3. */
static void put_three_spawns(steer_world *w, steer_strbuf *b)
{
	put_world(1, w);
	steer_journal_header(b);
	steer_journal_begin(b, 0, STEER_JOURNAL_BEGIN_PAUSED);
	steer_journal_command(b, 0, "spawn 10 10", 11);
	steer_journal_mark(b, 1);
	steer_journal_command(b, 1, "spawn 20 20", 11);
	steer_journal_mark(b, 2);
	steer_journal_command(b, 2, "spawn 30 30", 11);
	steer_journal_mark(b, 3);
}

static size_t vehicles_after(steer_status want, bool accept, char *err, size_t n)
{
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_NEWEST, err, n);
	CHECK(r, "open: %s", err);
	if (!r)
		return 0;
	if (accept)
		journal_read_accept_loss(r);
	bool paused;
	steer_session s = {0};
	s.world = journal_read_world(r, &paused, err, n);
	journal_applied a;
	steer_status st = journal_read_apply(r, &s, NULL, JOURNAL_UNTIL_END, &a, err, n);
	CHECK(st == want, "apply gave %d, not %d: %s", (int)st, (int)want, err);
	size_t count = s.world ? steer_world_vehicles(s.world)->count : 0;
	steer_world_destroy(s.world);
	journal_read_close(r);
	return count;
}

/* Starts killed before their first checkpoint leave fresh logs without one after the
 * history (and one of them cut in its header): all of it recovers, no damage. A
 * torn record at the end of the history, with only such dead ends after it, is a
 * tail too. */
static void dead_ends_are_what_a_crash_leaves(void)
{
	clean();
	steer_world *w = new_world();
	steer_strbuf b;
	steer_strbuf_init(&b);
	put_three_spawns(w, &b);
	steer_journal_command(&b, 3, "spawn 40 40", 11);
	b.len -= 3; /* torn */
	put_log(1, &b);
	for (uint64_t seg = 2; seg <= 3; seg++) {
		steer_journal_header(&b);
		steer_journal_begin(&b, 0, 0);
		steer_journal_command(&b, 0, "spawn 50 50", 11);
		steer_journal_mark(&b, 0);
		put_log(seg, &b);
	}
	steer_journal_header(&b);
	b.len = 9; /* a header cut short */
	put_log(4, &b);
	char err[400] = "";
	size_t n = vehicles_after(STEER_OK, false, err, sizeof err);
	CHECK(n == 3, "%zu vehicles: %s", n, err);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
}

/* One flipped byte in the first batch: refused, naming the segment and the byte;
 * with the loss accepted, what comes before it. A stray copy of a log as the next
 * segment: refused, not replayed twice. */
static void damage_is_refused_unless_accepted(void)
{
	clean();
	steer_world *w = new_world();
	steer_strbuf b;
	steer_strbuf_init(&b);
	put_three_spawns(w, &b);
	/* Inside the second spawn: header, BEGIN (18), spawn (28), mark (17), then 20. */
	size_t at = STEER_JOURNAL_HEADER_SIZE + 18 + 28 + 17 + 20;
	b.data[at] ^= 0x20;
	put_log(1, &b);
	char err[400] = "";
	vehicles_after(STEER_ERR_INVALID, false, err, sizeof err);
	CHECK(strstr(err, "0000000000000001.log is damaged at byte") &&
	          strstr(err, "intact records after it"),
	      "the refusal: %s", err);
	size_t n = vehicles_after(STEER_OK, true, err, sizeof err);
	CHECK(n == 1, "%zu vehicles with the loss accepted", n);
	/* The copy. */
	clean();
	put_three_spawns(w, &b);
	steer_strbuf copy;
	steer_strbuf_init(&copy);
	steer_strbuf_put(&copy, b.data, b.len);
	put_log(1, &b);
	/* A log copied by hand whose BEGIN says it continues (as a periodic one does). */
	steer_strbuf fixed;
	steer_strbuf_init(&fixed);
	steer_journal_header(&fixed);
	steer_journal_begin(&fixed, 0, STEER_JOURNAL_BEGIN_CONTINUES | STEER_JOURNAL_BEGIN_PAUSED);
	size_t skip = STEER_JOURNAL_HEADER_SIZE + 8 + 10;
	steer_strbuf_put(&fixed, copy.data + skip, copy.len - skip);
	put_log(2, &fixed);
	err[0] = '\0';
	vehicles_after(STEER_ERR_INVALID, false, err, sizeof err);
	CHECK(strstr(err, "0000000000000002.log") && strstr(err, "continues from tick 0") &&
	          strstr(err, "ends at tick 3"),
	      "a stray copy: %s", err);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
	steer_strbuf_free(&copy);
	steer_strbuf_free(&fixed);
}

/* A byte changed in the log's last record, the mark that ends the last batch: that
 * batch was answered, so it is damage, refused, not dropped as a tear; with the loss
 * accepted, the two batches before it. The same mark cut short is a tear. */
static void a_changed_last_record_is_damage(void)
{
	clean();
	steer_world *w = new_world();
	steer_strbuf b;
	steer_strbuf_init(&b);
	put_three_spawns(w, &b);
	b.data[b.len - 9] ^= 0x01; /* the mark's type */
	put_log(1, &b);
	char err[600] = "";
	vehicles_after(STEER_ERR_INVALID, false, err, sizeof err);
	CHECK(strstr(err, "0000000000000001.log is damaged at byte") &&
	          strstr(err, "changed after it was written") &&
	          strstr(err, "the commands since the mark before it would be lost"),
	      "the refusal: %s", err);
	size_t n = vehicles_after(STEER_OK, true, err, sizeof err);
	CHECK(n == 2, "%zu vehicles with the loss accepted", n);
	clean();
	put_three_spawns(w, &b);
	b.len -= 4;
	put_log(1, &b);
	n = vehicles_after(STEER_OK, false, err, sizeof err);
	CHECK(n == 2, "%zu vehicles from a log whose last mark was cut short: %s", n, err);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
}

/* A tail of 1.2 MB whose every fourth byte offset looks like the start of a
 * megabyte-long record: the scan for whole batches after it checks marks only, so it
 * is a tail, read at once (it once took minutes). */
static void a_crafted_tail_is_read_at_once(void)
{
	clean();
	steer_world *w = new_world();
	steer_strbuf b;
	steer_strbuf_init(&b);
	put_three_spawns(w, &b);
	for (int k = 0; k < 300000; k++)
		steer_strbuf_put(&b, "\x01\x00\x0f\x00", 4);
	put_log(1, &b);
	char err[400] = "";
	size_t n = vehicles_after(STEER_OK, false, err, sizeof err);
	CHECK(n == 3, "%zu vehicles: %s", n, err);
	steer_world_destroy(w);
	steer_strbuf_free(&b);
}

/* Names: 16 digits, or more without a leading zero; anything else is no segment. */
static void segment_names(void)
{
	uint64_t v;
	const char *ext;
	CHECK(journal_segment_name("0000000000000004.log", &v, &ext) && v == 4 &&
	          !strcmp(ext, "log"),
	      "16 digits");
	CHECK(journal_segment_name("10000000000000000.log", &v, &ext) && v == 10000000000000000ull,
	      "17 digits");
	CHECK(!journal_segment_name("00000000000000004.log", &v, &ext), "a leading zero past 16");
	CHECK(!journal_segment_name("000000000000004.log", &v, &ext), "15 digits");
	CHECK(!journal_segment_name("0000000000000000.log", &v, &ext), "zero");
	CHECK(!journal_segment_name("1000000000000000000.log", &v, &ext), "19 digits");
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/steer-test-journal-read-%ld", (long)getpid());
	RUN(continues_without_its_checkpoint);
	RUN(replacement_needs_its_checkpoint);
	RUN(another_version_refused);
	RUN(dead_ends_are_what_a_crash_leaves);
	RUN(damage_is_refused_unless_accepted);
	RUN(a_changed_last_record_is_damage);
	RUN(a_crafted_tail_is_read_at_once);
	RUN(segment_names);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return CHECK_DONE();
}
