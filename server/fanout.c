/* The snapshot fan-out. Once per snapshot tick: one spatial index of the world, one
 * collection and encoding per distinct view (plain) or per distinct view, precision
 * and base (compact), and the same bytes offered to every connection that shares
 * them. Clients watching the same rectangle that were written the same frames last
 * time, the usual case, share one delta.
 *
 * What clients ask cannot buy them the server's time or memory: views are snapped
 * outwards onto a grid finer than the client can tell apart, so near-identical views
 * share one encoding; new encoding work stops once the tick's time budget is spent
 * (clients are served longest-waiting first, so an expensive view is served less
 * often, never at the others' expense); and past the global snapshot memory cap a
 * client with a snapshot still in flight gets no new one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "log.h"
#include "ranks.h"
#include "reserve.h"
#include "serve.h"
#include "server.h"

/* Distinct views and encodings remembered within a tick; a connection beyond them is
 * encoded on its own (right, only slower). */
enum { MAX_GROUPS = 64, MAX_ENCODINGS = 128 };

/* The connections looking at one view, plain or at one precision. */
typedef struct group {
	steer_view view;
	steer_compact_req req;
	sbuf *plain;   /* plain: this tick's Snapshot (one reference, the group's) */
	cframe *frame; /* compact: this tick's quantized view (one reference) */
	sbuf *dense;   /* compact zoomed out: this tick's DensitySnapshot instead */
	size_t n;      /* compact: the vehicles in view with its margin */
} group;

/* One group's frame as a delta on one base (NULL: the key frame). */
typedef struct encoding {
	const group *g;
	uint64_t base_seq; /* 0: key frame */
	sbuf *bytes;       /* one reference, the cache's */
} encoding;

/* Why a connection was not offered a snapshot this tick. */
typedef enum denial {
	DENIED_NONE,
	DENIED_BUDGET, /* the tick's encoding time is spent */
	DENIED_FAILED, /* out of memory (logged) */
} denial;

typedef struct tick {
	server *s;
	bool indexed;
	uint64_t t0;      /* uv_hrtime when the tick's fan-out began */
	double budget_ms; /* encoding time this tick may take */
	bool granted;     /* new work for the current connection was allowed */
	denial denied;    /* why it was not */
	size_t encodings; /* encodings made this tick */
	group groups[MAX_GROUPS];
	size_t ngroups;
	encoding encs[MAX_ENCODINGS];
	size_t nencs;
} tick;

/* Over ranks, this snapshot tick's distinct views and how many vehicles of the whole
 * world each holds with its margin (fetch_views); the loop is single-threaded. */
static struct {
	steer_view view[MAX_GROUPS];
	uint64_t count[MAX_GROUPS];
	size_t n;
} counted;

/* The whole world's count in view, when counted this tick; else fallback. */
static size_t count_in(const steer_view *view, size_t fallback)
{
	for (size_t k = 0; k < counted.n; k++)
		if (steer_view_same(&counted.view[k], view))
			return (size_t)counted.count[k];
	return fallback;
}

/* Plain views are snapped to 1/PLAIN_GRID of their span or finer: finer than any
 * screen draws them (the widest compact map has as many cells). */
#define PLAIN_GRID 4096.0

/* The largest power of two not above x (x > 0). */
static double pow2_floor(double x)
{
	int e;
	frexp(x, &e);
	return ldexp(1.0, e - 1);
}

/* lo..hi widened onto multiples of q; an edge that would leave the coordinates a
 * view may have stays where it was. */
static void snap_span(double *lo, double *hi, double q)
{
	double a = floor(*lo / q) * q, b = ceil(*hi / q) * q;
	if (a >= -STEER_VIEW_COORD_MAX)
		*lo = a;
	if (b <= STEER_VIEW_COORD_MAX)
		*hi = b;
}

/* The rectangle c's snapshots are cut to: its view with each edge moved outwards onto
 * a power-of-two grid finer than the client can tell apart (a compact client's
 * quantum, STEER_COMPACT_SUB per cell; for a plain client, a pixel of the widest
 * screen), so views that differ by less share one encoding. */
