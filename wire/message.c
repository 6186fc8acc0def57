#include "message.h"

#include <pb_decode.h>
#include <pb_encode.h>
#include <stdlib.h>
#include <string.h>

#include "reserve.h"
#include "share.h"

/* Sized first so the bytes go straight into the buffer. */
steer_status steer_wire_encode_frame(steer_strbuf *out, const pb_msgdesc_t *fields, const void *msg)
{
	size_t size;
	if (!pb_get_encoded_size(&size, fields, msg))
		return STEER_ERR_INVALID;
	/* Worst case: 10 bytes of length prefix + the message. */
	char *dst = steer_strbuf_reserve(out, size + 10);
	if (!dst)
		return STEER_ERR_NOMEM;
	pb_ostream_t s = pb_ostream_from_buffer((pb_byte_t *)dst, size + 10);
	if (!pb_encode_ex(&s, fields, msg, PB_ENCODE_DELIMITED))
		return STEER_ERR_INVALID;
	out->len += s.bytes_written;
	out->data[out->len] = '\0';
	return STEER_OK;
}

steer_SnapshotHeader steer_wire_header(const steer_world *w, bool paused)
{
	const steer_world_config *cfg = steer_world_config_get(w);
	return (steer_SnapshotHeader){
	    .tick = steer_world_tick(w),
	    .paused = paused,
	    .total_vehicles = (uint32_t)steer_world_vehicles_total(w),
	    .width = cfg->width,
	    .height = cfg->height,
	    .edges = (steer_Edges)cfg->edges,
	    .tick_rate = cfg->tick_rate,
	    .geometry_version = steer_world_geometry_version(w),
	};
}

void steer_wire_header_get(steer_snapshot *snap, const steer_SnapshotHeader *h)
{
	snap->tick = h->tick;
	snap->paused = h->paused;
	snap->total_vehicles = h->total_vehicles;
	snap->width = h->width;
	snap->height = h->height;
	snap->tick_rate = h->tick_rate;
	snap->edges = (steer_edges)h->edges;
	snap->geometry_version = h->geometry_version;
}

steer_Rect steer_wire_rect(const steer_view *v)
{
	return (steer_Rect){v->x0, v->y0, v->x1, v->y1};
}

steer_wire_obstacle_list steer_wire_obstacles_in(const steer_world *w, const steer_view *view)
{
	steer_wire_obstacle_list l = {NULL, 0, view};
	l.o = steer_world_obstacles(w, &l.n);
	return l;
}

bool steer_wire_enc_obstacles(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const steer_wire_obstacle_list *l = *arg;
	for (size_t k = 0; k < l->n; k++) {
		const steer_obstacle *o = &l->o[k];
		if (!steer_view_contains(l->view, o->x, o->y, o->r))
			continue;
		steer_Obstacle m = {o->id, (float)o->x, (float)o->y, (float)o->r};
		if (!pb_encode_tag_for_field(s, f) ||
		    !pb_encode_submessage(s, steer_Obstacle_fields, &m))
			return false;
	}
	return true;
}

typedef struct path_axis {
	const steer_path *path;
	int axis; /* 0 x, 1 y */
} path_axis;

static bool enc_path_axis(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const path_axis *p = *arg;
	if (p->path->count == 0)
		return true;
	if (!pb_encode_tag(s, PB_WT_STRING, f->tag) ||
	    !pb_encode_varint(s, 4 * (uint64_t)p->path->count))
		return false;
	for (uint32_t k = 0; k < p->path->count; k++) {
		const steer_vec2 *pt = &p->path->points[k];
		float v = (float)(p->axis ? pt->y : pt->x);
		if (!pb_encode_fixed32(s, &v))
			return false;
	}
	return true;
}

/* Routes are for drawing a few vehicles' intentions; a bound keeps a snapshot of a
 * crowd of path followers from growing without limit. */
#define STEER_MAX_ROUTES 256

static const uint32_t ROUTE_BITS =
    STEER_SEEK | STEER_FLEE | STEER_ARRIVE | STEER_PURSUE | STEER_EVADE | STEER_PATH;

bool steer_wire_enc_routes(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const steer_wire_route_list *l = *arg;
	const steer_vehicles *v = steer_world_vehicles(l->w);
	size_t sent = 0;
	for (size_t k = 0; k < l->n && sent < STEER_MAX_ROUTES; k++) {
		size_t i = l->idx[k];
		uint32_t b = v->behaviors[i];
		if (!(b & ROUTE_BITS))
			continue;
		const steer_vehicle_state *st = steer_vehicle_state_at(l->w, i);
		steer_Route r = steer_Route_init_zero;
		r.id = v->id[i];
		steer_vec2 t = b & STEER_ARRIVE ? st->arrive_target
		               : b & STEER_SEEK ? st->seek_target
		                                : st->flee_target;
		r.has_target = (b & (STEER_SEEK | STEER_ARRIVE | STEER_FLEE)) != 0;
		r.target_x = (float)t.x;
		r.target_y = (float)t.y;
		r.pursue_id = b & STEER_PURSUE ? st->pursue_id : 0;
		r.evade_id = b & STEER_EVADE ? st->evade_id : 0;
		path_axis px = {&st->path, 0}, py = {&st->path, 1};
		if (b & STEER_PATH) {
			r.path_x.funcs.encode = enc_path_axis;
			r.path_x.arg = &px;
			r.path_y.funcs.encode = enc_path_axis;
			r.path_y.arg = &py;
			r.path_index = st->path.index;
			r.path_loop = st->path.loop;
		}
		if (!pb_encode_tag_for_field(s, f) ||
		    !pb_encode_submessage(s, steer_Route_fields, &r))
			return false;
		sent++;
	}
	return true;
}

