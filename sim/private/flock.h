/* The flocking neighbourhood scan: for each flocker, the sums over the neighbours it
 * sees (count, offsets, velocities, separation), from which the world forms
 * cohesion, alignment and separation. This is where a flocking tick spends most of
 * its time, so it has two forms that give the same bits:
 *
 *  - steer_flock_scan_one: one vehicle, any grid (the general path);
 *  - steer_flock_scan_lanes: up to STEER_FLOCK_GROUP_MAX vehicles of
 *    neighbouring cells of one grid row at once, one per vector lane, against the
 *    candidates they share.
 *
 * Both take each neighbour in the same order and do the same arithmetic per
 * vehicle. Which form a vehicle takes depends on the grid alone, and the lane form
 * gives the same bits whatever its group, whichever kernel form runs it (kernel.h:
 * scalar, AVX2 or AVX-512, the world's choice) and whichever thread computed it.
 *
 * Neighbours are walked in grid order (cell by cell, and by id within a cell),
 * through the grid's items from grid position to vehicle slot: the order of the
 * sums depends on where vehicles are and who they are, not on where they are stored.
 * The cells of one grid row are one run of grid positions. */
#ifndef STEER_FLOCK_H
#define STEER_FLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "behaviors.h"
#include "grid.h"
#include "kernel.h"
#include "steer/vec2.h"
#include "steer/world.h"

#define STEER_FLOCK_LANES 4
/* The most vehicles a lane group holds: eight where AVX-512 runs them in 512-bit
 * registers. */
#define STEER_FLOCK_GROUP_MAX 8

/* How many plain flockers a lane group holds in kernel form k: STEER_FLOCK_GROUP_MAX
 * with AVX-512, else STEER_FLOCK_LANES. A vehicle's sums do not depend on it (see
 * steer_flock_runs). */
int steer_flock_group_size(const steer_kernel *k);

/* Running sums of one vehicle's flock neighbourhood. */
typedef struct steer_flock_sums {
	steer_vec2 sep; /* sum of separation steerings from too-close neighbours */
	steer_vec2 d;   /* sum of offsets to neighbours */
	steer_vec2 v;   /* sum of neighbours' velocities */
	uint32_t n;     /* neighbours taken */
} steer_flock_sums;

/* With a field of view and max_neighbours, a vehicle stops looking once it has seen
 * this many times max_neighbours candidates within sight, ahead of it or not: one on
 * the rim of a pile, facing out, would otherwise test every vehicle of the pile's
 * cells for the few ahead of it. A flock never comes near it (the default flock sees
 * 8-20 within sight). */
#define STEER_FLOCK_LOOK_FACTOR 4u

/* How many candidates within sight a vehicle looks at (0: no bound): see
 * STEER_FLOCK_LOOK_FACTOR. */
static inline uint64_t steer_flock_look_cap(uint32_t cap, bool fov)
{
	return cap && fov ? (uint64_t)cap * STEER_FLOCK_LOOK_FACTOR : 0;
}

/* What one vehicle looks for among its neighbours. */
typedef struct steer_flock_query {
	const steer_agent *a;
	double x, y;
	size_t self; /* its own slot: never its own neighbour */
	uint32_t group, self_id;
	uint32_t cap; /* max_neighbours; 0 = no cap */
	double sight2, close2;
	bool fov;
} steer_flock_query;

/* Fills q from vehicle i's state and parameters (a must outlive q). */
steer_flock_query steer_flock_query_at(const steer_vehicles *v, size_t i, const steer_agent *a);

/* The runs of grid positions of the block of cells around the cells [cell, cell +
 * cells) of one grid row: three rows, and reach_x columns (see steer_grid) either
 * side, own row first; slot maps a position to its vehicle's slot. These are the
 * candidates every member of those cells shares. Each member's own block (its
 * cell's 3 rows of 2 reach_x + 1 columns) is walked in its own order within them,
 * and the cells beyond it lie further away than any flocker sees, by more than
 * rounding can close (the grid's cells are a hair larger than the largest sight, see
 * steer_grid_build). So a member takes the same neighbours in the same order
 * whatever cells its group spans and however many lanes it has: every CPU and
 * thread count gives the same bits. They are the per-vehicle walk's too, but for a
 * neighbour at sight distance to within rounding, which the per-vehicle walk's
 * span of cells may leave out.
 * shx/shy: the world-size shift of a run across a wrap seam; a row has at most one
 * seam, so at most six runs. */
