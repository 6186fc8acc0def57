/* Save files: exact round trips that continue bit-identically, a canonical encoding,
 * and rejection with a message of every truncated, corrupted or malformed file. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "check.h"
#include "savefile.h"
#include "scenario.h"
#include "testutil.h"

/* --- helpers -------------------------------------------------------------------- */

static char *save(const steer_world *w, size_t *len)
{
	char *buf = NULL;
	if (steer_save_encode(w, &buf, len) != STEER_OK)
		abort();
	return buf;
}

/* An exact-size heap copy, so that reading one byte past the end or relying on a
 * terminator is caught by AddressSanitizer. */
static char *exact_copy(const char *buf, size_t len)
{
	char *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	if (len)
		memcpy(copy, buf, len);
	return copy;
}

/* The same file read in pieces (steer_save_stream, as a load over ranks reads it):
 * a leader (over the bytes, or reading them through a window of `window` bytes)
 * cuts it into pieces of about `piece` bytes of records, and a follower is fed each
 * piece from an exact-size copy; both keep every vehicle. Both must give the whole
 * read's world (by its save's bytes), or its message. */
typedef struct mem_file {
	const char *bytes;
	size_t len;
	/* After this many reads, the bytes become these (a file written meanwhile). */
	unsigned reads, change_after;
	const char *changed;
} mem_file;

/* A source's read, out of memory; a read past the end is a test failure. */
static const char *mem_read(void *ud, uint64_t at, void *buf, size_t n)
{
	mem_file *f = ud;
	if (at > f->len || n > f->len - at)
		return "read past the end";
	if (f->changed && ++f->reads > f->change_after)
		f->bytes = f->changed;
	memcpy(buf, f->bytes + at, n);
	return NULL;
}

static void check_streamed(const char *copy, size_t len, size_t piece, size_t window,
                           const steer_world *whole, const char *want)
{
	char err[512] = "";
	mem_file f = {copy, len, 0, 0, NULL};
	steer_save_source src = {len, mem_read, &f, window};
	steer_save_stream *lead = window ? steer_save_stream_source(&src, err, sizeof err)
	                                 : steer_save_stream_open(copy, len, err, sizeof err);
	steer_world *a = NULL, *b = NULL;
	char lead_err[512], follow_err[512] = "";
	snprintf(lead_err, sizeof lead_err, "%s", err);
	if (lead) {
		unsigned version;
		uint64_t records;
		steer_save_stream_frame(lead, &version, &records);
		steer_save_stream *follow = steer_save_stream_follow(version, records);
		if (!follow)
			abort();
		const char *p;
		size_t n;
		bool ok;
		while ((ok = steer_save_stream_next(lead, piece, &p, &n)) && n) {
			char *part = exact_copy(p, n);
			CHECK(steer_save_stream_feed(follow, part, n),
			      "a follower refused a piece its leader read: %s",
			      steer_save_stream_error(follow));
			free(part);
		}
		a = ok ? steer_save_stream_finish(lead) : NULL;
		b = ok ? steer_save_stream_finish(follow) : NULL;
		snprintf(lead_err, sizeof lead_err, "%s", steer_save_stream_error(lead));
		snprintf(follow_err, sizeof follow_err, "%s", steer_save_stream_error(follow));
		CHECK(!ok || !a == !b, "the leader and its follower disagree: '%s' and '%s'",
		      lead_err, follow_err);
		steer_save_stream_free(follow);
		steer_save_stream_free(lead);
	}
	if (whole) {
		CHECK(a && b, "read whole but not in pieces of %zu: %s", piece, lead_err);
		size_t lw, la, lb;
		char *sw = save(whole, &lw), *sa = a ? save(a, &la) : NULL,
		     *sb = b ? save(b, &lb) : NULL;
		CHECK(!sa || (la == lw && !memcmp(sa, sw, lw)), "the leader read another world");
		CHECK(!sb || (lb == lw && !memcmp(sb, sw, lw)), "the follower read another world");
		free(sw);
		free(sa);
		free(sb);
	} else {
		CHECK(!a && !b, "refused whole ('%s') but read in pieces", want);
		CHECK(!strcmp(lead_err, want), "in pieces: '%s', whole: '%s'", lead_err, want);
		CHECK(!follow_err[0] || !strcmp(follow_err, want), "follower: '%s', whole: '%s'",
		      follow_err, want);
	}
	steer_world_destroy(a);
	steer_world_destroy(b);
}

/* Decodes from an exact-size heap copy; and in pieces, which must agree. */
static steer_world *load(const char *buf, size_t len, char *err, size_t errlen)
{
	static unsigned calls;
	char *copy = exact_copy(buf, len);
	char want[512];
	steer_world *w = steer_save_decode(copy, len, want, sizeof want);
	/* One record a piece, or several; the file in memory, or read through a window
	 * smaller than a line (which grows), or of a few lines. */
	check_streamed(copy, len, calls % 2 ? 1 : 3000, calls % 3 ? 64u << (calls % 3 * 3) : 0, w,
	               want);
	calls++;
	/* want's words cut to the caller's buffer, as steer_save_decode would. */
	size_t n = strlen(want);
	n = n < errlen ? n : errlen - 1;
	memcpy(err, want, n);
	err[n] = '\0';
	free(copy);
	return w;
}

static int differ(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return 1;
}

#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

/* Field by field, never whole structs: padding bytes are not state. */
static int params_differ(const steer_params *a, const steer_params *b, const char **name)
{
	for (size_t k = 0; k < steer_param_count; k++) {
		const steer_param_def *d = &steer_param_defs[k];
		double x = steer_param_get(a, d), y = steer_param_get(b, d);
		if (!SAME(x, y)) {
			*name = d->name;
			return 1;
		}
	}
	return 0;
}

