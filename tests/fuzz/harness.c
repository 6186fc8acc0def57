/* The fuzz targets' per-input logic; see harness.h. Everything a run allocates is
 * freed before it returns, so LeakSanitizer's report points at the code under test. */
#include "harness.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interest.h"
#include "journal_format.h"
#include "savefile.h"
#include "scenario.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/command.h"
#include "steer/strbuf.h"
#include "steer/wire.h"
#include "steer/world.h"
#include "utf8.h"

const char *harness_input_name;

void harness_violated(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout); /* what a replaying test printed so far, before stderr */
	fprintf(stderr, "fuzz invariant violated%s%s: ", harness_input_name ? " by " : "",
	        harness_input_name ? harness_input_name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* abort, not exit: libFuzzer and ctest both record it as a crash with the input. */
	abort();
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		harness_violated("out of memory (%zu bytes)", n);
	return p;
}

/* ---------------------------------------------------------------------------------
 * JSON: every OK reply's body must be one well-formed object, since clients hand it
 * to a JSON parser. A small recursive checker of RFC 8259's grammar. */

typedef struct json_in {
	const char *p, *end;
	int depth;
} json_in;

static bool json_value(json_in *j);

static void json_ws(json_in *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool json_lit(json_in *j, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool json_digits(json_in *j)
{
	const char *start = j->p;
	while (j->p < j->end && is_digit(*j->p))
		j->p++;
	return j->p > start;
}

static bool json_number(json_in *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!json_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!json_digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!json_digits(j))
			return false;
	}
	return true;
}

static bool json_string(json_in *j)
{
	if (j->p == j->end || *j->p != '"')
		return false;
	j->p++;
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		if (c == '"')
			return true;
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (j->p == j->end)
			return false;
		c = (unsigned char)*j->p++;
		if (c == 'u') {
			for (int k = 0; k < 4; k++, j->p++)
				if (j->p == j->end || !strchr("0123456789abcdefABCDEF", *j->p) ||
				    !*j->p)
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
	return false;
}

/* open is '{' or '['; members of an object are "key": value. */
static bool json_container(json_in *j, char open)
{
	char close = open == '{' ? '}' : ']';
	if (++j->depth > 64)
		return false;
	j->p++;
	json_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		json_ws(j);
		if (open == '{') {
			if (!json_string(j))
				return false;
			json_ws(j);
			if (j->p == j->end || *j->p++ != ':')
				return false;
		}
		if (!json_value(j))
			return false;
		json_ws(j);
		if (j->p == j->end)
			return false;
		char c = *j->p++;
		if (c == close)
			break;
		if (c != ',')
			return false;
	}
	j->depth--;
	return true;
}

static bool json_value(json_in *j)
{
	json_ws(j);
	if (j->p == j->end)
		return false;
	switch (*j->p) {
	case '{':
	case '[':
		return json_container(j, *j->p);
	case '"':
		return json_string(j);
	case 't':
		return json_lit(j, "true");
	case 'f':
		return json_lit(j, "false");
	case 'n':
		return json_lit(j, "null");
	default:
		return json_number(j);
	}
}

static bool json_object_ok(const char *s, size_t n)
{
	json_in j = {s, s + n, 0};
	if (n == 0 || s[0] != '{' || !json_value(&j))
		return false;
	json_ws(&j);
	return j.p == j.end;
}

/* ---------------------------------------------------------------------------------
 * World invariants, whatever commands ran: finite state, unique ids that the id map
 * resolves, speeds within each vehicle's max_speed once it has been stepped. */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void check_world(const steer_world *w, bool stepped)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_world_config *cfg = steer_world_config_get(w);
	size_t nobs;
	const steer_obstacle *o = steer_world_obstacles(w, &nobs);
	if (cfg->max_vehicles && v->count > cfg->max_vehicles)
		harness_violated("%zu vehicles exceed max_vehicles %zu", v->count,
		                 cfg->max_vehicles);
	uint32_t *ids = xmalloc((v->count + nobs) * sizeof *ids);
	for (size_t i = 0; i < v->count; i++) {
		uint32_t id = v->id[i];
		ids[i] = id;
		if (!isfinite(v->px[i]) || !isfinite(v->py[i]) || !isfinite(v->vx[i]) ||
		    !isfinite(v->vy[i]) || !isfinite(v->hx[i]) || !isfinite(v->hy[i]) ||
		    !isfinite(v->fx[i]) || !isfinite(v->fy[i]))
			harness_violated("vehicle %" PRIu32
			                 " has a non-finite state: pos (%a, %a) vel (%a, "
			                 "%a) heading (%a, %a) force (%a, %a)",
			                 id, v->px[i], v->py[i], v->vx[i], v->vy[i], v->hx[i],
			                 v->hy[i], v->fx[i], v->fy[i]);
		/* world.h: the edge rule brings every position inside (wrap: [0, size),
		 * bounce: [0, size]). */
		bool inside = cfg->edges == STEER_EDGE_NONE ||
		              (v->px[i] >= 0 && v->py[i] >= 0 &&
		               (cfg->edges == STEER_EDGE_WRAP
		                    ? v->px[i] < cfg->width && v->py[i] < cfg->height
		                    : v->px[i] <= cfg->width && v->py[i] <= cfg->height));
		if (!inside)
			harness_violated("vehicle %" PRIu32
			                 " at (%.17g, %.17g) is outside the %s world of "
			                 "%.17g x %.17g",
			                 id, v->px[i], v->py[i], steer_edges_name(cfg->edges),
			                 cfg->width, cfg->height);
		if (id == 0 || steer_vehicle_index(w, id) != (long)i)
			harness_violated("vehicle id %" PRIu32 " at index %zu does not map back",
			                 id, i);
		if (stepped) {
			const steer_params *p = steer_vehicle_params_at(w, i);
			double speed = hypot(v->vx[i], v->vy[i]);
			if (!(speed <= p->max_speed * (1 + 1e-9)))
				harness_violated("vehicle %" PRIu32
				                 " moves at %.17g > max_speed %.17g",
				                 id, speed, p->max_speed);
		}
	}
	for (size_t k = 0; k < nobs; k++) {
		ids[v->count + k] = o[k].id;
		if (!isfinite(o[k].x) || !isfinite(o[k].y) || !isfinite(o[k].vx) ||
		    !isfinite(o[k].vy) || !(o[k].r > 0) || !isfinite(o[k].r))
			harness_violated("obstacle %" PRIu32
			                 " has a bad state: pos (%a, %a) vel (%a, %a) r %a",
			                 o[k].id, o[k].x, o[k].y, o[k].vx, o[k].vy, o[k].r);
		if (o[k].id == 0 || steer_obstacle_get(w, o[k].id) != &o[k])
			harness_violated("obstacle id %" PRIu32 " does not map back", o[k].id);
	}
	qsort(ids, v->count + nobs, sizeof *ids, cmp_u32);
	for (size_t k = 1; k < v->count + nobs; k++)
		if (ids[k] == ids[k - 1])
			harness_violated("id %" PRIu32 " is used twice", ids[k]);
	free(ids);
}

