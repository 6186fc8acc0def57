/* Compact snapshots and interest management: frames encoded as the server does,
 * decoded by a client's decoder holding its own state, and compared with the world
 * they came from; malformed frames that must fail without harm; the spatial index
 * against a plain scan. */
#include <math.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "interest.h"
#include "scenario.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/wire.h"
#include "testutil.h"

/* A flock of n boids spread over a wrap world, as the flock scenario makes them. */
static steer_world *flock_world(double w, double h, int n, uint64_t seed)
{
	steer_world *world = make_world(w, h, STEER_EDGE_WRAP, seed);
	/* The codec's figures are judged on the flock's own motion, as before the solid
	 * rule: its pushes make a few velocities less regular to encode. */
	steer_world_set_solid(world, false);
	steer_params p = steer_flock_params();
	steer_rng *rng = steer_world_rng(world);
	for (int k = 0; k < n; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double x = steer_rng_range(rng, 0, w), y = steer_rng_range(rng, 0, h);
		uint32_t id =
		    add_vehicle(world, x, y, cos(a) * p.max_speed, sin(a) * p.max_speed, &p);
		if (steer_vehicle_enable(world, id, STEER_FLOCK, true) != STEER_OK)
			abort();
	}
	return world;
}

/* --- the server's half: index, frames, encoder ------------------------------------ */

typedef struct server_side {
	steer_interest ix;
	uint32_t *idx;
	size_t cap, n;
	steer_compact_scratch sc;
	steer_strbuf out; /* the last encoded frame, delimited */
	uint64_t seq;
} server_side;

static void server_init(server_side *s)
{
	memset(s, 0, sizeof *s);
	steer_interest_init(&s->ix);
	steer_compact_scratch_init(&s->sc);
	steer_strbuf_init(&s->out);
}

static void server_free(server_side *s)
{
	steer_interest_free(&s->ix);
	free(s->idx);
	steer_compact_scratch_free(&s->sc);
	steer_strbuf_free(&s->out);
}

/* Quantizes the world's view into f under a new sequence number. */
static void build(server_side *s, const steer_world *w, const steer_view *view, uint32_t cols,
                  uint32_t rows, steer_compact_frame *f)
{
	CHECK(steer_interest_build(&s->ix, w) == 0, "index");
	CHECK(steer_interest_collect(&s->ix, w, view, STEER_ORDER_ID, &s->idx, &s->cap, &s->n) == 0,
	      "collect");
	CHECK(steer_compact_frame_build(f, w, view, cols, rows, s->idx, s->n, ++s->seq) == STEER_OK,
	      "frame");
}

static void encode(server_side *s, const steer_world *w, const steer_compact_frame *f,
                   const steer_compact_frame *base)
{
	steer_strbuf_clear(&s->out);
	CHECK(steer_wire_compact(&s->out, &s->sc, w, false, f, base) == STEER_OK, "encode");
}

/* The message of a delimited frame: its body and length. */
static const uint8_t *body(const steer_strbuf *out, size_t *len)
{
	const uint8_t *p = (const uint8_t *)out->data;
	uint64_t n = 0;
	int i = steer_varint_decode(p, out->len, STEER_FRAME_PREFIX_MAX, &n);
	*len = i > 0 ? (size_t)n : 0;
	return p + (i > 0 ? i : 0);
}

/* The header of an encoded compact frame, read by nanopb with the blobs skipped. */
static steer_CompactSnapshot header_of(const steer_strbuf *out)
{
	size_t len;
	const uint8_t *msg = body(out, &len);
	steer_CompactSnapshot m = steer_CompactSnapshot_init_zero;
	pb_istream_t s = pb_istream_from_buffer(msg, len);
	pb_wire_type_t wt;
	uint32_t tag;
	bool eof;
	while (pb_decode_tag(&s, &wt, &tag, &eof)) {
		if (tag != steer_ServerMessage_compact_tag) {
			pb_skip_field(&s, wt);
			continue;
		}
		pb_istream_t sub;
		if (pb_make_string_substream(&s, &sub)) {
			CHECK(pb_decode(&sub, steer_CompactSnapshot_fields, &m), "header");
			pb_close_string_substream(&s, &sub);
		}
	}
	return m;
}

/* --- the client's half ---------------------------------------------------------------- */

typedef struct client_side {
	steer_compact_state cs;
	steer_snapshot snap;
	steer_server_msg m;
	char err[160];
} client_side;

