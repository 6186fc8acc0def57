#define _XOPEN_SOURCE 700
#include "app.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "world.h"

static void schedule_frame(tui_app *a);

/* --- talking to the server --------------------------------------------------------- */

static void send_line(tui_app *a, const char *line, tui_purpose purpose)
{
	if (a->net.state != NET_CONNECTED) {
		snprintf(a->message, sizeof a->message, "not connected: '%s' not sent", line);
		schedule_frame(a);
		return;
	}
	uint32_t rid = ++a->next_request;
	steer_strbuf_clear(&a->net.out);
	if (!steer_wire_command_line(&a->net.out, rid, line) || !tui_net_send_out(&a->net)) {
		snprintf(a->message, sizeof a->message, "could not send '%s'", line);
		schedule_frame(a);
		return;
	}
	if (purpose != PURPOSE_NONE) {
		a->purpose = purpose;
		a->purpose_id = rid;
	}
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
sendf(tui_app *a, tui_purpose purpose, const char *fmt, ...)
{
	char line[TUI_CMDLINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	send_line(a, line, purpose);
}

/* The view, and compact snapshots at the precision of the map area: a new zoom, pan
 * or terminal size is a new request. The debug aids draw each vehicle's steering
 * force, which only the plain snapshot carries: they switch to it. */
static void send_view_if_changed(tui_app *a)
{
	if (a->net.state != NET_CONNECTED)
		return;
	steer_view v = {true, 0, 0, 0, 0};
	tui_camera_bounds(&a->cam, &v.x0, &v.y0, &v.x1, &v.y1);
	/* The selection rides along: zoomed out to density, the server still sends it. */
	steer_compact_req req = {!a->debug, (uint32_t)a->cam.cols, (uint32_t)a->cam.rows,
	                         a->density, a->selected};
	if (a->cam.cols < 1 || a->cam.rows < 1 || a->cam.cols > (int)STEER_COMPACT_MAX_CELLS ||
	    a->cam.rows > (int)STEER_COMPACT_MAX_CELLS)
		req.on = false;
	if (!req.on)
		req.pick = 0; /* only a compact request carries one */
	if (steer_view_same(&v, &a->sent_view) && steer_compact_req_same(&req, &a->sent_req) &&
	    req.pick == a->sent_req.pick)
		return;
	steer_strbuf_clear(&a->net.out);
	if (steer_wire_viewport_ex(&a->net.out, &v, &req) && tui_net_send_out(&a->net)) {
		a->sent_view = v;
		a->sent_req = req;
	}
}

static const steer_snap_vehicle *find_vehicle(const tui_app *a, uint32_t id)
{
	const steer_snapshot *s = &a->net.snapshot;
	for (size_t k = 0; k < s->count; k++)
		if (s->v[k].id == id)
			return &s->v[k];
	return NULL;
}

static void on_connected(void *ud)
{
	tui_app *a = ud;
	steer_strbuf_clear(&a->net.out);
	if (steer_wire_hello(&a->net.out, "steer-tui"))
		tui_net_send_out(&a->net);
	memset(&a->sent_view, 0, sizeof a->sent_view); /* the new connection has none */
	memset(&a->sent_req, 0, sizeof a->sent_req);
	snprintf(a->message, sizeof a->message, "connected to %.100s:%s - ? for help", a->net.host,
	         a->net.port);
	schedule_frame(a);
}

static void on_disconnected(void *ud, const char *why)
{
	tui_app *a = ud;
	snprintf(a->message, sizeof a->message, "%s", why);
	schedule_frame(a);
}

static void map_area(const tui_app *a, int *cols, int *rows)
{
	*cols = a->screen.cols;
	*rows = a->screen.rows > 2 ? a->screen.rows - 2 : 1;
}

static void fit(tui_app *a)
{
	int cols, rows;
	map_area(a, &cols, &rows);
	tui_camera_fit(&a->cam, a->world_w, a->world_h, cols, rows);
	a->cursor_col = cols / 2;
	a->cursor_row = rows / 2;
}

static void handle_reply(tui_app *a, const steer_server_msg *m)
{
	if (m->ok)
		snprintf(a->message, sizeof a->message, "OK %.*s",
		         (int)(m->json.len < 240 ? m->json.len : 240),
		         m->json.len ? m->json.data : "");
	else
		snprintf(a->message, sizeof a->message, "ERR %.200s", m->error);
	if (m->ok && a->purpose == PURPOSE_SELECT_NEW && m->request_id == a->purpose_id &&
	    m->json.len) {
		const char *p = strstr(m->json.data, "\"id\":");
		if (p)
			a->selected = (uint32_t)strtoul(p + 5, NULL, 10);
		a->purpose = PURPOSE_NONE;
	}
}

static void on_message(void *ud, const steer_server_msg *m)
{
	tui_app *a = ud;
	switch (m->kind) {
	case STEER_MSG_WELCOME:
		a->world_w = m->welcome.width;
		a->world_h = m->welcome.height;
		if (!a->fitted) {
			fit(a);
			a->fitted = true;
		}
		break;
	case STEER_MSG_SNAPSHOT: {
		const steer_snapshot *s = &a->net.snapshot;
		bool resized = s->width != a->world_w || s->height != a->world_h;
		a->world_w = s->width;
		a->world_h = s->height;
		if (resized || !a->fitted) {
			fit(a);
			a->fitted = true;
		}
		a->have_snapshot = true;
		if (a->follow && a->selected) {
			const steer_snap_vehicle *v = find_vehicle(a, a->selected);
			if (v) {
				a->cam.cx = v->x;
				a->cam.cy = v->y;
			}
		}
		break;
	}
	case STEER_MSG_REPLY:
		handle_reply(a, m);
		break;
	case STEER_MSG_NOTICE: /* another client changed the session: "bob paused" */
		snprintf(a->message, sizeof a->message, "%.250s", m->notice);
		break;
	}
	schedule_frame(a);
}

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
			snprintf(out, n, " disconnected, retrying in %.1fs (%s:%s: %s)", in,
			         a->net.host, a->net.port, a->net.last_error);
		} else {
			snprintf(out, n, " connecting to %s:%s ...", a->net.host, a->net.port);
		}
		return;
	}
	if (!a->have_snapshot) {
		snprintf(out, n, " connected %s:%s, waiting for the first snapshot", a->net.host,
		         a->net.port);
		return;
	}
	char sel[160] = "";
	if (a->selected) {
		const steer_snap_vehicle *v = find_vehicle(a, a->selected);
		if (v) {
			char beh[96];
			behaviours_text(v->behaviors, beh, sizeof beh);
			snprintf(sel, sizeof sel, " | #%u %.1f u/s %s", v->id, hypot(v->vx, v->vy),
			         beh);
		} else {
			snprintf(sel, sizeof sel, " | #%u (off view)", a->selected);
		}
	}
	char seen[96];
	if (s->density)
		snprintf(seen, sizeof seen, "density: %u/%u in view, up to %u a cell", s->in_view,
		         s->total_vehicles, s->max_count);
	else
		snprintf(seen, sizeof seen, "vehicles %d/%u in view", visible_count(a),
		         s->total_vehicles);
	snprintf(out, n, " connected | tick %llu | %s | %s | %g/%g Hz%s%s%s",
	         (unsigned long long)s->tick, seen, s->paused ? "PAUSED" : "running", s->tick_rate,
	         a->net.msg.welcome.snapshot_rate, sel, a->follow ? " | follow" : "",
	         a->debug ? " | debug" : "");
}

