#include "savefile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "world_record.h"

#define MAGIC STEER_SAVE_MAGIC

/* Longest line and most fields the reader accepts. The params line is the longest:
 * about 35 characters and 2 fields per parameter, so there is room for ~75 more
 * parameters before these need to grow. */
#define MAX_LINE   4096
#define MAX_FIELDS 256

/* Ids at or above this are not vehicle or obstacle ids (world.c tags its id map with
 * the top bit). */
#define MAX_ID 0x7fffffffu

#define FNV_OFFSET STEER_SAVE_SUM_START
#define FNV_PRIME  0x100000001b3ULL

/* FNV-1a: every step is a bijection of the running hash, so any single changed byte
 * always changes the result. */
static uint64_t fnv1a64_more(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= FNV_PRIME;
	}
	return h;
}

static uint64_t fnv1a64(const char *p, size_t n)
{
	return fnv1a64_more(FNV_OFFSET, p, n);
}

/* --- encoding ------------------------------------------------------------------ */

/* The encoder's text is a steer_save_text (savefile.h): after the first failed
 * allocation, or once past max, every put is a no-op and nomem or over stays set, so
 * the encoder checks once at the end. */
typedef steer_save_text writer;

static bool writer_reserve(writer *o, size_t extra)
{
	/* Room for extra bytes and one more (vsnprintf's NUL); the sum cannot wrap
	 * before memory runs out, but is checked anyway. */
	if (extra > SIZE_MAX - o->len - 1 ||
	    steer_reserve((void **)&o->p, &o->cap, o->len + extra + 1, 1) != STEER_OK) {
		o->nomem = true;
		return false;
	}
	return true;
}

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static void put(writer *o, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void put(writer *o, const char *fmt, ...)
{
	if (o->nomem || o->over || !writer_reserve(o, 256))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->nomem = true; /* only an encoding error; treated as a failure to write */
		return;
	}
	if ((size_t)n >= o->cap - o->len) {
		if (!writer_reserve(o, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
	o->over = o->len > o->max;
}

void steer_save_text_init(steer_save_text *t, size_t max)
{
	memset(t, 0, sizeof *t);
	t->max = max;
}

void steer_save_text_clear(steer_save_text *t)
{
	t->len = 0;
	t->nomem = t->over = false;
}

void steer_save_text_free(steer_save_text *t)
{
	free(t->p);
	steer_save_text_init(t, t->max);
}

steer_status steer_save_text_status(const steer_save_text *t)
{
	return t->nomem ? STEER_ERR_NOMEM : t->over ? STEER_ERR_LIMIT : STEER_OK;
}

uint64_t steer_save_sum(uint64_t sum, const char *p, size_t n)
{
	return fnv1a64_more(sum, p, n);
}

static void put_behaviors(writer *o, uint32_t bits)
{
	if (!bits) {
		put(o, " behaviors none");
		return;
	}
	const char *sep = " behaviors ";
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++) {
		if (bits & (1u << k)) {
			put(o, "%s%s", sep, steer_behavior_name(1u << k));
			sep = ",";
		}
	}
}

static void put_params(writer *o, const steer_params *p)
{
	put(o, "params");
	for (size_t k = 0; k < steer_param_count; k++) {
		const steer_param_def *d = &steer_param_defs[k];
		switch (d->type) {
		case STEER_PARAM_REAL:
			put(o, " %s %a", d->name, steer_param_get(p, d));
			break;
		case STEER_PARAM_UINT:
			put(o, " %s %" PRIu32, d->name, (uint32_t)steer_param_get(p, d));
			break;
		case STEER_PARAM_BOOL:
			put(o, " %s %s", d->name, steer_param_get(p, d) != 0.0 ? "on" : "off");
			break;
		case STEER_PARAM_ENUM:
			put(o, " %s %s", d->name, steer_param_enum_name(p, d));
			break;
		}
	}
	put(o, "\n");
}

/* A vehicle's record as steer_record_vehicle takes it. */
void steer_save_put_vehicle(steer_save_text *o, const steer_vehicle_record *r)
{
	const steer_vehicle_state *s = &r->state;
	put(o, "vehicle %" PRIu32, r->id);
	put_behaviors(o, r->behaviors);
	put(o, " pos %a %a vel %a %a heading %a %a force %a %a wander_angle %a\n", r->pos.x,
	    r->pos.y, r->vel.x, r->vel.y, r->heading.x, r->heading.y, r->force.x, r->force.y,
	    s->wander_angle);
	put(o, "targets seek %a %a flee %a %a arrive %a %a pursue %" PRIu32 " evade %" PRIu32 "\n",
	    s->seek_target.x, s->seek_target.y, s->flee_target.x, s->flee_target.y,
	    s->arrive_target.x, s->arrive_target.y, s->pursue_id, s->evade_id);
	const steer_group_state *g = &s->group;
	put(o,
	    "group leader %" PRIu32 " offset %a %a hunter %" PRIu32 " between %" PRIu32 " %" PRIu32
	    "\n",
	    g->leader_id, g->offset.x, g->offset.y, g->hunter_id, g->between[0], g->between[1]);
	put_params(o, &r->prm);
	put(o, "path points %" PRIu32 " index %" PRIu32 " loop %s\n", s->path.count, s->path.index,
	    s->path.loop ? "on" : "off");
	for (uint32_t k = 0; k < s->path.count; k++)
		put(o, "point %a %a\n", s->path.points[k].x, s->path.points[k].y);
	/* Most vehicles never had a goto: a short line, as a flock's file is mostly them. */
	if (steer_goto_none(&s->go))
		put(o, "goto none\n");
	else {
		put(o, "goto goal %a %a from %a %a radius %a tried %" PRIu64 " reached %s fresh %s",
		    s->go.goal.x, s->go.goal.y, s->go.from.x, s->go.from.y, s->go.radius,
		    s->go.tried, s->go.reached ? "on" : "off",
		    s->go.epoch == STEER_GOTO_FRESH ? "on" : "off");
		if (s->go.planning)
			put(o,
			    " plan on start %a %a began %" PRIu64 " spent %" PRIu64
			    " restarts %" PRIu32 "\n",
			    s->go.start.x, s->go.start.y, s->go.began, s->go.spent, s->go.restarts);
		else
			put(o, " plan off\n");
	}
	put(o, "smooth heading %a %a\n", s->smooth.heading.x, s->smooth.heading.y);
}

/* How many records of each kind a file holds. */
typedef struct record_counts {
	uint64_t vehicles, obstacles, walls, polygons;
} record_counts;

static record_counts counts_of(const steer_world *w, uint64_t vehicles)
{
	size_t nobs, nwalls, npolys;
	(void)steer_world_obstacles(w, &nobs);
	(void)steer_world_walls(w, &nwalls);
	(void)steer_world_polygons(w, &npolys);
	return (record_counts){vehicles, nobs, nwalls, npolys};
}

uint64_t steer_save_records(const steer_world *shell, uint64_t vehicles)
{
	record_counts n = counts_of(shell, vehicles);
	return n.vehicles + n.obstacles + n.walls + n.polygons;
}

void steer_save_put_head(steer_save_text *o, const steer_world *w, uint64_t vehicles)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_world_meta m = steer_world_meta_get(w);
	record_counts n = counts_of(w, vehicles);
	put(o, MAGIC " %d\n", STEER_SAVE_VERSION);
	put(o,
	    "world width %a height %a edges %s tick_rate %a seed %" PRIu64 " solid %s contain %s\n",
	    c->width, c->height, steer_edges_name(c->edges), c->tick_rate, c->seed,
	    c->solid ? "on" : "off", c->contain ? "on" : "off");
	put(o,
	    "meta tick %" PRIu64 " next_id %" PRIu32 " rng_state %016" PRIx64 " rng_inc %016" PRIx64
	    "\n",
	    m.tick, m.next_id, m.rng.state, m.rng.inc);
	put(o,
	    "counts vehicles %" PRIu64 " obstacles %" PRIu64 " walls %" PRIu64 " polygons %" PRIu64
	    "\n",
	    n.vehicles, n.obstacles, n.walls, n.polygons);
}

void steer_save_put_geometry(steer_save_text *o, const steer_world *w)
{
	size_t nobs, nwalls, npolys;
	const steer_obstacle *obs = steer_world_obstacles(w, &nobs);
	const steer_wall *walls = steer_world_walls(w, &nwalls);
	const steer_polygon *polys = steer_world_polygons(w, &npolys);
	for (size_t k = 0; k < nobs; k++)
		put(o, "obstacle %" PRIu32 " pos %a %a vel %a %a radius %a\n", obs[k].id, obs[k].x,
		    obs[k].y, obs[k].vx, obs[k].vy, obs[k].r);
	for (size_t k = 0; k < nwalls; k++)
		put(o, "wall %" PRIu32 " a %a %a b %a %a\n", walls[k].id, walls[k].a.x,
		    walls[k].a.y, walls[k].b.x, walls[k].b.y);
	for (size_t k = 0; k < npolys; k++) {
		put(o, "polygon %" PRIu32 " inside %s points %" PRIu32 "\n", polys[k].id,
		    polys[k].inside ? "on" : "off", polys[k].count);
		for (uint32_t q = 0; q < polys[k].count; q++)
			put(o, "point %a %a\n", polys[k].points[q].x, polys[k].points[q].y);
	}
}

void steer_save_put_end(steer_save_text *o, uint64_t records, uint64_t sum)
{
	put(o, "end records %" PRIu64 " fnv1a64 %016" PRIx64 "\n", records, sum);
}

steer_status steer_save_encode(const steer_world *w, char **out, size_t *len)
{
	return steer_save_encode_max(w, STEER_SAVE_MAX_BYTES, out, len);
}

/* The file of w, its vehicles left out unless vehicles. */
static steer_status encode(const steer_world *w, size_t max_bytes, bool vehicles, char **out,
                           size_t *len)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t count = vehicles ? v->count : 0;
	writer o;
	steer_save_text_init(&o, max_bytes);
	uint64_t *order = count ? steer_record_id_order(w) : NULL;
	if (count && !order)
		return STEER_ERR_NOMEM;
	steer_save_put_head(&o, w, count);
	for (size_t k = 0; k < count; k++) {
		size_t i = (size_t)(order[k] & UINT32_MAX);
		steer_vehicle_record r;
		steer_record_vehicle(w, i, &r);
		steer_save_put_vehicle(&o, &r);
	}
	free(order);
	steer_save_put_geometry(&o, w);
	uint64_t sum = o.nomem || o.over ? 0 : fnv1a64(o.p, o.len);
	steer_save_put_end(&o, steer_save_records(w, count), sum);
	steer_status st = steer_save_text_status(&o);
	if (st != STEER_OK) {
		steer_save_text_free(&o);
		return st;
	}
	*out = o.p;
	*len = o.len;
	return STEER_OK;
}

