/* One line per event on stderr: time, level, message. The message is escaped
 * (steer_utf8_escape): control characters and bytes that are not UTF-8 show as \xNN. */
#ifndef STEER_LOG_H
#define STEER_LOG_H

typedef enum steer_log_level {
	STEER_LOG_DEBUG,
	STEER_LOG_INFO,
	STEER_LOG_WARN,
	STEER_LOG_ERROR,
} steer_log_level;

void steer_log_set_level(steer_log_level min);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void steer_log(steer_log_level level, const char *fmt, ...);

#endif
