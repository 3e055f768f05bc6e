/* SPDX-License-Identifier: BSD-3-Clause */
/* multilevel mapping of large jobs: the communication graph coarsened to
 * node-sized groups, the groups mapped onto the nodes, then the ranks.
 *
 * drb + refine bisects the whole rank graph once per level of the node
 * hierarchy and then refines rank by rank; past 65,536 ranks both cost
 * minutes (doc/scaling.md). Here, as in the multilevel static mappers
 * (Scotch's, and the "partition, then map the parts" schemes surveyed by
 * Hoefler and Snir, ICS 2011):
 *  1. coarsen, in two stages: METIS_PartGraphKway cuts the ranks into parts
 *     of COARSE_STAGE node-sized groups each (target weights: the slots of
 *     those nodes); inside each part, greedy graph growing and swap passes
 *     (ours, grow() and polish()) cut it into its groups. METIS balances
 *     only within its tolerance, so its parts are made exact first (ours:
 *     the least attached ranks of an over-full part go to the under-full
 *     part they send most to, else to the first under-full part). Why not
 *     one METIS call into as many parts as nodes: at 32,768 parts it costs
 *     more than drb itself (doc/scaling.md);
 *  2. map the groups: the quotient graph (one vertex per group, the bytes
 *     between groups on its edges) on the nodes with one slot each, by drb
 *     in its quick mode (map_drb.c: the small splits bisected exactly, one
 *     METIS try for the others) and at most COARSE_GROUP_PASSES passes of
 *     the refinement engine, as for a job of one rank per node;
 *  3. the ranks of a group on its node's slots in rank order, then
 *     COARSE_RANK_PASSES pass of the rank refinement (refine.c) within the
 *     deadline: a pass costs about ranks x slots per node x the near nodes
 *     searched, the first removes most (doc/scaling.md).
 * Every step is serial or thread-count independent (METIS seeded by the
 * options' seed, drb, refine.c), so the answer does not depend on the thread
 * count. Nodes with unequal slot counts are declined (ECANCELED): a group
 * sized for one node may not fit another. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metis_call.h"
#include "coarsen.h"
#include "refine.h"

/* METIS's tolerance on the part sizes (1.03 is its default for k-way). */
#define COARSE_UBFACTOR 1.03f

/* Groups per part of the coarsening's first stage: METIS k-way into as many
 * parts as nodes costs 3 s of CPU at 32,768 parts of 65,536 ranks, more
 * than drb; into 1/32 of that 0.6 s. 128 halves that again, for 7% more
 * hop-bytes at 262,144 ranks (doc/scaling.md). */
#define COARSE_STAGE 32
/* Swap passes inside a part after the greedy growth (polish()): 4 took the
 * hop-bytes at 262,144 ranks from 2.61e9 to 2.35e9 for 0.2 s. */
#define COARSE_POLISH_PASSES 4
/* Passes of the group refinement on the quotient graph and of the rank
 * refinement after it: at 262,144 ranks (8 per node) the rank passes remove
 * 1.1e8, 1.3e8, ... of 2.5e9 for 0.8 s each; at 1,048,576 ranks (32 per
 * node) a pass costs about 6 s (doc/scaling.md). */
#define COARSE_GROUP_PASSES 4
#define COARSE_RANK_PASSES 1

/* Nodes holding slots, in slot order: first slot, topology node; *cap their
 * common slot count. 0; -1 with ECANCELED when the counts differ, ENOMEM. */
static int node_runs(const struct topomap_problem *pb, int *first, int *tn, int *m, int *cap)
{
    int k = 0;
    for (int s = 0; s < pb->nslots; s++)
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            first[k] = s;
            tn[k++] = pb->slot_node[s];
        }
    *m = k;
    *cap = k ? pb->nslots / k : 0;
    for (int i = 0; i < k; i++)
        if ((i + 1 < k ? first[i + 1] : pb->nslots) - first[i] != *cap)
            return -1;
    return 0;
}

int topomap_coarse_applies(const struct topomap_problem *pb)
{
    int k = 0, len = 0, cap = -1;
    for (int s = 0; s <= pb->nslots; s++) {
        if (s > 0 && (s == pb->nslots || pb->slot_node[s] != pb->slot_node[s - 1])) {
            if (cap >= 0 && len != cap)
                return 0;
            cap = len;
            len = 0;
            k++;
        }
        len++;
    }
    return k > 0;
}

