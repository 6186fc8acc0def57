/* The whole world through one rank's part: commands run on every rank alike, and
 * the world gathered on rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_internal.h"
#include "reserve.h"
#include "scenario.h"

/* Whether the command replaces the whole world (each rank then holds all of it). */
static bool replaces_world(const steer_command *cmd)
{
	const char *name = cmd->entry->name;
	return !strcmp(name, "reset") || !strcmp(name, "scenario");
}

/* A command that steps the world outside the cluster, or reads or writes a save
 * where each rank holds only its part: refused before it runs. */
static bool refused(const steer_command *cmd, steer_reply *out)
{
	const char *name = cmd->entry->name;
	if (!strcmp(name, "step") || !strcmp(name, "rewind") || !strcmp(name, "goto-tick") ||
	    !strcmp(name, "save") || !strcmp(name, "load")) {
		steer_reply_fail(out,
		                 "%s is not available on a world split over MPI ranks yet (save: "
		                 "steer_cluster_gather makes the whole world)",
		                 name);
		return true;
	}
	return false;
}

/* Collective: the whole world's vehicle count. */
static steer_status count_all(steer_cluster *c, size_t *n)
{
	unsigned long mine = steer_world_vehicles(c->w)->count, all = 0;
	if (MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, c->comm) != MPI_SUCCESS)
		return STEER_ERR_IO;
	*n = all;
	return STEER_OK;
}

/* Refuses a spawn past --max-vehicles, counted over the whole world, as one process
 * words it. True when refused (the same on every rank). */
static bool over_limit(steer_cluster *c, const steer_command *cmd, steer_reply *out)
{
	const char *name = cmd->entry->name;
	if (c->max_vehicles == 0 || strcmp(name, "spawn") != 0)
		return false;
	size_t n = 0;
	if (count_all(c, &n) != STEER_OK) {
		steer_reply_fail(out, "MPI failed while counting vehicles");
		return true;
	}
	size_t room = n >= c->max_vehicles ? 0 : c->max_vehicles - n;
	uint32_t count = cmd->sub == 1 ? cmd->count : 1u;
	if (count <= room)
		return false;
	steer_reply_fail(out, "spawning %u would exceed --max-vehicles (%zu; %zu in the world)",
	                 count, c->max_vehicles, n);
	return true;
}

/* Collective: whether every rank's command succeeded alike. A command whose outcome
 * differed between ranks has left their worlds apart, which nothing can mend: the
 * job ends, saying which command. */
