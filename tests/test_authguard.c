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
	auth_count *h = auth_table_get(&g.addrs, &hot, 0);
	for (int k = 0; k < AUTH_FREE_FAILURES + 4; k++)
		auth_count_fail(h, 1); /* in backoff for minutes */
	/* Far more addresses than entries, each failing once. */
	for (uint32_t k = 1; k <= 5 * AUTH_GUARD_ADDRS; k++) {
		auth_addr a = addr_of(k);
		auth_count_fail(auth_table_get(&g.addrs, &a, 10 + k), 10 + k);
	}
	size_t used = 0;
	for (size_t i = 0; i < AUTH_GUARD_ADDRS; i++)
		used += g.addrs.entries[i].used;
	CHECK(used == AUTH_GUARD_ADDRS, "%zu entries", used);
	h = auth_table_find(&g.addrs, &hot);
	CHECK(h && auth_count_wait(h, 10 + 5 * AUTH_GUARD_ADDRS) > 0,
	      "an address in backoff was pushed out by idle ones");
	auth_addr newest = addr_of(5 * AUTH_GUARD_ADDRS), oldest = addr_of(1);
	CHECK(auth_table_find(&g.addrs, &newest) && !auth_table_find(&g.addrs, &oldest),
	      "the one that failed longest ago goes first");
}

static auth_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	auth_addr x;
	memset(&x, 0, sizeof x);
	x.b[10] = x.b[11] = 0xff;
	x.b[12] = a, x.b[13] = b, x.b[14] = c, x.b[15] = d;
	return x;
}

/* Guesses from ever new addresses of one /16, one every millisecond for ten seconds,
 * as the server judges them (the address's and the network's counts): the network's
 * count lets through a handful, not thousands. Another /16 is not held back. */
static void many_addresses_of_one_network_are_slowed_as_one(void)
{
	static auth_guard g;
	memset(&g, 0, sizeof g);
	unsigned checked = 0;
	for (uint64_t t = 1; t <= 10000; t++) {
		auth_addr a = v4(127, 1, (uint8_t)(t >> 8), (uint8_t)t), net = auth_addr_net(&a);
		auth_count *na = auth_table_find(&g.nets, &net),
		           *aa = auth_table_find(&g.addrs, &a);
		if ((na && auth_count_wait(na, t)) || (aa && auth_count_wait(aa, t)))
			continue; /* refused unchecked */
		checked++;
		auth_count_fail(auth_table_get(&g.addrs, &a, t), t);
		auth_net_fail(auth_table_get(&g.nets, &net, t), t);
	}
	CHECK(checked <= AUTH_NET_FREE_FAILURES + 10, "%u guesses checked in 10 s", checked);
	auth_addr other = v4(127, 2, 0, 1), onet = auth_addr_net(&other);
	auth_count *o = auth_table_find(&g.nets, &onet);
	CHECK(!o || auth_count_wait(o, 10001) == 0, "another network is held back");
	auth_addr n1 = auth_addr_net(
	    &(auth_addr){.b = {[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 1, [14] = 2, [15] = 3}});
	CHECK(n1.b[12] == 10 && n1.b[13] == 1 && n1.b[14] == 0 && n1.b[15] == 0, "the /16");
}

int main(void)
{
	RUN(backoff_doubles_to_a_cap);
	RUN(a_count_refuses_during_its_backoff_then_forgets);
	RUN(the_table_is_bounded_and_keeps_addresses_in_backoff);
	RUN(many_addresses_of_one_network_are_slowed_as_one);
	return CHECK_DONE();
}
