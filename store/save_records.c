/* Reading a save's records into a world: the head (rules, meta, counts), each
 * vehicle, obstacle, wall and polygon, the checks across them; and steer_save_decode. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "save_internal.h"
#include "savefile.h"
#include "world_record.h"

static bool read_config(reader *r, steer_world_config *c)
{
	*c = steer_world_config_default();
	c->max_vehicles = 0;
	const char *edges;
	char msg[128];
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "world") ||
	    !steer_save_key_real(r, "width", true, &c->width) ||
	    !steer_save_key_real(r, "height", true, &c->height) ||
	    !steer_save_expect_word(r, "edges") || !(edges = steer_save_value_for(r, "edges")))
		return false;
	if (steer_edges_parse(edges, &c->edges) != STEER_OK)
		return steer_save_fail(r, "unknown edges '%.40s' (want wrap, bounce or none)",
		                       edges);
	if (!steer_save_key_real(r, "tick_rate", true, &c->tick_rate) ||
	    !steer_save_key_u64(r, "seed", UINT64_MAX, &c->seed))
		return false;
	c->solid = c->contain = false;
	if (r->version >= 2 && (!steer_save_key_onoff(r, "solid", &c->solid) ||
	                        !steer_save_key_onoff(r, "contain", &c->contain)))
		return false;
	if (!steer_save_line_done(r))
		return false;
	if (steer_world_config_check(c, msg, sizeof msg) != STEER_OK)
		return steer_save_fail(r, "%s", msg);
	return true;
}

static bool read_meta(reader *r, steer_world_meta *m)
{
	return steer_save_read_line(r) && steer_save_expect_word(r, "meta") &&
	       steer_save_key_u64(r, "tick", UINT64_MAX, &m->tick) &&
	       steer_save_key_u32(r, "next_id", MAX_ID, &m->next_id) &&
	       steer_save_expect_word(r, "rng_state") &&
	       steer_save_read_hex64(r, "rng_state", &m->rng.state) &&
	       steer_save_expect_word(r, "rng_inc") &&
	       steer_save_read_hex64(r, "rng_inc", &m->rng.inc) && steer_save_line_done(r);
}

/* Walls and polygons came within format version 2: a file without them has none. */
static bool read_counts(reader *r, record_counts *n)
{
	n->walls = n->polygons = 0;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "counts") ||
	    !steer_save_key_u64(r, "vehicles", STEER_SAVE_MAX_RECORDS, &n->vehicles) ||
	    !steer_save_key_u64(r, "obstacles", STEER_SAVE_MAX_RECORDS, &n->obstacles))
		return false;
	if (r->version >= 2 && r->next < r->nfield &&
	    (!steer_save_key_u64(r, "walls", STEER_SAVE_MAX_RECORDS, &n->walls) ||
	     !steer_save_key_u64(r, "polygons", STEER_SAVE_MAX_RECORDS, &n->polygons)))
		return false;
	return steer_save_line_done(r);
}

static bool read_behaviors(reader *r, uint32_t *bits)
{
	char list[MAX_LINE + 1];
	const char *f;
	if (!steer_save_expect_word(r, "behaviors") || !(f = steer_save_value_for(r, "behaviors")))
		return false;
	*bits = 0;
	if (strcmp(f, "none") == 0)
		return true;
	/* Split a copy: the field itself may still be quoted in a message. */
	snprintf(list, sizeof list, "%s", f);
	for (char *name = list, *comma; name; name = comma ? comma + 1 : NULL) {
		comma = strchr(name, ',');
		if (comma)
			*comma = '\0';
		uint32_t bit = steer_behavior_bit(name);
		if (!bit)
			return steer_save_fail(r, "unknown behaviour '%.40s'", name);
		*bits |= bit;
	}
	return true;
}

/* Whether the file holds a vehicle with this id (read so far). */
static bool vehicle_read(const reader *r, const steer_world *w, uint32_t id)
{
	return r->stream ? steer_save_id_read(r, id) : steer_vehicle_index(w, id) >= 0;
}

