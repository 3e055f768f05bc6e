/* SPDX-License-Identifier: BSD-3-Clause */
/* The top-down split, an improvement to TreeMatch (ours) used by
 * `treematch`; `treematch-paper` groups bottom-up at every level.
 *
 * Why: TreeMatch's bottom-up grouping forms the small groups first (the
 * cores of a NUMA domain, then sockets, then nodes) and meets the network
 * last, where the costs are largest: groups of six chosen for the traffic
 * inside them are then glued into nodes, and a node's border is whatever
 * the small groups left. Between nodes a byte costs 2 hops or more in the
 * benchmark against at most 0.5 inside a node, so the cut between nodes
 * decides SumCom, and a top-down cut (Scotch's recursive bisection, drb)
 * finds a better one. TreeMatch's own library does the same in one case:
 * when the processes are restricted to some of the machine's cores it
 * builds the tree by a top-down k-partitioning of the affinity matrix
 * (tm_kpartitioning.c of Tessier's TreeMatch, as shipped with Open MPI; its
 * code is not used here), and an allocation is such a restriction.
 *
 * The split, level by level from the root down to the cores: the
 * processes under each vertex are cut into one part per child, of the
 * child's allocated slots. On a tree every child of a vertex is as far from
 * everything outside the vertex as its siblings are, so the cut inside the
 * vertex is all that the split there decides (unlike drb's bisections on a
 * torus, no external gains). A split into k children is a recursive
 * bisection of the children (contiguous groups, children by target size):
 *  - each bisection: METIS (recursive bisection, target sizes as part
 *    weights), a fix-up to exact sizes (the side over its size gives up
 *    its processes most attached to the other side), then Fiduccia-
 *    Mattheyses passes with the sizes kept (moves alternate between the
 *    sides; each pass keeps its best prefix). At switch levels, up to
 *    KP_TRIES_MAX processes, KP_TRIES seeds and the least cut;
 *  - the first cut fixes which children are cut apart first and no cut
 *    below undoes it: where the targets differ (a partly used node), every
 *    first cut is tried (up to KP_TRY_K children; three beyond) and the
 *    split with the least traffic between children kept (on 64 ranks on
 *    nodes of 24, 24 and 16 cores, 48 | 16 then 24 | 24 beats 24 | 40 then
 *    24 | 16);
 *  - then each pair of children that exchange traffic gets FM passes on
 *    their union from where it is (sizes kept).
 * With fewer processes than slots the processes are kept compact: the
 * fewest children, the largest filled, the rest on the smallest child that
 * holds it. Children of one slot each (the cores of a NUMA domain) are all
 * alike and take the processes in order. The caller then puts each node
 * through the node-internal placement (node_place.c: the better of
 * TreeMatch's grouping and this split, each refined) and the SumCom
 * refinement (treematch_sumcom.c). Cost: O(edges) per level for the
 * bisections' graphs, METIS and FM near linear. The bisection itself is
 * in treematch_bisect.c.
 *
 * Threads: the vertices of a level, the two groups of each cut and the
 * pairs of children of a wave run as OpenMP tasks, each thread in its own
 * workspace (treematch_split.h), each task writing only its own processes
 * and ranges: the split is the one of one thread (doc/algorithms.md,
 * Threads). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "treematch_split.h"

/* Sweeps of the pairwise refinement after a split into three parts or more. */
#define KP_PAIR_SWEEPS 2
/* split_best() tries several first cuts up to this many processes: every
 * one up to KP_TRY_K children, three beyond. */
#define KP_TRY_MAX 4096
#define KP_TRY_K 16

/* Targets of the children (see the top of the file): p processes for
 * children of capacities cap[0 .. k); t[c] receives each one's share. */