/* METIS k-way partition of G (n vertices) into np parts of size[] vertices
 * (targets). */
static int kway(const topomap_graph_t *G, uint64_t seed, int np, const int *size, int *group,
                char *err, size_t errlen)
{
    int n = G->n;
    int64_t ne = G->xadj[n];
    if (ne > INT32_MAX)
        return topomap_fail(err, errlen, E2BIG,
                            "coarsen: %lld graph entries exceed METIS's 32-bit indices",
                            (long long)ne);
    idx_t *xadj = malloc(sizeof(idx_t) * ((size_t)n + 1));
    idx_t *adj = malloc(sizeof(idx_t) * (size_t)(ne ? ne : 1));
    idx_t *wgt = malloc(sizeof(idx_t) * (size_t)(ne ? ne : 1));
    idx_t *part = malloc(sizeof(idx_t) * (size_t)n);
    real_t *tpw = malloc(sizeof(real_t) * (size_t)np);
    if (!xadj || !adj || !wgt || !part || !tpw) {
        free(xadj), free(adj), free(wgt), free(part), free(tpw);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    /* Integer weights as drb makes them: relative order kept to about one
     * part in a million, total below 2^30 (METIS's 32-bit sums). */
    double maxw = 0, sumw = 0;
    for (int64_t e = 0; e < ne; e++) {
        maxw = G->w[e] > maxw ? G->w[e] : maxw;
        sumw += G->w[e];
    }
    double scale = maxw > 0 ? fmin((double)(1 << 20) / maxw, (double)(1 << 30) / sumw) : 0;
    for (int i = 0; i <= n; i++)
        xadj[i] = (idx_t)G->xadj[i];
    for (int64_t e = 0; e < ne; e++) {
        double w = ceil(G->w[e] * scale);
        adj[e] = G->adj[e];
        wgt[e] = (idx_t)(w < 1 ? 1 : w);
    }
    for (int p = 0; p < np; p++)
        tpw[p] = (real_t)size[p] / (real_t)n;
    idx_t nv = n, ncon = 1, nparts = np, objval = 0;
    idx_t options[METIS_NOPTIONS];
    real_t ub = COARSE_UBFACTOR;
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = (idx_t)(seed & 0x7fffffff);
    options[METIS_OPTION_NUMBERING] = 0;
    int st = topomap_metis_kway(&nv, &ncon, xadj, adj, NULL, NULL, wgt, &nparts, tpw, &ub,
                                 options, &objval, part);
    for (int i = 0; st == METIS_OK && i < n; i++)
        group[i] = (int)part[i];
    free(xadj), free(adj), free(wgt), free(part), free(tpw);
    if (st != METIS_OK)
        return topomap_fail(err, errlen, st == METIS_ERROR_MEMORY ? ENOMEM : EINVAL,
                            "coarsen: METIS_PartGraphKway failed (status %d)", st);
    return 0;
}

/* Sort context: ranks by group, then by attachment to it, then by index. */
struct by_attach {
    const int *group;
    const double *attach;
};

static int cmp_attach(const void *a, const void *b, void *ctx)
{
    const struct by_attach *c = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    if (c->group[x] != c->group[y])
        return c->group[x] < c->group[y] ? -1 : 1;
    if (c->attach[x] != c->attach[y])
        return c->attach[x] < c->attach[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The least attached ranks of the over-full groups into pool[] (group -1);
 * returns how many, or -1 on out of memory. cnt[] is updated. */
static int evict(const topomap_graph_t *G, const int *size, int *cnt, int *group, int *pool)
{
    int n = G->n;
    double *attach = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!attach)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (cnt[group[i]] <= size[group[i]])
            continue;
        double a = 0;
        for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++)
            a += group[G->adj[e]] == group[i] ? G->w[e] : 0;
        attach[i] = a;
        pool[k++] = i;
    }
    struct by_attach ctx = {group, attach};
    qsort_r(pool, (size_t)k, sizeof(int), cmp_attach, &ctx);
    /* Keep the first (cnt - size) of each over-full group's run. */
    int out = 0;
    for (int a = 0; a < k;) {
        int g = group[pool[a]], b = a;
        while (b < k && group[pool[b]] == g)
            b++;
        int drop = cnt[g] - size[g];
        for (int q = a; q < a + drop; q++) {
            group[pool[q]] = -1;
            pool[out++] = pool[q];
        }
        cnt[g] -= drop;
        a = b;
    }
    free(attach);
    return out;
}

