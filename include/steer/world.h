/* The simulation world: vehicles and obstacles in plain arrays addressed by stable
 * ids, stepped on a fixed timestep. No I/O of any kind: the server, the terminal
 * client and the tests all drive it through this API.
 *
 * Ownership: the world owns every array and path it holds; pointers returned by the
 * query functions stay valid until the next call that adds, removes or steps.
 *
 * Errors follow status.h's convention: what can fail returns steer_status (STEER_OK
 * is 0), with a message in the caller's err buffer where there is one; constructors
 * return NULL; predicates return bool; lookups return a documented "not found". */
#ifndef STEER_WORLD_H
#define STEER_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "params.h"
#include "rng.h"
#include "simd.h"
#include "status.h"
#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum steer_edges {
	STEER_EDGE_WRAP = 0,   /* toroidal: leave one side, enter the other */
	STEER_EDGE_BOUNCE = 1, /* clamp to bounds, reflect the velocity */
	STEER_EDGE_NONE = 2,   /* unbounded plane */
} steer_edges;

/* Behaviour flags, one bit each, any combination per vehicle. */
enum {
	STEER_SEEK = 1u << 0,
	STEER_FLEE = 1u << 1,
	STEER_ARRIVE = 1u << 2,
	STEER_PURSUE = 1u << 3,
	STEER_EVADE = 1u << 4,
	STEER_WANDER = 1u << 5,
	STEER_AVOID = 1u << 6,
	STEER_PATH = 1u << 7,
	STEER_FLOCK = 1u << 8,
	STEER_FOLLOW = 1u << 9,     /* offset pursuit of a leader (steer_group_state) */
	STEER_HIDE = 1u << 10,      /* behind an obstacle, away from a hunter */
	STEER_INTERPOSE = 1u << 11, /* between two other vehicles */
	STEER_GOTO = 1u << 12,      /* follow a planned route to a goal (planner.h) */
	STEER_BEHAVIOR_COUNT = 13,
	STEER_ALL_BEHAVIORS = (1u << 13) - 1,
};

/* "seek", "flee", ... for one bit; NULL for anything else. */
STEER_API const char *steer_behavior_name(uint32_t bit);
/* The bit for a name, or 0. */
STEER_API uint32_t steer_behavior_bit(const char *name);
STEER_API const char *steer_edges_name(steer_edges e);
/* Sets *out from "wrap", "bounce" or "none"; INVALID, *out untouched, for anything
 * else. */
STEER_API steer_status steer_edges_parse(const char *name, steer_edges *out);

#define STEER_MAX_WAYPOINTS 4096u
/* Positions, targets and velocities are refused beyond this magnitude. */
#define STEER_MAX_COORD 1e12
/* True when both components are within STEER_MAX_COORD (NaN fails): what every
 * position, target and velocity the world takes must satisfy. */
STEER_API bool steer_vec_ok(steer_vec2 v);

typedef struct steer_path {
	steer_vec2 *points; /* owned by the world */
	uint32_t count, cap;
	uint32_t index; /* the waypoint being followed */
	bool loop;
} steer_path;

/* The other vehicles the group behaviours steer by: each 0 when off. */
typedef struct steer_group_state {
	uint32_t leader_id;  /* follow */
	steer_vec2 offset;   /* follow: x along the leader's heading, y to its left */
	uint32_t hunter_id;  /* hide */
	uint32_t between[2]; /* interpose: the two vehicles */
} steer_group_state;
/* goto's: the goal and what replanning needs. The route itself is the path. */
typedef struct steer_goto_state {
	steer_vec2 goal; /* as asked */
	steer_vec2 from; /* where the route began: its first leg's start */
	double radius;   /* the clearance the route was planned for */
	uint64_t tried;  /* the tick of the last plan */
	uint64_t epoch;  /* the geometry's epoch when the route was last checked; 0: never */
	bool reached;    /* the route ends at the goal, not at the nearest reachable point */
	/* A plan under way (planner.c): a few grid cells a tick, the route above followed
	 * until it is done. */
	bool planning;
	uint32_t restarts; /* times the geometry changed under it: each doubles its cells */
	steer_vec2 start;  /* where it plans from: the vehicle's position when it began */
	uint64_t began;    /* the tick it was asked for: plans are served in that order */
	uint64_t spent;    /* the grid cells it has expanded */
} steer_goto_state;

