#include "steer/wire.h"

#include <math.h>
#include <pb_common.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_format.h"
#include "message.h"
#include "reserve.h"
#include "serve.h"
#include "steer/bytes.h"
#include "utf8.h"
#include "wire_priv.h"

/* --- framing ------------------------------------------------------------------- */

void steer_framer_init(steer_framer *f, size_t max_frame)
{
	memset(f, 0, sizeof *f);
	f->max_frame = max_frame;
}

void steer_framer_free(steer_framer *f)
{
	free(f->buf);
	f->buf = NULL;
	f->len = f->cap = f->start = 0;
}

size_t steer_framer_feed(steer_framer *f, const uint8_t *data, size_t n)
{
	/* Drop what was returned, then take what fits in one frame's worth. */
	if (f->start) {
		memmove(f->buf, f->buf + f->start, f->len - f->start);
		f->len -= f->start;
		f->start = 0;
	}
	/* Grow towards one whole frame plus its prefix, never past it: a peer cannot make
	 * the buffer larger than max_frame + 10, and small frames keep it small. */
	size_t limit = f->max_frame + 10;
	size_t want = f->len + n < limit ? f->len + n : limit;
	if (want > f->cap) {
		size_t ncap;
		if (steer_grow_cap(f->cap, want, 1, &ncap) != STEER_OK)
			return 0;
		ncap = ncap < limit ? ncap : limit;
		if (steer_resize((void **)&f->buf, ncap, 1) != STEER_OK)
			return 0;
		f->cap = ncap;
	}
	size_t take = n < f->cap - f->len ? n : f->cap - f->len;
	if (take)
		memcpy(f->buf + f->len, data, take);
	f->len += take;
	return take;
}

steer_status steer_framer_next(steer_framer *f, const uint8_t **msg, size_t *len, char *err,
                               size_t errlen)
{
	*msg = NULL;
	*len = 0;
	size_t i = f->start;
	if (i == f->len)
		return STEER_OK;
	uint64_t size;
	int n = steer_varint_decode(f->buf + i, f->len - i, STEER_FRAME_PREFIX_MAX, &size);
	if (n == 0)
		return STEER_OK;
	if (n < 0) {
		snprintf(err, errlen, "malformed frame length");
		return STEER_ERR_INVALID;
	}
	i += (size_t)n;
	if (size > f->max_frame) {
		snprintf(err, errlen, "frame of %llu bytes exceeds the limit of %zu",
		         (unsigned long long)size, f->max_frame);
		return STEER_ERR_INVALID;
	}
	if (f->len - i < size)
		return STEER_OK;
	*msg = f->buf + i;
	*len = (size_t)size;
	f->start = i + (size_t)size;
	return STEER_OK;
}

void steer_frame_put(steer_strbuf *out, const uint8_t *msg, size_t len)
{
	uint8_t v[STEER_VARINT_MAX];
	steer_strbuf_put(out, (const char *)v, steer_varint_encode(v, len));
	steer_strbuf_put(out, (const char *)msg, len);
}

/* --- encode callbacks ------------------------------------------------------------ */

static bool enc_string(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const char *str = *arg;
	if (!str || !*str)
		return true;
	return pb_encode_tag_for_field(s, f) &&
	       pb_encode_string(s, (const pb_byte_t *)str, strlen(str));
}

/* A column of the vehicle arrays, taken at the indices of the view, and its packed
 * payload. nanopb runs a message's callbacks once to size each enclosing message and
 * once to write it (four times for a Snapshot inside a delimited ServerMessage): the
 * payload is encoded on the first and written whole on each, not value by value four
 * times over. */
typedef struct column {
	const double *real;  /* as floats (fixed32), or */
	const uint32_t *u32; /* as varints */
	const uint32_t *idx;
	size_t n;
	pb_byte_t *packed; /* owned: column_free */
	size_t len;
	bool made;
} column;

static void column_free(column *c)
{
	free(c->packed);
	c->packed = NULL;
	c->made = false;
}

