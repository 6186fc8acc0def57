/* 2-D vector math: plain value types, inlined, no hidden state. */
#ifndef STEER_VEC2_H
#define STEER_VEC2_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A full turn in radians, 2 pi: the one name for it (strict C11 <math.h> has no M_PI).
 * Its fractions (STEER_TAU / 2, / 4, / 8) are exact in binary. */
#define STEER_TAU 6.283185307179586

typedef struct steer_vec2 {
	double x, y;
} steer_vec2;

static inline steer_vec2 v2(double x, double y)
{
	steer_vec2 r = {x, y};
	return r;
}
static inline steer_vec2 v2_add(steer_vec2 a, steer_vec2 b)
{
	return v2(a.x + b.x, a.y + b.y);
}
static inline steer_vec2 v2_sub(steer_vec2 a, steer_vec2 b)
{
	return v2(a.x - b.x, a.y - b.y);
}
static inline steer_vec2 v2_scale(steer_vec2 a, double s)
{
	return v2(a.x * s, a.y * s);
}
static inline double v2_dot(steer_vec2 a, steer_vec2 b)
{
	return a.x * b.x + a.y * b.y;
}
static inline double v2_cross(steer_vec2 a, steer_vec2 b)
{
	return a.x * b.y - a.y * b.x;
}
static inline double v2_len2(steer_vec2 a)
{
	return a.x * a.x + a.y * a.y;
}
static inline double v2_len(steer_vec2 a)
{
	return sqrt(v2_len2(a));
}
/* Left-hand perpendicular (rotated +90 degrees). */
static inline steer_vec2 v2_perp(steer_vec2 a)
{
	return v2(-a.y, a.x);
}

/* A zero vector normalizes to zero rather than NaN: callers treat "no direction"
 * explicitly where it matters. */
static inline steer_vec2 v2_norm(steer_vec2 a)
{
	double l = v2_len(a);
	return l > 0.0 ? v2_scale(a, 1.0 / l) : v2(0.0, 0.0);
}

static inline steer_vec2 v2_truncate(steer_vec2 a, double max)
{
	double l2 = v2_len2(a);
	if (l2 > max * max && l2 > 0.0)
		return v2_scale(a, max / sqrt(l2));
	return a;
}

#ifdef __cplusplus
}
#endif

#endif
