/* A save loaded over the ranks in place (steer_cluster_load, or its steps): rank 0
 * reads the file a piece of whole records at a time (savefile.h's steer_save_stream,
 * through a window on the file) and broadcasts each piece; every rank reads every
 * record and keeps the vehicles in its region, so that no rank holds the whole world.
 * Every collective here is entered by every rank in the same order: rank 0's verdict
 * on each piece is broadcast before the piece. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "cluster_parts.h"
#include "savefile.h"

/* About this many bytes of records a broadcast: small enough that reading one holds
 * rank 0's loop for a few ticks at most (docs/PERFORMANCE.md, "A world built in
 * place"), large enough that the broadcasts cost little beside the reading. */
#define PIECE_BYTES ((size_t)1 << 20)

/* What rank 0 broadcasts before each piece: whether it read the piece, and its
 * length (the first also carries the file's format version and record count). */
typedef struct piece_head {
	uint64_t ok, len, version, records;
} piece_head;

struct steer_cluster_loader {
	MPI_Comm comm;
	int rank, ranks;
	steer_save_stream *s; /* rank 0: the caller's leader; the others: their own */
	steer_cluster *c;     /* the new world's, until the end gives it */
	char *buf;            /* the others: the piece received */
	size_t cap;
	bool read_all, failed;
	char why[512]; /* what failed */
	char *err;     /* the current call's */
	size_t errlen;
};
typedef steer_cluster_loader loader;

/* Frees what the loader holds but the cluster (ended first) and rank 0's leader. */
static void free_loader(loader *l)
{
	if (l->rank != 0)
		steer_save_stream_free(l->s);
	free(l->buf);
	free(l);
}

static bool mpi_ok(loader *l, int rc)
{
	if (rc == MPI_SUCCESS)
		return true;
	snprintf(l->err, l->errlen, "MPI failed while loading the world");
	return false;
}

/* Every rank: whether every rank is ok; if not, every rank gets the words of the
 * first that is not (which are about the file, not a rank: they go unprefixed). */
static bool agree(loader *l, bool ok)
{
	int first;
	return steer_agree_first(l->comm, l->rank, l->ranks, ok ? STEER_OK : STEER_ERR_INVALID,
	                         &first, l->err, l->errlen) == STEER_OK;
}

/* The region's vehicles: those whose owner is this rank. */
static bool in_region(void *ud, double x, double y)
{
	const steer_cluster *c = ud;
	return steer_cluster_owner_of(c, x, y) == c->rank;
}

/* Rank 0 reads the next piece (the head first), and every rank gets it in *piece
 * (rank 0's within the file, the others' in *buf). *len 0 at the end. */
static bool next_piece(loader *l, const char **piece, size_t *len, piece_head *h)
{
	memset(h, 0, sizeof *h);
	if (l->rank == 0) {
		h->ok = l->s && steer_save_stream_next(l->s, PIECE_BYTES, piece, len);
		if (h->ok && *len > (size_t)INT_MAX) { /* pieces are a few MiB: never */
			h->ok = 0;
			snprintf(l->err, l->errlen, "a record of the file is too long to send");
		} else if (l->s && !h->ok) {
			snprintf(l->err, l->errlen, "%s", steer_save_stream_error(l->s));
		}
		h->len = h->ok ? *len : 0;
		if (l->s) {
			unsigned version;
			steer_save_stream_frame(l->s, &version, &h->records);
			h->version = version;
		}
	}
	if (!mpi_ok(l, MPI_Bcast(h, sizeof *h, MPI_BYTE, 0, l->comm)))
		return false;
	if (!h->ok)
		return agree(l, l->rank != 0); /* rank 0's words */
	*len = (size_t)h->len;
	bool room = true;
	if (l->rank != 0 && *len > l->cap) {
		char *grown = realloc(l->buf, *len);
		if (grown) {
			l->buf = grown;
			l->cap = *len;
		} else {
			room = false;
			snprintf(l->err, l->errlen, "out of memory for a piece of the file");
		}
	}
	if (!agree(l, room))
		return false;
	if (l->rank != 0)
		*piece = l->buf;
	return *len == 0 || mpi_ok(l, MPI_Bcast((void *)*piece, (int)*len, MPI_BYTE, 0, l->comm));
}

/* The head, read by every rank: the world's rules, meta and counts, and the world. */
static bool read_head(loader *l)
{
	const char *piece = NULL;
	size_t len = 0;
	piece_head h;
	if (!next_piece(l, &piece, &len, &h))
		return false;
	bool ok = true;
	if (l->rank != 0) {
		l->s = steer_save_stream_follow((unsigned)h.version, h.records);
		ok = l->s && steer_save_stream_feed(l->s, piece, len);
		snprintf(l->err, l->errlen, "%s",
		         l->s ? steer_save_stream_error(l->s) : "out of memory");
	}
	return agree(l, ok);
}

