/* Flocks keep flying (issue 14): over minutes of simulated time the flock scenario
 * keeps its speed and its heading, and an alignment-and-separation flock lines up.
 *
 *   test_flock_health            check seeds 1-10 (what ctest runs)
 *   test_flock_health --seeds N  check seeds 1..N only (the sanitizer build: slower)
 *   test_flock_health --table    print the figures instead of checking them
 *
 * Checked, for each seed: the `flock` scenario (the server's default 1000 x 600 wrap
 * world) after 2, 5 and 10 simulated minutes has its flockers' mean speed at least
 * half their max_speed and polarization above 0.8; and 150 boids of the flock preset
 * with cohesion off (500 x 500 wrap world, sight 100, too close 20, max speed and force
 * 50) reach polarization above 0.9 within 60 s, and fly at half their max_speed or
 * more at 60 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "scenario.h"
#include "steer/command.h"
#include "testutil.h"

static const double minutes[] = {2, 5, 10};
#define NMIN (sizeof minutes / sizeof minutes[0])

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

static long ticks_at(const steer_world *w, double min)
{
	return (long)(min * 60.0 * steer_world_config_get(w)->tick_rate + 0.5);
}

/* Steps w to each of minutes[], filling h[]. */
static void scenario_run(uint64_t seed, steer_flock_health h[NMIN])
{
	steer_world *w = flock_scenario(seed);
	for (size_t k = 0; k < NMIN; k++) {
		step(w, (int)(ticks_at(w, minutes[k]) - (long)steer_world_tick(w)));
		h[k] = steer_world_flock_health(w);
	}
	steer_world_destroy(w);
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

static void flock_scenario_keeps_flying(void)
{
	double max_speed = steer_flock_params().max_speed;
	for (int seed = 1; seed <= seeds; seed++) {
		steer_flock_health h[NMIN];
		scenario_run((uint64_t)seed, h);
		for (size_t k = 0; k < NMIN; k++) {
			CHECK(h[k].mean_speed >= 0.5 * max_speed,
			      "seed %d, %g min: mean speed %.2f of max %g", seed, minutes[k],
			      h[k].mean_speed, max_speed);
			CHECK(h[k].polarization > 0.8, "seed %d, %g min: polarization %.3f", seed,
			      minutes[k], h[k].polarization);
		}
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
	steer_world *w = flock_scenario(1);
	printf("flock scenario, 1000 x 600 wrap, %zu boids, max_speed %g: mean speed (u/s) and "
	       "polarization of the flockers\n",
	       steer_world_vehicles(w)->count, steer_flock_params().max_speed);
	steer_world_destroy(w);
	printf("seed");
	for (size_t k = 0; k < NMIN; k++)
		printf(" | %4g min speed  pol", minutes[k]);
	printf("\n");
	for (int seed = 1; seed <= seeds; seed++) {
		steer_flock_health h[NMIN];
		scenario_run((uint64_t)seed, h);
		printf("%4d", seed);
		for (size_t k = 0; k < NMIN; k++)
			printf(" |    %9.2f %4.2f", h[k].mean_speed, h[k].polarization);
		printf("\n");
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
	RUN(flock_scenario_keeps_flying);
	RUN(cohesion_off_flock_lines_up);
	return CHECK_DONE();
}
