/* The command table's argument parsing: numbers, ids, on|off, key=value words, each
 * refused with a message that quotes what the user sent. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "cmd_internal.h"
#include "format_cut.h"
#include "savefile.h"
#include "scenario.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

/* Error messages quote what the user sent; they go to terminals, logs and protobuf
 * strings: one line of valid UTF-8 (steer_utf8_escape). The message is formatted
 * whole first, so that it is cut only once, on a character boundary. */
void steer_cmd_format_clean(char *out, size_t n, const char *fmt, va_list ap)
{
	char raw[1024];
	vsnprintf(raw, sizeof raw, fmt, ap);
	steer_utf8_escape(out, n, raw, strlen(raw));
}

/* Writes the message (its callers begin it with what they refused) and returns
 * INVALID, so parsers can `return steer_cmd_fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
steer_status
steer_cmd_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	steer_cmd_format_clean(err, errlen, fmt, ap);
	va_end(ap);
	return STEER_ERR_INVALID;
}

steer_status steer_arg_num(const char *what, const char *s, double *out, char *err, size_t errlen)
{
	char q[STEER_QUOTE_SIZE];
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0')
		return steer_cmd_fail(err, errlen, "%s: '%s' is not a number", what,
		                      steer_quote_cut(s, q));
	if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
		return steer_cmd_fail(err, errlen, "%s: '%s' is not a finite number", what,
		                      steer_quote_cut(s, q));
	/* Underflow, or a subnormal spelt exactly (0x1p-1074): too small to mean anything,
	 * and it may not read back as written. */
	if (errno == ERANGE || (v != 0.0 && fabs(v) < 1e-300))
		return steer_cmd_fail(err, errlen,
		                      "%s: '%s' is too close to zero (give 0 or at least 1e-300)",
		                      what, steer_quote_cut(s, q));
	*out = v;
	return STEER_OK;
}

steer_status steer_arg_coord(const char *what, const char *s, double *out, char *err, size_t errlen)
{
	if (steer_arg_num(what, s, out, err, errlen) != STEER_OK)
		return STEER_ERR_INVALID;
	char q[STEER_QUOTE_SIZE];
	if (!(fabs(*out) <= STEER_MAX_COORD))
		return steer_cmd_fail(err, errlen, "%s: %s is beyond +-%g, the world's coordinates",
		                      what, steer_quote_cut(s, q), STEER_MAX_COORD);
	return STEER_OK;
}

steer_status steer_arg_u64(const char *what, const char *s, uint64_t max, uint64_t *out, char *err,
                           size_t errlen)
{
	char *end, q[STEER_QUOTE_SIZE];
	errno = 0;
	if (*s == '-')
		return steer_cmd_fail(err, errlen, "%s: '%s' is negative; a whole number is wanted",
		                      what, steer_quote_cut(s, q));
	if (*s == '+' || *s == ' ')
		return steer_cmd_fail(err, errlen, "%s: '%s' is not a whole number", what,
		                      steer_quote_cut(s, q));
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end != '\0')
		return steer_cmd_fail(err, errlen, "%s: '%s' is not a whole number", what,
		                      steer_quote_cut(s, q));
	if (errno == ERANGE || v > max)
		return steer_cmd_fail(err, errlen, "%s: %s is too large (at most %llu)", what,
		                      steer_quote_cut(s, q), (unsigned long long)max);
	*out = v;
	return STEER_OK;
}

steer_status steer_arg_id(const char *what, const char *s, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	if (steer_arg_u64(what, s, UINT32_MAX, &v, err, errlen) != 0)
		return STEER_ERR_INVALID;
	if (v == 0)
		return steer_cmd_fail(err, errlen, "%s: ids start at 1", what);
	*out = (uint32_t)v;
	return STEER_OK;
}

steer_status steer_arg_onoff(const char *s, bool *on, char *err, size_t errlen)
{
	if (!strcmp(s, "on")) {
		*on = true;
		return STEER_OK;
	}
	if (!strcmp(s, "off")) {
		*on = false;
		return STEER_OK;
	}
	char q[STEER_QUOTE_SIZE];
	return steer_cmd_fail(err, errlen, "'%s' is neither on nor off", steer_quote_cut(s, q));
}

/* key=value words from argv[first] on, into cmd->kv, each checked on its own here
 * (the combination is checked before anything is applied). */
steer_status steer_arg_kvs(steer_command *cmd, int first, int argc, char **argv, int allow,
                           char *err, size_t errlen)
{
	char q[STEER_QUOTE_SIZE];
	for (int i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i])
			return steer_cmd_fail(err, errlen, "'%s' is not key=value",
			                      steer_quote_cut(argv[i], q));
		if (cmd->nkv == STEER_CMD_MAX_KV)
			return steer_cmd_fail(err, errlen, "more than %d key=value pairs",
			                      STEER_CMD_MAX_KV);
		*eq = '\0';
		const char *key = argv[i], *val = eq + 1;
		steer_cmd_kv *kv = &cmd->kv[cmd->nkv];
		bool velocity = !strcmp(key, "vx") || !strcmp(key, "vy");
		if (velocity && (allow & KV_VELOCITY)) {
			kv->def = NULL;
			kv->field = key[1];
			if (steer_arg_num(key, val, &kv->value, err, errlen) != 0)
				return STEER_ERR_INVALID;
			if (!(fabs(kv->value) <= STEER_MAX_COORD))
				return steer_cmd_fail(err, errlen, "%s: %s is beyond +-%g", key,
				                      steer_quote_cut(val, q), STEER_MAX_COORD);
		} else if (velocity) {
			return steer_cmd_fail(
			    err, errlen,
			    "%s does not apply here (each flocker gets a random heading)", key);
		} else {
			const steer_param_def *def =
			    (allow & KV_PARAMS) ? steer_param_find(key) : NULL;
			if (!def)
				return steer_cmd_fail(err, errlen, "unknown key '%s'%s",
				                      steer_quote_cut(key, q),
				                      (allow & KV_PARAMS) ? " (help set lists them)"
				                                          : " (only vx, vy)");
			steer_params scratch = steer_params_default();
			char msg[256];
			if (steer_param_parse(&scratch, def, val, msg, sizeof msg) != STEER_OK)
				return steer_cmd_fail(err, errlen, "%s", msg);
			kv->def = def;
			kv->value = steer_param_get(&scratch, def);
		}
		cmd->nkv++;
	}
	return STEER_OK;
}

/* Applies cmd's parameter pairs onto p, and vx/vy onto *vel when given. */
void steer_arg_apply_kvs(const steer_command *cmd, steer_params *p, steer_vec2 *vel, bool *has_vel)
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

steer_status steer_cmd_parse_none(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)c, (void)argc, (void)argv, (void)err, (void)errlen;
	return STEER_OK;
}

steer_status steer_cmd_parse_id(steer_command *c, int argc, char **argv, char *err, size_t errlen)
{
	(void)argc;
	return steer_arg_id("ID", argv[1], &c->id, err, errlen);
}
