/* steer-tui's keys pressed again before the world shows the first press: Space twice
 * pauses and resumes, w twice turns wander off and on, ] twice goes two seconds on;
 * and three presses end right though a snapshot from before the server answered
 * shows an earlier press (tui/asked.c). */
#include <string.h>

#include "asked.h"
#include "check.h"

static steer_snap_vehicle one[1];

static steer_snapshot snapshot(uint64_t tick, bool paused, uint32_t id, uint32_t behaviors)
{
	steer_snapshot s;
	memset(&s, 0, sizeof s);
	s.tick = tick;
	s.paused = paused;
	one[0] = (steer_snap_vehicle){.id = id, .behaviors = behaviors};
	s.v = one;
	s.count = id ? 1 : 0;
	return s;
}

/* Space, Space before any snapshot shows the first: the second acts on the first. */
static void space_twice_pauses_then_resumes(void)
{
	tui_asked a;
	tui_asked_clear(&a);
	bool shown = false; /* running */
	bool p = tui_asked_paused(&a, shown, 1000);
	CHECK(!p, "running as shown");
	tui_asked_pause(&a, !p, 1, 1000); /* sends pause, request 1 */
	p = tui_asked_paused(&a, shown, 1010);
	CHECK(p, "the second press must see the pause it asked for, not the stale snapshot");
	tui_asked_pause(&a, !p, 2, 1010); /* sends resume, request 2 */
	CHECK(!tui_asked_paused(&a, shown, 1020), "then the resume");
	/* Both answered, then a snapshot showing the world running: the world is what it
	 * shows again. */
	tui_asked_reply(&a, 1, true);
	tui_asked_reply(&a, 2, true);
	steer_snapshot s = snapshot(10, false, 0, 0);
	tui_asked_seen(&a, &s);
	CHECK(tui_asked_paused(&a, true, 1030), "after a snapshot, another client's pause shows");
}

/* Space three times; the server answers each in turn, and the snapshots in between
 * show the world before the presses (running), then after the first (paused). Three
 * presses must end paused: the third press acts on the resume still unanswered, not
 * on the snapshot showing the first press's pause. */
static void three_presses_with_late_snapshots(void)
{
	tui_asked a;
	tui_asked_clear(&a);
	bool p = tui_asked_paused(&a, false, 0);
	tui_asked_pause(&a, !p, 1, 0); /* pause */
	p = tui_asked_paused(&a, false, 10);
	tui_asked_pause(&a, !p, 2, 10);              /* resume */
	steer_snapshot s = snapshot(5, false, 0, 0); /* taken before either arrived */
	tui_asked_seen(&a, &s);
	tui_asked_reply(&a, 1, true);
	s = snapshot(6, true, 0, 0); /* after the pause, before the resume */
	tui_asked_seen(&a, &s);
	p = tui_asked_paused(&a, true, 20);
	CHECK(!p, "the third press must see the resume asked (and so pause), not the paused "
	          "snapshot");
}

/* A pause refused is forgotten at once; one whose answer never comes (the
 * connection lost), after TUI_ASKED_MS; a press whose line was not sent asks nothing. */
static void what_never_shows_is_forgotten(void)
{
	tui_asked a;
	tui_asked_clear(&a);
	tui_asked_pause(&a, true, 3, 4000);
	tui_asked_reply(&a, 4, false); /* another request refused */
	CHECK(tui_asked_paused(&a, false, 4001), "still asked");
	tui_asked_reply(&a, 3, false);
	CHECK(!tui_asked_paused(&a, false, 4002), "refused: the snapshot rules");
	tui_asked_pause(&a, true, 5, 5000);
	CHECK(tui_asked_paused(&a, false, 5000 + TUI_ASKED_MS - 1), "still asked");
	CHECK(!tui_asked_paused(&a, false, 5000 + TUI_ASKED_MS), "forgotten");
	tui_asked_set(&a, 7, 4, true, 6, 5000);
	CHECK(!tui_asked_on(&a, 7, 4, false, 5000 + TUI_ASKED_MS), "a toggle too");
	tui_asked_set(&a, 8, 4, true, 0, 6000); /* not sent */
	CHECK(!tui_asked_on(&a, 8, 4, false, 6001), "nothing asked by a line not sent");
	tui_asked_pause(&a, true, 0, 8000); /* not sent */
	CHECK(!tui_asked_paused(&a, false, 8001), "no pause asked by a line not sent");
	tui_asked_goto(&a, 900, 0, 8000);
	CHECK(tui_asked_tick(&a, 800, 8001) == 800, "no tick asked by a line not sent");
}

