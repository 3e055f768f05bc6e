/* SPDX-License-Identifier: BSD-3-Clause */
/* GroupProcesses and AggregateComMatrix of TreeMatch (Jeannot, Mercier &
 * Tessier, IEEE TPDS 2014; Jeannot & Mercier, Euro-Par 2010): split the
 * entities of one level (processes, or groups of the level below) into
 * groups of the arity of the tree level above them so that as much traffic
 * as possible stays inside the groups, then sum the traffic between groups.
 *
 * The paper's GroupProcesses lists every possible group of k entities,
 * weighs each by the traffic it sends outside itself, and picks an
 * independent set of the incompatibility graph (groups that share no
 * entity) greedily in increasing weight. It explodes with the arity (C(p, k)
 * groups), so, as in the paper, a large arity is split into its prime
 * factors (a level of arity 6 is grouped as pairs, then triples of pairs)
 * and large problems are grouped greedily. Here:
 *  - exact: an exhaustive search over all partitions when there are at most
 *    tm_exact_max (tuning.h) of them (every tree of up to 8 leaves), so tiny problems
 *    get the optimal grouping;
 *  - list: the paper's list of all groups and greedy independent set when
 *    there are at most tm_list_max groups;
 *  - split: a composite arity too large for the list, factor by factor;
 *  - greedy: otherwise, the group grown one entity at a time from the
 *    heaviest free entity, adding the free entity that sends most to the
 *    members (our reading of the paper's fast heuristic for large problems;
 *    the paper's text was not at hand, see doc/algorithms.md#treematch).
 * Ties go to the first in a fixed order (lowest entity, first group listed),
 * so results do not depend on anything but the inputs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "treematch.h"

const char *tm_method_name(int method)
{
    static const char *const names[] = {"trivial", "exact", "list", "greedy", "split", "bucket"};
    return method >= 0 && method <= TM_BUCKET ? names[method] : "?";
}

void tm_graph_free(topomap_graph_t *g)
{
    if (!g)
        return;
    free((void *)g->xadj);
    free((void *)g->adj);
    free((void *)g->w);
    memset(g, 0, sizeof *g);
}

double tm_group_weight(const topomap_graph_t *g, const int *grp)
{
    double s = 0;
    for (int i = 0; i < g->n; i++)
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            if (g->adj[e] > i && grp[g->adj[e]] == grp[i])
                s += g->w[e];
    return s;
}

/* ---- aggregation (AggregateComMatrix) ------------------------------------ */

/* The rows of groups h0 .. h1 of the aggregated graph into adj, w (from
 * 0; row h ends at xadj[h + 1], counted from 0 too): members in order,
 * their edges in order, neighbours sorted. acc (ng, all 0) and touched
 * (ng) are scratch. Returns the entries written. */
static int64_t agg_rows(const topomap_graph_t *g, const int *grp, const int *mx, const int *mem,
                        int h0, int h1, double *acc, int *touched, int *adj, double *w,
                        int64_t *xadj)
{
    int64_t m = 0;
    for (int h = h0; h < h1; h++) {
        int nt = 0;
        for (int q = mx[h]; q < mx[h + 1]; q++) {
            int e = mem[q];
            for (int64_t k = g->xadj[e]; k < g->xadj[e + 1]; k++) {
                int o = grp[g->adj[k]];
                if (o == h)
                    continue;
                if (acc[o] == 0 && g->w[k] != 0)
                    touched[nt++] = o;
                acc[o] += g->w[k];
            }
        }
        qsort(touched, (size_t)nt, sizeof(int), topomap_cmp_int);
        for (int q = 0; q < nt; q++) {
            adj[m] = touched[q];
            w[m++] = acc[touched[q]];
            acc[touched[q]] = 0;
        }
        xadj[h + 1] = m;
    }
    return m;
}

/* With threads, each takes a contiguous range of groups into rows of its
 * own, then the rows are put end to end in group order: every entry is
 * summed as with one thread, so the graph is the same for any thread
 * count. */
