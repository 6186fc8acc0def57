/* Flocks keep flying (issue 14), and the flock scenario stays alive (issue 38): over
 * ten simulated minutes its sky keeps several differently headed groups, which turn,
 * meet and split; and an alignment-and-separation flock lines up.
 *
 *   test_flock_health            check seeds 1-10 (what ctest runs)
 *   test_flock_health --seeds N  check seeds 1..N only (the sanitizer build: slower)
 *   test_flock_health --table    print the figures instead of checking them
 *
 * Checked, for each seed, in the `flock` scenario (the server's default 1000 x 600
 * wrap world), once a simulated second from 20 s to 10 min. A group is the birds that
 * see one another, one to the next: of a kind (they flock only with their own) and
 * within sight; groups of 4 or more count, and a group is polarized when the mean of
 * its unit headings is 0.7 long or more. At every second: at least three polarized
 * groups, not all headed within 45 degrees of each other; the flockers fly at half
 * their max_speed or more; and no group holds more than a quarter of the birds. Over
 * the ten minutes: at least three polarized groups pairwise 45 degrees apart in 80% of
 * the seconds; the number of groups changes 50 times or more (groups meet and split);
 * every kind's mean heading passes through at least half of the eight points of the
 * compass (groups turn). And 150 boids of the flock preset with
 * cohesion off (500 x 500 wrap world, sight 100, too close 20, max speed and force
 * 50) reach polarization above 0.9 within 60 s, and fly at half their max_speed or
 * more at 60 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scenario.h"
#include "steer/command.h"
#include "testutil.h"

static steer_world *flock_scenario(uint64_t seed)
{
	steer_world_config c = steer_world_config_default();
	c.seed = seed;
	steer_world *w = steer_world_create(&c);
	if (!w || steer_scenario_load(w, "flock") != STEER_OK)
		abort();
	return w;
}

/* The alignment-and-separation flock as a user makes it through the text port: the
 * flock preset (steer_flock_params) with cohesion off, in a 500 x 500 wrap world. */
#define COHESION_OFF                                                                               \
	"spawn flock 150 250 250 250 cohesion_weight=0 sight_distance=100 "                        \
	"too_close_distance=20 max_speed=50 max_force=50"

static steer_world *cohesion_off_flock(uint64_t seed)
{
	steer_world *w = make_world(500, 500, STEER_EDGE_WRAP, seed);
	steer_session s = {.world = w};
	steer_command cmd;
	char err[256];
	steer_reply r;
	steer_reply_init(&r);
	if (steer_cmd_parse_line(&cmd, COHESION_OFF, err, sizeof err) != STEER_OK ||
	    steer_cmd_exec(&cmd, &s, NULL, &r) != STEER_OK ||
	    steer_world_vehicles(w)->count != 150) {
		fprintf(stderr, "%s: %s%s\n", COHESION_OFF, err, r.error);
		abort();
	}
	steer_reply_free(&r);
	return w;
}

/* One second of the sky: its groups (as the header says). */
typedef struct sky {
	int groups;              /* of 4 or more */
	int polarized;           /* of those, polarization 0.7 or more */
	int apart;               /* polarized ones pairwise 45 degrees apart, largest first */
	double spread;           /* the widest angle between two polarized groups' headings */
	double largest;          /* share of the birds in the largest group */
	double mean_speed;       /* of the flockers */
	unsigned kind_octant[9]; /* per kind (group 1-8): its mean heading's compass point */
} sky;

#define MAX_BIRDS 400

static int root_of(int *parent, int a)
{
	while (parent[a] != a)
		a = parent[a] = parent[parent[a]];
	return a;
}