/* Steps as the server's tick timer would between commands, then checks. */
static void step_and_check(steer_world *w, int ticks)
{
	check_world(w, false);
	for (int k = 0; k < ticks; k++)
		if (steer_world_step(w) != STEER_OK)
			harness_violated("steer_world_step failed");
	check_world(w, ticks > 0);
}

/* ---------------------------------------------------------------------------------
 * A session as the server holds one, with an in-memory host: one save slot, which
 * starts out holding the initial world so that `load` has something to load. */

/* The flock scenario makes 40 boids in a world this size; stepping them is most of
 * an input's cost, so the world is small (a 1000 x 600 one has 150 boids and runs
 * two to three times fewer inputs a second for no more coverage). */
#define FIX_WIDTH  500.0
#define FIX_HEIGHT 300.0
/* Room for spawns, but not for a crowd that would make every later tick slow. */
#define FIX_MAX_VEHICLES 200
/* `step N` runs N whole ticks, and the command table allows 100000: the harness
 * skips a step command of more than this many ticks, and any that would take an
 * input past FIX_STEP_BUDGET ticks in all. Longer runs only repeat the same code. */
#define FIX_MAX_STEP    20u
#define FIX_STEP_BUDGET 50u

typedef struct fixture {
	steer_session session;
	steer_host host;
	char slot_name[STEER_NAME_MAX + 1];
	char *slot;
	size_t slot_len;
	unsigned stepped; /* ticks run by step commands so far */
} fixture;

static steer_status mem_save(void *ud, const char *name, const char *data, size_t len, char *err,
                             size_t errlen)
{
	fixture *f = ud;
	(void)err, (void)errlen;
	char *copy = xmalloc(len);
	memcpy(copy, data, len);
	free(f->slot);
	f->slot = copy;
	f->slot_len = len;
	snprintf(f->slot_name, sizeof f->slot_name, "%s", name);
	return STEER_OK;
}

static steer_status mem_load(void *ud, const char *name, char **data, size_t *len, char *err,
                             size_t errlen)
{
	fixture *f = ud;
	if (!f->slot || strcmp(name, f->slot_name) != 0) {
		snprintf(err, errlen, "no save named %s", name);
		return STEER_ERR_NOENT;
	}
	*data = xmalloc(f->slot_len);
	memcpy(*data, f->slot, f->slot_len);
	*len = f->slot_len;
	return STEER_OK;
}

static void mem_stats(void *ud, steer_strbuf *json)
{
	(void)ud;
	steer_strbuf_puts(json, ",\"clients\":1");
}

/* The initial world's save file, made once: every run starts from the same bytes. */
static const char *initial_save(size_t *len)
{
	static char *bytes;
	static size_t n;
	if (!bytes) {
		steer_world_config c = steer_world_config_default();
		c.width = FIX_WIDTH;
		c.height = FIX_HEIGHT;
		c.max_vehicles = FIX_MAX_VEHICLES;
		steer_world *w = steer_world_create(&c);
		if (!w || steer_scenario_load(w, "flock") != STEER_OK ||
		    steer_save_encode(w, &bytes, &n) != STEER_OK)
			harness_violated("cannot build the initial world");
		steer_world_destroy(w);
	}
	*len = n;
	return bytes;
}

static void fixture_init(fixture *f)
{
	memset(f, 0, sizeof *f);
	steer_world_config c = steer_world_config_default();
	c.width = FIX_WIDTH;
	c.height = FIX_HEIGHT;
	c.max_vehicles = FIX_MAX_VEHICLES;
	f->session.world = steer_world_create(&c);
	if (!f->session.world || steer_scenario_load(f->session.world, "flock") != STEER_OK)
		harness_violated("cannot build the initial world");
	size_t n;
	const char *save = initial_save(&n);
	mem_save(f, "slot", save, n, NULL, 0);
	f->host.ud = f;
	f->host.save = mem_save;
	f->host.load = mem_load;
	f->host.stats = mem_stats;
}

static void fixture_free(fixture *f)
{
	steer_world_destroy(f->session.world);
	free(f->slot);
}

/* False when the harness declines to run cmd (see FIX_MAX_STEP). */
static bool affordable(fixture *f, const steer_command *cmd)
{
	if (strcmp(cmd->entry->name, "step") != 0)
		return true;
	if (cmd->count > FIX_MAX_STEP || f->stepped + cmd->count > FIX_STEP_BUDGET)
		return false;
	f->stepped += cmd->count;
	return true;
}

