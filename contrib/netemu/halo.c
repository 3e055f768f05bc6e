/* SPDX-License-Identifier: BSD-3-Clause */
/* The demo's 4x4 halo exchange as a timed MPI program (make benefit).
 *
 *   halo PX PY ITERS BYTES        on PX*PY ranks
 *
 * Rank r sits at (x, y) = (r % PX, r / PX) of an open (non-periodic) grid,
 * the profile contrib/slurm-demo.sh stores: every iteration each rank sends
 * BYTES to each of its up to 4 grid neighbours and receives as much from
 * them (nonblocking, then wait for all). One untimed iteration first, then a
 * barrier; rank 0 prints the slowest rank's time of the ITERS timed ones as
 * "halo: loop_time_s=T ...". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int px = argc == 5 ? atoi(argv[1]) : 0, py = argc == 5 ? atoi(argv[2]) : 0;
    int iters = argc == 5 ? atoi(argv[3]) : 0, bytes = argc == 5 ? atoi(argv[4]) : 0;
    if (px < 1 || py < 1 || px * py != n || iters < 1 || bytes < 1) {
        if (!rank)
            fprintf(stderr, "usage: halo PX PY ITERS BYTES (on PX*PY ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int x = rank % px, y = rank / px;
    int nb[4] = {x > 0 ? rank - 1 : MPI_PROC_NULL, x < px - 1 ? rank + 1 : MPI_PROC_NULL,
                 y > 0 ? rank - px : MPI_PROC_NULL, y < py - 1 ? rank + px : MPI_PROC_NULL};
    char *s = calloc(4, (size_t)bytes), *r = calloc(4, (size_t)bytes);
    if (!s || !r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double t0 = 0;
    for (int k = 0; k <= iters; k++) {
        if (k == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        MPI_Request q[8];
        for (int d = 0; d < 4; d++) {
            MPI_Irecv(r + (size_t)d * bytes, bytes, MPI_BYTE, nb[d], 0, MPI_COMM_WORLD, &q[d]);
            MPI_Isend(s + (size_t)d * bytes, bytes, MPI_BYTE, nb[d], 0, MPI_COMM_WORLD, &q[4 + d]);
        }
        MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
        printf("halo: loop_time_s=%.6f ranks=%d grid=%dx%d iters=%d bytes=%d\n", tmax, n, px, py,
               iters, bytes);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
