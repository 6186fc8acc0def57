/* The turns by which connections share the loop fairly: each turn's command time
 * charged and bounded (the budgets: conn.h), and the waiting served least served first. */
#include "conn.h"

#include <stdlib.h>
#include <string.h>

#include "conn_internal.h"
#include "history.h"
#include "journal.h"

/* Whether c's turn, which began at t0, has spent its command time, or all
 * connections together have spent the loop turn's. */
bool conn_turn_spent(const conn *c, uint64_t t0)
{
	uint64_t used = uv_hrtime() - t0;
	return used >= CONN_TURN_BUDGET_NS || c->srv->turn_used_ns + used >= LOOP_TURN_BUDGET_NS;
}

/* A client without the token on a server that has one. */
static bool untrusted(const conn *c)
{
	return c->srv->opt.has_token && !c->may_write;
}

/* A connection back from idling keeps no more credit than the slack: it cannot
 * starve the others with what it did not use. */
static void level(conn *c)
{
	server *s = c->srv;
	if (s->vclock > CONN_VTIME_SLACK_NS && c->vtime < s->vclock - CONN_VTIME_SLACK_NS)
		c->vtime = s->vclock - CONN_VTIME_SLACK_NS;
}

/* c is about to run commands: the virtual clock moves up to where it starts, on every
 * path (served at once or after waiting), so that a newcomer starts level with those
 * being served rather than with the clock as it stood when the loop was last
 * contended. */
void conn_start_turn(conn *c)
{
	level(c);
	if (c->vtime > c->srv->vclock)
		c->srv->vclock = c->vtime;
}

/* Charges c the command time since t0: to the loop's turn, and (weighted) to its
 * share. */
void conn_charge(conn *c, uint64_t t0)
{
	uint64_t used = uv_hrtime() - t0;
	server *s = c->srv;
	s->turn_used_ns += used;
	c->last_cost = used * (untrusted(c) ? CONN_UNTRUSTED_WEIGHT : 1u);
	c->costed = true;
	c->vtime += c->last_cost;
}

/* Whether what arrives now must wait its turn: the loop's command time is spent, or
 * others wait for theirs and it must not go ahead of them. */
bool conn_must_wait(const server *s)
{
	return s->turn_used_ns >= LOOP_TURN_BUDGET_NS || s->turns_waiting;
}

/* c's turn is over: it reads nothing more until the next turn of the loop, when
 * conn_resume_deferred runs what waits (busy holds it, as behind a job). */
void conn_defer(conn *c)
{
	c->busy = c->deferred = true;
	c->srv->turns_waiting = true;
	server_wake_deferred(c->srv);
}

/* The weighted command time a connection's next turn is expected to cost: its last
 * turn's, or for one that has run nothing yet a whole turn. */
static uint64_t next_cost(const conn *c)
{
	return c->costed ? c->last_cost
	                 : CONN_TURN_BUDGET_NS * (untrusted(c) ? CONN_UNTRUSTED_WEIGHT : 1u);
}

/* The waiting are served the token's holders first (on a server that has a token),
 * then by when each would have had its share if served now (its command time so far
 * and what its next turn is expected to cost): a client of cheap commands goes ahead
 * of newcomers that have run nothing yet but would each take a whole turn, and one
 * without the token pays four times over for each. */
static int by_vtime(const void *a, const void *b)
{
	const conn *x = *(conn *const *)a, *y = *(conn *const *)b;
	bool ux = untrusted(x), uy = untrusted(y);
	if (ux != uy)
		return ux ? 1 : -1;
	uint64_t fx = x->vtime + next_cost(x), fy = y->vtime + next_cost(y);
	return fx < fy ? -1 : fx > fy;
}

/* The holders' precedence is bounded: after CONN_HOLDER_STREAK turns to them in a row
 * while others wait, the first of the others goes first, so that a holder's backlog
 * cannot starve them. Whether any of the n in order is without the token. */
static bool bound_holders(server *s, conn **order, size_t n)
{
	size_t k = 0;
	while (k < n && !untrusted(order[k]))
		k++;
	if (k == n)
		return false;
	if (s->holder_streak >= CONN_HOLDER_STREAK && k > 0) {
		conn *first = order[k];
		memmove(order + 1, order, k * sizeof *order);
		order[0] = first;
	}
	return true;
}

/* Whether c may take this loop turn's cheap turn (CONN_CHEAP_TURN_NS). */
static bool cheap_turn(const server *s, const conn *c)
{
	return !s->cheap_turn_taken && !untrusted(c) && !c->retry && c->costed &&
	       c->last_cost <= CONN_CHEAP_TURN_NS;
}

bool conn_resume_deferred(server *s, bool *ran)
{
	*ran = false;
	if (s->stopping)
		return false;
	/* The waiting, least served first, while the loop's turn has time. A connection
	 * may leave the list only in a close callback, never within this walk. */
	size_t n = 0;
	for (conn *c = s->conns; c; c = c->next)
		n += c->deferred && !c->closing;
	if (n == 0)
		return false;
	conn **order = malloc(n * sizeof *order);
	if (!order)
		return true; /* the next turn tries again */
	size_t k = 0;
	for (conn *c = s->conns; c; c = c->next)
		if (c->deferred && !c->closing) {
			level(c);
			order[k++] = c;
		}
	qsort(order, n, sizeof *order, by_vtime);
	bool others = bound_holders(s, order, n);
	bool waiting = false;
	s->turns_waiting = false; /* set again by whoever is left waiting for a turn */
	for (k = 0; k < n; k++) {
		conn *c = order[k];
		if (s->turn_used_ns >= LOOP_TURN_BUDGET_NS) {
			if (!cheap_turn(s, c)) {
				/* It keeps its place: next turn. */
				waiting = s->turns_waiting = true;
				continue;
			}
			s->cheap_turn_taken = true;
		}
		if (c->retry && c->srv->journal &&
		    journal_busy(s->journal, &c->retry_cmd,
		                 history_would_fork(s->history, &c->retry_cmd), true)) {
			waiting = true; /* the checkpoint it waits for runs on */
			continue;
		}
		c->deferred = c->busy = false;
		*ran = true;
		if (untrusted(c))
			s->holder_streak = 0;
		else if (others)
			s->holder_streak++;
		if (c->retry) {
			conn_run_retry(c);
		} else {
			conn_run_held(c);
		}
		waiting |= c->deferred;
	}
	free(order);
	return waiting;
}
