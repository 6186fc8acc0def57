#include "behaviors.h"

#include <math.h>

#include "steer/rng.h"

static steer_vec2 toward(const steer_agent *a, steer_vec2 dir_unit, double speed)
{
	return v2_sub(v2_scale(dir_unit, speed), a->v);
}

/* The steering that makes the change of velocity in one tick whatever the mass (the
 * force is divided by it): a heavy vehicle that got only a share of the change it
 * asked for would lag behind its desired speed and overshoot; a light one would get
 * more than it asked for and oscillate. max_force / mass still bounds the change. */
static steer_vec2 toward_exactly(const steer_agent *a, steer_vec2 dir_unit, double speed)
{
	return v2_scale(toward(a, dir_unit, speed), a->prm->mass);
}

steer_vec2 steer_seek(const steer_agent *a, steer_vec2 d)
{
	/* On the target there is no direction to seek: the desired velocity is zero. */
	return toward(a, v2_norm(d), a->prm->max_speed);
}

steer_vec2 steer_seek_within(const steer_agent *a, steer_vec2 d, double dt)
{
	double dist = v2_len(d);
	if (dist <= 0.0)
		return v2_scale(a->v, -a->prm->mass);
	/* Never more than the whole distance in one tick: with force to spare, a seeker
	 * lands on its target instead of jumping past it and back every tick. */
	return toward_exactly(a, v2_scale(d, 1.0 / dist), fmin(a->prm->max_speed, dist / dt));
}

steer_vec2 steer_flee(const steer_agent *a, steer_vec2 d)
{
	double l2 = v2_len2(d);
	double panic = a->prm->panic_distance;
	if (isfinite(panic) && l2 > panic * panic)
		return v2(0.0, 0.0);
	/* A threat exactly on top of us: run the way we already face. */
	steer_vec2 away = l2 > 0.0 ? v2_scale(d, -1.0 / sqrt(l2)) : a->h;
	return toward(a, away, a->prm->max_speed);
}

double steer_stopping_speed(const steer_params *p, double dist, double dt)
{
	double acc = p->max_force / p->mass;
	if (!(acc > 0.0))
		return 0.0; /* no force to brake with: ask for nothing, it changes nothing */
	/* The largest v with v dt + (v^2 / (2 acc) - v dt / 2) <= dist: one tick at v,
	 * then full braking tick by tick as the integrator does it (v += F dt, then
	 * x += v dt). That is sqrt(2 acc dist + h^2) - h with h = acc dt / 2, a little
	 * under the continuous sqrt(2 acc dist), which ticks overshoot; written without
	 * the subtraction, which loses every digit when h is large. */
	double h = acc * dt * 0.5, twice = 2.0 * acc * dist;
	return twice / (sqrt(twice + h * h) + h);
}

/* Arrive's desired speed at dist (> 0) from its point, slowing by decel. */
static double arrive_speed(const steer_params *p, uint8_t decel, double dist, double dt)
{
	double speed;
	if (decel == STEER_DECEL_LINEAR)
		speed = dist >= p->slowing_radius ? p->max_speed
		                                  : p->max_speed * dist / p->slowing_radius;
	else
		speed = fmin(dist / ((double)decel * 0.3), p->max_speed);
	/* The profile alone asks for speeds the vehicle cannot brake from in time when
	 * max_force is small against max_speed, and for more than the whole distance in
	 * one tick when it is large: either way it overshoots, or oscillates for ever. */
	speed = fmin(speed, steer_stopping_speed(p, dist, dt));
	return fmin(speed, dist / dt);
}

steer_vec2 steer_arrive(const steer_agent *a, steer_vec2 d, double dt)
{
	const steer_params *p = a->prm;
	double dist = v2_len(d);
	if (dist <= 0.0)
		return v2_scale(a->v, -p->mass);
	return toward_exactly(a, v2_scale(d, 1.0 / dist), arrive_speed(p, p->decel, dist, dt));
}

steer_vec2 steer_arrive_moving(const steer_agent *a, steer_vec2 d, steer_vec2 pv, double dt)
{
	const steer_params *p = a->prm;
	double dist = v2_len(d);
	steer_vec2 desired = pv;
	/* Buckland's fast profile, as his OffsetPursuit and Interpose use: a place that
	 * swings round with a turning leader is caught up in a fraction of a second. */
	if (dist > 0.0)
		desired = v2_add(desired,
		                 v2_scale(d, arrive_speed(p, STEER_DECEL_FAST, dist, dt) / dist));
	return v2_scale(v2_sub(v2_truncate(desired, p->max_speed), a->v), p->mass);
}

