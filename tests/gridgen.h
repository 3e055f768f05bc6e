/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests only: synthetic process-grid profiles, written independently of the
 * library's analyzer: every rank sends `face[k]` bytes to each of its grid
 * neighbours along dimension k (both sides; across the wraparound when
 * periodic), ranks numbered x fastest and then renamed by `perm` (perm[r] =
 * the MPI rank of grid position r; NULL = identity). Options add weak noise
 * edges between random pairs and a reduction of every rank to rank 0. */
#ifndef TOPOMAP_TESTS_GRIDGEN_H
#define TOPOMAP_TESTS_GRIDGEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topomap.h"

struct gridgen {
    int nd, dims[4], per[4];
    double face[4];  /* bytes per directed neighbour entry along each dimension */
    const int *perm; /* grid position -> rank, NULL = identity */
    int noise;       /* weak random entries to add */
    double noise_bytes;
    double reduce0;  /* bytes every rank sends to rank 0 (0 = none) */
    uint64_t seed;
};

static inline uint64_t gg_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A grid of nd dimensions whose entries along dimension k carry
 * face0 + k * step bytes. */
static inline struct gridgen gg_grid(int nd, const int *dims, const int *per, double face0,
                                     double step)
{
    struct gridgen g;
    memset(&g, 0, sizeof g);
    g.nd = nd;
    for (int k = 0; k < nd; k++) {
        g.dims[k] = dims[k];
        g.per[k] = per[k];
        g.face[k] = face0 + k * step;
    }
    return g;
}

static inline int gg_nranks(const struct gridgen *g)
{
    int n = 1;
    for (int k = 0; k < g->nd; k++)
        n *= g->dims[k];
    return n;
}

/* A random permutation of 0..n-1 (caller frees). */
static inline int *gg_shuffle(int n, uint64_t seed)
{
    int *p = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(gg_rand(&seed) % (uint64_t)(i + 1)), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

static inline topomap_profile_t *gg_profile(const struct gridgen *g)
{
    int n = gg_nranks(g);
    size_t cap = (size_t)n * 9 + (size_t)g->noise + 1, m = 0;
    int *src = malloc(sizeof(int) * cap), *dst = malloc(sizeof(int) * cap);
    double *b = malloc(sizeof(double) * cap), *msg = malloc(sizeof(double) * cap);
    for (int r = 0; r < n; r++) {
        int c[4], rest = r;
        for (int k = 0; k < g->nd; k++) {
            c[k] = rest % g->dims[k];
            rest /= g->dims[k];
        }
        for (int k = 0; k < g->nd; k++)
            for (int s = -1; s <= 1; s += 2) {
                int y = c[k] + s;
                if (y < 0 || y >= g->dims[k]) {
                    if (!g->per[k])
                        continue;
                    y = (y + g->dims[k]) % g->dims[k];
                }
                int q = 0;
                for (int j = g->nd - 1; j >= 0; j--)
                    q = q * g->dims[j] + (j == k ? y : c[j]);
                src[m] = g->perm ? g->perm[r] : r;
                dst[m] = g->perm ? g->perm[q] : q;
                b[m] = g->face[k];
                msg[m++] = 10;
            }
    }
    uint64_t s = g->seed + 1;
    for (int k = 0; k < g->noise; k++) {
        src[m] = (int)(gg_rand(&s) % (uint64_t)n);
        dst[m] = (int)(gg_rand(&s) % (uint64_t)n);
        b[m] = g->noise_bytes;
        msg[m++] = 1;
    }
    for (int r = 1; g->reduce0 > 0 && r < n; r++) {
        src[m] = r;
        dst[m] = 0;
        b[m] = g->reduce0;
        msg[m++] = 1;
    }
    topomap_profile_t *p = topomap_profile_create(n, m, src, dst, b, msg, NULL, 0);
    free(src);
    free(dst);
    free(b);
    free(msg);
    return p;
}

#endif
