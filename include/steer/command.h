/* The command table: every command a user can give, from any entry point (the text
 * port, a protobuf Command, the terminal client's ':' line), parsed once into a
 * steer_command and applied to a session between ticks. A command exists
 * everywhere or nowhere because there is only this table.
 *
 * The core does no I/O: commands that need files or the host's figures (save, load,
 * stats) call back into the host through steer_host. */
#ifndef STEER_COMMAND_H
#define STEER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "strbuf.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STEER_CMD_MAX_WORDS 256
/* The longest line the text port takes, newline excluded: room for a polygon of 127
 * points written exactly (Python's repr: up to 24 bytes a coordinate). */
#define STEER_CMD_MAX_LINE 8192
#define STEER_CMD_MAX_KV   32
#define STEER_CMD_MAX_STEP 100000u
#define STEER_NAME_MAX     64
/* The most vehicles, obstacles, walls and polygons one list reply holds; more are
 * paged. */
#define STEER_LIST_MAX 10000u
/* The most followers one formation command places. */
#define STEER_CMD_MAX_FOLLOWERS 64
/* The most points one polygon command gives (its words, two a point, and "inside"). */
#define STEER_CMD_MAX_POINTS ((STEER_CMD_MAX_WORDS - 2) / 2)

/* What a command may change; a read-only client may run only STEER_CMD_READ ones. */
typedef enum steer_cmd_access {
	STEER_CMD_READ,  /* help, get, list, stats, saves, clients, name, auth, quit */
	STEER_CMD_WRITE, /* anything that changes the world, the session or the disk */
} steer_cmd_access;

/* One key=value for spawn / set / obstacle: a parameter from params.h, or one of the
 * vehicle fields vx / vy. */
typedef struct steer_cmd_kv {
	const steer_param_def *def; /* NULL for vx / vy */
	char field;                 /* 'x' or 'y' when def is NULL */
	double value;
} steer_cmd_kv;

typedef struct steer_cmd_entry steer_cmd_entry;
typedef struct steer_reply steer_reply;

typedef struct steer_command {
	const steer_cmd_entry *entry;
	uint32_t id, other;
	double x, y, r;
	uint32_t count;
	bool on; /* on/off words */
	int sub; /* sub-command: path clear/loop, "off" forms */
	steer_edges edges;
	bool has_edges;
	bool has_size;         /* world: W H given */
	int8_t solid, contain; /* world: 1 on, 0 off, -1 unchanged */
	uint64_t seed;
	uint64_t tick; /* rewind: ticks back; goto-tick: the tick (sub 1: live) */
	double rate;
	char name[STEER_NAME_MAX + 1];
	steer_vec2 points[STEER_CMD_MAX_POINTS]; /* wall: its ends; polygon: its points */
	uint32_t npoints;
	uint32_t ids[STEER_CMD_MAX_FOLLOWERS]; /* formation: the followers */
	uint32_t nids;
	steer_cmd_kv kv[STEER_CMD_MAX_KV];
	int nkv;
} steer_command;

/* What Steer's own hosts keep beside a session (figures computed once a tick for
 * every client, a world split over processes); not part of this API. */
typedef struct steer_session_cache steer_session_cache;

/* The state commands act on. The host owns it; load may replace world. An embedding
 * program leaves cache NULL. */
typedef struct steer_session {
	steer_world *world;
	bool paused;
	steer_session_cache *cache;
} steer_session;

/* Services only the host can provide. Any pointer may be NULL: the command that needs
 * it then answers "not available". Messages go into err (NUL-terminated). */
typedef struct steer_host {
	void *ud;
	/* Writes data as the named save (name already validated), whole or not at all:
	 * STEER_OK, or a failure (IO, typically) with err, the save left as it was. */
	steer_status (*save)(void *ud, const char *name, const char *data, size_t len, char *err,
	                     size_t errlen);
	/* Reads the named save into a malloc'd buffer the caller frees. STEER_OK, or a
	 * failure (NOENT, IO) with err. */
	steer_status (*load)(void *ud, const char *name, char **data, size_t *len, char *err,
	                     size_t errlen);
	/* Appends the host's own fields (",\"clients\":3,...") to the stats object. */
	void (*stats)(void *ud, steer_strbuf *json);
	/* The tick rate changed: re-arm the tick timer. */
	void (*rate_changed)(void *ud);
	/* Checks a token for the connection `caller` and, when it matches, lets that
	 * connection change the world. STEER_OK on a match; ACCESS with the reason in err
	 * (a wrong token, or too many of them: the host may refuse to check for a while).
	 * NULL: no tokens here. */
	steer_status (*auth)(void *ud, void *caller, const char *token, char *err, size_t errlen);
	void *caller; /* the connection a command came from, for auth, name and clients */
	/* Appends the saves in the data directory as a JSON object. STEER_OK, or a failure
	 * (IO) with err. */
	steer_status (*saves)(void *ud, steer_strbuf *json, char *err, size_t errlen);
	/* Names the connection `caller` (name already validated). STEER_OK, or a failure
	 * with err. */
	steer_status (*set_name)(void *ud, void *caller, const char *name, char *err,
	                         size_t errlen);
	/* Appends the connections as a JSON object, marking `caller`'s own. */
	void (*clients)(void *ud, void *caller, steer_strbuf *json);
	/* rewind / goto-tick: brings s's world to another tick of this session (the
	 * host keeps the history) and says where it is now in r. STEER_OK, or REFUSED
	 * with the reason in r (e.g. the tick is no longer kept). */
	steer_status (*history)(void *ud, const steer_command *cmd, steer_session *s,
	                        struct steer_reply *r);
} steer_host;