static int records_differ(const steer_vehicle_record *a, const steer_vehicle_record *b, char *why,
                          size_t n)
{
	const steer_vehicle_state *s = &a->state, *t = &b->state;
	const char *name;
	if (a->id != b->id || a->behaviors != b->behaviors)
		return differ(why, n, "vehicle %u: id or behaviours", a->id);
	if (!SAME(a->pos, b->pos) || !SAME(a->vel, b->vel) || !SAME(a->heading, b->heading) ||
	    !SAME(a->force, b->force))
		return differ(why, n, "vehicle %u: pos/vel/heading/force (%a vs %a)", a->id,
		              a->pos.x, b->pos.x);
	if (params_differ(&a->prm, &b->prm, &name))
		return differ(why, n, "vehicle %u: parameter %s", a->id, name);
	if (!SAME(s->seek_target, t->seek_target) || !SAME(s->flee_target, t->flee_target) ||
	    !SAME(s->arrive_target, t->arrive_target) || s->pursue_id != t->pursue_id ||
	    s->evade_id != t->evade_id || !SAME(s->wander_angle, t->wander_angle))
		return differ(why, n, "vehicle %u: targets or wander angle", a->id);
	if (s->path.count != t->path.count || s->path.index != t->path.index ||
	    s->path.loop != t->path.loop ||
	    (s->path.count &&
	     memcmp(s->path.points, t->path.points, s->path.count * sizeof *s->path.points)))
		return differ(why, n, "vehicle %u: path", a->id);
	return 0;
}

static int config_or_meta_differ(const steer_world *a, const steer_world *b, char *why, size_t n)
{
	const steer_world_config *c = steer_world_config_get(a), *d = steer_world_config_get(b);
	steer_world_meta m = steer_world_meta_get(a), k = steer_world_meta_get(b);
	if (!SAME(c->width, d->width) || !SAME(c->height, d->height) || c->edges != d->edges ||
	    !SAME(c->tick_rate, d->tick_rate) || c->seed != d->seed)
		return differ(why, n, "config");
	if (m.tick != k.tick || m.next_id != k.next_id || m.rng.state != k.rng.state ||
	    m.rng.inc != k.rng.inc)
		return differ(why, n, "meta: tick %" PRIu64 " vs %" PRIu64, m.tick, k.tick);
	return 0;
}

static int obstacles_differ(const steer_world *a, const steer_world *b, char *why, size_t n)
{
	size_t na, nb;
	const steer_obstacle *p = steer_world_obstacles(a, &na), *q = steer_world_obstacles(b, &nb);
	if (na != nb)
		return differ(why, n, "obstacle count %zu vs %zu", na, nb);
	for (size_t k = 0; k < na; k++)
		if (p[k].id != q[k].id || !SAME(p[k].x, q[k].x) || !SAME(p[k].y, q[k].y) ||
		    !SAME(p[k].vx, q[k].vx) || !SAME(p[k].vy, q[k].vy) || !SAME(p[k].r, q[k].r))
			return differ(why, n, "obstacle %u", p[k].id);
	return 0;
}

static int geometry_differs(const steer_world *a, const steer_world *b, char *why, size_t n)
{
	size_t na, nb, pa, pb;
	const steer_wall *w = steer_world_walls(a, &na), *x = steer_world_walls(b, &nb);
	const steer_polygon *p = steer_world_polygons(a, &pa), *q = steer_world_polygons(b, &pb);
	const steer_world_config *c = steer_world_config_get(a), *d = steer_world_config_get(b);
	if (c->solid != d->solid || c->contain != d->contain)
		return differ(why, n, "rules");
	if (na != nb || pa != pb)
		return differ(why, n, "walls %zu vs %zu, polygons %zu vs %zu", na, nb, pa, pb);
	for (size_t k = 0; k < na; k++)
		if (w[k].id != x[k].id || memcmp(&w[k].a, &x[k].a, sizeof w[k].a) ||
		    memcmp(&w[k].b, &x[k].b, sizeof w[k].b))
			return differ(why, n, "wall %u", w[k].id);
	for (size_t k = 0; k < pa; k++)
		if (p[k].id != q[k].id || p[k].inside != q[k].inside || p[k].count != q[k].count ||
		    memcmp(p[k].points, q[k].points, p[k].count * sizeof *p[k].points))
			return differ(why, n, "polygon %u", p[k].id);
	return 0;
}

/* 0 when every bit of state matches, vehicle order included; else why is set. */
static int worlds_differ(const steer_world *a, const steer_world *b, char *why, size_t n)
{
	const steer_vehicles *va = steer_world_vehicles(a), *vb = steer_world_vehicles(b);
	if (config_or_meta_differ(a, b, why, n) || obstacles_differ(a, b, why, n) ||
	    geometry_differs(a, b, why, n))
		return 1;
	if (va->count != vb->count)
		return differ(why, n, "vehicle count %zu vs %zu", va->count, vb->count);
	/* A save lists vehicles in id order, so the copy's storage may be in another. */
	for (size_t i = 0; i < va->count; i++) {
		steer_vehicle_record ra, rb;
		long j = steer_vehicle_index(b, va->id[i]);
		if (j < 0)
			return differ(why, n, "vehicle %u missing", va->id[i]);
		steer_vehicle_record_get(a, i, &ra);
		steer_vehicle_record_get(b, (size_t)j, &rb);
		if (records_differ(&ra, &rb, why, n))
			return 1;
	}
	return 0;
}

/* Saves, loads, then runs both on: the copy must track the original bit for bit. */
static void check_round_trip(steer_world *w, const char *label)
{
	char err[256], why[256];
	size_t len;
	char *buf = save(w, &len);
	steer_world *copy = load(buf, len, err, sizeof err);
	free(buf);
	CHECK(copy, "%s: decode failed: %s", label, err);
	if (!copy)
		return;
	CHECK(steer_world_config_get(copy)->max_vehicles == 0, "%s: max_vehicles kept", label);
	CHECK(!worlds_differ(w, copy, why, sizeof why), "%s: loaded world differs: %s", label, why);
	step(w, 500);
	step(copy, 500);
	CHECK(!worlds_differ(w, copy, why, sizeof why), "%s: 500 ticks after loading: %s", label,
	      why);
	steer_world_destroy(copy);
}

static steer_params odd_params(void)
{
	steer_params p = steer_params_default();
	p.mass = 1.5;
	p.max_speed = 90.1;
	p.max_force = 0.1 * 1234.5;
	p.radius = 3.3;
	p.slowing_radius = 77.7;
	p.panic_distance = INFINITY;
	p.wander_distance = 12.25;
	p.wander_radius = 6.1;
	p.wander_range = 0.7;
	p.avoid_distance = 120.9;
	p.avoid_buffer = 7.1;
	p.path_threshold = 25.5;
	p.sight_distance = 90.3;
	p.too_close_distance = 33.3;
	p.separation_weight = 1.7;
	p.cohesion_weight = 0.3;
	p.alignment_weight = 1.1;
	p.cruise_speed = 41.5;
	p.cruise_weight = 0.6;
	p.group = 3;
	p.decel = STEER_DECEL_SLOW;
	p.combine = STEER_COMBINE_PRIORITY;
	p.field_of_view = true;
	return p;
}

