/* Slows down token guessing. After AUTH_FREE_FAILURES wrong tokens in a row, further
 * attempts are refused unchecked for a backoff that doubles with each failure, from
 * AUTH_BACKOFF_MIN_MS up to AUTH_BACKOFF_MAX_MS: so no rate of attempts checks more
 * than one guess per backoff. It counts per connection (the caller keeps an
 * auth_count) and per address (an IPv4 address, or the /64 of an IPv6 one, since a
 * single host is usually given a whole /64), in a table of AUTH_GUARD_ADDRS entries;
 * when it is full the entry that failed longest ago is reused. An address's count is
 * forgotten AUTH_FORGET_MS after its last failure. Since one host may hold many
 * addresses (all of 127/8, a whole IPv6 /48), failures are also counted per network
 * (an IPv4 /16, an IPv6 /48) in a table of their own, with AUTH_NET_FREE_FAILURES free
 * and a backoff that doubles every AUTH_NET_PER_DOUBLING: guessing from ever new
 * addresses is slowed as much as from one. Pure bookkeeping: the caller passes the
 * time. */
#ifndef STEER_AUTHGUARD_H
#define STEER_AUTHGUARD_H

#include <stdbool.h>
#include <stdint.h>

#define AUTH_FREE_FAILURES     3
#define AUTH_BACKOFF_MIN_MS    1000u
#define AUTH_BACKOFF_MAX_MS    60000u
#define AUTH_FORGET_MS         (10u * 60u * 1000u)
#define AUTH_GUARD_ADDRS       1024
#define AUTH_NET_FREE_FAILURES 12
#define AUTH_NET_PER_DOUBLING  4
/* Shorter tokens are warned about at start. */
#define AUTH_TOKEN_MIN_ADVISED 16

/* Who failed: 16 bytes (IPv4 as ::ffff:a.b.c.d; IPv6 cut to its /64). */
typedef struct auth_addr {
	uint8_t b[16];
} auth_addr;

/* Failures in a row and when the backoff they earned ends. */
typedef struct auth_count {
	uint32_t failures;
	uint64_t last_ms;  /* the last failure */
	uint64_t until_ms; /* attempts before this are refused */
	uint64_t refused;  /* attempts refused since the last failure */
	bool refusal_logged;
} auth_count;

typedef struct auth_table {
	struct auth_entry {
		auth_addr addr;
		auth_count count;
		bool used;
	} entries[AUTH_GUARD_ADDRS];
} auth_table;

typedef struct auth_guard {
	auth_table addrs, nets;
} auth_guard;

/* The backoff earned by the n-th failure in a row (0 for the free ones). */
uint64_t auth_backoff_ms(uint32_t failures);

/* The network an address is in: its IPv4 /16 or IPv6 /48. */
auth_addr auth_addr_net(const auth_addr *a);

/* The count for an address (or a network, in g->nets), or NULL when the table has
 * none. */
auth_count *auth_table_find(auth_table *t, const auth_addr *a);
/* The count for an address, taking over the entry that failed longest ago when the
 * table is full (one still in its backoff last). Never NULL. */
auth_count *auth_table_get(auth_table *t, const auth_addr *a, uint64_t now_ms);

/* Milliseconds an attempt must still wait under c (0: it may be checked). */
uint64_t auth_count_wait(const auth_count *c, uint64_t now_ms);
/* Records a wrong token; returns the backoff it earned, in ms. */
uint64_t auth_count_fail(auth_count *c, uint64_t now_ms);
/* The same for a network's count. */
uint64_t auth_net_fail(auth_count *c, uint64_t now_ms);

#endif