static void client_init(client_side *c)
{
	memset(c, 0, sizeof *c);
	steer_compact_state_init(&c->cs);
	steer_strbuf_init(&c->m.json);
}

static void client_free(client_side *c)
{
	steer_compact_state_free(&c->cs);
	steer_snapshot_free(&c->snap);
	steer_strbuf_free(&c->m.json);
}

static bool client_decode(client_side *c, const uint8_t *msg, size_t len)
{
	c->err[0] = '\0';
	return steer_wire_decode_stream(msg, len, &c->m, &c->snap, &c->cs, c->err, sizeof c->err) ==
	       STEER_OK;
}

static bool client_receive(client_side *c, const steer_strbuf *out)
{
	size_t len;
	const uint8_t *msg = body(out, &len);
	bool ok = client_decode(c, msg, len);
	CHECK(!ok || (c->m.kind == STEER_MSG_SNAPSHOT && c->m.compact), "kind %d", c->m.kind);
	return ok;
}

static double angle_diff(double a, double b)
{
	double d = fmod(a - b, STEER_TAU);
	if (d > STEER_TAU / 2)
		d -= STEER_TAU;
	if (d < -STEER_TAU / 2)
		d += STEER_TAU;
	return fabs(d);
}

/* The decoded snapshot holds exactly the vehicles the server chose, each within the
 * promised precision of the world's values. Returns the failures found. */
static int check_matches(const steer_world *w, const server_side *s, const steer_snapshot *snap,
                         const steer_view *view, uint32_t cols, uint32_t rows)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double qx = (view->x1 - view->x0) / (cols * (double)STEER_COMPACT_SUB);
	double qy = (view->y1 - view->y0) / (rows * (double)STEER_COMPACT_SUB);
	int bad = 0;
	CHECK(snap->count == s->n, "count %zu, server chose %zu", snap->count, s->n);
	if (snap->count != s->n)
		return 1;
	for (size_t k = 0; k < s->n && bad < 5; k++) {
		size_t i = s->idx[k];
		const steer_snap_vehicle *d = &snap->v[k];
		double speed = hypot(v->vx[i], v->vy[i]), got = hypot(d->vx, d->vy);
		bool ok =
		    d->id == v->id[i] && d->group == v->group[i] &&
		    d->behaviors == v->behaviors[i] && fabs(d->x - v->px[i]) <= qx / 2 + 1e-3 &&
		    fabs(d->y - v->py[i]) <= qy / 2 + 1e-3 &&
		    fabs(got - speed) <= STEER_COMPACT_SPEED_Q &&
		    (speed < 1e-9 ||
		     angle_diff(atan2(d->vy, d->vx), atan2(v->vy[i], v->vx[i])) <= STEER_TAU / 256);
		CHECK(ok,
		      "vehicle %zu: id %u/%u at (%g,%g) for (%g,%g), speed %g for %g, heading %g "
		      "for %g",
		      k, d->id, v->id[i], d->x, d->y, v->px[i], v->py[i], got, speed,
		      atan2(d->vy, d->vx), atan2(v->vy[i], v->vx[i]));
		bad += !ok;
	}
	return bad;
}

/* --- round trips ------------------------------------------------------------------------ */

/* A 120 x 30 cell map over the middle of a 2400 x 1200 flock world of ~10 neighbours
 * per boid: a key frame, then 300 deltas at 20 Hz, each checked against the world. */