int tm_aggregate(const topomap_graph_t *g, const int *grp, int ng, topomap_graph_t *out)
{
    int n = g->n, nt = topomap_par_threads(ng);
    memset(out, 0, sizeof *out);
    int *mx = calloc((size_t)ng + 1, sizeof(int)), *mem = malloc(sizeof(int) * (size_t)(n + 1));
    int *pos = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
    int64_t *xadj = malloc(sizeof(int64_t) * ((size_t)ng + 1));
    int64_t cap = g->xadj[n] > 0 ? g->xadj[n] : 1;
    int *adj = malloc(sizeof(int) * (size_t)cap);
    double *w = malloc(sizeof(double) * (size_t)cap);
    int64_t *at = calloc((size_t)nt + 1, sizeof(int64_t));
    if (!mx || !mem || !pos || !xadj || !adj || !w || !at) {
        free(mx), free(mem), free(pos), free(xadj), free(adj), free(w), free(at);
        errno = ENOMEM;
        return -1;
    }
    /* Members of each group (counting sort, entity order kept). */
    for (int e = 0; e < n; e++)
        mx[grp[e] + 1]++;
    for (int h = 0; h < ng; h++)
        mx[h + 1] += mx[h];
    memcpy(pos, mx, sizeof(int) * (size_t)ng);
    for (int e = 0; e < n; e++)
        mem[pos[grp[e]]++] = e;
    xadj[0] = 0;
    int fail = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = topomap_thread_num(), h0 = (int)((int64_t)ng * t / nt);
        int h1 = (int)((int64_t)ng * (t + 1) / nt);
        /* This range's entries: at most its members' edges. */
        int64_t lo = 0;
        for (int q = mx[h0]; q < mx[h1]; q++)
            lo += g->xadj[mem[q] + 1] - g->xadj[mem[q]];
        double *acc = calloc((size_t)(ng > 0 ? ng : 1), sizeof(double));
        int *touched = malloc(sizeof(int) * (size_t)(ng > 0 ? ng : 1));
        int *ladj = nt > 1 ? malloc(sizeof(int) * (size_t)(lo > 0 ? lo : 1)) : adj;
        double *lw = nt > 1 ? malloc(sizeof(double) * (size_t)(lo > 0 ? lo : 1)) : w;
        if (!acc || !touched || !ladj || !lw) {
#pragma omp atomic write
            fail = 1;
        } else {
            at[t + 1] = agg_rows(g, grp, mx, mem, h0, h1, acc, touched, ladj, lw, xadj);
        }
#pragma omp barrier
#pragma omp single
        for (int q = 0; q < nt; q++)
            at[q + 1] += at[q];
        if (!fail && nt > 1) {
            /* Rows h0 .. h1 from at[t] on. */
            for (int h = h0; h < h1; h++)
                xadj[h + 1] += at[t];
            memcpy(adj + at[t], ladj, sizeof(int) * (size_t)(at[t + 1] - at[t]));
            memcpy(w + at[t], lw, sizeof(double) * (size_t)(at[t + 1] - at[t]));
        }
        if (nt > 1)
            free(ladj), free(lw);
        free(acc), free(touched);
    }
    free(mx), free(mem), free(pos), free(at);
    if (fail) {
        free(xadj), free(adj), free(w);
        errno = ENOMEM;
        return -1;
    }
    out->n = ng;
    out->xadj = xadj;
    out->adj = adj;
    out->w = w;
    return 0;
}

/* ---- helpers ------------------------------------------------------------- */

/* Weighted degrees. */
static double *degrees(const topomap_graph_t *g)
{
    double *deg = calloc((size_t)(g->n > 0 ? g->n : 1), sizeof(double));
    if (deg)
        for (int i = 0; i < g->n; i++)
            for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
                deg[i] += g->w[e];
    return deg;
}

