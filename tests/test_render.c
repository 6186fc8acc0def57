/* The terminal client's camera and map drawing, checked cell by cell on hand-made
 * snapshots. Most tests use a camera whose left/top edge is at a whole world
 * coordinate and whose scale is 1, so cell (c, r) covers x in [c, c+1) and
 * y in [2r, 2r+2) shifted by that edge, and expected cells can be worked out by hand. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "follow.h"
#include "render.h"
#include "reserve.h"

/* --- helpers ------------------------------------------------------------------------ */

static void snap_init(steer_snapshot *s, double w, double h, steer_edges edges)
{
	memset(s, 0, sizeof *s);
	s->width = w;
	s->height = h;
	s->edges = edges;
	s->cap = 32;
	s->v = calloc(s->cap, sizeof *s->v);
	s->obstacles_cap = 8;
	s->obstacles = calloc(s->obstacles_cap, sizeof *s->obstacles);
	/* Zeroed so steer_snapshot_free can free every route's (NULL) path arrays. */
	s->routes_cap = 8;
	s->routes = calloc(s->routes_cap, sizeof *s->routes);
	if (!s->v || !s->obstacles || !s->routes)
		abort();
}

static steer_snap_vehicle *add_v(steer_snapshot *s, uint32_t id, double x, double y, double vx,
                                 double vy)
{
	if (s->count == s->cap)
		abort();
	steer_snap_vehicle *v = &s->v[s->count++];
	memset(v, 0, sizeof *v);
	v->id = id;
	v->x = (float)x;
	v->y = (float)y;
	v->vx = (float)vx;
	v->vy = (float)vy;
	return v;
}

static void add_obstacle(steer_snapshot *s, uint32_t id, double x, double y, double r)
{
	if (s->nobstacles == s->obstacles_cap)
		abort();
	s->obstacles[s->nobstacles++] = (steer_obstacle){.id = id, .x = x, .y = y, .r = r};
}

static steer_snap_route *add_route(steer_snapshot *s, uint32_t id)
{
	if (s->nroutes == s->routes_cap)
		abort();
	steer_snap_route *r = &s->routes[s->nroutes++];
	r->id = id;
	return r;
}

/* xy holds n (x, y) pairs. */
static void route_path(steer_snap_route *r, const double *xy, uint32_t n, bool loop)
{
	r->path_x = malloc(n * sizeof *r->path_x);
	r->path_y = malloc(n * sizeof *r->path_y);
	if (!r->path_x || !r->path_y)
		abort();
	for (uint32_t k = 0; k < n; k++) {
		r->path_x[k] = (float)xy[2 * k];
		r->path_y[k] = (float)xy[2 * k + 1];
	}
	r->npath = n;
	r->path_loop = loop;
}

static void add_wall(steer_snapshot *s, uint32_t id, double x0, double y0, double x1, double y1)
{
	steer_snap_geometry *g = &s->geometry;
	if (steer_reserve((void **)&g->walls, &g->walls_cap, g->nwalls + 1, sizeof *g->walls) !=
	    STEER_OK)
		abort();
	g->walls[g->nwalls++] = (steer_snap_wall){id, x0, y0, x1, y1};
}

/* xy holds n (x, y) pairs. */
static void add_polygon(steer_snapshot *s, uint32_t id, const double *xy, size_t n)
{
	steer_snap_geometry *g = &s->geometry;
	if (steer_reserve((void **)&g->polygons, &g->polygons_cap, g->npolygons + 1,
	                  sizeof *g->polygons) != STEER_OK ||
	    steer_reserve((void **)&g->vertices, &g->vertices_cap, g->nvertices + n,
	                  sizeof *g->vertices) != STEER_OK)
		abort();
	g->polygons[g->npolygons++] = (steer_snap_polygon){id, false, g->nvertices, n};
	for (size_t k = 0; k < n; k++)
		g->vertices[g->nvertices++] = (steer_vec2){xy[2 * k], xy[2 * k + 1]};
}

/* A camera whose top-left corner is at world (left, top). */
static tui_camera cam_at(double left, double top, double scale, int cols, int rows)
{
	tui_camera c = {.scale = scale, .cols = cols, .rows = rows};
	c.cx = left + cols * scale / 2;
	c.cy = top + rows * scale * TUI_CELL_ASPECT / 2;
	return c;
}

static void render(tui_grid *g, const steer_snapshot *s, const tui_camera *cam,
                   const tui_render_opts *o)
{
	if (tui_grid_resize(g, cam->cols, cam->rows) != 0)
		abort();
	tui_render(g, s, cam, o);
}

static tui_cell cell(tui_grid *g, int col, int row)
{
	return *tui_grid_at(g, col, row);
}

static int count_glyph(const tui_grid *g, tui_glyph gl)
{
	int n = 0;
	for (int k = 0; k < g->cols * g->rows; k++)
		n += g->cells[k].glyph == gl;
	return n;
}

static int count_vehicles(const tui_grid *g)
{
	int n = 0;
	for (int k = 0; k < g->cols * g->rows; k++)
		n += g->cells[k].glyph >= G_ARROW_E && g->cells[k].glyph <= G_STILL;
	return n;
}

static int count_nonempty(const tui_grid *g)
{
	return g->cols * g->rows - count_glyph(g, G_EMPTY);
}

/* --- camera ------------------------------------------------------------------------- */

static void camera_fit_contains_world(void)
{
	struct {
		double w, h;
		int cols, rows;
	} cases[] = {{1000, 600, 80, 24}, {100, 1000, 80, 24}, {1000, 10, 40, 40},
	             {1, 1, 3, 3},        {1e9, 1e9, 10, 5},   {640, 480, 200, 60}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double w = cases[k].w, h = cases[k].h;
		int cols = cases[k].cols, rows = cases[k].rows;
		tui_camera c;
		tui_camera_fit(&c, w, h, cols, rows);
		CHECK(c.cols == cols && c.rows == rows, "case %zu: size %dx%d", k, c.cols, c.rows);
		double corners[4][2] = {{0, 0}, {w, 0}, {0, h}, {w, h}};
		for (int q = 0; q < 4; q++) {
			int col, row;
			bool in = tui_camera_to_cell(&c, corners[q][0], corners[q][1], &col, &row);
			/* Inside, and clear of the outermost cells, which the border needs. */
			CHECK(in && col >= 1 && col <= cols - 2 && row >= 1 && row <= rows - 2,
			      "case %zu corner %d at cell (%d,%d) of %dx%d", k, q, col, row, cols,
			      rows);
		}
		int col, row;
		tui_camera_to_cell(&c, w / 2, h / 2, &col, &row);
		CHECK(abs(col - cols / 2) <= 1 && abs(row - rows / 2) <= 1,
		      "case %zu: centre at (%d,%d) of %dx%d", k, col, row, cols, rows);
		/* Fitted, not merely contained: one axis is filled up to the border. */
		double wc = w / c.scale, hc = h / (c.scale * TUI_CELL_ASPECT);
		CHECK(wc >= cols - 3 || hc >= rows - 3, "case %zu: world only %.1f x %.1f cells", k,
		      wc, hc);
	}
}

static void camera_round_trip(void)
{
	tui_camera c;
	tui_camera_fit(&c, 1000, 600, 80, 24);
	tui_camera_pan(&c, 7, -3);
	for (int row = 0; row < c.rows; row++)
		for (int col = 0; col < c.cols; col++) {
			double x, y;
			int c2, r2;
			tui_camera_to_world(&c, col, row, &x, &y);
			bool in = tui_camera_to_cell(&c, x, y, &c2, &r2);
			CHECK(in && c2 == col && r2 == row, "cell (%d,%d) came back as (%d,%d)",
			      col, row, c2, r2);
		}
	double x0, y0, x1, y1;
	tui_camera_bounds(&c, &x0, &y0, &x1, &y1);
	for (double x = x0 + 0.1; x < x1; x += 37.3)
		for (double y = y0 + 0.1; y < y1; y += 23.9) {
			int col, row;
			double cx, cy;
			CHECK(tui_camera_to_cell(&c, x, y, &col, &row), "(%g,%g) off the map", x,
			      y);
			tui_camera_to_world(&c, col, row, &cx, &cy);
			CHECK(fabs(cx - x) <= c.scale / 2 + 1e-9 &&
			          fabs(cy - y) <= c.scale * TUI_CELL_ASPECT / 2 + 1e-9,
			      "(%g,%g) -> cell centre (%g,%g)", x, y, cx, cy);
		}
	int col, row;
	CHECK(!tui_camera_to_cell(&c, x0 - 3 * c.scale, y0 + 1, &col, &row) && col == -3,
	      "left of the map: col %d", col);
	CHECK(!tui_camera_to_cell(&c, x0 + 1, y1 + 0.5 * c.scale * TUI_CELL_ASPECT, &col, &row) &&
	          row == c.rows,
	      "below the map: row %d", row);
}

