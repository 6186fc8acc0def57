/* The passes over a round's contacts: the table's islands (rows joined by pairs),
 * each passed over until it settles, over the world's threads.
 *
 * Islands share no row, and what a contact reads besides its rows (the circles, the
 * segments) does not move during the passes: an island's passes give the same bits
 * whichever thread runs them and whatever the other islands do. An island that has
 * settled is passed over no more, so the budget goes to the islands still pressed
 * (a jam), not to the many that a first pass settled. */
#include <math.h>
#include <string.h>

#include "bodies_internal.h"
#include "reserve.h"

/* Each thread takes this many parts of a pass's islands, so that a thread held up
 * by a big island leaves the rest to the others. */
#define PARTS_PER_THREAD 4
#define MAX_PARTS        (STEER_POOL_MAX_THREADS * PARTS_PER_THREAD)

steer_vec2 steer_bodies_tie_direction(const steer_world *w, uint32_t a, uint32_t b)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
	double t = steer_hash_unit(w->cfg.seed, lo << 32 | hi, w->tick) * STEER_TAU;
	steer_vec2 d = v2(cos(t), sin(t));
	return a < b ? d : v2(-d.x, -d.y);
}

static uint64_t contacts_of(const steer_body_islands *is, uint32_t i)
{
	return (uint64_t)(is->circ_at[i + 1] - is->circ_at[i]) +
	       (is->pair_at[i + 1] - is->pair_at[i]) + (is->seg_at[i + 1] - is->seg_at[i]);
}

/* --- resolving them ------------------------------------------------------------------ */

/* Vehicle row i out of a segment, all the way (segments do not move): along the
 * normal to the side it was found on when it is beside the segment, else straight
 * away from the nearer end. True when the overlap was above the settling threshold. */
static bool resolve_segment(const steer_world *w, steer_bodies *b, uint32_t i, uint32_t mark)
{
	size_t nsegs = 0;
	const steer_segment *s = &steer_geom_segments(w, &nsegs)[mark & ~SIDE_BIT];
	double r = b->tr[i];
	steer_vec2 a, e;
	steer_geom_seg_rel(w, s, v2(b->tx[i], b->ty[i]), &a, &e);
	steer_vec2 n = mark & SIDE_BIT ? v2_scale(s->n, -1.0) : s->n;
	steer_vec2 ab = v2_sub(e, a);
	double l2 = v2_len2(ab), u = l2 > 0.0 ? -v2_dot(a, ab) / l2 : 0.0;
	double over;
	if (u > 0.0 && u < 1.0) {
		over = r + v2_dot(a, n); /* r minus the centre's height above the segment */
	} else {
		steer_vec2 q = u <= 0.0 ? a : e;
		double d = sqrt(v2_len2(q));
		over = r - d;
		if (d > 0.0)
			n = v2_scale(q, -1.0 / d);
	}
	if (over <= 0.0)
		return false;
	b->tx[i] += n.x * over;
	b->ty[i] += n.y * over;
	return over > SETTLED_SHARE * TOLERANCE * r;
}

/* A vehicle pushed past a bounce world's edge goes back to it at once, as the edges'
 * rule would after the pass, so that the next passes see where it will be: a body
 * pressed against the edge then slides along it rather than being pushed through,
 * out of sight of the passes. */
static inline void keep_in_bounds(const steer_world *w, double *x, double *y)
{
	if (w->cfg.edges != STEER_EDGE_BOUNCE)
		return;
	*x = fmin(fmax(*x, 0.0), w->cfg.width);
	*y = fmin(fmax(*y, 0.0), w->cfg.height);
}

/* Vehicle row a out of circle c, all the way (the obstacles are driven, not pushed).
 * True when the overlap was above the settling threshold. */
static inline bool resolve_circle(const steer_world *w, steer_bodies *b, bool wrap,
                                  steer_body_pair c)
{
	uint32_t a = c.a;
	const steer_obstacle *o = &w->obs[c.b];
	double r = b->tr[a];
	double dx = steer_bodies_axis_delta(b->tx[a] - o->x, w->cfg.width, wrap);
	double dy = steer_bodies_axis_delta(b->ty[a] - o->y, w->cfg.height, wrap);
	double rs = o->r + r, d2 = dx * dx + dy * dy;
	if (d2 >= rs * rs)
		return false;
	double d = sqrt(d2), over = rs - d;
	steer_vec2 n =
	    d > 0.0 ? v2(dx / d, dy / d) : steer_bodies_tie_direction(w, b->tid[a], o->id);
	b->tx[a] += n.x * over;
	b->ty[a] += n.y * over;
	keep_in_bounds(w, &b->tx[a], &b->ty[a]);
	return over > SETTLED_SHARE * TOLERANCE * fmin(r, o->r);
}

