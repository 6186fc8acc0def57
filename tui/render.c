/* The picture is built by drawing layers from the lowest priority to the highest, each
 * overwriting what is below, so priority is just drawing order. Everything that can
 * reach far off-screen (lines, discs, the border) is cut to the grid in floating
 * point before any cell index is formed, so a waypoint at 1e30 costs no more than
 * one on screen and never overflows an int. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "reserve.h"
#include "steer/vec2.h"
#include "steer/wire.h"
#include "utf8.h"

/* Below this speed the heading is noise: show the vehicle as still. */
#define STILL_SPEED 1e-6
/* World units of force-line per unit of steering force, and its cap in cells, so the
 * default max_force (200) reads as a few cells at the default zoom and a huge force
 * does not paint a line across the map. */
#define FORCE_LENGTH    0.25
#define FORCE_MAX_CELLS 8.0
/* One of the eight compass sectors. */
#define SECTOR_ANGLE (STEER_TAU / 8)

int tui_grid_resize(tui_grid *g, int cols, int rows)
{
	if (cols <= 0 || rows <= 0) {
		g->cols = g->rows = 0;
		return 0;
	}
	/* tui_grid_at indexes with int arithmetic, so the whole grid must fit in an int. */
	if (cols > INT_MAX / rows) {
		g->cols = g->rows = 0;
		return -1;
	}
	size_t n = (size_t)cols * (size_t)rows;
	if (n != (size_t)g->cols * (size_t)g->rows || !g->cells) {
		/* The old block stays owned on failure so tui_grid_free still releases it. */
		if (steer_resize((void **)&g->cells, n, sizeof *g->cells) != STEER_OK) {
			g->cols = g->rows = 0;
			return -1;
		}
	}
	g->cols = cols;
	g->rows = rows;
	memset(g->cells, 0, n * sizeof *g->cells);
	return 0;
}

void tui_grid_free(tui_grid *g)
{
	free(g->cells);
	g->cells = NULL;
	g->cols = g->rows = 0;
}

void tui_speed_text(double vx, double vy, char *out, size_t n)
{
	double q = STEER_COMPACT_SPEED_Q;
	snprintf(out, n, "%.1f", floor(hypot(vx, vy) / q + 0.5) * q);
}

tui_glyph tui_heading_glyph(double vx, double vy)
{
	if (!(hypot(vx, vy) >= STILL_SPEED)) /* NaN too */
		return G_STILL;
	/* Negate y: world y grows down, compass angles grow counter-clockwise from east. */
	double a = atan2(-vy, vx);
	int sector = (int)floor(a / SECTOR_ANGLE + 0.5);
	sector = ((sector % 8) + 8) % 8;
	return (tui_glyph)(G_ARROW_E + sector);
}

static const char *const glyph_utf8[G_COUNT] = {
    [G_EMPTY] = " ",   [G_BORDER_H] = "─", [G_BORDER_V] = "│", [G_CORNER] = "+",
    [G_WALL_H] = "━",  [G_WALL_V] = "┃",   [G_WALL_UP] = "╱",  [G_WALL_DOWN] = "╲",
    [G_FEELER] = ":",  [G_FORCE] = "∙",    [G_PATH] = "·",     [G_WAYPOINT] = "o",
    [G_TARGET] = "✕",  [G_OBSTACLE] = "█", [G_ARROW_E] = "→",  [G_ARROW_NE] = "↗",
    [G_ARROW_N] = "↑", [G_ARROW_NW] = "↖", [G_ARROW_W] = "←",  [G_ARROW_SW] = "↙",
    [G_ARROW_S] = "↓", [G_ARROW_SE] = "↘", [G_STILL] = "•",    [G_CURSOR] = "▒",
};

