/* SPDX-License-Identifier: BSD-3-Clause */
/* metis: recursive bisection of the communication graph with METIS, the
 * baseline of Hoefler & Snir 2011 (recursive bisection mapping) cited by the
 * OHTMA paper (section 3). METIS_PartGraphRecursive cuts the symmetric
 * affinity graph into one part per node used, with target part sizes equal to
 * the node's slots, minimising the weight of the cut (the bytes that leave a
 * node). Part p goes to the p-th node used, in allocation order: recursive
 * bisection numbers parts so that consecutive parts come from the same
 * subtree, and allocation order is usually topological (Slurm allocates
 * consecutive nodes of a switch or a torus line).
 *
 * Departures from the textbook method: the topology is not bisected as well
 * (allocation order stands in for it), and METIS only balances parts
 * approximately, so ranks over a node's slots are moved afterwards to the node
 * with free slots where they add the fewest hop-bytes. The nodes used are the
 * first ones of the allocation that hold all ranks, as block uses them. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metis_call.h"
#include "internal.h"

/* Hop-bytes rank i would add on node index q of the nodes used. */
static double cost_on(const struct topomap_problem *pb, const int *part, const int *node_of, int i,
                      int q)
{
    double c = 0;
    for (int64_t e = pb->g.xadj[i]; e < pb->g.xadj[i + 1]; e++) {
        int j = pb->g.adj[e];
        if (part[j] >= 0)
            c += pb->g.w[e] * topomap_topology_hops(pb->topo, node_of[q], node_of[part[j]]);
    }
    return c;
}

int topomap_map_metis(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    int n = pb->n, rc = -1;
    /* Nodes used: slot ranges of the allocated nodes, in order, until n fit. */
    int nn = topomap_alloc_nnodes(pb->alloc);
    int *first = malloc(sizeof(int) * (size_t)nn);
    int *cap = malloc(sizeof(int) * (size_t)nn);
    int *node_of = malloc(sizeof(int) * (size_t)nn);
    int *part = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *fill = calloc((size_t)nn, sizeof(int));
    int *over = malloc(sizeof(int) * (size_t)(n ? n : 1));
    idx_t *xadj = malloc(sizeof(idx_t) * (size_t)(n + 1));
    idx_t *adj = malloc(sizeof(idx_t) * (size_t)(pb->g.xadj[n] ? pb->g.xadj[n] : 1));
    idx_t *wgt = malloc(sizeof(idx_t) * (size_t)(pb->g.xadj[n] ? pb->g.xadj[n] : 1));
    idx_t *ipart = malloc(sizeof(idx_t) * (size_t)(n ? n : 1));
    real_t *tpw = malloc(sizeof(real_t) * (size_t)nn);
    if (!first || !cap || !node_of || !part || !fill || !over || !xadj || !adj || !wgt ||
        !ipart || !tpw) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (pb->g.xadj[n] > INT32_MAX) {
        topomap_fail(err, errlen, E2BIG, "metis: %lld graph entries exceed METIS's 32-bit indices",
                     (long long)pb->g.xadj[n]);
        goto out;
    }
    int used = 0, placed = 0;
    for (int s = 0; s < pb->nslots && placed < n; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            first[used] = s;
            node_of[used] = pb->slot_node[s];
            cap[used++] = 0;
        }
        cap[used - 1]++;
        placed++;
    }

    if (used <= 1 || pb->g.xadj[n] == 0) {
        /* One node, or nothing to cut: every part assignment is as good. */
        for (int i = 0; i < n; i++)
            part[i] = -1;
    } else {
        /* METIS wants integer weights: scale to [1, 2^20] (relative order kept
         * to 1 part in a million; exact bytes do not matter for a cut). */
        double maxw = 0;
        for (int64_t e = 0; e < pb->g.xadj[n]; e++)
            maxw = pb->g.w[e] > maxw ? pb->g.w[e] : maxw;
        for (int i = 0; i <= n; i++)
            xadj[i] = (idx_t)pb->g.xadj[i];
        for (int64_t e = 0; e < pb->g.xadj[n]; e++) {
            adj[e] = pb->g.adj[e];
            double w = maxw > 0 ? ceil(pb->g.w[e] / maxw * (1 << 20)) : 1;
            wgt[e] = (idx_t)(w < 1 ? 1 : w);
        }
        for (int q = 0; q < used; q++)
            tpw[q] = (real_t)cap[q] / (real_t)n;
        idx_t nv = n, ncon = 1, np = used, objval = 0;
        idx_t options[METIS_NOPTIONS];
        real_t ub = 1.001f;
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_SEED] = (idx_t)(pb->opts->seed & 0x7fffffff);
        options[METIS_OPTION_NUMBERING] = 0;
        int st = topomap_metis_recursive(&nv, &ncon, xadj, adj, NULL, NULL, wgt, &np, tpw, &ub,
                                          options, &objval, ipart);
        if (st != METIS_OK) {
            topomap_fail(err, errlen, st == METIS_ERROR_MEMORY ? ENOMEM : EINVAL,
                         "METIS_PartGraphRecursive failed (status %d)", st);
            goto out;
        }
        for (int i = 0; i < n; i++)
            part[i] = (int)ipart[i];
    }

    /* Keep each rank in its part while the part has room (ranks in order);
     * the others go where they add the fewest hop-bytes (ties: first node). */
    int nover = 0;
    for (int i = 0; i < n; i++) {
        if (part[i] >= 0 && fill[part[i]] < cap[part[i]])
            fill[part[i]]++;
        else
            over[nover++] = i, part[i] = -1;
    }
    for (int k = 0; k < nover; k++) {
        int i = over[k], bestq = -1;
        double best = INFINITY;
        for (int q = 0; q < used; q++) {
            if (fill[q] >= cap[q])
                continue;
            double c = cost_on(pb, part, node_of, i, q);
            if (c < best) {
                best = c;
                bestq = q;
            }
        }
        part[i] = bestq;
        fill[bestq]++;
    }
    /* Slots: a node's ranks in rank order on its slots in order. */
    memset(fill, 0, sizeof(int) * (size_t)nn);
    for (int i = 0; i < n; i++)
        r2s[i] = first[part[i]] + fill[part[i]]++;
    rc = 0;
out:
    free(first);
    free(cap);
    free(node_of);
    free(part);
    free(fill);
    free(over);
    free(xadj);
    free(adj);
    free(wgt);
    free(ipart);
    free(tpw);
    return rc;
}
