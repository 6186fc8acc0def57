/* What this client asked of the world and has not yet seen in a snapshot. The keys
 * that toggle (Space, w, a, f) or step (]) decide what to send from the world they
 * show; a key pressed again before a snapshot shows the first press (two presses
 * close together, or a slow link) must act on what was asked, not on the stale
 * snapshot, or Space twice pauses twice.
 *
 * Each thing asked is kept with the request that asked it. It is forgotten when the
 * server refuses that request, when a snapshot shows it done after the server
 * answered the request (replies and snapshots come in order on one connection, so a
 * snapshot before the answer may show an earlier press, not this one), or after
 * TUI_ASKED_MS (an answer lost with its connection). */
#ifndef TUI_ASKED_H
#define TUI_ASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "steer/wire.h"

#define TUI_ASKED_MS      2000
#define TUI_ASKED_TOGGLES 8

/* The request that asked a thing: its id, when it was sent, and whether the server
 * has answered it. */
typedef struct tui_asked_by {
	uint32_t rid; /* 0: nothing asked */
	bool answered;
	uint64_t ms;
} tui_asked_by;

typedef struct tui_asked_toggle {
	uint32_t id, bit; /* vehicle id 0: a free slot */
	bool on;
	tui_asked_by by;
} tui_asked_toggle;

typedef struct tui_asked {
	bool paused;
	tui_asked_by paused_by;
	tui_asked_toggle toggle[TUI_ASKED_TOGGLES];
	uint64_t tick;
	tui_asked_by tick_by;
} tui_asked;

/* Whether the world is paused, as far as this client knows at now_ms: what it asked,
 * else what the snapshot shows. */
bool tui_asked_paused(const tui_asked *a, bool shown, uint64_t now_ms);
/* Request rid asked for paused; rid 0 (the line was not sent) asks nothing, here and
 * below. */
void tui_asked_pause(tui_asked *a, bool paused, uint32_t rid, uint64_t now_ms);
/* Whether vehicle id has behaviour bit on: what was asked, else what is shown. */
bool tui_asked_on(const tui_asked *a, uint32_t id, uint32_t bit, bool shown, uint64_t now_ms);
void tui_asked_set(tui_asked *a, uint32_t id, uint32_t bit, bool on, uint32_t rid, uint64_t now_ms);
/* The tick the world is going to: the one asked (goto-tick), else the one shown. */
uint64_t tui_asked_tick(const tui_asked *a, uint64_t shown, uint64_t now_ms);
void tui_asked_goto(tui_asked *a, uint64_t tick, uint32_t rid, uint64_t now_ms);
/* The server answered request rid: ok, or refused it (forgets what it asked). */
void tui_asked_reply(tui_asked *a, uint32_t rid, bool ok);
/* Forgets what this snapshot shows done, of what the server has answered. */
void tui_asked_seen(tui_asked *a, const steer_snapshot *s);
/* Forgets everything (a new connection or a new world). */
void tui_asked_clear(tui_asked *a);

#endif
