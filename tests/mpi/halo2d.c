/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiler test: a 2D halo exchange through MPI_Cart_create sub-communicators.
 * Usage: halo2d PX PY K C, run on PX*PY ranks.
 * The grid is built on a communicator that reverses MPI_COMM_WORLD's order
 * (grid rank g is world rank n-1-g), not periodic, not reordered, so grid
 * rank g has coordinates (g / PY, g % PY) and border ranks shift to
 * MPI_PROC_NULL. Rows and columns are MPI_Cart_sub communicators:
 *  - along the row (same x, y +- 1): K Sendrecv of C doubles each way;
 *  - along the column (same y, x +- 1): K Isend of 2C doubles each way.
 * tests/profiler.sh computes the matrix this must record, in world ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int wrank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 5 || atoi(argv[1]) * atoi(argv[2]) != n) {
        if (!wrank)
            fprintf(stderr, "usage: halo2d PX PY K C (on PX*PY ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[2] = {atoi(argv[1]), atoi(argv[2])}, periods[2] = {0, 0};
    int K = atoi(argv[3]), C = atoi(argv[4]);
    MPI_Comm rev, grid, row, col;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - wrank, &rev);
    MPI_Cart_create(rev, 2, dims, periods, 0, &grid);
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Cart_sub(grid, keep_row, &row);
    MPI_Cart_sub(grid, keep_col, &col);
    int west, east, north, south;
    MPI_Cart_shift(row, 0, 1, &west, &east);
    MPI_Cart_shift(col, 0, 1, &north, &south);

    double *s = calloc(4 * (size_t)C, sizeof *s), *r = calloc(4 * (size_t)C, sizeof *r);
    for (int k = 0; k < K; k++) {
        MPI_Sendrecv(s, C, MPI_DOUBLE, east, 1, r, C, MPI_DOUBLE, west, 1, row,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(s, C, MPI_DOUBLE, west, 2, r, C, MPI_DOUBLE, east, 2, row,
                     MPI_STATUS_IGNORE);
        MPI_Request q[4];
        MPI_Irecv(r, 2 * C, MPI_DOUBLE, north, 3, col, &q[0]);
        MPI_Irecv(r + 2 * C, 2 * C, MPI_DOUBLE, south, 4, col, &q[1]);
        MPI_Isend(s, 2 * C, MPI_DOUBLE, south, 3, col, &q[2]);
        MPI_Isend(s + 2 * C, 2 * C, MPI_DOUBLE, north, 4, col, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    }
    free(s);
    free(r);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&grid);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