/* The heading a vehicle is shown with when its heading_smoothing is on: its unit
 * heading followed with that time constant, so that a glyph does not flicker between
 * two directions. Zero until the first tick with smoothing on. Display only: the
 * steering never reads it. */
typedef struct steer_smooth_state {
	steer_vec2 heading;
} steer_smooth_state;

/* Everything about a vehicle that the hot loops do not stream through. Parameters
 * live in a shared table (see steer_vehicle_params). */
typedef struct steer_vehicle_state {
	steer_vec2 seek_target, flee_target, arrive_target;
	uint32_t pursue_id, evade_id; /* 0 when off */
	double wander_angle;
	steer_path path;
	steer_group_state group;
	steer_goto_state go;
	steer_smooth_state smooth;
} steer_vehicle_state;

/* The vehicles as structure-of-arrays, index 0..count-1. Indices change when a
 * vehicle is removed (the last one moves into the hole); ids never do. */
typedef struct steer_vehicles {
	size_t count, cap;
	uint32_t *id;
	uint32_t *behaviors; /* STEER_* bits */
	uint32_t *group;     /* mirror of the parameters' group for the flocking loop */
	uint32_t *param_set; /* index of the vehicle's parameters in the shared table */
	double *px, *py;     /* position */
	double *vx, *vy;     /* velocity, units/s */
	double *hx, *hy;     /* unit heading from the last non-zero velocity */
	double *fx, *fy;     /* steering force applied in the last step (debug aid) */
	uint32_t *extra;     /* slot of the vehicle's steer_vehicle_state, or STEER_NO_EXTRA */
} steer_vehicles;

#define STEER_NO_EXTRA UINT32_MAX

typedef struct steer_obstacle {
	uint32_t id;
	double x, y, vx, vy, r;
} steer_obstacle;

typedef struct steer_world_config {
	double width, height; /* the world spans [0,width] x [0,height] */
	steer_edges edges;
	double tick_rate; /* Hz; dt = 1 / tick_rate */
	uint64_t seed;
	size_t max_vehicles; /* 0 = no limit */
	/* Bodies are solid: after every tick no two vehicles overlap, and none overlaps an
	 * obstacle or crosses a wall, beyond 1% of the smaller radius. */
	bool solid;
	/* The world's bounds are walls that keep every vehicle inside. */
	bool contain;
} steer_world_config;

STEER_API steer_world_config steer_world_config_default(void);
/* STEER_OK when valid, else INVALID with a message naming the bad field in err. */
STEER_API steer_status steer_world_config_check(const steer_world_config *cfg, char *err,
                                                size_t errlen);
/* The largest radius a body (a vehicle or a circle) may have within these bounds: half
 * the shorter side in a bounce world (it fits inside), a quarter in a wrap world (two
 * bodies can always stand apart round it), unbounded without edges. */
STEER_API double steer_world_radius_max(const steer_world_config *cfg);
/* STEER_OK when radius is at most steer_world_radius_max, else INVALID with a message
 * saying the bound in err. */
STEER_API steer_status steer_world_radius_check(const steer_world_config *cfg, double radius,
                                                char *err, size_t errlen);

typedef struct steer_world steer_world;

/* NULL when cfg is invalid (steer_world_config_check says why) or memory runs out. */
STEER_API steer_world *steer_world_create(const steer_world_config *cfg);
STEER_API void steer_world_destroy(steer_world *w);

