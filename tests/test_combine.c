/* Path corridors, every behaviour's weight, prioritised dithering, smoothed display
 * headings and the pedestrians scenario (issue 18, items 4 to 6 and 7's pedestrians). */
#include <inttypes.h>
#include <string.h>

#include "behaviors.h"
#include "check.h"
#include "message.h"
#include "render.h"
#include "savefile.h"
#include "scenario.h"
#include "serve.h"
#include "steer/wire.h"
#include "testutil.h"

/* --- corridors ------------------------------------------------------------------ */

/* Distance from q to the closed polyline pts[0..n-1]. */
static double polyline_distance(const steer_vec2 *pts, int n, steer_vec2 q)
{
	double best = INFINITY;
	for (int k = 0; k < n; k++) {
		steer_vec2 a = pts[k], s = v2_sub(pts[(k + 1) % n], a);
		double t = fmin(fmax(v2_dot(v2_sub(q, a), s) / v2_len2(s), 0.0), 1.0);
		best = fmin(best, v2_len(v2_sub(q, v2_add(a, v2_scale(s, t)))));
	}
	return best;
}

/* The angle of q about c, for counting laps. */
static double angle_about(steer_vec2 c, steer_vec2 q)
{
	return atan2(q.y - c.y, q.x - c.x);
}

/* An octagon of radius 250 round (500, 300). */
static void octagon(steer_vec2 pts[8])
{
	for (int k = 0; k < 8; k++) {
		double a = STEER_TAU * (k + 0.5) / 8;
		pts[k] = v2(500 + 250 * cos(a), 300 + 250 * sin(a));
	}
}

typedef struct lap {
	double worst;    /* farthest from the middle line */
	double turned;   /* radians about the centre, signed: + is the points' order */
	int index_moves; /* times path.index changed */
} lap;

/* A walker starting at rest in the middle of the segment from point 3 to 4, far from
 * the path's first point, for ticks ticks. */
static lap corridor_run(double radius, uint8_t direction, int ticks)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	steer_vec2 pts[8];
	octagon(pts);
	steer_params p = steer_params_default();
	p.path_radius = radius;
	p.path_direction = direction;
	steer_vec2 start = v2_scale(v2_add(pts[3], pts[4]), 0.5);
	uint32_t id = add_vehicle(w, start.x, start.y, 0, 0, &p);
	for (int k = 0; k < 8; k++)
		steer_vehicle_path_add(w, id, pts[k]);
	steer_vehicle_path_loop(w, id, true);
	lap l = {0, 0, 0};
	steer_vec2 c = v2(500, 300);
	double a0 = angle_about(c, start);
	uint32_t index = steer_vehicle_get(w, id)->path.index;
	for (int t = 0; t < ticks; t++) {
		step(w, 1);
		steer_vec2 q = pos(w, id);
		l.worst = fmax(l.worst, polyline_distance(pts, 8, q));
		double a1 = angle_about(c, q);
		l.turned += remainder(a1 - a0, STEER_TAU);
		a0 = a1;
		uint32_t now = steer_vehicle_get(w, id)->path.index;
		l.index_moves += now != index;
		index = now;
	}
	steer_world_destroy(w);
	return l;
}

/* The corridor's tolerance: a walker steers back only once its prediction leaves, so
 * it may overrun the edge by the turn it then needs (measured: under 1 u at these
 * speeds). */
#define CORRIDOR_SLACK 2.0

