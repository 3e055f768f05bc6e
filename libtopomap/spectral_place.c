/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive cluster mapping of Wang et al. 2015 (see spectral_cluster.c),
 * section 4.4.2: k clusters of processes onto the cores of N (virtual) nodes.
 *
 * The model, as the paper draws it (Fig. 4): the cores of the nodes form one
 * line, node after node; a cluster placed at a position takes the next free
 * cores from there on, its processes in increasing rank order, spilling over
 * to the following nodes when it does not fit. Nodes are filled from their
 * first core, so the used cores of a node are always a prefix and a node is
 * described by its count of used cores (idleTable[i] = its free cores, MAX
 * while it is empty: "an idle node can hold any cluster"). A position that
 * "can hold" a cluster is a node with that many free cores, or an empty node
 * from which on enough cores are free.
 *
 *  - Plain: clusters in order of their first (lowest) rank, each on the next
 *    free cores of the line.
 *  - First-Fit (Algorithm 2): clusters stably sorted by size, largest first,
 *    each at the first position that can hold it; when none can, it is split
 *    over the cores still free, in order.
 *  - Most-Reservation (Algorithm 3): clusters in order of their first rank
 *    (the paper says "in turn"; its clusters have no other order), each at
 *    the first position pos that can hold it, except that it starts on the
 *    free cores just before pos when (preIdle) the node before pos has free
 *    cores and pos is an empty node, and (moreReserve) starting there leaves
 *    more empty nodes than starting at pos; split as First-Fit otherwise.
 *
 * The choice (section 4.4.2), with s the standard deviation of the cluster
 * sizes and m their mean:
 *   Plain  if s < T_l,   FF  if s > T_h and k < T_k,   MR  otherwise.
 * The paper gives no values. We take T_l = 0.1 m (sizes within about 10%:
 * Plain's straddling clusters then cost little), T_h = 0.5 m (sizes varying
 * by half their mean: large clusters must be protected from fragments), and
 * T_k = 256 (the paper's reason for T_k is the cost of FF's sort, which is
 * negligible here; 256 keeps FF for the few-cluster levels of the
 * hierarchical mapping and MR for flat mappings onto hundreds of nodes). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"

#define SCHEME_TL 0.1
#define SCHEME_TH 0.5
#define SCHEME_TK 256

const char *topomap_cluster_scheme_name(int scheme)
{
    switch (scheme) {
    case TOPOMAP_CLUSTER_PLAIN: return "plain";
    case TOPOMAP_CLUSTER_FF: return "first-fit";
    case TOPOMAP_CLUSTER_MR: return "most-reservation";
    default: return "?";
    }
}

int topomap_cluster_scheme(int nclus, const int *cx)
{
    if (nclus < 1)
        return TOPOMAP_CLUSTER_PLAIN;
    double mean = (double)cx[nclus] / nclus, var = 0;
    for (int c = 0; c < nclus; c++) {
        double d = (cx[c + 1] - cx[c]) - mean;
        var += d * d;
    }
    double sd = sqrt(var / nclus);
    if (sd < SCHEME_TL * mean)
        return TOPOMAP_CLUSTER_PLAIN;
    if (sd > SCHEME_TH * mean && nclus < SCHEME_TK)
        return TOPOMAP_CLUSTER_FF;
    return TOPOMAP_CLUSTER_MR;
}

/* The line of cores: used[b] of cap[b] cores of node b are taken (a prefix). */
struct line {
    int nbins;
    const int *cap;
    int *used;
};

/* Free cores of nodes b.. on. */
static long free_from(const struct line *L, int b)
{
    long f = 0;
    for (; b < L->nbins; b++)
        f += L->cap[b] - L->used[b];
    return f;
}

/* The first position (node) that can hold size cores, or -1. */
static int first_fit(const struct line *L, int size)
{
    for (int b = 0; b < L->nbins; b++) {
        int fr = L->cap[b] - L->used[b];
        if (fr >= size)
            return b;
        if (L->used[b] == 0 && fr > 0 && free_from(L, b) >= size)
            return b; /* idleTable[b] = MAX */
    }
    return -1;
}

/* Empty nodes a cluster of size cores starting at node b would fill into. */
static int empties_touched(const struct line *L, int b, int size)
{
    int touched = 0;
    for (; b < L->nbins && size > 0; b++) {
        int fr = L->cap[b] - L->used[b];
        if (fr == 0)
            continue;
        if (L->used[b] == 0)
            touched++;
        size -= fr;
    }
    return touched;
}

/* Members mem[0..size) take the next free cores from node b on. */
static void take(struct line *L, int b, const int *mem, int size, int *bin_of)
{
    for (int t = 0; t < size; t++) {
        while (L->used[b] == L->cap[b])
            b++;
        bin_of[mem[t]] = b;
        L->used[b]++;
    }
}

/* Stable: larger first, then lower cluster index. */
static int cmp_size(const void *a, const void *b, void *ctx)
{
    const int *cx = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    int sx = cx[x + 1] - cx[x], sy = cx[y + 1] - cx[y];
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

int topomap_cluster_map(int scheme, int nclus, const int *cx, const int *cmem, int nbins,
                        const int *cap, int *bin_of)
{
    long total = 0;
    for (int b = 0; b < nbins; b++)
        total += cap[b];
    if (cx[nclus] > total) {
        errno = ENOSPC;
        return -1;
    }
    struct line L = {nbins, cap, calloc((size_t)(nbins ? nbins : 1), sizeof(int))};
    int *order = malloc(sizeof(int) * (size_t)(nclus ? nclus : 1));
    if (!L.used || !order) {
        free(L.used);
        free(order);
        errno = ENOMEM;
        return -1;
    }
    for (int c = 0; c < nclus; c++)
        order[c] = c;
    if (scheme == TOPOMAP_CLUSTER_FF)
        qsort_r(order, (size_t)nclus, sizeof(int), cmp_size, (void *)cx);
    int start = 0; /* Plain: the first node with a free core */
    for (int i = 0; i < nclus; i++) {
        int c = order[i], size = cx[c + 1] - cx[c];
        const int *mem = cmem + cx[c];
        if (size == 0)
            continue;
        if (scheme == TOPOMAP_CLUSTER_PLAIN) {
            while (L.used[start] == L.cap[start])
                start++;
            take(&L, start, mem, size, bin_of);
            continue;
        }
        int pos = first_fit(&L, size);
        if (pos < 0) {
            /* No position holds it: split over the free cores, in order. */
            take(&L, 0, mem, size, bin_of);
            continue;
        }
        if (scheme == TOPOMAP_CLUSTER_MR && pos > 0 && L.used[pos] == 0 &&
            L.used[pos - 1] < L.cap[pos - 1] &&
            empties_touched(&L, pos - 1, size) < empties_touched(&L, pos, size))
            pos = pos - 1; /* preIdle && moreReserve: start on the free cores before pos */
        take(&L, pos, mem, size, bin_of);
    }
    free(L.used);
    free(order);
    return 0;
}
