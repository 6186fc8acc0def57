/* Counts a process's MPI calls through the profiling interface, and the time spent in
 * them, for measuring what a tick asks of MPI: LD_PRELOAD it under mpirun and each
 * rank prints, at MPI_Finalize, how many collectives it entered and how many
 * messages it posted point to point, to how many ranks, and the seconds it spent
 * inside each kind of call (waiting for messages and for the slowest rank included).
 * Every caller's calls are counted, Zoltan's too.
 *
 *   mpirun -np 16 env LD_PRELOAD=build/bench/libsteer-mpi-calls.so \
 *       build/bench/steer-cluster-bench --n 1600000 --ticks 10 --warmup 1 --no-hash
 *
 * Run twice with different --ticks and subtract: the difference over the ticks'
 * difference is the calls a tick makes. */
#include <mpi.h>
#include <stdio.h>

enum {
	ALLREDUCE,
	ALLGATHER,
	ALLGATHERV,
	ALLTOALL,
	ALLTOALLV,
	BCAST,
	GATHER,
	GATHERV,
	SCATTER,
	SCATTERV,
	ISEND,
	IRECV,
	WAIT,
	WAITALL,
	REDUCE,
	EXSCAN,
	BARRIER,
	KINDS
};

static const char *const names[KINDS] = {
    "Allreduce", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Bcast",
    "Gather",    "Gatherv",   "Scatter",    "Scatterv", "Isend",     "Irecv",
    "Wait",      "Waitall",   "Reduce",     "Exscan",   "Barrier"};
static unsigned long calls[KINDS];
static double seconds[KINDS];

/* Counts the call of kind k and adds the seconds spent in it. */
#define TIMED(k, call)                                                                             \
	do {                                                                                       \
		double t0_ = PMPI_Wtime();                                                         \
		int rc_ = (call);                                                                  \
		seconds[k] += PMPI_Wtime() - t0_;                                                  \
		calls[k]++;                                                                        \
		return rc_;                                                                        \
	} while (0)
/* The ranks this one posted a message to (at most 4096 counted). */
static unsigned char sent_to[4096];

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
	TIMED(ALLREDUCE, PMPI_Allreduce(s, r, n, t, op, comm));
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm comm)
{
	TIMED(ALLGATHER, PMPI_Allgather(s, sn, st, r, rn, rt, comm));
}

int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                   MPI_Datatype rt, MPI_Comm comm)
{
	TIMED(ALLGATHERV, PMPI_Allgatherv(s, sn, st, r, rn, rd, rt, comm));
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm comm)
{
	TIMED(ALLTOALL, PMPI_Alltoall(s, sn, st, r, rn, rt, comm));
}

int MPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r,
                  const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm comm)
{
	TIMED(ALLTOALLV, PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, comm));
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
	TIMED(BCAST, PMPI_Bcast(b, n, t, root, comm));
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
               MPI_Comm comm)
{
	TIMED(GATHER, PMPI_Gather(s, sn, st, r, rn, rt, root, comm));
}

int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
                MPI_Comm comm)
{
	TIMED(SCATTER, PMPI_Scatter(s, sn, st, r, rn, rt, root, comm));
}

int MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
	TIMED(GATHERV, PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, comm));
}

int MPI_Scatterv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
	TIMED(SCATTERV, PMPI_Scatterv(s, sn, sd, st, r, rn, rt, root, comm));
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int to, int tag, MPI_Comm comm,
              MPI_Request *req)
{
	if (to >= 0 && to < (int)sizeof sent_to)
		sent_to[to] = 1;
	TIMED(ISEND, PMPI_Isend(b, n, t, to, tag, comm, req));
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm comm, MPI_Request *req)
{
	TIMED(IRECV, PMPI_Irecv(b, n, t, from, tag, comm, req));
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	TIMED(WAIT, PMPI_Wait(req, status));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
	TIMED(WAITALL, PMPI_Waitall(n, reqs, statuses));
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
	TIMED(REDUCE, PMPI_Reduce(s, r, n, t, op, root, comm));
}

int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
	TIMED(EXSCAN, PMPI_Exscan(s, r, n, t, op, comm));
}

int MPI_Barrier(MPI_Comm comm)
{
	TIMED(BARRIER, PMPI_Barrier(comm));
}

int MPI_Finalize(void)
{
	int rank = 0, peers = 0;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (size_t r = 0; r < sizeof sent_to; r++)
		peers += sent_to[r];
	char line[512];
	int at = snprintf(line, sizeof line, "MPI_CALLS rank=%d", rank);
	for (int k = 0; k < KINDS && at > 0 && (size_t)at < sizeof line; k++)
		at += snprintf(line + at, sizeof line - (size_t)at, " %s=%lu", names[k], calls[k]);
	fprintf(stderr, "%s sent_to_ranks=%d\n", line, peers);
	double all = 0.0;
	at = snprintf(line, sizeof line, "MPI_SECONDS rank=%d", rank);
	for (int k = 0; k < KINDS && at > 0 && (size_t)at < sizeof line; k++) {
		all += seconds[k];
		at +=
		    snprintf(line + at, sizeof line - (size_t)at, " %s=%.6f", names[k], seconds[k]);
	}
	fprintf(stderr, "%s all=%.6f\n", line, all);
	return PMPI_Finalize();
}
