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

#include "help.h"
#include "json.h"
#include "steer/command.h"
#include "steer/world.h"

/* --- talking to the server --------------------------------------------------------- */

uint32_t app_send_line(tui_app *a, const char *line, tui_purpose purpose)
{
	if (a->net.state != NET_CONNECTED) {
		snprintf(a->message, sizeof a->message, "not connected: '%s' not sent", line);
		app_schedule_frame(a);
		return 0;
	}
	uint32_t rid = ++a->next_request;
	steer_strbuf_clear(&a->net.out);
	if (steer_wire_command_line(&a->net.out, rid, line) != STEER_OK ||
	    !tui_net_send_out(&a->net)) {
		snprintf(a->message, sizeof a->message, "could not send '%s'", line);
		app_schedule_frame(a);
		return 0;
	}
	if (purpose == PURPOSE_NONE)
		return rid;
	/* A free slot, else the oldest request's: a reply that never came frees nothing. */
	tui_pending *slot = &a->pending[0];
	for (int k = 0; k < TUI_PENDING; k++) {
		if (!a->pending[k].id) {
			slot = &a->pending[k];
			break;
		}
		if (a->pending[k].id < slot->id)
			slot = &a->pending[k];
	}
	*slot = (tui_pending){.id = rid, .purpose = purpose};
	return rid;
}

uint32_t app_send_name(tui_app *a, const char *line, const char *name)
{
	uint32_t rid = app_send_line(a, line, PURPOSE_NAME);
	for (int k = 0; rid && k < TUI_PENDING; k++)
		if (a->pending[k].id == rid)
			snprintf(a->pending[k].name, sizeof a->pending[k].name, "%s", name);
	return rid;
}

