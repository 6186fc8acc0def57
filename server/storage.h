/* Save files in the data directory: written atomically (temporary file, fsync,
 * rename, fsync of the directory) so a crash mid-save never leaves a torn file,
 * and read back with a size limit. Names are validated by the caller
 * (steer_save_name_ok) and can never leave the directory. */
#ifndef STEER_STORAGE_H
#define STEER_STORAGE_H

#include <stddef.h>

#define STEER_SAVE_MAX_BYTES (1024u * 1024u * 1024u)

int storage_write(const char *dir, const char *name, const char *data, size_t len, char *err,
                  size_t errlen);
/* *data is malloc'd; the caller frees it. */
int storage_read(const char *dir, const char *name, char **data, size_t *len, char *err,
                 size_t errlen);

#endif
