#include "orca.h"

#include <math.h>

/* Below this the sine between two line directions counts as parallel. */
#define PARALLEL_EPS 1e-9

/* How far, in radians, a preferred velocity that breaks a line is turned right. */
#define KEEP_RIGHT 0.05

/* A line whose permitted side faces the unit normal n, through point. */
static steer_orca_line facing(steer_vec2 point, steer_vec2 n)
{
	steer_orca_line l = {point, v2(n.y, -n.x)};
	return l;
}

/* How far v lies on the forbidden side of l (negative: permitted). */
static double violation(const steer_orca_line *l, steer_vec2 v)
{
	return v2_cross(l->dir, v2_sub(l->point, v));
}

/* The unit vector of d, or fallback when d is zero. */
static steer_vec2 unit_or(steer_vec2 d, steer_vec2 fallback)
{
	double l = v2_len(d);
	return l > 0.0 ? v2_scale(d, 1.0 / l) : fallback;
}

steer_orca_line steer_orca_body(steer_vec2 rel_p, steer_vec2 rel_v, double r_sum, double tau,
                                double dt, double share, steer_vec2 v, steer_vec2 away)
{
	double dist2 = v2_len2(rel_p), r2 = r_sum * r_sum;
	steer_vec2 dir, u;
	if (dist2 > r2) {
		/* w: from the centre of the cut-off disc (the other's place after tau,
		 * relative, shrunk by tau) to the relative velocity. */
		steer_vec2 w = v2_sub(rel_v, v2_scale(rel_p, 1.0 / tau));
		double w2 = v2_len2(w), wp = v2_dot(w, rel_p);
		if (wp < 0.0 && wp * wp > r2 * w2) {
			/* Nearest the cut-off disc: push out of it radially. */
			double wl = sqrt(w2);
			steer_vec2 uw = v2_scale(w, 1.0 / wl);
			dir = v2(uw.y, -uw.x);
			u = v2_scale(uw, r_sum / tau - wl);
		} else {
			/* Nearest a leg of the cone: push out sideways, to the side w is on
			 * (the right one when exactly ahead, the same rule for both bodies,
			 * so two meeting head-on pass each other rather than mirror). */
			double leg = sqrt(dist2 - r2);
			if (v2_cross(rel_p, w) > 0.0)
				dir = v2_scale(v2(rel_p.x * leg - rel_p.y * r_sum,
				                  rel_p.x * r_sum + rel_p.y * leg),
				               1.0 / dist2);
			else
				dir = v2_scale(v2(rel_p.x * leg + rel_p.y * r_sum,
				                  -rel_p.x * r_sum + rel_p.y * leg),
				               -1.0 / dist2);
			u = v2_sub(v2_scale(dir, v2_dot(rel_v, dir)), rel_v);
		}
	} else {
		/* Overlapping: be apart by the end of this tick. */
		steer_vec2 w = v2_sub(rel_v, v2_scale(rel_p, 1.0 / dt));
		double wl = v2_len(w);
		steer_vec2 uw = wl > 0.0 ? v2_scale(w, 1.0 / wl) : away;
		dir = v2(uw.y, -uw.x);
		u = v2_scale(uw, r_sum / dt - wl);
	}
	steer_orca_line l = {v2_add(v, v2_scale(u, share)), dir};
	return l;
}

/* The left and right tangents from the origin to the disc of radius r at c (|c| > r),
 * as unit directions. */
static steer_vec2 left_leg(steer_vec2 c, double r)
{
	double d2 = v2_len2(c), leg = sqrt(d2 - r * r);
	return v2_scale(v2(c.x * leg - c.y * r, c.x * r + c.y * leg), 1.0 / d2);
}

static steer_vec2 right_leg(steer_vec2 c, double r)
{
	double d2 = v2_len2(c), leg = sqrt(d2 - r * r);
	return v2_scale(v2(c.x * leg + c.y * r, -c.x * r + c.y * leg), 1.0 / d2);
}

/* The line tangent to the cut-off disc of radius rc at centre, at the point nearest
 * v; back: the normal to use when v is the centre itself. */
static steer_orca_line cutoff_disc(steer_vec2 centre, double rc, steer_vec2 v, steer_vec2 back)
{
	steer_vec2 n = unit_or(v2_sub(v, centre), back);
	return facing(v2_add(centre, v2_scale(n, rc)), n);
}

/* Velocity obstacle of a still capsule (RVO2's obstacle lines, for a segment that is
 * a two-sided obstacle of its own: both ends convex, no neighbouring edges). */
