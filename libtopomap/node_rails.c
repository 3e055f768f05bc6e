/* SPDX-License-Identifier: BSD-3-Clause */
/* Rails: on a rail-optimised fabric (gpu_fabric rails, topo_fabric.c) GPU g
 * of every node has its NIC on rail switch g mod rails, and traffic between
 * GPUs of different nodes on different rails goes through the spine. Once
 * the nodes of the ranks are chosen (and the node placement has put them on
 * GPUs), this pass permutes each node's ranks over its GPUs so that the
 * bytes they exchange with ranks of other NVLink domains (other nodes when
 * there are none) stay on one rail: per node, the assignment of its ranks
 * to its slots that maximises the bytes to those ranks on the same rail (exact: a dynamic programme over the
 * subsets of the node's slots, 2^slots x slots, for nodes of at most 16
 * slots), node after node, sweeping until nothing improves. A node's new
 * assignment is kept only when it strictly raises those bytes and does not
 * raise the node's SumCom (on NVSwitch nodes every GPU pair costs the same,
 * so any permutation keeps it), so the pass never makes SumCom, hop-bytes or
 * the nodes' loads worse: ranks never leave their node. Each step raises the
 * same-rail bytes (a sum over pairs of different nodes, the pairs of one
 * node being fixed), so the sweeps end. Ours; doc/networks.md, "GPU
 * fabrics". Arnold (ByteDance, NeurIPS 2025) aligns groups with the network
 * the same way in spirit; it is not this algorithm. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define RAILS_MAX_SLOTS 16
#define RAILS_SWEEPS 8

/* Bytes of rank r to ranks on other nodes, by the rail they sit on. */
static void rail_weights(const struct topomap_problem *pb, const int *r2s, int r, int rails,
                         double *w)
{
    memset(w, 0, sizeof(double) * (size_t)rails);
    int node = pb->slot_node[r2s[r]], dom = topomap_topology_domain(pb->topo, node);
    for (int64_t k = pb->g.xadj[r]; k < pb->g.xadj[r + 1]; k++) {
        int s = r2s[pb->g.adj[k]], v = pb->slot_node[s];
        /* Bytes inside an NVLink domain take no rail. */
        if (v != node && (dom < 0 || topomap_topology_domain(pb->topo, v) != dom))
            w[pb->slot_core[s] % rails] += pb->g.w[k];
    }
}

/* SumCom of the pairs inside one node: ranks rk[0 .. nr-1] at slots at[]. */
static double node_sumcom(const struct topomap_problem *pb, const int *rk, const int *at, int nr)
{
    double c = 0;
    for (int i = 0; i < nr; i++)
        for (int64_t k = pb->g.xadj[rk[i]]; k < pb->g.xadj[rk[i] + 1]; k++)
            for (int j = 0; j < nr; j++)
                if (pb->g.adj[k] == rk[j] && j > i) {
                    int si = at[i], sj = at[j];
                    c += pb->g.w[k] * topomap_topology_cost(pb->topo, pb->slot_node[si],
                                                            pb->slot_core[si], pb->slot_node[sj],
                                                            pb->slot_core[sj]);
                }
    return c;
}

