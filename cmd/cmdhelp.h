/* The command table's help as text a person reads: the commands as a table of usage
 * and description, or one command with its keys. One layout for every client
 * (steerctl, steer-tui's :help), written from the compiled-in table. */
#ifndef STEER_CMDHELP_H
#define STEER_CMDHELP_H

#include <stddef.h>

#include "steer/status.h"
#include "steer/strbuf.h"

/* A command a client runs itself, listed after the table's. */
typedef struct steer_cmd_about {
	const char *name, *usage, *help;
} steer_cmd_about;

/* Both take width: descriptions longer than the line go on below their own column,
 * broken between words, so no line passes `width` columns (unless one word does);
 * 0 for lines of any length. Memory running out sets out->oom. */

/* Appends every command, one row each ("  usage  description", the descriptions in
 * one column; a usage too wide for it gets a line of its own), then extra's, then a
 * "scenarios: ..." line. */
void steer_cmdhelp_list(steer_strbuf *out, const steer_cmd_about *extra, size_t nextra,
                        size_t width);

/* Appends "usage: ..." and the description of the command `name` (from the table or
 * extra), with the keys for set and spawn and the scenarios for scenario. NOENT, with
 * nothing appended, when there is no such command. */
steer_status steer_cmdhelp_one(steer_strbuf *out, const char *name, const steer_cmd_about *extra,
                               size_t nextra, size_t width);

/* The k-th key set and spawn take (vx, vy, then the parameters), its description
 * in *help when help is not NULL; NULL past the last. */
const char *steer_cmdhelp_key(size_t k, const char **help);

#endif
