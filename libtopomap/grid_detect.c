/* SPDX-License-Identifier: BSD-3-Clause */
/* The process topology analyzer of Bhatele, Gupta, Kale & Chung, "Automated
 * mapping of regular communication graphs on mesh interconnects" (HiPC 2010),
 * section IV and its Algorithm 1: is a profile a 2D, 3D or 4D nearest-
 * neighbour grid, of which dimensions, periodic or not, in which rank order?
 *
 * As in the paper:
 *  - edges lighter than a threshold (20% of the average edge by default,
 *    configurable) are ignored;
 *  - traffic between rank 0 and ranks that are not its grid neighbours
 *    (broadcasts from and reductions to rank 0) is ignored;
 *  - a grid in rank order is recognised by the differences between the ranks
 *    of neighbours (Algorithm 1): they must be the strides of the grid's
 *    dimensions (1, X, X*Y, ...) or, across a wraparound, (extent - 1) times
 *    a stride. Algorithm 1 reads the second stride off one arbitrary rank
 *    and checks that every rank agrees; we collect the distinct differences
 *    of all edges instead (at most 8 in a 4D grid), try the stride sets they
 *    allow, fewest dimensions first, and keep the first that explains every
 *    edge, which also finds 3D and 4D grids (which the paper calls
 *    "similar").
 *
 * Where we depart from the paper, and why:
 *  - Algorithm 1 only checks that every edge is a grid edge. We also ask
 *    that every grid edge is there (every rank talks to all its neighbours;
 *    a wraparound is all or nothing per dimension), so that "grid" means the
 *    profile is that stencil, and a mapping built for the grid is built for
 *    the profile.
 *  - The paper's threshold is relative to the plain average edge. Where a
 *    light all-to-all adds many edges (PETSc's redundant coarse solve in the
 *    shared ex45 profiles: 63 light edges per rank for 6 halo edges), that
 *    average falls below every edge and nothing is ignored. When the plain
 *    average finds no grid we try again with the average weighted by bytes
 *    (sum w^2 / sum w), which is the plain average when edges are equal and
 *    follows the heavy edges otherwise.
 *  - Rank 0's edges: first the profile is read as it is; if that fails, rank
 *    0's edges are set aside, the grid is found from the other ranks, and
 *    rank 0 then keeps the edges to its grid neighbours (which must be
 *    there) and its other edges are ignored. Rank 0 may thus also be a
 *    corner of an open grid with as many collective edges as it has
 *    neighbours, which a degree test would not notice.
 *  - Rank orders other than the grid's own (a permuted grid, "shuffled"
 *    ranks), which the paper does not consider: grid coordinates
 *    are grown from one rank over the graph. The neighbours of the starting
 *    rank fall into axes (two neighbours on one axis have no common neighbour
 *    but the start; two on different axes close a square); then, breadth
 *    first, a rank w reached from v closes a square u, v, w, x with labelled
 *    u and x (c(w) = c(v) + c(x) - c(u)), or else continues straight on from
 *    a labelled neighbour u of v when w is the only neighbour of v sharing no
 *    neighbour with u but v (c(w) = 2 c(v) - c(u)); a rank that cannot be
 *    placed yet is retried when the others are. This needs periodic
 *    dimensions of at least 5 ranks (in a ring of 3 or 4 the two neighbours
 *    on an axis share a neighbour); rank-ordered grids have no such limit.
 *  - A dimension of extent 2 looks the same with or without wraparound (both
 *    neighbours are one rank); it is called periodic when every longer
 *    dimension is periodic, else open.
 *  - 1D chains and rings are not reported as grids: the paper's heuristics
 *    are for 2D and up, and other algorithms map chains well.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAXD TOPOMAP_GRID_MAXDIMS
#define MAXDEG (2 * MAXD)
#define MAXDIST 8 /* distinct rank differences of a 4D grid */

