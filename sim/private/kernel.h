/* The tick's inner loops in vector lanes, as a table of entry points: kernel.c is
 * written once against the lanes layer (lanes_scalar.h, lanes_avx2.h,
 * lanes_avx512.h) and compiled once per instruction set, each form exporting one
 * steer_kernel. Every form gives the scalar form's bits (see lanes_avx2.h), so
 * which one runs changes speed, never results. A world picks its form from the CPU
 * and its SIMD cap (steer_world_set_simd); tests run each form against the others. */
#ifndef STEER_KERNEL_H
#define STEER_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/simd.h"

struct steer_agent;
struct steer_orca_bodies;
struct steer_orca_line;
struct steer_vec2;
struct steer_flock_query;
struct steer_flock_runs;
struct steer_flock_sums;
struct steer_flock_near;
struct steer_grid;
struct steer_palette;
struct steer_params;
struct steer_vehicles;
struct steer_world_config;

typedef struct steer_kernel {
	steer_simd_level level;
	/* How many plain flockers a lane group holds (see steer_flock_group_size). */
	int group_size;
	/* steer_flock_scan_lanes, steer_flock_forces_at and steer_flock_force_lanes
	 * (flock.h) for any m up to STEER_FLOCK_GROUP_MAX. */
	void (*scan_lanes)(const struct steer_vehicles *v, const struct steer_flock_runs *runs,
	                   bool one_group, const struct steer_flock_query *q, size_t first, int m,
	                   const struct steer_flock_near *near, struct steer_flock_sums *out);
	void (*forces_at)(const struct steer_vehicles *v, const struct steer_flock_runs *runs,
	                  bool one_group, size_t first, int m, const struct steer_params *p,
	                  double dt, const struct steer_flock_near *near, double *fx, double *fy);
	void (*force_lanes)(const struct steer_agent *a, const struct steer_flock_sums *sums, int m,
	                    double dt, struct steer_vec2 *force);
	/* steer_motion_step for the whole lane groups of [from, to), speed2 included;
	 * returns where the rest starts. */
	size_t (*move)(struct steer_vehicles *v, const struct steer_palette *params,
	               const struct steer_world_config *c, double dt, size_t from, size_t to,
	               double *speed2);
	/* The grid cells of points [from, to) into cell, for the whole lane groups;
	 * returns where the rest starts. */
	size_t (*grid_cells)(const struct steer_grid *g, const double *px, const double *py,
	                     size_t from, size_t to, uint32_t *cell);
	/* The same cells as global columns into col and rows into row. */
	size_t (*grid_columns_rows)(const struct steer_grid *g, const double *px, const double *py,
	                            size_t from, size_t to, uint32_t *col, uint32_t *row);
	/* steer_orca_body (orca.h) for bodies [0, n) of b into out[0, n), in whole lane
	 * groups (see steer_orca_bodies); returns how many it did: n, or 0 in the
	 * one-lane form, where the caller's branching steer_orca_body does the
	 * same without computing every case. */
	size_t (*orca_bodies)(const struct steer_orca_bodies *b, size_t n,
	                      struct steer_orca_line *out);
	/* The four-lane form a wider one hands what four lanes do better (see
	 * flock.c), or NULL. */
	const struct steer_kernel *narrow;
} steer_kernel;

extern const steer_kernel steer_kernel_scalar;
#ifdef STEER_HAVE_AVX2
extern const steer_kernel steer_kernel_avx2;
extern const steer_kernel steer_kernel_avx512;
/* Four lanes (lanes_avx2.h) with AVX-512's 32 registers and mask compares: the
 * AVX-512 form's narrow form. */
extern const steer_kernel steer_kernel_avx512_4;
#endif

/* The fastest form this CPU runs at or below level. */
const steer_kernel *steer_kernel_for(steer_simd_level level);
/* Every form this CPU runs (count of them in *n), for tests. */
const steer_kernel *const *steer_kernel_forms(int *n);

#endif
