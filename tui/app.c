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

static void schedule_frame(tui_app *a);
static void resize(tui_app *a);
static void on_more_keys(uv_timer_t *t);
static void poll_stats(tui_app *a);

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
	if (steer_wire_command_line(&a->net.out, rid, line) != STEER_OK ||
	    !tui_net_send_out(&a->net)) {
		snprintf(a->message, sizeof a->message, "could not send '%s'", line);
		schedule_frame(a);
		return;
	}
	if (purpose == PURPOSE_NONE)
		return;
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
	*slot = (tui_pending){rid, purpose};
}

/* The purpose of the request a reply answers (and the slot freed), or PURPOSE_NONE. */
static tui_purpose take_purpose(tui_app *a, uint32_t rid)
{
	for (int k = 0; rid && k < TUI_PENDING; k++)
		if (a->pending[k].id == rid) {
			a->pending[k].id = 0;
			return a->pending[k].purpose;
		}
	return PURPOSE_NONE;
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

static const steer_snap_vehicle *find_vehicle(const tui_app *a, uint32_t id)
{
	const steer_snapshot *s = &a->net.snapshot;
	if (a->snap_stale)
		return NULL;
	for (size_t k = 0; k < s->count; k++)
		if (s->v[k].id == id)
			return &s->v[k];
	return NULL;
}

static void stop_following(tui_app *a)
{
	tui_follow_start(&a->follow, 0);
	a->follow_predicted = false;
}

/* Every change of the selection goes through here: the follow moves to the new one (or
 * stops), and the message line, which may be about the old one ("following #5"), says
 * what is selected now (callers may say more). */
static void select_vehicle(tui_app *a, uint32_t id)
{
	a->selected = id;
	a->sel_missing = false;
	if (!id)
		stop_following(a);
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
	if (!a->selected && !a->follow.id)
		return;
	uint32_t was = a->selected;
	select_vehicle(a, 0);
	stop_following(a);
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
	if (!a->selected || find_vehicle(a, a->selected)) {
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
	sendf(a, PURPOSE_SELECT_GONE, "get %u", a->selected);
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

static void centre_on(tui_app *a, double x, double y)
{
	a->cam.cx = x;
	a->cam.cy = y;
	int cols, rows;
	map_area(a, &cols, &rows);
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

static void quit(tui_app *a, int code);

static void reply_with(tui_app *a, const steer_server_msg *m, tui_purpose purpose, const char *json,
                       const json_t *root);

static void handle_reply(tui_app *a, const steer_server_msg *m)
{
	/* The Hello's token refused (request 0): watching on read-only is not what the
	 * user asked for with --token; say so and stop rather than retry it forever. */
	if (!m->ok && m->request_id == 0 && a->token[0] && !strncmp(m->error, "hello: ", 7)) {
		snprintf(a->exit_why, sizeof a->exit_why, "%.100s:%s refused the token: %.180s",
		         a->net.host, a->net.port, m->error + 7);
		quit(a, 2);
		return;
	}
	tui_purpose purpose = take_purpose(a, m->request_id);
	if (purpose == PURPOSE_STATS) {
		stats_reply(a, m);
		return;
	}
	const char *json = m->json.len ? m->json.data : "";
	json_t *root = tui_json_parse(json);
	reply_with(a, m, purpose, json, root);
	json_decref(root);
}

/* handle_reply's work, with the reply's JSON read (root NULL: none, or not JSON). */
static void reply_with(tui_app *a, const steer_server_msg *m, tui_purpose purpose, const char *json,
                       const json_t *root)
{
	double v;
	if (purpose == PURPOSE_SELECT_GONE) {
		/* Still there (off view): nothing to say. */
		if (!m->ok && strstr(m->error, "no vehicle") && a->selected &&
		    a->selected == a->sel_asked_id) {
			uint32_t gone = a->selected;
			select_vehicle(a, 0);
			snprintf(a->message, sizeof a->message, "#%u is gone", gone);
		}
		return;
	}
	if (m->ok && purpose == PURPOSE_REPLACE)
		world_replaced(a);
	if (m->ok && purpose == PURPOSE_SELECT_NEW && tui_json_number(root, "id", &v)) {
		select_vehicle(a, (uint32_t)v);
	} else if (purpose == PURPOSE_SELECT_GET) {
		double id, x, y;
		if (m->ok && tui_json_number(root, "id", &id) && tui_json_number(root, "x", &x) &&
		    tui_json_number(root, "y", &y) && tui_json_string_is(root, "kind", "vehicle")) {
			select_vehicle(a, (uint32_t)id);
			centre_on(a, x, y);
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
		/* reset and scenario start the clock again; a notice may never come (a
		 * restarted server, or this client's own command on the text port). A rewind
		 * goes back too, in the same world: a selection still in it stays. */
		if (a->have_snapshot && s->tick < a->last_tick &&
		    !(a->selected && find_vehicle(a, a->selected)))
			world_replaced(a);
		a->last_tick = s->tick;
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
			char where[300];
			int wl = snprintf(where, sizeof where, "%s:%s", a->net.host, a->net.port);
			bool named = wl > 0 && !strncmp(a->net.last_error, where, (size_t)wl) &&
			             a->net.last_error[wl] == ' ';
			snprintf(out, n, " disconnected, retrying in %.1fs (%s%s%s)", in,
			         named ? "" : where, named ? "" : ": ", a->net.last_error);
		} else {
			snprintf(out, n, " connecting to %s:%s ...", a->net.host, a->net.port);
		}
		fit_words(out, a->screen.cols, a->screen.utf8);
		return;
	}
	if (!a->have_snapshot) {
		snprintf(out, n, " connected %s:%s, waiting for the first snapshot", a->net.host,
		         a->net.port);
		fit_words(out, a->screen.cols, a->screen.utf8);
		return;
	}
	char sel[160] = "", sel_brief[24] = "";
	if (a->selected) {
		const steer_snap_vehicle *v = find_vehicle(a, a->selected);
		if (v) {
			char beh[96];
			behaviours_text(v->behaviors, beh, sizeof beh);
			if (!beh[0])
				snprintf(beh, sizeof beh, "no behaviour");
			snprintf(sel, sizeof sel, "#%u %.1f u/s %s", v->id, hypot(v->vx, v->vy),
			         beh);
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
	snprintf(hz, sizeof hz, "%g/%g Hz", s->tick_rate, a->net.msg.welcome.snapshot_rate);
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
	    [ST_HZ] = {hz, NULL, true, false},
	    [ST_SEL] = {sel, sel_brief, a->selected != 0, false},
	    [ST_FOLLOW] = {"follow", NULL, a->follow.id != 0, false},
	    [ST_DEBUG] = {"debug", NULL, a->debug, false},
	};
	/* On a narrow terminal whole items go, least important first: the selection,
	 * follow, debug and a paused clock matter more than the tick count and the rates. */
	static const struct {
		int item;
		bool brief; /* shorten it rather than drop it */
	} give_up[] = {{ST_TICK, false}, {ST_SEEN, true},   {ST_HZ, false},
	               {ST_PAST, true},  {ST_SEL, true},    {ST_CLOCK, false},
	               {ST_SEEN, false}, {ST_DEBUG, false}, {ST_FOLLOW, false}};
	for (size_t k = 0;
	     k < sizeof give_up / sizeof give_up[0] && items_len(it, ST_NITEMS) > a->screen.cols;
	     k++) {
		status_item *i = &it[give_up[k].item];
		if (give_up[k].item == ST_CLOCK && s->paused)
			continue; /* PAUSED explains a still map: it stays */
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
	map_area(a, &cols, &rows);
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
		snprintf(banner[0], sizeof banner[0], "  disconnected from %.100s:%s: %.190s",
		         a->net.host, a->net.port, a->net.last_error);
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

static void say_select_first(tui_app *a, const char *what)
{
	snprintf(a->message, sizeof a->message,
	         "%s: nothing selected - select a vehicle first (left click, Tab or :select ID)",
	         what);
}

/* The selection, for a key that sends a command about it; else 0, and the message
 * line says so. Every selection is a vehicle seen (or told of by the server) in the
 * current world: world_replaced drops it on every sign of a new one. */
static uint32_t selection_for(tui_app *a, const char *what)
{
	if (!a->selected)
		say_select_first(a, what);
	return a->selected;
}

static void click(tui_app *a, int col, int row, bool right)
{
	a->cursor_col = col;
	a->cursor_row = row;
	double x, y;
	cursor_world(a, &x, &y);
	if (right) {
		/* goto, not arrive: the server plans round what is in the way, with the
		 * geometry as it is now (circles move between snapshots), and where the
		 * straight line is clear its route is that line, arrived at as arrive. */
		uint32_t id = selection_for(a, "target");
		if (id)
			sendf(a, PURPOSE_NONE, "goto %u %.17g %.17g", id, x, y);
		return;
	}
	/* With a vehicle selected, a click is meant as a waypoint: only a click right on
	 * another vehicle's glyph selects that one instead. With none, a near miss (a
	 * neighbouring cell) still selects. */
	uint32_t hit =
	    a->snap_stale ? 0 : tui_pick(&a->net.snapshot, &a->cam, col, row, a->selected ? 0 : 1);
	if (hit && hit != a->selected) {
		select_vehicle(a, hit);
		snprintf(a->message, sizeof a->message,
		         "selected #%u - left click adds waypoints, right click sets its target",
		         hit);
	} else if (a->selected && !hit) {
		uint32_t id = selection_for(a, "waypoint");
		if (id)
			sendf(a, PURPOSE_NONE, "waypoint %u %.17g %.17g", id, x, y);
	}
}

/* The next (dir > 0) or previous vehicle by id among those in the snapshot, wrapping
 * around. */
static void cycle_selection(tui_app *a, int dir)
{
	const steer_snapshot *s = &a->net.snapshot;
	if (a->snap_stale) {
		snprintf(a->message, sizeof a->message,
		         "a new world: waiting for its first snapshot to select in");
		return;
	}
	uint32_t best = 0, wrap = 0;
	for (size_t k = 0; k < s->count; k++) {
		uint32_t id = s->v[k].id;
		if (dir > 0) {
			if (!wrap || id < wrap)
				wrap = id;
			if (id > a->selected && (!best || id < best))
				best = id;
		} else {
			if (!wrap || id > wrap)
				wrap = id;
			if ((!a->selected || id < a->selected) && (!best || id > best))
				best = id;
		}
	}
	select_vehicle(a, best ? best : wrap);
	if (!a->selected)
		snprintf(a->message, sizeof a->message, "no vehicle in view to select");
}

static void toggle(tui_app *a, uint32_t bit)
{
	const steer_snap_vehicle *v = a->selected ? find_vehicle(a, a->selected) : NULL;
	if (!v) {
		if (a->selected)
			snprintf(a->message, sizeof a->message,
			         "#%u is not in view: 0 fits the world, c follows it", a->selected);
		else
			say_select_first(a, steer_behavior_name(bit));
		return;
	}
	sendf(a, PURPOSE_NONE, "%s %u %s", steer_behavior_name(bit), v->id,
	      (v->behaviors & bit) ? "off" : "on");
}

static tui_help_conn help_conn(const tui_app *a)
{
	return (tui_help_conn){a->net.host, a->net.port, a->cmd_port, a->net.snapshot.tick_rate,
	                       a->net.msg.welcome.snapshot_rate};
}

/* :select ID - in view: at once; elsewhere: the server says where it is. */
static void select_command(tui_app *a, int argc, char **argv)
{
	char *end = NULL;
	unsigned long id = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
	if (argc != 2 || !end || *end || id == 0 || id > UINT32_MAX) {
		snprintf(a->message, sizeof a->message,
		         "usage: select ID (a vehicle's id, e.g. 12)");
		return;
	}
	const steer_snap_vehicle *v = find_vehicle(a, (uint32_t)id);
	if (v) {
		select_vehicle(a, v->id);
		centre_on(a, v->x, v->y);
		return;
	}
	if (a->net.state != NET_CONNECTED) {
		snprintf(a->message, sizeof a->message,
		         "select: #%lu is not in view (not connected)", id);
		return;
	}
	sendf(a, PURPOSE_SELECT_GET, "get %lu", id);
}

/* Runs the line: the client's own commands (help, select) here, the rest on the
 * server. */
static void run_cmdline(tui_app *a)
{
	a->cmdline_open = false;
	tui_cmdline_remember(&a->cmd);
	if (a->cmd.len == 0)
		return;
	char copy[TUI_CMDLINE_MAX];
	snprintf(copy, sizeof copy, "%s", a->cmd.buf);
	char *words[4];
	int n = 0;
	if (steer_cmd_split(copy, words, 4, &n) != STEER_OK)
		n = 0; /* more than four words: none of the forms below, nor looked up */
	if (n >= 1 && !strcmp(words[0], "select")) {
		select_command(a, n, words);
		return;
	}
	if (n >= 1 && n <= 2 && !strcmp(words[0], "help")) {
		if (tui_help_commands(&a->pager, n == 2 ? words[1] : NULL) == 0)
			a->pager.open = true;
		else
			snprintf(a->message, sizeof a->message,
			         "help: no command '%.60s' (:help lists "
			         "them)",
			         n == 2 ? words[1] : "");
		return;
	}
	const steer_cmd_entry *e = n >= 1 ? steer_cmd_find(words[0]) : NULL;
	/* A question (get, list, world alone ...) shows its answer; the server judges
	 * the line itself, so one this parse refuses is still sent. */
	static steer_command parsed; /* big (a polygon's points): not on the stack */
	char perr[160];
	bool asks = e && steer_cmd_parse_line(&parsed, a->cmd.buf, perr, sizeof perr) == STEER_OK &&
	            !steer_cmd_writes(&parsed);
	tui_purpose purpose = asks ? PURPOSE_SHOW : PURPOSE_NONE;
	if (e &&
	    (!strcmp(e->name, "reset") || !strcmp(e->name, "scenario") || !strcmp(e->name, "load")))
		purpose = PURPOSE_REPLACE;
	send_line(a, a->cmd.buf, purpose);
}

static void cmdline_key(tui_app *a, int ch)
{
	static const struct {
		int key;
		tui_edit edit;
	} edits[] = {
	    {KEY_LEFT, TUI_EDIT_LEFT},
	    {KEY_RIGHT, TUI_EDIT_RIGHT},
	    {KEY_HOME, TUI_EDIT_HOME},
	    {1 /* ^A */, TUI_EDIT_HOME},
	    {KEY_END, TUI_EDIT_END},
	    {5 /* ^E */, TUI_EDIT_END},
	    {KEY_DC, TUI_EDIT_DELETE},
	    {4 /* ^D */, TUI_EDIT_DELETE},
	    {21 /* ^U */, TUI_EDIT_KILL_START},
	    {11 /* ^K */, TUI_EDIT_KILL_END},
	    {23 /* ^W */, TUI_EDIT_KILL_WORD},
	    {KEY_UP, TUI_EDIT_HISTORY_UP},
	    {KEY_DOWN, TUI_EDIT_HISTORY_DOWN},
	    {2 /* ^B */, TUI_EDIT_LEFT},
	    {6 /* ^F */, TUI_EDIT_RIGHT},
	};
	switch (ch) {
	case 27: /* Esc */
		a->cmdline_open = false;
		return;
	case '\r':
	case '\n':
	case KEY_ENTER:
		run_cmdline(a);
		return;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (a->cmd.len == 0)
			a->cmdline_open = false; /* backspace on an empty line leaves it */
		else
			tui_cmdline_edit(&a->cmd, TUI_EDIT_BACKSPACE);
		return;
	case '\t': {
		int n = tui_cmdline_complete(&a->cmd, a->hint, sizeof a->hint);
		if (n == 0)
			snprintf(a->hint, sizeof a->hint, "no completion");
		return;
	}
	default:
		break;
	}
	a->hint[0] = '\0';
	for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++)
		if (edits[k].key == ch) {
			tui_cmdline_edit(&a->cmd, edits[k].edit);
			return;
		}
	/* A full line says so rather than dropping what is typed (or pasted) unseen. */
	if (ch >= 32 && ch < 127 && !tui_cmdline_insert(&a->cmd, (char)ch)) {
		snprintf(a->hint, sizeof a->hint,
		         "the line is full: at most %d bytes (the server's limit); '%c' not added",
		         TUI_CMDLINE_MAX - 1, ch);
		snprintf(a->message, sizeof a->message, "%s", a->hint);
	} else if (ch >= 128 && ch < 256) {
		/* A byte of a UTF-8 character: every command, name and number is ASCII. */
		snprintf(a->hint, sizeof a->hint,
		         "commands, names and numbers are ASCII: a non-ASCII character was "
		         "not added");
	}
}

/* Scroll keys scroll; any other key closes, and any key at all when there is nothing
 * to scroll: what the pager's footer says (screen.c). */
static void pager_key(tui_app *a, int ch)
{
	tui_pager_box b = tui_pager_layout(&a->pager, a->screen.cols, a->screen.rows);
	int page = b.text_rows > 1 ? b.text_rows - 1 : 1, delta;
	if (ch == KEY_RESIZE) {
		resize(a);
		return;
	}
	if (tui_pager_height(&a->pager, b.text_cols) <= b.text_rows) {
		a->pager.open = false;
		return;
	}
	switch (ch) {
	case KEY_DOWN:
	case 'j':
	case KEY_ENTER:
	case '\r':
	case '\n':
		delta = 1;
		break;
	case KEY_UP:
	case 'k':
		delta = -1;
		break;
	case KEY_NPAGE:
	case ' ':
	case 'f':
		delta = page;
		break;
	case KEY_PPAGE:
	case 'b':
		delta = -page;
		break;
	case KEY_HOME:
	case 'g':
		delta = INT_MIN;
		break;
	case KEY_END:
	case 'G':
		delta = INT_MAX;
		break;
	case KEY_RESIZE:
		resize(a);
		return;
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) == OK && (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))) {
			tui_pager_scroll(&a->pager, ev.bstate & BUTTON4_PRESSED ? -3 : 3,
			                 b.text_cols, b.text_rows);
			return;
		}
		a->pager.open = false;
		return;
	}
	default:
		a->pager.open = false;
		return;
	}
	tui_pager_scroll(&a->pager, delta, b.text_cols, b.text_rows);
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
	if (a->pager.open) {
		pager_key(a, ch);
		return;
	}
	if (a->cmdline_open && ch != KEY_RESIZE) {
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
	case '?': {
		tui_help_conn c = help_conn(a);
		if (tui_help_keys(&a->pager, &c) == 0)
			a->pager.open = true;
		else
			snprintf(a->message, sizeof a->message, "help: out of memory");
		break;
	}
	case ':':
		a->cmdline_open = true;
		a->hint[0] = '\0';
		tui_cmdline_start(&a->cmd);
		break;
	case KEY_LEFT:
	case 'h':
		tui_camera_pan(&a->cam, -step_c, 0);
		stop_following(a);
		break;
	case KEY_RIGHT:
	case 'l':
		tui_camera_pan(&a->cam, step_c, 0);
		stop_following(a);
		break;
	case KEY_UP:
	case 'k':
		tui_camera_pan(&a->cam, 0, -step_r);
		stop_following(a);
		break;
	case KEY_DOWN:
	case 'j':
		tui_camera_pan(&a->cam, 0, step_r);
		stop_following(a);
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
		stop_following(a);
		break;
	case 'c':
		if (a->follow.id) {
			stop_following(a);
			snprintf(a->message, sizeof a->message, "follow off");
		} else if (a->selected) {
			tui_follow_start(&a->follow, a->selected);
			const steer_snap_vehicle *v = find_vehicle(a, a->selected);
			if (v)
				centre_on(a, v->x, v->y);
			else /* out of view: ask where it is, and go there */
				sendf(a, PURPOSE_SELECT_GET, "get %u", a->selected);
			snprintf(a->message, sizeof a->message, "following #%u (c again: off)",
			         a->selected);
		} else {
			say_select_first(a, "follow");
		}
		break;
	case '\t':
		cycle_selection(a, +1);
		break;
	case KEY_BTAB:
		cycle_selection(a, -1);
		break;
	case 27:
		select_vehicle(a, 0);
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
	case 'x': {
		uint32_t id = selection_for(a, "remove");
		if (!id)
			break;
		sendf(a, PURPOSE_NONE, "remove %u", id);
		select_vehicle(a, 0);
		break;
	}
	case 'w':
		toggle(a, STEER_WANDER);
		break;
	case 'a':
		toggle(a, STEER_AVOID);
		break;
	case 'f':
		toggle(a, STEER_FLOCK);
		break;
	case 'S':
		a->stats_open = !a->stats_open;
		if (a->stats_open)
			poll_stats(a);
		break;
	case ' ':
		send_line(a, a->net.snapshot.paused ? "resume" : "pause", PURPOSE_NONE);
		break;
	case '.':
		if (!a->net.snapshot.paused)
			send_line(a, "pause", PURPOSE_NONE);
		send_line(a, "step", PURPOSE_NONE);
		break;
	case '[':
	case ']': {
		char line[96];
		const steer_snapshot *snap = &a->net.snapshot;
		if (tui_timeline_key(&a->timeline, snap->tick, snap->tick_rate, ch == '[', line,
		                     sizeof line))
			send_line(a, line, PURPOSE_NONE);
		else
			snprintf(a->message, sizeof a->message, "%s", line);
		break;
	}
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
		resize(a);
		break;
	default:
		break;
	}
}

/* Reads at most TUI_KEYS_PER_TURN keys, then yields to the loop: whatever getch()
 * returns, signals (SIGTERM, SIGINT, SIGWINCH) and the socket get their turn. Keys
 * left in ncurses' own queue (which does not make stdin readable) are read on the
 * next turn of the loop. */
static void read_keys(tui_app *a)
{
	int n = 0, ch = ERR;
	while (!a->quitting && n < TUI_KEYS_PER_TURN && (ch = getch()) != ERR) {
		key(a, ch);
		n++;
	}
	if (a->quitting)
		return;
	if (n == TUI_KEYS_PER_TURN)
		uv_timer_start(&a->input_timer, on_more_keys, 0, 0);
	schedule_frame(a);
}

static void on_more_keys(uv_timer_t *t)
{
	read_keys(t->data);
}

static void on_input(uv_poll_t *p, int status, int events)
{
	tui_app *a = p->data;
	(void)events;
	if (status < 0) {
		quit(a, 1);
		return;
	}
	read_keys(a);
}

/* --- lifetime ------------------------------------------------------------------------ */

/* The one place the terminal size is taken in: from SIGWINCH through libuv (which
 * owns that signal, so ncurses' own handler never runs) and from a KEY_RESIZE should
 * ncurses ever report one. Idempotent, and it queues no further KEY_RESIZE. */
static void resize(tui_app *a)
{
	/* A view showing the whole world (as fitted, not panned or zoomed since) is
	 * fitted again to the new size; any other keeps its centre and scale. */
	tui_camera was = a->cam;
	tui_camera_fit(&was, a->world_w, a->world_h, a->cam.cols, a->cam.rows);
	bool whole =
	    a->fitted && was.scale == a->cam.scale && was.cx == a->cam.cx && was.cy == a->cam.cy;
	tui_screen_resize(&a->screen);
	int cols, rows;
	map_area(a, &cols, &rows);
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
	/* Redraw at once: a resize must never leave a torn screen on display. */
	a->dirty = false;
	on_frame(&a->frame_timer);
}

static void on_resize(uv_signal_t *h, int sig)
{
	(void)sig;
	resize(h->data);
}

/* One `stats` a second, panel open or not, so the history is there when it opens;
 * the server computes the flock figures once a tick for all who ask. */
static void poll_stats(tui_app *a)
{
	if (a->net.state == NET_CONNECTED)
		send_line(a, "stats", PURPOSE_STATS);
}

static void on_stats_timer(uv_timer_t *t)
{
	tui_app *a = t->data;
	poll_stats(a);
	if (a->stats_open)
		schedule_frame(a);
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
	fit(a);
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
	/* Without these, Ctrl-C, SIGTERM or a resize would be lost: refuse to run. */
	if ((rc = uv_poll_start(&a->input, UV_READABLE, on_input)) ||
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
	snprintf(a->message, sizeof a->message, "connecting to %s:%d - ? for help, q to quit",
	         o->host, o->port);
	schedule_frame(a);
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
