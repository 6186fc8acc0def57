/* World <-> cell mapping. Cell indices are clamped well inside int range before the
 * conversion, because snapshots can hold any float and an out-of-range double to
 * int conversion is undefined behaviour. */
#include <math.h>

#include "camera.h"

/* Zooming below a thousandth of a unit per column shows nothing useful; the upper
 * bound lets the largest world the core accepts (1e9) fit in a tiny terminal. */
#define SCALE_MIN 1e-3
#define SCALE_MAX 1e9
/* Far enough outside any terminal to be off-screen, far enough inside int range to
 * leave room for the +-1 neighbour arithmetic callers do. */
#define CELL_LIMIT 1e9
/* The centre stays where the view's corners are inside what the server accepts
 * (STEER_VIEW_COORD_MAX, 1e13): at the widest zoom a 4096-column view spans 4e12. */
#define CENTRE_LIMIT 1e12

static double clamp_scale(double s)
{
	if (!(s >= SCALE_MIN)) /* NaN too */
		return SCALE_MIN;
	return s > SCALE_MAX ? SCALE_MAX : s;
}

static double clamp_centre(double u)
{
	if (!(u >= -CENTRE_LIMIT)) /* NaN too */
		return u > 0 ? CENTRE_LIMIT : -CENTRE_LIMIT;
	return u > CENTRE_LIMIT ? CENTRE_LIMIT : u;
}

static double left_edge(const tui_camera *c)
{
	return c->cx - c->cols * c->scale / 2;
}

static double top_edge(const tui_camera *c)
{
	return c->cy - c->rows * c->scale * TUI_CELL_ASPECT / 2;
}

static int cell_of(double u)
{
	if (!(u > -CELL_LIMIT)) /* NaN lands off-screen, on the negative side */
		return (int)-CELL_LIMIT;
	if (u > CELL_LIMIT)
		return (int)CELL_LIMIT;
	return (int)floor(u);
}

void tui_camera_fit(tui_camera *c, double w, double h, int cols, int rows)
{
	if (!(w > 0) || !isfinite(w))
		w = 1;
	if (!(h > 0) || !isfinite(h))
		h = 1;
	c->cols = cols > 0 ? cols : 0;
	c->rows = rows > 0 ? rows : 0;
	/* One cell each side is kept for the border, which sits just outside the world. */
	int inner_cols = cols > 2 ? cols - 2 : 1;
	int inner_rows = rows > 2 ? rows - 2 : 1;
	double sx = w / inner_cols;
	double sy = h / (inner_rows * TUI_CELL_ASPECT);
	/* A hair larger so that the far edge, landing exactly on a cell boundary, does not
	 * round into the border's cell and push the border off-screen. */
	c->scale = clamp_scale((sx > sy ? sx : sy) * (1 + 1e-9));
	c->cx = w / 2;
	c->cy = h / 2;
}

bool tui_camera_to_cell(const tui_camera *c, double x, double y, int *col, int *row)
{
	double u = (x - left_edge(c)) / c->scale;
	double v = (y - top_edge(c)) / (c->scale * TUI_CELL_ASPECT);
	*col = cell_of(u);
	*row = cell_of(v);
	return isfinite(u) && isfinite(v) && *col >= 0 && *col < c->cols && *row >= 0 &&
	       *row < c->rows;
}

void tui_camera_to_world(const tui_camera *c, int col, int row, double *x, double *y)
{
	*x = left_edge(c) + (col + 0.5) * c->scale;
	*y = top_edge(c) + (row + 0.5) * c->scale * TUI_CELL_ASPECT;
}

void tui_camera_bounds(const tui_camera *c, double *x0, double *y0, double *x1, double *y1)
{
	*x0 = left_edge(c);
	*y0 = top_edge(c);
	*x1 = *x0 + c->cols * c->scale;
	*y1 = *y0 + c->rows * c->scale * TUI_CELL_ASPECT;
}

void tui_camera_zoom(tui_camera *c, double factor, int col, int row)
{
	if (!(factor > 0) || !isfinite(factor))
		return;
	double wx, wy;
	tui_camera_to_world(c, col, row, &wx, &wy);
	c->scale = clamp_scale(c->scale / factor);
	/* Solve to_world(col,row) == (wx,wy) for the centre at the new scale. */
	c->cx = clamp_centre(wx + c->cols * c->scale / 2 - (col + 0.5) * c->scale);
	c->cy = clamp_centre(wy + (c->rows / 2.0 - (row + 0.5)) * c->scale * TUI_CELL_ASPECT);
}

void tui_camera_pan(tui_camera *c, int dcols, int drows)
{
	c->cx = clamp_centre(c->cx + dcols * c->scale);
	c->cy = clamp_centre(c->cy + drows * c->scale * TUI_CELL_ASPECT);
}

void tui_camera_keep_cursor(const tui_camera *was, const tui_camera *now, int *col, int *row)
{
	double x, y;
	tui_camera_to_world(was, *col, *row, &x, &y);
	int c, r;
	if (tui_camera_to_cell(now, x, y, &c, &r)) {
		*col = c;
		*row = r;
	} else {
		*col = now->cols / 2;
		*row = now->rows / 2;
	}
}
