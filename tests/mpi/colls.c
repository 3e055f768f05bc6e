/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: collectives, modelled only with TOPOMAP_PROFILE_COLLECTIVES=1.
 * Usage: colls C, on 3 or more ranks. Point-to-point: i -> i+1 (mod n), one
 * Send of C ints (the whole p2p profile). Collectives on MPI_COMM_WORLD, in
 * this order: Barrier; Bcast C ints root 1; Reduce C doubles root 2;
 * Allreduce C ints; Gather C ints root 0; Gatherv rank+1 ints root n-1;
 * Scatter C ints root 0; Scatterv j+1 ints to j root 1; Allgather C chars;
 * Allgatherv j+1 ints from j; Alltoall 2 ints; Alltoallv (i+j) mod 3 ints
 * from i to j; in-place Alltoallv (i+j) mod 2 + 1 ints; Reduce_scatter j+1
 * ints to j; Reduce_scatter_block 2 doubles; Scan C ints; Exscan C ints;
 * Ibcast 3 ints root 0; Iallreduce 1 double. Then, on the communicator of
 * world ranks of the same parity (ordered by world rank): Bcast 4 ints root 0
 * and Allreduce 2 ints; on the inter-communicator between the two: Barrier
 * (not modelled). tests/profiler.sh computes both profiles.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 2 || n < 3) {
        if (!me)
            fprintf(stderr, "usage: colls C (3 or more ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int C = atoi(argv[1]);
    size_t big = (size_t)(C + 4) * (size_t)(n + 4) * 2;
    int *a = calloc(big, sizeof *a), *b = calloc(big, sizeof *b);
    double *d = calloc(big, sizeof *d), *e = calloc(big, sizeof *e);
    int *sc = calloc((size_t)n, sizeof *sc), *rc = calloc((size_t)n, sizeof *rc);
    int *sd = calloc((size_t)n, sizeof *sd), *rd = calloc((size_t)n, sizeof *rd);
    MPI_Comm w = MPI_COMM_WORLD;

    MPI_Send(a, C, MPI_INT, (me + 1) % n, 0, w);
    MPI_Recv(b, C, MPI_INT, (me - 1 + n) % n, 0, w, MPI_STATUS_IGNORE);

    MPI_Barrier(w);
    MPI_Bcast(a, C, MPI_INT, 1, w);
    MPI_Reduce(d, e, C, MPI_DOUBLE, MPI_SUM, 2, w);
    MPI_Allreduce(MPI_IN_PLACE, a, C, MPI_INT, MPI_SUM, w);
    MPI_Gather(a, C, MPI_INT, b, C, MPI_INT, 0, w);
    for (int j = 0; j < n; j++) {
        rc[j] = j + 1;
        rd[j] = j == 0 ? 0 : rd[j - 1] + rc[j - 1];
    }
    MPI_Gatherv(a, me + 1, MPI_INT, b, rc, rd, MPI_INT, n - 1, w);
    MPI_Scatter(a, C, MPI_INT, b, C, MPI_INT, 0, w);
    MPI_Scatterv(a, rc, rd, MPI_INT, b, me + 1, MPI_INT, 1, w);
    MPI_Allgather(a, C, MPI_CHAR, b, C, MPI_CHAR, w);
    MPI_Allgatherv(a, me + 1, MPI_INT, b, rc, rd, MPI_INT, w);
    MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, w);
    for (int j = 0; j < n; j++) {
        sc[j] = (me + j) % 3;
        rc[j] = (j + me) % 3;
        sd[j] = j == 0 ? 0 : sd[j - 1] + sc[j - 1];
        rd[j] = j == 0 ? 0 : rd[j - 1] + rc[j - 1];
    }
    MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, w);
    for (int j = 0; j < n; j++) {
        rc[j] = (me + j) % 2 + 1;
        rd[j] = j == 0 ? 0 : rd[j - 1] + rc[j - 1];
    }
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rc, rd, MPI_INT, w);
    for (int j = 0; j < n; j++)
        rc[j] = j + 1;
    MPI_Reduce_scatter(a, b, rc, MPI_INT, MPI_SUM, w);
    MPI_Reduce_scatter_block(d, e, 2, MPI_DOUBLE, MPI_SUM, w);
    MPI_Scan(a, b, C, MPI_INT, MPI_SUM, w);
    MPI_Exscan(a, b, C, MPI_INT, MPI_SUM, w);
    MPI_Request q[2];
    MPI_Ibcast(a, 3, MPI_INT, 0, w, &q[0]);
    MPI_Iallreduce(d, e, 1, MPI_DOUBLE, MPI_SUM, w, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);

    MPI_Comm half, inter;
    MPI_Comm_split(w, me % 2, me, &half);
    MPI_Bcast(a, 4, MPI_INT, 0, half);
    MPI_Allreduce(MPI_IN_PLACE, a, 2, MPI_INT, MPI_SUM, half);
    MPI_Intercomm_create(half, 0, w, me % 2 ? 0 : 1, 5, &inter);
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    free(a);
    free(b);
    free(d);
    free(e);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    MPI_Finalize();
    return 0;
}
