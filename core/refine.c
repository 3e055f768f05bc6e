/* SPDX-License-Identifier: BSD-3-Clause */
/* The pair-exchange engine and the swap-refinement driver.
 *
 * The engine (struct topomap_xchg, see internal.h) is what every algorithm
 * that improves a mapping by exchanges needs: OHTMA's second phase (Li et al.
 * 2020, section 4.3, Algorithm 1 lines 20-35, in map_ohtma.c), and the
 * refinement run after any algorithm by `topomap map --refine`. It could host
 * Bhatele's PAIRS or the aggregated pair exchange of Wang et al. 2015 too.
 *
 * Hop-bytes (eq. 1 of the OHTMA paper) only depend on the node each rank
 * sits on, so slots are grouped by node and everything is computed per group.
 * With the symmetric graph g = A + A^T (no diagonal: self traffic costs
 * nothing wherever the rank is), cost[i] = sum_l g_il hops(grp(i), grp(l))
 * and hop-bytes = sum_i cost[i] / 2. Exchanging the contents of slots s1 (on
 * group a, rank i or nothing) and s2 (group b, rank j or nothing) saves
 *
 *   gain = (x_i + x_j) - 2 g_ij hops(a, b),  x_i = cost[i] - D(i, b),
 *                                            x_j = cost[j] - D(j, a),
 *
 * where D(i, b) = sum_l g_il hops(b, grp(l)) is what rank i would cost on b
 * with everyone else in place (x = 0 for an empty slot). The last term
 * corrects for the edge between i and j, whose length does not change.
 * Exchanging touches only i, j and their neighbours: O(degree).
 *
 * The refinement driver is a best-improvement local search: every pass, each
 * rank looks for its best exchange (with a rank or a free slot); proposals are
 * computed in parallel on a frozen state and committed one by one in rank
 * order, each after re-checking its gain on the current state. A pass that
 * commits nothing proves that no improving exchange or move is left (any
 * improving exchange has x_i > 0 or x_j > 0, so one of its two ranks finds it
 * from its side). Because proposals depend only on the frozen state and
 * commits are sequential, the result does not depend on the thread count. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

/* Largest node count for which a hop table (ngrp^2 bytes) is kept: 4096
 * nodes = 16 MiB. Beyond it the topology is asked each time (same hops). */
#define HOP_TABLE_MAX_GROUPS 4096
/* Relative size below which a gain is rounding noise, not an improvement. */
#define GAIN_EPS 1e-12

void topomap_xchg_free(struct topomap_xchg *x)
{
    if (!x)
        return;
    free(x->slot_grp);
    free(x->grp_node);
    free(x->grp_xslot);
    free(x->grp_slot);
    free(x->hop);
    free(x->r2s);
    free(x->s2r);
    free(x->rgrp);
    free(x->cost);
    free(x->wdeg);
    memset(x, 0, sizeof *x);
}

/* Decide whether hops are known to obey the triangle inequality, which lets
 * the refinement skip groups that cannot attract a rank. Tori, meshes and the
 * Tianhe-3 table do (hop counts of shortest routes); for anything else we
 * accept the sufficient condition that every positive hop count lies within
 * a factor two of the smallest one, which trees with arbitrary per-level hop
 * counts may not meet (then no pruning: slower, same result). */
static int detect_metric(const struct topomap_xchg *x)
{
    const char *kind = topomap_topology_kind(x->pb->topo);
    if (kind && (!strcmp(kind, "torus") || !strcmp(kind, "mesh") || !strcmp(kind, "tianhe3")))
        return 1;
    if (!x->hop)
        return 0;
    int hmin = 256, hmax = 0;
    size_t nn = (size_t)x->ngrp * (size_t)x->ngrp;
    for (size_t k = 0; k < nn; k++) {
        int h = x->hop[k];
        if (h > 0 && h < hmin)
            hmin = h;
        if (h > hmax)
            hmax = h;
    }
    return hmax <= 2 * hmin;
}

