/* RVO2's Circle (circle_layout.h) in a Steer world: the parameters that make a
 * Steer walker RVO2's agent, shared by `steer-bench --circle` and test_crowd. */
#ifndef STEER_CIRCLE_SCENE_H
#define STEER_CIRCLE_SCENE_H

#include "circle_layout.h"
#include "steer/world.h"

/* RVO2's agent in Steer's terms: its radius, its preferred speed as max_speed (RVO2's
 * maxSpeed of 2 only bounds what avoidance may ask for; the agents walk at 1), its
 * neighbours and horizon. RVO2 sets a velocity outright; a force that can reverse one
 * within a tick is the closest, and arriving slows within the last unit as RVO2's
 * preferred velocity does. */
static inline steer_params circle_params(void)
{
	steer_params p = steer_params_default();
	p.radius = CIRCLE_BODY;
	p.max_speed = CIRCLE_PACE;
	p.max_force = 2.0 * CIRCLE_PACE / CIRCLE_DT;
	p.slowing_radius = 1.0;
	p.avoid_horizon = CIRCLE_HORIZON;
	p.avoid_obstacle_horizon = CIRCLE_HORIZON;
	p.avoid_distance = CIRCLE_SIGHT;
	p.avoid_neighbours = CIRCLE_NEAREST;
	p.avoid_buffer = 0.0;
	return p;
}

/* The world the scene needs: its size, bounce edges, RVO2's time step, solid. */
static inline steer_world_config circle_config(const circle_layout *L, uint64_t seed)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = L->side;
	cfg.edges = STEER_EDGE_BOUNCE;
	cfg.tick_rate = 1.0 / CIRCLE_DT;
	cfg.seed = seed;
	cfg.solid = true;
	return cfg;
}

/* Agent a as a walker arriving at its goal with avoid on; *id gets its id. */
static inline steer_status circle_add_agent(steer_world *w, const circle_layout *L, long a,
                                            const steer_params *p, uint32_t *id)
{
	double x, y, gx, gy;
	circle_start(L, a, &x, &y);
	circle_goal(L, a, &gx, &gy);
	steer_status st = steer_vehicle_add(w, v2(x, y), v2(0, 0), p, id);
	if (st == STEER_OK)
		st = steer_vehicle_enable(w, *id, STEER_AVOID, true);
	if (st == STEER_OK)
		st = steer_vehicle_target(w, *id, STEER_ARRIVE, v2(gx, gy));
	return st;
}

#endif
