/* Solid bodies (the world's `solid` rule): after the moves, a position-correction
 * pass pushes apart every two vehicles whose discs overlap and pushes every vehicle
 * out of the circles, walls, polygon edges and contained bounds it overlaps (a vehicle
 * whose move would take its centre across a segment is first stopped where it touches
 * it, so nothing tunnels; one whose centre is inside a region is moved to the nearest
 * free point), then makes the velocities agree with the
 * corrected motion, so that pushed vehicles stop pressing and crowds come to rest.
 *
 * Contacts are found over a grid (the flock's when every vehicle flocks and its
 * cells fit, else one of all vehicles) in the order of cells and ids within cells,
 * split over the world's threads; they are then resolved one after another in that
 * order. The result depends only on positions, ids and parameters: the same bits
 * for any thread count, SIMD level or storage order. A tick's work is bounded in
 * proportion to the vehicles (a vehicle's search stops at a few contacts, the passes
 * at a budget), so bodies piled where they cannot fit spread over several ticks. */
#ifndef STEER_BODIES_H
#define STEER_BODIES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flock.h"
#include "grid.h"
#include "pool.h"
#include "steer/status.h"

/* Two vehicles' slots, or a vehicle's slot and an obstacle's index. */
typedef struct steer_body_pair {
	uint32_t a, b;
} steer_body_pair;

typedef struct steer_body_buf {
	steer_body_pair *at;
	size_t count, cap;
	steer_status st;
} steer_body_buf;

/* Slots, as a part of a split job lists them. */
typedef struct steer_slot_list {
	uint32_t *at, *tmp; /* tmp: scratch as long as at, for sorting */
	size_t count, cap, tmp_cap;
	steer_status st;
} steer_slot_list;

#define STEER_BODY_ELSEWHERE UINT32_MAX

/* A round's contacts by island (table rows joined by pairs; bodies_settle.c): each
 * island's circle, pair and segment contacts in the round's order, and the islands
 * the passes still go over. */
typedef struct steer_body_islands {
	_Atomic uint32_t *up; /* per row: the union-find's links, joined by the threads */
	uint32_t *of;         /* per row: its island */
	/* Per island and one more: where its circle, pair and segment contacts begin. */
	uint32_t *circ_at, *pair_at, *seg_at;
	steer_body_pair *circles, *pairs, *segs; /* the contacts, island by island */
	uint32_t *open, *kept;    /* the unsettled islands, ascending; each part's kept */
	size_t count, open_count; /* islands; those still open */
	size_t rows_cap;          /* of up .. seg_at, open and kept */
	size_t circles_cap, pairs_cap, segs_cap;
	uint32_t *tally; /* the counting sort's counts per (kind, part, island) */
	size_t tally_cap;
	/* Islands of STEER_BAND_MIN contacts or more are passed over in bands, several
	 * at once (bodies_settle.c): per island its entry in banded, or STEER_NO_BAND;
	 * the banded islands' contacts by (colour, band), one island after another, each
	 * as its kind (0 circles, 1 pairs, 2 segments) << STEER_BAND_KIND_SHIFT | its
	 * index; and where each band's run of them begins, with one more after the last. */
	uint32_t *band_of;
	struct steer_body_banded *banded;
	uint32_t *band_ref, *band_run;
	size_t banded_count;
	size_t band_of_cap, banded_cap, band_ref_cap, band_run_cap;
	uint32_t *band_key, *band_count; /* scratch for the counting sort into bands */
	size_t band_key_cap, band_count_cap;
} steer_body_islands;

#define STEER_NO_BAND         UINT32_MAX
#define STEER_BAND_KIND_SHIFT 30

/* A banded island: its runs of colour c are band_run's [run[c], run[c + 1]). */
typedef struct steer_body_banded {
	uint32_t island;
	uint32_t run[4];
	bool unsettled; /* after the last pass over it */
} steer_body_banded;