/* Begins the world anew: removes every vehicle and obstacle, sets the tick to 0,
 * reseeds the generator from the current seed and starts ids again at 1, so that
 * the same commands after a reset replay identically, ids included. Within one
 * such lifetime an id is never reused. */
STEER_API void steer_world_reset(steer_world *w);
STEER_API void steer_world_set_seed(steer_world *w, uint64_t seed);
STEER_API steer_status steer_world_set_bounds(steer_world *w, double width, double height,
                                              steer_edges edges);
STEER_API steer_status steer_world_set_tick_rate(steer_world *w, double hz);
/* The world rules of steer_world_config: solid bodies, contained by the bounds. */
STEER_API void steer_world_set_solid(steer_world *w, bool on);
/* Contain rebuilds the world's segments: NOMEM (the rule unchanged) when it cannot. */
STEER_API steer_status steer_world_set_contain(steer_world *w, bool on);
STEER_API void steer_world_set_max_vehicles(steer_world *w, size_t max);
/* Caps the vector lanes the world's tick may use: the best form this CPU
 * runs at or below level; returns the level in effect. Every form gives the same
 * bits, so this changes speed, never results. A new world takes the CPU's best.
 * Not while a step runs. */
STEER_API steer_simd_level steer_world_set_simd(steer_world *w, steer_simd_level level);
STEER_API steer_simd_level steer_world_simd(const steer_world *w);
/* The most threads a world's tick may be split over. */
#define STEER_MAX_THREADS 256
/* The threads a big world's tick (grid, cell sort, re-sort, forces, moves) is split
 * over, 1 to STEER_MAX_THREADS: the world keeps a pool of threads - 1 workers,
 * started here and stopped when the count changes or the world is destroyed. The
 * result is bit-identical for every count. STEER_ERR_INVALID for a count out of
 * range, STEER_ERR_NOMEM when the threads cannot be started (out of memory or of
 * threads); the world then keeps its count. */
STEER_API steer_status steer_world_set_threads(steer_world *w, int threads);
STEER_API int steer_world_threads(const steer_world *w);

/* Advances one fixed timestep. Every steering force is computed from the state at
 * the start of the tick before anything moves; then, in a solid world, bodies that
 * overlap are pushed apart. Returns STEER_ERR_NOMEM if the neighbour grid could not
 * grow (the world is then not advanced) or the solid rule's scratch could not (the
 * tick then ends with the moves uncorrected). */
STEER_API steer_status steer_world_step(steer_world *w);

/* Where ticks' time goes, for benchmarks: wall time in each phase of
 * steer_world_step, summed over the ticks since timing was turned on. */
typedef struct steer_phase_times {
	long ticks;
	double index_s;  /* the grid, the sort within cells, the tick's order, re-sorts */
	double forces_s; /* every steering force */
	double moves_s;  /* moving vehicles and obstacles */
	double bodies_s; /* the solid rule: pushing overlapping bodies apart */
	/* Of the four, the stepping thread's time outside the work it shares with the
	 * world's other threads: what more threads would not shorten (summed over the
	 * ticks stepped with two threads or more; 0 with one). In a world that is one
	 * region of many, waits for the other regions count here too. */
	double alone_s;
} steer_phase_times;

/* Turns phase timing on (from zero) or off; off when a world is created. */
STEER_API void steer_world_time_phases(steer_world *w, bool on);
STEER_API steer_phase_times steer_world_phase_times(const steer_world *w);

STEER_API const steer_world_config *steer_world_config_get(const steer_world *w);
STEER_API uint64_t steer_world_tick(const steer_world *w);
STEER_API double steer_world_dt(const steer_world *w);
STEER_API const steer_vehicles *steer_world_vehicles(const steer_world *w);
STEER_API const steer_obstacle *steer_world_obstacles(const steer_world *w, size_t *count);
/* The world's generator, for callers that place things at random (spawn flock,
 * scenarios) so that those placements are part of the deterministic state. */