/* Rows p.a and p.b apart along the line between them, the lighter one further. */
static inline bool resolve_pair(const steer_world *w, steer_bodies *b, bool wrap, steer_body_pair p)
{
	uint32_t a = p.a, c = p.b;
	double *x = b->tx, *y = b->ty;
	const double *rad = b->tr, *mass = b->tm;
	double dx = steer_bodies_axis_delta(x[c] - x[a], w->cfg.width, wrap);
	double dy = steer_bodies_axis_delta(y[c] - y[a], w->cfg.height, wrap);
	double rs = rad[a] + rad[c], d2 = dx * dx + dy * dy;
	if (d2 >= rs * rs)
		return false;
	double d = sqrt(d2), over = rs - d;
	steer_vec2 n =
	    d > 0.0 ? v2(dx / d, dy / d) : steer_bodies_tie_direction(w, b->tid[a], b->tid[c]);
	double wa = mass[c] / (mass[a] + mass[c]), wc = mass[a] / (mass[a] + mass[c]);
	x[a] -= n.x * over * wa;
	y[a] -= n.y * over * wa;
	x[c] += n.x * over * wc;
	y[c] += n.y * over * wc;
	keep_in_bounds(w, &x[a], &y[a]);
	keep_in_bounds(w, &x[c], &y[c]);
	return over > SETTLED_SHARE * TOLERANCE * fmin(rad[a], rad[c]);
}

/* One pass over island i's contacts, each resolved in turn: vehicles out of the
 * circles, then apart from each other, then out of the segments. What a pass leaves
 * unresolved is then a circle's overlap, which the circles' giving way can undo,
 * rather than one between vehicles pressed by a circle. True while some overlap is
 * still above the settling threshold. */
static bool resolve_island(const steer_world *w, steer_bodies *b, bool wrap, uint32_t i)
{
	const steer_body_islands *is = &b->islands;
	bool unsettled = false;
	for (uint32_t k = is->circ_at[i]; k < is->circ_at[i + 1]; k++)
		unsettled |= resolve_circle(w, b, wrap, is->circles[k]);
	for (uint32_t k = is->pair_at[i]; k < is->pair_at[i + 1]; k++)
		unsettled |= resolve_pair(w, b, wrap, is->pairs[k]);
	for (uint32_t k = is->seg_at[i]; k < is->seg_at[i + 1]; k++)
		unsettled |= resolve_segment(w, b, is->segs[k].a, is->segs[k].b);
	return unsettled;
}

/* --- big islands, in bands ------------------------------------------------------
 * An island is passed over contact after contact, so one big enough to hold most of
 * a pile would keep the pass on one thread. One of STEER_BAND_MIN contacts or more
 * is cut into bands across y, each at least as tall as its pairs are apart (along y,
 * where the round began), coloured 0, 1, 2, 0, ... Two bands of one colour lie two
 * bands apart, so their contacts share no vehicle: the bands of a colour are passed
 * over at once, the colours in turn, each band's contacts in the island's order
 * (its circles, pairs, then segments). The bands are laid from the island alone, so
 * the pass gives the same bits for any thread count; only its order differs from
 * one contact after another. A wrap world's bands span its height, a multiple of
 * three of them, so that the colours also alternate across the seam. */

#define REF_INDEX_MAX ((1u << STEER_BAND_KIND_SHIFT) - 1)

/* The contacts of a kind (0 circles, 1 pairs, 2 segments), and where each island's
 * begin in them. */
static inline const steer_body_pair *kind_contacts(const steer_body_islands *is, int kind,
                                                   const uint32_t **at)
{
	*at = kind == 0 ? is->circ_at : kind == 1 ? is->pair_at : is->seg_at;
	return kind == 0 ? is->circles : kind == 1 ? is->pairs : is->segs;
}

