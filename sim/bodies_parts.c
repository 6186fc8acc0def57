/* The solid pass over parts of one world (cluster/'s regions): each part finds the
 * contacts of its own vehicles as one world would, resolves the islands wholly its
 * own, and part 0 those that cross between parts, merged into one world's order, so
 * that the bits are one world's (steer_bodies_share, sim/share.h). The messages
 * between parts are plain bytes of this build. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bodies_internal.h"
#include "reserve.h"
#include "steer/bytes.h"

/* Messages between parts are plain bytes of this build (steer/bytes.h). A message
 * read short reads zeros from there on and says so once, at the end. */
static void put_f64(steer_blob *m, double v)
{
	steer_blob_put(m, &v, sizeof v);
}

typedef struct msg_in {
	steer_reader r;
	bool short_read;
} msg_in;

/* The message of part p, from (all, at) as gathered. */
static msg_in msg_of(const uint8_t *all, const size_t *at, int p)
{
	return (msg_in){{all + at[p], at[p + 1] - at[p], 0}, false};
}

static void get(msg_in *m, void *p, size_t n)
{
	if (!steer_read_bytes(&m->r, p, n)) {
		m->short_read = true;
		memset(p, 0, n);
	}
}

static void skip(msg_in *m, size_t n)
{
	if (m->r.len - m->r.pos < n)
		m->short_read = true;
	else
		m->r.pos += n;
}

static uint32_t get_u32(msg_in *m)
{
	uint32_t v;
	get(m, &v, sizeof v);
	return v;
}

static double get_f64(msg_in *m)
{
	double v;
	get(m, &v, sizeof v);
	return v;
}

bool steer_bodies_own(const steer_bodies_share *sh, const steer_world *w, size_t i)
{
	(void)sh;
	return !steer_bodies_is_copy(w, i);
}

/* Which slots hold this part's own vehicles, from where they were when the tick
 * began (every slot's start is noted over parts). */
static steer_status note_owned(steer_world *w, const steer_bodies_share *sh)
{
	steer_bodies *b = &w->bodies;
	size_t n = w->v.count;
	b->owned_count = 0;
	if (n > 0 && !b->starts_noted)
		return STEER_ERR_INVALID; /* steer_bodies_note_starts did not run */
	if (steer_reserve((void **)&b->owned, &b->owned_cap, n + 1, 1) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		b->owned[i] = sh->own(sh->ud, b->px0[i], b->py0[i]);
	b->owned_count = n;
	return STEER_OK;
}

/* The positions of the copies refresh named, where their owners have them. */
static void place_copies(steer_world *w, const uint32_t *ids, const double *xy, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		long i = steer_vehicle_index(w, ids[k]);
		if (i >= 0 && !steer_bodies_own(NULL, w, (size_t)i)) {
			w->v.px[i] = xy[2 * k];
			w->v.py[i] = xy[2 * k + 1];
		}
	}
}

/* Room in mark for every slot, copies added since the tick began included. */
static steer_status grow_marks(steer_world *w, steer_bodies *b)
{
	size_t n = w->v.count, old = b->mark_cap, cap;
	if (n <= old)
		return STEER_OK;
	if (steer_grow_cap(old, n, sizeof *b->mark, &cap) != STEER_OK ||
	    steer_resize((void **)&b->mark, cap, sizeof *b->mark) != STEER_OK ||
	    steer_resize((void **)&b->mark_at, cap, sizeof *b->mark_at) != STEER_OK)
		return STEER_ERR_NOMEM;
	memset(b->mark + old, 0, (cap - old) * sizeof *b->mark); /* gen is never 0 */
	b->mark_cap = cap;
	return STEER_OK;
}

/* This part's own vehicles: how many; how many are not in the flock's grid; the
 * largest squared speed and distance gone since the tick began. */
typedef struct own_facts {
	uint64_t count, outside;
	double speed2, gone2;
} own_facts;

static own_facts own_of(const steer_world *w, const steer_bodies_share *sh)
{
	const steer_vehicles *v = &w->v;
	const steer_bodies *b = &w->bodies;
	const steer_grid *fg = &w->grid;
	own_facts f = {0, 0, 0.0, 0.0};
	bool wrap = w->cfg.edges == STEER_EDGE_WRAP;
	for (size_t i = 0; i < v->count; i++) {
		if (!steer_bodies_own(sh, w, i))
			continue;
		f.count++;
		double s = v->vx[i] * v->vx[i] + v->vy[i] * v->vy[i];
		f.speed2 = s > f.speed2 ? s : f.speed2;
		{
			double dx =
			    steer_bodies_axis_delta(v->px[i] - b->px0[i], w->cfg.width, wrap);
			double dy =
			    steer_bodies_axis_delta(v->py[i] - b->py0[i], w->cfg.height, wrap);
			f.gone2 = fmax(f.gone2, dx * dx + dy * dy);
		}
	}
	uint64_t in = 0;
	for (size_t m = 0; m < fg->count; m++)
		in += steer_bodies_own(sh, w, fg->items[m]);
	f.outside = f.count - in;
	return f;
}

typedef struct cell_count {
	uint32_t cell, count;
} cell_count;

