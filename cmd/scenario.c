#include "scenario.h"

#include <math.h>
#include <string.h>

#include "behaviors.h"
#include "steer/goto.h"

const char *const steer_scenario_names[] = {
    "seek",     "flee",    "arrive", "pursuit",     "avoid",     "path", "flock", "circle",
    "crossing", "doorway", "maze",   "pedestrians", "formation", "hide", NULL,
};

steer_params steer_flock_params(void)
{
	steer_params p = steer_params_default();
	p.max_speed = 50.0;
	p.max_force = 50.0;
	p.sight_distance = 100.0;
	p.too_close_distance = 30.0;
	/* Measured (152 boids, 1000 x 600, seeds 1-5): cohesion by seek at weight 1
	 * collapses the flock into a milling ball; a light cohesion with a stronger
	 * alignment, seeing only ahead, gathers them (neighbours ~8 -> 12-19 in a
	 * minute) into groups that stay aligned (polarization 0.99-1.00). */
	p.separation_weight = 1.0;
	p.alignment_weight = 2.0;
	p.cohesion_weight = 0.05;
	p.field_of_view = true;
	/* Never binds at these densities; in a crush it keeps a tick's cost bounded. */
	p.max_neighbours = 48;
	/* Without it the flock drains (separation takes the vehicle's own velocity off
	 * once per close neighbour, alignment copies the slowed mean, nothing speeds
	 * them up again) and within two minutes sits still, pointing every way. */
	p.cruise_speed = 40.0;
	return p;
}

static steer_vec2 centre(const steer_world_config *c)
{
	return v2(c->width * 0.5, c->height * 0.5);
}

static steer_status one_with_target(steer_world *w, uint32_t bit, steer_vec2 start,
                                    steer_vec2 target, const steer_params *prm)
{
	uint32_t id;
	steer_status st = steer_vehicle_add(w, start, v2(0, 0), prm, &id);
	return st != STEER_OK ? st : steer_vehicle_target(w, id, bit, target);
}

static steer_status load_seek(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	return one_with_target(w, STEER_SEEK, v2(c->width * 0.2, c->height * 0.7),
	                       v2(c->width * 0.7, c->height * 0.4), NULL);
}

static steer_status load_flee(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_params p = steer_params_default();
	p.panic_distance = fmin(c->width, c->height) * 0.3;
	return one_with_target(w, STEER_FLEE, v2(c->width * 0.55, c->height * 0.52), centre(c), &p);
}

static steer_status load_arrive(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	return one_with_target(w, STEER_ARRIVE, v2(c->width * 0.1, c->height * 0.1), centre(c),
	                       NULL);
}

static steer_status load_pursuit(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_params slow = steer_params_default();
	slow.max_speed = 60.0;
	uint32_t wanderer, pursuer, evader;
	steer_status st;
	if ((st = steer_vehicle_add(w, centre(c), v2(30, 0), &slow, &wanderer)) ||
	    (st = steer_vehicle_enable(w, wanderer, STEER_WANDER, true)) ||
	    (st = steer_vehicle_add(w, v2(c->width * 0.1, c->height * 0.1), v2(0, 0), NULL,
	                            &pursuer)) ||
	    (st = steer_vehicle_chase(w, pursuer, STEER_PURSUE, wanderer)) ||
	    (st = steer_vehicle_add(w, v2(c->width * 0.2, c->height * 0.3), v2(0, 0), NULL,
	                            &evader)) ||
	    (st = steer_vehicle_chase(w, evader, STEER_EVADE, pursuer)))
		return st;
	return STEER_OK;
}

static steer_status load_avoid(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_rng *rng = steer_world_rng(w);
	double per_tick = c->tick_rate; /* the seed's speeds are per frame */
	steer_status st;
	for (int k = 0; k < 5; k++) {
		double r = steer_rng_range(rng, 15.0, 45.0);
		steer_vec2 pos = v2(steer_rng_range(rng, r, c->width - r),
		                    steer_rng_range(rng, r, c->height - r));
		steer_vec2 vel = v2(steer_rng_range(rng, -0.5, 0.5) * per_tick,
		                    steer_rng_range(rng, -0.5, 0.5) * per_tick);
		if ((st = steer_obstacle_add(w, pos, vel, r, NULL)))
			return st;
	}
	uint32_t id;
	if ((st = steer_vehicle_add(w, v2(5, 5), v2(50, 30), NULL, &id)))
		return st;
	return steer_vehicle_enable(w, id, STEER_WANDER | STEER_AVOID, true);
}

