/* The auth guard's bookkeeping: the backoff schedule, forgetting, and a table that
 * stays bounded whatever number of addresses fail. */
#include <string.h>

#include "authguard.h"
#include "check.h"

static auth_addr addr_of(uint32_t k)
{
	auth_addr a;
	memset(&a, 0, sizeof a);
	memcpy(a.b, &k, sizeof k);
	return a;
}

static void backoff_doubles_to_a_cap(void)
{
	CHECK(auth_backoff_ms(1) == 0 && auth_backoff_ms(AUTH_FREE_FAILURES - 1) == 0,
	      "the first failures are free");
	CHECK(auth_backoff_ms(AUTH_FREE_FAILURES) == AUTH_BACKOFF_MIN_MS, "then the minimum");
	CHECK(auth_backoff_ms(AUTH_FREE_FAILURES + 1) == 2 * AUTH_BACKOFF_MIN_MS, "doubling");
	CHECK(auth_backoff_ms(AUTH_FREE_FAILURES + 40) == AUTH_BACKOFF_MAX_MS, "capped");
	CHECK(auth_backoff_ms(UINT32_MAX) == AUTH_BACKOFF_MAX_MS, "no overflow");
}

static void a_count_refuses_during_its_backoff_then_forgets(void)
{
	auth_count c;
	memset(&c, 0, sizeof c);
	uint64_t t = 1000;
	for (int k = 0; k < AUTH_FREE_FAILURES; k++)
		auth_count_fail(&c, t);
	CHECK(auth_count_wait(&c, t) == AUTH_BACKOFF_MIN_MS, "wait %llu",
	      (unsigned long long)auth_count_wait(&c, t));
	CHECK(auth_count_wait(&c, t + AUTH_BACKOFF_MIN_MS) == 0, "over");
	auth_count_fail(&c, t + AUTH_BACKOFF_MIN_MS);
	CHECK(c.failures == AUTH_FREE_FAILURES + 1, "in a row");
	auth_count_fail(&c, t + AUTH_BACKOFF_MIN_MS + AUTH_FORGET_MS);
	CHECK(c.failures == 1 && auth_count_wait(&c, t + AUTH_BACKOFF_MIN_MS + AUTH_FORGET_MS) == 0,
	      "forgotten after a quiet spell: %u", c.failures);
}

static void the_table_is_bounded_and_keeps_addresses_in_backoff(void)
{
	static auth_guard g;
	memset(&g, 0, sizeof g);
	auth_addr hot = addr_of(0xdead);
	auth_count *h = auth_guard_get(&g, &hot, 0);
	for (int k = 0; k < AUTH_FREE_FAILURES + 4; k++)
		auth_count_fail(h, 1); /* in backoff for minutes */
	/* Far more addresses than entries, each failing once. */
	for (uint32_t k = 1; k <= 5 * AUTH_GUARD_ADDRS; k++) {
		auth_addr a = addr_of(k);
		auth_count_fail(auth_guard_get(&g, &a, 10 + k), 10 + k);
	}
	size_t used = 0;
	for (size_t i = 0; i < AUTH_GUARD_ADDRS; i++)
		used += g.entries[i].used;
	CHECK(used == AUTH_GUARD_ADDRS, "%zu entries", used);
	h = auth_guard_find(&g, &hot);
	CHECK(h && auth_count_wait(h, 10 + 5 * AUTH_GUARD_ADDRS) > 0,
	      "an address in backoff was pushed out by idle ones");
	auth_addr newest = addr_of(5 * AUTH_GUARD_ADDRS), oldest = addr_of(1);
	CHECK(auth_guard_find(&g, &newest) && !auth_guard_find(&g, &oldest),
	      "the one that failed longest ago goes first");
}

int main(void)
{
	RUN(backoff_doubles_to_a_cap);
	RUN(a_count_refuses_during_its_backoff_then_forgets);
	RUN(the_table_is_bounded_and_keeps_addresses_in_backoff);
	return CHECK_DONE();
}