/* Runs cmd as the server does and checks the reply's shape. */
static void exec_checked(fixture *f, const steer_command *cmd, steer_reply *reply)
{
	if (!cmd->entry)
		harness_violated("a parsed command has no entry");
	/* A connection that may write: the server's default (no --token-file). */
	if (steer_cmd_check_access(cmd, true, reply) != STEER_OK)
		harness_violated("%s refused to a writer: %s", cmd->entry->name, reply->error);
	steer_status rc = steer_cmd_exec(cmd, &f->session, &f->host, reply);
	if ((rc == STEER_OK) != reply->ok || (rc != STEER_OK && rc != STEER_ERR_REFUSED))
		harness_violated("%s returned %s with ok=%d", cmd->entry->name,
		                 steer_status_str(rc), reply->ok);
	if (!reply->ok &&
	    (!reply->error[0] || strchr(reply->error, '\n') || strchr(reply->error, '\r')))
		harness_violated("%s: bad error message '%s'", cmd->entry->name, reply->error);
	if (reply->ok && reply->json.len && !json_object_ok(reply->json.data, reply->json.len))
		harness_violated("%s: reply is not one JSON object: %.*s", cmd->entry->name,
		                 (int)(reply->json.len > 400 ? 400 : reply->json.len),
		                 reply->json.data);
	if (!f->session.world)
		harness_violated("%s left the session without a world", cmd->entry->name);
	check_world(f->session.world, false);
}

/* ---------------------------------------------------------------------------------
 * Snapshots of a view, as the server's fan-out makes them, decoded as a client does:
 * the same vehicles must come out. */

/* The framer's outcome in the reference's terms: 1 a frame, 0 more bytes needed, -1
 * a malformed stream. */
static int framer_step(steer_framer *f, const uint8_t **msg, size_t *len, char *err, size_t errlen)
{
	if (steer_framer_next(f, msg, len, err, errlen) != STEER_OK)
		return -1;
	return *msg ? 1 : 0;
}

static void check_plain_snapshot(const steer_world *w, bool paused, const steer_view *view)
{
	steer_interest ix;
	steer_interest_init(&ix);
	if (view->set && steer_interest_build(&ix, w) != 0)
		harness_violated("interest build failed");
	uint32_t *idx = NULL;
	size_t cap = 0, n = 0;
	if (steer_interest_collect(&ix, w, view, STEER_ORDER_INDEX, &idx, &cap, &n) != 0)
		harness_violated("interest collect failed");
	steer_strbuf out;
	steer_strbuf_init(&out);
	if (steer_wire_snapshot_of(&out, w, paused, view, idx, n) != STEER_OK || out.oom)
		harness_violated("snapshot encode failed");
	steer_framer fr;
	steer_framer_init(&fr, out.len + 16);
	const uint8_t *msg;
	size_t len;
	char err[256];
	if (steer_framer_feed(&fr, (const uint8_t *)out.data, out.len) != out.len ||
	    framer_step(&fr, &msg, &len, err, sizeof err) != 1)
		harness_violated("snapshot frame does not reframe");
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_strbuf_init(&m.json);
	if (steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) != STEER_OK)
		harness_violated("snapshot does not decode: %s", err);
	const steer_vehicles *v = steer_world_vehicles(w);
	if (m.kind != STEER_MSG_SNAPSHOT || snap.count != n || snap.total_vehicles != v->count)
		harness_violated("snapshot holds %zu of %zu vehicles, %zu expected", snap.count,
		                 (size_t)snap.total_vehicles, n);
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		const steer_snap_vehicle *s = &snap.v[k];
		if (s->id != v->id[i] || s->x != (float)v->px[i] || s->y != (float)v->py[i] ||
		    s->vx != (float)v->vx[i] || s->vy != (float)v->vy[i])
			harness_violated("snapshot vehicle %zu differs from id %" PRIu32, k,
			                 v->id[i]);
	}
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_framer_free(&fr);
	steer_strbuf_free(&out);
	free(idx);
	steer_interest_free(&ix);
}

/* Builds frame f of the view's vehicles at seq. */
static void build_compact(steer_compact_frame *f, const steer_world *w, const steer_view *view,
                          const steer_compact_req *req, uint64_t seq, uint32_t **idx, size_t *cap)
{
	steer_interest ix;
	steer_interest_init(&ix);
	if (steer_interest_build(&ix, w) != 0)
		harness_violated("interest build failed");
	size_t n;
	if (steer_interest_collect(&ix, w, view, STEER_ORDER_ID, idx, cap, &n) != 0)
		harness_violated("interest collect failed");
	if (steer_compact_frame_build(f, w, view, req->cols, req->rows, *idx, n, seq) != STEER_OK)
		harness_violated("compact frame build failed");
	steer_interest_free(&ix);
}

/* The client's view of frame f, decoded from its bytes: ids must match, positions be
 * within half a quantum (plus float rounding: the snapshot holds floats). */
static void check_compact_decoded(const steer_world *w, const steer_compact_frame *f,
                                  const steer_snapshot *snap, const steer_view *view,
                                  const steer_compact_req *req, int round)
{
	if (snap->count != f->count)
		harness_violated("compact snapshot %d holds %zu vehicles, %zu expected", round,
		                 snap->count, f->count);
	double qx = (view->x1 - view->x0) / ((double)req->cols * STEER_COMPACT_SUB);
	double qy = (view->y1 - view->y0) / ((double)req->rows * STEER_COMPACT_SUB);
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t k = 0; k < f->count; k++) {
		const steer_snap_vehicle *s = &snap->v[k];
		long i = steer_vehicle_index(w, f->id[k]);
		if (s->id != f->id[k] || i < 0)
			harness_violated("compact vehicle %zu: id %" PRIu32 ", %" PRIu32
			                 " expected",
			                 k, s->id, f->id[k]);
		double ex =
		    0.5 * qx * 1.001 + 3e-7 * (fabs(v->px[i]) + fabs(view->x0) + fabs(view->x1));
		double ey =
		    0.5 * qy * 1.001 + 3e-7 * (fabs(v->py[i]) + fabs(view->y0) + fabs(view->y1));
		if (!(fabs(s->x - v->px[i]) <= ex) || !(fabs(s->y - v->py[i]) <= ey))
			harness_violated("compact snapshot %d: vehicle %" PRIu32
			                 " at (%.17g, %.17g) decodes "
			                 "to (%.9g, %.9g); quanta %.9g x %.9g; sent as (%" PRId32
			                 ", %" PRId32 ")",
			                 round, s->id, v->px[i], v->py[i], s->x, s->y, qx, qy,
			                 f->qx[k], f->qy[k]);
	}
}

