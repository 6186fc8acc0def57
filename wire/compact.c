/* CompactSnapshot: a view's vehicles quantized to what the client's screen can show
 * and delta-coded against the last frame the client holds. docs/PROTOCOL.md is the
 * specification of the bytes; this file is its only implementation, both ways.
 *
 * Every blob is a run of varints (or single bytes) read front to back; a decoder
 * checks each length against the bytes left and each value against its range, so
 * a hostile frame can fail but never read or write out of bounds. */
#include <math.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "reserve.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/wire.h"
#include "wire_priv.h"

/* Id edit operations of a delta's ids blob, in the low two bits of each op varint. */
enum { OP_KEEP = 0, OP_DROP = 1, OP_ADD = 2 };
/* A column blob's first byte. */
enum { COL_DENSE = 0, COL_SPARSE = 1 };
/* The most vehicles one frame may carry: bounds what a decoder allocates. */
#define MAX_VEHICLES 10000000u

/* --- coding of values ---------------------------------------------------------------- */

static uint32_t to_u32(int64_t v)
{
	return (uint32_t)(uint64_t)v;
}

static int64_t from_u32(uint32_t v)
{
	return v & 0x80000000u ? (int64_t)v - 4294967296LL : (int64_t)v;
}

/* Bit k of x goes to bit 2k: interleaving two small numbers keeps the result small,
 * so a position change of a few quanta on both axes is one byte. */
static uint64_t spread(uint32_t x)
{
	uint64_t v = x;
	v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
	v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
	v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
	v = (v | (v << 2)) & 0x3333333333333333ull;
	v = (v | (v << 1)) & 0x5555555555555555ull;
	return v;
}

static uint32_t gather(uint64_t v)
{
	v &= 0x5555555555555555ull;
	v = (v | (v >> 1)) & 0x3333333333333333ull;
	v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0Full;
	v = (v | (v >> 4)) & 0x00FF00FF00FF00FFull;
	v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
	v = (v | (v >> 16)) & 0x00000000FFFFFFFFull;
	return (uint32_t)v;
}

/* --- frames ------------------------------------------------------------------------- */

void steer_compact_frame_init(steer_compact_frame *f)
{
	memset(f, 0, sizeof *f);
}

void steer_compact_frame_free(steer_compact_frame *f)
{
	free(f->id);
	free(f->idx);
	free(f->qx);
	free(f->qy);
	free(f->heading);
	free(f->speed);
	free(f->group);
	free(f->behaviors);
	steer_compact_frame_init(f);
}

/* Grows the k arrays p[0..k) (elements of sz[0..k)), which share the capacity *cap,
 * to hold n each: steer_reserve on each from the same capacity grows them alike.
 * Arrays already grown stay owned, and big enough, when a later one fails. */
static bool reserve_columns(void **const p[], const size_t sz[], int k, size_t *cap, size_t n)
{
	size_t ncap = *cap;
	for (int i = 0; i < k; i++) {
		ncap = *cap;
		if (steer_reserve(p[i], &ncap, n, sz[i]) != STEER_OK)
			return false;
	}
	*cap = ncap;
	return true;
}

/* Room for n vehicles. */
static bool frame_reserve(steer_compact_frame *f, size_t n)
{
	void **const p[] = {(void **)&f->id,    (void **)&f->idx,      (void **)&f->qx,
	                    (void **)&f->qy,    (void **)&f->heading,  (void **)&f->speed,
	                    (void **)&f->group, (void **)&f->behaviors};
	const size_t sz[] = {sizeof *f->id,    sizeof *f->idx,      sizeof *f->qx,
	                     sizeof *f->qy,    sizeof *f->heading,  sizeof *f->speed,
	                     sizeof *f->group, sizeof *f->behaviors};
	return reserve_columns(p, sz, 8, &f->cap, n);
}

static double quantum(double extent, uint32_t cells)
{
	return extent / ((double)cells * STEER_COMPACT_SUB);
}