STEER_API steer_rng *steer_world_rng(steer_world *w);

/* Shortest displacement from a to b: across the seam in a wrap world. */
STEER_API steer_vec2 steer_world_delta(const steer_world *w, steer_vec2 a, steer_vec2 b);

/* --- vehicles ------------------------------------------------------------------ */

/* Adds a vehicle; *id_out receives its id. prm NULL means defaults. A position
 * outside the bounds is brought in by the edge rule (wrapped or clamped). Fails with
 * INVALID (bad parameters or a non-finite position), LIMIT or NOMEM. */
STEER_API steer_status steer_vehicle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel,
                                         const steer_params *prm, uint32_t *id_out);
/* How many vehicles can still be added: the room max_vehicles leaves, and the ids and
 * slots left however big the machine. */
STEER_API size_t steer_vehicles_room(const steer_world *w);
/* Adds n vehicles at pos[k] moving at vel[k], as n steer_vehicle_add calls would,
 * with one set of parameters (prm NULL: defaults) and the behaviours that need no
 * per-vehicle state turned on (STEER_AVOID, STEER_FLOCK; others are INVALID). Their
 * ids are consecutive from *first_id. All or nothing: INVALID, LIMIT or NOMEM leave
 * the world unchanged. One check and one parameter lookup for all n, which is what
 * makes a big spawn fast. A world that is one region of a bigger one (over MPI
 * ranks) keeps only those in its region, spending every id. */
STEER_API steer_status steer_vehicles_add(steer_world *w, size_t n, const steer_vec2 *pos,
                                          const steer_vec2 *vel, const steer_params *prm,
                                          uint32_t behaviors, uint32_t *first_id);
/* Removes a vehicle, an obstacle, a wall or a polygon. Pursuers and evaders of a removed vehicle
 * drop that behaviour, as do its followers, hiders and interposers. */
STEER_API steer_status steer_remove(steer_world *w, uint32_t id);
/* Takes a vehicle out of this world without touching those that refer to it (its
 * pursuers keep pursuing it): for a world that holds one region of a bigger one,
 * where the vehicle lives on in another region. NOENT for no such vehicle. */
STEER_API steer_status steer_vehicle_detach(steer_world *w, uint32_t id);
/* Index into steer_vehicles, or -1 when no vehicle has that id (a lookup, not an
 * error). */
STEER_API long steer_vehicle_index(const steer_world *w, uint32_t id);
STEER_API const steer_vehicle_state *steer_vehicle_get(const steer_world *w, uint32_t id);
/* Targets, chases, wander angle and path of the vehicle at index i: all zero for a
 * vehicle that never had any (no memory is spent on those). */
STEER_API const steer_vehicle_state *steer_vehicle_state_at(const steer_world *w, size_t i);
/* The parameters of the vehicle at index i (shared, read-only: change them with
 * steer_vehicle_set_params). */
STEER_API const steer_params *steer_vehicle_params_at(const steer_world *w, size_t i);
/* The vehicle at index i's smoothed heading (steer_smooth_state) into *out when its
 * heading_smoothing is on and it has one; else false, and it is shown by its
 * velocity as before. */
STEER_API bool steer_vehicle_display_heading(const steer_world *w, size_t i, steer_vec2 *out);
/* The same by id; NULL for an unknown id. */
STEER_API const steer_params *steer_vehicle_params(const steer_world *w, uint32_t id);
/* Distinct parameter sets in use (for memory accounting). */
STEER_API size_t steer_world_param_sets(const steer_world *w);

/* How well the flockers (vehicles with the flock behaviour) keep flying together:
 * their mean speed, and their polarization, the length of the mean of their unit
 * headings (1: all head the same way; near 0: every way, or milling). Both 0 when
 * nothing flocks. */
typedef struct steer_flock_health {
	size_t flockers;
	double mean_speed;   /* units/s */
	double polarization; /* 0..1 */
} steer_flock_health;

