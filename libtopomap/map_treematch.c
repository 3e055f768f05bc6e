/* SPDX-License-Identifier: BSD-3-Clause */
/* treematch: TreeMatch (Jeannot, Mercier & Tessier, "Process placement in
 * multicore clusters: algorithmic issues and practical techniques", IEEE
 * TPDS 25(4), 2014; first in Jeannot & Mercier, Euro-Par 2010), on the whole
 * machine: the switch levels of a tree network (fat-tree YAML or Slurm
 * topology.conf), the nodes, the nodes' levels (package, NUMA, core) and the
 * slots, restricted to the allocation (treematch_tree.c).
 *
 * The paper's Algorithm 1, bottom-up: at each level, from the leaves up, the
 * entities (processes first) are grouped into groups of the arity of the
 * level above so that as much traffic as possible stays inside the groups
 * (GroupProcesses, treematch_group.c), and the communication matrix is
 * aggregated to the groups (AggregateComMatrix); the groups are the
 * entities of the next level. Then MapGroups, top-down: the root's group on
 * the root, each group's members on the children of the vertex it sits on.
 *
 * Departures from the paper, on purpose:
 *  - the paper's tree is balanced (every vertex of a level has the same
 *    arity) and a process count that does not fill it is completed by
 *    dummy processes level by level (ExtendComMatrix). The allocation's
 *    tree is not balanced in general (a scattered allocation, a last node
 *    partly used, an unbalanced topology.conf), so the groups of a level are
 *    formed one per vertex of that level, each of that vertex's arity and of
 *    the shapes of its children (a group formed for a subtree can only go
 *    to an isomorphic one); dummy processes, which send nothing, fill every
 *    slot the job does not use, at the leaves. Where every vertex of a level
 *    is alike the grouping is the paper's; elsewhere it is the greedy growth
 *    with the children's shapes as constraints (treematch_group.c);
 *  - the affinity is the symmetric A + A^T of the profile (as every
 *    algorithm here), the matrix is sparse (CSR) at every level: memory is
 *    O(edges + slots x levels), no n x n matrix (the paper's dense matrix of
 *    the processes would take 32 GiB at 65,536 ranks).
 * The tree is ordered (switches, nodes, cores ascending), ties go to the
 * lowest entity, so the result depends only on the inputs.
 *
 * That is `treematch-paper`. `treematch` (ours) replaces the bottom-up
 * grouping, which meets the costly network levels last, by a top-down
 * split of the tree down to the cores (treematch_kpart.c), then places each
 * node's processes with the better of TreeMatch's grouping (tm_match() on
 * the node's subtree, with our refinements: treematch_group.c,
 * treematch_refine.c) and that split (node_place.c), then runs the SumCom
 * refinement of every level (treematch_sumcom.c).
 *
 * TreeMatch's own grouping and mapping (tm_match) is in treematch_match.c,
 * below both this file and node_place.c, which use it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auto.h"
#include "treematch.h"

/* treematch (improve = 1) and treematch-paper (0) on the whole machine. */
static int map_tm(const struct topomap_problem *pb, int improve, int *r2s, char *err,
                  size_t errlen)
{
    const topomap_topology_t *t = pb->topo;
    if (topomap_topology_net_depth(t) < 0)
        return topomap_fail(err, errlen, ENOTSUP,
                            "treematch needs a tree network (a fat-tree or a Slurm topology.conf), "
                            "not a %s", topomap_topology_kind(t));
    int ns = pb->nslots;
    int *slots = malloc(sizeof(int) * (size_t)ns), *leaf_of = malloc(sizeof(int) * (size_t)(pb->n + 1));
    struct tm_tree T;
    if (!slots || !leaf_of) {
        free(slots), free(leaf_of);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++)
        slots[s] = s;
    int rc = -1;
    if (tm_tree_build(&T, pb, slots, ns, 1) < 0) {
        rc = topomap_fail(err, errlen, errno, "treematch: %s",
                          errno == ENOMEM ? "out of memory" : "the tree is too deep");
    } else {
        /* treematch-paper: the paper's Algorithm 1. treematch (ours, see
         * treematch_kpart.c): the top-down split down to the cores, then
         * per node the better of TreeMatch's grouping and that split
         * (node_place.c, each refined), then the SumCom refinement of
         * every level (treematch_sumcom.c). */
        if (improve)
            rc = tm_kpart(&T, T.depth - 1, &pb->g, pb->n, pb, leaf_of, err, errlen);
        else
            rc = tm_match(&T, &pb->g, pb->n, 0, pb, 0, leaf_of, err, errlen);
        for (int r = 0; rc == 0 && r < pb->n; r++)
            r2s[r] = T.leaf_slot[leaf_of[r]];
        tm_tree_free(&T);
        if (rc == 0 && improve)
            rc = topomap_node_place(pb, r2s,
                                    pb->quick_place ? TOPOMAP_NODE_PLACE_REFINE
                                                    : TOPOMAP_NODE_PLACE_AUTO,
                                    NULL, err, errlen);
        if (rc == 0 && improve)
            rc = topomap_refine_sumcom(pb, r2s, err, errlen);
    }
    free(slots), free(leaf_of);
    return rc;
}