steer_vec2 steer_offset_point(steer_vec2 lh, steer_vec2 offset)
{
	return v2_add(v2_scale(lh, offset.x), v2_scale(v2_perp(lh), offset.y));
}

steer_vec2 steer_follow(const steer_agent *a, steer_vec2 d, steer_vec2 lv, double dt)
{
	double closing = a->prm->max_speed + v2_len(lv);
	double t = closing > 0.0 ? v2_len(d) / closing : 0.0;
	return steer_arrive_moving(a, v2_add(d, v2_scale(lv, t)), lv, dt);
}

steer_vec2 steer_hide_spot(steer_vec2 d_obs, double r, steer_vec2 d_hunter, double gap)
{
	steer_vec2 away = v2_norm(v2_sub(d_obs, d_hunter));
	/* A hunter on the circle's centre has no far side: take the hider's own side. */
	if (v2_len2(away) == 0.0)
		away = v2_norm(v2_scale(d_obs, -1.0));
	return v2_add(d_obs, v2_scale(away, r + gap));
}

const char *const steer_formation_names[] = {"line", "column", "wedge", "ring", NULL};

steer_vec2 steer_formation_offset(steer_formation f, uint32_t k, uint32_t n, double spacing)
{
	double rank = (double)(k / 2 + 1);
	double side = k % 2 ? -1.0 : 1.0;
	switch (f) {
	case STEER_FORMATION_LINE:
		return v2(0.0, side * rank * spacing);
	case STEER_FORMATION_COLUMN:
		return v2(-(double)(k + 1) * spacing, 0.0);
	case STEER_FORMATION_WEDGE: {
		double arm = rank * spacing * sqrt(0.5);
		return v2(-arm, side * arm);
	}
	case STEER_FORMATION_RING:
	default: {
		/* A radius at which neighbours on the ring are spacing apart, and at least
		 * spacing from the leader. */
		double r =
		    n > 1 ? fmax(spacing, spacing / (2.0 * sin(0.5 * STEER_TAU / n))) : spacing;
		double angle = 0.5 * STEER_TAU + STEER_TAU * k / (n ? n : 1);
		return v2(r * cos(angle), r * sin(angle));
	}
	}
}

steer_vec2 steer_interpose(const steer_agent *a, steer_vec2 da, steer_vec2 va, steer_vec2 db,
                           steer_vec2 vb, double dt)
{
	steer_vec2 mid = v2_scale(v2_add(da, db), 0.5);
	steer_vec2 mv = v2_scale(v2_add(va, vb), 0.5);
	double t = a->prm->max_speed > 0.0 ? v2_len(mid) / a->prm->max_speed : 0.0;
	return steer_arrive_moving(a, v2_add(mid, v2_scale(mv, t)), mv, dt);
}

/* Buckland's look-ahead: distance over the sum of both speeds. Seed 000's
 * distance / max_speed looks so far ahead that an evader flees into its pursuer. */
static steer_vec2 predict(const steer_agent *a, steer_vec2 d, steer_vec2 ov)
{
	double closing = a->prm->max_speed + v2_len(ov);
	double t = closing > 0.0 ? v2_len(d) / closing : 0.0;
	return v2_add(d, v2_scale(ov, t));
}

steer_vec2 steer_pursue(const steer_agent *a, steer_vec2 d, steer_vec2 ov)
{
	return steer_seek(a, predict(a, d, ov));
}

steer_vec2 steer_evade(const steer_agent *a, steer_vec2 d, steer_vec2 ov)
{
	return steer_flee(a, predict(a, d, ov));
}

steer_vec2 steer_wander(const steer_agent *a, double angle)
{
	const steer_params *p = a->prm;
	steer_vec2 centre = v2_scale(a->h, p->wander_distance);
	steer_vec2 offset = v2(cos(angle) * p->wander_radius, sin(angle) * p->wander_radius);
	return v2_add(centre, offset);
}

steer_vec2 steer_separate_one(const steer_agent *a, steer_vec2 d, uint32_t self_id,
                              uint32_t other_id)
{
	double l2 = v2_len2(d);
	steer_vec2 away;
	if (l2 > 0.0) {
		away = v2_scale(d, -1.0 / sqrt(l2));
	} else {
		away = v2_perp(a->h);
		if (self_id > other_id)
			away = v2_scale(away, -1.0);
	}
	return toward(a, away, a->prm->max_speed);
}