/* The symmetric graph without weak edges. */
struct fgraph {
    int n;
    int64_t *xadj;
    int *adj;
};

/* One attempt's result. */
struct det {
    int nd, dims[MAXD], per[MAXD];
    int *c;   /* n * MAXD coordinates */
    int *pos; /* n: rank at each grid position (x fastest) */
};

static void fg_free(struct fgraph *f)
{
    free(f->xadj);
    free(f->adj);
}

/* Keep the edges of g of at least thr bytes (adjacency stays sorted). */
static int fg_build(struct fgraph *f, const topomap_graph_t *g, double thr, long *weak)
{
    int n = g->n;
    f->n = n;
    f->xadj = malloc(sizeof(int64_t) * ((size_t)n + 1));
    f->adj = malloc(sizeof(int) * ((size_t)g->xadj[n] + 1));
    if (!f->xadj || !f->adj)
        return -1;
    int64_t k = 0;
    *weak = 0;
    for (int i = 0; i < n; i++) {
        f->xadj[i] = k;
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
            if (g->w[e] >= thr && g->w[e] > 0)
                f->adj[k++] = g->adj[e];
            else if (g->adj[e] > i)
                (*weak)++;
        }
    }
    f->xadj[n] = k;
    return 0;
}

static int has_edge(const struct fgraph *f, int i, int j)
{
    return topomap_adj_find(f->xadj, f->adj, i, j) >= 0;
}

/* An edge the structural phase looks at: all of them, or with drop0 none
 * that touches rank 0. */
static inline int seen(int drop0, int i, int j)
{
    return !drop0 || (i != 0 && j != 0);
}

static int degree(const struct fgraph *f, int drop0, int i)
{
    if (drop0 && i == 0)
        return 0;
    int d = 0;
    for (int64_t e = f->xadj[i]; e < f->xadj[i + 1]; e++)
        d += seen(drop0, i, f->adj[e]);
    return d;
}

/* Does every edge join grid neighbours, and is every grid edge there? Fills
 * d->per and d->pos from d->dims and d->c. */
static int verify(const struct fgraph *f, int drop0, struct det *d, char *why, size_t wl)
{
    int n = f->n, nd = d->nd;
    long stride[MAXD], prod = 1;
    for (int k = 0; k < nd; k++) {
        if (d->dims[k] < 2 || d->dims[k] > n)
            return snprintf(why, wl, "dimension %d has extent %d", k, d->dims[k]), 0;
        stride[k] = prod;
        prod *= d->dims[k];
        if (prod > n)
            break;
    }
    if (prod != n)
        return snprintf(why, wl, "the grid's extents do not multiply to %d ranks", n), 0;
    for (int i = 0; i < n; i++)
        d->pos[i] = -1;
    for (int i = 0; i < n; i++) {
        long idx = 0;
        for (int k = 0; k < nd; k++) {
            int x = d->c[(size_t)i * MAXD + k];
            if (x < 0 || x >= d->dims[k])
                return snprintf(why, wl, "rank %d falls outside the grid", i), 0;
            idx += x * stride[k];
        }
        if (d->pos[idx] >= 0)
            return snprintf(why, wl, "ranks %d and %d get the same grid position", d->pos[idx],
                            i),
                   0;
        d->pos[idx] = i;
    }
    /* Every (looked-at) edge is a grid edge; count the wraparound edges. */
    long wraps[MAXD] = {0};
    for (int i = 0; i < n; i++)
        for (int64_t e = f->xadj[i]; e < f->xadj[i + 1]; e++) {
            int j = f->adj[e];
            if (j < i || !seen(drop0, i, j))
                continue;
            int diffdims = 0, kk = -1, ad = 0;
            for (int k = 0; k < nd; k++) {
                int dx = d->c[(size_t)i * MAXD + k] - d->c[(size_t)j * MAXD + k];
                if (dx) {
                    diffdims++;
                    kk = k;
                    ad = dx < 0 ? -dx : dx;
                }
            }
            if (diffdims != 1 || (ad != 1 && (ad != d->dims[kk] - 1 || d->dims[kk] < 3)))
                return snprintf(why, wl, "ranks %d and %d talk but are no grid neighbours", i,
                                j),
                       0;
            if (ad != 1)
                wraps[kk]++;
        }
    int longest_open = 0, any_long = 0;
    for (int k = 0; k < nd; k++) {
        d->per[k] = wraps[k] > 0;
        if (d->dims[k] >= 3) {
            any_long = 1;
            longest_open |= !d->per[k];
        }
    }
    for (int k = 0; k < nd; k++)
        if (d->dims[k] == 2)
            d->per[k] = any_long && !longest_open;
    /* Every grid edge is there (rank 0's in the full graph). */
    for (int i = 0; i < n; i++) {
        int idx = 0;
        for (int k = 0; k < nd; k++)
            idx += d->c[(size_t)i * MAXD + k] * (int)stride[k];
        for (int k = 0; k < nd; k++) {
            int x = d->c[(size_t)i * MAXD + k];
            for (int s = -1; s <= 1; s += 2) {
                int y = x + s;
                if (y < 0 || y >= d->dims[k]) {
                    if (!d->per[k] || d->dims[k] < 3)
                        continue;
                    y = (y + d->dims[k]) % d->dims[k];
                }
                int j = d->pos[idx + (y - x) * (int)stride[k]];
                if (!has_edge(f, i, j))
                    return snprintf(why, wl,
                                    "ranks %d and %d are grid neighbours but do not talk", i, j),
                           0;
            }
        }
    }
    return 1;
}

