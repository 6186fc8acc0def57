/* The command table: every command a user can give, from any entry point, parsed
 * once and run between ticks. Each group's handlers are in a file of its own
 * (cmd_vehicles.c, cmd_steering.c, cmd_shapes.c, cmd_world.c, cmd_session.c). */
#include "steer/command.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors.h"
#include "cmd_internal.h"
#include "savefile.h"
#include "scenario.h"
#include "session_cache.h"
#include "steer/goto.h"
#include "targets.h"
#include "utf8.h"

bool steer_cmd_writes(const steer_command *cmd)
{
	return cmd->entry->access == STEER_CMD_WRITE && !steer_cmd_world_query(cmd);
}

steer_status steer_cmd_check_access(const steer_command *cmd, bool may_write, steer_reply *out)
{
	if (may_write || !steer_cmd_writes(cmd))
		return STEER_OK;
	steer_reply_fail(out,
	                 "%s changes the world and this connection is read-only: send "
	                 "'auth TOKEN' first",
	                 cmd->entry->name);
	return STEER_ERR_ACCESS;
}

#define R STEER_CMD_READ
#define W STEER_CMD_WRITE

const steer_cmd_entry steer_cmd_table[] = {
    {"help", "[COMMAND]", "list the commands, or describe one", R, 0, 1, steer_cmd_parse_help,
     steer_cmd_run_help},
    {"spawn", "X Y [key=value ...] | spawn flock N X Y R [key=value ...]",
     "add a vehicle at (X,Y), or N flocking vehicles within R of (X,Y)", W, 2, -1,
     steer_cmd_parse_spawn, steer_cmd_run_spawn},
    {"obstacle", "X Y R [vx=V] [vy=V]", "add a circle obstacle, drifting at (vx,vy)", W, 3, 5,
     steer_cmd_parse_obstacle, steer_cmd_run_obstacle},
    {"wall", "X1 Y1 X2 Y2", "add a wall: a segment solid from both sides", W, 4, 4,
     steer_cmd_parse_wall, steer_cmd_run_wall},
    {"polygon", "X1 Y1 X2 Y2 X3 Y3 ... [inside]",
     "add a closed polygon obstacle (up to 127 points); inside: vehicles stay inside it", W, 6,
     STEER_CMD_MAX_WORDS - 1, steer_cmd_parse_polygon, steer_cmd_run_polygon},
    {"remove", "ID", "remove a vehicle, an obstacle, a wall or a polygon", W, 1, 1,
     steer_cmd_parse_id, steer_cmd_run_remove},
    {"set", "ID key=value ...", "change a vehicle's parameters (help set lists the keys)", W, 2, -1,
     steer_cmd_parse_set, steer_cmd_run_set},
    {"seek", "ID X Y | ID off", "steer towards a point at full speed", W, 2, 3,
     steer_cmd_parse_target, steer_cmd_run_target},
    {"flee", "ID X Y | ID off", "steer away from a point (within panic_distance)", W, 2, 3,
     steer_cmd_parse_target, steer_cmd_run_target},
    {"arrive", "ID X Y | ID off", "steer to a point and stop on it", W, 2, 3,
     steer_cmd_parse_target, steer_cmd_run_target},
    {"pursue", "ID OTHER | ID off", "chase another vehicle's predicted position", W, 2, 2,
     steer_cmd_parse_chase, steer_cmd_run_chase},
    {"evade", "ID OTHER | ID off", "run from another vehicle's predicted position", W, 2, 2,
     steer_cmd_parse_chase, steer_cmd_run_chase},
    {"follow", "ID LEADER DX DY | ID off",
     "keep station at an offset from a leader: DX along its heading, DY to its left", W, 2, 4,
     steer_cmd_parse_follow, steer_cmd_run_follow},
    {"formation", "LEADER line|column|wedge|ring SPACING ID...",
     "make the vehicles follow the leader in a formation, neighbours SPACING apart", W, 4, -1,
     steer_cmd_parse_formation, steer_cmd_run_formation},
    {"hide", "ID HUNTER | ID off", "keep an obstacle between itself and a hunter", W, 2, 2,
     steer_cmd_parse_chase, steer_cmd_run_hide},
    {"interpose", "ID A B | ID off", "steer to the point midway between two moving vehicles", W, 2,
     3, steer_cmd_parse_interpose, steer_cmd_run_interpose},
    {"wander", "ID on|off", "random smooth wandering", W, 2, 2, steer_cmd_parse_toggle,
     steer_cmd_run_toggle},
    {"avoid", "ID on|off", "steer around obstacles", W, 2, 2, steer_cmd_parse_toggle,
     steer_cmd_run_toggle},
    {"flock", "ID on|off", "separation, cohesion and alignment with its group", W, 2, 2,
     steer_cmd_parse_toggle, steer_cmd_run_toggle},
    {"waypoint", "ID X Y", "append a waypoint to the vehicle's path (turns path on)", W, 3, 3,
     steer_cmd_parse_waypoint, steer_cmd_run_waypoint},
    {"path", "ID clear | ID loop on|off",
     "clear the path, or loop it (set path_radius for a corridor, not waypoints)", W, 2, 3,
     steer_cmd_parse_path, steer_cmd_run_path},
    {"goto", "ID X Y | ID off",
     "plan a route around obstacles and walls to (X,Y) and follow it (replanned when blocked)", W,
     2, 3, steer_cmd_parse_goto, steer_cmd_run_goto},
    {"get", "ID", "everything about one vehicle, obstacle, wall or polygon", R, 1, 1,
     steer_cmd_parse_id, steer_cmd_run_get},
    {"list", "[FROM_ID [COUNT]]",
     "every vehicle, obstacle, wall and polygon, or up to COUNT of them with id FROM_ID or more, "
     "by id (next: the next page's FROM_ID)",
     R, 0, 2, steer_cmd_parse_list, steer_cmd_run_list},
    {"pause", "", "stop the clock", W, 0, 0, steer_cmd_parse_none, steer_cmd_run_pause},
    {"resume", "", "start the clock", W, 0, 0, steer_cmd_parse_none, steer_cmd_run_pause},
    {"step", "[N]", "advance N ticks (default 1), e.g. while paused; answered when done", W, 0, 1,
     steer_cmd_parse_step, steer_cmd_run_step},
    {"rewind", "TICKS",
     "bring the world back TICKS ticks (kept in memory: see stats' oldest_tick), paused; "
     "answered when done (a server split over MPI ranks refuses it: it keeps no history)",
     W, 1, 1, steer_cmd_parse_rewind, steer_cmd_run_history},
    {"goto-tick", "T | live",
     "bring the world to tick T of this session, or forward to its live tick, paused; "
     "answered when done (a server split over MPI ranks refuses it: it keeps no history)",
     W, 1, 1, steer_cmd_parse_goto_tick, steer_cmd_run_history},
    {"world", "[W H] [wrap|bounce|none] [solid on|off] [contain on|off]",
     "resize the world, set its edges and its rules (solid bodies, contained by the bounds); "
     "alone: show them",
     W, 0, 7, steer_cmd_parse_world, steer_cmd_run_world},
    {"rate", "HZ", "set the tick rate", W, 1, 1, steer_cmd_parse_rate, steer_cmd_run_rate},
    {"seed", "N", "set the seed (reset then replays identically)", W, 1, 1, steer_cmd_parse_seed,
     steer_cmd_run_seed},
    {"reset", "", "empty the world: tick 0, ids from 1, seed kept", W, 0, 0, steer_cmd_parse_none,
     steer_cmd_run_reset},
    {"scenario", "NAME", "reset and load a built-in scenario", W, 1, 1, steer_cmd_parse_name,
     steer_cmd_run_scenario},
    {"stats", "", "tick, counts, rates and tick timing", R, 0, 0, steer_cmd_parse_none,
     steer_cmd_run_stats},
    {"save", "NAME", "write the whole world to the data directory", W, 1, 1,
     steer_cmd_parse_save_name, steer_cmd_run_save},
    {"load", "NAME", "replace the world with a saved one", W, 1, 1, steer_cmd_parse_save_name,
     steer_cmd_run_load},
    {"saves", "", "the saves in the data directory, with size and tick", R, 0, 0,
     steer_cmd_parse_none, steer_cmd_run_saves},
    {"name", "NAME", "name this connection, so others see who did what", R, 1, 1,
     steer_cmd_parse_client_name, steer_cmd_run_name},
    {"clients", "", "every connection: name, address, kind, access, view", R, 0, 0,
     steer_cmd_parse_none, steer_cmd_run_clients},
    {"auth", "TOKEN", "present the server's token to be allowed to change the world", R, 1, 1,
     steer_cmd_parse_token, steer_cmd_run_auth},
    {"quit", "", "close this connection", R, 0, 0, steer_cmd_parse_none, steer_cmd_run_quit},
};
const size_t steer_cmd_count = sizeof steer_cmd_table / sizeof steer_cmd_table[0];

