/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: persistent sends, counted at MPI_Start/MPI_Startall.
 * Usage: persist K C, on 3 or more ranks. Records, in world ranks:
 *  - i -> i+1 (mod n): Send_init of C ints, started K times with Startall,
 *    then (after MPI_Request_free) a new Send_init of 1 int started once;
 *  - i -> i-1 (mod n): Ssend_init of 2 ints, started K times with Start;
 *  - 0 -> n-1: Bsend_init of 3 doubles, K starts;
 *  - n-1 -> 0: Rsend_init of 4 ints through a duplicate of MPI_COMM_WORLD
 *    whose ranks are reversed (so translated at init), K starts;
 *  - a Send_init to MPI_PROC_NULL started K times: nothing;
 *  - i -> i+1 again: 100 Send_init of (j mod 3) + 1 ints (j = 0..99), each
 *    started once, then the 50 odd ones once more.
 * Requests that are initialised but never started record nothing.
 * tests/profiler.sh computes the matrix this must record.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 3 || n < 3) {
        if (!rank)
            fprintf(stderr, "usage: persist K C (3 or more ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int K = atoi(argv[1]), C = atoi(argv[2]);
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    int *sb = calloc((size_t)C + 8, sizeof *sb), *rb = calloc((size_t)C + 8, sizeof *rb);
    double d[3] = {0}, dr[3];
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - rank, &rev);

    MPI_Request ring[2], back[2], never;
    MPI_Send_init(sb, C, MPI_INT, right, 1, MPI_COMM_WORLD, &ring[0]);
    MPI_Recv_init(rb, C, MPI_INT, left, 1, MPI_COMM_WORLD, &ring[1]);
    MPI_Ssend_init(sb, 2, MPI_INT, left, 2, MPI_COMM_WORLD, &back[0]);
    MPI_Recv_init(rb, 2, MPI_INT, right, 2, MPI_COMM_WORLD, &back[1]);
    MPI_Send_init(sb, 7, MPI_INT, right, 9, MPI_COMM_WORLD, &never);
    MPI_Request nul;
    MPI_Send_init(sb, C, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &nul);

    int bsize = 3 * (int)sizeof(double) + MPI_BSEND_OVERHEAD;
    void *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);
    MPI_Request bs = MPI_REQUEST_NULL, br = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Bsend_init(d, 3, MPI_DOUBLE, n - 1, 4, MPI_COMM_WORLD, &bs);
    if (rank == n - 1)
        MPI_Recv_init(dr, 3, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &br);

    /* Ready sends through the reversed communicator: world n-1 is rev rank 0,
     * world 0 is rev rank n-1. */
    MPI_Request rs = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    if (rank == n - 1)
        MPI_Rsend_init(sb, 4, MPI_INT, n - 1, 5, rev, &rs);
    if (rank == 0)
        MPI_Recv_init(rb, 4, MPI_INT, 0, 5, rev, &rr);

    for (int k = 0; k < K; k++) {
        MPI_Startall(2, ring);
        MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
        MPI_Start(&back[1]);
        MPI_Start(&back[0]);
        MPI_Waitall(2, back, MPI_STATUSES_IGNORE);
        MPI_Start(&nul);
        MPI_Wait(&nul, MPI_STATUS_IGNORE);
        if (rank == n - 1) {
            MPI_Start(&br);
            MPI_Wait(&br, MPI_STATUS_IGNORE);
        }
        if (rank == 0) {
            MPI_Start(&bs);
            MPI_Wait(&bs, MPI_STATUS_IGNORE);
            MPI_Start(&rr);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the ready send needs its receive posted */
        if (rank == n - 1) {
            MPI_Start(&rs);
            MPI_Wait(&rs, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            MPI_Wait(&rr, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&ring[0]);
    MPI_Request_free(&ring[1]);
    MPI_Request_free(&back[0]);
    MPI_Request_free(&back[1]);
    MPI_Request_free(&never);
    MPI_Request_free(&nul);
    if (bs != MPI_REQUEST_NULL)
        MPI_Request_free(&bs);
    if (br != MPI_REQUEST_NULL)
        MPI_Request_free(&br);
    if (rs != MPI_REQUEST_NULL)
        MPI_Request_free(&rs);
    if (rr != MPI_REQUEST_NULL)
        MPI_Request_free(&rr);
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);

    /* Freed handles are recycled by the library: the new receive must not
     * inherit a freed send's entry, the new send counts once. */
    MPI_Request again[2];
    MPI_Recv_init(rb, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &again[0]);
    MPI_Send_init(sb, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &again[1]);
    MPI_Startall(2, again);
    MPI_Waitall(2, again, MPI_STATUSES_IGNORE);
    MPI_Request_free(&again[0]);
    MPI_Request_free(&again[1]);

    /* Many at once (the table grows and deletes with collisions): P sends of
     * (i mod 3) + 1 ints to the right, all started, then the even ones freed
     * and the odd ones started again. */
    enum { P = 100 };
    MPI_Request ps[P], pr[P];
    for (int i = 0; i < P; i++) {
        MPI_Recv_init(rb, 3, MPI_INT, left, 100 + i, MPI_COMM_WORLD, &pr[i]);
        MPI_Send_init(sb, i % 3 + 1, MPI_INT, right, 100 + i, MPI_COMM_WORLD, &ps[i]);
    }
    for (int i = 0; i < P; i++) {
        MPI_Startall(1, &pr[i]);
        MPI_Start(&ps[i]);
        MPI_Wait(&pr[i], MPI_STATUS_IGNORE);
        MPI_Wait(&ps[i], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < P; i += 2) {
        MPI_Request_free(&ps[i]);
        MPI_Request_free(&pr[i]);
    }
    for (int i = 1; i < P; i += 2) {
        MPI_Start(&pr[i]);
        MPI_Start(&ps[i]);
        MPI_Wait(&pr[i], MPI_STATUS_IGNORE);
        MPI_Wait(&ps[i], MPI_STATUS_IGNORE);
        MPI_Request_free(&ps[i]);
        MPI_Request_free(&pr[i]);
    }

    MPI_Comm_free(&rev);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
