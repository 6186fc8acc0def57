#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "cli.h"
#include "scenario.h"
#include "token.h"

ranks_config server_options_ranks(const server_options *o)
{
	return (ranks_config){
	    .threads = o->threads, .rank_timeout = o->rank_timeout, .autosave = o->autosave > 0};
}

steer_world_config server_options_world(const server_options *o)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.width = o->width;
	cfg.height = o->height;
	cfg.edges = o->edges;
	cfg.tick_rate = o->tick_rate;
	cfg.seed = o->seed;
	cfg.max_vehicles = o->max_vehicles;
	return cfg;
}

void server_options_default(server_options *o)
{
	memset(o, 0, sizeof *o);
	o->bind = "127.0.0.1";
	o->port = 7700;
	o->cmd_port = 7701;
	o->http_port = 7702;
	o->tick_rate = 60;
	o->snapshot_rate = 20;
	o->seed = 1;
	o->width = 1000;
	o->height = 600;
	o->edges = STEER_EDGE_WRAP;
	o->max_clients = 256;
	o->max_vehicles = 1000000;
	o->data_dir = NULL; /* the per-user state directory (steer_state_dir) */
	o->idle_timeout = 120;
	o->client_queue_max = 64u * 1024u * 1024u;
	o->reply_queue_max = 256u * 1024u * 1024u;
	o->snapshot_memory_max = 128u * 1024u * 1024u;
	o->snapshot_budget = 0.25;
	o->threads = 1;
	o->journal = true;
	o->journal_fsync = JOURNAL_FSYNC_EVERYSEC;
	/* A minute: recovery replays at most a minute of ticks, while the checkpoint
	 * (a fork and, in the child, a save) costs the loop only the fork. */
	o->checkpoint = 60;
	/* A log this long also gets a checkpoint: recovery then replays at most this much,
	 * however fast clients write (a busy one writes tens of MB a second). */
	o->checkpoint_mb = 64;
	o->journals_max_mb = 4096;
	o->speed = 1;
	o->rewind_memory = 512;
	o->rewind_every = 2;
	/* Long past any pause a working rank's beat thread could see (a minute of no
	 * scheduling at all), short enough that a supervisor restarts the job soon. */
	o->rank_timeout = 60;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: steer-server [options]\n"
	        "  --bind ADDR          listen address (default 127.0.0.1: this machine only)\n"
	        "  --port N             protobuf stream port (default 7700; 0 picks a free one)\n"
	        "  --cmd-port N         text command port (default 7701; 0 picks a free one)\n"
	        "  --http N             the page and its WebSocket, for browsers (default 7702\n"
	        "                       when it is free; 0 picks a free one)\n"
	        "  --no-http            no page\n"
	        "  --tick-rate HZ       simulation steps per second (default 60)\n"
	        "  --snapshot-rate HZ   snapshots per second to each client (default 20)\n"
	        "  --seed N             random seed (default 1)\n"
	        "  --scenario NAME      start with a built-in scenario:");
	for (int k = 0; steer_scenario_names[k]; k++)
		fprintf(f, " %s", steer_scenario_names[k]);
	fprintf(f,
	        "\n"
	        "  --world WxH          world size (default 1000x600)\n"
	        "  --edges MODE         wrap, bounce or none (default wrap, or the scenario's)\n"
	        "  --max-clients N      connections held at once, both ports (default 256)\n"
	        "  --max-vehicles N     vehicles in the world at most (default 1000000;\n"
	        "                       0: no limit but the ids a world has)\n"
	        "  --threads N          split each tick of a big world over N threads, at\n"
	        "                       most the cores online, with the same results for\n"
	        "                       any N (default 1)\n"
	        "  --data-dir DIR       where save/load keep files (default\n"
	        "                       $XDG_STATE_HOME/steer, else ~/.local/state/steer)\n"
	        "  --token SECRET       clients must 'auth SECRET' (or send it in Hello) to\n"
	        "                       change the world; others may only watch\n"
	        "  --token-file PATH    the same, read from a file (not visible in ps)\n"
	        "  --private            with a token: others may not even watch\n"
	        "  --idle-timeout S     close a connection after S seconds with nothing read\n"
	        "                       from it, or a watcher that took no snapshot for\n"
	        "                       that long (default 120; 0 = never)\n"
	        "  --client-queue-max B bytes of replies queued for one client before it is\n"
	        "                       dropped (default 67108864)\n"
	        "  --reply-queue-max B  bytes of replies queued for all clients together; past\n"
	        "                       it the client with the most is dropped (default\n"
	        "                       268435456)\n"
	        "  --snapshot-memory-max B\n"
	        "                       snapshot bytes held for all clients together; past\n"
	        "                       it, clients that have not taken theirs skip snapshots\n"
	        "                       (default 134217728)\n"
	        "  --snapshot-budget F  share of each snapshot period spent encoding; clients\n"
	        "                       whose views cost more get snapshots less often\n"
	        "                       (default 0.25)\n"
	        "  --autosave S         save to 'autosave' every S seconds and on SIGTERM/SIGINT\n"
	        "  --restore NAME       start from the save NAME in --data-dir, or from the\n"
	        "                       named journal NAME (data-dir/journals/NAME)\n"
	        "  --recover            start from the journal (data-dir/journal) as it was\n"
	        "                       at its last durable tick mark, e.g. after a crash\n"
	        "  --no-journal         keep no journal of the commands\n"
	        "  --journal-fsync MODE always (before the reply), everysec or no\n"
	        "                       (default everysec)\n"
	        "  --checkpoint S       seconds between the journal's checkpoints (default 60)\n"
	        "  --checkpoint-mb MB   also a checkpoint when the log since the last one\n"
	        "                       reaches MB MiB (default 64; 0: by time only)\n"
	        "  --journals-max-mb MB the named journals kept (data-dir/journals) together\n"
	        "                       take at most MB MiB (default 4096; 0: no bound); at\n"
	        "                       most 16 are kept either way\n"
	        "  --accept-loss        with --recover or --restore: start from what comes\n"
	        "                       before damage in the journal (which is refused\n"
	        "                       without it); the damaged journal is kept\n"
	        "  --replay JOURNAL     play a recorded journal: live (data-dir/journal), a name\n"
	        "                       in data-dir/journals, or a directory; keeps no journal\n"
	        "  --until TICK         pause the replay when the world reaches TICK\n"
	        "  --speed X            play the replay X times as fast (default 1)\n"
	        "  --writable           let clients change a replayed world (ending the replay)\n"
	        "  --rewind-memory MB   memory for rewind/goto-tick's checkpoints and commands\n"
	        "                       (default 512; 0 = off)\n"
	        "  --rewind-every S     seconds of ticks between checkpoints (default 2)\n"
	        "  --rank-timeout S     under mpirun: end the job when a rank has sent nothing\n"
	        "                       for S seconds (default 60; 0 = wait); a silence is\n"
	        "                       logged, naming the rank, after 5 s\n"
	        "  --verbose            log debug events too\n"
	        "  --version            print the version and exit\n"
	        "  --help               this text\n"
	        "Prints 'listening proto ADDR:PORT' and 'listening cmd ADDR:PORT' on stdout.\n");
}

