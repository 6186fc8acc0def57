#define _POSIX_C_SOURCE 200809L
#include "ctl_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdhelp.h"
#include "steer/command.h"

bool ctl_is_err(const char *line, size_t len)
{
	return len >= 3 && !memcmp(line, "ERR", 3) && (len == 3 || line[3] == ' ');
}

/* The JSON after "OK ", or NULL for a plain "OK" or an ERR. */
static const char *json_of(const char *line, size_t len, size_t *jlen)
{
	if (len > 3 && !memcmp(line, "OK ", 3)) {
		*jlen = len - 3;
		return line + 3;
	}
	return NULL;
}

/* Lays out the reply to `command` (a help) from steerctl's own command table when
 * the server's reply is the one that table gives: a server with other commands
 * (older or newer) gets 1, to be shown as it came. 0 printed, -1 out of memory. */
static int print_help(const char *command, const char *line, size_t len)
{
	steer_command cmd;
	char err[256];
	if (steer_cmd_parse_line(&cmd, command, err, sizeof err) != STEER_OK)
		return 1;
	steer_session none = {0};
	steer_reply mine;
	steer_reply_init(&mine);
	steer_strbuf want, text;
	steer_strbuf_init(&want);
	steer_strbuf_init(&text);
	int rc = 1;
	if (steer_cmd_exec(&cmd, &none, NULL, &mine) == STEER_OK) {
		steer_reply_text(&mine, &want);
		if (!want.oom && want.len == len && !memcmp(want.data, line, len)) {
			if (cmd.name[0])
				steer_cmdhelp_one(&text, cmd.name, NULL, 0, 0);
			else
				steer_cmdhelp_list(&text, NULL, 0, 0);
			steer_strbuf_puts(&text, cmd.name[0]
			                             ? ""
			                             : "'help COMMAND' describes one; 'help set' "
			                               "lists the vehicle parameters.\n");
			rc = text.oom ? -1 : 0;
			if (!rc)
				fwrite(text.data, 1, text.len, stdout);
		}
		rc = want.oom ? -1 : rc;
	}
	steer_strbuf_free(&text);
	steer_strbuf_free(&want);
	steer_reply_free(&mine);
	return rc;
}

void ctl_print_reply(ctl_mode mode, const char *command, const char *line, size_t len)
{
	size_t jlen = 0;
	const char *json = json_of(line, len, &jlen);
	switch (mode) {
	case CTL_RAW:
		break;
	case CTL_JSON:
		if (ctl_is_err(line, len))
			fprintf(stderr, "%.*s\n", (int)len, line);
		else if (json)
			printf("%.*s\n", (int)jlen, json);
		fflush(stdout);
		return;
	case CTL_HUMAN: {
		size_t n = strcspn(command, " \t");
		if (!json || n != 4 || memcmp(command, "help", 4))
			break;
		int rc = print_help(command, line, len);
		if (rc == 0) {
			fflush(stdout);
			return;
		}
		fprintf(stderr, "steerctl: %s; the reply as it came:\n",
		        rc < 0 ? "out of memory laying out help"
		               : "this server's commands are not steerctl's (another version?)");
		break;
	}
	}
	printf("%.*s\n", (int)len, line);
	fflush(stdout);
}

int ctl_looks_like_text(const char *buf, size_t len)
{
	/* Every reply starts "OK\n", "OK " or "ERR ". */
	static const char *const starts[] = {"OK\n", "OK ", "ERR ", NULL};
	for (int k = 0; starts[k]; k++) {
		size_t want = strlen(starts[k]), n = len < want ? len : want;
		if (!memcmp(buf, starts[k], n))
			return len >= want ? 1 : -1;
	}
	return 0;
}

size_t ctl_printable(char *out, size_t n, const char *in, size_t len)
{
	if (!n)
		return 0;
	size_t k = 0;
	for (; k < len && k + 1 < n; k++)
		out[k] = in[k] >= ' ' && in[k] <= '~' ? in[k] : '.';
	out[k] = '\0';
	return k;
}

bool ctl_looks_like_protobuf(const char *buf, size_t len)
{
	/* A protobuf port's first frame: a varint length, then a ServerMessage member,
	 * length-delimited: tag byte (field << 3) | 2, field 1 (Welcome) to 6. A full
	 * server's refusal is a Reply (field 3). */
	size_t i = 0;
	while (i < len && i < 5 && ((unsigned char)buf[i] & 0x80))
		i++;
	unsigned char tag = i + 1 < len ? (unsigned char)buf[i + 1] : 0;
	return (tag & 7) == 2 && tag >> 3 >= 1 && tag >> 3 <= 6;
}

void ctl_explain_not_text(const char *buf, size_t len, const char *text_port, char *out, size_t n)
{
	if (ctl_looks_like_protobuf(buf, len)) {
		/* The stream does not name the command port: only a port seen to answer
		 * is named. */
		if (text_port)
			snprintf(
			    out, n,
			    "this is a protobuf stream, steer-server's port for steer-tui, not its "
			    "text command port; port %s on this host answers as one: --port %s",
			    text_port, text_port);
		else
			snprintf(
			    out, n,
			    "this is a protobuf stream, steer-server's port for steer-tui, not its "
			    "text command port: give --port the one steer-server printed as "
			    "'listening cmd' (its --cmd-port)");
		return;
	}
	char shown[17];
	ctl_printable(shown, sizeof shown, buf, len);
	snprintf(out, n,
	         "this server does not speak steer's text protocol (it sent \"%s\"); is this "
	         "steer-server's command port?",
	         shown);
}
