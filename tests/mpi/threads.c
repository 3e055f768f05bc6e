/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: MPI_THREAD_MULTIPLE (atomic counters, locked tables).
 * Usage: threads K C, on 2 or more ranks. Each rank runs 4 threads at once;
 * thread t does K Sendrecv of (t+1)*C ints to rank+1 (mod n), on
 * MPI_COMM_WORLD for even t, on its own reversed duplicate for odd t (so
 * translated concurrently). Records i -> i+1: K*C*4*(1+2+3+4) bytes, 4K msgs.
 * Exits with status 77 when the library does not provide the level.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define T 4
static int K, C, rank, n;
static MPI_Comm comms[T];

static void *work(void *arg)
{
    int t = (int)(long)arg, cnt = (t + 1) * C;
    int *s = calloc((size_t)cnt, sizeof *s), *r = calloc((size_t)cnt, sizeof *r);
    MPI_Comm c = comms[t];
    int me, size;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &size);
    /* In the reversed communicators world rank + 1 is rank - 1. */
    int to = t % 2 ? (me - 1 + size) % size : (me + 1) % size;
    int from = t % 2 ? (me + 1) % size : (me - 1 + size) % size;
    for (int k = 0; k < K; k++)
        MPI_Sendrecv(s, cnt, MPI_INT, to, t, r, cnt, MPI_INT, from, t, c, MPI_STATUS_IGNORE);
    free(s);
    free(r);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (!rank)
            fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 77;
    }
    if (argc != 3 || n < 2) {
        if (!rank)
            fprintf(stderr, "usage: threads K C (2 or more ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    K = atoi(argv[1]);
    C = atoi(argv[2]);
    for (int t = 0; t < T; t++)
        if (t % 2)
            MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - rank, &comms[t]);
        else
            comms[t] = MPI_COMM_WORLD;
    pthread_t th[T];
    for (int t = 0; t < T; t++)
        pthread_create(&th[t], NULL, work, (void *)(long)t);
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++)
        if (t % 2)
            MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
