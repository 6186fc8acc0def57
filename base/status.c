#include "steer/status.h"

const char *steer_status_str(steer_status s)
{
	switch (s) {
	case STEER_OK:
		return "ok";
	case STEER_ERR_NOMEM:
		return "out of memory";
	case STEER_ERR_NOENT:
		return "no such id";
	case STEER_ERR_INVALID:
		return "invalid argument";
	case STEER_ERR_LIMIT:
		return "limit reached";
	case STEER_ERR_ACCESS:
		return "not allowed";
	case STEER_ERR_REFUSED:
		return "command failed";
	case STEER_ERR_IO:
		return "input/output error";
	}
	return "unknown error";
}
