/* SPDX-License-Identifier: BSD-3-Clause */
/* APE, the aggregated pair exchange of Wang et al. 2015 (see
 * spectral_cluster.c), section 4.4.3, Algorithm 4: after the cluster
 * mapping, small clusters ("noise") are exchanged whole, two of equal size at
 * a time, with the pair exchange (PE) of Brandfass et al. 2013: an exchange
 * is kept when it lowers the total cost (first improvement). Exchanging two
 * noise clusters moves the rest of their nodes' contents relative to them
 * just as exchanging the large clusters would (the paper's Fig. 5), at a
 * fraction of the cost.
 *
 * Where the paper is silent or where we depart from it:
 *  - NOISE_THRESHOLD: a cluster is noise when it has fewer than
 *    max(2, ceil(slots of its node / 2)) processes: a cluster filling at
 *    least half a node is a "chunk". With one slot per node every process is
 *    noise and APE is the plain PE over processes.
 *  - Which pairs. Algorithm 4 runs l iterations, each choosing two noise
 *    clusters (in order or at random) and exchanging them when they have the
 *    same size. Trying every pair costs O(noise^2) per sweep (16 s for
 *    4096 singletons); we try, for each noise cluster a in turn, the noise
 *    clusters of a's size that sit on the nodes where a's communication
 *    partners are and on the nodes next to those in the network (the
 *    engine's near lists: the exchanges that can bring a next to its
 *    partners; the neighbourhoods of Schulz & Traeff's VieM), in that order.
 *    Sweeps over all noise clusters repeat until one exchanges nothing, at
 *    most APE_MAX_SWEEPS, or opts->loop exchanges tried when given (the
 *    paper's l), or the deadline.
 *  - The cost is the hop-bytes; the k-th lowest rank of one cluster takes
 *    the slot of the k-th lowest rank of the other. Gains are the exact
 *    incremental ones of the refinement engine (refine.c); an exchange that
 *    does not pay is undone.
 * Sequential, so the result does not depend on the thread count. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"
#include "refine.h"

#define APE_MAX_SWEEPS 8

/* Exchange the processes of clusters a and b (k-th with k-th) when that
 * lowers the hop-bytes by more than eps; 1 if done. */
static int ape_pair(struct topomap_xchg *x, const int *ma, const int *mb, int size, double eps)
{
    if (size == 1) {
        int s1 = x->r2s[ma[0]], s2 = x->r2s[mb[0]];
        if (topomap_xchg_gain(x, s1, s2) > eps) {
            topomap_xchg_swap(x, s1, s2);
            return 1;
        }
        return 0;
    }
    double gain = 0;
    for (int t = 0; t < size; t++) {
        int s1 = x->r2s[ma[t]], s2 = x->r2s[mb[t]];
        gain += topomap_xchg_gain(x, s1, s2);
        topomap_xchg_swap(x, s1, s2);
    }
    if (gain > eps)
        return 1;
    for (int t = size - 1; t >= 0; t--) /* undo */
        topomap_xchg_swap(x, x->r2s[ma[t]], x->r2s[mb[t]]);
    return 0;
}

struct ape {
    struct topomap_xchg x;
    int np;
    int *px, *pm;        /* members of each cluster, rank order */
    int *noise;          /* 1: cluster p is noise */
    int *gx, *gl, *gpos; /* noise clusters of each group (node), position in its list */
    int *seen;           /* per group: last cluster that listed it */
    int *cand;           /* candidate groups of one cluster */
};

static void ape_free(struct ape *A)
{
    topomap_xchg_free(&A->x);
    free(A->px);
    free(A->pm);
    free(A->noise);
    free(A->gx);
    free(A->gl);
    free(A->gpos);
    free(A->seen);
    free(A->cand);
}

static int psize(const struct ape *A, int p)
{
    return A->px[p + 1] - A->px[p];
}

