/* fuzz_web's harness (harness_web.c): a whole server on a loop of its own in this
 * process, and the bytes of one browser connection to its page's port. Also run by
 * tests/test_fuzz_regressions.c over the seeds and saved regressions. */
#ifndef STEER_HARNESS_WEB_H
#define STEER_HARNESS_WEB_H

#include <stddef.h>
#include <stdint.h>

/* Starts the server; aborts when it cannot. */
void harness_web_start(void);
/* One input: the connection's bytes (harness_web.c says how they are read). */
int harness_web(const uint8_t *data, size_t size);
/* Stops the server and frees it. */
void harness_web_stop(void);

#endif
