/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixed-degree pattern of the profiler's scale measurement (scale.sh):
 * a periodic 3D stencil, each rank sends ITER messages of COUNT doubles to
 * each of its 6 neighbours (fewer distinct ones on small grids), so that the
 * profile has the same number of entries per row at any world size. Prints,
 * per rank, the wall time of MPI_Finalize (where the profiler gathers and
 * writes), the peak resident set and the processor time MPI_Finalize used
 * (user + system; with Open MPI, which yields the processor while it waits,
 * about the work done, not the waiting), as "fin=SECONDS rss=KIB cpu=SECONDS".
 *
 *   stencil [ITER [COUNT]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* User + system time of the process so far, its usage in *ru. */
static double cpu(struct rusage *ru)
{
    getrusage(RUSAGE_SELF, ru);
    return (double)ru->ru_utime.tv_sec + 1e-6 * (double)ru->ru_utime.tv_usec +
           (double)ru->ru_stime.tv_sec + 1e-6 * (double)ru->ru_stime.tv_usec;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : 10, count = argc > 2 ? atoi(argv[2]) : 16;
    int n, me, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Dims_create(n, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &me);
    double *sb = calloc((size_t)count, sizeof *sb), *rb = calloc((size_t)count, sizeof *rb);
    for (int it = 0; it < iter; it++)
        for (int d = 0; d < 3; d++)
            for (int s = -1; s <= 1; s += 2) {
                int src, dst;
                MPI_Cart_shift(cart, d, s, &src, &dst);
                /* The world rank: cart was made without reordering. */
                MPI_Sendrecv(sb, count, MPI_DOUBLE, dst, 0, rb, count, MPI_DOUBLE, src, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
    MPI_Comm_free(&cart);
    struct rusage ru;
    double t0 = now(), c0 = cpu(&ru);
    MPI_Finalize();
    double t1 = now(), c1 = cpu(&ru);
    printf("fin=%.6f rss=%ld cpu=%.6f\n", t1 - t0, ru.ru_maxrss, c1 - c0);
    free(sb);
    free(rb);
    return 0;
}
