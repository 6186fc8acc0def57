/* steer-tui's state and its reactions: server messages (app.c), frames (draw.c), keys
 * and mouse (input.c). */
#ifndef TUI_APP_H
#define TUI_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "asked.h"
#include "camera.h"
#include "cmdline.h"
#include "follow.h"
#include "net.h"
#include "pager.h"
#include "render.h"
#include "screen.h"
#include "stats.h"

#define TUI_HISTORY       64
#define TUI_FRAME_MS      33 /* at most ~30 frames a second */
#define TUI_KEYS_PER_TURN 64 /* keys read before other events get a turn */

#define TUI_STATS_POLL_MS 1000
#define TUI_PENDING       16 /* requests whose replies the client handles itself */

/* What to do with the reply to a request the client made on its own. */
typedef enum tui_purpose {
	PURPOSE_NONE,
	PURPOSE_SELECT_NEW,  /* select the vehicle the reply's "id" names */
	PURPOSE_SELECT_GET,  /* :select of a vehicle outside the view: select and go there */
	PURPOSE_STATS,       /* a sample for the stats panel, not for the message line */
	PURPOSE_SELECT_GONE, /* is the selection, long missing from the snapshots, gone? */
	PURPOSE_SHOW,        /* a read command typed on the ':' line: a long reply opens the
	                      * pager (a write's long reply, e.g. 6000 new ids, does not) */
	PURPOSE_REPLACE,     /* reset, scenario or load typed on the ':' line: a new world */
	PURPOSE_NAME,        /* name typed on the ':' line: kept for the next connection's Hello */
} tui_purpose;

#define TUI_NAME_MAX 64

typedef struct tui_pending {
	uint32_t id;
	tui_purpose purpose;
	char name[TUI_NAME_MAX]; /* PURPOSE_NAME: the name asked for */
} tui_pending;

typedef struct tui_options {
	const char *host;
	int port;
	int cmd_port;      /* shown to the user only; 0 when not given */
	const char *name;  /* how other clients see this one (Hello.client) */
	const char *token; /* presented in the Hello; "" none */
} tui_options;

typedef struct tui_app {
	uv_loop_t *loop;
	tui_net net;
	tui_screen screen;
	tui_grid grid;
	tui_camera cam;
	bool fitted; /* camera fitted to the world once */
	bool have_snapshot;
	/* The world was replaced since the last snapshot: its vehicles are not to be
	 * selected, picked or acted on until the new world's first snapshot. */
	bool snap_stale;
	double world_w, world_h;
	steer_view sent_view;
	steer_compact_req sent_req; /* compact at the map's size, except with debug aids */
	uint32_t next_request;
	tui_pending pending[TUI_PENDING]; /* id 0: a free slot */
	uint32_t selected;
	tui_asked asked;    /* pause, behaviours and ticks asked, not yet shown */
	uint64_t last_tick; /* the last snapshot's: a tick going back is a new world */
	/* The selection missing from the snapshots since sel_missing_ms; the server was
	 * last asked whether it still exists at sel_asked_ms (about sel_asked_id). */
	bool sel_missing;
	uint64_t sel_missing_ms, sel_asked_ms;
	uint32_t sel_asked_id;
	tui_follow follow;     /* follow.id: the vehicle followed, 0 for none */
	bool follow_predicted; /* it wrapped out of the last view: centred where it went */
	bool debug;
	int cmd_port;
	const char *name;
	char name_kept[TUI_NAME_MAX]; /* the last name the server took (:name NAME) */
	const char *token;
	tui_pager pager; /* help, command help, long replies */
	bool stats_open;
	tui_stats stats;
	uint64_t stats_bytes, stats_ms; /* bytes received and loop time at the last poll */
	tui_timeline timeline;          /* behind the live tick? ([ ], the status note) */
	steer_density_mode density;     /* asked of the server with the view */
	int cursor_col, cursor_row;
	char message[256];
	bool cmdline_open;
	tui_cmdline cmd;
	char hint[256]; /* Tab's candidates, shown over the status line while typing */
	bool hint_kept; /* the hint says a key was dropped: kept until the line closes */
	bool dirty;
	uint64_t last_frame_ms;
	uv_timer_t frame_timer;
	uv_timer_t input_timer; /* reads the keys one turn of the loop left queued */
	uv_timer_t stats_timer; /* polls the server's stats */
	uv_poll_t input;
	uv_signal_t sigwinch, sigint, sigterm, sighup;
	int exit_code;
	char exit_why[400]; /* said on stderr once the screen is back to normal */
	bool quitting;
} tui_app;

int tui_app_run(const tui_options *o);

/* Between app.c (the connection, the server's replies, the lifetime), draw.c (frames)
 * and input.c (keys, mouse, the ':' line, the pager). */
/* Each returns the request's id, or 0 when it was not sent (the message line says
 * why). */
uint32_t app_send_line(tui_app *a, const char *line, tui_purpose purpose);
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
uint32_t
app_sendf(tui_app *a, tui_purpose purpose, const char *fmt, ...);
/* line is a name command asking for name (shorter than TUI_NAME_MAX). */
uint32_t app_send_name(tui_app *a, const char *line, const char *name);
void app_send_view_if_changed(tui_app *a);
const steer_snap_vehicle *app_find_vehicle(const tui_app *a, uint32_t id);
void app_stop_following(tui_app *a);
void app_select_vehicle(tui_app *a, uint32_t id);
void app_map_area(const tui_app *a, int *cols, int *rows);
void app_fit(tui_app *a);
void app_centre_on(tui_app *a, double x, double y);
void app_quit(tui_app *a, int code);
void app_resize(tui_app *a);
void app_poll_stats(tui_app *a);
void app_on_frame(uv_timer_t *t);
void app_schedule_frame(tui_app *a);
void app_on_input(uv_poll_t *p, int status, int events);

#endif