static void targets(const int *cap, int k, int p, int *t, int *order)
{
    int sum = 0;
    for (int c = 0; c < k; c++) {
        sum += cap[c];
        t[c] = 0;
    }
    if (p >= sum) {
        memcpy(t, cap, sizeof(int) * (size_t)k);
        return;
    }
    /* Children by capacity, largest first (ties: lowest index). */
    for (int c = 0; c < k; c++)
        order[c] = c;
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && (cap[order[b - 1]] < cap[order[b]] ||
                                  (cap[order[b - 1]] == cap[order[b]] && order[b - 1] > order[b]));
             b--) {
            int x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    int rem = p;
    for (int i = 0; i < k && rem > 0; i++) {
        if (cap[order[i]] >= rem) {
            /* The rest fits one child: the smallest that holds it. */
            int best = order[i];
            for (int j = i + 1; j < k; j++)
                if (cap[order[j]] >= rem)
                    best = order[j];
            t[best] = rem;
            rem = 0;
        } else {
            t[order[i]] = cap[order[i]];
            rem -= cap[order[i]];
        }
    }
}

/* Split the processes pr[0 .. p) among the children ch[0 .. k) with
 * targets t[0 .. k) (all > 0, summing to p): S->child[process]. The
 * children are cut in two contiguous groups, the first m0 (0: those that
 * halve the targets best), the processes bisected to match, and each group
 * split again (halving); pr is permuted. The two groups are independent
 * (disjoint processes, children and ranges of pr): from par_min
 * processes on, the first is split in a task of its own, in the calling
 * thread's workspace or another's; the result is the same either way. 0,
 * or -1 + errno. */
static int split(struct kpshared *S, int *pr, int p, const int *ch, const int *t, int k, int m0)
{
    if (k == 1) {
        for (int i = 0; i < p; i++)
            S->child[pr[i]] = ch[0];
        return 0;
    }
    int m = 1, want0 = t[0], acc = t[0];
    for (int j = 1; j < k - 1; j++) {
        acc += t[j];
        if (m0 > 0 ? j < m0 : abs(2 * acc - p) < abs(2 * want0 - p)) {
            want0 = acc;
            m = j + 1;
        }
    }
    /* This thread's workspace, used up before the tasks below start (a
     * thread waiting for them may run another task in it). */
    struct kp *K = tm_kp_self(S);
    if (tm_kp_bisect(K, pr, p, want0) < 0)
        return -1;
    /* Side 0 first, each side in its order. */
    int a = 0, b = want0;
    for (int i = 0; i < p; i++)
        K->tmp[K->part[i] ? b++ : a++] = pr[i];
    memcpy(pr, K->tmp, sizeof(int) * (size_t)p);
    if (p < topomap_tuning()->par_min) {
        if (split(S, pr, want0, ch, t, m, 0) < 0)
            return -1;
        return split(S, pr + want0, p - want0, ch + m, t + m, k - m, 0);
    }
    int rc0 = 0, e0 = 0;
    if (S->nws > 1)
        topomap_par_trace("kpart split");
#pragma omp task default(shared)
    {
        rc0 = split(S, pr, want0, ch, t, m, 0);
        e0 = rc0 < 0 ? errno : 0;
    }
    int rc1 = split(S, pr + want0, p - want0, ch + m, t + m, k - m, 0);
    int e1 = errno;
#pragma omp taskwait
    if (rc0 < 0)
        errno = e0;
    else if (rc1 < 0)
        errno = e1;
    return rc0 < 0 || rc1 < 0 ? -1 : 0;
}

/* The traffic between different children among pr[0 .. p). */
static double split_cost(struct kp *K, const int *pr, int p)
{
    const topomap_graph_t *g = K->g;
    double c = 0;
    for (int i = 0; i < p; i++)
        K->loc[pr[i]] = i;
    for (int i = 0; i < p; i++)
        for (int64_t e = g->xadj[pr[i]]; e < g->xadj[pr[i] + 1]; e++)
            if (K->loc[g->adj[e]] >= 0 && K->child[g->adj[e]] != K->child[pr[i]])
                c += g->w[e];
    for (int i = 0; i < p; i++)
        K->loc[pr[i]] = -1;
    return c;
}

