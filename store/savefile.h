/* Save files: the whole world as text, and back. A pure buffer codec with no I/O, so
 * the server, tools and tests decide where the bytes live.
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

#include <stddef.h>

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

#endif
