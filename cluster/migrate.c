/* Migration: every vehicle that left this rank's region, to the rank that owns
 * where it is now. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

/* The rank owning (x, y): this one, without a lookup, strictly inside its core. */
int steer_cluster_owner_of(const steer_cluster *c, double x, double y)
{
	const double *m = c->core;
	if (x > m[0] && x < m[2] && y > m[1] && y < m[3])
		return c->rank;
	return steer_partition_owner(c->part, x, y);
}

/* Sends every vehicle this rank holds outside its region to the region's rank, and
 * takes in those sent here. Vehicles with ids from `made_from` up, and every vehicle
 * when `replaced`, were made alike on every rank: those outside the region are
 * dropped, the rank whose region they are in keeps its own. */
steer_status steer_cluster_migrate(steer_cluster *c, uint32_t made_from, bool replaced, char *err,
                                   size_t errlen)
{
	steer_world *w = c->w;
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_id_list gone = {0};
	steer_status st = STEER_OK;
	steer_cluster_reset_messages(c);
	for (size_t i = 0; i < v->count && st == STEER_OK; i++) {
		int owner = steer_cluster_owner_of(c, v->px[i], v->py[i]);
		if (owner == c->rank)
			continue;
		if (!replaced && v->id[i] < made_from)
			st = steer_pack_vehicle(&c->out[owner], w, i);
		if (st == STEER_OK)
			st = steer_id_list_push(&gone, v->id[i]);
	}
	if (st == STEER_ERR_NOMEM)
		snprintf(err, errlen, "out of memory while migrating vehicles");
	/* The exchange agrees first: detached only once every rank has its messages
	 * ready, none is lost. */
	uint64_t bytes = 0;
	st = steer_cluster_exchange(c, st, &bytes, err, errlen);
	bool detached = c->sent_out;
	for (size_t k = 0; k < gone.count && detached; k++)
		(void)steer_vehicle_detach(w, gone.at[k]);
	uint64_t migrated = 0;
	for (int r = 0; r < c->ranks; r++)
		if (r != c->rank)
			migrated += c->out[r].records;
	steer_id_list_free(&gone);
	if (st == STEER_OK)
		st = steer_cluster_take_all(c, STEER_UNPACK_REFUSE, NULL, err, errlen);
	c->figures[c->rank].migrated += migrated;
	c->figures[c->rank].migrate_bytes += bytes;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK && detached)
		c->broken = true; /* vehicles left their regions and did not arrive */
	return st;
}