steer_status steer_save_encode_max(const steer_world *w, size_t max_bytes, char **out, size_t *len)
{
	return encode(w, max_bytes, true, out, len);
}

steer_status steer_save_encode_shell(const steer_world *w, char **out, size_t *len)
{
	return encode(w, STEER_SAVE_MAX_BYTES, false, out, len);
}

/* --- decoding: lines and fields ------------------------------------------------- */

/* Reads lines of buf[pos..end) one at a time into text, split into fields. The
 * reader never looks past end, so it needs no terminator and trusts no length in
 * the file. */
typedef struct reader {
	const char *buf;
	size_t pos, end;
	unsigned line; /* of the line in text, counted from 1; 0 for the end line */
	char text[MAX_LINE + 1];
	char *field[MAX_FIELDS];
	size_t nfield, next;
	char *err;
	size_t errlen;
	bool failed;
	unsigned version; /* of the file's format */
	/* A file read in pieces (steer_save_stream): the world keeps the vehicles keep
	 * takes, so the ids of all the file's vehicles are kept here, for the checks
	 * the world's own vehicles make in a whole read (open addressing, 0 empty). */
	bool stream;
	steer_save_keep_fn keep;
	void *keep_ud;
	uint32_t *ids;
	size_t ids_cap, ids_count;
	unsigned ids_shift; /* 64 - log2(ids_cap) */
	uint32_t max_id;    /* the largest id of any record read */
	/* A leader reading a file through a window (steer_save_stream_source): at the
	 * window's end, brings more of the file in; false when there is no more. */
	bool (*refill)(void *ud);
	void *refill_ud;
	steer_vec2 points[STEER_MAX_WAYPOINTS];
} reader;

/* Records the first error only: later ones are consequences of it. */
static bool fail(reader *r, const char *fmt, ...) PRINTF_LIKE(2, 3);

