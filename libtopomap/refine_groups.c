/* SPDX-License-Identifier: BSD-3-Clause */
/* Whole-node exchanges (ours): the refinement of refine.c moves one rank at a
 * time, so with several slots per node it cannot move a node's whole set of
 * ranks (a "part") to another node: every single step of such a move breaks
 * up the part and costs more than it saves. This pass works one level up, on
 * the quotient graph of the parts: part p holds the ranks that sit on node
 * a, W_pq the traffic between parts p and q, and exchanging the contents of
 * nodes a and b (part p to b, part q to a) saves, exactly as a rank exchange
 * does in refine.c,
 *
 *   gain = (C(p, a) - C(p, b)) + (C(q, b) - C(q, a)) - 2 W_pq hops(a, b),
 *   C(p, g) = sum_r W_pr hops(g, node(r)),
 *
 * which costs O(degree of p + degree of q) in the quotient graph. An empty
 * node holds an empty part (a move). An exchange is allowed when each part
 * fits the slots of its new node. The search is the one of refine.c one level
 * up: every part looks at the nodes of its quotient neighbours and the nodes
 * near those (x->near), or at every node when parts x nodes is small; the best
 * improving exchange of each part is committed at once, in part order, so the
 * result does not depend on the thread count. Passes repeat until one commits
 * nothing or the deadline passes. The ranks of a moved part take the slots of
 * their new node in their old order (cores inside a node are the business of
 * node_place.c). Scotch and VieM have no such step; it is the exchange of
 * blocks that OHTMA's and Wang et al.'s cluster exchanges make at the level
 * of whole nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xchg.h"

/* Below this many parts x nodes every node is a candidate of every part. */
#define GROUPS_FULL_WORK (1 << 18)
#define GROUPS_GAIN_EPS 1e-12

struct qgraph {
    int np;           /* parts = groups */
    int64_t *xadj;    /* np + 1 */
    int *adj;         /* neighbour parts */
    double *w;        /* traffic */
    int *size;        /* ranks of each part */
    int *host;        /* group hosting each part */
    int *part_of;     /* group -> part it hosts */
    double *cur;      /* C(p, host[p]) of every part, kept current */
};

static void qgraph_free(struct qgraph *q)
{
    free(q->xadj);
    free(q->adj);
    free(q->w);
    free(q->size);
    free(q->host);
    free(q->part_of);
    free(q->cur);
}

/* The quotient graph of the placement in x: one part per group. */
static int qgraph_build(struct qgraph *q, const struct topomap_xchg *x)
{
    const topomap_graph_t *g = &x->pb->g;
    int np = x->ngrp, n = x->n;
    memset(q, 0, sizeof *q);
    q->np = np;
    q->xadj = calloc((size_t)np + 1, sizeof(int64_t));
    q->size = calloc((size_t)np, sizeof(int));
    q->host = malloc(sizeof(int) * (size_t)np);
    q->part_of = malloc(sizeof(int) * (size_t)np);
    int *rx = calloc((size_t)np + 1, sizeof(int)), *rl = malloc(sizeof(int) * (size_t)(n ? n : 1));
    double *acc = calloc((size_t)np, sizeof(double));
    int *mark = malloc(sizeof(int) * (size_t)np), *touched = malloc(sizeof(int) * (size_t)np);
    int ok = q->xadj && q->size && q->host && q->part_of && rx && rl && acc && mark && touched;
    if (ok) {
        for (int p = 0; p < np; p++) {
            q->host[p] = q->part_of[p] = p;
            mark[p] = -1;
        }
        for (int i = 0; i < n; i++)
            rx[x->rgrp[i] + 1]++;
        for (int p = 0; p < np; p++)
            rx[p + 1] += rx[p];
        for (int i = 0; i < n; i++)
            rl[rx[x->rgrp[i]] + q->size[x->rgrp[i]]++] = i;
        /* Two sweeps: count the neighbour parts, then fill them. */
        for (int sweep = 0; sweep < 2 && ok; sweep++) {
            int64_t off = 0;
            for (int p = 0; p < np; p++) {
                int nt = 0;
                for (int k = rx[p]; k < rx[p + 1]; k++) {
                    int i = rl[k];
                    for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
                        int r = x->rgrp[g->adj[e]];
                        if (r == p)
                            continue;
                        if (mark[r] != p) {
                            mark[r] = p;
                            acc[r] = 0;
                            touched[nt++] = r;
                        }
                        acc[r] += g->w[e];
                    }
                }
                if (sweep == 1)
                    for (int t = 0; t < nt; t++) {
                        q->adj[off + t] = touched[t];
                        q->w[off + t] = acc[touched[t]];
                    }
                off += nt;
                if (sweep == 0)
                    q->xadj[p + 1] = off;
                mark[p] = -1;
                for (int t = 0; t < nt; t++)
                    mark[touched[t]] = -1;
            }
            if (sweep == 0) {
                q->adj = malloc(sizeof(int) * (size_t)(off ? off : 1));
                q->w = malloc(sizeof(double) * (size_t)(off ? off : 1));
                ok = q->adj && q->w;
            }
        }
    }
    free(rx);
    free(rl);
    free(acc);
    free(mark);
    free(touched);
    if (!ok) {
        qgraph_free(q);
        return -1;
    }
    return 0;
}