static void corridor_walker_stays_inside_for_a_lap(void)
{
	/* The octagon's perimeter is about 1530 u; 30 s at up to 100 u/s is more than a
	 * lap. A waypoint visitor would cut across to point 0 first. */
	lap f = corridor_run(20.0, STEER_PATH_FORWARD, 30 * 60);
	CHECK(f.worst <= 20.0 + CORRIDOR_SLACK, "forward walker strayed %.2f from the path",
	      f.worst);
	CHECK(f.turned > STEER_TAU, "forward walker turned only %.2f rad round the loop", f.turned);
	CHECK(f.index_moves >= 8, "path.index changed only %d times in a lap", f.index_moves);
	lap b = corridor_run(20.0, STEER_PATH_BACKWARD, 30 * 60);
	CHECK(b.worst <= 20.0 + CORRIDOR_SLACK, "backward walker strayed %.2f from the path",
	      b.worst);
	CHECK(b.turned < -STEER_TAU, "backward walker turned only %.2f rad round the loop",
	      b.turned);
	/* path_radius 0 is today's waypoint visiting: it heads for point 0 across the
	 * octagon's inside, far from the corridor. */
	lap v = corridor_run(0.0, STEER_PATH_FORWARD, 10 * 60);
	CHECK(v.worst > 50.0, "a waypoint visitor stayed within %.2f of the path", v.worst);
}

/* An open corridor ends in an arrival at its last point. Started in the middle of its
 * second segment, the walker goes on from there (a waypoint visitor would first go
 * back to the first point). */
static void open_corridor_arrives_at_its_end(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	steer_params p = steer_params_default();
	p.path_radius = 15.0;
	uint32_t id = add_vehicle(w, 600, 200, 0, 0, &p);
	steer_vehicle_path_add(w, id, v2(100, 100));
	steer_vehicle_path_add(w, id, v2(600, 100));
	steer_vehicle_path_add(w, id, v2(600, 500));
	double nearest_start = INFINITY;
	for (int t = 0; t < 20 * 60; t++) {
		step(w, 1);
		nearest_start = fmin(nearest_start, dist(pos(w, id), v2(100, 100)));
	}
	CHECK(nearest_start > 400, "went back to within %.1f of the first point", nearest_start);
	CHECK(dist(pos(w, id), v2(600, 500)) < 1.0 && v2_len(vel(w, id)) < 1.0,
	      "open corridor walker ended at (%.1f, %.1f) moving %.2f", pos(w, id).x, pos(w, id).y,
	      v2_len(vel(w, id)));
	CHECK(steer_vehicle_get(w, id)->path.index == 2, "index %" PRIu32 " at the end",
	      steer_vehicle_get(w, id)->path.index);
	steer_world_destroy(w);
}

/* --- weights -------------------------------------------------------------------- */

/* Seeks (800, 300) from 300 away, and flees the same point when flee_w >= 0. */
static double seek_flee_run(double seek_w, double flee_w, const char *combine)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	steer_params p = steer_params_default();
	char err[128];
	const steer_param_def *d;
	char text[32];
	snprintf(text, sizeof text, "%g", seek_w);
	d = steer_param_find("seek_weight");
	CHECK(d && steer_param_parse(&p, d, text, err, sizeof err) == STEER_OK, "seek_weight");
	snprintf(text, sizeof text, "%g", fmax(flee_w, 0.0));
	d = steer_param_find("flee_weight");
	CHECK(d && steer_param_parse(&p, d, text, err, sizeof err) == STEER_OK, "flee_weight");
	d = steer_param_find("combine");
	CHECK(d && steer_param_parse(&p, d, combine, err, sizeof err) == STEER_OK, "combine");
	uint32_t id = add_vehicle(w, 500, 300, 0, 0, &p);
	steer_vehicle_target(w, id, STEER_SEEK, v2(800, 300));
	if (flee_w >= 0)
		steer_vehicle_target(w, id, STEER_FLEE, v2(800, 300));
	step(w, 60);
	double d_end = dist(pos(w, id), v2(800, 300));
	steer_world_destroy(w);
	return d_end;
}

static void weights_change_the_outcome(void)
{
	const char *modes[] = {"sum", "priority"};
	for (int m = 0; m < 2; m++) {
		/* A seeker at 300 from its target covers most of it in a second... */
		CHECK(seek_flee_run(1, -1, modes[m]) < 250, "%s: plain seek did not move",
		      modes[m]);
		/* ...but not with its seek weighed at 0. */
		double still = seek_flee_run(0, -1, modes[m]);
		CHECK(still == 300.0, "%s: seek_weight 0 moved it to %.3f", modes[m], still);
		/* Flee from the same point outweighing seek: it moves away. */
		CHECK(seek_flee_run(1, 2, modes[m]) > 320, "%s: flee_weight 2 did not win",
		      modes[m]);
		/* Flee weighed 0 leaves the seek alone, even under priority, where flee
		 * comes first and at weight 1 takes the whole max_force. */
		CHECK(seek_flee_run(1, 0, modes[m]) < 250, "%s: flee_weight 0 still fled",
		      modes[m]);
	}
	CHECK(seek_flee_run(1, 1, "priority") > 320, "priority: flee did not come first");
	/* Summed, seek outweighing flee moves it towards. */
	CHECK(seek_flee_run(2, 1, "sum") < 280, "sum: seek_weight 2 did not win");
}