#undef R
#undef W

const steer_cmd_entry *steer_cmd_find(const char *name)
{
	for (size_t k = 0; k < steer_cmd_count; k++)
		if (!strcmp(steer_cmd_table[k].name, name))
			return &steer_cmd_table[k];
	return NULL;
}

steer_status steer_cmd_split(char *line, char **words, int max, int *count)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p) {
			*count = n;
			return STEER_OK;
		}
		if (n == max)
			return STEER_ERR_LIMIT;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* Every word as the text port's splitter would give it back: not empty, and no
 * whitespace or other control byte inside. A protobuf call's words are not split, so
 * without this a word like "max_speed=\t5" would run as one word and be journalled as
 * a line that splits into two: the journal's lines round-trip only because
 * the words they join are plain. */
static steer_status words_plain(int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		const unsigned char *w = (const unsigned char *)argv[i];
		if (!*w)
			return steer_cmd_fail(err, errlen, "word %d is empty; nothing was done",
			                      i + 1);
		for (size_t k = 0; w[k]; k++)
			if (w[k] <= 0x20 || w[k] == 0x7f)
				return steer_cmd_fail(
				    err, errlen,
				    "word %d holds a %s (byte 0x%02x at %zu); a word has no "
				    "spaces or control characters; nothing was done",
				    i + 1,
				    w[k] == ' ' || w[k] == '\t' || w[k] == '\r' || w[k] == '\n'
				        ? "whitespace byte"
				        : "control byte",
				    w[k], k + 1);
	}
	return STEER_OK;
}