/* Algorithm 1, generalised: the grid in rank order from the distinct rank
 * differences of the edges. */
static int try_rank_order(const struct fgraph *f, int drop0, struct det *d, char *why, size_t wl)
{
    int n = f->n, nd = 0;
    long dist[MAXDIST];
    for (int i = 0; i < n; i++)
        for (int64_t e = f->xadj[i]; e < f->xadj[i + 1]; e++) {
            int j = f->adj[e];
            if (j < i || !seen(drop0, i, j))
                continue;
            long dd = j - i;
            int at = 0;
            while (at < nd && dist[at] < dd)
                at++;
            if (at < nd && dist[at] == dd)
                continue;
            if (nd == MAXDIST)
                return snprintf(why, wl,
                                "neighbours' ranks differ by more than %d distinct amounts",
                                MAXDIST),
                       0;
            memmove(dist + at + 1, dist + at, sizeof(long) * (size_t)(nd - at));
            dist[at] = dd;
            nd++;
        }
    if (nd == 0)
        return snprintf(why, wl, "no rank talks to another"), 0;
    if (dist[0] != 1)
        return snprintf(why, wl, "no neighbours in consecutive ranks"), 0;
    /* Stride sets {1, dist[a], dist[b], ...}: fewest dimensions first. */
    for (int want = 2; want <= MAXD; want++)
        for (unsigned mask = 0; mask < 1u << (nd - 1); mask++) {
            if (__builtin_popcount(mask) != want - 1)
                continue;
            long s[MAXD + 1];
            int k = 0;
            s[k++] = 1;
            for (int b = 0; b < nd - 1; b++)
                if (mask & (1u << b))
                    s[k++] = dist[b + 1];
            int okk = n % s[k - 1] == 0;
            for (int q = 1; q < k && okk; q++)
                okk = s[q] % s[q - 1] == 0;
            if (!okk)
                continue;
            s[k] = n;
            d->nd = k;
            for (int q = 0; q < k; q++)
                d->dims[q] = (int)(s[q + 1] / s[q]);
            /* Each difference is a stride or a wraparound. */
            for (int a = 0; a < nd && okk; a++) {
                int explained = 0;
                for (int q = 0; q < k; q++)
                    explained |= dist[a] == s[q] ||
                                 (d->dims[q] >= 3 && dist[a] == (long)(d->dims[q] - 1) * s[q]);
                okk = explained;
            }
            if (!okk || d->dims[k - 1] < 2)
                continue;
            for (int i = 0; i < n; i++)
                for (int q = 0; q < k; q++)
                    d->c[(size_t)i * MAXD + q] = (int)((i / s[q]) % d->dims[q]);
            if (verify(f, drop0, d, why, wl))
                return 1;
        }
    if (!why[0])
        snprintf(why, wl, "neighbours' rank differences fit no grid in rank order");
    return 0;
}