int topomap_xchg_init(struct topomap_xchg *x, const struct topomap_problem *pb, char *err,
                      size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->pb = pb;
    x->n = pb->n;
    x->nslots = pb->nslots;
    int n = pb->n, ns = pb->nslots;
    int nn = topomap_topology_nnodes(pb->topo);
    int *node_grp = malloc(sizeof(int) * (size_t)(nn > 0 ? nn : 1));
    x->slot_grp = malloc(sizeof(int) * (size_t)ns);
    x->grp_node = malloc(sizeof(int) * (size_t)ns);
    x->grp_xslot = calloc((size_t)ns + 1, sizeof(int));
    x->grp_slot = malloc(sizeof(int) * (size_t)ns);
    x->r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    x->s2r = malloc(sizeof(int) * (size_t)ns);
    x->rgrp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    x->cost = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    x->wdeg = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (!node_grp || !x->slot_grp || !x->grp_node || !x->grp_xslot || !x->grp_slot || !x->r2s ||
        !x->s2r || !x->rgrp || !x->cost || !x->wdeg) {
        free(node_grp);
        topomap_xchg_free(x);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int v = 0; v < nn; v++)
        node_grp[v] = -1;
    /* Groups in order of their first slot; slots of a group ascending. */
    for (int s = 0; s < ns; s++) {
        int v = pb->slot_node[s];
        if (node_grp[v] < 0) {
            node_grp[v] = x->ngrp;
            x->grp_node[x->ngrp++] = v;
        }
        x->slot_grp[s] = node_grp[v];
        x->grp_xslot[node_grp[v] + 1]++;
    }
    free(node_grp);
    for (int u = 0; u < x->ngrp; u++)
        x->grp_xslot[u + 1] += x->grp_xslot[u];
    int *fill = malloc(sizeof(int) * (size_t)x->ngrp);
    if (!fill) {
        topomap_xchg_free(x);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    memcpy(fill, x->grp_xslot, sizeof(int) * (size_t)x->ngrp);
    for (int s = 0; s < ns; s++)
        x->grp_slot[fill[x->slot_grp[s]]++] = s;
    free(fill);

    int ng = x->ngrp;
    if (ng <= HOP_TABLE_MAX_GROUPS && topomap_topology_diameter(pb->topo) <= 255) {
        x->hop = malloc((size_t)ng * (size_t)ng);
        if (x->hop) {
            const topomap_topology_t *t = pb->topo;
            const int *gn = x->grp_node;
            unsigned char *hop = x->hop;
#pragma omp parallel for schedule(static) if (ng > 256)
            for (int a = 0; a < ng; a++)
                for (int b = 0; b < ng; b++)
                    hop[(size_t)a * (size_t)ng + (size_t)b] =
                        (unsigned char)topomap_topology_hops(t, gn[a], gn[b]);
        }
        /* Without memory for the table we fall back to asking the topology. */
    }
    x->metric = detect_metric(x);
    const topomap_graph_t *g = &pb->g;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e];
        x->wdeg[i] = s;
        x->r2s[i] = -1;
        x->rgrp[i] = -1;
    }
    for (int s = 0; s < ns; s++)
        x->s2r[s] = -1;
    return 0;
}

double topomap_xchg_cost_at(const struct topomap_xchg *x, int i, int grp)
{
    const topomap_graph_t *g = &x->pb->g;
    const int *rgrp = x->rgrp;
    double s = 0;
    if (x->hop) {
        const unsigned char *h = x->hop + (size_t)grp * (size_t)x->ngrp;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e] * (double)h[rgrp[g->adj[e]]];
    } else {
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            s += g->w[e] * (double)topomap_xchg_hops(x, grp, rgrp[g->adj[e]]);
    }
    return s;
}

void topomap_xchg_place(struct topomap_xchg *x, const int *r2s)
{
    for (int s = 0; s < x->nslots; s++)
        x->s2r[s] = -1;
    for (int i = 0; i < x->n; i++) {
        x->r2s[i] = r2s[i];
        x->s2r[r2s[i]] = i;
        x->rgrp[i] = x->slot_grp[r2s[i]];
    }
    int n = x->n;
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int i = 0; i < n; i++)
        x->cost[i] = topomap_xchg_cost_at(x, i, x->rgrp[i]);
}