/* The 1-based place of w's first byte past ASCII; 0 when it has none. */
static size_t first_non_ascii(const char *w)
{
	for (size_t k = 0; w[k]; k++)
		if ((unsigned char)w[k] >= 0x80)
			return k + 1;
	return 0;
}

steer_status steer_cmd_parse(steer_command *cmd, int argc, char **argv, char *err, size_t errlen)
{
	memset(cmd, 0, sizeof *cmd);
	if (argc == 0)
		return steer_cmd_fail(err, errlen, "empty command (try help)");
	/* First, so that a protobuf Call's name with a tab in it says so, as its other
	 * words do, rather than naming an unknown command. */
	if (words_plain(argc, argv, err, errlen) != STEER_OK)
		return STEER_ERR_INVALID;
	const steer_cmd_entry *e = steer_cmd_find(argv[0]);
	if (!e) {
		int shown = (int)steer_utf8_cut(argv[0], strlen(argv[0]), 39);
		size_t at = first_non_ascii(argv[0]);
		/* Names are ASCII: a byte past it (an editor's invisible byte-order mark,
		 * say) is named, or the word could look like a known name refused. */
		if (at)
			return steer_cmd_fail(err, errlen,
			                      "unknown command '%.*s': command names are ASCII, "
			                      "and byte %zu is 0x%02x (try help)",
			                      shown, argv[0], at, (unsigned char)argv[0][at - 1]);
		return steer_cmd_fail(err, errlen, "unknown command '%.*s' (try help)", shown,
		                      argv[0]);
	}
	int words = argc - 1;
	if (words < e->min_words || (e->max_words >= 0 && words > e->max_words))
		return steer_cmd_fail(err, errlen, "usage: %s%s%s", e->name, e->usage[0] ? " " : "",
		                      e->usage);
	cmd->entry = e;
	if (e->parse(cmd, argc, argv, err, errlen) != STEER_OK) {
		cmd->entry = NULL;
		return STEER_ERR_INVALID;
	}
	return STEER_OK;
}

steer_status steer_cmd_parse_line(steer_command *cmd, const char *line, char *err, size_t errlen)
{
	size_t n = strlen(line);
	char *copy = malloc(n + 1);
	if (!copy)
		return steer_cmd_fail(err, errlen, "out of memory");
	memcpy(copy, line, n + 1);
	char *words[STEER_CMD_MAX_WORDS];
	int argc;
	steer_status rc =
	    steer_cmd_split(copy, words, STEER_CMD_MAX_WORDS, &argc) != STEER_OK
	        ? steer_cmd_fail(err, errlen, "more than %d words (a polygon: at most %d points)",
	                         STEER_CMD_MAX_WORDS, STEER_CMD_MAX_POINTS)
	        : steer_cmd_parse(cmd, argc, words, err, errlen);
	free(copy);
	return rc;
}

steer_status steer_cmd_exec(const steer_command *cmd, steer_session *s, const steer_host *h,
                            steer_reply *out)
{
	steer_strbuf_clear(&out->json);
	out->ok = true;
	out->close = false;
	out->error[0] = '\0';
	if (steer_cmd_writes(cmd))
		steer_session_stale(s);
	steer_status rc = cmd->entry->exec(cmd, s, h, out);
	if (rc == STEER_OK && out->json.oom)
		return steer_reply_fail(out, "out of memory while building the reply");
	return rc;
}
