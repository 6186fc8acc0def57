/* steer_reserve, the one array grower: it keeps contents, grows geometrically, and
 * refuses a capacity whose size in bytes would not fit size_t instead of wrapping
 * round to a small allocation. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "reserve.h"

static void keeps_contents_and_doubles(void)
{
	int *a = NULL;
	size_t cap = 0;
	CHECK(steer_reserve((void **)&a, &cap, 0, sizeof *a) == STEER_OK && !a && cap == 0,
	      "reserving nothing allocated %zu", cap);
	for (int k = 0; k < 1000; k++) {
		CHECK(steer_reserve((void **)&a, &cap, (size_t)k + 1, sizeof *a) == STEER_OK,
		      "append %d", k);
		a[k] = k;
	}
	CHECK(cap == 1024, "capacity %zu after 1000 appends from %u", cap, STEER_RESERVE_FIRST);
	int bad = 0;
	for (int k = 0; k < 1000; k++)
		bad += a[k] != k;
	CHECK(bad == 0, "%d elements lost in growing", bad);
	int *before = a;
	CHECK(steer_reserve((void **)&a, &cap, 1024, sizeof *a) == STEER_OK && a == before &&
	          cap == 1024,
	      "a request within the capacity moved or grew the array");
	free(a);
}

static void refuses_overflow(void)
{
	char *p = NULL;
	size_t cap = 0;
	/* Doubling past SIZE_MAX. */
	CHECK(steer_reserve((void **)&p, &cap, SIZE_MAX / 2 + 2, 1) == STEER_ERR_NOMEM, "doubling");
	/* Count times size past SIZE_MAX, though the count alone fits. */
	CHECK(steer_reserve((void **)&p, &cap, SIZE_MAX / 8 + 1, 8) == STEER_ERR_NOMEM,
	      "count * size");
	CHECK(!p && cap == 0, "a refused request changed the array: cap %zu", cap);

	/* A refusal leaves an existing array as it was, still the caller's. */
	CHECK(steer_reserve((void **)&p, &cap, 10, 1) == STEER_OK && p, "small reserve");
	p[0] = 'x';
	char *kept = p;
	size_t kept_cap = cap;
	CHECK(steer_reserve((void **)&p, &cap, SIZE_MAX / 4 + 1, 4) == STEER_ERR_NOMEM &&
	          p == kept && cap == kept_cap && p[0] == 'x',
	      "a refused growth touched the old array");

	size_t out = 0;
	CHECK(steer_grow_cap(16, SIZE_MAX, 1, &out) == STEER_ERR_NOMEM, "grow_cap doubling");
	CHECK(steer_resize((void **)&p, SIZE_MAX / 2 + 1, 2) == STEER_ERR_NOMEM && p == kept,
	      "resize count * size");
	free(p);
}

int main(void)
{
	RUN(keeps_contents_and_doubles);
	RUN(refuses_overflow);
	return CHECK_DONE();
}