double topomap_xchg_weight(const struct topomap_xchg *x, int i, int j)
{
    const topomap_graph_t *g = &x->pb->g;
    int64_t lo = g->xadj[i], hi = g->xadj[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->adj[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->xadj[i + 1] && g->adj[lo] == j ? g->w[lo] : 0.0;
}

/* The gain of exchanging slots s1 and s2, and in *scale the size of the
 * terms it was computed from (for the rounding threshold). */
static double slot_gain(const struct topomap_xchg *x, int s1, int s2, double *scale)
{
    int a = x->slot_grp[s1], b = x->slot_grp[s2];
    int r1 = x->s2r[s1], r2 = x->s2r[s2];
    *scale = 0;
    if (a == b)
        return 0;
    double x1 = 0, x2 = 0, gh = 0;
    if (r1 >= 0) {
        double d = topomap_xchg_cost_at(x, r1, b);
        x1 = x->cost[r1] - d;
        *scale += x->cost[r1] + d;
    }
    if (r2 >= 0) {
        double d = topomap_xchg_cost_at(x, r2, a);
        x2 = x->cost[r2] - d;
        *scale += x->cost[r2] + d;
    }
    if (r1 >= 0 && r2 >= 0)
        gh = topomap_xchg_weight(x, r1, r2) * (double)topomap_xchg_hops(x, a, b);
    return (x1 + x2) - 2.0 * gh;
}

double topomap_xchg_gain(const struct topomap_xchg *x, int s1, int s2)
{
    double scale;
    return slot_gain(x, s1, s2, &scale);
}

/* Rank r moved from group from to group to: adjust its neighbours' costs
 * (except other, which moved too and is recomputed). */
static void moved(struct topomap_xchg *x, int r, int from, int to, int other)
{
    const topomap_graph_t *g = &x->pb->g;
    for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
        int l = g->adj[e];
        if (l == other)
            continue;
        int gl = x->rgrp[l];
        x->cost[l] += g->w[e] * (double)(topomap_xchg_hops(x, gl, to) -
                                         topomap_xchg_hops(x, gl, from));
    }
}

void topomap_xchg_swap(struct topomap_xchg *x, int s1, int s2)
{
    int a = x->slot_grp[s1], b = x->slot_grp[s2];
    int r1 = x->s2r[s1], r2 = x->s2r[s2];
    x->s2r[s1] = r2;
    x->s2r[s2] = r1;
    if (r1 >= 0) {
        x->r2s[r1] = s2;
        x->rgrp[r1] = b;
    }
    if (r2 >= 0) {
        x->r2s[r2] = s1;
        x->rgrp[r2] = a;
    }
    if (a == b)
        return;
    if (r1 >= 0)
        moved(x, r1, a, b, r2);
    if (r2 >= 0)
        moved(x, r2, b, a, r1);
    if (r1 >= 0)
        x->cost[r1] = topomap_xchg_cost_at(x, r1, b);
    if (r2 >= 0)
        x->cost[r2] = topomap_xchg_cost_at(x, r2, a);
}

double topomap_xchg_hop_bytes(const struct topomap_xchg *x)
{
    double s = 0;
    for (int i = 0; i < x->n; i++)
        s += topomap_xchg_cost_at(x, i, x->rgrp[i]);
    return s / 2;
}

/* ---- refinement --------------------------------------------------------- */

static int improving(double gain, double scale)
{
    return gain > GAIN_EPS * scale && gain > 0;
}

/* Per-thread scratch of the proposal search. */
struct rws {
    int *gpos;   /* ngrp, -1: group not among the neighbours' groups */
    int *glist;  /* distinct groups of the neighbours */
    double *gw;  /* summed weight towards each of them */
};

static int rws_init(struct rws *w, int ngrp, int maxdeg)
{
    w->gpos = malloc(sizeof(int) * (size_t)ngrp);
    w->glist = malloc(sizeof(int) * (size_t)(maxdeg > 0 ? maxdeg : 1));
    w->gw = malloc(sizeof(double) * (size_t)(maxdeg > 0 ? maxdeg : 1));
    if (!w->gpos || !w->glist || !w->gw)
        return -1;
    for (int u = 0; u < ngrp; u++)
        w->gpos[u] = -1;
    return 0;
}

static void rws_free(struct rws *w)
{
    free(w->gpos);
    free(w->glist);
    free(w->gw);
}

/* The best improving exchange of rank i from its side (x_i > 0): the target
 * slot, or -1. Ties go to the lowest slot. */
static int best_move(const struct topomap_xchg *x, int i, struct rws *w)
{
    const topomap_graph_t *g = &x->pb->g;
    double ci = x->cost[i];
    if (!(ci > 0))
        return -1; /* D(i, b) >= 0 = cost: i gains nothing by moving */
    int a = x->rgrp[i], ng = 0;
    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
        int v = x->rgrp[g->adj[e]];
        if (w->gpos[v] < 0) {
            w->gpos[v] = ng;
            w->glist[ng] = v;
            w->gw[ng++] = 0;
        }
        w->gw[w->gpos[v]] += g->w[e];
    }
    /* Triangle inequality: D(i, b) >= W_i hops(a, b) - cost_i, so a group can
     * only attract i when hops(a, b) < 2 cost_i / W_i. */
    double reach = x->metric ? 2 * ci * (1 + 1e-9) : INFINITY;
    double wi = x->wdeg[i];
    int best = -1;
    double bestgain = 0;
    for (int b = 0; b < x->ngrp; b++) {
        if (b == a)
            continue;
        int hab = topomap_xchg_hops(x, a, b);
        if ((double)hab * wi > reach)
            continue;
        double d = 0;
        for (int k = 0; k < ng; k++)
            d += w->gw[k] * (double)topomap_xchg_hops(x, b, w->glist[k]);
        if (!(d < ci))
            continue;
        /* Exact values (summed in CSR order, like cost[]) for the decision. */
        double dib = topomap_xchg_cost_at(x, i, b), xi = ci - dib;
        int freed = 0;
        for (int k = x->grp_xslot[b]; k < x->grp_xslot[b + 1]; k++) {
            int s = x->grp_slot[k], j = x->s2r[s];
            double gain, scale;
            if (j < 0) {
                if (freed)
                    continue; /* free slots of one node are equivalent */
                freed = 1;
                gain = xi;
                scale = ci + dib;
            } else {
                double dja = topomap_xchg_cost_at(x, j, a), xj = x->cost[j] - dja;
                double gh = topomap_xchg_weight(x, i, j) * (double)hab;
                gain = (xi + xj) - 2.0 * gh;
                scale = ci + dib + x->cost[j] + dja;
            }
            if (improving(gain, scale) && (gain > bestgain || (gain == bestgain && s < best))) {
                best = s;
                bestgain = gain;
            }
        }
    }
    for (int k = 0; k < ng; k++)
        w->gpos[w->glist[k]] = -1;
    return best;
}

