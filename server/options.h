/* steer-server's command line. */
#ifndef STEER_OPTIONS_H
#define STEER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ranks.h"
#include "steer/command.h"
#include "steer/world.h"

/* When the journal's writes reach the disk (--journal-fsync). */
typedef enum journal_fsync {
	JOURNAL_FSYNC_ALWAYS,   /* every batch, before the replies it holds are sent */
	JOURNAL_FSYNC_EVERYSEC, /* at least once a second */
	JOURNAL_FSYNC_NO,       /* when the system decides */
} journal_fsync;

typedef struct server_options {
	const char *bind;
	int port, cmd_port;
	/* The page's port (web.h): -1 under --no-http. The default's port, when taken,
	 * leaves the server without the page (logged); one given is required. */
	int http_port;
	bool http_set;
	double tick_rate, snapshot_rate;
	uint64_t seed;
	const char *scenario; /* NULL: start empty */
	double width, height;
	steer_edges edges;
	bool edges_set; /* --edges given: overrides the scenario's choice */
	/* Given: a world read at start (--restore, --recover) has its own, and says so. */
	bool world_set, seed_set, tick_rate_set;
	size_t max_clients, max_vehicles;
	const char *data_dir;
	bool verbose;
	/* Access: with a token, only clients that present it may change the world (and,
	 * when private, even see it). NULL: everyone may. */
	char token[STEER_NAME_MAX + 1];
	bool has_token, private_world;
	double idle_timeout;        /* seconds with nothing read or written; 0 = never */
	size_t client_queue_max;    /* bytes of replies queued to one client */
	size_t reply_queue_max;     /* bytes of replies queued to all clients together */
	size_t snapshot_memory_max; /* snapshot bytes alive for all clients together */
	double snapshot_budget;     /* share of each snapshot period spent encoding */
	int threads;                /* threads the world's tick is split over: 1 .. cores online */
	double autosave;            /* seconds between saves to 'autosave'; 0 = off */
	const char *restore;        /* a save or named journal to start from, or NULL */
	/* The journal (server/journal.h): on unless --no-journal (it needs a data
	 * directory); its fsync policy; seconds between checkpoints; --recover. */
	bool journal;
	int journal_fsync; /* a journal_fsync */
	double checkpoint;
	double checkpoint_mb;   /* a log this long (MiB) gets a checkpoint too; 0: never */
	double journals_max_mb; /* the named journals' bound, together (MiB); 0: none */
	bool recover;
	bool accept_loss; /* --recover past damage, keeping the damaged journal */
	/* --replay WHAT (replay.h): a journal to play instead of a live world; where it
	 * pauses (--until), how fast (--speed) and whether clients may change it. */
	const char *replay;
	bool has_until;
	uint64_t until;
	double speed;
	bool writable;
	double rewind_memory; /* MB of checkpoints and commands kept to rewind; 0 = off */
	double rewind_every;  /* seconds between checkpoints */
	double rank_timeout;  /* over MPI ranks: seconds of a rank's silence that end the job */
} server_options;

void server_options_default(server_options *o);
/* 0: run; 1: --help or --version was printed; -1: an error was printed to stderr. */
int server_options_parse(server_options *o, int argc, char **argv);
/* What the ranks take from the flags. */
ranks_config server_options_ranks(const server_options *o);
/* A new world's rules from the flags (--world, --edges, --tick-rate, --seed,
 * --max-vehicles), the rest as by default. */
steer_world_config server_options_world(const server_options *o);

#endif
