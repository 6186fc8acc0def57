/* Snapshot -> glyph grid, as plain functions with no terminal in sight, so the
 * picture can be unit-tested. screen.c turns the grid into ncurses calls. */
#ifndef TUI_RENDER_H
#define TUI_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "camera.h"
#include "steer/wire.h"

/* What a cell shows, from lowest to highest drawing priority. */
typedef enum tui_glyph {
	G_EMPTY = 0,
	G_BORDER_H,
	G_BORDER_V,
	G_CORNER,
	G_WALL_H, /* a wall or polygon edge, drawn by its slope on screen: horizontal */
	G_WALL_V,
	G_WALL_UP,   /* rising to the right */
	G_WALL_DOWN, /* falling to the right */
	G_FEELER,    /* debug: avoidance feeler */
	G_FORCE,     /* debug: steering force */
	G_PATH,      /* a segment of the selected vehicle's path */
	G_WAYPOINT,
	G_TARGET, /* the selected vehicle's seek/arrive/flee target */
	G_OBSTACLE,
	G_ARROW_E, /* vehicle heading east; the next seven go counter-clockwise */
	G_ARROW_NE,
	G_ARROW_N,
	G_ARROW_NW,
	G_ARROW_W,
	G_ARROW_SW,
	G_ARROW_S,
	G_ARROW_SE,
	G_STILL, /* a vehicle at rest */
	G_CURSOR,
	G_COUNT,
} tui_glyph;

typedef enum tui_color {
	C_DEFAULT = 0,
	C_GROUP0, /* C_GROUP0 + (group % 6) */
	C_GROUP1,
	C_GROUP2,
	C_GROUP3,
	C_GROUP4,
	C_GROUP5,
	C_OBSTACLE,
	C_BORDER,
	C_PATH,
	C_TARGET,
	C_AID,
	C_SELECTED,
	C_CURSOR,
	C_HEAT1, /* density cells: 1 vehicle, 2-3, 4-7, 8-15, 16 or more */
	C_HEAT2,
	C_HEAT3,
	C_HEAT4,
	C_HEAT5,
	C_WALL, /* walls, polygon outlines, and the frame of a world whose edges are walls */
	C_COUNT,
} tui_color;

typedef struct tui_cell {
	uint8_t glyph; /* tui_glyph */
	uint8_t color; /* tui_color */
	bool bold;
} tui_cell;

typedef struct tui_grid {
	int cols, rows;
	tui_cell *cells; /* cols * rows, row-major; owned */
} tui_grid;

/* 0, or -1 when memory runs out (the grid is then empty). Reuses capacity. */
int tui_grid_resize(tui_grid *g, int cols, int rows);
void tui_grid_free(tui_grid *g);
static inline tui_cell *tui_grid_at(tui_grid *g, int col, int row)
{
	return &g->cells[row * g->cols + col];
}

typedef struct tui_render_opts {
	uint32_t selected; /* vehicle id, 0 for none */
	bool debug;        /* force and feeler aids for every visible vehicle */
	bool show_cursor;
	int cursor_col, cursor_row;
} tui_render_opts;

/* The heading glyph for a velocity (world y down: vy < 0 is north); G_STILL when the
 * speed is below a small threshold. */
tui_glyph tui_heading_glyph(double vx, double vy);
/* A snapshot vehicle's speed as the status line writes it ("45.5"): rounded to the
 * compact snapshot's quarter first, so that one speed reads the same from every
 * kind of snapshot (a compact one's float components miss the quarter by a few
 * millionths either way; a density frame's picked vehicle and the debug aids' plain
 * snapshot carry it whole). */
void tui_speed_text(double vx, double vy, char *out, size_t n);

/* The line glyph for a segment that spans (du, dv) cells on screen. */
tui_glyph tui_line_glyph(double du, double dv);

/* The heat colour of a density cell holding count vehicles (count >= 1). */
tui_color tui_heat_color(uint32_t count);

/* Draws the snapshot into g (already sized to the camera's cols x rows). A density
 * snapshot draws each occupied cell as its mean heading in its heat colour. The
 * geometry the snapshot holds (walls, polygon outlines) is drawn as lines under
 * everything but the frame; in a wrapping world a line crossing an edge continues
 * from the opposite one. */
void tui_render(tui_grid *g, const steer_snapshot *s, const tui_camera *cam,
                const tui_render_opts *o);

/* The vehicle drawn in cell (col,row), else the nearest one within tolerance cells of
 * it (0: that cell only, 1: its neighbours too), or 0. */
uint32_t tui_pick(const steer_snapshot *s, const tui_camera *cam, int col, int row, int tolerance);

/* The text for a glyph: UTF-8 when utf8, else plain ASCII. */
const char *tui_glyph_text(tui_glyph g, bool utf8);

/* The bytes of the UTF-8 text s that its first cols columns take (the client draws
 * one column a character), for curses' byte-counted output. */
int tui_cols_bytes(const char *s, int cols);

/* Writes one row as ASCII text (for tests and debugging). out holds cols + 1. */
void tui_grid_row_ascii(const tui_grid *g, int row, char *out);

#endif