static void check_compact_stream(steer_world *w, bool paused, const steer_view *view,
                                 const steer_compact_req *req)
{
	steer_compact_frame key, next;
	steer_compact_frame_init(&key);
	steer_compact_frame_init(&next);
	steer_compact_scratch sc;
	steer_compact_scratch_init(&sc);
	steer_compact_state cs;
	steer_compact_state_init(&cs);
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_strbuf_init(&m.json);
	steer_strbuf out;
	steer_strbuf_init(&out);
	uint32_t *idx = NULL;
	size_t cap = 0;
	char err[256];
	/* A key frame, then a tick later a delta on it: the server's steady state. */
	for (int round = 0; round < 2; round++) {
		steer_compact_frame *f = round ? &next : &key;
		build_compact(f, w, view, req, (uint64_t)round + 1, &idx, &cap);
		steer_strbuf_clear(&out);
		if (steer_wire_compact(&out, &sc, w, paused, f, round ? &key : NULL) != STEER_OK ||
		    out.oom)
			harness_violated("compact encode failed (round %d)", round);
		steer_framer fr;
		steer_framer_init(&fr, out.len + 16);
		const uint8_t *msg;
		size_t len;
		if (steer_framer_feed(&fr, (const uint8_t *)out.data, out.len) != out.len ||
		    framer_step(&fr, &msg, &len, err, sizeof err) != 1)
			harness_violated("compact frame does not reframe");
		if (steer_wire_decode_stream(msg, len, &m, &snap, &cs, err, sizeof err) != STEER_OK)
			harness_violated("compact snapshot (round %d) does not decode: %s", round,
			                 err);
		steer_framer_free(&fr);
		if (m.kind != STEER_MSG_SNAPSHOT || !m.compact)
			harness_violated("compact snapshot decodes as kind %d", (int)m.kind);
		check_compact_decoded(w, f, &snap, view, req, round);
		if (round == 0 && steer_world_step(w) != STEER_OK)
			harness_violated("steer_world_step failed");
	}
	free(idx);
	steer_strbuf_free(&out);
	steer_strbuf_free(&m.json);
	steer_snapshot_free(&snap);
	steer_compact_state_free(&cs);
	steer_compact_scratch_free(&sc);
	steer_compact_frame_free(&next);
	steer_compact_frame_free(&key);
}

/* ---------------------------------------------------------------------------------
 * fuzz_framer */

/* The frames of the whole stream at once, by the rule the framer documents: the
 * framer must find exactly these however the stream is cut. 1 frame, 0 incomplete,
 * -1 malformed. */
static int reference_next(const uint8_t *s, size_t n, size_t *pos, size_t max_frame, size_t *start,
                          size_t *len)
{
	uint64_t size;
	size_t i = *pos;
	if (i == n)
		return 0;
	int got = steer_varint_decode(s + i, n - i, STEER_FRAME_PREFIX_MAX, &size);
	if (got <= 0)
		return got;
	i += (size_t)got;
	if (size > max_frame)
		return -1;
	if (n - i < size)
		return 0;
	*start = i;
	*len = (size_t)size;
	*pos = i + (size_t)size;
	return 1;
}

static void check_snapshot_shape(const steer_snapshot *s)
{
	if (s->count > s->cap || s->nobstacles > s->obstacles_cap || s->nroutes > s->routes_cap)
		harness_violated("snapshot counts exceed capacities");
	/* Touch every element a client would draw, so ASan sees a wrong count. */
	volatile float sink = 0;
	for (size_t k = 0; k < s->count; k++)
		sink += s->v[k].x + s->v[k].fy;
	for (size_t k = 0; k < s->nobstacles; k++)
		sink += (float)s->obstacles[k].r;
	for (size_t k = 0; k < s->nroutes; k++)
		for (uint32_t p = 0; p < s->routes[k].npath; p++)
			sink += s->routes[k].path_x[p] + s->routes[k].path_y[p];
	/* The geometry a client keeps: what it holds is what a renderer walks. */
	const steer_snap_geometry *g = &s->geometry;
	if (g->nwalls > g->walls_cap || g->npolygons > g->polygons_cap ||
	    g->nvertices > g->vertices_cap)
		harness_violated("geometry counts exceed capacities");
	for (size_t k = 0; k < g->nwalls; k++) {
		const steer_snap_wall *w = &g->walls[k];
		if (!isfinite(w->x0) || !isfinite(w->y0) || !isfinite(w->x1) || !isfinite(w->y1))
			harness_violated("wall %u has an end that is not finite", w->id);
	}
	size_t next = 0;
	for (size_t k = 0; k < g->npolygons; k++) {
		const steer_snap_polygon *p = &g->polygons[k];
		if (p->first != next || p->count < 3 || p->count > g->nvertices - p->first)
			harness_violated(
			    "polygon %u's vertices %zu+%zu are not the next in the array", p->id,
			    p->first, p->count);
		for (size_t i = 0; i < p->count; i++)
			if (!isfinite(g->vertices[p->first + i].x) ||
			    !isfinite(g->vertices[p->first + i].y))
				harness_violated("polygon %u has a vertex that is not finite",
				                 p->id);
		next = p->first + p->count;
	}
	if (next != g->nvertices)
		harness_violated("%zu vertices, %zu in polygons", g->nvertices, next);
	(void)sink;
}