/* The p x p matrix of g (small p only). */
static double *dense(const topomap_graph_t *g)
{
    size_t p = (size_t)g->n;
    double *W = calloc(p * p > 0 ? p * p : 1, sizeof(double));
    if (W)
        for (int i = 0; i < g->n; i++)
            for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
                W[(size_t)i * p + (size_t)g->adj[e]] = g->w[e];
    return W;
}

/* Renumber groups by their lowest member (grp values 0 .. ng-1). */
static void renumber(int p, int ng, int *grp, int *map)
{
    for (int h = 0; h < ng; h++)
        map[h] = -1;
    int next = 0;
    for (int e = 0; e < p; e++) {
        if (map[grp[e]] < 0)
            map[grp[e]] = next++;
        grp[e] = map[grp[e]];
    }
}

/* Number of partitions of p entities into groups of k (capped at cap + 1). */
static double partitions(int p, int k, double cap)
{
    double c = 1;
    /* The lowest free entity joins k - 1 of the others, group after group. */
    for (int r = p; r > 0 && c <= cap; r -= k) {
        double b = 1;
        for (int j = 1; j < k; j++)
            b = b * (double)(r - j) / (double)j;
        c *= b;
    }
    return c;
}

static double binomial(int p, int k, double cap)
{
    double b = 1;
    for (int j = 1; j <= k && b <= cap; j++)
        b = b * (double)(p - k + j) / (double)j;
    return b;
}

/* ---- exact: every partition ---------------------------------------------- */

struct exact {
    int p, k;
    const double *W;
    int *cur, *best, *used;
    double bestval;
};

/* Complete the group started by members[0 .. have) (the last chosen is
 * from), then recurse to the next group. */
static void exact_rec(struct exact *X, int grpno, int *members, int have, int from, double val);

static void exact_next(struct exact *X, int grpno, double val)
{
    int a = 0;
    while (a < X->p && X->used[a])
        a++;
    if (a == X->p) {
        if (val > X->bestval) {
            X->bestval = val;
            memcpy(X->best, X->cur, sizeof(int) * (size_t)X->p);
        }
        return;
    }
    int members[64], left = 0;
    for (int b = a; b < X->p; b++)
        left += !X->used[b];
    if (left == X->k) {
        left = 0;
        for (int b = a; b < X->p; b++)
            if (!X->used[b])
                members[left++] = b; /* k <= 64 (tm_group_classic) */
        /* The last group has one way to be filled: its value directly
         * (the recursion found the same, at k times the cost). */
        for (int q = 1; q < left; q++) {
            double add = 0; /* summed as exact_rec sums it: same rounding */
            for (int r = 0; r < q; r++)
                add += X->W[(size_t)members[r] * (size_t)X->p + (size_t)members[q]];
            val += add;
        }
        for (int q = 0; q < left; q++)
            X->cur[members[q]] = grpno;
        if (val > X->bestval) {
            X->bestval = val;
            memcpy(X->best, X->cur, sizeof(int) * (size_t)X->p);
        }
        return;
    }
    members[0] = a;
    X->used[a] = 1;
    X->cur[a] = grpno;
    exact_rec(X, grpno, members, 1, a, val);
    X->used[a] = 0;
}

static void exact_rec(struct exact *X, int grpno, int *members, int have, int from, double val)
{
    if (have == X->k) {
        exact_next(X, grpno + 1, val);
        return;
    }
    for (int b = from + 1; b < X->p; b++) {
        if (X->used[b])
            continue;
        double add = 0;
        for (int q = 0; q < have; q++)
            add += X->W[(size_t)members[q] * (size_t)X->p + (size_t)b];
        members[have] = b;
        X->used[b] = 1;
        X->cur[b] = grpno;
        exact_rec(X, grpno, members, have + 1, b, val + add);
        X->used[b] = 0;
    }
}

