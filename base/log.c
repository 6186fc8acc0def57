#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "utf8.h"

static steer_log_level min_level = STEER_LOG_INFO;

void steer_log_set_level(steer_log_level min)
{
	min_level = min;
}

void steer_log(steer_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"debug", "info", "warn", "error"};
	if (level < min_level)
		return;
	char when[32];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	char raw[1024], msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* Messages quote what clients sent (names, addresses, errors): escaped here, in
	 * one place, so that no byte of theirs can end this line and start a forged one
	 * or reach the reader's terminal as a control sequence. */
	steer_utf8_escape(msg, sizeof msg, raw, strlen(raw));
	/* One fprintf per line, so lines from one process never interleave. */
	fprintf(stderr, "%s.%03ldZ %-5s %s\n", when, ts.tv_nsec / 1000000, names[level], msg);
}
