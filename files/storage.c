#include "storage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "reserve.h"
#include "savefile.h"
#include "statedir.h"
#include "steer/command.h"

#define SUFFIX ".steer"

static steer_status no_dir(char *err, size_t errlen)
{
	snprintf(err, errlen,
	         "no data directory: neither XDG_STATE_HOME nor HOME is set; restart with "
	         "--data-dir DIR");
	return STEER_ERR_IO;
}

static int path_of(char *out, size_t n, const char *dir, const char *name, const char *extra)
{
	int k = snprintf(out, n, "%s/%s%s%s", dir, name, SUFFIX, extra);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* The refusal of a data directory whose files' paths would not fit in max bytes. */
static void too_long(const char *dir, size_t max, char *err, size_t errlen)
{
	snprintf(err, errlen,
	         "the data directory's path is too long (%zu bytes; a save's path must fit in "
	         "%zu): %.200s",
	         strlen(dir), max, dir);
}

int storage_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* o->tmp created, empty, for writing. */
static steer_status create_tmp(storage_out *o, char *err, size_t errlen)
{
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", o->tmp, strerror(errno));
		return STEER_ERR_IO;
	}
	return STEER_OK;
}

steer_status storage_begin(storage_out *o, const char *dir, const char *name, char *err,
                           size_t errlen)
{
	o->fd = -1;
	if (!dir)
		return no_dir(err, errlen);
	int k = snprintf(o->dir, sizeof o->dir, "%s", dir);
	if (k < 0 || (size_t)k >= sizeof o->dir ||
	    path_of(o->path, sizeof o->path, dir, name, "") ||
	    path_of(o->tmp, sizeof o->tmp, dir, name, ".tmp")) {
		too_long(dir, sizeof o->tmp, err, errlen);
		return STEER_ERR_LIMIT;
	}
	char why[200];
	if (steer_make_dirs(dir, why, sizeof why) != STEER_OK) {
		snprintf(err, errlen, "data directory: %s (see --data-dir)", why);
		return STEER_ERR_IO;
	}
	return create_tmp(o, err, errlen);
}

steer_status storage_begin_file(storage_out *o, const char *path, char *err, size_t errlen)
{
	o->fd = -1;
	o->dir[0] = o->path[0] = '\0';
	int k = snprintf(o->tmp, sizeof o->tmp, "%s", path);
	if (k < 0 || (size_t)k >= sizeof o->tmp) {
		snprintf(err, errlen, "path too long");
		return STEER_ERR_LIMIT;
	}
	return create_tmp(o, err, errlen);
}

/* Why a write to the temporary file failed; the file is removed. */
static steer_status write_failed(storage_out *o, char *err, size_t errlen)
{
	int e = errno;
	snprintf(err, errlen, "cannot write %s: %s%s", o->tmp, strerror(e),
	         e == EFBIG ? " (over the file-size limit, ulimit -f)" : "");
	storage_abort(o);
	return STEER_ERR_IO;
}

steer_status storage_append(storage_out *o, const char *data, size_t len, char *err, size_t errlen)
{
	return storage_write_all(o->fd, data, len) == 0 ? STEER_OK : write_failed(o, err, errlen);
}

steer_status storage_commit(storage_out *o, char *err, size_t errlen)
{
	if (fsync(o->fd) != 0)
		return write_failed(o, err, errlen);
	int rc = close(o->fd);
	o->fd = -1;
	if (rc != 0) {
		snprintf(err, errlen, "cannot write %s: %s", o->tmp, strerror(errno));
		unlink(o->tmp);
		return STEER_ERR_IO;
	}
	if (!o->path[0])
		return STEER_OK; /* a file its caller names */
	if (rename(o->tmp, o->path) != 0) {
		snprintf(err, errlen, "cannot replace %s: %s", o->path, strerror(errno));
		unlink(o->tmp);
		return STEER_ERR_IO;
	}
	/* Make the rename itself durable. */
	int dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return STEER_OK;
}

void storage_abort(storage_out *o)
{
	if (o->fd < 0)
		return;
	close(o->fd);
	o->fd = -1;
	unlink(o->tmp);
}

steer_status storage_write(const char *dir, const char *name, const char *data, size_t len,
                           char *err, size_t errlen)
{
	storage_out o;
	steer_status st = storage_begin(&o, dir, name, err, errlen);
	if (st == STEER_OK)
		st = storage_append(&o, data, len, err, errlen);
	return st == STEER_OK ? storage_commit(&o, err, errlen) : st;
}

steer_status storage_open(const char *dir, const char *name, int *fd_out, uint64_t *size, char *err,
                          size_t errlen)
{
	if (!dir)
		return no_dir(err, errlen);
	char path[4096];
	if (path_of(path, sizeof path, dir, name, "")) {
		too_long(dir, sizeof path, err, errlen);
		return STEER_ERR_LIMIT;
	}
	return storage_open_path(path, fd_out, size, err, errlen);
}