steer_vec2 steer_cohere(const steer_agent *a, steer_vec2 d_mean)
{
	return steer_seek(a, d_mean);
}

steer_vec2 steer_align(const steer_agent *a, steer_vec2 mean_velocity)
{
	return v2_sub(mean_velocity, a->v);
}

steer_vec2 steer_cruise(const steer_agent *a)
{
	/* The heading, not the velocity: a vehicle at rest sets off the way it faces. */
	return v2_scale(a->h, a->prm->cruise_speed - v2_len(a->v));
}

void steer_cruise_part(const steer_agent *a, steer_vec2 parts[STEER_PART_COUNT], uint32_t *mask)
{
	if (a->prm->cruise_speed <= 0.0)
		return;
	parts[STEER_PART_CRUISE] = v2_scale(steer_cruise(a), a->prm->cruise_weight);
	*mask |= 1u << STEER_PART_CRUISE;
}

steer_vec2 steer_combine_parts(const steer_vec2 parts[STEER_PART_COUNT], uint32_t mask,
                               const steer_params *prm, double dt)
{
	double inv_dt = 1.0 / dt;
	if (prm->combine == STEER_COMBINE_SUM) {
		steer_vec2 s = v2(0.0, 0.0);
		/* Lowest part first, as in the table: the same order as the loop would take. */
		for (uint32_t m = mask; m; m &= m - 1)
			s = v2_add(s, parts[__builtin_ctz(m)]);
		return v2_truncate(v2_scale(s, inv_dt), prm->max_force);
	}
	steer_vec2 total = v2(0.0, 0.0);
	for (uint32_t m = mask; m; m &= m - 1) {
		int k = __builtin_ctz(m);
		double remaining = prm->max_force - v2_len(total);
		if (remaining <= 0.0)
			break;
		steer_vec2 f = v2_scale(parts[k], inv_dt);
		double fl = v2_len(f);
		if (fl < remaining) {
			total = v2_add(total, f);
		} else {
			total = v2_add(total, v2_scale(f, remaining / fl));
			break;
		}
	}
	return total;
}

double steer_part_chance(const steer_params *prm, int part)
{
	switch ((enum steer_part)part) {
	case STEER_PART_EVADE:
		return prm->evade_chance;
	case STEER_PART_FLEE:
		return prm->flee_chance;
	case STEER_PART_SEPARATION:
		return prm->separation_chance;
	case STEER_PART_ALIGNMENT:
		return prm->alignment_chance;
	case STEER_PART_COHESION:
		return prm->cohesion_chance;
	case STEER_PART_SEEK:
		return prm->seek_chance;
	case STEER_PART_ARRIVE:
		return prm->arrive_chance;
	case STEER_PART_WANDER:
		return prm->wander_chance;
	case STEER_PART_PURSUE:
		return prm->pursue_chance;
	case STEER_PART_PATH:
		return prm->path_chance;
	case STEER_PART_FOLLOW:
		return prm->follow_chance;
	case STEER_PART_HIDE:
		return prm->hide_chance;
	case STEER_PART_INTERPOSE:
		return prm->interpose_chance;
	case STEER_PART_CRUISE:
		return prm->cruise_chance;
	case STEER_PART_COUNT:
		break;
	}
	return 0.0;
}

double steer_dither_draw(uint64_t seed, uint32_t id, uint64_t tick, int part)
{
	/* A seed of its own per part (an odd multiplier keeps them distinct), so that no
	 * part's draw is wander's (seed, id, tick) nor another part's. */
	uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)(part + 1));
	return steer_hash_unit(s, id, tick);
}

steer_vec2 steer_combine_dither(const steer_vec2 parts[STEER_PART_COUNT], uint32_t mask,
                                const steer_params *prm, double dt, uint64_t seed, uint32_t id,
                                uint64_t tick)
{
	for (uint32_t m = mask; m; m &= m - 1) {
		int k = __builtin_ctz(m);
		double chance = steer_part_chance(prm, k);
		if (!(steer_dither_draw(seed, id, tick, k) < chance))
			continue;
		steer_vec2 f = parts[k];
		if (f.x == 0.0 && f.y == 0.0)
			continue;
		return v2_truncate(v2_scale(f, 1.0 / (chance * dt)), prm->max_force);
	}
	return v2(0.0, 0.0);
}
