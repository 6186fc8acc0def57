/* The stats panel: a history of the server's figures, one sample a second from its
 * `stats` reply plus the bytes this client received, kept in a ring, and drawn as
 * sparklines by a pure function. */
#ifndef TUI_STATS_H
#define TUI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TUI_STATS_HISTORY 600 /* samples: ten minutes at one a second */
#define TUI_STATS_SERIES  8
#define TUI_STATS_LINE    1024 /* bytes for one panel line (UTF-8 bars are 3 bytes) */

/* One sample; NAN where the server did not say (older servers have no flock figures). */
typedef struct tui_stats_sample {
	double v[TUI_STATS_SERIES];
	/* A world split over MPI ranks: how many, and which one ticked slowest (its tick
	 * time is TUI_STAT_SLOWEST_RANK_MS); ranks 0 for one process. */
	int ranks, slowest_rank;
	/* The world's tick and the server's uptime when it answered, and whether the
	 * world was ticking then (not paused, not back in its past): two such samples
	 * in a row give the ticks it made a second (TUI_STAT_TICKS_PER_S). */
	double tick, uptime_s;
	bool ticking;
	/* The ticks the server has dropped for falling behind (NAN: not said), and
	 * whether that count rose since the sample before (set by tui_stats_push). */
	double dropped;
	bool dropping;
} tui_stats_sample;

enum {
	TUI_STAT_TICK_P50,
	TUI_STAT_TICK_P99,
	TUI_STAT_VEHICLES,
	TUI_STAT_FLOCK_SPEED,
	TUI_STAT_POLARIZATION,
	TUI_STAT_BYTES_PER_S,
	TUI_STAT_SLOWEST_RANK_MS,
	TUI_STAT_TICKS_PER_S, /* measured by the server's clock, set by tui_stats_push */
};

typedef struct tui_stats {
	tui_stats_sample ring[TUI_STATS_HISTORY];
	size_t next, count;
} tui_stats;

void tui_stats_init(tui_stats *st);
/* A sample from a `stats` reply's JSON and the snapshot bytes a second this client
 * received (NAN when not measured yet). */
tui_stats_sample tui_stats_from_json(const char *json, double bytes_per_s);
/* Adds s, with its ticks a second since the sample before (NAN unless both were
 * ticking and the server's clock moved on). */
void tui_stats_push(tui_stats *st, const tui_stats_sample *s);
/* The ticks the server made in the latest second, when it ran slower than rate (by
 * more than a tenth: a tick late or early is not behind) and dropped ticks for it;
 * NAN when it kept up, was not ticking, or nothing is measured yet. A pause, a new
 * rate or a fork between two samples also makes fewer ticks, but drops none. */
double tui_stats_behind(const tui_stats *st, double rate);

/* A sparkline of the last `width` values of series (oldest left), scaled from 0 (or
 * the series' fixed range) to the largest shown. utf8: block bars, else ASCII. A
 * missing sample is a space. out holds width * 3 + 1 bytes. */
void tui_sparkline(const tui_stats *st, int series, int width, bool utf8, char *out);

/* The panel's lines for a width of cols: a title, then one line per series (label,
 * latest value or "-", sparkline); the slowest rank's line only while the latest
 * sample comes from a world split over ranks ("slowest r2/4 ms"). Returns the number of lines
 * written (at most maxlines); each out[k] holds TUI_STATS_LINE bytes. */
int tui_stats_panel(const tui_stats *st, int cols, bool utf8, char (*out)[TUI_STATS_LINE],
                    int maxlines);

/* Where the world is against its live tick (the server's rewind history), as the
 * last `stats`, `rewind` or `goto-tick` reply said. */
typedef struct tui_timeline {
	bool past;          /* the world is behind its live tick */
	uint64_t live_tick; /* when past */
} tui_timeline;

/* Takes "past" and "live_tick" from a reply's JSON; false (t unchanged) when it has
 * neither. */
bool tui_timeline_from_json(tui_timeline *t, const char *json);
/* The status line's note while the world shown (at tick) is behind its live tick:
 * "past: tick T of L  ] forward  :goto-tick live"; "" when it is not. brief: the
 * same in fewer columns. */
void tui_past_note(const tui_timeline *t, uint64_t tick, bool brief, char *out, size_t n);
/* The command '[' (back) or ']' (forward) sends for the world shown at tick: a
 * second of ticks (rate) back, or forward up to the live tick; *to (when not NULL)
 * is the tick it goes to. False, with the reason in out, when there is nothing to
 * do. */
bool tui_timeline_key(const tui_timeline *t, uint64_t tick, double rate, bool back, uint64_t *to,
                      char *out, size_t n);

#endif