/* Each pooled rank to the under-full group it sends most bytes to among its
 * neighbours' (ties: the lower group), else to the first under-full one. */
static void refill(const topomap_graph_t *G, const int *size, int *cnt,
                   int *group, const int *pool, int npool, double *acc)
{
    int cursor = 0;
    for (int q = 0; q < npool; q++) {
        int r = pool[q], best = -1;
        for (int64_t e = G->xadj[r]; e < G->xadj[r + 1]; e++) {
            int h = group[G->adj[e]];
            if (h >= 0 && cnt[h] < size[h])
                acc[h] += G->w[e];
        }
        for (int64_t e = G->xadj[r]; e < G->xadj[r + 1]; e++) {
            int h = group[G->adj[e]];
            if (h >= 0 && acc[h] > 0) {
                if (best < 0 || acc[h] > acc[best] || (acc[h] == acc[best] && h < best))
                    best = h;
            }
        }
        for (int64_t e = G->xadj[r]; e < G->xadj[r + 1]; e++) {
            int h = group[G->adj[e]];
            if (h >= 0)
                acc[h] = 0;
        }
        if (best < 0) {
            while (cnt[cursor] >= size[cursor])
                cursor++;
            best = cursor;
        }
        group[r] = best;
        cnt[best]++;
    }
}

/* G's vertices into np parts of exactly size[] vertices (summing to G->n):
 * METIS, then evict() and refill(). 0, or -1 + errno. */
static int exact_parts(const topomap_graph_t *G, uint64_t seed, int np, const int *size,
                       int *part, char *err, size_t errlen)
{
    int n = G->n;
    if (np == 1) {
        memset(part, 0, sizeof(int) * (size_t)n);
        return 0;
    }
    int *cnt = calloc((size_t)np, sizeof(int));
    int *pool = malloc(sizeof(int) * (size_t)(n ? n : 1));
    double *acc = calloc((size_t)np, sizeof(double));
    int rc = !cnt || !pool || !acc ? topomap_fail(err, errlen, ENOMEM, "out of memory")
                                   : kway(G, seed, np, size, part, err, errlen);
    if (rc == 0) {
        for (int i = 0; i < n; i++)
            cnt[part[i]]++;
        int npool = evict(G, size, cnt, part, pool);
        if (npool < 0)
            rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        else
            refill(G, size, cnt, part, pool, npool, acc);
    }
    free(cnt), free(pool), free(acc);
    return rc;
}

/* The subgraph of pb->g induced by the ranks in[0..k) (local indices: loc[],
 * all -1 outside, left so), into the caller's arrays. */
static void induced(const topomap_graph_t *g, const int *in, int k, const int *loc, int64_t *xadj,
                    int *adj, double *w)
{
    int64_t e2 = 0;
    xadj[0] = 0;
    for (int q = 0; q < k; q++) {
        for (int64_t e = g->xadj[in[q]]; e < g->xadj[in[q] + 1]; e++)
            if (loc[g->adj[e]] >= 0) {
                adj[e2] = loc[g->adj[e]];
                w[e2++] = g->w[e];
            }
        xadj[q + 1] = e2;
    }
}

/* Scratch of grow(), sized for the largest part. */
struct grow_ws {
    double *conn, *ext; /* weight to the growing group, to every group so far */
    int *front;         /* unassigned vertices next to the growing group */
    char *in;           /* 1: in front */
    int *mstart, *cur, *pos; /* polish()'s member lists */
};

/* The next seed: the unassigned vertex most attached to the groups grown so
 * far (the growth sweeps on from where it stopped), else the first
 * unassigned one; -1 when none is left. */
static int seed_vertex(int n, const int *part, const double *ext)
{
    int best = -1;
    for (int v = 0; v < n; v++)
        if (part[v] < 0 && (best < 0 || ext[v] > ext[best]))
            best = v;
    return best;
}