/* Encodes c's values once into c->packed; false when memory runs out or nanopb
 * refuses a value. */
static bool column_make(column *c)
{
	if (c->made)
		return c->packed != NULL;
	c->made = true;
	size_t cap = c->n * (c->real ? 4 : 5); /* a uint32 varint takes at most 5 bytes */
	if (!(c->packed = malloc(cap)))
		return false;
	pb_ostream_t o = pb_ostream_from_buffer(c->packed, cap);
	for (size_t k = 0; k < c->n; k++) {
		size_t at = c->idx ? c->idx[k] : k;
		float v = c->real ? (float)c->real[at] : 0.0f;
		if (c->real ? !pb_encode_fixed32(&o, &v) : !pb_encode_varint(&o, c->u32[at])) {
			free(c->packed); /* made, and failed: NULL */
			c->packed = NULL;
			return false;
		}
	}
	c->len = o.bytes_written;
	return true;
}

static bool enc_packed(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	column *c = *arg;
	if (c->n == 0)
		return true;
	return column_make(c) && pb_encode_tag(s, PB_WT_STRING, f->tag) &&
	       pb_encode_varint(s, c->len) && pb_write(s, c->packed, c->len);
}

/* --- server side ---------------------------------------------------------------- */

steer_status steer_wire_welcome(steer_strbuf *out, const steer_welcome_info *info)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_welcome_tag;
	steer_Welcome *w = &m.msg.welcome;
	w->protocol_version = STEER_PROTOCOL_VERSION;
	if (info->cfg) {
		w->width = info->cfg->width;
		w->height = info->cfg->height;
		w->edges = (steer_Edges)info->cfg->edges;
		w->tick_rate = info->cfg->tick_rate;
		w->snapshot_rate = info->snapshot_rate;
	}
	snprintf(w->server, sizeof w->server, "steer-server %d", STEER_PROTOCOL_VERSION);
	w->max_frame = STEER_MAX_CLIENT_FRAME;
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

steer_status steer_wire_reply(steer_strbuf *out, uint32_t request_id, const steer_reply *r)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_reply_tag;
	steer_Reply *rep = &m.msg.reply;
	rep->request_id = request_id;
	rep->ok = r->ok;
	/* A protobuf string must be UTF-8, or the client's parser refuses the frame. */
	const char *error = r->ok ? "" : r->error;
	steer_utf8_escape(rep->error, sizeof rep->error, error, strlen(error));
	rep->json.funcs.encode = enc_string;
	rep->json.arg = r->ok && r->json.len ? r->json.data : NULL;
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

steer_status steer_wire_notice(steer_strbuf *out, const char *text)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_notice_tag;
	steer_utf8_escape(m.msg.notice.text, sizeof m.msg.notice.text, text, strlen(text));
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

steer_status steer_wire_snapshot(steer_strbuf *out, const steer_world *w, bool paused,
                                 const steer_view *view, uint32_t **scratch, size_t *scratch_cap)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	if (steer_reserve((void **)scratch, scratch_cap, v->count, sizeof **scratch) != STEER_OK)
		return STEER_ERR_NOMEM;
	uint32_t *idx = *scratch;
	size_t n = 0;
	double margin = view->set ? steer_view_margin(view) : 0;
	for (size_t i = 0; i < v->count; i++)
		if (steer_view_contains(view, v->px[i], v->py[i], margin))
			idx[n++] = (uint32_t)i;
	return steer_wire_snapshot_of(out, w, paused, view, idx, n);
}

