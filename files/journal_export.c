#include "journal_export.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal_read.h"
#include "reserve.h"
#include "savefile.h"
#include "storage.h"

/* One item of the batch read ahead: a command (its line in `lines`), or a world that
 * replaced the one before (owned until written). */
typedef struct export_item {
	uint64_t tick;
	size_t off, len;
	steer_world *w;
	bool paused;
} export_item;

typedef struct exporter {
	FILE *out;
	const char *data_dir;
	char prefix[STEER_NAME_MAX + 1];
	unsigned worlds;
	uint64_t tick;   /* the world's tick where the script has brought it */
	uint64_t target; /* where the records have brought it: steps still to write */
	bool running;    /* the recorded session was running (not paused) */
	uint64_t commands, steps;
	export_item *items;
	size_t n, cap;
	steer_strbuf lines;
} exporter;

/* "journal-" and the journal's name, cut to what a save name may hold. */
static void make_prefix(exporter *x, const char *what)
{
	const char *base = strrchr(what, '/');
	base = base && base[1] ? base + 1 : what;
	char clean[STEER_NAME_MAX + 1];
	size_t k = 0;
	for (const char *p = base; *p && k + 1 < sizeof clean; p++) {
		char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.';
		clean[k++] = ok ? ch : '_';
	}
	clean[k] = '\0';
	/* Room for "-K" after it. */
	snprintf(x->prefix, sizeof x->prefix, "journal-%.48s", k ? clean : "journal");
}

/* Writes the steps that bring the script's world to the records' tick: one line for
 * the ticks between two commands, however many marks came between them. */
static void put_steps(exporter *x)
{
	while (x->tick < x->target) {
		uint64_t k = x->target - x->tick;
		if (k > STEER_CMD_MAX_STEP)
			k = STEER_CMD_MAX_STEP;
		fprintf(x->out, "step %llu\n", (unsigned long long)k);
		x->tick += k;
		x->steps += k;
	}
}

/* The records have reached tick t. */
static void reach(exporter *x, uint64_t t)
{
	if (t > x->target)
		x->target = t;
}

/* Writes w as the save "<prefix>-K" and the script line that loads it. */
/* Whether the save `name` exists with bytes other than data's: 1 other, 0 the same,
 * -1 none. */
static int save_differs(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s.steer", dir, name);
	if (stat(path, &st) != 0)
		return -1;
	char *old = NULL, why[400];
	size_t n = 0;
	if (storage_read(dir, name, &old, &n, why, sizeof why) != STEER_OK)
		return 1;
	int differs = n != len || memcmp(old, data, len) != 0;
	free(old);
	return differs;
}

/* Writes w as a save "<prefix>-K" (the first K whose save is not another world: an
 * earlier export's script still loads what it wrote) and the script line that loads
 * it. */
static int put_world(exporter *x, const steer_world *w, char *err, size_t errlen)
{
	char *data;
	size_t len;
	if (steer_save_encode(w, &data, &len) != STEER_OK) {
		snprintf(err, errlen, "cannot encode the world at tick %llu as a save",
		         (unsigned long long)steer_world_tick(w));
		return -1;
	}
	char name[STEER_NAME_MAX + 1];
	int exists;
	do
		snprintf(name, sizeof name, "%.52s-%u", x->prefix, ++x->worlds);
	while ((exists = save_differs(x->data_dir, name, data, len)) == 1 && x->worlds < 100000);
	char why[400];
	steer_status st =
	    exists == 0 ? STEER_OK : storage_write(x->data_dir, name, data, len, why, sizeof why);
	free(data);
	if (st != STEER_OK) {
		snprintf(err, errlen, "writing the save %s: %s", name, why);
		return -1;
	}
	put_steps(x);
	fprintf(x->out, "load %s\n", name);
	fprintf(stderr, "steerctl: %s the save '%s' (the world at tick %llu) in %s\n",
	        exists == 0 ? "reused" : "wrote", name, (unsigned long long)steer_world_tick(w),
	        x->data_dir);
	x->tick = x->target = steer_world_tick(w);
	return 0;
}

static void put_command(exporter *x, const char *line, size_t len, uint64_t tick)
{
	reach(x, tick);
	put_steps(x);
	/* The world is paused and stepped here; pausing is said as a note only. */
	if (!strcmp(line, "pause") || !strcmp(line, "resume")) {
		x->running = line[0] == 'r';
		fprintf(x->out, "# %s (at tick %llu)\n", line, (unsigned long long)tick);
		return;
	}
	if (len > STEER_CMD_MAX_LINE)
		fprintf(x->out, "# left out: a command of %zu bytes, longer than a text line\n",
		        len);
	else
		fprintf(x->out, "%s\n", line);
	x->commands++;
	/* reset and scenario start the world again from tick 0: the records that follow
	 * count from there. */
	size_t word = strcspn(line, " ");
	if ((word == 5 && !strncmp(line, "reset", 5)) ||
	    (word == 8 && !strncmp(line, "scenario", 8)))
		x->tick = x->target = 0;
}

