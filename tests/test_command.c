/* The command table: parsing every form, clear errors, and execution against a
 * session with an in-memory host. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmdhelp.h"
#include "cmdrun.h"
#include "scenario.h"
#include "steer/command.h"
#include "testutil.h"

static steer_session new_session(void)
{
	steer_session s = {.world = make_world(1000, 600, STEER_EDGE_WRAP, 1)};
	steer_world_set_max_vehicles(s.world, 100);
	return s;
}

/* Runs one line; returns the reply rendered as the text protocol would. */
static char *run(steer_session *s, const steer_host *h, const char *line)
{
	return cmdrun(s, h, line);
}

static void every_entry_is_documented(void)
{
	for (size_t k = 0; k < steer_cmd_count; k++) {
		const steer_cmd_entry *e = &steer_cmd_table[k];
		CHECK(e->help && strlen(e->help) > 10, "%s has no help", e->name);
		CHECK(e->parse && e->exec, "%s has no handler", e->name);
		CHECK(steer_cmd_find(e->name) == e, "%s is listed twice", e->name);
	}
}

static void parses_and_runs_the_grammar(void)
{
	steer_session s = new_session();
	CHECK(!strcmp(run(&s, NULL, "spawn 10 20"), "OK {\"id\":1}"), "spawn");
	CHECK(!strcmp(run(&s, NULL, "spawn 30 40 vx=1 max_speed=5"), "OK {\"id\":2}"), "spawn kv");
	CHECK(!strcmp(run(&s, NULL, "obstacle 500 300 20"), "OK {\"id\":3}"), "obstacle");
	CHECK(!strcmp(run(&s, NULL, "seek 1 5 5"), "OK"), "seek");
	CHECK(!strcmp(run(&s, NULL, "seek 1 off"), "OK"), "seek off");
	CHECK(!strcmp(run(&s, NULL, "pursue 1 2"), "OK"), "pursue");
	CHECK(!strcmp(run(&s, NULL, "waypoint 1 1 1"), "OK {\"waypoints\":1}"), "waypoint");
	CHECK(!strcmp(run(&s, NULL, "path 1 loop on"), "OK"), "path loop");
	CHECK(!strcmp(run(&s, NULL, "step 3"), "OK {\"tick\":3}"), "step");
	CHECK(starts(run(&s, NULL, "spawn flock 5 100 100 30"), "OK {\"ids\":[4,5,6,7,8]}"),
	      "flock");
	CHECK(steer_world_vehicles(s.world)->count == 7, "vehicle count");
	CHECK(!strcmp(run(&s, NULL, "remove 3"), "OK"), "remove obstacle");
	CHECK(!strcmp(run(&s, NULL, "pause"), "OK") && s.paused, "pause");
	CHECK(!strcmp(run(&s, NULL, "resume"), "OK") && !s.paused, "resume");
	CHECK(!strcmp(run(&s, NULL, "world 800 800 bounce"), "OK"), "world");
	CHECK(steer_world_config_get(s.world)->edges == STEER_EDGE_BOUNCE, "edges applied");
	const steer_world_config *wc = steer_world_config_get(s.world);
	CHECK(wc->solid && !wc->contain, "new worlds are solid, not contained");
	CHECK(!strcmp(run(&s, NULL, "world solid off contain on"), "OK") && !wc->solid &&
	          wc->contain && wc->width == 800 && wc->edges == STEER_EDGE_BOUNCE,
	      "rules alone change only the rules");
	CHECK(!strcmp(run(&s, NULL, "world 900 700 wrap solid on"), "OK") && wc->solid &&
	          wc->contain && wc->width == 900 && wc->edges == STEER_EDGE_WRAP,
	      "size, edges and a rule");
	CHECK(starts(run(&s, NULL, "world solid maybe"), "ERR 'maybe' is neither on nor off"),
	      "bad rule value");
	CHECK(starts(run(&s, NULL, "world 900 700 solid"), "ERR solid: give on or off"),
	      "rule without a value");
	CHECK(starts(run(&s, NULL, "world contain on contain off"), "ERR contain: given twice"),
	      "a rule given twice");
	CHECK(strstr(run(&s, NULL, "stats"), "\"solid\":true,\"contain\":true"),
	      "stats shows the rules");
	CHECK(starts(run(&s, NULL, "world 900 700 sticky"), "ERR 'sticky': want W H, then edges"),
	      "unknown word");
	CHECK(!strcmp(run(&s, NULL, "world 800 800 bounce"), "OK") && wc->solid && wc->contain,
	      "rules unchanged when not given");
	/* Alone it reports what it can set, as get does for a vehicle, read-only too. */
	CHECK(starts(run(&s, NULL, "world"),
	             "OK {\"width\":800,\"height\":800,\"edges\":\"bounce\",\"solid\":true,"
	             "\"contain\":true,\"tick_rate\":"),
	      "world alone reports the settings: %s", run(&s, NULL, "world"));
	CHECK(strstr(run(&s, NULL, "world"), "\"seed\":") &&
	          strstr(run(&s, NULL, "world"), "\"dt\":"),
	      "world alone: seed and dt");
	{
		steer_command q;
		char qerr[128];
		CHECK(steer_cmd_parse_line(&q, "world", qerr, sizeof qerr) == STEER_OK &&
		          !steer_cmd_writes(&q),
		      "world alone is a question");
		steer_reply ro;
		steer_reply_init(&ro);
		CHECK(steer_cmd_check_access(&q, false, &ro) == STEER_OK,
		      "world alone on a read-only connection");
		CHECK(steer_cmd_parse_line(&q, "world wrap", qerr, sizeof qerr) == STEER_OK &&
		          steer_cmd_writes(&q) &&
		          steer_cmd_check_access(&q, false, &ro) != STEER_OK,
		      "world with a setting still needs write access");
		steer_reply_free(&ro);
	}
	CHECK(!strcmp(run(&s, NULL, "seed 9"), "OK") && !strcmp(run(&s, NULL, "reset"), "OK"),
	      "reset");
	CHECK(steer_world_vehicles(s.world)->count == 0 && steer_world_tick(s.world) == 0,
	      "reset empties");
	CHECK(!strcmp(run(&s, NULL, "scenario pursuit"), "OK"), "scenario");
	CHECK(steer_world_vehicles(s.world)->count == 3, "pursuit has 3 vehicles");
	CHECK(!strcmp(run(&s, NULL, "save x"), "ERR save is not available here"),
	      "save without host");
	steer_world_destroy(s.world);
}