static steer_view key_view(const conn *c)
{
	steer_view v = c->view;
	if (!v.set)
		return v;
	double w = v.x1 - v.x0, h = v.y1 - v.y0, qx, qy;
	if (c->compact.on) {
		qx = pow2_floor(w / c->compact.cols / STEER_COMPACT_SUB);
		qy = pow2_floor(h / c->compact.rows / STEER_COMPACT_SUB);
	} else {
		qx = qy = pow2_floor(fmax(w, h) / PLAIN_GRID);
	}
	snap_span(&v.x0, &v.x1, qx);
	snap_span(&v.y0, &v.y1, qy);
	return v;
}

static group *find_group(tick *t, const steer_view *view, const conn *c)
{
	for (size_t k = 0; k < t->ngroups; k++)
		if (steer_view_same(&t->groups[k].view, view) &&
		    steer_compact_req_same(&t->groups[k].req, &c->compact))
			return &t->groups[k];
	return NULL;
}

static void release_group(group *g)
{
	sbuf_unref(g->plain);
	cframe_unref(g->frame);
	sbuf_unref(g->dense);
	g->plain = NULL;
	g->frame = NULL;
	g->dense = NULL;
}

/* Its last snapshots are still in flight: a new one would wait, as its pending one. */
static bool behind(const conn *c)
{
	return c->snapshots_in_flight >= SNAPSHOTS_IN_FLIGHT;
}

static double elapsed_ms(const tick *t)
{
	return (double)(uv_hrtime() - t->t0) / 1e6;
}

/* Whether new work (collecting, encoding) may be done for the current connection:
 * not once the tick's budget is spent. Granted once, the connection's work is
 * finished even if it overruns: half of it would be wasted. */
static bool grant(tick *t)
{
	if (t->granted)
		return true;
	if (elapsed_ms(t) >= t->budget_ms) {
		t->denied = DENIED_BUDGET;
		return false;
	}
	t->granted = true;
	return true;
}

/* The world indices of view's vehicles into s->view_idx; the index is built on the
 * first view of the tick that needs it. */
static bool collect(tick *t, const steer_view *view, steer_order order, size_t *n)
{
	server *s = t->s;
	if (view->set && !t->indexed) {
		t->indexed = true;
		if (steer_interest_build(&s->interest, s->session.world) != 0)
			steer_log(STEER_LOG_WARN,
			          "snapshot index: out of memory; scanning instead");
	}
	return steer_interest_collect(&s->interest, s->session.world, view, order, &s->view_idx,
	                              &s->view_idx_cap, n) == 0;
}

/* A new snapshot's bytes: counted, and charged to the global snapshot memory until
 * freed. */
static void count_encoding(tick *t, sbuf *b)
{
	server *s = t->s;
	s->snapshots_encoded++;
	s->snapshot_bytes += b->len;
	sbuf_account(b, &s->snapshot_live);
	t->encodings++;
}

/* The group's cells as one DensitySnapshot: the same bytes for all its members.
 * s->view_idx holds its n vehicles. */
static bool build_density(tick *t, group *g, size_t n)
{
	server *s = t->s;
	steer_world *w = s->session.world;
	steer_strbuf_clear(&s->scratch);
	char err[512];
	steer_status counted_here = s->ranks
	                                ? ranks_density(s->ranks, &s->density, &g->view,
	                                                g->req.cols, g->req.rows, err, sizeof err)
	                                : steer_density_build(&s->density, w, &g->view, g->req.cols,
	                                                      g->req.rows, s->view_idx, n);
	if (counted_here != STEER_OK ||
	    steer_wire_density(&s->scratch, w, s->session.paused, &s->density) != STEER_OK ||
	    s->scratch.oom || !(g->dense = sbuf_new(s->scratch.data, s->scratch.len)))
		return false;
	count_encoding(t, g->dense);
	s->density_encoded++;
	return true;
}