struct steer_reply {
	bool ok;
	bool close;        /* the client asked to end its connection */
	steer_strbuf json; /* empty for a plain OK */
	char error[256];
};

struct steer_cmd_entry {
	const char *name;
	const char *usage; /* the arguments, as shown by help */
	const char *help;
	steer_cmd_access access;
	int min_words, max_words; /* words after the name; max -1 = no limit */
	/* STEER_OK, or INVALID with a message in err. */
	steer_status (*parse)(steer_command *cmd, int argc, char **argv, char *err, size_t errlen);
	/* STEER_OK, or REFUSED with the reason in the reply (see steer_cmd_exec). */
	steer_status (*exec)(const steer_command *cmd, steer_session *s, const steer_host *h,
	                     steer_reply *out);
};

extern STEER_API const steer_cmd_entry steer_cmd_table[];
extern STEER_API const size_t steer_cmd_count;

STEER_API const steer_cmd_entry *steer_cmd_find(const char *name);

/* Splits line into words in place (line is modified), the count in *count; LIMIT when
 * there are more than max. */
STEER_API steer_status steer_cmd_split(char *line, char **words, int max, int *count);

/* Parses words (words[0] is the command name). STEER_OK, or INVALID with a message in
 * err. */
STEER_API steer_status steer_cmd_parse(steer_command *cmd, int argc, char **argv, char *err,
                                       size_t errlen);
/* Parses one line of the text grammar; as steer_cmd_parse (too many words is INVALID
 * too). */
STEER_API steer_status steer_cmd_parse_line(steer_command *cmd, const char *line, char *err,
                                            size_t errlen);

STEER_API void steer_reply_init(steer_reply *r);
STEER_API void steer_reply_free(steer_reply *r);
/* Makes r a failure with a formatted message (one line of valid UTF-8) and no JSON;
 * returns STEER_ERR_REFUSED, so that a handler can `return steer_reply_fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
STEER_API steer_status
steer_reply_fail(steer_reply *r, const char *fmt, ...);
/* Applies a parsed command: STEER_OK, or REFUSED when it failed; either way *out
 * holds the reply, with the reason on failure. A failed command leaves the session as
 * it was. */
STEER_API steer_status steer_cmd_exec(const steer_command *cmd, steer_session *s,
                                      const steer_host *h, steer_reply *out);

/* The second half of load, for a host that read and decoded the file itself (off
 * its loop): checks `loaded` against the session's limits and swaps it in, or
 * destroys it. Takes `loaded` either way; *r as steer_cmd_exec leaves it for load. */
STEER_API steer_status steer_cmd_load_swap(const steer_command *cmd, steer_session *s,
                                           const steer_host *h, steer_world *loaded,
                                           steer_reply *r);

/* Whether cmd changes anything: its entry's access, except that `world` without
 * arguments only reports the world's settings. */
STEER_API bool steer_cmd_writes(const steer_command *cmd);

/* STEER_OK when the caller may run cmd; else ACCESS with an ERR reply saying how to
 * get access. */
STEER_API steer_status steer_cmd_check_access(const steer_command *cmd, bool may_write,
                                              steer_reply *out);

/* Renders a reply as one line of the text protocol, without the newline:
 * "OK", "OK {...}" or "ERR message". */
STEER_API void steer_reply_text(const steer_reply *r, steer_strbuf *line);

/* A save name: 1-64 of [A-Za-z0-9._-], not starting with '.'. */
STEER_API bool steer_save_name_ok(const char *name);
/* A client's name (the name command, Hello.client): 1-64 printable ASCII
 * characters without spaces. */
STEER_API bool steer_client_name_ok(const char *name);

#ifdef __cplusplus
}
#endif

#endif
