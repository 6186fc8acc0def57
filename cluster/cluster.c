/* One world over many ranks: the regions' cut and recut, the halo of copies and
 * migration, one tick over every rank, goto's planning budget agreed over them. */
#include "cluster_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_parts.h"
#include "reserve.h"
#include "steer/params.h"

/* A vehicle's cost is read from its tile's density: this many tiles to a side of the
 * world's bounds (or of the vehicles' extent in an unbounded world). A cut weighs at
 * most TILES * TILES points a rank. */
#define TILES 64

steer_cluster_options steer_cluster_options_default(void)
{
	steer_cluster_options o = {0, 0.10, 60, false, false};
	return o;
}

unsigned steer_cluster_cuts(const steer_cluster *c)
{
	return steer_partition_cuts(c->part);
}

void steer_cluster_figures(const steer_cluster *c, steer_cluster_figure *out)
{
	memcpy(out, c->figures, (size_t)c->ranks * sizeof *out);
}

steer_status steer_cluster_fail(char *err, size_t errlen, steer_status st, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return st;
}

steer_status steer_cluster_mpi_failed(char *err, size_t errlen, int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "error %d", rc);
	snprintf(err, errlen, "MPI %s failed: %s", what, msg);
	return STEER_ERR_IO;
}

steer_status steer_agree_first(MPI_Comm comm, int rank, int ranks, steer_status st, int *first,
                               char *err, size_t errlen)
{
	int mine = st != STEER_OK ? rank : ranks;
	*first = -1;
	if (MPI_Allreduce(&mine, first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
		*first = -1;
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	}
	if (*first == ranks)
		return STEER_OK;
	char msg[512] = "";
	int code = st;
	if (*first == rank)
		snprintf(msg, sizeof msg, "%s", err);
	if (MPI_Bcast(msg, sizeof msg, MPI_CHAR, *first, comm) != MPI_SUCCESS ||
	    MPI_Bcast(&code, 1, MPI_INT, *first, comm) != MPI_SUCCESS) {
		*first = -1;
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	}
	snprintf(err, errlen, "%s", msg);
	return (steer_status)code;
}

steer_status steer_cluster_agree(steer_cluster *c, steer_status st, char *err, size_t errlen)
{
	int first;
	steer_status all = steer_agree_first(c->comm, c->rank, c->ranks, st, &first, err, errlen);
	if (all == STEER_OK || first < 0 || c->ranks == 1)
		return all;
	/* Every rank reports the first failed rank's own words, naming it. */
	char words[512];
	snprintf(words, sizeof words, "%s", err);
	snprintf(err, errlen, "rank %d: %s", first, words);
	return all;
}

/* --- moving messages --------------------------------------------------------------- */

enum { TAG_COUNT = 1, TAG_BYTES = 2 };

/* steer_cluster_agree, also agreeing whether every rank's messages go to its peers
 * alone (*near_only in, the answer for all out): one collective for both. */
static steer_status agree_routes(steer_cluster *c, steer_status st, bool *near_only, char *err,
                                 size_t errlen)
{
	int mine[2] = {st != STEER_OK ? c->rank : c->ranks, *near_only}, all[2];
	if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO, "MPI failed while agreeing");
	*near_only = all[1];
	if (all[0] == c->ranks)
		return STEER_OK;
	return steer_cluster_agree(c, st, err, errlen); /* the failed rank's words */
}

/* Where each rank's message lands in c->recv, from recv_counts; room for them all. */
static steer_status place_received(steer_cluster *c, char *err, size_t errlen)
{
	size_t in = 0;
	for (int r = 0; r < c->ranks; r++) {
		if ((size_t)c->recv_counts[r] > (size_t)INT32_MAX - in)
			return steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
			                          "a message between ranks passed 2 GiB");
		c->recv_displs[r] = (int)in;
		in += (size_t)c->recv_counts[r];
	}
	if (steer_reserve((void **)&c->recv, &c->recv_cap, in ? in : 1, 1) != STEER_OK)
		return steer_cluster_fail(err, errlen, STEER_ERR_NOMEM,
		                          "out of memory for a message");
	return STEER_OK;
}