/* Every behaviour's weight is a parameter, 1 by default, and a weight of 0 silences
 * it in the force. */
static void every_behaviour_has_a_weight(void)
{
	const char *names[] = {"seek_weight",      "flee_weight",       "arrive_weight",
	                       "pursue_weight",    "evade_weight",      "wander_weight",
	                       "path_weight",      "separation_weight", "cohesion_weight",
	                       "alignment_weight", "cruise_weight"};
	steer_params p = steer_params_default();
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		const steer_param_def *d = steer_param_find(names[k]);
		CHECK(d && steer_param_get(&p, d) == 1.0, "%s missing or not 1", names[k]);
	}
	/* A wanderer, a pursuer, an arriver and a path follower at weight 0 feel no force. */
	steer_world *w = make_world(1000, 600, STEER_EDGE_NONE, 1);
	p.wander_weight = p.pursue_weight = p.arrive_weight = p.path_weight = 0.0;
	uint32_t a = add_vehicle(w, 100, 100, 0, 0, &p);
	uint32_t b = add_vehicle(w, 300, 100, 0, 0, &p);
	uint32_t c = add_vehicle(w, 500, 100, 0, 0, &p);
	uint32_t d = add_vehicle(w, 700, 100, 0, 0, &p);
	steer_vehicle_enable(w, a, STEER_WANDER, true);
	steer_vehicle_chase(w, b, STEER_PURSUE, c);
	steer_vehicle_target(w, c, STEER_ARRIVE, v2(500, 500));
	steer_vehicle_path_add(w, d, v2(900, 500));
	step(w, 30);
	CHECK(dist(pos(w, a), v2(100, 100)) == 0 && dist(pos(w, b), v2(300, 100)) == 0 &&
	          dist(pos(w, c), v2(500, 100)) == 0 && dist(pos(w, d), v2(700, 100)) == 0,
	      "a behaviour weighed 0 moved its vehicle");
	steer_world_destroy(w);
}

/* --- dithering ------------------------------------------------------------------ */

