/* Vehicles as bytes, for another process of the same build on the same kind of
 * machine: every bit of a vehicle's state (steer_vehicle_record), its parameter set
 * sent once per message however many vehicles share it. The halo, the migrations
 * and the gathers of a world split over ranks (cluster.h) all move vehicles this way.
 *
 * A message is a run of records, each:
 *   u32 flags (PACK_NEW_SET: a steer_params follows; PACK_EXTRAS: the state follows)
 *   [steer_params]          the message's next set
 *   u32 set                 the vehicle's set, counted in this message
 *   u32 id, u32 behaviors
 *   8 doubles               position, velocity, heading, force
 *   [steer_vehicle_state, then its path's points]
 * Ownership: a steer_pack owns its buffer and map; steer_unpack only reads msg. */
#ifndef STEER_CLUSTER_PACK_H
#define STEER_CLUSTER_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "steer/world.h"

typedef struct steer_pack {
	uint8_t *buf;
	size_t len, cap;
	/* The world's parameter set index -> this message's set + 1 (0: not sent yet). */
	uint32_t *set_map;
	size_t set_map_cap;
	uint32_t sets;  /* sets sent in this message */
	size_t records; /* vehicles in this message */
} steer_pack;

void steer_pack_init(steer_pack *p);
void steer_pack_free(steer_pack *p);
/* Starts a new message (keeps the memory). */
void steer_pack_reset(steer_pack *p);
/* Appends the vehicle at index i of w. STEER_OK or NOMEM (the message then holds
 * what it held before). The message must hold vehicles of one world only. */
steer_status steer_pack_vehicle(steer_pack *p, const steer_world *w, size_t i);

/* A list of ids that grows (steer_reserve). */
typedef struct steer_id_list {
	uint32_t *at;
	size_t count, cap;
} steer_id_list;

steer_status steer_id_list_push(steer_id_list *l, uint32_t id);
void steer_id_list_free(steer_id_list *l);

/* What steer_unpack does with a vehicle whose id w already holds. */
typedef enum steer_unpack_dup {
	STEER_UNPACK_REFUSE, /* INVALID: a vehicle must arrive once */
	STEER_UNPACK_SKIP,   /* keep w's own (a copy that arrived twice) */
} steer_unpack_dup;

/* Restores every vehicle of the message into w, appending each new id to added (may
 * be NULL). STEER_OK; INVALID with a message in err for a message cut short or a
 * vehicle steer_vehicle_restore refuses; NOMEM. On failure the vehicles restored so
 * far stay (their ids are in added). */
steer_status steer_unpack(steer_world *w, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                          steer_id_list *added, char *err, size_t errlen);

#endif