/* Through every rank: the counts by Alltoall, the bytes by Alltoallv from one buffer. */
static steer_status exchange_wide(steer_cluster *c, char *err, size_t errlen)
{
	int rc = MPI_Alltoall(c->send_counts, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Alltoall");
	size_t total = (size_t)c->send_displs[c->ranks - 1] + (size_t)c->send_counts[c->ranks - 1];
	steer_status st = place_received(c, err, errlen);
	if (st == STEER_OK &&
	    steer_reserve((void **)&c->send, &c->send_cap, total ? total : 1, 1) != STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory for a message");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	for (int r = 0; r < c->ranks; r++)
		if (c->out[r].bytes.len)
			memcpy(c->send + c->send_displs[r], c->out[r].bytes.data,
			       c->out[r].bytes.len);
	rc = MPI_Alltoallv(c->send, c->send_counts, c->send_displs, MPI_BYTE, c->recv,
	                   c->recv_counts, c->recv_displs, MPI_BYTE, c->comm);
	return rc == MPI_SUCCESS ? STEER_OK
	                         : steer_cluster_mpi_failed(err, errlen, rc, "Alltoallv");
}

/* Posts a receive from and a send to every peer with something to move (counts: every
 * peer), and waits for them all. */
static int swap_with_peers(steer_cluster *c, bool counts)
{
	int n = 0, rc = MPI_SUCCESS;
	for (int k = 0; k < c->peers && rc == MPI_SUCCESS; k++) {
		int r = c->peer_at[k];
		if (counts)
			rc = MPI_Irecv(&c->recv_counts[r], 1, MPI_INT, r, TAG_COUNT, c->comm,
			               &c->req[n]);
		else if (c->recv_counts[r])
			rc = MPI_Irecv(c->recv + c->recv_displs[r], c->recv_counts[r], MPI_BYTE, r,
			               TAG_BYTES, c->comm, &c->req[n]);
		else
			continue;
		n += rc == MPI_SUCCESS;
	}
	for (int k = 0; k < c->peers && rc == MPI_SUCCESS; k++) {
		int r = c->peer_at[k];
		if (counts)
			rc = MPI_Isend(&c->send_counts[r], 1, MPI_INT, r, TAG_COUNT, c->comm,
			               &c->req[n]);
		else if (c->send_counts[r])
			rc = MPI_Isend(c->out[r].bytes.data, c->send_counts[r], MPI_BYTE, r,
			               TAG_BYTES, c->comm, &c->req[n]);
		else
			continue;
		n += rc == MPI_SUCCESS;
	}
	int wait = MPI_Waitall(n, c->req, MPI_STATUSES_IGNORE);
	return rc != MPI_SUCCESS ? rc : wait;
}

/* Point to point with the peers alone: their counts, then their bytes, each sent
 * from the rank's own message and received in place. */
static steer_status exchange_near(steer_cluster *c, char *err, size_t errlen)
{
	for (int r = 0; r < c->ranks; r++)
		c->recv_counts[r] = 0;
	c->recv_counts[c->rank] = c->send_counts[c->rank];
	int rc = swap_with_peers(c, true);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "sending counts to neighbours");
	steer_status st = steer_cluster_agree(c, place_received(c, err, errlen), err, errlen);
	if (st != STEER_OK)
		return st;
	if (c->recv_counts[c->rank])
		memcpy(c->recv + c->recv_displs[c->rank], c->out[c->rank].bytes.data,
		       (size_t)c->recv_counts[c->rank]);
	rc = swap_with_peers(c, false);
	return rc == MPI_SUCCESS
	           ? STEER_OK
	           : steer_cluster_mpi_failed(err, errlen, rc, "sending to neighbours");
}

/* Collective: st is this rank's status so far (agreed on first). Sends out[r] to every
 * rank r and receives theirs into c->recv (recv_counts and recv_displs say where):
 * point to point with the peers when every rank's messages are for its peers alone,
 * else through every rank. *sent gets the bytes this rank sent to others. */
steer_status steer_cluster_exchange(steer_cluster *c, steer_status st, uint64_t *sent, char *err,
                                    size_t errlen)
{
	size_t total = 0;
	bool near_only = c->peers >= 0;
	*sent = 0;
	for (int r = 0; r < c->ranks && st == STEER_OK; r++) {
		if (c->out[r].bytes.len > (size_t)INT32_MAX - total) {
			st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
			                        "a message between ranks passed 2 GiB");
			break;
		}
		c->send_counts[r] = (int)c->out[r].bytes.len;
		c->send_displs[r] = (int)total;
		total += c->out[r].bytes.len;
		if (r != c->rank)
			*sent += c->out[r].bytes.len;
		if (r != c->rank && c->out[r].bytes.len && !(c->peers >= 0 && c->peer[r]))
			near_only = false;
	}
	/* Every rank learns of a failure before the exchange it would skip. */
	st = agree_routes(c, st, &near_only, err, errlen);
	c->sent_out = st == STEER_OK;
	if (st != STEER_OK)
		return st;
	if (near_only)
		return exchange_near(c, err, errlen);
	c->figures[c->rank].wide++;
	return exchange_wide(c, err, errlen);
}

/* Rank r's region's box, within the world's bounds where it has them: the outer
 * regions reach to infinity, but the vehicles of a bounded world lie within them
 * (one that strays beyond sends the exchange through every rank). */
static void region_box(const steer_cluster *c, int r, double box[4])
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	steer_partition_box(c->part, r, box);
	if (cfg->edges == STEER_EDGE_NONE)
		return;
	box[0] = fmax(box[0], 0.0);
	box[1] = fmax(box[1], 0.0);
	box[2] = fmin(box[2], cfg->width);
	box[3] = fmin(box[3], cfg->height);
}

/* The peers for this reach (see struct steer_cluster), from the regions' boxes every
 * rank holds alike: no message, but every rank calls it at the same point. Made again
 * every tick (a few box tests a rank), as a command may have changed the bounds or
 * the edges since the last. */
static void find_peers(steer_cluster *c, double reach)
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	int shifts = cfg->edges == STEER_EDGE_WRAP ? 1 : 0;
	double me[4], them[4];
	region_box(c, c->rank, me);
	c->peers = 0;
	c->peers_reach = reach;
	for (int r = 0; r < c->ranks; r++) {
		region_box(c, r, them);
		bool near = false;
		for (int sy = -shifts; sy <= shifts && !near; sy++)
			for (int sx = -shifts; sx <= shifts && !near; sx++) {
				double dx = sx * cfg->width, dy = sy * cfg->height;
				/* Either box widened by reach and shifted across the seams meets
				 * the other: the same answer on both ranks of a pair. */
				near = (me[0] - reach + dx <= them[2] &&
				        them[0] <= me[2] + reach + dx &&
				        me[1] - reach + dy <= them[3] &&
				        them[1] <= me[3] + reach + dy) ||
				       (them[0] - reach + dx <= me[2] &&
				        me[0] <= them[2] + reach + dx &&
				        them[1] - reach + dy <= me[3] &&
				        me[1] <= them[3] + reach + dy);
			}
		c->peer[r] = near && r != c->rank;
		if (c->peer[r]) {
			memcpy(c->peer_box + 4 * c->peers, them, sizeof them);
			c->peer_at[c->peers++] = r;
		}
	}
}

/* Unpacks every rank's message in c->recv into the world. Copies added to c->halo
 * note the rank they came from. */
