#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

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
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* One fprintf per line, so lines from one process never interleave. */
	fprintf(stderr, "%s.%03ldZ %-5s %s\n", when, ts.tv_nsec / 1000000, names[level], msg);
}