typedef struct steer_flock_runs {
	const uint32_t *slot; /* the grid's items */
	int count;
	struct {
		uint32_t from, to;
		double shx, shy;
	} r[9];
} steer_flock_runs;

/* Which lanes came near another vehicle (see steer_bodies_plan_near): at[k] is set
 * to 1 for the vehicle at grid position k when some candidate of its runs other than
 * itself is within touch2 of it (squared), whatever the lane takes, or when it
 * reached its max_neighbours cap or stopped looking (STEER_FLOCK_LOOK_FACTOR; then
 * not every candidate was looked at); else 0. */
typedef struct steer_flock_near {
	double touch2;
	uint32_t *at; /* not bytes: a char store may alias anything, and the lanes' loops
	               * would load everything again after each */
} steer_flock_near;

/* The runs of the block around local cells cell .. cell + cells - 1 (one stored
 * row's). False when the grid is too coarse for seams (a wrapping axis not wider
 * than the block): members of such grids take steer_flock_scan_one. */
bool steer_flock_cell_runs(const steer_grid *g, double width, double height, uint32_t cell,
                           int cells, steer_flock_runs *out);

/* One vehicle's sums, walking the grid cells its sight reaches: its own row first
 * (so that a max_neighbours cap keeps the nearer ones in a crowd), then the others. */
void steer_flock_scan_one(const steer_vehicles *v, const steer_grid *g, double width, double height,
                          const steer_flock_query *q, steer_flock_sums *out);

/* The sums of m (1..STEER_FLOCK_GROUP_MAX) vehicles that share runs (members of the
 * cells the runs are for, at grid positions first .. first + m - 1), one vehicle
 * per lane: out[k] is q[k]'s own walk of its block, which is what
 * steer_flock_scan_one gives but at sight distance to within rounding (see
 * steer_flock_runs). one_group: every vehicle in the runs has the lanes' group (a
 * promise that lets the group test go). near: the lanes' flags are noted there, or
 * NULL. */
void steer_flock_scan_lanes(const steer_kernel *k, const steer_vehicles *v,
                            const steer_flock_runs *runs, bool one_group,
                            const steer_flock_query *q, size_t first, int m,
                            const steer_flock_near *near, steer_flock_sums *out);

/* Cohesion, alignment and separation from a vehicle's sums, weighted, into the
 * parts steer_combine_parts adds up (mask gets their bits; nothing when no
 * neighbours were taken). */
void steer_flock_parts(const steer_agent *a, const steer_flock_sums *f,
                       steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask);

/* The forces of m (1..STEER_FLOCK_GROUP_MAX) vehicles whose only behaviour is
 * flocking, combined by sum: bit for bit steer_combine_parts of steer_flock_parts
 * and steer_cruise_part. */
void steer_flock_force_lanes(const steer_kernel *k, const steer_agent *a,
                             const steer_flock_sums *sums, int m, double dt, steer_vec2 *force);

/* The forces of m (1..STEER_FLOCK_GROUP_MAX) plain flockers (flocking their only
 * behaviour, combined by sum) at grid positions first .. first + m - 1 of the cells
 * the runs are for, all with parameters p, into fx and fy: bit for bit what
 * steer_flock_scan_lanes and steer_flock_force_lanes give, with the lanes read
 * straight from the arrays. k is the kernel form to run them in; near as for
 * steer_flock_scan_lanes. */
void steer_flock_forces_at(const steer_kernel *k, const steer_vehicles *v,
                           const steer_flock_runs *runs, bool one_group, size_t first, int m,
                           const steer_params *p, double dt, const steer_flock_near *near,
                           double *fx, double *fy);

#endif