int harness_framer(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const size_t limits[4] = {STEER_MAX_CLIENT_FRAME, 256u * 1024u * 1024u, 100, 0};
	size_t max_frame = limits[(data[0] >> 3) & 3];
	size_t nchunks = (size_t)(data[0] & 7) + 1;
	if (size < 1 + nchunks)
		return 0;
	const uint8_t *chunks = data + 1;
	const uint8_t *s = data + 1 + nchunks;
	size_t n = size - 1 - nchunks;

	/* 20 KiB: static, like the server's. */
	static steer_ClientMessage cm;
	steer_snapshot snap = {0}, stream_snap = {0};
	steer_server_msg sm, stream_msg;
	memset(&sm, 0, sizeof sm);
	memset(&stream_msg, 0, sizeof stream_msg);
	steer_strbuf_init(&sm.json);
	steer_strbuf_init(&stream_msg.json);
	steer_compact_state cs;
	steer_compact_state_init(&cs);
	steer_framer f;
	steer_framer_init(&f, max_frame);

	size_t off = 0, ref_pos = 0, frames = 0, chunk_no = 0;
	int rc = 0;
	char err[256];
	while (off < n && rc >= 0) {
		size_t want = chunks[chunk_no++ % nchunks];
		size_t left = n - off, chunk = want == 0 || want > left ? left : want;
		size_t end = off + chunk;
		while (off < end && rc >= 0) {
			size_t took = steer_framer_feed(&f, s + off, end - off);
			if (took > end - off)
				harness_violated("framer took %zu of %zu bytes", took, end - off);
			off += took;
			const uint8_t *msg;
			size_t len;
			bool any = false;
			while ((rc = framer_step(&f, &msg, &len, err, sizeof err)) == 1) {
				any = true;
				size_t rs, rl;
				int want_rc = reference_next(s, n, &ref_pos, max_frame, &rs, &rl);
				if (want_rc != 1 || rl != len || memcmp(s + rs, msg, len) != 0)
					harness_violated(
					    "frame %zu differs from the stream's (reference %d, "
					    "length %zu)",
					    frames, want_rc, len);
				frames++;
				if (len > max_frame)
					harness_violated("frame of %zu bytes passed a limit of %zu",
					                 len, max_frame);
				/* Any outcome will do: it must not crash. */
				(void)steer_wire_decode_client(msg, len, &cm, err, sizeof err);
				/* A snapshot or geometry decoded: what a client would draw. */
				if (steer_wire_decode_server(msg, len, &sm, &snap, err,
				                             sizeof err) == STEER_OK &&
				    (sm.kind == STEER_MSG_SNAPSHOT ||
				     sm.kind == STEER_MSG_GEOMETRY))
					check_snapshot_shape(&snap);
				if (steer_wire_decode_stream(msg, len, &stream_msg, &stream_snap,
				                             &cs, err, sizeof err) == STEER_OK &&
				    (stream_msg.kind == STEER_MSG_SNAPSHOT ||
				     stream_msg.kind == STEER_MSG_GEOMETRY))
					check_snapshot_shape(&stream_snap);
			}
			if (rc == 0 && took == 0 && !any && off < end)
				harness_violated(
				    "framer stalled: takes no bytes and returns no frame");
		}
	}
	/* Everything fed: the framer must have reached the same end as the reference. */
	size_t rs, rl;
	int ref_rc = reference_next(s, n, &ref_pos, max_frame, &rs, &rl);
	if (rc != ref_rc)
		harness_violated("framer ends with %d after %zu frames, reference with %d", rc,
		                 frames, ref_rc);

	steer_framer_free(&f);
	steer_compact_state_free(&cs);
	steer_snapshot_free(&snap);
	steer_snapshot_free(&stream_snap);
	steer_strbuf_free(&sm.json);
	steer_strbuf_free(&stream_msg.json);
	return 0;
}

/* ---------------------------------------------------------------------------------
 * fuzz_client_message */

/* The reply as the server frames it, read back as a client would. */
/* What a protobuf parser demands of a string field; and one line, as a log or a
 * terminal needs. */
static void check_clean_text(const char *what, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = steer_utf8_char(s + i, n - i);
		if (k == 0)
			harness_violated("%s is not UTF-8 at byte %zu", what, i);
		if (k == 1 && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))
			harness_violated("%s holds control byte 0x%02x", what, (unsigned char)s[i]);
		i += k ? k : 1;
	}
}

static void check_proto_reply(uint32_t request_id, const steer_reply *r)
{
	steer_strbuf out;
	steer_strbuf_init(&out);
	if (steer_wire_reply(&out, request_id, r) != STEER_OK || out.oom)
		harness_violated("reply does not encode");
	steer_framer fr;
	steer_framer_init(&fr, out.len + 16);
	const uint8_t *msg;
	size_t len;
	char err[256];
	if (steer_framer_feed(&fr, (const uint8_t *)out.data, out.len) != out.len ||
	    framer_step(&fr, &msg, &len, err, sizeof err) != 1)
		harness_violated("reply frame does not reframe");
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_strbuf_init(&m.json);
	if (steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) != STEER_OK)
		harness_violated("reply does not decode: %s", err);
	check_clean_text("the reply's error", m.error, strlen(m.error));
	check_clean_text("the reply's JSON", m.json.data ? m.json.data : "", m.json.len);
	bool json_same = r->ok ? m.json.len == r->json.len &&
	                             (!m.json.len || !memcmp(m.json.data, r->json.data, m.json.len))
	                       : m.json.len == 0;
	if (m.kind != STEER_MSG_REPLY || m.request_id != request_id || m.ok != r->ok ||
	    strcmp(m.error, r->ok ? "" : r->error) != 0 || !json_same)
		harness_violated("reply decodes differently: ok %d/%d, error '%s'/'%s'", m.ok,
		                 r->ok, m.error, r->error);
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_framer_free(&fr);
	steer_strbuf_free(&out);
}

/* The world's walls and polygons through a Geometry message, as a client receives
 * it: every one back, exact, with the world's geometry version. */
