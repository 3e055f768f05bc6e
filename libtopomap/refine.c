/* SPDX-License-Identifier: BSD-3-Clause */
/* The swap-refinement driver, on the exchange engine of xchg.c (the gain of
 * an exchange is explained there).
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
#include "refine.h"

/* Below this many rank x group pairs, every group is searched (auto scope). */
#define REFINE_FULL_WORK (1 << 20)
/* Relative size below which a gain is rounding noise, not an improvement. */
#define GAIN_EPS 1e-12

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
    int *mark;   /* ngrp: stamp of the last search that listed the group */
    int stamp;
    int *cand;   /* candidate groups of one search */
    /* Tori and meshes (x->gnd > 0): F_k(c) = sum over the neighbours' groups
     * of their weight times the distance along dimension k from coordinate c,
     * filled on demand for the search stamped fstamp (see sep_cost), from
     * the neighbours' weight at each coordinate of dimension k (hw, the
     * distinct coordinates listed in hc). Arrays of the summed dimension
     * sizes, dimension k at foff[k]. */
    double *fval, *hw;
    int *fstamp, *hstamp, *hc;
    int foff[TOPOMAP_XCHG_DIMS], hn[TOPOMAP_XCHG_DIMS];
    long work;  /* edges summed (weight and hops of a neighbour) */
    long looks; /* groups looked at (a hop and a weight, no neighbour list) */
};

static int rws_init(struct rws *w, const struct topomap_xchg *x, int maxdeg, int maxcand)
{
    int ngrp = x->ngrp, nf = 0;
    for (int k = 0; k < x->gnd; k++) {
        w->foff[k] = nf;
        nf += x->gdims[k];
    }
    w->fval = malloc(sizeof(double) * (size_t)(nf > 0 ? nf : 1));
    w->fstamp = calloc((size_t)(nf > 0 ? nf : 1), sizeof(int));
    w->hw = malloc(sizeof(double) * (size_t)(nf > 0 ? nf : 1));
    w->hstamp = calloc((size_t)(nf > 0 ? nf : 1), sizeof(int));
    w->hc = malloc(sizeof(int) * (size_t)(nf > 0 ? nf : 1));
    w->gpos = malloc(sizeof(int) * (size_t)ngrp);
    w->glist = malloc(sizeof(int) * (size_t)(maxdeg > 0 ? maxdeg : 1));
    w->gw = malloc(sizeof(double) * (size_t)(maxdeg > 0 ? maxdeg : 1));
    w->mark = calloc((size_t)ngrp, sizeof(int));
    w->cand = malloc(sizeof(int) * (size_t)(maxcand > 0 ? maxcand : 1));
    w->stamp = 0;
    w->work = w->looks = 0;
    if (!w->gpos || !w->glist || !w->gw || !w->mark || !w->cand || !w->fval || !w->fstamp ||
        !w->hw || !w->hstamp || !w->hc)
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
    free(w->mark);
    free(w->cand);
    free(w->fval);
    free(w->fstamp);
    free(w->hw);
    free(w->hstamp);
    free(w->hc);
}

/* Relative error bound between two float summations of the same ng
 * nonnegative terms (ng x 2^-53 each, ng < 10^6): sep_cost's value is only
 * trusted farther than this from the threshold it is compared with. */
#define SEP_TOL 1e-9

/* The neighbours' weight at each coordinate of each dimension, for the
 * search of stamp w->stamp (O(groups x dimensions)). */
static void sep_start(const struct topomap_xchg *x, struct rws *w, int ng)
{
    for (int k = 0; k < x->gnd; k++)
        w->hn[k] = 0;
    for (int q = 0; q < ng; q++) {
        const int *c = x->gcrd + (size_t)w->glist[q] * (size_t)x->gnd;
        for (int k = 0; k < x->gnd; k++) {
            int at = w->foff[k] + c[k];
            if (w->hstamp[at] != w->stamp) {
                w->hstamp[at] = w->stamp;
                w->hw[at] = 0;
                w->hc[w->foff[k] + w->hn[k]++] = c[k];
            }
            w->hw[at] += w->gw[q];
        }
    }
}

/* D(i, b) from the neighbours' groups of the current search, as a sum over
 * dimensions: on a torus or mesh hops are a sum of per-dimension distances,
 * so D(i, b) = sum_k F_k(coord_k(b)), and each F_k(c) is computed once per
 * search (O(distinct coordinates)) instead of once per candidate group.
 * Equal to the group-order sum of eval_group up to rounding (SEP_TOL). */