static void dither_picks_parts_with_their_chances(void)
{
	steer_params p = steer_params_default();
	p.combine = STEER_COMBINE_DITHER;
	p.evade_chance = 0.5;
	p.flee_chance = 0.6;
	p.seek_chance = 0.8;
	p.max_force = 1e6;
	steer_vec2 parts[STEER_PART_COUNT];
	parts[STEER_PART_EVADE] = v2(1, 0);
	parts[STEER_PART_FLEE] = v2(0, 1);
	parts[STEER_PART_SEEK] = v2(-1, 0);
	uint32_t mask = 1u << STEER_PART_EVADE | 1u << STEER_PART_FLEE | 1u << STEER_PART_SEEK;
	double dt = 1.0 / 60;
	int n = 20000, got[4] = {0, 0, 0, 0};
	for (int t = 0; t < n; t++) {
		steer_vec2 f = steer_combine_dither(parts, mask, &p, dt, 7, 42, (uint64_t)t);
		if (f.x > 0) {
			got[0]++;
			CHECK(fabs(f.x - 1.0 / (0.5 * dt)) < 1e-9,
			      "evade not divided by its chance");
		} else if (f.y > 0) {
			got[1]++;
			CHECK(fabs(f.y - 1.0 / (0.6 * dt)) < 1e-9,
			      "flee not divided by its chance");
		} else if (f.x < 0) {
			got[2]++;
		} else {
			got[3]++;
		}
	}
	/* First evade (0.5), else flee (0.5 x 0.6), else seek (0.2 x 0.8), else none.
	 * Within 0.02: more than five standard deviations at 20,000 draws. */
	double want[4] = {0.5, 0.3, 0.16, 0.04};
	for (int k = 0; k < 4; k++)
		CHECK(fabs(got[k] / (double)n - want[k]) < 0.02, "part %d chosen %.4f, want %.2f",
		      k, got[k] / (double)n, want[k]);
	/* A zero part is passed over even when drawn: the next one gets the turn. */
	parts[STEER_PART_EVADE] = v2(0, 0);
	p.flee_chance = 1.0;
	for (int t = 0; t < 100; t++) {
		steer_vec2 f = steer_combine_dither(parts, mask, &p, dt, 7, 42, (uint64_t)t);
		CHECK(f.y > 0, "tick %d: a zero evade stopped the flee", t);
	}
	/* Truncated to max_force. */
	p.max_force = 10;
	steer_vec2 f = steer_combine_dither(parts, mask, &p, dt, 7, 42, 0);
	CHECK(fabs(v2_len(f) - 10) < 1e-9, "dither force %.3f, not truncated to 10", v2_len(f));
	/* The chances are parameters, checked to lie in 0..1. */
	char err[128];
	const steer_param_def *d = steer_param_find("wander_chance");
	CHECK(d && steer_param_parse(&p, d, "1.5", err, sizeof err) == STEER_OK &&
	          steer_params_check(&p, err, sizeof err) == STEER_ERR_INVALID,
	      "wander_chance 1.5 accepted");
}

/* A world of dithering vehicles big enough to be split over threads. */
static steer_world *dither_world(int threads, uint8_t combine)
{
	steer_world *w = make_world(4000, 3000, STEER_EDGE_WRAP, 5);
	steer_rng *rng = steer_world_rng(w);
	steer_params p = steer_params_default();
	p.combine = combine;
	for (int k = 0; k < 5000; k++) {
		uint32_t id = add_vehicle(w, steer_rng_range(rng, 0, 4000),
		                          steer_rng_range(rng, 0, 3000), 0, 0, &p);
		steer_vehicle_target(w, id, STEER_SEEK, v2(2000, 1500));
		steer_vehicle_enable(w, id, STEER_WANDER | (k % 3 ? 0 : STEER_FLOCK), true);
		if (k % 4 == 0)
			steer_vehicle_target(w, id, STEER_FLEE, v2(1000, 1000));
	}
	if (steer_world_set_threads(w, threads) != STEER_OK)
		abort();
	return w;
}

static void dither_is_deterministic_for_any_thread_count(void)
{
	steer_world *a = dither_world(1, STEER_COMBINE_DITHER),
	            *b = dither_world(2, STEER_COMBINE_DITHER),
	            *c = dither_world(3, STEER_COMBINE_DITHER),
	            *sum = dither_world(1, STEER_COMBINE_PRIORITY);
	step(a, 30);
	step(b, 30);
	step(c, 30);
	step(sum, 30);
	const steer_vehicles *va = steer_world_vehicles(a), *vb = steer_world_vehicles(b),
	                     *vc = steer_world_vehicles(c);
	CHECK(va->count == vb->count && vb->count == vc->count, "counts differ");
	size_t differ = 0;
	for (size_t i = 0; i < va->count; i++) {
		uint32_t id = va->id[i];
		steer_vec2 p = pos(a, id), q = pos(b, id), r = pos(c, id);
		differ += memcmp(&p, &q, sizeof p) != 0 || memcmp(&p, &r, sizeof p) != 0;
	}
	CHECK(differ == 0, "%zu of %zu dithering vehicles differ between thread counts", differ,
	      va->count);
	/* And the dithering does something: the same world under priority, which takes
	 * the parts in the same order, differs. */
	size_t same_as_sum = 0;
	for (size_t i = 0; i < va->count; i++) {
		steer_vec2 p = pos(a, va->id[i]), q = pos(sum, va->id[i]);
		same_as_sum += memcmp(&p, &q, sizeof p) == 0;
	}
	CHECK(same_as_sum < va->count / 10,
	      "%zu of %zu dithering vehicles are where priority "
	      "would have put them",
	      same_as_sum, va->count);
	steer_world_destroy(sum);
	steer_world_destroy(a);
	steer_world_destroy(b);
	steer_world_destroy(c);
}

