/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: every point-to-point send flavour on MPI_COMM_WORLD.
 * Usage: ring K C. tests/profiler.sh computes the matrix this must record:
 *  - i -> i+1 (mod n): K Isend of C ints, K Send of C ints (even ranks first)
 *  - i -> i-1 (mod n): K Sendrecv of 2C doubles
 *  - i -> i+2 (mod n): K Sendrecv_replace of C chars
 *  - 0 -> n-1: one each of Ssend (1 int), Bsend (2 ints), Rsend (3 ints),
 *    Issend (4 ints), Ibsend (5 ints), Irsend (6 ints)
 *  - 1 -> 0: one zero-count Send (a message of 0 bytes)
 *  - 0 -> 1: one Send of 2 vector types, 3 blocks of 2 ints each (48 bytes)
 *  - every rank: K Sends to MPI_PROC_NULL (not recorded)
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
            fprintf(stderr, "usage: ring K C (3 or more ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int K = atoi(argv[1]), C = atoi(argv[2]);
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    int *ib = calloc((size_t)C, sizeof *ib), *ir = calloc((size_t)C, sizeof *ir);
    double *db = calloc(2 * (size_t)C, sizeof *db), *dr = calloc(2 * (size_t)C, sizeof *dr);
    char *cb = calloc((size_t)C, 1);
    MPI_Request rq[2];

    for (int k = 0; k < K; k++) {
        MPI_Irecv(ir, C, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(ib, C, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (rank % 2 == 0) {
            MPI_Send(ib, C, MPI_INT, right, 2, MPI_COMM_WORLD);
            MPI_Recv(ir, C, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(ir, C, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(ib, C, MPI_INT, right, 2, MPI_COMM_WORLD);
        }
        MPI_Sendrecv(db, 2 * C, MPI_DOUBLE, left, 3, dr, 2 * C, MPI_DOUBLE, right, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace(cb, C, MPI_CHAR, (rank + 2) % n, 4, (rank - 2 + n) % n, 4,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(ib, C, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
    }

    /* The other send modes, 0 -> n-1. */
    int buf[8] = {0}, attach_size = 4 * MPI_BSEND_OVERHEAD + 64 * (int)sizeof(int);
    void *attach = malloc((size_t)attach_size);
    MPI_Buffer_attach(attach, attach_size);
    MPI_Request r6[6];
    if (rank == n - 1)
        for (int m = 0; m < 6; m++)
            MPI_Irecv(buf, 8, MPI_INT, 0, 10 + m, MPI_COMM_WORLD, &r6[m]);
    MPI_Barrier(MPI_COMM_WORLD); /* the ready sends need their receives posted */
    if (rank == 0) {
        MPI_Ssend(buf, 1, MPI_INT, n - 1, 10, MPI_COMM_WORLD);
        MPI_Bsend(buf, 2, MPI_INT, n - 1, 11, MPI_COMM_WORLD);
        MPI_Rsend(buf, 3, MPI_INT, n - 1, 12, MPI_COMM_WORLD);
        MPI_Issend(buf, 4, MPI_INT, n - 1, 13, MPI_COMM_WORLD, &r6[0]);
        MPI_Ibsend(buf, 5, MPI_INT, n - 1, 14, MPI_COMM_WORLD, &r6[1]);
        MPI_Irsend(buf, 6, MPI_INT, n - 1, 15, MPI_COMM_WORLD, &r6[2]);
        MPI_Waitall(3, r6, MPI_STATUSES_IGNORE);
    }
    if (rank == n - 1)
        MPI_Waitall(6, r6, MPI_STATUSES_IGNORE);
    MPI_Buffer_detach(&attach, &attach_size);
    free(attach);

    /* A zero-byte message and a derived datatype. */
    if (rank == 1)
        MPI_Send(buf, 0, MPI_INT, 0, 20, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Recv(buf, 0, MPI_INT, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int big[32] = {0};
    if (rank == 0)
        MPI_Send(big, 2, vec, 1, 21, MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Recv(big, 2, vec, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);

    free(ib);
    free(ir);
    free(db);
    free(dr);
    free(cb);
    MPI_Finalize();
    return 0;
}