/* However far a user zooms out and pans, the view the client sends is one the server
 * accepts (a refused view would leave the map frozen on the last good one). */
static void camera_stays_in_server_range(void)
{
	tui_camera c;
	tui_camera_fit(&c, 1e9, 1e9, 4096, 1000);
	for (int k = 0; k < 60; k++)
		tui_camera_zoom(&c, 0.5, k % 7 * 500, k % 5 * 180);
	for (int dir = -1; dir <= 1; dir += 2)
		for (int k = 0; k < 10000; k++) {
			tui_camera_pan(&c, dir * 4096, -dir * 1000);
			double x0, y0, x1, y1;
			tui_camera_bounds(&c, &x0, &y0, &x1, &y1);
			CHECK(steer_view_rect_ok(x0, y0, x1, y1),
			      "pan %d: view (%g,%g)-(%g,%g) refused", k, x0, y0, x1, y1);
			if (!steer_view_rect_ok(x0, y0, x1, y1))
				return;
		}
}

static void camera_aspect(void)
{
	tui_camera c;
	tui_camera_fit(&c, 1000, 1000, 100, 30);
	double R = 200;
	int cl, cr, rt, rb, dummy;
	tui_camera_to_cell(&c, 500 - R, 500, &cl, &dummy);
	tui_camera_to_cell(&c, 500 + R, 500, &cr, &dummy);
	tui_camera_to_cell(&c, 500, 500 - R, &dummy, &rt);
	tui_camera_to_cell(&c, 500, 500 + R, &dummy, &rb);
	int span_c = cr - cl, span_r = rb - rt;
	CHECK(span_c > 5 && abs(span_c - 2 * span_r) <= 2,
	      "circle spans %d columns and %d rows, want columns = 2 x rows", span_c, span_r);
}

static void camera_zoom_keeps_point(void)
{
	tui_camera c;
	tui_camera_fit(&c, 1000, 600, 80, 24);
	struct {
		double f;
		int col, row;
	} steps[] = {{2, 10, 5}, {0.25, 70, 20}, {3, 0, 0}, {1.5, 79, 23}, {0.5, -4, 30}};
	for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
		double x, y, x2, y2, ox, oy, ox2, oy2, s0 = c.scale;
		tui_camera_to_world(&c, steps[k].col, steps[k].row, &x, &y);
		tui_camera_to_world(&c, 40, 12, &ox, &oy);
		tui_camera_zoom(&c, steps[k].f, steps[k].col, steps[k].row);
		tui_camera_to_world(&c, steps[k].col, steps[k].row, &x2, &y2);
		tui_camera_to_world(&c, 40, 12, &ox2, &oy2);
		CHECK(fabs(x2 - x) < 1e-9 * (1 + fabs(x)) && fabs(y2 - y) < 1e-9 * (1 + fabs(y)),
		      "step %zu: (%g,%g) moved to (%g,%g)", k, x, y, x2, y2);
		CHECK(fabs(c.scale - s0 / steps[k].f) < 1e-12 * s0, "step %zu: scale %g from %g", k,
		      c.scale, s0);
		if (steps[k].col != 40 || steps[k].row != 12)
			CHECK(ox2 != ox || oy2 != oy, "step %zu: other cells did not move", k);
	}
	tui_camera_zoom(&c, 1e30, 3, 3);
	CHECK(c.scale >= 1e-3 && isfinite(c.cx) && isfinite(c.cy), "zoomed in to scale %g",
	      c.scale);
	tui_camera_zoom(&c, 1e-30, 3, 3);
	CHECK(c.scale <= 1e10 && isfinite(c.cx) && isfinite(c.cy), "zoomed out to scale %g",
	      c.scale);
	tui_camera before = c;
	tui_camera_zoom(&c, 0, 3, 3);
	tui_camera_zoom(&c, -2, 3, 3);
	tui_camera_zoom(&c, NAN, 3, 3);
	tui_camera_zoom(&c, INFINITY, 3, 3);
	CHECK(!memcmp(&before, &c, sizeof c), "a bad zoom factor changed the camera");
}

static void camera_pan_whole_cells(void)
{
	tui_camera c;
	tui_camera_fit(&c, 1000, 600, 80, 24);
	double x, y, x2, y2;
	tui_camera_to_world(&c, 20, 10, &x, &y);
	tui_camera_pan(&c, 3, -2);
	/* The view moved right and up, so the same world point is 3 left, 2 down. */
	tui_camera_to_world(&c, 17, 12, &x2, &y2);
	CHECK(fabs(x2 - x) < 1e-9 && fabs(y2 - y) < 1e-9, "(%g,%g) now (%g,%g)", x, y, x2, y2);
	int col, row;
	tui_camera_to_cell(&c, x, y, &col, &row);
	CHECK(col == 17 && row == 12, "point now in cell (%d,%d)", col, row);
	tui_camera_pan(&c, -3, 2);
	tui_camera_to_cell(&c, x, y, &col, &row);
	CHECK(col == 20 && row == 10, "pan back: cell (%d,%d)", col, row);
}

/* --- glyphs ------------------------------------------------------------------------- */

/* A resize refits a view showing the whole world: the cursor stays on its world point
 * while that is in view, else goes to the centre; never outside the new map area. */
static void camera_keep_cursor(void)
{
	tui_camera was, now;
	tui_camera_fit(&was, 1000, 600, 200, 18);
	tui_camera_fit(&now, 1000, 600, 60, 18);
	/* The wide map's right end is far right of the world, out of the narrower view. */
	int col = 199, row = 17;
	tui_camera_keep_cursor(&was, &now, &col, &row);
	CHECK(col == 30 && row == 9, "off view: (%d,%d), want the centre (30,9)", col, row);
	tui_camera_fit(&was, 1000, 600, 120, 38);
	/* A point of the world keeps its place on the map. */
	double x, y;
	col = 100;
	row = 30;
	tui_camera_to_world(&was, col, row, &x, &y);
	tui_camera_keep_cursor(&was, &now, &col, &row);
	int wc, wr;
	CHECK(tui_camera_to_cell(&now, x, y, &wc, &wr) && wc == col && wr == row,
	      "in view: (%d,%d), want (%d,%d)", col, row, wc, wr);
	CHECK(col >= 0 && col < 60 && row >= 0 && row < 18, "cursor off the map: (%d,%d)", col,
	      row);
	/* Growing back: the centre stays the centre's world point. */
	tui_camera_to_world(&now, col, row, &x, &y);
	tui_camera_keep_cursor(&now, &was, &col, &row);
	CHECK(tui_camera_to_cell(&was, x, y, &wc, &wr) && wc == col && wr == row,
	      "grown: (%d,%d), want (%d,%d)", col, row, wc, wr);
}

static tui_glyph heading_deg(double deg)
{
	double a = deg * (STEER_TAU / 2) / 180;
	/* Compass angles counter-clockwise from east; world y grows down. */
	return tui_heading_glyph(cos(a), -sin(a));
}

