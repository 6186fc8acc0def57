/* The wire format: framing, and encode/decode round trips through nanopb. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/wire.h"
#include "testutil.h"

static void framer_splits_any_chunking(void)
{
	steer_strbuf stream;
	steer_strbuf_init(&stream);
	/* Frames of several sizes, including empty and multi-byte length prefixes. */
	size_t sizes[] = {0, 1, 127, 128, 300, 16383, 16384, 19999};
	char *body = malloc(20000);
	for (size_t k = 0; k < 20000; k++)
		body[k] = (char)(k * 7);
	for (size_t k = 0; k < 8; k++)
		steer_frame_put(&stream, (const uint8_t *)body, sizes[k]);
	size_t chunks[] = {1, 3, 1000, 65536};
	for (size_t c = 0; c < 4; c++) {
		steer_framer f;
		steer_framer_init(&f, STEER_MAX_CLIENT_FRAME);
		size_t got = 0, off = 0;
		char err[128];
		while (off < stream.len) {
			size_t n = stream.len - off < chunks[c] ? stream.len - off : chunks[c];
			size_t took = steer_framer_feed(&f, (const uint8_t *)stream.data + off, n);
			off += took;
			const uint8_t *msg;
			size_t len;
			steer_status rc;
			while ((rc = steer_framer_next(&f, &msg, &len, err, sizeof err)) ==
			           STEER_OK &&
			       msg) {
				CHECK(len == sizes[got] && !memcmp(msg, body, len),
				      "frame %zu differs", got);
				got++;
			}
			CHECK(rc == STEER_OK, "framer error: %s", err);
		}
		CHECK(got == 8, "chunk %zu: got %zu frames", chunks[c], got);
		steer_framer_free(&f);
	}
	free(body);
	steer_strbuf_free(&stream);
}

static void framer_rejects_bad_lengths(void)
{
	char err[128];
	const uint8_t *msg;
	size_t len;
	steer_framer f;
	steer_framer_init(&f, 100);
	uint8_t big[] = {0xe5, 0x01}; /* 229 > 100 */
	steer_framer_feed(&f, big, sizeof big);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "exceeds"),
	      "oversized frame accepted");
	steer_framer_free(&f);
	steer_framer_init(&f, 100);
	uint8_t endless[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
	steer_framer_feed(&f, endless, sizeof endless);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_ERR_INVALID,
	      "endless varint accepted");
	steer_framer_free(&f);
}

/* Part of a frame is "need more bytes": STEER_OK with no message, never a stale one. */
static void framer_waits_for_the_rest(void)
{
	char err[128] = "";
	const uint8_t *msg = (const uint8_t *)err;
	size_t len = 99;
	steer_framer f;
	steer_framer_init(&f, 100);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && !msg && len == 0,
	      "empty framer gave a frame");
	uint8_t part[] = {0x03, 'a', 'b'};
	steer_framer_feed(&f, part, sizeof part);
	msg = (const uint8_t *)err;
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && !msg && len == 0,
	      "a partial frame came out");
	uint8_t rest[] = {'c'};
	steer_framer_feed(&f, rest, sizeof rest);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg && len == 3 &&
	          !memcmp(msg, "abc", 3),
	      "the whole frame did not come out");
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && !msg,
	      "a second frame from nothing");
	steer_framer_free(&f);
}

/* A size past SIZE_MAX is out of memory, reported as NOMEM and then on every grow until
 * the blob is cleared. */
static void blob_grow_reports_nomem(void)
{
	steer_blob b = {0};
	b.len = 10; /* nothing is written: the size overflows before any allocation */
	CHECK(steer_blob_grow(&b, SIZE_MAX) == STEER_ERR_NOMEM && b.oom, "overflow grew");
	CHECK(steer_blob_grow(&b, 1) == STEER_ERR_NOMEM, "grew after running out");
	CHECK(steer_blob_room(&b, 1) == STEER_ERR_NOMEM, "room after running out");
	steer_blob_clear(&b);
	CHECK(steer_blob_grow(&b, 16) == STEER_OK && b.cap >= 16 && !b.oom, "no room after clear");
	CHECK(steer_blob_room(&b, 16) == STEER_OK, "room it has");
	steer_blob_put_byte(&b, 7);
	CHECK(b.len == 1 && b.data[0] == 7, "byte not put");
	steer_blob_free(&b);
}

