#include "pair.h"

#include <pthread.h>

bool steer_run_pair(void *(*fn)(void *), void *a, void *b)
{
	pthread_t t;
	if (pthread_create(&t, NULL, fn, b) != 0)
		return false;
	fn(a);
	pthread_join(t, NULL);
	return true;
}