/* One node: ranks rk[0 .. nr-1], slots sl[0 .. ns-1]; 1 when it changed. */
static int node_align(const struct topomap_problem *pb, int *r2s, const int *rk, int nr,
                      const int *sl, int ns, int rails, double *w, double *dp, int *choice)
{
    for (int i = 0; i < nr; i++)
        rail_weights(pb, r2s, rk[i], rails, w + (size_t)i * rails);
    double now = 0;
    for (int i = 0; i < nr; i++)
        now += w[(size_t)i * rails + pb->slot_core[r2s[rk[i]]] % rails];
    /* dp[mask]: best bytes with ranks 0 .. popcount(mask)-1 on the slots of mask. */
    size_t nm = (size_t)1 << ns;
    for (size_t m = 0; m < nm; m++)
        dp[m] = -1;
    dp[0] = 0;
    for (size_t m = 0; m < nm; m++) {
        if (dp[m] < 0)
            continue;
        int i = __builtin_popcountll(m);
        if (i == nr)
            continue;
        for (int s = 0; s < ns; s++) {
            if (m & ((size_t)1 << s))
                continue;
            size_t m2 = m | ((size_t)1 << s);
            double v = dp[m] + w[(size_t)i * rails + pb->slot_core[sl[s]] % rails];
            if (v > dp[m2]) {
                dp[m2] = v;
                choice[m2] = s;
            }
        }
    }
    size_t best = 0;
    for (size_t m = 0; m < nm; m++)
        if (__builtin_popcountll(m) == nr && dp[m] > dp[best])
            best = m;
    if (!(dp[best] > now * (1 + 1e-12) + 1e-300))
        return 0;
    int at[RAILS_MAX_SLOTS], old[RAILS_MAX_SLOTS];
    for (size_t m = best; m;) {
        int s = choice[m], i = __builtin_popcountll(m) - 1;
        at[i] = sl[s];
        m &= ~((size_t)1 << s);
    }
    for (int i = 0; i < nr; i++)
        old[i] = r2s[rk[i]];
    if (node_sumcom(pb, rk, at, nr) > node_sumcom(pb, rk, old, nr) * (1 + 1e-12))
        return 0;
    for (int i = 0; i < nr; i++)
        r2s[rk[i]] = at[i];
    return 1;
}

int topomap_node_rails(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    int rails = topomap_topology_rails(pb->topo);
    if (rails < 2 || pb->n < 2)
        return 0;
    int n = pb->n, ns = pb->nslots;
    /* Slots are numbered node by node (allocation order); ranks by node. */
    int *first = malloc(sizeof(int) * (size_t)(ns + 1)), *rk = malloc(sizeof(int) * (size_t)n);
    int *cnt = calloc((size_t)ns + 1, sizeof(int)), *nodeof = malloc(sizeof(int) * (size_t)ns);
    double *w = malloc(sizeof(double) * (size_t)RAILS_MAX_SLOTS * (size_t)rails);
    double *dp = malloc(sizeof(double) << RAILS_MAX_SLOTS);
    int *choice = malloc(sizeof(int) << RAILS_MAX_SLOTS);
    int rc = 0;
    if (!first || !rk || !cnt || !nodeof || !w || !dp || !choice) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    int nn = 0;
    for (int s = 0; s < ns; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1])
            first[nn++] = s;
        nodeof[s] = nn - 1;
    }
    first[nn] = ns;
    for (int r = 0; r < n; r++)
        cnt[nodeof[r2s[r]] + 1]++;
    for (int i = 0; i < nn; i++)
        cnt[i + 1] += cnt[i];
    for (int r = 0; r < n; r++) /* ascending ranks within a node */
        rk[cnt[nodeof[r2s[r]]]++] = r;
    for (int i = nn; i > 0; i--)
        cnt[i] = cnt[i - 1];
    cnt[0] = 0;
    int sl[RAILS_MAX_SLOTS];
    for (int sweep = 0, changed = 1; changed && sweep < RAILS_SWEEPS; sweep++) {
        changed = 0;
        for (int i = 0; i < nn && !topomap_expired(pb); i++) {
            int nsl = first[i + 1] - first[i], nr = cnt[i + 1] - cnt[i];
            if (nsl > RAILS_MAX_SLOTS || nr < 1)
                continue;
            for (int s = 0; s < nsl; s++)
                sl[s] = first[i] + s;
            changed |= node_align(pb, r2s, rk + cnt[i], nr, sl, nsl, rails, w, dp, choice);
        }
    }
out:
    free(first);
    free(rk);
    free(cnt);
    free(nodeof);
    free(w);
    free(dp);
    free(choice);
    return rc;
}