static int group_exact(const topomap_graph_t *g, int k, int *grp)
{
    struct exact X = {g->n, k, dense(g), NULL, NULL, NULL, -1};
    X.cur = malloc(sizeof(int) * (size_t)X.p);
    X.best = grp;
    X.used = calloc((size_t)X.p, sizeof(int));
    if (!X.W || !X.cur || !X.used || k > 64) {
        free((void *)X.W), free(X.cur), free(X.used);
        errno = ENOMEM;
        return -1;
    }
    exact_next(&X, 0, 0);
    free((void *)X.W), free(X.cur), free(X.used);
    return 0;
}

/* ---- list: all groups, greedy independent set (the paper's Algorithm 2) -- */


static int group_list(const topomap_graph_t *g, int k, long ncand, int *grp)
{
    int p = g->n, ng = p / k;
    double *W = dense(g), *deg = degrees(g);
    int *mem = malloc(sizeof(int) * (size_t)ncand * (size_t)k), comb[64];
    struct topomap_keyed *c = malloc(sizeof *c * (size_t)ncand);
    int *used = calloc((size_t)p, sizeof(int)), *map = malloc(sizeof(int) * (size_t)ng);
    if (!W || !deg || !mem || !c || !used || !map || k > 64) {
        free(W), free(deg), free(mem), free(c), free(used), free(map);
        errno = ENOMEM;
        return -1;
    }
    /* Every k-subset in lexicographic order; its weight is what it sends
     * outside itself: the sum of the members' degrees less twice the
     * traffic inside. */
    for (int j = 0; j < k; j++)
        comb[j] = j;
    long nc = 0;
    for (;;) {
        double in = 0, out = 0;
        for (int a = 0; a < k; a++) {
            out += deg[comb[a]];
            for (int b = a + 1; b < k; b++)
                in += W[(size_t)comb[a] * (size_t)p + (size_t)comb[b]];
        }
        memcpy(mem + (size_t)nc * (size_t)k, comb, sizeof(int) * (size_t)k);
        c[nc] = (struct topomap_keyed){out - 2 * in, nc};
        nc++;
        int j = k - 1;
        while (j >= 0 && comb[j] == p - k + j)
            j--;
        if (j < 0)
            break;
        comb[j]++;
        for (int q = j + 1; q < k; q++)
            comb[q] = comb[q - 1] + 1;
    }
    qsort(c, (size_t)nc, sizeof *c, topomap_keyed_cmp);
    int made = 0;
    for (long q = 0; q < nc && made < ng; q++) {
        const int *m = mem + (size_t)c[q].idx * (size_t)k;
        int free_ = 1;
        for (int a = 0; a < k && free_; a++)
            free_ = !used[m[a]];
        if (!free_)
            continue;
        for (int a = 0; a < k; a++) {
            used[m[a]] = 1;
            grp[m[a]] = made;
        }
        made++;
    }
    renumber(p, ng, grp, map);
    free(W), free(deg), free(mem), free(c), free(used), free(map);
    return 0;
}

/* ---- greedy growth (large problems; also the shaped grouping) ------------ */

