/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: synthetic profiles (3D stencils, shuffled or not, random
 * sparse graphs, random geometric graphs) and METIS partitions of the mesh
 * graphs of Debian's libmetis-doc, made the way the shared metis-*-kK
 * workloads were (gpmetis -seed=1, bytes = cut edges). All deterministic. */
#include <errno.h>
#include <math.h>
#include <metis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Growable edge list for topomap_profile_create. */
struct edges {
    size_t k, cap;
    int *src, *dst;
    double *b;
};

static void edge_add(struct edges *E, int i, int j, double bytes)
{
    if (E->k == E->cap) {
        E->cap = E->cap ? 2 * E->cap : 1024;
        E->src = bench_xrealloc(E->src, sizeof(int) * E->cap);
        E->dst = bench_xrealloc(E->dst, sizeof(int) * E->cap);
        E->b = bench_xrealloc(E->b, sizeof(double) * E->cap);
    }
    E->src[E->k] = i;
    E->dst[E->k] = j;
    E->b[E->k++] = bytes;
}

static topomap_profile_t *edges_profile(int n, struct edges *E)
{
    topomap_profile_t *p =
        topomap_profile_create(n, E->k, E->src, E->dst, E->b, NULL, bench_err, sizeof bench_err);
    free(E->src);
    free(E->dst);
    free(E->b);
    return p;
}

topomap_profile_t *bench_stencil(int x, int y, int z, double face, uint64_t seed)
{
    int n = x * y * z;
    int *perm = bench_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    /* Fisher-Yates with its own generator: the same shuffle whatever ran before. */
    uint64_t st = seed;
    for (int i = n - 1; seed && i > 0; i--) {
        int j = (int)(bench_rng_next(&st) % (uint64_t)(i + 1));
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    struct edges E = {0};
    for (int c = 0; c < z; c++)
        for (int bb = 0; bb < y; bb++)
            for (int a = 0; a < x; a++) {
                int nb[6][3] = {{a - 1, bb, c}, {a + 1, bb, c}, {a, bb - 1, c},
                                {a, bb + 1, c}, {a, bb, c - 1}, {a, bb, c + 1}};
                for (int t = 0; t < 6; t++) {
                    int *q = nb[t];
                    if (q[0] < 0 || q[0] >= x || q[1] < 0 || q[1] >= y || q[2] < 0 || q[2] >= z)
                        continue;
                    edge_add(&E, perm[a + x * (bb + y * c)], perm[q[0] + x * (q[1] + y * q[2])],
                             face);
                }
            }
    free(perm);
    return edges_profile(n, &E);
}

topomap_profile_t *bench_random_sparse(int n, int deg)
{
    struct edges E = {0};
    for (int i = 0; i < n; i++)
        for (int d = 0; d < deg; d++) {
            int j = (int)(bench_rng() % (uint64_t)n);
            if (j == i)
                continue;
            edge_add(&E, i, j, (double)(1 + bench_rng() % 100000));
        }
    return edges_profile(n, &E);
}

/* The points of the unit cube xyz[3 n] sorted by cell of a g^3 grid
 * (counting sort): cell[i], the points of cell c in order[start[c] ..
 * start[c + 1]). Caller frees the three. */
static void cell_sort(const double *xyz, int n, int g, int **cell_out, int **start_out,
                      int **order_out)
{
    size_t ncell = (size_t)g * g * g;
    int *cell = bench_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *start = bench_xcalloc(ncell + 1, sizeof(int));
    int *order = bench_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        int c[3];
        for (int d = 0; d < 3; d++) {
            c[d] = (int)(xyz[3 * i + d] * g);
            if (c[d] >= g)
                c[d] = g - 1;
        }
        cell[i] = c[0] + g * (c[1] + g * c[2]);
        start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    int *fill = bench_xmalloc(sizeof(int) * ncell);
    memcpy(fill, start, sizeof(int) * ncell);
    for (int i = 0; i < n; i++)
        order[fill[cell[i]]++] = i;
    free(fill);
    *cell_out = cell, *start_out = start, *order_out = order;
}

/* Random geometric graph in the unit cube, built with a grid of cells of side
 * >= the radius r (O(n deg) after a counting sort of the points by cell):
 * only the 27 cells around a point can hold its neighbours. Rank i is the
 * i-th point drawn, so rank numbers carry no locality. Bytes 1 + 1e4 (1 -
 * d / r): neighbours far apart exchange less, as halos of unequal areas. */
topomap_profile_t *bench_rgg(int n, double deg, uint64_t seed)
{
    double *xyz = bench_xmalloc(sizeof(double) * 3 * (size_t)n);
    uint64_t st = seed;
    for (int i = 0; i < 3 * n; i++)
        xyz[i] = (double)(bench_rng_next(&st) >> 11) * 0x1p-53;
    /* Expected neighbours of an inner point: n 4/3 pi r^3 = deg. */
    double r = cbrt(3 * deg / (4 * M_PI * (n > 0 ? n : 1)));
    int g = (int)(1 / r);
    if (g < 1)
        g = 1;
    if (g > 1024)
        g = 1024;
    int *cell, *start, *order;
    cell_sort(xyz, n, g, &cell, &start, &order);
    struct edges E = {0};
    for (int i = 0; i < n; i++) {
        int cx = cell[i] % g, cy = cell[i] / g % g, cz = cell[i] / g / g;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy, z = cz + dz;
                    if (x < 0 || x >= g || y < 0 || y >= g || z < 0 || z >= g)
                        continue;
                    size_t c = (size_t)x + (size_t)g * ((size_t)y + (size_t)g * (size_t)z);
                    for (int q = start[c]; q < start[c + 1]; q++) {
                        int j = order[q];
                        if (j == i)
                            continue;
                        double d2 = 0;
                        for (int d = 0; d < 3; d++) {
                            double v = xyz[3 * i + d] - xyz[3 * j + d];
                            d2 += v * v;
                        }
                        if (d2 < r * r) /* i -> j here, j -> i from j's side */
                            edge_add(&E, i, j, floor(1 + 1e4 * (1 - sqrt(d2) / r)));
                    }
                }
    }
    free(xyz);
    free(cell);
    free(start);
    free(order);
    return edges_profile(n, &E);
}