void steer_orca_segment(steer_vec2 a, steer_vec2 b, double r, double tau, steer_vec2 v,
                        steer_vec2 away, steer_orca_line *out)
{
	double r2 = r * r;
	/* a: the end on the left as seen from the centre. */
	if (v2_cross(a, b) > 0.0) {
		steer_vec2 t = a;
		a = b;
		b = t;
	}
	steer_vec2 ab = v2_sub(b, a);
	double len2 = v2_len2(ab);
	double s = len2 > 0.0 ? -v2_dot(a, ab) / len2 : 0.0;
	double line2 = v2_len2(v2_add(a, v2_scale(ab, s)));
	steer_vec2 near = v2_add(a, v2_scale(ab, fmin(fmax(s, 0.0), 1.0)));
	if (v2_len2(near) <= r2) {
		/* Touching already: any velocity that does not close in. */
		*out = facing(v2(0, 0), unit_or(v2_scale(near, -1.0), away));
		return;
	}
	/* Seen end-on, the near end's disc hides the rest: both legs touch it. */
	bool single = len2 == 0.0;
	if (!single && s < 0.0 && line2 <= r2) {
		b = a;
		single = true;
	} else if (!single && s > 1.0 && line2 <= r2) {
		a = b;
		single = true;
	}
	steer_vec2 ll = left_leg(a, r), rl = right_leg(b, r);
	double inv_tau = 1.0 / tau, rc = r * inv_tau;
	steer_vec2 lc = v2_scale(a, inv_tau), rcut = v2_scale(b, inv_tau);
	steer_vec2 cut = v2_sub(rcut, lc);
	double t = single ? 0.5 : v2_dot(v2_sub(v, lc), cut) / v2_len2(cut);
	double tl = v2_dot(v2_sub(v, lc), ll), tr = v2_dot(v2_sub(v, rcut), rl);
	if ((t < 0.0 && tl < 0.0) || (single && tl < 0.0 && tr < 0.0)) {
		*out = cutoff_disc(lc, rc, v, unit_or(v2_scale(a, -1.0), away));
		return;
	}
	if (t > 1.0 && tr < 0.0) {
		*out = cutoff_disc(rcut, rc, v, unit_or(v2_scale(b, -1.0), away));
		return;
	}
	/* Nearest of the cut-off edge and the two legs. */
	double dc = (t < 0.0 || t > 1.0 || single)
	                ? INFINITY
	                : v2_len2(v2_sub(v, v2_add(lc, v2_scale(cut, t))));
	double dl = tl < 0.0 ? INFINITY : v2_len2(v2_sub(v, v2_add(lc, v2_scale(ll, tl))));
	double dr = tr < 0.0 ? INFINITY : v2_len2(v2_sub(v, v2_add(rcut, v2_scale(rl, tr))));
	steer_orca_line l;
	if (dc <= dl && dc <= dr) {
		l.dir = v2_scale(ab, -1.0 / sqrt(len2));
		l.point = v2_add(lc, v2_scale(v2_perp(l.dir), rc));
	} else if (dl <= dr) {
		l.dir = ll;
		l.point = v2_add(lc, v2_scale(v2_perp(l.dir), rc));
	} else {
		l.dir = v2_scale(rl, -1.0);
		l.point = v2_add(rcut, v2_scale(v2_perp(l.dir), rc));
	}
	*out = l;
}

bool steer_orca_covered(const steer_orca_line *lines, size_t n, steer_vec2 a, steer_vec2 b,
                        double r, double tau)
{
	double inv_tau = 1.0 / tau, rc = r * inv_tau;
	steer_vec2 sa = v2_scale(a, inv_tau), sb = v2_scale(b, inv_tau);
	for (size_t j = 0; j < n; j++) {
		const steer_orca_line *l = &lines[j];
		if (v2_cross(v2_sub(sa, l->point), l->dir) - rc >= 0.0 &&
		    v2_cross(v2_sub(sb, l->point), l->dir) - rc >= 0.0)
			return true;
	}
	return false;
}

bool steer_orca_permits(const steer_orca_line *lines, size_t n, steer_vec2 v)
{
	for (size_t j = 0; j < n; j++)
		if (violation(&lines[j], v) > 0.0)
			return false;
	return true;
}

/* The program along line k alone, within the speed disc and the lines before k:
 * the point closest to opt, or (by_dir) furthest along the unit direction opt.
 * False when nothing on the line is permitted. */