/* --- heading smoothing ---------------------------------------------------------- */

/* Wanderers jittering hard, with smoothing or without: glyph changes per vehicle
 * per second, from the velocity (without) or the displayed heading (with). Fills
 * the final positions. */
static double glyph_flips(double smoothing, size_t n, int ticks, steer_vec2 *end)
{
	steer_world *w = make_world(2000, 2000, STEER_EDGE_WRAP, 3);
	steer_params p = steer_params_default();
	p.wander_range = 4.0;
	p.heading_smoothing = smoothing;
	steer_rng *rng = steer_world_rng(w);
	for (size_t k = 0; k < n; k++) {
		uint32_t id = add_vehicle(w, steer_rng_range(rng, 0, 2000),
		                          steer_rng_range(rng, 0, 2000), 0, 0, &p);
		steer_vehicle_enable(w, id, STEER_WANDER, true);
	}
	tui_glyph *last = calloc(n, sizeof *last);
	if (!last)
		abort();
	long flips = 0;
	for (int t = 0; t < ticks; t++) {
		step(w, 1);
		const steer_vehicles *v = steer_world_vehicles(w);
		for (size_t i = 0; i < v->count; i++) {
			steer_vec2 h, vel = v2(v->vx[i], v->vy[i]);
			if (steer_vehicle_display_heading(w, i, &h))
				vel = v2_scale(h, v2_len(vel));
			tui_glyph g = tui_heading_glyph(vel.x, vel.y);
			uint32_t k = v->id[i] - 1;
			flips += t > 0 && g != last[k];
			last[k] = g;
		}
	}
	for (size_t k = 0; k < n; k++)
		end[k] = pos(w, (uint32_t)k + 1);
	free(last);
	steer_world_destroy(w);
	return flips / (double)n / (ticks / 60.0);
}

static void smoothing_steadies_glyphs_and_keeps_positions(void)
{
	enum { N = 100, TICKS = 600 };
	steer_vec2 a[N], b[N];
	double raw = glyph_flips(0.0, N, TICKS, a);
	double smooth = glyph_flips(0.25, N, TICKS, b);
	printf("glyph changes per vehicle per second: %.2f without smoothing, %.2f with 0.25 s\n",
	       raw, smooth);
	CHECK(smooth < 0.5 * raw, "smoothing left %.2f of %.2f glyph changes a second", smooth,
	      raw);
	CHECK(memcmp(a, b, sizeof a) == 0, "smoothing changed the positions");
}

