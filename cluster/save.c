/* A save written over the ranks in place (steer_cluster_save and its steps): at the
 * start every rank packs its region's vehicles in id order (its snapshot, so that the
 * world may tick on while the file is written), and rank 0 writes the head and keeps
 * the geometry's text; then, step by step, every rank writes the text of its next
 * records, and rank 0 gathers and merges them in id order, so that the file has the
 * bytes one process's save of the same world has, and no rank ever holds the whole
 * world or its whole text. Every collective here is entered by every rank in the same
 * order. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "reserve.h"
#include "savefile.h"
#include "world_record.h"

/* Past every id: a rank with no record left proposes it as the step's bound. */
#define NO_BOUND ((uint64_t)UINT32_MAX + 1)

/* A record's place in a step's text: its id and its length. */
typedef struct record_span {
	uint32_t id, len;
} record_span;

struct steer_cluster_saver {
	MPI_Comm comm;
	int rank, ranks;
	/* The snapshot: this rank's vehicles packed in id order, their ids beside. */
	steer_pack pack;
	uint32_t *ids;
	size_t count, next; /* records in the snapshot; the first not yet written */
	steer_unpacker in;
	uint64_t total; /* the whole world's vehicles */
	/* Rank 0: the head's and the geometry's text, and the end line's count. */
	steer_save_text head, geometry;
	uint64_t records;
	/* A step: this rank's records' text and spans; on rank 0, every rank's gathered
	 * (by rank: counts and displacements in bytes, spans then text) and merged. */
	steer_save_text mine, merged;
	record_span *spans, *all_spans;
	size_t spans_cap, all_spans_cap;
	char *all_text;
	size_t all_text_cap;
	int *span_counts, *span_displs, *text_counts, *text_displs;
	size_t held_most; /* the most records rank 0 held at once */
	bool done, failed;
	char why[256];
};
typedef steer_cluster_saver saver;

/* Every rank: whether every rank is ok; if not, every rank gets the first failure. */
static bool agree(saver *s, bool ok, char *err, size_t errlen)
{
	int first;
	if (steer_agree_first(s->comm, s->rank, s->ranks, ok ? STEER_OK : STEER_ERR_INVALID, &first,
	                      err, errlen) == STEER_OK)
		return true;
	if (first != s->rank) {
		char mine[sizeof s->why];
		snprintf(mine, sizeof mine, "%s", err);
		snprintf(err, errlen, "rank %d: %s", first, mine);
	}
	return false;
}

static bool mpi_ok(int rc, const char *what, char *err, size_t errlen)
{
	if (rc == MPI_SUCCESS)
		return true;
	steer_cluster_mpi_failed(err, errlen, rc, what);
	return false;
}

/* This rank's vehicles of w packed in id order into the snapshot. */
static bool take_snapshot(saver *s, const steer_world *w, char *err, size_t errlen)
{
	s->count = steer_world_vehicles(w)->count;
	uint64_t *order = steer_record_id_order(w);
	s->ids = malloc((s->count ? s->count : 1) * sizeof *s->ids);
	bool ok = order && s->ids;
	if (ok) {
		for (size_t k = 0; k < s->count && ok; k++) {
			s->ids[k] = (uint32_t)(order[k] >> 32);
			ok = steer_pack_vehicle(&s->pack, w, (size_t)(order[k] & UINT32_MAX)) ==
			     STEER_OK;
		}
	}
	free(order);
	if (!ok)
		snprintf(err, errlen, "out of memory taking the world's vehicles to save");
	return ok;
}

static bool grow_by_rank(saver *s)
{
	size_t n = (size_t)s->ranks;
	s->span_counts = calloc(n, sizeof(int));
	s->span_displs = calloc(n, sizeof(int));
	s->text_counts = calloc(n, sizeof(int));
	s->text_displs = calloc(n, sizeof(int));
	return s->span_counts && s->span_displs && s->text_counts && s->text_displs;
}