steer_status steer_wire_snapshot_of(steer_strbuf *out, const steer_world *w, bool paused,
                                    const steer_view *view, const uint32_t *idx, size_t n)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_snapshot_tag;
	steer_Snapshot *s = &m.msg.snapshot;
	s->has_header = true;
	s->header = steer_wire_header(w, paused);
	s->avoid_distance_max = (float)steer_wire_feeler(w, idx, n);
	if (view->set) {
		s->has_view = true;
		s->view = steer_wire_rect(view);
	}
	column col[9] = {
	    {.u32 = v->id, .idx = idx, .n = n},        {.u32 = v->group, .idx = idx, .n = n},
	    {.u32 = v->behaviors, .idx = idx, .n = n}, {.real = v->px, .idx = idx, .n = n},
	    {.real = v->py, .idx = idx, .n = n},       {.real = v->vx, .idx = idx, .n = n},
	    {.real = v->vy, .idx = idx, .n = n},       {.real = v->fx, .idx = idx, .n = n},
	    {.real = v->fy, .idx = idx, .n = n}};
	pb_callback_t *field[9] = {&s->id, &s->group, &s->behaviors, &s->x, &s->y,
	                           &s->vx, &s->vy,    &s->fx,        &s->fy};
	for (int k = 0; k < 9; k++)
		*field[k] = (pb_callback_t){{.encode = enc_packed}, &col[k]};
	steer_wire_obstacle_list obs = steer_wire_obstacles_in(w, view);
	s->obstacles = (pb_callback_t){{.encode = steer_wire_enc_obstacles}, &obs};
	steer_wire_route_list routes = {w, idx, n};
	s->routes = (pb_callback_t){{.encode = steer_wire_enc_routes}, &routes};
	steer_status st = steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
	bool failed = false;
	for (int k = 0; k < 9; k++) {
		failed |= col[k].made && !col[k].packed;
		column_free(&col[k]);
	}
	return failed ? STEER_ERR_NOMEM : st; /* a payload that could not be made */
}