static bool fail(reader *r, const char *fmt, ...)
{
	if (r->failed)
		return false;
	r->failed = true;
	if (!r->err || r->errlen == 0)
		return false;
	int n = r->line ? snprintf(r->err, r->errlen, "line %u: ", r->line)
	                : snprintf(r->err, r->errlen, "end line: ");
	if (n < 0 || (size_t)n >= r->errlen)
		return false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/* For errors about the file as a whole, which have no line. */
static bool fail_file(reader *r, const char *msg)
{
	if (!r->failed && r->err && r->errlen)
		snprintf(r->err, r->errlen, "%s", msg);
	r->failed = true;
	return false;
}

static void split_fields(reader *r)
{
	r->nfield = 0;
	r->next = 0;
	char *p = r->text;
	while (*p) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		if (r->nfield == MAX_FIELDS) {
			fail(r, "too many fields");
			return;
		}
		r->field[r->nfield++] = p;
		while (*p && *p != ' ')
			p++;
	}
}

/* Takes the next line into text. Only printable ASCII is accepted, so every field
 * is a plain C string that can be quoted in a message. */
static bool read_line(reader *r)
{
	if (r->failed)
		return false;
	if (r->line)
		r->line++;
	if (r->pos >= r->end && !(r->refill && r->refill(r->refill_ud)))
		return fail(r, "the file ends early (more lines were expected)");
	size_t n = 0;
	while ((r->pos < r->end || (r->refill && r->refill(r->refill_ud))) &&
	       r->buf[r->pos] != '\n') {
		unsigned char c = (unsigned char)r->buf[r->pos];
		if (c < 0x20 || c > 0x7e)
			return fail(r, "unexpected byte 0x%02x", c);
		if (n == MAX_LINE)
			return fail(r, "line is longer than %d characters", MAX_LINE);
		r->text[n++] = (char)c;
		r->pos++;
	}
	if (r->pos >= r->end) /* a window that could not be refilled */
		return fail(r, "the file ends early (more lines were expected)");
	r->text[n] = '\0';
	r->pos++; /* the newline; callers only set end just past one */
	split_fields(r);
	return !r->failed;
}

static const char *next_field(reader *r)
{
	return r->next < r->nfield ? r->field[r->next++] : NULL;
}

static bool expect_word(reader *r, const char *word)
{
	const char *f = next_field(r);
	if (!f)
		return fail(r, "expected '%s', found the end of the line", word);
	if (strcmp(f, word) != 0)
		return fail(r, "expected '%s', found '%.40s'", word, f);
	return true;
}

static bool line_done(reader *r)
{
	const char *f = next_field(r);
	return f ? fail(r, "unexpected '%.40s' at the end of the line", f) : true;
}

static const char *value_for(reader *r, const char *what)
{
	const char *f = next_field(r);
	if (!f)
		fail(r, "missing value for %s", what);
	return f;
}

/* Any double but NaN; callers that need a finite one say so. strtod reads back %a
 * exactly. */
static bool parse_real(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || isnan(v))
		return false;
	*out = v;
	return true;
}

static bool read_real(reader *r, const char *what, bool finite, double *out)
{
	const char *f = value_for(r, what);
	if (!f)
		return false;
	if (!parse_real(f, out) || (finite && !isfinite(*out)))
		return fail(r, "bad number '%.40s' for %s", f, what);
	return true;
}

static bool read_vec(reader *r, const char *what, steer_vec2 *out)
{
	return read_real(r, what, true, &out->x) && read_real(r, what, true, &out->y);
}

/* Decimal digits only: strtoull would also take signs, spaces and prefixes. */
static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool read_u64(reader *r, const char *what, uint64_t max, uint64_t *out)
{
	const char *f = value_for(r, what);
	if (!f)
		return false;
	if (!parse_u64(f, out))
		return fail(r, "bad whole number '%.40s' for %s", f, what);
	if (*out > max)
		return fail(r, "%s %" PRIu64 " is above the limit of %" PRIu64, what, *out, max);
	return true;
}

