/* steer-server: parses flags, starts the server, runs the loop until a signal. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "ranks.h"
#include "server.h"
#include "statedir.h"

static int serve(int argc, char **argv);

/* The other ranks read the same flags; rank 0 alone prints help and errors. */
static void parse_quietly(server_options *opt, int argc, char **argv)
{
	fflush(stdout);
	fflush(stderr);
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY);
	if (out >= 0 && err >= 0 && null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	(void)server_options_parse(opt, argc, argv);
	fflush(stdout);
	fflush(stderr);
	if (out >= 0 && err >= 0 && null >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (null >= 0)
		close(null);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
}

int main(int argc, char **argv)
{
	/* Under mpirun every rank runs this program with the same flags: rank 0 serves,
	 * the others hold their regions of the world (ranks.h). */
	bool launched = ranks_launched();
	int rank = 0, size = 1;
	if (launched && ranks_init(&argc, &argv, &rank, &size) != 0)
		return 1;
	if (rank != 0) {
		server_options opt;
		server_options_default(&opt);
		parse_quietly(&opt, argc, argv);
		ranks_config rc = server_options_ranks(&opt);
		int st = ranks_follow(&rc); /* bad flags: rank 0 says why and stops us */
		ranks_exit();
		return st;
	}
	int status = serve(argc, argv);
	if (launched)
		ranks_exit();
	return status;
}

/* Rank 0, or the only process. */
static int serve(int argc, char **argv)
{
	server_options opt;
	server_options_default(&opt);
	int rc = server_options_parse(&opt, argc, argv);
	if (rc != 0) {
		if (ranks_launched())
			ranks_dismiss();
		return rc > 0 ? 0 : 2;
	}
	if (opt.verbose)
		steer_log_set_level(STEER_LOG_DEBUG);
	static char data_dir[4096];
	if (!opt.data_dir) {
		char err[256];
		/* Without one the server still runs; save and load then say why not. */
		if (steer_state_dir(data_dir, sizeof data_dir, err, sizeof err) == STEER_OK)
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
	if (server_start(&srv, loop, &opt) != 0) {
		/* The reason is logged; the OS reclaims the half-built server. */
		if (srv.ranks)
			ranks_finish(srv.ranks);
		else if (ranks_launched() && !srv.ranks_told)
			ranks_dismiss();
		return 1;
	}
	uv_run(loop, UV_RUN_DEFAULT);
	server_free(&srv);
	rc = uv_loop_close(loop);
	if (rc != 0)
		steer_log(STEER_LOG_WARN, "loop closed with handles open: %s", uv_strerror(rc));
	steer_log(STEER_LOG_INFO, "stopped");
	/* Non-zero when the last autosave failed: the state it should hold is lost. */
	return srv.exit_status;
}