/* split(), where the first cut decides which children are cut apart
 * first, and no cut below undoes it: with three children or more and up to
 * KP_TRY_MAX processes, the first cut is tried at the halving point, after
 * the first child and before the last (children by target, largest first),
 * and the split with the least traffic between children kept. 0, or -1. */
static int split_best(struct kpshared *S, int *pr, int p, const int *ch, const int *t, int k)
{
    if (k < 3 || t[0] == t[k - 1] || p > KP_TRY_MAX)
        return split(S, pr, p, ch, t, k, 0);
    int *work = malloc(sizeof(int) * (size_t)p), *best = malloc(sizeof(int) * (size_t)p);
    int *bchild = malloc(sizeof(int) * (size_t)p);
    if (!work || !best || !bchild) {
        free(work), free(best), free(bchild);
        errno = ENOMEM;
        return -1;
    }
    /* First cuts: after child m, for every m up to KP_TRY_K children;
     * beyond, at the halving point (0), after the first and before the
     * last. */
    int tries[KP_TRY_K], nt = 0, rc = 0;
    if (k <= KP_TRY_K) {
        for (int m = 1; m < k; m++)
            tries[nt++] = m;
    } else {
        tries[nt++] = 0;
        tries[nt++] = 1;
        tries[nt++] = k - 1;
    }
    double bestc = INFINITY;
    for (int q = 0; q < nt && rc == 0; q++) {
        memcpy(work, pr, sizeof(int) * (size_t)p);
        if ((rc = split(S, work, p, ch, t, k, tries[q])) < 0)
            break;
        double c = split_cost(tm_kp_self(S), work, p);
        if (c < bestc) {
            bestc = c;
            memcpy(best, work, sizeof(int) * (size_t)p);
            for (int i = 0; i < p; i++)
                bchild[i] = S->child[work[i]];
        }
    }
    if (rc == 0) {
        memcpy(pr, best, sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++)
            S->child[pr[i]] = bchild[i];
    }
    free(work), free(best), free(bchild);
    return rc;
}

/* FM on the union of children a and b (their processes list[sa .. sa +
 * na) and list[sb .. sb + nb)), sizes kept: the processes that change
 * sides change child, and each child's range of list keeps its own. The
 * gain in *gained (0 when none). Touches nothing else, so pairs of four
 * different children can run at once. 0, or -1 + ENOMEM. */
static int refine_pair(struct kpshared *S, int *list, int a, int sa, int na, int b, int sb, int nb,
                       int64_t *gained)
{
    int *u = malloc(sizeof(int) * (size_t)(na + nb));
    *gained = 0;
    if (!u) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(u, list + sa, sizeof(int) * (size_t)na);
    memcpy(u + na, list + sb, sizeof(int) * (size_t)nb);
    struct kp *K = tm_kp_self(S);
    int rc = tm_kp_room(K, u, na + nb);
    if (rc == 0 && tm_kp_local_graph(K, u, na + nb)) {
        for (int i = 0; i < na + nb; i++)
            K->part[i] = i >= na;
        int64_t gn = tm_kp_fm(K, na + nb);
        if (gn > 0) {
            *gained = gn;
            int ia = sa, ib = sb;
            for (int i = 0; i < na + nb; i++) {
                S->child[u[i]] = K->part[i] ? b : a;
                list[K->part[i] ? ib++ : ia++] = u[i];
            }
        }
    }
    for (int i = 0; rc == 0 && i < na + nb; i++)
        K->loc[u[i]] = -1;
    free(u);
    return rc;
}

/* After split(): the processes pr[0 .. p) sit on k children (S->child).
 * The recursive halving fixed which children were cut apart first, and a
 * cut made early cannot be undone by the bisections below it; so each pair
 * of children that exchange traffic is bisected again by FM from where it
 * is (sizes kept), pairs in order, for up to KP_PAIR_SWEEPS sweeps while
 * one gains. A pair's FM reads and writes its two children only, so the
 * pairs run in waves: a pair's wave is one after the last earlier pair
 * that shares a child with it; the pairs of a wave (no child in common)
 * run as tasks side by side, and each meets its children as it would in
 * order: the result of one thread. 0, or -1 + errno. */
