/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to treematch (map_treematch.c, treematch_tree.c, treematch_group.c)
 * and the node-internal placement (node_place.c): never installed. */
#ifndef TOPOMAP_TREEMATCH_H
#define TOPOMAP_TREEMATCH_H

#include <stdint.h>

#include "internal.h"

/* A tree whose leaves are slots of an allocation: levels 0 (the root) ..
 * depth (the leaves). The vertices of level d are numbered 0 .. nv[d] - 1 in
 * tree order; the children of vertex v of level d < depth are the vertices
 * cx[d][v] .. cx[d][v + 1] - 1 of level d + 1. shape[d][v]: two vertices of
 * one level with the same id have isomorphic subtrees (the same multiset of
 * children shapes), so a group formed for one fits the other. leaf_slot[x]:
 * the slot of leaf x. name[d]: what level d holds ("switch", "node",
 * "socket", "pad", "slot", ...). */
/* Levels of a tree: the switches (a topology.conf may be deep), the node, its
 * levels, the slot. */
#define TM_MAX_DEPTH 64
struct tm_tree {
    int depth;
    int *nv;          /* depth + 1 */
    int **cx;         /* depth arrays of nv[d] + 1 */
    int **shape;      /* depth + 1 arrays of nv[d] */
    int *leaf_slot;   /* nv[depth] */
    const char **name; /* depth + 1 */
};

/* treematch_tree.c. The tree of the ns slots slots[0 .. ns) of pb's
 * allocation: with whole = 1 the tree network's switch levels (the network
 * must be a tree: topomap_topology_net_depth() >= 0), the nodes, the nodes'
 * levels and the slots; with whole = 0 the slots must all be on one node
 * and the tree is that node's levels (root = the node). Vertices without an
 * allocated slot below are left out. 0, or -1 + errno (ENOMEM). */
int tm_tree_build(struct tm_tree *T, const struct topomap_problem *pb, const int *slots, int ns,
                  int whole);
void tm_tree_free(struct tm_tree *T);

/* Graphs are symmetric, weighted, without diagonal, in CSR with sorted rows
 * (topomap_graph_t): the processes' (pb->g, not owned) or an aggregated one,
 * whose arrays tm_graph_free() frees. */
void tm_graph_free(topomap_graph_t *g);

/* How a level's groups were found (for the log and the tests). */
enum { TM_UNARY = 0, TM_EXACT, TM_LIST, TM_GREEDY, TM_SPLIT, TM_BUCKET };
const char *tm_method_name(int method);

/* treematch_group.c. The classic grouping (every group has k members of one
 * kind): split the p entities of graph g (p = k x ngroups) into groups of k
 * with as much weight inside the groups as the method finds; grp[e] = the
 * group of entity e, groups numbered by their lowest member. Method: exact
 * search, the paper's list of all groups with a greedy independent set, or
 * the greedy growth; arities that are too large for the list are split into
 * their prime factors (grouped factor by factor). *method receives what was
 * used. 0, or -1 + errno (ENOMEM). */
int tm_group_classic(const topomap_graph_t *g, int k, int *grp, int *method);
/* AggregateComMatrix: the graph between the ng groups of grp (grp[e] in
 * 0 .. ng-1): the weight between two groups is the sum over their members.
 * O(edges + ng log ng). 0, or -1 + errno (ENOMEM). */
int tm_aggregate(const topomap_graph_t *g, const int *grp, int ng, topomap_graph_t *out);
/* The weight inside the groups of grp (each pair once). */
double tm_group_weight(const topomap_graph_t *g, const int *grp);
/* The shaped grouping: nv groups, group v needing cx[v + 1] - cx[v] members
 * whose shapes (ent_shape) are need[cx[v] .. cx[v + 1]) (sorted); the m
 * entities' shapes match the needs as multisets. Greedy growth (as the
 * large-problem heuristic): grp[e] = v. 0, or -1 + errno. */
int tm_group_shaped(const topomap_graph_t *g, const int *ent_shape, int nv, const int *cx,
                    const int *need, int *grp);

/* Improvement (ours, not in the paper): exchanges of two entities of one
 * shape between groups while one raises the weight inside the groups
 * (first improvement, entity by entity, at most max_passes passes). grp
 * holds ng groups. 0, or -1 + errno (ENOMEM). */
int tm_group_refine(const topomap_graph_t *g, const int *ent_shape, int ng, int *grp,
                    int max_passes);

/* treematch_refine.c. Improvement (ours): the entities of level l sit on
 * its vertices (at[v] = entity of vertex v, g their graph); exchange
 * entities between vertices of one shape while that lowers the SumCom
 * between them (see the file). 0, or -1 + errno (ENOMEM). */
int tm_level_refine(const struct tm_tree *T, int l, const topomap_graph_t *g, int *at,
                    const struct topomap_problem *pb, int max_passes);

/* Passes of the group and level refinements. */
#define TM_REFINE_PASSES 8

/* treematch_kpart.c. Improvement (ours): the top-down split of levels
 * 0 .. levels-1: the processes 0 .. n-1 (graph g) under each vertex are cut
 * (METIS bisections, FM) into one part per child, of the child's allocated
 * leaves (compact when there are fewer processes), down to the vertices of
 * level `levels`, whose processes take their first leaves in order:
 * leaf_of[e]. 0, or -1 + errno (ENOMEM, E2BIG, EINVAL, ETIMEDOUT) with err. */
int tm_kpart(const struct tm_tree *T, int levels, const topomap_graph_t *g, int n,
             const struct topomap_problem *pb, int *leaf_of, char *err, size_t errlen);

/* treematch_match.c. TreeMatch on tree T (built on pb's allocation):
 * entities 0 .. n-1 are the processes, with the affinity graph g (n rows),
 * the leaves beyond them dummies. Fills leaf_of[e] (e < n) with the leaf of
 * each process. improve: 1 adds our improvements (tm_group_refine() on the
 * way up, tm_level_refine() on the way down). quiet: 1 ignores pb's
 * deadline and log. 0, or -1 + errno (ENOMEM, ETIMEDOUT) with err. */
int tm_match(const struct tm_tree *T, const topomap_graph_t *g, int n, int improve,
             const struct topomap_problem *pb, int quiet, int *leaf_of, char *err,
             size_t errlen);

/* map_treematch.c: treematch from `starts` seeds (opts.seed, +1, ...), the
 * lowest SumCom kept (ties: the first); topomap_map_treematch() is it with 5
 * starts up to 1024 ranks, else 1. 0, or -1 + errno and err. */
int tm_map_starts(const struct topomap_problem *pb, int starts, int *r2s, char *err,
                  size_t errlen);

#endif