static sky survey(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	int n = (int)v->count;
	if (n > MAX_BIRDS)
		abort();
	static int parent[MAX_BIRDS], size[MAX_BIRDS], order[MAX_BIRDS];
	static double gx[MAX_BIRDS], gy[MAX_BIRDS];
	double kx[9] = {0}, ky[9] = {0}, speed = 0;
	for (int i = 0; i < n; i++) {
		parent[i] = i;
		size[i] = 0;
		gx[i] = gy[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		double sight = steer_vehicle_params(w, v->id[i])->sight_distance;
		for (int j = i + 1; j < n; j++) {
			if (v->group[i] != v->group[j])
				continue;
			steer_vec2 d =
			    steer_world_delta(w, v2(v->px[i], v->py[i]), v2(v->px[j], v->py[j]));
			if (v2_len2(d) <= sight * sight) {
				int a = root_of(parent, i), b = root_of(parent, j);
				if (a != b)
					parent[a] = b;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		int r = root_of(parent, i);
		size[r]++;
		gx[r] += v->hx[i];
		gy[r] += v->hy[i];
		speed += hypot(v->vx[i], v->vy[i]);
		if (v->group[i] < 9) {
			kx[v->group[i]] += v->hx[i];
			ky[v->group[i]] += v->hy[i];
		}
	}
	sky s = {.mean_speed = n ? speed / n : 0};
	for (int i = 0; i < n; i++)
		if (size[i] >= 4)
			order[s.groups++] = i;
	for (int a = 0; a < s.groups; a++) /* largest first */
		for (int b = a + 1; b < s.groups; b++)
			if (size[order[b]] > size[order[a]]) {
				int t = order[a];
				order[a] = order[b];
				order[b] = t;
			}
	s.largest = s.groups && n ? (double)size[order[0]] / n : 0;
	double polar[MAX_BIRDS], apart[MAX_BIRDS];
	for (int a = 0; a < s.groups; a++) {
		int g = order[a];
		if (hypot(gx[g], gy[g]) / size[g] < 0.7)
			continue;
		double h = atan2(gy[g], gx[g]);
		bool far = true;
		for (int b = 0; b < s.polarized; b++) {
			double d = fabs(remainder(h - polar[b], STEER_TAU));
			s.spread = fmax(s.spread, d);
		}
		for (int b = 0; b < s.apart; b++)
			far = far && fabs(remainder(h - apart[b], STEER_TAU)) >= STEER_TAU / 8;
		if (far)
			apart[s.apart++] = h;
		polar[s.polarized++] = h;
	}
	for (int k = 1; k < 9; k++)
		s.kind_octant[k] = (unsigned)lround(floor((atan2(ky[k], kx[k]) + STEER_TAU / 2) /
		                                          (STEER_TAU / 8))) %
		                   8;
	return s;
}

/* Ten minutes of one seed's flock scenario, surveyed once a simulated second from
 * 20 s. */
typedef struct alive {
	int seconds, spread_ok, apart_ok, changes, min_polarized, min_octants;
	double min_speed, max_largest;
	size_t birds;
} alive;

static alive scenario_run(uint64_t seed)
{
	steer_world *w = flock_scenario(seed);
	int rate = (int)steer_world_config_get(w)->tick_rate;
	alive a = {.min_polarized = MAX_BIRDS,
	           .min_speed = INFINITY,
	           .birds = steer_world_vehicles(w)->count};
	unsigned visited[9] = {0};
	int last_groups = -1;
	for (int second = 1; second <= 600; second++) {
		step(w, rate);
		if (second < 20)
			continue;
		sky s = survey(w);
		a.seconds++;
		a.spread_ok += s.polarized >= 3 && s.spread >= STEER_TAU / 8;
		a.apart_ok += s.apart >= 3;
		a.changes += last_groups >= 0 && s.groups != last_groups;
		last_groups = s.groups;
		a.min_polarized = s.polarized < a.min_polarized ? s.polarized : a.min_polarized;
		a.min_speed = fmin(a.min_speed, s.mean_speed);
		a.max_largest = fmax(a.max_largest, s.largest);
		for (int k = 1; k < 9; k++)
			visited[k] |= 1u << s.kind_octant[k];
	}
	a.min_octants = 8;
	for (int k = 1; k < 9; k++) {
		int octants = 0;
		for (int o = 0; o < 8; o++)
			octants += (visited[k] >> o) & 1;
		a.min_octants = octants < a.min_octants ? octants : a.min_octants;
	}
	steer_world_destroy(w);
	return a;
}

/* Seconds until polarization first exceeds 0.9 (checked each second; -1: not within
 * 60 s), and the health at 60 s. */
static double cohesion_off_run(uint64_t seed, steer_flock_health *at60)
{
	steer_world *w = cohesion_off_flock(seed);
	double first = -1;
	for (int s = 1; s <= 60; s++) {
		step(w, (int)steer_world_config_get(w)->tick_rate);
		if (first < 0 && steer_world_flock_health(w).polarization > 0.9)
			first = s;
	}
	*at60 = steer_world_flock_health(w);
	steer_world_destroy(w);
	return first;
}

static int seeds = 10;

static void flock_scenario_stays_alive(void)
{
	double max_speed = steer_flock_params().max_speed;
	for (int seed = 1; seed <= seeds; seed++) {
		alive a = scenario_run((uint64_t)seed);
		/* Measured: every second of seeds 1-100 but one (seed 56, 36 degrees); with
		 * solid bodies, 574 of 581 in seed 7 (docs/BEHAVIORS.md#the-flock-scenario). */
		CHECK(a.spread_ok == a.seconds,
		      "seed %d: in %d of %d seconds fewer than three polarized groups, or all "
		      "headed within 45 degrees (fewest polarized %d)",
		      seed, a.seconds - a.spread_ok, a.seconds, a.min_polarized);
		CHECK(a.apart_ok >= 0.8 * a.seconds,
		      "seed %d: three groups pairwise 45 degrees apart in only %d of %d seconds",
		      seed, a.apart_ok, a.seconds);
		CHECK(a.changes >= 50, "seed %d: the groups changed only %d times", seed,
		      a.changes);
		CHECK(a.min_octants >= 4, "seed %d: a kind headed only %d ways of 8", seed,
		      a.min_octants);
		CHECK(a.min_speed >= 0.5 * max_speed, "seed %d: mean speed fell to %.2f of max %g",
		      seed, a.min_speed, max_speed);
		CHECK(a.max_largest <= 0.25, "seed %d: a group held %.0f%% of the birds", seed,
		      100 * a.max_largest);
	}
}

static void cohesion_off_flock_lines_up(void)
{
	for (int seed = 1; seed <= seeds; seed++) {
		steer_flock_health at60;
		double t = cohesion_off_run((uint64_t)seed, &at60);
		CHECK(t > 0, "seed %d: polarization %.3f at 60 s (speed %.2f)", seed,
		      at60.polarization, at60.mean_speed);
		/* and it is not lined up standing still */
		CHECK(at60.mean_speed >= 25, "seed %d: mean speed %.2f at 60 s", seed,
		      at60.mean_speed);
	}
}

static void print_table(void)
{
	printf("flock scenario, 1000 x 600 wrap, surveyed each second from 20 s to 10 min\n");
	printf("seed | birds | 3 polarized, spread >= 45 | 3 pairwise >= 45 | fewest polarized "
	       "| group count changes | fewest compass points a kind headed | slowest mean "
	       "speed | largest group\n");
	for (int seed = 1; seed <= seeds; seed++) {
		alive a = scenario_run((uint64_t)seed);
		printf(
		    "%4d | %5zu | %22.1f%% | %15.1f%% | %16d | %19d | %36d | %18.1f | %12.0f%%\n",
		    seed, a.birds, 100.0 * a.spread_ok / a.seconds, 100.0 * a.apart_ok / a.seconds,
		    a.min_polarized, a.changes, a.min_octants, a.min_speed, 100 * a.max_largest);
		fflush(stdout);
	}
	printf("\n500 x 500 wrap world, %s:\nfirst second with polarization > 0.9, and speed "
	       "and polarization at 60 s\n",
	       COHESION_OFF);
	printf("seed | pol > 0.9 at | speed@60s pol@60s\n");
	for (int seed = 1; seed <= seeds; seed++) {
		steer_flock_health at60;
		double t = cohesion_off_run((uint64_t)seed, &at60);
		if (t > 0)
			printf("%4d | %10.0f s | %9.2f %7.2f\n", seed, t, at60.mean_speed,
			       at60.polarization);
		else
			printf("%4d |      never | %9.2f %7.2f\n", seed, at60.mean_speed,
			       at60.polarization);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	bool table = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--table")) {
			table = true;
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			seeds = atoi(argv[++i]);
			if (seeds < 1) {
				fprintf(stderr, "--seeds: give a number of seeds, 1 or more\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: test_flock_health [--table] [--seeds N]\n");
			return 2;
		}
	}
	if (table) {
		print_table();
		return 0;
	}
	RUN(flock_scenario_stays_alive);
	RUN(cohesion_off_flock_lines_up);
	return CHECK_DONE();
}