static int num(const char *flag, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "steer-server: %s: '%s' is not a number in [%g, %g]\n", flag, s, lo,
		        hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* Digits alone: no sign, space, exponent or hex, which strtod and strtoull take. */
static bool digits(const char *s)
{
	return *s && s[strspn(s, "0123456789")] == '\0';
}

static int whole(const char *flag, const char *s, double lo, double hi, double *out)
{
	if (digits(s) && num(flag, s, lo, hi, out))
		return -1;
	if (!digits(s) || *out != floor(*out)) {
		fprintf(stderr, "steer-server: %s: '%s' is not a whole number\n", flag, s);
		return -1;
	}
	return 0;
}

/* A tick split over more threads than cores waits on the ones that are not running:
 * slower than fewer threads, never faster, so it is refused. */
static int threads_arg(const char *flag, const char *s, int *out)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long max = cores > 0 && cores < STEER_MAX_THREADS ? cores : STEER_MAX_THREADS;
	char *end;
	errno = 0;
	long n = strtol(s, &end, 10);
	if (end == s || *end || errno || n < 1 || n > max) {
		fprintf(stderr,
		        "steer-server: %s: '%s': give a whole number of threads from 1 to %ld "
		        "(this machine has %ld cores online)\n",
		        flag, s, max, cores);
		return -1;
	}
	*out = (int)n;
	return 0;
}