/* The one varint decoder: every length, the end of the bytes, and its limit. */
static void varint_decoder_limits(void)
{
	uint64_t xs[] = {0, 1, 127, 128, 300, 16384, UINT32_MAX, UINT64_MAX};
	for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
		uint8_t b[STEER_VARINT_MAX];
		size_t n = steer_varint_encode(b, xs[k]);
		uint64_t v = 0;
		CHECK(n == steer_varint_size(xs[k]) &&
		          steer_varint_decode(b, n, STEER_VARINT_MAX, &v) == (int)n && v == xs[k],
		      "%llu: %zu bytes, read back %llu", (unsigned long long)xs[k], n,
		      (unsigned long long)v);
		CHECK(steer_varint_decode(b, n - 1, STEER_VARINT_MAX, &v) == 0,
		      "%llu cut short accepted", (unsigned long long)xs[k]);
	}
	uint64_t v;
	const uint8_t five[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	CHECK(steer_varint_decode(five, 6, 5, &v) == -1, "6 bytes past a limit of 5");
	CHECK(steer_varint_decode(five, 5, 5, &v) == -1, "5 continuing bytes under a limit of 5");
	CHECK(steer_varint_decode(five, 4, 5, &v) == 0, "4 of at most 5 is not yet malformed");
	const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	CHECK(steer_varint_decode(eleven, 11, STEER_VARINT_MAX, &v) == -1, "11-byte varint");
	steer_reader r = {eleven, 11, 0};
	CHECK(!steer_read_varint(&r, &v) && r.pos == 0, "reader took an 11-byte varint");
	steer_reader empty = {NULL, 0, 0};
	CHECK(!steer_read_varint(&empty, &v), "a varint read from nothing");
}

static void snapshot_round_trip(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 3);
	uint32_t a = add_vehicle(w, 100.25, 200.5, 3, 4, NULL);
	steer_params p = steer_params_default();
	p.group = 7;
	uint32_t b = add_vehicle(w, 900, 500, -1, 0, &p);
	steer_vehicle_target(w, a, STEER_ARRIVE, v2(50, 60));
	steer_vehicle_path_add(w, b, v2(1, 2));
	steer_vehicle_path_add(w, b, v2(3, 4));
	steer_vehicle_enable(w, b, STEER_FLOCK, true);
	uint32_t o;
	steer_obstacle_add(w, v2(400, 300), v2(0, 0), 25, &o);
	steer_world_step(w);

	steer_strbuf out;
	steer_strbuf_init(&out);
	uint32_t *scratch = NULL;
	size_t cap = 0;
	steer_view all = {0};
	CHECK(steer_wire_snapshot(&out, w, true, &all, &scratch, &cap) == STEER_OK, "encode");
	/* strip the delimiter and decode as a client would */
	steer_framer f;
	steer_framer_init(&f, 1 << 20);
	steer_framer_feed(&f, (const uint8_t *)out.data, out.len);
	const uint8_t *msg;
	size_t len;
	char err[128];
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg, "one frame");
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	CHECK(steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "decode: %s", err);
	CHECK(m.kind == STEER_MSG_SNAPSHOT && snap.tick == 1 && snap.paused, "header");
	CHECK(snap.count == 2 && snap.total_vehicles == 2, "count %zu", snap.count);
	CHECK(snap.width == 1000 && snap.height == 600 && snap.edges == STEER_EDGE_BOUNCE &&
	          snap.tick_rate == steer_world_config_get(w)->tick_rate,
	      "header: %g x %g, edges %d, %g Hz", snap.width, snap.height, (int)snap.edges,
	      snap.tick_rate);
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t k = 0; k < snap.count; k++) {
		CHECK(snap.v[k].id == v->id[k] && snap.v[k].x == (float)v->px[k] &&
		          snap.v[k].vy == (float)v->vy[k] && snap.v[k].behaviors == v->behaviors[k],
		      "vehicle %zu differs", k);
	}
	/* The world may store vehicles in any order (see arrange in world.c): find each by id. */
	size_t ka = snap.v[0].id == a ? 0 : 1, kb = 1 - ka;
	CHECK(snap.v[kb].id == b && snap.v[kb].group == 7, "group");
	CHECK(snap.nobstacles == 1 && snap.obstacles[0].id == o && snap.obstacles[0].r == 25,
	      "obstacle");
	CHECK(snap.nroutes == 2, "routes %zu", snap.nroutes);
	const steer_snap_route *ra = &snap.routes[snap.routes[0].id == a ? 0 : 1];
	const steer_snap_route *rb = &snap.routes[snap.routes[0].id == a ? 1 : 0];
	CHECK(ra->id == a && ra->has_target && ra->target_x == 50, "arrive target");
	CHECK(rb->id == b && rb->npath == 2 && rb->path_y[1] == 4, "path");
	(void)ka;

	/* A viewport keeps only what is near it. */
	steer_view near_a = {true, 90, 190, 110, 210};
	steer_strbuf_clear(&out);
	CHECK(steer_wire_snapshot(&out, w, false, &near_a, &scratch, &cap) == STEER_OK,
	      "encode view");
	steer_framer_feed(&f, (const uint8_t *)out.data, out.len);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg, "frame");
	CHECK(steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "decode view");
	CHECK(snap.count == 1 && snap.v[0].id == a && snap.has_view && snap.nobstacles == 0,
	      "view kept %zu vehicles", snap.count);

	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_framer_free(&f);
	free(scratch);
	steer_strbuf_free(&out);
	steer_world_destroy(w);
}