static bool read_u32(reader *r, const char *what, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (!read_u64(r, what, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Exactly 16 lowercase hex digits, as the encoder writes them, so that no edit of
 * the checksum or generator state (case included) goes unnoticed. */
static bool parse_hex64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	if (n != 16)
		return false;
	*out = v;
	return true;
}

static bool read_hex64(reader *r, const char *what, uint64_t *out)
{
	const char *f = value_for(r, what);
	if (!f)
		return false;
	if (!parse_hex64(f, out))
		return fail(r, "bad value '%.40s' for %s (want 16 lowercase hex digits)", f, what);
	return true;
}

static bool read_onoff(reader *r, const char *what, bool *out)
{
	const char *f = value_for(r, what);
	if (!f)
		return false;
	if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
		return fail(r, "bad value '%.40s' for %s (want on or off)", f, what);
	*out = f[0] == 'o' && f[1] == 'n';
	return true;
}

/* A key then its value(s): the file names every field so it can be read by eye. */
static bool key_real(reader *r, const char *key, bool finite, double *out)
{
	return expect_word(r, key) && read_real(r, key, finite, out);
}

static bool key_vec(reader *r, const char *key, steer_vec2 *out)
{
	return expect_word(r, key) && read_vec(r, key, out);
}

static bool key_u64(reader *r, const char *key, uint64_t max, uint64_t *out)
{
	return expect_word(r, key) && read_u64(r, key, max, out);
}

static bool key_u32(reader *r, const char *key, uint32_t max, uint32_t *out)
{
	return expect_word(r, key) && read_u32(r, key, max, out);
}

static bool key_onoff(reader *r, const char *key, bool *out)
{
	const char *f;
	if (!expect_word(r, key) || !(f = value_for(r, key)))
		return false;
	if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
		return fail(r, "%s: expected on or off, found '%.40s'", key, f);
	*out = f[1] == 'n';
	return true;
}

/* --- decoding: the frame (magic, version, end line, checksum) -------------------- */

/* The first line. Checked before the checksum so that a file from a newer build says
 * so, instead of looking corrupted. Sets *body to the start of the second line. */
static bool check_magic(reader *r, const char *buf, size_t len, size_t *body)
{
	size_t n = 0;
	while (n < len && n < MAX_LINE && buf[n] != '\n')
		n++;
	size_t m = strlen(MAGIC " ");
	if (memcmp(buf, MAGIC " ", n < m ? n : m) != 0)
		return fail_file(r, "not a Steer save file (it does not begin with '" MAGIC "')");
	if (n == len)
		return fail_file(r, "file is truncated");
	if (n < m || n == MAX_LINE)
		return fail_file(r, "not a Steer save file (bad first line)");
	char ver[24];
	size_t vn = n - m < sizeof ver - 1 ? n - m : sizeof ver - 1;
	memcpy(ver, buf + m, vn);
	ver[vn] = '\0';
	uint64_t v;
	if (!parse_u64(ver, &v) || n - m >= sizeof ver - 1)
		return fail_file(r, "not a Steer save file (bad format version)");
	if (v < STEER_SAVE_OLDEST || v > STEER_SAVE_VERSION) {
		char msg[96];
		snprintf(msg, sizeof msg,
		         "unsupported format version %" PRIu64 " (this build reads %d to %d)", v,
		         STEER_SAVE_OLDEST, STEER_SAVE_VERSION);
		return fail_file(r, msg);
	}
	r->version = (unsigned)v;
	*body = n + 1;
	return true;
}

/* The last line: "end records N fnv1a64 H", H over every byte before that line (the
 * sum). Sets *body_end to where that line starts. */
static bool end_line(reader *r, const char *buf, size_t len, size_t body, size_t *body_end,
                     uint64_t *records, uint64_t *sum)
{
	r->buf = buf;
	/* Without its closing line last, the file was cut short or has data after its
	 * end (an append to it): either way it is not the file that was saved. */
	if (buf[len - 1] != '\n')
		return fail_file(r, "file is truncated, or has data after its end");
	size_t s = len - 1;
	while (s > body && buf[s - 1] != '\n')
		s--;
	if (len - s < 4 || memcmp(buf + s, "end ", 4) != 0)
		return fail_file(r,
		                 "file is truncated, or has data after its end (its last line is "
		                 "not the closing 'end' line)");
	r->pos = s;
	r->end = len;
	r->line = 0;
	uint64_t want;
	if (!read_line(r) || !expect_word(r, "end") ||
	    !key_u64(r, "records", UINT64_MAX, records) || !expect_word(r, "fnv1a64") ||
	    !read_hex64(r, "fnv1a64", &want) || !line_done(r))
		return false;
	*body_end = s;
	*sum = want;
	return true;
}

static bool check_end(reader *r, const char *buf, size_t len, size_t body, size_t *body_end,
                      uint64_t *records)
{
	uint64_t want;
	if (!end_line(r, buf, len, body, body_end, records, &want))
		return false;
	if (want != fnv1a64(buf, *body_end))
		return fail_file(r, "checksum mismatch: file is corrupted");
	return true;
}

/* --- decoding: the records -------------------------------------------------------- */

static bool read_config(reader *r, steer_world_config *c)
{
	*c = steer_world_config_default();
	c->max_vehicles = 0;
	const char *edges;
	char msg[128];
	if (!read_line(r) || !expect_word(r, "world") || !key_real(r, "width", true, &c->width) ||
	    !key_real(r, "height", true, &c->height) || !expect_word(r, "edges") ||
	    !(edges = value_for(r, "edges")))
		return false;
	if (steer_edges_parse(edges, &c->edges) != STEER_OK)
		return fail(r, "unknown edges '%.40s' (want wrap, bounce or none)", edges);
	if (!key_real(r, "tick_rate", true, &c->tick_rate) ||
	    !key_u64(r, "seed", UINT64_MAX, &c->seed))
		return false;
	c->solid = c->contain = false;
	if (r->version >= 2 &&
	    (!key_onoff(r, "solid", &c->solid) || !key_onoff(r, "contain", &c->contain)))
		return false;
	if (!line_done(r))
		return false;
	if (steer_world_config_check(c, msg, sizeof msg) != STEER_OK)
		return fail(r, "%s", msg);
	return true;
}

static bool read_meta(reader *r, steer_world_meta *m)
{
	return read_line(r) && expect_word(r, "meta") && key_u64(r, "tick", UINT64_MAX, &m->tick) &&
	       key_u32(r, "next_id", MAX_ID, &m->next_id) && expect_word(r, "rng_state") &&
	       read_hex64(r, "rng_state", &m->rng.state) && expect_word(r, "rng_inc") &&
	       read_hex64(r, "rng_inc", &m->rng.inc) && line_done(r);
}

/* Walls and polygons came within format version 2: a file without them has none. */
static bool read_counts(reader *r, record_counts *n)
{
	n->walls = n->polygons = 0;
	if (!read_line(r) || !expect_word(r, "counts") ||
	    !key_u64(r, "vehicles", STEER_SAVE_MAX_RECORDS, &n->vehicles) ||
	    !key_u64(r, "obstacles", STEER_SAVE_MAX_RECORDS, &n->obstacles))
		return false;
	if (r->version >= 2 && r->next < r->nfield &&
	    (!key_u64(r, "walls", STEER_SAVE_MAX_RECORDS, &n->walls) ||
	     !key_u64(r, "polygons", STEER_SAVE_MAX_RECORDS, &n->polygons)))
		return false;
	return line_done(r);
}

static bool read_behaviors(reader *r, uint32_t *bits)
{
	char list[MAX_LINE + 1];
	const char *f;
	if (!expect_word(r, "behaviors") || !(f = value_for(r, "behaviors")))
		return false;
	*bits = 0;
	if (strcmp(f, "none") == 0)
		return true;
	/* Split a copy: the field itself may still be quoted in a message. */
	snprintf(list, sizeof list, "%s", f);
	for (char *name = list, *comma; name; name = comma ? comma + 1 : NULL) {
		comma = strchr(name, ',');
		if (comma)
			*comma = '\0';
		uint32_t bit = steer_behavior_bit(name);
		if (!bit)
			return fail(r, "unknown behaviour '%.40s'", name);
		*bits |= bit;
	}
	return true;
}

/* --- decoding: the ids of a file read in pieces ---------------------------------- */

static size_t id_slot(const reader *r, uint32_t id)
{
	/* Fibonacci hashing's top bits: ids a power of two apart spread too. */
	size_t mask = r->ids_cap - 1,
	       k = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> r->ids_shift);
	while (r->ids[k] && r->ids[k] != id)
		k = (k + 1) & mask;
	return k;
}

static bool id_read(const reader *r, uint32_t id)
{
	return r->ids_cap && r->ids[id_slot(r, id)] == id;
}

/* Kept at most half full, so every probe ends at an empty slot. */
static bool id_add(reader *r, uint32_t id)
{
	if (2 * (r->ids_count + 1) > r->ids_cap) {
		size_t cap = r->ids_cap ? 2 * r->ids_cap : 1024;
		uint32_t *old = r->ids, *grown = calloc(cap, sizeof *grown);
		if (!grown)
			return fail_file(r, "out of memory");
		size_t old_cap = r->ids_cap;
		r->ids = grown;
		r->ids_cap = cap;
		r->ids_shift = 64;
		for (size_t c = cap; c > 1; c >>= 1)
			r->ids_shift--;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k])
				r->ids[id_slot(r, old[k])] = old[k];
		free(old);
	}
	r->ids[id_slot(r, id)] = id;
	r->ids_count++;
	return true;
}

