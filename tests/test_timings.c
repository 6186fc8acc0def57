/* The recent timings behind stats' tick_ms_p50 and p99: the last ten seconds, not the
 * last 600 entries, so a server that slowed down reports its slow ticks at once. */
#include <string.h>

#include "check.h"
#include "timings.h"

static timings t;

static const uint64_t SECOND = 1000000000ull;

static void empty_is_zero(void)
{
	memset(&t, 0, sizeof t);
	double p50 = -1, p99 = -1;
	timings_percentiles(&t, 5 * SECOND, &p50, &p99);
	CHECK(p50 == 0 && p99 == 0, "p50 %g p99 %g", p50, p99);
}

/* 60 fast ticks a second for ten seconds, then 12 slow ones a second. After three
 * seconds of the slow ones (36 ticks against the 420 fast ones of the window) the p99
 * is slow; after thirteen, all the window holds is slow, where a ring of the last 600
 * would still hold 444 fast ones and give a fast p50. */
static void a_slow_down_shows_within_the_window(void)
{
	memset(&t, 0, sizeof t);
	uint64_t now = 100 * SECOND;
	for (int k = 0; k < 600; k++) {
		now += SECOND / 60;
		timings_add(&t, 0.05, now);
	}
	double p50, p99;
	timings_percentiles(&t, now, &p50, &p99);
	CHECK(p50 == 0.05 && p99 == 0.05, "fast: p50 %g p99 %g", p50, p99);
	for (int k = 0; k < 12 * 3; k++) {
		now += SECOND / 12;
		timings_add(&t, 80, now);
	}
	timings_percentiles(&t, now, &p50, &p99);
	CHECK(p50 == 0.05 && p99 == 80, "three slow seconds: p50 %g p99 %g", p50, p99);
	for (int k = 0; k < 12 * 10; k++) {
		now += SECOND / 12;
		timings_add(&t, 80, now);
	}
	timings_percentiles(&t, now, &p50, &p99);
	CHECK(p50 == 80 && p99 == 80, "thirteen slow seconds: p50 %g p99 %g", p50, p99);
	/* Idle since: nothing ended within the window. */
	timings_percentiles(&t, now + 11 * SECOND, &p50, &p99);
	CHECK(p50 == 0 && p99 == 0, "idle: p50 %g p99 %g", p50, p99);
}

static void mixed_window(void)
{
	memset(&t, 0, sizeof t);
	uint64_t now = 50 * SECOND;
	/* 100 old ones (outside the window), then 99 of 1 ms and one of 9 ms. */
	for (int k = 0; k < 100; k++)
		timings_add(&t, 500, now + (uint64_t)k);
	now += 20 * SECOND;
	for (int k = 0; k < 100; k++)
		timings_add(&t, k == 50 ? 9 : 1, now + (uint64_t)k * SECOND / 100);
	double p50, p99;
	timings_percentiles(&t, now + SECOND, &p50, &p99);
	CHECK(p50 == 1 && p99 == 1, "p50 %g p99 %g (99 of 100 are 1)", p50, p99);
	timings_add(&t, 9, now + SECOND);
	timings_percentiles(&t, now + SECOND, &p50, &p99);
	CHECK(p50 == 1 && p99 == 9, "p50 %g p99 %g", p50, p99);
	CHECK(t.count == 201, "count %zu", t.count);
}

int main(void)
{
	RUN(empty_is_zero);
	RUN(a_slow_down_shows_within_the_window);
	RUN(mixed_window);
	return CHECK_DONE();
}