static steer_status load_path(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	uint32_t id;
	steer_status st =
	    steer_vehicle_add(w, v2(c->width * 0.2, c->height * 0.2), v2(0, 0), NULL, &id);
	/* A pentagon around the centre, the kind of loop a few clicks make. */
	for (int k = 0; k < 5 && st == STEER_OK; k++) {
		double a = -STEER_TAU / 4 + k * (STEER_TAU / 5);
		steer_vec2 pt =
		    v2(c->width * (0.5 + 0.35 * cos(a)), c->height * (0.5 + 0.35 * sin(a)));
		st = steer_vehicle_path_add(w, id, pt);
	}
	return st != STEER_OK ? st : steer_vehicle_path_loop(w, id, true);
}

/* The flock scenario's birds. One kind of boid in a wrap world ends as one band, every
 * bird heading the same way (polarization 0.99 within a minute, issue 38): nothing
 * turns a group once it is lined up. So the scenario has several kinds (groups: a
 * boid flocks with its own kind only), and a quarter of each kind also wander, each
 * its own way: they turn their group, and pull it apart when two lead different
 * ways; groups of a kind meet and merge. Picked by a search over these settings for
 * groups that stay several and differently headed (tests/test_flock_health.c checks
 * it; the figures are in docs/BEHAVIORS.md#the-flock-scenario): a short sight (40)
 * and few neighbours (6) keep groups small enough to split; the wanderers' weight (8)
 * lets them lead, their small jitter (0.2 rad a tick) turns them slowly. */
static steer_params flock_scenario_params(uint32_t kind, bool wanders)
{
	steer_params p = steer_flock_params();
	p.group = kind;
	p.sight_distance = 40.0;
	p.too_close_distance = 12.0;
	p.separation_weight = 0.6;
	p.cohesion_weight = 0.1;
	p.field_of_view = false;
	p.max_neighbours = 6;
	p.max_force = 80.0;
	p.cruise_weight = 4.0;
	if (wanders) {
		p.wander_weight = 8.0;
		p.wander_range = 0.2;
		p.wander_radius = 10.0;
	}
	return p;
}