static void add_path(steer_world *w, uint32_t id, int n, double cx, double cy, bool loop)
{
	for (int k = 0; k < n; k++)
		steer_vehicle_path_add(w, id, v2(cx + 80 * cos(k * 1.3), cy + 60 * sin(k * 1.3)));
	steer_vehicle_path_loop(w, id, loop);
}

/* Every behaviour, every kind of parameter, paths looping and not, chases, holes in
 * the id sequence and the storage order, moving obstacles. flockers adds boids. */
static steer_world *rich_world(steer_edges edges, int flockers)
{
	steer_world_config c = steer_world_config_default();
	c.width = 700.3;
	c.height = 500.7;
	c.edges = edges;
	c.tick_rate = 50;
	c.seed = 0xfedcba9876543210ULL; /* above 2^53: must not pass through a double */
	c.max_vehicles = 1000;
	steer_world *w = steer_world_create(&c);
	if (!w)
		abort();
	steer_params p = odd_params();
	uint32_t all = add_vehicle(w, 100, 100, 10, -5, &p);
	uint32_t prey = add_vehicle(w, 400, 300, -20, 15, &p);
	uint32_t gone = add_vehicle(w, 300, 200, 0, 0, NULL);
	uint32_t threat = add_vehicle(w, 200, 350, 5, 5, &p);
	steer_vehicle_target(w, all, STEER_SEEK, v2(600, 50.5));
	steer_vehicle_target(w, all, STEER_FLEE, v2(10.25, 400));
	steer_vehicle_target(w, all, STEER_ARRIVE, v2(350, 250));
	steer_vehicle_chase(w, all, STEER_PURSUE, prey);
	steer_vehicle_chase(w, all, STEER_EVADE, threat);
	steer_vehicle_enable(w, all, STEER_WANDER | STEER_AVOID | STEER_FLOCK, true);
	add_path(w, all, 4, 350, 250, true);

	steer_params q = steer_params_default();
	q.decel = STEER_DECEL_FAST;
	q.panic_distance = 150.0;
	q.field_of_view = true;
	add_path(w, prey, 3, 300, 200, false);
	steer_vehicle_target(w, prey, STEER_FLEE, v2(100, 100));
	steer_vehicle_set_params(w, prey, &q);
	steer_vehicle_enable(w, threat, STEER_WANDER | STEER_FLOCK, true);
	/* A chase that is turned off keeps its id; path on with no points at all. */
	steer_vehicle_chase(w, threat, STEER_PURSUE, prey);
	steer_vehicle_enable(w, threat, STEER_PURSUE, false);
	uint32_t idle = add_vehicle(w, 50, 450, 0, 0, NULL);
	steer_vehicle_enable(w, idle, STEER_PATH | STEER_ARRIVE, true);
	/* Only following a loop, so that it is several waypoints in when saved. */
	uint32_t walker = add_vehicle(w, 350, 250, 0, 0, &q);
	add_path(w, walker, 5, 350, 250, true);

	uint32_t ob = 0;
	steer_obstacle_add(w, v2(250, 250), v2(30, -20), 25, NULL);
	steer_obstacle_add(w, v2(500, 100), v2(0, 0), 10, &ob);
	steer_obstacle_add(w, v2(600, 400), v2(-15.5, 3), 40, NULL);
	steer_remove(w, ob);
	steer_remove(w, gone); /* the last vehicle moves into its slot */

	steer_rng *rng = steer_world_rng(w);
	steer_params f = odd_params();
	for (int k = 0; k < flockers; k++) {
		f.group = (uint32_t)(k % 2 ? 3 : 0);
		uint32_t id = add_vehicle(
		    w, steer_rng_range(rng, 0, c.width), steer_rng_range(rng, 0, c.height),
		    steer_rng_range(rng, -40, 40), steer_rng_range(rng, -40, 40), &f);
		steer_vehicle_enable(w, id, STEER_FLOCK | STEER_AVOID, true);
	}
	return w;
}

/* The bytes before the end line. */
static size_t body_len(const char *buf, size_t len)
{
	size_t s = len - 1;
	while (s > 0 && buf[s - 1] != '\n')
		s--;
	return s;
}

/* Appends a valid end line to body, as an editor of a save file would have to: the
 * decoder's parser is then tested, not just its checksum. */
static char *seal(const char *body, size_t n, uint64_t records, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)body[i];
		h *= 0x100000001b3ULL;
	}
	char end[96];
	int e = snprintf(end, sizeof end, "end records %" PRIu64 " fnv1a64 %016" PRIx64 "\n",
	                 records, h);
	char *out = malloc(n + (size_t)e + 1);
	if (!out)
		abort();
	memcpy(out, body, n);
	memcpy(out + n, end, (size_t)e + 1);
	*len = n + (size_t)e;
	return out;
}

static size_t offset_of(const char *text, const char *part)
{
	const char *at = strstr(text, part);
	if (!at)
		abort();
	return (size_t)(at - text);
}

/* The saved file of w with the first `from` replaced by `to`, resealed. */
static char *edited(const steer_world *w, const char *from, const char *to, uint64_t records,
                    size_t *len)
{
	size_t n;
	char *buf;
	/* Not save(): GCC 12 then takes buf for a pointer into save's own frame. */
	if (steer_save_encode(w, &buf, &n) != STEER_OK)
		abort();
	size_t body = body_len(buf, n);
	buf[body] = '\0';
	size_t head = offset_of(buf, from), fl = strlen(from), tl = strlen(to);
	char *mid = malloc(body - fl + tl + 1);
	if (!mid)
		abort();
	memcpy(mid, buf, head);
	memcpy(mid + head, to, tl);
	memcpy(mid + head + tl, buf + head + fl, body - head - fl);
	char *out = seal(mid, body - fl + tl, records, len);
	free(mid);
	free(buf);
	return out;
}

/* Decoding must fail with a message containing want. */
static void check_refused(const char *buf, size_t len, const char *want, const char *label)
{
	char err[256] = "";
	steer_world *w = load(buf, len, err, sizeof err);
	CHECK(!w, "%s: accepted", label);
	CHECK(strstr(err, want), "%s: message '%s' lacks '%s'", label, err, want);
	steer_world_destroy(w);
}

/* --- tests -------------------------------------------------------------------------- */