static void key_and_delta_round_trip(void)
{
	steer_world *w = flock_world(2400, 1200, 900, 11);
	steer_view view = {true, 600, 300, 1800, 900};
	server_side s;
	client_side c;
	server_init(&s);
	client_init(&c);
	steer_compact_frame frames[2];
	steer_compact_frame_init(&frames[0]);
	steer_compact_frame_init(&frames[1]);
	steer_compact_frame *base = NULL;
	size_t delta_bytes = 0, delta_vehicles = 0, key_bytes = 0;
	int bad = 0;
	for (int t = 0; t < 300 && bad == 0; t++) {
		steer_compact_frame *f = &frames[t & 1];
		build(&s, w, &view, 120, 30, f);
		encode(&s, w, f, base);
		steer_CompactSnapshot h = header_of(&s.out);
		CHECK(h.seq == f->seq && h.base_seq == (base ? base->seq : 0) && h.count == s.n,
		      "frame %d: seq %llu base %llu", t, (unsigned long long)h.seq,
		      (unsigned long long)h.base_seq);
		CHECK(client_receive(&c, &s.out), "frame %d: %s", t, c.err);
		bad += check_matches(w, &s, &c.snap, &view, 120, 30);
		CHECK(c.snap.has_view && c.snap.view.x1 == 1800 && c.snap.total_vehicles == 900,
		      "header");
		if (base) {
			delta_bytes += s.out.len;
			delta_vehicles += s.n;
		} else {
			key_bytes = s.out.len;
		}
		base = f;
		step(w, 3);
	}
	double per = (double)delta_bytes / (double)delta_vehicles;
	printf("     %zu vehicles in view: key frame %.2f B/vehicle, deltas %.2f B/vehicle\n", s.n,
	       (double)key_bytes / (double)s.n, per);
	CHECK(per <= 4.0, "deltas cost %.2f bytes per visible vehicle", per);
	CHECK(key_bytes < 8 * s.n, "key frame of %zu bytes for %zu vehicles", key_bytes, s.n);
	steer_compact_frame_free(&frames[0]);
	steer_compact_frame_free(&frames[1]);
	client_free(&c);
	server_free(&s);
	steer_world_destroy(w);
}

/* Vehicles spawned into the view, removed from it, teleported out and back, a change
 * of group and behaviours: each delta's id edits and columns carry them. */
static void vehicles_enter_and_leave(void)
{
	steer_world *w = flock_world(1000, 600, 150, 5);
	steer_view view = {true, 200, 100, 700, 350};
	server_side s;
	client_side c;
	server_init(&s);
	client_init(&c);
	steer_compact_frame frames[2];
	steer_compact_frame_init(&frames[0]);
	steer_compact_frame_init(&frames[1]);
	steer_compact_frame *base = NULL;
	uint32_t spawned[8];
	int ndeltas_with_ids = 0;
	for (int t = 0; t < 12; t++) {
		steer_compact_frame *f = &frames[t & 1];
		build(&s, w, &view, 50, 12, f);
		encode(&s, w, f, base);
		if (base && s.sc.blob[STEER_BLOB_IDS].len)
			ndeltas_with_ids++;
		CHECK(client_receive(&c, &s.out), "frame %d: %s", t, c.err);
		check_matches(w, &s, &c.snap, &view, 50, 12);
		base = f;
		const steer_vehicles *v = steer_world_vehicles(w);
		if (t == 1)
			for (int k = 0; k < 8; k++)
				spawned[k] = add_vehicle(w, 250 + 50 * k, 200, 0, 0, NULL);
		if (t == 3)
			for (int k = 0; k < 8; k += 2)
				steer_remove(w, spawned[k]);
		if (t == 5)
			steer_vehicle_set_position(w, spawned[1], v2(900, 500));
		if (t == 7)
			steer_vehicle_set_position(w, spawned[1], v2(300, 300));
		if (t == 8) {
			steer_params p = steer_params_default();
			p.group = 4;
			steer_vehicle_set_params(w, spawned[3], &p);
			steer_vehicle_enable(w, spawned[5], STEER_WANDER | STEER_AVOID, true);
		}
		if (t == 9) /* every vehicle leaves the view */
			for (size_t i = 0; i < v->count; i++)
				steer_vehicle_set_position(w, v->id[i], v2(950, 550));
		step(w, 1);
	}
	CHECK(c.snap.count == 0, "an empty view holds %zu", c.snap.count);
	CHECK(ndeltas_with_ids >= 4, "only %d deltas edited the ids", ndeltas_with_ids);
	steer_compact_frame_free(&frames[0]);
	steer_compact_frame_free(&frames[1]);
	client_free(&c);
	server_free(&s);
	steer_world_destroy(w);
}

/* Under backpressure the server drops a frame it never wrote: the next one is a delta
 * against what the client really holds. A delta against the dropped frame is refused
 * and leaves the client's state alone. */