/* v in quanta (inv = 1 / quantum), rounded half up, clamped to the sendable range. */
static int32_t quantize(double v, double inv)
{
	double t = floor(v * inv + 0.5);
	if (!(t >= -STEER_COMPACT_MAX_Q)) /* NaN too */
		return -STEER_COMPACT_MAX_Q;
	return t > STEER_COMPACT_MAX_Q ? STEER_COMPACT_MAX_Q : (int32_t)t;
}

static uint8_t heading_byte(double vx, double vy, double hx, double hy)
{
	return vx != 0 || vy != 0 ? steer_wire_direction_byte(vx, vy)
	                          : steer_wire_direction_byte(hx, hy);
}

/* A moving vehicle never rounds to zero speed: "still" is drawn differently. */
static uint32_t speed_q(double vx, double vy)
{
	double speed = sqrt(vx * vx + vy * vy);
	if (!(speed > 0))
		return 0;
	double q = floor(speed * (1.0 / STEER_COMPACT_SPEED_Q) + 0.5);
	if (q < 1)
		return 1;
	return q > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}

steer_status steer_compact_frame_build(steer_compact_frame *f, const steer_world *w,
                                       const steer_view *view, uint32_t cols, uint32_t rows,
                                       const uint32_t *idx, size_t n, uint64_t seq)
{
	if (!frame_reserve(f, n))
		return STEER_ERR_NOMEM;
	double ix = 1 / quantum(view->x1 - view->x0, cols);
	double iy = 1 / quantum(view->y1 - view->y0, rows);
	/* Local copies of both structs: the compiler can then keep their array pointers
	 * in registers instead of reloading them after every store (which might alias). */
	const steer_vehicles v = *steer_world_vehicles(w);
	steer_compact_frame d = *f;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		if (k && v.id[i] <= d.id[k - 1]) {
			f->count = 0;
			return STEER_ERR_INVALID;
		}
		d.id[k] = v.id[i];
		d.idx[k] = i;
		d.qx[k] = quantize(v.px[i] - view->x0, ix);
		d.qy[k] = quantize(v.py[i] - view->y0, iy);
		/* A vehicle shown with a smoothed heading has extras: the common case
		 * tests one array. */
		steer_vec2 sh;
		d.heading[k] =
		    v.extra[i] != STEER_NO_EXTRA && steer_vehicle_display_heading(w, i, &sh)
		        ? steer_wire_direction_byte(sh.x, sh.y)
		        : heading_byte(v.vx[i], v.vy[i], v.hx[i], v.hy[i]);
		d.speed[k] = speed_q(v.vx[i], v.vy[i]);
		d.group[k] = v.group[i];
		d.behaviors[k] = v.behaviors[i];
	}
	f->seq = seq;
	f->tick = steer_world_tick(w);
	f->view = *view;
	f->cols = cols;
	f->rows = rows;
	f->count = n;
	return STEER_OK;
}

bool steer_compact_compatible(const steer_compact_frame *a, const steer_compact_frame *b)
{
	return a->cols == b->cols && a->rows == b->rows && a->view.x0 == b->view.x0 &&
	       a->view.y0 == b->view.y0 && a->view.x1 == b->view.x1 && a->view.y1 == b->view.y1;
}

void steer_compact_scratch_init(steer_compact_scratch *sc)
{
	memset(sc, 0, sizeof *sc);
}

void steer_compact_scratch_free(steer_compact_scratch *sc)
{
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		steer_blob_free(&sc->blob[k]);
	free(sc->src);
	free(sc->delta);
	steer_compact_scratch_init(sc);
}

static bool scratch_reserve(steer_compact_scratch *sc, size_t n)
{
	void **const p[] = {(void **)&sc->src, (void **)&sc->delta};
	const size_t sz[] = {sizeof *sc->src, sizeof *sc->delta};
	return reserve_columns(p, sz, 2, &sc->cap, n);
}

/* --- columns: the values of one attribute, coded against each vehicle's prior ------ */

