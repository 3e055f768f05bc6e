/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: an inter-communicator and its merge.
 * Usage: intercomm K C, on 4 or more ranks. Even world ranks form group A
 * (local rank a = w/2, na ranks), odd ones group B (b = (w-1)/2, nb ranks).
 *  - A's rank a sends K messages of (a+1) ints to B's rank a mod nb;
 *  - B's rank b sends K messages of C doubles to A's rank (b+1) mod na;
 *  - on the merged communicator (A first), rank m sends 1 int to m+1 mod n.
 * tests/profiler.sh computes the matrix this must record, in world ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int w, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 3 || n < 4) {
        if (!w)
            fprintf(stderr, "usage: intercomm K C (4 or more ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int K = atoi(argv[1]), C = atoi(argv[2]);
    int color = w % 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, color, w, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter);
    int me, nr;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_remote_size(inter, &nr);
    int na = color ? nr : n - nr, nb = color ? n - nr : nr;
    int *ib = calloc((size_t)n + 1, sizeof *ib);
    double *db = calloc((size_t)C, sizeof *db);

    /* Who sends to me: A's ranks a with a mod nb == me (I am in B), B's ranks
     * b with (b+1) mod na == me (I am in A). */
    for (int k = 0; k < K; k++) {
        MPI_Request q[64];
        int nq = 0;
        if (color == 0) {
            for (int b = 0; b < nb; b++)
                if ((b + 1) % na == me)
                    MPI_Irecv(db, C, MPI_DOUBLE, b, 1, inter, &q[nq++]);
            MPI_Send(ib, me + 1, MPI_INT, me % nb, 2, inter);
        } else {
            for (int a = 0; a < na; a++)
                if (a % nb == me)
                    MPI_Irecv(ib, n + 1, MPI_INT, a, 2, inter, &q[nq++]);
            MPI_Send(db, C, MPI_DOUBLE, (me + 1) % na, 1, inter);
        }
        MPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
    }
    MPI_Intercomm_merge(inter, color, &merged);
    int m;
    MPI_Comm_rank(merged, &m);
    MPI_Sendrecv(ib, 1, MPI_INT, (m + 1) % n, 3, ib + 1, 1, MPI_INT, (m - 1 + n) % n, 3, merged,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    free(ib);
    free(db);
    MPI_Finalize();
    return 0;
}