static const char *const glyph_ascii[G_COUNT] = {
    [G_EMPTY] = " ",   [G_BORDER_H] = "-",  [G_BORDER_V] = "|", [G_CORNER] = "+",
    [G_WALL_H] = "=",  [G_WALL_V] = "|",    [G_WALL_UP] = "/",  [G_WALL_DOWN] = "\\",
    [G_FEELER] = ":",  [G_FORCE] = "*",     [G_PATH] = ".",     [G_WAYPOINT] = "o",
    [G_TARGET] = "X",  [G_OBSTACLE] = "#",  [G_ARROW_E] = ">",  [G_ARROW_NE] = "/",
    [G_ARROW_N] = "^", [G_ARROW_NW] = "\\", [G_ARROW_W] = "<",  [G_ARROW_SW] = "/",
    [G_ARROW_S] = "v", [G_ARROW_SE] = "\\", [G_STILL] = "o",    [G_CURSOR] = "+",
};

const char *tui_glyph_text(tui_glyph g, bool utf8)
{
	if ((unsigned)g >= G_COUNT)
		return "?"; /* visible rather than silently blank */
	return utf8 ? glyph_utf8[g] : glyph_ascii[g];
}

void tui_grid_row_ascii(const tui_grid *g, int row, char *out)
{
	if (!g->cells || row < 0 || row >= g->rows) {
		out[0] = '\0';
		return;
	}
	for (int c = 0; c < g->cols; c++)
		out[c] = tui_glyph_text((tui_glyph)g->cells[row * g->cols + c].glyph, false)[0];
	out[g->cols] = '\0';
}

/* --- drawing ----------------------------------------------------------------------- */

/* Camera geometry in the form the drawing needs: fractional cell coordinates are
 * u = (x - left) / sx, v = (y - top) / sy, and the cell is their floor. */
typedef struct view {
	tui_grid *g;
	const tui_camera *cam;
	double left, top, sx, sy;
	/* Cells outside [c0, c1] x [r0, r1] are not drawn (the whole grid unless a
	 * drawing narrows it). */
	int c0, c1, r0, r1;
} view;

static void put(const view *w, int col, int row, tui_glyph gl, tui_color co, bool bold)
{
	if (col < 0 || row < 0 || col >= w->g->cols || row >= w->g->rows || col < w->c0 ||
	    col > w->c1 || row < w->r0 || row > w->r1)
		return;
	tui_cell *c = tui_grid_at(w->g, col, row);
	c->glyph = (uint8_t)gl;
	c->color = (uint8_t)co;
	c->bold = bold;
}

static bool in_grid(const view *w, int col, int row)
{
	return col >= 0 && row >= 0 && col < w->g->cols && row < w->g->rows;
}

/* The grid plus one cell each side, so a clipped line still leaves the screen through
 * the right edge cell rather than stopping one short of it. */
static double clip_hi_u(const view *w)
{
	return w->g->cols + 1.0;
}

static double clip_hi_v(const view *w)
{
	return w->g->rows + 1.0;
}

/* Liang-Barsky against [lo_u, hi_u] x [lo_v, hi_v]; false when nothing is left. */
static bool clip_to_box(double *u0, double *v0, double *u1, double *v1, double lo_u, double lo_v,
                        double hi_u, double hi_v)
{
	if (!isfinite(*u0) || !isfinite(*v0) || !isfinite(*u1) || !isfinite(*v1))
		return false;
	double du = *u1 - *u0, dv = *v1 - *v0;
	double p[4] = {-du, du, -dv, dv};
	double q[4] = {*u0 - lo_u, hi_u - *u0, *v0 - lo_v, hi_v - *v0};
	double t0 = 0, t1 = 1;
	for (int k = 0; k < 4; k++) {
		if (p[k] == 0) {
			if (q[k] < 0)
				return false;
			continue;
		}
		double t = q[k] / p[k];
		if (p[k] < 0) {
			if (t > t1)
				return false;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return false;
			if (t < t1)
				t1 = t;
		}
	}
	double a = *u0, b = *v0;
	*u0 = a + t0 * du;
	*v0 = b + t0 * dv;
	*u1 = a + t1 * du;
	*v1 = b + t1 * dv;
	return true;
}

/* Against [-1, umax] x [-1, vmax]: the grid and a cell beyond it. */
static bool clip_segment(double *u0, double *v0, double *u1, double *v1, double umax, double vmax)
{
	return clip_to_box(u0, v0, u1, v1, -1, -1, umax, vmax);
}