static inline bool resolve_ref(const steer_world *w, steer_bodies *b, bool wrap, uint32_t ref)
{
	int kind = (int)(ref >> STEER_BAND_KIND_SHIFT);
	const uint32_t *at;
	steer_body_pair c = kind_contacts(&b->islands, kind, &at)[ref & REF_INDEX_MAX];
	if (kind == 0)
		return resolve_circle(w, b, wrap, c);
	if (kind == 1)
		return resolve_pair(w, b, wrap, c);
	return resolve_segment(w, b, c.a, c.b);
}

/* The bands of island i: how tall (*h), where the first begins (*lo: y = 0 in a
 * wrap world, else the island's lowest row) and how many (*count). False when the
 * island is not cut. */
static bool band_layout(const steer_world *w, const steer_bodies *b, bool wrap, uint32_t i,
                        double *h, double *lo, int64_t *count)
{
	const steer_body_islands *is = &b->islands;
	double H = w->cfg.height, apart = 0.0, ymin = INFINITY, ymax = -INFINITY;
	size_t n = (size_t)contacts_of(is, i);
	for (uint32_t k = is->pair_at[i]; k < is->pair_at[i + 1]; k++) {
		steer_body_pair p = is->pairs[k];
		double dy = fabs(steer_bodies_axis_delta(b->try_[p.b] - b->try_[p.a], H, wrap));
		apart = dy > apart ? dy : apart;
	}
	/* Strictly taller than any pair is apart, with room for rounding. */
	double least = apart * (1.0 + 1e-9) + 1e-9;
	if (wrap) {
		double most = 4.0 * (double)n + 1024.0; /* bands to count, at most */
		double k = fmin(floor(H / least), most);
		int64_t kk = (int64_t)k - (int64_t)k % 3;
		if (!(k >= 3.0) || kk < 3)
			return false;
		*h = H / (double)kk;
		*lo = 0.0;
		*count = kk;
		return *h > apart;
	}
	for (int kind = 0; kind < 3; kind++) {
		const uint32_t *at;
		const steer_body_pair *c = kind_contacts(is, kind, &at);
		for (uint32_t k = at[i]; k < at[i + 1]; k++) {
			double y = b->try_[c[k].a];
			ymin = y < ymin ? y : ymin;
			ymax = y > ymax ? y : ymax;
		}
	}
	double span = ymax - ymin;
	*h = fmax(least, span / (double)n);
	if (!isfinite(span) || !(*h > apart) || !isfinite(*h))
		return false;
	*lo = ymin;
	*count = (int64_t)floor(span / *h) + 1; /* at most n + 1: h >= span / n */
	return *count >= 3;
}

/* The band of a row at y (in a wrap world of height H, else H is 0). */
static inline int64_t band_at(double y, double H, double lo, double h, int64_t count)
{
	if (H > 0.0)
		y -= H * floor(y / H);
	double t = floor((y - lo) / h);
	int64_t s = t < 0.0 ? 0 : t >= (double)count ? count - 1 : (int64_t)t;
	return s;
}

/* Lays island i's contacts into bands, after those laid already: true when it was
 * cut (STEER_ERR_NOMEM in *st when memory ran out). */