/* The request a reply answers (its slot freed), or one of PURPOSE_NONE. */
static tui_pending take_pending(tui_app *a, uint32_t rid)
{
	for (int k = 0; rid && k < TUI_PENDING; k++)
		if (a->pending[k].id == rid) {
			tui_pending p = a->pending[k];
			a->pending[k].id = 0;
			return p;
		}
	return (tui_pending){.purpose = PURPOSE_NONE};
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
uint32_t
app_sendf(tui_app *a, tui_purpose purpose, const char *fmt, ...)
{
	char line[TUI_CMDLINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	return app_send_line(a, line, purpose);
}

/* The view, and compact snapshots at the precision of the map area: a new zoom, pan
 * or terminal size is a new request. The debug aids draw each vehicle's steering
 * force, which only the plain snapshot carries: they switch to it. */
void app_send_view_if_changed(tui_app *a)
{
	if (a->net.state != NET_CONNECTED)
		return;
	steer_view v = {true, 0, 0, 0, 0};
	tui_camera_bounds(&a->cam, &v.x0, &v.y0, &v.x1, &v.y1);
	/* The selection rides along: zoomed out to density, the server still sends it. */
	steer_compact_req req = {!a->debug, (uint32_t)a->cam.cols, (uint32_t)a->cam.rows,
	                         a->density, a->selected};
	/* While following, the view is where the vehicle is (or is predicted to be, after
	 * it wrapped out of the last view): the server culls to it. */
	if (a->cam.cols < 1 || a->cam.rows < 1 || a->cam.cols > (int)STEER_COMPACT_MAX_CELLS ||
	    a->cam.rows > (int)STEER_COMPACT_MAX_CELLS)
		req.on = false;
	if (!req.on)
		req.pick = 0; /* only a compact request carries one */
	if (steer_view_same(&v, &a->sent_view) && steer_compact_req_same(&req, &a->sent_req) &&
	    req.pick == a->sent_req.pick)
		return;
	steer_strbuf_clear(&a->net.out);
	if (steer_wire_viewport_ex(&a->net.out, &v, &req) == STEER_OK &&
	    tui_net_send_out(&a->net)) {
		a->sent_view = v;
		a->sent_req = req;
	}
}

const steer_snap_vehicle *app_find_vehicle(const tui_app *a, uint32_t id)
{
	const steer_snapshot *s = &a->net.snapshot;
	if (a->snap_stale)
		return NULL;
	for (size_t k = 0; k < s->count; k++)
		if (s->v[k].id == id)
			return &s->v[k];
	return NULL;
}

void app_stop_following(tui_app *a)
{
	tui_follow_start(&a->follow, 0);
	a->follow_predicted = false;
}

/* Every change of the selection goes through here: the follow moves to the new one (or
 * stops), and the message line, which may be about the old one ("following #5"), says
 * what is selected now (callers may say more). */
void app_select_vehicle(tui_app *a, uint32_t id)
{
	a->selected = id;
	a->sel_missing = false;
	if (!id)
		app_stop_following(a);
	else if (a->follow.id)
		tui_follow_start(&a->follow, id);
	if (id)
		snprintf(a->message, sizeof a->message, "%s #%u",
		         a->follow.id ? "following" : "selected", id);
	else
		a->message[0] = '\0';
}

/* The world was replaced (reset, scenario, load, or a restarted server): its ids
 * name other things now, a wall or an obstacle as likely as a vehicle, so the
 * selection and the follow go before a key can act on them. */
static void world_replaced(tui_app *a)
{
	a->snap_stale = true;
	tui_asked_clear(&a->asked);
	if (!a->selected && !a->follow.id)
		return;
	uint32_t was = a->selected;
	app_select_vehicle(a, 0);
	app_stop_following(a);
	if (was)
		snprintf(a->message, sizeof a->message, "a new world: #%u is no longer selected",
		         was);
}

/* True for a notice that another client replaced the world (server/conn.c
 * session_change: "NAME reset the world", "NAME loaded 'SAVE'", "NAME loaded the
 * scenario S"). */
static bool notice_replaces(const char *text)
{
	static const char reset[] = " reset the world";
	size_t n = strlen(text);
	return (n >= sizeof reset - 1 && !strcmp(text + n - (sizeof reset - 1), reset)) ||
	       strstr(text, " loaded '") || strstr(text, " loaded the scenario ");
}

/* A selection missing from the snapshots for this long may have been removed by
 * another client (or be off view): ask the server, at most once in this time. */
#define TUI_GONE_CHECK_MS 1000

static void check_selection(tui_app *a)
{
	if (!a->selected || app_find_vehicle(a, a->selected)) {
		a->sel_missing = false;
		return;
	}
	uint64_t now = uv_now(a->loop);
	if (!a->sel_missing) {
		a->sel_missing = true;
		a->sel_missing_ms = now;
		return;
	}
	if (now - a->sel_missing_ms < TUI_GONE_CHECK_MS ||
	    (a->sel_asked_ms && now - a->sel_asked_ms < TUI_GONE_CHECK_MS) ||
	    a->net.state != NET_CONNECTED)
		return;
	a->sel_asked_ms = now;
	a->sel_asked_id = a->selected;
	app_sendf(a, PURPOSE_SELECT_GONE, "get %u", a->selected);
}

/* Said once the server has greeted: a connection alone may be to the wrong port, and
 * the message line keeps saying why the last try failed until then. */
static void say_connected(tui_app *a)
{
	if (a->cmd_port)
		snprintf(a->message, sizeof a->message,
		         "connected to %.100s:%s (commands: port %d) - ? for help", a->net.host,
		         a->net.port, a->cmd_port);
	else
		snprintf(a->message, sizeof a->message, "connected to %.100s:%s - ? for help",
		         a->net.host, a->net.port);
}

static void on_connected(void *ud)
{
	tui_app *a = ud;
	steer_strbuf_clear(&a->net.out);
	if (steer_wire_hello_token(&a->net.out, a->name, a->token) == STEER_OK)
		tui_net_send_out(&a->net);
	memset(&a->sent_view, 0, sizeof a->sent_view); /* the new connection has none */
	memset(&a->sent_req, 0, sizeof a->sent_req);
	memset(a->pending, 0, sizeof a->pending); /* those replies died with the connection */
	tui_asked_clear(&a->asked);
	app_schedule_frame(a);
}

static void on_disconnected(void *ud, const char *why)
{
	tui_app *a = ud;
	snprintf(a->message, sizeof a->message, "%s", why);
	app_schedule_frame(a);
}

void app_map_area(const tui_app *a, int *cols, int *rows)
{
	*cols = a->screen.cols;
	*rows = a->screen.rows > 2 ? a->screen.rows - 2 : 1;
}

void app_fit(tui_app *a)
{
	int cols, rows;
	app_map_area(a, &cols, &rows);
	tui_camera_fit(&a->cam, a->world_w, a->world_h, cols, rows);
	a->cursor_col = cols / 2;
	a->cursor_row = rows / 2;
}

void app_centre_on(tui_app *a, double x, double y)
{
	a->cam.cx = x;
	a->cam.cy = y;
	int cols, rows;
	app_map_area(a, &cols, &rows);
	a->cursor_col = cols / 2;
	a->cursor_row = rows / 2;
}

static void stats_reply(tui_app *a, const steer_server_msg *m)
{
	if (!m->ok || !m->json.len)
		return;
	uint64_t now = uv_now(a->loop);
	double bps = NAN;
	if (a->stats_ms && now > a->stats_ms)
		bps = (double)(a->net.bytes_in - a->stats_bytes) * 1000.0 /
		      (double)(now - a->stats_ms);
	a->stats_bytes = a->net.bytes_in;
	a->stats_ms = now;
	tui_stats_sample smp = tui_stats_from_json(m->json.data, bps);
	tui_stats_push(&a->stats, &smp);
	tui_timeline_from_json(&a->timeline, m->json.data);
}

void app_quit(tui_app *a, int code);

static void reply_with(tui_app *a, const steer_server_msg *m, const tui_pending *p,
                       const char *json, const json_t *root);

static void handle_reply(tui_app *a, const steer_server_msg *m)
{
	/* The Hello's token refused (request 0): watching on read-only is not what the
	 * user asked for with --token; say so and stop rather than retry it forever. */
	if (!m->ok && m->request_id == 0 && a->token[0] && !strncmp(m->error, "hello: ", 7)) {
		snprintf(a->exit_why, sizeof a->exit_why, "%.100s:%s refused the token: %.180s",
		         a->net.host, a->net.port, m->error + 7);
		app_quit(a, 2);
		return;
	}
	if (!m->ok && m->request_id == 0)
		tui_net_refused(&a->net, m->error); /* a full server's words, before it closes */
	tui_asked_reply(&a->asked, m->request_id, m->ok);
	tui_pending p = take_pending(a, m->request_id);
	if (p.purpose == PURPOSE_STATS) {
		stats_reply(a, m);
		return;
	}
	const char *json = m->json.len ? m->json.data : "";
	json_t *root = tui_json_parse(json);
	reply_with(a, m, &p, json, root);
	json_decref(root);
}

/* handle_reply's work, with the reply's JSON read (root NULL: none, or not JSON). */
static void reply_with(tui_app *a, const steer_server_msg *m, const tui_pending *p,
                       const char *json, const json_t *root)
{
	tui_purpose purpose = p->purpose;
	double v;
	if (purpose == PURPOSE_SELECT_GONE) {
		/* Still there (off view): nothing to say. */
		if (!m->ok && strstr(m->error, "no vehicle") && a->selected &&
		    a->selected == a->sel_asked_id) {
			uint32_t gone = a->selected;
			app_select_vehicle(a, 0);
			snprintf(a->message, sizeof a->message, "#%u is gone", gone);
		}
		return;
	}
	if (m->ok && purpose == PURPOSE_REPLACE)
		world_replaced(a);
	if (m->ok && purpose == PURPOSE_NAME) { /* a reconnection keeps it */
		memcpy(a->name_kept, p->name, sizeof a->name_kept);
		a->name = a->name_kept;
	}
	if (m->ok && purpose == PURPOSE_SELECT_NEW && tui_json_number(root, "id", &v)) {
		app_select_vehicle(a, (uint32_t)v);
	} else if (purpose == PURPOSE_SELECT_GET) {
		double id, x, y;
		if (m->ok && tui_json_number(root, "id", &id) && tui_json_number(root, "x", &x) &&
		    tui_json_number(root, "y", &y) && tui_json_string_is(root, "kind", "vehicle")) {
			app_select_vehicle(a, (uint32_t)id);
			app_centre_on(a, x, y);
		} else {
			snprintf(a->message, sizeof a->message, "select: %.200s",
			         m->ok ? "that id is not a vehicle" : m->error);
		}
		return;
	}
	if (!m->ok) {
		snprintf(a->message, sizeof a->message, "ERR %.200s", m->error);
		return;
	}
	/* rewind, goto-tick: where the world is now; a fork: live again, here. */
	if (!tui_timeline_from_json(&a->timeline, json) && json_object_get(root, "forked"))
		a->timeline.past = false;
	/* A long answer to a question opens in the pager, laid out to read. */
	if (purpose == PURPOSE_SHOW &&
	    (m->json.len + 3 > (size_t)a->screen.cols || m->json.len >= sizeof a->message - 4)) {
		tui_pager_reset(&a->pager, "reply");
		if (tui_pager_add_json(&a->pager, json) == 0) {
			a->pager.open = true;
			snprintf(a->message, sizeof a->message,
			         "OK (%zu bytes of JSON, in the pager)", m->json.len);
			return;
		}
	}
	snprintf(a->message, sizeof a->message, "OK %.*s",
	         (int)(m->json.len < 240 ? m->json.len : 240), json);
}

static void on_message(void *ud, const steer_server_msg *m)
{
	tui_app *a = ud;
	switch (m->kind) {
	case STEER_MSG_WELCOME:
		if (!(m->welcome.width > 0)) {
			/* A private server tells nothing about its world before the token;
			 * the full Welcome follows a successful :auth. */
			snprintf(
			    a->message, sizeof a->message,
			    "connected to %.100s:%s - a private server: :auth TOKEN (or --token) "
			    "to watch",
			    a->net.host, a->net.port);
			break;
		}
		say_connected(a);
		/* The figures are this server's: after a reconnection, maybe another's. */
		tui_stats_init(&a->stats);
		a->world_w = m->welcome.width;
		a->world_h = m->welcome.height;
		if (!a->fitted) {
			app_fit(a);
			a->fitted = true;
		}
		break;
	case STEER_MSG_SNAPSHOT: {
		const steer_snapshot *s = &a->net.snapshot;
		bool resized = s->width != a->world_w || s->height != a->world_h;
		a->world_w = s->width;
		a->world_h = s->height;
		if (resized || !a->fitted) {
			app_fit(a);
			a->fitted = true;
		}
		/* reset and scenario start the clock again; a notice may never come (a
		 * restarted server, or this client's own command on the text port). A rewind
		 * goes back too, in the same world: a selection still in it stays. */
		if (a->have_snapshot && s->tick < a->last_tick &&
		    !(a->selected && app_find_vehicle(a, a->selected)))
			world_replaced(a);
		a->last_tick = s->tick;
		tui_asked_seen(&a->asked, s);
		a->have_snapshot = true;
		a->snap_stale = false;
		double cx, cy;
		bool predicted;
		a->follow_predicted = false;
		if (a->follow.id && tui_follow_centre(&a->follow, s, &cx, &cy, &predicted)) {
			a->cam.cx = cx;
			a->cam.cy = cy;
			a->follow_predicted = predicted;
		}
		check_selection(a);
		break;
	}
	case STEER_MSG_REPLY:
		handle_reply(a, m);
		break;
	case STEER_MSG_NOTICE: /* another client changed the session: "bob paused" */
		if (notice_replaces(m->notice))
			world_replaced(a);
		snprintf(a->message, sizeof a->message, "%.250s", m->notice);
		break;
	case STEER_MSG_GEOMETRY: /* walls or polygons changed: kept in the snapshot */
		break;
	}
	app_schedule_frame(a);
}

/* --- lifetime ------------------------------------------------------------------------ */

/* The one place the terminal size is taken in: from SIGWINCH through libuv (which
 * owns that signal, so ncurses' own handler never runs) and from a KEY_RESIZE should
 * ncurses ever report one. Idempotent, and it queues no further KEY_RESIZE. */
void app_resize(tui_app *a)
{
	/* A view showing the whole world (as fitted, not panned or zoomed since) is
	 * fitted again to the new size; any other keeps its centre and scale. */
	tui_camera was = a->cam;
	tui_camera_fit(&was, a->world_w, a->world_h, a->cam.cols, a->cam.rows);
	bool whole =
	    a->fitted && was.scale == a->cam.scale && was.cx == a->cam.cx && was.cy == a->cam.cy;
	tui_screen_resize(&a->screen);
	int cols, rows;
	app_map_area(a, &cols, &rows);
	tui_camera old = a->cam;
	if (whole) {
		tui_camera_fit(&a->cam, a->world_w, a->world_h, cols, rows);
	} else {
		a->cam.cols = cols;
		a->cam.rows = rows;
	}
	/* The cursor stays on its world point (a clamped cell of a refitted view is
	 * another point, maybe outside the world); off view, it goes to the centre. */
	tui_camera_keep_cursor(&old, &a->cam, &a->cursor_col, &a->cursor_row);
	/* Redraw at once: a app_resize must never leave a torn screen on display. */
	a->dirty = false;
	app_on_frame(&a->frame_timer);
}

static void on_resize(uv_signal_t *h, int sig)
{
	(void)sig;
	app_resize(h->data);
}

/* One `stats` a second, panel open or not, so the history is there when it opens;
 * the server computes the flock figures once a tick for all who ask. */
void app_poll_stats(tui_app *a)
{
	if (a->net.state == NET_CONNECTED)
		app_send_line(a, "stats", PURPOSE_STATS);
}

static void on_stats_timer(uv_timer_t *t)
{
	tui_app *a = t->data;
	app_poll_stats(a);
	if (a->stats_open)
		app_schedule_frame(a);
}

static void on_quit_signal(uv_signal_t *h, int sig)
{
	tui_app *a = h->data;
	(void)sig;
	app_quit(a, 0);
}

void app_quit(tui_app *a, int code)
{
	if (a->quitting)
		return;
	a->quitting = true;
	a->exit_code = code;
	tui_net_stop(&a->net);
	uv_close((uv_handle_t *)&a->frame_timer, NULL);
	uv_close((uv_handle_t *)&a->input_timer, NULL);
	uv_close((uv_handle_t *)&a->stats_timer, NULL);
	uv_close((uv_handle_t *)&a->input, NULL);
	uv_close((uv_handle_t *)&a->sigwinch, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
	uv_close((uv_handle_t *)&a->sigterm, NULL);
	uv_close((uv_handle_t *)&a->sighup, NULL);
}

int tui_app_run(const tui_options *o)
{
	static tui_app app; /* big (history, buffers): not on the stack */
	tui_app *a = &app;
	memset(a, 0, sizeof *a);
	a->loop = uv_default_loop();
	a->cmd_port = o->cmd_port;
	a->name = o->name;
	a->token = o->token ? o->token : "";
	tui_pager_init(&a->pager);
	tui_stats_init(&a->stats);
	a->world_w = 1000;
	a->world_h = 600;
	if (!tui_screen_open(&a->screen)) {
		tui_screen_close();
		return 1;
	}
	app_fit(a);
	tui_net_events ev = {a, on_connected, on_message, on_disconnected};
	int rc;
	if ((rc = uv_timer_init(a->loop, &a->frame_timer)) ||
	    (rc = uv_timer_init(a->loop, &a->input_timer)) ||
	    (rc = uv_timer_init(a->loop, &a->stats_timer)) ||
	    (rc = uv_poll_init(a->loop, &a->input, STDIN_FILENO)) ||
	    (rc = uv_signal_init(a->loop, &a->sigwinch)) ||
	    (rc = uv_signal_init(a->loop, &a->sigint)) ||
	    (rc = uv_signal_init(a->loop, &a->sigterm)) ||
	    (rc = uv_signal_init(a->loop, &a->sighup)) ||
	    (rc = tui_net_start(&a->net, a->loop, o->host, o->port, &ev))) {
		tui_screen_close();
		fprintf(stderr, "steer-tui: %s\n", uv_strerror(rc));
		return 1;
	}
	a->frame_timer.data = a->input_timer.data = a->stats_timer.data = a->input.data = a;
	a->sigwinch.data = a->sigint.data = a->sigterm.data = a->sighup.data = a;
	/* Without these, Ctrl-C, SIGTERM or a app_resize would be lost: refuse to run. */
	if ((rc = uv_poll_start(&a->input, UV_READABLE, app_on_input)) ||
	    (rc = uv_signal_start(&a->sigwinch, on_resize, SIGWINCH)) ||
	    (rc = uv_signal_start(&a->sigint, on_quit_signal, SIGINT)) ||
	    (rc = uv_signal_start(&a->sigterm, on_quit_signal, SIGTERM)) ||
	    (rc = uv_signal_start(&a->sighup, on_quit_signal, SIGHUP)) ||
	    (rc = uv_timer_start(&a->stats_timer, on_stats_timer, TUI_STATS_POLL_MS,
	                         TUI_STATS_POLL_MS))) {
		tui_screen_close();
		fprintf(stderr, "steer-tui: %s\n", uv_strerror(rc));
		return 1;
	}
	snprintf(a->message, sizeof a->message, "connecting to %s:%d - ? for help, q to app_quit",
	         o->host, o->port);
	app_schedule_frame(a);
	uv_run(a->loop, UV_RUN_DEFAULT);
	tui_screen_close();
	if (a->exit_why[0])
		fprintf(stderr, "steer-tui: %s\n", a->exit_why);
	tui_net_free(&a->net);
	tui_grid_free(&a->grid);
	tui_pager_free(&a->pager);
	uv_loop_close(a->loop);
	return a->exit_code;
}