static void drop_items(exporter *x)
{
	for (size_t i = 0; i < x->n; i++)
		steer_world_destroy(x->items[i].w);
	x->n = 0;
	steer_strbuf_clear(&x->lines);
}

/* The batch before a mark at tick `mark` is whole: into the script. */
static int flush_batch(exporter *x, uint64_t mark, char *err, size_t errlen)
{
	for (size_t i = 0; i < x->n; i++) {
		export_item *it = &x->items[i];
		if (it->w) {
			if (put_world(x, it->w, err, errlen) != 0)
				return -1;
			x->running = !it->paused;
			continue;
		}
		put_command(x, x->lines.data + it->off, it->len, it->tick);
	}
	drop_items(x);
	reach(x, mark);
	return 0;
}

static int add_item(exporter *x, const journal_item *it, char *err, size_t errlen)
{
	if (steer_reserve((void **)&x->items, &x->cap, x->n + 1, sizeof *x->items) != STEER_OK) {
		steer_world_destroy(it->world); /* taken either way */
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	export_item *e = &x->items[x->n++];
	*e = (export_item){.tick = it->tick, .w = it->world, .paused = it->paused};
	if (!it->world) {
		e->off = x->lines.len;
		e->len = it->line_len;
		steer_strbuf_put(&x->lines, it->line, it->line_len);
		steer_strbuf_put(&x->lines, "", 1);
	}
	if (x->lines.oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Reads the whole journal once without keeping anything: damage is refused before a
 * save is written or a line printed. */
static int journal_check(const char *dir, char *err, size_t errlen)
{
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_OLDEST, err, errlen);
	if (!r)
		return -1;
	int rc = 0;
	for (;;) {
		journal_item it;
		if (journal_read_next(r, &it, err, errlen) != STEER_OK) {
			rc = -1;
			break;
		}
		steer_world_destroy(it.world);
		if (it.kind == JOURNAL_ITEM_END)
			break;
	}
	journal_read_close(r);
	return rc;
}

static int export_records(exporter *x, journal_reader *r, char *err, size_t errlen)
{
	for (;;) {
		journal_item it;
		if (journal_read_next(r, &it, err, errlen) != STEER_OK)
			return -1;
		if (it.kind == JOURNAL_ITEM_END)
			break;
		if (it.kind == JOURNAL_ITEM_MARK) {
			if (flush_batch(x, it.tick, err, errlen) != 0)
				return -1;
			continue;
		}
		if (add_item(x, &it, err, errlen) != 0)
			return -1;
	}
	if (x->n)
		fprintf(x->out,
		        "# %zu records after the last tick mark were never durable: left out\n",
		        x->n);
	const char *why;
	uint64_t dropped = journal_read_dropped(r, &why);
	if (dropped)
		fprintf(x->out, "# %llu torn bytes at the end were dropped (%s)\n",
		        (unsigned long long)dropped, why);
	return 0;
}

steer_status journal_export(const char *what, const char *data_dir, FILE *out, char *err,
                            size_t errlen)
{
	char dir[4200];
	if (!data_dir) {
		snprintf(err, errlen,
		         "no data directory for the saves the script loads: give "
		         "--data-dir");
		return STEER_ERR_IO;
	}
	if (journal_read_dir(what, data_dir, dir, sizeof dir, err, errlen) != STEER_OK)
		return STEER_ERR_IO;
	if (journal_check(dir, err, errlen) != 0)
		return STEER_ERR_IO;
	journal_reader *r = journal_read_open(dir, JOURNAL_FROM_OLDEST, err, errlen);
	if (!r)
		return STEER_ERR_IO;
	exporter x = {.out = out, .data_dir = data_dir};
	steer_strbuf_init(&x.lines);
	make_prefix(&x, what);
	bool paused;
	steer_world *w = journal_read_world(r, &paused, err, errlen);
	int rc = -1;
	if (w) {
		fprintf(out,
		        "# The session recorded in the journal %s (%s), as commands.\n"
		        "# Run it with: steerctl < FILE, against a server whose data directory\n"
		        "# holds the saves it loads (written there now). The world stays paused\n"
		        "# and is moved by step, so it comes out tick for tick as recorded.\n"
		        "pause\n",
		        what, dir);
		x.running = !paused;
		rc = put_world(&x, w, err, errlen);
		steer_world_destroy(w);
	}
	if (rc == 0)
		rc = export_records(&x, r, err, errlen);
	if (rc == 0)
		put_steps(&x);
	if (rc == 0)
		fprintf(out,
		        "# end: tick %llu, %llu commands, %llu ticks stepped; the recorded session "
		        "was %s here\n",
		        (unsigned long long)x.tick, (unsigned long long)x.commands,
		        (unsigned long long)x.steps,
		        x.running ? "running (resume to run it on)" : "paused");
	drop_items(&x);
	free(x.items);
	steer_strbuf_free(&x.lines);
	journal_read_close(r);
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		snprintf(err, errlen, "cannot write the script: %s", strerror(errno));
		rc = -1;
	}
	return rc == 0 ? STEER_OK : STEER_ERR_IO;
}
