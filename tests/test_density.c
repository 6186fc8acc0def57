/* Density snapshots: cells counted and encoded as the server does, decoded as a
 * client does, and compared with the world; the auto rule; frame size bounded by
 * the grid, not the vehicles; malformed frames refused. */
#include <math.h>
#include <pb_encode.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "interest.h"
#include "message.h"
#include "serve.h"
#include "steer/wire.h"
#include "testutil.h"

/* Every vehicle of w (index order): what the server collects for a view. */
static uint32_t *all_indices(const steer_world *w, size_t *n)
{
	*n = steer_world_vehicles(w)->count;
	uint32_t *idx = malloc((*n ? *n : 1) * sizeof *idx);
	if (!idx)
		abort();
	for (size_t k = 0; k < *n; k++)
		idx[k] = (uint32_t)k;
	return idx;
}

/* Encodes d and decodes it back as a client would (the frame stands alone). */
/* One frame's bytes decoded as the client does, into snap. */
static bool decode_frame(const steer_strbuf *frame, steer_snapshot *snap, char *err, size_t errlen)
{
	steer_framer f;
	steer_framer_init(&f, 1u << 24);
	steer_framer_feed(&f, (const uint8_t *)frame->data, frame->len);
	const uint8_t *msg;
	size_t len;
	CHECK(steer_framer_next(&f, &msg, &len, err, errlen) == STEER_OK && msg, "no frame");
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_strbuf_init(&m.json);
	bool ok = steer_wire_decode_server(msg, len, &m, snap, err, errlen) == STEER_OK;
	if (ok)
		CHECK(m.kind == STEER_MSG_SNAPSHOT && m.compact, "kind %d", (int)m.kind);
	steer_strbuf_free(&m.json);
	steer_framer_free(&f);
	return ok;
}

static bool round_trip(const steer_world *w, const steer_density *d, steer_snapshot *snap,
                       size_t *bytes, char *err, size_t errlen)
{
	steer_strbuf out;
	steer_strbuf_init(&out);
	bool ok = steer_wire_density(&out, w, false, d) == STEER_OK;
	CHECK(ok && !out.oom, "density frame did not encode");
	ok = decode_frame(&out, snap, err, errlen);
	*bytes = out.len;
	steer_strbuf_free(&out);
	return ok;
}

static void cells_hold_counts_and_mean_headings(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
	steer_params p = steer_params_default();
	/* View (100,100)-(500,300) over a 4 x 2 grid: cells 100 wide, 100 high. Three
	 * heading east into cell (0,0), one west into (0,1), one north-east and one
	 * north into (3,1), and one just outside the view. */
	add_vehicle(w, 110, 110, 10, 0, &p);
	add_vehicle(w, 150, 150, 20, 0, &p);
	add_vehicle(w, 199, 199, 5, 0, &p);
	add_vehicle(w, 450, 250, 10, 10, &p);
	add_vehicle(w, 460, 260, 0, 10, &p);
	add_vehicle(w, 99, 150, 10, 0, &p);
	add_vehicle(w, 101, 299, -10, 0, &p);
	step(w, 1);
	steer_view view = {true, 100, 100, 500, 300};
	size_t n;
	uint32_t *idx = all_indices(w, &n);
	steer_density d;
	steer_density_init(&d);
	CHECK(steer_density_build(&d, w, &view, 4, 2, idx, n) == STEER_OK, "build failed");
	CHECK(d.in_view == 6 && d.max_count == 3, "in_view %u max %u", d.in_view, d.max_count);
	steer_snapshot snap;
	memset(&snap, 0, sizeof snap);
	char err[256] = "";
	size_t bytes;
	CHECK(round_trip(w, &d, &snap, &bytes, err, sizeof err), "decode: %s", err);
	CHECK(snap.density && snap.count == 0 && snap.dcols == 4 && snap.drows == 2,
	      "density %d count %zu grid %ux%u", snap.density, snap.count, snap.dcols, snap.drows);
	CHECK(snap.ncells == 3, "%zu occupied cells, want 3", snap.ncells);
	CHECK(snap.in_view == 6 && snap.max_count == 3 && snap.total_vehicles == 7,
	      "in_view %u max %u total %u", snap.in_view, snap.max_count, snap.total_vehicles);
	if (snap.ncells == 3) {
		/* Headings in world axes: east 0, west 128; north-east and north average to
		 * 67.5 degrees, 48 of 256. */
		const steer_snap_cell *c = snap.cells;
		CHECK(c[0].col == 0 && c[0].row == 0 && c[0].count == 3 && c[0].heading == 0,
		      "cell 0: (%u,%u) x%u heading %u", c[0].col, c[0].row, c[0].count,
		      c[0].heading);
		CHECK(c[1].col == 0 && c[1].row == 1 && c[1].count == 1 && c[1].heading == 128,
		      "cell 1: (%u,%u) x%u heading %u", c[1].col, c[1].row, c[1].count,
		      c[1].heading);
		CHECK(c[2].col == 3 && c[2].row == 1 && c[2].count == 2 && c[2].heading == 48,
		      "cell 2: (%u,%u) x%u heading %u", c[2].col, c[2].row, c[2].count,
		      c[2].heading);
	}
	steer_snapshot_free(&snap);
	steer_density_free(&d);
	free(idx);
	steer_world_destroy(w);
}