static bool unused_id(reader *r, const steer_world *w, uint32_t id)
{
	if (id == 0)
		return steer_save_fail(r, "id 0 is not a valid id");
	if (vehicle_read(r, w, id) || steer_obstacle_get(w, id) || steer_wall_get(w, id) ||
	    steer_polygon_get(w, id))
		return steer_save_fail(r, "id %" PRIu32 " is used twice", id);
	if (id > r->max_id)
		r->max_id = id;
	return true;
}

static bool read_vehicle_line(reader *r, const steer_world *w, steer_vehicle_record *v)
{
	return steer_save_read_line(r) && steer_save_expect_word(r, "vehicle") &&
	       steer_save_read_u32(r, "id", MAX_ID, &v->id) && unused_id(r, w, v->id) &&
	       read_behaviors(r, &v->behaviors) && steer_save_key_vec(r, "pos", &v->pos) &&
	       steer_save_key_vec(r, "vel", &v->vel) &&
	       steer_save_key_vec(r, "heading", &v->heading) &&
	       steer_save_key_vec(r, "force", &v->force) &&
	       steer_save_key_real(r, "wander_angle", true, &v->state.wander_angle) &&
	       steer_save_line_done(r);
}

static bool read_targets(reader *r, steer_vehicle_state *s)
{
	return steer_save_read_line(r) && steer_save_expect_word(r, "targets") &&
	       steer_save_key_vec(r, "seek", &s->seek_target) &&
	       steer_save_key_vec(r, "flee", &s->flee_target) &&
	       steer_save_key_vec(r, "arrive", &s->arrive_target) &&
	       steer_save_key_u32(r, "pursue", MAX_ID, &s->pursue_id) &&
	       steer_save_key_u32(r, "evade", MAX_ID, &s->evade_id) && steer_save_line_done(r);
}

/* The group line came with format version 3: before it, no vehicle had one. */
static bool read_group(reader *r, steer_group_state *g)
{
	if (r->version < 3)
		return true;
	return steer_save_read_line(r) && steer_save_expect_word(r, "group") &&
	       steer_save_key_u32(r, "leader", MAX_ID, &g->leader_id) &&
	       steer_save_key_vec(r, "offset", &g->offset) &&
	       steer_save_key_u32(r, "hunter", MAX_ID, &g->hunter_id) &&
	       steer_save_expect_word(r, "between") &&
	       steer_save_read_u32(r, "between", MAX_ID, &g->between[0]) &&
	       steer_save_read_u32(r, "between", MAX_ID, &g->between[1]) && steer_save_line_done(r);
}

static bool read_param(reader *r, steer_params *p, const steer_param_def *d)
{
	const char *text = steer_save_value_for(r, d->name);
	char msg[160];
	double v;
	if (!text)
		return false;
	if (d->type != STEER_PARAM_REAL) {
		/* The shared table's parser, so files and commands spell values alike. */
		if (steer_param_parse(p, d, text, msg, sizeof msg) != STEER_OK)
			return steer_save_fail(r, "%s", msg);
		return true;
	}
	/* Reals by our own parser: any double but NaN, infinity included, because
	 * steer_params_check below is what decides which fields may be infinite. */
	if (!steer_save_parse_real(text, &v))
		return steer_save_fail(r, "bad number '%.40s' for %s", text, d->name);
	steer_param_set(p, d, v);
	return true;
}

/* "params name value ...": a name this build lacks is an error, a name the file
 * lacks keeps its default, so older files still load after a parameter is added. */
static bool read_params(reader *r, uint32_t id, steer_params *p)
{
	const steer_param_def *seen[MAX_FIELDS];
	size_t nseen = 0;
	char msg[160];
	*p = steer_params_default();
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "params"))
		return false;
	for (const char *name; (name = steer_save_next_field(r));) {
		const steer_param_def *d = steer_param_find(name);
		if (!d)
			return steer_save_fail(r, "unknown parameter '%.40s'", name);
		for (size_t k = 0; k < nseen; k++)
			if (seen[k] == d)
				return steer_save_fail(r, "parameter %s is given twice", d->name);
		seen[nseen++] = d;
		if (!read_param(r, p, d))
			return false;
	}
	if (steer_params_check(p, msg, sizeof msg) != STEER_OK)
		return steer_save_fail(r, "vehicle %" PRIu32 ": %s", id, msg);
	return true;
}