double steer_wire_feeler(const steer_world *w, const uint32_t *idx, size_t n)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double feeler = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		if ((v->behaviors[i] & STEER_AVOID) &&
		    steer_vehicle_params_at(w, i)->avoid_distance > feeler)
			feeler = steer_vehicle_params_at(w, i)->avoid_distance;
	}
	return feeler;
}

/* Makes index n of *p (elements of sz, *cap of them) valid, the new elements zeroed:
 * a route slot owns its paths, freed before reuse and by steer_snapshot_free. */
static bool reserve_zeroed(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t old = *cap;
	if (n < old)
		return true;
	if (n == SIZE_MAX || steer_reserve(p, cap, n + 1, sz) != STEER_OK)
		return false;
	memset((char *)*p + old * sz, 0, (*cap - old) * sz);
	return true;
}

bool steer_wire_dec_obstacle(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_snapshot *snap = *arg;
	steer_Obstacle o = steer_Obstacle_init_zero;
	if (!pb_decode(s, steer_Obstacle_fields, &o))
		return false;
	if (snap->nobstacles >= 1000000)
		PB_RETURN_ERROR(s, "too many obstacles");
	if (steer_reserve((void **)&snap->obstacles, &snap->obstacles_cap, snap->nobstacles + 1,
	                  sizeof *snap->obstacles) != STEER_OK)
		PB_RETURN_ERROR(s, "out of memory");
	steer_obstacle *d = &snap->obstacles[snap->nobstacles++];
	d->id = o.id;
	d->x = o.x;
	d->y = o.y;
	d->r = o.r;
	d->vx = d->vy = 0;
	return true;
}

typedef struct path_dec {
	steer_snap_route *r;
	int axis;
	uint32_t n;
	size_t cap;
} path_dec;

static bool dec_path(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	path_dec *p = *arg;
	float v;
	if (!pb_decode_fixed32(s, &v))
		return false;
	if (p->n >= STEER_MAX_WAYPOINTS)
		PB_RETURN_ERROR(s, "path too long");
	float **dst = p->axis ? &p->r->path_y : &p->r->path_x;
	if (steer_reserve((void **)dst, &p->cap, p->n + 1, sizeof **dst) != STEER_OK)
		PB_RETURN_ERROR(s, "out of memory");
	(*dst)[p->n++] = v;
	return true;
}

bool steer_wire_dec_route(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_snapshot *snap = *arg;
	if (snap->nroutes >= STEER_MAX_ROUTES * 4)
		PB_RETURN_ERROR(s, "too many routes");
	if (!reserve_zeroed((void **)&snap->routes, &snap->routes_cap, snap->nroutes,
	                    sizeof *snap->routes))
		PB_RETURN_ERROR(s, "out of memory");
	steer_snap_route *r = &snap->routes[snap->nroutes];
	/* Paths are reallocated from scratch for each frame's route slot. */
	free(r->path_x);
	free(r->path_y);
	memset(r, 0, sizeof *r);
	path_dec px = {r, 0, 0, 0}, py = {r, 1, 0, 0};
	steer_Route m = steer_Route_init_zero;
	m.path_x.funcs.decode = dec_path;
	m.path_x.arg = &px;
	m.path_y.funcs.decode = dec_path;
	m.path_y.arg = &py;
	if (!pb_decode(s, steer_Route_fields, &m))
		return false;
	r->id = m.id;
	r->has_target = m.has_target;
	r->target_x = m.target_x;
	r->target_y = m.target_y;
	r->pursue_id = m.pursue_id;
	r->evade_id = m.evade_id;
	r->path_index = m.path_index;
	r->path_loop = m.path_loop;
	r->npath = px.n < py.n ? px.n : py.n;
	snap->nroutes++;
	return true;
}

bool steer_wire_enc_blob(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const steer_blob *b = *arg;
	if (!b->len)
		return true;
	return pb_encode_tag_for_field(s, f) && pb_encode_string(s, b->data, b->len);
}

bool steer_wire_dec_blob(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_blob *b = *arg;
	size_t n = s->bytes_left;
	steer_blob_clear(b); /* a repeated field: the last one wins, as protobuf says */
	if (steer_blob_room(b, n) != STEER_OK)
		PB_RETURN_ERROR(s, "out of memory");
	if (n && !pb_read(s, b->data, n))
		return false;
	b->len = n;
	return true;
}

/* The direction of (x, y) in 256ths of a turn. libm's atan2 was most of the cost of
 * quantizing a frame: this folds the plane into the first octant and uses a minimax
 * polynomial for atan on [0, 1], within 1e-5 rad (a thousandth of a step). */
uint8_t steer_wire_direction_byte(double x, double y)
{
	double ax = fabs(x), ay = fabs(y);
	double hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
	if (!(hi > 0)) /* still, or NaN */
		return 0;
	double t = lo / hi, t2 = t * t;
	double a =
	    t *
	    (0.99997726 +
	     t2 * (-0.33262347 +
	           t2 * (0.19354346 + t2 * (-0.11643287 + t2 * (0.05265332 + t2 * -0.01172120)))));
	if (ay > ax)
		a = STEER_TAU / 4 - a;
	if (x < 0)
		a = STEER_TAU / 2 - a;
	if (y < 0)
		a = -a;
	/* a in [-pi, pi]: shifted positive so the cast truncates as floor would. */
	return (uint8_t)(unsigned)(a * (256.0 / STEER_TAU) + 256.5);
}