static int by_cell(const void *a, const void *b)
{
	const cell_count *x = a, *y = b;
	return (x->cell > y->cell) - (x->cell < y->cell);
}

/* Collective: the flock grid's crowding (see crowding) over the whole world. A cell
 * inside this part's region holds its own vehicles alone; the others' counts are
 * added up over the parts first. Whole numbers: the same sum in any order. */
static steer_status shared_crowd(steer_world *w, const steer_bodies_share *sh, double *crowd)
{
	const steer_grid *g = &w->grid;
	cell_count *list = NULL;
	size_t n = 0, cap = 0;
	uint64_t inner = 0;
	steer_status st = STEER_OK;
	/* Rounding may file a vehicle a hair outside its cell's box. */
	double slack = 1e-9 * fmax(w->cfg.width, w->cfg.height);
	for (size_t ly = 0; ly < (size_t)g->wy && st == STEER_OK; ly++)
		for (size_t lx = 0; lx < (size_t)g->wx && st == STEER_OK; lx++) {
			size_t c = ly * (size_t)g->wx + lx; /* the local cell */
			int cx = (int)g->col_x[lx], cy = (int)g->row_y[ly];
			uint64_t o = 0;
			for (uint32_t m = g->start[c]; m < g->start[c + 1]; m++)
				o += steer_bodies_own(sh, w, g->items[m]);
			if (o == 0)
				continue;
			/* Edge cells hold whatever lies beyond the grid too. */
			bool edge = cx == 0 || cy == 0 || cx == g->nx - 1 || cy == g->ny - 1;
			double x0 = cx * g->cw, y0 = cy * g->ch;
			if (!edge && sh->inside(sh->ud, x0 - slack, y0 - slack, x0 + g->cw + slack,
			                        y0 + g->ch + slack)) {
				inner += o * o;
				continue;
			}
			if (steer_reserve((void **)&list, &cap, n + 1, sizeof *list) != STEER_OK)
				st = STEER_ERR_NOMEM;
			else
				list[n++] = (cell_count){(uint32_t)steer_grid_global_cell(g, c),
				                         (uint32_t)o};
		}
	uint8_t *all = NULL;
	size_t len = 0;
	st = sh->allgather(sh->ud, st, list, n * sizeof *list, &all, &len);
	free(list);
	uint64_t sums[1] = {inner};
	st = sh->reduce(sh->ud, st, sums, 1, NULL, 0);
	if (st != STEER_OK) {
		free(all);
		return st;
	}
	size_t total = len / sizeof(cell_count);
	cell_count *at = (cell_count *)(void *)all;
	if (total)
		qsort(at, total, sizeof *at, by_cell);
	uint64_t sum = sums[0];
	for (size_t k = 0; k < total;) {
		uint64_t c = 0;
		size_t e = k;
		for (; e < total && at[e].cell == at[k].cell; e++)
			c += at[e].count;
		sum += c * c;
		k = e;
	}
	free(all);
	*crowd = (double)sum;
	return STEER_OK;
}

/* Which of this part's own vehicles in contact it resolves itself: those in an
 * island (vehicles joined by the round's pairs) that holds no copy. Every vehicle
 * within contact reach of an own one is here (the copies reach that far), so such
 * an island is whole, and no other part's contact names its vehicles. The rest go to
 * part 0. Fills lrow, local and the local contacts (see steer_bodies). */