static void errors_name_the_problem_and_change_nothing(void)
{
	steer_session s = new_session();
	run(&s, NULL, "spawn 1 1");
	const char *bad[][2] = {
	    {"frobnicate", "unknown command 'frobnicate'"},
	    /* a byte-order mark an editor left: named, not invisible */
	    {"\xef\xbb\xbfstats", "command names are ASCII, and byte 1 is 0xef"},
	    {"", "empty command"},
	    {"spawn 1", "usage: spawn"},
	    {"spawn 1e999 1", "not a finite number"},
	    {"spawn 1e-320 1", "'1e-320' is too close to zero"},
	    {"set 1 seek_weight=1e-320", "seek_weight: '1e-320' is too close to zero"},
	    {"set 1 max_speed=-1e999", "not a finite number"},
	    {"spawn 1 2 max_speed=-1", "max_speed must be between 0 and"},
	    {"spawn 1 2 =3", "not key=value"},
	    {"spawn flock 0 1 1 1", "at least one"},
	    {"spawn flock 101 1 1 1", "max-vehicles"},
	    {"obstacle 1 1 0", "greater than 0"},
	    {"obstacle 1 1 1e308", "at most 1e+09"},
	    {"obstacle 1 1 1000000001", "at most 1e+09"},
	    {"get 7", "no vehicle, obstacle, wall or polygon with id 7"},
	    {"get -1", "is negative; a whole number is wanted"},
	    {"step -5", "is negative"},
	    {"step 2x", "not a whole number"},
	    {"get 99999999999", "too large"},
	    {"seek 1 2", "usage"},
	    {"pursue 1 1", "itself"},
	    {"pursue 1 42", "no vehicle with id 42"},
	    {"path 1 sideways", "usage: path"},
	    {"avoid 1 yes", "neither on nor off"},
	    {"polygon 0 0 10 0 10 10 inside extra", "'inside' comes last"},
	    {"polygon 0 0 10 0 10 inside 10", "'inside' comes last"},
	    {"save a/b", "NAME"},
	    {"save .hidden", "NAME"},
	    {"step 100001", "too large"},
	    {"rate 5000", "1..1000"},
	    {"help nonesuch", "no command"},
	    {"spawn 1 2 radius=151",
	     "radius 151 is too large for this wrap world of 1000 x 600: at most 150"},
	    {"spawn flock 2 1 1 1 radius=200", "at most 150"},
	    {"set 1 radius=151", "at most 150"},
	    {"obstacle 1 1 151", "at most 150"},
	};
	char before[1 << 12];
	snprintf(before, sizeof before, "%s", run(&s, NULL, "list"));
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		const char *r = run(&s, NULL, bad[k][0]);
		CHECK(starts(r, "ERR ") && strstr(r, bad[k][1]), "'%s' -> '%s' (want %s)",
		      bad[k][0], r, bad[k][1]);
	}
	CHECK(!strcmp(before, run(&s, NULL, "list")), "a failed command changed the world");
	steer_world_destroy(s.world);
}

/* With no --max-vehicles, a spawn past the ids a world has left is refused before
 * anything is made for it (a billion positions would be 16 GB). */
static void a_spawn_past_the_ids_left_is_refused(void)
{
	steer_session s = new_session();
	steer_world_set_max_vehicles(s.world, 0);
	steer_world_meta m = steer_world_meta_get(s.world);
	m.next_id = 0x80000000u - 10;
	CHECK(steer_world_meta_set(s.world, &m) == STEER_OK, "meta");
	const char *r = run(&s, NULL, "spawn flock 11 100 100 10");
	CHECK(starts(r, "ERR spawning 11 would exceed the ids a world has (10 left)"), "%s", r);
	r = run(&s, NULL, "spawn flock 1000000000 100 100 10");
	CHECK(starts(r, "ERR ") && strstr(r, "ids a world has"), "%s", r);
	r = run(&s, NULL, "spawn flock 10 100 100 10");
	CHECK(starts(r, "OK {\"ids\":[2147483638,"), "%s", r);
	CHECK(steer_vehicles_room(s.world) == 0, "room %zu", steer_vehicles_room(s.world));
	r = run(&s, NULL, "spawn 100 100");
	CHECK(starts(r, "ERR spawning 1 would exceed the ids a world has (0 left)"), "%s", r);
	steer_world_destroy(s.world);
}

/* goto past a bounce world's edges is refused, saying why (the vehicle would press
 * against the edge for ever); inside, and anywhere in a wrap world, it plans. */