/* The group's compact frame, quantized from its n vehicles in s->view_idx. */
static bool build_frame(tick *t, group *g, size_t n)
{
	server *s = t->s;
	g->frame = cframe_new();
	if (!g->frame ||
	    steer_compact_frame_build(&g->frame->f, s->session.world, &g->view, g->req.cols,
	                              g->req.rows, s->view_idx, n, ++s->next_frame_seq) != STEER_OK)
		return false;
	cframe_account(g->frame, &s->snapshot_live);
	return true;
}

/* A compact group's density snapshot or frame, built on first need. Members of one
 * group may differ (a client that had density keeps it a while longer, see
 * steer_density_wanted): the second kind, if any, collects the view again. fresh:
 * s->view_idx still holds the group's vehicles. False with t->denied set. */
static bool ensure(tick *t, group *g, bool dense, bool fresh)
{
	if (dense ? g->dense != NULL : g->frame != NULL)
		return true;
	if (!grant(t))
		return false;
	size_t n = g->n;
	if ((!fresh && !collect(t, &g->view, STEER_ORDER_ID, &n)) ||
	    !(dense ? build_density(t, g, n) : build_frame(t, g, n))) {
		t->denied = DENIED_FAILED;
		return false;
	}
	return true;
}

/* Encodes the plain snapshot of a new group, or collects a compact one's vehicles
 * and builds what its first member c needs. False with t->denied set. */
static bool prepare(tick *t, group *g, const conn *c)
{
	server *s = t->s;
	size_t n;
	if (!grant(t))
		return false;
	t->denied = DENIED_FAILED;
	/* In id order, plain too: which 256 routes a crowded view sends, and the order
	 * vehicles come in, then depend on the world alone, not on how its storage came
	 * to be ordered (one process's, or over ranks copies after rank 0's own). */
	if (!collect(t, &g->view, STEER_ORDER_ID, &n))
		return false;
	if (!g->req.on) {
		steer_strbuf_clear(&s->scratch);
		if (steer_wire_snapshot_of(&s->scratch, s->session.world, s->session.paused,
		                           &g->view, s->view_idx, n) != STEER_OK ||
		    s->scratch.oom || !(g->plain = sbuf_new(s->scratch.data, s->scratch.len)))
			return false;
		count_encoding(t, g->plain);
		t->denied = DENIED_NONE;
		return true;
	}
	/* Over ranks the world holds copies of only the views drawn as vehicles: the
	 * count that decides is the whole world's. */
	if (s->ranks)
		n = count_in(&g->view, n);
	g->n = n;
	t->denied = DENIED_NONE;
	return ensure(t, g, steer_density_wanted(&g->req, n, c->dense_last), true);
}

/* What a delta for c can build on: the frame last written to it, when of the same
 * view and precision and under a second old (older, most vehicles have moved far or
 * left, and a key frame is about as small). NULL: send a key frame. */
static const cframe *usable_base(const server *s, const conn *c, const cframe *frame)
{
	const cframe *b = c->base;
	if (!b || !steer_compact_compatible(&frame->f, &b->f))
		return NULL;
	uint64_t max_age = (uint64_t)ceil(steer_world_config_get(s->session.world)->tick_rate);
	if (b->f.tick > frame->f.tick || frame->f.tick - b->f.tick > max_age)
		return NULL;
	return b;
}

/* The bytes of g's frame on base: from this tick's cache when some other connection
 * needed the same, else encoded now (and cached when cacheable). A new reference, or
 * NULL with t->denied set. */
static sbuf *compact_bytes(tick *t, const group *g, const cframe *base, bool cacheable)
{
	server *s = t->s;
	uint64_t base_seq = base ? base->f.seq : 0;
	for (size_t k = 0; k < t->nencs; k++)
		if (t->encs[k].g == g && t->encs[k].base_seq == base_seq) {
			t->encs[k].bytes->refs++;
			return t->encs[k].bytes;
		}
	if (!grant(t))
		return NULL;
	steer_strbuf_clear(&s->scratch);
	sbuf *b;
	if (steer_wire_compact(&s->scratch, &s->compact_scratch, s->session.world,
	                       s->session.paused, &g->frame->f,
	                       base ? &base->f : NULL) != STEER_OK ||
	    s->scratch.oom || !(b = sbuf_new(s->scratch.data, s->scratch.len))) {
		t->denied = DENIED_FAILED;
		return NULL;
	}
	count_encoding(t, b);
	s->compact_encoded++;
	s->compact_keyframes += base == NULL;
	if (cacheable && t->nencs < MAX_ENCODINGS) {
		b->refs++;
		t->encs[t->nencs++] = (encoding){g, base_seq, b};
	}
	return b;
}