static void check_geometry_round_trip(const steer_world *w)
{
	steer_strbuf out;
	steer_strbuf_init(&out);
	if (steer_wire_geometry(&out, w) != STEER_OK || out.oom)
		harness_violated("geometry encode failed");
	uint64_t size;
	int n = steer_varint_decode((const uint8_t *)out.data, out.len, STEER_VARINT_MAX, &size);
	if (n <= 0 || (size_t)n + size != out.len)
		harness_violated("geometry is not one frame");
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	char err[256];
	if (steer_wire_decode_server((const uint8_t *)out.data + n, (size_t)size, &m, &snap, err,
	                             sizeof err) != STEER_OK ||
	    m.kind != STEER_MSG_GEOMETRY)
		harness_violated("geometry does not decode: %s", err);
	check_snapshot_shape(&snap);
	const steer_snap_geometry *g = &snap.geometry;
	size_t nw, np;
	const steer_wall *walls = steer_world_walls(w, &nw);
	const steer_polygon *polys = steer_world_polygons(w, &np);
	if (g->version != steer_world_geometry_version(w) || g->nwalls != nw ||
	    g->npolygons != np || g->contain != steer_world_config_get(w)->contain)
		harness_violated("geometry holds %zu walls and %zu polygons of %zu and %zu",
		                 g->nwalls, g->npolygons, nw, np);
	for (size_t k = 0; k < nw; k++) {
		const steer_snap_wall *s = &g->walls[k];
		if (s->id != walls[k].id || s->x0 != walls[k].a.x || s->y0 != walls[k].a.y ||
		    s->x1 != walls[k].b.x || s->y1 != walls[k].b.y)
			harness_violated("wall %" PRIu32 " differs", walls[k].id);
	}
	for (size_t k = 0; k < np; k++) {
		const steer_snap_polygon *p = &g->polygons[k];
		if (p->id != polys[k].id || p->inside != polys[k].inside ||
		    p->count != polys[k].count)
			harness_violated("polygon %" PRIu32 " differs", polys[k].id);
		for (size_t i = 0; i < p->count; i++)
			if (g->vertices[p->first + i].x != polys[k].points[i].x ||
			    g->vertices[p->first + i].y != polys[k].points[i].y)
				harness_violated("polygon %" PRIu32 " vertex %zu differs",
				                 polys[k].id, i);
	}
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_strbuf_free(&out);
}

int harness_client_message(const uint8_t *data, size_t size)
{
	/* 20 KiB decoded struct: static, as in the server. */
	static steer_ClientMessage m;
	char err[256] = "";
	if (steer_wire_decode_client(data, size, &m, err, sizeof err) != STEER_OK) {
		if (!err[0])
			harness_violated("decode failed without a message");
		return 0;
	}
	/* The server answers a string with a NUL with an error and goes no further. */
	err[0] = '\0';
	if (steer_wire_client_strings_ok(data, size, &m, err, sizeof err) != STEER_OK) {
		if (!err[0])
			harness_violated("a NUL refused without a message");
		return 0;
	}
	fixture fx;
	fixture_init(&fx);
	steer_world *w;
	switch (m.which_msg) {
	case steer_ClientMessage_hello_tag:
		if (!memchr(m.msg.hello.client, '\0', sizeof m.msg.hello.client))
			harness_violated("hello's client name is not terminated");
		break;
	case steer_ClientMessage_viewport_tag: {
		steer_view view = {0};
		steer_compact_req req;
		/* Both parts or neither, as the server takes them. */
		if (steer_wire_to_view(&m.msg.viewport, &view, err, sizeof err) != STEER_OK ||
		    steer_wire_to_compact(&m.msg.viewport, &req, err, sizeof err) != STEER_OK)
			break;
		if (view.set && !(view.x1 > view.x0 && view.y1 > view.y0 && isfinite(view.x0) &&
		                  isfinite(view.x1) && isfinite(view.y0) && isfinite(view.y1)))
			harness_violated("accepted viewport is not a finite rectangle");
		w = fx.session.world;
		if (req.on)
			check_compact_stream(w, fx.session.paused, &view, &req);
		else
			check_plain_snapshot(w, fx.session.paused, &view);
		break;
	}
	case steer_ClientMessage_command_tag: {
		steer_command cmd;
		uint32_t rid = m.msg.command.request_id;
		steer_reply reply;
		steer_reply_init(&reply);
		if (steer_wire_to_command(&m.msg.command, &cmd, err, sizeof err) != STEER_OK) {
			/* The server answers with this message as the error. */
			reply.ok = false;
			snprintf(reply.error, sizeof reply.error, "%s", err);
			check_proto_reply(rid, &reply);
		} else if (affordable(&fx, &cmd)) {
			exec_checked(&fx, &cmd, &reply);
			check_proto_reply(rid, &reply);
			check_geometry_round_trip(fx.session.world);
		}
		steer_reply_free(&reply);
		break;
	}
	default:
		harness_violated("decoded a ClientMessage of unknown kind %d", (int)m.which_msg);
	}
	step_and_check(fx.session.world, 2);
	fixture_free(&fx);
	return 0;
}

/* ---------------------------------------------------------------------------------
 * fuzz_text_command */

/* The server's line limit (server/conn.h): a longer line closes the connection. */
#define TEXT_MAX_LINE STEER_CMD_MAX_LINE

/* True when line (NUL-terminated) has a word: the server ignores blank lines. */
static bool has_word(const char *line)
{
	for (; *line; line++)
		if (*line != ' ' && *line != '\t' && *line != '\r' && *line != '\n')
			return true;
	return false;
}

int harness_text_command(const uint8_t *data, size_t size)
{
	fixture fx;
	fixture_init(&fx);
	char *line = xmalloc(TEXT_MAX_LINE + 1);
	steer_strbuf text;
	steer_strbuf_init(&text);
	size_t pos = 0;
	bool closed = false;
	/* Only complete lines: the server waits for the newline of the last one. */
	while (pos < size && !closed) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		if (!nl)
			break;
		size_t n = (size_t)(nl - (data + pos));
		if (n > TEXT_MAX_LINE)
			break;
		memcpy(line, data + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (!has_word(line))
			continue;
		steer_command cmd;
		char err[256] = "";
		steer_reply reply;
		steer_reply_init(&reply);
		if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK) {
			reply.ok = false;
			snprintf(reply.error, sizeof reply.error, "%s", err);
		} else if (!affordable(&fx, &cmd)) {
			steer_reply_free(&reply);
			continue;
		} else {
			exec_checked(&fx, &cmd, &reply);
			closed = reply.close;
		}
		steer_strbuf_clear(&text);
		steer_reply_text(&reply, &text);
		if (text.oom)
			harness_violated("out of memory rendering a reply");
		bool ok = text.len >= 2 && !memcmp(text.data, "OK", 2) &&
		          (text.len == 2 || text.data[2] == ' ');
		bool bad = text.len >= 4 && !memcmp(text.data, "ERR ", 4);
		if ((!ok && !bad) || ok != reply.ok || memchr(text.data, '\n', text.len) ||
		    memchr(text.data, '\r', text.len) || strlen(text.data) != text.len)
			harness_violated("reply to '%.200s' is not one OK/ERR line: '%.400s'", line,
			                 text.data);
		steer_reply_free(&reply);
	}
	check_geometry_round_trip(fx.session.world);
	step_and_check(fx.session.world, 2);
	steer_strbuf_free(&text);
	free(line);
	fixture_free(&fx);
	return 0;
}

