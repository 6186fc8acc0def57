#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUFFIX ".steer"

static int path_of(char *out, size_t n, const char *dir, const char *name, const char *extra)
{
	int k = snprintf(out, n, "%s/%s%s%s", dir, name, SUFFIX, extra);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t n)
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

int storage_write(const char *dir, const char *name, const char *data, size_t len, char *err,
                  size_t errlen)
{
	char path[4096], tmp[4096];
	if (path_of(path, sizeof path, dir, name, "") ||
	    path_of(tmp, sizeof tmp, dir, name, ".tmp")) {
		snprintf(err, errlen, "data directory path too long");
		return -1;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create data directory %s: %s", dir, strerror(errno));
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	/* Make the rename itself durable. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int storage_read(const char *dir, const char *name, char **data, size_t *len, char *err,
                 size_t errlen)
{
	char path[4096];
	if (path_of(path, sizeof path, dir, name, "")) {
		snprintf(err, errlen, "data directory path too long");
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > STEER_SAVE_MAX_BYTES) {
		snprintf(err, errlen, "%s is not a regular file under %u bytes", path,
		         STEER_SAVE_MAX_BYTES);
		close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory reading %s", path);
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t k = read(fd, buf + got, size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (got != size) {
		snprintf(err, errlen, "short read of %s", path);
		free(buf);
		return -1;
	}
	buf[size] = '\0';
	*data = buf;
	*len = size;
	return 0;
}
