#include "timings.h"

#include <stdlib.h>

void timings_add(timings *t, double ms, uint64_t now_ns)
{
	size_t k = t->count++ % TIMINGS_MAX;
	t->ms[k] = ms;
	t->at_ns[k] = now_ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void timings_percentiles(const timings *t, uint64_t now_ns, double *p50, double *p99)
{
	double recent[TIMINGS_MAX];
	size_t held = t->count < TIMINGS_MAX ? t->count : TIMINGS_MAX, n = 0;
	for (size_t k = 0; k < held; k++)
		if (t->at_ns[k] <= now_ns && now_ns - t->at_ns[k] <= TIMINGS_WINDOW_NS)
			recent[n++] = t->ms[k];
	qsort(recent, n, sizeof *recent, cmp_double);
	*p50 = n ? recent[n / 2] : 0;
	*p99 = n ? recent[(size_t)((double)(n - 1) * 0.99)] : 0;
}