static void goto_past_a_bounce_worlds_edge_is_refused(void)
{
	steer_session s = new_session();
	CHECK(!strcmp(run(&s, NULL, "world 1000 600 bounce"), "OK"), "bounce");
	CHECK(starts(run(&s, NULL, "spawn 100 100"), "OK"), "spawn");
	const char *r = run(&s, NULL, "goto 1 5000 -3000");
	CHECK(starts(r, "ERR goto: (5000, -3000) is outside this bounce world"), "%s", r);
	CHECK(!(steer_world_vehicles(s.world)->behaviors[0] & STEER_GOTO), "goto turned on");
	CHECK(starts(run(&s, NULL, "goto 1 900 500"), "OK {\"reached\":true"), "inside");
	CHECK(!strcmp(run(&s, NULL, "world 1000 600 wrap"), "OK"), "wrap");
	CHECK(starts(run(&s, NULL, "goto 1 1100 -50"), "OK {\"reached\":true"), "wrapped");
	steer_world_destroy(s.world);
}

/* A spawn past --max-vehicles names the limit, one vehicle as many. */
static void a_spawn_past_max_vehicles_names_it(void)
{
	steer_session s = new_session();
	steer_world_set_max_vehicles(s.world, 3);
	CHECK(starts(run(&s, NULL, "spawn flock 3 100 100 10"), "OK "), "three fit");
	const char *r = run(&s, NULL, "spawn 100 100");
	CHECK(starts(r, "ERR spawning 1 would exceed --max-vehicles (3; 3 in the world)"), "%s", r);
	r = run(&s, NULL, "spawn flock 2 100 100 10");
	CHECK(starts(r, "ERR spawning 2 would exceed --max-vehicles (3; 3 in the world)"), "%s", r);
	CHECK(steer_world_vehicles(s.world)->count == 3, "the world changed");
	steer_world_destroy(s.world);
}

/* A body wider than the world breaks it (two bodies can never stand apart; in a wrap
 * world a body overlaps its own image): one must fit inside a bounce world, two side
 * by side round a wrap world, and new bounds must keep every body that is there. */
static void bodies_must_fit_the_world(void)
{
	steer_session s = new_session();
	CHECK(!strcmp(run(&s, NULL, "spawn 100 100 radius=150"), "OK {\"id\":1}"), "150 fits");
	const char *r = run(&s, NULL, "world 1000 500");
	CHECK(starts(r, "ERR ") && strstr(r, "radius at most 125") && strstr(r, "unchanged"), "%s",
	      r);
	CHECK(steer_world_config_get(s.world)->height == 600, "the world changed");
	CHECK(!strcmp(run(&s, NULL, "world 1000 600 bounce"), "OK"), "bounce holds 300");
	CHECK(!strcmp(run(&s, NULL, "obstacle 500 300 300"), "OK {\"id\":2}"), "a circle of 300");
	r = run(&s, NULL, "world 1000 600 wrap");
	CHECK(starts(r, "ERR ") && strstr(r, "radius at most 150"), "%s", r);
	steer_params p = steer_params_default();
	p.radius = 301;
	CHECK(steer_vehicle_add(s.world, v2(1, 1), v2(0, 0), &p, NULL) == STEER_ERR_INVALID,
	      "the API takes a body wider than the world");
	CHECK(steer_obstacle_add(s.world, v2(1, 1), v2(0, 0), 301, NULL) == STEER_ERR_INVALID,
	      "the API takes a circle wider than the world");
	CHECK(steer_world_set_bounds(s.world, 1000, 600, STEER_EDGE_NONE) == STEER_OK &&
	          steer_vehicle_add(s.world, v2(1, 1), v2(0, 0), &p, NULL) == STEER_OK,
	      "without edges any radius fits");
	/* A scenario whose circles do not fit a small world is refused, changing nothing. */
	run(&s, NULL, "reset");
	CHECK(!strcmp(run(&s, NULL, "world 50 30"), "OK"), "a small world");
	run(&s, NULL, "spawn 10 10");
	r = run(&s, NULL, "scenario avoid");
	CHECK(starts(r, "ERR scenario avoid does not fit") && strstr(r, "unchanged"), "%s", r);
	CHECK(steer_world_vehicles(s.world)->count == 1, "the failed scenario emptied the world");
	r = run(&s, NULL, "scenario nonesuch");
	CHECK(starts(r, "ERR no scenario 'nonesuch'"), "%s", r);
	steer_world_destroy(s.world);
}

/* One bad key=value fails the whole command: nothing of it is applied. */
static void a_command_is_all_or_nothing(void)
{
	steer_session s = new_session();
	CHECK(!strcmp(run(&s, NULL, "spawn 10 10 vx=1 vy=2"), "OK {\"id\":1}"), "spawn");
	char before[1 << 12];
	snprintf(before, sizeof before, "%s", run(&s, NULL, "get 1"));
	const char *bad[] = {
	    "set 1 vx=1e308 mass=5",     "set 1 mass=5 vx=1e308", "set 1 mass=5 vy=-2e12",
	    "set 1 mass=5 max_speed=-1", "set 1 vx=3 mass=0",
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		const char *r = run(&s, NULL, bad[k]);
		CHECK(starts(r, "ERR "), "'%s' -> '%s'", bad[k], r);
		CHECK(!strcmp(before, run(&s, NULL, "get 1")), "'%s' changed the vehicle: %s",
		      bad[k], run(&s, NULL, "get 1"));
	}
	/* vx/vy cannot apply to a flock (each flocker gets a random heading): refused,
	 * not ignored. */
	const char *r = run(&s, NULL, "spawn flock 3 100 100 10 vx=5");
	CHECK(starts(r, "ERR ") && strstr(r, "vx"), "spawn flock vx=5 -> %s", r);
	r = run(&s, NULL, "spawn 1 1 vx=1e308 mass=5");
	CHECK(starts(r, "ERR ") && strstr(r, "vx"), "spawn vx=1e308 -> %s", r);
	r = run(&s, NULL, "obstacle 1 1 5 vy=1e300");
	CHECK(starts(r, "ERR ") && strstr(r, "vy"), "obstacle vy=1e300 -> %s", r);
	CHECK(steer_world_vehicles(s.world)->count == 1, "a failed spawn added vehicles");
	size_t nobs = 9;
	steer_world_obstacles(s.world, &nobs);
	CHECK(nobs == 0, "a failed obstacle was added");
	steer_world_destroy(s.world);
}