static bool program_1d(const steer_orca_line *lines, size_t k, double radius, steer_vec2 opt,
                       bool by_dir, steer_vec2 *result)
{
	const steer_orca_line *lk = &lines[k];
	double dot = v2_dot(lk->point, lk->dir);
	double disc = dot * dot + radius * radius - v2_len2(lk->point);
	if (disc < 0.0)
		return false; /* the line misses the speed disc */
	double root = sqrt(disc);
	double lo = -dot - root, hi = -dot + root;
	for (size_t i = 0; i < k; i++) {
		double den = v2_cross(lk->dir, lines[i].dir);
		double num = v2_cross(lines[i].dir, v2_sub(lk->point, lines[i].point));
		if (fabs(den) <= PARALLEL_EPS) {
			if (num < 0.0)
				return false; /* parallel, and wholly forbidden by line i */
			continue;
		}
		double t = num / den;
		if (den >= 0.0)
			hi = fmin(hi, t);
		else
			lo = fmax(lo, t);
		if (lo > hi)
			return false;
	}
	double t;
	if (by_dir)
		t = v2_dot(opt, lk->dir) > 0.0 ? hi : lo;
	else
		t = fmin(fmax(v2_dot(lk->dir, v2_sub(opt, lk->point)), lo), hi);
	*result = v2_add(lk->point, v2_scale(lk->dir, t));
	return true;
}

/* The program over lines[0 .. n) and the speed disc, one line at a time (Seidel's
 * incremental method, the lines in their given order). Returns n on success, else
 * the line it failed on, with *result the best for the lines before it. */
static size_t program_2d(const steer_orca_line *lines, size_t n, double radius, steer_vec2 opt,
                         bool by_dir, steer_vec2 *result)
{
	if (by_dir)
		*result = v2_scale(opt, radius);
	else if (v2_len2(opt) > radius * radius)
		*result = v2_scale(v2_norm(opt), radius);
	else
		*result = opt;
	for (size_t i = 0; i < n; i++) {
		if (violation(&lines[i], *result) <= 0.0)
			continue;
		steer_vec2 before = *result;
		if (!program_1d(lines, i, radius, opt, by_dir, result)) {
			*result = before;
			return i;
		}
	}
	return n;
}

/* When the lines cannot all be met: the hard lines kept, the velocity whose worst
 * violation of the others is least, found by a program in one dimension more
 * (projected onto each violated line in turn). */
static void program_3d(const steer_orca_line *lines, size_t n, size_t hard, size_t first,
                       double radius, steer_vec2 *result)
{
	steer_orca_line proj[STEER_ORCA_MAX_LINES];
	double distance = 0.0;
	for (size_t i = first; i < n; i++) {
		if (violation(&lines[i], *result) <= distance)
			continue;
		size_t m = 0;
		for (size_t j = 0; j < hard; j++)
			proj[m++] = lines[j];
		for (size_t j = hard; j < i; j++) {
			steer_orca_line l;
			double det = v2_cross(lines[i].dir, lines[j].dir);
			if (fabs(det) <= PARALLEL_EPS) {
				if (v2_dot(lines[i].dir, lines[j].dir) > 0.0)
					continue; /* parallel, same way: line i decides */
				l.point = v2_scale(v2_add(lines[i].point, lines[j].point), 0.5);
			} else {
				double k =
				    v2_cross(lines[j].dir, v2_sub(lines[i].point, lines[j].point)) /
				    det;
				l.point = v2_add(lines[i].point, v2_scale(lines[i].dir, k));
			}
			l.dir = v2_norm(v2_sub(lines[j].dir, lines[i].dir));
			proj[m++] = l;
		}
		steer_vec2 before = *result;
		/* Fails only by rounding: the result is inside by construction. */
		if (program_2d(proj, m, radius, v2(-lines[i].dir.y, lines[i].dir.x), true, result) <
		    m)
			*result = before;
		distance = violation(&lines[i], *result);
	}
}

steer_vec2 steer_orca_solve(const steer_orca_line *lines, size_t n, size_t hard, double max_speed,
                            steer_vec2 pref)
{
	if (n > STEER_ORCA_MAX_LINES)
		n = STEER_ORCA_MAX_LINES;
	if (!steer_orca_permits(lines, n, pref)) {
		/* Turned a little to the right: two bodies meeting exactly head-on have
		 * mirrored lines that only brake them to a stand-off; both keeping right
		 * breaks the tie the same way for both. */
		double c = cos(KEEP_RIGHT), s = sin(KEEP_RIGHT);
		pref = v2(pref.x * c + pref.y * s, pref.y * c - pref.x * s);
	}
	steer_vec2 v;
	size_t fail = program_2d(lines, n, max_speed, pref, false, &v);
	if (fail < n)
		program_3d(lines, n, hard, fail, max_speed, &v);
	return v;
}
