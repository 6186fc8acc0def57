#include "child.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* The sockets close when the child exits anyway; without /proc they stay until then. */
static void close_inherited(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		int fd = atoi(de->d_name);
		if (fd > 2 && fd != keep && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

void child_begin(pid_t parent, int keep)
{
#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(3);
#else
	(void)parent;
#endif
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	close_inherited(keep);
}