/* The path's points go into the reader's own buffer; restore copies them. */
static bool read_path(reader *r, steer_path *path)
{
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "path") ||
	    !steer_save_key_u32(r, "points", STEER_MAX_WAYPOINTS, &path->count) ||
	    !steer_save_key_u32(r, "index", MAX_ID, &path->index) ||
	    !steer_save_expect_word(r, "loop") || !steer_save_read_onoff(r, "loop", &path->loop) ||
	    !steer_save_line_done(r))
		return false;
	if (path->count ? path->index >= path->count : path->index != 0)
		return steer_save_fail(r,
		                       "path index %" PRIu32 " is outside its %" PRIu32 " points",
		                       path->index, path->count);
	for (uint32_t k = 0; k < path->count; k++)
		if (!steer_save_read_line(r) || !steer_save_expect_word(r, "point") ||
		    !steer_save_read_vec(r, "point", &r->points[k]) || !steer_save_line_done(r))
			return false;
	path->points = path->count ? r->points : NULL;
	path->cap = path->count;
	return true;
}

/* goto's state came with format version 3 (its plan under way with 4): an older
 * file's vehicles have none. */
static bool read_goto(reader *r, steer_goto_state *go)
{
	bool fresh = false;
	memset(go, 0, sizeof *go);
	if (r->version < 3)
		return true;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "goto"))
		return false;
	if (r->next < r->nfield && !strcmp(r->field[r->next], "none")) {
		r->next++;
		return steer_save_line_done(r);
	}
	if (!steer_save_key_vec(r, "goal", &go->goal) ||
	    !steer_save_key_vec(r, "from", &go->from) ||
	    !steer_save_key_real(r, "radius", true, &go->radius) ||
	    !steer_save_key_u64(r, "tried", UINT64_MAX, &go->tried) ||
	    !steer_save_key_onoff(r, "reached", &go->reached) ||
	    !steer_save_key_onoff(r, "fresh", &fresh))
		return false;
	/* A plan under way came with version 4. */
	if (r->version >= 4) {
		uint64_t restarts = 0;
		if (!steer_save_key_onoff(r, "plan", &go->planning))
			return false;
		if (go->planning && (!steer_save_key_vec(r, "start", &go->start) ||
		                     !steer_save_key_u64(r, "began", UINT64_MAX, &go->began) ||
		                     !steer_save_key_u64(r, "spent", UINT64_MAX, &go->spent) ||
		                     !steer_save_key_u64(r, "restarts", UINT32_MAX, &restarts)))
			return false;
		go->restarts = (uint32_t)restarts;
	}
	if (!steer_save_line_done(r))
		return false;
	go->epoch = fresh ? STEER_GOTO_FRESH : 0;
	return true;
}

static bool restored(reader *r, steer_status st, const char *what, uint32_t id)
{
	if (st == STEER_OK)
		return true;
	return steer_save_fail(r, "%s %" PRIu32 " could not be restored: %s", what, id,
	                       steer_status_str(st));
}

static bool read_vehicle(reader *r, steer_world *w)
{
	steer_vehicle_record v;
	memset(&v, 0, sizeof v);
	if (!read_vehicle_line(r, w, &v) || !read_targets(r, &v.state) ||
	    !read_group(r, &v.state.group) || !read_params(r, v.id, &v.prm) ||
	    !read_path(r, &v.state.path) || !read_goto(r, &v.state.go))
		return false;
	/* Version 3 keeps the smoothed display heading; older files start it afresh. */
	if (r->version >= 3 && (!steer_save_read_line(r) || !steer_save_expect_word(r, "smooth") ||
	                        !steer_save_key_vec(r, "heading", &v.state.smooth.heading) ||
	                        !steer_save_line_done(r)))
		return false;
	if (r->stream && !steer_save_id_add(r, v.id))
		return false;
	if (r->keep && !r->keep(r->keep_ud, v.pos.x, v.pos.y))
		return true; /* another reader's */
	return restored(r, steer_vehicle_restore(w, &v), "vehicle", v.id);
}