static void line_frac(const view *w, double u0, double v0, double u1, double v1, tui_glyph gl,
                      tui_color co)
{
	if (!clip_segment(&u0, &v0, &u1, &v1, clip_hi_u(w), clip_hi_v(w)))
		return;
	/* After clipping every coordinate is within the grid +-1, so these are small. */
	int c0 = (int)floor(u0), r0 = (int)floor(v0);
	int c1 = (int)floor(u1), r1 = (int)floor(v1);
	int dc = abs(c1 - c0), dr = -abs(r1 - r0);
	int sc = c0 < c1 ? 1 : -1, sr = r0 < r1 ? 1 : -1;
	int err = dc + dr;
	for (;;) {
		put(w, c0, r0, gl, co, false);
		if (c0 == c1 && r0 == r1)
			break;
		int e2 = 2 * err;
		if (e2 >= dr) {
			err += dr;
			c0 += sc;
		}
		if (e2 <= dc) {
			err += dc;
			r0 += sr;
		}
	}
}

static double frac_u(const view *w, double x)
{
	return (x - w->left) / w->sx;
}

static double frac_v(const view *w, double y)
{
	return (y - w->top) / w->sy;
}

static void line_world(const view *w, double x0, double y0, double x1, double y1, tui_glyph gl,
                       tui_color co)
{
	line_frac(w, frac_u(w, x0), frac_v(w, y0), frac_u(w, x1), frac_v(w, y1), gl, co);
}

/* floor(u) clamped to [lo, hi]; NaN gives lo. */
static int clamp_cell(double u, int lo, int hi)
{
	if (!(u >= lo))
		return lo;
	if (u >= hi)
		return hi;
	return (int)floor(u);
}

static void draw_border(const view *w, const steer_snapshot *s)
{
	/* Bounds that are walls look like walls. */
	tui_color co = s->geometry.contain ? C_WALL : C_BORDER;
	/* The rectangle means nothing in an unbounded world: vehicles cross it freely. */
	if (s->edges == STEER_EDGE_NONE || !isfinite(s->width) || !isfinite(s->height))
		return;
	double u0 = frac_u(w, 0), u1 = frac_u(w, s->width);
	double v0 = frac_v(w, 0), v1 = frac_v(w, s->height);
	if (!isfinite(u0) || !isfinite(u1) || !isfinite(v0) || !isfinite(v1))
		return;
	/* The border takes the cells just outside those the world touches. Positions far
	 * off-screen are pinned a couple of cells outside, which draws the same. */
	int cols = w->g->cols, rows = w->g->rows;
	int cl = clamp_cell(floor(u0) - 1, -2, cols + 1);
	int cr = clamp_cell(ceil(u1), -2, cols + 1);
	int rt = clamp_cell(floor(v0) - 1, -2, rows + 1);
	int rb = clamp_cell(ceil(v1), -2, rows + 1);
	int ca = cl + 1 > 0 ? cl + 1 : 0, cb = cr - 1 < cols - 1 ? cr - 1 : cols - 1;
	int ra = rt + 1 > 0 ? rt + 1 : 0, rz = rb - 1 < rows - 1 ? rb - 1 : rows - 1;
	for (int c = ca; c <= cb; c++) {
		put(w, c, rt, G_BORDER_H, co, false);
		put(w, c, rb, G_BORDER_H, co, false);
	}
	for (int r = ra; r <= rz; r++) {
		put(w, cl, r, G_BORDER_V, co, false);
		put(w, cr, r, G_BORDER_V, co, false);
	}
	put(w, cl, rt, G_CORNER, co, false);
	put(w, cr, rt, G_CORNER, co, false);
	put(w, cl, rb, G_CORNER, co, false);
	put(w, cr, rb, G_CORNER, co, false);
}

tui_glyph tui_line_glyph(double du, double dv)
{
	double adu = fabs(du), adv = fabs(dv);
	/* Cells are twice as tall as wide: a line one row down for every two columns is
	 * already steep on screen, and is drawn one diagonal glyph per cell. */
	if (!(adv > 0.5 * adu)) /* NaN too: a dot of a line still shows */
		return G_WALL_H;
	if (adv > 2 * adu)
		return G_WALL_V;
	return (du > 0) == (dv > 0) ? G_WALL_DOWN : G_WALL_UP;
}