STEER_API steer_flock_health steer_world_flock_health(const steer_world *w);
/* What the health is made of: parts of one world (cluster/ranks.c) add theirs. */
typedef struct steer_flock_totals {
	size_t flockers;
	double speed, hx, hy; /* sums of speeds and of unit headings */
} steer_flock_totals;
STEER_API steer_flock_totals steer_world_flock_totals(const steer_world *w);
STEER_API steer_flock_health steer_flock_health_of(const steer_flock_totals *f);

STEER_API steer_status steer_vehicle_set_params(steer_world *w, uint32_t id,
                                                const steer_params *prm);
STEER_API steer_status steer_vehicle_set_velocity(steer_world *w, uint32_t id, steer_vec2 vel);
STEER_API steer_status steer_vehicle_set_position(steer_world *w, uint32_t id, steer_vec2 pos);
/* Turns behaviour bits on or off without touching their targets. */
STEER_API steer_status steer_vehicle_enable(steer_world *w, uint32_t id, uint32_t bits, bool on);
/* seek / flee / arrive at a point: sets the target and turns the behaviour on. */
STEER_API steer_status steer_vehicle_target(steer_world *w, uint32_t id, uint32_t bit,
                                            steer_vec2 target);
/* pursue / evade another vehicle: sets it and turns the behaviour on. */
STEER_API steer_status steer_vehicle_chase(steer_world *w, uint32_t id, uint32_t bit,
                                           uint32_t other);
/* follow a leader at an offset in its frame (x along its heading, y to its left):
 * sets them and turns follow on. NOENT for an unknown vehicle, INVALID for the
 * vehicle itself or an offset beyond STEER_MAX_COORD. */
STEER_API steer_status steer_vehicle_follow(steer_world *w, uint32_t id, uint32_t leader,
                                            steer_vec2 offset);
/* hide from a hunter: sets it and turns hide on. NOENT, INVALID as for chase. */
STEER_API steer_status steer_vehicle_hide(steer_world *w, uint32_t id, uint32_t hunter);
/* interpose between a and b (two other vehicles, distinct): sets them and turns
 * interpose on. NOENT, INVALID. */
STEER_API steer_status steer_vehicle_interpose(steer_world *w, uint32_t id, uint32_t a, uint32_t b);
/* Appends a waypoint and turns path following on. */
STEER_API steer_status steer_vehicle_path_add(steer_world *w, uint32_t id, steer_vec2 point);
STEER_API steer_status steer_vehicle_path_clear(steer_world *w, uint32_t id);
STEER_API steer_status steer_vehicle_path_loop(steer_world *w, uint32_t id, bool loop);

/* --- restoring saved state ---------------------------------------------------- */

/* The whole-world bookkeeping a save file needs besides vehicles and obstacles. */
typedef struct steer_world_meta {
	uint64_t tick;
	uint32_t next_id;
	steer_rng rng;
} steer_world_meta;

STEER_API steer_world_meta steer_world_meta_get(const steer_world *w);
/* INVALID when next_id is 0 or not above every live id. */
STEER_API steer_status steer_world_meta_set(steer_world *w, const steer_world_meta *m);

/* A vehicle exactly as it was, id and all: everything steer_vehicles holds for one
 * slot. The path's points are copied; the caller keeps its own. */
typedef struct steer_vehicle_record {
	uint32_t id;
	uint32_t behaviors;
	steer_vec2 pos, vel, heading, force;
	steer_params prm;
	steer_vehicle_state state;
} steer_vehicle_record;

/* Fills *out for the vehicle at index i (its path points stay owned by the world). */
STEER_API void steer_vehicle_record_get(const steer_world *w, size_t i, steer_vehicle_record *out);
/* Appends a vehicle with the record's id. INVALID for id 0, an id in use, or bad
 * fields; LIMIT/NOMEM as for steer_vehicle_add. */
