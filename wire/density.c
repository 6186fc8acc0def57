/* DensitySnapshot: for a client zoomed out past one vehicle per cell of its map, the
 * count and mean heading of the vehicles in each cell instead of the vehicles. A
 * frame costs at most a few bytes per occupied cell, however many vehicles the view
 * holds, so bandwidth follows the terminal's size, not the world's. docs/PROTOCOL.md
 * specifies the bytes; this file is their only implementation, both ways. */
#include <math.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "message.h"
#include "reserve.h"
#include "serve.h"
#include "steer/bytes.h"
#include "steer/wire.h"
#include "wire_priv.h"

bool steer_density_wanted(const steer_compact_req *req, size_t n, bool was_dense)
{
	if (!req->on || req->density == STEER_DENSITY_NEVER)
		return false;
	uint64_t cells = (uint64_t)req->cols * req->rows;
	if (cells > STEER_DENSITY_MAX_CELLS)
		return false;
	/* More vehicles than cells: several must share a cell, which can show only one
	 * of them, and the vehicles would cost more bytes than the cells. */
	return req->density == STEER_DENSITY_ALWAYS || n > (was_dense ? cells / 2 : cells);
}

void steer_density_init(steer_density *d)
{
	memset(d, 0, sizeof *d);
}

void steer_density_free(steer_density *d)
{
	free(d->cell);
	free(d->cells.data);
	steer_density_init(d);
}

/* The occupied cells, row-major: empty cells skipped since the last one, count,
 * mean heading. */
static void encode_cells(steer_density *d, size_t cells)
{
	steer_blob *b = &d->cells;
	steer_blob_clear(b);
	size_t last = 0; /* cells before this index are written or skipped */
	for (size_t c = 0; c < cells; c++) {
		const steer_density_cell *e = &d->cell[c];
		if (!e->count)
			continue;
		steer_blob_put_varint(b, c - last);
		steer_blob_put_varint(b, e->count);
		steer_blob_put_byte(b, steer_wire_direction_byte(e->hx, e->hy));
		last = c + 1;
	}
}

steer_status steer_density_build(steer_density *d, const steer_world *w, const steer_view *view,
                                 uint32_t cols, uint32_t rows, const uint32_t *idx, size_t n)
{
	if (!view->set || cols < 1 || rows < 1 || cols > STEER_COMPACT_MAX_CELLS ||
	    rows > STEER_COMPACT_MAX_CELLS || (uint64_t)cols * rows > STEER_DENSITY_MAX_CELLS ||
	    !(view->x1 > view->x0) || !(view->y1 > view->y0))
		return STEER_ERR_INVALID;
	size_t cells = (size_t)cols * rows;
	if (steer_reserve((void **)&d->cell, &d->cap, cells, sizeof *d->cell) != STEER_OK)
		return STEER_ERR_NOMEM;
	d->view = *view;
	d->cols = cols;
	d->rows = rows;
	d->in_view = d->max_count = 0;
	memset(d->cell, 0, cells * sizeof *d->cell);
	const steer_vehicles *v = steer_world_vehicles(w);
	double sx = cols / (view->x1 - view->x0), sy = rows / (view->y1 - view->y0);
	for (size_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		double x = v->px[i], y = v->py[i];
		if (!(x >= view->x0 && x <= view->x1 && y >= view->y0 && y <= view->y1))
			continue; /* the margin: density stops at the view's edge */
		int col = steer_floor_clamp((x - view->x0) * sx, 0, (int)cols - 1);
		int row = steer_floor_clamp((y - view->y0) * sy, 0, (int)rows - 1);
		steer_density_cell *e = &d->cell[(size_t)row * cols + (size_t)col];
		e->count++;
		e->hx += v->hx[i];
		e->hy += v->hy[i];
		d->in_view++;
		if (e->count > d->max_count)
			d->max_count = e->count;
	}
	encode_cells(d, cells);
	return d->cells.oom ? STEER_ERR_NOMEM : STEER_OK;
}

