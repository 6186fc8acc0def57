/* A world that is one part of a bigger one (cluster/): what the tick reads from the
 * whole world rather than from one vehicle and its neighbours, and the hooks through
 * which the parts plan and resolve solid bodies together. Not libsteer's API: the
 * MPI mode's, which links the layers directly. */
#ifndef STEER_SHARE_H
#define STEER_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/world.h"

/* What a tick reads from the whole world rather than from one vehicle and its
 * neighbours. A world holding one region of a bigger one (its own vehicles and copies
 * of its neighbours' near the border) is told the whole world's figures, so that its
 * vehicles steer by the same numbers, and so to the same bits, as in one process. */
typedef struct steer_world_survey {
	double flock_sight; /* the flockers' largest sight_distance; -1: nothing flocks */
	double radius_max;  /* the largest radius of any vehicle */
	double speed_max;   /* the fastest vehicle's speed at the tick's start */
	uint64_t vehicles;  /* how many (the neighbour grid's cells are sized by it) */
	bool avoid_any;     /* some vehicle avoids */
	bool smooth_any;    /* some vehicle's heading_smoothing is on */
	bool flock_one_group;
	/* Every flocker is plain (flock alone, forces summed) with one parameter set. */
	bool flock_plain;
	bool has_flockers;
	uint32_t flock_group;   /* a flocker's group, when has_flockers */
	steer_params flock_set; /* the flockers' parameters, when has_flockers and plain */
} steer_world_survey;

/* This world's own figures, from its vehicles now. */
steer_world_survey steer_world_survey_own(steer_world *w);
/* Steps with s, the whole world's figures, instead of its own from now on; NULL goes
 * back to its own. s must cover this world's vehicles (its maxima at least theirs). */
void steer_world_survey_set(steer_world *w, const steer_world_survey *s);
/* goto over parts of one world (cluster/): a tick's planning cells are the whole
 * world's, shared among its plans under way first come first served
 * (steer_goto_allowance). With a share, the world plans only the goto vehicles `own`
 * says are its own (copies of other parts' vehicles are left as they are), and calls
 * `agree` every tick, as every part does, even with no plan under way: given this
 * part's plans under way (in steer_plan_key order), it sets allow[k], the cells plan k
 * may expand this tick, as steer_goto_allowance over every part's plans would. When
 * agree fails no plan moves on. NULL: the world plans alone. */
typedef struct steer_plan_key {
	uint64_t began;    /* the tick the plan was asked for */
	uint32_t id;       /* the vehicle's, among plans asked for in one tick */
	uint32_t restarts; /* not part of the order: what the plan's allowance is doubled by */
} steer_plan_key;
typedef struct steer_replan_share {
	bool (*own)(void *ud, const steer_world *w, size_t i);
	steer_status (*agree)(void *ud, const steer_plan_key *keys, size_t n, uint64_t *allow);
	void *ud;
} steer_replan_share;
void steer_world_set_replan_share(steer_world *w, const steer_replan_share *share);
/* Solid bodies over parts of one world (cluster/). Each part finds the contacts of
 * its own vehicles, as one world would in its grid's order, and resolves the islands
 * of them that are wholly its own; part 0 resolves those that cross between parts,
 * merged into that order: the same bits as one world. Every call below is collective
 * (every part makes it, in the same order) and takes this part's status so far: it
 * returns the first failure of any part, on every part, and then the pass stops
 * everywhere. Memory a call returns (*all, *mine) is malloc'd; the caller frees it.
 * NULL: the world resolves alone. */
typedef struct steer_bodies_share {
	int part, parts; /* this part's number, and how many; part 0 merges */
	void *ud;
	/* Whether a vehicle that was at (x, y) when the tick began is this part's own
	 * rather than a copy of another part's. Local. */
	bool (*own)(void *ud, double x, double y);
	/* Whether the closed box lies inside this part's region. Local. */
	bool (*inside)(void *ud, double x0, double y0, double x1, double y1);
	/* sums[] added up and maxs[] the largest over the parts, in place. */
	steer_status (*reduce)(void *ud, steer_status st, uint64_t *sums, size_t nsums,
	                       double *maxs, size_t nmaxs);
	/* Every part's bytes, in part order, to every part. */
	steer_status (*allgather)(void *ud, steer_status st, const void *mine, size_t len,
	                          uint8_t **all, size_t *all_len);
	/* Every part's bytes to part 0, in part order: part p's start at at[p] (at has
	 * parts + 1 entries; part 0 only). */
	steer_status (*gather)(void *ud, steer_status st, const void *mine, size_t len,
	                       uint8_t **all, size_t *at);
	/* Part 0's all[at[p] .. at[p + 1]) to part p (all and at are read on part 0 only). */
	steer_status (*scatter)(void *ud, steer_status st, const uint8_t *all, const size_t *at,
	                        uint8_t **mine, size_t *len);
	/* Copies are added (appended to the world) of every other part's vehicle within
	 * reach of this part's region, where it is now, that this part lacks; and every
	 * copy it held already comes back in ids, its owner's position now in xy (two
	 * per id; n of them). */
	steer_status (*refresh)(void *ud, steer_status st, steer_world *w, double reach,
	                        uint32_t **ids, double **xy, size_t *n);
} steer_bodies_share;
void steer_world_set_bodies_share(steer_world *w, const steer_bodies_share *share);
/* A world holding one region of a bigger one keeps, of the vehicles added in bulk
 * (steer_vehicles_add: spawn flock N), only those `holds` says lie in its region,
 * where they are placed (wrapped into a wrap world's bounds). Every part spends the
 * same ids and random draws, and keeps its own vehicles in the order one world would,
 * so no part ever holds the whole spawn. NULL: the world keeps every vehicle. */
typedef struct steer_region_keep {
	bool (*holds)(void *ud, double x, double y);
	void *ud;
} steer_region_keep;
void steer_world_set_region_keep(steer_world *w, const steer_region_keep *keep);
/* How far from a part's region, at the tick's start, the copies it holds must reach
 * for its solid bodies' first contacts: the contact reach plus two moves. */
double steer_bodies_halo_reach(const steer_world *w);
/* The order plans under way are served in: the tick each was asked for, then the id.
 * Negative, zero or positive, as for qsort. */
int steer_plan_key_cmp(const void *a, const void *b);
/* The grid cells the plan at position k (from 0) of the whole world's n plans under
 * way, in steer_plan_key order, may expand this tick: the first few share the tick's
 * cells, the rest wait (planner.h). */
uint64_t steer_goto_allowance(const steer_plan_key *key, size_t k, size_t n);

/* The vehicles of the whole world this one is part of, as a snapshot's header says:
 * the count last told (cluster/ranks.c, over ranks), else its own. */
size_t steer_world_vehicles_total(const steer_world *w);
/* Tells the world the whole world's count (0: its own again). Read only by
 * steer_world_vehicles_total. */
void steer_world_set_vehicles_total(steer_world *w, size_t n);
/* How far from itself any of this world's vehicles reads another vehicle in a tick
 * with the figures in effect: the flockers' sight and the avoiders' search reach.
 * A region's copies of its neighbours' vehicles must cover this distance. */
double steer_world_reach(steer_world *w);
/* Debug builds assert that no vehicle's neighbour search reaches further than this
 * (0: unchecked, the default): a region's halo is only that wide. */
void steer_world_set_reach_limit(steer_world *w, double reach);

#endif
