#define _POSIX_C_SOURCE 200809L
#include "statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

steer_status steer_state_dir(char *out, size_t n, char *err, size_t errlen)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int k;
	if (state && state[0] == '/')
		k = snprintf(out, n, "%s/steer", state);
	else if (home && home[0])
		k = snprintf(out, n, "%s/.local/state/steer", home);
	else {
		snprintf(err, errlen, "neither XDG_STATE_HOME nor HOME is set");
		return STEER_ERR_IO;
	}
	if (k < 0 || (size_t)k >= n) {
		snprintf(err, errlen, "the state directory's path is too long");
		return STEER_ERR_LIMIT;
	}
	return STEER_OK;
}

steer_status steer_make_dirs(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	int k = snprintf(path, sizeof path, "%s", dir);
	if (k <= 0 || (size_t)k >= sizeof path) {
		snprintf(err, errlen, "directory path empty or too long");
		return STEER_ERR_LIMIT;
	}
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char was = *p;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
			return STEER_ERR_IO;
		}
		*p = was;
		if (!was)
			break;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", dir);
		return STEER_ERR_IO;
	}
	return STEER_OK;
}

int steer_dir_lock(const char *dir, bool *taken, char *err, size_t errlen)
{
	*taken = false;
	if (steer_make_dirs(dir, err, errlen) != STEER_OK)
		return -1;
	char path[4200];
	snprintf(path, sizeof path, "%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	if (fcntl(fd, F_SETLK, &lk) != 0) {
		int e = errno;
		close(fd);
		*taken = e == EACCES || e == EAGAIN;
		if (*taken)
			snprintf(err, errlen, "%s is in use by another steer-server", dir);
		else
			snprintf(err, errlen, "%s: cannot lock it: %s", path, strerror(e));
		return -1;
	}
	return fd;
}