int tm_group_shaped(const topomap_graph_t *g, const int *ent_shape, int nv, const int *cx,
                    const int *need, int *grp)
{
    int m = g->n, nshape = 0;
    for (int e = 0; e < m; e++)
        if (ent_shape[e] + 1 > nshape)
            nshape = ent_shape[e] + 1;
    double *deg = degrees(g), *gain = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    struct topomap_keyed *ord = malloc(sizeof *ord * (size_t)(m > 0 ? m : 1));
    /* Per shape: its entities heaviest first ([sx[s], sx[s+1])), with a head
     * (heaviest free) and a tail (lightest free) that skip taken ones. */
    int *sx = calloc((size_t)nshape + 2, sizeof(int)), *head = malloc(sizeof(int) * (size_t)(nshape + 1));
    int *tail = malloc(sizeof(int) * (size_t)(nshape + 1)), *cnt = calloc((size_t)nshape + 1, sizeof(int));
    int *lst = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1)), *touched = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    char *taken = calloc((size_t)(m > 0 ? m : 1), 1), *seen = calloc((size_t)(m > 0 ? m : 1), 1);
    int rc = -1;
    if (!deg || !gain || !ord || !sx || !head || !tail || !cnt || !lst || !touched || !taken || !seen) {
        errno = ENOMEM;
        goto out;
    }
    for (int e = 0; e < m; e++)
        ord[e] = (struct topomap_keyed){-deg[e], e};
    qsort(ord, (size_t)m, sizeof *ord, topomap_keyed_cmp);
    for (int e = 0; e < m; e++)
        sx[ent_shape[e] + 1]++;
    for (int s = 0; s < nshape; s++)
        sx[s + 1] += sx[s];
    memcpy(head, sx, sizeof(int) * (size_t)nshape);
    for (int q = 0; q < m; q++)
        lst[head[ent_shape[ord[q].idx]]++] = (int)ord[q].idx;
    for (int s = 0; s < nshape; s++) {
        head[s] = sx[s];
        tail[s] = sx[s + 1] - 1;
    }
    for (int v = 0; v < nv; v++) {
        int size = cx[v + 1] - cx[v], have = 0, nt = 0;
        for (int q = cx[v]; q < cx[v + 1]; q++)
            cnt[need[q]]++;
        while (have < size) {
            int pick = -1;
            if (have > 0) {
                /* The free entity of a needed shape that sends most to the
                 * members; ties to the lowest entity. */
                double bg = 0;
                for (int q = 0; q < nt; q++) {
                    int u = touched[q];
                    if (taken[u] || !cnt[ent_shape[u]] || gain[u] <= 0)
                        continue;
                    if (gain[u] > bg || (gain[u] == bg && u < pick)) {
                        bg = gain[u];
                        pick = u;
                    }
                }
            }
            if (pick < 0) {
                /* A seed: the heaviest free entity of a needed shape; once
                 * the group has members, fill it with the lightest (isolated
                 * entities and dummies), leaving the heavy ones to seed
                 * their own groups. */
                double bd = -INFINITY;
                for (int s = 0; s < nshape; s++) {
                    if (!cnt[s])
                        continue;
                    while (head[s] < sx[s + 1] && taken[lst[head[s]]])
                        head[s]++;
                    while (tail[s] >= sx[s] && taken[lst[tail[s]]])
                        tail[s]--;
                    int u = have == 0 ? lst[head[s]] : lst[tail[s]];
                    double d = have == 0 ? deg[u] : -deg[u];
                    if (d > bd || (d == bd && u < pick)) {
                        bd = d;
                        pick = u;
                    }
                }
            }
            taken[pick] = 1;
            grp[pick] = v;
            cnt[ent_shape[pick]]--;
            have++;
            for (int64_t e = g->xadj[pick]; e < g->xadj[pick + 1]; e++) {
                int u = g->adj[e];
                if (taken[u])
                    continue;
                if (!seen[u]) {
                    seen[u] = 1;
                    touched[nt++] = u;
                }
                gain[u] += g->w[e];
            }
        }
        for (int q = 0; q < nt; q++) {
            gain[touched[q]] = 0;
            seen[touched[q]] = 0;
        }
    }
    rc = 0;
out:
    free(deg), free(gain), free(ord), free(sx), free(head), free(tail), free(cnt), free(lst);
    free(touched), free(taken), free(seen);
    return rc;
}

static int group_greedy(const topomap_graph_t *g, int k, int *grp)
{
    int p = g->n, ng = p / k;
    int *shape = calloc((size_t)p, sizeof(int)), *cx = malloc(sizeof(int) * ((size_t)ng + 1));
    int *need = calloc((size_t)p, sizeof(int)), *map = malloc(sizeof(int) * (size_t)ng);
    int rc = -1;
    if (shape && cx && need && map) {
        for (int h = 0; h <= ng; h++)
            cx[h] = h * k;
        rc = tm_group_shaped(g, shape, ng, cx, need, grp);
        if (rc == 0)
            renumber(p, ng, grp, map);
    } else {
        errno = ENOMEM;
    }
    free(shape), free(cx), free(need), free(map);
    return rc;
}