static double sep_cost(const struct topomap_xchg *x, struct rws *w, int b)
{
    const int *cb = x->gcrd + (size_t)b * (size_t)x->gnd;
    double d = 0;
    for (int k = 0; k < x->gnd; k++) {
        int c = cb[k], at = w->foff[k] + c;
        if (w->fstamp[at] != w->stamp) {
            int dim = x->gdims[k], wr = x->gwrap[k];
            const int *hc = w->hc + w->foff[k];
            const double *hw = w->hw + w->foff[k];
            double f = 0;
            w->looks += w->hn[k];
            for (int q = 0; q < w->hn[k]; q++) {
                int o = hc[q];
                int dd = o > c ? o - c : c - o;
                if (wr && 2 * dd > dim)
                    dd = dim - dd;
                f += hw[o] * (double)dd;
            }
            w->fval[at] = f;
            w->fstamp[at] = w->stamp;
        }
        d += w->fval[at];
    }
    return d;
}

/* Candidate exchanges of rank i (on group a, cost ci, weighted degree wi)
 * with the slots of group b; keeps the best improving one in *best. */
static void eval_group(const struct topomap_xchg *x, int i, int a, int b, double ci, double wi,
                       double reach, struct rws *w, int sep, int ng, int *best,
                       double *bestgain)
{
    int hab = topomap_xchg_hops(x, a, b);
    w->looks++;
    if ((double)hab * wi > reach)
        return;
    /* The filter D(i, b) < cost_i, summed by groups. With sep, sep_cost
     * decides it unless it lies within rounding of cost_i; then the
     * group-order sum decides, as without sep: the same groups pass. */
    double ds = sep ? sep_cost(x, w, b) : 0;
    if (sep && ds > ci * (1 + SEP_TOL))
        return;
    if (!sep || ds >= ci * (1 - SEP_TOL)) {
        double d = 0;
        w->looks += ng;
        for (int k = 0; k < ng; k++)
            d += w->gw[k] * (double)topomap_xchg_hops(x, b, w->glist[k]);
        if (!(d < ci))
            return;
    }
    /* Exact values (summed in CSR order, like cost[]) for the decision. */
    const int64_t *xadj = x->pb->g.xadj;
    double dib = topomap_xchg_cost_at(x, i, b), xi = ci - dib;
    w->work += xadj[i + 1] - xadj[i];
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
            w->work += xadj[j + 1] - xadj[j];
            double gh = topomap_xchg_weight(x, i, j) * (double)hab;
            gain = (xi + xj) - 2.0 * gh;
            scale = ci + dib + x->cost[j] + dja;
        }
        if (improving(gain, scale) && (gain > *bestgain || (gain == *bestgain && s < *best))) {
            *best = s;
            *bestgain = gain;
        }
    }
}

/* The best improving exchange of rank i from its side (x_i > 0): the target
 * slot, or -1. Ties go to the lowest slot. With all = 1 every group is
 * searched; otherwise the groups of i's neighbours and the groups near them
 * in the network (x->near), the neighbourhoods of Schulz & Traeff 2017
 * ("Better process mapping and sparse quadratic assignment", section 4):
 * O(degree x near) groups instead of all of them. */
static int best_move(const struct topomap_xchg *x, int i, struct rws *w, int all)
{
    const topomap_graph_t *g = &x->pb->g;
    double ci = x->cost[i];
    if (!(ci > 0))
        return -1; /* D(i, b) >= 0 = cost: i gains nothing by moving */
    int a = x->rgrp[i], ng = 0;
    w->work += g->xadj[i + 1] - g->xadj[i];
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
    if (all) {
        for (int b = 0; b < x->ngrp; b++)
            if (b != a)
                eval_group(x, i, a, b, ci, wi, reach, w, 0, ng, &best, &bestgain);
    } else {
        /* Candidate groups in a fixed order (neighbours' groups as first
         * seen, each followed by its near groups), each searched once. */
        int nc = 0;
        w->stamp++;
        w->mark[a] = w->stamp;
        for (int k = 0; k < ng; k++) {
            int v = w->glist[k];
            w->looks += 1 + x->near_x[v + 1] - x->near_x[v];
            for (int q = -1; q < x->near_x[v + 1] - x->near_x[v]; q++) {
                int b = q < 0 ? v : x->near[x->near_x[v] + q];
                if (w->mark[b] == w->stamp)
                    continue;
                w->mark[b] = w->stamp;
                w->cand[nc++] = b;
            }
        }
        /* w->stamp is new: sep_cost's values are recomputed for this i. */
        int sep = x->gnd > 0;
        if (sep) {
            sep_start(x, w, ng);
            w->looks += (long)ng * x->gnd;
        }
        for (int c = 0; c < nc; c++)
            eval_group(x, i, a, w->cand[c], ci, wi, reach, w, sep, ng, &best, &bestgain);
    }
    for (int k = 0; k < ng; k++)
        w->gpos[w->glist[k]] = -1;
    return best;
}

