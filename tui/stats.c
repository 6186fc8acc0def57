#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void tui_stats_init(tui_stats *st)
{
	memset(st, 0, sizeof *st);
}

/* Over MPI ranks: the rank count, the slowest rank and its tick time, from "ranks",
 * "slowest_rank" and that rank's entry in "rank_figures". */
static void slowest_rank(const json_t *root, tui_stats_sample *s)
{
	double ranks, slowest, ms;
	if (!tui_json_number(root, "ranks", &ranks) || ranks < 1 || ranks > 1e6 ||
	    !tui_json_number(root, "slowest_rank", &slowest) || slowest < 0 || slowest >= ranks)
		return;
	const json_t *figures = json_object_get(root, "rank_figures");
	size_t k;
	const json_t *fig;
	json_array_foreach(figures, k, fig)
	{
		double rank;
		if (tui_json_number(fig, "rank", &rank) && rank == slowest &&
		    tui_json_number(fig, "tick_ms", &ms)) {
			s->ranks = (int)ranks;
			s->slowest_rank = (int)slowest;
			s->v[TUI_STAT_SLOWEST_RANK_MS] = ms;
			return;
		}
	}
}

tui_stats_sample tui_stats_from_json(const char *json, double bytes_per_s)
{
	static const char *const keys[TUI_STATS_SERIES] = {
	    "tick_ms_p50",        "tick_ms_p99", "vehicles", "flock_mean_speed",
	    "flock_polarization", NULL,          NULL,       NULL,
	};
	tui_stats_sample s = {.ranks = 0, .slowest_rank = 0};
	json_t *root = tui_json_parse(json);
	for (int k = 0; k < TUI_STATS_SERIES; k++)
		if (!keys[k] || !tui_json_number(root, keys[k], &s.v[k]))
			s.v[k] = NAN;
	s.v[TUI_STAT_BYTES_PER_S] = bytes_per_s;
	slowest_rank(root, &s);
	if (!tui_json_number(root, "ticks_dropped", &s.dropped))
		s.dropped = NAN;
	s.ticking = tui_json_number(root, "tick", &s.tick) &&
	            tui_json_number(root, "uptime_s", &s.uptime_s) &&
	            json_is_false(json_object_get(root, "paused")) &&
	            !json_is_true(json_object_get(root, "past"));
	json_decref(root);
	return s;
}

/* The k-th newest sample (k = 0: the latest). */
static const tui_stats_sample *sample(const tui_stats *st, size_t k)
{
	return &st->ring[(st->next + TUI_STATS_HISTORY - 1 - k) % TUI_STATS_HISTORY];
}

void tui_stats_push(tui_stats *st, const tui_stats_sample *s)
{
	const tui_stats_sample *prev = st->count ? sample(st, 0) : NULL;
	double rate = NAN;
	/* A reset or a load starts the tick again: fewer ticks than before is no rate. */
	if (prev && prev->ticking && s->ticking && s->uptime_s > prev->uptime_s &&
	    s->tick >= prev->tick)
		rate = (s->tick - prev->tick) / (s->uptime_s - prev->uptime_s);
	st->ring[st->next] = *s;
	st->ring[st->next].v[TUI_STAT_TICKS_PER_S] = rate;
	st->ring[st->next].dropping = prev && s->dropped > prev->dropped; /* false for NAN */
	st->next = (st->next + 1) % TUI_STATS_HISTORY;
	if (st->count < TUI_STATS_HISTORY)
		st->count++;
}

/* The k-th newest sample's value (k = 0: the latest). */
static double value(const tui_stats *st, int series, size_t k)
{
	return sample(st, k)->v[series];
}

double tui_stats_behind(const tui_stats *st, double rate)
{
	if (!st->count || !sample(st, 0)->dropping)
		return NAN;
	double made = value(st, TUI_STAT_TICKS_PER_S, 0);
	return isfinite(made) && rate > 0 && made < rate * 0.9 ? made : NAN;
}

