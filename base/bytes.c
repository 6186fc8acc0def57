#include "steer/bytes.h"

#include <stdlib.h>
#include <string.h>

#include "reserve.h"

void steer_blob_clear(steer_blob *b)
{
	b->len = 0;
	b->oom = false;
}

void steer_blob_free(steer_blob *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

steer_status steer_blob_grow(steer_blob *b, size_t n)
{
	if (b->oom)
		return STEER_ERR_NOMEM;
	if (n > SIZE_MAX - b->len ||
	    steer_reserve((void **)&b->data, &b->cap, b->len + n, 1) != STEER_OK) {
		b->oom = true;
		return STEER_ERR_NOMEM;
	}
	return STEER_OK;
}