/* The Morton key of a point of the unit cube (10 bits per axis): ranks
 * numbered along this space-filling curve, as a domain decomposition
 * numbers its subdomains. */
static uint64_t morton(const double *p)
{
    uint64_t k = 0;
    for (int b = 9; b >= 0; b--)
        for (int d = 0; d < 3; d++) {
            int q = (int)(p[d] * 1024);
            k = k << 1 | (uint64_t)((q > 1023 ? 1023 : q) >> b & 1);
        }
    return k;
}

static int cmp_key(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The k nearest points of point i (k <= 16) by rings of cells around its
 * own: ring r covers every point within r / g of it, so the search stops
 * once the k-th nearest so far is that close. */
static int knn_of(const double *xyz, int n, int g, const int *start, const int *order, int i,
                  int k, int *nb)
{
    double best[16];
    int nbest = 0, c[3];
    for (int d = 0; d < 3; d++)
        c[d] = (int)(xyz[3 * i + d] * g) < g ? (int)(xyz[3 * i + d] * g) : g - 1;
    for (int r = 0; r <= g; r++) {
        for (int z = c[2] - r; z <= c[2] + r; z++)
            for (int y = c[1] - r; y <= c[1] + r; y++)
                for (int x = c[0] - r; x <= c[0] + r; x++) {
                    if (x < 0 || y < 0 || z < 0 || x >= g || y >= g || z >= g ||
                        (abs(x - c[0]) < r && abs(y - c[1]) < r && abs(z - c[2]) < r))
                        continue; /* outside, or an inner ring already seen */
                    size_t cc = (size_t)x + (size_t)g * ((size_t)y + (size_t)g * (size_t)z);
                    for (int q = start[cc]; q < start[cc + 1]; q++) {
                        int j = order[q];
                        double d2 = 0;
                        for (int d = 0; d < 3; d++) {
                            double v = xyz[3 * i + d] - xyz[3 * j + d];
                            d2 += v * v;
                        }
                        if (j == i || (nbest == k && d2 >= best[k - 1]))
                            continue;
                        int at = nbest < k ? nbest++ : k - 1;
                        while (at > 0 && best[at - 1] > d2) {
                            best[at] = best[at - 1], nb[at] = nb[at - 1];
                            at--;
                        }
                        best[at] = d2, nb[at] = j;
                    }
                }
        if (nbest == k && best[k - 1] <= (double)r * r / ((double)g * g))
            break;
    }
    (void)n;
    return nbest;
}

topomap_profile_t *bench_knn(int n, int k, int curve, uint64_t seed)
{
    double *xyz = bench_xmalloc(sizeof(double) * 3 * (size_t)n);
    uint64_t st = seed;
    for (int i = 0; i < 3 * n; i++)
        xyz[i] = (double)(bench_rng_next(&st) >> 11) * 0x1p-53;
    if (curve) {
        uint64_t *key = bench_xmalloc(sizeof(uint64_t) * 2 * (size_t)n);
        double *sorted = bench_xmalloc(sizeof(double) * 3 * (size_t)n);
        for (int i = 0; i < n; i++)
            key[2 * i] = morton(xyz + 3 * i), key[2 * i + 1] = (uint64_t)i;
        qsort(key, (size_t)n, 2 * sizeof(uint64_t), cmp_key);
        for (int i = 0; i < n; i++)
            memcpy(sorted + 3 * i, xyz + 3 * key[2 * i + 1], 3 * sizeof(double));
        free(key), free(xyz);
        xyz = sorted;
    }
    /* About two points per cell. */
    int g = (int)cbrt(n / 2.0);
    g = g < 1 ? 1 : g > 1024 ? 1024 : g;
    int *cell, *start, *order, nb[16];
    cell_sort(xyz, n, g, &cell, &start, &order);
    struct edges E = {0};
    for (int i = 0; i < n; i++) {
        int m = knn_of(xyz, n, g, start, order, i, k < 16 ? k : 16, nb);
        for (int q = 0; q < m; q++)
            edge_add(&E, i, nb[q], (double)(100000 + bench_rng_next(&st) % 900001));
    }
    free(xyz), free(start), free(cell), free(order);
    return edges_profile(n, &E);
}

/* ---- METIS graph files ------------------------------------------------------------ */

void bench_graph_free(struct bench_graph *g)
{
    if (!g)
        return;
    free(g->xadj);
    free(g->adj);
    free(g->w);
    free(g);
}

/* The METIS manual's graph format: '%' comment lines; a header "n m [fmt
 * [ncon]]" where fmt's digits say whether vertex sizes, vertex weights and
 * edge weights follow; then one line per vertex (empty for an isolated
 * one): [size] [ncon weights] neighbour [weight] ..., neighbours 1-based. */
struct bench_graph *bench_graph_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(bench_err, sizeof bench_err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, n = -1, m = 0, fmt = 0, ncon = 1, v = 0;
    int64_t k = 0;
    struct bench_graph *g = NULL;
    const char *why = NULL;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (line[0] == '%')
            continue;
        char *s = line, *e;
        if (n < 0) {
            int got = sscanf(line, "%ld %ld %ld %ld", &n, &m, &fmt, &ncon);
            if (got < 2 || n < 1 || m < 0 || n > INT32_MAX) {
                why = "bad header (want: vertices edges [fmt [ncon]])";
                break;
            }
            if (got < 4)
                ncon = 1;
            g = bench_xcalloc(1, sizeof *g);
            g->n = (int)n;
            g->xadj = bench_xmalloc(sizeof(int64_t) * ((size_t)n + 1));
            g->adj = bench_xmalloc(sizeof(int) * (2 * (size_t)m + 1));
            g->w = bench_xmalloc(sizeof(int) * (2 * (size_t)m + 1));
            g->xadj[0] = 0;
            continue;
        }
        if (v == n) {
            while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
                s++;
            if (*s) {
                why = "more vertex lines than the header says";
                break;
            }
            continue;
        }
        int has_size = fmt / 100 % 10, has_vw = fmt / 10 % 10, has_ew = fmt % 10;
        for (long skip = has_size + (has_vw ? ncon : 0); skip > 0; skip--) {
            strtol(s, &e, 10);
            if (e == s) {
                why = "missing vertex size or weight";
                goto done;
            }
            s = e;
        }
        for (;;) {
            long u = strtol(s, &e, 10);
            if (e == s)
                break;
            s = e;
            long w = 1;
            if (has_ew) {
                w = strtol(s, &e, 10);
                if (e == s || w < 0) {
                    why = "missing or negative edge weight";
                    goto done;
                }
                s = e;
            }
            if (u < 1 || u > n || k >= 2 * m) {
                why = u < 1 || u > n ? "neighbour out of range" : "more edges than the header says";
                goto done;
            }
            g->adj[k] = (int)(u - 1);
            g->w[k++] = (int)w;
        }
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (*s) {
            why = "not a number";
            break;
        }
        g->xadj[++v] = k;
    }
done:
    if (!why && (n < 0 || v < n))
        why = "fewer vertex lines than the header says";
    if (!why && k != 2 * m)
        why = "edge count differs from the header";
    free(line);
    fclose(f);
    if (why) {
        snprintf(bench_err, sizeof bench_err, "%s:%ld: %s", path, lineno, why);
        bench_graph_free(g);
        return NULL;
    }
    return g;
}

