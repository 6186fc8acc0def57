/* RVO2's Circle example (examples/Circle.cc) as pure functions of N, so that
 * `steer-bench --circle N` and the RVO2 driver (bench/peers/rvo2_circle.cpp) build the
 * same scene: 250 agents evenly on a circle of radius 200, each walking to the point
 * opposite. Bigger N tiles independent copies 500 apart on a square grid (agent a is
 * in copy a / 250), so that a copy never meets another. RVO2's settings: dt 0.25,
 * neighborDist 15, maxNeighbors 10, timeHorizon 10, radius 1.5, maxSpeed 2, a
 * preferred speed of 1, and an agent is home within its radius of its goal. Plain C
 * that also compiles as C++. */
#ifndef STEER_CIRCLE_LAYOUT_H
#define STEER_CIRCLE_LAYOUT_H

#include <math.h>

#define CIRCLE_AGENTS   250 /* per copy */
#define CIRCLE_RADIUS   200.0
#define CIRCLE_SPACING  500.0 /* between copies' centres */
#define CIRCLE_DT       0.25
#define CIRCLE_SIGHT    15.0 /* RVO2's neighborDist */
#define CIRCLE_NEAREST  10   /* maxNeighbors */
#define CIRCLE_HORIZON  10.0 /* timeHorizon, s */
#define CIRCLE_BODY     1.5  /* the agents' radius */
#define CIRCLE_MAXSPEED 2.0  /* RVO2's maxSpeed */
#define CIRCLE_PACE     1.0  /* the preferred speed */
#define CIRCLE_PI       3.14159265358979323846

typedef struct circle_layout {
	long n;
	long per_side; /* copies on each side of the square grid */
	double side;   /* the world is [0, side] x [0, side] */
} circle_layout;

static inline circle_layout circle_layout_make(long n)
{
	circle_layout L;
	long copies = (n + CIRCLE_AGENTS - 1) / CIRCLE_AGENTS;
	L.n = n;
	L.per_side = (long)ceil(sqrt((double)copies));
	while (L.per_side * L.per_side < copies)
		L.per_side++;
	L.side = (double)L.per_side * CIRCLE_SPACING;
	return L;
}

/* The centre of agent a's copy. */
static inline void circle_centre(const circle_layout *L, long a, double *x, double *y)
{
	long c = a / CIRCLE_AGENTS;
	*x = (double)(c % L->per_side) * CIRCLE_SPACING + CIRCLE_SPACING / 2;
	*y = (double)(c / L->per_side) * CIRCLE_SPACING + CIRCLE_SPACING / 2;
}

/* Agent a's start; its goal is the point opposite across its copy's centre. */
static inline void circle_start(const circle_layout *L, long a, double *x, double *y)
{
	double cx, cy, t = 2 * CIRCLE_PI * (double)(a % CIRCLE_AGENTS) / CIRCLE_AGENTS;
	circle_centre(L, a, &cx, &cy);
	*x = cx + CIRCLE_RADIUS * cos(t);
	*y = cy + CIRCLE_RADIUS * sin(t);
}

static inline void circle_goal(const circle_layout *L, long a, double *x, double *y)
{
	double cx, cy, sx, sy;
	circle_centre(L, a, &cx, &cy);
	circle_start(L, a, &sx, &sy);
	*x = 2 * cx - sx;
	*y = 2 * cy - sy;
}

/* Whether agent a at (x, y) is home: within its radius of its goal, as Circle.cc's
 * reachedGoal has it. */
static inline int circle_home(const circle_layout *L, long a, double x, double y)
{
	double gx, gy;
	circle_goal(L, a, &gx, &gy);
	return (x - gx) * (x - gx) + (y - gy) * (y - gy) <= CIRCLE_BODY * CIRCLE_BODY;
}

#endif