static void same_outcome(steer_cluster *c, const char *line, const steer_reply *out)
{
	int ok = out->ok, lo = ok, hi = ok;
	if (MPI_Allreduce(&ok, &lo, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS ||
	    MPI_Allreduce(&ok, &hi, 1, MPI_INT, MPI_MAX, c->comm) != MPI_SUCCESS || lo != hi) {
		fprintf(stderr,
		        "steer: rank %d: the ranks disagree on whether '%s' succeeded (here: %s); "
		        "their worlds now differ, so the job ends\n",
		        c->rank, line, ok ? "yes" : out->error);
		MPI_Abort(c->comm, 70);
	}
}

/* The vehicle with the largest radius here (lowest id among equals), or 0: a resize
 * is refused when some vehicle would not fit, which every rank must see. */
static uint32_t widest(const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	uint32_t id = 0;
	double most = -1.0;
	for (size_t i = 0; i < v->count; i++) {
		double r = steer_vehicle_params_at(w, i)->radius;
		if (r > most || (r == most && v->id[i] < id)) {
			most = r;
			id = v->id[i];
		}
	}
	return id;
}

steer_status steer_cluster_command(steer_cluster *c, steer_session *s, const steer_host *h,
                                   const char *line, steer_reply *out)
{
	steer_command cmd;
	char err[256];
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK)
		return steer_reply_fail(out, "%s", err);
	if (c->broken)
		return steer_reply_fail(out, "%s", BROKEN);
	if (refused(&cmd, out) || over_limit(c, &cmd, out))
		return STEER_ERR_REFUSED;
	/* Copies of the vehicles it names, so that every rank answers as one process
	 * would and every rank forgets a removed vehicle's chasers. */
	steer_id_list named = {0};
	steer_status st = STEER_OK;
	uint32_t ids[3 + STEER_CMD_MAX_FOLLOWERS];
	size_t n = 0;
	ids[n++] = cmd.id;
	ids[n++] = cmd.other;
	for (uint32_t k = 0; k < cmd.nids; k++)
		ids[n++] = cmd.ids[k];
	if (!strcmp(cmd.entry->name, "interpose"))
		ids[n++] = cmd.count; /* B */
	/* The largest radius a world allows depends on its size and its edges. */
	if (!strcmp(cmd.entry->name, "world") && (cmd.has_size || cmd.has_edges))
		ids[n++] = widest(c->w);
	for (size_t k = 0; k < n && st == STEER_OK; k++)
		if (ids[k])
			st = steer_id_list_push(&named, ids[k]);
	uint64_t bytes = 0;
	st = steer_cluster_agree(c, st, err, sizeof err);
	if (st == STEER_OK)
		st = steer_cluster_share(c, &named, &bytes, err, sizeof err);
	steer_id_list_free(&named);
	if (st != STEER_OK) {
		steer_cluster_drop_halo(c);
		return steer_reply_fail(out, "%s", err);
	}
	steer_world_meta before = steer_world_meta_get(c->w);
	st = steer_cmd_exec(&cmd, s, h, out);
	steer_cluster_drop_halo(c);
	bool replaced = replaces_world(&cmd) || steer_world_meta_get(c->w).next_id < before.next_id;
	/* A read's answer is each rank's own (list, stats: the caller's to assemble). */
	if (steer_cmd_writes(&cmd))
		same_outcome(c, line, out);
	steer_status moved = steer_cluster_migrate(c, before.next_id, replaced, err, sizeof err);
	if (moved != STEER_OK)
		return steer_reply_fail(out, "%s", err);
	return st;
}

/* A world with w's bounds, rules, circles, walls and polygons but no vehicles. */
static steer_world *copy_without_vehicles(const steer_world *w, char *err, size_t errlen)
{
	steer_world_config cfg = *steer_world_config_get(w);
	cfg.max_vehicles = 0;
	steer_world *copy = steer_world_create(&cfg);
	if (!copy) {
		snprintf(err, errlen, "out of memory copying the world");
		return NULL;
	}
	size_t n;
	const steer_obstacle *obs = steer_world_obstacles(w, &n);
	steer_status st = STEER_OK;
	uint32_t id = 0;
	for (size_t k = 0; k < n && st == STEER_OK; k++) {
		id = obs[k].id;
		st = steer_obstacle_restore(copy, &obs[k]);
	}
	const steer_wall *walls = steer_world_walls(w, &n);
	for (size_t k = 0; k < n && st == STEER_OK; k++) {
		id = walls[k].id;
		st = steer_wall_restore(copy, &walls[k]);
	}
	if (st != STEER_OK)
		snprintf(err, errlen, "copying the world's geometry: %u: %s", id,
		         steer_status_str(st));
	const steer_polygon *polys = steer_world_polygons(w, &n);
	for (size_t k = 0; k < n && st == STEER_OK; k++)
		st = steer_polygon_restore(copy, &polys[k], err, errlen);
	if (st != STEER_OK) {
		steer_world_destroy(copy);
		return NULL;
	}
	return copy;
}

/* Collective: every rank's vehicles that keep takes (all when keep is NULL; none of
 * rank 0's when skip_root) into c->recv on rank 0, rank r's at c->recv_displs[r]. */