static void draw(tui_app *a)
{
	int cols, rows;
	map_area(a, &cols, &rows);
	a->cam.cols = cols;
	a->cam.rows = rows;
	if (tui_grid_resize(&a->grid, cols, rows) != 0)
		return;
	tui_render_opts o = {a->selected, a->debug, true, a->cursor_col, a->cursor_row};
	tui_render(&a->grid, &a->net.snapshot, &a->cam, &o);
	char status[512];
	bool alert;
	status_text(a, status, sizeof status, &alert);
	a->cmdline[a->cmdlen] = '\0';
	tui_frame_text t = {status, a->message, a->cmdline_open ? a->cmdline : NULL, a->help,
	                    alert};
	tui_screen_draw(&a->screen, &a->grid, &t);
	send_view_if_changed(a);
}

static void on_frame(uv_timer_t *t)
{
	tui_app *a = t->data;
	a->dirty = false;
	a->last_frame_ms = uv_now(a->loop);
	draw(a);
	/* The status line counts down the reconnect: redraw while waiting. */
	if (a->net.state == NET_WAITING)
		uv_timer_start(&a->frame_timer, on_frame, 250, 0);
}

/* Coalesces redraws: at most one frame per TUI_FRAME_MS, none while nothing changes. */
static void schedule_frame(tui_app *a)
{
	if (a->dirty || a->quitting)
		return;
	a->dirty = true;
	uint64_t now = uv_now(a->loop);
	uint64_t due = a->last_frame_ms + TUI_FRAME_MS;
	uv_timer_start(&a->frame_timer, on_frame, due > now ? due - now : 0, 0);
}