steer_status steer_cluster_take_all(steer_cluster *c, steer_unpack_dup dup, steer_id_list *added,
                                    char *err, size_t errlen)
{
	for (int r = 0; r < c->ranks; r++) {
		size_t before = added ? added->count : 0;
		steer_status st = steer_unpack(c->w, c->recv + c->recv_displs[r],
		                               (size_t)c->recv_counts[r], dup, added, err, errlen);
		if (added == &c->halo && added->count > before) {
			if (steer_reserve((void **)&c->halo_src, &c->halo_src_cap, added->count,
			                  sizeof *c->halo_src) != STEER_OK)
				return steer_cluster_fail(err, errlen, STEER_ERR_NOMEM,
				                          "out of memory noting copies");
			for (size_t k = before; k < added->count; k++)
				c->halo_src[k] = r;
		}
		if (st != STEER_OK)
			return st;
	}
	return STEER_OK;
}

void steer_cluster_reset_messages(steer_cluster *c)
{
	for (int r = 0; r < c->ranks; r++)
		steer_pack_reset(&c->out[r]);
}

/* --- migration --------------------------------------------------------------------- */

/* The rank owning (x, y): this one, without a lookup, strictly inside its core. */
int steer_cluster_owner_of(const steer_cluster *c, double x, double y)
{
	const double *m = c->core;
	if (x > m[0] && x < m[2] && y > m[1] && y < m[3])
		return c->rank;
	return steer_partition_owner(c->part, x, y);
}

/* Sends every vehicle this rank holds outside its region to the region's rank, and
 * takes in those sent here. Vehicles with ids from `made_from` up, and every vehicle
 * when `replaced`, were made alike on every rank: those outside the region are
 * dropped, the rank whose region they are in keeps its own. */
steer_status steer_cluster_migrate(steer_cluster *c, uint32_t made_from, bool replaced, char *err,
                                   size_t errlen)
{
	steer_world *w = c->w;
	const steer_vehicles *v = steer_world_vehicles(w);
	steer_id_list gone = {0};
	steer_status st = STEER_OK;
	steer_cluster_reset_messages(c);
	for (size_t i = 0; i < v->count && st == STEER_OK; i++) {
		int owner = steer_cluster_owner_of(c, v->px[i], v->py[i]);
		if (owner == c->rank)
			continue;
		if (!replaced && v->id[i] < made_from)
			st = steer_pack_vehicle(&c->out[owner], w, i);
		if (st == STEER_OK)
			st = steer_id_list_push(&gone, v->id[i]);
	}
	if (st == STEER_ERR_NOMEM)
		snprintf(err, errlen, "out of memory while migrating vehicles");
	/* The exchange agrees first: detached only once every rank has its messages
	 * ready, none is lost. */
	uint64_t bytes = 0;
	st = steer_cluster_exchange(c, st, &bytes, err, errlen);
	bool detached = c->sent_out;
	for (size_t k = 0; k < gone.count && detached; k++)
		(void)steer_vehicle_detach(w, gone.at[k]);
	uint64_t migrated = 0;
	for (int r = 0; r < c->ranks; r++)
		if (r != c->rank)
			migrated += c->out[r].records;
	steer_id_list_free(&gone);
	if (st == STEER_OK)
		st = steer_cluster_take_all(c, STEER_UNPACK_REFUSE, NULL, err, errlen);
	c->figures[c->rank].migrated += migrated;
	c->figures[c->rank].migrate_bytes += bytes;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK && detached)
		c->broken = true; /* vehicles left their regions and did not arrive */
	return st;
}

/* --- the tick ---------------------------------------------------------------------- */

