/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder's graph construction (reorder/reorder_plan.c)
 * from the arguments of MPI's topology constructors, which applications
 * choose: the first byte picks the constructor (Cartesian, adjacency lists,
 * edge lists), the rest gives its integers (little-endian int16, so that
 * small and negative values are common). A graph built has its vertices in
 * range, edges sorted by (src, dst) without repeats, weights finite and >= 0,
 * and the total weight of the arguments. */
#include <math.h>

#include "fuzz.h"
#include "reorder.h"

struct ints {
    const uint8_t *p;
    size_t n;
};

static int next(struct ints *in)
{
    if (in->n < 2)
        return 0;
    int v = (int16_t)(in->p[0] | in->p[1] << 8);
    in->p += 2;
    in->n -= 2;
    return v;
}

static void check_graph(const tr_graph_t *g, double want_total)
{
    double total = 0;
    FUZZ_CHECK(g->n >= 0);
    for (size_t k = 0; k < g->nedges; k++) {
        FUZZ_CHECK(g->src[k] >= 0 && g->src[k] < g->n && g->dst[k] >= 0 && g->dst[k] < g->n);
        FUZZ_CHECK(isfinite(g->w[k]) && g->w[k] >= 0);
        if (k)
            FUZZ_CHECK(g->src[k - 1] < g->src[k] ||
                       (g->src[k - 1] == g->src[k] && g->dst[k - 1] < g->dst[k]));
        total += g->w[k];
    }
    if (want_total >= 0)
        FUZZ_CHECK(total == want_total);
}

/* An array of m ints from the input, each reduced modulo mod when mod > 0. */
static int *ints(struct ints *in, size_t m, int mod)
{
    int *v = calloc(m ? m : 1, sizeof *v);
    FUZZ_CHECK(v);
    for (size_t i = 0; i < m; i++) {
        v[i] = next(in);
        if (mod > 0)
            v[i] = ((v[i] % mod) + mod) % mod;
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct ints in = {data + 1, size - 1};
    tr_graph_t g;
    int kind = data[0] % 3, n = next(&in);
    if (kind == 0) { /* MPI_Cart_create(ndims, dims, periods) */
        int nd = n % 8, *dims = ints(&in, nd > 0 ? (size_t)nd : 0, 0);
        int *per = ints(&in, nd > 0 ? (size_t)nd : 0, 2);
        if (tr_graph_cart(nd, dims, per, 1 << 16, &g) == 0) {
            check_graph(&g, -1);
            tr_graph_free(&g);
        }
        free(dims);
        free(per);
        return 0;
    }
    /* n vertices, m edges (a short input gives few). */
    int m = next(&in);
    if (n < 0 || n > 4096 || m < 0 || (size_t)m > in.n)
        n = n < 0 || n > 4096 ? 1 : n, m = (int)(in.n / 6);
    int *a = ints(&in, (size_t)m, 0), *b = ints(&in, (size_t)m, 0), *w = ints(&in, (size_t)m, 0);
    double want = 0;
    for (int k = 0; k < m; k++)
        want += w[k];
    if (kind == 1) { /* MPI_Dist_graph_create_adjacent: a[] as out-degrees */
        int *off = calloc((size_t)n + 1, sizeof *off), e = 0;
        FUZZ_CHECK(off);
        for (int v = 0; v < n; v++) {
            int d = v < m ? ((a[v] % 8) + 8) % 8 : 0;
            off[v] = e;
            e = e + d > m ? m : e + d;
        }
        off[n] = e;
        want = 0;
        for (int k = 0; k < e; k++)
            want += w[k];
        if (tr_graph_lists(n, off, b, w, NULL, &g) == 0) {
            check_graph(&g, want);
            tr_graph_free(&g);
        }
        free(off);
    } else if (tr_graph_edges(n, (size_t)m, a, b, w, &g) == 0) { /* MPI_Dist_graph_create */
        check_graph(&g, want);
        tr_graph_free(&g);
    }
    free(a);
    free(b);
    free(w);
    return 0;
}
