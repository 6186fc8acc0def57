#include "asked.h"

#include <string.h>

static bool fresh(const tui_asked_by *by, uint64_t now_ms)
{
	return by->rid && now_ms >= by->ms && now_ms - by->ms < TUI_ASKED_MS;
}

static tui_asked_by asked_by(uint32_t rid, uint64_t now_ms)
{
	return (tui_asked_by){rid, false, now_ms};
}

/* The server answered rid: what it asked is forgotten if refused, else shown by the
 * snapshots from now on. */
static void answer(tui_asked_by *by, uint32_t rid, bool ok)
{
	if (!by->rid || by->rid != rid)
		return;
	if (ok)
		by->answered = true;
	else
		by->rid = 0;
}

/* Forgets what was asked if answered and shown done. */
static void seen_if(tui_asked_by *by, bool done)
{
	if (by->rid && by->answered && done)
		by->rid = 0;
}

bool tui_asked_paused(const tui_asked *a, bool shown, uint64_t now_ms)
{
	return fresh(&a->paused_by, now_ms) ? a->paused : shown;
}

void tui_asked_pause(tui_asked *a, bool paused, uint32_t rid, uint64_t now_ms)
{
	if (!rid)
		return;
	a->paused = paused;
	a->paused_by = asked_by(rid, now_ms);
}

static tui_asked_toggle *find(tui_asked *a, uint32_t id, uint32_t bit)
{
	for (int k = 0; k < TUI_ASKED_TOGGLES; k++)
		if (a->toggle[k].by.rid && a->toggle[k].id == id && a->toggle[k].bit == bit)
			return &a->toggle[k];
	return NULL;
}

bool tui_asked_on(const tui_asked *a, uint32_t id, uint32_t bit, bool shown, uint64_t now_ms)
{
	const tui_asked_toggle *t = find((tui_asked *)a, id, bit);
	return id && t && fresh(&t->by, now_ms) ? t->on : shown;
}

void tui_asked_set(tui_asked *a, uint32_t id, uint32_t bit, bool on, uint32_t rid, uint64_t now_ms)
{
	if (!id || !rid)
		return;
	tui_asked_toggle *t = find(a, id, bit);
	if (!t) { /* a free slot, else the oldest */
		t = &a->toggle[0];
		for (int k = 0; k < TUI_ASKED_TOGGLES && t->by.rid; k++)
			if (!a->toggle[k].by.rid || a->toggle[k].by.ms < t->by.ms)
				t = &a->toggle[k];
	}
	*t = (tui_asked_toggle){id, bit, on, asked_by(rid, now_ms)};
}

uint64_t tui_asked_tick(const tui_asked *a, uint64_t shown, uint64_t now_ms)
{
	return fresh(&a->tick_by, now_ms) ? a->tick : shown;
}

void tui_asked_goto(tui_asked *a, uint64_t tick, uint32_t rid, uint64_t now_ms)
{
	if (!rid)
		return;
	a->tick = tick;
	a->tick_by = asked_by(rid, now_ms);
}

void tui_asked_reply(tui_asked *a, uint32_t rid, bool ok)
{
	if (!rid)
		return;
	answer(&a->paused_by, rid, ok);
	answer(&a->tick_by, rid, ok);
	for (int k = 0; k < TUI_ASKED_TOGGLES; k++)
		answer(&a->toggle[k].by, rid, ok);
}

void tui_asked_seen(tui_asked *a, const steer_snapshot *s)
{
	seen_if(&a->paused_by, s->paused == a->paused);
	seen_if(&a->tick_by, s->tick >= a->tick);
	for (int k = 0; k < TUI_ASKED_TOGGLES; k++) {
		tui_asked_toggle *t = &a->toggle[k];
		if (!t->by.rid)
			continue;
		for (size_t i = 0; i < s->count; i++)
			if (s->v[i].id == t->id) {
				seen_if(&t->by, ((s->v[i].behaviors & t->bit) != 0) == t->on);
				break;
			}
	}
}

void tui_asked_clear(tui_asked *a)
{
	memset(a, 0, sizeof *a);
}
