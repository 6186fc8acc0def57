/* check.h over MPI ranks: a test fails when it fails on any rank. */
#ifndef STEER_CHECK_RANKS_H
#define STEER_CHECK_RANKS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "check.h"

/* MPI started, this process's rank and the rank count; only rank 0 prints (the
 * others' stdout goes to /dev/null). false when MPI did not start. */
static inline bool check_ranks_begin(int *argc, char ***argv, int *rank, int *ranks)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return false;
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, ranks);
	return *rank == 0 || freopen("/dev/null", "w", stdout) != NULL;
}

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