/* The whole world's survey, the same bits on every rank. */
static steer_status survey(steer_cluster *c, steer_world_survey *g, char *err, size_t errlen)
{
	steer_world_survey own = steer_world_survey_own(c->w);
	*g = own;
	double dmax[3] = {own.flock_sight, own.radius_max, own.speed_max}, gd[3];
	int imax[3] = {own.avoid_any, own.smooth_any, own.has_flockers}, gi[3];
	int iall[2] = {!own.has_flockers || own.flock_one_group,
	               !own.has_flockers || own.flock_plain},
	    ga[2];
	unsigned long count = own.vehicles, total = 0;
	if (MPI_Allreduce(&count, &total, 1, MPI_UNSIGNED_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while counting vehicles");
	g->vehicles = total;
	uint32_t gmin = own.has_flockers ? own.flock_group : UINT32_MAX,
	         gmax = own.has_flockers ? own.flock_group : 0;
	/* The flags' maxima, their ands and the groups' least as maxima of their
	 * complements: one reduction for every integer. */
	uint64_t most[7] = {(uint64_t)imax[0],
	                    (uint64_t)imax[1],
	                    (uint64_t)imax[2],
	                    (uint64_t)!iall[0],
	                    (uint64_t)!iall[1],
	                    UINT32_MAX - gmin,
	                    gmax},
	         got[7];
	if (MPI_Allreduce(dmax, gd, 3, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS ||
	    MPI_Allreduce(most, got, 7, MPI_UINT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while surveying the world");
	for (int k = 0; k < 3; k++)
		gi[k] = (int)got[k];
	for (int k = 0; k < 2; k++)
		ga[k] = !got[3 + k];
	uint32_t rmin = UINT32_MAX - (uint32_t)got[5], rmax = (uint32_t)got[6];
	g->flock_sight = gd[0];
	g->radius_max = gd[1];
	g->speed_max = gd[2];
	g->avoid_any = gi[0];
	g->smooth_any = gi[1];
	g->has_flockers = gi[2];
	g->flock_one_group = ga[0] && rmin >= rmax;
	g->flock_group = rmin;
	g->flock_plain = ga[1];
	if (g->flock_plain && c->ranks > 1) {
		/* Plain everywhere, but with one set only if every rank's is the same. */
		size_t n = steer_param_count;
		double *mine = calloc(n + 1, sizeof *mine);
		double *all = calloc((n + 1) * (size_t)c->ranks, sizeof *all);
		steer_status st =
		    steer_cluster_agree(c, mine && all ? STEER_OK : STEER_ERR_NOMEM, err, errlen);
		if (st != STEER_OK) {
			free(mine);
			free(all);
			if (!mine || !all)
				snprintf(err, errlen, "out of memory while surveying");
			return st;
		}
		mine[0] = own.has_flockers;
		for (size_t k = 0; k < n; k++)
			mine[k + 1] = steer_param_get(&own.flock_set, &steer_param_defs[k]);
		int rc = MPI_Allgather(mine, (int)(n + 1), MPI_DOUBLE, all, (int)(n + 1),
		                       MPI_DOUBLE, c->comm);
		const double *first = NULL;
		for (int r = 0; rc == MPI_SUCCESS && r < c->ranks; r++) {
			const double *at = all + (size_t)r * (n + 1);
			if (at[0] == 0.0)
				continue;
			if (!first)
				first = at;
			else if (memcmp(first + 1, at + 1, n * sizeof *at) != 0)
				g->flock_plain = false;
		}
		free(mine);
		free(all);
		if (rc != MPI_SUCCESS)
			return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	}
	return STEER_OK;
}

/* The boxes within reach of (x, y) as the regions' lookup takes them: shifted across
 * a wrap world's seams and clipped to a bounded world's bounds, the empty ones left
 * out; into q, their count back. */
static int reach_boxes(const steer_cluster *c, double x, double y, double reach, double q[9][4])
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	double W = cfg->width, H = cfg->height;
	int shifts = cfg->edges == STEER_EDGE_WRAP ? 1 : 0, boxes = 0;
	bool clip = cfg->edges != STEER_EDGE_NONE;
	for (int sy = -shifts; sy <= shifts; sy++)
		for (int sx = -shifts; sx <= shifts; sx++) {
			double *b = q[boxes];
			b[0] = x - reach + sx * W;
			b[1] = y - reach + sy * H;
			b[2] = x + reach + sx * W;
			b[3] = y + reach + sy * H;
			if (clip) {
				b[0] = b[0] < 0.0 ? 0.0 : b[0];
				b[1] = b[1] < 0.0 ? 0.0 : b[1];
				b[2] = b[2] > W ? W : b[2];
				b[3] = b[3] > H ? H : b[3];
			}
			boxes += b[0] <= b[2] && b[1] <= b[3];
		}
	return boxes;
}

/* The ranks other than this one whose regions come within reach of (x, y), into
 * c->near; returns their count. Across the seam of a wrap world too. */
int steer_cluster_near_ranks(steer_cluster *c, double x, double y, double reach, bool *seen)
{
	double q[9][4];
	int boxes = reach_boxes(c, x, y, reach, q), n = 0;
	/* Every region within peers_reach of this one's is a peer's (find_peers): so is
	 * every region within reach of a point, when the point lies no further than
	 * peers_reach - reach outside this region (a body the solid pass moved). Their
	 * boxes answer, without the cut. */
	const double *m = c->mine;
	double out = 0.0, d[4] = {m[0] - x, x - m[2], m[1] - y, y - m[3]};
	for (int k = 0; k < 4; k++)
		out = d[k] > out ? d[k] : out;
	if (c->peers >= 0 && reach + out <= c->peers_reach) {
		for (int k = 0; k < c->peers; k++) {
			const double *p = c->peer_box + 4 * k;
			bool near = false;
			for (int j = 0; j < boxes && !near; j++)
				near = q[j][0] <= p[2] && p[0] <= q[j][2] && q[j][1] <= p[3] &&
				       p[1] <= q[j][3];
			if (near)
				c->near[n++] = c->peer_at[k];
		}
		return n;
	}
	for (int r = 0; r < c->ranks; r++)
		seen[r] = false;
	for (int j = 0; j < boxes; j++) {
		int got =
		    steer_partition_near(c->part, q[j][0], q[j][1], q[j][2], q[j][3], c->near);
		for (int k = 0; k < got; k++)
			seen[c->near[k]] = true;
	}
	for (int r = 0; r < c->ranks; r++)
		if (seen[r] && r != c->rank)
			c->near[n++] = r;
	return n;
}

/* The halo: each of this rank's vehicles within reach of another region, to it. */
static steer_status send_halo(steer_cluster *c, double reach, uint64_t *bytes, char *err,
                              size_t errlen)
{
	steer_world *w = c->w;
	const steer_vehicles *v = steer_world_vehicles(w);
	bool *seen = malloc((size_t)c->ranks * sizeof *seen);
	steer_status st = seen ? STEER_OK : STEER_ERR_NOMEM;
	steer_cluster_reset_messages(c);
	const steer_world_config *cfg = steer_world_config_get(w);
	bool seams = cfg->edges == STEER_EDGE_WRAP;
	const double *m = c->core;
	for (size_t i = 0; i < v->count && st == STEER_OK; i++) {
		double x = v->px[i], y = v->py[i];
		/* Deep inside the region's core, no other is within reach: no lookup. */
		if (x - reach > m[0] && x + reach < m[2] && y - reach > m[1] && y + reach < m[3] &&
		    (!seams || (x - reach > 0.0 && x + reach < cfg->width && y - reach > 0.0 &&
		                y + reach < cfg->height)))
			continue;
		int n = steer_cluster_near_ranks(c, x, y, reach, seen);
		for (int k = 0; k < n && st == STEER_OK; k++)
			st = steer_pack_vehicle(&c->out[c->near[k]], w, i);
	}
	free(seen);
	if (st == STEER_ERR_NOMEM)
		snprintf(err, errlen, "out of memory while copying the halo");
	st = steer_cluster_exchange(c, st, bytes, err, errlen);
	if (st == STEER_OK)
		st = steer_cluster_take_all(c, STEER_UNPACK_REFUSE, &c->halo, err, errlen);
	return steer_cluster_agree(c, st, err, errlen);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Collective: the ids in `want` of every rank, sorted and without repeats, into *all
 * (malloc'd, the caller's). */
static steer_status gather_ids(steer_cluster *c, const steer_id_list *want, steer_id_list *all,
                               char *err, size_t errlen)
{
	int mine = (int)want->count;
	steer_status st = want->count > INT32_MAX / 4
	                      ? steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
	                                           "too many vehicles named at once")
	                      : STEER_OK;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	int rc = MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	size_t total = 0;
	for (int r = 0; r < c->ranks; r++) {
		c->recv_displs[r] = (int)total;
		total += (size_t)c->recv_counts[r];
	}
	all->count = 0;
	if (total > INT32_MAX)
		st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
		                        "too many vehicles named at once");
	else if (steer_reserve((void **)&all->at, &all->cap, total ? total : 1, sizeof *all->at) !=
	         STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory gathering ids");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	rc = MPI_Allgatherv(want->at ? want->at : all->at, mine, MPI_UINT32_T, all->at,
	                    c->recv_counts, c->recv_displs, MPI_UINT32_T, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgatherv");
	qsort(all->at, total, sizeof *all->at, by_u32);
	size_t n = 0;
	for (size_t k = 0; k < total; k++)
		if (all->at[k] != 0 && (n == 0 || all->at[n - 1] != all->at[k]))
			all->at[n++] = all->at[k];
	all->count = n;
	return STEER_OK;
}

/* Collective: copies of the vehicles named in `want` (on any rank) to every rank that
 * lacks them; their ids are added to c->halo. */
steer_status steer_cluster_share(steer_cluster *c, const steer_id_list *want, uint64_t *bytes,
                                 char *err, size_t errlen)
{
	steer_id_list all = {0};
	steer_status st = gather_ids(c, want, &all, err, errlen);
	st = steer_cluster_agree(c, st, err, errlen);
	/* No rank named any: nothing to send (every rank holds the same list). */
	if (st != STEER_OK || all.count == 0) {
		steer_id_list_free(&all);
		return st;
	}
	steer_pack *p = &c->out[c->rank];
	steer_pack_reset(p);
	const steer_vehicles *v = steer_world_vehicles(c->w);
	for (size_t k = 0; k < all.count && st == STEER_OK; k++) {
		long i = steer_vehicle_index(c->w, all.at[k]);
		/* A copy held for the halo is not this rank's to share. */
		if (i >= 0 && steer_cluster_owner_of(c, v->px[i], v->py[i]) == c->rank)
			st = steer_pack_vehicle(p, c->w, (size_t)i);
	}
	steer_id_list_free(&all);
	if (st != STEER_OK)
		snprintf(err, errlen, "out of memory while sharing vehicles");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	st = p->bytes.len > INT32_MAX ? steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
	                                                   "a message between ranks passed 2 GiB")
	                              : STEER_OK;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	int mine = (int)p->bytes.len;
	int rc = MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm);
	size_t total = 0;
	for (int r = 0; rc == MPI_SUCCESS && r < c->ranks; r++) {
		c->recv_displs[r] = (int)total;
		total += (size_t)c->recv_counts[r];
	}
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	if (total > INT32_MAX)
		st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
		                        "a message between ranks passed 2 GiB");
	else if (steer_reserve((void **)&c->recv, &c->recv_cap, total ? total : 1, 1) != STEER_OK)
		st =
		    steer_cluster_fail(err, errlen, STEER_ERR_NOMEM, "out of memory for a message");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	rc = MPI_Allgatherv(p->bytes.data ? p->bytes.data : c->recv, mine, MPI_BYTE, c->recv,
	                    c->recv_counts, c->recv_displs, MPI_BYTE, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgatherv");
	*bytes += (uint64_t)mine * (uint64_t)(c->ranks - 1);
	st = steer_cluster_take_all(c, STEER_UNPACK_SKIP, &c->halo, err, errlen);
	return steer_cluster_agree(c, st, err, errlen);
}

/* The vehicles this rank's vehicles steer by wherever they are: chased, followed,
 * hidden from, interposed between. */
static steer_status targets_of(const steer_world *w, steer_id_list *out)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	out->count = 0;
	for (size_t i = 0; i < v->count; i++) {
		if (v->extra[i] == STEER_NO_EXTRA)
			continue;
		const steer_vehicle_state *s = steer_vehicle_state_at(w, i);
		uint32_t ids[6] = {s->pursue_id,       s->evade_id,         s->group.leader_id,
		                   s->group.hunter_id, s->group.between[0], s->group.between[1]};
		for (int k = 0; k < 6; k++)
			if (ids[k] && steer_id_list_push(out, ids[k]) != STEER_OK)
				return STEER_ERR_NOMEM;
	}
	return STEER_OK;
}

void steer_cluster_drop_halo(steer_cluster *c)
{
	for (size_t k = 0; k < c->halo.count; k++)
		(void)steer_vehicle_detach(c->w, c->halo.at[k]);
	c->halo.count = 0;
}

/* Every rank's figures of the tick, to every rank; and whether the regions should be
 * cut again (the same answer everywhere: it is made from the same numbers). */
static steer_status share_figures(steer_cluster *c, bool *recut, char *err, size_t errlen)
{
	steer_cluster_figure mine = c->figures[c->rank];
	int rc = MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, c->figures, (int)sizeof mine,
	                       MPI_BYTE, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Allgather");
	*recut = false;
	c->since_cut++;
	c->since_cut_s += mine.step_s;
	if (c->ranks == 1)
		return STEER_OK;
	if (c->opt.rebalance_ticks && c->since_cut >= c->opt.rebalance_ticks)
		*recut = true;
	for (int r = 0; r < c->ranks; r++)
		c->window_s[r] += c->figures[r].step_s;
	if (++c->window_ticks >= (c->opt.window ? c->opt.window : 1)) {
		double most = 0.0, sum = 0.0;
		for (int r = 0; r < c->ranks; r++) {
			most = fmax(most, c->window_s[r]);
			sum += c->window_s[r];
			c->window_s[r] = 0.0;
		}
		c->window_ticks = 0;
		double mean = sum / c->ranks;
		if (c->opt.imbalance > 0.0 && mean > 0.0 && most > mean * (1.0 + c->opt.imbalance))
			*recut = true;
	}
	return STEER_OK;
}

steer_status steer_cluster_step(steer_cluster *c, char *err, size_t errlen)
{
	steer_world *w = c->w;
	steer_cluster_figure *me = &c->figures[c->rank];
	steer_cluster_figure cut = *me;
	memset(me, 0, sizeof *me);
	me->cut_moved = cut.cut_moved;
	me->cut_bytes = cut.cut_bytes;
	me->cut_s = cut.cut_s;
	double t0 = MPI_Wtime();
	if (c->broken)
		return steer_cluster_fail(err, errlen, STEER_ERR_INVALID, BROKEN);
	steer_world_survey g;
	steer_status st = survey(c, &g, err, errlen);
	if (st != STEER_OK)
		return st;
	steer_world_survey_set(w, &g);
	double reach = steer_world_reach(w), all_reach = reach;
	/* The bodies' first contacts are found in the flock's grid, among the copies. */
	if (steer_world_config_get(w)->solid)
		reach = fmax(reach, steer_bodies_halo_reach(w));
	if (MPI_Allreduce(&reach, &all_reach, 1, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while agreeing on the reach");
	steer_world_set_reach_limit(w, all_reach);
	find_peers(c, all_reach);
	me->peers = (uint32_t)c->peers;
	me->owned = steer_world_vehicles(w)->count;
#ifndef NDEBUG
	{
		const steer_vehicles *v = steer_world_vehicles(w);
		for (size_t i = 0; i < v->count; i++)
			if (steer_partition_owner(c->part, v->px[i], v->py[i]) != c->rank) {
				fprintf(stderr, "rank %d steps vehicle %u outside its region\n",
				        c->rank, v->id[i]);
				abort();
			}
	}
#endif
	uint64_t bytes = 0;
	st = send_halo(c, all_reach, &bytes, err, errlen);
	steer_id_list want = {0};
	if (st == STEER_OK) {
		st = steer_cluster_agree(c, targets_of(w, &want), err, errlen);
		if (st == STEER_ERR_NOMEM)
			snprintf(err, errlen, "out of memory listing targets");
	}
	if (st == STEER_OK)
		st = steer_cluster_share(c, &want, &bytes, err, errlen);
	steer_id_list_free(&want);
	if (st != STEER_OK) {
		steer_cluster_drop_halo(c);
		return st;
	}
	me->halo = c->halo.count;
	me->halo_bytes = bytes;
	double t1 = MPI_Wtime();
	c->bodies_err[0] = '\0';
	st = steer_world_step(w);
	double t2 = MPI_Wtime();
	steer_cluster_drop_halo(c);
	if (st != STEER_OK)
		snprintf(err, errlen, "%s",
		         c->bodies_err[0] ? c->bodies_err : "out of memory while stepping");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		c->broken = true; /* the other ranks stepped */
	if (st == STEER_OK)
		st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	me->step_s = t2 - t1;
	me->exchange_s = (t1 - t0) + (MPI_Wtime() - t2);
	bool recut = false;
	if (st == STEER_OK)
		st = share_figures(c, &recut, err, errlen);
	if (st == STEER_OK && recut)
		st = steer_cluster_rebalance(c, err, errlen);
	return st;
}

/* --- cutting the regions again ----------------------------------------------------- */

/* The box the tiles span: the bounds, or the vehicles' extent when there are none. */
static steer_status tile_box(steer_cluster *c, double box[4], char *err, size_t errlen)
{
	const steer_world_config *cfg = steer_world_config_get(c->w);
	if (cfg->edges != STEER_EDGE_NONE) {
		box[0] = 0.0;
		box[1] = 0.0;
		box[2] = cfg->width;
		box[3] = cfg->height;
		return STEER_OK;
	}
	const steer_vehicles *v = steer_world_vehicles(c->w);
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, glo[2], ghi[2];
	for (size_t i = 0; i < v->count; i++) {
		lo[0] = fmin(lo[0], v->px[i]);
		lo[1] = fmin(lo[1], v->py[i]);
		hi[0] = fmax(hi[0], v->px[i]);
		hi[1] = fmax(hi[1], v->py[i]);
	}
	if (MPI_Allreduce(lo, glo, 2, MPI_DOUBLE, MPI_MIN, c->comm) != MPI_SUCCESS ||
	    MPI_Allreduce(hi, ghi, 2, MPI_DOUBLE, MPI_MAX, c->comm) != MPI_SUCCESS)
		return steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                          "MPI failed while measuring the world");
	if (!(glo[0] <= ghi[0])) { /* no vehicles at all */
		glo[0] = glo[1] = 0.0;
		ghi[0] = cfg->width;
		ghi[1] = cfg->height;
	}
	box[0] = glo[0];
	box[1] = glo[1];
	box[2] = fmax(ghi[0], glo[0] + 1.0);
	box[3] = fmax(ghi[1], glo[1] + 1.0);
	return STEER_OK;
}

/* Neighbours a vehicle's searches keep at most, for the cost model: beyond it a
 * denser crowd costs little more per vehicle. */
#define NEIGHBOURS_KEPT 16.0

static double tile_cost(double count, double disc)
{
	return count * (1.0 + fmin(count * disc, NEIGHBOURS_KEPT));
}

/* The tile of a vehicle at (px, py). */
static int tile_of(const double box[4], double tw, double th, double px, double py)
{
	int tx = (int)fmin(fmax(floor((px - box[0]) / tw), 0.0), TILES - 1);
	int ty = (int)fmin(fmax(floor((py - box[1]) / th), 0.0), TILES - 1);
	return ty * TILES + tx;
}

/* This rank's region's box and core, after a cut. */
static void take_region(steer_cluster *c)
{
	steer_partition_box(c->part, c->rank, c->mine);
	steer_partition_core(c->part, c->core);
}

steer_status steer_cluster_rebalance(steer_cluster *c, char *err, size_t errlen)
{
	/* The mean over the ticks since the last cut: one tick's time is noisy. */
	double measured = c->since_cut ? c->since_cut_s / c->since_cut : 0.0;
	c->since_cut = 0;
	c->since_cut_s = 0.0;
	double t0 = MPI_Wtime();
	if (c->ranks == 1)
		return STEER_OK;
	double box[4];
	steer_status st = tile_box(c, box, err, errlen);
	if (st != STEER_OK)
		return st;
	/* New bounds of another shape (a command, a scenario) take their own axes. */
	steer_partition_set_box(c->part, box[0], box[1], box[2], box[3]);
	/* A vehicle's cost grows with the neighbours it meets, the count a disc of the
	 * reach holds at its tile's density, up to the few its searches keep (flocking's
	 * max_neighbours, avoidance's avoid_neighbours). The rank's measured time is shared
	 * among its vehicles in that proportion. */
	double tw = (box[2] - box[0]) / TILES, th = (box[3] - box[1]) / TILES;
	double reach = steer_world_reach(c->w);
	double disc = 0.5 * STEER_TAU * reach * reach / (tw * th);
	/* The cut weighs vehicles, not tiles: a crowd within one tile of a large world
	 * (or of one stretched by a far vehicle) is still split. Each point is a vehicle
	 * standing for a run of the storage order around it, which follows the neighbour
	 * grid, so the run lies near it: the point weighs the run's length times its own
	 * cost. */
	const steer_vehicles *v = steer_world_vehicles(c->w);
	size_t n = v->count < TILES * TILES ? v->count : TILES * TILES;
	double *count = calloc(TILES * TILES, sizeof *count);
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
	double *wt = malloc((n ? n : 1) * sizeof *wt);
	if (!count || !x || !y || !wt) {
		st = STEER_ERR_NOMEM;
		snprintf(err, errlen, "out of memory while cutting regions");
	}
	if (st == STEER_OK) {
		for (size_t i = 0; i < v->count; i++)
			count[tile_of(box, tw, th, v->px[i], v->py[i])] += 1.0;
		double model = 0.0;
		for (int t = 0; t < TILES * TILES; t++)
			model += tile_cost(count[t], disc);
		double scale = model > 0.0 && measured > 0.0 ? measured / model : 1.0;
		for (size_t k = 0; k < n; k++) {
			size_t from = k * v->count / n, to = (k + 1) * v->count / n;
			size_t at = from + (to - from) / 2;
			double m = count[tile_of(box, tw, th, v->px[at], v->py[at])];
			x[k] = v->px[at];
			y[k] = v->py[at];
			wt[k] = (double)(to - from) * tile_cost(m, disc) / m * scale;
		}
	}
	st = steer_cluster_agree(c, st, err, errlen);
	/* An empty world keeps its cut: there is nothing to weigh. */
	unsigned long mine = n, points = 0;
	if (st == STEER_OK &&
	    MPI_Allreduce(&mine, &points, 1, MPI_UNSIGNED_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
		st = steer_cluster_fail(err, errlen, STEER_ERR_IO,
		                        "MPI failed while cutting regions");
	if (st == STEER_OK && points > 0)
		st = steer_cluster_agree(c, steer_partition_cut(c->part, n, x, y, wt, err, errlen),
		                         err, errlen);
	free(count);
	free(x);
	free(y);
	free(wt);
	if (st != STEER_OK)
		return st;
	take_region(c);
	c->peers = -1; /* a region may have moved anywhere: through every rank */
	/* What the cut moved is its own figure, not the tick's walkers'. */
	steer_cluster_figure *me = &c->figures[c->rank], before = *me;
	st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	me->cut_moved = me->migrated - before.migrated;
	me->cut_bytes = me->migrate_bytes - before.migrate_bytes;
	me->migrated = before.migrated;
	me->migrate_bytes = before.migrate_bytes;
	me->wide = before.wide;
	me->cut_s = MPI_Wtime() - t0;
	return st;
}

/* --- goto's budget ---------------------------------------------------------------- */

/* A vehicle is this rank's own when it lies in its region: the halo's and the
 * targets' copies lie in others'. */
static bool replan_own(void *ud, const steer_world *w, size_t i)
{
	const steer_cluster *c = ud;
	const steer_vehicles *v = steer_world_vehicles(w);
	return steer_partition_owner(c->part, v->px[i], v->py[i]) == c->rank;
}

/* Every rank's plans under way to every rank; each rank's allowances as one process
 * gives them, over the whole world's plans in their order (steer_goto_allowance). */
static steer_status replan_agree(void *ud, const steer_plan_key *keys, size_t n, uint64_t *allow)
{
	steer_cluster *c = ud;
	steer_status st = n > INT32_MAX / sizeof(steer_plan_key) ? STEER_ERR_LIMIT : STEER_OK;
	int mine = st == STEER_OK ? (int)(n * sizeof(steer_plan_key)) : 0;
	if (MPI_Allgather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, c->comm) != MPI_SUCCESS)
		return STEER_ERR_IO;
	size_t total = 0;
	for (int r = 0; r < c->ranks; r++) {
		c->recv_displs[r] = (int)(total < INT32_MAX ? total : INT32_MAX);
		total += (size_t)c->recv_counts[r];
	}
	if (total > INT32_MAX && st == STEER_OK)
		st = STEER_ERR_LIMIT;
	size_t count = total / sizeof(steer_plan_key);
	steer_plan_key *all = st == STEER_OK ? malloc(count ? total : 1) : NULL;
	if (st == STEER_OK && !all)
		st = STEER_ERR_NOMEM;
	/* Every rank learns of a failure before the gather it would skip. */
	char err[256] = "";
	st = steer_cluster_agree(c, st, err, sizeof err);
	if (st != STEER_OK) {
		free(all);
		return st;
	}
	if (MPI_Allgatherv(keys, mine, MPI_BYTE, all, c->recv_counts, c->recv_displs, MPI_BYTE,
	                   c->comm) != MPI_SUCCESS)
		st = STEER_ERR_IO;
	if (st == STEER_OK) {
		qsort(all, count, sizeof *all, steer_plan_key_cmp);
		/* This rank's plans are in the same order as the merged list. */
		size_t j = 0;
		for (size_t k = 0; k < n; k++) {
			while (j < count && steer_plan_key_cmp(&all[j], &keys[k]) != 0)
				j++;
			allow[k] = j < count ? steer_goto_allowance(&keys[k], j, count) : 0;
		}
	}
	free(all);
	return st;
}

/* A vehicle spawned in bulk at (x, y) is kept by the rank whose region holds it.
 * Every rank sees every vehicle of a spawn: those outside its region's box are
 * another's without a walk of the cut. */
static bool holds_point(void *ud, double x, double y)
{
	const steer_cluster *c = ud;
	const double *m = c->mine;
	if (x < m[0] || x > m[2] || y < m[1] || y > m[3])
		return false;
	return steer_cluster_owner_of(c, x, y) == c->rank;
}

/* --- create --------------------------------------------------------------------------- */

steer_cluster *steer_cluster_create(MPI_Comm comm, steer_world *w, const steer_cluster_options *opt,
                                    char *err, size_t errlen)
{
	steer_cluster *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->w = w;
	c->max_vehicles = steer_world_config_get(w)->max_vehicles;
	c->opt = opt ? *opt : steer_cluster_options_default();
	if (MPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &c->ranks) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot say this process's rank");
		free(c);
		return NULL;
	}
	/* The cluster's own messages travel apart from the caller's. */
	if (MPI_Comm_dup(comm, &c->comm) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI cannot make the cluster's communicator");
		free(c);
		return NULL;
	}
	size_t n = (size_t)c->ranks;
	c->out = calloc(n, sizeof *c->out);
	c->send_counts = calloc(n, sizeof(int));
	c->send_displs = calloc(n, sizeof(int));
	c->recv_counts = calloc(n, sizeof(int));
	c->recv_displs = calloc(n, sizeof(int));
	c->near = calloc(n, sizeof(int));
	c->peer = calloc(n, sizeof *c->peer);
	c->peer_at = calloc(n, sizeof *c->peer_at);
	c->peer_box = calloc(4 * n, sizeof *c->peer_box);
	c->peers = -1;
	c->req = calloc(2 * n, sizeof *c->req);
	c->figures = calloc(n, sizeof *c->figures);
	c->window_s = calloc(n, sizeof *c->window_s);
	steer_status st = STEER_OK;
	if (!c->out || !c->send_counts || !c->send_displs || !c->recv_counts || !c->recv_displs ||
	    !c->near || !c->peer || !c->peer_at || !c->peer_box || !c->req || !c->figures ||
	    !c->window_s) {
		snprintf(err, errlen, "out of memory");
		st = STEER_ERR_NOMEM;
	}
	for (int r = 0; c->out && r < c->ranks; r++)
		steer_pack_init(&c->out[r]);
	st = steer_cluster_agree(c, st, err, errlen);
	if (st == STEER_OK) {
		double box[4];
		st = tile_box(c, box, err, errlen);
		if (st == STEER_OK) {
			c->part = steer_partition_create(comm, box[0], box[1], box[2], box[3], err,
			                                 errlen);
			st = steer_cluster_agree(c, c->part ? STEER_OK : STEER_ERR_IO, err, errlen);
			if (st == STEER_OK)
				take_region(c);
		}
	}
	/* Each rank keeps its region's vehicles, or gets them from rank 0; then the
	 * regions are cut by cost. */
	if (st == STEER_OK && c->opt.whole_on_rank0)
		st = steer_cluster_migrate(c, UINT32_MAX, false, err, errlen);
	else if (st == STEER_OK)
		st = steer_cluster_migrate(c, 0, true, err, errlen);
	if (st == STEER_OK && c->ranks > 1) {
		st = steer_cluster_rebalance(c, err, errlen); /* nothing measured: the model */
		memset(c->figures, 0, n * sizeof *c->figures);
	}
	if (st != STEER_OK) {
		steer_cluster_destroy(c);
		return NULL;
	}
	steer_replan_share share = {replan_own, replan_agree, c};
	steer_world_set_replan_share(w, &share);
	steer_bodies_share bodies = {.part = c->rank,
	                             .parts = c->ranks,
	                             .ud = c,
	                             .own = steer_cluster_bodies_own,
	                             .inside = steer_cluster_bodies_inside,
	                             .reduce = steer_cluster_bodies_reduce,
	                             .allgather = steer_cluster_bodies_allgather,
	                             .gather = steer_cluster_bodies_gather,
	                             .scatter = steer_cluster_bodies_scatter,
	                             .refresh = steer_cluster_bodies_refresh};
	steer_world_set_bodies_share(w, &bodies);
	steer_region_keep keep = {holds_point, c};
	steer_world_set_region_keep(w, &keep);
	return c;
}

void steer_cluster_destroy(steer_cluster *c)
{
	if (!c)
		return;
	/* The world steps by its own figures, and plans alone, again. */
	steer_world_survey_set(c->w, NULL);
	steer_world_set_replan_share(c->w, NULL);
	steer_world_set_bodies_share(c->w, NULL);
	steer_world_set_region_keep(c->w, NULL);
	steer_world_set_reach_limit(c->w, 0.0);
	if (c->part)
		steer_partition_destroy(c->part);
	for (int r = 0; c->out && r < c->ranks; r++)
		steer_pack_free(&c->out[r]);
	free(c->out);
	free(c->send_counts);
	free(c->send_displs);
	free(c->recv_counts);
	free(c->recv_displs);
	free(c->near);
	free(c->peer);
	free(c->peer_at);
	free(c->peer_box);
	free(c->req);
	free(c->send);
	free(c->recv);
	free(c->figures);
	free(c->window_s);
	steer_id_list_free(&c->halo);
	free(c->halo_src);
	MPI_Comm_free(&c->comm);
	free(c);
}
