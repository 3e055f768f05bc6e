/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that builds a topology communicator (libtopomap-reorder's test,
 * tests/reorder.sh) and checks that it is valid for the rank it got:
 *   reorder MODE REORDER [EDGES]
 * MODE: cart (MPI_Dims_create 2-D grid, periodic in the first dimension),
 * adj / adjw (MPI_Dist_graph_create_adjacent, r -> r+1 of weight 10 and
 * r -> r+3 of weight 1, unweighted / weighted), dist / distw (the same graph
 * with MPI_Dist_graph_create, each rank declaring another vertex's edges),
 * graph (MPI_Graph_create, ring). Checks, on the new rank r: coordinates / neighbour lists are vertex
 * r's, MPI_Cart_shift, and MPI_Neighbor_alltoall delivers the expected
 * values. Rank 0 prints "perm W0 W1 ..." (world rank of each new rank),
 * "errors N", and writes the graph to EDGES ("src dst weight" lines). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define CHECK(c, ...)                                                                       \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            errors++;                                                                       \
            fprintf(stderr, "FAIL rank %d: ", me);                                          \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fprintf(stderr, "\n");                                                          \
        }                                                                                   \
    } while (0)

static int n, me;
static int dims[2], periods[2] = {1, 0};
static double *W; /* n x n weights of the graph, for EDGES */

static int cart_rank(int x, int y, int *ok)
{
    *ok = 1;
    if (x < 0 || x >= dims[0]) {
        if (!periods[0])
            return *ok = 0, MPI_PROC_NULL;
        x = (x + dims[0]) % dims[0];
    }
    if (y < 0 || y >= dims[1]) {
        if (!periods[1])
            return *ok = 0, MPI_PROC_NULL;
        y = (y + dims[1]) % dims[1];
    }
    return x * dims[1] + y;
}

static void cart(int reorder, MPI_Comm *c)
{
    MPI_Dims_create(n, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, c);
    int r, co[2], ok;
    MPI_Comm_rank(*c, &r);
    MPI_Cart_coords(*c, r, 2, co);
    CHECK(co[0] == r / dims[1] && co[1] == r % dims[1], "coords of %d", r);
    int send[4], recv[4] = {-1, -1, -1, -1}, want[4];
    for (int d = 0; d < 2; d++) {
        int src, dst, step[2] = {d == 0, d == 1};
        MPI_Cart_shift(*c, d, 1, &src, &dst);
        int lo = cart_rank(co[0] - step[0], co[1] - step[1], &ok);
        int hi = cart_rank(co[0] + step[0], co[1] + step[1], &ok);
        CHECK(src == lo && dst == hi, "shift %d: %d %d, want %d %d", d, src, dst, lo, hi);
        send[2 * d] = 100 * r + 2 * d;
        send[2 * d + 1] = 100 * r + 2 * d + 1;
        want[2 * d] = lo == MPI_PROC_NULL ? -1 : 100 * lo + 2 * d + 1;
        want[2 * d + 1] = hi == MPI_PROC_NULL ? -1 : 100 * hi + 2 * d;
    }
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, *c);
    for (int k = 0; k < 4; k++)
        CHECK(recv[k] == want[k], "neighbour %d sent %d, want %d", k, recv[k], want[k]);
    for (int v = 0; v < n; v++)
        for (int d = 0; d < 2; d++)
            for (int s = -1; s <= 1; s += 2) {
                int x = v / dims[1] + (d == 0) * s, y = v % dims[1] + (d == 1) * s;
                int u = cart_rank(x, y, &ok);
                if (ok)
                    W[v * n + u] += 1;
            }
}

/* dist: MPI_Dist_graph_create, where each rank declares the edges of
 * another vertex, s = r + 2. */