/* Common neighbours of a and b other than `except` (and rank 0 with drop0);
 * *lab_x gets one of them that is labelled, or -1. */
static int common(const struct fgraph *f, int drop0, int a, int b, int except, const char *lab,
                  int *lab_x)
{
    int64_t p = f->xadj[a], pe = f->xadj[a + 1], q = f->xadj[b], qe = f->xadj[b + 1];
    int cnt = 0;
    *lab_x = -1;
    while (p < pe && q < qe) {
        int u = f->adj[p], v = f->adj[q];
        if (u < v)
            p++;
        else if (v < u)
            q++;
        else {
            if (u != except && seen(drop0, u, u)) {
                cnt++;
                if (lab[u] && *lab_x < 0)
                    *lab_x = u;
            }
            p++;
            q++;
        }
    }
    return cnt;
}

/* Give w, an unlabelled neighbour of the labelled v, its coordinates:
 * closing a square u, v, w, x over labelled u and x, else going straight on
 * from a labelled u when w is the only neighbour of v that shares no
 * neighbour with u but v (with rank 0 set aside, the square whose fourth
 * corner is rank 0 looks straight too; then there are two such neighbours
 * and we wait). 1 when placed. */
static int place(const struct fgraph *f, int drop0, int *c, char *lab, int v, int w)
{
    const int *cv = c + (size_t)v * MAXD;
    int *cw = c + (size_t)w * MAXD, x;
    for (int64_t e = f->xadj[v]; e < f->xadj[v + 1]; e++) {
        int u = f->adj[e];
        if (!lab[u] || u == w || !seen(drop0, v, u))
            continue;
        if (common(f, drop0, u, w, v, lab, &x) > 0 && x >= 0) {
            const int *cu = c + (size_t)u * MAXD, *cx = c + (size_t)x * MAXD;
            for (int k = 0; k < MAXD; k++)
                cw[k] = cv[k] + cx[k] - cu[k];
            lab[w] = 1;
            return 1;
        }
    }
    for (int64_t e = f->xadj[v]; e < f->xadj[v + 1]; e++) {
        int u = f->adj[e];
        if (!lab[u] || u == w || !seen(drop0, v, u) || common(f, drop0, u, w, v, lab, &x) > 0)
            continue;
        int straight = 0;
        for (int64_t e2 = f->xadj[v]; e2 < f->xadj[v + 1]; e2++) {
            int w2 = f->adj[e2];
            straight += w2 != u && seen(drop0, v, w2) && common(f, drop0, u, w2, v, lab, &x) == 0;
        }
        if (straight != 1)
            continue;
        const int *cu = c + (size_t)u * MAXD;
        for (int k = 0; k < MAXD; k++)
            cw[k] = 2 * cv[k] - cu[k];
        lab[w] = 1;
        return 1;
    }
    return 0;
}