/* Most tiles of a wrapping world one segment is drawn in: a segment spanning more is
 * a world far smaller than its walls, and shows the first ones only. */
#define WRAP_TILES_MAX 64

/* floor(v / size) as a tile number, clamped so the loops stay bounded. */
static long tile_of(double v, double size)
{
	double t = floor(v / size);
	return t < -1e6 ? -1000000 : t > 1e6 ? 1000000 : (long)t;
}

/* Segment (x0,y0)-(x1,y1) of the world as lines. In a wrapping world each part of it
 * is drawn where a vehicle at that point would be: the segment is cut at the edges
 * and every piece moved into [0, width] x [0, height]. */
static void draw_segment(const view *w, const steer_snapshot *s, double x0, double y0, double x1,
                         double y1, tui_color co)
{
	if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
		return;
	tui_glyph gl = tui_line_glyph((x1 - x0) / w->sx, (y1 - y0) / w->sy);
	double W = s->width, H = s->height;
	if (s->edges != STEER_EDGE_WRAP || !(W > 0) || !(H > 0) || !isfinite(W) || !isfinite(H)) {
		line_world(w, x0, y0, x1, y1, gl, co);
		return;
	}
	long i0 = tile_of(fmin(x0, x1), W), i1 = tile_of(fmax(x0, x1), W);
	long j0 = tile_of(fmin(y0, y1), H), j1 = tile_of(fmax(y0, y1), H);
	if (i1 - i0 >= WRAP_TILES_MAX)
		i1 = i0 + WRAP_TILES_MAX - 1;
	if (j1 - j0 >= WRAP_TILES_MAX)
		j1 = j0 + WRAP_TILES_MAX - 1;
	for (long i = i0; i <= i1; i++)
		for (long j = j0; j <= j1; j++) {
			double ox = (double)i * W, oy = (double)j * H;
			double a = x0 - ox, b = y0 - oy, c = x1 - ox, d = y1 - oy;
			if (clip_to_box(&a, &b, &c, &d, 0, 0, W, H))
				line_world(w, a, b, c, d, gl, co);
		}
}

/* Walls, and polygon outlines (the last vertex joined to the first). */
static void draw_geometry(const view *w, const steer_snapshot *s)
{
	const steer_snap_geometry *g = &s->geometry;
	for (size_t k = 0; k < g->nwalls; k++) {
		const steer_snap_wall *wl = &g->walls[k];
		draw_segment(w, s, wl->x0, wl->y0, wl->x1, wl->y1, C_WALL);
	}
	for (size_t k = 0; k < g->npolygons; k++) {
		const steer_snap_polygon *p = &g->polygons[k];
		if (p->first > g->nvertices || p->count > g->nvertices - p->first)
			continue; /* not what the decoder builds; never read past the array */
		const steer_vec2 *v = &g->vertices[p->first];
		for (size_t e = 0; e < p->count; e++) {
			const steer_vec2 *a = &v[e], *b = &v[(e + 1) % p->count];
			draw_segment(w, s, a->x, a->y, b->x, b->y, C_WALL);
		}
	}
}

/* The cells [c0, c1] x [r0, r1] a bounded world's rectangle covers in a cols x rows
 * map, inside its border (draw_border takes the cells just outside these); false for
 * an unbounded world, which has none. */
static bool world_box(const tui_camera *cam, const steer_snapshot *s, int cols, int rows, int *c0,
                      int *c1, int *r0, int *r1)
{
	if (s->edges == STEER_EDGE_NONE || !isfinite(s->width) || !isfinite(s->height))
		return false;
	double left, top, right, bottom;
	tui_camera_bounds(cam, &left, &top, &right, &bottom);
	double sx = cam->scale, sy = cam->scale * TUI_CELL_ASPECT;
	double u0 = (0 - left) / sx, u1 = (s->width - left) / sx;
	double v0 = (0 - top) / sy, v1 = (s->height - top) / sy;
	if (!isfinite(u0) || !isfinite(u1) || !isfinite(v0) || !isfinite(v1))
		return false;
	*c0 = clamp_cell(floor(u0), -1, cols);
	*c1 = clamp_cell(ceil(u1) - 1, -1, cols);
	*r0 = clamp_cell(floor(v0), -1, rows);
	*r1 = clamp_cell(ceil(v1) - 1, -1, rows);
	return true;
}