/* ---- bucket grouping of pairs (large problems, arity 2) ------------------- */

struct edge {
    double w;
    int a, b;
};

static int cmp_edge(const void *x, const void *y)
{
    const struct edge *p = x, *q = y;
    if (p->w != q->w)
        return p->w > q->w ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Pairs from the heaviest entries of the matrix down (the paper sorts the
 * entries into buckets for this; a full sort gives the same pairs): a pair
 * is kept when both are still free. The entities left, which only share
 * taken neighbours, are paired in order. */
static int group_pairs(const topomap_graph_t *g, int *grp)
{
    int p = g->n;
    int64_t ne = 0;
    for (int i = 0; i < p; i++)
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            ne += g->adj[e] > i;
    struct edge *E = malloc(sizeof *E * (size_t)(ne > 0 ? ne : 1));
    int *map = malloc(sizeof(int) * (size_t)(p / 2 + 1));
    if (!E || !map) {
        free(E), free(map);
        errno = ENOMEM;
        return -1;
    }
    ne = 0;
    for (int i = 0; i < p; i++)
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++)
            if (g->adj[e] > i)
                E[ne++] = (struct edge){g->w[e], i, g->adj[e]};
    qsort(E, (size_t)ne, sizeof *E, cmp_edge);
    for (int i = 0; i < p; i++)
        grp[i] = -1;
    int made = 0;
    for (int64_t e = 0; e < ne; e++)
        if (grp[E[e].a] < 0 && grp[E[e].b] < 0) {
            grp[E[e].a] = grp[E[e].b] = made++;
        }
    for (int i = 0, pend = -1; i < p; i++) {
        if (grp[i] >= 0)
            continue;
        if (pend < 0) {
            pend = i;
        } else {
            grp[pend] = grp[i] = made++;
            pend = -1;
        }
    }
    renumber(p, p / 2, grp, map);
    free(E), free(map);
    return 0;
}

/* ---- the classic grouping ------------------------------------------------- */

static int smallest_factor(int k)
{
    for (int f = 2; (long)f * f <= k; f++)
        if (k % f == 0)
            return f;
    return k;
}

int tm_group_classic(const topomap_graph_t *g, int k, int *grp, int *method)
{
    int p = g->n;
    if (k <= 1 || p <= k) {
        for (int e = 0; e < p; e++)
            grp[e] = k <= 1 ? e : 0;
        *method = TM_UNARY;
        return 0;
    }
    const struct topomap_tuning *tu = topomap_tuning();
    if (partitions(p, k, (double)tu->tm_exact_max) <= (double)tu->tm_exact_max && k <= 64) {
        *method = TM_EXACT;
        return group_exact(g, k, grp);
    }
    double nc = binomial(p, k, (double)tu->tm_list_max);
    if (nc <= (double)tu->tm_list_max && k <= 64) {
        *method = TM_LIST;
        return group_list(g, k, (long)nc, grp);
    }
    if (k == 2) {
        *method = TM_BUCKET;
        return group_pairs(g, grp);
    }
    int f = smallest_factor(k);
    if (f < k) {
        /* Groups of f, then groups of k / f of those (the arity split into
         * its prime factors, smallest first). */
        int *g1 = malloc(sizeof(int) * (size_t)p), m1, m2;
        topomap_graph_t agg;
        if (!g1)
            return errno = ENOMEM, -1;
        int *g2 = malloc(sizeof(int) * (size_t)(p / f));
        if (!g2 || tm_group_classic(g, f, g1, &m1) < 0 || tm_aggregate(g, g1, p / f, &agg) < 0) {
            free(g1), free(g2);
            return errno = ENOMEM, -1;
        }
        int rc = tm_group_classic(&agg, k / f, g2, &m2);
        if (rc == 0) {
            for (int e = 0; e < p; e++)
                grp[e] = g2[g1[e]];
            int *map = malloc(sizeof(int) * (size_t)(p / k));
            if (map)
                renumber(p, p / k, grp, map);
            else
                rc = -1, errno = ENOMEM;
            free(map);
        }
        tm_graph_free(&agg);
        free(g1), free(g2);
        *method = TM_SPLIT;
        return rc;
    }
    *method = TM_GREEDY;
    return group_greedy(g, k, grp);
}