/* Grid coordinates grown over the graph from one rank (any rank order). */
static int try_permuted(const struct fgraph *f, int drop0, struct det *d, char *why, size_t wl)
{
    int n = f->n, o = -1, od = -1;
    for (int i = 0; i < n; i++) {
        int dg = degree(f, drop0, i);
        if (dg > od) {
            od = dg;
            o = i;
        }
    }
    char *lab = calloc((size_t)n, 1);
    int *queue = malloc(sizeof(int) * (size_t)n);
    if (!lab || !queue) {
        free(lab);
        free(queue);
        return -1;
    }
    int rc = 0, x;
    /* The start's neighbours, in axes. */
    int nb[MAXDEG], nn = 0, cls[MAXDEG], ncls = 0, first[MAXDEG] = {0};
    for (int64_t e = f->xadj[o]; e < f->xadj[o + 1]; e++)
        if (seen(drop0, o, f->adj[e]))
            nb[nn++] = f->adj[e];
    for (int a = 0; a < nn; a++)
        cls[a] = -1;
    for (int a = 0; a < nn; a++) {
        if (cls[a] >= 0)
            continue;
        cls[a] = ncls;
        first[ncls] = 1;
        int partners = 0;
        for (int b = a + 1; b < nn; b++)
            if (common(f, drop0, nb[a], nb[b], o, lab, &x) == 0) {
                if (cls[b] >= 0 || ++partners > 1) {
                    snprintf(why, wl, "rank %d's neighbours do not fall into grid axes", o);
                    goto out;
                }
                cls[b] = ncls;
            }
        ncls++;
    }
    if (ncls < 2 || ncls > MAXD) {
        snprintf(why, wl, "rank %d's neighbours form %d axes (a grid has 2 to %d)", o, ncls,
                 MAXD);
        goto out;
    }
    memset(d->c, 0, sizeof(int) * (size_t)n * MAXD);
    int qh = 0, qt = 0;
    lab[o] = 1;
    queue[qt++] = o;
    for (int a = 0; a < nn; a++) {
        int *c = d->c + (size_t)nb[a] * MAXD;
        c[cls[a]] = first[cls[a]] ? 1 : -1;
        first[cls[a]] = 0;
        lab[nb[a]] = 1;
        queue[qt++] = nb[a];
    }
    /* Breadth first; a rank that cannot be placed yet is retried from its
     * labelled neighbours once the queue runs dry. */
    for (;;) {
        while (qh < qt) {
            int v = queue[qh++];
            for (int64_t e = f->xadj[v]; e < f->xadj[v + 1]; e++) {
                int w = f->adj[e];
                if (!lab[w] && seen(drop0, v, w) && place(f, drop0, d->c, lab, v, w))
                    queue[qt++] = w;
            }
        }
        int progress = 0;
        for (int w = 0; w < n; w++) {
            if (lab[w] || (drop0 && w == 0))
                continue;
            for (int64_t e = f->xadj[w]; e < f->xadj[w + 1]; e++) {
                int v = f->adj[e];
                if (lab[v] && seen(drop0, v, w) && place(f, drop0, d->c, lab, v, w)) {
                    queue[qt++] = w;
                    progress = 1;
                    break;
                }
            }
        }
        if (!progress)
            break;
    }
    /* Shift to 0-based coordinates; extents. */
    int lo[MAXD], hi[MAXD];
    for (int k = 0; k < ncls; k++)
        lo[k] = hi[k] = 0;
    for (int i = 0; i < n; i++) {
        if (!lab[i]) {
            if (drop0 && i == 0)
                continue;
            snprintf(why, wl, "rank %d gets no grid coordinates from its neighbours", i);
            goto out;
        }
        for (int k = 0; k < ncls; k++) {
            int v = d->c[(size_t)i * MAXD + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    }
    long prod = 1;
    d->nd = ncls;
    for (int k = 0; k < ncls; k++) {
        d->dims[k] = hi[k] - lo[k] + 1;
        prod *= d->dims[k];
        if (prod > n)
            break;
    }
    if (prod != n) {
        snprintf(why, wl, "the coordinates grown from rank %d span no grid of %d ranks", o, n);
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ncls; k++)
            d->c[(size_t)i * MAXD + k] -= lo[k];
    if (drop0 && !lab[0]) {
        /* Rank 0 takes the one position nobody else has. */
        char *used = calloc((size_t)n, 1);
        if (!used) {
            rc = -1;
            goto out;
        }
        for (int i = 1; i < n; i++) {
            long idx = 0, st = 1;
            for (int k = 0; k < ncls; k++) {
                idx += d->c[(size_t)i * MAXD + k] * st;
                st *= d->dims[k];
            }
            used[idx] = 1;
        }
        long free_idx = 0;
        while (free_idx < n && used[free_idx])
            free_idx++;
        free(used);
        for (int k = 0; k < ncls; k++) {
            d->c[k] = (int)(free_idx % d->dims[k]);
            free_idx /= d->dims[k];
        }
    }
    rc = verify(f, drop0, d, why, wl);
out:
    free(lab);
    free(queue);
    return rc;
}

/* One attempt: threshold thr, rank 0's edges set aside or not. */
static int attempt(const topomap_graph_t *g, double thr, int drop0, struct det *d, long *weak,
                   char *why, size_t wl)
{
    struct fgraph f = {0};
    if (fg_build(&f, g, thr, weak) < 0) {
        fg_free(&f);
        return -1;
    }
    int rc = 0;
    why[0] = 0;
    for (int i = 0; i < f.n; i++) {
        int dg = degree(&f, drop0, i);
        if (dg > MAXDEG) {
            snprintf(why, wl, "rank %d has %d neighbours (a 4D grid has at most %d)", i, dg,
                     MAXDEG);
            goto out;
        }
    }
    rc = try_rank_order(&f, drop0, d, why, wl);
    if (rc == 0) {
        char why1[192];
        snprintf(why1, sizeof why1, "%s", why);
        why[0] = 0;
        rc = try_permuted(&f, drop0, d, why, wl);
        if (rc == 0) /* the rank-order reason reads better */
            snprintf(why, wl, "%s", why1);
    }
out:
    fg_free(&f);
    return rc;
}

/* Mean directed bytes and messages of the grid entries of each dimension. */
static void dim_means(const topomap_profile_t *p, const struct det *d, topomap_grid_t *gr)
{
    topomap_graph_t b, m;
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &b);
    int msgs = topomap_profile_graph(p, TOPOMAP_AFFINITY_MSGS, 0, &m) == 0;
    double sb[MAXD] = {0}, sm[MAXD] = {0};
    long cnt[MAXD] = {0};
    for (int i = 0; i < b.n; i++)
        for (int64_t e = b.xadj[i]; e < b.xadj[i + 1]; e++) {
            int j = b.adj[e], diffdims = 0, kk = -1, ad = 0;
            for (int k = 0; k < d->nd; k++) {
                int dx = d->c[(size_t)i * MAXD + k] - d->c[(size_t)j * MAXD + k];
                if (dx) {
                    diffdims++;
                    kk = k;
                    ad = dx < 0 ? -dx : dx;
                }
            }
            if (diffdims != 1 || (ad != 1 && !(d->per[kk] && ad == d->dims[kk] - 1)))
                continue;
            sb[kk] += b.w[e];
            sm[kk] += msgs ? m.w[e] : 0;
            cnt[kk]++;
        }
    for (int k = 0; k < d->nd; k++) {
        gr->dim_bytes[k] = cnt[k] ? sb[k] / (double)cnt[k] : 0;
        gr->dim_msgs[k] = cnt[k] ? sm[k] / (double)cnt[k] : 0;
    }
}

int topomap_grid_detect(const topomap_profile_t *p, double weak, topomap_grid_t *gr, int *coords)
{
    if (!p || !gr) {
        errno = EINVAL;
        return -1;
    }
    memset(gr, 0, sizeof *gr);
    if (weak <= 0)
        weak = TOPOMAP_GRID_WEAK;
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) < 0)
        return -1;
    int n = g.n;
    if (n < 4) {
        snprintf(gr->why, sizeof gr->why, "%d ranks are too few for a 2D grid", n);
        return 0;
    }
    struct det d = {0};
    d.c = malloc(sizeof(int) * (size_t)n * MAXD);
    d.pos = malloc(sizeof(int) * (size_t)n);
    if (!d.c || !d.pos) {
        free(d.c);
        free(d.pos);
        errno = ENOMEM;
        return -1;
    }
    /* The plain average edge (the paper's), then the byte-weighted one. */
    double s1 = 0, s2 = 0;
    long ne = 0;
    for (int i = 0; i < n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            if (g.adj[e] > i) {
                s1 += g.w[e];
                s2 += g.w[e] * g.w[e];
                ne++;
            }
    double avg[2] = {ne ? s1 / (double)ne : 0, s1 > 0 ? s2 / s1 : 0};
    int rc = 0;
    char why[192];
    for (int a = 0; a < 2 && rc == 0; a++)
        for (int drop0 = 0; drop0 < 2 && rc == 0; drop0++) {
            long nweak;
            rc = attempt(&g, weak * avg[a], drop0, &d, &nweak, why, sizeof why);
            if (a == 0 && drop0 == 0 && rc == 0)
                snprintf(gr->why, sizeof gr->why, "%s", why);
            if (rc > 0) {
                gr->ndims = d.nd;
                gr->rank0_ignored = drop0;
                gr->weak_edges = nweak;
                gr->threshold = weak * avg[a];
            }
        }
    if (rc > 0) {
        gr->why[0] = 0;
        gr->rank_order = 1;
        long st = 1;
        for (int k = 0; k < d.nd; k++) {
            gr->dims[k] = d.dims[k];
            gr->periodic[k] = d.per[k];
        }
        for (int i = 0; i < n && gr->rank_order; i++) {
            long idx = 0;
            st = 1;
            for (int k = 0; k < d.nd; k++) {
                idx += d.c[(size_t)i * MAXD + k] * st;
                st *= d.dims[k];
            }
            gr->rank_order = idx == i;
        }
        dim_means(p, &d, gr);
        if (coords)
            for (int i = 0; i < n; i++)
                for (int k = 0; k < MAXD; k++)
                    coords[(size_t)i * MAXD + k] = k < d.nd ? d.c[(size_t)i * MAXD + k] : 0;
    }
    free(d.c);
    free(d.pos);
    if (rc < 0) {
        errno = ENOMEM;
        return -1;
    }
    return rc > 0 ? gr->ndims : 0;
}