static void skipped_snapshot(void)
{
	steer_world *w = flock_world(1000, 600, 150, 9);
	steer_view view = {true, 0, 0, 1000, 600};
	server_side s;
	client_side c;
	server_init(&s);
	client_init(&c);
	steer_compact_frame f[6];
	for (int k = 0; k < 6; k++)
		steer_compact_frame_init(&f[k]);
	build(&s, w, &view, 100, 30, &f[0]);
	encode(&s, w, &f[0], NULL);
	CHECK(client_receive(&c, &s.out), "key: %s", c.err);
	step(w, 3);
	build(&s, w, &view, 100, 30, &f[1]);
	encode(&s, w, &f[1], &f[0]);
	CHECK(client_receive(&c, &s.out), "delta 1: %s", c.err);
	step(w, 3);
	build(&s, w, &view, 100, 30, &f[2]); /* encoded, replaced, never written */
	encode(&s, w, &f[2], &f[1]);
	step(w, 3);
	build(&s, w, &view, 100, 30, &f[3]);
	encode(&s, w, &f[3], &f[1]);
	CHECK(client_receive(&c, &s.out), "delta on the written base: %s", c.err);
	check_matches(w, &s, &c.snap, &view, 100, 30);
	CHECK(c.cs.base.seq == f[3].seq, "client holds %llu", (unsigned long long)c.cs.base.seq);

	step(w, 3);
	build(&s, w, &view, 100, 30, &f[4]);
	encode(&s, w, &f[4], &f[2]);
	CHECK(!client_receive(&c, &s.out) && strstr(c.err, "does not hold"),
	      "a delta against an unseen frame decoded (%s)", c.err);
	CHECK(c.cs.have_base && c.cs.base.seq == f[3].seq, "state changed by a refused frame");
	build(&s, w, &view, 100, 30, &f[5]);
	encode(&s, w, &f[5], &f[3]);
	CHECK(client_receive(&c, &s.out), "after a refusal: %s", c.err);
	check_matches(w, &s, &c.snap, &view, 100, 30);
	for (int k = 0; k < 6; k++)
		steer_compact_frame_free(&f[k]);
	client_free(&c);
	server_free(&s);
	steer_world_destroy(w);
}

/* A new rectangle or precision cannot build on the old frame: the encoder falls back to
 * a key frame, and a client that lost its state takes key frames only. */
static void viewport_change_forces_key(void)
{
	steer_world *w = flock_world(1000, 600, 150, 3);
	steer_view a = {true, 0, 0, 500, 300}, b = {true, 100, 0, 600, 300};
	server_side s;
	client_side c;
	server_init(&s);
	client_init(&c);
	steer_compact_frame f[4];
	for (int k = 0; k < 4; k++)
		steer_compact_frame_init(&f[k]);
	build(&s, w, &a, 50, 15, &f[0]);
	encode(&s, w, &f[0], NULL);
	CHECK(client_receive(&c, &s.out), "key: %s", c.err);
	build(&s, w, &b, 50, 15, &f[1]);
	CHECK(!steer_compact_compatible(&f[1], &f[0]), "views differ");
	encode(&s, w, &f[1], &f[0]);
	CHECK(header_of(&s.out).base_seq == 0, "a new view got a delta");
	CHECK(client_receive(&c, &s.out), "new view: %s", c.err);
	check_matches(w, &s, &c.snap, &b, 50, 15);
	CHECK(c.snap.view.x0 == 100, "view not taken");
	build(&s, w, &b, 80, 15, &f[2]);
	encode(&s, w, &f[2], &f[1]);
	CHECK(header_of(&s.out).base_seq == 0, "a new precision got a delta");
	CHECK(client_receive(&c, &s.out), "new precision: %s", c.err);
	check_matches(w, &s, &c.snap, &b, 80, 15);

	steer_compact_state_reset(&c.cs); /* a reconnection */
	build(&s, w, &b, 80, 15, &f[3]);
	encode(&s, w, &f[3], &f[2]);
	CHECK(!client_receive(&c, &s.out), "a delta decoded without a base");
	encode(&s, w, &f[3], NULL);
	CHECK(client_receive(&c, &s.out), "key after reset: %s", c.err);
	check_matches(w, &s, &c.snap, &b, 80, 15);
	for (int k = 0; k < 4; k++)
		steer_compact_frame_free(&f[k]);
	client_free(&c);
	server_free(&s);
	steer_world_destroy(w);
}

/* --- malformed frames ---------------------------------------------------------------- */

/* What the client holds, to see that a refused frame changed nothing. */
typedef struct held {
	bool have;
	uint64_t seq;
	size_t count;
	uint32_t first, last;
} held;