/* An in-memory host: one save slot. */
typedef struct mem_host {
	char *data;
	size_t len;
	int stats_calls;
} mem_host;

static steer_status mem_save(void *ud, const char *name, const char *data, size_t len, char *err,
                             size_t n)
{
	mem_host *m = ud;
	(void)name, (void)err, (void)n;
	free(m->data);
	m->data = malloc(len);
	memcpy(m->data, data, len);
	m->len = len;
	return STEER_OK;
}

static steer_status mem_load(void *ud, const char *name, char **data, size_t *len, char *err,
                             size_t n)
{
	mem_host *m = ud;
	if (!m->data || strcmp(name, "slot")) {
		snprintf(err, n, "no save named %s", name);
		return STEER_ERR_NOENT;
	}
	*data = malloc(m->len);
	memcpy(*data, m->data, m->len);
	*len = m->len;
	return STEER_OK;
}

static void mem_stats(void *ud, steer_strbuf *json)
{
	mem_host *m = ud;
	m->stats_calls++;
	steer_strbuf_puts(json, ",\"clients\":0");
}

static void save_load_and_host_hooks(void)
{
	steer_session s = new_session();
	mem_host m = {0};
	steer_host h = {.ud = &m, .save = mem_save, .load = mem_load, .stats = mem_stats};
	run(&s, &h, "scenario flock");
	run(&s, &h, "step 10");
	/* The host's choices of speed stay with the session across a load. */
	CHECK(steer_world_set_threads(s.world, 3) == STEER_OK, "threads");
	steer_world_set_simd(s.world, STEER_SIMD_SCALAR);
	CHECK(starts(run(&s, &h, "save slot"), "OK {\"bytes\":"), "save");
	char saved[1 << 16];
	snprintf(saved, sizeof saved, "%s", run(&s, &h, "list"));
	run(&s, &h, "step 10");
	CHECK(starts(run(&s, &h, "load slot"), "OK {\"tick\":10"), "load");
	CHECK(!strcmp(saved, run(&s, &h, "list")), "loaded world differs");
	CHECK(steer_world_threads(s.world) == 3 && steer_world_simd(s.world) == STEER_SIMD_SCALAR,
	      "a load dropped the host's threads or SIMD cap");
	CHECK(starts(run(&s, &h, "load other"), "ERR load other: no save named other"),
	      "missing save");
	/* A corrupted save is refused and the world stays. */
	m.data[m.len / 2] ^= 0x55;
	CHECK(strstr(run(&s, &h, "load slot"), "unchanged") != NULL, "corrupt save accepted");
	CHECK(!strcmp(saved, run(&s, &h, "list")), "a failed load changed the world");
	CHECK(strstr(run(&s, &h, "stats"), "\"clients\":0}") && m.stats_calls == 1, "stats hook");
	steer_command cmd;
	char err[64];
	steer_reply r;
	steer_reply_init(&r);
	steer_cmd_parse_line(&cmd, "quit", err, sizeof err);
	steer_cmd_exec(&cmd, &s, &h, &r);
	CHECK(r.ok && r.close, "quit should ask to close");
	steer_reply_free(&r);
	free(m.data);
	steer_world_destroy(s.world);
}

static steer_status auth_ok(void *ud, void *caller, const char *token, char *err, size_t errlen)
{
	(void)ud;
	if (strcmp(token, "sesame") != 0) {
		snprintf(err, errlen, "wrong token");
		return STEER_ERR_ACCESS;
	}
	*(bool *)caller = true;
	return STEER_OK;
}

static void read_only_callers_are_refused_writes(void)
{
	steer_session s = new_session();
	bool may_write = false;
	steer_host h = {.auth = auth_ok, .caller = &may_write};
	const char *lines[] = {"spawn 1 1", "save x", "pause", "list", "stats", "help"};
	for (size_t k = 0; k < 6; k++) {
		steer_command cmd;
		char err[128];
		steer_reply r;
		steer_reply_init(&r);
		CHECK(steer_cmd_parse_line(&cmd, lines[k], err, sizeof err) == STEER_OK, "%s",
		      lines[k]);
		steer_status rc = steer_cmd_check_access(&cmd, may_write, &r);
		bool writes = k < 3;
		CHECK(writes ? rc == STEER_ERR_ACCESS && !r.ok && strstr(r.error, "read-only")
		             : rc == STEER_OK,
		      "'%s' access check gave %s: %s", lines[k], steer_status_str(rc), r.error);
		steer_reply_free(&r);
	}
	CHECK(starts(run(&s, &h, "auth wrong"), "ERR wrong token") && !may_write, "wrong token");
	CHECK(!strcmp(run(&s, &h, "auth sesame"), "OK {\"access\":\"write\"}") && may_write,
	      "right token");
	CHECK(starts(run(&s, NULL, "auth x"), "ERR this server takes no token"),
	      "auth without tokens");
	steer_world_destroy(s.world);
}