/* The smoothed heading is world state: saved, loaded, and what compact frames send. */
static void smoothed_heading_is_saved_and_sent(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_WRAP, 3);
	steer_params p = steer_params_default();
	p.heading_smoothing = 0.5;
	uint32_t id = add_vehicle(w, 500, 300, 100, 0, &p);
	steer_vehicle_target(w, id, STEER_SEEK, v2(500, 100)); /* a turn to the left */
	step(w, 10);
	const steer_vehicle_state *s = steer_vehicle_get(w, id);
	steer_vec2 h = s->smooth.heading;
	const steer_vehicles *v = steer_world_vehicles(w);
	double lag = atan2(v->hy[0], v->hx[0]) - atan2(h.y, h.x);
	CHECK(fabs(lag) > 0.1, "smoothed heading does not lag the turn (%.3f rad)", lag);
	steer_vec2 shown;
	CHECK(steer_vehicle_display_heading(w, 0, &shown) && shown.x == h.x && shown.y == h.y,
	      "display heading is not the smoothed one");
	steer_compact_frame f;
	steer_compact_frame_init(&f);
	steer_view view = {true, 0, 0, 1000, 600};
	uint32_t idx = 0;
	CHECK(steer_compact_frame_build(&f, w, &view, 100, 60, &idx, 1, 1) == STEER_OK,
	      "compact frame");
	CHECK(f.count == 1 && f.heading[0] == steer_wire_direction_byte(h.x, h.y) &&
	          f.heading[0] != steer_wire_direction_byte(v->vx[0], v->vy[0]),
	      "compact frame sends heading %u, not the smoothed one's", f.count ? f.heading[0] : 0);
	steer_compact_frame_free(&f);
	char *buf = NULL, err[256];
	size_t len = 0;
	CHECK(steer_save_encode(w, &buf, &len) == STEER_OK, "save");
	steer_world *back = buf ? steer_save_decode(buf, len, err, sizeof err) : NULL;
	CHECK(back, "load: %s", buf ? err : "nothing saved");
	if (back) {
		steer_vec2 hb = steer_vehicle_get(back, id)->smooth.heading;
		CHECK(memcmp(&hb, &h, sizeof h) == 0, "smoothed heading not restored");
		step(w, 30);
		step(back, 30);
		hb = steer_vehicle_get(back, id)->smooth.heading;
		h = steer_vehicle_get(w, id)->smooth.heading;
		CHECK(memcmp(&hb, &h, sizeof h) == 0, "loaded world's heading went another way");
		steer_world_destroy(back);
	}
	free(buf);
	/* Off: no display heading, the velocity shows. */
	p.heading_smoothing = 0;
	steer_vehicle_set_params(w, id, &p);
	CHECK(!steer_vehicle_display_heading(w, 0, &shown), "display heading with smoothing off");
	steer_world_destroy(w);
}

/* --- defaults ------------------------------------------------------------------ */

/* Every default behaviour once, with avoidance: the end state's hash. */
static uint64_t default_bits_hash(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 11);
	steer_rng *rng = steer_world_rng(w);
	uint32_t ids[40];
	for (int k = 0; k < 40; k++)
		ids[k] =
		    add_vehicle(w, steer_rng_range(rng, 0, 1000), steer_rng_range(rng, 0, 600),
		                steer_rng_range(rng, -50, 50), steer_rng_range(rng, -50, 50), NULL);
	for (int k = 0; k < 40; k++) {
		steer_vec2 t = v2(steer_rng_range(rng, 0, 1000), steer_rng_range(rng, 0, 600));
		uint32_t id = ids[k];
		switch (k % 8) {
		case 0:
			steer_vehicle_target(w, id, STEER_SEEK, t);
			break;
		case 1:
			steer_vehicle_target(w, id, STEER_FLEE, t);
			break;
		case 2:
			steer_vehicle_target(w, id, STEER_ARRIVE, t);
			break;
		case 3:
			steer_vehicle_chase(w, id, STEER_PURSUE, ids[(k + 1) % 40]);
			break;
		case 4:
			steer_vehicle_chase(w, id, STEER_EVADE, ids[(k + 5) % 40]);
			break;
		case 5:
			steer_vehicle_enable(w, id, STEER_WANDER, true);
			break;
		case 6:
			steer_vehicle_path_add(w, id, t);
			steer_vehicle_path_add(w, id, v2(500, 300));
			steer_vehicle_path_loop(w, id, true);
			break;
		case 7:
			steer_vehicle_enable(w, id, STEER_FLOCK | STEER_WANDER, true);
			break;
		}
		if (k % 3 == 0)
			steer_vehicle_enable(w, id, STEER_AVOID, true);
	}
	step(w, 300);
	const steer_vehicles *v = steer_world_vehicles(w);
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < v->count; i++) {
		double d[4] = {v->px[i], v->py[i], v->vx[i], v->vy[i]};
		const unsigned char *b = (const unsigned char *)d;
		for (size_t k = 0; k < sizeof d; k++)
			h = (h ^ b[k]) * 1099511628211ULL;
		h = (h ^ v->id[i]) * 1099511628211ULL;
	}
	steer_world_destroy(w);
	return h;
}

/* A world using none of the new parameters moves as before them: the hash was taken
 * with the build before weights, dither, corridors and smoothing (same libm), and
 * again when avoid began to turn every blocked preference the same way (KEEP_SIDE in
 * sim/avoid.c) and to wobble a held-up vehicle further (STUCK_WOBBLE), on purpose. */
