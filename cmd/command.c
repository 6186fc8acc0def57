#include "steer/command.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "steer/goto.h"
#include "savefile.h"
#include "scenario.h"
#include "targets.h"
#include "utf8.h"

/* --- argument parsing ---------------------------------------------------------- */

/* Error messages quote what the user sent; they go to terminals, logs and protobuf
 * strings: one line of valid UTF-8 (steer_utf8_escape). The message is formatted
 * whole first, so that it is cut only once, on a character boundary. */
static void format_clean(char *out, size_t n, const char *fmt, va_list ap)
{
	char raw[1024];
	vsnprintf(raw, sizeof raw, fmt, ap);
	steer_utf8_escape(out, n, raw, strlen(raw));
}

/* Writes "what: message" and returns INVALID, so parsers can `return fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static steer_status
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_clean(err, errlen, fmt, ap);
	va_end(ap);
	return STEER_ERR_INVALID;
}

static steer_status parse_num(const char *what, const char *s, double *out, char *err,
                              size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0')
		return fail(err, errlen, "%s: '%s' is not a number", what, s);
	if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
		return fail(err, errlen, "%s: '%s' is not a finite number", what, s);
	/* Underflow, or a subnormal spelt exactly (0x1p-1074): too small to mean anything,
	 * and it may not read back as written. */
	if (errno == ERANGE || (v != 0.0 && fabs(v) < 1e-300))
		return fail(err, errlen,
		            "%s: '%s' is too close to zero (give 0 or at least 1e-300)", what, s);
	*out = v;
	return STEER_OK;
}

static steer_status parse_u64(const char *what, const char *s, uint64_t max, uint64_t *out,
                              char *err, size_t errlen)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '+' || *s == ' ')
		return fail(err, errlen, "%s: '%s' is not a whole number", what, s);
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end != '\0')
		return fail(err, errlen, "%s: '%s' is not a whole number", what, s);
	if (errno == ERANGE || v > max)
		return fail(err, errlen, "%s: %s is too large (at most %llu)", what, s,
		            (unsigned long long)max);
	*out = v;
	return STEER_OK;
}

static steer_status parse_id(const char *what, const char *s, uint32_t *out, char *err,
                             size_t errlen)
{
	uint64_t v = 0;
	if (parse_u64(what, s, UINT32_MAX, &v, err, errlen) != 0)
		return STEER_ERR_INVALID;
	if (v == 0)
		return fail(err, errlen, "%s: ids start at 1", what);
	*out = (uint32_t)v;
	return STEER_OK;
}

static steer_status parse_onoff(const char *s, bool *on, char *err, size_t errlen)
{
	if (!strcmp(s, "on")) {
		*on = true;
		return STEER_OK;
	}
	if (!strcmp(s, "off")) {
		*on = false;
		return STEER_OK;
	}
	return fail(err, errlen, "'%s' is neither on nor off", s);
}

/* What a command's key=value words may name. */
enum {
	KV_PARAMS = 1,   /* any parameter of params.h */
	KV_VELOCITY = 2, /* vx and vy */
};

/* key=value words from argv[first] on, into cmd->kv, each checked on its own here
 * (the combination is checked before anything is applied). */
static steer_status parse_kvs(steer_command *cmd, int first, int argc, char **argv, int allow,
                              char *err, size_t errlen)
{
	for (int i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i])
			return fail(err, errlen, "'%s' is not key=value", argv[i]);
		if (cmd->nkv == STEER_CMD_MAX_KV)
			return fail(err, errlen, "more than %d key=value pairs", STEER_CMD_MAX_KV);
		*eq = '\0';
		const char *key = argv[i], *val = eq + 1;
		steer_cmd_kv *kv = &cmd->kv[cmd->nkv];
		bool velocity = !strcmp(key, "vx") || !strcmp(key, "vy");
		if (velocity && (allow & KV_VELOCITY)) {
			kv->def = NULL;
			kv->field = key[1];
			if (parse_num(key, val, &kv->value, err, errlen) != 0)
				return STEER_ERR_INVALID;
			if (!(fabs(kv->value) <= STEER_MAX_COORD))
				return fail(err, errlen, "%s: %s is beyond +-%g", key, val,
				            STEER_MAX_COORD);
		} else if (velocity) {
			return fail(err, errlen,
			            "%s does not apply here (each flocker gets a random heading)",
			            key);
		} else {
			const steer_param_def *def =
			    (allow & KV_PARAMS) ? steer_param_find(key) : NULL;
			if (!def)
				return fail(err, errlen, "unknown key '%s'%s", key,
				            (allow & KV_PARAMS) ? " (help set lists them)"
				                                : " (only vx, vy)");
			steer_params scratch = steer_params_default();
			char msg[256];
			if (steer_param_parse(&scratch, def, val, msg, sizeof msg) != STEER_OK)
				return fail(err, errlen, "%s", msg);
			kv->def = def;
			kv->value = steer_param_get(&scratch, def);
		}
		cmd->nkv++;
	}
	return STEER_OK;
}

/* Applies cmd's parameter pairs onto p, and vx/vy onto *vel when given. */
static void apply_kvs(const steer_command *cmd, steer_params *p, steer_vec2 *vel, bool *has_vel)
{
	for (int i = 0; i < cmd->nkv; i++) {
		const steer_cmd_kv *kv = &cmd->kv[i];
		if (kv->def) {
			steer_param_set(p, kv->def, kv->value);
		} else {
			*has_vel = true;
			if (kv->field == 'x')
				vel->x = kv->value;
			else
				vel->y = kv->value;
		}
	}
}

/* --- replies -------------------------------------------------------------------- */

void steer_reply_init(steer_reply *r)
{
	r->ok = true;
	r->close = false;
	steer_strbuf_init(&r->json);
	r->error[0] = '\0';
}

void steer_reply_free(steer_reply *r)
{
	steer_strbuf_free(&r->json);
}

steer_status steer_reply_fail(steer_reply *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_clean(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
	r->ok = false;
	steer_strbuf_clear(&r->json);
	return STEER_ERR_REFUSED;
}

static steer_status status_err(steer_reply *r, steer_status st, uint32_t id)
{
	switch (st) {
	case STEER_OK:
		return STEER_OK;
	case STEER_ERR_NOENT:
		return steer_reply_fail(r, "no vehicle or obstacle with id %u", id);
	case STEER_ERR_NOMEM:
		return steer_reply_fail(r, "out of memory; the world is unchanged");
	case STEER_ERR_LIMIT:
		return steer_reply_fail(
		    r, "limit reached (vehicles or waypoints); the world is unchanged");
	case STEER_ERR_ACCESS:
	case STEER_ERR_REFUSED:
	case STEER_ERR_IO: /* not the world's codes: for completeness */
		return steer_reply_fail(r, "%s", steer_status_str(st));
	case STEER_ERR_INVALID:
		break;
	}
	return steer_reply_fail(r,
	                        "invalid argument: coordinates and velocities must be within %g, "
	                        "radii at most %g (an obstacle's greater than 0)",
	                        STEER_MAX_COORD, STEER_PARAM_MAX);
}

void steer_reply_text(const steer_reply *r, steer_strbuf *line)
{
	if (!r->ok) {
		/* Escaped again: the host writes some errors itself. */
		char clean[sizeof r->error];
		steer_utf8_escape(clean, sizeof clean, r->error, strlen(r->error));
		steer_strbuf_puts(line, "ERR ");
		steer_strbuf_puts(line, clean);
	} else if (r->json.len) {
		steer_strbuf_puts(line, "OK ");
		steer_strbuf_put(line, r->json.data, r->json.len);
	} else {
		steer_strbuf_puts(line, "OK");
	}
}

static void json_behaviors(steer_strbuf *b, uint32_t bits)
{
	steer_strbuf_puts(b, "[");
	bool first = true;
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++)
		if (bits & (1u << k)) {
			if (!first)
				steer_strbuf_puts(b, ",");
			steer_json_str(b, steer_behavior_name(1u << k));
			first = false;
		}
	steer_strbuf_puts(b, "]");
}

static void json_vec_field(steer_strbuf *b, const char *kx, double x, const char *ky, double y)
{
	steer_strbuf_printf(b, ",\"%s\":", kx);
	steer_json_num(b, x);
	steer_strbuf_printf(b, ",\"%s\":", ky);
	steer_json_num(b, y);
}

static void json_vehicle_brief(steer_strbuf *b, const steer_vehicles *v, size_t i)
{
	steer_strbuf_printf(b, "{\"id\":%u", v->id[i]);
	json_vec_field(b, "x", v->px[i], "y", v->py[i]);
	json_vec_field(b, "vx", v->vx[i], "vy", v->vy[i]);
	steer_strbuf_printf(b, ",\"group\":%u,\"behaviors\":", v->group[i]);
	json_behaviors(b, v->behaviors[i]);
	steer_strbuf_puts(b, "}");
}

static void json_obstacle(steer_strbuf *b, const steer_obstacle *o)
{
	steer_strbuf_printf(b, "{\"id\":%u", o->id);
	json_vec_field(b, "x", o->x, "y", o->y);
	steer_strbuf_puts(b, ",\"r\":");
	steer_json_num(b, o->r);
	json_vec_field(b, "vx", o->vx, "vy", o->vy);
	steer_strbuf_puts(b, "}");
}

