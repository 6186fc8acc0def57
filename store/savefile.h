/* Save files: the whole world as text, and back. A codec with no I/O of its own, so
 * the server, tools and tests decide where the bytes live (a reader in pieces reads
 * through the caller's steer_save_source).
 *
 * The format is line-oriented text. Reals are C99 hex floats (%a), so a loaded world
 * continues bit-identically to one that was never saved. Vehicle parameters are
 * written by their names in params.h's table: a file from before a parameter existed
 * loads with that parameter's default. The last line holds the number of records and
 * an FNV-1a 64 checksum of every byte before it, so truncation and corruption are
 * reported rather than half-loaded. Walls ("wall ID a X Y b X Y") and polygons
 * ("polygon ID inside on|off points N" and N point lines) follow the obstacles; a
 * counts line without walls and polygons (version 1, early version 2) has none. From
 * version 3 each vehicle's targets are followed by its group line (its leader and
 * offset, hunter, and the two it interposes between; each id 0 when off), its path by
 * its goto line ("goto goal X Y from X Y radius R tried TICK reached on|off fresh
 * on|off"; fresh: its route was checked against the geometry as saved; "goto none"
 * for a vehicle that never had one), and that by "smooth heading X Y", the smoothed
 * display heading; older files' vehicles have none of them. From version 4 the goto
 * line ends with its plan under way: "plan off", or "plan on start X Y began TICK
 * spent CELLS restarts N" (planner.h). The path scenario after
 * 300 ticks, with one obstacle added (abridged: the params line names every
 * parameter, and three of the five points are left out):
 *
 *   steer-save 4
 *   world width 0x1.f4p+9 height 0x1.2cp+9 edges bounce tick_rate 0x1.ep+5 seed 1 solid on contain
 * off meta tick 300 next_id 3 rng_state 67b348782f5e4187 rng_inc 000000000000bddb counts vehicles 1
 * obstacles 1 walls 0 polygons 0 vehicle 1 behaviors path pos 0x1.49f9c24d837b9p+9
 * 0x1.4379f64f8e279p+7 vel 0x1.7039d74b86b97p+6 0x1.3878c7bb98b0fp+5 heading 0x1.d75446c712d8ep-1
 *     0x1.8ff6c237cdaf5p-2 force 0x0p+0 0x1.ep-42 wander_angle 0x0p+0   (one line)
 *   targets seek 0x0p+0 0x0p+0 flee 0x0p+0 0x0p+0 arrive 0x0p+0 0x0p+0 pursue 0 evade 0
 *   group leader 0 offset 0x0p+0 0x0p+0 hunter 0 between 0 0
 *   params mass 0x1p+0 max_speed 0x1.9p+6 decel linear panic_distance inf ... combine sum
 *   path points 5 index 1 loop on
 *   point 0x1.f4p+8 0x1.6800000000001p+6
 *   point 0x1.a06f54f95db0cp+9 0x1.d6367e25d594fp+7
 *   goto none                          (version 3 on: no goto)
 *   smooth heading 0x0p+0 0x0p+0       (version 3 on: the smoothed display heading)
 *   obstacle 2 pos 0x1.9f0000000003cp+8 0x1.2cp+8 vel 0x1.8p+1 0x0p+0 radius 0x1.9p+4
 *   end records 2 fnv1a64 50e0d8270f11e0de
 *
 * Reals go through printf's %a and strtod, which use the C locale's decimal point; a
 * program that switches LC_NUMERIC to a comma locale must switch it back to save or
 * load.
 */
#ifndef STEER_SAVEFILE_H
#define STEER_SAVEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/save.h"
#include "steer/world.h"

/* The oldest version this build still reads: version 1 had no world rules, and its
 * worlds load with bodies neither solid nor contained, as they ran. */
#define STEER_SAVE_OLDEST 1
/* Bounds the work a hostile file can ask for; no real world comes near it. */
#define STEER_SAVE_MAX_RECORDS 10000000u

/* The same, refusing with STEER_ERR_LIMIT (nothing returned) a file that would be over
 * max_bytes; steer_save_encode is this with STEER_SAVE_MAX_BYTES. */
steer_status steer_save_encode_max(const steer_world *w, size_t max_bytes, char **out, size_t *len);
/* w's file without its vehicles: its size, rules, tick, ids, generator and geometry,
 * so that vehicles can join the world it decodes to as they were in w (cluster/). */
steer_status steer_save_encode_shell(const steer_world *w, char **out, size_t *len);

