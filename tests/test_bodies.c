/* The solid rule: after every tick no two vehicles overlap and none overlaps an
 * obstacle, beyond 1% of the smaller radius; crowds that press together come to
 * rest; with the rule off, bodies pass through each other as before. */
#include <stdio.h>

#include "check.h"
#include "testutil.h"

#define TOL 0.01

/* The deepest overlap between two vehicles, as a share of the smaller radius. */
static double worst_pair(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double worst = 0.0;
	for (size_t i = 0; i < v->count; i++)
		for (size_t j = i + 1; j < v->count; j++) {
			double ri = steer_vehicle_params_at(w, i)->radius;
			double rj = steer_vehicle_params_at(w, j)->radius;
			double d = dist(v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			double over = (ri + rj - d) / fmin(ri, rj);
			worst = over > worst ? over : worst;
		}
	return worst;
}

/* The deepest overlap of a vehicle with an obstacle, as a share of the smaller
 * radius. */
static double worst_circle(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t n = 0;
	const steer_obstacle *o = steer_world_obstacles(w, &n);
	double worst = 0.0;
	for (size_t i = 0; i < v->count; i++)
		for (size_t k = 0; k < n; k++) {
			double r = steer_vehicle_params_at(w, i)->radius;
			double d = dist(v2(v->px[i], v->py[i]), v2(o[k].x, o[k].y));
			double over = (r + o[k].r - d) / fmin(r, o[k].r);
			worst = over > worst ? over : worst;
		}
	return worst;
}

static double mean_speed(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	double sum = 0.0;
	for (size_t i = 0; i < v->count; i++)
		sum += hypot(v->vx[i], v->vy[i]);
	return v->count ? sum / (double)v->count : 0.0;
}

/* 200 vehicles arriving at one point from all round: a packed cluster with no
 * overlap at any tick after the first few, at rest once settled. */
static steer_world *arriving_crowd(bool solid)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_BOUNCE, 7);
	steer_world_set_solid(w, solid);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	for (int k = 0; k < 200; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		double r = steer_rng_range(rng, 200, 600);
		uint32_t id = add_vehicle(w, 1000 + r * cos(a), 1000 + r * sin(a), 0, 0, &p);
		if (steer_vehicle_target(w, id, STEER_ARRIVE, v2(1000, 1000)) != STEER_OK)
			abort();
	}
	return w;
}

static void two_hundred_arriving_pack_without_overlap_and_rest(void)
{
	steer_world *w = arriving_crowd(true);
	double worst = 0.0;
	int worst_tick = -1;
	for (int t = 0; t < 1800; t++) {
		step(w, 1);
		double o = worst_pair(w);
		if (t >= 5 && o > worst) {
			worst = o;
			worst_tick = t;
		}
	}
	CHECK(worst <= TOL, "overlap %.4f of the smaller radius at tick %d", worst, worst_tick);
	double speed = mean_speed(w);
	CHECK(speed < 0.01 * steer_params_default().max_speed,
	      "mean speed %.4f after 30 s: not at rest", speed);
	/* At rest for good: a further second changes little. */
	double rest = 0.0;
	for (int t = 0; t < 60; t++) {
		step(w, 1);
		rest = fmax(rest, mean_speed(w));
	}
	CHECK(rest < 0.01 * steer_params_default().max_speed, "mean speed rose to %.4f", rest);
	CHECK(worst_pair(w) <= TOL, "overlap %.4f once settled", worst_pair(w));
	/* Packed: the cluster is not much wider than 200 discs laid edge to edge. */
	const steer_vehicles *v = steer_world_vehicles(w);
	double far = 0.0;
	for (size_t i = 0; i < v->count; i++)
		far = fmax(far, dist(v2(v->px[i], v->py[i]), v2(1000, 1000)));
	CHECK(far < 110.0, "the farthest is %.1f from the point: not a packed cluster", far);
	steer_world_destroy(w);

	/* Without the rule they end on the point, every pair overlapping. */
	w = arriving_crowd(false);
	step(w, 1800);
	CHECK(worst_pair(w) > 1.0, "not solid, yet no pair overlaps (%.3f)", worst_pair(w));
	steer_world_destroy(w);
}

/* Two vehicles seeking each other's start head-on, without avoidance: they meet
 * and stop at the sum of their radii. */
static double head_on_closest(bool solid)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	steer_world_set_solid(w, solid);
	steer_params p = steer_params_default();
	uint32_t a = add_vehicle(w, 300, 300, 0, 0, &p);
	uint32_t b = add_vehicle(w, 700, 300, 0, 0, &p);
	if (steer_vehicle_target(w, a, STEER_SEEK, v2(700, 300)) != STEER_OK ||
	    steer_vehicle_target(w, b, STEER_SEEK, v2(300, 300)) != STEER_OK)
		abort();
	double closest = INFINITY;
	for (int t = 0; t < 600; t++) {
		step(w, 1);
		closest = fmin(closest, dist(pos(w, a), pos(w, b)));
	}
	steer_world_destroy(w);
	return closest;
}

static void a_head_on_pair_does_not_interpenetrate(void)
{
	double sum = 2 * steer_params_default().radius;
	double closest = head_on_closest(true);
	CHECK(closest >= sum * (1 - TOL / 2), "closest %.4f, radii sum %.1f", closest, sum);
	closest = head_on_closest(false);
	CHECK(closest < sum / 2, "not solid: closest %.4f, they should pass through", closest);
}

/* A vehicle spawned inside a circle is out of it after the first tick, and stays
 * out; so is one a moving circle runs over. */
static void spawned_inside_a_circle_is_pushed_out(void)
{
	steer_world *w = make_world(1000, 1000, STEER_EDGE_BOUNCE, 3);
	steer_params p = steer_params_default();
	uint32_t obs = 0;
	if (steer_obstacle_add(w, v2(500, 500), v2(0, 0), 40, &obs) != STEER_OK ||
	    steer_obstacle_add(w, v2(200, 800), v2(60, 0), 30, &obs) != STEER_OK)
		abort();
	add_vehicle(w, 510, 495, 0, 0, &p);
	add_vehicle(w, 500, 500, 0, 0, &p); /* on the very centre */
	uint32_t c = add_vehicle(w, 300, 800, 0, 0, &p);
	if (steer_vehicle_target(w, c, STEER_ARRIVE, v2(300, 800)) != STEER_OK)
		abort();
	step(w, 1);
	CHECK(worst_circle(w) <= TOL, "overlap %.4f with a circle after one tick", worst_circle(w));
	double worst = 0.0;
	for (int t = 0; t < 300; t++) {
		step(w, 1);
		worst = fmax(worst, fmax(worst_circle(w), worst_pair(w)));
	}
	CHECK(worst <= TOL, "overlap %.4f while the circle drove through", worst);
	CHECK(world_finite(w), "not finite");
	steer_world_destroy(w);
}

int main(void)
{
	RUN(two_hundred_arriving_pack_without_overlap_and_rest);
	RUN(a_head_on_pair_does_not_interpenetrate);
	RUN(spawned_inside_a_circle_is_pushed_out);
	return CHECK_DONE();
}