/* ---------------------------------------------------------------------------------
 * fuzz_savefile */

/* The save file's closing line for body, as steer_save_encode writes it: the record
 * count and the FNV-1a 64 hash of every byte before the line. */
static size_t end_line(char *out, size_t outlen, const char *body, size_t n, uint64_t records)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)body[i];
		h *= 0x100000001b3ULL;
	}
	int e =
	    snprintf(out, outlen, "end records %" PRIu64 " fnv1a64 %016" PRIx64 "\n", records, h);
	return (size_t)e;
}

/* input with its end line (if any) replaced by a correct one, so that mutations reach
 * the parser past the checksum. The record count is that of the record lines, so
 * mutated counts lines still meet their check. Returns a new buffer of exactly *len
 * bytes (no terminator: the decoder must not read past len). */
static char *reseal(const uint8_t *data, size_t size, size_t *len)
{
	const char *in = (const char *)data;
	size_t body = size;
	if (size && in[size - 1] == '\n') {
		size_t s = size - 1;
		while (s > 0 && in[s - 1] != '\n')
			s--;
		if (size - s >= 4 && !memcmp(in + s, "end ", 4))
			body = s;
	}
	bool add_nl = body && in[body - 1] != '\n';
	uint64_t records = 0;
	for (size_t i = 0; i < body; i++)
		if ((i == 0 || in[i - 1] == '\n') &&
		    ((body - i >= 8 && !memcmp(in + i, "vehicle ", 8)) ||
		     (body - i >= 9 && !memcmp(in + i, "obstacle ", 9))))
			records++;
	char *copy = xmalloc(body + 1);
	memcpy(copy, in, body);
	if (add_nl)
		copy[body++] = '\n';
	char end[96];
	size_t e = end_line(end, sizeof end, copy, body, records);
	char *out = xmalloc(body + e);
	memcpy(out, copy, body);
	memcpy(out + body, end, e);
	free(copy);
	*len = body + e;
	return out;
}

/* A decoded world must save, load back, and save to the same bytes. */
static void check_round_trip(steer_world *w)
{
	char *a, *b;
	size_t alen, blen;
	char err[256] = "";
	check_world(w, false);
	if (steer_save_encode(w, &a, &alen) != STEER_OK)
		harness_violated("a decoded world does not encode");
	steer_world *again = steer_save_decode(a, alen, err, sizeof err);
	if (!again)
		harness_violated("a re-encoded world does not decode: %s\n%.2000s", err, a);
	if (steer_save_encode(again, &b, &blen) != STEER_OK)
		harness_violated("a reloaded world does not encode");
	if (alen != blen || memcmp(a, b, alen) != 0) {
		size_t at = 0;
		while (at < alen && at < blen && a[at] == b[at])
			at++;
		harness_violated(
		    "save -> load -> save changes the file at byte %zu:\n%.300s\nvs\n%.300s", at,
		    a + (at > 100 ? at - 100 : 0), b + (at > 100 ? at - 100 : 0));
	}
	free(a);
	free(b);
	steer_world_destroy(again);
}

static void try_decode(const char *buf, size_t len)
{
	char err[256] = "";
	steer_world *w = steer_save_decode(buf, len, err, sizeof err);
	if (!w) {
		if (!err[0] || !memchr(err, '\0', sizeof err))
			harness_violated("a refused save file has no message");
		return;
	}
	check_round_trip(w);
	/* `load` hands this world to the server, which ticks it next. */
	step_and_check(w, 2);
	steer_world_destroy(w);
}

int harness_savefile(const uint8_t *data, size_t size)
{
	/* An exact-size copy: libFuzzer's buffer is exact too, but a caller's may not be. */
	char *copy = size ? xmalloc(size) : NULL;
	if (copy)
		memcpy(copy, data, size);
	try_decode(copy, size);
	free(copy);
	size_t len;
	char *sealed = reseal(data, size, &len);
	if (len != size || memcmp(sealed, data, size) != 0)
		try_decode(sealed, len);
	free(sealed);
	return 0;
}

/* ---------------------------------------------------------------------------------
 * fuzz_utf8: the escaping every reply, notice and log line goes through, held to an
 * independent decoder (code points and their ranges, not byte-range tables). */

/* Length of the well-formed character at p (n bytes available), or 0. */
static size_t ref_utf8_char(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[k] & 0x3f);
	}
	static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Valid UTF-8 with no C0, DEL or C1 control: what may leave the program. */
static bool ref_clean(const unsigned char *s, size_t n, size_t *bad_at)
{
	for (size_t i = 0; i < n;) {
		size_t k = ref_utf8_char(s + i, n - i);
		bool control = (k == 1 && (s[i] < 0x20 || s[i] == 0x7f)) ||
		               (k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0);
		if (k == 0 || control) {
			*bad_at = i;
			return false;
		}
		i += k;
	}
	return true;
}

/* Input: byte 0 is the destination size minus one for the cut escape, byte 1 the
 * cut limit; the rest is the text. */
