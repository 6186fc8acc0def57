/* Text the server sends or logs is valid UTF-8 on one line, cut on character
 * boundaries, whatever bytes came in. */
#include <string.h>

#include "check.h"
#include "steer/strbuf.h"
#include "utf8.h"

static void recognises_well_formed_characters(void)
{
	static const struct {
		const char *s;
		size_t want;
	} cases[] = {
	    {"a", 1},
	    {"\xc3\xa9", 2},         /* e-acute */
	    {"\xe2\x82\xac", 3},     /* euro */
	    {"\xf0\x9f\x98\x80", 4}, /* an emoji */
	    {"\xf4\x8f\xbf\xbf", 4}, /* U+10FFFF */
	    {"\x80", 0},             /* a stray continuation byte */
	    {"\xc0\xaf", 0},         /* overlong '/' */
	    {"\xc1\xbf", 0},         /* overlong */
	    {"\xe0\x80\xaf", 0},     /* overlong */
	    {"\xf0\x80\x80\xaf", 0}, /* overlong */
	    {"\xed\xa0\x80", 0},     /* a surrogate */
	    {"\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
	    {"\xf5\x80\x80\x80", 0},
	    {"\xff", 0},
	    {"\xc3", 0},         /* cut short */
	    {"\xe2\x82", 0},     /* cut short */
	    {"\xe2\x28\xa1", 0}, /* a bad continuation */
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		size_t got = steer_utf8_char(cases[k].s, strlen(cases[k].s));
		CHECK(got == cases[k].want, "case %zu: %zu, want %zu", k, got, cases[k].want);
	}
}

static void cuts_on_character_boundaries(void)
{
	const char *s = "ab\xc3\xa9\xe2\x82\xac!";
	size_t n = strlen(s);
	CHECK(steer_utf8_cut(s, n, 3) == 2, "inside the e-acute");
	CHECK(steer_utf8_cut(s, n, 4) == 4, "after the e-acute");
	CHECK(steer_utf8_cut(s, n, 6) == 4, "inside the euro");
	CHECK(steer_utf8_cut(s, n, 100) == n, "all of it");
	CHECK(steer_utf8_cut("a\xff\xfe", 3, 2) == 2, "a stray byte is its own unit");
}

static void escapes_controls_and_bad_bytes(void)
{
	char out[64];
	steer_utf8_escape(out, sizeof out, "x'\n2099 error", 13);
	CHECK(!strcmp(out, "x'\\x0a2099 error"), "newline: %s", out);
	steer_utf8_escape(out, sizeof out, "\x1b[2J\x7f", 5);
	CHECK(!strcmp(out, "\\x1b[2J\\x7f"), "ESC and DEL: %s", out);
	steer_utf8_escape(out, sizeof out,
	                  "\xc2\x9b"
	                  "31m",
	                  5);
	CHECK(!strcmp(out, "\\xc2\\x9b31m"), "C1 CSI: %s", out);
	steer_utf8_escape(out, sizeof out, "caf\xc3\xa9 \xff\xc3", 8);
	CHECK(!strcmp(out, "caf\xc3\xa9 \\xff\\xc3"), "bad bytes: %s", out);
	/* Never half a character or half an escape. */
	char small[6];
	steer_utf8_escape(small, sizeof small, "abcd\xc3\xa9", 6);
	CHECK(!strcmp(small, "abcd"), "half a character: %s", small);
	steer_utf8_escape(small, sizeof small, "a\n", 2);
	CHECK(!strcmp(small, "a\\x0a"), "a whole escape fits: %s", small);
	steer_utf8_escape(small, sizeof small, "ab\n", 3);
	CHECK(!strcmp(small, "ab"), "half an escape: %s", small);
	char one[1];
	CHECK(steer_utf8_escape(one, 1, "abc", 3) == 0 && one[0] == '\0', "room for nothing");
}

static void json_strings_are_utf8(void)
{
	steer_strbuf b;
	steer_strbuf_init(&b);
	steer_json_str(&b, "a\xff\"\xc3\xa9\n");
	CHECK(!b.oom && !strcmp(b.data, "\"a\\\\xff\\\"\xc3\xa9\\u000a\""), "%s", b.data);
	steer_strbuf_free(&b);
}

int main(void)
{
	RUN(recognises_well_formed_characters);
	RUN(cuts_on_character_boundaries);
	RUN(escapes_controls_and_bad_bytes);
	RUN(json_strings_are_utf8);
	return CHECK_DONE();
}