static steer_status load_flock(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_rng *rng = steer_world_rng(w);
	/* One bird per STEER_FLOCK_AREA square units (200 in the default 1000 x 600). */
	int n = (int)fmin(400.0, fmax(40.0, c->width * c->height / STEER_FLOCK_AREA));
	int kinds = (int)fmin(STEER_FLOCK_KINDS, fmax(1.0, n / STEER_FLOCK_PER_KIND));
	for (int k = 0; k < n; k++) {
		bool wanders = (k / kinds) % STEER_FLOCK_WANDER_EVERY == 0;
		steer_params p = flock_scenario_params(1 + (uint32_t)(k % kinds), wanders);
		steer_vec2 pos =
		    v2(steer_rng_range(rng, 0, c->width), steer_rng_range(rng, 0, c->height));
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double s = steer_rng_range(rng, 0.2, 1.0) * p.max_speed;
		uint32_t id;
		steer_status st = steer_vehicle_add(w, pos, v2(cos(a) * s, sin(a) * s), &p, &id);
		if (st == STEER_OK)
			st = steer_vehicle_enable(
			    w, id, STEER_FLOCK | (wanders ? STEER_WANDER : 0u), true);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

/* The walkers of the crowd scenarios: the default vehicle (radius 5), keeping a
 * clearance of 2 from walls and obstacles (the default 20 would close a door narrower
 * than 50 to them). */
static steer_params walker_params(uint32_t group)
{
	steer_params p = steer_params_default();
	p.avoid_buffer = STEER_WALKER_BUFFER;
	p.group = group;
	return p;
}

/* A walker arriving at its goal and avoiding the others. */
static steer_status add_walker(steer_world *w, steer_vec2 start, steer_vec2 goal, uint32_t group)
{
	steer_params p = walker_params(group);
	uint32_t id;
	steer_status st = steer_vehicle_add(w, start, v2(0, 0), &p, &id);
	if (st == STEER_OK)
		st = steer_vehicle_enable(w, id, STEER_AVOID, true);
	return st != STEER_OK ? st : steer_vehicle_target(w, id, STEER_ARRIVE, goal);
}

steer_status steer_scenario_circle(steer_world *w, int n)
{
	const steer_world_config *c = steer_world_config_get(w);
	double r = STEER_CIRCLE_SPACING * n / STEER_TAU;
	if (n < 1 || r > 0.5 * fmin(c->width, c->height))
		return STEER_ERR_INVALID;
	for (int k = 0; k < n; k++) {
		double a = STEER_TAU * k / n;
		steer_vec2 at = v2(cos(a) * r, sin(a) * r);
		steer_status st =
		    add_walker(w, v2_add(centre(c), at), v2_sub(centre(c), at), (uint32_t)k % 4);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

int steer_scenario_circle_count(const steer_world_config *c)
{
	double r = STEER_CIRCLE_FILL * 0.5 * fmin(c->width, c->height);
	return (int)fmin(STEER_CIRCLE_MAX, floor(STEER_TAU * r / STEER_CIRCLE_SPACING));
}

static steer_status load_circle(steer_world *w)
{
	int n = steer_scenario_circle_count(steer_world_config_get(w));
	return n < 2 ? STEER_OK : steer_scenario_circle(w, n);
}

/* Two square blocks of walkers, one from the left to the right, one from the bottom
 * to the top, that meet at right angles in the middle. Each keeps its place in the
 * block: its goal is its start moved across the world. */
static steer_status load_crossing(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	double side = 0.3 * fmin(c->width, c->height);
	int per_row = (int)fmin(12.0, floor(side / STEER_CROWD_SPACING));
	if (per_row < 1)
		return STEER_OK;
	double half = 0.5 * STEER_CROWD_SPACING * (per_row - 1);
	double cx = 0.5 * c->width, cy = 0.5 * c->height;
	double from_x = 0.5 * side, from_y = c->height - 0.5 * side;
	for (int i = 0; i < per_row; i++)
		for (int j = 0; j < per_row; j++) {
			double u = STEER_CROWD_SPACING * i - half,
			       v = STEER_CROWD_SPACING * j - half;
			steer_status st = add_walker(w, v2(from_x + u, cy + v),
			                             v2(c->width - from_x + u, cy + v), 1);
			if (st == STEER_OK)
				st = add_walker(w, v2(cx + u, from_y + v),
				                v2(cx + u, c->height - from_y + v), 2);
			if (st != STEER_OK)
				return st;
		}
	return STEER_OK;
}

/* A walker that leaves by the door: a path through its two points, arriving at the
 * goal (path arrives at its last waypoint). */
static steer_status add_leaver(steer_world *w, steer_vec2 start, steer_vec2 door_in,
                               steer_vec2 door_out, steer_vec2 goal)
{
	steer_params p = walker_params(1);
	uint32_t id;
	steer_status st = steer_vehicle_add(w, start, v2(0, 0), &p, &id);
	if (st == STEER_OK)
		st = steer_vehicle_enable(w, id, STEER_AVOID, true);
	if (st == STEER_OK)
		st = steer_vehicle_path_add(w, id, door_in);
	if (st == STEER_OK)
		st = steer_vehicle_path_add(w, id, door_out);
	return st != STEER_OK ? st : steer_vehicle_path_add(w, id, goal);
}

/* A room of walls in the left half with a door in its right wall, a block of
 * walkers inside, each arriving at its mirror image in the right half: they have to
 * leave through the door. */
static steer_status load_doorway(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	double x0 = 0.05 * c->width, x1 = 0.45 * c->width;
	double y0 = 0.15 * c->height, y1 = 0.85 * c->height, cy = 0.5 * c->height;
	double door = fmin(STEER_DOOR_WIDTH, 0.5 * (y1 - y0));
	const steer_vec2 walls[5][2] = {
	    {v2(x0, y0), v2(x1, y0)},
	    {v2(x1, y1), v2(x0, y1)},
	    {v2(x0, y1), v2(x0, y0)},
	    {v2(x1, y0), v2(x1, cy - 0.5 * door)},
	    {v2(x1, cy + 0.5 * door), v2(x1, y1)},
	};
	for (int k = 0; k < 5; k++) {
		steer_status st = steer_wall_add(w, walls[k][0], walls[k][1], NULL);
		if (st != STEER_OK)
			return st;
	}
	/* The block, 20 u from the walls, at most 10 x 10. */
	double room = fmin(x1 - x0, y1 - y0) - 2 * STEER_CROWD_SPACING;
	int per_row = (int)fmin(10.0, floor(room / STEER_CROWD_SPACING) + 1);
	double half = 0.5 * STEER_CROWD_SPACING * (per_row - 1);
	double bx = 0.5 * (x0 + x1);
	/* Avoidance only looks a few seconds ahead: a walker heading straight for its goal
	 * would press against the wall beside the door. So each first makes for a point in
	 * front of the door, then one past it, then its goal. */
	steer_vec2 door_in = v2(x1 - STEER_CROWD_SPACING, cy),
	           door_out = v2(x1 + STEER_CROWD_SPACING, cy);
	for (int i = 0; i < per_row; i++)
		for (int j = 0; j < per_row; j++) {
			steer_vec2 at = v2(bx + STEER_CROWD_SPACING * i - half,
			                   cy + STEER_CROWD_SPACING * j - half);
			steer_status st =
			    add_leaver(w, at, door_in, door_out, v2(c->width - at.x, at.y));
			if (st != STEER_OK)
				return st;
		}
	return STEER_OK;
}

/* A perfect maze (one way between any two cells) of cells about STEER_MAZE_CELL
 * across filling the world, carved by a depth-first walk drawn from the world's
 * generator; a walker in each corner goes (goto) to the opposite corner, which no
 * straight line reaches. */
static steer_status load_maze(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	int cols = (int)fmin(64.0, fmax(2.0, floor(c->width / STEER_MAZE_CELL)));
	int rows = (int)fmin(64.0, fmax(2.0, floor(c->height / STEER_MAZE_CELL)));
	double cw = c->width / cols, ch = c->height / rows;
	/* Per cell: bit 0 its right side open, bit 1 its top side open, bit 2 visited. */
	unsigned char cell[64 * 64];
	int stack[64 * 64], depth = 0;
	memset(cell, 0, sizeof cell);
	steer_rng *rng = steer_world_rng(w);
	stack[depth++] = 0;
	cell[0] = 4;
	while (depth) {
		int at = stack[depth - 1], x = at % cols, y = at / cols;
		int next[4], n = 0;
		const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
		for (int k = 0; k < 4; k++) {
			int nx = x + dx[k], ny = y + dy[k];
			if (nx >= 0 && ny >= 0 && nx < cols && ny < rows &&
			    !(cell[ny * cols + nx] & 4))
				next[n++] = k;
		}
		if (n == 0) {
			depth--;
			continue;
		}
		int k = next[(int)fmin(n - 1, floor(steer_rng_unit(rng) * n))];
		int to = (y + dy[k]) * cols + x + dx[k];
		/* The side between the two cells, kept by the lower-left one. */
		if (dx[k])
			cell[dx[k] > 0 ? at : to] |= 1;
		else
			cell[dy[k] > 0 ? at : to] |= 2;
		cell[to] |= 4;
		stack[depth++] = to;
	}
	steer_status st = STEER_OK;
	for (int y = 0; y < rows && st == STEER_OK; y++)
		for (int x = 0; x < cols && st == STEER_OK; x++) {
			double x0 = x * cw, y0 = y * ch;
			if (x + 1 < cols && !(cell[y * cols + x] & 1))
				st = steer_wall_add(w, v2(x0 + cw, y0), v2(x0 + cw, y0 + ch), NULL);
			if (st == STEER_OK && y + 1 < rows && !(cell[y * cols + x] & 2))
				st = steer_wall_add(w, v2(x0, y0 + ch), v2(x0 + cw, y0 + ch), NULL);
		}
	const int corner[4][2] = {{0, 0}, {cols - 1, rows - 1}, {cols - 1, 0}, {0, rows - 1}};
	for (int k = 0; k < 4 && st == STEER_OK; k++) {
		const int *from = corner[k], *to = corner[k ^ 1];
		steer_params p = walker_params((uint32_t)k + 1);
		uint32_t id;
		st = steer_vehicle_add(w, v2((from[0] + 0.5) * cw, (from[1] + 0.5) * ch), v2(0, 0),
		                       &p, &id);
		if (st == STEER_OK)
			st = steer_vehicle_enable(w, id, STEER_AVOID, true);
		if (st == STEER_OK)
			st = steer_vehicle_goto(w, id, v2((to[0] + 0.5) * cw, (to[1] + 0.5) * ch),
			                        NULL);
	}
	return st;
}

/* OpenSteer's Pedestrian: walkers on one looping corridor, an octagon round the
 * centre, half walking it forward and half backward, avoiding each other. They start
 * spread along it at random, each side of its middle line. */
static steer_status load_pedestrians(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_rng *rng = steer_world_rng(w);
	double r = 0.38 * fmin(c->width, c->height);
	steer_vec2 pts[8];
	double length = 0.0;
	for (int k = 0; k < 8; k++) {
		double a = STEER_TAU * (k + 0.5) / 8;
		pts[k] = v2_add(centre(c), v2(cos(a) * r, sin(a) * r));
		if (k)
			length += v2_len(v2_sub(pts[k], pts[k - 1]));
	}
	length += v2_len(v2_sub(pts[0], pts[7]));
	/* One walker per 2.5 spacings of corridor: a crowd, not a queue. */
	int n = (int)fmin(STEER_PEDESTRIANS_MAX, floor(length / (2.5 * STEER_CROWD_SPACING)));
	for (int k = 0; k < n; k++) {
		steer_params p = walker_params(k % 2 ? 2 : 1);
		p.max_speed = 40.0;
		p.max_force = 80.0;
		p.path_radius = STEER_PEDESTRIANS_RADIUS;
		p.path_lookahead = 1.5;
		p.path_direction = k % 2 ? STEER_PATH_BACKWARD : STEER_PATH_FORWARD;
		p.heading_smoothing = 0.25;
		/* A point on the octagon at random, moved off its middle line. */
		double at = steer_rng_range(rng, 0.0, 8.0);
		int seg = (int)at % 8;
		steer_vec2 a = pts[seg], b = pts[(seg + 1) % 8];
		steer_vec2 on = v2_add(a, v2_scale(v2_sub(b, a), at - floor(at)));
		steer_vec2 side = v2_perp(v2_norm(v2_sub(b, a)));
		double off = steer_rng_range(rng, -0.6, 0.6) * STEER_PEDESTRIANS_RADIUS;
		uint32_t id;
		steer_status st =
		    steer_vehicle_add(w, v2_add(on, v2_scale(side, off)), v2(0, 0), &p, &id);
		for (int q = 0; q < 8 && st == STEER_OK; q++)
			st = steer_vehicle_path_add(w, id, pts[q]);
		if (st == STEER_OK)
			st = steer_vehicle_path_loop(w, id, true);
		if (st == STEER_OK)
			st = steer_vehicle_enable(w, id, STEER_AVOID, true);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

/* Whether a circle at `at` of radius r would leave a gap narrower than
 * STEER_SCENARIO_GAP to one of the circles from index `first` on: an avoider of the
 * scenario's size heading into such a gap can neither pass nor turn away from it. */
static bool too_near(steer_world *w, size_t first, steer_vec2 at, double r)
{
	size_t n;
	const steer_obstacle *o = steer_world_obstacles(w, &n);
	for (size_t k = first; k < n; k++)
		if (v2_len(v2_sub(at, v2(o[k].x, o[k].y))) < r + o[k].r + STEER_SCENARIO_GAP)
			return true;
	return false;
}

/* n still circles of radius 20-40 at random, clear of the centre's r and of the
 * bounds by 2 radii, for the group scenarios to steer among. */
static steer_status add_still_circles(steer_world *w, int n, double clear)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_rng *rng = steer_world_rng(w);
	size_t first;
	steer_world_obstacles(w, &first);
	for (int k = 0; k < n; k++) {
		double r = steer_rng_range(rng, 20.0, 40.0);
		steer_vec2 at;
		int tries = 0;
		do {
			at = v2(steer_rng_range(rng, 2 * r, c->width - 2 * r),
			        steer_rng_range(rng, 2 * r, c->height - 2 * r));
		} while ((v2_len(v2_sub(at, centre(c))) < clear + r || too_near(w, first, at, r)) &&
		         ++tries < 64);
		steer_status st = steer_obstacle_add(w, at, v2(0, 0), r, NULL);
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

/* A leader wandering among still circles with avoid on, and a wedge of six
 * following it, avoiding too: they keep their places, bend round the circles and
 * close up again. The followers are faster, so that they can catch up. */
static steer_status load_formation(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_status st;
	steer_params lead = steer_params_default();
	lead.max_speed = 35.0;
	lead.max_force = 60.0;
	lead.wander_distance = 20.0;
	steer_params follower = steer_params_default();
	follower.max_speed = 70.0;
	follower.avoid_buffer = STEER_WALKER_BUFFER;
	uint32_t leader;
	if ((st = steer_vehicle_add(w, centre(c), v2(20, 0), &lead, &leader)) ||
	    (st = steer_vehicle_enable(w, leader, STEER_WANDER | STEER_AVOID, true)))
		return st;
	const int n = 6;
	const double spacing = 30.0;
	for (int k = 0; k < n; k++) {
		steer_vec2 off = steer_formation_offset(STEER_FORMATION_WEDGE, (uint32_t)k,
		                                        (uint32_t)n, spacing);
		uint32_t id;
		if ((st =
		         steer_vehicle_add(w, v2_add(centre(c), off), v2(20, 0), &follower, &id)) ||
		    (st = steer_vehicle_follow(w, id, leader, off)) ||
		    (st = steer_vehicle_enable(w, id, STEER_AVOID, true)))
			return st;
	}
	return add_still_circles(w, 6, 150.0);
}

/* A hunter wandering among still circles, and five vehicles hiding from it behind
 * them, avoiding the circles on the way. */
static steer_status load_hide(steer_world *w)
{
	const steer_world_config *c = steer_world_config_get(w);
	steer_status st;
	steer_params hunter_p = steer_params_default();
	hunter_p.max_speed = 50.0;
	hunter_p.wander_distance = 20.0;
	steer_params hider = steer_params_default();
	hider.avoid_buffer = STEER_WALKER_BUFFER;
	hider.hide_reach = fmax(c->width, c->height);
	uint32_t hunter;
	if ((st = steer_vehicle_add(w, centre(c), v2(30, 0), &hunter_p, &hunter)) ||
	    (st = steer_vehicle_enable(w, hunter, STEER_WANDER | STEER_AVOID, true)))
		return st;
	for (int k = 0; k < 5; k++) {
		double a = STEER_TAU * k / 5;
		steer_vec2 at =
		    v2(c->width * (0.5 + 0.35 * cos(a)), c->height * (0.5 + 0.35 * sin(a)));
		uint32_t id;
		if ((st = steer_vehicle_add(w, at, v2(0, 0), &hider, &id)) ||
		    (st = steer_vehicle_hide(w, id, hunter)) ||
		    (st = steer_vehicle_enable(w, id, STEER_AVOID, true)))
			return st;
	}
	return add_still_circles(w, 8, 0.0);
}

/* Solid bodies in every scenario but the sky: birds of different kinds pass over and
 * under one another. Solid, crossing kinds that bump share their momentum and pull
 * every heading together (seeds 1-100: in 16 of 58,100 seconds, all groups flew
 * within 45 degrees of one another; not solid, in 1). */
static const struct {
	const char *name;
	steer_edges edges;
	bool solid; /* solid bodies */
	steer_status (*load)(steer_world *w);
} scenarios[] = {
    {"seek", STEER_EDGE_BOUNCE, true, load_seek},
    {"flee", STEER_EDGE_BOUNCE, true, load_flee},
    {"arrive", STEER_EDGE_BOUNCE, true, load_arrive},
    {"pursuit", STEER_EDGE_WRAP, true, load_pursuit},
    {"avoid", STEER_EDGE_BOUNCE, true, load_avoid},
    {"path", STEER_EDGE_BOUNCE, true, load_path},
    {"flock", STEER_EDGE_WRAP, false, load_flock},
    {"circle", STEER_EDGE_BOUNCE, true, load_circle},
    {"crossing", STEER_EDGE_BOUNCE, true, load_crossing},
    {"doorway", STEER_EDGE_BOUNCE, true, load_doorway},
    {"maze", STEER_EDGE_BOUNCE, true, load_maze},
    {"pedestrians", STEER_EDGE_BOUNCE, true, load_pedestrians},
    {"formation", STEER_EDGE_BOUNCE, true, load_formation},
    {"hide", STEER_EDGE_BOUNCE, true, load_hide},
};

steer_status steer_scenario_load(steer_world *w, const char *name)
{
	for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
		if (strcmp(scenarios[k].name, name) != 0)
			continue;
		const steer_world_config *c = steer_world_config_get(w);
		steer_world_reset(w);
		steer_status st =
		    steer_world_set_bounds(w, c->width, c->height, scenarios[k].edges);
		/* Solid as the table says, and contain off: each keeps to the bounds it sets. */
		steer_world_set_solid(w, scenarios[k].solid);
		steer_world_set_contain(w, false);
		if (st == STEER_OK)
			st = scenarios[k].load(w);
		if (st != STEER_OK)
			steer_world_reset(w); /* never leave half a scenario behind */
		return st;
	}
	return STEER_ERR_NOENT;
}