static void json_wall(steer_strbuf *b, const steer_wall *wall)
{
	steer_strbuf_printf(b, "{\"id\":%u", wall->id);
	json_vec_field(b, "x1", wall->a.x, "y1", wall->a.y);
	json_vec_field(b, "x2", wall->b.x, "y2", wall->b.y);
	steer_strbuf_puts(b, "}");
}

static void json_polygon(steer_strbuf *b, const steer_polygon *p)
{
	steer_strbuf_printf(b, "{\"id\":%u,\"inside\":%s,\"points\":[", p->id,
	                    p->inside ? "true" : "false");
	for (uint32_t k = 0; k < p->count; k++) {
		double xy[2] = {p->points[k].x, p->points[k].y};
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_nums(b, xy, 2);
	}
	steer_strbuf_puts(b, "]}");
}

/* Appends ,"kind":"..." inside the object just written. */
static void json_mark_kind(steer_strbuf *b, const char *kind)
{
	b->len--;
	steer_strbuf_printf(b, ",\"kind\":\"%s\"}", kind);
}

/* --- handlers ------------------------------------------------------------------- */

static steer_status p_none(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)c, (void)argc, (void)argv, (void)err, (void)errlen;
	return STEER_OK;
}

static steer_status p_help(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (argc == 2) {
		if (!steer_cmd_find(argv[1]))
			return fail(err, errlen, "no command '%s'", argv[1]);
		snprintf(c->name, sizeof c->name, "%s", argv[1]);
	}
	return STEER_OK;
}

static steer_status x_help(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)s, (void)h;
	steer_strbuf *b = &r->json;
	if (c->name[0]) {
		const steer_cmd_entry *e = steer_cmd_find(c->name);
		steer_strbuf_puts(b, "{\"name\":");
		steer_json_str(b, e->name);
		steer_strbuf_puts(b, ",\"usage\":");
		char usage[256];
		snprintf(usage, sizeof usage, "%s%s%s", e->name, e->usage[0] ? " " : "", e->usage);
		steer_json_str(b, usage);
		steer_strbuf_puts(b, ",\"help\":");
		steer_json_str(b, e->help);
		if (!strcmp(e->name, "set") || !strcmp(e->name, "spawn")) {
			steer_strbuf_puts(b, ",\"keys\":{\"vx\":\"initial velocity x\",\"vy\":"
			                     "\"initial velocity y\"");
			for (size_t k = 0; k < steer_param_count; k++) {
				steer_strbuf_puts(b, ",");
				steer_json_str(b, steer_param_defs[k].name);
				steer_strbuf_puts(b, ":");
				steer_json_str(b, steer_param_defs[k].help);
			}
			steer_strbuf_puts(b, "}");
		}
		steer_strbuf_puts(b, "}");
		return STEER_OK;
	}
	steer_strbuf_puts(b, "{\"commands\":[");
	for (size_t k = 0; k < steer_cmd_count; k++) {
		const steer_cmd_entry *e = &steer_cmd_table[k];
		char usage[256];
		snprintf(usage, sizeof usage, "%s%s%s", e->name, e->usage[0] ? " " : "", e->usage);
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, usage);
	}
	/* What each does, by name: a client can lay the list out as it likes. */
	steer_strbuf_puts(b, "],\"about\":{");
	for (size_t k = 0; k < steer_cmd_count; k++) {
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, steer_cmd_table[k].name);
		steer_strbuf_puts(b, ":");
		steer_json_str(b, steer_cmd_table[k].help);
	}
	steer_strbuf_puts(b, "},\"scenarios\":[");
	for (int k = 0; steer_scenario_names[k]; k++) {
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_str(b, steer_scenario_names[k]);
	}
	steer_strbuf_puts(b, "]}");
	return STEER_OK;
}