static held held_of(const steer_compact_state *cs)
{
	held h = {cs->have_base, cs->base.seq, cs->base.count, 0, 0};
	if (cs->base.count) {
		h.first = cs->base.id[0] ^ (uint32_t)cs->base.qx[0];
		h.last =
		    cs->base.id[cs->base.count - 1] ^ (uint32_t)cs->base.qy[cs->base.count - 1];
	}
	return h;
}

static bool same_held(held a, held b)
{
	return a.have == b.have && a.seq == b.seq && a.count == b.count && a.first == b.first &&
	       a.last == b.last;
}

/* Truncations and bit flips of a real key + delta pair, and random bytes: each either
 * decodes or is refused with the state as it was; never a crash (run under ASan). */
static void garbage_rejected(void)
{
	steer_world *w = flock_world(1000, 600, 150, 21);
	steer_view view = {true, 100, 100, 900, 500};
	server_side s;
	server_init(&s);
	steer_compact_frame f0, f1;
	steer_compact_frame_init(&f0);
	steer_compact_frame_init(&f1);
	build(&s, w, &view, 80, 20, &f0);
	encode(&s, w, &f0, NULL);
	steer_strbuf key;
	steer_strbuf_init(&key);
	steer_strbuf_put(&key, s.out.data, s.out.len);
	step(w, 3);
	add_vehicle(w, 500, 300, 1, 1, NULL);
	build(&s, w, &view, 80, 20, &f1);
	encode(&s, w, &f1, &f0);
	size_t klen, dlen;
	const uint8_t *kmsg = body(&key, &klen), *dmsg = body(&s.out, &dlen);
	uint8_t *buf = malloc(dlen + klen);

	client_side c;
	client_init(&c);
	CHECK(client_decode(&c, kmsg, klen), "key: %s", c.err);
	held before = held_of(&c.cs);
	/* Cut anywhere: the CompactSnapshot is one length-delimited field of the
	 * ServerMessage, so any cut leaves it short of its length and is refused. */
	for (size_t n = 0; n < dlen; n++) {
		memcpy(buf, dmsg, n);
		CHECK(!client_decode(&c, buf, n), "cut at %zu of %zu decoded", n, dlen);
		CHECK(same_held(held_of(&c.cs), before), "cut at %zu changed the state", n);
	}
	CHECK(client_decode(&c, dmsg, dlen), "the whole delta: %s", c.err);
	steer_compact_state_reset(&c.cs);
	CHECK(client_decode(&c, kmsg, klen), "key again");

	/* Every byte flipped three ways, each against a fresh copy of the key's state. */
	uint8_t flips[] = {0x01, 0x80, 0xff};
	for (size_t n = 0; n < dlen; n++)
		for (int k = 0; k < 3; k++) {
			memcpy(buf, dmsg, dlen);
			buf[n] ^= flips[k];
			held h = held_of(&c.cs);
			if (!client_decode(&c, buf, dlen)) {
				CHECK(same_held(held_of(&c.cs), h), "flip at %zu changed the state",
				      n);
			} else {
				steer_compact_state_reset(&c.cs);
				CHECK(client_decode(&c, kmsg, klen), "key again");
			}
		}

	/* Random bytes, with and without a plausible frame prefix. */
	steer_rng rng;
	steer_rng_seed(&rng, 99, 1);
	for (int t = 0; t < 2000; t++) {
		size_t n = steer_rng_u32(&rng) % (dlen < 300 ? dlen : 300);
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)steer_rng_u32(&rng);
		if (t & 1 && n > 2) {
			buf[0] = 0x22; /* field 4, length-delimited: a CompactSnapshot */
			buf[1] = (uint8_t)(n - 2 < 127 ? n - 2 : 127);
		}
		held h = held_of(&c.cs);
		if (!client_decode(&c, buf, n))
			CHECK(same_held(held_of(&c.cs), h), "random frame %d changed the state", t);
	}
	/* The plain decoder has no state to decode against. */
	CHECK(steer_wire_decode_server(kmsg, klen, &c.m, &c.snap, c.err, sizeof c.err) !=
	              STEER_OK &&
	          strstr(c.err, "compact"),
	      "plain decoder took a compact frame");

	free(buf);
	steer_strbuf_free(&key);
	steer_compact_frame_free(&f0);
	steer_compact_frame_free(&f1);
	client_free(&c);
	server_free(&s);
	steer_world_destroy(w);
}

/* Hand-made frames: one property broken at a time. */
typedef struct bytes {
	const uint8_t *p;
	size_t n;
} bytes;