static void heading_glyph_compass(void)
{
	for (int k = 0; k < 8; k++) {
		tui_glyph want = (tui_glyph)(G_ARROW_E + k);
		CHECK(heading_deg(45.0 * k) == want, "%d deg", 45 * k);
		CHECK(heading_deg(45.0 * k - 20) == want, "%d deg", 45 * k - 20);
		CHECK(heading_deg(45.0 * k + 20) == want, "%d deg", 45 * k + 20);
		/* Either side of the boundary half-way to the next direction. */
		CHECK(heading_deg(45.0 * k + 22.4) == want, "%g deg", 45.0 * k + 22.4);
		tui_glyph next = (tui_glyph)(G_ARROW_E + (k + 1) % 8);
		CHECK(heading_deg(45.0 * k + 22.6) == next, "%g deg", 45.0 * k + 22.6);
	}
	CHECK(tui_heading_glyph(0, -1) == G_ARROW_N, "vy < 0 is north");
	CHECK(tui_heading_glyph(0, 1) == G_ARROW_S, "vy > 0 is south");
	CHECK(tui_heading_glyph(1, 1) == G_ARROW_SE, "(1,1) is south-east");
	CHECK(tui_heading_glyph(-1, -1) == G_ARROW_NW, "(-1,-1) is north-west");
	CHECK(tui_heading_glyph(1, -1) == G_ARROW_NE, "(1,-1) is north-east");
	CHECK(tui_heading_glyph(-1, 1) == G_ARROW_SW, "(-1,1) is south-west");
	CHECK(tui_heading_glyph(-5, 0) == G_ARROW_W, "west");
	CHECK(tui_heading_glyph(0, 0) == G_STILL, "at rest");
	CHECK(tui_heading_glyph(1e-9, -1e-9) == G_STILL, "crawling");
	CHECK(tui_heading_glyph(1e-3, 0) == G_ARROW_E, "slow but moving");
	CHECK(tui_heading_glyph(NAN, 1) == G_STILL, "NaN");
	CHECK(tui_heading_glyph(1e300, 1e300) == G_ARROW_SE, "huge");
	CHECK(tui_heading_glyph(-INFINITY, 0) == G_ARROW_W, "infinite");
}

static void glyph_texts(void)
{
	for (int g = 0; g < G_COUNT; g++) {
		const char *a = tui_glyph_text((tui_glyph)g, false);
		const char *u = tui_glyph_text((tui_glyph)g, true);
		CHECK(a && strlen(a) == 1 && a[0] >= 32 && a[0] < 127, "glyph %d ascii", g);
		CHECK(u && strlen(u) >= 1, "glyph %d utf8", g);
	}
	const char *ascii_arrows = ">/^\\</v\\";
	for (int k = 0; k < 8; k++)
		CHECK(tui_glyph_text((tui_glyph)(G_ARROW_E + k), false)[0] == ascii_arrows[k],
		      "arrow %d is '%s'", k, tui_glyph_text((tui_glyph)(G_ARROW_E + k), false));
	CHECK(!strcmp(tui_glyph_text(G_ARROW_N, true), "↑"), "utf8 north");
	CHECK(!strcmp(tui_glyph_text(G_ARROW_SE, true), "↘"), "utf8 south-east");
	CHECK(!strcmp(tui_glyph_text(G_OBSTACLE, true), "█"), "utf8 obstacle");
	CHECK(!strcmp(tui_glyph_text(G_EMPTY, false), " "), "empty");
	CHECK(tui_glyph_text(G_COUNT, false) != NULL, "out of range glyph");
}

/* --- rendering ---------------------------------------------------------------------- */