steer_status storage_open_path(const char *path, int *fd_out, uint64_t *size, char *err,
                               size_t errlen)
{
	/* O_NONBLOCK: opening a named pipe would otherwise wait for a writer forever, and
	 * every later save and load behind it; it has no effect on a regular file. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return STEER_ERR_IO;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return STEER_ERR_IO;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > STEER_SAVE_MAX_BYTES) {
		if (S_ISDIR(st.st_mode))
			snprintf(err, errlen, "%s is a directory, not a save file", path);
		else if (!S_ISREG(st.st_mode))
			snprintf(err, errlen, "%s is not a regular file", path);
		else
			snprintf(err, errlen, "%s is %lld bytes, over the %u a save may hold", path,
			         (long long)st.st_size, STEER_SAVE_MAX_BYTES);
		close(fd);
		return STEER_ERR_IO;
	}
	*fd_out = fd;
	*size = (uint64_t)st.st_size;
	return STEER_OK;
}

const char *storage_read_at(void *ud, uint64_t at, void *buf, size_t n)
{
	storage_file *f = ud;
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(f->fd, (char *)buf + got, n - got, (off_t)(at + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(f->why, sizeof f->why, "%s", strerror(errno));
			return f->why;
		}
		if (k == 0)
			return "it is shorter than it was when it was opened";
		got += (size_t)k;
	}
	return NULL;
}

steer_status storage_read(const char *dir, const char *name, char **data, size_t *len, char *err,
                          size_t errlen)
{
	int fd;
	uint64_t size64;
	if (storage_open(dir, name, &fd, &size64, err, errlen) != STEER_OK)
		return STEER_ERR_IO;
	size_t size = (size_t)size64;
	char *buf = malloc(size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory reading %s", name);
		close(fd);
		return STEER_ERR_NOMEM;
	}
	storage_file f = {.fd = fd};
	const char *why = storage_read_at(&f, 0, buf, size);
	close(fd);
	if (why) {
		snprintf(err, errlen, "cannot read %s: %s", name, why);
		free(buf);
		return STEER_ERR_IO;
	}
	buf[size] = '\0';
	*data = buf;
	*len = size;
	return STEER_OK;
}

void storage_remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			steer_log(STEER_LOG_WARN, "cannot read data directory %s: %s", dir,
			          strerror(errno));
		return;
	}
	static const char tail[] = SUFFIX ".tmp";
	size_t tl = strlen(tail);
	for (struct dirent *de; (de = readdir(d));) {
		/* Only what storage_write names: a save name and the suffix. */
		size_t n = strlen(de->d_name);
		if (n <= tl || n - tl > STEER_NAME_MAX || strcmp(de->d_name + n - tl, tail))
			continue;
		char name[STEER_NAME_MAX + 1], path[4096];
		memcpy(name, de->d_name, n - tl);
		name[n - tl] = '\0';
		if (!steer_save_name_ok(name) || path_of(path, sizeof path, dir, name, ".tmp"))
			continue;
		if (unlink(path) == 0)
			steer_log(STEER_LOG_WARN,
			          "removed %s, left by a save that never finished (the server "
			          "stopped during it)",
			          path);
		else
			steer_log(STEER_LOG_WARN, "cannot remove %s: %s", path, strerror(errno));
	}
	closedir(d);
}

typedef struct save_entry {
	char name[STEER_NAME_MAX + 1];
	off_t bytes;
	time_t modified;
	char tick[24], vehicles[24]; /* digits, or "null" */
	bool ends;                   /* its last line is the closing "end records" one */
} save_entry;

/* The value after `key` on a header line starting with `line`, as digits. */
static void header_field(const char *head, const char *line, const char *key, char *out, size_t n)
{
	snprintf(out, n, "null");
	const char *p = strstr(head, line);
	if (!p || (p != head && p[-1] != '\n'))
		return;
	const char *eol = strchr(p, '\n');
	const char *k = strstr(p, key);
	if (!k || !eol || k > eol)
		return;
	k += strlen(key);
	size_t d = strspn(k, "0123456789");
	if (d == 0 || d >= n)
		return;
	memcpy(out, k, d);
	out[d] = '\0';
}

/* Whether line (len bytes, its newline not counted) is a save's closing line,
 * "end records N fnv1a64 H" with H 16 hex digits, as save_encode.c writes it. */
static bool closing_line(const char *line, size_t len)
{
	static const char head[] = "end records ", mid[] = " fnv1a64 ";
	size_t h = sizeof head - 1, m = sizeof mid - 1, at = h, digits = 0;
	if (len < h || memcmp(line, head, h) != 0)
		return false;
	while (at < len && line[at] >= '0' && line[at] <= '9')
		at++, digits++;
	if (!digits || len - at != m + 16 || memcmp(line + at, mid, m) != 0)
		return false;
	for (at += m; at < len; at++)
		if (!strchr("0123456789abcdef", line[at]))
			return false;
	return true;
}