static bool read_obstacle(reader *r, steer_world *w)
{
	steer_obstacle o;
	steer_vec2 p, vel;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "obstacle") ||
	    !steer_save_read_u32(r, "id", MAX_ID, &o.id) || !unused_id(r, w, o.id) ||
	    !steer_save_key_vec(r, "pos", &p) || !steer_save_key_vec(r, "vel", &vel) ||
	    !steer_save_key_real(r, "radius", true, &o.r) || !steer_save_line_done(r))
		return false;
	if (!(o.r > 0.0 && o.r <= STEER_PARAM_MAX))
		return steer_save_fail(
		    r, "obstacle %" PRIu32 ": radius must be greater than 0 and at most %g", o.id,
		    STEER_PARAM_MAX);
	o.x = p.x;
	o.y = p.y;
	o.vx = vel.x;
	o.vy = vel.y;
	return restored(r, steer_obstacle_restore(w, &o), "obstacle", o.id);
}

static bool read_wall(reader *r, steer_world *w)
{
	steer_wall wall;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "wall") ||
	    !steer_save_read_u32(r, "id", MAX_ID, &wall.id) || !unused_id(r, w, wall.id) ||
	    !steer_save_key_vec(r, "a", &wall.a) || !steer_save_key_vec(r, "b", &wall.b) ||
	    !steer_save_line_done(r))
		return false;
	steer_status st = steer_wall_restore(w, &wall);
	if (st == STEER_ERR_INVALID)
		return steer_save_fail(r, "wall %" PRIu32 ": its ends must differ and be within %g",
		                       wall.id, STEER_MAX_COORD);
	return restored(r, st, "wall", wall.id);
}

_Static_assert(STEER_MAX_POLYGON_POINTS <= STEER_MAX_WAYPOINTS,
               "a polygon's points fit the reader's point buffer");

static bool read_polygon(reader *r, steer_world *w)
{
	steer_polygon p;
	if (!steer_save_read_line(r) || !steer_save_expect_word(r, "polygon") ||
	    !steer_save_read_u32(r, "id", MAX_ID, &p.id) || !unused_id(r, w, p.id) ||
	    !steer_save_key_onoff(r, "inside", &p.inside) ||
	    !steer_save_key_u32(r, "points", STEER_MAX_POLYGON_POINTS, &p.count) ||
	    !steer_save_line_done(r))
		return false;
	for (uint32_t k = 0; k < p.count; k++)
		if (!steer_save_read_line(r) || !steer_save_expect_word(r, "point") ||
		    !steer_save_read_vec(r, "point", &r->points[k]) || !steer_save_line_done(r))
			return false;
	p.points = r->points;
	char msg[200];
	steer_status st = steer_polygon_restore(w, &p, msg, sizeof msg);
	if (st == STEER_ERR_INVALID)
		return steer_save_fail(r, "polygon %" PRIu32 ": %s", p.id, msg);
	return restored(r, st, "polygon", p.id);
}

/* The world never lets a pursue/evade id outlive its target, nor point at the
 * pursuer itself; a file that does would attach the chase to whatever later takes
 * that id. */
