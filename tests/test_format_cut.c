/* A message too long for its buffer is cut short and says so, and stays UTF-8. */
#include <string.h>

#include "check.h"
#include "format_cut.h"

static void fits_as_it_is(void)
{
	char buf[16];
	steer_format_cut(buf, sizeof buf, "%s: %d", "tick", 42);
	CHECK(!strcmp(buf, "tick: 42"), "got '%s'", buf);
	steer_format_cut(buf, sizeof buf, "%s", "exactly fifteen");
	CHECK(!strcmp(buf, "exactly fifteen"), "got '%s'", buf);
}

static void long_ones_end_with_dots(void)
{
	char buf[16];
	steer_format_cut(buf, sizeof buf, "%s/%s", "/a/long/directory", "journal");
	CHECK(!strcmp(buf, "/a/long/dire..."), "got '%s'", buf);
	CHECK(strlen(buf) == sizeof buf - 1, "%zu bytes", strlen(buf));
}

static void never_inside_a_character(void)
{
	char buf[8];
	/* "ab" then euros of three bytes each: the cut at byte 4 falls inside one. */
	steer_format_cut(buf, sizeof buf, "%s", "ab\xe2\x82\xac\xe2\x82\xac");
	CHECK(!strcmp(buf, "ab..."), "got '%s'", buf);
}

int main(void)
{
	RUN(fits_as_it_is);
	RUN(long_ones_end_with_dots);
	RUN(never_inside_a_character);
	return CHECK_DONE();
}
