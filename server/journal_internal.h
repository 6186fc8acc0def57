/* What the journal's loop side (journal.c), its writer thread (journal_writer.c) and
 * its recovery (journal_recover.c) share: the queue of work for the writer, and the
 * journal's state, the writer's and the loop's parts of it and those shared under mu. */
#ifndef STEER_JOURNAL_INTERNAL_H
#define STEER_JOURNAL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>

#include "journal.h"
#include "steer/command.h"
#include "steer/strbuf.h"

/* Ticks without a command are marked at most this often (ms): a crash then loses at
 * most this much of an idle run, and a running world writes ten marks a second rather
 * than one a tick. A batch with commands is marked at the next timer firing. */
#define MARK_EVERY_MS 100
/* While the journal fails, a fresh checkpoint (which makes it whole again) is tried
 * this often (ms), rather than every --checkpoint seconds. */
#define FAILING_RETRY_MS 1000

typedef enum op_kind {
	OP_WRITE,   /* append data; mark_tick is the batch's mark */
	OP_SEGMENT, /* close the log, open segment seg's, expect its checkpoint from pid */
} op_kind;

/* A checkpoint written over ranks in place (ranks_save.h) rather than by a child: the
 * loop makes it a step at a time, the writer waits for it as for a child, names it,
 * and frees this once it is done. */
typedef struct inplace_ckpt {
	struct inplace_ckpt *next; /* the loop's list of those under way */
	journal *j;
	struct ranks_save *sv; /* the loop's, until it ends */
	bool done;             /* under mu: ended, sv closed */
	bool ok;               /* ... whole on the disk, else why */
	char why[300];
} inplace_ckpt;

typedef struct op {
	struct op *next;
	op_kind kind;
	steer_strbuf data;
	uint64_t seq; /* OP_WRITE: the batch number, for held replies */
	uint64_t mark_tick;
	uint64_t queued_ms;
	/* OP_SEGMENT */
	uint64_t seg;
	pid_t pid;        /* its checkpoint's child, or */
	inplace_ckpt *ip; /* ... over ranks, the checkpoint written in place */
	uint64_t begin_tick;
	uint8_t begin_flags;
	uint64_t fail_gen;
	bool keep; /* keep the older segments as keep_as rather than drop them */
	char keep_as[STEER_NAME_MAX + 1];
} op;

/* A checkpoint's child the writer waits for. */
typedef struct pending_ckpt {
	uint64_t seg;
	pid_t pid;
	inplace_ckpt *ip;  /* instead of pid: the writer's to free once it is done */
	bool fresh;        /* its log does not continue the one before */
	bool no_log;       /* its log could not be started: the checkpoint is not kept */
	uint64_t fail_gen; /* failures before it started */
	bool keep;
	char keep_as[STEER_NAME_MAX + 1];
} pending_ckpt;

#define MAX_PENDING_CKPT 8

/* A reply held until its batch is durable (--journal-fsync always). */
typedef struct held {
	struct held *next;
	conn *c; /* NULL: it left */
	steer_command cmd;
	uint32_t request_id;
	steer_reply reply;
	uint64_t seq;
} held;

struct journal {
	server *srv;
	char dir[4096], named[4096]; /* <data dir>/journal, <data dir>/journals */
	journal_fsync mode;
	uint64_t checkpoint_ms;
	uint64_t checkpoint_bytes; /* a log this long gets a checkpoint; 0: never */
	uint64_t named_max_bytes;  /* the named journals' bound (--journals-max-mb) */
	uint64_t seg_bytes;        /* handed over since the newest segment started */
	uint64_t refused;          /* commands refused while failing (fsync always) */
	uint64_t not_durable;      /* replies turned into errors: ran, not durable */
	uint64_t busy_waits;       /* new histories that waited for a checkpoint to end */
	uint64_t child_seg;        /* the newest segment whose checkpoint child was forked */
	/* The loop's side. */
	steer_strbuf batch; /* records since the last mark */
	steer_strbuf words; /* the staged command line */
	bool staged;
	uint64_t staged_tick; /* the world's tick before the command ran: its stamp */
	/* The world the staged command ran on, and whether it was replaced since (a
	 * rewind): such a command is a replacement, not a record. */
	const steer_world *staged_world;
	/* The world's tick as of the last command, tick or slice: kept so that the batch
	 * before a world replacement is marked with the old world's tick. */
	uint64_t tick_now;
	uint64_t loop_ns; /* the loop's time in the journal, for stats (and its benchmark) */
	uint64_t last_mark_tick;
	bool marked_once;
	uint64_t last_mark_ms, last_ckpt_ms;
	uint64_t seg;       /* the newest segment's number */
	uint64_t batch_seq; /* batches handed over */
	uint64_t ckpt_seq;  /* batch_seq when the newest segment started */
	held *held, **held_tail;
	inplace_ckpt *inplace; /* the checkpoints being written in place */
	uv_async_t async;
	bool stopped;
	bool was_failing; /* the loop's view, for its notices */
	/* Shared with the writer, under mu. */
	pthread_mutex_t mu;
	/* Held by the writer while it works (it allocates, opens directories, logs) and
	 * by the loop around each fork: a child must not start with another thread
	 * inside the allocator, whose lock it would wait on for ever (a sanitizer's
	 * allocator does not prepare itself for fork as glibc's does). libuv's thread
	 * pool (a load's decoding) is not held off: under the sanitizers a fork then
	 * may still meet it there; glibc's allocator is safe either way. */
	pthread_mutex_t fork_mu;
	pthread_cond_t cv;
	pthread_cond_t ckpt_cv; /* an in-place checkpoint is done */
	pthread_t thread;
	op *q, **q_tail;
	bool quit;
	bool reap_now; /* a command waits for a checkpoint's child: reap it at once */
	uint64_t durable_seq, durable_tick, bytes, queued_bytes, oldest_queued_ms;
	bool failing, need_fresh;
	uint64_t fail_gen;                /* failures so far */
	int ckpt_pending;                 /* the writer's nckpt, for the loop */
	uint64_t done_seg;                /* the newest segment whose checkpoint child has ended */
	uint64_t named_bytes, live_bytes; /* on the disk, as of the last checkpoint */
	char error[256];
	/* The writer's own. */
	int fd;
	uint64_t fd_seg;
	bool dirty;
	uint64_t dirty_seq, dirty_tick;
	struct timespec synced_at;
	pending_ckpt ckpt[MAX_PENDING_CKPT];
	int nckpt;
	/* A history to keep whose checkpoint failed: the next durable one keeps it. */
	char carry_keep[STEER_NAME_MAX + 1];
};

/* The writer thread's body (arg: the journal). */
void *journal_writer_main(void *arg);
/* Whether p is a directory (following links). */
bool journal_is_dir(const char *p);

#endif
