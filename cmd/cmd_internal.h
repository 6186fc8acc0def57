/* What the command table's files share (cmd/): the argument parsers, the reply
 * helpers, and every command's handlers (steer_cmd_parse_NAME, steer_cmd_run_NAME),
 * each group of commands in a file of its own as the table in command.c lists them. */
#ifndef STEER_CMD_INTERNAL_H
#define STEER_CMD_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "steer/command.h"
#include "steer/params.h"
#include "steer/world.h"

/* What a command's key=value words may name. */
enum {
	KV_PARAMS = 1,   /* any parameter of params.h */
	KV_VELOCITY = 2, /* vx and vy */
};

/* How many of each kind the world holds. */
typedef struct world_counts {
	size_t vehicles, obstacles, walls, polygons;
} world_counts;

/* --- argument parsing (args.c) -------------------------------------------- */

/* Error messages quote what the user sent; they go to terminals, logs and protobuf
 * strings: one line of valid UTF-8 (steer_utf8_escape). The message is formatted
 * whole first, so that it is cut only once, on a character boundary. */
void steer_cmd_format_clean(char *out, size_t n, const char *fmt, va_list ap);

/* Writes "what: message" and returns INVALID, so parsers can `return cmd_fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
steer_status
steer_cmd_fail(char *err, size_t errlen, const char *fmt, ...);

steer_status steer_arg_num(const char *what, const char *s, double *out, char *err, size_t errlen);
/* A number within the world's coordinates (+-STEER_MAX_COORD): a point or an offset. */
steer_status steer_arg_coord(const char *what, const char *s, double *out, char *err,
                             size_t errlen);

steer_status steer_arg_u64(const char *what, const char *s, uint64_t max, uint64_t *out, char *err,
                           size_t errlen);

steer_status steer_arg_id(const char *what, const char *s, uint32_t *out, char *err, size_t errlen);

steer_status steer_arg_onoff(const char *s, bool *on, char *err, size_t errlen);

/* key=value words from argv[first] on, into cmd->kv, each checked on its own here
 * (the combination is checked before anything is applied). */
steer_status steer_arg_kvs(steer_command *cmd, int first, int argc, char **argv, int allow,
                           char *err, size_t errlen);

/* Applies cmd's parameter pairs onto p, and vx/vy onto *vel when given. */
void steer_arg_apply_kvs(const steer_command *cmd, steer_params *p, steer_vec2 *vel, bool *has_vel);

steer_status steer_cmd_parse_none(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_parse_id(steer_command *c, int argc, char **argv, char *err, size_t errlen);

/* --- replies (reply.c) ---------------------------------------------------- */

steer_status steer_reply_status(steer_reply *r, steer_status st, uint32_t id);

void steer_reply_behaviors(steer_strbuf *b, uint32_t bits);

void steer_reply_vec_field(steer_strbuf *b, const char *kx, double x, const char *ky, double y);

void steer_reply_vehicle_brief(steer_strbuf *b, const steer_vehicles *v, size_t i);

void steer_reply_obstacle(steer_strbuf *b, const steer_obstacle *o);

void steer_reply_wall(steer_strbuf *b, const steer_wall *wall);

void steer_reply_polygon(steer_strbuf *b, const steer_polygon *p);

/* Appends ,"kind":"..." inside the object just written. */
void steer_reply_mark_kind(steer_strbuf *b, const char *kind);

/* --- vehicles: spawn, remove, set, get, list (cmd_vehicles.c) ------------- */

steer_status steer_cmd_parse_spawn(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen);

steer_status steer_cmd_run_spawn(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_run_remove(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r);

steer_status steer_cmd_parse_set(steer_command *c, int argc, char **argv, char *err, size_t errlen);

steer_status steer_cmd_run_set(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r);

steer_status steer_cmd_run_get(const steer_command *c, steer_session *s, const steer_host *h,
                               steer_reply *r);

steer_status steer_cmd_parse_list(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

world_counts steer_cmd_count_world(const steer_world *w);

steer_status steer_cmd_run_list(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

/* --- what vehicles steer by: targets, chase, follow, hide, interpose, formations, toggles, paths,
 * goto (cmd_steering.c) --- */

steer_status steer_cmd_parse_target(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen);

steer_status steer_cmd_run_target(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r);

steer_status steer_cmd_parse_chase(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen);

steer_status steer_cmd_run_chase(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_parse_follow(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen);

steer_status steer_cmd_run_follow(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r);

steer_status steer_cmd_run_hide(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_interpose(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen);

steer_status steer_cmd_run_interpose(const steer_command *c, steer_session *s, const steer_host *h,
                                     steer_reply *r);

steer_status steer_cmd_parse_formation(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen);

steer_status steer_cmd_run_formation(const steer_command *c, steer_session *s, const steer_host *h,
                                     steer_reply *r);

steer_status steer_cmd_parse_toggle(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen);

steer_status steer_cmd_run_toggle(const steer_command *c, steer_session *s, const steer_host *h,
                                  steer_reply *r);

steer_status steer_cmd_parse_waypoint(steer_command *c, int argc, char **argv, char *err,
                                      size_t errlen);

steer_status steer_cmd_run_waypoint(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r);

steer_status steer_cmd_parse_path(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_path(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_goto(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_goto(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

/* --- obstacles, walls, polygons (cmd_shapes.c) ---------------------------- */

steer_status steer_cmd_parse_obstacle(steer_command *c, int argc, char **argv, char *err,
                                      size_t errlen);

steer_status steer_cmd_run_obstacle(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r);

steer_status steer_cmd_parse_wall(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_wall(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_polygon(steer_command *c, int argc, char **argv, char *err,
                                     size_t errlen);

steer_status steer_cmd_run_polygon(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r);

/* --- the world: pause, step, history, size and rules, rate, seed, reset, scenario, stats
 * (cmd_world.c) --- */

steer_status steer_cmd_run_pause(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_parse_step(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_step(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_rewind(steer_command *c, int argc, char **argv, char *err,
                                    size_t errlen);

steer_status steer_cmd_parse_goto_tick(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen);

steer_status steer_cmd_run_history(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r);

steer_status steer_cmd_parse_world(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen);

/* `world` alone: a question, not a change. */
bool steer_cmd_world_query(const steer_command *c);

steer_status steer_cmd_run_world(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_parse_rate(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_rate(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_seed(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_seed(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_run_reset(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_parse_name(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_scenario(const steer_command *c, steer_session *s, const steer_host *h,
                                    steer_reply *r);

steer_status steer_cmd_run_stats(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

/* --- the session: help, saves, names, clients, auth, quit (cmd_session.c) --- */

steer_status steer_cmd_parse_help(steer_command *c, int argc, char **argv, char *err,
                                  size_t errlen);

steer_status steer_cmd_run_help(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_parse_save_name(steer_command *c, int argc, char **argv, char *err,
                                       size_t errlen);

steer_status steer_cmd_run_save(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_run_load(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_run_saves(const steer_command *c, steer_session *s, const steer_host *h,
                                 steer_reply *r);

steer_status steer_cmd_parse_client_name(steer_command *c, int argc, char **argv, char *err,
                                         size_t errlen);

steer_status steer_cmd_run_name(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_run_clients(const steer_command *c, steer_session *s, const steer_host *h,
                                   steer_reply *r);

steer_status steer_cmd_parse_token(steer_command *c, int argc, char **argv, char *err,
                                   size_t errlen);

steer_status steer_cmd_run_auth(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

steer_status steer_cmd_run_quit(const steer_command *c, steer_session *s, const steer_host *h,
                                steer_reply *r);

#endif
