/* The token a client presents: shared by steerctl and steer-tui (the core reads no
 * files and no environment). */
#include "token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

steer_status steer_token_choose(const char *token, const char *file, char out[STEER_NAME_MAX + 1],
                                char *err, size_t errlen)
{
	const char *flag = token ? "--token" : file ? "--token-file" : "STEER_TOKEN";
	char buf[128] = "";
	out[0] = '\0';
	if (!token && file) {
		FILE *f = fopen(file, "r");
		if (!f) {
			snprintf(err, errlen, "--token-file %s: %s", file, strerror(errno));
			return STEER_ERR_INVALID;
		}
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0'; /* the first line is the token, as the server's */
		token = buf;
	} else if (!token) {
		token = getenv("STEER_TOKEN");
		if (!token || !*token)
			return STEER_OK;
	}
	size_t n = strlen(token);
	if (n == 0 || n > STEER_NAME_MAX || strpbrk(token, " \t\r\n")) {
		snprintf(err, errlen, "%s: the token must be 1-%d characters without spaces", flag,
		         STEER_NAME_MAX);
		return STEER_ERR_INVALID;
	}
	memcpy(out, token, n + 1);
	return STEER_OK;
}
