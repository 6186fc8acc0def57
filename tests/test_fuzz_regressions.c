/* Replays every input the fuzzers ever broke something with (tests/fuzz/regressions)
 * and every seed (tests/fuzz/corpus) through the fuzz targets' own harness, in a
 * plain build: a fixed bug stays fixed without clang or libFuzzer. A failure aborts
 * with a message naming the file.
 *
 *   test_fuzz_regressions DIR     DIR is tests/fuzz */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "harness_web.h"

static const char *fuzz_dir;

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a whole file into an exact-size buffer (*len bytes, no terminator). */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	/* Shrink to fit, so that ASan builds catch a read past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	if (exact && n)
		memcpy(exact, buf, n);
	free(buf);
	*len = n;
	return exact;
}

/* Runs every file of DIR/kind/target through fn, in name order; returns how many. A
 * missing directory holds nothing (git keeps no empty ones). */
static int replay_dir(const char *kind, const char *target, int (*fn)(const uint8_t *, size_t))
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s/%s", fuzz_dir, kind, target);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof *nn);
			CHECK(nn, "out of memory");
			if (!nn)
				break;
			names = nn;
		}
		size_t len = strlen(e->d_name);
		names[n] = malloc(len + 1);
		memcpy(names[n], e->d_name, len + 1);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t k = 0; k < n; k++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		size_t len = 0;
		uint8_t *data = read_all(path, &len);
		CHECK(data, "cannot read %s", path);
		if (data) {
			harness_input_name = path;
			fn(data, len);
			harness_input_name = NULL;
		}
		free(data);
		free(names[k]);
	}
	free(names);
	return (int)n;
}

static void replay(const char *target, int (*fn)(const uint8_t *, size_t))
{
	int regressions = replay_dir("regressions", target, fn);
	int seeds = replay_dir("corpus", target, fn);
	printf("     %s: %d regressions, %d seeds\n", target, regressions, seeds);
	/* No seeds means a wrong DIR, which would pass vacuously. */
	CHECK(seeds > 0, "no seeds in %s/corpus/%s", fuzz_dir, target);
}

static void framer(void)
{
	replay("framer", harness_framer);
}

static void client_message(void)
{
	replay("client_message", harness_client_message);
}

static void text_command(void)
{
	replay("text_command", harness_text_command);
}

static void savefile(void)
{
	replay("savefile", harness_savefile);
}

static void utf8(void)
{
	replay("utf8", harness_utf8);
}

static void journal(void)
{
	replay("journal", harness_journal);
}

/* A server of its own, for every input of the web target. */
static void web(void)
{
	harness_web_start();
	replay("web", harness_web);
	harness_web_stop();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_fuzz_regressions DIR (tests/fuzz)\n");
		return 2;
	}
	fuzz_dir = argv[1];
	RUN(framer);
	RUN(client_message);
	RUN(text_command);
	RUN(savefile);
	RUN(utf8);
	RUN(journal);
	RUN(web);
	return CHECK_DONE();
}
