#include "authguard.h"

#include <string.h>

uint64_t auth_backoff_ms(uint32_t failures)
{
	if (failures < AUTH_FREE_FAILURES)
		return 0;
	uint32_t doublings = failures - AUTH_FREE_FAILURES;
	uint64_t ms = AUTH_BACKOFF_MIN_MS;
	while (doublings-- > 0 && ms < AUTH_BACKOFF_MAX_MS)
		ms *= 2;
	return ms < AUTH_BACKOFF_MAX_MS ? ms : AUTH_BACKOFF_MAX_MS;
}

auth_addr auth_addr_net(const auth_addr *a)
{
	static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	auth_addr n = *a;
	size_t keep = memcmp(a->b, v4, sizeof v4) == 0 ? 14 : 6; /* /16 of IPv4, /48 */
	memset(n.b + keep, 0, sizeof n.b - keep);
	return n;
}

auth_count *auth_table_find(auth_table *g, const auth_addr *a)
{
	for (size_t i = 0; i < AUTH_GUARD_ADDRS; i++)
		if (g->entries[i].used && !memcmp(&g->entries[i].addr, a, sizeof *a))
			return &g->entries[i].count;
	return NULL;
}

auth_count *auth_table_get(auth_table *g, const auth_addr *a, uint64_t now_ms)
{
	auth_count *found = auth_table_find(g, a);
	if (found)
		return found;
	struct auth_entry *victim = &g->entries[0];
	for (size_t i = 0; i < AUTH_GUARD_ADDRS; i++) {
		struct auth_entry *e = &g->entries[i];
		if (!e->used) {
			victim = e;
			break;
		}
		/* One still in its backoff is the last to go. */
		bool busy = e->count.until_ms > now_ms,
		     victim_busy = victim->count.until_ms > now_ms;
		if ((victim_busy && !busy) ||
		    (busy == victim_busy && e->count.last_ms < victim->count.last_ms))
			victim = e;
	}
	memset(victim, 0, sizeof *victim);
	victim->addr = *a;
	victim->used = true;
	return &victim->count;
}

uint64_t auth_count_wait(const auth_count *c, uint64_t now_ms)
{
	return c->until_ms > now_ms ? c->until_ms - now_ms : 0;
}

static uint64_t count_fail(auth_count *c, uint64_t now_ms, bool net)
{
	if (c->failures && now_ms - c->last_ms >= AUTH_FORGET_MS)
		c->failures = 0;
	if (c->failures < UINT32_MAX)
		c->failures++;
	c->last_ms = now_ms;
	uint64_t backoff = auth_backoff_ms(c->failures);
	if (net)
		backoff = c->failures < AUTH_NET_FREE_FAILURES
		              ? 0
		              : auth_backoff_ms(AUTH_FREE_FAILURES +
		                                (c->failures - AUTH_NET_FREE_FAILURES) /
		                                    AUTH_NET_PER_DOUBLING);
	c->until_ms = now_ms + backoff;
	c->refused = 0;
	c->refusal_logged = false;
	return backoff;
}

uint64_t auth_count_fail(auth_count *c, uint64_t now_ms)
{
	return count_fail(c, now_ms, false);
}

uint64_t auth_net_fail(auth_count *c, uint64_t now_ms)
{
	return count_fail(c, now_ms, true);
}