steer_cluster_loader *steer_cluster_load_begin(MPI_Comm comm, steer_save_stream *file,
                                               size_t max_vehicles,
                                               const steer_cluster_options *opt, char *err,
                                               size_t errlen)
{
	err[0] = '\0';
	steer_cluster_loader *l = calloc(1, sizeof *l);
	/* Every rank allocates alike; one that cannot is lost to the collectives. */
	if (!l) {
		fprintf(stderr, "steer: out of memory to load a world\n");
		MPI_Abort(comm, 70);
		return NULL;
	}
	l->comm = comm;
	l->err = err;
	l->errlen = errlen;
	if (MPI_Comm_rank(comm, &l->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &l->ranks) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot say this process's rank");
		free(l);
		return NULL;
	}
	if (l->rank == 0) {
		l->s = file;
		if (!file)
			snprintf(err, errlen, "rank 0 has no file to load");
	}
	steer_cluster_options o = opt ? *opt : steer_cluster_options_default();
	bool ok = read_head(l);
	steer_world *w = ok ? steer_save_stream_world(l->s) : NULL;
	/* The head counts the file's vehicles: every rank refuses alike. */
	uint64_t n = ok ? steer_save_stream_vehicles(l->s) : 0;
	if (ok && max_vehicles && n > max_vehicles && !o.load_over_max) {
		snprintf(err, errlen, "%" PRIu64 " vehicles exceed --max-vehicles %zu", n,
		         max_vehicles);
		ok = false;
	}
	if (ok) {
		o.whole_on_rank0 = false;
		steer_world_set_max_vehicles(w, max_vehicles);
		l->c = steer_cluster_create(comm, w, &o, err, errlen);
		ok = l->c != NULL;
	}
	if (!ok) {
		free_loader(l);
		return NULL;
	}
	steer_save_stream_keep(l->s, in_region, l->c);
	return l;
}

int steer_cluster_load_step(steer_cluster_loader *l, char *err, size_t errlen)
{
	l->err = err;
	l->errlen = errlen;
	if (l->failed) {
		snprintf(err, errlen, "%s", l->why);
		return -1;
	}
	if (l->read_all)
		return 0;
	const char *piece = NULL;
	size_t len = 0;
	piece_head h;
	if (!next_piece(l, &piece, &len, &h)) {
		l->failed = true;
		snprintf(l->why, sizeof l->why, "%s", err);
		return -1;
	}
	if (len == 0) {
		l->read_all = true;
		return 0;
	}
	if (l->rank != 0)
		(void)steer_save_stream_feed(l->s, piece, len); /* a failure is kept */
	return 1;
}

steer_cluster *steer_cluster_load_end(steer_cluster_loader *l, steer_world **out, char *err,
                                      size_t errlen)
{
	l->err = err;
	l->errlen = errlen;
	*out = NULL;
	bool ok = l->read_all && !l->failed;
	if (l->failed)
		snprintf(err, errlen, "%s", l->why);
	else if (!ok)
		snprintf(err, errlen, "the load was abandoned before the whole file was read");
	if (ok) {
		*out = steer_save_stream_finish(l->s);
		if (!*out)
			snprintf(err, errlen, "%s", steer_save_stream_error(l->s));
		ok = agree(l, *out != NULL);
	}
	/* The regions cut by cost, as for a world split whole. */
	if (ok && l->ranks > 1) {
		ok = steer_cluster_rebalance(l->c, err, errlen) == STEER_OK;
		memset(l->c->figures, 0, (size_t)l->ranks * sizeof *l->c->figures);
	}
	steer_cluster *c = ok ? l->c : NULL;
	if (ok)
		l->c = NULL;
	else if (l->c) {
		steer_cluster_destroy(l->c); /* before its world */
		l->c = NULL;
		steer_world_destroy(*out);
		*out = NULL;
	}
	free_loader(l);
	return c;
}

steer_cluster *steer_cluster_load(MPI_Comm comm, steer_save_stream *file, size_t max_vehicles,
                                  const steer_cluster_options *opt, steer_world **out, char *err,
                                  size_t errlen)
{
	*out = NULL;
	steer_cluster_loader *l =
	    steer_cluster_load_begin(comm, file, max_vehicles, opt, err, errlen);
	if (!l)
		return NULL;
	while (steer_cluster_load_step(l, err, errlen) > 0)
		;
	return steer_cluster_load_end(l, out, err, errlen);
}
