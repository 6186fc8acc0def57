/* Runs one command line through the core's command table, as the text port would:
 * for the tests of commands. */
#ifndef STEER_TEST_CMDRUN_H
#define STEER_TEST_CMDRUN_H

#include <stdio.h>

#include "steer/command.h"

/* The reply rendered as the text protocol writes it, in a buffer that the next call
 * overwrites. h may be NULL (no host). */
static inline char *cmdrun(steer_session *s, const steer_host *h, const char *line)
{
	static char out[1 << 16];
	steer_command cmd;
	char err[256];
	steer_reply r;
	steer_reply_init(&r);
	if (steer_cmd_parse_line(&cmd, line, err, sizeof err) != STEER_OK) {
		snprintf(out, sizeof out, "ERR %s", err);
	} else {
		steer_cmd_exec(&cmd, s, h, &r);
		steer_strbuf b;
		steer_strbuf_init(&b);
		steer_reply_text(&r, &b);
		snprintf(out, sizeof out, "%s", b.data ? b.data : "");
		steer_strbuf_free(&b);
	}
	steer_reply_free(&r);
	return out;
}

#endif