static steer_status gather_packs(steer_cluster *c, steer_cluster_keep_fn keep, void *ud,
                                 bool skip_root, char *err, size_t errlen)
{
	if (c->broken)
		return steer_cluster_fail(err, errlen, STEER_ERR_INVALID, BROKEN);
	steer_pack *p = &c->out[c->rank];
	steer_pack_reset(p);
	const steer_vehicles *v = steer_world_vehicles(c->w);
	steer_status st = STEER_OK;
	for (size_t i = 0; i < v->count && st == STEER_OK && !(skip_root && c->rank == 0); i++)
		if (!keep || keep(c->w, i, ud))
			st = steer_pack_vehicle(p, c->w, i);
	if (st != STEER_OK)
		snprintf(err, errlen, "out of memory while gathering the world");
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	st = p->bytes.len > INT32_MAX
	         ? steer_cluster_fail(err, errlen, STEER_ERR_LIMIT, "a rank's part passed 2 GiB")
	         : STEER_OK;
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	int mine = (int)p->bytes.len;
	int rc = MPI_Gather(&mine, 1, MPI_INT, c->recv_counts, 1, MPI_INT, 0, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Gather");
	size_t total = 0;
	if (c->rank == 0) {
		for (int r = 0; r < c->ranks; r++) {
			c->recv_displs[r] = (int)total;
			total += (size_t)c->recv_counts[r];
		}
		if (total > INT32_MAX)
			st = steer_cluster_fail(err, errlen, STEER_ERR_LIMIT,
			                        "the world passed 2 GiB");
		else if (steer_reserve((void **)&c->recv, &c->recv_cap, total ? total : 1, 1) !=
		         STEER_OK)
			st = steer_cluster_fail(err, errlen, STEER_ERR_NOMEM,
			                        "out of memory gathering the world");
	}
	st = steer_cluster_agree(c, st, err, errlen);
	if (st != STEER_OK)
		return st;
	rc = MPI_Gatherv(p->bytes.data ? p->bytes.data : (uint8_t *)c->recv, mine, MPI_BYTE,
	                 c->recv, c->recv_counts, c->recv_displs, MPI_BYTE, 0, c->comm);
	if (rc != MPI_SUCCESS)
		return steer_cluster_mpi_failed(err, errlen, rc, "Gatherv");
	return STEER_OK;
}

/* Rank 0: the whole world from every rank's vehicles gathered packed and its own
 * world's rules, meta and geometry. */
static steer_status packed_world(const steer_cluster *c, steer_world **out, char *err,
                                 size_t errlen)
{
	*out = NULL;
	steer_world *whole = copy_without_vehicles(c->w, err, errlen);
	steer_status st = whole ? STEER_OK : STEER_ERR_NOMEM;
	for (int r = 0; r < c->ranks && st == STEER_OK; r++)
		st = steer_unpack(whole, c->recv + c->recv_displs[r], (size_t)c->recv_counts[r],
		                  STEER_UNPACK_REFUSE, NULL, err, errlen);
	steer_world_meta meta = steer_world_meta_get(c->w);
	if (st == STEER_OK && steer_world_meta_set(whole, &meta) != STEER_OK)
		st = steer_cluster_fail(err, errlen, STEER_ERR_INVALID,
		                        "the gathered world's ids do not add up");
	if (st == STEER_OK)
		*out = whole;
	else
		steer_world_destroy(whole);
	return st;
}

steer_status steer_cluster_gather(steer_cluster *c, steer_world **out, char *err, size_t errlen)
{
	*out = NULL;
	steer_status st = gather_packs(c, NULL, NULL, false, err, errlen);
	if (st != STEER_OK)
		return st;
	if (c->rank == 0)
		st = packed_world(c, out, err, errlen);
	return steer_cluster_agree(c, st, err, errlen);
}

steer_status steer_cluster_fetch(steer_cluster *c, steer_cluster_keep_fn keep, void *ud, char *err,
                                 size_t errlen)
{
	steer_status st = gather_packs(c, keep, ud, true, err, errlen);
	if (st != STEER_OK || c->rank != 0)
		return st;
	for (int r = 1; r < c->ranks && st == STEER_OK; r++)
		st = steer_unpack(c->w, c->recv + c->recv_displs[r], (size_t)c->recv_counts[r],
		                  STEER_UNPACK_SKIP, &c->halo, err, errlen);
	if (st != STEER_OK)
		steer_cluster_drop_halo(c);
	return st;
}

void steer_cluster_drop_fetched(steer_cluster *c)
{
	steer_cluster_drop_halo(c);
}