static bool band_island(const steer_world *w, steer_bodies *b, bool wrap, uint32_t i,
                        steer_status *st)
{
	steer_body_islands *is = &b->islands;
	double h, lo, H = wrap ? w->cfg.height : 0.0;
	int64_t count;
	if (!band_layout(w, b, wrap, i, &h, &lo, &count))
		return false;
	size_t n = (size_t)contacts_of(is, i), keys = 3 * (size_t)count;
	size_t refs = is->banded_count ? is->band_run[is->banded[is->banded_count - 1].run[3]] : 0;
	size_t runs = is->banded_count ? is->banded[is->banded_count - 1].run[3] : 0;
	if (steer_reserve((void **)&is->band_key, &is->band_key_cap, n, sizeof *is->band_key) !=
	        STEER_OK ||
	    steer_reserve((void **)&is->band_count, &is->band_count_cap, keys + 1,
	                  sizeof *is->band_count) != STEER_OK ||
	    steer_reserve((void **)&is->band_ref, &is->band_ref_cap, refs + n,
	                  sizeof *is->band_ref) != STEER_OK ||
	    steer_reserve((void **)&is->band_run, &is->band_run_cap, runs + keys + 1,
	                  sizeof *is->band_run) != STEER_OK ||
	    steer_reserve((void **)&is->banded, &is->banded_cap, is->banded_count + 1,
	                  sizeof *is->banded) != STEER_OK) {
		*st = STEER_ERR_NOMEM;
		return false;
	}
	/* The key of each contact, (colour, band), in the island's order. */
	memset(is->band_count, 0, (keys + 1) * sizeof *is->band_count);
	size_t m = 0;
	for (int kind = 0; kind < 3; kind++) {
		const uint32_t *at;
		const steer_body_pair *c = kind_contacts(is, kind, &at);
		for (uint32_t k = at[i]; k < at[i + 1]; k++, m++) {
			int64_t s = band_at(b->try_[c[k].a], H, lo, h, count);
			uint32_t key = (uint32_t)(s % 3 * count + s);
			is->band_key[m] = key;
			is->band_count[key + 1]++;
		}
	}
	/* Stable counting sort: each band's contacts keep the island's order. */
	steer_body_banded *d = &is->banded[is->banded_count];
	d->island = i;
	d->unsettled = true;
	uint32_t run = (uint32_t)runs;
	for (size_t key = 0; key < keys; key++) {
		if (key % (size_t)count == 0)
			d->run[key / (size_t)count] = run;
		uint32_t c = is->band_count[key + 1];
		is->band_count[key + 1] = is->band_count[key] + c;
		if (c)
			is->band_run[run++] = (uint32_t)(refs + is->band_count[key]);
	}
	d->run[3] = run;
	is->band_run[run] = (uint32_t)(refs + n);
	m = 0;
	for (int kind = 0; kind < 3; kind++) {
		const uint32_t *at;
		(void)kind_contacts(is, kind, &at);
		for (uint32_t k = at[i]; k < at[i + 1]; k++, m++)
			is->band_ref[refs + is->band_count[is->band_key[m]]++] =
			    (uint32_t)kind << STEER_BAND_KIND_SHIFT | k;
	}
	is->band_of[i] = (uint32_t)is->banded_count++;
	return true;
}

/* The round's big islands into bands; the others stay as they are. */
static steer_status band_islands(const steer_world *w, steer_bodies *b, bool wrap)
{
	steer_body_islands *is = &b->islands;
	is->banded_count = 0;
	if (steer_reserve((void **)&is->band_of, &is->band_of_cap, is->count + 1,
	                  sizeof *is->band_of) != STEER_OK)
		return STEER_ERR_NOMEM;
	bool indexable = b->circles.count <= REF_INDEX_MAX && b->pairs.count <= REF_INDEX_MAX &&
	                 b->segs.count <= REF_INDEX_MAX;
	steer_status st = STEER_OK;
	for (size_t i = 0; i < is->count; i++) {
		is->band_of[i] = STEER_NO_BAND;
		if (indexable && st == STEER_OK && contacts_of(is, (uint32_t)i) >= STEER_BAND_MIN)
			(void)band_island(w, b, wrap, (uint32_t)i, &st);
	}
	return st;
}

/* One pass over a banded island's runs of one colour, split into parts. */
typedef struct band_job {
	const steer_world *w;
	steer_bodies *b;
	bool wrap;
	uint32_t first, runs; /* the colour's runs in band_run */
	int parts;
	bool unsettled[MAX_PARTS];
} band_job;

static void band_part(void *arg, int part)
{
	band_job *j = arg;
	const steer_body_islands *is = &j->b->islands;
	uint32_t from = j->first + (uint32_t)steer_part_from(j->runs, part, j->parts);
	uint32_t to = j->first + (uint32_t)steer_part_from(j->runs, part + 1, j->parts);
	bool unsettled = false;
	for (uint32_t k = is->band_run[from]; k < is->band_run[to]; k++)
		unsettled |= resolve_ref(j->w, j->b, j->wrap, is->band_ref[k]);
	j->unsettled[part] = unsettled;
}

