// rvo2_circle: RVO2's examples/Circle.cc, tiled to N agents by bench/circle_layout.h,
// the scene `steer-bench --circle N` runs. Each tick is Circle.cc's loop body: the
// preferred velocities (towards the goal, of length at most 1), then doStep. The ticks
// are timed (wall and this thread's CPU); the check that everyone is home and, every
// 4th tick, the overlap count (crowd_layout.h's, as Steer's bench) are not. Prints a
// RESULT line in steer-bench's format. Built without OpenMP: one thread.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "RVO.h"
#include "peer_clock.h"
#include "circle_layout.h"
#include "crowd_layout.h"

int main(int argc, char **argv)
{
	long n = 250, max_ticks = 10000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ticks") && i + 1 < argc)
			max_ticks = atol(argv[++i]);
		else if (argv[i][0] != '-')
			n = atol(argv[i]);
		else {
			fprintf(stderr, "usage: rvo2_circle [N] [--ticks MAX]\n");
			return 2;
		}
	}
	if (n < 1 || max_ticks < 1) {
		fprintf(stderr, "rvo2_circle: N and MAX must be positive\n");
		return 2;
	}
	circle_layout L = circle_layout_make(n);
	RVO::RVOSimulator sim;
	sim.setTimeStep((float)CIRCLE_DT);
	sim.setAgentDefaults((float)CIRCLE_SIGHT, CIRCLE_NEAREST, (float)CIRCLE_HORIZON,
	                     (float)CIRCLE_HORIZON, (float)CIRCLE_BODY, (float)CIRCLE_MAXSPEED);
	std::vector<RVO::Vector2> goals;
	for (long a = 0; a < n; a++) {
		double x, y;
		circle_start(&L, a, &x, &y);
		sim.addAgent(RVO::Vector2((float)x, (float)y));
		circle_goal(&L, a, &x, &y);
		goals.push_back(RVO::Vector2((float)x, (float)y));
	}
	std::vector<double> px(n), py(n), ms;
	long ticks = 0, away = n, pairs = 0;
	double cpu = 0, deepest = 0;
	while (away > 0 && ticks < max_ticks) {
		double c0 = cpu_s(), t0 = wall_s();
		for (long a = 0; a < n; a++) {
			RVO::Vector2 to = goals[a] - sim.getAgentPosition(a);
			if (RVO::absSq(to) > 1.0f)
				to = RVO::normalize(to);
			sim.setAgentPrefVelocity(a, to);
		}
		sim.doStep();
		ms.push_back((wall_s() - t0) * 1e3);
		cpu += cpu_s() - c0;
		ticks++;
		away = 0;
		for (long a = 0; a < n; a++) {
			const RVO::Vector2 &p = sim.getAgentPosition(a);
			px[a] = p.x(), py[a] = p.y();
			away += RVO::absSq(p - goals[a]) > (float)(CIRCLE_BODY * CIRCLE_BODY);
		}
		if (ticks % 4 == 0) {
			double d;
			long k = crowd_overlaps(px.data(), py.data(), n, CIRCLE_BODY, L.side, &d);
			if (k < 0) {
				fprintf(stderr, "rvo2_circle: out of memory counting overlaps\n");
				return 1;
			}
			pairs += k;
			deepest = std::max(deepest, d);
		}
	}
	double total = 0;
	for (double m : ms)
		total += m;
	std::sort(ms.begin(), ms.end());
	double mean = total / ticks, p50 = ms[ms.size() / 2], us = cpu * 1e6 / ((double)ticks * n);
	if (away == 0)
		printf("circle: all %ld agents home after %ld ticks\n", n, ticks);
	else
		printf("circle: %ld of %ld agents not home after %ld ticks\n", away, n, ticks);
	printf("RESULT system=rvo2-circle n=%ld ticks=%ld not_home=%ld mean_ms=%.4f p50_ms=%.4f "
	       "cpu_us_agent_tick=%.4f overlap_pairs=%ld deepest=%.4f threads=1\n",
	       n, ticks, away, mean, p50, us, pairs, deepest);
	return 0;
}
