/* SPDX-License-Identifier: BSD-3-Clause */
/* Iterated local search (ours; the standard escape from the local optima of
 * a swap neighbourhood, e.g. Stuetzle's ILS for the quadratic assignment
 * problem, of which mapping is a sparse case): the refinement of refine.c
 * and refine_groups.c stops where no single exchange improves. From the best
 * mapping found so far, a kick moves a few ranks at random, each towards one
 * of its communication partners (to a random slot on a partner's node, or on
 * a node near it), the refinement runs again, and the result is kept when it
 * is strictly better; otherwise the search goes back to the best mapping.
 * The kicks come from the seed, and the number of tries is fixed by the
 * caller, so the result depends only on the inputs and the seed (and on the
 * deadline when one cuts the tries short). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "refine.h"

/* Ranks moved by one kick: about 1/ILS_KICK_SHARE of them, at least 2. */
#define ILS_KICK_SHARE 8
#define ILS_KICK_MAX 64
#define ILS_GAIN_EPS 1e-9

static double placed_hop_bytes(const struct topomap_xchg *x)
{
    double s = 0;
    for (int i = 0; i < x->n; i++)
        s += x->cost[i];
    return s / 2;
}

/* A random slot of group grp. */
static int random_slot(const struct topomap_xchg *x, int grp, uint64_t *rng)
{
    int lo = x->grp_xslot[grp], cnt = x->grp_xslot[grp + 1] - lo;
    return x->grp_slot[lo + (int)topomap_rng_below(rng, (uint64_t)cnt)];
}

/* Move about n / ILS_KICK_SHARE random ranks (at most ILS_KICK_MAX) towards
 * a random partner; the moved ranks, those they displaced and all their
 * neighbours go to act[] (returned: their count, with repeats). */
static int kick(struct topomap_xchg *x, uint64_t *rng, int *act)
{
    const topomap_graph_t *g = &x->pb->g;
    int m = x->n / ILS_KICK_SHARE, na = 0;
    m = m < 2 ? 2 : m > ILS_KICK_MAX ? ILS_KICK_MAX : m;
    for (int k = 0; k < m; k++) {
        int i = (int)topomap_rng_below(rng, (uint64_t)x->n);
        int64_t deg = g->xadj[i + 1] - g->xadj[i];
        int grp;
        if (deg > 0) {
            int l = g->adj[g->xadj[i] + (int64_t)topomap_rng_below(rng, (uint64_t)deg)];
            grp = x->rgrp[l];
            /* Half the time a node near the partner's instead. */
            if (x->near_x && topomap_rng_below(rng, 2)) {
                int nn = x->near_x[grp + 1] - x->near_x[grp];
                if (nn > 0)
                    grp = x->near[x->near_x[grp] + (int)topomap_rng_below(rng, (uint64_t)nn)];
            }
        } else {
            grp = (int)topomap_rng_below(rng, (uint64_t)x->ngrp);
        }
        if (grp == x->rgrp[i])
            continue;
        int s = random_slot(x, grp, rng), j = x->s2r[s];
        topomap_xchg_swap(x, x->r2s[i], s);
        for (int side = 0; side < 2; side++) {
            int r = side ? j : i;
            if (r < 0)
                continue;
            act[na++] = r;
            for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++)
                act[na++] = g->adj[e];
        }
    }
    return na;
}

int topomap_refine_ils(const struct topomap_problem *pb, int *r2s, int tries, double deadline,
                       double *removed, char *err, size_t errlen)
{
    *removed = 0;
    if (pb->n < 2 || tries < 1)
        return 0;
    struct topomap_xchg x;
    if (topomap_xchg_init(&x, pb, err, errlen) < 0)
        return -1;
    const topomap_graph_t *g = &pb->g;
    int maxdeg = topomap_graph_maxdeg(g, pb->n);
    int *best = malloc(sizeof(int) * (size_t)pb->n);
    int *act = malloc(sizeof(int) * (size_t)ILS_KICK_MAX * 2 * (size_t)(maxdeg + 1));
    if (!best || !act || topomap_xchg_near(&x) < 0) {
        free(best);
        free(act);
        topomap_xchg_free(&x);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    struct topomap_refine_params rp = {0, deadline, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
    topomap_xchg_place(&x, r2s);
    double start = placed_hop_bytes(&x);
    int rc = topomap_xchg_refine_full(&x, &rp, NULL, err, errlen);
    double hb = placed_hop_bytes(&x);
    memcpy(best, x.r2s, sizeof(int) * (size_t)pb->n);
    uint64_t rng = pb->opts->seed ^ 0x1f5a7e3c9d2b4861ULL;
    for (int t = 0; rc == 0 && t < tries; t++) {
        if (deadline > 0 && topomap_now() > deadline)
            break;
        double gain;
        int na = kick(&x, &rng, act);
        rc = topomap_xchg_descend(&x, act, na, deadline, &gain, err, errlen);
        double h = placed_hop_bytes(&x);
        if (rc == 0 && h < hb * (1 - ILS_GAIN_EPS)) {
            hb = h;
            memcpy(best, x.r2s, sizeof(int) * (size_t)pb->n);
        } else {
            topomap_xchg_place(&x, best);
        }
    }
    /* Whole-node exchanges and a last full refinement of the best. */
    if (rc == 0) {
        rc = topomap_xchg_refine_full(&x, &rp, NULL, err, errlen);
        double h = placed_hop_bytes(&x);
        if (rc == 0 && h < hb) {
            hb = h;
            memcpy(best, x.r2s, sizeof(int) * (size_t)pb->n);
        }
    }
    /* Never worse than what came in. */
    if (rc == 0 && hb < start) {
        memcpy(r2s, best, sizeof(int) * (size_t)pb->n);
        *removed = start - hb;
    }
    free(best);
    free(act);
    topomap_xchg_free(&x);
    return rc;
}
