// rvo2_crowd: RVO2 on the world of `steer-bench --crowd N` (bench/crowd_layout.h): the
// same size, circles (as circumscribed octagons) and walls (as two-vertex obstacles),
// the same starts and the same sequence of goals for each agent. Agents as Steer's
// walkers: radius 5, max speed 50, the nearest 10 within Steer's reach (110: a horizon
// of 1 s at two walkers' speed, plus both radii), horizons 1 s for agents and 2 s for
// obstacles; each walks at max speed towards its goal and gets its next one within its
// radius of it. dt 1/60 s; 10 untimed ticks, then T timed (wall and this thread's CPU,
// the goal bookkeeping included as in Steer's bench). Prints a RESULT line in
// steer-bench's format. Built without OpenMP: one thread.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "RVO.h"
#include "peer_clock.h"
#include "crowd_layout.h"

int main(int argc, char **argv)
{
	long n = 10000, ticks = 10;
	unsigned long long seed = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ticks") && i + 1 < argc)
			ticks = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], 0, 10);
		else if (argv[i][0] != '-')
			n = atol(argv[i]);
		else {
			fprintf(stderr, "usage: rvo2_crowd [N] [--ticks T] [--seed S]\n");
			return 2;
		}
	}
	if (n < 1 || ticks < 1) {
		fprintf(stderr, "rvo2_crowd: N and T must be positive\n");
		return 2;
	}
	const double radius = 5, speed = 50;
	crowd_layout L = crowd_layout_make(n, 10.0, radius, seed);
	RVO::RVOSimulator sim(1.0f / 60.0f, 110.0f, 10, 1.0f, 2.0f, (float)radius, (float)speed);
	for (long k = 0; k < crowd_shape_count(&L); k++) {
		crowd_shape s = crowd_shape_at(&L, k);
		std::vector<RVO::Vector2> poly;
		if (s.wall) {
			poly.push_back(RVO::Vector2((float)s.x1, (float)s.y1));
			poly.push_back(RVO::Vector2((float)s.x2, (float)s.y2));
		} else {
			double r = s.r / cos(CROWD_PI / 8); /* the octagon holds the circle */
			for (int e = 0; e < 8; e++) /* counterclockwise, as RVO2 asks */
				poly.push_back(RVO::Vector2((float)(s.x1 + r * cos(e * CROWD_PI / 4)),
				                            (float)(s.y1 + r * sin(e * CROWD_PI / 4))));
		}
		sim.addObstacle(poly);
	}
	sim.processObstacles();
	std::vector<double> gx(n), gy(n), px(n), py(n);
	std::vector<long> goal(n, 1);
	for (long a = 0; a < n; a++) {
		double x, y;
		crowd_point(&L, a, 0, &x, &y);
		sim.addAgent(RVO::Vector2((float)x, (float)y));
		crowd_point(&L, a, 1, &gx[a], &gy[a]);
	}
	long arrivals = 0;
	auto tick = [&]() {
		for (long a = 0; a < n; a++) {
			RVO::Vector2 to = RVO::Vector2((float)gx[a], (float)gy[a]) - sim.getAgentPosition(a);
			sim.setAgentPrefVelocity(a, RVO::absSq(to) > 0 ? RVO::normalize(to) * (float)speed
			                                               : to);
		}
		sim.doStep();
		for (long a = 0; a < n; a++) {
			const RVO::Vector2 &p = sim.getAgentPosition(a);
			double dx = gx[a] - p.x(), dy = gy[a] - p.y();
			if (dx * dx + dy * dy <= radius * radius) {
				arrivals++;
				crowd_point(&L, a, ++goal[a], &gx[a], &gy[a]);
			}
		}
	};
	for (int k = 0; k < 10; k++)
		tick();
	std::vector<double> ms;
	long arrivals0 = arrivals;
	double c0 = cpu_s(), start = wall_s();
	for (long k = 0; k < ticks; k++) {
		double t0 = wall_s();
		tick();
		ms.push_back((wall_s() - t0) * 1e3);
	}
	double total = (wall_s() - start) * 1e3, cpu = cpu_s() - c0;
	std::sort(ms.begin(), ms.end());
	for (long a = 0; a < n; a++)
		px[a] = sim.getAgentPosition(a).x(), py[a] = sim.getAgentPosition(a).y();
	long pairs = crowd_overlaps(px.data(), py.data(), n, radius, L.side, NULL);
	long inside = crowd_inside_shapes(&L, px.data(), py.data(), n, radius);
	double mean = total / ticks, cpu_ms = cpu * 1e3 / ticks;
	printf("crowd: %.3f us per agent-tick (cpu); %ld goals reached in the timed ticks; at the "
	       "end %ld overlapping pairs, %ld inside an obstacle (beyond 1%% of the radius)\n",
	       cpu_ms * 1e3 / n, arrivals - arrivals0, pairs, inside);
	printf("RESULT system=rvo2-crowd n=%ld ticks=%ld mean_ms=%.4f p50_ms=%.4f best_ms=%.4f "
	       "cpu_ms=%.4f side=%.0f threads=1\n",
	       n, ticks, mean, ms[ms.size() / 2], ms[0], cpu_ms, L.side);
	return 0;
}
