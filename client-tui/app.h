/* steer-tui's state and its reactions: keys, mouse, server messages, frames. */
#ifndef TUI_APP_H
#define TUI_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "camera.h"
#include "net.h"
#include "render.h"
#include "screen.h"

#define TUI_HISTORY       64
#define TUI_CMDLINE_MAX   512
#define TUI_FRAME_MS      33 /* at most ~30 frames a second */
#define TUI_KEYS_PER_TURN 64 /* keys read before other events get a turn */

/* What to do with the reply to a request the client made on its own. */
typedef enum tui_purpose {
	PURPOSE_NONE,
	PURPOSE_SELECT_NEW, /* select the vehicle the reply's "id" names */
} tui_purpose;

typedef struct tui_app {
	uv_loop_t *loop;
	tui_net net;
	tui_screen screen;
	tui_grid grid;
	tui_camera cam;
	bool fitted; /* camera fitted to the world once */
	bool have_snapshot;
	double world_w, world_h;
	steer_view sent_view;
	steer_compact_req sent_req; /* compact at the map's size, except with debug aids */
	uint32_t next_request;
	uint32_t purpose_id; /* request whose reply has a purpose */
	tui_purpose purpose;
	uint32_t selected;
	bool follow, debug, help;
	steer_density_mode density; /* asked of the server with the view */
	int cursor_col, cursor_row;
	char message[256];
	bool cmdline_open;
	char cmdline[TUI_CMDLINE_MAX];
	size_t cmdlen;
	char history[TUI_HISTORY][TUI_CMDLINE_MAX];
	int history_count, history_pos;
	bool dirty;
	uint64_t last_frame_ms;
	uv_timer_t frame_timer;
	uv_timer_t input_timer; /* reads the keys one turn of the loop left queued */
	uv_poll_t input;
	uv_signal_t sigwinch, sigint, sigterm, sighup;
	int exit_code;
	bool quitting;
} tui_app;

int tui_app_run(const char *host, int port);

#endif