static void every_scenario_round_trips_bit_for_bit(void)
{
	for (int k = 0; steer_scenario_names[k]; k++) {
		steer_world *w = make_world(800, 600, STEER_EDGE_WRAP, 40 + (uint64_t)k);
		if (steer_scenario_load(w, steer_scenario_names[k]) != STEER_OK)
			abort();
		step(w, 300);
		check_round_trip(w, steer_scenario_names[k]);
		steer_world_destroy(w);
	}
}

static void hand_built_world_round_trips_bit_for_bit(void)
{
	steer_edges kinds[3] = {STEER_EDGE_WRAP, STEER_EDGE_BOUNCE, STEER_EDGE_NONE};
	for (int k = 0; k < 3; k++) {
		steer_world *w = rich_world(kinds[k], 60);
		step(w, 300);
		const steer_vehicle_state *s = steer_vehicle_get(w, 6);
		CHECK(s && s->path.index > 0, "%s: the looping path was not under way",
		      steer_edges_name(kinds[k]));
		check_round_trip(w, steer_edges_name(kinds[k]));
		steer_world_destroy(w);
	}
	/* And a world saved before it ever ticks. */
	steer_world *w = rich_world(STEER_EDGE_WRAP, 5);
	check_round_trip(w, "tick 0");
	steer_world_destroy(w);
}

/* A world split over ranks starts from its shell: every rank must decode the same
 * rules, clock, ids, generator and geometry, and no vehicle. */
static void a_shell_is_the_world_without_its_vehicles(void)
{
	steer_world *w = rich_world(STEER_EDGE_BOUNCE, 40);
	char err[256];
	steer_wall_add(w, v2(0.1, 0.2), v2(300.3, 0.7), NULL);
	steer_vec2 tri[3] = {v2(600, 300), v2(650, 300), v2(620, 350)};
	CHECK(steer_polygon_add(w, tri, 3, false, NULL, err, sizeof err) == STEER_OK, "%s", err);
	step(w, 90);
	char *shell = NULL;
	size_t n = 0;
	CHECK(steer_save_encode_shell(w, &shell, &n) == STEER_OK, "the shell was not encoded");
	steer_world *s = shell ? load(shell, n, err, sizeof err) : NULL;
	CHECK(s, "the shell does not decode: %s", err);
	if (s) {
		CHECK(steer_world_vehicles(s)->count == 0, "the shell holds %zu vehicles",
		      steer_world_vehicles(s)->count);
		steer_world_meta a = steer_world_meta_get(w), b = steer_world_meta_get(s);
		CHECK(a.tick == b.tick && a.next_id == b.next_id && a.rng.state == b.rng.state &&
		          a.rng.inc == b.rng.inc,
		      "the shell's tick, next id or generator differ");
		const steer_world_config *cw = steer_world_config_get(w),
		                         *cs = steer_world_config_get(s);
		CHECK(cw->width == cs->width && cw->height == cs->height &&
		          cw->edges == cs->edges && cw->tick_rate == cs->tick_rate &&
		          cw->seed == cs->seed && cw->solid == cs->solid &&
		          cw->contain == cs->contain,
		      "the shell's rules differ");
		size_t k[2][3];
		const steer_obstacle *o[2] = {steer_world_obstacles(w, &k[0][0]),
		                              steer_world_obstacles(s, &k[1][0])};
		(void)steer_world_walls(w, &k[0][1]);
		(void)steer_world_walls(s, &k[1][1]);
		(void)steer_world_polygons(w, &k[0][2]);
		(void)steer_world_polygons(s, &k[1][2]);
		CHECK(k[0][0] > 0 && k[0][1] > 0 && k[0][2] > 0,
		      "the world has no geometry to test");
		CHECK(memcmp(k[0], k[1], sizeof k[0]) == 0, "the shell's geometry counts differ");
		for (size_t i = 0; k[0][0] == k[1][0] && i < k[0][0]; i++)
			CHECK(o[0][i].id == o[1][i].id && o[0][i].x == o[1][i].x &&
			          o[0][i].y == o[1][i].y && o[0][i].vx == o[1][i].vx &&
			          o[0][i].vy == o[1][i].vy && o[0][i].r == o[1][i].r,
			      "the shell's circle %zu differs", i);
	}
	steer_world_destroy(s);
	free(shell);
	steer_world_destroy(w);
}

static void encoding_is_canonical(void)
{
	steer_world *worlds[2] = {rich_world(STEER_EDGE_BOUNCE, 30),
	                          make_world(800, 600, STEER_EDGE_WRAP, 9)};
	steer_scenario_load(worlds[1], "flock");
	for (int k = 0; k < 2; k++) {
		char err[256];
		step(worlds[k], 120);
		size_t n1, n2;
		char *a = save(worlds[k], &n1);
		steer_world *copy = load(a, n1, err, sizeof err);
		CHECK(copy, "decode: %s", err);
		if (copy) {
			char *b = save(copy, &n2);
			CHECK(n1 == n2 && memcmp(a, b, n1) == 0, "world %d: re-encoding differs",
			      k);
			CHECK(b[n2] == '\0', "encoding is not NUL-terminated");
			free(b);
		}
		steer_world_destroy(copy);
		free(a);
		steer_world_destroy(worlds[k]);
	}
}

static void every_truncation_is_refused(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 2);
	step(w, 30);
	size_t len;
	char *buf = save(w, &len);
	int accepted = 0, silent = 0;
	for (size_t n = 0; n < len; n++) {
		char err[256] = "";
		steer_world *copy = load(buf, n, err, sizeof err);
		accepted += copy != NULL;
		silent += err[0] == '\0';
		steer_world_destroy(copy);
	}
	CHECK(accepted == 0, "%d of %zu truncations accepted", accepted, len);
	CHECK(silent == 0, "%d truncations refused without a message", silent);
	char err[256];
	check_refused(buf, len / 2, "truncated", "half a file");
	/* Appended data is not a truncation: the message names both. */
	char *longer = malloc(len + 6);
	CHECK(longer, "out of memory");
	if (longer) {
		memcpy(longer, buf, len);
		memcpy(longer + len, "junk\n", 6);
		check_refused(longer, len + 5, "data after its end", "appended data");
		free(longer);
	}
	steer_world *whole = load(buf, len, err, sizeof err);
	CHECK(whole, "the whole file was refused: %s", err);
	steer_world_destroy(whole);
	free(buf);
	steer_world_destroy(w);
}

/* FNV-1a cannot miss a single changed byte and the end line is read strictly, so
 * every one-byte corruption must be refused. */