steer_cluster_saver *steer_cluster_save_begin(MPI_Comm comm, const steer_world *w, char *err,
                                              size_t errlen)
{
	err[0] = '\0';
	saver *s = calloc(1, sizeof *s);
	/* Every rank allocates alike; one that cannot is lost to the collectives. */
	if (!s) {
		fprintf(stderr, "steer: out of memory to save the world\n");
		MPI_Abort(comm, 70);
		return NULL;
	}
	s->comm = comm;
	if (MPI_Comm_rank(comm, &s->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &s->ranks) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot say this process's rank");
		free(s);
		return NULL;
	}
	steer_pack_init(&s->pack);
	steer_save_text_init(&s->head, SIZE_MAX);
	steer_save_text_init(&s->geometry, SIZE_MAX);
	steer_save_text_init(&s->mine, SIZE_MAX);
	steer_save_text_init(&s->merged, SIZE_MAX);
	bool ok = grow_by_rank(s);
	if (!ok)
		snprintf(err, errlen, "out of memory to save the world");
	ok = ok && take_snapshot(s, w, err, errlen);
	uint64_t mine = s->count;
	if (!agree(s, ok, err, errlen) ||
	    !mpi_ok(MPI_Allreduce(&mine, &s->total, 1, MPI_UINT64_T, MPI_SUM, comm), "Allreduce",
	            err, errlen)) {
		steer_cluster_save_free(s);
		return NULL;
	}
	steer_unpacker_init(&s->in, s->pack.bytes.data, s->pack.bytes.len, STEER_UNPACK_REFUSE,
	                    false);
	if (s->rank == 0) {
		/* Rank 0's world holds the whole world's rules, meta and geometry. */
		steer_save_put_head(&s->head, w, s->total);
		steer_save_put_geometry(&s->geometry, w);
		s->records = steer_save_records(w, s->total);
		if (steer_save_text_status(&s->head) != STEER_OK ||
		    steer_save_text_status(&s->geometry) != STEER_OK)
			snprintf(err, errlen, "out of memory writing the world's head");
	}
	if (!agree(s, err[0] == '\0', err, errlen)) {
		steer_cluster_save_free(s);
		return NULL;
	}
	return s;
}

uint64_t steer_cluster_save_vehicles(const steer_cluster_saver *s)
{
	return s->total;
}

const char *steer_cluster_save_head(const steer_cluster_saver *s, size_t *len)
{
	*len = s->head.len;
	return s->head.p;
}

const char *steer_cluster_save_geometry(const steer_cluster_saver *s, size_t *len,
                                        uint64_t *records)
{
	*len = s->geometry.len;
	*records = s->records;
	return s->geometry.p;
}

size_t steer_cluster_save_held_most(const steer_cluster_saver *s)
{
	return s->held_most;
}

/* This rank's text for its records with ids below bound, and their spans. */
static bool write_mine(saver *s, uint64_t bound, size_t *n, char *err, size_t errlen)
{
	steer_save_text_clear(&s->mine);
	*n = 0;
	while (s->next < s->count && s->ids[s->next] < bound) {
		if (steer_reserve((void **)&s->spans, &s->spans_cap, *n + 1, sizeof *s->spans) !=
		    STEER_OK) {
			snprintf(err, errlen, "out of memory writing the world's vehicles");
			return false;
		}
		steer_vehicle_record r;
		if (steer_unpack_record(&s->in, &r, err, errlen) != STEER_OK)
			return false;
		size_t before = s->mine.len;
		steer_save_put_vehicle(&s->mine, &r);
		if (steer_save_text_status(&s->mine) != STEER_OK ||
		    s->mine.len - before > UINT32_MAX) {
			snprintf(err, errlen, "out of memory writing the world's vehicles");
			return false;
		}
		s->spans[*n] = (record_span){r.id, (uint32_t)(s->mine.len - before)};
		s->next++;
		(*n)++;
	}
	return true;
}

/* Rank 0: room in *buf for what every rank sends (counts, in bytes), displs set. */
static bool make_room(saver *s, const int *counts, int *displs, void **buf, size_t *cap, char *err,
                      size_t errlen)
{
	size_t total = 0;
	for (int r = 0; r < s->ranks; r++) {
		displs[r] = (int)total;
		total += (size_t)counts[r];
	}
	if (total > INT_MAX) {
		snprintf(err, errlen, "a step of the save passed 2 GiB");
		return false;
	}
	if (steer_reserve(buf, cap, total ? total : 1, 1) != STEER_OK) {
		snprintf(err, errlen, "out of memory gathering the world's vehicles");
		return false;
	}
	return true;
}

/* Collective: n bytes at mine from every rank into *buf on rank 0, rank r's counts[r]
 * of them at displs[r]. */
static bool gather_bytes(saver *s, const void *mine, size_t n, int *counts, int *displs, void **buf,
                         size_t *cap, char *err, size_t errlen)
{
	bool ok = n <= INT_MAX;
	if (!ok)
		snprintf(err, errlen, "a rank's step of the save passed 2 GiB");
	int size = ok ? (int)n : 0;
	if (!agree(s, ok, err, errlen) ||
	    !mpi_ok(MPI_Gather(&size, 1, MPI_INT, counts, 1, MPI_INT, 0, s->comm), "Gather", err,
	            errlen))
		return false;
	if (!agree(s, s->rank != 0 || make_room(s, counts, displs, buf, cap, err, errlen), err,
	           errlen))
		return false;
	static const char nothing = 0;
	return mpi_ok(MPI_Gatherv(mine ? mine : &nothing, size, MPI_BYTE, *buf, counts, displs,
	                          MPI_BYTE, 0, s->comm),
	              "Gatherv", err, errlen);
}

