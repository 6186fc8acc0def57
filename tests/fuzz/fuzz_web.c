/* libFuzzer target: one browser connection to a real server's page port (--http),
 * through libwebsockets and the WebSocket relay. The logic lives in harness_web.c,
 * shared with tests/test_fuzz_regressions.c. */
#include <stddef.h>
#include <stdint.h>

#include "harness_web.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_web_start();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return harness_web(data, size);
}