int harness_utf8(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t small_n = (size_t)data[0] + 1, max = data[1];
	size_t len = size - 2;
	char *src = xmalloc(len); /* exact size: a read past the text is caught */
	memcpy(src, data + 2, len);
	const unsigned char *u = (const unsigned char *)src;

	for (size_t i = 0; i < len;) {
		size_t k = steer_utf8_char(src + i, len - i);
		if (k != ref_utf8_char(u + i, len - i))
			harness_violated("steer_utf8_char says %zu at byte %zu, the reference %zu",
			                 k, i, ref_utf8_char(u + i, len - i));
		i += k ? k : 1;
	}

	/* Room for every byte escaped: the whole text comes out. */
	size_t big_n = 4 * len + 1;
	char *big = xmalloc(big_n);
	size_t big_len = steer_utf8_escape(big, big_n, src, len);
	size_t at = 0;
	if (big_len >= big_n || big[big_len] != '\0' || strlen(big) != big_len)
		harness_violated("escape wrote %zu bytes into %zu, not NUL-terminated there",
		                 big_len, big_n);
	if (!ref_clean((const unsigned char *)big, big_len, &at))
		harness_violated("escaped text is not clean UTF-8 at byte %zu", at);
	if (ref_clean(u, len, &at) && (big_len != len || memcmp(big, src, len) != 0))
		harness_violated("clean text changed by escaping");

	/* A short destination: a prefix of the whole, cut before a character or escape. */
	char *small = xmalloc(small_n);
	size_t small_len = steer_utf8_escape(small, small_n, src, len);
	if (small_len >= small_n || small[small_len] != '\0')
		harness_violated("escape wrote %zu bytes into %zu", small_len, small_n);
	if (small_len > big_len || memcmp(small, big, small_len) != 0)
		harness_violated("a short escape is not a prefix of the whole");
	if (!ref_clean((const unsigned char *)small, small_len, &at))
		harness_violated("a short escape is not clean UTF-8 at byte %zu", at);

	size_t cut = steer_utf8_cut(src, len, max);
	if (cut > len || cut > max)
		harness_violated("cut %zu past the text (%zu) or the limit (%zu)", cut, len, max);
	for (size_t i = 0; i < cut;) { /* a boundary of the text's own characters */
		size_t k = steer_utf8_char(src + i, len - i);
		i += k ? k : 1;
		if (i > cut)
			harness_violated("cut at %zu splits a character", cut);
	}
	if (cut < len && cut < max) {
		size_t k = steer_utf8_char(src + cut, len - cut);
		if (cut + (k ? k : 1) <= max)
			harness_violated("cut at %zu, but the next character fits under %zu", cut,
			                 max);
	}
	free(small);
	free(big);
	free(src);
	return 0;
}

/* ---------------------------------------------------------------------------------
 * fuzz_journal: the journal's record codec, as recovery reads a log. Every record it
 * accepts is one the writer would write byte for byte; the intact-record test that
 * tells damage from a torn tail agrees with the decoder at every offset. */

/* Re-encodes an accepted record: the same bytes, or the codec is not canonical. */
static void journal_reencode(const char *at, const steer_journal_record *rec)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	if (rec->type == STEER_JOURNAL_COMMAND)
		steer_journal_command(&b, rec->tick, rec->line, rec->line_len);
	else if (rec->type == STEER_JOURNAL_MARK)
		steer_journal_mark(&b, rec->tick);
	else
		steer_journal_begin(&b, rec->tick, rec->flags);
	if (b.oom)
		harness_violated("journal: an accepted record of %zu bytes cannot be written",
		                 rec->size);
	if (b.len != rec->size || memcmp(b.data, at, b.len) != 0)
		harness_violated("journal: a record of type %d read back differently",
		                 (int)rec->type);
	steer_strbuf_free(&b);
}

int harness_journal(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* Byte 0 bit 0: a valid header goes first, so that mutations reach the records. */
	steer_strbuf b;
	steer_strbuf_init(&b);
	if (data[0] & 1)
		steer_journal_header(&b);
	steer_strbuf_put(&b, (const char *)data + 1, size - 1);
	if (b.oom)
		harness_violated("out of memory");
	char *log = xmalloc(b.len);
	memcpy(log, b.data, b.len);
	size_t len = b.len;
	steer_strbuf_free(&b);
	char err[200];
	size_t pos = 0;
	steer_journal_read st = steer_journal_header_check(log, len, &pos, err, sizeof err);
	if (st != STEER_JOURNAL_OK) {
		free(log);
		return 0;
	}
	steer_journal_record rec;
	for (;;) {
		size_t at = pos;
		st = steer_journal_next(log, len, &pos, &rec, err, sizeof err);
		if (st != STEER_JOURNAL_OK)
			break;
		if (pos != at + rec.size || pos > len)
			harness_violated("journal: a record moved the position wrongly");
		if (!steer_journal_intact(log, len, at))
			harness_violated("journal: a record read at %zu is not intact", at);
		journal_reencode(log + at, &rec);
	}
	if (st == STEER_JOURNAL_INVALID)
		harness_violated("journal: INVALID past the header");
	/* At a tear: whatever the bytes, the tail's judge reads them safely, and a
	 * record's head cut short is always what a crash leaves. */
	if (st == STEER_JOURNAL_TORN) {
		(void)steer_journal_tail_torn(log, len, pos, 0);
		for (size_t cut = pos; cut < len && cut <= pos + STEER_JOURNAL_RECORD_HEAD; cut++)
			if (!steer_journal_tail_torn(log, cut, pos, 0))
				harness_violated("journal: %zu bytes of a head read as changed",
				                 cut - pos);
	}
	/* Past a tear: what the damage scan would find is what the decoder reads. */
	for (size_t o = pos; st == STEER_JOURNAL_TORN && o < len; o++) {
		if (!steer_journal_intact(log, len, o))
			continue;
		size_t p = o;
		steer_journal_read r = steer_journal_next(log, len, &p, &rec, err, sizeof err);
		if (r == STEER_JOURNAL_OK)
			journal_reencode(log + o, &rec);
		else if (r != STEER_JOURNAL_TORN || !strstr(err, "NUL or a newline"))
			harness_violated("journal: intact at %zu, but the decoder says %s", o, err);
	}
	free(log);
	return 0;
}