/* w, w on a wanderer: off, then on; another behaviour or vehicle is its own. */
static void toggles_are_per_vehicle_and_behaviour(void)
{
	tui_asked a;
	tui_asked_clear(&a);
	const uint32_t WANDER = 1u << 2, AVOID = 1u << 5;
	bool on = tui_asked_on(&a, 9, WANDER, true, 100);
	tui_asked_set(&a, 9, WANDER, !on, 1, 100); /* wander 9 off */
	on = tui_asked_on(&a, 9, WANDER, true, 110);
	CHECK(!on, "the second w must see wander off");
	tui_asked_set(&a, 9, WANDER, !on, 2, 110); /* wander 9 on */
	CHECK(tui_asked_on(&a, 9, WANDER, true, 120), "and on again");
	CHECK(!tui_asked_on(&a, 9, AVOID, false, 120), "avoid is as shown");
	CHECK(!tui_asked_on(&a, 8, WANDER, false, 120), "another vehicle is as shown");
	/* Eight toggles asked at once: the oldest makes room. */
	for (uint32_t id = 100; id < 100 + TUI_ASKED_TOGGLES + 2; id++)
		tui_asked_set(&a, id, AVOID, true, id, 200 + id);
	CHECK(tui_asked_on(&a, 100 + TUI_ASKED_TOGGLES + 1, AVOID, false, 400), "the newest kept");
	CHECK(tui_asked_on(&a, 104, AVOID, false, 400), "a newer one kept");
	CHECK(!tui_asked_on(&a, 100, AVOID, false, 400), "the oldest made room");
	/* Shown done: forgotten, so the snapshot rules again. */
	tui_asked_set(&a, 9, WANDER, true, 300, 500);
	steer_snapshot s = snapshot(1, false, 9, WANDER);
	tui_asked_seen(&a, &s);
	CHECK(tui_asked_on(&a, 9, WANDER, false, 505), "shown on, but not yet answered: asked");
	tui_asked_reply(&a, 300, true);
	tui_asked_seen(&a, &s);
	CHECK(!tui_asked_on(&a, 9, WANDER, false, 510), "seen on: the snapshot (off) rules");
}

/* ] twice in the past: from the tick the first asked for. */
static void forward_twice_goes_two_seconds(void)
{
	tui_asked a;
	tui_asked_clear(&a);
	CHECK(tui_asked_tick(&a, 600, 0) == 600, "as shown");
	tui_asked_goto(&a, 660, 1, 0);
	CHECK(tui_asked_tick(&a, 600, 10) == 660, "the second ] goes on from 660");
	tui_asked_reply(&a, 1, true);
	steer_snapshot s = snapshot(630, true, 0, 0);
	tui_asked_seen(&a, &s);
	CHECK(tui_asked_tick(&a, 630, 20) == 660, "not there yet");
	s = snapshot(660, true, 0, 0);
	tui_asked_seen(&a, &s);
	CHECK(tui_asked_tick(&a, 500, 30) == 500, "there: the snapshot (a rewind since) rules");
}

int main(void)
{
	RUN(space_twice_pauses_then_resumes);
	RUN(three_presses_with_late_snapshots);
	RUN(what_never_shows_is_forgotten);
	RUN(toggles_are_per_vehicle_and_behaviour);
	RUN(forward_twice_goes_two_seconds);
	return CHECK_DONE();
}