static void auto_switches_at_one_vehicle_per_cell(void)
{
	steer_compact_req req = {true, 80, 24, STEER_DENSITY_AUTO, 0};
	CHECK(!steer_density_wanted(&req, 80 * 24, false), "auto at one per cell");
	CHECK(steer_density_wanted(&req, 80 * 24 + 1, false), "auto past one per cell");
	/* Once dense, it stays so down to half a vehicle per cell. */
	CHECK(steer_density_wanted(&req, 80 * 24, true), "auto left density at once");
	CHECK(steer_density_wanted(&req, 80 * 12 + 1, true), "auto left density above half");
	CHECK(!steer_density_wanted(&req, 80 * 12, true), "auto kept density at half");
	req.density = STEER_DENSITY_NEVER;
	CHECK(!steer_density_wanted(&req, 1000000, true), "never");
	req.density = STEER_DENSITY_ALWAYS;
	CHECK(steer_density_wanted(&req, 0, false), "always");
	req.cols = req.rows = 4096; /* past STEER_DENSITY_MAX_CELLS: vehicles */
	CHECK(!steer_density_wanted(&req, 100000000, true), "a grid too large for cells");
	req = (steer_compact_req){false, 0, 0, STEER_DENSITY_ALWAYS, 0};
	CHECK(!steer_density_wanted(&req, 100, true), "plain snapshots are never density");
}

/* 200,000 vehicles or 2,000 in one 120 x 40 view: the frame is bounded by the grid
 * (at most a few bytes a cell), not by the vehicles. */
static void frame_size_follows_the_grid(void)
{
	size_t sizes[2];
	int counts[2] = {2000, 200000};
	for (int t = 0; t < 2; t++) {
		steer_world *w = make_world(4000, 4000, STEER_EDGE_WRAP, 7);
		steer_world_set_max_vehicles(w, 0);
		steer_params p = steer_params_default();
		steer_rng *rng = steer_world_rng(w);
		for (int k = 0; k < counts[t]; k++) {
			double a = steer_rng_range(rng, 0, STEER_TAU);
			add_vehicle(w, steer_rng_range(rng, 0, 4000), steer_rng_range(rng, 0, 4000),
			            cos(a) * 10, sin(a) * 10, &p);
		}
		step(w, 1);
		steer_view view = {true, 0, 0, 4000, 4000};
		size_t n;
		uint32_t *idx = all_indices(w, &n);
		steer_density d;
		steer_density_init(&d);
		CHECK(steer_density_build(&d, w, &view, 120, 40, idx, n) == STEER_OK, "build");
		steer_snapshot snap;
		memset(&snap, 0, sizeof snap);
		char err[256] = "";
		CHECK(round_trip(w, &d, &snap, &sizes[t], err, sizeof err), "decode: %s", err);
		uint64_t sum = 0;
		for (size_t k = 0; k < snap.ncells; k++)
			sum += snap.cells[k].count;
		CHECK(sum == (uint64_t)counts[t], "cells hold %llu of %d", (unsigned long long)sum,
		      counts[t]);
		steer_snapshot_free(&snap);
		steer_density_free(&d);
		free(idx);
		steer_world_destroy(w);
	}
	/* Every cell occupied: skip 0, count of 2-3 varint bytes, heading 1. */
	CHECK(sizes[1] <= 120 * 40 * 5 + 200, "200,000 vehicles took %zu bytes", sizes[1]);
	CHECK(sizes[1] < 20 * sizes[0], "100x the vehicles, %zu vs %zu bytes", sizes[1], sizes[0]);
}