static void adjacent(int reorder, int weighted, int dist, MPI_Comm *c)
{
    int out[2] = {(me + 1) % n, (me + 3) % n}, in[2] = {(me - 1 + n) % n, (me - 3 + 3 * n) % n};
    int w[2] = {10, 1};
    if (dist) {
        int s = (me + 2) % n, deg = 2, d[2] = {(s + 1) % n, (s + 3) % n};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &s, &deg, d, weighted ? w : MPI_UNWEIGHTED,
                              MPI_INFO_NULL, reorder, c);
    } else {
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, weighted ? w : MPI_UNWEIGHTED, 2,
                                       out, weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL,
                                       reorder, c);
    }
    int r, indeg, outdeg, isw, gin[2], gout[2], gw1[2], gw2[2];
    MPI_Comm_rank(*c, &r);
    MPI_Dist_graph_neighbors_count(*c, &indeg, &outdeg, &isw);
    CHECK(indeg == 2 && outdeg == 2 && !isw == !weighted, "neighbour counts");
    MPI_Dist_graph_neighbors(*c, 2, gin, weighted ? gw1 : MPI_UNWEIGHTED, 2, gout,
                             weighted ? gw2 : MPI_UNWEIGHTED);
    /* Which of the two each neighbour is (0: the +-1 one of weight 10, 1:
     * the +-3 one); MPI_Dist_graph_create may list them in any order. */
    int kin[2], kout[2], send[2], recv[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
        kin[k] = gin[k] == (r - 1 + n) % n ? 0 : gin[k] == (r - 3 + 3 * n) % n ? 1 : -1;
        kout[k] = gout[k] == (r + 1) % n ? 0 : gout[k] == (r + 3) % n ? 1 : -1;
        send[k] = 100 * r + kout[k];
    }
    CHECK(kin[0] >= 0 && kin[1] >= 0 && kin[0] != kin[1], "sources of %d", r);
    CHECK(kout[0] >= 0 && kout[1] >= 0 && kout[0] != kout[1], "destinations of %d", r);
    CHECK(dist || (kin[0] == 0 && kout[0] == 0), "order of the adjacent lists of %d", r);
    for (int k = 0; weighted && k < 2; k++)
        CHECK(gw1[k] == (kin[k] ? 1 : 10) && gw2[k] == (kout[k] ? 1 : 10), "weights");
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, *c);
    for (int k = 0; k < 2; k++)
        CHECK(recv[k] == 100 * gin[k] + kin[k], "exchange %d: %d", k, recv[k]);
    for (int v = 0; v < n; v++) {
        W[v * n + (v + 1) % n] += weighted ? 10 : 1;
        W[v * n + (v + 3) % n] += 1;
    }
}

static void graph(int reorder, MPI_Comm *c)
{
    int *index = malloc(sizeof(int) * n), *edges = malloc(sizeof(int) * 2 * n);
    for (int v = 0; v < n; v++) {
        index[v] = 2 * (v + 1);
        edges[2 * v] = (v - 1 + n) % n;
        edges[2 * v + 1] = (v + 1) % n;
        W[v * n + edges[2 * v]] += 1;
        W[v * n + edges[2 * v + 1]] += 1;
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, reorder, c);
    int r, nb[2], send[2], recv[2] = {-1, -1};
    MPI_Comm_rank(*c, &r);
    MPI_Graph_neighbors(*c, r, 2, nb);
    CHECK(nb[0] == (r - 1 + n) % n && nb[1] == (r + 1) % n, "neighbours of %d", r);
    send[0] = 100 * r;
    send[1] = 100 * r + 1;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, *c);
    CHECK(recv[0] == 100 * nb[0] + 1 && recv[1] == 100 * nb[1], "exchange: %d %d", recv[0],
          recv[1]);
    free(index);
    free(edges);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 3) {
        if (!me)
            fprintf(stderr, "usage: reorder MODE REORDER [EDGES]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    W = calloc((size_t)n * n, sizeof *W);
    int reorder = atoi(argv[2]);
    MPI_Comm c = MPI_COMM_NULL;
    if (!strcmp(argv[1], "cart"))
        cart(reorder, &c);
    else if (!strcmp(argv[1], "graph"))
        graph(reorder, &c);
    else
        adjacent(reorder, strchr(argv[1], 'w') != NULL, !strncmp(argv[1], "dist", 4), &c);
    int r, *perm = malloc(sizeof(int) * n), *perm0 = malloc(sizeof(int) * n);
    MPI_Comm_rank(c, &r);
    MPI_Allgather(&me, 1, MPI_INT, perm, 1, MPI_INT, c);
    memcpy(perm0, perm, sizeof(int) * n);
    MPI_Bcast(perm0, n, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(!memcmp(perm, perm0, sizeof(int) * n), "ranks disagree on the numbering");
    CHECK(perm[r] == me, "new rank %d not where the numbering says", r);
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("perm");
        for (int i = 0; i < n; i++)
            printf(" %d", perm[i]);
        printf("\nerrors %d\n", all);
        FILE *f = argc > 3 ? fopen(argv[3], "w") : NULL;
        if (f) {
            fprintf(f, "# nranks=%d\n", n);
            for (int i = 0; i < n * n; i++)
                if (W[i] > 0)
                    fprintf(f, "%d %d %g\n", i / n, i % n, W[i]);
            fclose(f);
        }
    }
    MPI_Comm_free(&c);
    free(W);
    free(perm);
    free(perm0);
    MPI_Finalize();
    return 0;
}
