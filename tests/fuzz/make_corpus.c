/* Writes the binary seed inputs of the fuzz targets from the project's own encoders,
 * so the seeds are real messages and save files rather than hand-made bytes:
 *
 *   make_corpus DIR     writes DIR/framer, DIR/client_message and DIR/savefile
 *
 * The committed corpus (tests/fuzz/corpus) was made by this; the text_command seeds
 * are plain text files written by hand. Rerun it when the wire format or the save
 * format changes, and commit what it writes. */
#define _POSIX_C_SOURCE 200809L /* mkdir */

#include <errno.h>
#include <pb_encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interest.h"
#include "savefile.h"
#include "scenario.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/command.h"
#include "steer/strbuf.h"
#include "steer/wire.h"
#include "steer/world.h"

static const char *outdir;

static void die(const char *what)
{
	fprintf(stderr, "make_corpus: %s\n", what);
	exit(1);
}

static void make_dir(const char *sub)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", outdir, sub);
	if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
		die(outdir);
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		die(path);
}

static void write_file(const char *sub, const char *name, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", outdir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die(path);
}

/* The body of the one delimited frame in b: what the client_message target takes. */
static void write_body(const char *name, const steer_strbuf *b)
{
	uint64_t len;
	int i = steer_varint_decode((const uint8_t *)b->data, b->len, STEER_FRAME_PREFIX_MAX, &len);
	if (i <= 0 || len != b->len - (size_t)i)
		die("not one whole frame");
	write_file("client_message", name, (const uint8_t *)b->data + i, (size_t)len);
}

static steer_world *world_of(const char *scenario, double w, double h)
{
	steer_world_config c = steer_world_config_default();
	c.width = w;
	c.height = h;
	steer_world *world = steer_world_create(&c);
	if (!world || steer_scenario_load(world, scenario) != STEER_OK)
		die("cannot build a scenario");
	return world;
}

static void step(steer_world *w, int n)
{
	for (int k = 0; k < n; k++)
		if (steer_world_step(w) != STEER_OK)
			die("step failed");
}

/* A ClientMessage Command with a call body: name and arguments, numbers or words. */
static void write_call(const char *file, uint32_t rid, const char *name, int argc,
                       const double *nums, const char *const *words)
{
	static steer_ClientMessage m;
	memset(&m, 0, sizeof m);
	m.which_msg = steer_ClientMessage_command_tag;
	m.msg.command.request_id = rid;
	m.msg.command.which_body = steer_Command_call_tag;
	steer_Invocation *call = &m.msg.command.body.call;
	snprintf(call->name, sizeof call->name, "%s", name);
	for (int k = 0; k < argc; k++) {
		steer_Arg *a = &call->args[call->args_count++];
		if (words[k]) {
			a->which_value = steer_Arg_word_tag;
			snprintf(a->value.word, sizeof a->value.word, "%s", words[k]);
		} else {
			a->which_value = steer_Arg_number_tag;
			a->value.number = nums[k];
		}
	}
	uint8_t buf[8192];
	pb_ostream_t s = pb_ostream_from_buffer(buf, sizeof buf);
	if (!pb_encode(&s, steer_ClientMessage_fields, &m))
		die("call encode");
	write_file("client_message", file, buf, s.bytes_written);
}

static void client_messages(void)
{
	static const char *const lines[] = {
	    "spawn 100 100 max_speed=80 vx=3",
	    "spawn flock 20 500 300 100 separation_weight=2",
	    "set 1 max_speed=10 vx=5 vy=-5 decel=slow combine=priority",
	    "seek 1 500 300",
	    "pursue 2 3",
	    "waypoint 1 10 10",
	    "path 1 loop on",
	    "get 1",
	    "save slot",
	    "load slot",
	    "step 5",
	    "world 500 400 bounce",
	    "scenario path",
	    "obstacle 300 300 20 vx=5 vy=1",
	    "remove 1",
	    "help set",
	    "stats",
	    "wall 10 10 200 50",
	    "polygon 100 100 200 100 150 200",
	};
	steer_strbuf b;
	steer_strbuf_init(&b);
	char name[64];
	for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
		steer_strbuf_clear(&b);
		if (steer_wire_command_line(&b, (uint32_t)k + 1, lines[k]) != STEER_OK)
			die("command encode");
		snprintf(name, sizeof name, "line_%02zu", k);
		write_body(name, &b);
	}
	steer_strbuf_clear(&b);
	if (steer_wire_hello(&b, "fuzz-seed") != STEER_OK)
		die("hello encode");
	write_body("hello", &b);
	steer_view view = {true, 100, 50, 600, 400};
	steer_strbuf_clear(&b);
	if (steer_wire_viewport(&b, &view) != STEER_OK)
		die("viewport encode");
	write_body("viewport", &b);
	steer_compact_req req = {true, 80, 24, STEER_DENSITY_AUTO, 0};
	steer_strbuf_clear(&b);
	if (steer_wire_viewport_ex(&b, &view, &req) != STEER_OK)
		die("viewport ex encode");
	write_body("viewport_compact", &b);
	steer_view none = {0};
	steer_strbuf_clear(&b);
	if (steer_wire_viewport(&b, &none) != STEER_OK)
		die("viewport encode");
	write_body("viewport_clear", &b);
	steer_strbuf_free(&b);

	const double spawn_n[] = {100, 200, 0};
	const char *const spawn_w[] = {NULL, NULL, "max_speed=50"};
	write_call("call_spawn", 41, "spawn", 3, spawn_n, spawn_w);
	const double arrive_n[] = {5, 300.5, 250};
	const char *const arrive_w[] = {NULL, NULL, NULL};
	write_call("call_arrive", 42, "arrive", 3, arrive_n, arrive_w);
	const double wander_n[] = {7, 0};
	const char *const wander_w[] = {NULL, "on"};
	write_call("call_wander", 43, "wander", 2, wander_n, wander_w);
}

