/* `steerctl journal NAME`: a journal as the text commands that recreate its session,
 * a script anyone can read, edit and run (steerctl < FILE). The worlds the journal
 * starts from (and any a load or a rewind put in place) cannot be commands: each is
 * written as a save in the data directory, which the script loads. The world is kept
 * paused and moved with `step`, so the script recreates the session tick for tick
 * however fast it is sent. */
#ifndef STEER_JOURNAL_EXPORT_H
#define STEER_JOURNAL_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "steer/status.h"

/* Writes the script of the journal `what` (live, a name in <data_dir>/journals, or a
 * directory's path) to out, and its worlds as saves named "<prefix>-K" in data_dir
 * (prefix: "journal-" and the journal's name). STEER_OK, or a failure with a message
 * in err. */
steer_status journal_export(const char *what, const char *data_dir, FILE *out, char *err,
                            size_t errlen);

#endif