steer_status steer_density_encode(steer_density *d)
{
	size_t cells = (size_t)d->cols * d->rows;
	d->in_view = d->max_count = 0;
	for (size_t c = 0; c < cells; c++) {
		d->in_view += d->cell[c].count;
		if (d->cell[c].count > d->max_count)
			d->max_count = d->cell[c].count;
	}
	encode_cells(d, cells);
	return d->cells.oom ? STEER_ERR_NOMEM : STEER_OK;
}

steer_status steer_wire_density(steer_strbuf *out, const steer_world *w, bool paused,
                                const steer_density *d)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_density_tag;
	steer_DensitySnapshot *s = &m.msg.density;
	s->has_header = true;
	s->header = steer_wire_header(w, paused);
	s->has_view = true;
	s->view = steer_wire_rect(&d->view);
	s->cols = d->cols;
	s->rows = d->rows;
	s->in_view = d->in_view;
	s->max_count = d->max_count;
	s->cells = (pb_callback_t){{.encode = steer_wire_enc_blob}, (void *)&d->cells};
	steer_wire_obstacle_list obs = steer_wire_obstacles_in(w, &d->view);
	s->obstacles = (pb_callback_t){{.encode = steer_wire_enc_obstacles}, &obs};
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

steer_status steer_wire_density_picked(steer_strbuf *out, const uint8_t *frame, size_t len,
                                       const steer_world *w, uint32_t id)
{
	long i = id ? steer_vehicle_index(w, id) : -1;
	if (i < 0)
		return STEER_ERR_NOENT;
	/* The frame: varint length, then ServerMessage { density (field 5) = body }. */
	steer_reader r = {frame, len, 0};
	uint64_t total, body;
	uint8_t tag;
	if (!steer_read_varint(&r, &total) || total != len - r.pos || !steer_read_byte(&r, &tag) ||
	    tag != (steer_ServerMessage_density_tag << 3 | PB_WT_STRING) ||
	    !steer_read_varint(&r, &body) || body != len - r.pos)
		return STEER_ERR_INVALID;
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_Picked pk = {
	    id,          (float)v->px[i], (float)v->py[i], (float)v->vx[i], (float)v->vy[i],
	    v->group[i], v->behaviors[i]};
	/* Protobuf merges a field appended to a message: the pick goes at the body's
	 * end, and both lengths grow by its size. */
	uint8_t pick[steer_Picked_size + 8];
	pb_ostream_t ps = pb_ostream_from_buffer(pick, sizeof pick);
	if (!pb_encode_tag(&ps, PB_WT_STRING, steer_DensitySnapshot_picked_tag) ||
	    !pb_encode_submessage(&ps, steer_Picked_fields, &pk))
		return STEER_ERR_INVALID;
	uint64_t grown = body + ps.bytes_written;
	pb_ostream_t sizing = PB_OSTREAM_SIZING;
	uint8_t head[32];
	pb_ostream_t hs = pb_ostream_from_buffer(head, sizeof head);
	if (!pb_encode_varint(&sizing, grown) ||
	    !pb_encode_varint(&hs, 1 + sizing.bytes_written + grown) ||
	    !pb_encode_tag(&hs, PB_WT_STRING, steer_ServerMessage_density_tag) ||
	    !pb_encode_varint(&hs, grown))
		return STEER_ERR_INVALID;
	steer_strbuf_put(out, (const char *)head, hs.bytes_written);
	steer_strbuf_put(out, (const char *)frame + r.pos, (size_t)body);
	steer_strbuf_put(out, (const char *)pick, ps.bytes_written);
	return out->oom ? STEER_ERR_NOMEM : STEER_OK;
}

/* --- decoding ------------------------------------------------------------------------ */

/* The cells field, read straight from the stream into snap->cells. The grid's size
 * is not known yet (fields may come in any order): positions are checked after. */