static void render_vehicles(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	add_v(&s, 1, 10.5, 7, 1, 0)->group = 8;
	add_v(&s, 2, 30.2, 30.9, 0, -5)->group = 0;
	add_v(&s, 3, 0.5, 0.5, 0, 0)->group = 5;
	add_v(&s, 4, -3, 5, 1, 0);    /* left of the view */
	add_v(&s, 5, 10, 40.5, 1, 0); /* just below it */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	tui_cell c = cell(&g, 10, 3);
	CHECK(c.glyph == G_ARROW_E && c.color == C_GROUP2 && !c.bold, "vehicle 1: %d %d %d",
	      c.glyph, c.color, c.bold);
	c = cell(&g, 30, 15);
	CHECK(c.glyph == G_ARROW_N && c.color == C_GROUP0, "vehicle 2: %d %d", c.glyph, c.color);
	c = cell(&g, 0, 0);
	CHECK(c.glyph == G_STILL && c.color == C_GROUP5, "vehicle 3: %d %d", c.glyph, c.color);
	CHECK(count_nonempty(&g) == 3, "%d cells drawn, want 3", count_nonempty(&g));

	/* Drawing clears what the last frame left. */
	s.count = 1;
	s.v[0].x = 20.5;
	render(&g, &s, &cam, &o);
	CHECK(cell(&g, 10, 3).glyph == G_EMPTY && cell(&g, 20, 3).glyph == G_ARROW_E,
	      "moved vehicle left a trail");
	CHECK(count_nonempty(&g) == 1, "%d cells drawn, want 1", count_nonempty(&g));
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void render_obstacle_disc(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	add_obstacle(&s, 1, 20, 20, 6);
	add_obstacle(&s, 2, 35.9, 33.9, 0.1); /* misses every cell centre */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	int wrong = 0;
	for (int row = 0; row < 20; row++)
		for (int col = 0; col < 40; col++) {
			double dx = col + 0.5 - 20, dy = 2 * row + 1 - 20;
			bool want = dx * dx + dy * dy <= 36 || (col == 35 && row == 16);
			tui_cell c = cell(&g, col, row);
			if ((c.glyph == G_OBSTACLE) != want || (want && c.color != C_OBSTACLE)) {
				wrong++;
				CHECK(false, "cell (%d,%d): glyph %d, want obstacle %d", col, row,
				      c.glyph, want);
			}
		}
	CHECK(wrong == 0, "%d cells wrong", wrong);
	CHECK(cell(&g, 20, 10).glyph == G_OBSTACLE, "centre empty");
	CHECK(cell(&g, 27, 10).glyph == G_EMPTY, "a cell beyond r to the right is filled");
	CHECK(cell(&g, 20, 14).glyph == G_EMPTY, "a cell beyond r below is filled");
	/* Round in world units: twice as many columns as rows across. */
	int across = 0, down = 0;
	for (int col = 0; col < 40; col++)
		across += cell(&g, col, 10).glyph == G_OBSTACLE;
	for (int row = 0; row < 20; row++)
		down += cell(&g, 20, row).glyph == G_OBSTACLE;
	CHECK(abs(across - 2 * down) <= 2 && down >= 5, "disc %d across, %d down", across, down);

	/* One far bigger than the view covers all of it. */
	s.nobstacles = 0;
	add_obstacle(&s, 3, 20, 20, 1e6);
	render(&g, &s, &cam, &o);
	CHECK(count_glyph(&g, G_OBSTACLE) == 40 * 20, "huge disc covers %d cells",
	      count_glyph(&g, G_OBSTACLE));
	/* And one wholly off-screen draws nothing. */
	s.nobstacles = 0;
	add_obstacle(&s, 4, -10, 20, 9.5);
	render(&g, &s, &cam, &o);
	CHECK(count_nonempty(&g) == 0, "off-screen disc drew %d cells", count_nonempty(&g));
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static tui_glyph border_at(int col, int row, int cl, int cr, int rt, int rb)
{
	bool on_v = col == cl || col == cr, on_h = row == rt || row == rb;
	bool in_c = col >= cl && col <= cr, in_r = row >= rt && row <= rb;
	if (on_v && on_h)
		return G_CORNER;
	if (on_h && in_c)
		return G_BORDER_H;
	if (on_v && in_r)
		return G_BORDER_V;
	return G_EMPTY;
}

static void render_border(void)
{
	steer_snapshot s;
	snap_init(&s, 20, 10, STEER_EDGE_BOUNCE);
	/* x = 0 is column 2's left edge, x = 20 column 22's; y = 0 row 1's top, y = 10
	 * row 6's. The border takes the cells just outside. */
	tui_camera cam = cam_at(-2, -2, 1, 26, 9);
	tui_grid g = {0};
	tui_render_opts o = {0};
	/* The second world ends part-way into columns 21 and rows 5, which are still world
	 * (partly), so the border lands on the same cells. */
	struct {
		steer_edges edges;
		double w, h;
	} kinds[] = {
	    {STEER_EDGE_BOUNCE, 20, 10}, {STEER_EDGE_WRAP, 20, 10}, {STEER_EDGE_BOUNCE, 19.5, 9.2}};
	for (int k = 0; k < 3; k++) {
		s.edges = kinds[k].edges;
		s.width = kinds[k].w;
		s.height = kinds[k].h;
		render(&g, &s, &cam, &o);
		for (int row = 0; row < 9; row++)
			for (int col = 0; col < 26; col++) {
				tui_cell c = cell(&g, col, row);
				tui_glyph want = border_at(col, row, 1, 22, 0, 6);
				CHECK(c.glyph == want && (want == G_EMPTY || c.color == C_BORDER),
				      "edges %d cell (%d,%d): %d, want %d", k, col, row, c.glyph,
				      want);
			}
	}
	s.edges = STEER_EDGE_NONE;
	render(&g, &s, &cam, &o);
	CHECK(count_nonempty(&g) == 0, "unbounded world has a border");

	/* Zoomed onto the left edge: only its vertical run is on screen. */
	s.edges = STEER_EDGE_BOUNCE;
	cam = cam_at(-5, 2, 1, 10, 3);
	render(&g, &s, &cam, &o);
	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 10; col++)
			CHECK(cell(&g, col, row).glyph == (col == 4 ? G_BORDER_V : G_EMPTY),
			      "left edge view (%d,%d): %d", col, row, cell(&g, col, row).glyph);
	/* Far inside a big world: no border at all. */
	s.width = s.height = 1e9;
	cam = cam_at(5e8, 5e8, 1e-3, 10, 3);
	render(&g, &s, &cam, &o);
	CHECK(count_nonempty(&g) == 0, "border drawn inside the world");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void render_selected_route(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	add_v(&s, 1, 5.5, 5, 1, 0);  /* (5,2) */
	add_v(&s, 2, 30.5, 5, 0, 1); /* (30,2) */
	add_v(&s, 3, 5.5, 35, 0, 0); /* (5,17) */
	steer_snap_route *r1 = add_route(&s, 1);
	double rect[] = {10.5, 11, 20.5, 11, 20.5, 25, 10.5, 25}; /* cells (10|20, 5|12) */
	route_path(r1, rect, 4, true);
	r1->has_target = true;
	r1->target_x = 35.5; /* (35,19) */
	r1->target_y = 39;
	r1->pursue_id = 3;
	steer_snap_route *r2 = add_route(&s, 2);
	double line[] = {25.5, 1, 25.5, 15}; /* cells (25,0), (25,7) */
	route_path(r2, line, 2, false);
	r2->has_target = true;
	r2->target_x = 30.5; /* (30,10) */
	r2->target_y = 21;

	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {.selected = 1};
	render(&g, &s, &cam, &o);
	tui_cell c = cell(&g, 5, 2);
	CHECK(c.glyph == G_ARROW_E && c.bold && c.color == C_SELECTED, "selected: %d %d %d",
	      c.glyph, c.bold, c.color);
	c = cell(&g, 30, 2);
	CHECK(c.glyph == G_ARROW_S && !c.bold && c.color == C_GROUP0, "other: %d %d %d", c.glyph,
	      c.bold, c.color);
	int wp[4][2] = {{10, 5}, {20, 5}, {20, 12}, {10, 12}};
	for (int k = 0; k < 4; k++)
		CHECK(cell(&g, wp[k][0], wp[k][1]).glyph == G_WAYPOINT &&
		          cell(&g, wp[k][0], wp[k][1]).color == C_PATH,
		      "waypoint %d: %d", k, cell(&g, wp[k][0], wp[k][1]).glyph);
	for (int col = 11; col < 20; col++) {
		CHECK(cell(&g, col, 5).glyph == G_PATH, "top edge (%d,5)", col);
		CHECK(cell(&g, col, 12).glyph == G_PATH, "bottom edge (%d,12)", col);
	}
	for (int row = 6; row < 12; row++) {
		CHECK(cell(&g, 20, row).glyph == G_PATH, "right edge (20,%d)", row);
		CHECK(cell(&g, 10, row).glyph == G_PATH, "closing edge (10,%d)", row);
	}
	CHECK(cell(&g, 15, 8).glyph == G_EMPTY, "inside of the path filled");
	c = cell(&g, 35, 19);
	CHECK(c.glyph == G_TARGET && c.color == C_TARGET, "target: %d %d", c.glyph, c.color);
	for (int row = 3; row < 17; row++)
		CHECK(cell(&g, 5, row).glyph == G_PATH, "pursuit line (5,%d)", row);
	CHECK(cell(&g, 5, 17).glyph == G_STILL, "pursued vehicle");
	/* Vehicle 2's route stays hidden. */
	CHECK(cell(&g, 30, 10).glyph == G_EMPTY, "other target drawn");
	CHECK(cell(&g, 25, 0).glyph == G_EMPTY && cell(&g, 25, 7).glyph == G_EMPTY &&
	          cell(&g, 25, 4).glyph == G_EMPTY,
	      "other path drawn");

	r1->path_loop = false;
	render(&g, &s, &cam, &o);
	for (int row = 6; row < 12; row++)
		CHECK(cell(&g, 10, row).glyph == G_EMPTY, "open path closed at (10,%d)", row);

	o.selected = 2;
	render(&g, &s, &cam, &o);
	CHECK(cell(&g, 30, 10).glyph == G_TARGET && cell(&g, 25, 4).glyph == G_PATH,
	      "vehicle 2's route not drawn when selected");
	CHECK(count_glyph(&g, G_WAYPOINT) == 2, "%d waypoints", count_glyph(&g, G_WAYPOINT));
	CHECK(!cell(&g, 5, 2).bold && cell(&g, 30, 2).bold, "bold follows the selection");

	o.selected = 0;
	render(&g, &s, &cam, &o);
	CHECK(count_glyph(&g, G_PATH) + count_glyph(&g, G_WAYPOINT) + count_glyph(&g, G_TARGET) ==
	          0,
	      "routes drawn with nothing selected");
	CHECK(count_nonempty(&g) == 3, "%d cells", count_nonempty(&g));
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void render_debug_aids(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	s.avoid_distance_max = 10;
	steer_snap_vehicle *a = add_v(&s, 1, 5.5, 5, 0, 3); /* (5,2) heading south */
	a->behaviors = STEER_AVOID | STEER_SEEK;
	a->fx = 20; /* 5 world units of line: columns 6..10 */
	steer_snap_vehicle *b = add_v(&s, 2, 20.5, 31, 1, 0); /* (20,15), no avoid bit */
	b->fx = 1e6f;
	add_v(&s, 3, 35.5, 5, 0, 0)->behaviors = STEER_AVOID; /* still: no heading, no feeler */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	CHECK(count_glyph(&g, G_FORCE) == 0 && count_glyph(&g, G_FEELER) == 0,
	      "aids drawn with debug off");
	o.debug = true;
	render(&g, &s, &cam, &o);
	for (int col = 6; col <= 10; col++)
		CHECK(cell(&g, col, 2).glyph == G_FORCE && cell(&g, col, 2).color == C_AID,
		      "force (%d,2): %d", col, cell(&g, col, 2).glyph);
	CHECK(cell(&g, 11, 2).glyph == G_EMPTY, "force line too long");
	for (int row = 3; row <= 7; row++)
		CHECK(cell(&g, 5, row).glyph == G_FEELER && cell(&g, 5, row).color == C_AID,
		      "feeler (5,%d): %d", row, cell(&g, 5, row).glyph);
	CHECK(cell(&g, 5, 8).glyph == G_EMPTY, "feeler too long");
	CHECK(count_glyph(&g, G_FEELER) == 5, "%d feeler cells", count_glyph(&g, G_FEELER));
	/* A huge force is capped at 8 cells. */
	for (int col = 21; col <= 28; col++)
		CHECK(cell(&g, col, 15).glyph == G_FORCE, "capped force (%d,15)", col);
	CHECK(cell(&g, 29, 15).glyph == G_EMPTY, "force not capped");
	CHECK(count_glyph(&g, G_FORCE) == 5 + 8, "%d force cells", count_glyph(&g, G_FORCE));
	CHECK(cell(&g, 5, 2).glyph == G_ARROW_S && cell(&g, 20, 15).glyph == G_ARROW_E,
	      "vehicles under their aids");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

/* The aids stay within the world's rectangle (its border keeps its cells) and under
 * walls. */
static void debug_aids_keep_off_borders_and_walls(void)
{
	steer_snapshot s;
	snap_init(&s, 20, 20, STEER_EDGE_BOUNCE); /* columns 0-19, the border at 20 */
	s.avoid_distance_max = 30;
	steer_snap_vehicle *a = add_v(&s, 1, 15.5, 5, 1, 0); /* (15,2) heading east */
	a->behaviors = STEER_AVOID;
	a->fx = 1e6f;
	steer_snap_vehicle *b = add_v(&s, 2, 5.5, 5, 0, 1); /* (5,2) heading south */
	b->behaviors = STEER_AVOID;
	add_wall(&s, 3, 2.5, 11, 9.5, 11); /* row 5, columns 2-9: across b's feeler */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {.debug = true};
	render(&g, &s, &cam, &o);
	CHECK(cell(&g, 19, 2).glyph == G_FORCE || cell(&g, 19, 2).glyph == G_FEELER,
	      "aid reaches the last column inside: %d", cell(&g, 19, 2).glyph);
	CHECK(cell(&g, 20, 2).glyph == G_BORDER_V, "border cell taken by an aid: %d",
	      cell(&g, 20, 2).glyph);
	for (int col = 21; col < 40; col++)
		CHECK(cell(&g, col, 2).glyph == G_EMPTY, "aid past the border at (%d,2): %d", col,
		      cell(&g, col, 2).glyph);
	CHECK(cell(&g, 5, 5).glyph == G_WALL_H && cell(&g, 5, 5).color == C_WALL,
	      "wall under an aid: %d", cell(&g, 5, 5).glyph);
	CHECK(cell(&g, 5, 4).glyph == G_FEELER && cell(&g, 5, 6).glyph == G_FEELER,
	      "feeler either side of the wall");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void render_cursor(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	add_v(&s, 1, 5.5, 5, 1, 0)->group = 1; /* (5,2) */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {.show_cursor = true, .cursor_col = 7, .cursor_row = 7};
	render(&g, &s, &cam, &o);
	tui_cell c = cell(&g, 7, 7);
	CHECK(c.glyph == G_CURSOR && c.color == C_CURSOR, "cursor: %d %d", c.glyph, c.color);
	o.cursor_col = 5;
	o.cursor_row = 2;
	render(&g, &s, &cam, &o);
	c = cell(&g, 5, 2);
	CHECK(c.glyph == G_ARROW_E && c.bold && c.color == C_CURSOR, "cursor on vehicle: %d %d %d",
	      c.glyph, c.bold, c.color);
	CHECK(count_glyph(&g, G_CURSOR) == 0, "cursor glyph over a vehicle");
	/* The selection under the cursor (following puts the cursor on it) keeps its
	 * colours. */
	o.selected = 1;
	render(&g, &s, &cam, &o);
	c = cell(&g, 5, 2);
	CHECK(c.glyph == G_ARROW_E && c.color == C_SELECTED,
	      "the selection under the cursor: %d %d", c.glyph, c.color);
	o.selected = 0;
	o.show_cursor = false;
	render(&g, &s, &cam, &o);
	c = cell(&g, 5, 2);
	CHECK(!c.bold && c.color == C_GROUP1, "hidden cursor still marks: %d %d", c.bold, c.color);
	o.show_cursor = true;
	int far[][2] = {{-1, 0}, {40, 19}, {0, 20}, {INT_MAX, INT_MIN}, {INT_MIN, INT_MAX}};
	for (size_t k = 0; k < sizeof far / sizeof far[0]; k++) {
		o.cursor_col = far[k][0];
		o.cursor_row = far[k][1];
		render(&g, &s, &cam, &o);
		CHECK(count_nonempty(&g) == 1, "off-grid cursor %zu drew something", k);
	}
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void render_extremes(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_WRAP);
	s.avoid_distance_max = 3e38f;
	float big = FLT_MAX;
	steer_snap_vehicle *v[] = {
	    add_v(&s, 1, 1e12, 1e12, 1, 1),      add_v(&s, 2, -1e12, 5, -1, 0),
	    add_v(&s, 3, big, -big, big, -big),  add_v(&s, 4, 5, 3e38, 0, -big),
	    add_v(&s, 5, -big, -big, -big, big), add_v(&s, 6, INFINITY, 5, 1, 0),
	    add_v(&s, 7, 5, NAN, NAN, 0),
	};
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		v[k]->behaviors = STEER_ALL_BEHAVIORS;
		v[k]->fx = big;
		v[k]->fy = -big;
		v[k]->group = UINT32_MAX;
	}
	steer_snap_vehicle *near = add_v(&s, 9, 5.5, 5, 0, 0); /* (5,2) in the plain camera */
	near->behaviors = STEER_AVOID;
	near->fx = big;
	near->fy = big;
	steer_snap_route *r = add_route(&s, 1);
	double pts[] = {1e30, -1e30, -1e30, 1e30, 0, 0, 3e38, 3e38, -3e38, 5};
	route_path(r, pts, 5, true);
	r->has_target = true;
	r->target_x = 1e30f;
	r->target_y = -big;
	r->pursue_id = 2;
	r->evade_id = 9;
	steer_snap_route *r9 = add_route(&s, 9);
	route_path(r9, pts, 5, true);
	r9->pursue_id = 3;
	r9->evade_id = 4;
	add_obstacle(&s, 20, 1e12, 1e12, 1e12);
	add_obstacle(&s, 21, big, big, big);
	add_obstacle(&s, 22, -1e300, 1e300, 1e300);
	add_obstacle(&s, 23, 5, 5, -1);

	tui_camera plain = cam_at(0, 0, 1, 40, 20), fitted, deep = cam_at(1e12, 1e12, 1e-3, 40, 20),
	           wide = cam_at(-1e12, -1e12, 1e9, 40, 20);
	tui_camera_fit(&fitted, 1000, 1000, 40, 20);
	tui_camera *cams[] = {&plain, &fitted, &deep, &wide};
	int sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {40, 20}, {200, 3}};
	tui_grid g = {0};
	for (int sel = 0; sel < 3; sel++)
		for (size_t k = 0; k < sizeof cams / sizeof cams[0]; k++)
			for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
				tui_render_opts o = {.selected = sel == 0   ? 0
				                                 : sel == 1 ? 1
				                                            : 9,
				                     .debug = true,
				                     .show_cursor = true,
				                     .cursor_col = sizes[z][0] - 1,
				                     .cursor_row = sizes[z][1] - 1};
				/* The grid need not match the camera. */
				CHECK(tui_grid_resize(&g, sizes[z][0], sizes[z][1]) == 0, "resize");
				tui_render(&g, &s, cams[k], &o);
				uint32_t id = tui_pick(&s, cams[k], sizes[z][0] / 2, 0, 1);
				(void)id;
			}

	/* Without the discs covering the view, only the near vehicle is drawn. */
	s.nobstacles = 0;
	tui_render_opts o = {.selected = 1, .debug = true};
	CHECK(tui_grid_resize(&g, 40, 20) == 0, "resize");
	tui_render(&g, &s, &plain, &o);
	CHECK(count_vehicles(&g) == 1 && cell(&g, 5, 2).glyph == G_STILL,
	      "%d vehicles drawn, (5,2) is %d", count_vehicles(&g), cell(&g, 5, 2).glyph);
	CHECK(tui_pick(&s, &plain, INT_MAX, INT_MIN, 1) == 0, "picked at INT_MAX");
	CHECK(tui_pick(&s, &plain, INT_MIN, INT_MAX, 1) == 0, "picked at INT_MIN");
	CHECK(tui_pick(&s, &plain, 5, 2, 1) == 9, "near vehicle not picked");

	/* A camera with a broken scale draws nothing rather than garbage. */
	tui_camera broken = plain;
	broken.scale = 0;
	tui_render(&g, &s, &broken, &o);
	CHECK(count_nonempty(&g) == 0, "zero-scale camera drew %d cells", count_nonempty(&g));
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void add_cell(steer_snapshot *s, uint32_t col, uint32_t row, uint32_t count, uint8_t heading)
{
	if (s->ncells == s->cells_cap) {
		s->cells_cap = s->cells_cap ? 2 * s->cells_cap : 8;
		s->cells = realloc(s->cells, s->cells_cap * sizeof *s->cells);
		if (!s->cells)
			abort();
	}
	s->cells[s->ncells++] = (steer_snap_cell){col, row, count, heading};
}

static void render_density(void)
{
	/* A 40 x 20 density grid over (0,0)-(40,40): cell (c, r) is centred on
	 * (c + 0.5, 2r + 1), which the scale-1 camera draws in cell (c, r). */
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	s.density = true;
	s.has_view = true;
	s.view = (steer_view){true, 0, 0, 40, 40};
	s.dcols = 40;
	s.drows = 20;
	add_cell(&s, 3, 2, 1, 0);    /* one heading east */
	add_cell(&s, 5, 5, 3, 192);  /* three heading north (world -y) */
	add_cell(&s, 6, 5, 5, 64);   /* five heading south */
	add_cell(&s, 7, 5, 9, 96);   /* nine heading south-west */
	add_cell(&s, 8, 5, 40, 128); /* forty heading west */
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	struct {
		int col, row, glyph, color;
		bool bold;
	} want[] = {
	    {3, 2, G_ARROW_E, C_HEAT1, false}, {5, 5, G_ARROW_N, C_HEAT2, false},
	    {6, 5, G_ARROW_S, C_HEAT3, false}, {7, 5, G_ARROW_SW, C_HEAT4, true},
	    {8, 5, G_ARROW_W, C_HEAT5, true},
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		tui_cell c = cell(&g, want[k].col, want[k].row);
		CHECK(c.glyph == want[k].glyph && c.color == want[k].color &&
		          c.bold == want[k].bold,
		      "cell (%d,%d): glyph %d colour %d bold %d", want[k].col, want[k].row, c.glyph,
		      c.color, c.bold);
	}
	CHECK(count_nonempty(&g) == 5, "%d cells drawn, want 5", count_nonempty(&g));
	CHECK(tui_pick(&s, &cam, 5, 5, 1) == 0, "a density cell picked as a vehicle");

	/* The camera panned before the next frame came: the same frame is drawn where
	 * its cells are in the world. 10 units right, all of them are off the left. */
	cam = cam_at(10, 0, 1, 40, 20);
	render(&g, &s, &cam, &o);
	CHECK(count_nonempty(&g) == 0, "%d cells drawn after the pan, want 0", count_nonempty(&g));
	cam = cam_at(-10, 0, 1, 40, 20);
	render(&g, &s, &cam, &o);
	CHECK(cell(&g, 13, 2).glyph == G_ARROW_E && cell(&g, 18, 5).glyph == G_ARROW_W,
	      "cells not shifted with the camera");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void pick_vehicles(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	CHECK(tui_pick(&s, &cam, 10, 3, 1) == 0, "picked from an empty snapshot");
	add_v(&s, 1, 10.5, 7, 1, 0); /* (10,3) */
	CHECK(tui_pick(&s, &cam, 10, 3, 1) == 1, "own cell");
	int around[8][2] = {{9, 2}, {10, 2}, {11, 2}, {9, 3}, {11, 3}, {9, 4}, {10, 4}, {11, 4}};
	for (int k = 0; k < 8; k++)
		CHECK(tui_pick(&s, &cam, around[k][0], around[k][1], 1) == 1, "neighbour (%d,%d)",
		      around[k][0], around[k][1]);
	int away[4][2] = {{12, 3}, {8, 3}, {10, 5}, {10, 1}};
	for (int k = 0; k < 4; k++)
		CHECK(tui_pick(&s, &cam, away[k][0], away[k][1], 1) == 0, "two cells off (%d,%d)",
		      away[k][0], away[k][1]);
	/* From (11,3), whose centre is (11.5,7): vehicle 2 at 0.7 beats vehicle 1 at 1.0. */
	add_v(&s, 2, 12.2, 7, 0, 1); /* (12,3) */
	CHECK(tui_pick(&s, &cam, 11, 3, 1) == 2, "nearest neighbour: %u",
	      tui_pick(&s, &cam, 11, 3, 1));
	/* A vehicle in the cell itself wins even when farther from its centre. */
	add_v(&s, 3, 11.01, 6.01, 0, 0); /* (11,3), 1.1 from the centre */
	CHECK(tui_pick(&s, &cam, 11, 3, 1) == 3, "own cell first: %u",
	      tui_pick(&s, &cam, 11, 3, 1));
	steer_snapshot_free(&s);
}

/* Tolerance 0 (a click meant as a waypoint for the selected vehicle): only a vehicle
 * in the clicked cell itself is picked, never a neighbour. */
static void pick_exact(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 1000, STEER_EDGE_BOUNCE);
	tui_camera cam = cam_at(0, 0, 1, 40, 20);
	add_v(&s, 1, 10.5, 7, 1, 0); /* (10,3) */
	CHECK(tui_pick(&s, &cam, 10, 3, 0) == 1, "own cell");
	int around[8][2] = {{9, 2}, {10, 2}, {11, 2}, {9, 3}, {11, 3}, {9, 4}, {10, 4}, {11, 4}};
	for (int k = 0; k < 8; k++)
		CHECK(tui_pick(&s, &cam, around[k][0], around[k][1], 0) == 0,
		      "neighbour (%d,%d) picked with tolerance 0", around[k][0], around[k][1]);
	steer_snapshot_free(&s);
}

/* Follow across a wrap edge: the vehicle leaves the view it was centred in (the
 * server culls to that rectangle, so the next snapshot lacks it); the centre goes to
 * where its velocity took it, wrapped, and that view contains it. */
static void follow_across_wrap(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 600, STEER_EDGE_WRAP);
	s.tick_rate = 60;
	s.tick = 100;
	add_v(&s, 7, 999, 300, 50, 0);
	add_v(&s, 8, 500, 300, 0, 0);
	tui_follow f;
	tui_follow_start(&f, 7);
	double cx, cy;
	bool predicted;
	CHECK(tui_follow_centre(&f, &s, &cx, &cy, &predicted) && !predicted, "seen");
	CHECK(fabs(cx - 999) < 1e-3 && fabs(cy - 300) < 1e-3, "centred on it: %g %g", cx, cy);
	/* Three ticks later (2.5 units on) it wrapped to x = 1.5: not in this snapshot. */
	s.tick = 103;
	s.count = 1;
	s.v[0] = s.v[1]; /* only #8 */
	CHECK(tui_follow_centre(&f, &s, &cx, &cy, &predicted) && predicted, "predicted");
	CHECK(fabs(cx - 1.5) < 1e-3 && fabs(cy - 300) < 1e-3, "across the edge: %g %g", cx, cy);
	tui_camera cam = cam_at(0, 0, 1, 80, 22);
	cam.cx = cx;
	cam.cy = cy;
	double x0, y0, x1, y1;
	tui_camera_bounds(&cam, &x0, &y0, &x1, &y1);
	CHECK(x0 <= 1.5 && 1.5 <= x1, "the new view [%g,%g] misses it", x0, x1);
	/* Back in the next snapshot: followed from there. */
	s.tick = 106;
	add_v(&s, 7, 4, 300, 50, 0);
	CHECK(tui_follow_centre(&f, &s, &cx, &cy, &predicted) && !predicted && fabs(cx - 4) < 1e-3,
	      "seen again at %g", cx);
	/* Gone for longer than TUI_FOLLOW_LOST_S: lost, no wild guesses. */
	s.count = 1;
	s.tick = 106 + (uint64_t)(60 * TUI_FOLLOW_LOST_S) + 1;
	CHECK(!tui_follow_centre(&f, &s, &cx, &cy, &predicted), "still predicted after %g s",
	      TUI_FOLLOW_LOST_S);
	/* A world that does not wrap: a vanished vehicle is not predicted. */
	s.edges = STEER_EDGE_BOUNCE;
	s.tick = 107;
	f.tick = 106;
	CHECK(!tui_follow_centre(&f, &s, &cx, &cy, &predicted), "predicted in a bounce world");
	/* Vanished in the middle of the world, far from every edge: removed (by another
	 * client), not wrapped, so not predicted. */
	tui_follow_start(&f, 9);
	s.edges = STEER_EDGE_WRAP;
	s.count = 1;
	s.tick = 200;
	add_v(&s, 9, 500, 200, 50, 0);
	CHECK(tui_follow_centre(&f, &s, &cx, &cy, &predicted) && !predicted, "seen #9");
	s.count = 1;
	s.tick = 206;
	CHECK(!tui_follow_centre(&f, &s, &cx, &cy, &predicted), "a removed vehicle predicted");
	steer_snapshot_free(&s);
}

static void grid_resize_and_ascii(void)
{
	tui_grid g = {0};
	CHECK(tui_grid_resize(&g, 3, 2) == 0 && g.cols == 3 && g.rows == 2 && g.cells, "3x2: %dx%d",
	      g.cols, g.rows);
	CHECK(count_glyph(&g, G_EMPTY) == 6, "new grid not empty");
	char row[8];
	tui_grid_row_ascii(&g, 1, row);
	CHECK(!strcmp(row, "   "), "empty row '%s'", row);
	tui_grid_at(&g, 1, 1)->glyph = G_ARROW_NW;
	tui_grid_at(&g, 2, 1)->glyph = G_OBSTACLE;
	tui_grid_row_ascii(&g, 1, row);
	CHECK(!strcmp(row, " \\#"), "row '%s'", row);
	tui_grid_row_ascii(&g, 2, row);
	CHECK(row[0] == '\0', "row past the end '%s'", row);
	CHECK(tui_grid_resize(&g, 0, 5) == 0 && g.cols == 0 && g.rows == 0, "0x5: %dx%d", g.cols,
	      g.rows);
	CHECK(tui_grid_resize(&g, -3, -1) == 0 && g.cols == 0 && g.rows == 0, "negative");
	CHECK(tui_grid_resize(&g, INT_MAX, INT_MAX) == -1 && g.cols == 0 && g.rows == 0,
	      "INT_MAX squared: %dx%d", g.cols, g.rows);
	CHECK(tui_grid_resize(&g, 65536, 65536) == -1 && g.cols == 0 && g.rows == 0,
	      "past int range");
	/* An empty grid is drawn into without harm. */
	steer_snapshot s;
	snap_init(&s, 10, 10, STEER_EDGE_BOUNCE);
	add_v(&s, 1, 1, 1, 0, 0);
	tui_camera cam = cam_at(0, 0, 1, 4, 4);
	tui_render_opts o = {.show_cursor = true};
	tui_render(&g, &s, &cam, &o);
	CHECK(tui_grid_resize(&g, 200, 100) == 0 && g.cols == 200 && g.rows == 100, "regrow");
	tui_render(&g, &s, &cam, &o);
	CHECK(tui_grid_resize(&g, 4, 4) == 0, "shrink");
	tui_render(&g, &s, &cam, &o);
	CHECK(count_vehicles(&g) == 1, "after shrinking");
	tui_grid_free(&g);
	CHECK(g.cells == NULL && g.cols == 0, "free");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

static void line_glyph_by_slope(void)
{
	struct {
		double du, dv;
		tui_glyph want;
	} cases[] = {
	    {1, 0, G_WALL_H},     {-3, 0.5, G_WALL_H}, {2, 1, G_WALL_H},      {0, 1, G_WALL_V},
	    {0.2, -5, G_WALL_V},  {1, 1, G_WALL_DOWN}, {-1, -1, G_WALL_DOWN}, {1, -1, G_WALL_UP},
	    {-2, 1.5, G_WALL_UP}, {0, 0, G_WALL_H},    {NAN, 1, G_WALL_H},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		CHECK(tui_line_glyph(cases[k].du, cases[k].dv) == cases[k].want,
		      "(%g, %g): %d, want %d", cases[k].du, cases[k].dv,
		      tui_line_glyph(cases[k].du, cases[k].dv), cases[k].want);
	CHECK(!strcmp(tui_glyph_text(G_WALL_H, true), "━") &&
	          !strcmp(tui_glyph_text(G_WALL_UP, false), "/") &&
	          !strcmp(tui_glyph_text(G_WALL_DOWN, false), "\\"),
	      "wall glyph texts");
}

/* Cells of g in row holding glyph gl, as a bit per column (cols < 64). */
static uint64_t row_mask(tui_grid *g, int row, tui_glyph gl)
{
	uint64_t m = 0;
	for (int col = 0; col < g->cols && col < 64; col++)
		if (cell(g, col, row).glyph == gl)
			m |= 1ull << col;
	return m;
}

/* Columns a..b as a mask. */
static uint64_t cols_mask(int a, int b)
{
	uint64_t m = 0;
	for (int c = a; c <= b; c++)
		m |= 1ull << c;
	return m;
}

/* A wall is a line of glyphs by its slope, in the wall colour, under vehicles and
 * obstacles, cut to the view however far its ends are. */
static void render_walls_as_lines(void)
{
	steer_snapshot s;
	snap_init(&s, 40, 20, STEER_EDGE_BOUNCE);
	add_wall(&s, 1, 2.5, 5, 12.5, 5);   /* row 2, columns 2-12 */
	add_wall(&s, 2, 20.5, 1, 20.5, 15); /* column 20, rows 0-7 */
	add_wall(&s, 3, 25.5, 1, 31.5, 13); /* (25,0) to (31,6), one row a column */
	add_wall(&s, 4, 33.5, 13, 39.5, 1); /* (33,6) up to (39,0) */
	tui_camera cam = cam_at(0, 0, 1, 40, 10);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	CHECK(row_mask(&g, 2, G_WALL_H) == cols_mask(2, 12), "horizontal wall: %llx",
	      (unsigned long long)row_mask(&g, 2, G_WALL_H));
	for (int row = 0; row < 10; row++)
		CHECK(cell(&g, 20, row).glyph == (row <= 7 ? G_WALL_V : G_EMPTY),
		      "vertical wall row %d: %d", row, cell(&g, 20, row).glyph);
	for (int k = 0; k <= 6; k++) {
		CHECK(cell(&g, 25 + k, k).glyph == G_WALL_DOWN, "falling wall at (%d,%d): %d",
		      25 + k, k, cell(&g, 25 + k, k).glyph);
		CHECK(cell(&g, 33 + k, 6 - k).glyph == G_WALL_UP, "rising wall at (%d,%d): %d",
		      33 + k, 6 - k, cell(&g, 33 + k, 6 - k).glyph);
	}
	CHECK(count_nonempty(&g) == 11 + 8 + 7 + 7, "%d cells drawn", count_nonempty(&g));
	CHECK(cell(&g, 5, 2).color == C_WALL && cell(&g, 20, 3).color == C_WALL, "wall colour");

	/* Vehicles and obstacles are drawn over walls. */
	add_v(&s, 1, 4.5, 5, 1, 0);
	add_obstacle(&s, 9, 10.5, 5, 0.4);
	render(&g, &s, &cam, &o);
	CHECK(cell(&g, 4, 2).glyph == G_ARROW_E && cell(&g, 10, 2).glyph == G_OBSTACLE &&
	          cell(&g, 5, 2).glyph == G_WALL_H,
	      "over the wall: %d %d %d", cell(&g, 4, 2).glyph, cell(&g, 10, 2).glyph,
	      cell(&g, 5, 2).glyph);

	/* Ends far beyond the view, and one that is not a number. */
	steer_snapshot far;
	snap_init(&far, 40, 20, STEER_EDGE_NONE);
	add_wall(&far, 1, -1e12, 7, 1e12, 7);
	add_wall(&far, 2, NAN, 0, 5, 5);
	add_wall(&far, 3, 1e30, 1e30, 2e30, 2e30);
	render(&g, &far, &cam, &o);
	CHECK(row_mask(&g, 3, G_WALL_H) == cols_mask(0, 39) && count_nonempty(&g) == 40,
	      "a wall across the world: %d cells", count_nonempty(&g));
	tui_grid_free(&g);
	steer_snapshot_free(&far);
	steer_snapshot_free(&s);
}

/* A polygon is its outline, the last vertex joined to the first; its inside is left
 * empty. Bounds that are walls draw the frame in the wall colour. */
static void render_polygon_outline(void)
{
	steer_snapshot s;
	snap_init(&s, 40, 20, STEER_EDGE_BOUNCE);
	double square[] = {5.5, 4.5, 15.5, 4.5, 15.5, 12.5, 5.5, 12.5}; /* cols 5-15, rows 2-6 */
	add_polygon(&s, 3, square, 4);
	tui_camera cam = cam_at(0, 0, 1, 40, 10);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	CHECK((row_mask(&g, 2, G_WALL_H) & cols_mask(6, 14)) == cols_mask(6, 14) &&
	          (row_mask(&g, 6, G_WALL_H) & cols_mask(6, 14)) == cols_mask(6, 14),
	      "top and bottom edges");
	for (int row = 3; row <= 5; row++) {
		CHECK(cell(&g, 5, row).glyph == G_WALL_V && cell(&g, 15, row).glyph == G_WALL_V,
		      "side edges at row %d", row);
		CHECK(row_mask(&g, row, G_EMPTY) == (cols_mask(0, 39) & ~(1ull << 5 | 1ull << 15)),
		      "inside or outside drawn at row %d", row);
	}
	CHECK(count_nonempty(&g) == 2 * 11 + 2 * 3, "%d cells", count_nonempty(&g));

	/* contain on: the frame is a wall. */
	tui_camera wide = cam_at(-2, -2, 1, 44, 12);
	render(&g, &s, &wide, &o);
	CHECK(cell(&g, 1, 0).glyph == G_CORNER && cell(&g, 5, 0).color == C_BORDER, "plain frame");
	s.geometry.contain = true;
	render(&g, &s, &wide, &o);
	CHECK(cell(&g, 5, 0).glyph == G_BORDER_H && cell(&g, 5, 0).color == C_WALL &&
	          cell(&g, 1, 3).color == C_WALL,
	      "contained frame colour %d", cell(&g, 5, 0).color);
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

/* In a wrapping world a wall crossing an edge continues from the opposite one, as a
 * vehicle crossing there would; in a bounded world it runs on past the frame. */
static void render_wall_across_wrap_seam(void)
{
	steer_snapshot s;
	snap_init(&s, 20, 10, STEER_EDGE_WRAP);
	/* x = 0 is column 2's left edge, x = 20 column 22's (the frame); y = 3 is row 2. */
	add_wall(&s, 1, 16.5, 3, 24.5, 3);
	/* Crossing the bottom edge too: y 8 to 14 is rows 5-6 here and 0-2 from y = 0. */
	add_wall(&s, 2, 10.5, 8, 10.5, 14);
	tui_camera cam = cam_at(-2, -2, 1, 26, 9);
	tui_grid g = {0};
	tui_render_opts o = {0};
	render(&g, &s, &cam, &o);
	CHECK(row_mask(&g, 2, G_WALL_H) == (cols_mask(2, 6) | cols_mask(18, 22)),
	      "wrapped wall: %llx", (unsigned long long)row_mask(&g, 2, G_WALL_H));
	for (int row = 0; row < 9; row++) {
		bool want = (row >= 1 && row <= 3) || (row >= 5 && row <= 6);
		CHECK((cell(&g, 12, row).glyph == G_WALL_V) == want, "vertical wall row %d: %d",
		      row, cell(&g, 12, row).glyph);
	}
	s.edges = STEER_EDGE_BOUNCE;
	render(&g, &s, &cam, &o);
	CHECK(row_mask(&g, 2, G_WALL_H) == cols_mask(18, 25), "bounded: %llx",
	      (unsigned long long)row_mask(&g, 2, G_WALL_H));
	/* A wrapping world far smaller than its wall draws a bounded number of pieces. */
	s.edges = STEER_EDGE_WRAP;
	add_wall(&s, 3, -1e12, 1, 1e12, 1);
	render(&g, &s, &cam, &o);
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

/* A vehicle of a bounded world is drawn inside its frame, never on it, whatever the
 * terminal size the view was fitted to: also a hair outside the world, where a
 * compact snapshot's rounding to its quanta puts a vehicle at the very edge (the
 * fitted world starts just after a cell boundary, so -0.01 was the border's row). */
static void render_vehicles_inside_border(void)
{
	steer_snapshot s;
	snap_init(&s, 1000, 600, STEER_EDGE_BOUNCE);
	const double pts[][2] = {{0.02, 0.02},  {500, 0.02},    {999.98, 0.02}, {0.02, 300},
	                         {999.98, 300}, {0.02, 599.98}, {500, 599.98},  {999.98, 599.98},
	                         {0, 0},        {1000, 600},    {1000, 0},      {0, 600},
	                         {500, -0.01},  {-0.01, 300},   {1000.01, 300}, {500, 600.01}};
	const int sizes[][2] = {{60, 18}, {40, 10}, {80, 22}, {61, 19}, {33, 7}, {120, 40}};
	tui_grid g = {0};
	tui_render_opts o = {0};
	for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		tui_camera cam;
		tui_camera_fit(&cam, s.width, s.height, sizes[z][0], sizes[z][1]);
		for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
			s.count = 0;
			add_v(&s, 1, pts[k][0], pts[k][1], 1, 1);
			render(&g, &s, &cam, &o);
			CHECK(count_vehicles(&g) == 1, "%dx%d (%g,%g): %d vehicles drawn",
			      sizes[z][0], sizes[z][1], pts[k][0], pts[k][1], count_vehicles(&g));
			int borders = count_glyph(&g, G_BORDER_H) + count_glyph(&g, G_BORDER_V) +
			              count_glyph(&g, G_CORNER);
			int col = -1, row = -1;
			for (int c = 0; c < g.cols; c++)
				for (int r = 0; r < g.rows; r++)
					if (cell(&g, c, r).glyph == G_ARROW_SE) {
						col = c;
						row = r;
					}
			/* Picking follows the drawing: a click on the glyph selects it. */
			CHECK(tui_pick(&s, &cam, col, row, 0) == 1, "%dx%d (%g,%g): not picked",
			      sizes[z][0], sizes[z][1], pts[k][0], pts[k][1]);
			s.count = 0;
			render(&g, &s, &cam, &o);
			int frame = count_glyph(&g, G_BORDER_H) + count_glyph(&g, G_BORDER_V) +
			            count_glyph(&g, G_CORNER);
			CHECK(borders == frame, "%dx%d (%g,%g): drawn over the frame (%d of %d)",
			      sizes[z][0], sizes[z][1], pts[k][0], pts[k][1], borders, frame);
		}
	}
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

/* The whole picture for a known layout, as the ASCII rows a reader would see. */
static void ascii_picture(void)
{
	steer_snapshot s;
	snap_init(&s, 16, 12, STEER_EDGE_BOUNCE);
	add_v(&s, 1, 3.5, 1, 1, 0);               /* (5,1) east */
	add_v(&s, 2, 1.0, 9.0, 0, -2);            /* (3,5) north */
	add_v(&s, 3, 14.2, 10.9, 0, 0);           /* (16,6) still */
	add_v(&s, 4, 6.5, 8.0, -1, 1)->group = 3; /* (8,5) south-west, selected */
	add_obstacle(&s, 1, 10, 6, 2.5);          /* rows 3-4, columns 10-13 */
	steer_snap_route *r = add_route(&s, 4);
	double wp[] = {2.5, 3, 7.5, 3}; /* (4,2) and (9,2) */
	route_path(r, wp, 2, false);
	r->has_target = true;
	r->target_x = 14.5; /* (16,2) */
	r->target_y = 3;
	steer_snap_route *other = add_route(&s, 1); /* not selected: not drawn */
	other->has_target = true;
	other->target_x = 12;
	other->target_y = 1;
	/* The world's top-left corner two columns right of and one row below the grid's. */
	tui_camera cam = cam_at(-2, -2, 1, 20, 8);
	tui_grid g = {0};
	tui_render_opts o = {.selected = 4, .show_cursor = true, .cursor_col = 2, .cursor_row = 6};
	render(&g, &s, &cam, &o);
	const char *want[8] = {
	    " +----------------+ ", " |   >            | ", " |  o....o      X | ",
	    " |        ####    | ", " |        ####    | ", " | ^    /         | ",
	    " |+             o | ", " +----------------+ ",
	};
	char row[21];
	for (int k = 0; k < 8; k++) {
		tui_grid_row_ascii(&g, k, row);
		CHECK(!strcmp(row, want[k]), "row %d:\n  got  '%s'\n  want '%s'", k, row, want[k]);
	}
	CHECK(cell(&g, 8, 5).bold && cell(&g, 8, 5).color == C_SELECTED, "selected not marked");
	CHECK(cell(&g, 16, 6).color == C_GROUP0 && cell(&g, 2, 6).color == C_CURSOR, "colours");
	tui_grid_free(&g);
	steer_snapshot_free(&s);
}

int main(void)
{
	RUN(camera_fit_contains_world);
	RUN(camera_round_trip);
	RUN(camera_stays_in_server_range);
	RUN(camera_aspect);
	RUN(camera_zoom_keeps_point);
	RUN(camera_pan_whole_cells);
	RUN(camera_keep_cursor);
	RUN(heading_glyph_compass);
	RUN(glyph_texts);
	RUN(render_vehicles);
	RUN(render_vehicles_inside_border);
	RUN(render_obstacle_disc);
	RUN(render_border);
	RUN(render_selected_route);
	RUN(render_debug_aids);
	RUN(debug_aids_keep_off_borders_and_walls);
	RUN(render_cursor);
	RUN(render_extremes);
	RUN(render_density);
	RUN(line_glyph_by_slope);
	RUN(render_walls_as_lines);
	RUN(render_polygon_outline);
	RUN(render_wall_across_wrap_seam);
	RUN(pick_vehicles);
	RUN(pick_exact);
	RUN(follow_across_wrap);
	RUN(grid_resize_and_ascii);
	RUN(ascii_picture);
	return CHECK_DONE();
}
