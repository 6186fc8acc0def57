/* The snapshot fan-out. Once per snapshot tick: one spatial index of the world, one
 * collection and encoding per distinct view (plain) or per distinct view, precision
 * and base (compact), and the same bytes offered to every connection that shares
 * them. Clients watching the same rectangle that were written the same frames last
 * time, the usual case, share one delta. */
#include <math.h>
#include <string.h>

#include "conn.h"
#include "log.h"
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

typedef struct tick {
	server *s;
	bool indexed;
	group groups[MAX_GROUPS];
	size_t ngroups;
	encoding encs[MAX_ENCODINGS];
	size_t nencs;
} tick;

static group *find_group(tick *t, const conn *c)
{
	for (size_t k = 0; k < t->ngroups; k++)
		if (steer_view_same(&t->groups[k].view, &c->view) &&
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

static void count_encoding(server *s, const sbuf *b)
{
	s->snapshots_encoded++;
	s->snapshot_bytes += b->len;
}

/* The group's cells as one DensitySnapshot: the same bytes for all its members.
 * s->view_idx holds its n vehicles. */
static bool build_density(tick *t, group *g, size_t n)
{
	server *s = t->s;
	steer_world *w = s->session.world;
	steer_strbuf_clear(&s->scratch);
	if (steer_density_build(&s->density, w, &g->view, g->req.cols, g->req.rows, s->view_idx,
	                        n) != 0 ||
	    !steer_wire_density(&s->scratch, w, s->session.paused, &s->density) || s->scratch.oom ||
	    !(g->dense = sbuf_new(s->scratch.data, s->scratch.len)))
		return false;
	count_encoding(s, g->dense);
	s->density_encoded++;
	return true;
}

/* The group's compact frame, quantized from its n vehicles in s->view_idx. */
static bool build_frame(tick *t, group *g, size_t n)
{
	server *s = t->s;
	g->frame = cframe_new();
	return g->frame &&
	       steer_compact_frame_build(&g->frame->f, s->session.world, &g->view, g->req.cols,
	                                 g->req.rows, s->view_idx, n, ++s->next_frame_seq) == 0;
}

/* A compact group's density snapshot or frame, built on first need. Members of one
 * group may differ (a client that had density keeps it a while longer, see
 * steer_density_wanted): the second kind, if any, collects the view again. fresh:
 * s->view_idx still holds the group's vehicles. */
static bool ensure(tick *t, group *g, bool dense, bool fresh)
{
	if (dense ? g->dense != NULL : g->frame != NULL)
		return true;
	size_t n = g->n;
	if (!fresh && !collect(t, &g->view, STEER_ORDER_ID, &n))
		return false;
	return dense ? build_density(t, g, n) : build_frame(t, g, n);
}

/* Encodes the plain snapshot of a new group, or collects a compact one's vehicles
 * and builds what its first member c needs. */
static bool prepare(tick *t, group *g, const conn *c)
{
	server *s = t->s;
	size_t n;
	if (!collect(t, &g->view, g->req.on ? STEER_ORDER_ID : STEER_ORDER_INDEX, &n))
		return false;
	if (!g->req.on) {
		steer_strbuf_clear(&s->scratch);
		if (!steer_wire_snapshot_of(&s->scratch, s->session.world, s->session.paused,
		                            &g->view, s->view_idx, n) ||
		    s->scratch.oom || !(g->plain = sbuf_new(s->scratch.data, s->scratch.len)))
			return false;
		count_encoding(s, g->plain);
		return true;
	}
	g->n = n;
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
 * NULL when memory runs out. */
static sbuf *compact_bytes(tick *t, const group *g, const cframe *base, bool cacheable)
{
	server *s = t->s;
	uint64_t base_seq = base ? base->f.seq : 0;
	for (size_t k = 0; k < t->nencs; k++)
		if (t->encs[k].g == g && t->encs[k].base_seq == base_seq) {
			t->encs[k].bytes->refs++;
			return t->encs[k].bytes;
		}
	steer_strbuf_clear(&s->scratch);
	sbuf *b;
	if (!steer_wire_compact(&s->scratch, &s->compact_scratch, s->session.world,
	                        s->session.paused, &g->frame->f, base ? &base->f : NULL) ||
	    s->scratch.oom || !(b = sbuf_new(s->scratch.data, s->scratch.len)))
		return NULL;
	count_encoding(s, b);
	s->compact_encoded++;
	s->compact_keyframes += base == NULL;
	if (cacheable && t->nencs < MAX_ENCODINGS) {
		b->refs++;
		t->encs[t->nencs++] = (encoding){g, base_seq, b};
	}
	return b;
}

/* The group's density frame with the vehicle a client picked added, its own copy;
 * NULL when it picked none, the vehicle is gone, or memory ran out (the client then
 * gets the shared frame: its pick just does not show). */
static sbuf *with_pick(server *s, const sbuf *dense, uint32_t pick)
{
	if (!pick)
		return NULL;
	steer_strbuf_clear(&s->scratch);
	if (!steer_wire_density_picked(&s->scratch, (const uint8_t *)dense->data, dense->len,
	                               s->session.world, pick) ||
	    s->scratch.oom)
		return NULL;
	sbuf *b = sbuf_new(s->scratch.data, s->scratch.len);
	if (b)
		count_encoding(s, b);
	return b;
}

static void offer(tick *t, conn *c, group *g, bool cacheable)
{
	if (!g->req.on) {
		conn_offer_snapshot(c, g->plain, NULL, 0);
		return;
	}
	bool dense = steer_density_wanted(&g->req, g->n, c->dense_last);
	if (!ensure(t, g, dense, false)) {
		steer_log(STEER_LOG_ERROR, "cannot encode a snapshot: out of memory");
		return;
	}
	c->dense_last = dense;
	if (dense) {
		/* Not a compact frame: the client's base, and so the server's, stays. */
		sbuf *picked = with_pick(t->s, g->dense, c->compact.pick);
		conn_offer_snapshot(c, picked ? picked : g->dense, NULL, 0);
		if (picked)
			sbuf_unref(picked);
		return;
	}
	const cframe *base = usable_base(t->s, c, g->frame);
	sbuf *b = compact_bytes(t, g, base, cacheable);
	if (!b) {
		steer_log(STEER_LOG_ERROR, "cannot encode a compact snapshot: out of memory");
		return;
	}
	conn_offer_snapshot(c, b, g->frame, base ? base->f.seq : 0);
	sbuf_unref(b);
}

static void offer_to(tick *t, conn *c)
{
	group *g = find_group(t, c);
	if (g) {
		offer(t, c, g, true);
		return;
	}
	/* A new group: kept for the connections after this one while there is room. */
	group alone;
	bool kept = t->ngroups < MAX_GROUPS;
	g = kept ? &t->groups[t->ngroups] : &alone;
	*g = (group){c->view, c->compact, NULL, NULL, NULL, 0};
	if (!prepare(t, g, c)) {
		steer_log(STEER_LOG_ERROR, "cannot encode a snapshot: out of memory");
		release_group(g);
		return;
	}
	if (kept)
		t->ngroups++;
	offer(t, c, g, kept);
	if (!kept)
		release_group(g);
}

void server_fan_out(server *s)
{
	static tick t; /* 8 KiB: off the stack; the loop is single-threaded */
	memset(&t, 0, sizeof t);
	t.s = s;
	steer_interest_invalidate(&s->interest); /* the world has moved since */
	for (conn *c = s->conns; c; c = c->next)
		if (c->kind == CONN_PROTO && !c->closing && c->welcomed && c->may_watch)
			offer_to(&t, c);
	for (size_t k = 0; k < t.ngroups; k++)
		release_group(&t.groups[k]);
	for (size_t k = 0; k < t.nencs; k++)
		sbuf_unref(t.encs[k].bytes);
}
