/* steer-tui's frames: the map, the panels and the status line, drawn at most
 * TUI_FRAME_MS apart. */
#define _XOPEN_SOURCE 700
#include "app.h"

#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steer/command.h"
#include "steer/world.h"

/* --- drawing ------------------------------------------------------------------------- */

static int visible_count(const tui_app *a)
{
	double x0, y0, x1, y1;
	tui_camera_bounds(&a->cam, &x0, &y0, &x1, &y1);
	const steer_snapshot *s = &a->net.snapshot;
	int n = 0;
	for (size_t k = 0; k < s->count; k++)
		n += s->v[k].x >= x0 && s->v[k].x <= x1 && s->v[k].y >= y0 && s->v[k].y <= y1;
	return n;
}

static void behaviours_text(uint32_t bits, char *out, size_t n)
{
	out[0] = '\0';
	for (int k = 0; k < STEER_BEHAVIOR_COUNT; k++)
		if (bits & (1u << k)) {
			size_t len = strlen(out);
			snprintf(out + len, n - len, "%s%s", len ? "," : "",
			         steer_behavior_name(1u << k));
		}
}

/* Cuts text (ASCII) to cols columns at a word boundary, ending with an ellipsis, so
 * that no word is cut in the middle. The ellipsis counts its bytes: the line is drawn
 * with at most cols bytes. */
static void fit_words(char *text, int cols, bool utf8)
{
	size_t n = strlen(text);
	if (cols < 0 || n <= (size_t)cols)
		return;
	const char *dots = utf8 ? "\xe2\x80\xa6" : "...";
	size_t dw = strlen(dots);
	size_t room = (size_t)cols > dw ? (size_t)cols - dw : 0, cut = room;
	while (cut > 0 && text[cut] != ' ')
		cut--;
	while (cut > 0 && (text[cut - 1] == ' ' || text[cut - 1] == '|' || text[cut - 1] == ','))
		cut--;
	if (cut == 0) /* one long word: cut it after all rather than show nothing */
		cut = room;
	snprintf(text + cut, n + 1 - cut, "%s", cols >= (int)dw ? dots : "");
}

/* One part of the connected status line; short: the same in fewer words (NULL none). */
typedef struct status_item {
	const char *text, *brief;
	bool shown, use_brief;
} status_item;

static int items_len(const status_item *it, int n)
{
	int len = 0;
	for (int k = 0; k < n; k++)
		if (it[k].shown)
			len += 3 + (int)strlen(it[k].use_brief ? it[k].brief : it[k].text);
	return len - 2; /* " connected": one leading space, not " | " */
}