/* The cell a vehicle is drawn (and picked) in. A bounded world keeps its vehicles
 * inside, but a compact snapshot rounds positions to its quanta and one at the very
 * edge can come back a hair outside, in the border's cell: it is drawn in the world's
 * cell next to it. Farther out it is not the world's and stays where it is. */
static void vehicle_cell_of(const tui_camera *cam, const steer_snapshot *s, int cols, int rows,
                            const steer_snap_vehicle *v, int *col, int *row)
{
	tui_camera_to_cell(cam, v->x, v->y, col, row);
	int c0, c1, r0, r1;
	if (!isfinite(v->x) || !isfinite(v->y) ||
	    !world_box(cam, s, cols, rows, &c0, &c1, &r0, &r1))
		return;
	if (*col == c0 - 1 || *col == c1 + 1)
		*col = *col < c0 ? c0 : c1;
	if (*row == r0 - 1 || *row == r1 + 1)
		*row = *row < r0 ? r0 : r1;
}

static bool vehicle_cell(const view *w, const steer_snapshot *s, const steer_snap_vehicle *v,
                         int *col, int *row)
{
	vehicle_cell_of(w->cam, s, w->g->cols, w->g->rows, v, col, row);
	return in_grid(w, *col, *row);
}

/* The cells a bounded world's rectangle covers, inside its border; the whole grid
 * for an unbounded one. */
static void world_cells(const view *w, const steer_snapshot *s, view *out)
{
	*out = *w;
	int c0, c1, r0, r1;
	if (!world_box(w->cam, s, w->g->cols, w->g->rows, &c0, &c1, &r0, &r1))
		return;
	out->c0 = c0;
	out->c1 = c1;
	out->r0 = r0;
	out->r1 = r1;
}

/* The steering force and the avoidance feeler, kept within the world's rectangle:
 * beyond it they would pass for geometry. */
static void draw_aids(const view *world, const steer_snapshot *s)
{
	view clipped;
	world_cells(world, s, &clipped);
	const view *w = &clipped;
	for (size_t k = 0; k < s->count; k++) {
		const steer_snap_vehicle *v = &s->v[k];
		int col, row;
		if (!vehicle_cell(w, s, v, &col, &row))
			continue;
		double u = frac_u(w, v->x), vv = frac_v(w, v->y);
		double speed = hypot(v->vx, v->vy);
		double feeler = s->avoid_distance_max;
		if ((v->behaviors & STEER_AVOID) && speed >= STILL_SPEED && isfinite(speed) &&
		    feeler > 0 && isfinite(feeler)) {
			double hx = v->vx / speed, hy = v->vy / speed;
			line_world(w, v->x, v->y, v->x + hx * feeler, v->y + hy * feeler, G_FEELER,
			           C_AID);
		}
		double du = v->fx * FORCE_LENGTH / w->sx, dv = v->fy * FORCE_LENGTH / w->sy;
		if (!isfinite(du) || !isfinite(dv))
			continue;
		double len = fmax(fabs(du), fabs(dv));
		if (len < 1e-12)
			continue;
		if (len > FORCE_MAX_CELLS) {
			du *= FORCE_MAX_CELLS / len;
			dv *= FORCE_MAX_CELLS / len;
		}
		line_frac(w, u, vv, u + du, vv + dv, G_FORCE, C_AID);
	}
}

static const steer_snap_vehicle *find_vehicle(const steer_snapshot *s, uint32_t id)
{
	if (id == 0)
		return NULL;
	for (size_t k = 0; k < s->count; k++)
		if (s->v[k].id == id)
			return &s->v[k];
	return NULL;
}