static void replies_and_commands_round_trip(void)
{
	steer_reply r;
	steer_reply_init(&r);
	/* a big body: a list of a large world */
	for (int k = 0; k < 100000; k++)
		steer_strbuf_puts(&r.json, "0123456789");
	steer_strbuf out;
	steer_strbuf_init(&out);
	CHECK(steer_wire_reply(&out, 77, &r) == STEER_OK, "encode reply");
	steer_framer f;
	steer_framer_init(&f, 2 << 20);
	steer_framer_feed(&f, (const uint8_t *)out.data, out.len);
	const uint8_t *msg;
	size_t len;
	char err[128];
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg, "reply frame");
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_snapshot snap = {0};
	CHECK(steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "decode reply");
	CHECK(m.kind == STEER_MSG_REPLY && m.request_id == 77 && m.ok && m.json.len == 1000000,
	      "reply body %zu", m.json.len);

	/* a command line travels as a ClientMessage and parses like text */
	steer_strbuf_clear(&out);
	CHECK(steer_wire_command_line(&out, 5, "seek 3 1.5 -2") == STEER_OK, "encode command");
	steer_framer_feed(&f, (const uint8_t *)out.data, out.len);
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg,
	      "command frame");
	static steer_ClientMessage cm;
	CHECK(steer_wire_decode_client(msg, len, &cm, err, sizeof err) == STEER_OK,
	      "decode command");
	steer_command cmd;
	CHECK(steer_wire_to_command(&cm.msg.command, &cmd, err, sizeof err) == STEER_OK,
	      "to command");
	CHECK(!strcmp(cmd.entry->name, "seek") && cmd.id == 3 && cmd.x == 1.5 && cmd.y == -2,
	      "fields");

	/* structured: numbers keep every bit through %.17g */
	cm.msg.command.which_body = steer_Command_call_tag;
	steer_Invocation *call = &cm.msg.command.body.call;
	snprintf(call->name, sizeof call->name, "spawn");
	call->args_count = 3;
	call->args[0].which_value = steer_Arg_number_tag;
	call->args[0].value.number = 0.1 + 0.2;
	call->args[1].which_value = steer_Arg_number_tag;
	call->args[1].value.number = 1e-300;
	call->args[2].which_value = steer_Arg_word_tag;
	snprintf(call->args[2].value.word, sizeof call->args[2].value.word, "max_speed=7");
	CHECK(steer_wire_to_command(&cm.msg.command, &cmd, err, sizeof err) == STEER_OK, "call: %s",
	      err);
	CHECK(cmd.x == 0.1 + 0.2 && cmd.y == 1e-300 && cmd.nkv == 1, "numbers not exact");
	call->args[1].value.number = 0.0 / 0.0;
	CHECK(steer_wire_to_command(&cm.msg.command, &cmd, err, sizeof err) == STEER_ERR_INVALID,
	      "NaN accepted");

	/* garbage does not decode */
	uint8_t junk[] = {0xff, 0xff, 0xff};
	CHECK(steer_wire_decode_client(junk, sizeof junk, &cm, err, sizeof err) ==
	          STEER_ERR_INVALID,
	      "junk decoded");

	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_framer_free(&f);
	steer_strbuf_free(&out);
	steer_reply_free(&r);
}

