/* SPDX-License-Identifier: BSD-3-Clause */
/* The demo's 4x4 halo exchange as a timed MPI program (make benefit).
 *
 *   halo PX PY ITERS BYTES [cart|dist REORDER]      on PX*PY ranks
 *
 * Rank r sits at (x, y) = (r % PX, r / PX) of an open (non-periodic) grid,
 * the profile contrib/slurm-demo.sh stores: every iteration each rank sends
 * BYTES to each of its up to 4 grid neighbours and receives as much from
 * them (nonblocking, then wait for all). One untimed iteration first, then a
 * barrier; rank 0 prints the slowest rank's time of the ITERS timed ones as
 * "halo: loop_time_s=T ...".
 *
 * With `cart` or `dist`, the ranks first declare the grid to MPI, with
 * MPI_Cart_create (dims PY x PX, not periodic) or
 * MPI_Dist_graph_create_adjacent (each rank its up to 4 neighbours, weights
 * BYTES), with reorder = REORDER (0 or 1), and exchange over the new
 * communicator at the grid position of their new rank, as an application
 * that takes its part of the data by its new rank does: with reorder = 1
 * and libtopomap-reorder preloaded, the grid is placed on the machine.
 * Rank 0 then also prints "halo: perm W0 W1 ...", the MPI_COMM_WORLD rank
 * of each new rank, and the set-up time of the constructor. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The up to 4 neighbours of rank r of a px x py grid, MPI_PROC_NULL at the
 * edges. */
static void neighbours(int r, int px, int py, int nb[4])
{
    int x = r % px, y = r / px;
    nb[0] = x > 0 ? r - 1 : MPI_PROC_NULL;
    nb[1] = x < px - 1 ? r + 1 : MPI_PROC_NULL;
    nb[2] = y > 0 ? r - px : MPI_PROC_NULL;
    nb[3] = y < py - 1 ? r + px : MPI_PROC_NULL;
}

/* The communicator to exchange on: MPI_COMM_WORLD, or the grid declared
 * with MODE and REORDER. */
static MPI_Comm grid_comm(const char *mode, int reorder, int px, int py, int bytes)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!strcmp(mode, "cart")) {
        int dims[2] = {py, px}, periods[2] = {0, 0};
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &c);
    } else if (!strcmp(mode, "dist")) {
        int nb[4], list[4], w[4], k = 0;
        neighbours(me, px, py, nb);
        for (int d = 0; d < 4; d++)
            if (nb[d] != MPI_PROC_NULL) {
                list[k] = nb[d];
                w[k++] = bytes;
            }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, list, w, k, list, w, MPI_INFO_NULL,
                                       reorder, &c);
    }
    return c;
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int ok = argc == 5 || (argc == 7 && (!strcmp(argv[5], "cart") || !strcmp(argv[5], "dist")));
    int px = ok ? atoi(argv[1]) : 0, py = ok ? atoi(argv[2]) : 0;
    int iters = ok ? atoi(argv[3]) : 0, bytes = ok ? atoi(argv[4]) : 0;
    if (px < 1 || py < 1 || px * py != n || iters < 1 || bytes < 1) {
        if (!rank)
            fprintf(stderr, "usage: halo PX PY ITERS BYTES [cart|dist REORDER] (on PX*PY ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double ts = MPI_Wtime();
    MPI_Comm c = grid_comm(argc == 7 ? argv[5] : "", argc == 7 ? atoi(argv[6]) : 0, px, py, bytes);
    ts = MPI_Wtime() - ts;
    int me, nb[4];
    MPI_Comm_rank(c, &me);
    neighbours(me, px, py, nb);
    char *s = calloc(4, (size_t)bytes), *r = calloc(4, (size_t)bytes);
    int *perm = malloc((size_t)n * sizeof *perm);
    if (!s || !r || !perm)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(&rank, 1, MPI_INT, perm, 1, MPI_INT, c);
    if (!rank && argc == 7) {
        printf("halo: perm");
        for (int i = 0; i < n; i++)
            printf(" %d", perm[i]);
        printf("\n");
    }
    double t0 = 0;
    for (int k = 0; k <= iters; k++) {
        if (k == 1) {
            MPI_Barrier(c);
            t0 = MPI_Wtime();
        }
        MPI_Request q[8];
        for (int d = 0; d < 4; d++) {
            MPI_Irecv(r + (size_t)d * bytes, bytes, MPI_BYTE, nb[d], 0, c, &q[d]);
            MPI_Isend(s + (size_t)d * bytes, bytes, MPI_BYTE, nb[d], 0, c, &q[4 + d]);
        }
        MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
    }
    double t = MPI_Wtime() - t0, tmax, tsmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ts, &tsmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
        printf("halo: loop_time_s=%.6f ranks=%d grid=%dx%d iters=%d bytes=%d setup_s=%.6f\n", tmax,
               n, px, py, iters, bytes, tsmax);
    if (c != MPI_COMM_WORLD)
        MPI_Comm_free(&c);
    free(s);
    free(r);
    free(perm);
    MPI_Finalize();
    return 0;
}