typedef struct craft {
	uint64_t seq, base_seq;
	uint32_t count, cols, rows;
	double x1;
	bytes blob[STEER_BLOB_COUNT];
} craft;

static bool enc_bytes(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const bytes *b = *arg;
	return !b->n || (pb_encode_tag_for_field(s, f) && pb_encode_string(s, b->p, b->n));
}

static size_t craft_encode(const craft *k, uint8_t *out, size_t cap)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_compact_tag;
	steer_CompactSnapshot *c = &m.msg.compact;
	c->has_view = true;
	c->view = (steer_Rect){0, 0, k->x1, 100};
	c->cols = k->cols;
	c->rows = k->rows;
	c->seq = k->seq;
	c->base_seq = k->base_seq;
	c->count = k->count;
	pb_callback_t *blobs[STEER_BLOB_COUNT] = {&c->ids,   &c->pos,   &c->heading,
	                                          &c->speed, &c->group, &c->behaviors};
	for (int b = 0; b < STEER_BLOB_COUNT; b++)
		*blobs[b] = (pb_callback_t){{.encode = enc_bytes}, (void *)&k->blob[b]};
	pb_ostream_t s = pb_ostream_from_buffer(out, cap);
	CHECK(pb_encode(&s, steer_ServerMessage_fields, &m), "craft");
	return s.bytes_written;
}

#define B(...) ((bytes){(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})})

static bool craft_decode(client_side *c, const craft *k)
{
	uint8_t buf[512];
	return client_decode(c, buf, craft_encode(k, buf, sizeof buf));
}

static void crafted_frames_rejected(void)
{
	client_side c;
	client_init(&c);
	/* A good key frame: ids 5 and 10 at the origin; columns empty (all zero). */
	craft good = {1, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0)}};
	CHECK(craft_decode(&c, &good), "good key: %s", c.err);
	CHECK(c.snap.count == 2 && c.snap.v[1].id == 10 && c.snap.v[0].x == 0, "good key decoded");
	held h = held_of(&c.cs);
	bytes far = B(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
	bytes endless = B(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	craft bad[] = {
	    {2, 7, 2, 10, 10, 100, {{0}}},                       /* delta on an unknown base */
	    {0, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0)}},          /* no seq */
	    {2, 0, 2, 0, 10, 100, {B(5, 5), B(0, 0)}},           /* no precision */
	    {2, 0, 2, 5000, 10, 100, {B(5, 5), B(0, 0)}},        /* too fine */
	    {2, 0, 2, 10, 10, NAN, {B(5, 5), B(0, 0)}},          /* view not finite */
	    {2, 0, 2, 10, 10, -1, {B(5, 5), B(0, 0)}},           /* view empty */
	    {2, 0, 2, 10, 10, 2e13, {B(5, 5), B(0, 0)}},         /* view too far */
	    {2, 0, 2, 10, 10, 100, {B(5, 0), B(0, 0)}},          /* gap 0 */
	    {2, 0, 3, 10, 10, 100, {B(5, 5), B(0, 0)}},          /* fewer ids than count */
	    {2, 0, 1, 10, 10, 100, {B(5, 5), B(0)}},             /* more ids than count */
	    {2, 0, 4000000000u, 10, 10, 100, {B(5), B(0)}},      /* a count no blob backs */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0)}},             /* positions short */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0, 0)}},       /* positions long */
	    {2, 0, 1, 10, 10, 100, {B(5), far}},                 /* a position out of range */
	    {2, 0, 1, 10, 10, 100, {B(5), endless}},             /* an 11-byte varint */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0), B(7)}},    /* unknown column mode */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0), B(0, 1)}}, /* dense short */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0), B(0, 1, 2, 3)}},   /* dense long */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0), {0}, B(1, 2, 4)}}, /* sparse past end */
	    {2, 0, 2, 10, 10, 100, {B(5, 5), B(0, 0), {0}, B(1, 0, 2, 0, 2, 0, 2)}}, /* idem */
	    {2, 1, 3, 10, 10, 100, {B(3 << 2 | 0), B(0, 0, 0)}},     /* keep more than the base */
	    {2, 1, 2, 10, 10, 100, {B(1 << 2 | 3), B(0, 0)}},        /* op kind 3 */
	    {2, 1, 2, 10, 10, 100, {B(0 << 2 | 0), B(0, 0)}},        /* op of length 0 */
	    {2, 1, 3, 10, 10, 100, {B(1 << 2 | 2, 20), B(0, 0, 0)}}, /* add 20, keep 5, 10 */
	    {2, 1, 1, 10, 10, 100, {B(3 << 2 | 1), B(0)}},           /* drop more than the base */
	    {2, 1, 2, 20, 10, 100, {{0}, B(0, 0)}}, /* delta at another precision */
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		CHECK(!craft_decode(&c, &bad[k]), "bad frame %zu decoded", k);
		CHECK(same_held(held_of(&c.cs), h), "bad frame %zu changed the state", k);
	}
	/* The same id set as the base (an empty ids blob); headings sparse (mode 1):
	 * vehicle 1 turns a quarter and moves a quantum down. */
	craft same = {2, 1, 2, 10, 10, 100, {{0}, B(0, 8), B(1, 1, 64)}};
	CHECK(craft_decode(&c, &same), "same set: %s", c.err);
	CHECK(c.snap.count == 2 && c.snap.v[0].id == 5 && c.snap.v[1].id == 10 &&
	          c.snap.v[1].y > 0 && c.snap.v[0].y == 0,
	      "same set decoded wrong");
	client_free(&c);
}