/* C(p, grp): the cost of part p on group grp, the others where they are. */
static double part_cost(const struct topomap_xchg *x, const struct qgraph *q, int p, int grp)
{
    double s = 0;
    for (int64_t e = q->xadj[p]; e < q->xadj[p + 1]; e++)
        s += q->w[e] * (double)topomap_xchg_hops(x, grp, q->host[q->adj[e]]);
    return s;
}

static double part_weight(const struct qgraph *q, int p, int r)
{
    for (int64_t e = q->xadj[p]; e < q->xadj[p + 1]; e++)
        if (q->adj[e] == r)
            return q->w[e];
    return 0;
}

static int slots_of(const struct topomap_xchg *x, int grp)
{
    return x->grp_xslot[grp + 1] - x->grp_xslot[grp];
}

/* q->cur of every part: 0, or -1 (ENOMEM). */
static int cur_build(const struct topomap_xchg *x, struct qgraph *q)
{
    q->cur = malloc(sizeof(double) * (size_t)(q->np > 0 ? q->np : 1));
    if (!q->cur)
        return -1;
    for (int p = 0; p < q->np; p++)
        q->cur[p] = part_cost(x, q, p, q->host[p]);
    return 0;
}

/* Parts p and r changed hosts: their costs and those of their quotient
 * neighbours change; recomputed by part_cost, so the same bits as a fresh
 * evaluation. */
static void cur_update(const struct topomap_xchg *x, struct qgraph *q, int p, int r)
{
    int pr[2] = {p, r};
    for (int t = 0; t < 2; t++) {
        int s = pr[t];
        q->cur[s] = part_cost(x, q, s, q->host[s]);
        for (int64_t e = q->xadj[s]; e < q->xadj[s + 1]; e++) {
            int v = q->adj[e];
            q->cur[v] = part_cost(x, q, v, q->host[v]);
        }
    }
}

/* The gain of exchanging the parts on groups a and b (-1 when one does not
 * fit), and in *scale the size of its terms. C(p, a) and C(r, b), the costs
 * where the parts are, come from q->cur. */
static double exchange_gain(const struct topomap_xchg *x, const struct qgraph *q, int a, int b,
                            double *scale)
{
    int p = q->part_of[a], r = q->part_of[b];
    *scale = 0;
    if (a == b || q->size[p] > slots_of(x, b) || q->size[r] > slots_of(x, a) ||
        (q->size[p] == 0 && q->size[r] == 0))
        return -1;
    double cpa = q->cur[p], cpb = part_cost(x, q, p, b);
    double crb = q->cur[r], cra = part_cost(x, q, r, a);
    *scale = cpa + cpb + crb + cra;
    return (cpa - cpb) + (crb - cra) -
           2.0 * part_weight(q, p, r) * (double)topomap_xchg_hops(x, a, b);
}