/* The group's density frame with the vehicle a client picked added, its own copy;
 * NULL when it picked none, the vehicle is gone, the budget is spent or memory ran
 * out (the client then gets the shared frame: its pick just does not show). */
static sbuf *with_pick(tick *t, const conn *c, const sbuf *dense)
{
	server *s = t->s;
	if (!c->compact.pick || !grant(t))
		return NULL;
	steer_strbuf_clear(&s->scratch);
	if (steer_wire_density_picked(&s->scratch, (const uint8_t *)dense->data, dense->len,
	                              s->session.world, c->compact.pick) != STEER_OK ||
	    s->scratch.oom)
		return NULL;
	sbuf *b = sbuf_new(s->scratch.data, s->scratch.len);
	if (b)
		count_encoding(t, b);
	return b;
}

/* Offers c its snapshot of g; false with t->denied set when it gets none. */
static bool offer(tick *t, conn *c, group *g, bool cacheable)
{
	if (!g->req.on) {
		conn_offer_snapshot(c, g->plain, NULL, 0);
		return true;
	}
	bool dense = steer_density_wanted(&g->req, g->n, c->dense_last);
	if (!ensure(t, g, dense, false))
		return false;
	c->dense_last = dense;
	if (dense) {
		/* Not a compact frame: the client's base, and so the server's, stays. */
		sbuf *picked = with_pick(t, c, g->dense);
		conn_offer_snapshot(c, picked ? picked : g->dense, NULL, 0);
		if (picked)
			sbuf_unref(picked);
		return true;
	}
	const cframe *base = usable_base(t->s, c, g->frame);
	sbuf *b = compact_bytes(t, g, base, cacheable);
	if (!b)
		return false;
	conn_offer_snapshot(c, b, g->frame, base ? base->f.seq : 0);
	sbuf_unref(b);
	return true;
}

/* Offers c its snapshot; false with t->denied set when it gets none this tick. */
static bool offer_to(tick *t, conn *c)
{
	t->granted = false;
	t->denied = DENIED_NONE;
	/* Writing costs too (a big snapshot is copied into the kernel): past the budget
	 * only a client that is behind, whose newest snapshot merely waits, is served. */
	if (!behind(c) && elapsed_ms(t) >= t->budget_ms) {
		t->denied = DENIED_BUDGET;
		return false;
	}
	steer_view view = key_view(c);
	group *g = find_group(t, &view, c);
	if (g)
		return offer(t, c, g, true);
	/* A new group: kept for the connections after this one while there is room. */
	group alone;
	bool kept = t->ngroups < MAX_GROUPS;
	g = kept ? &t->groups[t->ngroups] : &alone;
	*g = (group){view, c->compact, NULL, NULL, NULL, 0};
	if (!prepare(t, g, c)) {
		release_group(g);
		return false;
	}
	if (kept)
		t->ngroups++;
	bool offered = offer(t, c, g, kept);
	if (!kept)
		release_group(g);
	return offered;
}

static bool watching(const conn *c)
{
	return c->kind == CONN_PROTO && !c->closing && c->welcomed && c->may_watch;
}

/* Clients that can take a snapshot now before those whose last ones are still in
 * flight (theirs would only wait, replaced by the next); among each, the longest
 * waiting first, then the oldest connection: who was not served last tick is served
 * first in this one. */
