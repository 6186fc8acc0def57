/* Completion of a command line, one set of rules for every client (steer-tui's `:`
 * line, steerctl's prompt), from the compiled-in tables: command names, scenario
 * names, the keys set, spawn and obstacle take and their values (on|off, an enum's
 * names), and the fixed words of a command's usage ("flock ID on|off", "path ID
 * clear | ID loop on|off"). */
#ifndef STEER_COMPLETE_H
#define STEER_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>

#include "cmdhelp.h"

/* What the word at the cursor may become. */
typedef struct steer_completion {
	size_t from; /* where the word being completed starts in the line (after '=' for a value) */
	bool keys;   /* the candidates are keys: a unique one is followed by '=', not ' ' */
} steer_completion;

/* Calls offer(ud, word, len) for each candidate for the word that ends the len
 * characters of line (the text before the cursor) and starts with what was typed of
 * it, in the tables' order; extra's commands are offered after the table's. The
 * candidates need not be NUL-terminated (len says how long). */
steer_completion steer_cmd_complete(const char *line, size_t len, const steer_cmd_about *extra,
                                    size_t nextra,
                                    void (*offer)(void *ud, const char *word, size_t len),
                                    void *ud);

#endif
