#include "asked.h"

#include <string.h>

static bool fresh(uint64_t asked_ms, uint64_t now_ms)
{
	return now_ms >= asked_ms && now_ms - asked_ms < TUI_ASKED_MS;
}

bool tui_asked_paused(const tui_asked *a, bool shown, uint64_t now_ms)
{
	return a->paused_set && fresh(a->paused_ms, now_ms) ? a->paused : shown;
}

void tui_asked_pause(tui_asked *a, bool paused, uint64_t now_ms)
{
	a->paused_set = true;
	a->paused = paused;
	a->paused_ms = now_ms;
}

static tui_asked_toggle *find(tui_asked *a, uint32_t id, uint32_t bit)
{
	for (int k = 0; k < TUI_ASKED_TOGGLES; k++)
		if (a->toggle[k].id == id && a->toggle[k].bit == bit)
			return &a->toggle[k];
	return NULL;
}

bool tui_asked_on(const tui_asked *a, uint32_t id, uint32_t bit, bool shown, uint64_t now_ms)
{
	const tui_asked_toggle *t = find((tui_asked *)a, id, bit);
	return id && t && fresh(t->ms, now_ms) ? t->on : shown;
}

void tui_asked_set(tui_asked *a, uint32_t id, uint32_t bit, bool on, uint64_t now_ms)
{
	if (!id)
		return;
	tui_asked_toggle *t = find(a, id, bit);
	if (!t) { /* a free slot, else the oldest */
		t = &a->toggle[0];
		for (int k = 0; k < TUI_ASKED_TOGGLES && t->id; k++)
			if (!a->toggle[k].id || a->toggle[k].ms < t->ms)
				t = &a->toggle[k];
	}
	*t = (tui_asked_toggle){id, bit, on, now_ms};
}

uint64_t tui_asked_tick(const tui_asked *a, uint64_t shown, uint64_t now_ms)
{
	return a->tick_set && fresh(a->tick_ms, now_ms) ? a->tick : shown;
}

void tui_asked_goto(tui_asked *a, uint64_t tick, uint64_t now_ms)
{
	a->tick_set = true;
	a->tick = tick;
	a->tick_ms = now_ms;
}

void tui_asked_seen(tui_asked *a, const steer_snapshot *s)
{
	if (a->paused_set && s->paused == a->paused)
		a->paused_set = false;
	if (a->tick_set && s->tick >= a->tick)
		a->tick_set = false;
	for (int k = 0; k < TUI_ASKED_TOGGLES; k++) {
		tui_asked_toggle *t = &a->toggle[k];
		if (!t->id)
			continue;
		for (size_t i = 0; i < s->count; i++)
			if (s->v[i].id == t->id) {
				if (((s->v[i].behaviors & t->bit) != 0) == t->on)
					t->id = 0;
				break;
			}
	}
}

void tui_asked_clear(tui_asked *a)
{
	memset(a, 0, sizeof *a);
}