/* Whether the file holds a vehicle with this id (read so far). */
static bool vehicle_read(const reader *r, const steer_world *w, uint32_t id)
{
	return r->stream ? id_read(r, id) : steer_vehicle_index(w, id) >= 0;
}

static bool unused_id(reader *r, const steer_world *w, uint32_t id)
{
	if (id == 0)
		return fail(r, "id 0 is not a valid id");
	if (vehicle_read(r, w, id) || steer_obstacle_get(w, id) || steer_wall_get(w, id) ||
	    steer_polygon_get(w, id))
		return fail(r, "id %" PRIu32 " is used twice", id);
	if (id > r->max_id)
		r->max_id = id;
	return true;
}

static bool read_vehicle_line(reader *r, const steer_world *w, steer_vehicle_record *v)
{
	return read_line(r) && expect_word(r, "vehicle") && read_u32(r, "id", MAX_ID, &v->id) &&
	       unused_id(r, w, v->id) && read_behaviors(r, &v->behaviors) &&
	       key_vec(r, "pos", &v->pos) && key_vec(r, "vel", &v->vel) &&
	       key_vec(r, "heading", &v->heading) && key_vec(r, "force", &v->force) &&
	       key_real(r, "wander_angle", true, &v->state.wander_angle) && line_done(r);
}

static bool read_targets(reader *r, steer_vehicle_state *s)
{
	return read_line(r) && expect_word(r, "targets") && key_vec(r, "seek", &s->seek_target) &&
	       key_vec(r, "flee", &s->flee_target) && key_vec(r, "arrive", &s->arrive_target) &&
	       key_u32(r, "pursue", MAX_ID, &s->pursue_id) &&
	       key_u32(r, "evade", MAX_ID, &s->evade_id) && line_done(r);
}

/* The group line came with format version 3: before it, no vehicle had one. */
static bool read_group(reader *r, steer_group_state *g)
{
	if (r->version < 3)
		return true;
	return read_line(r) && expect_word(r, "group") &&
	       key_u32(r, "leader", MAX_ID, &g->leader_id) && key_vec(r, "offset", &g->offset) &&
	       key_u32(r, "hunter", MAX_ID, &g->hunter_id) && expect_word(r, "between") &&
	       read_u32(r, "between", MAX_ID, &g->between[0]) &&
	       read_u32(r, "between", MAX_ID, &g->between[1]) && line_done(r);
}

static bool read_param(reader *r, steer_params *p, const steer_param_def *d)
{
	const char *text = value_for(r, d->name);
	char msg[160];
	double v;
	if (!text)
		return false;
	if (d->type != STEER_PARAM_REAL) {
		/* The shared table's parser, so files and commands spell values alike. */
		if (steer_param_parse(p, d, text, msg, sizeof msg) != STEER_OK)
			return fail(r, "%s", msg);
		return true;
	}
	/* Reals by our own parser: any double but NaN, infinity included, because
	 * steer_params_check below is what decides which fields may be infinite. */
	if (!parse_real(text, &v))
		return fail(r, "bad number '%.40s' for %s", text, d->name);
	steer_param_set(p, d, v);
	return true;
}

/* "params name value ...": a name this build lacks is an error, a name the file
 * lacks keeps its default, so older files still load after a parameter is added. */
static bool read_params(reader *r, uint32_t id, steer_params *p)
{
	const steer_param_def *seen[MAX_FIELDS];
	size_t nseen = 0;
	char msg[160];
	*p = steer_params_default();
	if (!read_line(r) || !expect_word(r, "params"))
		return false;
	for (const char *name; (name = next_field(r));) {
		const steer_param_def *d = steer_param_find(name);
		if (!d)
			return fail(r, "unknown parameter '%.40s'", name);
		for (size_t k = 0; k < nseen; k++)
			if (seen[k] == d)
				return fail(r, "parameter %s is given twice", d->name);
		seen[nseen++] = d;
		if (!read_param(r, p, d))
			return false;
	}
	if (steer_params_check(p, msg, sizeof msg) != STEER_OK)
		return fail(r, "vehicle %" PRIu32 ": %s", id, msg);
	return true;
}

/* The path's points go into the reader's own buffer; restore copies them. */
static bool read_path(reader *r, steer_path *path)
{
	if (!read_line(r) || !expect_word(r, "path") ||
	    !key_u32(r, "points", STEER_MAX_WAYPOINTS, &path->count) ||
	    !key_u32(r, "index", MAX_ID, &path->index) || !expect_word(r, "loop") ||
	    !read_onoff(r, "loop", &path->loop) || !line_done(r))
		return false;
	if (path->count ? path->index >= path->count : path->index != 0)
		return fail(r, "path index %" PRIu32 " is outside its %" PRIu32 " points",
		            path->index, path->count);
	for (uint32_t k = 0; k < path->count; k++)
		if (!read_line(r) || !expect_word(r, "point") ||
		    !read_vec(r, "point", &r->points[k]) || !line_done(r))
			return false;
	path->points = path->count ? r->points : NULL;
	path->cap = path->count;
	return true;
}

/* goto's state came with format version 3 (its plan under way with 4): an older
 * file's vehicles have none. */
static bool read_goto(reader *r, steer_goto_state *go)
{
	bool fresh = false;
	memset(go, 0, sizeof *go);
	if (r->version < 3)
		return true;
	if (!read_line(r) || !expect_word(r, "goto"))
		return false;
	if (r->next < r->nfield && !strcmp(r->field[r->next], "none")) {
		r->next++;
		return line_done(r);
	}
	if (!key_vec(r, "goal", &go->goal) || !key_vec(r, "from", &go->from) ||
	    !key_real(r, "radius", true, &go->radius) ||
	    !key_u64(r, "tried", UINT64_MAX, &go->tried) ||
	    !key_onoff(r, "reached", &go->reached) || !key_onoff(r, "fresh", &fresh))
		return false;
	/* A plan under way came with version 4. */
	if (r->version >= 4) {
		uint64_t restarts = 0;
		if (!key_onoff(r, "plan", &go->planning))
			return false;
		if (go->planning && (!key_vec(r, "start", &go->start) ||
		                     !key_u64(r, "began", UINT64_MAX, &go->began) ||
		                     !key_u64(r, "spent", UINT64_MAX, &go->spent) ||
		                     !key_u64(r, "restarts", UINT32_MAX, &restarts)))
			return false;
		go->restarts = (uint32_t)restarts;
	}
	if (!line_done(r))
		return false;
	go->epoch = fresh ? STEER_GOTO_FRESH : 0;
	return true;
}

