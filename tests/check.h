/* A minimal test harness: CHECK records a failure with its location and goes on, so
 * one run reports every broken property; RUN prints a line per test and the file's
 * closing "N passed, N failed" line. */
#ifndef STEER_CHECK_H
#define STEER_CHECK_H

#include <stdio.h>

static int check_failures_;
static int tests_passed_, tests_failed_;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			check_failures_++;                                                         \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		int before_ = check_failures_;                                                     \
		fn();                                                                              \
		if (check_failures_ == before_) {                                                  \
			tests_passed_++;                                                           \
			printf("ok   %s\n", #fn);                                                  \
		} else {                                                                           \
			tests_failed_++;                                                           \
			printf("FAIL %s\n", #fn);                                                  \
		}                                                                                  \
		fflush(stdout); /* each line as it ends: a slow or hung test shows where */        \
	} while (0)

#define CHECK_DONE()                                                                               \
	(printf("%d passed, %d failed\n", tests_passed_, tests_failed_), tests_failed_ ? 1 : 0)

#endif
