/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests only: small dense quadratic assignment instances (libtopomap's
 * struct qap) and their optimum by brute force, for exact.t and tabu.t. */
#ifndef TOPOMAP_TESTS_QAP_TEST_H
#define TOPOMAP_TESTS_QAP_TEST_H

#include <stdlib.h>
#include <string.h>

#include "qap.h"
#include "synth.h"

static inline double qcost(const struct qap *q, const int *node)
{
    double c = 0;
    for (int i = 0; i < q->n; i++)
        for (int j = i + 1; j < q->n; j++)
            c += q->f[i * q->n + j] * q->d[node[i] * q->m + node[j]];
    return c;
}

/* The least cost over every injective rank -> node map (m <= 9). */
static inline void brute(const struct qap *q, int i, int *node, char *used, double *best)
{
    if (i == q->n) {
        double c = qcost(q, node);
        if (c < *best)
            *best = c;
        return;
    }
    for (int k = 0; k < q->m; k++)
        if (!used[k]) {
            used[k] = 1, node[i] = k;
            brute(q, i + 1, node, used, best);
            used[k] = 0;
        }
}

/* Random weights (density 1/2, some zero rows) and hops: any symmetric
 * non-negative integers (kind 0), points on a small 2D torus (1), a ring
 * of m nodes (2) or a 2 x m/2 patch of a torus, wrapped the long way (3):
 * the last two have automorphisms, which the search uses. */
static inline int ring(int a, int b, int len)
{
    int d = abs(a - b);
    return d > len - d ? len - d : d;
}

static inline void random_qap(int n, int m, int metric, double *f, double *d)
{
    memset(f, 0, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (rnd(2))
                f[i * n + j] = f[j * n + i] = 1 + rnd(1000);
    int x[16], y[16];
    for (int k = 0; k < m; k++)
        x[k] = rnd(4), y[k] = rnd(4);
    for (int k = 0; k < m; k++)
        for (int l = 0; l <= k; l++) {
            double v = metric == 0   ? rnd(7)
                       : metric == 1 ? ring(x[k], x[l], 4) + ring(y[k], y[l], 4)
                       : metric == 2 ? ring(k, l, m)
                                     : ring(k / 2, l / 2, (m + 1) / 2) + (k % 2 != l % 2);
            d[k * m + l] = d[l * m + k] = k == l ? 0 : v;
        }
}

#endif