static steer_status split_islands(const steer_world *w, steer_bodies *b,
                                  const steer_bodies_share *sh)
{
	size_t n = b->inv_count;
	if (steer_reserve((void **)&b->island, &b->island_cap, n + 1, sizeof *b->island) !=
	        STEER_OK ||
	    steer_reserve((void **)&b->lrow, &b->lrow_cap, n + 1, sizeof *b->lrow) != STEER_OK ||
	    steer_reserve((void **)&b->local, &b->local_cap, n + 1, sizeof *b->local) != STEER_OK ||
	    steer_reserve((void **)&b->border, &b->border_cap, n + 1, 1) != STEER_OK)
		return STEER_ERR_NOMEM;
	uint32_t *up = b->island;
	for (size_t k = 0; k < n; k++) {
		up[k] = (uint32_t)k;
		b->border[k] = 0;
	}
	for (size_t k = 0; k < b->pairs.count; k++)
		steer_bodies_island_join(up, b->mark_at[b->pairs.at[k].a],
		                         b->mark_at[b->pairs.at[k].b]);
	for (size_t k = 0; k < n; k++)
		if (!steer_bodies_own(sh, w, b->inv[k]))
			b->border[steer_bodies_island_first(up, (uint32_t)k)] = 1;
	b->local_count = 0;
	for (size_t k = 0; k < n; k++) {
		bool here = steer_bodies_own(sh, w, b->inv[k]) &&
		            !b->border[steer_bodies_island_first(up, (uint32_t)k)];
		b->lrow[k] = here ? (uint32_t)b->local_count : UINT32_MAX;
		if (here)
			b->local[b->local_count++] = b->inv[k];
	}
	steer_body_buf *lists[] = {&b->lpairs, &b->lcircles, &b->lsegs};
	for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
		lists[k]->count = 0;
		lists[k]->st = STEER_OK;
	}
	/* A pair led by a local vehicle joins two of the same island. */
	for (size_t k = 0; k < b->pairs.count; k++) {
		uint32_t ra = b->lrow[b->mark_at[b->pairs.at[k].a]];
		if (ra != UINT32_MAX)
			steer_bodies_buf_push(&b->lpairs, ra,
			                      b->lrow[b->mark_at[b->pairs.at[k].b]]);
	}
	if (steer_reserve((void **)&b->lcspan, &b->lcspan_cap, b->circles.count + 1,
	                  sizeof *b->lcspan) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (size_t k = 0; k < b->circles.count; k++) {
		uint32_t r = b->lrow[b->mark_at[b->circles.at[k].a]];
		if (r == UINT32_MAX)
			continue;
		b->lcspan[b->lcircles.count] = b->cspan[k];
		steer_bodies_buf_push(&b->lcircles, r, b->circles.at[k].b);
	}
	for (size_t k = 0; k < b->segs.count; k++) {
		uint32_t r = b->lrow[b->mark_at[b->segs.at[k].a]];
		if (r != UINT32_MAX)
			steer_bodies_buf_push(&b->lsegs, r, b->segs.at[k].b);
	}
	for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
		if (lists[k]->st != STEER_OK)
			return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* Whether vehicle slot i goes to part 0 this round: an own one outside the local
 * islands. */
static inline bool to_part0(const steer_world *w, const steer_bodies *b,
                            const steer_bodies_share *sh, uint32_t i)
{
	return steer_bodies_own(sh, w, i) && b->lrow[b->mark_at[i]] == UINT32_MAX;
}

/* The local islands' rows and contacts after what the table holds (part 0's merged
 * rows, or nothing): the whole table this part passes over. */
static steer_status append_local(const steer_world *w, steer_bodies *b)
{
	size_t base = b->t_count;
	if (base + b->local_count >= UINT32_MAX ||
	    steer_bodies_table_reserve(b, base + b->local_count) != STEER_OK ||
	    steer_reserve((void **)&b->cspan, &b->cspan_cap,
	                  b->circles.count + b->lcircles.count + 1, sizeof *b->cspan) != STEER_OK)
		return STEER_ERR_NOMEM;
	for (size_t k = 0; k < b->local_count; k++)
		steer_bodies_table_row(w, b, base + k, b->local[k]);
	b->t_count = base + b->local_count;
	uint32_t o = (uint32_t)base;
	for (size_t k = 0; k < b->lpairs.count; k++)
		steer_bodies_buf_push(&b->pairs, b->lpairs.at[k].a + o, b->lpairs.at[k].b + o);
	for (size_t k = 0; k < b->lcircles.count; k++) {
		b->cspan[b->circles.count] = b->lcspan[k];
		steer_bodies_buf_push(&b->circles, b->lcircles.at[k].a + o, b->lcircles.at[k].b);
	}
	for (size_t k = 0; k < b->lsegs.count; k++)
		steer_bodies_buf_push(&b->segs, b->lsegs.at[k].a + o, b->lsegs.at[k].b);
	if (b->pairs.st != STEER_OK || b->circles.st != STEER_OK || b->segs.st != STEER_OK)
		return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* This part's share of the round, for part 0: its own vehicles in contact outside
 * the local islands (id, position, radius, mass), then the contacts they lead in the
 * grid's order: pairs (the first one's cell, both ids), circle contacts (circle,
 * place in its search, id) and segment contacts (id, mark). The slots sent go to
 * b->sent. */
static steer_status encode_round(const scan_job *j, const steer_bodies_share *sh, steer_blob *m)
{
	steer_world *w = j->w;
	steer_bodies *b = j->b;
	const steer_vehicles *v = &w->v;
	if (steer_reserve((void **)&b->sent, &b->sent_cap, b->inv_count + 1, sizeof *b->sent) !=
	    STEER_OK)
		return STEER_ERR_NOMEM;
	b->sent_count = 0;
	for (size_t k = 0; k < b->inv_count; k++)
		if (to_part0(w, b, sh, b->inv[k]))
			b->sent[b->sent_count++] = b->inv[k];
	uint32_t pairs = 0, circles = 0, segs = 0;
	for (size_t k = 0; k < b->pairs.count; k++)
		pairs += to_part0(w, b, sh, b->pairs.at[k].a);
	for (size_t k = 0; k < b->circles.count; k++)
		circles += to_part0(w, b, sh, b->circles.at[k].a);
	for (size_t k = 0; k < b->segs.count; k++)
		segs += to_part0(w, b, sh, b->segs.at[k].a);
	steer_blob_put_u32(m, (uint32_t)b->sent_count);
	steer_blob_put_u32(m, pairs);
	steer_blob_put_u32(m, circles);
	steer_blob_put_u32(m, segs);
	for (size_t k = 0; k < b->sent_count; k++) {
		uint32_t i = b->sent[k];
		const steer_params *p = steer_bodies_params_of(w, i);
		steer_blob_put_u32(m, v->id[i]);
		put_f64(m, v->px[i]);
		put_f64(m, v->py[i]);
		put_f64(m, p->radius);
		put_f64(m, p->mass);
	}
	/* Each pair's first vehicle's cell: the pairs come in the grid's order, so one
	 * walk along its members finds them all. */
	const steer_grid *g = j->pg;
	size_t at = 0, c = 0;
	for (size_t k = 0; k < b->pairs.count; k++) {
		uint32_t a = b->pairs.at[k].a;
		while (at < g->count && g->items[at] != a)
			at++;
		if (at == g->count)
			return STEER_ERR_INVALID; /* not in the grid's order: a bug */
		while (g->start[c + 1] <= at)
			c++;
		if (!to_part0(w, b, sh, a))
			continue;
		steer_blob_put_u32(m, (uint32_t)steer_grid_global_cell(g, c));
		steer_blob_put_u32(m, v->id[a]);
		steer_blob_put_u32(m, v->id[b->pairs.at[k].b]);
	}
	for (size_t k = 0; k < b->circles.count; k++) {
		uint32_t i = b->circles.at[k].a;
		if (!to_part0(w, b, sh, i))
			continue;
		steer_blob_put_u32(m, b->circles.at[k].b);
		steer_blob_put_u32(m, b->cspan[k]);
		steer_blob_put_u32(m, v->id[i]);
	}
	for (size_t k = 0; k < b->segs.count; k++) {
		uint32_t i = b->segs.at[k].a;
		if (!to_part0(w, b, sh, i))
			continue;
		steer_blob_put_u32(m, v->id[i]);
		steer_blob_put_u32(m, b->segs.at[k].b);
	}
	return steer_blob_status(m);
}

typedef struct id_row {
	uint32_t id, row;
} id_row;

static int by_id(const void *a, const void *b)
{
	const id_row *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

typedef struct pair_key {
	uint32_t cell, id; /* the first vehicle's */
	uint64_t seq;      /* its part's order among its pairs */
	uint32_t a, b;     /* rows */
} pair_key;

static int by_pair_key(const void *a, const void *b)
{
	const pair_key *x = a, *y = b;
	if (x->cell != y->cell)
		return (x->cell > y->cell) - (x->cell < y->cell);
	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct circle_key {
	uint32_t obstacle, span, id, row;
} circle_key;

static int by_circle_key(const void *a, const void *b)
{
	const circle_key *x = a, *y = b;
	if (x->obstacle != y->obstacle)
		return (x->obstacle > y->obstacle) - (x->obstacle < y->obstacle);
	if (x->span != y->span)
		return (x->span > y->span) - (x->span < y->span);
	return (x->id > y->id) - (x->id < y->id);
}

/* The row of vehicle id, or UINT32_MAX. */
static uint32_t row_of(const id_row *index, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (index[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && index[lo].id == id ? index[lo].row : UINT32_MAX;
}

/* The table's row r: another part's vehicle as a message names it (id, position,
 * radius, mass). */
static void get_row(msg_in *m, steer_bodies *b, size_t r)
{
	b->tid[r] = get_u32(m);
	b->tx[r] = b->trx[r] = get_f64(m);
	b->ty[r] = b->try_[r] = get_f64(m);
	b->tr[r] = get_f64(m);
	b->tm[r] = get_f64(m);
	b->tslot[r] = STEER_BODY_ELSEWHERE;
}

/* Part 0: every part's share of the round (all, part p's at at[p]) as the table and
 * the contact lists, in one world's order. INVALID when the shares disagree (a
 * contact naming a vehicle no part sent, or a vehicle sent twice). */
static steer_status build_table(steer_world *w, steer_bodies *b, const uint8_t *all,
                                const size_t *at, int parts)
{
	size_t rows = 0, npairs = 0, ncircles = 0;
	for (int p = 0; p < parts; p++) {
		msg_in m = msg_of(all, at, p);
		rows += get_u32(&m);
		npairs += get_u32(&m);
		ncircles += get_u32(&m);
		(void)get_u32(&m); /* the segment contacts: pushed as they come */
		if (m.short_read)
			return STEER_ERR_INVALID;
	}
	if (rows >= UINT32_MAX || steer_bodies_table_reserve(b, rows) != STEER_OK ||
	    steer_reserve((void **)&b->row_at, &b->row_at_cap, (size_t)parts + 1,
	                  sizeof *b->row_at) != STEER_OK)
		return STEER_ERR_NOMEM;
	id_row *index = malloc((rows ? rows : 1) * sizeof *index);
	pair_key *pk = malloc((npairs ? npairs : 1) * sizeof *pk);
	circle_key *ck = malloc((ncircles ? ncircles : 1) * sizeof *ck);
	steer_status st = index && pk && ck ? STEER_OK : STEER_ERR_NOMEM;
	b->pairs.count = b->circles.count = b->segs.count = 0;
	b->pairs.st = b->circles.st = b->segs.st = STEER_OK;
	size_t r = 0;
	/* The rows first (every contact may name any part's), then the contacts. */
	for (int p = 0; p < parts && st == STEER_OK; p++) {
		msg_in m = msg_of(all, at, p);
		uint32_t n = get_u32(&m);
		skip(&m, 3 * sizeof(uint32_t));
		b->row_at[p] = r;
		for (uint32_t k = 0; k < n; k++, r++) {
			get_row(&m, b, r);
			index[r] = (id_row){b->tid[r], (uint32_t)r};
		}
		if (m.short_read)
			st = STEER_ERR_INVALID;
	}
	b->row_at[parts] = r;
	b->t_count = r;
	if (st == STEER_OK && rows)
		qsort(index, rows, sizeof *index, by_id);
	for (size_t k = 1; st == STEER_OK && k < rows; k++)
		if (index[k].id == index[k - 1].id)
			st = STEER_ERR_INVALID;
	size_t np = 0, nc = 0;
	for (int p = 0; p < parts && st == STEER_OK; p++) {
		msg_in m = msg_of(all, at, p);
		uint32_t n = get_u32(&m), pairs = get_u32(&m), circles = get_u32(&m),
		         segs = get_u32(&m);
		skip(&m, (size_t)n * (sizeof(uint32_t) + 4 * sizeof(double)));
		for (uint32_t k = 0; k < pairs && st == STEER_OK; k++, np++) {
			uint32_t cell = get_u32(&m), ia = get_u32(&m), ib = get_u32(&m);
			pk[np] = (pair_key){cell, ia, np, row_of(index, rows, ia),
			                    row_of(index, rows, ib)};
			if (pk[np].a == UINT32_MAX || pk[np].b == UINT32_MAX)
				st = STEER_ERR_INVALID;
		}
		for (uint32_t k = 0; k < circles && st == STEER_OK; k++, nc++) {
			uint32_t o = get_u32(&m), span = get_u32(&m), id = get_u32(&m);
			ck[nc] = (circle_key){o, span, id, row_of(index, rows, id)};
			if (ck[nc].row == UINT32_MAX || o >= w->obs_count)
				st = STEER_ERR_INVALID;
		}
		for (uint32_t k = 0; k < segs && st == STEER_OK; k++) {
			uint32_t id = get_u32(&m), mark = get_u32(&m),
			         row = row_of(index, rows, id);
			if (row == UINT32_MAX)
				st = STEER_ERR_INVALID;
			steer_bodies_buf_push(&b->segs, row, mark);
		}
		if (m.short_read)
			st = STEER_ERR_INVALID;
	}
	if (st == STEER_OK && np)
		qsort(pk, np, sizeof *pk, by_pair_key);
	if (st == STEER_OK && nc)
		qsort(ck, nc, sizeof *ck, by_circle_key);
	for (size_t k = 0; st == STEER_OK && k < np; k++)
		steer_bodies_buf_push(&b->pairs, pk[k].a, pk[k].b);
	if (st == STEER_OK &&
	    steer_reserve((void **)&b->cspan, &b->cspan_cap, nc + 1, sizeof *b->cspan) != STEER_OK)
		st = STEER_ERR_NOMEM;
	for (size_t k = 0; st == STEER_OK && k < nc; k++) {
		b->cspan[k] = ck[k].span;
		steer_bodies_buf_push(&b->circles, ck[k].row, ck[k].obstacle);
	}
	if (st == STEER_OK &&
	    (b->pairs.st != STEER_OK || b->circles.st != STEER_OK || b->segs.st != STEER_OK))
		st = STEER_ERR_NOMEM;
	free(index);
	free(pk);
	free(ck);
	if (st != STEER_OK)
		b->t_count = 0;
	return st;
}

/* Part 0's answer to each part: the flags, then the positions of the rows it sent,
 * in its order. After the circles gave way (circles): every circle's state before
 * them, and the positions of the part's local rows after them. */
static steer_status encode_answers(const steer_world *w, const steer_bodies *b, int parts,
                                   uint8_t flags, bool circles, steer_blob *m, size_t *to)
{
	for (int p = 0; p < parts; p++) {
		to[p] = m->len;
		steer_blob_put(m, &flags, 1);
		for (size_t k = 0; circles && k < w->obs_count; k++) {
			put_f64(m, w->obs[k].x);
			put_f64(m, w->obs[k].y);
			put_f64(m, w->obs[k].vx);
			put_f64(m, w->obs[k].vy);
		}
		for (size_t r = b->row_at[p]; r < b->row_at[p + 1]; r++) {
			put_f64(m, b->tx[r]);
			put_f64(m, b->ty[r]);
		}
		for (size_t r = circles ? b->lrow_at[p] : 0; circles && r < b->lrow_at[p + 1];
		     r++) {
			put_f64(m, b->tx[r]);
			put_f64(m, b->ty[r]);
		}
	}
	to[parts] = m->len;
	return steer_blob_status(m);
}

#define ANSWER_MOVED 1u

/* Applies part 0's answer (see encode_answers): the positions of the rows this part
 * sent; the circles' states and the local rows' positions after a give-way, when
 * the answer says the circles moved. */
static steer_status apply_answer(steer_world *w, const uint8_t *buf, size_t len, bool circles,
                                 uint8_t *flags)
{
	steer_bodies *b = &w->bodies;
	msg_in m = {{buf, len, 0}, false};
	*flags = 0;
	get(&m, flags, 1);
	bool moved = circles && (*flags & ANSWER_MOVED);
	for (size_t k = 0; circles && k < w->obs_count; k++) {
		double x = get_f64(&m), y = get_f64(&m), vx = get_f64(&m), vy = get_f64(&m);
		if (moved) {
			w->obs[k].x = x;
			w->obs[k].y = y;
			w->obs[k].vx = vx;
			w->obs[k].vy = vy;
		}
	}
	for (size_t k = 0; k < b->sent_count; k++) {
		double x = get_f64(&m), y = get_f64(&m);
		w->v.px[b->sent[k]] = x;
		w->v.py[b->sent[k]] = y;
	}
	for (size_t k = 0; circles && k < b->local_count; k++) {
		double x = get_f64(&m), y = get_f64(&m);
		w->v.px[b->local[k]] = x;
		w->v.py[b->local[k]] = y;
	}
	return m.short_read || !steer_read_done(&m.r) ? STEER_ERR_INVALID : STEER_OK;
}

/* Collective: part 0's answers (see encode_answers, with flags) scattered, and each
 * part's applied; *got: the flags. */
static steer_status answer_parts(steer_world *w, const steer_bodies_share *sh, steer_status st,
                                 uint8_t flags, bool circles, uint8_t *got)
{
	steer_blob out = {0};
	size_t *to = NULL;
	if (sh->part == 0 && st == STEER_OK) {
		to = malloc(((size_t)sh->parts + 1) * sizeof *to);
		st = to ? encode_answers(w, &w->bodies, sh->parts, flags, circles, &out, to)
		        : STEER_ERR_NOMEM;
	}
	uint8_t *mine = NULL;
	size_t len = 0;
	st = sh->scatter(sh->ud, st, out.data, to, &mine, &len);
	steer_blob_free(&out);
	free(to);
	*got = 0;
	if (st == STEER_OK)
		st = apply_answer(w, mine, len, circles, got);
	free(mine);
	return st;
}

/* Collective: m's bytes (freed here) to part 0, where *all holds every part's, part
 * p's from (*at)[p] (both malloc'd there, the caller's to free). */
static steer_status gather_part0(const steer_bodies_share *sh, steer_status st, steer_blob *m,
                                 uint8_t **all, size_t **at)
{
	*at = sh->part == 0 ? malloc(((size_t)sh->parts + 1) * sizeof **at) : NULL;
	if (sh->part == 0 && !*at && st == STEER_OK)
		st = STEER_ERR_NOMEM;
	st = sh->gather(sh->ud, st, m->data, m->len, all, *at);
	steer_blob_free(m);
	return st;
}

/* Collective: one round over parts (see round_of). Each part finds its own vehicles'
 * contacts and resolves the islands wholly its own; part 0 resolves the islands
 * that cross between parts, merged into one world's order. */
static steer_status shared_round(steer_world *w, scan_job *j, const steer_bodies_share *sh,
                                 bool first, uint64_t count, bool *again)
{
	steer_bodies *b = j->b;
	own_facts o = own_of(w, sh);
	uint64_t sums[1] = {o.outside};
	double maxs[2] = {o.speed2, o.gone2};
	steer_status st = sh->reduce(sh->ud, STEER_OK, sums, 1, maxs, 2);
	if (st != STEER_OK)
		return st;
	/* Copies of every vehicle a contact of this part's own may name, where they are
	 * now: own vehicles have gone at most sqrt(gone2) from this region. */
	double extent =
	    w->cfg.edges == STEER_EDGE_NONE ? STEER_MAX_COORD : fmax(w->cfg.width, w->cfg.height);
	double reach = (sqrt(j->near2) + sqrt(maxs[1])) * REACH_SLACK + extent * 1e-12;
	uint32_t *ids = NULL;
	double *xy = NULL;
	size_t n = 0;
	st = sh->refresh(sh->ud, STEER_OK, w, reach, &ids, &xy, &n);
	if (st == STEER_OK)
		place_copies(w, ids, xy, n);
	free(ids);
	free(xy);
	if (st != STEER_OK)
		return st;
	grid_facts f = {.all_in = sums[0] == 0 && count > 0,
	                .moved = sqrt(maxs[0]) * steer_world_dt(w),
	                .count = (size_t)count};
	const steer_grid *fg = &w->grid;
	double span = (sqrt(j->near2) + 2.0 * f.moved) * REACH_SLACK;
	if (first && f.all_in && span <= fg->cw && span <= fg->ch) {
		st = shared_crowd(w, sh, &f.crowd);
		if (st != STEER_OK)
			return st;
	}
	st = grow_marks(w, b);
	if (st == STEER_OK)
		st = steer_bodies_find_contacts(w, j, first, &f);
	if (st == STEER_OK)
		st = split_islands(w, b, sh);
	steer_blob m = {0};
	if (st == STEER_OK)
		st = encode_round(j, sh, &m);
	uint8_t *all = NULL;
	size_t *at = NULL;
	st = gather_part0(sh, st, &m, &all, &at);
	if (st == STEER_OK && sh->part == 0) {
		st = build_table(w, b, all, at, sh->parts);
	} else if (st == STEER_OK) {
		b->t_count = 0;
		b->pairs.count = b->circles.count = b->segs.count = 0;
	}
	free(all);
	free(at);
	if (st == STEER_OK)
		st = append_local(w, b);
	st = steer_bodies_settle(w, b, j->wrap, sh, st);
	uint64_t moved[1] = {st == STEER_OK &&
	                     steer_bodies_moved_beyond(w, b, j->wrap, 0.5 * j->margin)};
	st = sh->reduce(sh->ud, st, moved, 1, NULL, 0);
	if (st == STEER_OK)
		steer_bodies_write_back(w, b); /* the local rows */
	*again = moved[0] > 0;
	uint8_t flags;
	return answer_parts(w, sh, st, 0, false, &flags);
}

/* Whether some circle still overlaps a vehicle of the table past the settling
 * threshold: only then does any circle give way. */
bool steer_bodies_pressing(const steer_world *w, const steer_bodies *b, bool wrap)
{
	for (size_t k = 0; k < b->circles.count; k++) {
		uint32_t i = b->circles.at[k].a;
		const steer_obstacle *o = &w->obs[b->circles.at[k].b];
		double dx = steer_bodies_axis_delta(b->tx[i] - o->x, w->cfg.width, wrap);
		double dy = steer_bodies_axis_delta(b->ty[i] - o->y, w->cfg.height, wrap);
		double rs = o->r + b->tr[i], d2 = dx * dx + dy * dy;
		if (d2 < rs * rs &&
		    rs - sqrt(d2) > SETTLED_SHARE * TOLERANCE * fmin(b->tr[i], o->r))
			return true;
	}
	return false;
}

/* A part's table of local islands, for part 0 when circles give way: its rows (id,
 * position, radius, mass), then its contacts in row terms: pairs, circle contacts
 * (with their place in the circle's search) and segment contacts. */
static steer_status encode_table(const steer_bodies *b, steer_blob *m)
{
	steer_blob_put_u32(m, (uint32_t)b->t_count);
	steer_blob_put_u32(m, (uint32_t)b->pairs.count);
	steer_blob_put_u32(m, (uint32_t)b->circles.count);
	steer_blob_put_u32(m, (uint32_t)b->segs.count);
	for (size_t r = 0; r < b->t_count; r++) {
		steer_blob_put_u32(m, b->tid[r]);
		put_f64(m, b->tx[r]);
		put_f64(m, b->ty[r]);
		put_f64(m, b->tr[r]);
		put_f64(m, b->tm[r]);
	}
	for (size_t k = 0; k < b->pairs.count; k++) {
		steer_blob_put_u32(m, b->pairs.at[k].a);
		steer_blob_put_u32(m, b->pairs.at[k].b);
	}
	for (size_t k = 0; k < b->circles.count; k++) {
		steer_blob_put_u32(m, b->circles.at[k].a);
		steer_blob_put_u32(m, b->circles.at[k].b);
		steer_blob_put_u32(m, b->cspan[k]);
	}
	for (size_t k = 0; k < b->segs.count; k++) {
		steer_blob_put_u32(m, b->segs.at[k].a);
		steer_blob_put_u32(m, b->segs.at[k].b);
	}
	return steer_blob_status(m);
}

/* Part 0: every other part's table (see encode_table) after its own, each part's
 * local rows noted in lrow_at. INVALID when a contact names a row its part did not
 * send. */
static steer_status append_tables(const steer_world *w, steer_bodies *b, const uint8_t *all,
                                  const size_t *at, int parts)
{
	if (steer_reserve((void **)&b->lrow_at, &b->lrow_at_cap, (size_t)parts + 1,
	                  sizeof *b->lrow_at) != STEER_OK)
		return STEER_ERR_NOMEM;
	b->lrow_at[0] = b->row_at[parts];
	b->lrow_at[1] = b->t_count;
	for (int p = 1; p < parts; p++) {
		msg_in m = msg_of(all, at, p);
		uint32_t n = get_u32(&m), pairs = get_u32(&m), circles = get_u32(&m),
		         segs = get_u32(&m);
		size_t base = b->t_count;
		if (m.short_read)
			return STEER_ERR_INVALID;
		if (base + n >= UINT32_MAX || steer_bodies_table_reserve(b, base + n) != STEER_OK ||
		    steer_reserve((void **)&b->cspan, &b->cspan_cap, b->circles.count + circles + 1,
		                  sizeof *b->cspan) != STEER_OK)
			return STEER_ERR_NOMEM;
		for (size_t r = base; r < base + n; r++)
			get_row(&m, b, r);
		uint32_t o = (uint32_t)base;
		bool bad = false;
		for (uint32_t k = 0; k < pairs; k++) {
			uint32_t ra = get_u32(&m), rb = get_u32(&m);
			bad |= ra >= n || rb >= n;
			steer_bodies_buf_push(&b->pairs, ra + o, rb + o);
		}
		for (uint32_t k = 0; k < circles; k++) {
			uint32_t r = get_u32(&m), c = get_u32(&m);
			bad |= r >= n || c >= w->obs_count;
			b->cspan[b->circles.count] = get_u32(&m);
			steer_bodies_buf_push(&b->circles, r + o, c);
		}
		for (uint32_t k = 0; k < segs; k++) {
			uint32_t r = get_u32(&m), mark = get_u32(&m);
			bad |= r >= n;
			steer_bodies_buf_push(&b->segs, r + o, mark);
		}
		if (bad || m.short_read || !steer_read_done(&m.r))
			return STEER_ERR_INVALID;
		b->t_count = base + n;
		b->lrow_at[p + 1] = b->t_count;
	}
	if (b->pairs.st != STEER_OK || b->circles.st != STEER_OK || b->segs.st != STEER_OK)
		return STEER_ERR_NOMEM;
	return STEER_OK;
}

/* The table's circle contacts in one world's order (see by_circle_key). Each
 * vehicle's own contacts keep their order, so the passes see no change. */
static steer_status sort_circles(steer_bodies *b)
{
	size_t n = b->circles.count;
	circle_key *ck = malloc((n ? n : 1) * sizeof *ck);
	if (!ck)
		return STEER_ERR_NOMEM;
	for (size_t k = 0; k < n; k++) {
		uint32_t r = b->circles.at[k].a;
		ck[k] = (circle_key){b->circles.at[k].b, b->cspan[k], b->tid[r], r};
	}
	if (n)
		qsort(ck, n, sizeof *ck, by_circle_key);
	for (size_t k = 0; k < n; k++) {
		b->circles.at[k] = (steer_body_pair){ck[k].row, ck[k].obstacle};
		b->cspan[k] = ck[k].span;
	}
	free(ck);
	return STEER_OK;
}

/* Collective: the circles give way (see circles_give_way) after the rounds. When no
 * circle presses on any part, none moves and nothing is sent; else every part's
 * local islands join part 0's table, which gives way and settles as one world's
 * does. *moved: some circle moved. */
static steer_status shared_give_way(steer_world *w, const scan_job *j, const steer_bodies_share *sh,
                                    bool *moved)
{
	steer_bodies *b = j->b;
	*moved = false;
	uint64_t press[1] = {steer_bodies_pressing(w, b, j->wrap)};
	steer_status st = sh->reduce(sh->ud, STEER_OK, press, 1, NULL, 0);
	if (st != STEER_OK || press[0] == 0)
		return st;
	steer_blob m = {0};
	if (sh->part != 0)
		st = encode_table(b, &m);
	uint8_t *all = NULL;
	size_t *at = NULL;
	st = gather_part0(sh, st, &m, &all, &at);
	uint8_t flags = 0;
	if (st == STEER_OK && sh->part == 0) {
		st = append_tables(w, b, all, at, sh->parts);
		if (st == STEER_OK)
			st = sort_circles(b);
		if (st == STEER_OK && steer_bodies_circles_give_way(w, b, j->wrap)) {
			(void)steer_bodies_settle(w, b, j->wrap, NULL, STEER_OK);
			flags |= ANSWER_MOVED;
		}
	}
	free(all);
	free(at);
	st = answer_parts(w, sh, st, flags, true, &flags);
	*moved = st == STEER_OK && (flags & ANSWER_MOVED);
	return st;
}

/* steer_bodies_resolve over parts of one world. */
steer_status steer_bodies_resolve_shared(steer_world *w, const steer_bodies_share *sh)
{
	steer_bodies *b = &w->bodies;
	bool freed = false;
	int parts = steer_world_parts(w, w->v.count);
	steer_status st = note_owned(w, sh);
	if (st == STEER_OK)
		st = steer_bodies_guard_moves(w, parts, &freed);
	if (st == STEER_OK)
		st = steer_bodies_new_marks(w, b);
	uint64_t sums[2] = {0, freed};
	for (size_t i = 0; i < w->v.count; i++)
		sums[0] += steer_bodies_own(sh, w, i);
	double maxs[1] = {steer_bodies_largest_radius(w)};
	st = sh->reduce(sh->ud, st, sums, 2, maxs, 1);
	if (st != STEER_OK || sums[0] == 0)
		return st;
	double maxr = maxs[0];
	scan_job j = {.w = w,
	              .b = b,
	              .wrap = w->cfg.edges == STEER_EDGE_WRAP,
	              .margin = MARGIN_SHARE * maxr,
	              .parts = parts};
	bool again = true;
	b->work = 0;
	b->passes = b->rounds = 0;
	b->budget = (uint64_t)WORK_PER_VEHICLE * sums[0];
	if (b->budget < WORK_FLOOR)
		b->budget = WORK_FLOOR;
	b->over_budget = false;
	b->t_count = 0;
	b->sent_count = b->local_count = 0;
	for (int r = 0; r < MAX_ROUNDS && again && !b->over_budget; r++) {
		b->rounds++;
		double reach = 2.0 * maxr + j.margin;
		j.near2 = reach * reach;
		st = shared_round(w, &j, sh, r == 0 && sums[1] == 0, sums[0], &again);
		if (st != STEER_OK)
			return st;
	}
	bool moved = false;
	st = shared_give_way(w, &j, sh, &moved);
	if (st != STEER_OK)
		return st;
	if (moved) {
		steer_geom_circles_moved(w);
		(void)steer_geom_update(w);
	}
	st = steer_bodies_out_of_regions(w, b);
	if (st == STEER_OK)
		steer_bodies_settle_velocities(w, b, j.wrap);
	return st;
}