int topomap_xchg_refine(struct topomap_xchg *x, const struct topomap_refine_params *rp,
                        struct topomap_refine_stats *st, char *err, size_t errlen)
{
    struct topomap_refine_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    long max_passes = rp ? rp->max_passes : 0;
    double deadline = rp ? rp->deadline : 0;
    int n = x->n;
    if (n < 1) {
        st->converged = 1;
        return 0;
    }
    const topomap_graph_t *g = &x->pb->g;
    int maxdeg = 0;
    for (int i = 0; i < n; i++)
        if (g->xadj[i + 1] - g->xadj[i] > maxdeg)
            maxdeg = (int)(g->xadj[i + 1] - g->xadj[i]);
    int *prop = malloc(sizeof(int) * (size_t)n);
    if (!prop)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int nomem = 0;
    while (max_passes <= 0 || st->passes < max_passes) {
        if (deadline > 0 && topomap_now() > deadline)
            break;
#pragma omp parallel
        {
            struct rws w;
            int ok = rws_init(&w, x->ngrp, maxdeg) == 0;
            if (!ok) {
#pragma omp atomic write
                nomem = 1;
            }
#pragma omp for schedule(dynamic, 64)
            for (int i = 0; i < n; i++)
                prop[i] = ok ? best_move(x, i, &w) : -1;
            rws_free(&w);
        }
        if (nomem) {
            free(prop);
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
        st->passes++;
        long committed = 0;
        for (int i = 0; i < n; i++) {
            if (prop[i] < 0)
                continue;
            int s1 = x->r2s[i], s2 = prop[i];
            double scale, gain = slot_gain(x, s1, s2, &scale);
            if (!improving(gain, scale))
                continue; /* an earlier commit made it stale */
            if (x->s2r[s2] < 0)
                st->moves++;
            else
                st->swaps++;
            st->gain += gain;
            topomap_xchg_swap(x, s1, s2);
            committed++;
        }
        if (committed == 0) {
            st->converged = 1;
            break;
        }
    }
    free(prop);
    return 0;
}

int topomap_refine(const struct topomap_problem *pb, int *r2s,
                   const struct topomap_refine_params *rp, struct topomap_refine_stats *st,
                   char *err, size_t errlen)
{
    struct topomap_xchg x;
    if (topomap_xchg_init(&x, pb, err, errlen) < 0)
        return -1;
    topomap_xchg_place(&x, r2s);
    int rc = topomap_xchg_refine(&x, rp, st, err, errlen);
    if (rc == 0)
        memcpy(r2s, x.r2s, sizeof(int) * (size_t)pb->n);
    topomap_xchg_free(&x);
    return rc;
}