/* Stage 2 inside one part (ours, greedy graph growing): group after group,
 * from a seed, the unassigned neighbour most attached to the group joins it
 * (ties: the lower index) until it holds size[g] vertices. METIS k-way costs
 * milliseconds per call at 32 parts of a few vertices, seconds over the
 * thousands of parts of a large job; the rank refinement corrects what the
 * greedy growth leaves. part[] in 0..gk-1. */
static void grow(const topomap_graph_t *G, int gk, const int *size, int *part,
                 struct grow_ws *ws)
{
    int n = G->n;
    for (int v = 0; v < n; v++) {
        part[v] = -1;
        ws->ext[v] = ws->conn[v] = 0;
        ws->in[v] = 0;
    }
    for (int g = 0; g < gk; g++) {
        int nf = 0;
        for (int k = 0; k < size[g]; k++) {
            int best = -1, bi = -1;
            for (int f = 0; f < nf; f++) {
                int v = ws->front[f];
                if (best < 0 || ws->conn[v] > ws->conn[best] ||
                    (ws->conn[v] == ws->conn[best] && v < best))
                    best = v, bi = f;
            }
            if (best < 0)
                best = seed_vertex(n, part, ws->ext);
            else
                ws->front[bi] = ws->front[--nf];
            ws->in[best] = 0;
            part[best] = g;
            for (int64_t e = G->xadj[best]; e < G->xadj[best + 1]; e++) {
                int u = G->adj[e];
                if (part[u] >= 0)
                    continue;
                ws->conn[u] += G->w[e];
                ws->ext[u] += G->w[e];
                if (!ws->in[u]) {
                    ws->in[u] = 1;
                    ws->front[nf++] = u;
                }
            }
        }
        for (int f = 0; f < nf; f++) {
            ws->conn[ws->front[f]] = 0;
            ws->in[ws->front[f]] = 0;
        }
    }
}

/* The gain of swapping v (group a) with u (group h): the bytes each then
 * keeps inside its new group less those it kept inside its old one. */
static double swap_gain(const topomap_graph_t *G, const int *part, int v, int u, double gv)
{
    int a = part[v], h = part[u];
    double to_a = 0, in_h = 0, uv = 0;
    for (int64_t e = G->xadj[u]; e < G->xadj[u + 1]; e++) {
        int x = G->adj[e];
        if (x == v)
            uv = G->w[e];
        else if (part[x] == a)
            to_a += G->w[e];
        else if (part[x] == h)
            in_h += G->w[e];
    }
    /* gv counted uv as v's tie to h; after the swap u sits in a. */
    return gv - uv + (to_a - in_h) - uv;
}

/* After grow() (ours): passes of pairwise swaps inside the part, each rank
 * that sends more bytes to another group than to its own swapped with the
 * member of that group for which the swap gains most (ties: the lower
 * index); group sizes stay. Only unhappy ranks search, so a pass costs
 * about (unhappy ranks) x (group size) x degree. mem/pos: the members of
 * each group from mstart[g], and each vertex's index there; acc: gk
 * doubles of scratch. */
static void polish(const topomap_graph_t *G, int gk, int *part, const int *mstart, int *mem,
                   int *pos, double *acc)
{
    int n = G->n;
    for (int g = 0; g < gk; g++)
        acc[g] = 0;
    for (int pass = 0; pass < COARSE_POLISH_PASSES; pass++) {
        int swaps = 0;
        for (int v = 0; v < n; v++) {
            int a = part[v];
            for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++)
                acc[part[G->adj[e]]] += G->w[e];
            int bu = -1;
            double best = 0;
            for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++) {
                int h = part[G->adj[e]];
                double gv = acc[h] - acc[a];
                if (h == a || gv <= 0)
                    continue;
                for (int q = mstart[h]; q < mstart[h + 1]; q++) {
                    double g = swap_gain(G, part, v, mem[q], gv);
                    if (g > best || (g == best && bu >= 0 && mem[q] < bu))
                        best = g, bu = mem[q];
                }
            }
            for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++)
                acc[part[G->adj[e]]] = 0;
            acc[a] = 0;
            if (bu < 0 || best <= 0)
                continue;
            int h = part[bu], pv = pos[v], pu = pos[bu];
            part[v] = h, part[bu] = a;
            mem[pu] = v, mem[pv] = bu;
            pos[v] = pu, pos[bu] = pv;
            swaps++;
        }
        if (!swaps)
            break;
    }
}