/* One framer input: the control byte, the chunk sizes, then the stream. */
static void write_stream(const char *name, uint8_t ctl, const uint8_t *chunks,
                         const steer_strbuf *stream)
{
	size_t nchunks = (size_t)(ctl & 7) + 1;
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_strbuf_put(&b, (const char *)&ctl, 1);
	steer_strbuf_put(&b, (const char *)chunks, nchunks);
	steer_strbuf_put(&b, stream->data, stream->len);
	write_file("framer", name, b.data, b.len);
	steer_strbuf_free(&b);
}

static void frames(void)
{
	steer_strbuf s;
	steer_strbuf_init(&s);
	/* What a client sends. */
	if (steer_wire_hello(&s, "fuzz-seed") != STEER_OK)
		die("hello encode");
	if (steer_wire_command_line(&s, 1, "spawn flock 5 100 100 30") != STEER_OK)
		die("command line encode");
	steer_view view = {true, 0, 0, 500, 300};
	if (steer_wire_viewport(&s, &view) != STEER_OK)
		die("viewport encode");
	steer_compact_req req = {true, 100, 30, STEER_DENSITY_AUTO, 0};
	if (steer_wire_viewport_ex(&s, &view, &req) != STEER_OK)
		die("viewport ex encode");
	write_stream("client_stream", 0x00, (const uint8_t[]){0}, &s);
	write_stream("client_stream_bytes", 0x02, (const uint8_t[]){1, 2, 5}, &s);

	/* What a server sends: welcome, replies, plain snapshots with routes and
	 * obstacles. */
	steer_strbuf_clear(&s);
	steer_world *w = world_of("path", 400, 300);
	steer_welcome_info info = {steer_world_config_get(w), 20};
	if (steer_wire_welcome(&s, &info) != STEER_OK)
		die("welcome encode");
	steer_reply r;
	steer_reply_init(&r);
	steer_strbuf_puts(&r.json, "{\"id\":7}");
	if (steer_wire_reply(&s, 3, &r) != STEER_OK)
		die("reply encode");
	r.ok = false;
	snprintf(r.error, sizeof r.error, "no vehicle or obstacle with id 99");
	if (steer_wire_reply(&s, 4, &r) != STEER_OK)
		die("reply encode");
	steer_reply_free(&r);
	uint32_t *scratch = NULL;
	size_t scratch_cap = 0;
	step(w, 3);
	steer_view all = {0};
	if (steer_wire_snapshot(&s, w, false, &all, &scratch, &scratch_cap) != STEER_OK)
		die("snapshot encode");
	steer_world *avoid = world_of("avoid", 400, 300);
	step(avoid, 3);
	steer_view part = {true, 0, 0, 200, 300};
	if (steer_wire_snapshot(&s, avoid, true, &part, &scratch, &scratch_cap) != STEER_OK)
		die("snapshot encode");
	write_stream("server_stream", 0x0a, (const uint8_t[]){1, 7, 200}, &s);

	/* A compact key frame and a delta on it. */
	steer_strbuf_clear(&s);
	steer_world *flock = world_of("flock", 200, 150);
	steer_interest ix;
	steer_interest_init(&ix);
	steer_compact_frame key, next;
	steer_compact_frame_init(&key);
	steer_compact_frame_init(&next);
	steer_compact_scratch sc;
	steer_compact_scratch_init(&sc);
	steer_view fv = {true, 0, 0, 200, 150};
	size_t n;
	if (steer_interest_build(&ix, flock) ||
	    steer_interest_collect(&ix, flock, &fv, STEER_ORDER_ID, &scratch, &scratch_cap, &n) ||
	    steer_compact_frame_build(&key, flock, &fv, 40, 20, scratch, n, 1) != STEER_OK ||
	    steer_wire_compact(&s, &sc, flock, false, &key, NULL) != STEER_OK)
		die("compact key frame");
	step(flock, 1);
	steer_interest_invalidate(&ix);
	if (steer_interest_build(&ix, flock) ||
	    steer_interest_collect(&ix, flock, &fv, STEER_ORDER_ID, &scratch, &scratch_cap, &n) ||
	    steer_compact_frame_build(&next, flock, &fv, 40, 20, scratch, n, 2) != STEER_OK ||
	    steer_wire_compact(&s, &sc, flock, false, &next, &key) != STEER_OK)
		die("compact delta frame");
	write_stream("compact_stream", 0x09, (const uint8_t[]){3, 0}, &s);

	/* Density frames of the same flock: one shared, one with a picked vehicle. */
	steer_strbuf_clear(&s);
	steer_density d;
	steer_density_init(&d);
	steer_strbuf one;
	steer_strbuf_init(&one);
	if (steer_density_build(&d, flock, &fv, 12, 6, scratch, n) != STEER_OK ||
	    steer_wire_density(&one, flock, false, &d) != STEER_OK ||
	    steer_wire_density_picked(&s, (const uint8_t *)one.data, one.len, flock,
	                              steer_world_vehicles(flock)->id[0]) != STEER_OK)
		die("density frames");
	steer_strbuf_put(&s, one.data, one.len);
	write_stream("density_stream", 0x01, (const uint8_t[]){5, 0}, &s);
	steer_strbuf_free(&one);
	steer_density_free(&d);

	/* The static geometry after a Welcome, and a snapshot naming its version. */
	steer_strbuf_clear(&s);
	steer_world *walled = world_of("flock", 400, 300);
	uint32_t id;
	char err[256];
	steer_vec2 tri[3] = {{200, 100}, {260, 100}, {230, 150}};
	if (steer_wall_add(walled, (steer_vec2){20, 30}, (steer_vec2){380, 40}, &id) != STEER_OK ||
	    steer_polygon_add(walled, tri, 3, false, &id, err, sizeof err) != STEER_OK ||
	    steer_world_set_contain(walled, true) != STEER_OK)
		die("walls");
	steer_welcome_info winfo = {steer_world_config_get(walled), 20};
	if (steer_wire_welcome(&s, &winfo) != STEER_OK ||
	    steer_wire_geometry(&s, walled) != STEER_OK ||
	    steer_wire_snapshot(&s, walled, false, &all, &scratch, &scratch_cap) != STEER_OK)
		die("geometry stream");
	write_stream("geometry_stream", 0x0a, (const uint8_t[]){2, 40, 0}, &s);
	steer_world_destroy(walled);

	/* Refused streams: a frame over the limit of 100, and an endless length. */
	steer_strbuf_clear(&s);
	steer_strbuf_puts(&s, "\x05hello\xe5\x01");
	write_stream("too_long", 0x10, (const uint8_t[]){0}, &s);
	steer_strbuf_clear(&s);
	steer_strbuf_puts(&s, "\x80\x80\x80\x80\x80\x80");
	write_stream("bad_length", 0x00, (const uint8_t[]){2}, &s);

	steer_compact_scratch_free(&sc);
	steer_compact_frame_free(&key);
	steer_compact_frame_free(&next);
	steer_interest_free(&ix);
	free(scratch);
	steer_world_destroy(flock);
	steer_world_destroy(avoid);
	steer_world_destroy(w);
	steer_strbuf_free(&s);
}

static void save(const char *file, steer_world *w)
{
	char *data;
	size_t len;
	if (steer_save_encode(w, &data, &len) != STEER_OK)
		die("save encode");
	write_file("savefile", file, data, len);
	free(data);
	steer_world_destroy(w);
}

static void save_files(void)
{
	static const char *const small[] = {"seek", "flee", "arrive", "pursuit", "avoid", "path"};
	for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
		steer_world *w = world_of(small[k], 1000, 600);
		step(w, 30);
		save(small[k], w);
	}
	/* The smallest flock the scenario makes (40 boids), and an empty world. */
	steer_world *w = world_of("flock", 200, 150);
	step(w, 5);
	save("flock", w);
	w = world_of("seek", 1000, 600);
	steer_world_reset(w);
	save("empty", w);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_corpus DIR\n");
		return 2;
	}
	outdir = argv[1];
	make_dir("framer");
	make_dir("client_message");
	make_dir("savefile");
	client_messages();
	frames();
	save_files();
	return 0;
}
