/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests only: synthetic profiles (3D stencils, random graphs), whole-machine
 * allocations, an independent hop-byte evaluation and a validity check, shared
 * by the tests of the algorithms that call the library's internals. */
#ifndef TOPOMAP_TESTS_SYNTH_H
#define TOPOMAP_TESTS_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topomap.h"

static char err[TOPOMAP_ERRLEN];

static uint64_t rng = 4242;
static inline int rnd(int n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng >> 33) % (uint64_t)n);
}

/* A 3D stencil x*y*z (periodic: wraps in every dimension of size > 2), its
 * ranks shuffled when shuffle is set. */
static inline topomap_profile_t *stencil(int x, int y, int z, int periodic, int shuffle)
{
    int n = x * y * z, m = 0, *perm = malloc(sizeof(int) * (size_t)n);
    int *src = malloc(sizeof(int) * (size_t)n * 6), *dst = malloc(sizeof(int) * (size_t)n * 6);
    double *b = malloc(sizeof(double) * (size_t)n * 6);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; shuffle && i > 0; i--) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int dims[3] = {x, y, z};
    for (int c = 0; c < z; c++)
        for (int bb = 0; bb < y; bb++)
            for (int a = 0; a < x; a++) {
                int p[3] = {a, bb, c};
                for (int k = 0; k < 3; k++) {
                    int q[3] = {a, bb, c};
                    q[k] = p[k] + 1;
                    if (q[k] >= dims[k]) {
                        if (!periodic || dims[k] <= 2)
                            continue;
                        q[k] = 0;
                    }
                    int i = perm[a + x * (bb + y * c)], j = perm[q[0] + x * (q[1] + y * q[2])];
                    src[m] = i, dst[m] = j, b[m++] = 100;
                    src[m] = j, dst[m] = i, b[m++] = 100;
                }
            }
    topomap_profile_t *pr = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err, sizeof err);
    free(perm);
    free(src);
    free(dst);
    free(b);
    return pr;
}

static inline topomap_profile_t *random_profile(int n, int deg)
{
    int m = 0, *src = malloc(sizeof(int) * (size_t)n * deg), *dst = malloc(sizeof(int) * (size_t)n * deg);
    double *b = malloc(sizeof(double) * (size_t)n * deg);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < deg; k++) {
            int j = rnd(n);
            if (j == i)
                continue;
            src[m] = i, dst[m] = j, b[m++] = 1 + rnd(1000);
        }
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* Hop-bytes from the directed profile and the topology only. */
static inline double hop_bytes(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s)
{
    topomap_graph_t g;
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g);
    const topomap_topology_t *t = topomap_alloc_topology(a);
    double s = 0;
    for (int i = 0; i < g.n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            s += g.w[e] * topomap_topology_hops(t, topomap_alloc_slot_node(a, r2s[i]),
                                                topomap_alloc_slot_node(a, r2s[g.adj[e]]));
    return s;
}

/* A topology from YAML text (through a temporary file); NULL with err. */
static inline topomap_topology_t *topology_text(const char *yaml)
{
    char path[] = "/tmp/topomap-test-topo.XXXXXX";
    int fd = mkstemp(path);
    ssize_t w = fd >= 0 ? write(fd, yaml, strlen(yaml)) : -1;
    if (fd >= 0)
        close(fd);
    topomap_topology_t *t = w == (ssize_t)strlen(yaml) ? topomap_topology_load(path, err, sizeof err)
                                                        : NULL;
    if (fd >= 0)
        unlink(path);
    return t;
}

static inline int valid(const int *r2s, int n, int ns)
{
    char *used = calloc((size_t)ns, 1);
    int good = 1;
    for (int i = 0; i < n && good; i++) {
        good = r2s[i] >= 0 && r2s[i] < ns && !used[r2s[i]];
        if (good)
            used[r2s[i]] = 1;
    }
    free(used);
    return good;
}

#endif