/* Stage 2 of the coarsening: the ranks of each part (part[], np parts of
 * COARSE_STAGE groups, the last fewer) cut into its groups. */
static int split_parts(const struct topomap_problem *pb, int np, const int *part, int ng,
                       const int *size, int *group, char *err, size_t errlen)
{
    int n = pb->n;
    int64_t ne = pb->g.xadj[n];
    int *start = calloc((size_t)np + 1, sizeof(int)), *in = malloc(sizeof(int) * (size_t)n);
    int *loc = malloc(sizeof(int) * (size_t)n), *sub = malloc(sizeof(int) * (size_t)n);
    int64_t *xadj = malloc(sizeof(int64_t) * ((size_t)n + 1));
    int *adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    double *w = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    struct grow_ws ws = {malloc(sizeof(double) * (size_t)n), malloc(sizeof(double) * (size_t)n),
                         malloc(sizeof(int) * (size_t)n), malloc((size_t)n),
                         malloc(sizeof(int) * ((size_t)n + 1)), malloc(sizeof(int) * (size_t)n),
                         malloc(sizeof(int) * (size_t)n)};
    int rc = 0;
    if (!start || !in || !loc || !sub || !xadj || !adj || !w || !ws.conn || !ws.ext ||
        !ws.front || !ws.in || !ws.mstart || !ws.cur || !ws.pos) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        start[part[i] + 1]++;
        loc[i] = -1;
    }
    for (int p = 0; p < np; p++)
        start[p + 1] += start[p];
    memset(sub, 0, sizeof(int) * (size_t)np); /* the fill cursors first */
    for (int i = 0; i < n; i++)
        in[start[part[i]] + sub[part[i]]++] = i;
    for (int p = 0; p < np && rc == 0; p++) {
        /* Past the deadline, no more parts (auto's fast start stops). */
        if (p > 0 && topomap_expired(pb)) {
            rc = topomap_fail(err, errlen, ETIMEDOUT, "coarse: time limit reached");
            break;
        }
        int k = start[p + 1] - start[p], g0 = p * COARSE_STAGE;
        int gk = ng - g0 < COARSE_STAGE ? ng - g0 : COARSE_STAGE;
        for (int q = 0; q < k; q++)
            loc[in[start[p] + q]] = q;
        induced(&pb->g, in + start[p], k, loc, xadj, adj, w);
        topomap_graph_t G = {k, xadj, adj, w};
        grow(&G, gk, size + g0, sub, &ws);
        ws.mstart[0] = 0;
        for (int g = 0; g < gk; g++)
            ws.mstart[g + 1] = ws.mstart[g] + size[g0 + g];
        for (int g = 0; g < gk; g++)
            ws.cur[g] = ws.mstart[g];
        for (int q = 0; q < k; q++) {
            ws.pos[q] = ws.cur[sub[q]]++;
            ws.front[ws.pos[q]] = q;
        }
        polish(&G, gk, sub, ws.mstart, ws.front, ws.pos, ws.conn);
        for (int q = 0; q < k; q++) {
            loc[in[start[p] + q]] = -1;
            group[in[start[p] + q]] = g0 + sub[q];
        }
    }
out:
    free(start), free(in), free(loc), free(sub), free(xadj), free(adj), free(w);
    free(ws.conn), free(ws.ext), free(ws.front), free(ws.in);
    free(ws.mstart), free(ws.cur), free(ws.pos);
    return rc;
}