/* --token (file NULL) or --token-file, read and checked as the clients do. */
static int set_token(server_options *o, const char *token, const char *file)
{
	char err[512];
	steer_status st = file ? steer_token_read(file, o->token, err, sizeof err)
	                       : steer_token_check(token, "--token", o->token, err, sizeof err);
	if (st != STEER_OK) {
		fprintf(stderr, "steer-server: %s\n", err);
		return -1;
	}
	o->has_token = true;
	return 0;
}

/* --bind: an address to listen on, as the listeners will read it. */
static int bind_arg(server_options *o, const char *v)
{
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	if (uv_ip4_addr(v, 0, &a4) != 0 && uv_ip6_addr(v, 0, &a6) != 0) {
		fprintf(stderr,
		        "steer-server: --bind: '%s' is not an IPv4 or IPv6 address (127.0.0.1, "
		        "0.0.0.0, ::1, ::)\n",
		        v);
		return -1;
	}
	o->bind = v;
	return 0;
}

/* --seed: a whole number, not negative. */
static int seed_arg(server_options *o, const char *v)
{
	char *end;
	errno = 0;
	o->seed = strtoull(v, &end, 10);
	if (!digits(v) || *end || errno) {
		fprintf(stderr, "steer-server: --seed: '%s' is not a whole number\n", v);
		return -1;
	}
	o->seed_set = true;
	return 0;
}

/* --scenario: one of the scenarios, named. */
static int scenario_arg(server_options *o, const char *v)
{
	bool known = false;
	for (int k = 0; steer_scenario_names[k]; k++)
		known |= !strcmp(steer_scenario_names[k], v);
	if (!known) {
		fprintf(stderr, "steer-server: --scenario: no scenario '%s'; there are:", v);
		for (int k = 0; steer_scenario_names[k]; k++)
			fprintf(stderr, " %s", steer_scenario_names[k]);
		fputc('\n', stderr);
		return -1;
	}
	o->scenario = v;
	return 0;
}

/* --world WxH. */
static int world_arg(server_options *o, const char *v)
{
	char *end, *hend;
	double w = strtod(v, &end), h = 0;
	bool sep = end != v && (*end == 'x' || *end == 'X');
	if (sep)
		h = strtod(end + 1, &hend);
	/* One message for every way it can be wrong. */
	if (!sep || hend == end + 1 || *hend || !(w >= 1 && w <= 1e9) || !(h >= 1 && h <= 1e9)) {
		fprintf(stderr,
		        "steer-server: --world: '%s' is not WxH, each 1 to 1e9 (e.g. "
		        "1000x600)\n",
		        v);
		return -1;
	}
	o->width = w;
	o->height = h;
	o->world_set = true;
	return 0;
}

/* The long options; those without a short letter are numbered from 256. */
enum {
	OPT_VERBOSE = 256,
	OPT_NO_JOURNAL,
	OPT_WRITABLE,
	OPT_RECOVER,
	OPT_ACCEPT_LOSS,
	OPT_NO_HTTP,
	OPT_PRIVATE,
	OPT_VERSION,
	OPT_BIND,
	OPT_PORT,
	OPT_CMD_PORT,
	OPT_HTTP,
	OPT_TICK_RATE,
	OPT_SNAPSHOT_RATE,
	OPT_SEED,
	OPT_SCENARIO,
	OPT_WORLD,
	OPT_EDGES,
	OPT_MAX_CLIENTS,
	OPT_MAX_VEHICLES,
	OPT_THREADS,
	OPT_DATA_DIR,
	OPT_TOKEN,
	OPT_TOKEN_FILE,
	OPT_IDLE_TIMEOUT,
	OPT_CLIENT_QUEUE_MAX,
	OPT_REPLY_QUEUE_MAX,
	OPT_SNAPSHOT_MEMORY_MAX,
	OPT_SNAPSHOT_BUDGET,
	OPT_AUTOSAVE,
	OPT_RESTORE,
	OPT_JOURNAL_FSYNC,
	OPT_REPLAY,
	OPT_UNTIL,
	OPT_SPEED,
	OPT_CHECKPOINT,
	OPT_CHECKPOINT_MB,
	OPT_JOURNALS_MAX_MB,
	OPT_REWIND_MEMORY,
	OPT_REWIND_EVERY,
	OPT_RANK_TIMEOUT,
};