static bool restored(reader *r, steer_status st, const char *what, uint32_t id)
{
	if (st == STEER_OK)
		return true;
	return fail(r, "%s %" PRIu32 " could not be restored: %s", what, id, steer_status_str(st));
}

static bool read_vehicle(reader *r, steer_world *w)
{
	steer_vehicle_record v;
	memset(&v, 0, sizeof v);
	if (!read_vehicle_line(r, w, &v) || !read_targets(r, &v.state) ||
	    !read_group(r, &v.state.group) || !read_params(r, v.id, &v.prm) ||
	    !read_path(r, &v.state.path) || !read_goto(r, &v.state.go))
		return false;
	/* Version 3 keeps the smoothed display heading; older files start it afresh. */
	if (r->version >= 3 && (!read_line(r) || !expect_word(r, "smooth") ||
	                        !key_vec(r, "heading", &v.state.smooth.heading) || !line_done(r)))
		return false;
	if (r->stream && !id_add(r, v.id))
		return false;
	if (r->keep && !r->keep(r->keep_ud, v.pos.x, v.pos.y))
		return true; /* another reader's */
	return restored(r, steer_vehicle_restore(w, &v), "vehicle", v.id);
}

static bool read_obstacle(reader *r, steer_world *w)
{
	steer_obstacle o;
	steer_vec2 p, vel;
	if (!read_line(r) || !expect_word(r, "obstacle") || !read_u32(r, "id", MAX_ID, &o.id) ||
	    !unused_id(r, w, o.id) || !key_vec(r, "pos", &p) || !key_vec(r, "vel", &vel) ||
	    !key_real(r, "radius", true, &o.r) || !line_done(r))
		return false;
	if (!(o.r > 0.0 && o.r <= STEER_PARAM_MAX))
		return fail(r, "obstacle %" PRIu32 ": radius must be greater than 0 and at most %g",
		            o.id, STEER_PARAM_MAX);
	o.x = p.x;
	o.y = p.y;
	o.vx = vel.x;
	o.vy = vel.y;
	return restored(r, steer_obstacle_restore(w, &o), "obstacle", o.id);
}

static bool read_wall(reader *r, steer_world *w)
{
	steer_wall wall;
	if (!read_line(r) || !expect_word(r, "wall") || !read_u32(r, "id", MAX_ID, &wall.id) ||
	    !unused_id(r, w, wall.id) || !key_vec(r, "a", &wall.a) || !key_vec(r, "b", &wall.b) ||
	    !line_done(r))
		return false;
	steer_status st = steer_wall_restore(w, &wall);
	if (st == STEER_ERR_INVALID)
		return fail(r, "wall %" PRIu32 ": its ends must differ and be within %g", wall.id,
		            STEER_MAX_COORD);
	return restored(r, st, "wall", wall.id);
}

_Static_assert(STEER_MAX_POLYGON_POINTS <= STEER_MAX_WAYPOINTS,
               "a polygon's points fit the reader's point buffer");

static bool read_polygon(reader *r, steer_world *w)
{
	steer_polygon p;
	if (!read_line(r) || !expect_word(r, "polygon") || !read_u32(r, "id", MAX_ID, &p.id) ||
	    !unused_id(r, w, p.id) || !key_onoff(r, "inside", &p.inside) ||
	    !key_u32(r, "points", STEER_MAX_POLYGON_POINTS, &p.count) || !line_done(r))
		return false;
	for (uint32_t k = 0; k < p.count; k++)
		if (!read_line(r) || !expect_word(r, "point") ||
		    !read_vec(r, "point", &r->points[k]) || !line_done(r))
			return false;
	p.points = r->points;
	char msg[200];
	steer_status st = steer_polygon_restore(w, &p, msg, sizeof msg);
	if (st == STEER_ERR_INVALID)
		return fail(r, "polygon %" PRIu32 ": %s", p.id, msg);
	return restored(r, st, "polygon", p.id);
}

/* The world never lets a pursue/evade id outlive its target, nor point at the
 * pursuer itself; a file that does would attach the chase to whatever later takes
 * that id. */
static bool check_chase_ids(reader *r, const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i++) {
		const steer_vehicle_state *st = steer_vehicle_state_at(w, i);
		const steer_group_state *g = &st->group;
		uint32_t ids[6] = {st->pursue_id, st->evade_id,  g->leader_id,
		                   g->hunter_id,  g->between[0], g->between[1]};
		const char *verbs[6] = {"pursues",    "evades",          "follows",
		                        "hides from", "interposes near", "interposes near"};
		if ((g->between[0] == 0) != (g->between[1] == 0) ||
		    (g->between[0] && g->between[0] == g->between[1])) {
			char msg[128];
			snprintf(msg, sizeof msg,
			         "vehicle %" PRIu32 " interposes between %" PRIu32 " and %" PRIu32
			         ": two other vehicles, or none",
			         v->id[i], g->between[0], g->between[1]);
			return fail_file(r, msg);
		}
		for (int k = 0; k < 6; k++) {
			if (ids[k] && (ids[k] == v->id[i] || !vehicle_read(r, w, ids[k]))) {
				char msg[128];
				snprintf(msg, sizeof msg,
				         "vehicle %" PRIu32 " %s %" PRIu32
				         ", which is not another vehicle in the file",
				         v->id[i], verbs[k], ids[k]);
				return fail_file(r, msg);
			}
		}
	}
	return true;
}

/* Record k of the file: the vehicles first, then obstacles, walls and polygons. */
static bool read_record(reader *r, steer_world *w, const record_counts *n, uint64_t k)
{
	if (k < n->vehicles)
		return read_vehicle(r, w);
	k -= n->vehicles;
	if (k < n->obstacles)
		return read_obstacle(r, w);
	k -= n->obstacles;
	return k < n->walls ? read_wall(r, w) : read_polygon(r, w);
}