static steer_status list_saves(void *ud, steer_strbuf *json, char *err, size_t errlen)
{
	(void)ud;
	(void)err, (void)errlen;
	steer_strbuf_puts(json, "{\"saves\":[]}");
	return STEER_OK;
}

static steer_status refuse_saves(void *ud, steer_strbuf *json, char *err, size_t errlen)
{
	(void)ud;
	steer_strbuf_puts(json, "{\"half"); /* a host that fails midway */
	snprintf(err, errlen, "cannot read it");
	return STEER_ERR_IO;
}

static steer_status keep_name(void *ud, void *caller, const char *name, char *err, size_t errlen)
{
	(void)ud, (void)err, (void)errlen;
	snprintf(caller, STEER_NAME_MAX + 1, "%s", name);
	return STEER_OK;
}

static void list_name_and_clients_go_through_the_host(void)
{
	steer_session s = new_session();
	char name[STEER_NAME_MAX + 1] = "";
	steer_host h = {.saves = list_saves, .set_name = keep_name, .caller = name};
	CHECK(!strcmp(run(&s, &h, "saves"), "OK {\"saves\":[]}"), "saves");
	CHECK(!strcmp(run(&s, &h, "name bob@lab"), "OK") && !strcmp(name, "bob@lab"), "name");
	const char *bad[] = {"name", "name a b", "name caf\xc3\xa9", "saves x", "clients x"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		CHECK(starts(run(&s, &h, bad[k]), "ERR"), "'%s' accepted", bad[k]);
	char long_name[80];
	memset(long_name, 'n', 65);
	long_name[65] = '\0';
	char line[100];
	snprintf(line, sizeof line, "name %s", long_name);
	CHECK(starts(run(&s, &h, line), "ERR NAME:"), "65 characters accepted");
	CHECK(starts(run(&s, &h, "clients"), "ERR clients is not available"), "no clients hook");
	CHECK(starts(run(&s, NULL, "saves"), "ERR saves is not available"), "no host");
	h.saves = refuse_saves;
	CHECK(!strcmp(run(&s, &h, "saves"), "ERR saves: cannot read it"), "a failing host");
	CHECK(steer_client_name_ok("steer-tui") && !steer_client_name_ok("") &&
	          !steer_client_name_ok("a\tb"),
	      "client names");
	steer_world_destroy(s.world);
}

static void error_text_is_one_line(void)
{
	steer_session s = new_session();
	char line[128];
	snprintf(line, sizeof line, "spawn 1 2 max_speed=1%c2", '\r');
	const char *r = run(&s, NULL, line);
	CHECK(starts(r, "ERR") && !strchr(r, '\n') && !strchr(r, '\r'), "multi-line error: %s", r);
	/* An escape sequence quoted back would recolour the user's terminal. */
	r = run(&s, NULL, "x\033[31mRED");
	CHECK(starts(r, "ERR") && !strchr(r, '\033') && strstr(r, "control byte (byte 0x1b at 2)"),
	      "escape: %s", r);
	/* A C1 control (the one-byte CSI, as UTF-8) is no word's control byte, and the
	 * unknown name is quoted escaped. */
	r = run(&s, NULL,
	        "x\xc2\x9b"
	        "31mRED");
	CHECK(starts(r, "ERR unknown command") && !strstr(r, "\xc2\x9b") && strstr(r, "31mRED"),
	      "C1 escape: %s", r);
	r = run(&s, NULL, "seek 1 2 \033[2J");
	CHECK(starts(r, "ERR") && !strchr(r, '\033'), "escape in an argument: %s", r);
	steer_world_destroy(s.world);
}

/* stats' flock figures are kept for the tick, but a command that changes the world
 * between ticks (paused, so the tick stays) shows at once. */
static void stats_flock_figures_follow_commands(void)
{
	steer_session s = new_session();
	run(&s, NULL, "pause");
	run(&s, NULL, "spawn 10 20 vx=30");
	run(&s, NULL, "spawn 50 20 vx=10");
	run(&s, NULL, "flock 1 on");
	CHECK(strstr(run(&s, NULL, "stats"), "\"flockers\":1,\"flock_mean_speed\":30,"),
	      "one flocker: %s", run(&s, NULL, "stats"));
	run(&s, NULL, "flock 2 on");
	CHECK(strstr(run(&s, NULL, "stats"), "\"flockers\":2,\"flock_mean_speed\":20,"),
	      "two flockers, same tick: %s", run(&s, NULL, "stats"));
	run(&s, NULL, "remove 1");
	CHECK(strstr(run(&s, NULL, "stats"), "\"flockers\":1,\"flock_mean_speed\":10,"),
	      "after remove: %s", run(&s, NULL, "stats"));
	steer_world_destroy(s.world);
}

/* The help every client shows: a row per command, the descriptions in one column, the
 * client's own commands after the table's; one command with its keys. */
static void help_text_lays_out_the_table(void)
{
	static const steer_cmd_about mine[] = {{"select", "ID", "select a vehicle"}};
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_cmdhelp_list(&b, mine, 1, 0);
	CHECK(!b.oom && b.data, "built");
	const char *pause = strstr(b.data, "\n  pause "), *stats = strstr(b.data, "\n  stats ");
	CHECK(pause && stats, "rows for pause and stats");
	if (pause && stats)
		CHECK(strstr(pause, "stop the clock") - pause ==
		          strstr(stats, "tick, counts") - stats,
		      "descriptions in one column");
	const char *sel = strstr(b.data, "\n  select ID ");
	CHECK(sel && strstr(sel, "select a vehicle\n") && sel > strstr(b.data, "\n  quit"),
	      "the client's own command, after the table's");
	CHECK(strstr(b.data, "\nscenarios: seek ") != NULL, "the scenarios");
	for (size_t k = 0; k < steer_cmd_count; k++)
		CHECK(strstr(b.data, steer_cmd_table[k].help), "%s missing",
		      steer_cmd_table[k].name);
	/* What a server over MPI ranks refuses says so where it is listed. */
	const char *no_history[] = {"rewind", "goto-tick"};
	for (size_t k = 0; k < 2; k++)
		CHECK(strstr(steer_cmd_find(no_history[k])->help, "over MPI ranks refuses it"),
		      "%s's help does not say ranks refuse it", no_history[k]);

	steer_strbuf_clear(&b);
	CHECK(steer_cmdhelp_one(&b, "set", NULL, 0, 0) == STEER_OK, "help set");
	CHECK(starts(b.data, "usage: set ID key=value ...\n  change"), "%s", b.data);
	CHECK(strstr(b.data, "\n  vx ") && strstr(b.data, "\n  max_speed ") &&
	          strstr(b.data, "\n  separation_weight  "),
	      "the keys: %s", b.data);
	steer_strbuf_clear(&b);
	CHECK(steer_cmdhelp_one(&b, "select", mine, 1, 0) == STEER_OK &&
	          !strcmp(b.data, "usage: select ID\n  select a vehicle\n"),
	      "a client's own: %s", b.data);
	steer_strbuf_clear(&b);
	CHECK(steer_cmdhelp_one(&b, "nosuch", mine, 1, 0) == STEER_ERR_NOENT && b.len == 0,
	      "no such command");
	/* With a width, long descriptions go on below, under their own column. */
	for (int one = 0; one < 2; one++) {
		steer_strbuf_clear(&b);
		if (one)
			steer_cmdhelp_one(&b, "set", NULL, 0, 70);
		else
			steer_cmdhelp_list(&b, NULL, 0, 70);
		const char *row = strstr(b.data, one ? "\n  panic_distance " : "\n  set ID ");
		const char *desc = row ? strstr(row, one ? "flee/evade" : "change a") : NULL;
		const char *next = desc ? strchr(desc, '\n') : NULL;
		size_t col = desc ? (size_t)(desc - row - 1) : 0;
		CHECK(next && strspn(next + 1, " ") == col && next[col + 1] != ' ',
		      "goes on under column %zu: %s", col, b.data);
		for (const char *line = b.data; *line;) {
			size_t n = strcspn(line, "\n");
			CHECK(n <= 70, "wider than 70: %.*s", (int)n, line);
			line += n + (line[n] == '\n');
		}
	}
	size_t n = 0;
	while (steer_cmdhelp_key(n, NULL))
		n++;
	CHECK(n == steer_param_count + 2, "vx, vy and every parameter: %zu", n);
	steer_strbuf_free(&b);
}

/* A whole-world list is in id order, whatever order storage is in: after a removal
 * (the last vehicle moves into the hole) and after ticks that re-sort it by position. */
static void list_is_in_id_order(void)
{
	steer_session s = new_session();
	CHECK(starts(run(&s, NULL, "spawn flock 80 500 300 200"), "OK"), "spawn");
	CHECK(starts(run(&s, NULL, "remove 5"), "OK"), "remove");
	CHECK(starts(run(&s, NULL, "step 30"), "OK"), "step");
	char *r = run(&s, NULL, "list");
	long last = 0, n = 0;
	for (const char *p = strstr(r, "{\"id\":"); p; p = strstr(p + 1, "{\"id\":")) {
		long id = strtol(p + 6, NULL, 10);
		CHECK(id > last, "id %ld after %ld in a plain list", id, last);
		last = id;
		n++;
	}
	CHECK(n == 79, "%ld vehicles listed", n);
	steer_world_destroy(s.world);
}

/* One list reply holds at most STEER_LIST_MAX items; past that, list says how to page,
 * and a page holds the vehicles and obstacles from an id on, in id order. */
static void list_pages_a_big_world(void)
{
	steer_session s = new_session();
	steer_world_set_max_vehicles(s.world, STEER_LIST_MAX + 10);
	char line[64];
	snprintf(line, sizeof line, "spawn flock %u 500 300 200", STEER_LIST_MAX);
	CHECK(starts(run(&s, NULL, line), "OK"), "spawn");
	CHECK(starts(run(&s, NULL, "list 0 2"), "OK {\"tick\":0,\"vehicles\":[{\"id\":1,"),
	      "first page");
	CHECK(starts(run(&s, NULL, "list"), "OK"), "a list at the limit");
	CHECK(starts(run(&s, NULL, "obstacle 5 5 1"), "OK"), "obstacle");
	char *r = run(&s, NULL, "list");
	CHECK(starts(r, "ERR list: 10000 vehicles, 1 obstacles, 0 walls and 0 polygons, more than "
	                "the 10000") &&
	          strstr(r, "'list FROM_ID COUNT'") && strstr(r, "'get ID'"),
	      "%s", r);
	r = run(&s, NULL, "list 9999 5");
	CHECK(strstr(r, "\"vehicles\":[{\"id\":9999,") && strstr(r, "},{\"id\":10000,") &&
	          strstr(r, "\"obstacles\":[{\"id\":10001,") && strstr(r, "\"next\":null"),
	      "%.200s", r);
	r = run(&s, NULL, "list 10002 5");
	CHECK(strstr(r, "\"vehicles\":[],\"obstacles\":[]") && strstr(r, "\"next\":null"),
	      "past the end: %.200s", r);
	CHECK(strstr(run(&s, NULL, "list 0 1"), "\"next\":2"), "next: after the last id");
	CHECK(strstr(run(&s, NULL, "list 10000 1"), "\"next\":10001"), "next: an obstacle follows");
	snprintf(line, sizeof line, "list 0 %u", STEER_LIST_MAX + 1);
	CHECK(starts(run(&s, NULL, line), "ERR COUNT"), "a page over the limit");
	/* An empty page's next is its own FROM_ID: a client following next would ask
	 * for it again forever. */
	r = run(&s, NULL, "list 5 0");
	CHECK(starts(r, "ERR COUNT: 0 is too small (at least 1)"), "an empty page: %.200s", r);
	steer_world_destroy(s.world);
}

/* Pages follow ids, not storage: the world re-sorts its vehicles by position as it
 * runs, yet pages taken a tick apart, each from the last one's next, hold every
 * vehicle and obstacle exactly once, gaps left by removals included. */
static void list_pages_by_id_while_the_world_runs(void)
{
	steer_session s = new_session();
	CHECK(starts(run(&s, NULL, "spawn flock 100 500 300 150"), "OK"), "spawn");
	CHECK(starts(run(&s, NULL, "obstacle 50 50 5"), "OK"), "obstacle");
	CHECK(starts(run(&s, NULL, "wall 10 10 20 20"), "OK"), "wall");
	CHECK(starts(run(&s, NULL, "polygon 100 100 120 100 110 120"), "OK"), "polygon");
	CHECK(starts(run(&s, NULL, "remove 7"), "OK") && starts(run(&s, NULL, "remove 8"), "OK"),
	      "remove");
	int seen[104] = {0};
	unsigned long long from = 0;
	int pages = 0;
	for (;;) {
		char line[64];
		snprintf(line, sizeof line, "list %llu 9", from);
		const char *r = run(&s, NULL, line);
		CHECK(starts(r, "OK {"), "%.200s", r);
		for (const char *p = strstr(r, "{\"id\":"); p; p = strstr(p + 1, "{\"id\":")) {
			unsigned long id = strtoul(p + 6, NULL, 10);
			CHECK(id >= from && id <= 103, "id %lu on the page from %llu", id, from);
			seen[id]++;
		}
		const char *next = strstr(r, "\"next\":");
		CHECK(next, "%.200s", r);
		if (starts(next + 7, "null"))
			break;
		from = strtoull(next + 7, NULL, 10);
		CHECK(++pages < 100, "paging does not end");
		CHECK(steer_world_step(s.world) == STEER_OK, "step");
	}
	for (int id = 1; id <= 103; id++)
		CHECK(seen[id] == (id != 7 && id != 8), "id %d listed %d times", id, seen[id]);
	steer_world_destroy(s.world);
}

/* wall and polygon answer with their ids, get and list show them, remove takes them
 * away, and bad shapes are refused with the reason. */
static void walls_and_polygons_by_command(void)
{
	steer_session s = new_session();
	run(&s, NULL, "spawn 500 300");
	char *r = run(&s, NULL, "wall 10 20 30 40");
	CHECK(!strcmp(r, "OK {\"id\":2}"), "%s", r);
	r = run(&s, NULL, "polygon 100 100 200 100 150 180");
	CHECK(!strcmp(r, "OK {\"id\":3}"), "%s", r);
	r = run(&s, NULL, "polygon 5 5 995 5 995 595 5 595 inside");
	CHECK(!strcmp(r, "OK {\"id\":4}"), "%s", r);
	r = run(&s, NULL, "get 2");
	CHECK(!strcmp(r, "OK {\"id\":2,\"x1\":10,\"y1\":20,\"x2\":30,\"y2\":40,\"kind\":\"wall\"}"),
	      "%s", r);
	r = run(&s, NULL, "get 3");
	CHECK(!strcmp(r, "OK {\"id\":3,\"inside\":false,\"points\":[[100,100],[200,100],[150,180]],"
	                 "\"kind\":\"polygon\"}"),
	      "%s", r);
	CHECK(strstr(run(&s, NULL, "get 4"), "\"inside\":true"), "inside");
	r = run(&s, NULL, "list");
	CHECK(strstr(r, "\"walls\":[{\"id\":2,") && strstr(r, "\"polygons\":[{\"id\":3,"), "%s", r);
	CHECK(strstr(run(&s, NULL, "stats"), "\"walls\":1,\"polygons\":2"), "stats");
	const char *bad[][2] = {
	    {"wall 1 1 1 1", "two different ends"},
	    {"wall 1 1 2", "usage: wall"},
	    {"wall 1 1 2 x", "not a number"},
	    {"polygon 1 1 2 2", "usage: polygon"},
	    {"polygon 1 1 2 2 3 3 4", "no Y"},
	    {"polygon 0 0 10 10 10 0 0 10", "cross"},
	    {"polygon 0 0 10 10 20 20", "no area"},
	    {"polygon 0 0 10 0 10 10 5 1e13", "Y: 1e13 is beyond"},
	    {"polygon 990 10 1010 10 1000 30", "outside the world"},
	    {"remove 99", "no vehicle, obstacle, wall or polygon with id 99"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		r = run(&s, NULL, bad[k][0]);
		CHECK(starts(r, "ERR") && strstr(r, bad[k][1]), "%s -> %s", bad[k][0], r);
	}
	/* A round polygon of n points: 127 fit a command, 128 do not. */
	for (int n = 127; n <= 128; n++) {
		char many[4096] = "polygon";
		for (int k = 0; k < n; k++) {
			char pt[48];
			double a = STEER_TAU * k / n;
			snprintf(pt, sizeof pt, " %.3f %.3f", 500 + 100 * cos(a),
			         300 + 100 * sin(a));
			strcat(many, pt);
		}
		r = run(&s, NULL, many);
		if (n == 127)
			CHECK(starts(r, "OK"), "127 points: %s", r);
		else
			CHECK(starts(r, "ERR") && strstr(r, "more than 256 words"),
			      "128 points: %s", r);
	}
	CHECK(starts(run(&s, NULL, "remove 2"), "OK") && starts(run(&s, NULL, "get 2"), "ERR"),
	      "wall removed");
	CHECK(starts(run(&s, NULL, "remove 3"), "OK") && starts(run(&s, NULL, "get 3"), "ERR"),
	      "polygon removed");
	CHECK(!strcmp(run(&s, NULL, "wall 1 1 2 2"), "OK {\"id\":6}"),
	      "ids go on (5: the round polygon)");
	steer_world_destroy(s.world);
}

/* The table's entry points follow status.h: INVALID from parsing, with the message in
 * err; REFUSED from a command that failed, with the message in the reply; the word
 * count from splitting, LIMIT past the maximum. */
static void entry_points_return_status_codes(void)
{
	char line[] = "  spawn\t1  2 ";
	char *words[4];
	int n = -1;
	CHECK(steer_cmd_split(line, words, 4, &n) == STEER_OK && n == 3 &&
	          !strcmp(words[0], "spawn") && !strcmp(words[2], "2"),
	      "split gave %d words", n);
	char blank[] = " \t ";
	CHECK(steer_cmd_split(blank, words, 4, &n) == STEER_OK && n == 0, "blank: %d words", n);
	char many[] = "a b c d e";
	n = -1;
	CHECK(steer_cmd_split(many, words, 4, &n) == STEER_ERR_LIMIT && n == -1,
	      "five words into four: count %d", n);

	steer_command cmd;
	char err[128] = "";
	CHECK(steer_cmd_parse_line(&cmd, "spawn x 1", err, sizeof err) == STEER_ERR_INVALID &&
	          err[0],
	      "a bad number parsed: '%s'", err);
	CHECK(steer_cmd_parse_line(&cmd, "nosuch", err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "unknown command"),
	      "an unknown command parsed: '%s'", err);
	/* A protobuf Call's words are not split: a name with a tab says so, as an
	 * argument with one does (PROTOCOL.md). */
	char name[] = "stats\tx";
	char *call[] = {name};
	CHECK(steer_cmd_parse(&cmd, 1, call, err, sizeof err) == STEER_ERR_INVALID &&
	          strstr(err, "word 1 holds a whitespace byte (byte 0x09 at 6)"),
	      "a name with a tab: '%s'", err);

	steer_session s = new_session();
	steer_reply r;
	steer_reply_init(&r);
	CHECK(steer_cmd_parse_line(&cmd, "remove 99", err, sizeof err) == STEER_OK, "%s", err);
	CHECK(steer_cmd_exec(&cmd, &s, NULL, &r) == STEER_ERR_REFUSED && !r.ok && r.error[0],
	      "removing an unknown id: ok=%d '%s'", r.ok, r.error);
	CHECK(steer_cmd_parse_line(&cmd, "spawn 1 1", err, sizeof err) == STEER_OK, "%s", err);
	CHECK(steer_cmd_exec(&cmd, &s, NULL, &r) == STEER_OK && r.ok, "spawn: '%s'", r.error);
	CHECK(steer_reply_fail(&r, "x") == STEER_ERR_REFUSED && !r.ok, "steer_reply_fail");
	steer_reply_free(&r);
	steer_world_destroy(s.world);

	/* Every code has its own text. */
	for (int a = STEER_OK; a <= STEER_ERR_IO; a++) {
		CHECK(strcmp(steer_status_str((steer_status)a), "unknown error") != 0, "code %d",
		      a);
		for (int b = a + 1; b <= STEER_ERR_IO; b++)
			CHECK(strcmp(steer_status_str((steer_status)a),
			             steer_status_str((steer_status)b)),
			      "codes %d and %d read the same", a, b);
	}
}

int main(void)
{
	RUN(entry_points_return_status_codes);
	RUN(bodies_must_fit_the_world);
	RUN(walls_and_polygons_by_command);
	RUN(list_pages_by_id_while_the_world_runs);
	RUN(list_is_in_id_order);
	RUN(list_pages_a_big_world);
	RUN(every_entry_is_documented);
	RUN(parses_and_runs_the_grammar);
	RUN(errors_name_the_problem_and_change_nothing);
	RUN(a_spawn_past_the_ids_left_is_refused);
	RUN(a_spawn_past_max_vehicles_names_it);
	RUN(goto_past_a_bounce_worlds_edge_is_refused);
	RUN(a_command_is_all_or_nothing);
	RUN(save_load_and_host_hooks);
	RUN(error_text_is_one_line);
	RUN(read_only_callers_are_refused_writes);
	RUN(list_name_and_clients_go_through_the_host);
	RUN(stats_flock_figures_follow_commands);
	RUN(help_text_lays_out_the_table);
	return CHECK_DONE();
}
