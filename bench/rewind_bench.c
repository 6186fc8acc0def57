/* steer-rewind-bench: what rewind costs on a big flock (server/history.c). Ticks a
 * flock of N boids for S seconds of ticks at 60 Hz with a checkpoint every E seconds,
 * as the server does, then brings the world back S seconds, and to ticks a little
 * further back each time (so that the replay from the checkpoint before each is of a
 * different length), and prints the median and slowest wall time of those, the
 * median cost of taking a checkpoint, and the memory of one.
 *
 *   steer-rewind-bench [--n 100000] [--seconds 60] [--every 2] [--repeats 5]
 *                      [--threads 1] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "history.h"
#include "scenario.h"

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
	long n = 100000, repeats = 5;
	double seconds = 60, every = 2;
	int threads = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--n"))
			n = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--every"))
			every = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--repeats"))
			repeats = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			threads = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "steer-rewind-bench: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (n < 1 || seconds <= 0 || every <= 0 || repeats < 1 || threads < 1) {
		fprintf(stderr, "steer-rewind-bench: bad arguments\n");
		return 2;
	}
	/* The flock of steer-bench: about 20 neighbours in sight each, wrapping. */
	steer_params p = steer_flock_params();
	double side = sqrt((double)n * (STEER_TAU / 2) * p.sight_distance * p.sight_distance / 20);
	steer_world_config cfg = steer_world_config_default();
	cfg.width = cfg.height = side;
	cfg.max_vehicles = (size_t)n;
	steer_session s = {.world = steer_world_create(&cfg), .paused = true};
	if (!s.world || steer_world_set_threads(s.world, threads) != STEER_OK)
		return 1;
	steer_rng *rng = steer_world_rng(s.world);
	for (long k = 0; k < n; k++) {
		double a = steer_rng_range(rng, 0, STEER_TAU);
		steer_vec2 pos = {steer_rng_range(rng, 0, side), steer_rng_range(rng, 0, side)};
		steer_vec2 vel = {cos(a) * p.max_speed, sin(a) * p.max_speed};
		uint32_t id;
		if (steer_vehicle_add(s.world, pos, vel, &p, &id) != STEER_OK ||
		    steer_vehicle_enable(s.world, id, STEER_FLOCK, true) != STEER_OK)
			return 1;
	}
	history *h = history_new((size_t)64 << 30, every); /* no budget limit here */
	if (!h)
		return 1;
	history_restart(h, s.world);
	/* The checkpoint's cost, measured apart (history_step takes them the same way). */
	size_t nck = (size_t)(seconds / every) + 2;
	double *ck_ms = malloc(nck * sizeof *ck_ms);
	double *tick_ms = malloc(((size_t)(seconds * 60) + 400) * sizeof *tick_ms);
	size_t taken = 0, ticks = 0, ck_bytes = 0;
	uint64_t total = (uint64_t)((seconds + 2 * every) * 60);
	for (uint64_t t = 0; t < total; t++) {
		double t0 = bench_clock(CLOCK_MONOTONIC);
		history_step(h, &s);
		double dt = (bench_clock(CLOCK_MONOTONIC) - t0) * 1e3;
		if (ticks < (size_t)(seconds * 60) + 400)
			tick_ms[ticks++] = dt;
		if (t % (uint64_t)(every * 60) == 0 && taken < nck) {
			t0 = bench_clock(CLOCK_MONOTONIC);
			history_image *img = history_image_take(s.world);
			ck_ms[taken++] = (bench_clock(CLOCK_MONOTONIC) - t0) * 1e3;
			ck_bytes = img ? history_image_bytes(img) : 0;
			history_image_free(img);
		}
	}
	uint64_t live = steer_world_tick(s.world);
	steer_strbuf st;
	steer_strbuf_init(&st);
	history_stats(h, s.world, &st);
	printf("workload: flock, N=%ld, wrap %.0f x %.0f, %d thread(s), 60 Hz, a checkpoint every "
	       "%g s; live tick %llu\n",
	       n, side, side, threads, every, (unsigned long long)live);
	printf("history: %s\n", st.data + 1);
	double tick_med = median(tick_ms, ticks);
	double ck_med = median(ck_ms, taken);
	printf("tick: median %.2f ms\n", tick_med);
	printf("checkpoint: median %.2f ms to take (%zu taken), %.1f MB each (%.0f bytes per "
	       "vehicle)\n",
	       ck_med, taken, (double)ck_bytes / 1048576.0, (double)ck_bytes / (double)n);
	/* Back S seconds from live, then to ticks a little further back. */
	double *rw_ms = malloc((size_t)repeats * sizeof *rw_ms);
	uint64_t back = (uint64_t)(seconds * 60);
	uint64_t step = (uint64_t)(every * 60) / (uint64_t)repeats + 1;
	for (long r = 0; r < repeats; r++) {
		char line[64];
		if (r == 0)
			snprintf(line, sizeof line, "rewind %llu", (unsigned long long)back);
		else
			snprintf(line, sizeof line, "goto-tick %llu",
			         (unsigned long long)(live - back - (uint64_t)r * step));
		steer_command cmd;
		char err[200];
		if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK)
			return 1;
		steer_reply rep;
		steer_reply_init(&rep);
		double t0 = bench_clock(CLOCK_MONOTONIC);
		history_goto_now(h, &cmd, &s, &rep);
		rw_ms[r] = (bench_clock(CLOCK_MONOTONIC) - t0) * 1e3;
		printf("%-18s %8.1f ms  %s\n", line, rw_ms[r], rep.ok ? rep.json.data : rep.error);
		steer_reply_free(&rep);
	}
	double worst = 0;
	for (long r = 0; r < repeats; r++)
		worst = rw_ms[r] > worst ? rw_ms[r] : worst;
	printf("rewind %g s: median %.1f ms, slowest %.1f ms (%ld of them)\n", seconds,
	       median(rw_ms, (size_t)repeats), worst, repeats);
	steer_strbuf_free(&st);
	free(rw_ms);
	free(ck_ms);
	free(tick_ms);
	history_free(h);
	steer_world_destroy(s.world);
	return 0;
}