static int refine_pairs(struct kpshared *S, int *pr, int p, int k)
{
    const topomap_graph_t *g = S->g;
    struct kp *K = tm_kp_self(S);
    int *start = calloc((size_t)k + 1, sizeof(int)), *fill = malloc(sizeof(int) * (size_t)k);
    int *list = malloc(sizeof(int) * (size_t)p), *last = malloc(sizeof(int) * (size_t)k);
    int64_t *pairs = NULL;
    int *wave = NULL, rc = -1;
    if (!start || !fill || !list || !last || tm_kp_room(K, pr, p) < 0)
        goto out;
    for (int sweep = 0; sweep < KP_PAIR_SWEEPS; sweep++) {
        /* The processes by child, and the pairs of children that talk. */
        memset(start, 0, sizeof(int) * ((size_t)k + 1));
        for (int i = 0; i < p; i++)
            start[S->child[pr[i]] + 1]++;
        for (int c = 0; c < k; c++)
            start[c + 1] += start[c];
        memcpy(fill, start, sizeof(int) * (size_t)k);
        for (int i = 0; i < p; i++) {
            list[fill[S->child[pr[i]]]++] = pr[i];
            K->loc[pr[i]] = 1;
        }
        int64_t np = 0;
        for (int i = 0; i < p; i++) {
            int a = S->child[pr[i]];
            for (int64_t e = g->xadj[pr[i]]; e < g->xadj[pr[i] + 1]; e++) {
                int y = g->adj[e];
                if (K->loc[y] >= 0 && S->child[y] > a && g->w[e] > 0)
                    K->keys[np++] = (int64_t)a * k + S->child[y];
            }
        }
        for (int i = 0; i < p; i++)
            K->loc[pr[i]] = -1;
        qsort(K->keys, (size_t)np, sizeof(int64_t), topomap_cmp_i64);
        /* The pairs, once each, out of the workspace (the tasks below may
         * use it), and their waves. */
        int64_t nq = 0;
        free(pairs), free(wave);
        pairs = malloc(sizeof(int64_t) * (size_t)(np > 0 ? np : 1));
        wave = malloc(sizeof(int) * (size_t)(np > 0 ? np : 1));
        if (!pairs || !wave)
            goto out;
        for (int64_t q = 0; q < np; q++)
            if (q == 0 || K->keys[q] != K->keys[q - 1])
                pairs[nq++] = K->keys[q];
        memset(last, 0, sizeof(int) * (size_t)k);
        int nw = 0;
        for (int64_t q = 0; q < nq; q++) {
            int a = (int)(pairs[q] / k), b = (int)(pairs[q] % k);
            wave[q] = 1 + (last[a] > last[b] ? last[a] : last[b]);
            last[a] = last[b] = wave[q];
            nw = wave[q] > nw ? wave[q] : nw;
        }
        int64_t gained = 0;
        int fail = 0;
        for (int w = 1; w <= nw && !fail; w++) {
            for (int64_t q = 0; q < nq; q++) {
                if (wave[q] != w)
                    continue;
                int a = (int)(pairs[q] / k), b = (int)(pairs[q] % k);
                int na = start[a + 1] - start[a], nb = start[b + 1] - start[b];
                if (S->nws > 1 && na + nb >= topomap_tuning()->par_min)
                    topomap_par_trace("kpart pairs");
#pragma omp task default(shared) firstprivate(a, b, na, nb) \
    if (S->nws > 1 && na + nb >= topomap_tuning()->par_min)
                {
                    int64_t gn;
                    if (refine_pair(S, list, a, start[a], na, b, start[b], nb, &gn) < 0) {
#pragma omp atomic write
                        fail = 1;
                    }
#pragma omp atomic
                    gained += gn;
                }
            }
#pragma omp taskwait
        }
        if (fail) {
            errno = ENOMEM;
            goto out;
        }
        if (gained == 0)
            break;
    }
    rc = 0;
out:
    free(start), free(fill), free(list), free(last), free(pairs), free(wave);
    return rc;
}

