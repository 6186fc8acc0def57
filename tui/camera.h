/* The mapping between world units and terminal cells. A terminal cell is about twice
 * as tall as it is wide, so a row spans twice the world distance of a column: circles
 * stay round and flocks are not squashed. World y grows downwards, like rows. */
#ifndef TUI_CAMERA_H
#define TUI_CAMERA_H

#include <stdbool.h>

#define TUI_CELL_ASPECT 2.0 /* cell height / cell width */

typedef struct tui_camera {
	double cx, cy;  /* world point at the centre of the map area */
	double scale;   /* world units per column; a row is TUI_CELL_ASPECT times that */
	int cols, rows; /* map area in cells */
} tui_camera;

/* Fits the whole [0,w] x [0,h] world in cols x rows cells, centred. */
void tui_camera_fit(tui_camera *c, double w, double h, int cols, int rows);
/* Cell (col,row) holding world point (x,y); false when outside the map area. The
 * cell's column and row are floor((x - left) / scale) etc., so they can be negative. */
bool tui_camera_to_cell(const tui_camera *c, double x, double y, int *col, int *row);
/* World point at the centre of a cell. */
void tui_camera_to_world(const tui_camera *c, int col, int row, double *x, double *y);
/* The world rectangle the map area shows. */
void tui_camera_bounds(const tui_camera *c, double *x0, double *y0, double *x1, double *y1);
/* factor > 1 zooms in, keeping the world point under (col,row) where it is. */
void tui_camera_zoom(tui_camera *c, double factor, int col, int row);
/* Pans by whole cells. */
void tui_camera_pan(tui_camera *c, int dcols, int drows);
/* Moves the cursor cell (col,row) of camera was to the cell of now showing the same
 * world point, or to now's centre cell when that point is out of now's view. */
void tui_camera_keep_cursor(const tui_camera *was, const tui_camera *now, int *col, int *row);

#endif