/* A DensitySnapshot with the given cells blob, as a hostile server might send. */
static size_t hostile(uint8_t *buf, size_t cap, uint32_t cols, uint32_t rows, uint32_t in_view,
                      const uint8_t *cells, size_t ncells, const steer_Picked *pick)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_density_tag;
	steer_DensitySnapshot *s = &m.msg.density;
	s->has_view = true;
	s->view = (steer_Rect){0, 0, 100, 100};
	s->cols = cols;
	s->rows = rows;
	s->in_view = in_view;
	steer_blob blob = {(uint8_t *)cells, ncells, ncells, false};
	s->cells = (pb_callback_t){{.encode = steer_wire_enc_blob}, &blob};
	if (pick) {
		s->has_picked = true;
		s->picked = *pick;
	}
	pb_ostream_t o = pb_ostream_from_buffer(buf, cap);
	if (!pb_encode(&o, steer_ServerMessage_fields, &m))
		abort();
	return o.bytes_written;
}

static void malformed_frames_are_refused(void)
{
	struct {
		const char *what;
		uint32_t cols, rows, in_view;
		uint8_t cells[8];
		size_t n;
		steer_Picked pick;
	} cases[] = {
	    {"a cell past the grid", 2, 2, 1, {4, 1, 0}, 3, {0}},
	    {"a count of zero", 2, 2, 0, {0, 0, 0}, 3, {0}},
	    {"counts not adding up", 2, 2, 5, {0, 2, 0}, 3, {0}},
	    {"a truncated cell", 2, 2, 1, {0, 1}, 2, {0}},
	    {"a grid of zero columns", 0, 2, 0, {0}, 0, {0}},
	    {"a grid past the limit", 4096, 4096, 0, {0}, 0, {0}},
	    {"a picked vehicle without an id", 2, 2, 0, {0}, 0, {0, 1, 1, 0, 0, 0, 0}},
	    {"a picked vehicle off the map", 2, 2, 0, {0}, 0, {3, INFINITY, 1, 0, 0, 0, 0}},
	};
	steer_snapshot snap;
	memset(&snap, 0, sizeof snap);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint8_t buf[256];
		bool picks = cases[k].pick.id || cases[k].pick.x;
		size_t len =
		    hostile(buf, sizeof buf, cases[k].cols, cases[k].rows, cases[k].in_view,
		            cases[k].cells, cases[k].n, picks ? &cases[k].pick : NULL);
		steer_server_msg m;
		memset(&m, 0, sizeof m);
		steer_strbuf_init(&m.json);
		char err[256] = "";
		steer_status st = steer_wire_decode_server(buf, len, &m, &snap, err, sizeof err);
		CHECK(st == STEER_ERR_INVALID && err[0], "%s was accepted", cases[k].what);
		CHECK(snap.ncells == 0 && snap.count == 0, "%s left %zu cells, %zu vehicles",
		      cases[k].what, snap.ncells, snap.count);
		steer_strbuf_free(&m.json);
	}
	/* And a good one after them decodes. */
	uint8_t good[3] = {1, 2, 64}, buf[256];
	size_t len = hostile(buf, sizeof buf, 2, 2, 2, good, 3, NULL);
	steer_server_msg m;
	memset(&m, 0, sizeof m);
	steer_strbuf_init(&m.json);
	char err[256] = "";
	CHECK(steer_wire_decode_server(buf, len, &m, &snap, err, sizeof err) == STEER_OK,
	      "good frame: %s", err);
	CHECK(snap.ncells == 1 && snap.cells[0].col == 1 && snap.cells[0].row == 0 &&
	          snap.cells[0].count == 2 && snap.cells[0].heading == 64,
	      "good frame decoded wrong");
	steer_strbuf_free(&m.json);
	steer_snapshot_free(&snap);
}

/* A client's picked vehicle rides along on the frame its view shares: the cells
 * are the same bytes, the vehicle decodes whole; a vehicle that is gone, or a frame
 * that is not a density frame, gets nothing added. */
/* Field by field: a cell's padding bytes are not part of it. */
static bool same_cells(const steer_snapshot *a, const steer_snapshot *b)
{
	for (size_t k = 0; k < a->ncells && k < b->ncells; k++) {
		const steer_snap_cell *x = &a->cells[k], *y = &b->cells[k];
		if (x->col != y->col || x->row != y->row || x->count != y->count ||
		    x->heading != y->heading)
			return false;
	}
	return true;
}