/* A vehicle's prior is its value in the base when it was there, else the value of the
 * vehicle before it in this frame (0 for the first): a flock sharing a group or a
 * speed then costs nothing even in a key frame. delta[k] is the change from the
 * prior, modulo 2^32 (2^8 for byte columns). */
static void deltas_u32(uint32_t *delta, const uint32_t *cur, const uint32_t *base_col,
                       const int32_t *src, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t prior = src[k] >= 0 ? base_col[src[k]] : k ? cur[k - 1] : 0;
		delta[k] = cur[k] - prior;
	}
}

static void deltas_u8(uint32_t *delta, const uint8_t *cur, const uint8_t *base_col,
                      const int32_t *src, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint8_t prior = src[k] >= 0 ? base_col[src[k]] : k ? cur[k - 1] : 0;
		delta[k] = (uint8_t)(cur[k] - prior);
	}
}

static size_t value_size(uint32_t d, bool byte)
{
	return byte ? 1 : steer_varint_size(steer_zigzag32(d));
}

static void put_value(steer_blob *b, uint32_t d, bool byte)
{
	if (byte)
		steer_blob_put_byte(b, (uint8_t)d);
	else
		steer_blob_put_varint(b, steer_zigzag32(d));
}

/* Empty when nothing changed; else dense (every delta) or sparse (skip, delta pairs
 * for the changed ones), whichever is shorter. */
static void put_column(steer_blob *b, const uint32_t *delta, size_t n, bool byte)
{
	size_t dense = 1, sparse = 1, changed = 0, skip = 0;
	for (size_t k = 0; k < n; k++) {
		size_t sz = value_size(delta[k], byte);
		dense += sz;
		if (delta[k]) {
			sparse += steer_varint_size(skip) + sz;
			changed++;
			skip = 0;
		} else {
			skip++;
		}
	}
	if (!changed)
		return;
	if (dense <= sparse) {
		steer_blob_put_byte(b, COL_DENSE);
		for (size_t k = 0; k < n; k++)
			put_value(b, delta[k], byte);
		return;
	}
	steer_blob_put_byte(b, COL_SPARSE);
	skip = 0;
	for (size_t k = 0; k < n; k++) {
		if (!delta[k]) {
			skip++;
			continue;
		}
		steer_blob_put_varint(b, skip);
		put_value(b, delta[k], byte);
		skip = 0;
	}
}

static bool get_value(steer_reader *r, uint32_t *d, bool byte)
{
	if (byte) {
		uint8_t v;
		if (!steer_read_byte(r, &v))
			return false;
		*d = v;
		return true;
	}
	uint32_t z;
	if (!steer_read_varint32(r, &z))
		return false;
	*d = steer_unzigzag32(z);
	return true;
}

/* Reads a column's deltas for n vehicles; false when the blob is malformed. */
static bool get_column(const steer_blob *b, uint32_t *delta, size_t n, bool byte)
{
	if (n) /* an empty view has no scratch at all: memset(NULL, 0, 0) is undefined */
		memset(delta, 0, n * sizeof *delta);
	steer_reader r = {b->data, b->len, 0};
	uint8_t mode;
	if (!steer_read_byte(&r, &mode))
		return true; /* empty: every value is its prior */
	if (mode == COL_DENSE) {
		for (size_t k = 0; k < n; k++)
			if (!get_value(&r, &delta[k], byte))
				return false;
		return r.pos == r.len;
	}
	if (mode != COL_SPARSE)
		return false;
	size_t k = 0;
	while (r.pos < r.len) {
		uint64_t skip;
		if (!steer_read_varint(&r, &skip) || skip >= n - k ||
		    !get_value(&r, &delta[k + skip], byte))
			return false;
		k += (size_t)skip + 1;
	}
	return true;
}

static void apply_u32(uint32_t *cur, const uint32_t *delta, const uint32_t *base_col,
                      const int32_t *src, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t prior = src[k] >= 0 ? base_col[src[k]] : k ? cur[k - 1] : 0;
		cur[k] = prior + delta[k];
	}
}