/* 1 when the refinement searches every group (see topomap_xchg_refine). */
static int searches_all(int scope, int n, int ngrp)
{
    return scope == TOPOMAP_REFINE_ALL ||
           (scope == TOPOMAP_REFINE_AUTO && (double)n * ngrp <= REFINE_FULL_WORK);
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
    double min_gain = rp ? rp->min_gain : 0;
    int scope = rp ? rp->scope : TOPOMAP_REFINE_AUTO;
    int n = x->n;
    if (n < 1) {
        st->converged = 1;
        return 0;
    }
    const topomap_graph_t *g = &x->pb->g;
    int maxdeg = topomap_graph_maxdeg(g, n);
    int all = searches_all(scope, n, x->ngrp);
    st->all = all;
    if (!all && topomap_xchg_near(x) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    long maxcand = all ? 1 : (long)maxdeg * (1 + TOPOMAP_XCHG_NEAR_MAX);
    if (maxcand > x->ngrp)
        maxcand = x->ngrp;
    double hb = 0;
    for (int i = 0; i < n; i++)
        hb += x->cost[i];
    hb /= 2;
    int *prop = malloc(sizeof(int) * (size_t)n);
    if (!prop)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int nomem = 0, late = 0;
    long work = 0, looks = 0;
    while (max_passes <= 0 || st->passes < max_passes) {
        if (late || (deadline > 0 && topomap_now() > deadline))
            break;
#pragma omp parallel
        {
            struct rws w;
            int ok = rws_init(&w, x, maxdeg, (int)maxcand) == 0;
            if (!ok) {
#pragma omp atomic write
                nomem = 1;
            }
            /* Past the deadline the pass proposes nothing more (a pass
             * over 65,536 ranks of 128-core nodes takes a second): what
             * it proposed so far is committed below, the rest stays. */
#pragma omp for schedule(dynamic, 64)
            for (int i = 0; i < n; i++) {
                int stop;
                if (deadline > 0 && (i & 255) == 0 && topomap_now() > deadline) {
#pragma omp atomic write
                    late = 1;
                }
#pragma omp atomic read
                stop = late;
                prop[i] = ok && !stop ? best_move(x, i, &w, all) : -1;
            }
            /* An integer sum: the same total for any thread count. */
#pragma omp atomic
            work += w.work;
#pragma omp atomic
            looks += w.looks;
            rws_free(&w);
        }
        if (nomem) {
            free(prop);
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
        st->passes++;
        long committed = 0;
        double pass_gain = 0;
        for (int i = 0; i < n; i++) {
            if (prop[i] < 0)
                continue;
            int s1 = x->r2s[i], s2 = prop[i];
            double scale, gain = topomap_xchg_slot_gain(x, s1, s2, &scale);
            int j = x->s2r[s2];
            work += 3 * (g->xadj[i + 1] - g->xadj[i] + (j >= 0 ? g->xadj[j + 1] - g->xadj[j] : 0));
            if (!improving(gain, scale))
                continue; /* an earlier commit made it stale */
            if (x->s2r[s2] < 0)
                st->moves++;
            else
                st->swaps++;
            st->gain += gain;
            pass_gain += gain;
            topomap_xchg_swap(x, s1, s2);
            committed++;
        }
        if (committed == 0) {
            st->converged = 1;
            break;
        }
        /* A pass that removed a negligible share of the hop-bytes: stop. */
        if (min_gain > 0 && pass_gain < min_gain * hb)
            break;
        hb -= pass_gain;
    }
    free(prop);
    /* The costs computed when placing (one sum over the edges) and the
     * searches and commits of the passes. */
    st->work = work + g->xadj[n];
    st->looks = looks;
    topomap_work_add(x->pb, (double)st->work * TOPOMAP_WORK_EDGE +
                                (double)st->looks * TOPOMAP_WORK_LOOK +
                                (double)st->passes * n * TOPOMAP_WORK_RANK);
    return 0;
}

int topomap_refine(const struct topomap_problem *pb, int *r2s,
                   const struct topomap_refine_params *rp, struct topomap_refine_stats *st,
                   char *err, size_t errlen)
{
    struct topomap_xchg x;
    /* The ngrp^2 hop table pays when every group is searched, and on
     * networks whose near lists are read from it; on tori and meshes the
     * neighbourhood search asks the topology (O(1) per pair) instead, so that
     * its cost does not grow with the square of the node count. */
    int scope = rp ? rp->scope : TOPOMAP_REFINE_AUTO;
    int table = searches_all(scope, pb->n, topomap_alloc_nnodes(pb->alloc)) ||
                !topomap_xchg_near_coords(pb->topo);
    if (topomap_xchg_init_table(&x, pb, table, err, errlen) < 0)
        return -1;
    if (x.hop) /* its ngrp^2 entries, each asked from the topology */
        topomap_work_add(pb, (double)x.ngrp * (double)x.ngrp * TOPOMAP_WORK_LOOK);
    topomap_xchg_place(&x, r2s);
    struct topomap_refine_stats local;
    if (!st)
        st = &local;
    double t0 = topomap_now();
    int rc = topomap_xchg_refine_full(&x, rp, st, err, errlen);
    if (rc == 0) {
        memcpy(r2s, x.r2s, sizeof(int) * (size_t)pb->n);
        topomap_log(pb, "refine: %ld passes, %ld swaps, %ld moves, hop-bytes -%.6g, %s search, "
                        "%ld edge steps and %ld group looks, %.3f s",
                    st->passes, st->swaps, st->moves, st->gain, st->all ? "full" : "neighbourhood",
                    st->work, st->looks, topomap_now() - t0);
    }
    topomap_xchg_free(&x);
    return rc;
}

#define DESCEND_ALL_GROUPS 32
int topomap_xchg_descend(struct topomap_xchg *x, const int *active, int nactive,
                         double deadline, double *gain, char *err, size_t errlen)
{
    *gain = 0;
    int n = x->n;
    if (n < 1)
        return 0;
    const topomap_graph_t *g = &x->pb->g;
    int maxdeg = topomap_graph_maxdeg(g, n);
    /* The neighbourhood search (every group only on a few nodes): a descent
     * touches few ranks and must stay cheap on many nodes. */
    int all = x->ngrp <= DESCEND_ALL_GROUPS;
    if (!all && topomap_xchg_near(x) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    long maxcand = all ? 1 : (long)maxdeg * (1 + TOPOMAP_XCHG_NEAR_MAX);
    if (maxcand > x->ngrp)
        maxcand = x->ngrp;
    struct rws w;
    /* A FIFO of at most n ranks (each queued once at a time). */
    int *q = malloc(sizeof(int) * (size_t)n);
    unsigned char *in = calloc((size_t)n, 1);
    if (rws_init(&w, x, maxdeg, (int)maxcand) < 0 || !q || !in) {
        rws_free(&w);
        free(q);
        free(in);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    int head = 0, len = 0;
#define DESCEND_PUSH(r)                                                                            \
    do {                                                                                           \
        if (!in[r]) {                                                                              \
            in[r] = 1;                                                                             \
            q[(head + len++) % n] = (r);                                                           \
        }                                                                                          \
    } while (0)
    for (int k = 0; k < nactive; k++)
        DESCEND_PUSH(active[k]);
    for (long popped = 0; len > 0; popped++) {
        if (deadline > 0 && (popped & 255) == 0 && topomap_now() > deadline)
            break;
        int i = q[head];
        head = (head + 1) % n;
        len--;
        in[i] = 0;
        int s2 = best_move(x, i, &w, all);
        if (s2 < 0)
            continue;
        int s1 = x->r2s[i], j = x->s2r[s2];
        double scale, gn = topomap_xchg_slot_gain(x, s1, s2, &scale);
        if (!improving(gn, scale))
            continue;
        topomap_xchg_swap(x, s1, s2);
        *gain += gn;
        for (int side = 0; side < 2; side++) {
            int r = side ? j : i;
            if (r < 0)
                continue;
            DESCEND_PUSH(r);
            for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++)
                DESCEND_PUSH(g->adj[e]);
        }
    }
#undef DESCEND_PUSH
    rws_free(&w);
    free(q);
    free(in);
    return 0;
}

int topomap_xchg_refine_full(struct topomap_xchg *x, const struct topomap_refine_params *rp,
                             struct topomap_refine_stats *st, char *err, size_t errlen)
{
    struct topomap_refine_stats local;
    if (!st)
        st = &local;
    int rc = topomap_xchg_refine(x, rp, st, err, errlen);
    double deadline = rp ? rp->deadline : 0;
    for (int round = 0; rc == 0 && round < REFINE_GROUP_ROUNDS; round++) {
        double removed;
        struct topomap_refine_stats more;
        rc = topomap_refine_groups(x, deadline, &removed, err, errlen);
        if (rc < 0 || removed <= 0)
            break;
        rc = topomap_xchg_refine(x, rp, &more, err, errlen);
        if (rc == 0) {
            st->passes += more.passes;
            st->swaps += more.swaps;
            st->moves += more.moves;
            st->work += more.work;
            st->looks += more.looks;
            st->gain += more.gain + removed;
            st->converged = more.converged;
        }
    }
    return rc;
}