static int by_wait(const void *a, const void *b)
{
	const conn *x = *(conn *const *)a, *y = *(conn *const *)b;
	if (behind(x) != behind(y))
		return behind(x) ? 1 : -1;
	if (x->served_tick != y->served_tick)
		return x->served_tick < y->served_tick ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The watching connections in the order they are served: s->order[0..*n). False when
 * memory runs out (then they are served in list order). */
static bool serving_order(server *s, size_t *n)
{
	size_t k = 0;
	for (conn *c = s->conns; c; c = c->next)
		k += watching(c);
	if (steer_reserve((void **)&s->order, &s->order_cap, k, sizeof *s->order) != STEER_OK)
		return false;
	*n = 0;
	for (conn *c = s->conns; c; c = c->next)
		if (watching(c))
			s->order[(*n)++] = c;
	if (*n > 1) /* qsort must not be handed a null array, even empty */
		qsort(s->order, *n, sizeof *s->order, by_wait);
	return true;
}

/* A reader on a slow link always has a snapshot on its way; one not taken for this
 * long is not being read. */
#define SLOW_READER_MS 1000

/* Past the global snapshot memory cap, a connection that has left a snapshot untaken
 * for a while (the slowest) gets no new one; what it had waiting is let go, its
 * compact base too (its next snapshot is then a key frame). */
static bool over_memory_cap(server *s, conn *c)
{
	if (s->snapshot_live <= s->opt.snapshot_memory_max || conn_untaken_ms(c) < SLOW_READER_MS)
		return false;
	conn_drop_waiting_snapshot(c);
	return true;
}

/* Serves c; counts it throttled when the budget or the memory cap held it back. */
static void serve(tick *t, conn *c, size_t *throttled)
{
	server *s = t->s;
	bool served = !over_memory_cap(s, c) && offer_to(t, c);
	if (served) {
		c->served_tick = s->snapshot_ticks;
		return;
	}
	if (t->denied == DENIED_FAILED)
		steer_log(STEER_LOG_ERROR, "cannot encode a snapshot: out of memory");
	else
		(*throttled)++;
}

/* Logs when the global snapshot memory cap starts and stops holding clients back. */
static void note_memory_cap(server *s)
{
	bool over = s->snapshot_live > s->opt.snapshot_memory_max;
	if (over != s->snapshot_memory_over)
		steer_log(over ? STEER_LOG_WARN : STEER_LOG_INFO,
		          over
		              ? "snapshot memory %zu bytes is over --snapshot-memory-max %zu: "
		                "slow clients skip snapshots"
		              : "snapshot memory %zu bytes is back under --snapshot-memory-max %zu",
		          s->snapshot_live, s->opt.snapshot_memory_max);
	s->snapshot_memory_over = over;
}

void server_geometry_sync(server *s)
{
	uint64_t version = steer_world_geometry_version(s->session.world);
	if (s->geometry && version == s->geometry_version)
		return;
	steer_strbuf_clear(&s->scratch);
	sbuf *b;
	if (steer_wire_geometry(&s->scratch, s->session.world) != STEER_OK || s->scratch.oom ||
	    !(b = sbuf_new(s->scratch.data, s->scratch.len))) {
		steer_log(STEER_LOG_ERROR, "cannot encode the geometry: out of memory");
		return;
	}
	sbuf_unref(s->geometry);
	s->geometry = b;
	s->geometry_version = version;
	/* One that cannot take it is closed by conn_send_shared (queue caps): nothing
	 * more to do for it here. */
	for (conn *c = s->conns; c; c = c->next)
		if (watching(c))
			(void)conn_send_shared(c, b);
}

void server_send_geometry(server *s, conn *c)
{
	if (s->geometry)
		(void)conn_send_shared(c, s->geometry); /* false: closed, as above */
}

/* Whether c's snapshot is drawn as density cells, as prepare and offer decide it. */
static bool dense_for(const conn *c, size_t n)
{
	return c->compact.on && steer_density_wanted(&c->compact, n, c->dense_last);
}

/* Over ranks: counts what each watching client's view holds, then fetches copies of
 * the other ranks' vehicles in the views drawn as vehicles, and of the picked ones,
 * into rank 0's world until the fan-out ends (the views drawn as cells are counted by
 * the ranks when encoded, build_density). No rank sends its whole region unless a
 * client watches all of it as vehicles. False when no one watches or the fetch
 * failed (logged). */
static bool fetch_views(server *s)
{
	counted.n = 0;
	bool all = false;
	size_t watchers = 0;
	for (conn *c = s->conns; c; c = c->next) {
		if (!watching(c))
			continue;
		watchers++;
		steer_view v = key_view(c);
		bool known = false;
		for (size_t k = 0; k < counted.n && !known; k++)
			known = steer_view_same(&counted.view[k], &v);
		if (!known && counted.n < MAX_GROUPS)
			counted.view[counted.n++] = v;
		else if (!known)
			all = true; /* past the table: every vehicle, right, only dearer */
	}
	if (counted.n == 0)
		return false;
	/* One count over the ranks: the whole world (an unset view), for the snapshots'
	 * headers, then each distinct view. */
	steer_view whole = {0}, ask[MAX_GROUPS + 1];
	uint64_t got[MAX_GROUPS + 1];
	ask[0] = whole;
	memcpy(ask + 1, counted.view, counted.n * sizeof *ask);
	ranks_count_views(s->ranks, ask, counted.n + 1, got);
	uint64_t total = got[0];
	memcpy(counted.count, got + 1, counted.n * sizeof *got);
	steer_view views[MAX_GROUPS];
	uint32_t *picks = malloc(watchers * sizeof *picks);
	size_t nviews = 0, npicks = 0;
	for (conn *c = s->conns; c; c = c->next) {
		if (!watching(c))
			continue;
		steer_view v = all ? whole : key_view(c);
		if (all || !dense_for(c, count_in(&v, SIZE_MAX))) {
			bool known = false;
			for (size_t k = 0; k < nviews && !known; k++)
				known = steer_view_same(&views[k], &v);
			if (!known)
				views[nviews++] = v;
		}
		if (c->compact.on && c->compact.pick && picks)
			picks[npicks++] = c->compact.pick;
	}
	char err[512];
	steer_status st =
	    ranks_fetch_views(s->ranks, views, nviews, picks, npicks, total, err, sizeof err);
	free(picks);
	if (st != STEER_OK)
		steer_log(STEER_LOG_ERROR, "snapshot: %s", err);
	return st == STEER_OK;
}

void server_fan_out(server *s)
{
	if (s->ranks && !fetch_views(s))
		return;
	static tick t; /* 8 KiB: off the stack; the loop is single-threaded */
	memset(&t, 0, sizeof t);
	t.s = s;
	t.t0 = uv_hrtime();
	/* Credit: a tick that overran its budget leaves the next ones less (none while in
	 * debt), so an encoding dearer than the budget runs less often, not longer. */
	double budget = s->opt.snapshot_budget * 1000.0 / s->opt.snapshot_rate;
	s->encode_credit_ms = fmin(s->encode_credit_ms + budget, budget);
	t.budget_ms = s->encode_credit_ms;
	s->snapshot_ticks++;
	steer_interest_invalidate(&s->interest); /* the world has moved since */
	server_geometry_sync(s);                 /* before any snapshot of a new version */
	note_memory_cap(s);
	size_t n, throttled = 0;
	if (serving_order(s, &n)) {
		for (size_t k = 0; k < n; k++)
			serve(&t, s->order[k], &throttled);
	} else {
		for (conn *c = s->conns; c; c = c->next)
			if (watching(c))
				serve(&t, c, &throttled);
	}
	for (size_t k = 0; k < t.ngroups; k++)
		release_group(&t.groups[k]);
	for (size_t k = 0; k < t.nencs; k++)
		sbuf_unref(t.encs[k].bytes);
	double ms = elapsed_ms(&t);
	if (ms > 2 * budget + 10)
		steer_log(STEER_LOG_DEBUG,
		          "snapshot tick took %.1f ms (budget %.1f ms), %zu encodings", ms, budget,
		          t.encodings);
	s->encode_credit_ms -= ms;
	timings_add(&s->encode_ms, ms, uv_hrtime());
	s->clients_throttled = throttled;
	s->snapshots_throttled += throttled;
	s->encodings_last = t.encodings;
	if (s->ranks)
		ranks_drop_views(s->ranks);
}