static void draw_route(const view *w, const steer_snapshot *s, uint32_t id)
{
	const steer_snap_route *rt = NULL;
	for (size_t k = 0; id && k < s->nroutes; k++)
		if (s->routes[k].id == id)
			rt = &s->routes[k];
	if (!rt)
		return;
	const steer_snap_vehicle *self = find_vehicle(s, id);
	uint32_t chased[2] = {rt->pursue_id, rt->evade_id};
	for (int k = 0; self && k < 2; k++) {
		const steer_snap_vehicle *o = find_vehicle(s, chased[k]);
		if (o)
			line_world(w, self->x, self->y, o->x, o->y, G_PATH, C_PATH);
	}
	uint32_t n = rt->path_x && rt->path_y ? rt->npath : 0;
	for (uint32_t k = 0; k + 1 < n; k++)
		line_world(w, rt->path_x[k], rt->path_y[k], rt->path_x[k + 1], rt->path_y[k + 1],
		           G_PATH, C_PATH);
	if (rt->path_loop && n > 2)
		line_world(w, rt->path_x[n - 1], rt->path_y[n - 1], rt->path_x[0], rt->path_y[0],
		           G_PATH, C_PATH);
	for (uint32_t k = 0; k < n; k++) {
		int col, row;
		tui_camera_to_cell(w->cam, rt->path_x[k], rt->path_y[k], &col, &row);
		put(w, col, row, G_WAYPOINT, C_PATH, false);
	}
	if (rt->has_target) {
		int col, row;
		tui_camera_to_cell(w->cam, rt->target_x, rt->target_y, &col, &row);
		put(w, col, row, G_TARGET, C_TARGET, false);
	}
}

static void draw_obstacles(const view *w, const steer_snapshot *s)
{
	int cols = w->g->cols, rows = w->g->rows;
	for (size_t k = 0; k < s->nobstacles; k++) {
		const steer_obstacle *o = &s->obstacles[k];
		double r = o->r > 0 ? o->r : 0;
		double ua = frac_u(w, o->x - r), ub = frac_u(w, o->x + r);
		double va = frac_v(w, o->y - r), vb = frac_v(w, o->y + r);
		if (!(isfinite(ua) && isfinite(ub) && isfinite(va) && isfinite(vb)))
			continue;
		if (ub < 0 || vb < 0 || ua >= cols || va >= rows)
			continue;
		int c0 = clamp_cell(ua, 0, cols - 1), c1 = clamp_cell(ub, 0, cols - 1);
		int r0 = clamp_cell(va, 0, rows - 1), r1 = clamp_cell(vb, 0, rows - 1);
		/* Distances in world units, where the disc is round; in cells it is an
		 * ellipse twice as wide as tall. */
		for (int row = r0; row <= r1; row++)
			for (int col = c0; col <= c1; col++) {
				double cx, cy;
				tui_camera_to_world(w->cam, col, row, &cx, &cy);
				double dx = cx - o->x, dy = cy - o->y;
				if (dx * dx + dy * dy <= r * r)
					put(w, col, row, G_OBSTACLE, C_OBSTACLE, false);
			}
		/* A disc smaller than a cell may miss every cell centre; it still exists. */
		int col, row;
		tui_camera_to_cell(w->cam, o->x, o->y, &col, &row);
		put(w, col, row, G_OBSTACLE, C_OBSTACLE, false);
	}
}

static void draw_vehicle(const view *w, const steer_snapshot *s, const steer_snap_vehicle *v,
                         bool selected)
{
	int col, row;
	if (!vehicle_cell(w, s, v, &col, &row))
		return;
	tui_color co = selected ? C_SELECTED : (tui_color)(C_GROUP0 + v->group % 6);
	put(w, col, row, tui_heading_glyph(v->vx, v->vy), co, selected);
}

tui_color tui_heat_color(uint32_t count)
{
	int k = 0;
	while (k < 4 && count >= (2u << k))
		k++;
	return (tui_color)(C_HEAT1 + k);
}

/* A density frame's cells, each at its centre in world units, so a frame drawn
 * after a pan or zoom (before the next one arrives) still lands in place. */
static void draw_density(const view *w, const steer_snapshot *s)
{
	double cw = (s->view.x1 - s->view.x0) / s->dcols, ch = (s->view.y1 - s->view.y0) / s->drows;
	for (size_t k = 0; k < s->ncells; k++) {
		const steer_snap_cell *c = &s->cells[k];
		int col, row;
		tui_camera_to_cell(w->cam, s->view.x0 + (c->col + 0.5) * cw,
		                   s->view.y0 + (c->row + 0.5) * ch, &col, &row);
		if (!in_grid(w, col, row))
			continue;
		double a = c->heading * (STEER_TAU / 256.0);
		tui_color co = tui_heat_color(c->count);
		put(w, col, row, tui_heading_glyph(cos(a), sin(a)), co, co >= C_HEAT4);
	}
}