static steer_status p_spawn(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (argc >= 2 && !strcmp(argv[1], "flock")) {
		uint64_t n = 0;
		c->sub = 1;
		if (argc < 6)
			return fail(err, errlen, "usage: spawn flock N X Y R [key=value ...]");
		if (parse_u64("N", argv[2], 1000000000, &n, err, errlen) ||
		    parse_num("X", argv[3], &c->x, err, errlen) ||
		    parse_num("Y", argv[4], &c->y, err, errlen) ||
		    parse_num("R", argv[5], &c->r, err, errlen))
			return STEER_ERR_INVALID;
		if (n == 0)
			return fail(err, errlen, "N: a flock needs at least one vehicle");
		if (c->r < 0)
			return fail(err, errlen, "R: radius must be at least 0");
		c->count = (uint32_t)n;
		return parse_kvs(c, 6, argc, argv, KV_PARAMS, err, errlen);
	}
	if (argc < 3)
		return fail(err, errlen, "usage: spawn X Y [key=value ...]");
	if (parse_num("X", argv[1], &c->x, err, errlen) ||
	    parse_num("Y", argv[2], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	return parse_kvs(c, 3, argc, argv, KV_PARAMS | KV_VELOCITY, err, errlen);
}

/* The parameters base with the command's key=value pairs, checked, and checked to fit
 * world w. */
static steer_status params_from(const steer_command *c, const steer_world *w, steer_params base,
                                steer_params *out, steer_vec2 *vel, steer_reply *r)
{
	bool has_vel = false;
	apply_kvs(c, &base, vel, &has_vel);
	char msg[160];
	if (steer_params_check(&base, msg, sizeof msg) != STEER_OK ||
	    steer_world_radius_check(steer_world_config_get(w), base.radius, msg, sizeof msg) !=
	        STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	*out = base;
	return STEER_OK;
}

static steer_status x_spawn_flock(const steer_command *c, steer_session *s, steer_reply *r)
{
	steer_world *w = s->world;
	/* Before the positions are made: a count past the limit allocates nothing. */
	size_t max = steer_world_config_get(w)->max_vehicles;
	if (c->count > steer_vehicles_room(w)) {
		if (max)
			return steer_reply_fail(
			    r, "spawning %u would exceed --max-vehicles (%zu; %zu in the world)",
			    c->count, max, steer_world_vehicles(w)->count);
		return steer_reply_fail(r,
		                        "spawning %u would exceed the ids a world has (%zu left)",
		                        c->count, steer_vehicles_room(w));
	}
	steer_params p;
	steer_vec2 unused = v2(0, 0);
	if (params_from(c, w, steer_flock_params(), &p, &unused, r))
		return STEER_ERR_REFUSED;
	steer_vec2 *at = malloc(sizeof *at * (c->count ? c->count : 1));
	steer_vec2 *vel = malloc(sizeof *vel * (c->count ? c->count : 1));
	if (!at || !vel) {
		free(at);
		free(vel);
		return status_err(r, STEER_ERR_NOMEM, 0);
	}
	steer_rng *rng = steer_world_rng(w);
	for (uint32_t k = 0; k < c->count; k++) {
		/* Uniform in the disc: sqrt keeps the density even towards the rim. */
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double d = c->r * sqrt(steer_rng_unit(rng));
		double h = steer_rng_range(rng, 0, STEER_TAU);
		at[k] = v2(c->x + d * cos(a), c->y + d * sin(a));
		vel[k] = v2(cos(h) * p.max_speed * 0.5, sin(h) * p.max_speed * 0.5);
	}
	uint32_t first;
	steer_status st = steer_vehicles_add(w, c->count, at, vel, &p, STEER_FLOCK, &first);
	free(at);
	free(vel);
	if (st != STEER_OK)
		return status_err(r, st, 0);
	/* The ids are consecutive: written without printf, as a million of them make
	 * 7 MB of reply. */
	steer_strbuf *b = &r->json;
	steer_strbuf_puts(b, "{\"ids\":[");
	for (uint32_t k = 0; k < c->count; k++) {
		char digits[12], *d = digits + sizeof digits;
		*--d = k + 1 < c->count ? ',' : ']';
		for (uint32_t id = first + k; d == digits + sizeof digits - 1 || id; id /= 10)
			*--d = (char)('0' + id % 10);
		steer_strbuf_put(b, d, (size_t)(digits + sizeof digits - d));
	}
	if (!c->count)
		steer_strbuf_puts(b, "]");
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

static steer_status x_spawn(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)h;
	if (c->sub == 1)
		return x_spawn_flock(c, s, r);
	steer_params p;
	steer_vec2 vel = v2(0, 0);
	if (params_from(c, s->world, steer_params_default(), &p, &vel, r))
		return STEER_ERR_REFUSED;
	uint32_t id;
	steer_status st = steer_vehicle_add(s->world, v2(c->x, c->y), vel, &p, &id);
	if (st != STEER_OK)
		return status_err(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

static steer_status p_obstacle(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_num("X", argv[1], &c->x, err, errlen) ||
	    parse_num("Y", argv[2], &c->y, err, errlen) ||
	    parse_num("R", argv[3], &c->r, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->r > 0 && c->r <= STEER_PARAM_MAX))
		return fail(err, errlen, "R: radius must be greater than 0 and at most %g",
		            STEER_PARAM_MAX);
	return parse_kvs(c, 4, argc, argv, KV_VELOCITY, err, errlen);
}

static steer_status x_obstacle(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r)
{
	(void)h;
	steer_vec2 vel = v2(0, 0);
	bool has_vel = false;
	steer_params unused = steer_params_default();
	apply_kvs(c, &unused, &vel, &has_vel);
	char msg[160];
	if (steer_world_radius_check(steer_world_config_get(s->world), c->r, msg, sizeof msg) !=
	    STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	uint32_t id;
	steer_status st = steer_obstacle_add(s->world, v2(c->x, c->y), vel, c->r, &id);
	if (st != STEER_OK)
		return status_err(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

/* Pairs of numbers from argv[first] on (to argc) into c->points. */
static steer_status parse_points(steer_command *c, int first, int argc, char **argv, char *err,
                                 size_t errlen)
{
	if ((argc - first) % 2)
		return fail(err, errlen, "'%s' has no Y: points come as X Y pairs", argv[argc - 1]);
	c->npoints = 0;
	for (int i = first; i + 1 < argc; i += 2) {
		if (c->npoints == STEER_CMD_MAX_POINTS)
			return fail(err, errlen, "more than %d points", STEER_CMD_MAX_POINTS);
		steer_vec2 *p = &c->points[c->npoints];
		if (parse_num("X", argv[i], &p->x, err, errlen) ||
		    parse_num("Y", argv[i + 1], &p->y, err, errlen))
			return STEER_ERR_INVALID;
		if (!steer_vec_ok(*p))
			return fail(err, errlen, "(%s, %s): coordinates must be within %g", argv[i],
			            argv[i + 1], STEER_MAX_COORD);
		c->npoints++;
	}
	return STEER_OK;
}

static steer_status p_wall(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_points(c, 1, argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (c->points[0].x == c->points[1].x && c->points[0].y == c->points[1].y)
		return fail(err, errlen, "a wall needs two different ends");
	return STEER_OK;
}

static steer_status x_wall(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	uint32_t id;
	steer_status st = steer_wall_add(s->world, c->points[0], c->points[1], &id);
	if (st != STEER_OK)
		return status_err(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

_Static_assert(STEER_CMD_MAX_POINTS == 127, "the polygon command's help says 127 points");

static steer_status p_polygon(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	c->on = argc > 1 && !strcmp(argv[argc - 1], "inside");
	for (int i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "inside"))
			return fail(err, errlen, "'inside' comes last, after the points");
	if (parse_points(c, 1, c->on ? argc - 1 : argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (c->npoints < 3)
		return fail(err, errlen, "a polygon needs at least 3 points");
	return STEER_OK;
}

static steer_status x_polygon(const steer_command *c, steer_session *s, const steer_host *h,
                              steer_reply *r)
{
	(void)h;
	uint32_t id;
	char err[200];
	steer_status st =
	    steer_polygon_add(s->world, c->points, c->npoints, c->on, &id, err, sizeof err);
	if (st == STEER_ERR_INVALID)
		return steer_reply_fail(r, "%s", err);
	if (st != STEER_OK)
		return status_err(r, st, 0);
	steer_strbuf_printf(&r->json, "{\"id\":%u}", id);
	return STEER_OK;
}

static steer_status p_id(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return parse_id("ID", argv[1], &c->id, err, errlen);
}

static steer_status x_remove(const steer_command *c, steer_session *s, const steer_host *h,
                             steer_reply *r)
{
	(void)h;
	steer_status st = steer_remove(s->world, c->id);
	if (st == STEER_ERR_NOENT)
		return steer_reply_fail(r, "no vehicle, obstacle, wall or polygon with id %u",
		                        c->id);
	return status_err(r, st, c->id);
}

static steer_status p_set(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	return parse_kvs(c, 2, argc, argv, KV_PARAMS | KV_VELOCITY, err, errlen);
}

static steer_status x_set(const steer_command *c, steer_session *s, const steer_host *h,
                          steer_reply *r)
{
	(void)h;
	long i = steer_vehicle_index(s->world, c->id);
	if (i < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	const steer_vehicles *v = steer_world_vehicles(s->world);
	steer_vec2 vel = v2(v->vx[i], v->vy[i]);
	bool has_vel = false;
	steer_params p = *steer_vehicle_params_at(s->world, (size_t)i);
	apply_kvs(c, &p, &vel, &has_vel);
	/* Everything is checked before anything is applied: all or nothing. */
	char msg[160];
	if (steer_params_check(&p, msg, sizeof msg) != STEER_OK ||
	    steer_world_radius_check(steer_world_config_get(s->world), p.radius, msg, sizeof msg) !=
	        STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	if (has_vel && !steer_vec_ok(vel))
		return status_err(r, STEER_ERR_INVALID, c->id);
	steer_status st = steer_vehicle_set_params(s->world, c->id, &p);
	if (st == STEER_OK && has_vel)
		st = steer_vehicle_set_velocity(s->world, c->id, vel); /* cannot fail: checked */
	return status_err(r, st, c->id);
}

/* seek/flee/arrive ID X Y, or ID off */
static steer_status p_target(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3) {
		if (strcmp(argv[2], "off"))
			return fail(err, errlen, "usage: %s ID X Y | %s ID off", argv[0], argv[0]);
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 4)
		return fail(err, errlen, "usage: %s ID X Y | %s ID off", argv[0], argv[0]);
	return parse_num("X", argv[2], &c->x, err, errlen) ||
	               parse_num("Y", argv[3], &c->y, err, errlen)
	           ? -1
	           : 0;
}

static uint32_t entry_bit(const steer_command *c)
{
	return steer_behavior_bit(c->entry->name);
}

/* The "ID off" form shared by seek/flee/arrive/pursue/evade; -1 when not that form
 * or the vehicle is unknown, with the reply written. */
static steer_status turn_off_or_check(const steer_command *c, steer_session *s, steer_reply *r,
                                      bool *done)
{
	*done = c->sub == 1;
	if (*done)
		return status_err(r, steer_vehicle_enable(s->world, c->id, entry_bit(c), false),
		                  c->id);
	if (steer_vehicle_index(s->world, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	return STEER_OK;
}

static steer_status x_target(const steer_command *c, steer_session *s, const steer_host *h,
                             steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	return status_err(r, steer_vehicle_target(s->world, c->id, entry_bit(c), v2(c->x, c->y)),
	                  c->id);
}

/* pursue/evade ID OTHER, hide ID HUNTER, or ID off */
static steer_status p_chase(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (!strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	/* Named as the usage line names it. */
	if (parse_id(strcmp(argv[0], "hide") ? "OTHER" : "HUNTER", argv[2], &c->other, err, errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id)
		return fail(err, errlen, "a vehicle cannot %s%s itself", argv[0],
		            strcmp(argv[0], "hide") ? "" : " from");
	return STEER_OK;
}

static steer_status x_chase(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to %s", c->other, c->entry->name);
	return status_err(r, steer_vehicle_chase(s->world, c->id, entry_bit(c), c->other), c->id);
}

/* follow ID LEADER DX DY, or ID off */
static steer_status p_follow(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 5)
		return fail(err, errlen, "usage: follow ID LEADER DX DY | follow ID off");
	if (parse_id("LEADER", argv[2], &c->other, err, errlen) ||
	    parse_num("DX", argv[3], &c->x, err, errlen) ||
	    parse_num("DY", argv[4], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id)
		return fail(err, errlen, "a vehicle cannot follow itself");
	if (!steer_vec_ok(v2(c->x, c->y)))
		return fail(err, errlen, "DX DY: the offset must be within %g", STEER_MAX_COORD);
	return STEER_OK;
}

static steer_status x_follow(const steer_command *c, steer_session *s, const steer_host *h,
                             steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to follow", c->other);
	return status_err(r, steer_vehicle_follow(s->world, c->id, c->other, v2(c->x, c->y)),
	                  c->id);
}

static steer_status x_hide(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	if (steer_vehicle_index(s->world, c->other) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to hide from", c->other);
	return status_err(r, steer_vehicle_hide(s->world, c->id, c->other), c->id);
}

/* interpose ID A B, or ID off */
static steer_status p_interpose(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "off")) {
		c->sub = 1;
		return STEER_OK;
	}
	if (argc != 4)
		return fail(err, errlen, "usage: interpose ID A B | interpose ID off");
	if (parse_id("A", argv[2], &c->other, err, errlen) ||
	    parse_id("B", argv[3], &c->count, err, errlen))
		return STEER_ERR_INVALID;
	if (c->other == c->id || c->count == c->id)
		return fail(err, errlen, "a vehicle cannot interpose between itself and another");
	if (c->other == c->count)
		return fail(err, errlen, "interpose needs two different vehicles, not %u twice",
		            c->other);
	return STEER_OK;
}

static steer_status x_interpose(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	bool done;
	steer_status rc = turn_off_or_check(c, s, r, &done);
	if (rc || done)
		return rc;
	uint32_t ab[2] = {c->other, c->count};
	for (int k = 0; k < 2; k++)
		if (steer_vehicle_index(s->world, ab[k]) < 0)
			return steer_reply_fail(r, "no vehicle with id %u to interpose near",
			                        ab[k]);
	return status_err(r, steer_vehicle_interpose(s->world, c->id, c->other, c->count), c->id);
}

/* formation LEADER line|column|wedge|ring SPACING ID... */
static steer_status p_formation(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("LEADER", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	c->sub = -1;
	for (int k = 0; steer_formation_names[k]; k++)
		if (!strcmp(argv[2], steer_formation_names[k]))
			c->sub = k;
	if (c->sub < 0)
		return fail(err, errlen, "'%s' is not a formation: line, column, wedge or ring",
		            argv[2]);
	if (parse_num("SPACING", argv[3], &c->r, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->r > 0.0 && c->r <= STEER_PARAM_MAX))
		return fail(err, errlen, "SPACING: %s is not between 0 and %g", argv[3],
		            STEER_PARAM_MAX);
	if (argc - 4 > STEER_CMD_MAX_FOLLOWERS)
		return fail(err, errlen, "%d followers: a formation takes at most %d", argc - 4,
		            STEER_CMD_MAX_FOLLOWERS);
	c->nids = 0;
	for (int k = 4; k < argc; k++) {
		uint32_t id = 0;
		if (parse_id("ID", argv[k], &id, err, errlen))
			return STEER_ERR_INVALID;
		if (id == c->id)
			return fail(err, errlen, "%u is the leader: it cannot follow itself", id);
		for (uint32_t j = 0; j < c->nids; j++)
			if (c->ids[j] == id)
				return fail(err, errlen, "%u is given twice", id);
		c->ids[c->nids++] = id;
	}
	return STEER_OK;
}

static steer_status x_formation(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r)
{
	(void)h;
	steer_world *w = s->world;
	if (steer_vehicle_index(w, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u to lead", c->id);
	/* Every place is at least SPACING from its neighbours: the widest two bodies
	 * must fit side by side there. */
	double widest = steer_vehicle_params(w, c->id)->radius;
	for (uint32_t k = 0; k < c->nids; k++) {
		const steer_params *p = steer_vehicle_params(w, c->ids[k]);
		if (!p)
			return steer_reply_fail(r, "no vehicle with id %u to follow %u", c->ids[k],
			                        c->id);
		widest = fmax(widest, p->radius);
	}
	if (c->r < 2.0 * widest)
		return steer_reply_fail(r,
		                        "spacing %g is less than the widest body's diameter %g: "
		                        "the places would overlap",
		                        c->r, 2.0 * widest);
	steer_strbuf_puts(&r->json, "{\"offsets\":[");
	for (uint32_t k = 0; k < c->nids; k++) {
		steer_vec2 off = steer_formation_offset((steer_formation)c->sub, k, c->nids, c->r);
		/* Only memory can fail here, and only for a follower that had no extras. */
		steer_status st = steer_vehicle_follow(w, c->ids[k], c->id, off);
		if (st != STEER_OK)
			return status_err(r, st, c->ids[k]);
		double xy[2] = {off.x, off.y};
		if (k)
			steer_strbuf_puts(&r->json, ",");
		steer_json_nums(&r->json, xy, 2);
	}
	steer_strbuf_puts(&r->json, "]}");
	return STEER_OK;
}

/* wander/avoid/flock ID on|off */
static steer_status p_toggle(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	return parse_onoff(argv[2], &c->on, err, errlen);
}

static steer_status x_toggle(const steer_command *c, steer_session *s, const steer_host *h,
                             steer_reply *r)
{
	(void)h;
	return status_err(r, steer_vehicle_enable(s->world, c->id, entry_bit(c), c->on), c->id);
}

static steer_status p_waypoint(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return parse_id("ID", argv[1], &c->id, err, errlen) ||
	               parse_num("X", argv[2], &c->x, err, errlen) ||
	               parse_num("Y", argv[3], &c->y, err, errlen)
	           ? -1
	           : 0;
}

static steer_status x_waypoint(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r)
{
	(void)h;
	steer_status st = steer_vehicle_path_add(s->world, c->id, v2(c->x, c->y));
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(r, "vehicle %u already has %u waypoints (the limit)", c->id,
		                        STEER_MAX_WAYPOINTS);
	if (st != STEER_OK)
		return status_err(r, st, c->id);
	steer_strbuf_printf(&r->json, "{\"waypoints\":%u}",
	                    steer_vehicle_get(s->world, c->id)->path.count);
	return STEER_OK;
}

/* path ID clear | path ID loop on|off */
static steer_status p_path(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3 && !strcmp(argv[2], "clear")) {
		c->sub = 0;
		return STEER_OK;
	}
	if (argc == 4 && !strcmp(argv[2], "loop")) {
		c->sub = 1;
		return parse_onoff(argv[3], &c->on, err, errlen);
	}
	return fail(err, errlen, "usage: path ID clear | path ID loop on|off");
}

static steer_status x_path(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	steer_status st = c->sub == 0 ? steer_vehicle_path_clear(s->world, c->id)
	                              : steer_vehicle_path_loop(s->world, c->id, c->on);
	return status_err(r, st, c->id);
}

/* goto ID X Y | goto ID off */
static steer_status p_goto(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (parse_id("ID", argv[1], &c->id, err, errlen))
		return STEER_ERR_INVALID;
	if (argc == 3) {
		if (strcmp(argv[2], "off"))
			return fail(err, errlen, "usage: goto ID X Y | goto ID off");
		c->sub = 1;
		return STEER_OK;
	}
	if (parse_num("X", argv[2], &c->x, err, errlen) ||
	    parse_num("Y", argv[3], &c->y, err, errlen))
		return STEER_ERR_INVALID;
	if (!steer_vec_ok(v2(c->x, c->y)))
		return fail(err, errlen, "(%s, %s): coordinates must be within %g", argv[2],
		            argv[3], STEER_MAX_COORD);
	return STEER_OK;
}

static steer_status x_goto(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	if (steer_vehicle_index(s->world, c->id) < 0)
		return steer_reply_fail(r, "no vehicle with id %u", c->id);
	if (c->sub == 1)
		return status_err(r, steer_vehicle_goto_off(s->world, c->id), c->id);
	steer_goto_report rep;
	steer_status st = steer_vehicle_goto(s->world, c->id, v2(c->x, c->y), &rep);
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(r, "the route to (%g, %g) needs more than %u waypoints",
		                        c->x, c->y, STEER_MAX_WAYPOINTS);
	if (st != STEER_OK)
		return status_err(r, st, c->id);
	steer_strbuf *b = &r->json;
	if (rep.planning) {
		steer_strbuf_puts(b, "{\"planning\":true,\"note\":");
		steer_json_str(b, "a long way: planned over the next ticks (get ID shows "
		                  "goto.planning); until then it follows the route it had, if any");
		steer_strbuf_puts(b, "}");
		return STEER_OK;
	}
	double end[2] = {rep.end.x, rep.end.y};
	steer_strbuf_printf(b, "{\"reached\":%s,\"waypoints\":%zu,\"end\":",
	                    rep.reached ? "true" : "false", rep.waypoints);
	steer_json_nums(b, end, 2);
	steer_strbuf_puts(b, ",\"clearance\":");
	steer_json_num(b, rep.radius);
	if (!rep.reached) {
		char msg[256];
		snprintf(
		    msg, sizeof msg,
		    "(%g, %g) cannot be reached; going to the nearest reachable point (%g, %g)",
		    c->x, c->y, rep.end.x, rep.end.y);
		steer_strbuf_puts(b, ",\"note\":");
		steer_json_str(b, msg);
	}
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

static steer_status x_get(const steer_command *c, steer_session *s, const steer_host *h,
                          steer_reply *r)
{
	(void)h;
	steer_world *w = s->world;
	steer_strbuf *b = &r->json;
	const steer_obstacle *o = steer_obstacle_get(w, c->id);
	/* Each is marked with its kind, so a script can tell them apart. */
	if (o) {
		json_obstacle(b, o);
		json_mark_kind(b, "obstacle");
		return STEER_OK;
	}
	const steer_wall *wall = steer_wall_get(w, c->id);
	if (wall) {
		json_wall(b, wall);
		json_mark_kind(b, "wall");
		return STEER_OK;
	}
	const steer_polygon *poly = steer_polygon_get(w, c->id);
	if (poly) {
		json_polygon(b, poly);
		json_mark_kind(b, "polygon");
		return STEER_OK;
	}
	long i = steer_vehicle_index(w, c->id);
	if (i < 0)
		return steer_reply_fail(r, "no vehicle, obstacle, wall or polygon with id %u",
		                        c->id);
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_vehicle_state *st = steer_vehicle_state_at(w, (size_t)i);
	const steer_params *prm = steer_vehicle_params_at(w, (size_t)i);
	steer_strbuf_printf(b, "{\"id\":%u,\"kind\":\"vehicle\"", c->id);
	json_vec_field(b, "x", v->px[i], "y", v->py[i]);
	json_vec_field(b, "vx", v->vx[i], "vy", v->vy[i]);
	json_vec_field(b, "hx", v->hx[i], "hy", v->hy[i]);
	json_vec_field(b, "fx", v->fx[i], "fy", v->fy[i]);
	steer_strbuf_puts(b, ",\"behaviors\":");
	json_behaviors(b, v->behaviors[i]);
	double seek[2] = {st->seek_target.x, st->seek_target.y};
	double flee[2] = {st->flee_target.x, st->flee_target.y};
	double arrive[2] = {st->arrive_target.x, st->arrive_target.y};
	steer_strbuf_puts(b, ",\"seek\":");
	steer_json_nums(b, seek, 2);
	steer_strbuf_puts(b, ",\"flee\":");
	steer_json_nums(b, flee, 2);
	steer_strbuf_puts(b, ",\"arrive\":");
	steer_json_nums(b, arrive, 2);
	/* Where the vehicle steers for them: moved out of any obstacle they lie in. */
	double clearance = steer_target_clearance(prm, v->behaviors[i]);
	steer_vec2 seek_at = steer_target_free(w, st->seek_target, clearance);
	steer_vec2 arrive_at = steer_target_free(w, st->arrive_target, clearance);
	double seek_free[2] = {seek_at.x, seek_at.y}, arrive_free[2] = {arrive_at.x, arrive_at.y};
	steer_strbuf_puts(b, ",\"seek_free\":");
	steer_json_nums(b, seek_free, 2);
	steer_strbuf_puts(b, ",\"arrive_free\":");
	steer_json_nums(b, arrive_free, 2);
	steer_strbuf_printf(b, ",\"pursue\":%u,\"evade\":%u,\"wander_angle\":", st->pursue_id,
	                    st->evade_id);
	steer_json_num(b, st->wander_angle);
	const steer_group_state *g = &st->group;
	double offset[2] = {g->offset.x, g->offset.y};
	steer_strbuf_printf(b, ",\"leader\":%u,\"offset\":", g->leader_id);
	steer_json_nums(b, offset, 2);
	steer_strbuf_printf(b, ",\"hunter\":%u,\"between\":[%u,%u]", g->hunter_id, g->between[0],
	                    g->between[1]);
	steer_strbuf_printf(b, ",\"path\":{\"index\":%u,\"loop\":%s,\"waypoints\":[",
	                    st->path.index, st->path.loop ? "true" : "false");
	for (uint32_t k = 0; k < st->path.count; k++) {
		double point[2] = {st->path.points[k].x, st->path.points[k].y};
		if (k)
			steer_strbuf_puts(b, ",");
		steer_json_nums(b, point, 2);
	}
	steer_strbuf_puts(b, "]");
	if (st->path.count) {
		steer_vec2 at = steer_target_free(w, st->path.points[st->path.index], clearance);
		double free_at[2] = {at.x, at.y};
		steer_strbuf_puts(b, ",\"free\":");
		steer_json_nums(b, free_at, 2);
	}
	steer_strbuf_puts(b, "}");
	if (v->behaviors[i] & STEER_GOTO) {
		double goal[2] = {st->go.goal.x, st->go.goal.y};
		steer_strbuf_puts(b, ",\"goto\":{\"goal\":");
		steer_json_nums(b, goal, 2);
		steer_strbuf_printf(b, ",\"planning\":%s,\"reached\":%s,\"clearance\":",
		                    st->go.planning ? "true" : "false",
		                    st->go.reached ? "true" : "false");
		steer_json_num(b, st->go.radius);
		steer_strbuf_puts(b, "}");
	}
	for (size_t k = 0; k < steer_param_count; k++) {
		const steer_param_def *d = &steer_param_defs[k];
		steer_strbuf_printf(b, ",\"%s\":", d->name);
		if (d->type == STEER_PARAM_ENUM)
			steer_json_str(b, steer_param_enum_name(prm, d));
		else if (d->type == STEER_PARAM_BOOL)
			steer_strbuf_puts(b, steer_param_get(prm, d) != 0 ? "true" : "false");
		else
			steer_json_num(b, steer_param_get(prm, d));
	}
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

static steer_status p_list(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	uint64_t from = 0, count = STEER_LIST_MAX;
	c->sub = argc > 1; /* paged */
	if (argc > 1 && parse_u64("FROM_ID", argv[1], UINT32_MAX, &from, err, errlen))
		return STEER_ERR_INVALID;
	if (argc > 2 && parse_u64("COUNT", argv[2], STEER_LIST_MAX, &count, err, errlen))
		return STEER_ERR_INVALID;
	if (count == 0) /* its next would be its own FROM_ID: a pager would loop */
		return fail(err, errlen, "COUNT: 0 is too small (at least 1)");
	c->id = (uint32_t)from;
	c->count = (uint32_t)count;
	return STEER_OK;
}

/* How many of each kind the world holds. */
typedef struct world_counts {
	size_t vehicles, obstacles, walls, polygons;
} world_counts;

static world_counts count_world(const steer_world *w)
{
	world_counts n;
	n.vehicles = steer_world_vehicles(w)->count;
	steer_world_obstacles(w, &n.obstacles);
	steer_world_walls(w, &n.walls);
	steer_world_polygons(w, &n.polygons);
	return n;
}

/* The ids of every vehicle, obstacle, wall and polygon with an id of at least from, in
 * no order; *n receives how many. The caller frees the array. NULL when out of
 * memory. */
static uint32_t *list_ids_from(const steer_world *w, uint32_t from, size_t *n)
{
	world_counts c = count_world(w);
	const steer_vehicles *v = steer_world_vehicles(w);
	const steer_obstacle *o = steer_world_obstacles(w, &c.obstacles);
	const steer_wall *wl = steer_world_walls(w, &c.walls);
	const steer_polygon *p = steer_world_polygons(w, &c.polygons);
	uint32_t *ids = malloc((c.vehicles + c.obstacles + c.walls + c.polygons + 1) * sizeof *ids);
	if (!ids)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < c.vehicles; i++)
		if (v->id[i] >= from)
			ids[k++] = v->id[i];
	for (size_t i = 0; i < c.obstacles; i++)
		if (o[i].id >= from)
			ids[k++] = o[i].id;
	for (size_t i = 0; i < c.walls; i++)
		if (wl[i].id >= from)
			ids[k++] = wl[i].id;
	for (size_t i = 0; i < c.polygons; i++)
		if (p[i].id >= from)
			ids[k++] = p[i].id;
	*n = k;
	return ids;
}

static void swap_ids(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

/* Moves the k smallest of ids[0..n) to its front (k < n), in linear time on average
 * (Hoare's selection): a page costs a pass over the world whatever the gaps between
 * ids, where walking the ids one by one could take 2^31 steps. */
static void select_smallest(uint32_t *ids, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t pivot = ids[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (ids[i] < pivot)
				i++;
			while (ids[j] > pivot)
				j--;
			if (i <= j) {
				swap_ids(&ids[i], &ids[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

static int cmp_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

enum { LIST_VEHICLES, LIST_OBSTACLES, LIST_WALLS, LIST_POLYGONS };

/* The things of one kind among ids, which are in increasing order. */
static void list_page_items(steer_strbuf *b, const steer_world *w, const uint32_t *ids, size_t n,
                            int kind)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	bool first = true;
	for (size_t k = 0; k < n; k++) {
		long i = kind == LIST_VEHICLES ? steer_vehicle_index(w, ids[k]) : -1;
		const steer_obstacle *o =
		    kind == LIST_OBSTACLES ? steer_obstacle_get(w, ids[k]) : NULL;
		const steer_wall *wl = kind == LIST_WALLS ? steer_wall_get(w, ids[k]) : NULL;
		const steer_polygon *p =
		    kind == LIST_POLYGONS ? steer_polygon_get(w, ids[k]) : NULL;
		if (i < 0 && !o && !wl && !p)
			continue;
		if (!first)
			steer_strbuf_puts(b, ",");
		first = false;
		if (i >= 0)
			json_vehicle_brief(b, v, (size_t)i);
		else if (o)
			json_obstacle(b, o);
		else if (wl)
			json_wall(b, wl);
		else
			json_polygon(b, p);
	}
}

/* Plain list: the whole world, vehicles, obstacles, walls, polygons. Paged: the items whose id is
 * FROM_ID or more. Both in id order. Storage order changes every tick (the world re-sorts
 * vehicles by position) while ids never do, so pages taken at different ticks
 * neither overlap nor miss anything. One reply never holds more than STEER_LIST_MAX
 * items, so building it never holds the host's loop for long nor overflows a
 * client's reply queue. */
static steer_status x_list(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	const steer_world *w = s->world;
	world_counts all = count_world(w);
	all.vehicles += s->vehicles_elsewhere;
	if (!c->sub && all.vehicles + all.obstacles + all.walls + all.polygons > STEER_LIST_MAX)
		return steer_reply_fail(
		    r,
		    "list: %zu vehicles, %zu obstacles, %zu walls and %zu polygons, more than "
		    "the %u one reply holds; page with 'list FROM_ID COUNT' (COUNT up to %u) or "
		    "ask for one with 'get ID'",
		    all.vehicles, all.obstacles, all.walls, all.polygons, STEER_LIST_MAX,
		    STEER_LIST_MAX);
	steer_strbuf *b = &r->json;
	steer_strbuf_printf(b, "{\"tick\":%llu,\"vehicles\":[",
	                    (unsigned long long)steer_world_tick(w));
	size_t left;
	uint32_t *ids = list_ids_from(w, c->sub ? c->id : 0, &left);
	if (!ids) {
		steer_strbuf_clear(b);
		return steer_reply_fail(r, "list: out of memory");
	}
	size_t want = !c->sub || left < c->count ? left : c->count;
	if (want < left)
		select_smallest(ids, left, want);
	qsort(ids, want, sizeof *ids, cmp_ids);
	list_page_items(b, w, ids, want, LIST_VEHICLES);
	steer_strbuf_puts(b, "],\"obstacles\":[");
	list_page_items(b, w, ids, want, LIST_OBSTACLES);
	steer_strbuf_puts(b, "],\"walls\":[");
	list_page_items(b, w, ids, want, LIST_WALLS);
	steer_strbuf_puts(b, "],\"polygons\":[");
	list_page_items(b, w, ids, want, LIST_POLYGONS);
	if (!c->sub) {
		free(ids);
		steer_strbuf_puts(b, "]}");
		return STEER_OK;
	}
	steer_strbuf_printf(b,
	                    "],\"total_vehicles\":%zu,\"total_obstacles\":%zu,\"total_walls\":%zu,"
	                    "\"total_polygons\":%zu,\"next\":",
	                    all.vehicles, all.obstacles, all.walls, all.polygons);
	if (want < left)
		steer_strbuf_printf(b, "%llu", (unsigned long long)ids[want - 1] + 1);
	else
		steer_strbuf_puts(b, "null");
	free(ids);
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

static steer_status x_pause(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)h, (void)r;
	s->paused = !strcmp(c->entry->name, "pause");
	return STEER_OK;
}

static steer_status p_step(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	uint64_t n = 1;
	if (argc == 2 && parse_u64("N", argv[1], STEER_CMD_MAX_STEP, &n, err, errlen))
		return STEER_ERR_INVALID;
	if (n == 0)
		return fail(err, errlen, "N: step at least 1 tick");
	c->count = (uint32_t)n;
	return STEER_OK;
}

static steer_status x_step(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h;
	for (uint32_t k = 0; k < c->count; k++)
		if (steer_world_step(s->world) != STEER_OK)
			return steer_reply_fail(r, "out of memory after %u ticks", k);
	steer_strbuf_printf(&r->json, "{\"tick\":%llu}",
	                    (unsigned long long)steer_world_tick(s->world));
	return STEER_OK;
}

static steer_status p_rewind(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (parse_u64("TICKS", argv[1], UINT64_MAX, &c->tick, err, errlen))
		return STEER_ERR_INVALID;
	if (c->tick == 0)
		return fail(err, errlen, "TICKS: rewind at least 1 tick");
	return STEER_OK;
}

static steer_status p_goto_tick(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (!strcmp(argv[1], "live")) {
		c->sub = 1;
		return STEER_OK;
	}
	return parse_u64("T", argv[1], UINT64_MAX, &c->tick, err, errlen) ? STEER_ERR_INVALID
	                                                                  : STEER_OK;
}

/* rewind, goto-tick: the history is the host's. */
static steer_status x_history(const steer_command *c, steer_session *s, const steer_host *h,
                              steer_reply *r)
{
	if (!h || !h->history)
		return steer_reply_fail(r, "%s is not available here", c->entry->name);
	return h->history(h->ud, c, s, r);
}

/* world [W H] [wrap|bounce|none] [solid on|off] [contain on|off]: what is not given
 * stays as it is. */
static steer_status p_world(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	int k = 1;
	c->solid = c->contain = -1;
	if (argc >= 3 && strcmp(argv[1], "solid") != 0 && strcmp(argv[1], "contain") != 0 &&
	    steer_edges_parse(argv[1], &c->edges) != STEER_OK) {
		if (parse_num("W", argv[1], &c->x, err, errlen) ||
		    parse_num("H", argv[2], &c->y, err, errlen))
			return STEER_ERR_INVALID;
		if (!(c->x >= 1) || !(c->y >= 1))
			return fail(err, errlen, "W and H must be at least 1");
		c->has_size = true;
		k = 3;
	}
	for (; k < argc; k++) {
		int8_t *rule = !strcmp(argv[k], "solid")     ? &c->solid
		               : !strcmp(argv[k], "contain") ? &c->contain
		                                             : NULL;
		if (rule) {
			bool on = false;
			if (k + 1 >= argc)
				return fail(err, errlen, "%s: give on or off", argv[k]);
			if (*rule >= 0)
				return fail(err, errlen, "%s: given twice", argv[k]);
			if (parse_onoff(argv[k + 1], &on, err, errlen))
				return STEER_ERR_INVALID;
			*rule = on;
			k++;
		} else if (!c->has_edges && steer_edges_parse(argv[k], &c->edges) == STEER_OK) {
			c->has_edges = true;
		} else {
			return fail(err, errlen,
			            "'%s': want W H, then edges (wrap|bounce|none), solid on|off, "
			            "contain on|off",
			            argv[k]);
		}
	}
	return STEER_OK;
}

static steer_status x_world(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r);

/* `world` alone: a question, not a change. */
static bool world_query(const steer_command *c)
{
	return c->entry->exec == x_world && !c->has_size && !c->has_edges && c->solid < 0 &&
	       c->contain < 0;
}

/* The world's bounds and rules as JSON members (width, height, edges, solid,
 * contain), for `world` and `stats`. */
static void world_bounds_json(steer_strbuf *b, const steer_world_config *cfg)
{
	steer_strbuf_puts(b, "\"width\":");
	steer_json_num(b, cfg->width);
	steer_strbuf_puts(b, ",\"height\":");
	steer_json_num(b, cfg->height);
	steer_strbuf_printf(b, ",\"edges\":\"%s\",\"solid\":%s,\"contain\":%s",
	                    steer_edges_name(cfg->edges), cfg->solid ? "true" : "false",
	                    cfg->contain ? "true" : "false");
}

/* The settings `world` (and rate, seed) can change, as a reply. */
static void world_settings(steer_strbuf *b, const steer_world_config *cfg)
{
	steer_strbuf_puts(b, "{");
	world_bounds_json(b, cfg);
	steer_strbuf_puts(b, ",\"tick_rate\":");
	steer_json_num(b, cfg->tick_rate);
	steer_strbuf_puts(b, ",\"dt\":");
	steer_json_num(b, 1.0 / cfg->tick_rate);
	steer_strbuf_printf(b, ",\"seed\":%llu,\"max_vehicles\":%zu}",
	                    (unsigned long long)cfg->seed, cfg->max_vehicles);
}

static steer_status x_world(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)h;
	const steer_world_config *now = steer_world_config_get(s->world);
	if (world_query(c)) {
		world_settings(&r->json, now);
		return STEER_OK;
	}
	steer_edges e = c->has_edges ? c->edges : now->edges;
	double width = c->has_size ? c->x : now->width;
	double height = c->has_size ? c->y : now->height;
	if (steer_world_set_bounds(s->world, width, height, e) != STEER_OK) {
		char msg[160];
		steer_world_config cfg = *now;
		cfg.width = width;
		cfg.height = height;
		cfg.edges = e;
		if (steer_world_config_check(&cfg, msg, sizeof msg) == STEER_OK)
			snprintf(
			    msg, sizeof msg,
			    "a vehicle or circle is too large for a %s world of %g x %g (radius "
			    "at most %g); the world is unchanged",
			    steer_edges_name(e), width, height, steer_world_radius_max(&cfg));
		return steer_reply_fail(r, "%s", msg);
	}
	if (c->solid >= 0)
		steer_world_set_solid(s->world, c->solid);
	if (c->contain >= 0 && steer_world_set_contain(s->world, c->contain) != STEER_OK)
		return steer_reply_fail(r, "out of memory");
	return STEER_OK;
}

static steer_status p_rate(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (parse_num("HZ", argv[1], &c->rate, err, errlen))
		return STEER_ERR_INVALID;
	if (!(c->rate >= 1 && c->rate <= 1000))
		return fail(err, errlen, "HZ: tick rate must be 1..1000");
	return STEER_OK;
}

static steer_status x_rate(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	if (steer_world_set_tick_rate(s->world, c->rate) != STEER_OK)
		return steer_reply_fail(r, "tick rate must be 1..1000");
	if (h && h->rate_changed)
		h->rate_changed(h->ud);
	return STEER_OK;
}

static steer_status p_seed(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return parse_u64("N", argv[1], UINT64_MAX, &c->seed, err, errlen);
}

static steer_status x_seed(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)h, (void)r;
	steer_world_set_seed(s->world, c->seed);
	return STEER_OK;
}

static steer_status x_reset(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)c, (void)h, (void)r;
	steer_world_reset(s->world);
	return STEER_OK;
}

static steer_status p_name(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (strlen(argv[1]) > STEER_NAME_MAX)
		return fail(err, errlen, "NAME: longer than %d characters", STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

static steer_status x_scenario(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r)
{
	(void)h;
	/* Tried first on a scratch world of the same bounds, so that a scenario that does
	 * not fit them changes nothing (loading one resets the world before it fails). */
	steer_world *trial = steer_world_create(steer_world_config_get(s->world));
	if (!trial)
		return steer_reply_fail(r, "out of memory; the world is unchanged");
	steer_status st = steer_scenario_load(trial, c->name);
	steer_world_destroy(trial);
	if (st == STEER_OK)
		st = steer_scenario_load(s->world, c->name);
	if (st == STEER_ERR_INVALID) {
		const steer_world_config *cfg = steer_world_config_get(s->world);
		return steer_reply_fail(
		    r,
		    "scenario %s does not fit a %s world of %g x %g (its bodies "
		    "are wider than it allows): make it larger with 'world W H'; "
		    "the world is unchanged",
		    c->name, steer_edges_name(cfg->edges), cfg->width, cfg->height);
	}
	if (st == STEER_ERR_NOENT) {
		char names[256] = "";
		for (int k = 0; steer_scenario_names[k]; k++) {
			strncat(names, " ", sizeof names - strlen(names) - 1);
			strncat(names, steer_scenario_names[k], sizeof names - strlen(names) - 1);
		}
		return steer_reply_fail(r, "no scenario '%s'; there are:%s", c->name, names);
	}
	return status_err(r, st, 0);
}

static steer_status x_stats(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)c;
	const steer_world *w = s->world;
	const steer_world_config *cfg = steer_world_config_get(w);
	world_counts n = count_world(w);
	steer_strbuf *b = &r->json;
	steer_strbuf_printf(b,
	                    "{\"tick\":%llu,\"paused\":%s,\"vehicles\":%zu,\"obstacles\":%zu,"
	                    "\"walls\":%zu,\"polygons\":%zu,\"seed\":%llu,\"tick_rate\":",
	                    (unsigned long long)steer_world_tick(w), s->paused ? "true" : "false",
	                    n.vehicles + s->vehicles_elsewhere, n.obstacles, n.walls, n.polygons,
	                    (unsigned long long)cfg->seed);
	steer_json_num(b, cfg->tick_rate);
	steer_strbuf_puts(b, ",");
	world_bounds_json(b, cfg);
	steer_strbuf_printf(b, ",\"threads\":%d,\"simd\":\"%s\"", steer_world_threads(w),
	                    steer_simd_name(steer_world_simd(w)));
	if (!s->health_valid || s->health_tick != steer_world_tick(w)) {
		s->health = steer_world_flock_health(w);
		s->health_tick = steer_world_tick(w);
		s->health_valid = true;
	}
	steer_flock_health fh = s->health;
	steer_strbuf_printf(b, ",\"flockers\":%zu,\"flock_mean_speed\":", fh.flockers);
	steer_json_num(b, fh.mean_speed);
	steer_strbuf_puts(b, ",\"flock_polarization\":");
	steer_json_num(b, fh.polarization);
	if (h && h->stats)
		h->stats(h->ud, b);
	steer_strbuf_puts(b, "}");
	return STEER_OK;
}

bool steer_save_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > STEER_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
		if (!ok)
			return false;
	}
	return true;
}

static steer_status p_save_name(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	if (p_name(c, argc, argv, err, errlen))
		return STEER_ERR_INVALID;
	if (!steer_save_name_ok(c->name))
		return fail(err, errlen,
		            "NAME: use 1-64 of A-Z a-z 0-9 . _ - (not starting with '.')");
	return STEER_OK;
}

static steer_status x_save(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	if (!h || !h->save)
		return steer_reply_fail(r, "save is not available here");
	char *data;
	size_t len;
	steer_status st = steer_save_encode(s->world, &data, &len);
	if (st == STEER_ERR_LIMIT)
		return steer_reply_fail(
		    r,
		    "save %s: the world takes more than %u bytes, the most a save "
		    "may hold (load refuses larger files); nothing was written",
		    c->name, STEER_SAVE_MAX_BYTES);
	if (st != STEER_OK)
		return steer_reply_fail(
		    r, "out of memory while encoding the world; nothing was written");
	char msg[200];
	steer_status rc = h->save(h->ud, c->name, data, len, msg, sizeof msg);
	free(data);
	if (rc != STEER_OK)
		return steer_reply_fail(r, "save %s: %s", c->name, msg);
	steer_strbuf_printf(&r->json, "{\"bytes\":%zu}", len);
	return STEER_OK;
}

static steer_status x_load(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	if (!h || !h->load)
		return steer_reply_fail(r, "load is not available here");
	char *data = NULL;
	size_t len = 0;
	char msg[200];
	if (h->load(h->ud, c->name, &data, &len, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "load %s: %s", c->name, msg);
	steer_world *loaded = steer_save_decode(data, len, msg, sizeof msg);
	free(data);
	if (!loaded)
		return steer_reply_fail(r, "load %s: %s; the running world is unchanged", c->name,
		                        msg);
	return steer_cmd_load_swap(c, s, h, loaded, r);
}

steer_status steer_cmd_load_swap(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_world *loaded, steer_reply *r)
{
	size_t max = steer_world_config_get(s->world)->max_vehicles;
	if (max && steer_world_vehicles(loaded)->count > max) {
		size_t n = steer_world_vehicles(loaded)->count;
		steer_world_destroy(loaded);
		return steer_reply_fail(r, "load %s: %zu vehicles exceed --max-vehicles %zu",
		                        c->name, n, max);
	}
	steer_world_set_max_vehicles(loaded, max);
	if (steer_world_set_threads(loaded, steer_world_threads(s->world)) != STEER_OK) {
		int n = steer_world_threads(s->world);
		steer_world_destroy(loaded);
		return steer_reply_fail(r, "load %s: cannot start the world's %d threads", c->name,
		                        n);
	}
	/* A cap on the vector lanes (speed only) is the host's choice, like threads. */
	steer_world_set_simd(loaded, steer_world_simd(s->world));
	bool rate_changed = steer_world_config_get(loaded)->tick_rate !=
	                    steer_world_config_get(s->world)->tick_rate;
	steer_world_destroy(s->world);
	s->world = loaded;
	s->health_valid = false;
	if (rate_changed && h && h->rate_changed)
		h->rate_changed(h->ud);
	steer_strbuf_printf(&r->json, "{\"tick\":%llu,\"vehicles\":%zu}",
	                    (unsigned long long)steer_world_tick(loaded),
	                    steer_world_vehicles(loaded)->count);
	return STEER_OK;
}

static steer_status x_saves(const steer_command *c, steer_session *s, const steer_host *h,
                            steer_reply *r)
{
	(void)c, (void)s;
	if (!h || !h->saves)
		return steer_reply_fail(r, "saves is not available here");
	char msg[200];
	if (h->saves(h->ud, &r->json, msg, sizeof msg) != STEER_OK) {
		steer_strbuf_clear(&r->json);
		return steer_reply_fail(r, "saves: %s", msg);
	}
	return STEER_OK;
}

bool steer_client_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > STEER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

static steer_status p_client_name(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (!steer_client_name_ok(argv[1]))
		return fail(err, errlen, "NAME: use 1-%d printable ASCII characters without spaces",
		            STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

static steer_status x_name(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)s;
	if (!h || !h->set_name)
		return steer_reply_fail(r, "name is not available here");
	char msg[200];
	if (h->set_name(h->ud, h->caller, c->name, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "name: %s", msg);
	return STEER_OK;
}

static steer_status x_clients(const steer_command *c, steer_session *s, const steer_host *h,
                              steer_reply *r)
{
	(void)c, (void)s;
	if (!h || !h->clients)
		return steer_reply_fail(r, "clients is not available here");
	h->clients(h->ud, h->caller, &r->json);
	return STEER_OK;
}

static steer_status p_token(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	if (strlen(argv[1]) > STEER_NAME_MAX)
		return fail(err, errlen, "TOKEN: longer than %d characters", STEER_NAME_MAX);
	snprintf(c->name, sizeof c->name, "%s", argv[1]);
	return STEER_OK;
}

static steer_status x_auth(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)s;
	if (!h || !h->auth)
		return steer_reply_fail(
		    r, "this server takes no token: everyone may already change the world");
	char msg[200];
	if (h->auth(h->ud, h->caller, c->name, msg, sizeof msg) != STEER_OK)
		return steer_reply_fail(r, "%s", msg);
	steer_strbuf_puts(&r->json, "{\"access\":\"write\"}");
	return STEER_OK;
}

bool steer_cmd_writes(const steer_command *cmd)
{
	return cmd->entry->access == STEER_CMD_WRITE && !world_query(cmd);
}

steer_status steer_cmd_check_access(const steer_command *cmd, bool may_write, steer_reply *out)
{
	if (may_write || !steer_cmd_writes(cmd))
		return STEER_OK;
	steer_reply_fail(out,
	                 "%s changes the world and this connection is read-only: send "
	                 "'auth TOKEN' first",
	                 cmd->entry->name);
	return STEER_ERR_ACCESS;
}

static steer_status x_quit(const steer_command *c, steer_session *s, const steer_host *h,
                           steer_reply *r)
{
	(void)c, (void)s, (void)h;
	r->close = true;
	return STEER_OK;
}

/* --- the table ------------------------------------------------------------------ */

#define R STEER_CMD_READ
#define W STEER_CMD_WRITE

const steer_cmd_entry steer_cmd_table[] = {
    {"help", "[COMMAND]", "list the commands, or describe one", R, 0, 1, p_help, x_help},
    {"spawn", "X Y [key=value ...] | spawn flock N X Y R [key=value ...]",
     "add a vehicle at (X,Y), or N flocking vehicles within R of (X,Y)", W, 2, -1, p_spawn,
     x_spawn},
    {"obstacle", "X Y R [vx=V] [vy=V]", "add a circle obstacle, drifting at (vx,vy)", W, 3, 5,
     p_obstacle, x_obstacle},
    {"wall", "X1 Y1 X2 Y2", "add a wall: a segment solid from both sides", W, 4, 4, p_wall, x_wall},
    {"polygon", "X1 Y1 X2 Y2 X3 Y3 ... [inside]",
     "add a closed polygon obstacle (up to 127 points); inside: vehicles stay inside it", W, 6,
     STEER_CMD_MAX_WORDS - 1, p_polygon, x_polygon},
    {"remove", "ID", "remove a vehicle, an obstacle, a wall or a polygon", W, 1, 1, p_id, x_remove},
    {"set", "ID key=value ...", "change a vehicle's parameters (help set lists the keys)", W, 2, -1,
     p_set, x_set},
    {"seek", "ID X Y | ID off", "steer towards a point at full speed", W, 2, 3, p_target, x_target},
    {"flee", "ID X Y | ID off", "steer away from a point (within panic_distance)", W, 2, 3,
     p_target, x_target},
    {"arrive", "ID X Y | ID off", "steer to a point and stop on it", W, 2, 3, p_target, x_target},
    {"pursue", "ID OTHER | ID off", "chase another vehicle's predicted position", W, 2, 2, p_chase,
     x_chase},
    {"evade", "ID OTHER | ID off", "run from another vehicle's predicted position", W, 2, 2,
     p_chase, x_chase},
    {"follow", "ID LEADER DX DY | ID off",
     "keep station at an offset from a leader: DX along its heading, DY to its left", W, 2, 4,
     p_follow, x_follow},
    {"formation", "LEADER line|column|wedge|ring SPACING ID...",
     "make the vehicles follow the leader in a formation, neighbours SPACING apart", W, 4, -1,
     p_formation, x_formation},
    {"hide", "ID HUNTER | ID off", "keep an obstacle between itself and a hunter", W, 2, 2, p_chase,
     x_hide},
    {"interpose", "ID A B | ID off", "steer to the point midway between two moving vehicles", W, 2,
     3, p_interpose, x_interpose},
    {"wander", "ID on|off", "random smooth wandering", W, 2, 2, p_toggle, x_toggle},
    {"avoid", "ID on|off", "steer around obstacles", W, 2, 2, p_toggle, x_toggle},
    {"flock", "ID on|off", "separation, cohesion and alignment with its group", W, 2, 2, p_toggle,
     x_toggle},
    {"waypoint", "ID X Y", "append a waypoint to the vehicle's path (turns path on)", W, 3, 3,
     p_waypoint, x_waypoint},
    {"path", "ID clear | ID loop on|off",
     "clear the path, or loop it (set path_radius for a corridor, not waypoints)", W, 2, 3, p_path,
     x_path},
    {"goto", "ID X Y | ID off",
     "plan a route around obstacles and walls to (X,Y) and follow it (replanned when blocked)", W,
     2, 3, p_goto, x_goto},
    {"get", "ID", "everything about one vehicle, obstacle, wall or polygon", R, 1, 1, p_id, x_get},
    {"list", "[FROM_ID [COUNT]]",
     "every vehicle, obstacle, wall and polygon, or up to COUNT of them with id FROM_ID or more, "
     "by id (next: the next page's FROM_ID)",
     R, 0, 2, p_list, x_list},
    {"pause", "", "stop the clock", W, 0, 0, p_none, x_pause},
    {"resume", "", "start the clock", W, 0, 0, p_none, x_pause},
    {"step", "[N]", "advance N ticks (default 1), e.g. while paused; answered when done", W, 0, 1,
     p_step, x_step},
    {"rewind", "TICKS",
     "bring the world back TICKS ticks (kept in memory: see stats' oldest_tick), paused; "
     "answered when done (a server split over MPI ranks refuses it: it keeps no history)",
     W, 1, 1, p_rewind, x_history},
    {"goto-tick", "T | live",
     "bring the world to tick T of this session, or forward to its live tick, paused; "
     "answered when done (a server split over MPI ranks refuses it: it keeps no history)",
     W, 1, 1, p_goto_tick, x_history},
    {"world", "[W H] [wrap|bounce|none] [solid on|off] [contain on|off]",
     "resize the world, set its edges and its rules (solid bodies, contained by the bounds); "
     "alone: show them",
     W, 0, 7, p_world, x_world},
    {"rate", "HZ", "set the tick rate", W, 1, 1, p_rate, x_rate},
    {"seed", "N", "set the seed (reset then replays identically)", W, 1, 1, p_seed, x_seed},
    {"reset", "", "empty the world: tick 0, ids from 1, seed kept", W, 0, 0, p_none, x_reset},
    {"scenario", "NAME", "reset and load a built-in scenario", W, 1, 1, p_name, x_scenario},
    {"stats", "", "tick, counts, rates and tick timing", R, 0, 0, p_none, x_stats},
    {"save", "NAME", "write the whole world to the data directory", W, 1, 1, p_save_name, x_save},
    {"load", "NAME", "replace the world with a saved one", W, 1, 1, p_save_name, x_load},
    {"saves", "", "the saves in the data directory, with size and tick", R, 0, 0, p_none, x_saves},
    {"name", "NAME", "name this connection, so others see who did what", R, 1, 1, p_client_name,
     x_name},
    {"clients", "", "every connection: name, address, kind, access, view", R, 0, 0, p_none,
     x_clients},
    {"auth", "TOKEN", "present the server's token to be allowed to change the world", R, 1, 1,
     p_token, x_auth},
    {"quit", "", "close this connection", R, 0, 0, p_none, x_quit},
};
const size_t steer_cmd_count = sizeof steer_cmd_table / sizeof steer_cmd_table[0];

#undef R
#undef W

const steer_cmd_entry *steer_cmd_find(const char *name)
{
	for (size_t k = 0; k < steer_cmd_count; k++)
		if (!strcmp(steer_cmd_table[k].name, name))
			return &steer_cmd_table[k];
	return NULL;
}

steer_status steer_cmd_split(char *line, char **words, int max, int *count)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p) {
			*count = n;
			return STEER_OK;
		}
		if (n == max)
			return STEER_ERR_LIMIT;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* Every word as the text port's splitter would give it back: not empty, and no
 * whitespace or other control byte inside. A protobuf call's words are not split, so
 * without this a word like "max_speed=\t5" would run as one word and be journalled as
 * a line that splits into two: the journal's lines round-trip only because
 * the words they join are plain. */
static steer_status words_plain(int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		const unsigned char *w = (const unsigned char *)argv[i];
		if (!*w)
			return fail(err, errlen, "word %d is empty; nothing was done", i + 1);
		for (size_t k = 0; w[k]; k++)
			if (w[k] <= 0x20 || w[k] == 0x7f)
				return fail(
				    err, errlen,
				    "word %d holds a %s (byte 0x%02x at %zu); a word has no "
				    "spaces or control characters; nothing was done",
				    i + 1,
				    w[k] == ' ' || w[k] == '\t' || w[k] == '\r' || w[k] == '\n'
				        ? "whitespace byte"
				        : "control byte",
				    w[k], k + 1);
	}
	return STEER_OK;
}

steer_status steer_cmd_parse(steer_command *cmd, int argc, char **argv, char *err, size_t errlen)
{
	memset(cmd, 0, sizeof *cmd);
	if (argc == 0)
		return fail(err, errlen, "empty command (try help)");
	const steer_cmd_entry *e = steer_cmd_find(argv[0]);
	if (!e) {
		int shown = (int)steer_utf8_cut(argv[0], strlen(argv[0]), 39);
		return fail(err, errlen, "unknown command '%.*s' (try help)", shown, argv[0]);
	}
	if (words_plain(argc, argv, err, errlen) != STEER_OK)
		return STEER_ERR_INVALID;
	int words = argc - 1;
	if (words < e->min_words || (e->max_words >= 0 && words > e->max_words))
		return fail(err, errlen, "usage: %s%s%s", e->name, e->usage[0] ? " " : "",
		            e->usage);
	cmd->entry = e;
	if (e->parse(cmd, argc, argv, err, errlen) != STEER_OK) {
		cmd->entry = NULL;
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

steer_status steer_cmd_parse_line(steer_command *cmd, const char *line, char *err, size_t errlen)
{
	size_t n = strlen(line);
	char *copy = malloc(n + 1);
	if (!copy)
		return fail(err, errlen, "out of memory");
	memcpy(copy, line, n + 1);
	char *words[STEER_CMD_MAX_WORDS];
	int argc;
	steer_status rc =
	    steer_cmd_split(copy, words, STEER_CMD_MAX_WORDS, &argc) != STEER_OK
	        ? fail(err, errlen, "more than %d words (a polygon: at most %d points)",
	               STEER_CMD_MAX_WORDS, STEER_CMD_MAX_POINTS)
	        : steer_cmd_parse(cmd, argc, words, err, errlen);
	free(copy);
	return rc;
}

steer_status steer_cmd_exec(const steer_command *cmd, steer_session *s, const steer_host *h,
                            steer_reply *out)
{
	steer_strbuf_clear(&out->json);
	out->ok = true;
	out->close = false;
	out->error[0] = '\0';
	if (steer_cmd_writes(cmd))
		s->health_valid = false;
	steer_status rc = cmd->entry->exec(cmd, s, h, out);
	if (rc == STEER_OK && out->json.oom)
		return steer_reply_fail(out, "out of memory while building the reply");
	return rc;
}