static const struct option longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"no-journal", no_argument, NULL, OPT_NO_JOURNAL},
    {"writable", no_argument, NULL, OPT_WRITABLE},
    {"recover", no_argument, NULL, OPT_RECOVER},
    {"accept-loss", no_argument, NULL, OPT_ACCEPT_LOSS},
    {"no-http", no_argument, NULL, OPT_NO_HTTP},
    {"private", no_argument, NULL, OPT_PRIVATE},
    {"version", no_argument, NULL, OPT_VERSION},
    {"bind", required_argument, NULL, OPT_BIND},
    {"port", required_argument, NULL, OPT_PORT},
    {"cmd-port", required_argument, NULL, OPT_CMD_PORT},
    {"http", required_argument, NULL, OPT_HTTP},
    {"tick-rate", required_argument, NULL, OPT_TICK_RATE},
    {"snapshot-rate", required_argument, NULL, OPT_SNAPSHOT_RATE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"scenario", required_argument, NULL, OPT_SCENARIO},
    {"world", required_argument, NULL, OPT_WORLD},
    {"edges", required_argument, NULL, OPT_EDGES},
    {"max-clients", required_argument, NULL, OPT_MAX_CLIENTS},
    {"max-vehicles", required_argument, NULL, OPT_MAX_VEHICLES},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"data-dir", required_argument, NULL, OPT_DATA_DIR},
    {"token", required_argument, NULL, OPT_TOKEN},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
    {"client-queue-max", required_argument, NULL, OPT_CLIENT_QUEUE_MAX},
    {"reply-queue-max", required_argument, NULL, OPT_REPLY_QUEUE_MAX},
    {"snapshot-memory-max", required_argument, NULL, OPT_SNAPSHOT_MEMORY_MAX},
    {"snapshot-budget", required_argument, NULL, OPT_SNAPSHOT_BUDGET},
    {"autosave", required_argument, NULL, OPT_AUTOSAVE},
    {"restore", required_argument, NULL, OPT_RESTORE},
    {"journal-fsync", required_argument, NULL, OPT_JOURNAL_FSYNC},
    {"replay", required_argument, NULL, OPT_REPLAY},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"speed", required_argument, NULL, OPT_SPEED},
    {"checkpoint", required_argument, NULL, OPT_CHECKPOINT},
    {"checkpoint-mb", required_argument, NULL, OPT_CHECKPOINT_MB},
    {"journals-max-mb", required_argument, NULL, OPT_JOURNALS_MAX_MB},
    {"rewind-memory", required_argument, NULL, OPT_REWIND_MEMORY},
    {"rewind-every", required_argument, NULL, OPT_REWIND_EVERY},
    {"rank-timeout", required_argument, NULL, OPT_RANK_TIMEOUT},
    {NULL, 0, NULL, 0},
};