int topomap_grid_describe(const topomap_grid_t *g, char *buf, size_t len)
{
    if (!g || g->ndims < 1)
        return snprintf(buf, len, "not a grid: %s", g && g->why[0] ? g->why : "unknown");
    static const char axis[] = "xyzw";
    char dims[64] = "", wrap[48] = "";
    size_t dl = 0;
    int nper = 0;
    for (int k = 0; k < g->ndims; k++) {
        dl += (size_t)snprintf(dims + dl, sizeof dims - dl, "%s%d", k ? " x " : "", g->dims[k]);
        nper += g->periodic[k];
    }
    if (nper == 0)
        snprintf(wrap, sizeof wrap, "open");
    else if (nper == g->ndims)
        snprintf(wrap, sizeof wrap, "periodic");
    else {
        size_t wl = (size_t)snprintf(wrap, sizeof wrap, "periodic in");
        for (int k = 0; k < g->ndims; k++)
            if (g->periodic[k])
                wl += (size_t)snprintf(wrap + wl, sizeof wrap - wl, " %c", axis[k]);
    }
    return snprintf(buf, len, "%dD grid %s, %s, %s%s", g->ndims, dims, wrap,
                    g->rank_order ? "x fastest" : "ranks permuted",
                    g->rank0_ignored ? ", rank 0's collective traffic ignored" : "");
}
