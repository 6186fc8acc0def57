/* check.h over MPI ranks: a test fails when it fails on any rank. */
#ifndef STEER_CHECK_RANKS_H
#define STEER_CHECK_RANKS_H

#include <mpi.h>
#include <stdio.h>

#include "check.h"

/* The closing "N passed, N failed" line, from rank 0, counting a test failed on any
 * rank; then MPI ends. The exit status. */
static inline int check_ranks_done(int rank)
{
	int failed = tests_failed_, any = 0;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%d passed, %d failed\n", tests_passed_,
		       any ? tests_failed_ + (failed ? 0 : 1) : 0);
	MPI_Finalize();
	return any ? 1 : 0;
}

#endif