/* Takes one option's value: 0, or -1 after saying what is wrong with it. */
static int take_value(server_options *o, int opt, const char *a, const char *v)
{
	double d;
	switch (opt) {
	case OPT_BIND:
		return bind_arg(o, v);
	case OPT_PORT:
		if (whole(a, v, 0, 65535, &d))
			return -1;
		o->port = (int)d;
		return 0;
	case OPT_CMD_PORT:
		if (whole(a, v, 0, 65535, &d))
			return -1;
		o->cmd_port = (int)d;
		return 0;
	case OPT_HTTP:
		if (whole(a, v, 0, 65535, &d))
			return -1;
		o->http_port = (int)d;
		o->http_set = true;
		return 0;
	case OPT_TICK_RATE:
		if (num(a, v, 1, 1000, &o->tick_rate))
			return -1;
		o->tick_rate_set = true;
		return 0;
	case OPT_SNAPSHOT_RATE:
		return num(a, v, 0.1, 1000, &o->snapshot_rate);
	case OPT_SEED:
		return seed_arg(o, v);
	case OPT_SCENARIO:
		return scenario_arg(o, v);
	case OPT_WORLD:
		return world_arg(o, v);
	case OPT_EDGES:
		if (steer_edges_parse(v, &o->edges) != STEER_OK) {
			fprintf(stderr, "steer-server: --edges: '%s' is not wrap, bounce or none\n",
			        v);
			return -1;
		}
		o->edges_set = true;
		return 0;
	case OPT_MAX_CLIENTS:
		if (whole(a, v, 1, 100000, &d))
			return -1;
		o->max_clients = (size_t)d;
		return 0;
	case OPT_MAX_VEHICLES:
		if (whole(a, v, 0, 100000000, &d)) /* 0: only the ids bound it */
			return -1;
		o->max_vehicles = (size_t)d;
		return 0;
	case OPT_THREADS:
		return threads_arg(a, v, &o->threads);
	case OPT_DATA_DIR:
		/* An unset variable's empty word would put the journal at / */
		if (!v[0]) {
			fprintf(stderr, "steer-server: --data-dir: an empty path; give a "
			                "directory, or leave the flag out for the default\n");
			return -1;
		}
		o->data_dir = v;
		return 0;
	case OPT_TOKEN:
		return set_token(o, v, NULL);
	case OPT_TOKEN_FILE:
		return set_token(o, NULL, v);
	case OPT_IDLE_TIMEOUT:
		return num(a, v, 0, 1e6, &o->idle_timeout);
	case OPT_CLIENT_QUEUE_MAX:
		if (whole(a, v, 4096, 1e12, &d))
			return -1;
		o->client_queue_max = (size_t)d;
		return 0;
	case OPT_REPLY_QUEUE_MAX:
		if (whole(a, v, 4096, 1e12, &d))
			return -1;
		o->reply_queue_max = (size_t)d;
		return 0;
	case OPT_SNAPSHOT_MEMORY_MAX:
		if (whole(a, v, 4096, 1e12, &d))
			return -1;
		o->snapshot_memory_max = (size_t)d;
		return 0;
	case OPT_SNAPSHOT_BUDGET:
		return num(a, v, 0.01, 1, &o->snapshot_budget);
	case OPT_AUTOSAVE:
		return num(a, v, 0.1, 1e6, &o->autosave);
	case OPT_RESTORE:
		o->restore = v;
		return 0;
	case OPT_JOURNAL_FSYNC:
		if (!strcmp(v, "always"))
			o->journal_fsync = JOURNAL_FSYNC_ALWAYS;
		else if (!strcmp(v, "everysec"))
			o->journal_fsync = JOURNAL_FSYNC_EVERYSEC;
		else if (!strcmp(v, "no"))
			o->journal_fsync = JOURNAL_FSYNC_NO;
		else {
			fprintf(stderr,
			        "steer-server: --journal-fsync: '%s' is not always, everysec "
			        "or no\n",
			        v);
			return -1;
		}
		return 0;
	case OPT_REPLAY:
		o->replay = v;
		return 0;
	case OPT_UNTIL: {
		double t;
		if (num(a, v, 0, 9007199254740992.0, &t))
			return -1;
		if (t != floor(t)) {
			fprintf(stderr, "steer-server: --until: '%s' is not a whole tick\n", v);
			return -1;
		}
		o->until = (uint64_t)t;
		o->has_until = true;
		return 0;
	}
	case OPT_SPEED:
		return num(a, v, 0.01, 1000, &o->speed);
	case OPT_CHECKPOINT:
		return num(a, v, 1, 1e6, &o->checkpoint);
	case OPT_CHECKPOINT_MB:
		return num(a, v, 0, 1e6, &o->checkpoint_mb);
	case OPT_JOURNALS_MAX_MB:
		return num(a, v, 0, 1e9, &o->journals_max_mb);
	case OPT_REWIND_MEMORY:
		return num(a, v, 0, 1e6, &o->rewind_memory);
	case OPT_REWIND_EVERY:
		return num(a, v, 0.01, 3600, &o->rewind_every);
	case OPT_RANK_TIMEOUT:
		if (num(a, v, 0, 1e6, &o->rank_timeout))
			return -1;
		/* The ranks beat once a second: a shorter silence is no sign. */
		if (o->rank_timeout > 0 && o->rank_timeout < 2) {
			fprintf(stderr,
			        "steer-server: --rank-timeout: '%s' is too short: give 0 "
			        "(wait) or 2 seconds or more\n",
			        v);
			return -1;
		}
		return 0;
	}
	return 0;
}