void tui_sparkline(const tui_stats *st, int series, int width, bool utf8, char *out)
{
	static const char *const bars[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	static const char ascii[8] = {'_', '.', ',', '-', '=', '+', '*', '#'};
	size_t shown = st->count < (size_t)(width > 0 ? width : 0) ? st->count : (size_t)width;
	double hi = series == TUI_STAT_POLARIZATION ? 1.0 : 0.0;
	for (size_t k = 0; k < shown; k++) {
		double v = value(st, series, k);
		if (isfinite(v) && v > hi)
			hi = v;
	}
	size_t o = 0;
	/* Right-aligned: the newest sample is always at the right edge. */
	for (int c = 0; c < width - (int)shown; c++)
		out[o++] = ' ';
	for (size_t k = shown; k-- > 0;) {
		double v = value(st, series, k);
		if (!isfinite(v)) {
			out[o++] = ' ';
			continue;
		}
		int level = hi > 0 ? (int)floor(v / hi * 7.0 + 0.5) : 0;
		level = level < 0 ? 0 : level > 7 ? 7 : level;
		if (utf8) {
			memcpy(out + o, bars[level], 3);
			o += 3;
		} else {
			out[o++] = ascii[level];
		}
	}
	out[o] = '\0';
}

static void format_value(double v, int series, char *out, size_t n)
{
	if (!isfinite(v))
		snprintf(out, n, "-");
	else if (series == TUI_STAT_VEHICLES || series == TUI_STAT_BYTES_PER_S)
		snprintf(out, n, "%.0f", v);
	else if (series == TUI_STAT_POLARIZATION)
		snprintf(out, n, "%.2f", v);
	else
		snprintf(out, n, "%.3g", v);
}

int tui_stats_panel(const tui_stats *st, int cols, bool utf8, char (*out)[TUI_STATS_LINE],
                    int maxlines)
{
	static const char *const labels[TUI_STATS_SERIES] = {
	    "tick ms p50",  "tick ms p99",  "vehicles", "flock speed u/s",
	    "polarization", "snapshot B/s", NULL,       "ticks/s",
	};
	/* The clock's figures together, the slowest rank's last. */
	static const int order[TUI_STATS_SERIES] = {
	    TUI_STAT_TICKS_PER_S, TUI_STAT_TICK_P50,        TUI_STAT_TICK_P99,
	    TUI_STAT_VEHICLES,    TUI_STAT_FLOCK_SPEED,     TUI_STAT_POLARIZATION,
	    TUI_STAT_BYTES_PER_S, TUI_STAT_SLOWEST_RANK_MS,
	};
	enum { LABEL = 16, VALUE = 10 };
	if (maxlines < 1 || cols < 1)
		return 0;
	if (cols > TUI_STATS_LINE / 3 - 1)
		cols = TUI_STATS_LINE / 3 - 1;
	int n = 0;
	snprintf(out[n++], TUI_STATS_LINE, "%.*s", cols,
	         st->count ? "stats, one sample a second, newest right (S closes)"
	                   : "stats: waiting for the server's first figures (S closes)");
	const tui_stats_sample *last = st->count ? sample(st, 0) : NULL;
	for (int o = 0; o < TUI_STATS_SERIES && n < maxlines; o++) {
		int k = order[o];
		char val[32], line[64], label[48]; /* cut to LABEL columns below */
		if (k == TUI_STAT_SLOWEST_RANK_MS) {
			if (!last || last->ranks < 2)
				continue; /* one process */
			snprintf(label, sizeof label, "slowest r%d/%d ms", last->slowest_rank,
			         last->ranks);
		} else {
			snprintf(label, sizeof label, "%s", labels[k]);
		}
		format_value(st->count ? value(st, k, 0) : NAN, k, val, sizeof val);
		int w = snprintf(line, sizeof line, " %-*.*s %*s ", LABEL, LABEL, label, VALUE - 1,
		                 val);
		if (w >= cols) {
			snprintf(out[n++], TUI_STATS_LINE, "%.*s", cols, line);
			continue;
		}
		/* cols is capped above so label, value and bars (3 bytes each) fit. */
		memcpy(out[n], line, (size_t)w);
		tui_sparkline(st, k, cols - w, utf8, out[n] + w);
		n++;
	}
	return n;
}

bool tui_timeline_from_json(tui_timeline *t, const char *json)
{
	json_t *root = tui_json_parse(json);
	double live;
	bool has_live = tui_json_number(root, "live_tick", &live);
	const json_t *past = json_object_get(root, "past");
	bool said = has_live || json_is_boolean(past);
	if (said) {
		t->past = json_is_true(past);
		if (has_live)
			t->live_tick = (uint64_t)live;
	}
	json_decref(root);
	return said;
}

void tui_past_note(const tui_timeline *t, uint64_t tick, bool brief, char *out, size_t n)
{
	if (!t->past || tick >= t->live_tick) {
		snprintf(out, n, "%s", "");
		return;
	}
	if (brief)
		snprintf(out, n, "past %llu/%llu", (unsigned long long)tick,
		         (unsigned long long)t->live_tick);
	else
		snprintf(out, n, "past: tick %llu of %llu  ] forward  :goto-tick live",
		         (unsigned long long)tick, (unsigned long long)t->live_tick);
}

bool tui_timeline_key(const tui_timeline *t, uint64_t tick, double rate, bool back, uint64_t *to,
                      char *out, size_t n)
{
	uint64_t second = rate >= 1 ? (uint64_t)(rate + 0.5) : 1, where;
	if (back) {
		if (tick == 0) {
			snprintf(out, n, "the world is at tick 0: nothing before it");
			return false;
		}
		/* Relative, so that a snapshot a little stale still goes back a second. */
		where = tick >= second ? tick - second : 0;
		if (tick >= second)
			snprintf(out, n, "rewind %llu", (unsigned long long)second);
		else
			snprintf(out, n, "goto-tick 0");
	} else {
		if (!t->past || tick >= t->live_tick) {
			snprintf(out, n, "the world is at its live tick: nothing to go forward to");
			return false;
		}
		where = t->live_tick - tick <= second ? t->live_tick : tick + second;
		if (where == t->live_tick)
			snprintf(out, n, "goto-tick live");
		else
			snprintf(out, n, "goto-tick %llu", (unsigned long long)where);
	}
	if (to)
		*to = where;
	return true;
}