static void status_text(tui_app *a, char *out, size_t n, bool *alert)
{
	const steer_snapshot *s = &a->net.snapshot;
	*alert = false;
	if (a->net.state != NET_CONNECTED) {
		*alert = true;
		if (a->net.state == NET_WAITING) {
			uint64_t now = uv_now(a->loop);
			double in = a->net.retry_at_ms > now
			                ? (double)(a->net.retry_at_ms - now) / 1000
			                : 0;
			/* "H:P is not a steer-server ..." names the address itself */
			const char *where = a->net.where;
			size_t wl = strlen(where);
			bool named =
			    !strncmp(a->net.last_error, where, wl) && a->net.last_error[wl] == ' ';
			/* a long error is cut at the line's end */
			if (snprintf(out, n, " disconnected, retrying in %.1fs (%s%s%s)", in,
			             named ? "" : where, named ? "" : ": ", a->net.last_error) < 0)
				out[0] = '\0';
		} else {
			snprintf(out, n, " connecting to %s ...", a->net.where);
		}
		fit_words(out, a->screen.cols, a->screen.utf8);
		return;
	}
	if (!a->have_snapshot) {
		snprintf(out, n, " connected %s, waiting for the first snapshot", a->net.where);
		fit_words(out, a->screen.cols, a->screen.utf8);
		return;
	}
	char sel[160] = "", sel_brief[24] = "";
	if (a->selected) {
		const steer_snap_vehicle *v = app_find_vehicle(a, a->selected);
		if (v) {
			char beh[96];
			behaviours_text(v->behaviors, beh, sizeof beh);
			if (!beh[0])
				snprintf(beh, sizeof beh, "no behaviour");
			char speed[32];
			tui_speed_text(v->vx, v->vy, speed, sizeof speed);
			snprintf(sel, sizeof sel, "#%u %s u/s %s", v->id, speed, beh);
		} else if (a->follow_predicted && a->follow.id == a->selected) {
			snprintf(sel, sizeof sel, "#%u (across the edge)", a->selected);
		} else {
			snprintf(sel, sizeof sel, "#%u (off view)", a->selected);
		}
		snprintf(sel_brief, sizeof sel_brief, "#%u", a->selected);
	}
	char tick[40], seen[96], seen_brief[64], hz[40];
	snprintf(tick, sizeof tick, "tick %llu", (unsigned long long)s->tick);
	if (s->density) {
		snprintf(seen, sizeof seen, "density: %u/%u in view, up to %u a cell", s->in_view,
		         s->total_vehicles, s->max_count);
		snprintf(seen_brief, sizeof seen_brief, "density %u/%u, %u a cell", s->in_view,
		         s->total_vehicles, s->max_count);
	} else {
		snprintf(seen, sizeof seen, "vehicles %d/%u in view", visible_count(a),
		         s->total_vehicles);
		snprintf(seen_brief, sizeof seen_brief, "%d/%u in view", visible_count(a),
		         s->total_vehicles);
	}
	/* A server that cannot keep up ticks slower than it was asked to: say so, from
	 * the last second, while the world is running. */
	bool fresh = a->stats_ms && uv_now(a->loop) - a->stats_ms < TUI_STATS_POLL_MS * 3;
	double made = s->paused || !fresh ? NAN : tui_stats_behind(&a->stats, s->tick_rate);
	char hz_brief[40];
	if (isfinite(made)) {
		snprintf(hz, sizeof hz, "behind: %.0f of %g ticks/s", made, s->tick_rate);
		snprintf(hz_brief, sizeof hz_brief, "behind %.0f/%g", made, s->tick_rate);
	} else {
		snprintf(hz, sizeof hz, "%g/%g Hz", s->tick_rate, a->net.msg.welcome.snapshot_rate);
		snprintf(hz_brief, sizeof hz_brief, "%s", hz);
	}
	char past[96], past_brief[48];
	tui_past_note(&a->timeline, s->tick, false, past, sizeof past);
	tui_past_note(&a->timeline, s->tick, true, past_brief, sizeof past_brief);
	enum {
		ST_CONN,
		ST_PAST,
		ST_TICK,
		ST_SEEN,
		ST_CLOCK,
		ST_HZ,
		ST_SEL,
		ST_FOLLOW,
		ST_DEBUG,
		ST_NITEMS
	};
	status_item it[ST_NITEMS] = {
	    [ST_CONN] = {"connected", NULL, true, false},
	    [ST_PAST] = {past, past_brief, past[0] != '\0', false},
	    [ST_TICK] = {tick, NULL, true, false},
	    [ST_SEEN] = {seen, seen_brief, true, false},
	    [ST_CLOCK] = {s->paused ? "PAUSED" : "running", NULL, true, false},
	    [ST_HZ] = {hz, hz_brief, true, false},
	    [ST_SEL] = {sel, sel_brief, a->selected != 0, false},
	    [ST_FOLLOW] = {"follow", NULL, a->follow.id != 0, false},
	    [ST_DEBUG] = {"debug", NULL, a->debug, false},
	};
	/* On a narrow terminal whole items go, least important first: the selection,
	 * follow, debug and a paused clock matter more than the tick count and the rates. */
	static const struct {
		int item;
		bool brief; /* shorten it rather than drop it */
	} give_up[] = {{ST_TICK, false},  {ST_SEEN, true},   {ST_HZ, true},     {ST_HZ, false},
	               {ST_PAST, true},   {ST_SEL, true},    {ST_CLOCK, false}, {ST_SEEN, false},
	               {ST_DEBUG, false}, {ST_FOLLOW, false}};
	for (size_t k = 0;
	     k < sizeof give_up / sizeof give_up[0] && items_len(it, ST_NITEMS) > a->screen.cols;
	     k++) {
		status_item *i = &it[give_up[k].item];
		if (give_up[k].item == ST_CLOCK && s->paused)
			continue; /* PAUSED explains a still map: it stays */
		if (give_up[k].item == ST_HZ && !give_up[k].brief && isfinite(made))
			continue; /* and "behind" a slow one */
		if (give_up[k].brief)
			i->use_brief = true;
		else
			i->shown = false;
	}
	size_t len = 0;
	out[0] = '\0';
	for (int k = 0; k < ST_NITEMS && len < n; k++)
		if (it[k].shown)
			len += (size_t)snprintf(out + len, n - len, "%s%s", k ? " | " : " ",
			                        it[k].use_brief ? it[k].brief : it[k].text);
	fit_words(out, a->screen.cols, a->screen.utf8);
}