/* One level of the split: the tree, the level, the processes in order[]
 * with seg[v] .. seg[v + 1] under vertex v, and the children's segments
 * (nseg) being filled. */
struct kplevel {
    const struct tm_tree *T;
    int d, maxk;
    int *order, *seg, *nseg;
};

/* Split vertex v of the level: its processes among its children
 * (split_best, refine_pairs), then reordered by child into their segments,
 * each in its order. Writes only v's range of order[], its children's
 * nseg[] and its processes' S->child[]: vertices of a level run as tasks
 * side by side. 0, or -1 + errno. */
static int split_vertex(struct kpshared *S, const struct kplevel *V, int v)
{
    const struct tm_tree *T = V->T;
    int L = T->depth, d = V->d, rc = -1;
    int c0 = T->cx[d][v], k = T->cx[d][v + 1] - c0, lo = V->seg[v], p = V->seg[v + 1] - lo;
    int *order = V->order;
    size_t mk = (size_t)V->maxk;
    int *cap = malloc(sizeof(int) * mk), *t = malloc(sizeof(int) * mk);
    int *ch = malloc(sizeof(int) * mk), *tt = malloc(sizeof(int) * mk);
    int *srt = malloc(sizeof(int) * mk), *fill = malloc(sizeof(int) * mk);
    if (!cap || !t || !ch || !tt || !srt || !fill) {
        errno = ENOMEM;
        goto out;
    }
    /* Capacities: the leaves under each child (a contiguous range). */
    int maxcap = 0;
    for (int c = 0; c < k; c++) {
        int a = c0 + c, b = c0 + c + 1;
        for (int q = d + 1; q < L; q++) {
            a = T->cx[q][a];
            b = T->cx[q][b];
        }
        cap[c] = b - a;
        maxcap = cap[c] > maxcap ? cap[c] : maxcap;
    }
    targets(cap, k, p, t, srt);
    int np = 0;
    for (int c = 0; c < k; c++)
        if (t[c] > 0) {
            ch[np] = c;
            tt[np++] = t[c];
        }
    /* Children by target, largest first (ties: in order). */
    for (int a = 1; a < np; a++)
        for (int b = a; b > 0 && tt[b - 1] < tt[b]; b--) {
            int x = tt[b];
            tt[b] = tt[b - 1];
            tt[b - 1] = x;
            x = ch[b];
            ch[b] = ch[b - 1];
            ch[b - 1] = x;
        }
    if (maxcap <= 1) {
        /* Children of one leaf each (cores of one slot): all alike. */
        for (int i = 0; i < p; i++)
            S->child[order[lo + i]] = ch[i];
    } else if (np > 0 && split_best(S, order + lo, p, ch, tt, np) < 0) {
        goto out;
    }
    /* The workspace after the tasks of split_best and refine_pairs (see
     * split()). */
    if (np > 2 && maxcap > 1 && refine_pairs(S, order + lo, p, k) < 0)
        goto out;
    struct kp *K = tm_kp_self(S);
    if (tm_kp_room(K, order + lo, p) < 0)
        goto out;
    /* The children's segments, in child order; processes keep their order
     * inside a segment. */
    for (int c = 0, at = lo; c < k; c++) {
        V->nseg[c0 + c] = at;
        fill[c] = at - lo;
        at += t[c];
    }
    for (int i = lo; i < lo + p; i++)
        K->tmp[fill[S->child[order[i]]]++] = order[i];
    memcpy(order + lo, K->tmp, sizeof(int) * (size_t)p);
    rc = 0;
out:
    free(cap), free(t), free(ch), free(tt), free(srt), free(fill);
    return rc;
}

/* Every vertex of level V->d split, as tasks (see split_vertex()); the
 * first failure's errno in S->fail. */