static uint64_t records_in(const record_counts *n)
{
	return n->vehicles + n->obstacles + n->walls + n->polygons;
}

static bool no_more_records(reader *r)
{
	if (r->pos < r->end) {
		r->line++;
		return fail(r, "more records than the counts line declares");
	}
	return true;
}

static bool read_records(reader *r, steer_world *w, const record_counts *n)
{
	for (uint64_t k = 0, total = records_in(n); k < total; k++)
		if (!read_record(r, w, n, k))
			return false;
	return no_more_records(r) && check_chase_ids(r, w);
}

/* The meta, and the routes up to date made so with the loaded geometry. */
static bool finish(reader *r, steer_world *w, const steer_world_meta *m)
{
	/* A world that keeps some vehicles checks next_id against those alone. */
	if (m->next_id > r->max_id && steer_record_finish(w, m) == STEER_OK)
		return true;
	char msg[96];
	snprintf(msg, sizeof msg, "meta: next_id %" PRIu32 " is not above every id in the file",
	         m->next_id);
	return fail_file(r, msg);
}

/* Lines 2 to 4: the world's rules, its meta and the counts; the world, empty. */
static steer_world *read_head(reader *r, uint64_t records, steer_world_meta *meta, record_counts *n)
{
	steer_world_config cfg;
	if (!read_config(r, &cfg) || !read_meta(r, meta) || !read_counts(r, n))
		return NULL;
	uint64_t total = records_in(n);
	if (total != records) {
		fail(r, "counts add up to %" PRIu64 " records but the end line says %" PRIu64,
		     total, records);
		return NULL;
	}
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		fail_file(r, "out of memory");
	return w;
}

/* Lines 2.. up to the end line: world, meta, counts, then the records. */
static steer_world *read_body(reader *r, uint64_t records)
{
	steer_world_meta meta;
	record_counts n;
	steer_world *w = read_head(r, records, &meta, &n);
	if (w && (!read_records(r, w, &n) || !finish(r, w, &meta))) {
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

/* A new reader whose errors go to err; NULL when out of memory (said in err). */
static reader *reader_new(char *err, size_t errlen)
{
	reader *r = malloc(sizeof *r);
	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(r, 0, offsetof(reader, points));
	r->err = err;
	r->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	return r;
}

/* Checks buf's frame; r then reads its body, from line 2. */
static bool open_frame(reader *r, const char *buf, size_t len, uint64_t *records)
{
	if (len == 0 || !buf)
		return fail_file(r, "file is empty");
	if (len > STEER_SAVE_MAX_BYTES) {
		char msg[96];
		snprintf(msg, sizeof msg, "file is %zu bytes, over the %u a save may hold", len,
		         STEER_SAVE_MAX_BYTES);
		return fail_file(r, msg);
	}
	r->buf = buf;
	size_t body, body_end;
	if (!check_magic(r, buf, len, &body) || !check_end(r, buf, len, body, &body_end, records))
		return false;
	r->pos = body;
	r->end = body_end;
	r->line = 1;
	return true;
}

steer_world *steer_save_decode(const char *buf, size_t len, char *err, size_t errlen)
{
	reader *r = reader_new(err, errlen);
	uint64_t records;
	steer_world *w = r && open_frame(r, buf, len, &records) ? read_body(r, records) : NULL;
	free(r);
	return w;
}

/* --- decoding in pieces -------------------------------------------------------------- */

/* A leader's window on its file (steer_save_stream_source): bytes [at, at + len). */
typedef struct window {
	steer_save_source src;
	char *bytes;
	size_t cap, len;
	uint64_t at;
	uint64_t end;  /* where the end line starts: the records stop there */
	uint64_t sum;  /* the checksum of the file up to the pieces read so far */
	uint64_t want; /* the end line's */
} window;

/* The window's first size: a few pieces; it grows only for a piece that will not fit. */
#define WINDOW_BYTES ((size_t)8 << 20)

struct steer_save_stream {
	reader *r;
	window *win;    /* a leader over a source */
	steer_world *w; /* from the head on; the caller's once finished */
	size_t from;    /* where the piece being read starts, in r's bytes */
	steer_world_meta meta;
	record_counts n;
	uint64_t records, done; /* the end line's count; those read */
	char err[512];
};

static steer_save_stream *stream_new(void)
{
	steer_save_stream *s = calloc(1, sizeof *s);
	if (s && !(s->r = reader_new(s->err, sizeof s->err))) {
		free(s);
		return NULL;
	}
	if (s)
		s->r->stream = true;
	return s;
}

steer_save_stream *steer_save_stream_open(const char *buf, size_t len, char *err, size_t errlen)
{
	steer_save_stream *s = stream_new();
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!open_frame(s->r, buf, len, &s->records)) {
		snprintf(err, errlen, "%s", s->err);
		steer_save_stream_free(s);
		return NULL;
	}
	return s;
}

/* Reads n bytes at `at` into buf through the source; false (said in r) on failure. */
static bool source_read(reader *r, const window *w, uint64_t at, char *buf, size_t n)
{
	const char *why = n ? w->src.read_at(w->src.ud, at, buf, n) : NULL;
	if (!why)
		return true;
	char msg[256];
	snprintf(msg, sizeof msg, "cannot read the file: %s", why);
	return fail_file(r, msg);
}

/* The window moves on past the bytes before the current piece and takes in more of
 * the file (growing when the piece fills it); false at the end of the records, or on
 * failure (said in r). */
static bool refill(void *ud)
{
	steer_save_stream *s = ud;
	window *w = s->win;
	reader *r = s->r;
	if (r->failed || w->at + w->len >= w->end)
		return false;
	size_t keep = w->len - s->from;
	memmove(w->bytes, w->bytes + s->from, keep);
	w->at += s->from;
	r->pos -= s->from;
	s->from = 0;
	w->len = keep;
	if (w->len == w->cap &&
	    steer_reserve((void **)&w->bytes, &w->cap, w->cap + 1, 1) != STEER_OK)
		return fail_file(r, "out of memory");
	uint64_t left = w->end - (w->at + w->len);
	size_t n = left < w->cap - w->len ? (size_t)left : w->cap - w->len;
	if (!source_read(r, w, w->at + w->len, w->bytes + w->len, n))
		return false;
	w->len += n;
	r->buf = w->bytes;
	r->end = w->len;
	return true;
}

/* The first line and the end line, each read alone, and the checksum over the file
 * read once through a buffer of a few MiB; then the window starts at line 2. */
static bool open_source(steer_save_stream *s, const steer_save_source *src)
{
	reader *r = s->r;
	if (src->size == 0)
		return fail_file(r, "file is empty");
	if (src->size > STEER_SAVE_MAX_BYTES) {
		char msg[96];
		snprintf(msg, sizeof msg, "file is %" PRIu64 " bytes, over the %u a save may hold",
		         src->size, STEER_SAVE_MAX_BYTES);
		return fail_file(r, msg);
	}
	window *w = s->win = calloc(1, sizeof *w);
	size_t size = (size_t)src->size, edge = 2 * (size_t)MAX_LINE + 2;
	size_t head_len = size < MAX_LINE + 1 ? size : MAX_LINE + 1;
	size_t tail_len = size < edge ? size : edge, tail_at = size - tail_len;
	char *head = malloc(head_len), *tail = malloc(tail_len);
	size_t cap = src->window ? src->window : WINDOW_BYTES;
	char *bytes = malloc(cap);
	bool ok = w && head && tail && bytes;
	if (!ok)
		fail_file(r, "out of memory");
	if (w)
		w->src = *src;
	size_t body = 0, end_in_tail = 0;
	ok = ok && source_read(r, w, 0, head, head_len) && check_magic(r, head, head_len, &body) &&
	     source_read(r, w, tail_at, tail, tail_len) &&
	     end_line(r, tail, tail_len, body > tail_at ? body - tail_at : 0, &end_in_tail,
	              &s->records, &w->want);
	if (ok) {
		w->end = tail_at + end_in_tail;
		w->sum = fnv1a64(head, body);
		uint64_t sum = w->sum;
		for (uint64_t at = body; ok && at < w->end;) {
			size_t n = w->end - at < cap ? (size_t)(w->end - at) : cap;
			ok = source_read(r, w, at, bytes, n);
			sum = fnv1a64_more(sum, bytes, n);
			at += n;
		}
		if (ok && sum != w->want)
			ok = fail_file(r, "checksum mismatch: file is corrupted");
	}
	free(head);
	free(tail);
	if (w) {
		w->bytes = bytes;
		w->cap = cap;
		w->at = body;
	} else {
		free(bytes);
	}
	if (!ok)
		return false;
	r->buf = w->bytes;
	r->pos = r->end = 0;
	r->line = 1;
	r->refill = refill;
	r->refill_ud = s;
	return true;
}

steer_save_stream *steer_save_stream_source(const steer_save_source *src, char *err, size_t errlen)
{
	steer_save_stream *s = stream_new();
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!open_source(s, src)) {
		snprintf(err, errlen, "%s", s->err);
		steer_save_stream_free(s);
		return NULL;
	}
	return s;
}