static void every_single_byte_corruption_is_refused(void)
{
	steer_world *w = rich_world(STEER_EDGE_BOUNCE, 2);
	step(w, 30);
	size_t len;
	char *buf = save(w, &len);
	char *bad = malloc(len);
	if (!bad)
		abort();
	steer_rng rng;
	steer_rng_seed(&rng, 77, 1);
	int accepted = 0, silent = 0, tries = 0;
	for (size_t at = 0; at < len; at++) {
		for (int k = 0; k < 3; k++) {
			memcpy(bad, buf, len);
			bad[at] = (char)(buf[at] ^ (1 + steer_rng_u32(&rng) % 255));
			char err[256] = "";
			steer_world *copy = load(bad, len, err, sizeof err);
			accepted += copy != NULL;
			silent += err[0] == '\0';
			tries++;
			steer_world_destroy(copy);
		}
	}
	CHECK(accepted == 0, "%d of %d corruptions accepted", accepted, tries);
	CHECK(silent == 0, "%d corruptions refused without a message", silent);
	/* A typical one says what happened. */
	memcpy(bad, buf, len);
	bad[len / 2] ^= 0x10;
	check_refused(bad, len, "checksum mismatch", "one flipped bit");
	free(bad);
	free(buf);
	steer_world_destroy(w);
}

static void wrong_version_names_both(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 0);
	size_t len;
	char *buf = save(w, &len);
	CHECK(strncmp(buf, "steer-save 4\n", 13) == 0, "first line: %.20s", buf);
	buf[11] = '7';
	check_refused(buf, len, "unsupported format version 7 (this build reads 1 to 4)",
	              "version 7");
	free(buf);
	steer_world_destroy(w);
}

static void world_rules_round_trip(void)
{
	for (int k = 0; k < 4; k++) {
		steer_world *w = rich_world(STEER_EDGE_BOUNCE, 0);
		steer_world_set_solid(w, k & 1);
		steer_world_set_contain(w, k & 2);
		size_t len;
		char *buf = save(w, &len);
		char err[256];
		steer_world *back = load(buf, len, err, sizeof err);
		CHECK(back, "refused: %s", err);
		if (back) {
			const steer_world_config *c = steer_world_config_get(back);
			CHECK(c->solid == (bool)(k & 1) && c->contain == (bool)(k & 2),
			      "saved solid %d contain %d, loaded %d %d", k & 1, !!(k & 2), c->solid,
			      c->contain);
			steer_world_destroy(back);
		}
		free(buf);
		steer_world_destroy(w);
	}
}

static void garbage_is_refused(void)
{
	const char *texts[] = {
	    "",
	    "hello",
	    "\n\n\n",
	    "steer-save",
	    "steer-save \n",
	    "steer-save x\n",
	    "steer-save 1\n",
	    "steer-save 1\nend records 0 fnv1a64 0000000000000000\n",
	    "steer-save 99999999999999999999999999\n",
	    "{\"json\": true}\n",
	};
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
		check_refused(texts[k], strlen(texts[k]), "", texts[k]);
	/* NUL bytes, and random bytes with and without a good first line. */
	char zeros[64] = {0};
	check_refused(zeros, sizeof zeros, "not a Steer save file", "zeros");
	steer_rng rng;
	steer_rng_seed(&rng, 3, 3);
	char junk[2048];
	int accepted = 0, silent = 0;
	for (int t = 0; t < 2000; t++) {
		size_t n = 1 + steer_rng_u32(&rng) % sizeof junk;
		for (size_t i = 0; i < n; i++)
			junk[i] = (char)steer_rng_u32(&rng);
		if (t % 2 && n > 13)
			memcpy(junk, "steer-save 1\n", 13);
		char err[256] = "";
		steer_world *w = load(junk, n, err, sizeof err);
		accepted += w != NULL;
		silent += err[0] == '\0';
		steer_world_destroy(w);
	}
	CHECK(accepted == 0 && silent == 0, "random bytes: %d accepted, %d without a message",
	      accepted, silent);
	/* A tiny or absent error buffer is never overrun. */
	char small[8];
	CHECK(!steer_save_decode("junk", 4, small, sizeof small) && strlen(small) < sizeof small,
	      "small error buffer");
	CHECK(!steer_save_decode("junk", 4, NULL, 0), "no error buffer");
}

/* Files that pass the checksum but are wrong inside: each refusal names the problem.
 * The world has 5 vehicles and 2 obstacles; line 8 is the first params line (after the group line).
 */
static void well_sealed_mistakes_are_named(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 0);
	struct {
		const char *from, *to;
		uint64_t records;
		const char *want;
	} cases[] = {
	    {"params mass", "params warp_factor", 7, "unknown parameter 'warp_factor'"},
	    {"max_speed 0x", "max_speed x 0x", 7, "line 8: bad number 'x' for max_speed"},
	    {"params mass 0x1.8p+0", "params mass 0x1.8p+0 mass 0x1p+0", 7, "given twice"},
	    {"params mass 0x1.8p+0", "params mass -0x1p+0", 7, "mass must be between 1e-06 and"},
	    {"decel slow", "decel sideways", 7, "decel: 'sideways' is not one of"},
	    {"counts vehicles 5", "counts vehicles 10000001", 7, "above the limit of 10000000"},
	    {"path points 4", "path points 4097", 7, "above the limit of 4096"},
	    {"index 0 loop on", "index 9 loop on", 7, "path index 9 is outside its 4 points"},
	    {"vehicle 2 ", "vehicle 1 ", 7, "id 1 is used twice"},
	    {"vehicle 1 behaviors ", "vehicle 1 behaviors warp,", 7, "unknown behaviour 'warp'"},
	    {"pursue 2", "pursue 99", 7, "vehicle 1 pursues 99"},
	    {"pursue 2", "pursue 1", 7, "vehicle 1 pursues 1"},
	    {"pos 0x1.9p+6", "pos inf", 7, "bad number 'inf' for pos"},
	    {"radius 0x1.9p+4", "radius 0x0p+0", 7, "radius must be greater than 0"},
	    {"edges wrap", "edges sideways", 7, "line 2: unknown edges 'sideways'"},
	    {"width 0x", "width -0x", 7, "world size must be between 1 and"},
	    {"next_id 10", "next_id 9", 7, "next_id 9 is not above every id"},
	    {"obstacles 2", "obstacles 1", 6, "more records than the counts line declares"},
	    {"obstacles 2", "obstacles 3", 8, "the file ends early"},
	    {"counts", "counts", 8, "end line says 8"},
	    {"world width", "world \x01width", 7, "line 2: unexpected byte 0x01"},
	    {"meta tick", "meta  tick", 7, ""}, /* extra spaces are harmless */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t len;
		char *buf = edited(w, cases[k].from, cases[k].to, cases[k].records, &len);
		if (cases[k].want[0])
			check_refused(buf, len, cases[k].want, cases[k].to);
		else {
			char err[256];
			steer_world *copy = load(buf, len, err, sizeof err);
			CHECK(copy, "%s: refused: %s", cases[k].to, err);
			steer_world_destroy(copy);
		}
		free(buf);
	}
	steer_world_destroy(w);
}