/* Whether the file of size bytes at fd ends with a save's closing line: one cut
 * short does not, nor one with bytes after its end, unless they end in such a line. */
static bool ends_whole(int fd, off_t size)
{
	char tail[80];
	size_t n = size < (off_t)sizeof tail ? (size_t)size : sizeof tail;
	if (n < 2 || pread(fd, tail, n, size - (off_t)n) != (ssize_t)n || tail[n - 1] != '\n')
		return false;
	size_t s = n - 1;
	while (s > 0 && tail[s - 1] != '\n')
		s--;
	return (s > 0 || n == (size_t)size) && closing_line(tail + s, n - 1 - s);
}

/* Size, time and the header's tick and vehicle count of one save. -1 when it is not a
 * regular file. A link is followed, as load follows it; the open does not wait on a
 * FIFO, and the checks are made on what was opened, so nothing swapped in meanwhile
 * can block the loop. */
static int peek_save(const char *dir, save_entry *e)
{
	snprintf(e->tick, sizeof e->tick, "null");
	snprintf(e->vehicles, sizeof e->vehicles, "null");
	char path[4096];
	if (path_of(path, sizeof path, dir, e->name, ""))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	e->bytes = st.st_size;
	e->modified = st.st_mtime;
	char head[1024];
	ssize_t k = read(fd, head, sizeof head - 1);
	head[k > 0 ? k : 0] = '\0';
	e->ends = ends_whole(fd, st.st_size);
	close(fd);
	/* Only the header and the last line are read: a file that is not a save shows no
	 * figures, and one cut short shows it ("whole" false), but a byte changed within
	 * is found only by load, which checks the whole file. */
	if (strncmp(head, STEER_SAVE_MAGIC " ", strlen(STEER_SAVE_MAGIC " ")) != 0) {
		e->ends = false; /* not a save at all: load refuses it */
		return 0;
	}
	header_field(head, "meta ", " tick ", e->tick, sizeof e->tick);
	header_field(head, "counts ", " vehicles ", e->vehicles, sizeof e->vehicles);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const save_entry *)a)->name, ((const save_entry *)b)->name);
}

steer_status storage_list(const char *dir, steer_strbuf *json, char *err, size_t errlen)
{
	if (!dir)
		return no_dir(err, errlen);
	save_entry *list = NULL;
	size_t count = 0, cap = 0;
	DIR *d = opendir(dir);
	if (!d && errno != ENOENT) {
		snprintf(err, errlen, "cannot read data directory %s: %s", dir, strerror(errno));
		return STEER_ERR_IO;
	}
	bool truncated = false;
	for (struct dirent *de; d && (de = readdir(d));) {
		/* Only what load would take: the same names, and never more than a reply's
		 * worth, since the listing runs on the server's loop. */
		size_t n = strlen(de->d_name), sl = strlen(SUFFIX);
		if (n <= sl || n - sl > STEER_NAME_MAX || strcmp(de->d_name + n - sl, SUFFIX))
			continue;
		save_entry e;
		memcpy(e.name, de->d_name, n - sl);
		e.name[n - sl] = '\0';
		if (!steer_save_name_ok(e.name) || peek_save(dir, &e) != 0)
			continue;
		if (count == STORAGE_LIST_MAX) {
			truncated = true;
			break;
		}
		if (steer_reserve((void **)&list, &cap, count + 1, sizeof *list) != STEER_OK) {
			snprintf(err, errlen, "out of memory listing %s", dir);
			free(list);
			closedir(d);
			return STEER_ERR_NOMEM;
		}
		list[count++] = e;
	}
	if (d)
		closedir(d);
	if (count) /* qsort may not be handed NULL, even for no items */
		qsort(list, count, sizeof *list, by_name);
	steer_strbuf_puts(json, "{\"dir\":");
	steer_json_str(json, dir);
	steer_strbuf_puts(json, ",\"saves\":[");
	for (size_t i = 0; i < count; i++) {
		char when[32] = "";
		struct tm tm;
		if (gmtime_r(&list[i].modified, &tm))
			strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		steer_strbuf_puts(json, i ? ",{\"name\":" : "{\"name\":");
		steer_json_str(json, list[i].name);
		steer_strbuf_printf(json,
		                    ",\"bytes\":%lld,\"tick\":%s,\"vehicles\":%s,\"whole\":%s,"
		                    "\"modified\":",
		                    (long long)list[i].bytes, list[i].tick, list[i].vehicles,
		                    list[i].ends ? "true" : "false");
		steer_json_str(json, when);
		steer_strbuf_puts(json, "}");
	}
	steer_strbuf_printf(json, "],\"truncated\":%s}", truncated ? "true" : "false");
	free(list);
	return STEER_OK;
}
