/* The token: read and checked the same way by the server (--token, --token-file) and
 * by the clients that present it, steerctl and steer-tui (the core reads no files and
 * no environment). */
#include "token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

steer_status steer_token_check(const char *token, const char *flag, char out[STEER_NAME_MAX + 1],
                               char *err, size_t errlen)
{
	size_t n = strlen(token);
	if (n == 0 || n > STEER_NAME_MAX || strpbrk(token, " \t\r\n")) {
		snprintf(err, errlen, "%s: the token must be 1-%d characters without spaces", flag,
		         STEER_NAME_MAX);
		return STEER_ERR_INVALID;
	}
	memcpy(out, token, n + 1);
	return STEER_OK;
}

steer_status steer_token_read(const char *path, char out[STEER_NAME_MAX + 1], char *err,
                              size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "--token-file %s: %s", path, strerror(errno));
		return STEER_ERR_INVALID;
	}
	char buf[128] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0'; /* the first line is the token */
	return steer_token_check(buf, "--token-file", out, err, errlen);
}

steer_status steer_token_choose(const char *token, const char *file, char out[STEER_NAME_MAX + 1],
                                char *err, size_t errlen)
{
	out[0] = '\0';
	if (token)
		return steer_token_check(token, "--token", out, err, errlen);
	if (file)
		return steer_token_read(file, out, err, errlen);
	const char *env = getenv("STEER_TOKEN");
	if (!env || !*env)
		return STEER_OK;
	return steer_token_check(env, "STEER_TOKEN", out, err, errlen);
}
