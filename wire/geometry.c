/* The Geometry message: the world's walls and polygons, sent whole after the Welcome
 * and again when they change (the server decides when), and the client's copy of
 * it. Snapshots carry only its version. */
#include <math.h>
#include <pb_decode.h>
#include <pb_encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "reserve.h"
#include "serve.h"
#include "wire_priv.h"

void steer_snap_geometry_clear(steer_snap_geometry *g)
{
	g->version = 0;
	g->contain = false;
	g->nwalls = g->npolygons = g->nvertices = 0;
}

void steer_snap_geometry_free(steer_snap_geometry *g)
{
	free(g->walls);
	free(g->polygons);
	free(g->vertices);
	memset(g, 0, sizeof *g);
}

/* --- encoding ---------------------------------------------------------------------- */

/* What the encode callbacks read. */
typedef struct geometry_src {
	const steer_world *w;
} geometry_src;

static bool enc_walls(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const steer_world *w = ((const geometry_src *)*arg)->w;
	size_t n;
	const steer_wall *wl = steer_world_walls(w, &n);
	for (size_t k = 0; k < n; k++) {
		steer_Wall m = {wl[k].id, wl[k].a.x, wl[k].a.y, wl[k].b.x, wl[k].b.y};
		if (!pb_encode_tag_for_field(s, f) ||
		    !pb_encode_submessage(s, steer_Wall_fields, &m))
			return false;
	}
	return true;
}

typedef struct poly_axis {
	const steer_polygon *p;
	int axis; /* 0 x, 1 y */
} poly_axis;

static bool enc_poly_axis(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const poly_axis *a = *arg;
	if (a->p->count == 0)
		return true;
	if (!pb_encode_tag(s, PB_WT_STRING, f->tag) ||
	    !pb_encode_varint(s, 8 * (uint64_t)a->p->count))
		return false;
	for (uint32_t k = 0; k < a->p->count; k++) {
		double v = a->axis ? a->p->points[k].y : a->p->points[k].x;
		if (!pb_encode_fixed64(s, &v))
			return false;
	}
	return true;
}

static bool enc_polygons(pb_ostream_t *s, const pb_field_t *f, void *const *arg)
{
	const steer_world *w = ((const geometry_src *)*arg)->w;
	size_t n;
	const steer_polygon *p = steer_world_polygons(w, &n);
	for (size_t k = 0; k < n; k++) {
		poly_axis ax = {&p[k], 0}, ay = {&p[k], 1};
		steer_Polygon m = steer_Polygon_init_zero;
		m.id = p[k].id;
		m.inside = p[k].inside;
		m.x = (pb_callback_t){{.encode = enc_poly_axis}, &ax};
		m.y = (pb_callback_t){{.encode = enc_poly_axis}, &ay};
		if (!pb_encode_tag_for_field(s, f) ||
		    !pb_encode_submessage(s, steer_Polygon_fields, &m))
			return false;
	}
	return true;
}

steer_status steer_wire_geometry(steer_strbuf *out, const steer_world *w)
{
	steer_ServerMessage m = steer_ServerMessage_init_zero;
	m.which_msg = steer_ServerMessage_geometry_tag;
	steer_Geometry *g = &m.msg.geometry;
	g->version = steer_world_geometry_version(w);
	g->contain = steer_world_config_get(w)->contain;
	geometry_src src = {w};
	g->walls = (pb_callback_t){{.encode = enc_walls}, &src};
	g->polygons = (pb_callback_t){{.encode = enc_polygons}, &src};
	return steer_wire_encode_frame(out, steer_ServerMessage_fields, &m);
}

/* --- decoding ---------------------------------------------------------------------- */

