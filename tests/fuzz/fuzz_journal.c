/* libFuzzer target: the journal's record codec and the damage scan of recovery.
 * The logic lives in harness.c, shared with tests/test_fuzz_regressions.c. */
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return harness_journal(data, size);
}