/* Clusters, noise, and the noise clusters of each node. */
static int ape_init(struct ape *A, const struct topomap_problem *pb, const int *r2s,
                    const int *piece, int np, char *err, size_t errlen)
{
    memset(A, 0, sizeof *A);
    int n = pb->n;
    A->np = np;
    if (topomap_xchg_init(&A->x, pb, err, errlen) < 0)
        return -1;
    int ng = A->x.ngrp;
    A->px = calloc((size_t)np + 1, sizeof(int));
    A->pm = malloc(sizeof(int) * (size_t)(n ? n : 1));
    A->noise = calloc((size_t)(np ? np : 1), sizeof(int));
    A->gx = calloc((size_t)ng + 1, sizeof(int));
    A->gl = malloc(sizeof(int) * (size_t)(np ? np : 1));
    A->gpos = malloc(sizeof(int) * (size_t)(np ? np : 1));
    A->seen = malloc(sizeof(int) * (size_t)(ng ? ng : 1));
    A->cand = malloc(sizeof(int) * (size_t)(ng ? ng : 1)); /* each group once */
    if (!A->px || !A->pm || !A->noise || !A->gx || !A->gl || !A->gpos || !A->seen || !A->cand)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    if (topomap_xchg_near(&A->x) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    topomap_xchg_place(&A->x, r2s);
    for (int r = 0; r < n; r++)
        A->px[piece[r] + 1]++;
    for (int p = 0; p < np; p++)
        A->px[p + 1] += A->px[p];
    memcpy(A->gpos, A->px, sizeof(int) * (size_t)np); /* fill pointers for now */
    for (int r = 0; r < n; r++)
        A->pm[A->gpos[piece[r]]++] = r;
    for (int p = 0; p < np; p++) {
        if (psize(A, p) == 0)
            continue; /* a coarser level's cluster, split finer */
        int g = A->x.rgrp[A->pm[A->px[p]]];
        int cap = A->x.grp_xslot[g + 1] - A->x.grp_xslot[g];
        int thr = (cap + 1) / 2 > 2 ? (cap + 1) / 2 : 2;
        if (psize(A, p) < thr) {
            A->noise[p] = 1;
            A->gx[g + 1]++;
        }
    }
    for (int g = 0; g < ng; g++) {
        A->gx[g + 1] += A->gx[g];
        A->seen[g] = -1;
    }
    memcpy(A->cand, A->gx, sizeof(int) * (size_t)ng); /* fill pointers for now */
    for (int p = 0; p < np; p++)
        if (A->noise[p]) {
            int g = A->x.rgrp[A->pm[A->px[p]]];
            A->gpos[p] = A->cand[g];
            A->gl[A->cand[g]++] = p;
        }
    return 0;
}

int topomap_ape(const struct topomap_problem *pb, int *r2s, const int *piece, int np, char *err,
                size_t errlen)
{
    struct ape A;
    if (ape_init(&A, pb, r2s, piece, np, err, errlen) < 0) {
        ape_free(&A);
        return -1;
    }
    const topomap_graph_t *g = &pb->g;
    struct topomap_xchg *x = &A.x;
    double eps = 1e-12 * (topomap_xchg_hop_bytes(x) + 1);
    long tried = 0, done = 0, limit = pb->opts->loop;
    int sweeps = 0, nnoise = A.gx[x->ngrp];
    for (int changed = 1; changed && sweeps < APE_MAX_SWEEPS; sweeps++) {
        changed = 0;
        for (int a = 0; a < np; a++) {
            if (!A.noise[a])
                continue;
            int size = psize(&A, a);
            const int *ma = A.pm + A.px[a];
            /* The nodes of a's communication partners, but a's own. */
            int ga = x->rgrp[ma[0]], nc = 0;
            A.seen[ga] = a;
            for (int t = 0; t < size; t++)
                for (int64_t e = g->xadj[ma[t]]; e < g->xadj[ma[t] + 1]; e++) {
                    int gb = x->rgrp[g->adj[e]];
                    if (A.seen[gb] != a) {
                        A.seen[gb] = a;
                        A.cand[nc++] = gb;
                    }
                }
            /* ... and the nodes next to those in the network. */
            for (int c = 0, np0 = nc; c < np0; c++) {
                int gp = A.cand[c];
                for (int q = x->near_x[gp]; q < x->near_x[gp + 1]; q++)
                    if (A.seen[x->near[q]] != a) {
                        A.seen[x->near[q]] = a;
                        A.cand[nc++] = x->near[q];
                    }
            }
            for (int c = 0; c < nc; c++) {
                int gb = A.cand[c];
                for (int i = A.gx[gb]; i < A.gx[gb + 1]; i++) {
                    int b = A.gl[i];
                    if (psize(&A, b) != size)
                        continue;
                    if ((limit >= 0 && tried >= limit) ||
                        ((++tried & 1023) == 0 && topomap_expired(pb)))
                        goto stop;
                    if (!ape_pair(x, ma, A.pm + A.px[b], size, eps))
                        continue;
                    /* a and b traded nodes: trade their list entries. */
                    int ia = A.gpos[a];
                    A.gl[ia] = b;
                    A.gl[i] = a;
                    A.gpos[b] = ia;
                    A.gpos[a] = i;
                    done++;
                    changed = 1;
                    goto next; /* a moved: its candidates changed */
                }
            }
        next:;
        }
    }
stop:
    topomap_log(pb, "spectral: APE: %d noise clusters, %ld exchanges tried, %ld done, %d sweeps",
                nnoise, tried, done, sweeps);
    memcpy(r2s, x->r2s, sizeof(int) * (size_t)pb->n);
    ape_free(&A);
    return 0;
}