/* Add group grp to the candidate list (deduplicated with seen[]). */
static void cand_add(int grp, int *cand, int *nc, int *seen, int stamp)
{
    if (seen[grp] != stamp) {
        seen[grp] = stamp;
        cand[(*nc)++] = grp;
    }
}

/* One pass; returns the hop-bytes removed (0: nothing improved). */
static double groups_pass(struct topomap_xchg *x, struct qgraph *q, int all, int *cand, int *seen,
                          int *stamp, long *commits)
{
    double removed = 0;
    for (int p = 0; p < q->np; p++) {
        if (q->size[p] == 0)
            continue;
        int a = q->host[p], nc = 0;
        ++*stamp;
        seen[a] = *stamp;
        if (all) {
            for (int b = 0; b < x->ngrp; b++)
                cand_add(b, cand, &nc, seen, *stamp);
        } else {
            for (int64_t e = q->xadj[p]; e < q->xadj[p + 1]; e++) {
                int h = q->host[q->adj[e]];
                cand_add(h, cand, &nc, seen, *stamp);
                if (x->near_x)
                    for (int z = x->near_x[h]; z < x->near_x[h + 1]; z++)
                        cand_add(x->near[z], cand, &nc, seen, *stamp);
            }
        }
        double best = 0;
        int bb = -1;
        for (int c = 0; c < nc; c++) {
            double scale, gain = exchange_gain(x, q, a, cand[c], &scale);
            if (gain > GROUPS_GAIN_EPS * scale && gain > best) {
                best = gain;
                bb = cand[c];
            }
        }
        if (bb < 0)
            continue;
        int r = q->part_of[bb];
        q->part_of[a] = r;
        q->part_of[bb] = p;
        q->host[p] = bb;
        q->host[r] = a;
        cur_update(x, q, p, r);
        removed += best;
        ++*commits;
    }
    return removed;
}

int topomap_refine_groups(struct topomap_xchg *x, double deadline, double *removed, char *err,
                          size_t errlen)
{
    *removed = 0;
    int ng = x->ngrp, multi = 0;
    for (int u = 0; u < ng && !multi; u++)
        multi = slots_of(x, u) > 1;
    if (!multi || ng < 2)
        return 0; /* one slot per node: rank exchanges already cover this */
    struct qgraph q;
    if (qgraph_build(&q, x) < 0)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    if (cur_build(x, &q) < 0) {
        qgraph_free(&q);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    int all = (double)ng * ng <= GROUPS_FULL_WORK;
    int *cand = malloc(sizeof(int) * (size_t)ng), *seen = malloc(sizeof(int) * (size_t)ng);
    if (!cand || !seen || (!all && topomap_xchg_near(x) < 0)) {
        free(cand);
        free(seen);
        qgraph_free(&q);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int u = 0; u < ng; u++)
        seen[u] = -1;
    int stamp = 0;
    long commits = 0;
    for (;;) {
        if (deadline > 0 && topomap_now() > deadline)
            break;
        double g = groups_pass(x, &q, all, cand, seen, &stamp, &commits);
        if (g <= 0)
            break;
        *removed += g;
    }
    if (commits > 0) {
        /* Ranks of part p (on group p before) to the slots of host[p], in
         * their old slot order. */
        int *r2s = malloc(sizeof(int) * (size_t)(x->n ? x->n : 1));
        int *fill = calloc((size_t)ng, sizeof(int));
        if (!r2s || !fill) {
            free(r2s);
            free(fill);
            free(cand);
            free(seen);
            qgraph_free(&q);
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
        for (int p = 0; p < ng; p++)
            for (int k = x->grp_xslot[p]; k < x->grp_xslot[p + 1]; k++) {
                int i = x->s2r[x->grp_slot[k]];
                if (i < 0)
                    continue;
                int h = q.host[p];
                r2s[i] = x->grp_slot[x->grp_xslot[h] + fill[h]++];
            }
        topomap_xchg_place(x, r2s);
        free(r2s);
        free(fill);
    }
    free(cand);
    free(seen);
    qgraph_free(&q);
    return 0;
}