static bool dec_cells(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_snapshot *snap = *arg;
	snap->ncells = 0; /* a repeated field: the last one wins */
	uint64_t at = 0;
	while (s->bytes_left) {
		uint64_t skip, count;
		uint8_t heading;
		if (!pb_decode_varint(s, &skip) || !pb_decode_varint(s, &count) ||
		    !pb_read(s, &heading, 1))
			return false;
		at += skip;
		if (count < 1 || count > UINT32_MAX || at >= STEER_DENSITY_MAX_CELLS)
			PB_RETURN_ERROR(s, "density cell out of range");
		if (steer_reserve((void **)&snap->cells, &snap->cells_cap, snap->ncells + 1,
		                  sizeof *snap->cells) != STEER_OK)
			PB_RETURN_ERROR(s, "out of memory");
		/* col and row are filled in once cols is known. */
		snap->cells[snap->ncells++] =
		    (steer_snap_cell){(uint32_t)at, 0, (uint32_t)count, heading};
		at++;
	}
	return true;
}

static const char *check_density(const steer_DensitySnapshot *m, steer_snapshot *snap)
{
	const steer_Rect *v = &m->view;
	if (!m->has_view || !steer_view_rect_ok(v->x0, v->y0, v->x1, v->y1))
		return "without a valid view";
	if (m->cols < 1 || m->cols > STEER_COMPACT_MAX_CELLS || m->rows < 1 ||
	    m->rows > STEER_COMPACT_MAX_CELLS ||
	    (uint64_t)m->cols * m->rows > STEER_DENSITY_MAX_CELLS)
		return "with a grid out of range";
	uint64_t cells = (uint64_t)m->cols * m->rows, sum = 0;
	for (size_t k = 0; k < snap->ncells; k++) {
		steer_snap_cell *c = &snap->cells[k];
		if (c->col >= cells)
			return "with a cell outside its grid";
		sum += c->count;
		c->row = c->col / m->cols;
		c->col %= m->cols;
	}
	if (sum != m->in_view)
		return "whose counts do not add up to in_view";
	const steer_Picked *p = &m->picked;
	if (m->has_picked && (p->id == 0 || !isfinite(p->x) || !isfinite(p->y) ||
	                      !isfinite(p->vx) || !isfinite(p->vy)))
		return "with a picked vehicle without an id or a finite state";
	return NULL;
}

steer_status steer_wire_decode_density(pb_istream_t *s, steer_snapshot *snap, char *err,
                                       size_t errlen)
{
	snap->count = snap->nobstacles = snap->nroutes = snap->ncells = 0;
	steer_DensitySnapshot m = steer_DensitySnapshot_init_zero;
	m.cells = (pb_callback_t){{.decode = dec_cells}, snap};
	m.obstacles = (pb_callback_t){{.decode = steer_wire_dec_obstacle}, snap};
	if (!pb_decode(s, steer_DensitySnapshot_fields, &m)) {
		snap->ncells = 0;
		snprintf(err, errlen, "malformed ServerMessage: %s", PB_GET_ERROR(s));
		return STEER_ERR_INVALID;
	}
	const char *why = check_density(&m, snap);
	if (why) {
		snap->ncells = 0;
		snprintf(err, errlen, "malformed density snapshot: %s", why);
		return STEER_ERR_INVALID;
	}
	steer_wire_header_get(snap, &m.header);
	snap->has_view = true;
	snap->view = (steer_view){true, m.view.x0, m.view.y0, m.view.x1, m.view.y1};
	snap->avoid_distance_max = 0;
	snap->density = true;
	snap->dcols = m.cols;
	snap->drows = m.rows;
	snap->in_view = m.in_view;
	snap->max_count = m.max_count;
	if (m.has_picked) {
		if (steer_reserve((void **)&snap->v, &snap->cap, 1, sizeof *snap->v) != STEER_OK) {
			snap->ncells = 0;
			snprintf(err, errlen, "out of memory");
			return STEER_ERR_NOMEM;
		}
		const steer_Picked *p = &m.picked;
		snap->v[0] = (steer_snap_vehicle){
		    p->id, p->group, p->behaviors, p->x, p->y, p->vx, p->vy, 0, 0};
		snap->count = 1;
	}
	return STEER_OK;
}