static bool is_vehicle_glyph(uint8_t g)
{
	return g >= G_ARROW_E && g <= G_STILL;
}

void tui_render(tui_grid *g, const steer_snapshot *s, const tui_camera *cam,
                const tui_render_opts *o)
{
	if (!g->cells || g->cols <= 0 || g->rows <= 0)
		return;
	memset(g->cells, 0, (size_t)g->cols * (size_t)g->rows * sizeof *g->cells);
	if (!(cam->scale > 0) || !isfinite(cam->scale))
		return;
	view w = {.g = g,
	          .cam = cam,
	          .sx = cam->scale,
	          .sy = cam->scale * TUI_CELL_ASPECT,
	          .c0 = 0,
	          .c1 = g->cols - 1,
	          .r0 = 0,
	          .r1 = g->rows - 1};
	double x1, y1;
	tui_camera_bounds(cam, &w.left, &w.top, &x1, &y1);

	/* Aids first: the border and the walls win the cells they share. */
	if (o->debug)
		draw_aids(&w, s);
	draw_border(&w, s);
	draw_geometry(&w, s);
	draw_route(&w, s, o->selected);
	draw_obstacles(&w, s);
	if (s->density)
		draw_density(&w, s);
	/* The selected vehicle last, so it wins a cell it shares with others. */
	const steer_snap_vehicle *sel = NULL;
	for (size_t k = 0; k < s->count; k++) {
		if (o->selected && s->v[k].id == o->selected)
			sel = &s->v[k];
		else
			draw_vehicle(&w, s, &s->v[k], false);
	}
	if (sel)
		draw_vehicle(&w, s, sel, true);

	if (o->show_cursor && in_grid(&w, o->cursor_col, o->cursor_row)) {
		tui_cell *c = tui_grid_at(g, o->cursor_col, o->cursor_row);
		/* The selection keeps its colours under the cursor: following, the cursor
		 * sits on it at the centre. */
		if (is_vehicle_glyph(c->glyph) && c->color == C_SELECTED) {
			c->bold = true;
		} else if (is_vehicle_glyph(c->glyph)) {
			c->bold = true;
			c->color = C_CURSOR;
		} else {
			put(&w, o->cursor_col, o->cursor_row, G_CURSOR, C_CURSOR, false);
		}
	}
}

uint32_t tui_pick(const steer_snapshot *s, const tui_camera *cam, int col, int row, int tolerance)
{
	double cx, cy;
	tui_camera_to_world(cam, col, row, &cx, &cy);
	uint32_t in_cell = 0, near = 0;
	double best_in = INFINITY, best_near = INFINITY;
	for (size_t k = 0; k < s->count; k++) {
		const steer_snap_vehicle *v = &s->v[k];
		int vc, vr;
		vehicle_cell_of(cam, s, cam->cols, cam->rows, v, &vc, &vr);
		/* Wide arithmetic: the caller's cell may be anywhere in int range. */
		long long dc = llabs((long long)vc - col), dr = llabs((long long)vr - row);
		if (dc > tolerance || dr > tolerance)
			continue;
		double d = hypot(v->x - cx, v->y - cy);
		if (dc == 0 && dr == 0) {
			if (d < best_in || !in_cell) {
				best_in = d;
				in_cell = v->id;
			}
		} else if (d < best_near || !near) {
			best_near = d;
			near = v->id;
		}
	}
	return in_cell ? in_cell : near;
}

int tui_cols_bytes(const char *s, int cols)
{
	size_t len = strlen(s), at = 0;
	for (int c = 0; c < cols && at < len; c++) {
		size_t n = steer_utf8_char(s + at, len - at);
		at += n ? n : 1; /* a stray byte takes a column of its own */
	}
	return at > INT_MAX ? INT_MAX : (int)at;
}