/* Rank 0: the gathered records into s->merged in id order. Each rank's are in id order
 * already, so this merges the ranks' runs, taking the least head each time (ranks are
 * few: a scan of the heads costs less than a heap). */
static bool merge(saver *s, char *err, size_t errlen)
{
	steer_save_text_clear(&s->merged);
	size_t n = (size_t)s->ranks;
	size_t *at = calloc(n, sizeof *at), *end = calloc(n, sizeof *end),
	       *text_at = calloc(n, sizeof *text_at);
	bool ok = at && end && text_at;
	size_t held = 0, bytes = 0;
	for (int r = 0; r < s->ranks && ok; r++) {
		at[r] = (size_t)s->span_displs[r] / sizeof *s->spans;
		end[r] = at[r] + (size_t)s->span_counts[r] / sizeof *s->spans;
		text_at[r] = (size_t)s->text_displs[r];
		held += end[r] - at[r];
		bytes += (size_t)s->text_counts[r];
	}
	ok = ok && steer_reserve((void **)&s->merged.p, &s->merged.cap, bytes + 1, 1) == STEER_OK;
	while (ok) {
		int least = -1;
		for (int r = 0; r < s->ranks; r++)
			if (at[r] < end[r] &&
			    (least < 0 || s->all_spans[at[r]].id < s->all_spans[at[least]].id))
				least = r;
		if (least < 0)
			break;
		const record_span *sp = &s->all_spans[at[least]++];
		memcpy(s->merged.p + s->merged.len, s->all_text + text_at[least], sp->len);
		s->merged.len += sp->len;
		text_at[least] += sp->len;
	}
	free(at);
	free(end);
	free(text_at);
	if (!ok)
		snprintf(err, errlen, "out of memory merging the world's vehicles");
	if (held > s->held_most)
		s->held_most = held;
	return ok;
}

int steer_cluster_save_step(steer_cluster_saver *s, size_t records, const char **text, size_t *len,
                            char *err, size_t errlen)
{
	*text = NULL;
	*len = 0;
	if (s->failed) {
		snprintf(err, errlen, "%s", s->why);
		return -1;
	}
	if (s->done)
		return 0;
	/* The step's bound: the least, over the ranks, of each one's id `records` on
	 * from its next; the rank that proposed it writes that many, the others fewer. */
	if (records < 1)
		records = 1;
	uint64_t mine = s->count - s->next > records ? s->ids[s->next + records] : NO_BOUND, bound;
	size_t n = 0;
	bool ok = mpi_ok(MPI_Allreduce(&mine, &bound, 1, MPI_UINT64_T, MPI_MIN, s->comm),
	                 "Allreduce", err, errlen);
	ok = ok && agree(s, write_mine(s, bound, &n, err, errlen), err, errlen) &&
	     gather_bytes(s, s->spans, n * sizeof *s->spans, s->span_counts, s->span_displs,
	                  (void **)&s->all_spans, &s->all_spans_cap, err, errlen) &&
	     gather_bytes(s, s->mine.p, s->mine.len, s->text_counts, s->text_displs,
	                  (void **)&s->all_text, &s->all_text_cap, err, errlen);
	ok = ok && agree(s, s->rank != 0 || merge(s, err, errlen), err, errlen);
	if (!ok) {
		s->failed = true;
		snprintf(s->why, sizeof s->why, "%s", err);
		return -1;
	}
	s->done = bound == NO_BOUND;
	if (s->rank == 0) {
		*text = s->merged.p;
		*len = s->merged.len;
	}
	return 1;
}

void steer_cluster_save_free(steer_cluster_saver *s)
{
	if (!s)
		return;
	steer_unpacker_free(&s->in);
	steer_pack_free(&s->pack);
	free(s->ids);
	steer_save_text_free(&s->head);
	steer_save_text_free(&s->geometry);
	steer_save_text_free(&s->mine);
	steer_save_text_free(&s->merged);
	free(s->spans);
	free(s->all_spans);
	free(s->all_text);
	free(s->span_counts);
	free(s->span_displs);
	free(s->text_counts);
	free(s->text_displs);
	free(s);
}