static void apply_u8(uint8_t *cur, const uint32_t *delta, const uint8_t *base_col,
                     const int32_t *src, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint8_t prior = src[k] >= 0 ? base_col[src[k]] : k ? cur[k - 1] : 0;
		cur[k] = (uint8_t)(prior + delta[k]);
	}
}

/* --- encoding ------------------------------------------------------------------------ */

/* The ids run that ends the current op: flushed when the op changes. */
typedef struct id_run {
	int op;
	size_t len;
	size_t start; /* OP_ADD: first index in the new frame */
} id_run;

static void flush_run(steer_blob *b, const steer_compact_frame *f, id_run *run)
{
	if (!run->len)
		return;
	steer_blob_put_varint(b, ((uint64_t)run->len << 2) | (uint64_t)run->op);
	if (run->op == OP_ADD) {
		uint32_t prev = run->start ? f->id[run->start - 1] : 0;
		for (size_t k = run->start; k < run->start + run->len; k++) {
			steer_blob_put_varint(b, f->id[k] - prev);
			prev = f->id[k];
		}
	}
	run->len = 0;
}

static void extend_run(steer_blob *b, const steer_compact_frame *f, id_run *run, int op, size_t at)
{
	if (run->len && run->op != op)
		flush_run(b, f, run);
	if (!run->len) {
		run->op = op;
		run->start = at;
	}
	run->len++;
}

/* Key: the ids as ascending gaps. Delta: keep / drop / add runs that turn the base's
 * list into this one, the final keep left implicit (an unchanged set costs nothing).
 * Fills src with each vehicle's base slot. */
static void encode_ids(steer_blob *b, int32_t *src, const steer_compact_frame *f,
                       const steer_compact_frame *base)
{
	if (!base) {
		uint32_t prev = 0;
		for (size_t k = 0; k < f->count; k++) {
			steer_blob_put_varint(b, f->id[k] - prev);
			prev = f->id[k];
			src[k] = -1;
		}
		return;
	}
	id_run run = {OP_KEEP, 0, 0};
	size_t i = 0;
	for (size_t k = 0; k < f->count; k++) {
		while (i < base->count && base->id[i] < f->id[k]) {
			extend_run(b, f, &run, OP_DROP, k);
			i++;
		}
		if (i < base->count && base->id[i] == f->id[k]) {
			extend_run(b, f, &run, OP_KEEP, k);
			src[k] = (int32_t)i++;
		} else {
			extend_run(b, f, &run, OP_ADD, k);
			src[k] = -1;
		}
	}
	for (; i < base->count; i++)
		extend_run(b, f, &run, OP_DROP, f->count);
	if (run.op != OP_KEEP)
		flush_run(b, f, &run);
}

static void encode_pos(steer_blob *b, const int32_t *src, const steer_compact_frame *f,
                       const steer_compact_frame *base)
{
	for (size_t k = 0; k < f->count; k++) {
		int64_t dx = f->qx[k], dy = f->qy[k];
		if (src[k] >= 0) {
			dx -= base->qx[src[k]];
			dy -= base->qy[src[k]];
		}
		steer_blob_put_varint(b, spread(steer_zigzag32(to_u32(dx))) |
		                             spread(steer_zigzag32(to_u32(dy))) << 1);
	}
}

static void encode_columns(steer_compact_scratch *sc, const steer_compact_frame *f,
                           const steer_compact_frame *base)
{
	/* With no base every src is -1, so base columns are never read. */
	const steer_compact_frame *b = base ? base : f;
	deltas_u8(sc->delta, f->heading, b->heading, sc->src, f->count);
	put_column(&sc->blob[STEER_BLOB_HEADING], sc->delta, f->count, true);
	deltas_u32(sc->delta, f->speed, b->speed, sc->src, f->count);
	put_column(&sc->blob[STEER_BLOB_SPEED], sc->delta, f->count, false);
	deltas_u32(sc->delta, f->group, b->group, sc->src, f->count);
	put_column(&sc->blob[STEER_BLOB_GROUP], sc->delta, f->count, false);
	deltas_u32(sc->delta, f->behaviors, b->behaviors, sc->src, f->count);
	put_column(&sc->blob[STEER_BLOB_BEHAVIORS], sc->delta, f->count, false);
}