bool steer_save_check_chase_ids(reader *r, const steer_world *w)
{
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i++) {
		const steer_vehicle_state *st = steer_vehicle_state_at(w, i);
		const steer_group_state *g = &st->group;
		uint32_t ids[6] = {st->pursue_id, st->evade_id,  g->leader_id,
		                   g->hunter_id,  g->between[0], g->between[1]};
		const char *verbs[6] = {"pursues",    "evades",          "follows",
		                        "hides from", "interposes near", "interposes near"};
		if ((g->between[0] == 0) != (g->between[1] == 0) ||
		    (g->between[0] && g->between[0] == g->between[1])) {
			char msg[128];
			snprintf(msg, sizeof msg,
			         "vehicle %" PRIu32 " interposes between %" PRIu32 " and %" PRIu32
			         ": two other vehicles, or none",
			         v->id[i], g->between[0], g->between[1]);
			return steer_save_fail_file(r, msg);
		}
		for (int k = 0; k < 6; k++) {
			if (ids[k] && (ids[k] == v->id[i] || !vehicle_read(r, w, ids[k]))) {
				char msg[128];
				snprintf(msg, sizeof msg,
				         "vehicle %" PRIu32 " %s %" PRIu32
				         ", which is not another vehicle in the file",
				         v->id[i], verbs[k], ids[k]);
				return steer_save_fail_file(r, msg);
			}
		}
	}
	return true;
}

/* Record k of the file: the vehicles first, then obstacles, walls and polygons. */
bool steer_save_read_record(reader *r, steer_world *w, const record_counts *n, uint64_t k)
{
	if (k < n->vehicles)
		return read_vehicle(r, w);
	k -= n->vehicles;
	if (k < n->obstacles)
		return read_obstacle(r, w);
	k -= n->obstacles;
	return k < n->walls ? read_wall(r, w) : read_polygon(r, w);
}

static bool no_more_records(reader *r)
{
	if (r->pos < r->end) {
		r->line++;
		return steer_save_fail(r, "more records than the counts line declares");
	}
	return true;
}

static bool read_records(reader *r, steer_world *w, const record_counts *n)
{
	for (uint64_t k = 0, total = steer_save_records_in(n); k < total; k++)
		if (!steer_save_read_record(r, w, n, k))
			return false;
	return no_more_records(r) && steer_save_check_chase_ids(r, w);
}

/* The meta, and the routes up to date made so with the loaded geometry. */
bool steer_save_finish(reader *r, steer_world *w, const steer_world_meta *m)
{
	/* A world that keeps some vehicles checks next_id against those alone. */
	if (m->next_id > r->max_id && steer_record_finish(w, m) == STEER_OK)
		return true;
	char msg[96];
	snprintf(msg, sizeof msg, "meta: next_id %" PRIu32 " is not above every id in the file",
	         m->next_id);
	return steer_save_fail_file(r, msg);
}

/* Lines 2 to 4: the world's rules, its meta and the counts; the world, empty. */
steer_world *steer_save_read_head(reader *r, uint64_t records, steer_world_meta *meta,
                                  record_counts *n)
{
	steer_world_config cfg;
	if (!read_config(r, &cfg) || !read_meta(r, meta) || !read_counts(r, n))
		return NULL;
	uint64_t total = steer_save_records_in(n);
	if (total != records) {
		steer_save_fail(
		    r, "counts add up to %" PRIu64 " records but the end line says %" PRIu64, total,
		    records);
		return NULL;
	}
	steer_world *w = steer_world_create(&cfg);
	if (!w)
		steer_save_fail_file(r, "out of memory");
	return w;
}

/* Lines 2.. up to the end line: world, meta, counts, then the records. */
static steer_world *read_body(reader *r, uint64_t records)
{
	steer_world_meta meta;
	record_counts n;
	steer_world *w = steer_save_read_head(r, records, &meta, &n);
	if (w && (!read_records(r, w, &n) || !steer_save_finish(r, w, &meta))) {
		steer_world_destroy(w);
		return NULL;
	}
	return w;
}

steer_world *steer_save_decode(const char *buf, size_t len, char *err, size_t errlen)
{
	reader *r = steer_save_reader_new(err, errlen);
	uint64_t records;
	steer_world *w =
	    r && steer_save_open_frame(r, buf, len, &records) ? read_body(r, records) : NULL;
	free(r);
	return w;
}