topomap_profile_t *bench_graph_parts(const struct bench_graph *g, int k)
{
    idx_t nv = g->n, ncon = 1, nparts = k, objval = 0;
    idx_t *xadj = bench_xmalloc(sizeof(idx_t) * ((size_t)g->n + 1));
    idx_t *adj = bench_xmalloc(sizeof(idx_t) * ((size_t)g->xadj[g->n] + 1));
    idx_t *w = bench_xmalloc(sizeof(idx_t) * ((size_t)g->xadj[g->n] + 1));
    idx_t *part = bench_xmalloc(sizeof(idx_t) * (size_t)g->n);
    for (int v = 0; v <= g->n; v++)
        xadj[v] = (idx_t)g->xadj[v];
    for (int64_t e = 0; e < g->xadj[g->n]; e++) {
        adj[e] = g->adj[e];
        w[e] = g->w[e];
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NUMBERING] = 0;
    int rc = METIS_OK;
    if (k > 1)
        rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, w, &nparts, NULL, NULL,
                                 options, &objval, part);
    else
        memset(part, 0, sizeof(idx_t) * (size_t)g->n);
    topomap_profile_t *p = NULL;
    if (rc != METIS_OK) {
        snprintf(bench_err, sizeof bench_err, "METIS_PartGraphKway into %d parts failed (%d)", k,
                 rc);
    } else {
        struct edges E = {0};
        for (int v = 0; v < g->n; v++)
            for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++)
                if (part[v] != part[g->adj[e]])
                    edge_add(&E, (int)part[v], (int)part[g->adj[e]], g->w[e]);
        p = edges_profile(k, &E);
    }
    free(xadj);
    free(adj);
    free(w);
    free(part);
    return p;
}