int server_options_parse(server_options *o, int argc, char **argv)
{
	opterr = 0;
	optind = 0; /* glibc: start afresh, as a second parse in one process may */
	int opt, index = -1;
	while ((opt = getopt_long(argc, argv, "+:h", longs, &index)) != -1) {
		char flag[40], why[200];
		switch (opt) {
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("steer-server %s\n", STEER_VERSION);
			return 1;
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		case OPT_NO_JOURNAL:
			o->journal = false;
			break;
		case OPT_WRITABLE:
			o->writable = true;
			break;
		case OPT_RECOVER:
			o->recover = true;
			break;
		case OPT_ACCEPT_LOSS:
			o->accept_loss = true;
			break;
		case OPT_NO_HTTP:
			o->http_port = -1;
			break;
		case OPT_PRIVATE:
			o->private_world = true;
			break;
		case '?':
		case ':':
			steer_cli_refusal(opt, argv[optind - 1], optopt, longs, why, sizeof why);
			fprintf(stderr, "steer-server: %s (see --help)\n", why);
			return -1;
		default:
			if (steer_cli_value_is_option(optarg, argv, optind, longs, "h")) {
				steer_cli_value_refusal(argv[optind - 2], optarg, why, sizeof why);
				fprintf(stderr, "steer-server: %s\n", why);
				return -1;
			}
			if ((opt == OPT_TOKEN || opt == OPT_TOKEN_FILE) && o->has_token) {
				fprintf(stderr, "steer-server: give one --token or --token-file, "
				                "once\n");
				return -1;
			}
			if (take_value(o, opt, steer_cli_flag(longs, index, flag, sizeof flag),
			               optarg) != 0)
				return -1;
		}
		index = -1;
	}
	if (optind < argc) {
		fprintf(stderr,
		        "steer-server: '%s' is not an option; steer-server takes only "
		        "options (see --help)\n",
		        argv[optind]);
		return -1;
	}
	if (o->replay && (o->recover || o->restore || o->scenario)) {
		fprintf(stderr, "steer-server: --replay starts from the journal's own world: leave "
		                "out --recover, --restore and --scenario\n");
		return -1;
	}
	if (!o->replay && (o->has_until || o->speed != 1 || o->writable)) {
		fprintf(stderr, "steer-server: --until, --speed and --writable go with --replay\n");
		return -1;
	}
	if (o->recover && o->restore) {
		fprintf(stderr, "steer-server: --recover and --restore: give one of them\n");
		return -1;
	}
	if (o->accept_loss && !o->recover && !o->restore) {
		fprintf(stderr, "steer-server: --accept-loss goes with --recover or --restore\n");
		return -1;
	}
	if (o->private_world && !o->has_token) {
		fprintf(stderr, "steer-server: --private needs --token or --token-file\n");
		return -1;
	}
	/* A file there would leave the journal failing and every save refused. */
	struct stat st;
	if (o->data_dir && stat(o->data_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "steer-server: --data-dir %s is not a directory\n", o->data_dir);
		return -1;
	}
	return 0;
}