/* The pass's scratch, kept by the world between ticks. */
typedef struct steer_bodies {
	steer_grid grid; /* all vehicles, when the flock's grid will not do */
	steer_body_buf part[STEER_POOL_MAX_THREADS]; /* each part's contacts */
	steer_body_buf pairs, circles;               /* all of them, in order */
	/* (vehicle slot, segment index | SIDE bit when the vehicle is on its left). */
	steer_body_buf segs;
	/* Where every vehicle was before the moves, noted only when there are segments
	 * (the tunnelling guard's paths start there). */
	double *px0, *py0;
	size_t starts_cap;
	bool starts_noted;
	/* The vehicles in some contact this tick: their slots, and where they were and
	 * how fast they went after the moves (ox..). */
	uint32_t *inv;
	double *ox, *oy, *ovx, *ovy;
	size_t inv_count, inv_cap;
	steer_slot_list fresh[STEER_POOL_MAX_THREADS]; /* each part's newly involved */
	/* A round's bodies as the passes resolve them: each vehicle's id, position,
	 * radius, mass and position at the round's start, and its slot in this world
	 * (STEER_BODY_ELSEWHERE: another part's vehicle, resolved here). The contact
	 * lists index it while the passes run. In one world its rows are inv's. */
	uint32_t *tid, *tslot;
	double *tx, *ty, *tr, *tm, *trx, *try_;
	size_t t_count, t_cap;
	steer_body_islands islands; /* the table's, while the passes run */
	/* Over parts of one world: each circle contact's place in its circle's search
	 * (the cells' rows and columns around it), parallel to circles; and the slots
	 * of the rows this part sent to be resolved, in order. */
	uint32_t *cspan, *sent;
	size_t cspan_cap, sent_count, sent_cap;
	/* Whether each slot held this part's own vehicle when the pass began (slots
	 * past owned_count hold copies). */
	uint8_t *owned;
	size_t owned_count, owned_cap;
	/* Part 0: where each part's rows begin in the table (parts + 1 entries); and,
	 * when every part's local rows came for the circles to give way, where each
	 * part's local rows begin. */
	size_t *row_at, *lrow_at;
	size_t row_at_cap, lrow_at_cap;
	/* Over parts: the islands of a round's contacts (vehicles joined by pairs), by
	 * inv index: each one's lowest member, and whether it holds a copy. An island of
	 * own vehicles alone is resolved where it lies: lrow gives each of its members'
	 * row in the local table (UINT32_MAX: the vehicle goes to part 0 or is a copy),
	 * local their slots in that order, and lpairs.. its contacts in row terms (with
	 * lcspan, the circle contacts' cspan). */
	uint32_t *island, *lrow, *local, *lcspan;
	uint8_t *border;
	size_t island_cap, lrow_cap, local_count, local_cap, lcspan_cap, border_cap;
	steer_body_buf lpairs, lcircles, lsegs;
	/* Per slot: the tick's mark when the vehicle is in inv (at its mark_at). */
	uint32_t *mark, *mark_at;
	size_t mark_cap;
	uint32_t gen;
	/* The flock scan's flags of the vehicles near another at the tick's start, by
	 * position in the flock's grid (near.at NULL: none this tick), and what they were
	 * taken for: the tick, the largest contact reach and the largest move. */
	steer_flock_near near;
	uint32_t *near_buf; /* what near.at points to when set */
	size_t near_cap;
	uint64_t near_tick;
	double near_reach, near_move;
	steer_grid near_grid; /* the flagged members of the flock's grid, in its order */
	/* The largest squared speed each part of the moves left (steer_motion_step), and
	 * of which tick; any guard since then clears speed2_tick's match. */
	double speed2[STEER_POOL_MAX_THREADS];
	int speed2_parts;
	uint64_t speed2_tick;
	uint32_t *near_cells; /* near_grid's cells with members, ascending */
	size_t near_ncells, near_cells_cap;
	/* The last tick's work: contacts resolved (each contact once per pass), passes
	 * and rounds; the work's budget, and whether it cut the passes short. */
	uint64_t work, budget;
	uint32_t passes, rounds;
	bool over_budget;
} steer_bodies;

void steer_bodies_init(steer_bodies *b);
void steer_bodies_free(steer_bodies *b);

struct steer_world;
/* Notes where the vehicles are before the moves when the world is solid and has
 * segments (else nothing): STEER_OK or STEER_ERR_NOMEM. */
steer_status steer_bodies_note_starts(struct steer_world *w);
/* Before the forces: when the flock's scan will meet every vehicle (each flocks and
 * the scan's cells reach far enough), asks it to note which came near another
 * (b->near), so that the first round of contacts looks among those alone. A pair
 * in contact after the moves was within the reach plus both moves at the start, so
 * both are noted: the same contacts are found, in the same order. */
void steer_bodies_plan_near(struct steer_world *w);
/* Corrects the positions (and velocities) the tick's moves left: STEER_OK, or
 * STEER_ERR_NOMEM when scratch cannot grow (the moves then stand uncorrected). */
steer_status steer_bodies_resolve(struct steer_world *w);

#endif
