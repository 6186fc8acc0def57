/* The solid pass's own parts shared by its files: bodies_contacts.c (finding
 * contacts), bodies.c (resolving them in one world) and bodies_parts.c (the same over parts of one
 * world, cluster/'s regions). Private to the core. */
#ifndef STEER_BODIES_INTERNAL_H
#define STEER_BODIES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bodies.h"
#include "world_internal.h"

/* A tick's passes resolve at most this many contacts per vehicle, or WORK_FLOOR
 * in all when that is more (past the first pass): far above what settles a crowd
 * or a flock, it bounds the tick of bodies piled where they cannot all fit, which
 * then spread over the next ticks. The floor leaves a small world's tightest crowds
 * (a couple of hundred vehicles arriving on one point) the passes they ask for. */
#define WORK_PER_VEHICLE 32
#define WORK_FLOOR       (1u << 16)
/* Relative slack on reaches compared with cell sizes, far above rounding. */
#define REACH_SLACK (1.0 + 1e-6)
/* After every tick no overlap may exceed this share of the smaller radius. */
#define TOLERANCE 0.01
/* Passes over the contacts stop once none overlaps by more than this share of the
 * tolerance: the rest is left to rounding and to the next tick. */
#define SETTLED_SHARE 0.25
#define MAX_PASSES    64
/* Islands of this many contacts or more are passed over in bands, several at once
 * (bodies_settle.c); smaller ones, a jam of a few hundred, one contact after
 * another. */
#define STEER_BAND_MIN 2048
/* Contacts are taken this far (times the largest radius) before the discs touch: a
 * vehicle pushed less than half of it cannot have met one that was not taken. Each
 * further round finds the contacts again, around where the pushes left them. */
#define MARGIN_SHARE 0.5
#define MAX_ROUNDS   4
/* A segment contact's mark: the vehicle is on the segment's left (a wall's back). */
#define SIDE_BIT 0x80000000u

/* A search for contacts over a grid's cells, split into parts. */
typedef struct scan_job {
	steer_world *w;
	steer_bodies *b;
	const steer_grid *g;
	const steer_grid *pg;  /* the grid pairs are looked for in: g, or its flagged members */
	const uint32_t *cells; /* pg's cells with members, ascending, when listed; else NULL */
	size_t ncells;
	bool wrap;     /* the world wraps */
	double margin; /* contacts are taken this far before touching */
	double near2;  /* the square of the largest reach, a first filter */
	double extra;  /* how far vehicles may be from where their grid filed them */
	int parts;
} scan_job;

/* Over parts of one world, the whole world's answers contact_grid asks for: whether
 * every vehicle is in the flock's grid, the largest move, the crowding of the flock's
 * grid (when it may serve) and the vehicles. */
typedef struct grid_facts {
	bool all_in;
	double moved, crowd;
	size_t count;
} grid_facts;

void steer_bodies_buf_push(steer_body_buf *f, uint32_t a, uint32_t b);

/* Islands of contacts by union-find (up: each entry's link, itself for a first one),
 * every link to a lower entry: an island's first entry is its lowest. */
static inline uint32_t steer_bodies_island_first(uint32_t *up, uint32_t k)
{
	while (up[k] != k) { /* halving the path */
		up[k] = up[up[k]];
		k = up[k];
	}
	return k;
}

/* Joins the islands of entries a and b: the later first entry linked to the earlier. */
static inline void steer_bodies_island_join(uint32_t *up, uint32_t a, uint32_t b)
{
	uint32_t ra = steer_bodies_island_first(up, a), rb = steer_bodies_island_first(up, b);
	if (ra != rb)
		up[ra > rb ? ra : rb] = ra < rb ? ra : rb;
}

/* The table's islands (rows joined by the round's pairs) numbered by their first
 * rows, each island's contacts in the round's order, every island open: the same
 * for any thread count. STEER_ERR_NOMEM when memory runs out. (bodies_islands.c) */
steer_status steer_bodies_open_islands(const steer_world *w, steer_bodies *b);

const steer_params *steer_bodies_params_of(const steer_world *w, size_t i);

/* Over parts of one world, whether slot i holds a copy of another part's vehicle. */
bool steer_bodies_is_copy(const steer_world *w, size_t i);

double steer_bodies_axis_delta(double d, double size, bool wrap);

/* A vehicle whose centre is inside a region (a solid polygon, outside a containing
 * one or the contained bounds) goes to the nearest point where its disc is free
 * (*moved then true). */
