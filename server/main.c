/* steer-server: parses flags, starts the server, runs the loop until a signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "log.h"
#include "server.h"
#include "statedir.h"

int main(int argc, char **argv)
{
	server_options opt;
	server_options_default(&opt);
	int rc = server_options_parse(&opt, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (opt.verbose)
		steer_log_set_level(STEER_LOG_DEBUG);
	static char data_dir[4096];
	if (!opt.data_dir) {
		char err[256];
		/* Without one the server still runs; save and load then say why not. */
		if (steer_state_dir(data_dir, sizeof data_dir, err, sizeof err) == 0)
			opt.data_dir = data_dir;
		else
			steer_log(STEER_LOG_WARN, "no data directory: %s; give --data-dir", err);
	}
	/* A peer closing mid-write must be an error return, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	/* Likewise a save past the file-size limit (ulimit -f): EFBIG, reported as an
	 * ERR, instead of a signal that kills the server and loses the world. */
	signal(SIGXFSZ, SIG_IGN);
	/* Each client is a descriptor: allow as many as the hard limit lets us, so that
	 * --max-clients and not a default of 1024 decides who is turned away. */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}

	static server srv; /* large (read buffer): keep it off the stack */
	uv_loop_t *loop = uv_default_loop();
	if (server_start(&srv, loop, &opt) != 0)
		return 1; /* the reason is logged; the OS reclaims the half-built server */
	uv_run(loop, UV_RUN_DEFAULT);
	server_free(&srv);
	rc = uv_loop_close(loop);
	if (rc != 0)
		steer_log(STEER_LOG_WARN, "loop closed with handles open: %s", uv_strerror(rc));
	steer_log(STEER_LOG_INFO, "stopped");
	/* Non-zero when the last autosave failed: the state it should hold is lost. */
	return srv.exit_status;
}