/* Failures are steer_status codes, never a success (STEER_OK is 0: a caller still
 * testing for true would read each of these as its opposite). */
static void failures_are_status_codes(void)
{
	char err[256] = "";
	CHECK(steer_wire_version_ok(STEER_PROTOCOL_VERSION, "client", err, sizeof err) == STEER_OK,
	      "own version refused");
	CHECK(steer_wire_version_ok(STEER_PROTOCOL_VERSION + 1, "client", err, sizeof err) ==
	              STEER_ERR_INVALID &&
	          strstr(err, "protocol version"),
	      "other version accepted: %s", err);

	steer_strbuf out;
	steer_strbuf_init(&out);
	static char line[STEER_CMD_MAX_LINE + 2];
	memset(line, 'x', sizeof line - 1);
	CHECK(steer_wire_command_line(&out, 1, line) == STEER_ERR_INVALID && out.len == 0,
	      "an over-long command line encoded");
	line[STEER_CMD_MAX_LINE] = '\0'; /* the longest the text port takes: it goes */
	CHECK(steer_wire_command_line(&out, 1, line) == STEER_OK && out.len > STEER_CMD_MAX_LINE,
	      "a command line of the text port's limit not encoded");
	steer_strbuf_clear(&out);

	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_snapshot snap = {0};
	CHECK(steer_wire_decode_server(NULL, 0, &m, &snap, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "empty"),
	      "an empty ServerMessage decoded");

	/* "list\0x" as a command line: decodes, then refused for the NUL. */
	static steer_ClientMessage cm;
	const uint8_t nul[] = {0x12, 0x08, 0x12, 0x06, 'l', 'i', 's', 't', 0, 'x'};
	CHECK(steer_wire_decode_client(nul, sizeof nul, &cm, err, sizeof err) == STEER_OK,
	      "decode: %s", err);
	CHECK(steer_wire_client_strings_ok(nul, sizeof nul, &cm, err, sizeof err) ==
	              STEER_ERR_INVALID &&
	          strstr(err, "NUL"),
	      "a NUL in a string passed");
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_strbuf_free(&out);
}