static bool dec_wall(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_snap_geometry *g = *arg;
	steer_Wall m = steer_Wall_init_zero;
	if (!pb_decode(s, steer_Wall_fields, &m))
		return false;
	if (!isfinite(m.x0) || !isfinite(m.y0) || !isfinite(m.x1) || !isfinite(m.y1))
		PB_RETURN_ERROR(s, "a wall's end is not finite");
	if (g->nwalls >= STEER_GEOMETRY_MAX_WALLS)
		PB_RETURN_ERROR(s, "too many walls");
	if (steer_reserve((void **)&g->walls, &g->walls_cap, g->nwalls + 1, sizeof *g->walls) !=
	    STEER_OK)
		PB_RETURN_ERROR(s, "out of memory");
	g->walls[g->nwalls++] = (steer_snap_wall){m.id, m.x0, m.y0, m.x1, m.y1};
	return true;
}

/* One axis of a polygon's packed vertices, written into the geometry's vertex array
 * from the polygon's first vertex on; the other axis may come first. */
typedef struct axis_dec {
	steer_snap_geometry *g;
	size_t first;
	size_t n;
	int axis; /* 0 x, 1 y */
} axis_dec;

static bool dec_axis(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	axis_dec *a = *arg;
	steer_snap_geometry *g = a->g;
	double v;
	if (!pb_decode_fixed64(s, &v))
		return false;
	if (!isfinite(v))
		PB_RETURN_ERROR(s, "a polygon's vertex is not finite");
	size_t k = a->first + a->n;
	if (k >= STEER_GEOMETRY_MAX_VERTICES)
		PB_RETURN_ERROR(s, "too many polygon vertices");
	if (k >= g->nvertices) {
		if (steer_reserve((void **)&g->vertices, &g->vertices_cap, k + 1,
		                  sizeof *g->vertices) != STEER_OK)
			PB_RETURN_ERROR(s, "out of memory");
		g->vertices[k] = (steer_vec2){0, 0};
		g->nvertices = k + 1;
	}
	if (a->axis)
		g->vertices[k].y = v;
	else
		g->vertices[k].x = v;
	a->n++;
	return true;
}

static bool dec_polygon(pb_istream_t *s, const pb_field_t *f, void **arg)
{
	(void)f;
	steer_snap_geometry *g = *arg;
	size_t first = g->nvertices;
	axis_dec ax = {g, first, 0, 0}, ay = {g, first, 0, 1};
	steer_Polygon m = steer_Polygon_init_zero;
	m.x = (pb_callback_t){{.decode = dec_axis}, &ax};
	m.y = (pb_callback_t){{.decode = dec_axis}, &ay};
	if (!pb_decode(s, steer_Polygon_fields, &m))
		return false;
	if (ax.n != ay.n)
		PB_RETURN_ERROR(s, "a polygon's x and y differ in length");
	if (ax.n < 3)
		PB_RETURN_ERROR(s, "a polygon with fewer than 3 vertices");
	if (g->npolygons >= STEER_GEOMETRY_MAX_WALLS)
		PB_RETURN_ERROR(s, "too many polygons");
	if (steer_reserve((void **)&g->polygons, &g->polygons_cap, g->npolygons + 1,
	                  sizeof *g->polygons) != STEER_OK)
		PB_RETURN_ERROR(s, "out of memory");
	g->polygons[g->npolygons++] = (steer_snap_polygon){m.id, m.inside, first, ax.n};
	return true;
}

steer_status steer_wire_decode_geometry(pb_istream_t *s, steer_snap_geometry *out, char *err,
                                        size_t errlen)
{
	/* Into a fresh one, swapped in whole: a malformed message leaves the last. */
	steer_snap_geometry g = {0};
	steer_Geometry m = steer_Geometry_init_zero;
	m.walls = (pb_callback_t){{.decode = dec_wall}, &g};
	m.polygons = (pb_callback_t){{.decode = dec_polygon}, &g};
	if (!pb_decode(s, steer_Geometry_fields, &m)) {
		snprintf(err, errlen, "malformed Geometry: %s", PB_GET_ERROR(s));
		steer_snap_geometry_free(&g);
		return STEER_ERR_INVALID;
	}
	g.version = m.version;
	g.contain = m.contain;
	steer_snap_geometry_free(out);
	*out = g;
	return STEER_OK;
}
