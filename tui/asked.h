/* What this client asked of the world and has not yet seen in a snapshot. The keys
 * that toggle (Space, w, a, f) or step (]) decide what to send from the world they
 * show; a key pressed again before a snapshot shows the first press (two presses
 * close together, or a slow link) must act on what was asked, not on the stale
 * snapshot, or Space twice pauses twice. Each thing asked is forgotten once a
 * snapshot shows it, or after TUI_ASKED_MS (a refused command never shows). */
#ifndef TUI_ASKED_H
#define TUI_ASKED_H

#include <stdbool.h>
#include <stdint.h>

#include "steer/wire.h"

#define TUI_ASKED_MS      2000
#define TUI_ASKED_TOGGLES 8

typedef struct tui_asked_toggle {
	uint32_t id, bit; /* id 0: a free slot */
	bool on;
	uint64_t ms;
} tui_asked_toggle;

typedef struct tui_asked {
	bool paused_set, paused;
	uint64_t paused_ms;
	tui_asked_toggle toggle[TUI_ASKED_TOGGLES];
	bool tick_set;
	uint64_t tick, tick_ms;
} tui_asked;

/* Whether the world is paused, as far as this client knows at now_ms: what it asked,
 * else what the snapshot shows. */
bool tui_asked_paused(const tui_asked *a, bool shown, uint64_t now_ms);
void tui_asked_pause(tui_asked *a, bool paused, uint64_t now_ms);
/* Whether vehicle id has behaviour bit on: what was asked, else what is shown. */
bool tui_asked_on(const tui_asked *a, uint32_t id, uint32_t bit, bool shown, uint64_t now_ms);
void tui_asked_set(tui_asked *a, uint32_t id, uint32_t bit, bool on, uint64_t now_ms);
/* The tick the world is going to: the one asked (goto-tick), else the one shown. */
uint64_t tui_asked_tick(const tui_asked *a, uint64_t shown, uint64_t now_ms);
void tui_asked_goto(tui_asked *a, uint64_t tick, uint64_t now_ms);
/* Forgets what this snapshot shows done. */
void tui_asked_seen(tui_asked *a, const steer_snapshot *s);
/* Forgets everything (a new connection or a new world). */
void tui_asked_clear(tui_asked *a);

#endif