static void draw(tui_app *a)
{
	int cols, rows;
	app_map_area(a, &cols, &rows);
	a->cam.cols = cols;
	a->cam.rows = rows;
	if (tui_grid_resize(&a->grid, cols, rows) != 0)
		return;
	/* Without a connection there is no world to show: the last one may be gone, and
	 * before any snapshot there is none (it was drawn as a box of size 0). */
	char banner[2][400];
	const char *banner_lines[2] = {banner[0], banner[1]};
	int nbanner = 0;
	if (a->net.state == NET_CONNECTED && a->have_snapshot) {
		tui_render_opts o = {a->selected, a->debug, true, a->cursor_col, a->cursor_row};
		tui_render(&a->grid, &a->net.snapshot, &a->cam, &o);
	} else {
		memset(a->grid.cells, 0, (size_t)cols * (size_t)rows * sizeof a->grid.cells[0]);
	}
	if (a->net.state == NET_WAITING) {
		uint64_t now = uv_now(a->loop);
		double in =
		    a->net.retry_at_ms > now ? (double)(a->net.retry_at_ms - now) / 1000 : 0;
		snprintf(banner[0], sizeof banner[0], "  disconnected from %.100s: %.190s",
		         a->net.where, a->net.last_error);
		snprintf(banner[1], sizeof banner[1], "  reconnecting in %.1f s - q quits", in);
		fit_words(banner[0], a->screen.cols, a->screen.utf8);
		fit_words(banner[1], a->screen.cols, a->screen.utf8);
		nbanner = 2;
	}
	char status[512];
	bool alert;
	status_text(a, status, sizeof status, &alert);
	static char panel[TUI_STATS_SERIES + 1][TUI_STATS_LINE];
	int npanel = a->stats_open ? tui_stats_panel(&a->stats, a->screen.cols, a->screen.utf8,
	                                             panel, TUI_STATS_SERIES + 1)
	                           : 0;
	if (a->cmdline_open && a->hint[0]) {
		snprintf(status, sizeof status, " %s", a->hint);
		alert = false;
	}
	tui_frame_text t = {status,
	                    a->message,
	                    a->cmdline_open ? a->cmd.buf : NULL,
	                    a->cmd.pos,
	                    a->pager.open ? &a->pager : NULL,
	                    (const char(*)[TUI_STATS_LINE])panel,
	                    npanel,
	                    alert,
	                    banner_lines,
	                    nbanner};
	tui_screen_draw(&a->screen, &a->grid, &t);
	app_send_view_if_changed(a);
}

void app_on_frame(uv_timer_t *t)
{
	tui_app *a = t->data;
	a->dirty = false;
	a->last_frame_ms = uv_now(a->loop);
	draw(a);
	/* The status line counts down the reconnect: redraw while waiting. */
	if (a->net.state == NET_WAITING)
		uv_timer_start(&a->frame_timer, app_on_frame, 250, 0);
}

/* Coalesces redraws: at most one frame per TUI_FRAME_MS, none while nothing changes. */
void app_schedule_frame(tui_app *a)
{
	if (a->dirty || a->quitting)
		return;
	a->dirty = true;
	uint64_t now = uv_now(a->loop);
	uint64_t due = a->last_frame_ms + TUI_FRAME_MS;
	uv_timer_start(&a->frame_timer, app_on_frame, due > now ? due - now : 0, 0);
}