static void split_level(struct kpshared *S, const struct kplevel *V)
{
    int nv = V->T->nv[V->d];
    if (S->nws > 1 && nv > 1)
        topomap_par_trace("kpart level");
#pragma omp parallel num_threads(S->nws) if (S->nws > 1)
#pragma omp single
    for (int v = 0; v < nv; v++) {
#pragma omp task firstprivate(v)
        {
            int f;
#pragma omp atomic read
            f = S->fail;
            /* Within a level too: a level of 512 nodes splits 512 graphs. */
            if (!f && v > 0 && topomap_expired(S->pb))
                f = ETIMEDOUT;
            else if (!f && split_vertex(S, V, v) < 0)
                f = errno ? errno : EINVAL;
            if (f)
#pragma omp atomic write
                S->fail = f;
        }
    }
}

int tm_kpart(const struct tm_tree *T, int levels, const topomap_graph_t *g, int n,
             const struct topomap_problem *pb, int *leaf_of, char *err, size_t errlen)
{
    int L = T->depth, rc = -1, maxk = 1, netd = topomap_topology_net_depth(pb->topo);
    for (int d = 0; d < levels; d++)
        for (int v = 0; v < T->nv[d]; v++)
            if (T->cx[d][v + 1] - T->cx[d][v] > maxk)
                maxk = T->cx[d][v + 1] - T->cx[d][v];
    int64_t m = g->xadj[n];
    size_t nn = (size_t)(n > 0 ? n : 1);
    struct kpshared S = {g, pb, n, 0, NULL, NULL, topomap_par_threads(n), 0};
    S.child = malloc(sizeof(int) * nn);
    S.ws = calloc((size_t)S.nws, sizeof *S.ws);
    int *order = malloc(sizeof(int) * nn);
    int *seg = NULL, *nseg = NULL;
    if (!S.child || !S.ws || !order)
        goto nomem;
    for (int w = 0; w < S.nws; w++) {
        struct kp *K = &S.ws[w];
        K->S = &S;
        K->g = g;
        K->pb = pb;
        K->child = S.child;
        if (!(K->loc = malloc(sizeof(int) * nn)))
            goto nomem;
        for (int i = 0; i < n; i++)
            K->loc[i] = -1;
    }
    if (m > INT32_MAX) {
        rc = topomap_fail(err, errlen, E2BIG,
                          "treematch: %lld graph entries exceed METIS's 32-bit indices",
                          (long long)m);
        goto out;
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* seg[v] .. seg[v + 1]: the processes (in order[]) under vertex v of
     * the current level. */
    if (!(seg = malloc(sizeof(int) * 2)))
        goto nomem;
    seg[0] = 0;
    seg[1] = n;
    for (int d = 0; d < levels; d++) {
        if (topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT, "treematch: time limit reached");
            goto out;
        }
        int nc = T->nv[d + 1];
        S.net = d < netd;
        if (!(nseg = malloc(sizeof(int) * ((size_t)nc + 1))))
            goto nomem;
        nseg[0] = 0;
        struct kplevel V = {T, d, maxk, order, seg, nseg};
        split_level(&S, &V);
        if (S.fail) {
            rc = topomap_fail(err, errlen, S.fail, "treematch: %s",
                              S.fail == ETIMEDOUT ? "time limit reached"
                              : S.fail == ENOMEM  ? "out of memory"
                                                  : "METIS failed");
            goto out;
        }
        nseg[nc] = n;
        free(seg);
        seg = nseg;
        nseg = NULL;
    }
    /* The processes of each vertex of the last level split on its first
     * leaves, in order. */
    for (int v = 0; v < T->nv[levels]; v++) {
        int x = v;
        for (int q = levels; q < L; q++)
            x = T->cx[q][x];
        for (int i = seg[v]; i < seg[v + 1]; i++)
            leaf_of[order[i]] = x++;
    }
    rc = 0;
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    for (int w = 0; S.ws && w < S.nws; w++) {
        tm_kp_free(&S.ws[w]);
        free(S.ws[w].loc);
    }
    free(S.ws), free(S.child), free(order), free(seg), free(nseg);
    return rc;
}