steer_status steer_wire_compact(steer_strbuf *out, steer_compact_scratch *sc, const steer_world *w,
                                bool paused, const steer_compact_frame *f,
                                const steer_compact_frame *base)
{
	if (base && !steer_compact_compatible(f, base))
		base = NULL;
	if (!scratch_reserve(sc, f->count))
		return STEER_ERR_NOMEM;
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		steer_blob_clear(&sc->blob[k]);
	encode_ids(&sc->blob[STEER_BLOB_IDS], sc->src, f, base);
	encode_pos(&sc->blob[STEER_BLOB_POS], sc->src, f, base);
	encode_columns(sc, f, base);
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		if (sc->blob[k].oom)
			return STEER_ERR_NOMEM;

	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_compact_tag;
	steer_CompactSnapshot *c = &m.msg.compact;
	c->has_header = true;
	c->header = steer_wire_header(w, paused);
	c->has_view = true;
	c->view = steer_wire_rect(&f->view);
	c->cols = f->cols;
	c->rows = f->rows;
	c->seq = f->seq;
	c->base_seq = base ? base->seq : 0;
	c->count = (uint32_t)f->count;
	pb_callback_t *blobs[STEER_BLOB_COUNT] = {&c->ids,   &c->pos,   &c->heading,
	                                          &c->speed, &c->group, &c->behaviors};
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		*blobs[k] = (pb_callback_t){{.encode = steer_wire_enc_blob}, &sc->blob[k]};
	steer_wire_obstacle_list obs = steer_wire_obstacles_in(w, &f->view);
	c->obstacles = (pb_callback_t){{.encode = steer_wire_enc_obstacles}, &obs};
	steer_wire_route_list routes = {w, f->idx, f->count};
	c->routes = (pb_callback_t){{.encode = steer_wire_enc_routes}, &routes};
	c->avoid_distance_max = (float)steer_wire_feeler(w, f->idx, f->count);
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

/* --- decoding ------------------------------------------------------------------------ */

void steer_compact_state_init(steer_compact_state *cs)
{
	memset(cs, 0, sizeof *cs);
	for (int k = 0; k < 256; k++) {
		cs->cos[k] = cos(k * (STEER_TAU / 256.0));
		cs->sin[k] = sin(k * (STEER_TAU / 256.0));
	}
}

void steer_compact_state_reset(steer_compact_state *cs)
{
	cs->have_base = false;
	cs->base.count = 0;
	cs->base.seq = 0;
}

void steer_compact_state_free(steer_compact_state *cs)
{
	steer_compact_frame_free(&cs->base);
	steer_compact_frame_free(&cs->next);
	steer_compact_scratch_free(&cs->scratch);
	cs->have_base = false;
}

/* The reason a decode gives when memory ran out: told apart from a malformed frame by
 * its address, so that steer_wire_decode_compact returns NOMEM for it. */
static const char out_of_memory[] = "out of memory";

/* Adds n vehicles to the frame being decoded, growing it; src[k] for each is set by
 * the caller. */
static bool next_room(steer_compact_state *cs, size_t n)
{
	return frame_reserve(&cs->next, n) && scratch_reserve(&cs->scratch, n);
}

static bool fail(const char **why, const char *msg)
{
	*why = msg;
	return false;
}

/* Rebuilds next's id list (and the scratch src) from the ids blob. */
static bool decode_ids(steer_compact_state *cs, const steer_compact_frame *base, size_t count,
                       const char **why)
{
	steer_compact_frame *f = &cs->next;
	const steer_blob *b = &cs->scratch.blob[STEER_BLOB_IDS];
	steer_reader r = {b->data, b->len, 0};
	size_t n = 0, i = 0;
	uint32_t prev = 0;
	/* Every vehicle is one kept base slot or one byte of the blob at least. */
	size_t bound = (base ? base->count : 0) + b->len;
	if (count > bound || count > MAX_VEHICLES)
		return fail(why, "more vehicles than the ids account for");
	if (!next_room(cs, count))
		return fail(why, out_of_memory);
	while (r.pos < r.len) {
		uint64_t op, len;
		if (base) {
			if (!steer_read_varint(&r, &op) || op >> 2 == 0 || (op & 3) > OP_ADD)
				return fail(why, "bad id edit");
			len = op >> 2;
			op &= 3;
		} else {
			op = OP_ADD;
			len = 1;
		}
		if (op != OP_ADD && len > base->count - i)
			return fail(why, "id edit past the base's list");
		if (op == OP_DROP) {
			i += (size_t)len;
			continue;
		}
		if (len > count - n)
			return fail(why, "more ids than the count");
		for (uint64_t k = 0; k < len; k++, n++) {
			uint32_t id, gap = 0;
			if (op == OP_KEEP) {
				id = base->id[i];
				cs->scratch.src[n] = (int32_t)i++;
			} else {
				if (!steer_read_varint32(&r, &gap) || gap == 0 ||
				    gap > UINT32_MAX - prev)
					return fail(why, "bad id gap");
				id = prev + gap;
				cs->scratch.src[n] = -1;
			}
			if (n && id <= prev)
				return fail(why, "ids not ascending");
			f->id[n] = prev = id;
		}
	}
	/* The final keep is implicit in a delta. */
	if (base && base->count - i > count - n)
		return fail(why, "more ids than the count");
	for (; base && i < base->count; i++, n++) {
		if (n && base->id[i] <= prev)
			return fail(why, "ids not ascending");
		f->id[n] = prev = base->id[i];
		cs->scratch.src[n] = (int32_t)i;
	}
	if (n != count)
		return fail(why, "fewer ids than the count");
	f->count = n;
	return true;
}

static bool decode_pos(steer_compact_state *cs, const steer_compact_frame *base)
{
	steer_compact_frame *f = &cs->next;
	const steer_blob *b = &cs->scratch.blob[STEER_BLOB_POS];
	steer_reader r = {b->data, b->len, 0};
	for (size_t k = 0; k < f->count; k++) {
		uint64_t v;
		if (!steer_read_varint(&r, &v))
			return false;
		int64_t x = from_u32(steer_unzigzag32(gather(v))),
		        y = from_u32(steer_unzigzag32(gather(v >> 1)));
		int32_t s = cs->scratch.src[k];
		if (s >= 0) {
			x += base->qx[s];
			y += base->qy[s];
		}
		if (x < -STEER_COMPACT_MAX_Q || x > STEER_COMPACT_MAX_Q ||
		    y < -STEER_COMPACT_MAX_Q || y > STEER_COMPACT_MAX_Q)
			return false;
		f->qx[k] = (int32_t)x;
		f->qy[k] = (int32_t)y;
	}
	return r.pos == r.len;
}

static bool decode_columns(steer_compact_state *cs, const steer_compact_frame *base)
{
	steer_compact_frame *f = &cs->next;
	steer_compact_scratch *sc = &cs->scratch;
	const steer_compact_frame *b = base ? base : f; /* read only through src >= 0 */
	size_t n = f->count;
	if (!get_column(&sc->blob[STEER_BLOB_HEADING], sc->delta, n, true))
		return false;
	apply_u8(f->heading, sc->delta, b->heading, sc->src, n);
	if (!get_column(&sc->blob[STEER_BLOB_SPEED], sc->delta, n, false))
		return false;
	apply_u32(f->speed, sc->delta, b->speed, sc->src, n);
	if (!get_column(&sc->blob[STEER_BLOB_GROUP], sc->delta, n, false))
		return false;
	apply_u32(f->group, sc->delta, b->group, sc->src, n);
	if (!get_column(&sc->blob[STEER_BLOB_BEHAVIORS], sc->delta, n, false))
		return false;
	apply_u32(f->behaviors, sc->delta, b->behaviors, sc->src, n);
	return true;
}

/* The frame's header as the decoder needs it, and whether a delta fits the base. */
static const char *check_header(const steer_CompactSnapshot *m, const steer_compact_state *cs)
{
	const steer_Rect *v = &m->view;
	if (!m->has_view || !steer_view_rect_ok(v->x0, v->y0, v->x1, v->y1))
		return "compact snapshot without a valid view";
	if (m->cols < 1 || m->cols > STEER_COMPACT_MAX_CELLS || m->rows < 1 ||
	    m->rows > STEER_COMPACT_MAX_CELLS)
		return "compact snapshot with a precision out of range";
	if (m->seq == 0)
		return "compact snapshot without a sequence number";
	if (m->base_seq == 0)
		return NULL;
	if (!cs->have_base || cs->base.seq != m->base_seq)
		return "compact delta against a frame this client does not hold";
	const steer_view *b = &cs->base.view;
	if (b->x0 != v->x0 || b->y0 != v->y0 || b->x1 != v->x1 || b->y1 != v->y1 ||
	    cs->base.cols != m->cols || cs->base.rows != m->rows)
		return "compact delta with a view other than its base's";
	return NULL;
}

/* next -> snap's vehicles: dequantized, velocity from heading and speed. */
static bool fill_snapshot(const steer_compact_state *cs, const steer_compact_frame *f,
                          steer_snapshot *snap)
{
	if (steer_reserve((void **)&snap->v, &snap->cap, f->count, sizeof *snap->v) != STEER_OK)
		return false;
	double qx = quantum(f->view.x1 - f->view.x0, f->cols);
	double qy = quantum(f->view.y1 - f->view.y0, f->rows);
	for (size_t k = 0; k < f->count; k++) {
		steer_snap_vehicle *d = &snap->v[k];
		double speed = f->speed[k] * STEER_COMPACT_SPEED_Q;
		d->id = f->id[k];
		d->group = f->group[k];
		d->behaviors = f->behaviors[k];
		d->x = (float)(f->view.x0 + f->qx[k] * qx);
		d->y = (float)(f->view.y0 + f->qy[k] * qy);
		d->vx = (float)(speed * cs->cos[f->heading[k]]);
		d->vy = (float)(speed * cs->sin[f->heading[k]]);
		d->fx = d->fy = 0;
	}
	snap->count = f->count;
	return true;
}

static void fill_header(const steer_CompactSnapshot *m, steer_snapshot *snap)
{
	steer_wire_header_get(snap, &m->header);
	snap->has_view = true;
	snap->view = (steer_view){true, m->view.x0, m->view.y0, m->view.x1, m->view.y1};
	snap->avoid_distance_max = m->avoid_distance_max;
}

/* Decodes the blobs against the base into next, then makes next the base. */
static const char *apply_frame(const steer_CompactSnapshot *m, steer_compact_state *cs,
                               steer_snapshot *snap)
{
	const char *why = check_header(m, cs);
	if (why)
		return why;
	const steer_compact_frame *base = m->base_seq ? &cs->base : NULL;
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		if (cs->scratch.blob[k].oom)
			return out_of_memory;
	if (!decode_ids(cs, base, m->count, &why))
		return why;
	if (!decode_pos(cs, base))
		return "malformed positions";
	if (!decode_columns(cs, base))
		return "malformed column";
	steer_compact_frame *f = &cs->next;
	f->seq = m->seq;
	f->tick = m->header.tick;
	f->view = (steer_view){true, m->view.x0, m->view.y0, m->view.x1, m->view.y1};
	f->cols = m->cols;
	f->rows = m->rows;
	if (!fill_snapshot(cs, f, snap))
		return out_of_memory;
	fill_header(m, snap);
	steer_compact_frame t = cs->base;
	cs->base = cs->next;
	cs->next = t;
	cs->have_base = true;
	return NULL;
}

steer_status steer_wire_decode_compact(pb_istream_t *s, steer_snapshot *snap,
                                       steer_compact_state *cs, char *err, size_t errlen)
{
	snap->count = snap->nobstacles = snap->nroutes = 0;
	steer_compact_scratch *sc = &cs->scratch;
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		steer_blob_clear(&sc->blob[k]);
	steer_CompactSnapshot m = steer_CompactSnapshot_init_zero;
	pb_callback_t *blobs[STEER_BLOB_COUNT] = {&m.ids,   &m.pos,   &m.heading,
	                                          &m.speed, &m.group, &m.behaviors};
	for (int k = 0; k < STEER_BLOB_COUNT; k++)
		*blobs[k] = (pb_callback_t){{.decode = steer_wire_dec_blob}, &sc->blob[k]};
	m.obstacles = (pb_callback_t){{.decode = steer_wire_dec_obstacle}, snap};
	m.routes = (pb_callback_t){{.decode = steer_wire_dec_route}, snap};
	if (!pb_decode(s, steer_CompactSnapshot_fields, &m)) {
		snprintf(err, errlen, "malformed ServerMessage: %s", PB_GET_ERROR(s));
		return STEER_ERR_INVALID;
	}
	const char *why = apply_frame(&m, cs, snap);
	if (why == out_of_memory) {
		snap->count = 0;
		snprintf(err, errlen, "out of memory decoding a compact snapshot");
		return STEER_ERR_NOMEM;
	}
	if (why) {
		snap->count = 0;
		snprintf(err, errlen, "malformed compact snapshot: %s", why);
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

/* --- the request ---------------------------------------------------------------------- */

bool steer_compact_req_same(const steer_compact_req *a, const steer_compact_req *b)
{
	return a->on == b->on &&
	       (!a->on || (a->cols == b->cols && a->rows == b->rows && a->density == b->density));
}

steer_status steer_wire_to_compact(const steer_Viewport *v, steer_compact_req *out, char *err,
                                   size_t errlen)
{
	if (!v->compact) {
		*out = (steer_compact_req){false, 0, 0, STEER_DENSITY_AUTO, 0};
		return STEER_OK;
	}
	if (v->density < steer_Density_DENSITY_AUTO || v->density > steer_Density_DENSITY_NEVER) {
		snprintf(err, errlen, "unknown density mode %d (0 auto, 1 always, 2 never)",
		         (int)v->density);
		return STEER_ERR_INVALID;
	}
	if (v->clear) {
		snprintf(err, errlen, "compact snapshots need a viewport rectangle");
		return STEER_ERR_INVALID;
	}
	if (v->cols < 1 || v->cols > STEER_COMPACT_MAX_CELLS || v->rows < 1 ||
	    v->rows > STEER_COMPACT_MAX_CELLS) {
		snprintf(err, errlen, "compact viewport needs cols and rows in 1..%u",
		         STEER_COMPACT_MAX_CELLS);
		return STEER_ERR_INVALID;
	}
	/* The farthest vehicle sent is a margin outside the view: its quantized offset
	 * must stay in range on both axes. */
	steer_view view = {true, v->x0, v->y0, v->x1, v->y1};
	double reach = v->x1 - v->x0 + v->y1 - v->y0 + 2 * steer_view_margin(&view);
	if (!(reach / quantum(v->x1 - v->x0, v->cols) < STEER_COMPACT_MAX_Q) ||
	    !(reach / quantum(v->y1 - v->y0, v->rows) < STEER_COMPACT_MAX_Q)) {
		snprintf(err, errlen, "viewport too narrow for compact positions");
		return STEER_ERR_INVALID;
	}
	*out = (steer_compact_req){true, v->cols, v->rows, (steer_density_mode)v->density, v->pick};
	return STEER_OK;
}