static void defaults_keep_todays_bits(void)
{
	uint64_t h = default_bits_hash();
	CHECK(h == 0x232f3350035ad7e5ULL,
	      "default world's end state %016" PRIx64 ", not the one before", h);
}

/* --- pedestrians ---------------------------------------------------------------- */

static void pedestrians_walk_both_ways_in_their_corridor(void)
{
	steer_world *w = make_world(1000, 600, STEER_EDGE_BOUNCE, 1);
	CHECK(steer_scenario_load(w, "pedestrians") == STEER_OK, "no pedestrians scenario");
	const steer_vehicles *v = steer_world_vehicles(w);
	size_t n = v->count;
	CHECK(n >= 20, "only %zu pedestrians", n);
	int fwd = 0, back = 0;
	for (size_t i = 0; i < n; i++) {
		const steer_params *p = steer_vehicle_params_at(w, i);
		CHECK((v->behaviors[i] & (STEER_PATH | STEER_AVOID)) ==
		              (STEER_PATH | STEER_AVOID) &&
		          p->path_radius > 0 && steer_vehicle_state_at(w, i)->path.loop,
		      "pedestrian %zu is not a looping corridor walker that avoids", i);
		fwd += p->path_direction == STEER_PATH_FORWARD;
		back += p->path_direction == STEER_PATH_BACKWARD;
	}
	CHECK(fwd > 0 && back > 0, "%d forward, %d backward", fwd, back);
	/* A minute on: every one still near the corridor, and both ways have gone round. */
	double c_x = 500, c_y = 300;
	double *turned = calloc(n + 1, sizeof *turned), *last = calloc(n + 1, sizeof *last);
	for (size_t i = 0; i < n; i++)
		last[v->id[i]] = atan2(v->py[i] - c_y, v->px[i] - c_x);
	double worst = 0;
	steer_vec2 pts[8];
	const steer_path *path = &steer_vehicle_state_at(w, 0)->path;
	for (int k = 0; k < 8; k++)
		pts[k] = path->points[k];
	for (int t = 0; t < 60 * 60; t++) {
		step(w, 1);
		for (size_t i = 0; i < v->count; i++) {
			double a = atan2(v->py[i] - c_y, v->px[i] - c_x);
			turned[v->id[i]] += remainder(a - last[v->id[i]], STEER_TAU);
			last[v->id[i]] = a;
			if (t > 5 * 60) /* after the start's jostle */
				worst =
				    fmax(worst, polyline_distance(pts, 8, v2(v->px[i], v->py[i])));
		}
	}
	int went_round = 0;
	for (size_t i = 0; i < v->count; i++) {
		int dir =
		    steer_vehicle_params_at(w, i)->path_direction == STEER_PATH_FORWARD ? 1 : -1;
		went_round += dir * turned[v->id[i]] > STEER_TAU;
	}
	printf("pedestrians: %zu walkers, %d went round in a minute, farthest %.1f from the "
	       "middle line (corridor %.0f)\n",
	       n, went_round, worst, STEER_PEDESTRIANS_RADIUS);
	CHECK(went_round >= (int)(0.9 * (double)n), "only %d of %zu went round", went_round, n);
	CHECK(worst < 1.5 * STEER_PEDESTRIANS_RADIUS, "a pedestrian strayed %.1f from the path",
	      worst);
	free(turned);
	free(last);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(corridor_walker_stays_inside_for_a_lap);
	RUN(open_corridor_arrives_at_its_end);
	RUN(weights_change_the_outcome);
	RUN(every_behaviour_has_a_weight);
	RUN(dither_picks_parts_with_their_chances);
	RUN(dither_is_deterministic_for_any_thread_count);
	RUN(smoothing_steadies_glyphs_and_keeps_positions);
	RUN(smoothed_heading_is_saved_and_sent);
	RUN(pedestrians_walk_both_ways_in_their_corridor);
	RUN(defaults_keep_todays_bits);
	return CHECK_DONE();
}