/* --- interest management ------------------------------------------------------------- */

/* Collected through the index = a scan of every vehicle, in either order, for views
 * inside, across and outside the bounds of a none world with vehicles outside it. */
static void interest_matches_scan(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 4);
	steer_rng *rng = steer_world_rng(w);
	for (int k = 0; k < 3000; k++)
		add_vehicle(w, steer_rng_range(rng, -800, 1800), steer_rng_range(rng, -500, 1100),
		            0, 0, NULL);
	for (int k = 0; k < 500; k += 3) /* shuffle index order against id order */
		steer_remove(w, (uint32_t)k + 1);
	steer_interest ix;
	steer_interest_init(&ix);
	CHECK(steer_interest_build(&ix, w) == 0, "build");
	const steer_vehicles *v = steer_world_vehicles(w);
	uint32_t *got = NULL, *want = malloc(v->count * sizeof *want);
	size_t cap = 0, n = 0;
	for (int t = 0; t < 300; t++) {
		double x0 = steer_rng_range(rng, -1500, 2000),
		       y0 = steer_rng_range(rng, -1000, 1500);
		double wd = steer_rng_range(rng, 0.5, t % 10 ? 400 : 4000);
		steer_view view = {t != 0, x0, y0, x0 + wd, y0 + wd * steer_rng_range(rng, 0.2, 2)};
		double m = view.set ? steer_view_margin(&view) : 0;
		size_t nw = 0;
		for (size_t i = 0; i < v->count; i++)
			if (steer_view_contains(&view, v->px[i], v->py[i], m))
				want[nw++] = (uint32_t)i;
		CHECK(steer_interest_collect(&ix, w, &view, STEER_ORDER_INDEX, &got, &cap, &n) == 0,
		      "collect");
		CHECK(n == nw && !memcmp(got, want, n * sizeof *got), "view %d: %zu, scan %zu", t,
		      n, nw);
		CHECK(steer_interest_collect(&ix, w, &view, STEER_ORDER_ID, &got, &cap, &n) == 0,
		      "collect by id");
		bool ascending = true;
		for (size_t k = 1; k < n; k++)
			ascending = ascending && v->id[got[k]] > v->id[got[k - 1]];
		qsort(got, n, sizeof *got, cmp_u32);
		CHECK(ascending && n == nw && !memcmp(got, want, n * sizeof *got),
		      "view %d by id: %zu, scan %zu", t, n, nw);
	}
	/* A stale index (vehicles removed since) is not trusted: collect scans. */
	steer_remove(w, v->id[0]);
	steer_view all = {true, -5000, -5000, 5000, 5000};
	CHECK(steer_interest_collect(&ix, w, &all, STEER_ORDER_INDEX, &got, &cap, &n) == 0 &&
	          n == v->count,
	      "stale index: %zu of %zu", n, v->count);
	free(got);
	free(want);
	steer_interest_free(&ix);
	steer_world_destroy(w);
}