steer_status steer_wire_decode_client(const uint8_t *msg, size_t len, steer_ClientMessage *out,
                                      char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	pb_istream_t s = pb_istream_from_buffer(msg, len);
	if (!pb_decode(&s, steer_ClientMessage_fields, out)) {
		const char *why = PB_GET_ERROR(&s);
		/* The one limit a well-formed message can pass: say what it is. */
		if (!strcmp(why, "string overflow"))
			snprintf(err, errlen,
			         "malformed ClientMessage: string overflow (a command line holds "
			         "at most "
			         "%zu bytes, a word %zu)",
			         sizeof out->msg.command.body.line - 1,
			         sizeof((steer_Arg *)0)->value.word - 1);
		else
			snprintf(err, errlen, "malformed ClientMessage: %s", why);
		return STEER_ERR_INVALID;
	}
	if (out->which_msg == 0) {
		snprintf(err, errlen, "empty ClientMessage (no hello, command or viewport)");
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

/* Reads the rest of a string field; false when it holds a NUL (or cannot be read). */
static bool bytes_without_nul(pb_istream_t *s)
{
	uint8_t buf[64];
	while (s->bytes_left) {
		size_t n = s->bytes_left < sizeof buf ? s->bytes_left : sizeof buf;
		if (!pb_read(s, buf, n) || memchr(buf, 0, n))
			return false;
	}
	return true;
}

/* Walks a decoded message's encoding by its descriptor: every string field, in
 * submessages too, is read again for a NUL. decoded is the struct it was decoded
 * into (the field iterator needs one). */
static bool strings_without_nul(pb_istream_t *s, const pb_msgdesc_t *desc, void *decoded)
{
	pb_wire_type_t wt;
	uint32_t tag;
	bool eof;
	while (pb_decode_tag(s, &wt, &tag, &eof)) {
		pb_field_iter_t it;
		bool known =
		    pb_field_iter_begin(&it, desc, decoded) && pb_field_iter_find(&it, tag);
		if (wt != PB_WT_STRING || !known) {
			if (!pb_skip_field(s, wt))
				return false;
			continue;
		}
		pb_istream_t sub;
		if (!pb_make_string_substream(s, &sub))
			return false;
		bool ok = true;
		if (PB_LTYPE_IS_SUBMSG(it.type))
			ok = strings_without_nul(&sub, it.submsg_desc, it.pData);
		else if (PB_LTYPE(it.type) == PB_LTYPE_STRING)
			ok = bytes_without_nul(&sub);
		if (!pb_close_string_substream(s, &sub) || !ok)
			return false;
	}
	return eof;
}

steer_status steer_wire_client_strings_ok(const uint8_t *msg, size_t len, steer_ClientMessage *m,
                                          char *err, size_t errlen)
{
	pb_istream_t s = pb_istream_from_buffer(msg, len);
	if (strings_without_nul(&s, steer_ClientMessage_fields, m))
		return STEER_OK;
	snprintf(err, errlen, "a string in the message holds a NUL byte; nothing was done");
	return STEER_ERR_INVALID;
}

/* A call's words as the generated structs bound them: its name and each argument. */
#define CALL_ARGS (sizeof((steer_Invocation *)0)->args / sizeof((steer_Invocation *)0)->args[0])
typedef char call_word[sizeof((steer_Arg *)0)->value.word];
_Static_assert(sizeof((steer_Invocation *)0)->name <= sizeof(call_word), "a name is a word");
_Static_assert(sizeof((steer_Command *)0)->body.line == STEER_CMD_MAX_LINE + 1,
               "a command line over protobuf is as long as the text port's");

/* A call's words (name, then each argument), as the parser receives them: numbers
 * print with %.17g, which reads back exactly. words holds 1 + CALL_ARGS. */
static steer_status call_words(const steer_Invocation *call, call_word *words, char **argv,
                               int *argc, char *err, size_t errlen)
{
	int n = 0;
	snprintf(words[n], sizeof words[n], "%s", call->name);
	argv[n] = words[n];
	n++;
	for (pb_size_t k = 0; k < call->args_count && k < CALL_ARGS; k++) {
		const steer_Arg *a = &call->args[k];
		if (a->which_value == steer_Arg_number_tag)
			snprintf(words[n], sizeof words[n], "%.17g", a->value.number);
		else if (a->which_value == steer_Arg_word_tag)
			snprintf(words[n], sizeof words[n], "%s", a->value.word);
		else {
			snprintf(err, errlen, "argument %u is empty", (unsigned)k + 1);
			return STEER_ERR_INVALID;
		}
		argv[n] = words[n];
		n++;
	}
	*argc = n;
	return STEER_OK;
}

steer_status steer_wire_to_command(const steer_Command *c, steer_command *cmd, char *err,
                                   size_t errlen)
{
	if (c->which_body == steer_Command_line_tag)
		return steer_cmd_parse_line(cmd, c->body.line, err, errlen);
	if (c->which_body != steer_Command_call_tag) {
		snprintf(err, errlen, "command has neither a line nor a call");
		return STEER_ERR_INVALID;
	}
	/* Words are rebuilt from the arguments and go through the same parser as text. */
	call_word *words = malloc((1 + CALL_ARGS) * sizeof *words);
	char *argv[1 + CALL_ARGS];
	int argc = 0;
	if (!words) {
		snprintf(err, errlen, "out of memory");
		return STEER_ERR_NOMEM;
	}
	steer_status rc = call_words(&c->body.call, words, argv, &argc, err, errlen);
	if (rc == STEER_OK)
		rc = steer_cmd_parse(cmd, argc, argv, err, errlen);
	free(words);
	return rc;
}

steer_status steer_wire_command_words(const steer_Command *c, steer_strbuf *line)
{
	char err[64];
	char *argv[STEER_CMD_MAX_WORDS];
	int argc = 0;
	steer_status rc;
	if (c->which_body == steer_Command_line_tag) {
		size_t n = strlen(c->body.line);
		char *copy = malloc(n + 1);
		if (!copy)
			return STEER_ERR_NOMEM;
		memcpy(copy, c->body.line, n + 1);
		rc = steer_cmd_split(copy, argv, STEER_CMD_MAX_WORDS, &argc);
		if (rc == STEER_OK)
			steer_journal_join(line, argc, argv);
		free(copy);
		return rc;
	}
	if (c->which_body != steer_Command_call_tag)
		return STEER_ERR_INVALID;
	call_word *words = malloc((1 + CALL_ARGS) * sizeof *words);
	if (!words)
		return STEER_ERR_NOMEM;
	rc = call_words(&c->body.call, words, argv, &argc, err, sizeof err);
	if (rc == STEER_OK)
		steer_journal_join(line, argc, argv);
	free(words);
	return rc;
}

steer_status steer_wire_to_view(const steer_Viewport *v, steer_view *out, char *err, size_t errlen)
{
	if (v->clear) {
		out->set = false;
		return STEER_OK;
	}
	if (!steer_view_rect_ok(v->x0, v->y0, v->x1, v->y1)) {
		snprintf(err, errlen, "viewport needs x1 > x0 and y1 > y0, each within +-%g",
		         STEER_VIEW_COORD_MAX);
		return STEER_ERR_INVALID;
	}
	out->set = true;
	out->x0 = v->x0;
	out->y0 = v->y0;
	out->x1 = v->x1;
	out->y1 = v->y1;
	return STEER_OK;
}

steer_status steer_wire_version_ok(uint32_t version, const char *peer, char *err, size_t errlen)
{
	if (version == STEER_PROTOCOL_VERSION)
		return STEER_OK;
	const char *self = strcmp(peer, "client") ? "client" : "server";
	snprintf(err, errlen,
	         "the %s speaks protocol version %u and this %s version %d; use a client of the "
	         "same release as the server",
	         peer, (unsigned)version, self, STEER_PROTOCOL_VERSION);
	return STEER_ERR_INVALID;
}

/* --- client side ---------------------------------------------------------------- */

steer_status steer_wire_hello(steer_strbuf *out, const char *client_name)
{
	return steer_wire_hello_token(out, client_name, NULL);
}

steer_status steer_wire_hello_token(steer_strbuf *out, const char *client_name, const char *token)
{
	steer_ClientMessage m = steer_ClientMessage_init_zero;
	m.which_msg = steer_ClientMessage_hello_tag;
	m.msg.hello.protocol_version = STEER_PROTOCOL_VERSION;
	snprintf(m.msg.hello.client, sizeof m.msg.hello.client, "%s", client_name);
	if (token && strlen(token) >= sizeof m.msg.hello.token)
		return STEER_ERR_INVALID;
	if (token)
		snprintf(m.msg.hello.token, sizeof m.msg.hello.token, "%s", token);
	return steer_wire_encode_frame(out, steer_ClientMessage_fields, &m);
}

steer_status steer_wire_command_line(steer_strbuf *out, uint32_t request_id, const char *line)
{
	static steer_ClientMessage m; /* 20 KiB: too big for a comfortable stack frame */
	memset(&m, 0, sizeof m);
	if (strlen(line) >= sizeof m.msg.command.body.line)
		return STEER_ERR_INVALID;
	m.which_msg = steer_ClientMessage_command_tag;
	m.msg.command.request_id = request_id;
	m.msg.command.which_body = steer_Command_line_tag;
	snprintf(m.msg.command.body.line, sizeof m.msg.command.body.line, "%s", line);
	return steer_wire_encode_frame(out, steer_ClientMessage_fields, &m);
}

steer_status steer_wire_viewport(steer_strbuf *out, const steer_view *view)
{
	return steer_wire_viewport_ex(out, view, NULL);
}

steer_status steer_wire_viewport_ex(steer_strbuf *out, const steer_view *view,
                                    const steer_compact_req *req)
{
	steer_ClientMessage m = steer_ClientMessage_init_zero;
	m.which_msg = steer_ClientMessage_viewport_tag;
	m.msg.viewport.clear = !view->set;
	m.msg.viewport.x0 = view->x0;
	m.msg.viewport.y0 = view->y0;
	m.msg.viewport.x1 = view->x1;
	m.msg.viewport.y1 = view->y1;
	if (req && req->on) {
		m.msg.viewport.compact = true;
		m.msg.viewport.cols = req->cols;
		m.msg.viewport.rows = req->rows;
		m.msg.viewport.density = (steer_Density)req->density;
		m.msg.viewport.pick = req->pick;
	}
	return steer_wire_encode_frame(out, steer_ClientMessage_fields, &m);
}

void steer_snapshot_free(steer_snapshot *s)
{
	for (size_t k = 0; k < s->routes_cap; k++) {
		free(s->routes[k].path_x);
		free(s->routes[k].path_y);
	}
	free(s->routes);
	free(s->v);
	free(s->obstacles);
	free(s->cells);
	steer_snap_geometry_free(&s->geometry);
	memset(s, 0, sizeof *s);
}

/* Decoding packed columns: each value lands in vehicle slot k, counting per column;
 * the snapshot's count is the longest column (they are all equal from a sane
 * server; a short column leaves zeros rather than reading out of bounds). */
typedef struct col_dec {
	steer_snapshot *snap;
	size_t n;
	size_t offset; /* offsetof the field in steer_snap_vehicle */
	bool is_float;
} col_dec;

static bool dec_column(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	col_dec *c = *arg;
	steer_snapshot *snap = c->snap;
	if (c->n >= 10000000)
		PB_RETURN_ERROR(s, "too many vehicles");
	if (c->n >= snap->count) { /* the first column to reach slot n: it starts at zero */
		if (steer_reserve((void **)&snap->v, &snap->cap, c->n + 1, sizeof *snap->v) !=
		    STEER_OK)
			PB_RETURN_ERROR(s, "out of memory");
		memset(&snap->v[c->n], 0, sizeof *snap->v);
	}
	char *slot = (char *)&snap->v[c->n] + c->offset;
	if (c->is_float) {
		float v;
		if (!pb_decode_fixed32(s, &v))
			return false;
		memcpy(slot, &v, sizeof v);
	} else {
		uint32_t v;
		if (!pb_decode_varint32(s, &v))
			return false;
		memcpy(slot, &v, sizeof v);
	}
	c->n++;
	if (c->n > snap->count)
		snap->count = c->n;
	return true;
}

static bool dec_string(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_strbuf *b = *arg;
	char chunk[256];
	while (s->bytes_left) {
		size_t k = s->bytes_left < sizeof chunk ? s->bytes_left : sizeof chunk;
		if (!pb_read(s, (pb_byte_t *)chunk, k))
			return false;
		steer_strbuf_put(b, chunk, k);
	}
	return !b->oom;
}

static bool decode_snapshot(pb_istream_t *s, steer_snapshot *snap)
{
	snap->count = snap->nobstacles = snap->nroutes = 0;
	steer_Snapshot m = steer_Snapshot_init_zero;
#define COL(field, is_f)                                                                           \
	col_dec c_##field = {snap, 0, offsetof(steer_snap_vehicle, field), is_f};                  \
	m.field.funcs.decode = dec_column;                                                         \
	m.field.arg = &c_##field
	COL(id, false);
	COL(group, false);
	COL(behaviors, false);
	COL(x, true);
	COL(y, true);
	COL(vx, true);
	COL(vy, true);
	COL(fx, true);
	COL(fy, true);
#undef COL
	m.obstacles.funcs.decode = steer_wire_dec_obstacle;
	m.obstacles.arg = snap;
	m.routes.funcs.decode = steer_wire_dec_route;
	m.routes.arg = snap;
	if (!pb_decode(s, steer_Snapshot_fields, &m))
		return false;
	steer_wire_header_get(snap, &m.header);
	snap->has_view = m.has_view;
	snap->view.set = m.has_view;
	snap->view.x0 = m.view.x0;
	snap->view.y0 = m.view.y0;
	snap->view.x1 = m.view.x1;
	snap->view.y1 = m.view.y1;
	snap->avoid_distance_max = m.avoid_distance_max;
	return true;
}

steer_status steer_wire_decode_server(const uint8_t *msg, size_t len, steer_server_msg *out,
                                      steer_snapshot *snap, char *err, size_t errlen)
{
	return steer_wire_decode_stream(msg, len, out, snap, NULL, err, errlen);
}

/* One member of the ServerMessage oneof, from its substream. */
static steer_status decode_member(uint32_t tag, pb_istream_t *sub, steer_server_msg *out,
                                  steer_snapshot *snap, steer_compact_state *cs, char *err,
                                  size_t errlen)
{
	bool ok;
	if (tag == steer_ServerMessage_geometry_tag) {
		out->snapshot = snap;
		return steer_wire_decode_geometry(sub, &snap->geometry, err, errlen);
	}
	if (tag == steer_ServerMessage_density_tag) {
		out->snapshot = snap;
		return steer_wire_decode_density(sub, snap, err, errlen);
	}
	if (tag == steer_ServerMessage_compact_tag || tag == steer_ServerMessage_snapshot_tag)
		snap->density = false;
	if (tag == steer_ServerMessage_compact_tag) {
		if (!cs) {
			snprintf(err, errlen, "a compact snapshot, which this decoder cannot read");
			return STEER_ERR_INVALID;
		}
		out->snapshot = snap;
		return steer_wire_decode_compact(sub, snap, cs, err, errlen);
	}
	if (tag == steer_ServerMessage_welcome_tag) {
		memset(&out->welcome, 0, sizeof out->welcome);
		ok = pb_decode(sub, steer_Welcome_fields, &out->welcome);
	} else if (tag == steer_ServerMessage_snapshot_tag) {
		ok = decode_snapshot(sub, snap);
		out->snapshot = snap;
	} else if (tag == steer_ServerMessage_notice_tag) {
		steer_Notice n = steer_Notice_init_zero;
		ok = pb_decode(sub, steer_Notice_fields, &n);
		snprintf(out->notice, sizeof out->notice, "%s", n.text);
	} else {
		steer_Reply r = steer_Reply_init_zero;
		steer_strbuf_clear(&out->json);
		r.json.funcs.decode = dec_string;
		r.json.arg = &out->json;
		ok = pb_decode(sub, steer_Reply_fields, &r);
		out->request_id = r.request_id;
		out->ok = r.ok;
		snprintf(out->error, sizeof out->error, "%s", r.error);
	}
	if (!ok) {
		snprintf(err, errlen, "malformed ServerMessage: %s", PB_GET_ERROR(sub));
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

steer_status steer_wire_decode_stream(const uint8_t *msg, size_t len, steer_server_msg *out,
                                      steer_snapshot *snap, steer_compact_state *cs, char *err,
                                      size_t errlen)
{
	/* The oneof's members carry callbacks, which nanopb cannot set up inside a union
	 * before it knows the member: read the outer tag here and decode the member. */
	pb_istream_t s = pb_istream_from_buffer(msg, len);
	pb_wire_type_t wt;
	uint32_t tag;
	bool eof;
	out->kind = 0;
	out->compact = false;
	while (pb_decode_tag(&s, &wt, &tag, &eof)) {
		if (wt != PB_WT_STRING || tag < 1 || tag > steer_ServerMessage_geometry_tag) {
			if (!pb_skip_field(&s, wt))
				break;
			continue;
		}
		pb_istream_t sub;
		if (!pb_make_string_substream(&s, &sub))
			break;
		steer_status st = decode_member(tag, &sub, out, snap, cs, err, errlen);
		if (st != STEER_OK) {
			pb_close_string_substream(&s, &sub);
			return st;
		}
		if (!pb_close_string_substream(&s, &sub))
			break;
		out->compact = tag == steer_ServerMessage_compact_tag ||
		               tag == steer_ServerMessage_density_tag;
		out->kind = out->compact ? STEER_MSG_SNAPSHOT : (steer_server_msg_kind)tag;
	}
	if (!eof) {
		snprintf(err, errlen, "malformed ServerMessage: %s", PB_GET_ERROR(&s));
		return STEER_ERR_INVALID;
	}
	if (!out->kind) {
		snprintf(err, errlen, "empty ServerMessage");
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}