/* A file written before a parameter existed loads with that parameter's default. */
static void missing_parameter_keeps_its_default(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 0);
	size_t len;
	char *buf = edited(w, " wander_range 0x1.6666666666666p-1", "", 7, &len);
	char err[256];
	steer_world *copy = load(buf, len, err, sizeof err);
	CHECK(copy, "refused: %s", err);
	if (copy) {
		const steer_params *a = steer_vehicle_params(w, 1),
		                   *b = steer_vehicle_params(copy, 1);
		CHECK(a->wander_range == 0.7, "setup: wander_range %g", a->wander_range);
		CHECK(b->wander_range == steer_params_default().wander_range,
		      "missing wander_range became %g", b->wander_range);
		CHECK(b->mass == a->mass && b->group == a->group, "other parameters were lost");
	}
	steer_world_destroy(copy);
	free(buf);
	steer_world_destroy(w);
}

/* Three boids of the flock preset saved by the build before cruise_speed existed
 * (commit 0fa9c48) 30 ticks in, and where that build had them 60 ticks after loading
 * the file. This build loads the file with cruise off (the parameter's default) and
 * so continues exactly as that build did. */
static const char save_before_cruise[] =
    "steer-save 1\n"
    "world width 0x1.9p+8 height 0x1.2cp+8 edges wrap tick_rate 0x1.ep+5 seed 7\n"
    "meta tick 30 next_id 4 rng_state 799f0187fadf3c95 rng_inc 000000000000bddb\n"
    "counts vehicles 3 obstacles 0\n"
    "vehicle 1 behaviors flock pos 0x1.a8b4b0ebe51d9p+6 0x1.8a44bd66a2fa2p+6 vel "
    "0x1.38bbc50d87344p+3 -0x1.b0b7ffd229f99p+2 heading 0x1.a50e4f5c79a8cp-1 -0x1.234ce7d6e9d1fp-1 "
    "force -0x1.53e35e681a14bp+5 -0x1.a5c96fc515cc4p+4 wander_angle 0x0p+0\n"
    "targets seek 0x0p+0 0x0p+0 flee 0x0p+0 0x0p+0 arrive 0x0p+0 0x0p+0 pursue 0 evade 0\n"
    "params mass 0x1p+0 max_speed 0x1.9p+5 max_force 0x1.9p+5 radius 0x1.4p+2 slowing_radius "
    "0x1.9p+6 decel linear panic_distance inf wander_distance 0x1.4p+3 wander_radius 0x1.4p+2 "
    "wander_range 0x1p+0 avoid_distance 0x1.2cp+8 avoid_buffer 0x1.4p+4 path_threshold 0x1.4p+4 "
    "sight_distance 0x1.9p+6 too_close_distance 0x1.ep+4 field_of_view on separation_weight 0x1p+0 "
    "cohesion_weight 0x1.999999999999ap-5 alignment_weight 0x1p+1 group 0 max_neighbours 48 "
    "combine sum\n"
    "path points 0 index 0 loop off\n"
    "vehicle 2 behaviors flock pos 0x1.160000000000cp+7 0x1.9c00000000008p+6 vel 0x1.2p+4 -0x1p+2 "
    "heading 0x1.f3ceca548973bp-1 -0x1.bc46092eb3118p-3 force 0x0p+0 0x0p+0 wander_angle 0x0p+0\n"
    "targets seek 0x0p+0 0x0p+0 flee 0x0p+0 0x0p+0 arrive 0x0p+0 0x0p+0 pursue 0 evade 0\n"
    "params mass 0x1p+0 max_speed 0x1.9p+5 max_force 0x1.9p+5 radius 0x1.4p+2 slowing_radius "
    "0x1.9p+6 decel linear panic_distance inf wander_distance 0x1.4p+3 wander_radius 0x1.4p+2 "
    "wander_range 0x1p+0 avoid_distance 0x1.2cp+8 avoid_buffer 0x1.4p+4 path_threshold 0x1.4p+4 "
    "sight_distance 0x1.9p+6 too_close_distance 0x1.ep+4 field_of_view on separation_weight 0x1p+0 "
    "cohesion_weight 0x1.999999999999ap-5 alignment_weight 0x1p+1 group 0 max_neighbours 48 "
    "combine sum\n"
    "path points 0 index 0 loop off\n"
    "vehicle 3 behaviors flock pos 0x1.e2e999bb7a71dp+6 0x1.ead3ad2918ec3p+6 vel "
    "0x1.bcf26190ff9f9p+2 0x1.bb00aa2e20d51p+2 heading 0x1.6ad49bc669a4fp-1 0x1.693ebf4a34196p-1 "
    "force 0x0p+0 0x0p+0 wander_angle 0x0p+0\n"
    "targets seek 0x0p+0 0x0p+0 flee 0x0p+0 0x0p+0 arrive 0x0p+0 0x0p+0 pursue 0 evade 0\n"
    "params mass 0x1p+0 max_speed 0x1.9p+5 max_force 0x1.9p+5 radius 0x1.4p+2 slowing_radius "
    "0x1.9p+6 decel linear panic_distance inf wander_distance 0x1.4p+3 wander_radius 0x1.4p+2 "
    "wander_range 0x1p+0 avoid_distance 0x1.2cp+8 avoid_buffer 0x1.4p+4 path_threshold 0x1.4p+4 "
    "sight_distance 0x1.9p+6 too_close_distance 0x1.ep+4 field_of_view on separation_weight 0x1p+0 "
    "cohesion_weight 0x1.999999999999ap-5 alignment_weight 0x1p+1 group 0 max_neighbours 48 "
    "combine sum\n"
    "path points 0 index 0 loop off\n"
    "end records 3 fnv1a64 91cffbfdd2744cd8\n";