steer_status steer_bodies_free_one(steer_world *w, size_t i, bool *moved);

/* The guard and the way out of regions, before any contact is looked for. *freed:
 * some vehicle jumped out of a region, maybe far from where the flock's grid filed it. */
steer_status steer_bodies_guard_moves(steer_world *w, int parts, bool *freed);

/* Room for n rows in the round's table. */
steer_status steer_bodies_table_reserve(steer_bodies *b, size_t n);

/* The table's row k: the vehicle at slot i of w as it is now. */
void steer_bodies_table_row(const steer_world *w, steer_bodies *b, size_t k, uint32_t i);

/* The table's positions into the world, for the rows that are this world's. */
void steer_bodies_write_back(steer_world *w, steer_bodies *b);

/* Passes over the table's islands (rows joined by pairs), each until it settles,
 * MAX_PASSES in all, or until the next pass would take the tick's work past its
 * budget (the tick's first pass always runs). A pass's work is the contacts of the
 * islands still unsettled. An island of STEER_BAND_MIN contacts or more is passed
 * over in bands across y, those of one colour at once. (bodies_settle.c)
 *
 * Over parts (sh, collective), each part passes over its own table at once: the
 * islands in different tables share no vehicle, so the order between them changes
 * nothing. The budget counts the whole world's contacts, and the passes go on while
 * any part's are unsettled: every part takes the same passes one world would. */
steer_status steer_bodies_settle(const steer_world *w, steer_bodies *b, bool wrap,
                                 const steer_bodies_share *sh, steer_status st);

/* A unit direction for two bodies (ids a and b, or a body and a circle) on the same
 * point, from who they are and when. */
steer_vec2 steer_bodies_tie_direction(const steer_world *w, uint32_t a, uint32_t b);

/* Whether some vehicle has moved further than limit since the round's detection. */
bool steer_bodies_moved_beyond(steer_world *w, steer_bodies *b, bool wrap, double limit);

/* The velocities the corrected motion implies: the move's velocity plus the push
 * over the tick, never faster than the move's, so that a push stops a vehicle
 * pressing into what it met without launching it; then the edges' rule. */
void steer_bodies_settle_velocities(steer_world *w, steer_bodies *b, bool wrap);

/* The vehicles the round's contacts (still naming slots) involve that no earlier
 * round of the tick did, appended to inv in slot order, with where they are and how
 * fast they go. */
steer_status steer_bodies_involve(steer_world *w, steer_bodies *b);

/* One world's round: the table holds inv's rows as they are now, and the contacts
 * name rows rather than slots. */
steer_status steer_bodies_table_of_inv(steer_world *w, steer_bodies *b);

/* The pushes keep centres out of the regions; one pushed in by a crowd all the same
 * goes to the nearest free point. */
steer_status steer_bodies_out_of_regions(steer_world *w, const steer_bodies *b);

/* A circle still overlapping a vehicle after the passes has pinned it against what
 * it cannot leave through (an edge, a wall, a packed crowd): the circle gives way, as
 * it does at the world's edges, backing off by the overlap and bouncing off the
 * vehicle. It backs off along the way it came, so it stays within the bounds. True
 * when some circle moved. */
bool steer_bodies_circles_give_way(steer_world *w, const steer_bodies *b, bool wrap);

/* The largest radius of any vehicle. */
double steer_bodies_largest_radius(const steer_world *w);

/* A new tick's marks: none equal to the new generation. */
steer_status steer_bodies_new_marks(steer_world *w, steer_bodies *b);

/* A round's contacts, over the grid contact_grid picks (f: the whole world's
 * answers, over parts), in its order, and the vehicles in them noted. */
steer_status steer_bodies_find_contacts(steer_world *w, scan_job *j, bool first,
                                        const grid_facts *f);

/* One round: the contacts found, the vehicles in them noted, then passes until they
 * settle. *again: some vehicle went far enough to meet one not found. */
steer_status steer_bodies_round_of(steer_world *w, scan_job *j, bool first, bool *again);

bool steer_bodies_own(const steer_bodies_share *sh, const steer_world *w, size_t i);

/* Whether some circle still overlaps a vehicle of the table past the settling
 * threshold: only then does any circle give way. */
bool steer_bodies_pressing(const steer_world *w, const steer_bodies *b, bool wrap);

/* steer_bodies_resolve over parts of one world. */
steer_status steer_bodies_resolve_shared(steer_world *w, const steer_bodies_share *sh);

#endif