STEER_API steer_status steer_vehicle_restore(steer_world *w, const steer_vehicle_record *r);
STEER_API steer_status steer_obstacle_restore(steer_world *w, const steer_obstacle *o);

/* --- obstacles ----------------------------------------------------------------- */

/* A circle; it drifts with vel and bounces off the bounds (unless edges are none).
 * Its radius is capped like a vehicle's: 0 < radius <= STEER_PARAM_MAX. */
STEER_API steer_status steer_obstacle_add(steer_world *w, steer_vec2 pos, steer_vec2 vel,
                                          double radius, uint32_t *id_out);
STEER_API const steer_obstacle *steer_obstacle_get(const steer_world *w, uint32_t id);

/* --- walls and polygons -------------------------------------------------------- */

/* A wall: a segment solid from both sides. In a wrap world it is drawn in world
 * coordinates (it does not take the short way round between its ends). */
typedef struct steer_wall {
	uint32_t id;
	steer_vec2 a, b;
} steer_wall;

#define STEER_MAX_POLYGON_POINTS 4096u

/* A closed polygon, convex or not, as given (either winding). Solid: vehicles stay
 * out of it. Containing (inside true): vehicles stay inside it; with several, inside
 * all of them. In a wrap world its points must lie within the bounds when it is
 * added; after a resize, the part of its inside beyond the bounds stops counting
 * (its edges still do). */
typedef struct steer_polygon {
	uint32_t id;
	bool inside;
	uint32_t count;
	steer_vec2 *points; /* owned by the world */
} steer_polygon;

/* Adds a wall from a to b; ids come from the vehicles' and obstacles' sequence.
 * INVALID for a non-finite end or a = b, LIMIT when ids run out, NOMEM. */
STEER_API steer_status steer_wall_add(steer_world *w, steer_vec2 a, steer_vec2 b, uint32_t *id_out);
/* Adds a polygon of n points (copied). INVALID, with a message in err, for fewer
 * than 3 or more than STEER_MAX_POLYGON_POINTS points, a non-finite point, repeated
 * consecutive points, no area, crossing edges, or (wrap world) a point outside the
 * bounds; LIMIT, NOMEM. */
STEER_API steer_status steer_polygon_add(steer_world *w, const steer_vec2 *pts, size_t n,
                                         bool inside, uint32_t *id_out, char *err, size_t errlen);
STEER_API const steer_wall *steer_world_walls(const steer_world *w, size_t *count);
STEER_API const steer_polygon *steer_world_polygons(const steer_world *w, size_t *count);
/* NULL when no wall / polygon has that id. */
STEER_API const steer_wall *steer_wall_get(const steer_world *w, uint32_t id);
STEER_API const steer_polygon *steer_polygon_get(const steer_world *w, uint32_t id);
/* Restores a saved wall / polygon with its id: INVALID for id 0 or in use, or as
 * for the add functions (but a polygon may lie beyond a wrap world's bounds). */
STEER_API steer_status steer_wall_restore(steer_world *w, const steer_wall *wall);
STEER_API steer_status steer_polygon_restore(steer_world *w, const steer_polygon *p, char *err,
                                             size_t errlen);
/* Changes with the static geometry (walls, polygons, bounds, contain): a client that
 * has seen this value has seen the current geometry. Never 0, and one sequence for
 * every world of the process: a world swapped in (load) never repeats a value. */
STEER_API uint64_t steer_world_geometry_version(const steer_world *w);
/* The nearest point to p where a disc of that radius overlaps no obstacle circle,
 * wall or polygon and stays inside the contained bounds: p itself when free. NOENT
 * when there is no room for the disc anywhere, NOMEM. */
STEER_API steer_status steer_world_free_point(const steer_world *w, steer_vec2 p, double radius,
                                              steer_vec2 *out);

#ifdef __cplusplus
}
#endif

#endif
