/* Optimal reciprocal collision avoidance (van den Berg, Guy, Lin and Manocha,
 * "Reciprocal n-body collision avoidance", 2011), as pure geometry: each nearby
 * body or wall makes one half-plane of permitted velocities, and one small linear
 * program picks the permitted velocity closest to the preferred one. All
 * constraints meet in one program, so opposing pushes cannot cancel out.
 *
 * Velocities are the vehicle's own; positions are relative to the vehicle. */
#ifndef STEER_ORCA_H
#define STEER_ORCA_H

#include <stdbool.h>
#include <stddef.h>

#include "steer/vec2.h"

/* The velocities v with cross(dir, v - point) >= 0 (left of dir) are permitted. dir
 * is a unit vector. */
typedef struct steer_orca_line {
	steer_vec2 point, dir;
} steer_orca_line;

/* The most lines one program takes: the nearest obstacles and walls first (see
 * STEER_ORCA_MAX_HARD), then the nearest vehicles (avoid_neighbours allows at most
 * STEER_ORCA_MAX_NEIGHBOURS). */
#define STEER_ORCA_MAX_HARD       64
#define STEER_ORCA_MAX_NEIGHBOURS 64
#define STEER_ORCA_MAX_LINES      (2 * STEER_ORCA_MAX_HARD + STEER_ORCA_MAX_NEIGHBOURS)

/* The half-plane that keeps a body off another moving one for tau seconds.
 * rel_p: the other's centre minus ours; rel_v: our velocity minus the other's;
 * r_sum: the two radii summed; v: our velocity; share: our part of the avoidance
 * (1/2 against a vehicle that avoids too, 1 against one that does not or an
 * obstacle). Already overlapping, the line asks to be apart within dt. away: the
 * unit direction to part along when the centres coincide and nothing else says. */
steer_orca_line steer_orca_body(steer_vec2 rel_p, steer_vec2 rel_v, double r_sum, double tau,
                                double dt, double share, steer_vec2 v, steer_vec2 away);

/* steer_orca_body's arguments for several bodies met by one avoider (tau, dt and v
 * its own), by body, for the kernel's lanes (kernel.h: orca_bodies). Room for the
 * most neighbours, rounded up to the widest lanes: the caller fills the entries
 * past its count, up to a multiple of STEER_ORCA_BODIES_LANES, with copies of a
 * valid one. */
#define STEER_ORCA_BODIES_LANES 8 /* the widest lanes */
#define STEER_ORCA_BODIES_ROOM  (STEER_ORCA_MAX_NEIGHBOURS + STEER_ORCA_BODIES_LANES)
typedef struct steer_orca_bodies {
	double px[STEER_ORCA_BODIES_ROOM], py[STEER_ORCA_BODIES_ROOM]; /* rel_p */
	double vx[STEER_ORCA_BODIES_ROOM], vy[STEER_ORCA_BODIES_ROOM]; /* rel_v */
	double r[STEER_ORCA_BODIES_ROOM], share[STEER_ORCA_BODIES_ROOM];
	double ax[STEER_ORCA_BODIES_ROOM], ay[STEER_ORCA_BODIES_ROOM]; /* away */
	double tau, dt;
	steer_vec2 v;
} steer_orca_bodies;

/* The half-plane that keeps a disc of radius r off the still segment a-b (relative
 * to the disc's centre; a == b: a still disc) for tau seconds, judged at velocity v,
 * written to *out. When the disc already touches the segment the line forbids
 * moving any closer. away: the unit direction to leave along when the centre lies
 * on the segment. */
void steer_orca_segment(steer_vec2 a, steer_vec2 b, double r, double tau, steer_vec2 v,
                        steer_vec2 away, steer_orca_line *out);

/* Whether the still capsule a-b of radius r (a == b: a disc), scaled by 1/tau, lies
 * wholly on the forbidden side of one of lines[0 .. n): its velocity obstacle is
 * then forbidden already, and another line would only narrow the choice. */
bool steer_orca_covered(const steer_orca_line *lines, size_t n, steer_vec2 a, steer_vec2 b,
                        double r, double tau);

/* The velocity closest to pref within max_speed that lines[0 .. n) all permit. The
 * first `hard` lines (obstacles and walls) are kept whatever happens; when the rest
 * cannot all be met, the velocity that violates the worst of them least is taken
 * (the paper's section 5.3). */
steer_vec2 steer_orca_solve(const steer_orca_line *lines, size_t n, size_t hard, double max_speed,
                            steer_vec2 pref);

/* Whether velocity v is permitted by every line in lines[0 .. n). */
bool steer_orca_permits(const steer_orca_line *lines, size_t n, steer_vec2 v);

#endif