/* One pass over banded island d: its colours in turn, each colour's bands at once. */
static void pass_bands(const steer_world *w, steer_bodies *b, bool wrap, steer_body_banded *d)
{
	band_job j;
	j.w = w;
	j.b = b;
	j.wrap = wrap;
	bool unsettled = false;
	int threads = steer_pool_threads(w->pool);
	for (int c = 0; c < 3; c++) {
		j.first = d->run[c];
		j.runs = d->run[c + 1] - d->run[c];
		size_t most = (size_t)threads * PARTS_PER_THREAD;
		j.parts = threads < 2 || j.runs < 2 ? 1 : (int)(j.runs < most ? j.runs : most);
		if (j.runs == 0)
			continue;
		steer_pool_run(w->pool, band_part, &j, j.parts);
		for (int p = 0; p < j.parts; p++)
			unsettled |= j.unsettled[p];
	}
	d->unsettled = unsettled;
}

/* One pass over the open islands, split into parts: each part keeps those of its
 * islands still unsettled in kept, from its first island's place on, and counts
 * their contacts. */
typedef struct pass_job {
	const steer_world *w;
	steer_bodies *b;
	bool wrap;
	int parts;
	uint32_t kept[MAX_PARTS];
	uint64_t left[MAX_PARTS];
} pass_job;

static void pass_part(void *arg, int part)
{
	pass_job *j = arg;
	steer_body_islands *is = &j->b->islands;
	size_t from = steer_part_from(is->open_count, part, j->parts);
	size_t to = steer_part_from(is->open_count, part + 1, j->parts);
	uint32_t kept = 0;
	uint64_t left = 0;
	for (size_t k = from; k < to; k++) {
		uint32_t i = is->open[k];
		uint32_t band = is->band_of[i];
		if (band != STEER_NO_BAND ? is->banded[band].unsettled
		                          : resolve_island(j->w, j->b, j->wrap, i)) {
			is->kept[from + kept++] = i;
			left += contacts_of(is, i);
		}
	}
	j->kept[part] = kept;
	j->left[part] = left;
}

/* A pass over the open islands; those still unsettled stay open, in order. Returns
 * their contacts, the next pass's work. */
static uint64_t pass_over(const steer_world *w, steer_bodies *b, bool wrap, uint64_t work)
{
	steer_body_islands *is = &b->islands;
	pass_job j;
	j.w = w;
	j.b = b;
	j.wrap = wrap;
	j.parts = steer_world_parts(w, (size_t)work);
	if (j.parts > 1) {
		size_t most = (size_t)j.parts * PARTS_PER_THREAD;
		j.parts = (int)(is->open_count < most ? is->open_count : most);
	}
	if (j.parts < 1)
		return 0;
	/* The big islands first, each over the threads, then the rest. */
	for (size_t k = 0; k < is->open_count; k++) {
		uint32_t band = is->band_of[is->open[k]];
		if (band != STEER_NO_BAND)
			pass_bands(w, b, wrap, &is->banded[band]);
	}
	steer_pool_run(w->pool, pass_part, &j, j.parts);
	size_t open = 0;
	uint64_t left = 0;
	for (int p = 0; p < j.parts; p++) {
		size_t from = steer_part_from(is->open_count, p, j.parts);
		memmove(is->open + open, is->kept + from, j.kept[p] * sizeof *is->open);
		open += j.kept[p];
		left += j.left[p];
	}
	is->open_count = open;
	return left;
}

steer_status steer_bodies_settle(const steer_world *w, steer_bodies *b, bool wrap,
                                 const steer_bodies_share *sh, steer_status st)
{
	/* This part's contacts still open, and (contacts) the whole world's. */
	uint64_t mine = b->pairs.count + b->circles.count + b->segs.count;
	uint64_t contacts[1] = {mine};
	if (st == STEER_OK)
		st = steer_bodies_open_islands(w, b);
	if (st == STEER_OK)
		st = band_islands(w, b, wrap);
	if (sh)
		st = sh->reduce(sh->ud, st, contacts, 1, NULL, 0);
	for (int pass = 0; st == STEER_OK && pass < MAX_PASSES && contacts[0] > 0; pass++) {
		if (b->passes > 0 && b->work + contacts[0] > b->budget) {
			b->over_budget = true;
			break;
		}
		b->work += contacts[0];
		b->passes++;
		mine = pass_over(w, b, wrap, mine);
		contacts[0] = mine;
		if (sh)
			st = sh->reduce(sh->ud, st, contacts, 1, NULL, 0);
	}
	return st;
}
