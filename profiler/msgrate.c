/* SPDX-License-Identifier: BSD-3-Clause */
/* msgrate: a message-rate microbenchmark, to measure what the profiler costs
 * on the path it slows down most (many small messages). Ranks pair up (0-1,
 * 2-3, ...); each iteration both partners post a window of W nonblocking
 * receives and W nonblocking sends of S bytes, then wait for all of them
 * (the OSU multiple-bandwidth / message-rate pattern, both directions).
 *
 *   msgrate [-s BYTES] [-w WINDOW] [-i ITERATIONS] [-c world|dup] [-p pair|self]
 *
 * -c dup sends on a duplicate of MPI_COMM_WORLD (the profiler's translated
 * path instead of the MPI_COMM_WORLD shortcut); -p self has every rank send to
 * itself (any number of ranks). Prints, on rank 0, one line:
 *   rate=<msgs/s, all ranks> cpurate=<msgs per CPU second> seconds=<wall> msgs=<count>
 * cpurate divides the messages a rank sent by the CPU time of its thread, so
 * that other processes sharing the cores barely move it (with -p self nobody
 * waits for a descheduled partner): the steadier measure on a loaded machine.
 * overhead.sh runs it with and without the profiler and prints the ratios.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(int rank)
{
    if (!rank)
        fprintf(stderr, "usage: msgrate [-s BYTES] [-w WINDOW] [-i ITERATIONS] [-c world|dup] "
                        "[-p pair|self] (an even number of ranks for pairs)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    int rank, n, size = 8, window = 64, iters = 2000, opt;
    const char *which = "world", *peers = "pair";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    while ((opt = getopt(argc, argv, "s:w:i:c:p:")) != -1) {
        switch (opt) {
        case 's': size = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'c': which = optarg; break;
        case 'p': peers = optarg; break;
        default: usage(rank);
        }
    }
    int self = !strcmp(peers, "self");
    if ((n % 2 && !self) || size < 0 || window < 1 || iters < 1 ||
        (strcmp(which, "world") && strcmp(which, "dup")) ||
        (strcmp(peers, "pair") && !self))
        usage(rank);
    MPI_Comm comm = MPI_COMM_WORLD;
    if (!strcmp(which, "dup"))
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int peer = self ? rank : rank ^ 1;
    char *sbuf = calloc((size_t)size + 1, 1), *rbuf = calloc((size_t)size * window + 1, 1);
    MPI_Request *req = malloc(2 * (size_t)window * sizeof *req);
    MPI_Status *st = malloc(2 * (size_t)window * sizeof *st);
    if (!sbuf || !rbuf || !req || !st)
        MPI_Abort(MPI_COMM_WORLD, 1);

    double t0 = 0;
    struct timespec c0 = {0, 0}, c1;
    int warm = iters / 10 + 1;
    for (int it = -warm; it < iters; it++) {
        if (it == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        }
        for (int k = 0; k < window; k++)
            MPI_Irecv(rbuf + (size_t)k * size, size, MPI_BYTE, peer, 1, comm, &req[k]);
        for (int k = 0; k < window; k++)
            MPI_Isend(sbuf, size, MPI_BYTE, peer, 1, comm, &req[window + k]);
        MPI_Waitall(2 * window, req, st);
    }
    double t = MPI_Wtime() - t0, tmax, cpu, cpusum;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &cpusum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank) {
        double msgs = (double)n * window * iters;
        printf("rate=%.0f cpurate=%.0f seconds=%.4f msgs=%.0f\n", msgs / tmax, msgs / cpusum,
               tmax, msgs);
    }
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    free(sbuf);
    free(rbuf);
    free(req);
    free(st);
    MPI_Finalize();
    return 0;
}