/* --- actions ------------------------------------------------------------------------- */

static void cursor_world(const tui_app *a, double *x, double *y)
{
	tui_camera_to_world(&a->cam, a->cursor_col, a->cursor_row, x, y);
}

static void click(tui_app *a, int col, int row, bool right)
{
	a->cursor_col = col;
	a->cursor_row = row;
	double x, y;
	cursor_world(a, &x, &y);
	if (right) {
		if (a->selected)
			sendf(a, PURPOSE_NONE, "arrive %u %.17g %.17g", a->selected, x, y);
		else
			snprintf(a->message, sizeof a->message,
			         "select a vehicle first (left click or Tab)");
		return;
	}
	uint32_t hit = tui_pick(&a->net.snapshot, &a->cam, col, row);
	if (hit) {
		a->selected = hit;
		snprintf(a->message, sizeof a->message,
		         "selected #%u - left click adds waypoints, right click sets its target",
		         hit);
	} else if (a->selected) {
		sendf(a, PURPOSE_NONE, "waypoint %u %.17g %.17g", a->selected, x, y);
	}
}

static void cycle_selection(tui_app *a)
{
	const steer_snapshot *s = &a->net.snapshot;
	uint32_t best = 0, lowest = 0;
	for (size_t k = 0; k < s->count; k++) {
		uint32_t id = s->v[k].id;
		if (!lowest || id < lowest)
			lowest = id;
		if (id > a->selected && (!best || id < best))
			best = id;
	}
	a->selected = best ? best : lowest;
}

static void toggle(tui_app *a, uint32_t bit)
{
	const steer_snap_vehicle *v = a->selected ? find_vehicle(a, a->selected) : NULL;
	if (!v) {
		snprintf(a->message, sizeof a->message,
		         "select a vehicle first (left click or Tab)");
		return;
	}
	sendf(a, PURPOSE_NONE, "%s %u %s", steer_behavior_name(bit), v->id,
	      (v->behaviors & bit) ? "off" : "on");
}

static void quit(tui_app *a, int code);

static void run_cmdline(tui_app *a)
{
	a->cmdline[a->cmdlen] = '\0';
	a->cmdline_open = false;
	if (a->cmdlen == 0)
		return;
	if (a->history_count == 0 ||
	    strcmp(a->history[(a->history_count - 1) % TUI_HISTORY], a->cmdline) != 0) {
		snprintf(a->history[a->history_count % TUI_HISTORY], TUI_CMDLINE_MAX, "%s",
		         a->cmdline);
		a->history_count++;
	}
	send_line(a, a->cmdline, PURPOSE_NONE);
	a->cmdlen = 0;
}

static void history_move(tui_app *a, int delta)
{
	int oldest = a->history_count > TUI_HISTORY ? a->history_count - TUI_HISTORY : 0;
	int pos = a->history_pos + delta;
	if (pos < oldest || pos > a->history_count)
		return;
	a->history_pos = pos;
	if (pos == a->history_count)
		a->cmdline[0] = '\0';
	else
		snprintf(a->cmdline, TUI_CMDLINE_MAX, "%s", a->history[pos % TUI_HISTORY]);
	a->cmdlen = strlen(a->cmdline);
}

static void cmdline_key(tui_app *a, int ch)
{
	switch (ch) {
	case 27: /* Esc */
		a->cmdline_open = false;
		a->cmdlen = 0;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		run_cmdline(a);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (a->cmdlen)
			a->cmdlen--;
		else
			a->cmdline_open = false;
		break;
	case KEY_UP:
		history_move(a, -1);
		break;
	case KEY_DOWN:
		history_move(a, +1);
		break;
	default:
		if (ch >= 32 && ch < 127 && a->cmdlen + 1 < TUI_CMDLINE_MAX)
			a->cmdline[a->cmdlen++] = (char)ch;
	}
}

