/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests only: an independent evaluation of mappings on dense matrices
 * (hop-bytes by Eq. (1) of the OHTMA paper, brute force, local optimality),
 * a naive OHTMA (literally Algorithm 1), and the random and stencil profiles
 * of algorithms.t and ohtma.t. Built from the public API only (the naive
 * OHTMA also uses problem.h's backtrack), so that nothing here shares code
 * with the library. An alternative to synth.h, whose helpers have the same
 * names: a test includes one or the other. */
#ifndef TOPOMAP_TESTS_NAIVE_H
#define TOPOMAP_TESTS_NAIVE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "problem.h"

static char err[TOPOMAP_ERRLEN];

/* A TAP comment line. */
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* ---- independent evaluation ------------------------------------------------ */

/* A dense copy of the directed profile and of the slot hops, built from the
 * public API only, so that nothing here shares code with the library. */
struct dense {
    int n, ns;
    double *A; /* n x n, directed as recorded */
    int *B;    /* ns x ns hops between the nodes of the slots */
};

static inline void dense_init(struct dense *d, const topomap_profile_t *p, const topomap_alloc_t *a)
{
    topomap_graph_t g;
    d->n = topomap_profile_nranks(p);
    d->ns = topomap_alloc_nslots(a);
    d->A = calloc((size_t)d->n * (size_t)d->n, sizeof(double));
    d->B = malloc(sizeof(int) * (size_t)d->ns * (size_t)d->ns);
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g);
    for (int i = 0; i < d->n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            d->A[(size_t)i * (size_t)d->n + (size_t)g.adj[e]] += g.w[e];
    const topomap_topology_t *t = topomap_alloc_topology(a);
    for (int s = 0; s < d->ns; s++)
        for (int u = 0; u < d->ns; u++)
            d->B[(size_t)s * (size_t)d->ns + (size_t)u] = topomap_topology_hops(
                t, topomap_alloc_slot_node(a, s), topomap_alloc_slot_node(a, u));
}

static inline void dense_free(struct dense *d)
{
    free(d->A);
    free(d->B);
}

/* Eq. (1) of the OHTMA paper: sum_ij A_ij B_f(i)f(j). */
static inline double dense_hb(const struct dense *d, const int *f)
{
    double s = 0;
    for (int i = 0; i < d->n; i++)
        for (int j = 0; j < d->n; j++)
            s += d->A[(size_t)i * (size_t)d->n + (size_t)j] *
                 d->B[(size_t)f[i] * (size_t)d->ns + (size_t)f[j]];
    return s;
}

/* Smallest hop-bytes over all injective maps (n <= 8), by enumeration. */
static inline void brute(const struct dense *d, int k, int *f, char *used, double *best)
{
    if (k == d->n) {
        double v = dense_hb(d, f);
        if (v < *best)
            *best = v;
        return;
    }
    for (int s = 0; s < d->ns; s++)
        if (!used[s]) {
            used[s] = 1;
            f[k] = s;
            brute(d, k + 1, f, used, best);
            used[s] = 0;
        }
}

/* 1 if no exchange of two slots' contents (ranks or free) lowers hop-bytes. */
static inline int no_improving_swap(const struct dense *d, const int *r2s)
{
    int *f = malloc(sizeof(int) * (size_t)d->n), *s2r = malloc(sizeof(int) * (size_t)d->ns);
    int ok = 1;
    memcpy(f, r2s, sizeof(int) * (size_t)d->n);
    for (int s = 0; s < d->ns; s++)
        s2r[s] = -1;
    for (int i = 0; i < d->n; i++)
        s2r[f[i]] = i;
    double base = dense_hb(d, f);
    for (int s1 = 0; s1 < d->ns && ok; s1++)
        for (int s2 = s1 + 1; s2 < d->ns && ok; s2++) {
            int a = s2r[s1], b = s2r[s2];
            if (a < 0 && b < 0)
                continue;
            if (a >= 0)
                f[a] = s2;
            if (b >= 0)
                f[b] = s1;
            if (dense_hb(d, f) < base - 1e-9)
                ok = 0;
            if (a >= 0)
                f[a] = s1;
            if (b >= 0)
                f[b] = s2;
        }
    free(f);
    free(s2r);
    return ok;
}

/* ---- problem builders ------------------------------------------------------- */

static uint64_t rng = 12345;

static inline int rnd(int n)
{
    return (int)topomap_rng_below(&rng, (uint64_t)n);
}

/* A random directed profile of n ranks, about deg entries per rank, integer
 * byte counts in [1, maxw] (exact in doubles, so ties are exact). */
static inline topomap_profile_t *random_profile(int n, int deg, int maxw)
{
    size_t m = (size_t)n * (size_t)deg;
    int *src = malloc(sizeof(int) * m), *dst = malloc(sizeof(int) * m);
    double *b = malloc(sizeof(double) * m);
    size_t k = 0;
    for (size_t e = 0; e < m; e++) {
        int i = rnd(n), j = rnd(n);
        if (i == j)
            continue;
        src[k] = i;
        dst[k] = j;
        b[k++] = 1 + rnd(maxw);
    }
    topomap_profile_t *p = topomap_profile_create(n, k, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* A 3D 7-point stencil on an x * y * z grid of ranks (x fastest). */
static inline topomap_profile_t *stencil(int x, int y, int z, double face)
{
    int n = x * y * z;
    size_t m = (size_t)n * 6, k = 0;
    int *src = malloc(sizeof(int) * m), *dst = malloc(sizeof(int) * m);
    double *b = malloc(sizeof(double) * m);
    for (int c = 0; c < z; c++)
        for (int bb = 0; bb < y; bb++)
            for (int a = 0; a < x; a++) {
                int r = a + x * (bb + y * c);
                int nb[6][3] = {{a - 1, bb, c}, {a + 1, bb, c}, {a, bb - 1, c},
                                {a, bb + 1, c}, {a, bb, c - 1}, {a, bb, c + 1}};
                for (int t = 0; t < 6; t++) {
                    int *q = nb[t];
                    if (q[0] < 0 || q[0] >= x || q[1] < 0 || q[1] >= y || q[2] < 0 || q[2] >= z)
                        continue;
                    src[k] = r;
                    dst[k] = q[0] + x * (q[1] + y * q[2]);
                    b[k++] = face * (1 + t / 2); /* anisotropic: z faces heaviest */
                }
            }
    topomap_profile_t *p = topomap_profile_create(n, k, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

static inline int valid(const int *r2s, int n, int ns)
{
    char *used = calloc((size_t)ns, 1);
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        if (r2s[i] < 0 || r2s[i] >= ns || used[r2s[i]])
            ok = 0;
        else
            used[r2s[i]] = 1;
    }
    free(used);
    return ok;
}

/* ---- a naive OHTMA, literally Algorithm 1 on dense matrices ------------------ */

/* Per slot, per process, O(n^2) per greedy step and O(n^4) per exchange step:
 * only for small n. Ties as documented in map_ohtma.c. */
static inline void ohtma_naive(const struct dense *d, long loop, int *f)
{
    int n = d->n, ns = d->ns;
    char *psel = calloc((size_t)n, 1), *nsel = calloc((size_t)ns, 1);
    double *g = calloc((size_t)n * (size_t)n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                g[(size_t)i * n + j] = d->A[(size_t)i * n + j] + d->A[(size_t)j * n + i];
    for (int k = 0; k < n; k++) {
        /* Lines 6-8 and 13, times (1 + k): (1+k) sum_sel + sum_unsel. */
        int bp = -1;
        double bk = 0;
        for (int p = 0; p < n; p++) {
            if (psel[p])
                continue;
            double cs = 0, cu = 0;
            for (int i = 0; i < n; i++)
                if (psel[i])
                    cs += g[(size_t)p * n + i];
                else
                    cu += g[(size_t)p * n + i];
            double key = (1.0 + k) * cs + cu;
            if (bp < 0 || key > bk) {
                bp = p;
                bk = key;
            }
        }
        /* Lines 10-12 and 14. */
        int bs = -1;
        long bh = 0;
        for (int s = 0; s < ns; s++) {
            if (nsel[s])
                continue;
            long hs = 0, hu = 0;
            for (int i = 0; i < ns; i++)
                if (nsel[i])
                    hs += d->B[(size_t)s * ns + i];
                else
                    hu += d->B[(size_t)s * ns + i];
            long key = (1 + k) * hs + hu;
            if (bs < 0 || key < bh) {
                bs = s;
                bh = key;
            }
        }
        f[bp] = bs;
        psel[bp] = 1;
        nsel[bs] = 1;
    }
    if (loop < 0)
        loop = n / 2;
    char *status = calloc((size_t)n, 1);
    int *pm = malloc(sizeof(int) * (size_t)(loop + 1));
    int *pq = malloc(sizeof(int) * (size_t)(loop + 1));
    double *res = malloc(sizeof(double) * (size_t)(loop + 1));
    long steps = 0;
    for (; steps < loop; steps++) {
        double base = dense_hb(d, f), bc = 0;
        int bm = -1, bq = -1;
        for (int m = 0; m < n; m++)
            for (int q = m + 1; q < n; q++) {
                if (status[m] || status[q])
                    continue;
                int t = f[m];
                f[m] = f[q];
                f[q] = t;
                double c = base - dense_hb(d, f); /* line 26, exact */
                f[q] = f[m];
                f[m] = t;
                if (bm < 0 || c > bc) {
                    bm = m;
                    bq = q;
                    bc = c;
                }
            }
        if (bm < 0)
            break;
        pm[steps] = bm;
        pq[steps] = bq;
        res[steps] = bc;
        int t = f[bm];
        f[bm] = f[bq];
        f[bq] = t;
        status[bm] = status[bq] = 1;
    }
    long tb = best_prefix(res, steps);
    for (long k = steps - 1; k >= tb; k--) {
        int t = f[pm[k]];
        f[pm[k]] = f[pq[k]];
        f[pq[k]] = t;
    }
    free(psel);
    free(nsel);
    free(g);
    free(status);
    free(pm);
    free(pq);
    free(res);
}

#endif
