/* libFuzzer target: text-port lines parsed, run and answered, as the server does.
 * The logic lives in harness.c, shared with tests/test_fuzz_regressions.c. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return harness_text_command(data, size);
}