static void move_cursor(tui_app *a, int dc, int dr)
{
	int cols, rows;
	map_area(a, &cols, &rows);
	a->cursor_col += dc;
	a->cursor_row += dr;
	/* Walking the cursor off the edge pans the view with it. */
	if (a->cursor_col < 0 || a->cursor_col >= cols || a->cursor_row < 0 ||
	    a->cursor_row >= rows) {
		tui_camera_pan(&a->cam, dc, dr);
		a->cursor_col -= dc;
		a->cursor_row -= dr;
	}
}

static void key(tui_app *a, int ch)
{
	if (a->help) {
		a->help = false;
		return;
	}
	if (a->cmdline_open) {
		cmdline_key(a, ch);
		return;
	}
	int cols, rows;
	map_area(a, &cols, &rows);
	int step_c = cols / 10 > 1 ? cols / 10 : 1, step_r = rows / 10 > 1 ? rows / 10 : 1;
	double x, y;
	cursor_world(a, &x, &y);
	switch (ch) {
	case 'q':
		quit(a, 0);
		break;
	case '?':
		a->help = true;
		break;
	case ':':
		a->cmdline_open = true;
		a->cmdlen = 0;
		a->history_pos = a->history_count;
		break;
	case KEY_LEFT:
	case 'h':
		tui_camera_pan(&a->cam, -step_c, 0);
		a->follow = false;
		break;
	case KEY_RIGHT:
	case 'l':
		tui_camera_pan(&a->cam, step_c, 0);
		a->follow = false;
		break;
	case KEY_UP:
	case 'k':
		tui_camera_pan(&a->cam, 0, -step_r);
		a->follow = false;
		break;
	case KEY_DOWN:
	case 'j':
		tui_camera_pan(&a->cam, 0, step_r);
		a->follow = false;
		break;
	case 'H':
		move_cursor(a, -1, 0);
		break;
	case 'L':
		move_cursor(a, 1, 0);
		break;
	case 'K':
		move_cursor(a, 0, -1);
		break;
	case 'J':
		move_cursor(a, 0, 1);
		break;
	case '+':
	case '=':
		tui_camera_zoom(&a->cam, 1.25, a->cursor_col, a->cursor_row);
		break;
	case '-':
		tui_camera_zoom(&a->cam, 0.8, a->cursor_col, a->cursor_row);
		break;
	case '0':
		fit(a);
		a->follow = false;
		break;
	case 'c':
		a->follow = !a->follow && a->selected;
		snprintf(a->message, sizeof a->message, a->follow ? "following #%u" : "follow off",
		         a->selected);
		break;
	case '\t':
		cycle_selection(a);
		break;
	case 27:
		a->selected = 0;
		a->follow = false;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		click(a, a->cursor_col, a->cursor_row, false);
		break;
	case 't':
		click(a, a->cursor_col, a->cursor_row, true);
		break;
	case 's':
		sendf(a, PURPOSE_SELECT_NEW, "spawn %.17g %.17g", x, y);
		break;
	case 'F':
		sendf(a, PURPOSE_NONE, "spawn flock 20 %.17g %.17g %.17g", x, y,
		      4 * a->cam.scale + 20);
		break;
	case 'o':
		sendf(a, PURPOSE_NONE, "obstacle %.17g %.17g %.17g", x, y, 2 * a->cam.scale + 10);
		break;
	case 'x':
		if (a->selected)
			sendf(a, PURPOSE_NONE, "remove %u", a->selected);
		a->selected = 0;
		break;
	case 'w':
		toggle(a, STEER_WANDER);
		break;
	case 'a':
		toggle(a, STEER_AVOID);
		break;
	case ' ':
		send_line(a, a->net.snapshot.paused ? "resume" : "pause", PURPOSE_NONE);
		break;
	case '.':
		if (!a->net.snapshot.paused)
			send_line(a, "pause", PURPOSE_NONE);
		send_line(a, "step", PURPOSE_NONE);
		break;
	case 'd':
		a->debug = !a->debug;
		break;
	case 'D': {
		static const char *const names[] = {"auto (when zoomed out)", "always", "never"};
		a->density = (steer_density_mode)((a->density + 1) % 3);
		snprintf(a->message, sizeof a->message, "density cells: %s", names[a->density]);
		break;
	}
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) != OK || ev.y >= rows)
			break;
		if (ev.bstate & BUTTON1_PRESSED)
			click(a, ev.x, ev.y, false);
		else if (ev.bstate & BUTTON3_PRESSED)
			click(a, ev.x, ev.y, true);
		else if (ev.bstate & BUTTON4_PRESSED)
			tui_camera_zoom(&a->cam, 1.25, ev.x, ev.y);
		else if (ev.bstate & BUTTON5_PRESSED)
			tui_camera_zoom(&a->cam, 0.8, ev.x, ev.y);
		break;
	}
	case KEY_RESIZE:
		tui_screen_resize(&a->screen);
		break;
	default:
		break;
	}
}