/* Walls and polygons (solid and containing, in wrap and bounce worlds, one of them
 * beyond a wrap world's shrunken bounds) come back with their ids, bit for bit. */
static void walls_and_polygons_round_trip(void)
{
	for (int e = 0; e < 2; e++) {
		steer_world *w = make_world(800, 600, e ? STEER_EDGE_BOUNCE : STEER_EDGE_WRAP, 5);
		add_vehicle(w, 400, 300, 10, 0, NULL);
		steer_wall_add(w, v2(0.1, 0.2), v2(700.3, 0.7), NULL);
		steer_vec2 tri[3] = {v2(100, 100), v2(200.5, 100), v2(150, 180.25)};
		steer_vec2 room[4] = {v2(10, 10), v2(790, 10), v2(790, 590), v2(10, 590)};
		char err[160];
		CHECK(steer_polygon_add(w, tri, 3, false, NULL, err, sizeof err) == STEER_OK, "%s",
		      err);
		CHECK(steer_polygon_add(w, room, 4, true, NULL, err, sizeof err) == STEER_OK, "%s",
		      err);
		steer_obstacle_add(w, v2(300, 300), v2(5, 0), 9, NULL);
		steer_wall_add(w, v2(5, 5), v2(6, 6), NULL);
		CHECK(steer_world_set_contain(w, true) == STEER_OK, "contain");
		if (!e)
			CHECK(steer_world_set_bounds(w, 500, 400, STEER_EDGE_WRAP) == STEER_OK,
			      "shrink");
		check_round_trip(w, e ? "geometry, bounce" : "geometry, wrap");
		steer_world_destroy(w);
	}
}

/* A version 2 file from before walls (its counts line without them) has none. */
static void a_save_without_walls_loads(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_BOUNCE, 5);
	add_vehicle(w, 400, 300, 10, 0, NULL);
	size_t len;
	char *buf = edited(w, " walls 0 polygons 0", "", 1, &len);
	char err[256];
	steer_world *copy = load(buf, len, err, sizeof err);
	CHECK(copy, "refused: %s", err);
	size_t n = 1;
	if (copy)
		steer_world_walls(copy, &n);
	CHECK(copy && steer_world_vehicles(copy)->count == 1 && n == 0, "loaded");
	steer_world_destroy(copy);
	free(buf);
	steer_world_destroy(w);
}

static void bad_walls_and_polygons_are_refused(void)
{
	steer_world *w = make_world(800, 600, STEER_EDGE_BOUNCE, 5);
	uint32_t v = add_vehicle(w, 400, 300, 10, 0, NULL);
	steer_wall_add(w, v2(1, 2), v2(3, 4), NULL);
	steer_vec2 tri[3] = {v2(100, 100), v2(200, 100), v2(150, 180)};
	char err[160];
	steer_polygon_add(w, tri, 3, false, NULL, err, sizeof err);
	size_t len;
	char *buf = edited(w, "b 0x1.8p+1 0x1p+2", "b 0x1p+0 0x1p+1", 3, &len);
	check_refused(buf, len, "wall 2: its ends must differ", "a wall of one point");
	free(buf);
	char id[32];
	snprintf(id, sizeof id, "wall %u ", v);
	buf = edited(w, "wall 2 ", id, 3, &len);
	check_refused(buf, len, "id 1 is used twice", "a wall with a vehicle's id");
	free(buf);
	buf = edited(w, "point 0x1.2cp+7 0x1.68p+7", "point 0x1.2cp+7 0x1.9p+6", 3, &len);
	check_refused(buf, len, "polygon 3: the polygon has no area", "a flat polygon");
	free(buf);
	buf = edited(w, "points 3", "points 2", 3, &len);
	check_refused(buf, len, "polygon 3: a polygon needs 3", "two points");
	free(buf);
	steer_world_destroy(w);
}

static void a_save_from_before_cruise_continues_as_it_did(void)
{
	static const struct {
		uint32_t id;
		double px, py, vx, vy;
	} then[] = {
	    {1, 0x1.dc2995f683facp+6, 0x1.8970c5ed443ccp+6, 0x1.a58cd5e9cbc43p+3,
	     0x1.4346824f3c8d6p+1},
	    {2, 0x1.3a00000000024p+7, 0x1.8c00000000018p+6, 0x1.2p+4, -0x1p+2},
	    {3, 0x1.feb8bfd48a6c5p+6, 0x1.0341dbe5fd7d1p+7, 0x1.bcf26190ff9f9p+2,
	     0x1.bb00aa2e20d51p+2},
	};
	char err[256];
	steer_world *w = load(save_before_cruise, sizeof save_before_cruise - 1, err, sizeof err);
	CHECK(w, "refused: %s", err);
	if (!w)
		return;
	/* Version 1 knew no world rules: its worlds ran without bodies. */
	CHECK(!steer_world_config_get(w)->solid && !steer_world_config_get(w)->contain,
	      "a version 1 save loaded with solid %d contain %d", steer_world_config_get(w)->solid,
	      steer_world_config_get(w)->contain);
	for (uint32_t id = 1; id <= 3; id++) {
		const steer_params *p = steer_vehicle_params(w, id);
		CHECK(p && p->cruise_speed == 0 && p->cruise_weight == 1,
		      "vehicle %u: cruise_speed %g, cruise_weight %g", id,
		      p ? p->cruise_speed : NAN, p ? p->cruise_weight : NAN);
	}
	step(w, 60);
	for (size_t k = 0; k < sizeof then / sizeof then[0]; k++) {
		steer_vec2 p = pos(w, then[k].id), v = vel(w, then[k].id);
		CHECK(p.x == then[k].px && p.y == then[k].py && v.x == then[k].vx &&
		          v.y == then[k].vy,
		      "vehicle %u at (%a, %a) moving (%a, %a)", then[k].id, p.x, p.y, v.x, v.y);
	}
	steer_world_destroy(w);
}

/* A poor man's fuzzer: random edits, resealed so that they reach the parser. Any
 * outcome but a crash, a leak or a silent refusal is fine; a world that loads must
 * save again. */