static void notice_round_trip(void)
{
	steer_strbuf out;
	steer_strbuf_init(&out);
	char long_text[400];
	memset(long_text, 'x', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = '\0';
	CHECK(steer_wire_notice(&out, "bob paused") == STEER_OK &&
	          steer_wire_notice(&out, long_text) == STEER_OK,
	      "encode notice");
	steer_framer f;
	steer_framer_init(&f, 4096);
	steer_framer_feed(&f, (const uint8_t *)out.data, out.len);
	const uint8_t *msg;
	size_t len;
	char err[128];
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_snapshot snap = {0};
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg, "frame");
	CHECK(steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "decode: %s", err);
	CHECK(m.kind == STEER_MSG_NOTICE && !strcmp(m.notice, "bob paused"), "notice '%s'",
	      m.notice);
	/* Longer than the field: cut, never refused */
	CHECK(steer_framer_next(&f, &msg, &len, err, sizeof err) == STEER_OK && msg, "frame");
	CHECK(steer_wire_decode_server(msg, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "decode: %s", err);
	CHECK(m.kind == STEER_MSG_NOTICE && strlen(m.notice) == 255, "cut to %zu",
	      strlen(m.notice));
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_framer_free(&f);
	steer_strbuf_free(&out);
}

/* Decodes the one frame in out into m and snap: the status. */
static steer_status decode_one(const steer_strbuf *out, steer_server_msg *m, steer_snapshot *snap,
                               char *err, size_t errlen)
{
	uint64_t size;
	int n = steer_varint_decode((const uint8_t *)out->data, out->len, 10, &size);
	if (n <= 0 || (size_t)n + size != out->len) {
		snprintf(err, errlen, "not one frame");
		return STEER_ERR_INVALID;
	}
	return steer_wire_decode_server((const uint8_t *)out->data + n, (size_t)size, m, snap, err,
	                                errlen);
}

/* Appends a protobuf length-delimited field. */
static void put_field(steer_strbuf *b, uint32_t tag, const void *data, size_t len)
{
	uint8_t v[STEER_VARINT_MAX];
	steer_strbuf_put(b, (const char *)v, steer_varint_encode(v, (uint64_t)tag << 3 | 2));
	steer_strbuf_put(b, (const char *)v, steer_varint_encode(v, len));
	steer_strbuf_put(b, data, len);
}

/* A ServerMessage frame holding a Geometry of one polygon with nx x and ny y values,
 * x[0] being x0. */
static void bad_polygon(steer_strbuf *out, size_t nx, size_t ny, double x0)
{
	steer_strbuf xs, ys, poly, geom, msg;
	steer_strbuf_init(&xs);
	steer_strbuf_init(&ys);
	steer_strbuf_init(&poly);
	steer_strbuf_init(&geom);
	steer_strbuf_init(&msg);
	for (size_t k = 0; k < nx; k++) {
		double v = k ? (double)k : x0;
		steer_strbuf_put(&xs, (const char *)&v, 8); /* little-endian hosts, as nanopb */
	}
	for (size_t k = 0; k < ny; k++) {
		double v = (double)(k * k);
		steer_strbuf_put(&ys, (const char *)&v, 8);
	}
	put_field(&poly, 2, xs.data, xs.len);
	put_field(&poly, 3, ys.data, ys.len);
	put_field(&geom, 3, poly.data, poly.len);
	put_field(&msg, 7, geom.data, geom.len);
	steer_strbuf_clear(out);
	steer_frame_put(out, (const uint8_t *)msg.data, msg.len);
	steer_strbuf_free(&xs);
	steer_strbuf_free(&ys);
	steer_strbuf_free(&poly);
	steer_strbuf_free(&geom);
	steer_strbuf_free(&msg);
}

/* Walls and polygons travel whole and exact in a Geometry message; snapshots carry
 * its version and leave the client's copy alone; a malformed one leaves it too. */
static void geometry_round_trip(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 3);
	char err[256];
	uint32_t wall, tri, room;
	CHECK(steer_wall_add(w, v2(10, 20), v2(300, 40.25), &wall) == STEER_OK, "wall");
	steer_vec2 t[3] = {{500, 100}, {600, 100.5}, {550, 1.0 / 3}};
	CHECK(steer_polygon_add(w, t, 3, false, &tri, err, sizeof err) == STEER_OK, "tri: %s", err);
	steer_vec2 r[4] = {{1, 1}, {999, 1}, {999, 599}, {1, 599}};
	CHECK(steer_polygon_add(w, r, 4, true, &room, err, sizeof err) == STEER_OK, "room: %s",
	      err);
	CHECK(steer_world_set_contain(w, true) == STEER_OK, "contain");
	add_vehicle(w, 100, 100, 1, 0, NULL);

	steer_strbuf out;
	steer_strbuf_init(&out);
	steer_snapshot snap = {0};
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	CHECK(steer_wire_geometry(&out, w) == STEER_OK, "encode");
	CHECK(decode_one(&out, &m, &snap, err, sizeof err) == STEER_OK, "decode: %s", err);
	const steer_snap_geometry *g = &snap.geometry;
	CHECK(m.kind == STEER_MSG_GEOMETRY && g->version == steer_world_geometry_version(w) &&
	          g->version != 0 && g->contain,
	      "kind %d, version %llu", (int)m.kind, (unsigned long long)g->version);
	CHECK(g->nwalls == 1 && g->walls[0].id == wall && g->walls[0].x0 == 10 &&
	          g->walls[0].y0 == 20 && g->walls[0].x1 == 300 && g->walls[0].y1 == 40.25,
	      "walls %zu", g->nwalls);
	CHECK(g->npolygons == 2 && g->nvertices == 7, "polygons %zu, vertices %zu", g->npolygons,
	      g->nvertices);
	for (size_t k = 0; k < g->npolygons && k < 2; k++) {
		const steer_snap_polygon *p = &g->polygons[k];
		const steer_polygon *src = steer_polygon_get(w, p->id);
		CHECK(src && p->inside == src->inside && p->count == src->count, "polygon %u",
		      p->id);
		for (size_t i = 0; src && i < p->count && i < src->count; i++)
			CHECK(g->vertices[p->first + i].x == src->points[i].x &&
			          g->vertices[p->first + i].y == src->points[i].y,
			      "polygon %u vertex %zu", p->id, i);
	}
	CHECK(g->polygons[0].inside != g->polygons[1].inside, "one of each kind");
	/* Another world with as many changes behind it has another version (a load swaps
	 * one in: its clients must see a change). */
	steer_world *twin = make_world(1000, 600, STEER_EDGE_BOUNCE, 3);
	uint32_t id;
	CHECK(steer_wall_add(twin, v2(10, 20), v2(300, 40.25), &id) == STEER_OK &&
	          steer_polygon_add(twin, t, 3, false, &id, err, sizeof err) == STEER_OK &&
	          steer_polygon_add(twin, r, 4, true, &id, err, sizeof err) == STEER_OK &&
	          steer_world_set_contain(twin, true) == STEER_OK,
	      "twin");
	CHECK(steer_world_geometry_version(twin) != steer_world_geometry_version(w),
	      "two worlds share version %llu", (unsigned long long)steer_world_geometry_version(w));
	steer_world_destroy(twin);

	/* A snapshot says which geometry it goes with, and keeps the client's. */
	uint32_t *scratch = NULL;
	size_t cap = 0;
	steer_view all = {0};
	steer_strbuf_clear(&out);
	CHECK(steer_wire_snapshot(&out, w, false, &all, &scratch, &cap) == STEER_OK, "snapshot");
	CHECK(decode_one(&out, &m, &snap, err, sizeof err) == STEER_OK, "decode: %s", err);
	CHECK(m.kind == STEER_MSG_SNAPSHOT && snap.geometry_version == g->version &&
	          g->nwalls == 1 && g->npolygons == 2 && snap.count == 1,
	      "snapshot with geometry %llu", (unsigned long long)snap.geometry_version);

	/* A change moves the version; the new message replaces the old whole. */
	uint64_t before = g->version;
	CHECK(steer_remove(w, wall) == STEER_OK, "remove wall");
	CHECK(steer_world_geometry_version(w) != before, "version moved");
	steer_strbuf_clear(&out);
	CHECK(steer_wire_geometry(&out, w) == STEER_OK, "encode again");
	CHECK(decode_one(&out, &m, &snap, err, sizeof err) == STEER_OK, "decode: %s", err);
	CHECK(g->nwalls == 0 && g->npolygons == 2 && g->version == steer_world_geometry_version(w),
	      "after remove: %zu walls", g->nwalls);

	/* Malformed: refused, and the geometry held stays as it was. */
	struct {
		size_t nx, ny;
		double x0;
	} bad[] = {{3, 2, 0}, {2, 2, 0}, {4, 4, NAN}, {4, 4, INFINITY}};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		bad_polygon(&out, bad[k].nx, bad[k].ny, bad[k].x0);
		CHECK(decode_one(&out, &m, &snap, err, sizeof err) == STEER_ERR_INVALID,
		      "bad polygon %zu accepted", k);
		CHECK(g->npolygons == 2 && g->nvertices == 7 &&
		          g->version == steer_world_geometry_version(w),
		      "bad polygon %zu changed the geometry", k);
	}
	bad_polygon(&out, 3, 3, 0.5);
	CHECK(decode_one(&out, &m, &snap, err, sizeof err) == STEER_OK && g->npolygons == 1 &&
	          g->nvertices == 3 && g->vertices[0].x == 0.5 && g->vertices[2].y == 4 &&
	          g->version == 0,
	      "a good hand-made one: %s", err);
	steer_snap_geometry_clear(&snap.geometry);
	CHECK(g->npolygons == 0 && g->nwalls == 0 && g->version == 0, "clear");

	free(scratch);
	steer_snapshot_free(&snap);
	steer_strbuf_free(&m.json);
	steer_strbuf_free(&out);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(framer_splits_any_chunking);
	RUN(framer_rejects_bad_lengths);
	RUN(framer_waits_for_the_rest);
	RUN(blob_grow_reports_nomem);
	RUN(varint_decoder_limits);
	RUN(snapshot_round_trip);
	RUN(replies_and_commands_round_trip);
	RUN(notice_round_trip);
	RUN(geometry_round_trip);
	RUN(failures_are_status_codes);
	return CHECK_DONE();
}