static void on_input(uv_poll_t *p, int status, int events)
{
	tui_app *a = p->data;
	(void)events;
	if (status < 0) {
		quit(a, 1);
		return;
	}
	int ch;
	while (!a->quitting && (ch = getch()) != ERR)
		key(a, ch);
	schedule_frame(a);
}

/* --- lifetime ------------------------------------------------------------------------ */

static void on_resize(uv_signal_t *h, int sig)
{
	tui_app *a = h->data;
	(void)sig;
	tui_screen_resize(&a->screen);
	int cols, rows;
	map_area(a, &cols, &rows);
	a->cam.cols = cols;
	a->cam.rows = rows;
	if (a->cursor_col >= cols)
		a->cursor_col = cols - 1;
	if (a->cursor_row >= rows)
		a->cursor_row = rows - 1;
	/* Redraw at once: a resize must never leave a torn screen on display. */
	a->dirty = false;
	on_frame(&a->frame_timer);
}

static void on_quit_signal(uv_signal_t *h, int sig)
{
	tui_app *a = h->data;
	(void)sig;
	quit(a, 0);
}

static void quit(tui_app *a, int code)
{
	if (a->quitting)
		return;
	a->quitting = true;
	a->exit_code = code;
	tui_net_stop(&a->net);
	uv_close((uv_handle_t *)&a->frame_timer, NULL);
	uv_close((uv_handle_t *)&a->input, NULL);
	uv_close((uv_handle_t *)&a->sigwinch, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
	uv_close((uv_handle_t *)&a->sigterm, NULL);
	uv_close((uv_handle_t *)&a->sighup, NULL);
}

int tui_app_run(const char *host, int port)
{
	static tui_app app; /* big (history, buffers): not on the stack */
	tui_app *a = &app;
	memset(a, 0, sizeof *a);
	a->loop = uv_default_loop();
	a->world_w = 1000;
	a->world_h = 600;
	if (!tui_screen_open(&a->screen)) {
		tui_screen_close();
		return 1;
	}
	fit(a);
	tui_net_events ev = {a, on_connected, on_message, on_disconnected};
	int rc;
	if ((rc = uv_timer_init(a->loop, &a->frame_timer)) ||
	    (rc = uv_poll_init(a->loop, &a->input, STDIN_FILENO)) ||
	    (rc = uv_signal_init(a->loop, &a->sigwinch)) ||
	    (rc = uv_signal_init(a->loop, &a->sigint)) ||
	    (rc = uv_signal_init(a->loop, &a->sigterm)) ||
	    (rc = uv_signal_init(a->loop, &a->sighup)) ||
	    (rc = tui_net_start(&a->net, a->loop, host, port, &ev))) {
		tui_screen_close();
		fprintf(stderr, "steer-tui: %s\n", uv_strerror(rc));
		return 1;
	}
	a->frame_timer.data = a->input.data = a;
	a->sigwinch.data = a->sigint.data = a->sigterm.data = a->sighup.data = a;
	uv_poll_start(&a->input, UV_READABLE, on_input);
	uv_signal_start(&a->sigwinch, on_resize, SIGWINCH);
	uv_signal_start(&a->sigint, on_quit_signal, SIGINT);
	uv_signal_start(&a->sigterm, on_quit_signal, SIGTERM);
	uv_signal_start(&a->sighup, on_quit_signal, SIGHUP);
	snprintf(a->message, sizeof a->message, "connecting to %s:%d - ? for help, q to quit", host,
	         port);
	schedule_frame(a);
	uv_run(a->loop, UV_RUN_DEFAULT);
	tui_screen_close();
	tui_net_free(&a->net);
	tui_grid_free(&a->grid);
	uv_loop_close(a->loop);
	return a->exit_code;
}