/* treematch's starts on small jobs (ours, the paper has one): the top-down
 * split cuts with METIS, whose bisections depend on the seed, so each of
 * TM_STARTS seeds (opts.seed, +1, ...) gives a mapping and the lowest
 * SumCom is kept (ties: the first). On the tree set's 16-core nodes the
 * best of 4 seeds was 0.6% below the first seed's SumCom on the geometric
 * mean (up to 4% on a METIS partition of add32), the best of 8 0.7%: 5.
 * `auto` keeps its candidates of one start each, one per seed
 * (topomap_map_treematch_one): it judges them by its own key (the
 * busiest-link guard, a tapered tree's congestion), which the lowest
 * SumCom of the starts is not (picked here, it raised auto's busiest link
 * by 23% on a tapered fat-tree case of the benchmark). Up to
 * TM_STARTS_MAX ranks (each start costs a whole treematch); a start that
 * fails or the deadline ends the starts, keeping the best so far. */
#define TM_STARTS 5
#define TM_STARTS_MAX 1024

int tm_map_starts(const struct topomap_problem *pb, int starts, int *r2s, char *err,
                  size_t errlen)
{
    int rc = map_tm(pb, 1, r2s, err, errlen);
    if (rc < 0 || starts < 2)
        return rc;
    int *tmp = malloc(sizeof(int) * (size_t)(pb->n ? pb->n : 1));
    if (!tmp)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    struct topomap_problem sub = *pb;
    topomap_opts_t o = *pb->opts;
    sub.opts = &o;
    double best = auto_score(pb, r2s, 1);
    for (int q = 1; q < starts && !topomap_expired(pb); q++) {
        o.seed = pb->opts->seed + (uint64_t)q;
        if (map_tm(&sub, 1, tmp, err, errlen) < 0) {
            if (errno == ENOMEM) {
                free(tmp);
                return -1;
            }
            break;
        }
        double sc = auto_score(pb, tmp, 1);
        if (sc < best) {
            best = sc;
            memcpy(r2s, tmp, sizeof(int) * (size_t)pb->n);
        }
    }
    free(tmp);
    return 0;
}

int topomap_map_treematch(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return tm_map_starts(pb, pb->n <= TM_STARTS_MAX ? TM_STARTS : 1, r2s, err, errlen);
}

int topomap_map_treematch_one(const struct topomap_problem *pb, int *r2s, char *err,
                              size_t errlen)
{
    return tm_map_starts(pb, 1, r2s, err, errlen);
}

int topomap_map_treematch_paper(const struct topomap_problem *pb, int *r2s, char *err,
                                size_t errlen)
{
    return map_tm(pb, 0, r2s, err, errlen);
}