/* A save written in pieces, so that no process need hold the whole world (a world
 * saved over ranks, cluster/save.c): the head (the world's rules, meta and counts,
 * for `vehicles` records to come), the vehicles' records in id order, from whichever
 * process holds each, then the geometry and the end line, whose sum is
 * steer_save_sum over every byte before it, in order from STEER_SAVE_SUM_START. The
 * same world gives the same bytes as steer_save_encode. Each put appends to a text:
 * after a failed allocation, or once the text is past its max, every put does nothing
 * and steer_save_text_status says which. */
typedef struct steer_save_text {
	char *p; /* the caller's to free with steer_save_text_free */
	size_t len, cap, max;
	bool nomem, over;
} steer_save_text;

#define STEER_SAVE_SUM_START 0xcbf29ce484222325ULL

void steer_save_text_init(steer_save_text *t, size_t max);
/* Empties the text (keeps its memory) and its failures. */
void steer_save_text_clear(steer_save_text *t);
void steer_save_text_free(steer_save_text *t);
/* STEER_OK, NOMEM, or LIMIT (past max). */
steer_status steer_save_text_status(const steer_save_text *t);
void steer_save_put_head(steer_save_text *t, const steer_world *shell, uint64_t vehicles);
/* A record as steer_record_vehicle takes it (its goto's epoch FRESH or 0). */
void steer_save_put_vehicle(steer_save_text *t, const steer_vehicle_record *r);
void steer_save_put_geometry(steer_save_text *t, const steer_world *shell);
void steer_save_put_end(steer_save_text *t, uint64_t records, uint64_t sum);
/* The records the end line counts: the vehicles and shell's geometry. */
uint64_t steer_save_records(const steer_world *shell, uint64_t vehicles);
uint64_t steer_save_sum(uint64_t sum, const char *p, size_t n);

/* A save read a piece at a time, so that no reader need hold the whole world (a world
 * loaded over ranks, cluster/): one reader, the leader, holds the whole file, checks
 * its frame (first line, end line, checksum) and cuts it into pieces of whole
 * records as it reads them; the followers read those pieces, in order. Every reader
 * checks every record as steer_save_decode does and keeps all the geometry, but only
 * the vehicles keep takes (all of them before steer_save_stream_keep). The first
 * piece is the head (the world's rules, meta and counts), which makes the world. A
 * failure is final: steer_save_stream_error says what it was, with steer_save_decode's
 * message for the same file, except that a pursuit of a vehicle the file lacks is
 * found by the reader that keeps the pursuer. */
typedef bool (*steer_save_keep_fn)(void *ud, double x, double y);
typedef struct steer_save_stream steer_save_stream;

/* The leader, over buf (which must outlive it). NULL with why in err. */
steer_save_stream *steer_save_stream_open(const char *buf, size_t len, char *err, size_t errlen);
/* Where a leader reads its file from, so that the file need not be in memory whole:
 * read_at reads n bytes at offset at into buf, all of them, or says why not. */
typedef struct steer_save_source {
	uint64_t size;
	const char *(*read_at)(void *ud, uint64_t at, void *buf, size_t n);
	void *ud;
	size_t window; /* the bytes read at once (0: a few MiB); more as a piece needs */
} steer_save_source;
/* The leader over a source (which must outlive it): the file is read once through a
 * buffer for its checksum, then again through a window of a few MiB as it is cut
 * into pieces, checked against the same sum at the end ("the file changed while it
 * was read"). */
steer_save_stream *steer_save_stream_source(const steer_save_source *src, char *err, size_t errlen);
/* A follower of a file of format `version` whose end line counts `records` (the
 * leader's steer_save_stream_frame). NULL when out of memory. */
steer_save_stream *steer_save_stream_follow(unsigned version, uint64_t records);
void steer_save_stream_frame(const steer_save_stream *s, unsigned *version, uint64_t *records);
void steer_save_stream_keep(steer_save_stream *s, steer_save_keep_fn keep, void *ud);
/* The leader: reads the head, or at least `bytes` more of whole records (one at the
 * least), and points *piece and *len at the bytes it read; *len 0 at the end. */
bool steer_save_stream_next(steer_save_stream *s, size_t bytes, const char **piece, size_t *len);
/* A follower: reads one piece. */
bool steer_save_stream_feed(steer_save_stream *s, const char *piece, size_t len);
/* The world read so far (NULL before the head): its vehicles kept, no meta yet. */
steer_world *steer_save_stream_world(const steer_save_stream *s);
/* The vehicles the head counts, in the whole file. */
uint64_t steer_save_stream_vehicles(const steer_save_stream *s);
/* After the last piece: the checks of the whole file, and the world with its meta,
 * now the caller's; NULL on failure. */
steer_world *steer_save_stream_finish(steer_save_stream *s);
const char *steer_save_stream_error(const steer_save_stream *s);
void steer_save_stream_free(steer_save_stream *s);

#endif