int topomap_coarsen_groups(const struct topomap_problem *pb, int cap, int *group,
                           int *ngroups, char *err, size_t errlen)
{
    int n = pb->n;
    if (cap < 1 || n < 1)
        return topomap_fail(err, errlen, EINVAL, "coarsen: %d ranks in groups of %d", n, cap);
    int ng = (n + cap - 1) / cap, np = (ng + COARSE_STAGE - 1) / COARSE_STAGE;
    int *size = malloc(sizeof(int) * (size_t)ng), *psize = calloc((size_t)np, sizeof(int));
    int *part = malloc(sizeof(int) * (size_t)n);
    if (!size || !psize || !part) {
        free(size), free(psize), free(part);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    /* Sizes within one of each other: the first n % ng groups one larger;
     * a part of stage 1 holds COARSE_STAGE consecutive groups. */
    for (int g = 0; g < ng; g++) {
        size[g] = n / ng + (g < n % ng);
        psize[g / COARSE_STAGE] += size[g];
    }
    /* Work of auto's accounting: two METIS partitions of the whole graph. */
    topomap_work_add(pb, 2 * ((double)n + (double)pb->g.xadj[n]) * TOPOMAP_WORK_METIS +
                             (np + 1) * TOPOMAP_WORK_METIS_CALL);
    double t0 = topomap_now();
    int rc = exact_parts(&pb->g, pb->opts->seed, np, psize, part, err, errlen);
    double t1 = topomap_now();
    if (rc == 0 && topomap_expired(pb))
        rc = topomap_fail(err, errlen, ETIMEDOUT, "coarse: time limit reached");
    if (rc == 0)
        rc = split_parts(pb, np, part, ng, size, group, err, errlen);
    topomap_log(pb, "coarse: %d parts in %.3f s, then %d groups in %.3f s", np, t1 - t0, ng,
                topomap_now() - t1);
    free(size), free(psize), free(part);
    *ngroups = ng;
    return rc;
}

/* An entry of a quotient row, sorted by group. */
struct qpair {
    int h;
    double w;
};

static int cmp_qpair(const void *a, const void *b)
{
    int x = ((const struct qpair *)a)->h, y = ((const struct qpair *)b)->h;
    return (x > y) - (x < y);
}

/* The quotient graph of the groups: CSR rows sorted, no diagonal, the bytes
 * between two groups summed (symmetric, as pb->g). *members: the ranks of
 * each group in rank order, from mstart[g]. 0, or -1 on out of memory. */
static int quotient(const struct topomap_problem *pb, int np, const int *group, int64_t **qx,
                    int **qa, double **qw, int *members, int *mstart)
{
    int n = pb->n;
    int64_t ne = pb->g.xadj[n];
    *qx = calloc((size_t)np + 1, sizeof(int64_t));
    *qa = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    *qw = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    int *mark = malloc(sizeof(int) * (size_t)np);
    struct qpair *pair = malloc(sizeof(struct qpair) * (size_t)np);
    if (!*qx || !*qa || !*qw || !mark || !pair) {
        free(mark), free(pair);
        return -1;
    }
    memset(mstart, 0, sizeof(int) * ((size_t)np + 1));
    for (int i = 0; i < n; i++)
        mstart[group[i] + 1]++;
    for (int g = 0; g < np; g++)
        mstart[g + 1] += mstart[g];
    for (int g = 0; g < np; g++) /* mark: the fill cursor first */
        mark[g] = mstart[g];
    for (int i = 0; i < n; i++)
        members[mark[group[i]]++] = i;
    for (int g = 0; g < np; g++)
        mark[g] = -1;
    int64_t k = 0;
    for (int g = 0; g < np; g++) {
        int64_t row = k;
        for (int q = mstart[g]; q < mstart[g + 1]; q++) {
            int r = members[q];
            for (int64_t e = pb->g.xadj[r]; e < pb->g.xadj[r + 1]; e++) {
                int h = group[pb->g.adj[e]];
                if (h == g)
                    continue;
                if (mark[h] < 0) {
                    mark[h] = (int)(k - row);
                    (*qa)[k] = h;
                    (*qw)[k++] = 0;
                }
                (*qw)[row + mark[h]] += pb->g.w[e];
            }
        }
        for (int64_t e = row; e < k; e++)
            mark[(*qa)[e]] = -1;
        /* Rows sorted (topomap_adj_find). */
        for (int64_t e = row; e < k; e++)
            pair[e - row] = (struct qpair){(*qa)[e], (*qw)[e]};
        qsort(pair, (size_t)(k - row), sizeof *pair, cmp_qpair);
        for (int64_t e = row; e < k; e++) {
            (*qa)[e] = pair[e - row].h;
            (*qw)[e] = pair[e - row].w;
        }
        (*qx)[g + 1] = k;
    }
    free(mark), free(pair);
    return 0;
}

/* Steps 2 and 3 of the top: the quotient graph on the nodes, then its
 * groups' ranks on their nodes' slots. */
static int place_groups(const struct topomap_problem *pb, int np, const int *group,
                        const int *first, const int *tn, int m, int *r2s, char *err,
                        size_t errlen)
{
    int64_t *qx = NULL;
    int *qa = NULL, *members = malloc(sizeof(int) * (size_t)pb->n);
    int *mstart = malloc(sizeof(int) * ((size_t)np + 1));
    double *qw = NULL;
    int *core = calloc((size_t)m, sizeof(int)), *g2n = malloc(sizeof(int) * (size_t)np);
    int rc = 0;
    if (!members || !mstart || !core || !g2n ||
        quotient(pb, np, group, &qx, &qa, &qw, members, mstart) < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    struct topomap_problem q = *pb;
    q.g = (topomap_graph_t){np, qx, qa, qw};
    q.n = np;
    q.nslots = m;
    q.slot_node = tn;
    q.slot_core = core;
    q.grid = NULL;
    q.grid_coords = NULL;
    double t = topomap_now();
    if ((rc = topomap_map_drb_quick(&q, g2n, err, errlen)) < 0)
        goto out;
    double t2 = topomap_now();
    struct topomap_refine_params rp = {COARSE_GROUP_PASSES, pb->deadline, REFINE_MIN_GAIN,
                                       TOPOMAP_REFINE_AUTO};
    if ((rc = topomap_refine(&q, g2n, &rp, NULL, err, errlen)) < 0)
        goto out;
    topomap_log(pb, "coarse: %d groups on %d nodes: drb %.3f s, group refinement %.3f s", np, m,
                t2 - t, topomap_now() - t2);
    for (int g = 0; g < np; g++)
        for (int q2 = mstart[g]; q2 < mstart[g + 1]; q2++)
            r2s[members[q2]] = first[g2n[g]] + (q2 - mstart[g]);
out:
    free(qx), free(qa), free(qw), free(members), free(mstart), free(core), free(g2n);
    return rc;
}

/* Step 3's refinement: rank passes only (topomap_refine would add rounds of
 * whole-node exchanges, which the group refinement has done), at most
 * COARSE_RANK_PASSES, within the deadline. */
static int rank_refine(const struct topomap_problem *pb, int *r2s,
                       struct topomap_refine_stats *st, char *err, size_t errlen)
{
    struct topomap_xchg x;
    int dims[8], wrap[8];
    /* As topomap_refine: tori and meshes ask the topology for near nodes,
     * other networks read them from the hop table. */
    int table = topomap_topology_grid(pb->topo, dims, wrap, 8) <= 0;
    if (topomap_xchg_init_table(&x, pb, table, err, errlen) < 0)
        return -1;
    topomap_xchg_place(&x, r2s);
    struct topomap_refine_params rp = {COARSE_RANK_PASSES, pb->deadline, REFINE_MIN_GAIN,
                                       TOPOMAP_REFINE_NEAR};
    int rc = topomap_xchg_refine(&x, &rp, st, err, errlen);
    if (rc == 0)
        memcpy(r2s, x.r2s, sizeof(int) * (size_t)pb->n);
    topomap_xchg_free(&x);
    return rc;
}

int topomap_map_coarse(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    size_t ms = (size_t)(pb->nslots > 0 ? pb->nslots : 1);
    int *first = malloc(sizeof(int) * ms), *tn = malloc(sizeof(int) * ms);
    int *group = malloc(sizeof(int) * (size_t)(pb->n > 0 ? pb->n : 1));
    int m = 0, cap = 0, np = 0, rc = 0;
    if (!first || !tn || !group) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (node_runs(pb, first, tn, &m, &cap) < 0) {
        rc = topomap_fail(err, errlen, ECANCELED, "coarse: nodes of unequal slot counts");
        goto out;
    }
    double t0 = topomap_now();
    if ((rc = topomap_coarsen_groups(pb, cap, group, &np, err, errlen)) < 0)
        goto out;
    topomap_log(pb, "coarse: %d ranks in %d groups of <= %d in %.3f s", pb->n, np, cap,
                topomap_now() - t0);
    if ((rc = place_groups(pb, np, group, first, tn, m, r2s, err, errlen)) < 0)
        goto out;
    double t1 = topomap_now();
    struct topomap_refine_stats st = {0};
    if ((rc = rank_refine(pb, r2s, &st, err, errlen)) < 0)
        goto out;
    topomap_log(pb, "coarse: rank refinement %ld passes, %.6g removed in %.3f s", st.passes,
                st.gain, topomap_now() - t1);
out:
    free(first), free(tn), free(group);
    return rc;
}