static void picked_vehicle_rides_along(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_WRAP, 1);
	steer_params p = steer_params_default();
	p.group = 3;
	for (int k = 0; k < 40; k++)
		add_vehicle(w, 100 + 9 * k, 200 + 5 * k, 3, -4, &p);
	uint32_t picked = add_vehicle(w, 321.25, 287.5, -6, 8, &p);
	steer_vehicle_enable(w, picked, STEER_WANDER, true);
	step(w, 1);
	steer_view view = {true, 0, 0, 1000, 1000};
	size_t n;
	uint32_t *idx = all_indices(w, &n);
	steer_density d;
	steer_density_init(&d);
	CHECK(steer_density_build(&d, w, &view, 10, 10, idx, n) == STEER_OK, "build failed");
	steer_strbuf shared, mine;
	steer_strbuf_init(&shared);
	steer_strbuf_init(&mine);
	CHECK(steer_wire_density(&shared, w, false, &d) == STEER_OK, "encode");
	CHECK(steer_wire_density_picked(&mine, (const uint8_t *)shared.data, shared.len, w,
	                                picked) == STEER_OK,
	      "pick refused");
	steer_snapshot a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	char err[256] = "";
	CHECK(decode_frame(&shared, &a, err, sizeof err), "shared frame: %s", err);
	CHECK(decode_frame(&mine, &b, err, sizeof err), "picked frame: %s", err);
	CHECK(a.count == 0 && b.count == 1, "vehicles: shared %zu, picked %zu", a.count, b.count);
	CHECK(a.ncells == b.ncells && a.in_view == b.in_view && a.in_view == 41 &&
	          same_cells(&a, &b),
	      "the pick changed the cells");
	const steer_vehicles *v = steer_world_vehicles(w);
	long i = steer_vehicle_index(w, picked);
	if (b.count == 1 && i >= 0) {
		const steer_snap_vehicle *s = &b.v[0];
		CHECK(s->id == picked && s->x == (float)v->px[i] && s->y == (float)v->py[i] &&
		          s->vx == (float)v->vx[i] && s->vy == (float)v->vy[i] && s->group == 3 &&
		          s->behaviors == STEER_WANDER,
		      "picked vehicle decoded as #%u (%g,%g) v (%g,%g) group %u behaviors %u",
		      s->id, s->x, s->y, s->vx, s->vy, s->group, s->behaviors);
	}
	/* The next plain density frame drops it again. */
	CHECK(decode_frame(&shared, &b, err, sizeof err) && b.count == 0,
	      "a frame without a pick kept the vehicle");
	size_t before = mine.len;
	CHECK(steer_wire_density_picked(&mine, (const uint8_t *)shared.data, shared.len, w, 9999) ==
	              STEER_ERR_NOENT &&
	          mine.len == before,
	      "a pick of no vehicle");
	CHECK(steer_wire_density_picked(&mine, (const uint8_t *)shared.data, shared.len - 1, w,
	                                picked) == STEER_ERR_INVALID &&
	          mine.len == before,
	      "a pick on a cut frame");
	steer_strbuf plain;
	steer_strbuf_init(&plain);
	uint32_t *scratch = NULL;
	size_t cap = 0;
	steer_view whole = {false, 0, 0, 0, 0};
	CHECK(steer_wire_snapshot(&plain, w, false, &whole, &scratch, &cap) == STEER_OK,
	      "plain encode");
	CHECK(steer_wire_density_picked(&mine, (const uint8_t *)plain.data, plain.len, w, picked) ==
	              STEER_ERR_INVALID &&
	          mine.len == before,
	      "a pick on a plain snapshot");
	free(scratch);
	steer_strbuf_free(&plain);
	steer_snapshot_free(&a);
	steer_snapshot_free(&b);
	steer_strbuf_free(&shared);
	steer_strbuf_free(&mine);
	steer_density_free(&d);
	free(idx);
	steer_world_destroy(w);
}

/* The mode's round trip through a Viewport is test_compact's compact_request_checked;
 * here, a mode the protocol does not have. */
static void viewport_carries_the_density_mode(void)
{
	char err[256] = "";
	steer_Viewport v = steer_Viewport_init_zero;
	v.x1 = 100;
	v.y1 = 50;
	v.compact = true;
	v.cols = 100;
	v.rows = 30;
	v.density = steer_Density_DENSITY_NEVER;
	steer_compact_req back;
	CHECK(steer_wire_to_compact(&v, &back, err, sizeof err) == STEER_OK, "request: %s", err);
	CHECK(back.on && back.density == STEER_DENSITY_NEVER, "density mode lost");
	v.density = (steer_Density)7;
	CHECK(steer_wire_to_compact(&v, &back, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "density"),
	      "an unknown density mode was accepted");
}

int main(void)
{
	RUN(cells_hold_counts_and_mean_headings);
	RUN(auto_switches_at_one_vehicle_per_cell);
	RUN(frame_size_follows_the_grid);
	RUN(malformed_frames_are_refused);
	RUN(viewport_carries_the_density_mode);
	RUN(picked_vehicle_rides_along);
	return CHECK_DONE();
}