/* ---- improvement (ours): exchanges between groups ------------------------ */

int tm_group_refine(const topomap_graph_t *g, const int *ent_shape, int ng, int *grp,
                    int max_passes)
{
    int m = g->n;
    int *mx = calloc((size_t)ng + 1, sizeof(int)), *mem = malloc(sizeof(int) * (size_t)(m + 1));
    int *pos = malloc(sizeof(int) * (size_t)(m + 1)), *lst = malloc(sizeof(int) * (size_t)(m + 1));
    double *gw = calloc((size_t)(ng > 0 ? ng : 1), sizeof(double));
    char *mark = calloc((size_t)(ng > 0 ? ng : 1), 1);
    if (!mx || !mem || !pos || !lst || !gw || !mark) {
        free(mx), free(mem), free(pos), free(lst), free(gw), free(mark);
        errno = ENOMEM;
        return -1;
    }
    for (int e = 0; e < m; e++)
        mx[grp[e] + 1]++;
    for (int h = 0; h < ng; h++)
        mx[h + 1] += mx[h];
    for (int e = 0; e < m; e++)
        lst[e] = mx[grp[e]]++;
    for (int h = ng; h > 0; h--)
        mx[h] = mx[h - 1];
    mx[0] = 0;
    for (int e = 0; e < m; e++) {
        pos[e] = lst[e];
        mem[lst[e]] = e;
    }
    double total = 0;
    for (int e = 0; e < m; e++)
        for (int64_t q = g->xadj[e]; q < g->xadj[e + 1]; q++)
            total += g->w[q];
    for (int pass = 0; pass < max_passes; pass++) {
        double pass_gain = 0;
        for (int e = 0; e < m; e++) {
            int G = grp[e], nl = 0;
            /* e's weight towards every group it touches. */
            for (int64_t q = g->xadj[e]; q < g->xadj[e + 1]; q++) {
                int h = grp[g->adj[q]];
                if (!mark[h]) {
                    mark[h] = 1;
                    lst[nl++] = h;
                }
                gw[h] += g->w[q];
            }
            double weg = gw[G], best = 0;
            int bf = -1;
            for (int z = 0; z < nl; z++) {
                int H = lst[z];
                if (H == G || gw[H] <= weg)
                    continue; /* the swap's gain is at most gw[H] - weg plus f's side */
                for (int q = mx[H]; q < mx[H + 1]; q++) {
                    int f = mem[q];
                    if (ent_shape[f] != ent_shape[e])
                        continue;
                    double wfg = 0, wfh = 0, wef = 0;
                    for (int64_t r = g->xadj[f]; r < g->xadj[f + 1]; r++) {
                        int u = g->adj[r], hu = grp[u];
                        if (u == e)
                            wef = g->w[r];
                        if (hu == G)
                            wfg += g->w[r];
                        else if (hu == H)
                            wfh += g->w[r];
                    }
                    double gain = (gw[H] - wef) + (wfg - wef) - weg - wfh;
                    if (gain > best + 1e-12 * (gw[H] + weg + wfg + wfh)) {
                        best = gain;
                        bf = f;
                    }
                }
            }
            for (int z = 0; z < nl; z++) {
                gw[lst[z]] = 0;
                mark[lst[z]] = 0;
            }
            if (bf < 0)
                continue;
            int H = grp[bf], pe = pos[e], pf = pos[bf];
            grp[e] = H;
            grp[bf] = G;
            mem[pe] = bf;
            mem[pf] = e;
            pos[e] = pf;
            pos[bf] = pe;
            pass_gain += best;
        }
        if (pass_gain <= 1e-9 * total)
            break;
    }
    free(mx), free(mem), free(pos), free(lst), free(gw), free(mark);
    return 0;
}