static void resealed_random_edits_are_survived(void)
{
	steer_world *w = rich_world(STEER_EDGE_NONE, 1);
	size_t len;
	char *buf = save(w, &len);
	size_t body = body_len(buf, len);
	char *mut = malloc(body + 64);
	if (!mut)
		abort();
	static const char alphabet[] = " \n0123456789abcdefpx+-.,inf";
	steer_rng rng;
	steer_rng_seed(&rng, 11, 2);
	int silent = 0, loaded = 0, resaved = 0;
	for (int t = 0; t < 4000; t++) {
		memcpy(mut, buf, body);
		size_t n = body;
		for (int e = 1 + (int)(steer_rng_u32(&rng) % 3); e > 0; e--) {
			size_t at = steer_rng_u32(&rng) % n;
			uint32_t op = steer_rng_u32(&rng) % 3;
			char c = alphabet[steer_rng_u32(&rng) % (sizeof alphabet - 1)];
			if (op == 0)
				mut[at] = c;
			else if (op == 1 && n > 1)
				memmove(mut + at, mut + at + 1, --n - at);
			else if (n < body + 63) {
				memmove(mut + at + 1, mut + at, n++ - at);
				mut[at] = c;
			}
		}
		size_t sl;
		char *sealed = seal(mut, n, 4, &sl); /* 3 vehicles, 1 obstacle */
		char err[256] = "";
		steer_world *copy = load(sealed, sl, err, sizeof err);
		if (copy) {
			char *again;
			size_t al;
			loaded++;
			if (steer_save_encode(copy, &again, &al) == STEER_OK) {
				resaved++;
				free(again);
			}
		} else {
			silent += err[0] == '\0';
		}
		steer_world_destroy(copy);
		free(sealed);
	}
	CHECK(silent == 0, "%d refusals without a message", silent);
	CHECK(loaded == resaved, "%d loaded worlds could not be saved", loaded - resaved);
	free(mut);
	free(buf);
	steer_world_destroy(w);
}

/* A world without edges never lets anything drift past the bound the loader enforces:
 * what it saves after any number of ticks loads again. */
static void drifting_past_the_bound_still_loads(void)
{
	steer_world_config cfg = steer_world_config_default();
	cfg.edges = STEER_EDGE_NONE;
	steer_world *w = steer_world_create(&cfg);
	steer_params prm = steer_params_default();
	prm.max_speed = 1e9;
	uint32_t id, oid;
	/* Enough of them to fill the four-wide lanes of the vectorised motion too. */
	for (int k = 0; k < 5; k++)
		CHECK(steer_vehicle_add(w, v2(STEER_MAX_COORD - 1 - k, k), v2(1e9, 0), &prm, &id) ==
		          STEER_OK,
		      "spawn");
	CHECK(steer_vehicle_add(w, v2(0, -STEER_MAX_COORD + 1), v2(0, -1e9), &prm, &id) == STEER_OK,
	      "spawn");
	CHECK(steer_obstacle_add(w, v2(-STEER_MAX_COORD + 1, 0), v2(-1e9, 0), 5, &oid) == STEER_OK,
	      "obstacle");
	step(w, 120);
	size_t len;
	char *buf = save(w, &len);
	char err[256] = "";
	steer_world *copy = load(buf, len, err, sizeof err);
	CHECK(copy, "the save after the drift does not load: %s", err);
	const steer_vehicles *v = steer_world_vehicles(w);
	for (size_t i = 0; i < v->count; i++)
		CHECK(fabs(v->px[i]) <= STEER_MAX_COORD && fabs(v->py[i]) <= STEER_MAX_COORD,
		      "vehicle %zu at %g %g", i, v->px[i], v->py[i]);
	steer_world_destroy(copy);
	free(buf);
	steer_world_destroy(w);
}

/* Every save that is written can be loaded: the encoder refuses a file over the limit
 * the decoder enforces. */
static void a_save_over_the_size_limit_is_refused(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 5);
	size_t len;
	char *buf = save(w, &len);
	char *small = NULL;
	size_t slen = 0;
	CHECK(steer_save_encode_max(w, len - 1, &small, &slen) == STEER_ERR_LIMIT,
	      "a save one byte over its limit was produced");
	CHECK(small == NULL, "a refused save returned bytes");
	CHECK(steer_save_encode_max(w, len, &small, &slen) == STEER_OK && slen == len,
	      "a save exactly at its limit was refused");
	free(small);
	free(buf);
	steer_world_destroy(w);
}

/* A file read in pieces through a window is read twice, first for its checksum: one
 * whose bytes change between the two is refused, though each read is whole. */
static void a_file_changed_while_read_is_refused(void)
{
	steer_world *w = rich_world(STEER_EDGE_WRAP, 0);
	size_t len;
	char *buf = save(w, &len);
	char *changed = exact_copy(buf, len);
	char *at = strstr(changed, "max_speed 0x");
	if (!at)
		abort();
	at[strlen("max_speed 0x")] ^= 1; /* another hex digit: still a number */
	/* Reads: the first line, the last, the checksum's (one, through a window bigger
	 * than the file); then the pieces', from the changed bytes. */
	mem_file f = {buf, len, 0, 3, changed};
	steer_save_source src = {len, mem_read, &f, len + 1};
	char err[256] = "";
	steer_save_stream *s = steer_save_stream_source(&src, err, sizeof err);
	CHECK(s, "refused before it changed: %s", err);
	const char *p;
	size_t n;
	bool ok = true;
	while (s && (ok = steer_save_stream_next(s, 1, &p, &n)) && n)
		;
	CHECK(!ok, "a file that changed while it was read was taken");
	CHECK(s && strstr(steer_save_stream_error(s), "the file changed while it was read"),
	      "said: %s", s ? steer_save_stream_error(s) : err);
	steer_save_stream_free(s);
	free(changed);
	free(buf);
	steer_world_destroy(w);
}

int main(void)
{
	RUN(every_scenario_round_trips_bit_for_bit);
	RUN(hand_built_world_round_trips_bit_for_bit);
	RUN(encoding_is_canonical);
	RUN(a_shell_is_the_world_without_its_vehicles);
	RUN(every_truncation_is_refused);
	RUN(every_single_byte_corruption_is_refused);
	RUN(wrong_version_names_both);
	RUN(walls_and_polygons_round_trip);
	RUN(a_save_without_walls_loads);
	RUN(bad_walls_and_polygons_are_refused);
	RUN(world_rules_round_trip);
	RUN(garbage_is_refused);
	RUN(well_sealed_mistakes_are_named);
	RUN(missing_parameter_keeps_its_default);
	RUN(a_save_from_before_cruise_continues_as_it_did);
	RUN(resealed_random_edits_are_survived);
	RUN(drifting_past_the_bound_still_loads);
	RUN(a_save_over_the_size_limit_is_refused);
	RUN(a_file_changed_while_read_is_refused);
	return CHECK_DONE();
}
