/* Save files in the data directory: written atomically (temporary file, fsync,
 * rename, fsync of the directory) so a crash mid-save never leaves a torn file,
 * and read back with a size limit. Names are validated by the caller
 * (steer_save_name_ok) and can never leave the directory. */
#ifndef STEER_STORAGE_H
#define STEER_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "steer/status.h"
#include "steer/strbuf.h"

/* Each function that can fail returns STEER_OK, or a failure (STEER_ERR_IO, _NOMEM,
 * _LIMIT for a path too long) with a message in err. Each takes dir NULL (no data
 * directory could be found) and then fails with a message saying to give
 * --data-dir. */

steer_status storage_write(const char *dir, const char *name, const char *data, size_t len,
                           char *err, size_t errlen);
/* The same in pieces, for a file made a step at a time (a save over ranks):
 * storage_begin creates the temporary file, storage_append adds to it, storage_commit
 * makes it durable and puts it in place; storage_abort removes it. Each failure
 * removes it too. STEER_OK, or a failure with a message in err. */
typedef struct storage_out {
	int fd; /* -1 once committed or aborted */
	char dir[4096], path[4096], tmp[4096];
} storage_out;
steer_status storage_begin(storage_out *o, const char *dir, const char *name, char *err,
                           size_t errlen);
/* The same at path itself, which storage_commit syncs and closes but does not rename
 * (a journal's checkpoint: its writer names it). */
steer_status storage_begin_file(storage_out *o, const char *path, char *err, size_t errlen);
steer_status storage_append(storage_out *o, const char *data, size_t len, char *err, size_t errlen);
steer_status storage_commit(storage_out *o, char *err, size_t errlen);
void storage_abort(storage_out *o);
/* Writes all n bytes to fd, through EINTR and short writes. 0, or -1 with errno, as
 * write(2) says: for callers that word the failure themselves. */
int storage_write_all(int fd, const char *p, size_t n);
/* *data is malloc'd; the caller frees it. */
steer_status storage_read(const char *dir, const char *name, char **data, size_t *len, char *err,
                          size_t errlen);
/* The save `name` opened for reading (a regular file under the save limit): *fd is
 * the caller's to close. STEER_OK, or a failure with a message in err. */
steer_status storage_open(const char *dir, const char *name, int *fd, uint64_t *size, char *err,
                          size_t errlen);
/* storage_open of the file at path (a journal's checkpoint, which is a save). */
steer_status storage_open_path(const char *path, int *fd, uint64_t *size, char *err, size_t errlen);
/* An open file, read at offsets by storage_read_at (steer_save_source's read_at):
 * all n bytes at `at`, or why not (a string in f, or a constant). */
typedef struct storage_file {
	int fd;
	char why[160];
} storage_file;
const char *storage_read_at(void *f, uint64_t at, void *buf, size_t n);

/* Removes the temporary files (NAME.steer.tmp) a save killed mid-write left in dir,
 * logging each; a directory not yet created has none. Run at start, before any save. */
void storage_remove_stale(const char *dir);

/* The most saves one listing names; "truncated" says when there were more. */
#define STORAGE_LIST_MAX 1000

/* Appends {"dir":...,"saves":[{"name","bytes","tick","vehicles","modified"}...],
 * "truncated":false} for the saves in dir (names load accepts, regular files), by
 * name; a directory not yet created has none. tick and vehicles come from the file's
 * header lines (null when it has none). STEER_OK, or a failure with a message in err. */
steer_status storage_list(const char *dir, steer_strbuf *json, char *err, size_t errlen);

#endif