/* The plain snapshot of the collected vehicles is the one the scan always sent. */
static void plain_snapshot_unchanged(void)
{
	steer_world *w = flock_world(2400, 1200, 900, 8);
	step(w, 5);
	steer_view view = {true, 300, 200, 1300, 700};
	steer_interest ix;
	steer_interest_init(&ix);
	steer_interest_build(&ix, w);
	uint32_t *idx = NULL, *scratch = NULL;
	size_t cap = 0, scap = 0, n = 0;
	CHECK(steer_interest_collect(&ix, w, &view, STEER_ORDER_INDEX, &idx, &cap, &n) == 0,
	      "collect");
	steer_strbuf a, b;
	steer_strbuf_init(&a);
	steer_strbuf_init(&b);
	CHECK(steer_wire_snapshot_of(&a, w, false, &view, idx, n) == STEER_OK, "indexed");
	CHECK(steer_wire_snapshot(&b, w, false, &view, &scratch, &scap) == STEER_OK, "scanned");
	CHECK(n > 100 && a.len == b.len && !memcmp(a.data, b.data, a.len), "%zu vehicles differ",
	      n);
	steer_strbuf_free(&a);
	steer_strbuf_free(&b);
	free(idx);
	free(scratch);
	steer_interest_free(&ix);
	steer_world_destroy(w);
}

static void compact_request_checked(void)
{
	char err[160];
	steer_compact_req r;
	steer_Viewport v = steer_Viewport_init_zero;
	v.x1 = 100;
	v.y1 = 50;
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_OK && !r.on, "plain");
	v.compact = true;
	v.cols = 200;
	v.rows = 50;
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_OK && r.on && r.cols == 200,
	      "%s", err);
	v.cols = 0;
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_ERR_INVALID, "no columns");
	v.cols = STEER_COMPACT_MAX_CELLS + 1;
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_ERR_INVALID,
	      "too many columns");
	v.cols = 200;
	v.clear = true;
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_ERR_INVALID,
	      "compact without a rectangle");
	v.clear = false;
	v.x1 = 1e-9; /* a sliver: 50 units tall, its margin a million quanta wide */
	CHECK(steer_wire_to_compact(&v, &r, err, sizeof err) == STEER_ERR_INVALID,
	      "a sliver accepted");
	/* A corner so far out that origin + offset, decoded, overflows a float (found by
	 * fuzz_client_message): every view is refused past +-STEER_VIEW_COORD_MAX. */
	steer_view sv;
	steer_Viewport far = {.x0 = -4.98e58, .y0 = -4.98e58, .x1 = 3.9e8, .y1 = 6000};
	CHECK(steer_wire_to_view(&far, &sv, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "within"),
	      "a view from -5e58 accepted");
	far = (steer_Viewport){
	    .x0 = -STEER_VIEW_COORD_MAX, .y0 = 0, .x1 = STEER_VIEW_COORD_MAX, .y1 = 1};
	CHECK(steer_wire_to_view(&far, &sv, err, sizeof err) == STEER_OK,
	      "the widest view refused: %s", err);
	far.x1 = NAN;
	CHECK(steer_wire_to_view(&far, &sv, err, sizeof err) == STEER_ERR_INVALID,
	      "a NaN corner accepted");
	/* and the request survives the client's encoder and the server's decoder */
	steer_strbuf out;
	steer_strbuf_init(&out);
	steer_view view = {true, 1, 2, 3, 4};
	steer_compact_req req = {true, 120, 38, STEER_DENSITY_NEVER, 77};
	CHECK(steer_wire_viewport_ex(&out, &view, &req) == STEER_OK, "encode");
	size_t len;
	const uint8_t *msg = body(&out, &len);
	static steer_ClientMessage m;
	CHECK(steer_wire_decode_client(msg, len, &m, err, sizeof err) == STEER_OK, "decode");
	CHECK(steer_wire_to_compact(&m.msg.viewport, &r, err, sizeof err) == STEER_OK && r.on &&
	          r.cols == 120 && r.rows == 38 && r.pick == 77,
	      "request lost");
	CHECK(r.density == STEER_DENSITY_NEVER, "density mode lost");
	steer_strbuf_free(&out);
}

int main(void)
{
	RUN(key_and_delta_round_trip);
	RUN(vehicles_enter_and_leave);
	RUN(skipped_snapshot);
	RUN(viewport_change_forces_key);
	RUN(garbage_rejected);
	RUN(crafted_frames_rejected);
	RUN(interest_matches_scan);
	RUN(plain_snapshot_unchanged);
	RUN(compact_request_checked);
	return CHECK_DONE();
}
