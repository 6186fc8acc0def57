/* libFuzzer target: the UTF-8 escaping and cutting of replies and log lines.
 * The logic lives in harness.c, shared with tests/test_fuzz_regressions.c. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return harness_utf8(data, size);
}