steer_save_stream *steer_save_stream_follow(unsigned version, uint64_t records)
{
	steer_save_stream *s = stream_new();
	if (s) {
		s->r->version = version;
		s->r->line = 1;
		s->records = records;
	}
	return s;
}

void steer_save_stream_frame(const steer_save_stream *s, unsigned *version, uint64_t *records)
{
	*version = s->r->version;
	*records = s->records;
}

void steer_save_stream_keep(steer_save_stream *s, steer_save_keep_fn keep, void *ud)
{
	s->r->keep = keep;
	s->r->keep_ud = ud;
}

steer_world *steer_save_stream_world(const steer_save_stream *s)
{
	return s->w;
}

uint64_t steer_save_stream_vehicles(const steer_save_stream *s)
{
	return s->n.vehicles;
}

const char *steer_save_stream_error(const steer_save_stream *s)
{
	return s->err;
}

/* Whether the records go on past what r holds now. */
static bool body_left(const steer_save_stream *s)
{
	const reader *r = s->r;
	return r->pos < r->end || (s->win && s->win->at + s->win->len < s->win->end);
}

static bool no_more(steer_save_stream *s)
{
	if (!body_left(s))
		return true;
	s->r->line++;
	return fail(s->r, "more records than the counts line declares");
}

/* Reads the head, or records up to limit bytes past the piece's start (one at the
 * least). */
static bool stream_read(steer_save_stream *s, size_t limit)
{
	reader *r = s->r;
	if (!s->w)
		return (s->w = read_head(r, s->records, &s->meta, &s->n)) != NULL;
	uint64_t total = records_in(&s->n);
	do {
		if (s->done == total)
			return no_more(s);
		if (!read_record(r, s->w, &s->n, s->done))
			return false;
		s->done++;
	} while (r->pos - s->from < limit && body_left(s));
	return true;
}

bool steer_save_stream_next(steer_save_stream *s, size_t bytes, const char **piece, size_t *len)
{
	reader *r = s->r;
	*piece = NULL;
	*len = 0;
	if (r->failed)
		return false;
	if (s->w && s->done == records_in(&s->n)) { /* the end: no piece */
		if (!no_more(s))
			return false;
		/* The file read twice (checked, then in pieces) must be the same file. */
		if (s->win && s->win->sum != s->win->want)
			return fail_file(r, "the file changed while it was read");
		return true;
	}
	s->from = r->pos;
	if (!stream_read(s, bytes))
		return false;
	*piece = r->buf + s->from;
	*len = r->pos - s->from;
	if (s->win)
		s->win->sum = fnv1a64_more(s->win->sum, *piece, *len);
	return true;
}

bool steer_save_stream_feed(steer_save_stream *s, const char *piece, size_t len)
{
	reader *r = s->r;
	if (r->failed)
		return false;
	r->buf = piece;
	r->pos = s->from = 0;
	r->end = len;
	while (r->pos < r->end)
		if (!stream_read(s, SIZE_MAX))
			return false;
	return true;
}

steer_world *steer_save_stream_finish(steer_save_stream *s)
{
	reader *r = s->r;
	if (r->failed || !s->w)
		return NULL;
	if (s->done != records_in(&s->n)) {
		fail(r, "the file ends early (more records were expected)");
		return NULL;
	}
	if (!check_chase_ids(r, s->w) || !finish(r, s->w, &s->meta))
		return NULL;
	steer_world *w = s->w;
	s->w = NULL;
	return w;
}

void steer_save_stream_free(steer_save_stream *s)
{
	if (!s)
		return;
	steer_world_destroy(s->w);
	if (s->win)
		free(s->win->bytes);
	free(s->win);
	if (s->r)
		free(s->r->ids);
	free(s->r);
	free(s);
}
