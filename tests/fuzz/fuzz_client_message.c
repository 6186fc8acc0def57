/* libFuzzer target: one ClientMessage applied to a live world, as the server applies it.
 * The logic lives in harness.c, shared with tests/test_fuzz_regressions.c. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return harness_client_message(data, size);
}
