/* A world as records: the one model of a world kept outside it, behind every copy of
 * one. Save files (store/save_encode.c) write the records as text; rewind checkpoints
 * (server/history.c) and the messages between ranks (cluster/) keep them as the bytes
 * below.
 *
 * A whole world is its config and meta, then its records in one order: vehicles,
 * obstacles, walls, polygons. A vehicle's record is steer_vehicle_record taken by
 * steer_record_vehicle, which applies the one rule a copy needs: a goto route's
 * epoch, a counter of this process's geometry, becomes whether the route was up to
 * date with the geometry (STEER_GOTO_FRESH) or not (0). A world is restored by
 * steer_world_create with the config, the records in the same order, then
 * steer_record_finish, so that it continues bit for bit as the copied one would have.
 *
 * As bytes: a run of records, each a u32 of flags then its fields, in this build's own
 * layout (for memory, or another process of the same build on the same kind of
 * machine):
 *   vehicle   flags RECORD_VEHICLE (+ NEW_SET: a steer_params first; + EXTRAS)
 *             u32 set (counted in this run), u32 id, u32 behaviors,
 *             8 doubles (position, velocity, heading, force)
 *             [EXTRAS: steer_vehicle_state, then its path's points]
 *   obstacle  flags RECORD_OBSTACLE, steer_obstacle
 *   wall      flags RECORD_WALL, steer_wall
 *   polygon   flags RECORD_POLYGON, u32 id, u32 inside, u32 count, its points
 * A vehicle's parameter set travels once per run, however many vehicles share it.
 * Ownership: a steer_pack owns its bytes and map; an unpacker reads bytes it does
 * not own and owns its scratch. */
#ifndef STEER_WORLD_RECORD_H
#define STEER_WORLD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/bytes.h"
#include "steer/goto.h"
#include "steer/world.h"

/* --- the rules of every copy -------------------------------------------------- */

/* The epoch a record's goto carries for "up to date with the geometry when taken". */
#define STEER_GOTO_FRESH UINT64_MAX

/* Whether a vehicle never had a goto (every field zero): field by field, as padding
 * bytes have no set value. */
static inline bool steer_goto_none(const steer_goto_state *g)
{
	return g->goal.x == 0.0 && g->goal.y == 0.0 && g->from.x == 0.0 && g->from.y == 0.0 &&
	       g->radius == 0.0 && g->tried == 0 && g->epoch == 0 && !g->reached && !g->planning &&
	       g->restarts == 0 && g->start.x == 0.0 && g->start.y == 0.0 && g->began == 0 &&
	       g->spent == 0;
}

/* The record of the vehicle at index i (its path's points stay the world's), its goto
 * epoch made STEER_GOTO_FRESH or 0. */
void steer_record_vehicle(const steer_world *w, size_t i, steer_vehicle_record *out);

/* Every vehicle of w in id order, as keys of its id (high half) and index (low half):
 * the same world gives the same order however its storage came to be ordered (a save
 * is written in it, by one process or by many). The caller's to free; NULL when out
 * of memory. */
uint64_t *steer_record_id_order(const steer_world *w);

/* Ends the restore of a whole world, after its last record: sets the meta and marks
 * the routes that were up to date as up to date with the restored geometry, so that
 * the world replans exactly when the copied one would have. INVALID when the meta's
 * next_id is not above every id restored. */
steer_status steer_record_finish(steer_world *w, const steer_world_meta *m);

/* --- as bytes ----------------------------------------------------------------------- */

typedef struct steer_pack {
	steer_blob bytes;
	/* The world's parameter set index -> this run's set + 1 (0: not sent yet). */
	uint32_t *set_map;
	size_t set_map_cap;
	uint32_t sets;  /* sets in this run */
	size_t records; /* of every kind */
} steer_pack;

void steer_pack_init(steer_pack *p);
void steer_pack_free(steer_pack *p);
/* Starts a new run (keeps the memory). */
void steer_pack_reset(steer_pack *p);
/* Appends the vehicle at index i of w. STEER_OK or NOMEM (the run is then unusable
 * until reset). A run holds vehicles of one world only. */
steer_status steer_pack_vehicle(steer_pack *p, const steer_world *w, size_t i);
/* Appends every vehicle of w, then its obstacles, walls and polygons: a whole world's
 * records, for steer_record_finish to end. STEER_OK or NOMEM. */
steer_status steer_pack_world(steer_pack *p, const steer_world *w);

/* A list of ids that grows (steer_reserve). */
typedef struct steer_id_list {
	uint32_t *at;
	size_t count, cap;
} steer_id_list;

steer_status steer_id_list_push(steer_id_list *l, uint32_t id);
void steer_id_list_free(steer_id_list *l);

/* What an unpacker does with a vehicle whose id the world already holds. */
typedef enum steer_unpack_dup {
	STEER_UNPACK_REFUSE, /* INVALID: a vehicle must arrive once */
	STEER_UNPACK_SKIP,   /* keep the world's own (a copy that arrived twice) */
} steer_unpack_dup;

/* Reads a run record by record into a world. */
typedef struct steer_unpacker {
	steer_reader in;
	steer_unpack_dup dup;
	/* A whole world (steer_pack_world) is being restored: routes stay marked
	 * STEER_GOTO_FRESH until steer_record_finish. Otherwise the vehicles join a world
	 * whose geometry is whole, and are up to date with it at once. */
	bool whole_world;
	steer_params *sets;
	size_t nsets, sets_cap;
	/* Each set's slot in the world's palette, once a vehicle brought it there: the
	 * rest of its vehicles skip checking and looking it up again. */
	struct steer_set_memo *memos;
	size_t memos_cap;
	steer_vec2 *points;
	size_t points_cap;
	uint32_t id; /* the last record's, for messages */
} steer_unpacker;

void steer_unpacker_init(steer_unpacker *u, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                         bool whole_world);
void steer_unpacker_free(steer_unpacker *u);
/* Whether every record has been read. */
static inline bool steer_unpacker_done(const steer_unpacker *u)
{
	return steer_read_done(&u->in);
}
/* Restores the next record into w, appending a new vehicle's id to added (may be
 * NULL). STEER_OK; INVALID with a message in err for a run cut short or a record the
 * world refuses; NOMEM. */
steer_status steer_unpack_next(steer_unpacker *u, steer_world *w, steer_id_list *added, char *err,
                               size_t errlen);
/* The next record, which must be a vehicle's, into rec as steer_record_vehicle took it,
 * without a world: its path's points are the unpacker's until the next call. STEER_OK,
 * INVALID with a message in err, or NOMEM. */
steer_status steer_unpack_record(steer_unpacker *u, steer_vehicle_record *rec, char *err,
                                 size_t errlen);
/* Every record of a run of vehicles into a world whose geometry is whole, as
 * steer_unpack_next. On failure the vehicles restored so far stay (their ids are in
 * added). */
steer_status steer_unpack(steer_world *w, const uint8_t *msg, size_t len, steer_unpack_dup dup,
                          steer_id_list *added, char *err, size_t errlen);

#endif
