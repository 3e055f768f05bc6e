/* SPDX-License-Identifier: BSD-3-Clause */
/* spectral-fit's bisection (ours, not in Wang et al. 2015): one cut of a
 * weighted graph (topomap_bgraph: CP-NSC's similarity graph of a group of
 * ranks) into two sides of given rank counts, by the multilevel method of
 * Chaco (Hendrickson & Leland, "A multilevel algorithm for partitioning
 * graphs", Supercomputing 1995):
 *  1. coarsening: heavy-edge matching (vertices visited in an order drawn
 *     from the seed) merges pairs of vertices, the merged vertex taking the
 *     ranks, the traffic to the others and, as its self similarity, the two
 *     self similarities plus twice the traffic between them (S contracted:
 *     P^T S P, so the walk matrix of the coarse graph is the fine one's
 *     restricted to vectors constant on merged pairs); where matching leaves
 *     many vertices alone (stars, a master and its workers), pairs of lone
 *     vertices with the same heaviest neighbour are merged (METIS's two-hop
 *     matching); until FIT_COARSE vertices or no more progress;
 *  2. on the coarsest graph, spectral bisection: the leading nontrivial
 *     eigenvectors of the walk matrix D^-1 S (CP-NSC's solvers). Where Chaco
 *     takes the Fiedler vector alone, we try several directions: the
 *     Fiedler vector, its rotations towards the third eigenvector (a
 *     periodic grid has degenerate pairs of them, whose every combination is
 *     an eigenvector, and the one a solver returns cuts grid planes
 *     arbitrarily) and the fourth; the vertices sorted by each, from either
 *     end, the cut of least traffic among the prefixes of allowed weight,
 *     refined by FM (sweeps equal to an earlier one share its FM); the
 *     least cut wins, and the caller may ask for the other cuts within
 *     FIT_NEAR of it too (spectral_fit.c follows them down a level);
 *  3. uncoarsening: the cut projected level by level, each time refined by
 *     Fiduccia-Mattheyses (FM; Chaco uses Kernighan-Lin): vertex moves in
 *     order of gain (max-heaps of the boundary vertices, the others joining
 *     when a neighbour moves), each vertex once per pass, the weight on the
 *     left kept within the allowed band plus one vertex (so that moves
 *     alternate between the sides when the band is one point), hill climbing
 *     through moves that raise the cut, then back to the best point of the
 *     pass; passes until one gains nothing. On coarse levels the band is
 *     widened by the largest vertex weight; the finest level brings the
 *     weight back into the band.
 * Everything is sequential with ties broken by index: the result depends on
 * the seed only, for a given BLAS (a multithreaded OpenBLAS may return
 * another basis of a repeated eigenvalue with another number of its own
 * threads, as for CP-NSC). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"

/* Coarsen down to this many vertices (the dense eigensolver's size). */
#define FIT_COARSE 128
/* A merged vertex holds at most this share of 1/FIT_COARSE of the ranks. */
#define FIT_COARSE_VW 1.5
#define FIT_MAXLEV 48
/* Eigenvectors beyond the constant one, and directions between the first
 * two (angles k * 180 / FIT_ANGLES degrees). */
#define FIT_NVEC 3
#define FIT_ANGLES 6
/* Alternative cuts offered to the caller: within this share of the least. */
#define FIT_NEAR 0.01
/* FM: passes per level; a pass ends after this many moves (plus n /
 * FM_STALL_DIV) without a better cut. */
#define FM_PASSES 10
#define FM_STALL 64
#define FM_STALL_DIV 8

/* ---- an indexed max-heap of vertices by gain (ties: lower index first) ---- */

struct heap {
    int *h;
    int n;
};

static int before(const double *key, int a, int b)
{
    return key[a] > key[b] || (key[a] == key[b] && a < b);
}

static void heap_up(struct heap *H, int *pos, const double *key, int i)
{
    int v = H->h[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(key, v, H->h[p]))
            break;
        H->h[i] = H->h[p];
        pos[H->h[i]] = i;
        i = p;
    }
    H->h[i] = v;
    pos[v] = i;
}

static void heap_down(struct heap *H, int *pos, const double *key, int i)
{
    int v = H->h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= H->n)
            break;
        if (c + 1 < H->n && before(key, H->h[c + 1], H->h[c]))
            c++;
        if (!before(key, H->h[c], v))
            break;
        H->h[i] = H->h[c];
        pos[H->h[i]] = i;
        i = c;
    }
    H->h[i] = v;
    pos[v] = i;
}

static void heap_remove(struct heap *H, int *pos, const double *key, int v)
{
    int i = pos[v];
    pos[v] = -1;
    if (--H->n == i)
        return;
    int last = H->h[H->n];
    H->h[i] = last;
    pos[last] = i;
    heap_up(H, pos, key, i);
    heap_down(H, pos, key, pos[last]);
}

/* ---- Fiduccia-Mattheyses ------------------------------------------------ */

struct work {
    double *gain;
    int *pos, *moves, *h0, *h1;
    char *lock;
};

/* How far the left weight wl lies outside [lo, hi]. */
static long outside(long wl, long lo, long hi)
{
    return wl < lo ? lo - wl : wl > hi ? wl - hi : 0;
}

static double cut_of(const struct topomap_bgraph *G, const char *side)
{
    double c = 0;
    for (int v = 0; v < G->n; v++)
        for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++)
            if (side[G->adj[e]] != side[v])
                c += G->w[e];
    return c / 2;
}

/* Is (ex, cut) better than (bex, bcut)? Less excess first, then less cut. */
static int better(long ex, double cut, long bex, double bcut, double eps)
{
    return ex < bex || (ex == bex && cut < bcut - eps);
}

/* How far the left weight of side[] lies beyond tau outside [lo, hi]. */
static long excess(const struct topomap_bgraph *G, const char *side, long lo, long hi, long tau)
{
    long wl = 0;
    for (int i = 0; i < G->n; i++)
        wl += side[i] ? 0 : G->vw[i];
    long ex = outside(wl, lo, hi) - tau;
    return ex > 0 ? ex : 0;
}

/* FM on side[] (see the top of the file): states whose left weight lies
 * within tau of [lo, hi] count as balanced; moves stay within tau + maxvw,
 * or bring an unbalanced state closer. Returns the cut. */
static double fm(const struct topomap_bgraph *G, char *side, long lo, long hi, long tau, int maxvw,
                 struct work *W)
{
    int n = G->n;
    double *gain = W->gain, wsum = 0;
    int *pos = W->pos;
    char *lock = W->lock;
    struct heap H[2] = {{W->h0, 0}, {W->h1, 0}};
    long wl = 0;
    for (int v = 0; v < n; v++) {
        wl += side[v] ? 0 : G->vw[v];
        pos[v] = -1;
    }
    for (int64_t e = 0; e < G->xadj[n]; e++)
        wsum += G->w[e];
    double eps = 1e-12 * wsum, cut = 0;
    long limit = FM_STALL + n / FM_STALL_DIV;
    for (int pass = 0; pass < FM_PASSES; pass++) {
        /* Gains; the boundary vertices into the heaps (the others join when
         * a neighbour moves, or when the band needs them). */
        for (int v = 0; v < n; v++) {
            double g = 0;
            int ext = 0;
            for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++) {
                int o = side[G->adj[e]] != side[v];
                g += o ? G->w[e] : -G->w[e];
                ext |= o;
            }
            gain[v] = g;
            lock[v] = 0;
            if (ext) {
                struct heap *h = &H[(int)side[v]];
                h->h[h->n] = v;
                heap_up(h, pos, gain, h->n++);
            }
        }
        cut = cut_of(G, side);
        long bex = outside(wl, lo, hi) - tau;
        bex = bex > 0 ? bex : 0;
        double bcut = cut;
        int nm = 0, nb = 0, all = 0;
        for (;;) {
            long viol = outside(wl, lo, hi);
            int pick = -1;
            long pviol = 0;
            for (int s = 0; s < 2; s++) {
                if (!H[s].n)
                    continue;
                int v = H[s].h[0];
                long nwl = s ? wl + G->vw[v] : wl - G->vw[v];
                long nv = outside(nwl, lo, hi);
                if (viol > tau ? nv >= viol : nv > tau + maxvw)
                    continue;
                if (pick < 0 || gain[v] > gain[pick] || (gain[v] == gain[pick] && nv < pviol)) {
                    pick = v;
                    pviol = nv;
                }
            }
            if (pick < 0 && viol > tau && !all) {
                /* Out of the band with no boundary vertex to move: every
                 * free vertex of the heavy side may go. */
                all = 1;
                int heavy = wl > hi ? 0 : 1;
                for (int v = 0; v < n; v++)
                    if (!lock[v] && pos[v] < 0 && side[v] == heavy) {
                        H[heavy].h[H[heavy].n] = v;
                        heap_up(&H[heavy], pos, gain, H[heavy].n++);
                    }
                continue;
            }
            if (pick < 0)
                break;
            int s = side[pick];
            heap_remove(&H[s], pos, gain, pick);
            lock[pick] = 1;
            side[pick] = (char)!s;
            wl += s ? G->vw[pick] : -G->vw[pick];
            cut -= gain[pick];
            for (int64_t e = G->xadj[pick]; e < G->xadj[pick + 1]; e++) {
                int u = G->adj[e];
                if (lock[u])
                    continue;
                gain[u] += side[u] == side[pick] ? -2 * G->w[e] : 2 * G->w[e];
                struct heap *h = &H[(int)side[u]];
                if (pos[u] < 0) {
                    h->h[h->n] = u;
                    heap_up(h, pos, gain, h->n++);
                } else {
                    heap_up(h, pos, gain, pos[u]);
                    heap_down(h, pos, gain, pos[u]);
                }
            }
            W->moves[nm++] = pick;
            long ex = outside(wl, lo, hi) - tau;
            ex = ex > 0 ? ex : 0;
            if (better(ex, cut, bex, bcut, eps)) {
                bex = ex;
                bcut = cut;
                nb = nm;
            } else if (nm - nb > limit) {
                break;
            }
        }
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < H[s].n; i++)
                pos[H[s].h[i]] = -1;
            H[s].n = 0;
        }
        for (int i = nm - 1; i >= nb; i--) {
            int v = W->moves[i];
            wl += side[v] ? G->vw[v] : -G->vw[v];
            side[v] = (char)!side[v];
        }
        cut = bcut;
        if (nb == 0)
            break;
    }
    return cut;
}

/* ---- coarsening ----------------------------------------------------------- */

void topomap_bgraph_free(struct topomap_bgraph *G)
{
    free(G->xadj);
    free(G->adj);
    free(G->w);
    free(G->self);
    free(G->vw);
    memset(G, 0, sizeof *G);
}

/* C = F with matched pairs merged (step 1); cmap[v] = C's vertex of F's v.
 * Returns C's vertex count, or -1 (ENOMEM). */
static int coarsen(const struct topomap_bgraph *F, int maxvw, uint64_t *rng,
                   struct topomap_bgraph *C, int *cmap)
{
    int n = F->n, nc = 0, rc = -1;
    int *match = malloc(sizeof(int) * (size_t)n), *perm = malloc(sizeof(int) * (size_t)n);
    int *pend = malloc(sizeof(int) * ((size_t)n + 1)), *mark = malloc(sizeof(int) * (size_t)n);
    int *first = malloc(sizeof(int) * (size_t)n);
    memset(C, 0, sizeof *C);
    if (!match || !perm || !pend || !mark || !first)
        goto out;
    for (int v = 0; v < n; v++) {
        match[v] = -1;
        perm[v] = v;
    }
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates from the seed */
        int j = (int)topomap_rng_below(rng, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* Heavy-edge matching; ties: the lower index. */
    int lone = 0;
    for (int t = 0; t < n; t++) {
        int v = perm[t], best = -1;
        if (match[v] >= 0)
            continue;
        for (int64_t e = F->xadj[v]; e < F->xadj[v + 1]; e++) {
            int u = F->adj[e];
            if (match[u] >= 0 || u == v || F->vw[u] + F->vw[v] > maxvw)
                continue;
            if (best < 0 || F->w[e] > F->w[best] ||
                (F->w[e] == F->w[best] && u < F->adj[best]))
                best = (int)e;
        }
        if (best >= 0) {
            match[v] = F->adj[best];
            match[F->adj[best]] = v;
        }
    }
    for (int v = 0; v < n; v++)
        lone += match[v] < 0;
    /* Two-hop matching of the lone vertices when there are many (keyed by
     * their heaviest neighbour; n: no neighbour). */
    if (lone > n / 5) {
        for (int v = 0; v <= n; v++)
            pend[v] = -1;
        for (int t = 0; t < n; t++) {
            int v = perm[t], key = n;
            if (match[v] >= 0)
                continue;
            int64_t hb = -1;
            for (int64_t e = F->xadj[v]; e < F->xadj[v + 1]; e++)
                if (hb < 0 || F->w[e] > F->w[hb] ||
                    (F->w[e] == F->w[hb] && F->adj[e] < F->adj[hb]))
                    hb = e;
            if (hb >= 0)
                key = F->adj[hb];
            int u = pend[key];
            if (u >= 0 && F->vw[u] + F->vw[v] <= maxvw) {
                match[u] = v;
                match[v] = u;
                pend[key] = -1;
            } else {
                pend[key] = v;
            }
        }
    }
    for (int v = 0; v < n; v++)
        cmap[v] = -1;
    for (int v = 0; v < n; v++) {
        if (cmap[v] >= 0)
            continue;
        first[nc] = v;
        cmap[v] = nc;
        if (match[v] >= 0)
            cmap[match[v]] = nc;
        nc++;
    }
    int64_t ne = F->xadj[n];
    C->n = nc;
    C->xadj = malloc(sizeof(int64_t) * ((size_t)nc + 1));
    C->adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    C->w = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    C->self = malloc(sizeof(double) * (size_t)nc);
    C->vw = malloc(sizeof(int) * (size_t)nc);
    if (!C->xadj || !C->adj || !C->w || !C->self || !C->vw) {
        topomap_bgraph_free(C);
        goto out;
    }
    for (int c = 0; c < nc; c++)
        mark[c] = -1;
    ne = 0;
    C->xadj[0] = 0;
    for (int c = 0; c < nc; c++) {
        int m[2] = {first[c], match[first[c]]};
        double self = 0;
        int vw = 0;
        for (int k = 0; k < 2 && m[k] >= 0; k++) {
            int u = m[k];
            self += F->self[u];
            vw += F->vw[u];
            for (int64_t e = F->xadj[u]; e < F->xadj[u + 1]; e++) {
                int cc = cmap[F->adj[e]];
                if (cc == c) {
                    self += F->w[e]; /* both directions: 2 w_uv in all */
                } else if (mark[cc] < 0) {
                    mark[cc] = (int)(ne - C->xadj[c]);
                    C->adj[ne] = cc;
                    C->w[ne++] = F->w[e];
                } else {
                    C->w[C->xadj[c] + mark[cc]] += F->w[e];
                }
            }
        }
        C->self[c] = self;
        C->vw[c] = vw;
        C->xadj[c + 1] = ne;
        for (int64_t e = C->xadj[c]; e < ne; e++)
            mark[C->adj[e]] = -1;
    }
    rc = nc;
out:
    free(match);
    free(perm);
    free(pend);
    free(mark);
    free(first);
    return rc;
}

/* ---- the coarsest graph: spectral directions ------------------------------ */

/* side[] from the vertices in the order key[0..n): the prefix (left) of
 * least excess over [lo, hi] beyond tau, then least cut, then closest to
 * target. inl: n chars of scratch. */
static void sweep(const struct topomap_bgraph *G, const struct topomap_keyed *key, long lo, long hi,
                  long tau, long target, char *side, char *inl)
{
    int n = G->n, bestp = 0;
    long wl = 0, bex = 0, bdist = 0;
    double cut = 0, bcut = 0;
    for (int i = 0; i <= n; i++) {
        if (i > 0) {
            int v = (int)key[i - 1].idx;
            double deg = 0, tol = 0;
            for (int64_t e = G->xadj[v]; e < G->xadj[v + 1]; e++) {
                deg += G->w[e];
                tol += inl[G->adj[e]] ? G->w[e] : 0;
            }
            cut += deg - 2 * tol;
            inl[v] = 1;
            wl += G->vw[v];
        }
        long ex = outside(wl, lo, hi) - tau;
        ex = ex > 0 ? ex : 0;
        long dist = labs(wl - target);
        if (i == 0 || ex < bex || (ex == bex && (cut < bcut || (cut == bcut && dist < bdist)))) {
            bex = ex;
            bcut = cut;
            bdist = dist;
            bestp = i;
        }
    }
    for (int v = 0; v < n; v++) {
        side[v] = 1;
        inl[v] = 0;
    }
    for (int i = 0; i < bestp; i++)
        side[key[i].idx] = 0;
}

/* The cuts of the coarsest graph, one per direction and end. */
#define FIT_NCAND (2 * (FIT_ANGLES + 1))
struct cand {
    int n;
    char *side; /* n * G->n */
    long ex[FIT_NCAND];
    double cut[FIT_NCAND];
};

/* Step 2 on the coarsest graph G: the candidate cuts into C. */
static int coarse_cut(const struct topomap_problem *pb, const struct topomap_bgraph *G, long lo,
                      long hi, long tau, int maxvw, long target, struct cand *C, struct work *W,
                      char *err, size_t errlen)
{
    int n = G->n, k = FIT_NVEC + 1 < n ? FIT_NVEC + 1 : n - 1, m = 0, rc = -1;
    double *X = NULL, *lam = malloc(sizeof(double) * (FIT_NVEC + 1));
    double *dir = malloc(sizeof(double) * (size_t)n);
    struct topomap_keyed *key = malloc(sizeof *key * (size_t)n);
    char *inl = calloc((size_t)n, 1), *swept = malloc((size_t)FIT_NCAND * (size_t)n);
    int cols[FIT_NVEC + 1] = {0};
    C->n = 0;
    if (!lam || !dir || !key || !inl || !swept) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (k >= 1 && G->xadj[n] > 0) {
        X = malloc(sizeof(double) * (size_t)n * (size_t)k);
        if (!X) {
            topomap_fail(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
        int dim = topomap_walk_vectors(pb, n, G->xadj, G->adj, G->w, G->self, k, X, lam, err,
                                       errlen);
        if (dim < 0)
            goto out;
        /* The nontrivial columns: not constant (D-weighted variance; the
         * columns have unit D-norm). */
        double dsum = 0;
        for (int i = 0; i < n; i++) {
            double d = G->self[i];
            for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++)
                d += G->w[e];
            dsum += d;
        }
        for (int c = 0; c < dim && m < FIT_NVEC; c++) {
            const double *x = X + (size_t)c * (size_t)n;
            double mean = 0, nrm = 0;
            for (int i = 0; i < n; i++) {
                double d = G->self[i];
                for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++)
                    d += G->w[e];
                mean += d * x[i];
                nrm += d * x[i] * x[i];
            }
            if (nrm > 0 && 1 - mean * mean / (dsum * nrm) > 1e-9)
                cols[m++] = c;
        }
    }
    /* Directions: the Fiedler vector turned towards the next one by
     * 180 / FIT_ANGLES degrees at a time, then the third; none: index order. */
    int ndir = m == 0 ? 1 : m == 1 ? 1 : FIT_ANGLES + (m > 2);
    for (int d = 0; d < ndir; d++) {
        for (int i = 0; i < n; i++) {
            if (m == 0) {
                dir[i] = i;
            } else if (d < FIT_ANGLES) {
                double a = M_PI * d / FIT_ANGLES;
                dir[i] = cos(a) * X[(size_t)cols[0] * (size_t)n + (size_t)i] +
                         (m > 1 ? sin(a) * X[(size_t)cols[1] * (size_t)n + (size_t)i] : 0);
            } else {
                dir[i] = X[(size_t)cols[2] * (size_t)n + (size_t)i];
            }
        }
        for (int orient = 0; orient < 2; orient++) {
            for (int i = 0; i < n; i++)
                key[i] = (struct topomap_keyed){orient ? -dir[i] : dir[i], i};
            qsort(key, (size_t)n, sizeof *key, topomap_keyed_cmp);
            char *try = C->side + (size_t)C->n * (size_t)n;
            char *pre = swept + (size_t)C->n * (size_t)n;
            sweep(G, key, lo, hi, tau, target, pre, inl);
            int same = -1; /* a sweep seen before: FM would give its cut again */
            for (int j = 0; j < C->n && same < 0; j++)
                if (!memcmp(swept + (size_t)j * (size_t)n, pre, (size_t)n))
                    same = j;
            if (same >= 0) {
                memcpy(try, C->side + (size_t)same * (size_t)n, (size_t)n);
                C->cut[C->n] = C->cut[same];
                C->ex[C->n++] = C->ex[same];
                continue;
            }
            memcpy(try, pre, (size_t)n);
            C->cut[C->n] = fm(G, try, lo, hi, tau, maxvw, W);
            C->ex[C->n++] = excess(G, try, lo, hi, tau);
        }
    }

    rc = 0;
out:
    free(X);
    free(lam);
    free(dir);
    free(key);
    free(inl);
    free(swept);
    return rc;
}

/* ---- the driver ------------------------------------------------------------ */

/* Is side a (n chars) the same cut as one of the k sides at S? */
static int seen(const char *S, int k, const char *a, int n)
{
    for (int j = 0; j < k; j++)
        if (!memcmp(S + (size_t)j * (size_t)n, a, (size_t)n))
            return 1;
    return 0;
}

int topomap_fit_bisect(const struct topomap_problem *pb, const struct topomap_bgraph *G, long lo,
                       long hi, long target, uint64_t seed, int nalt, char *side, double *cuts,
                       char *err, size_t errlen)
{
    int n = G->n;
    if (n == 0)
        return 1;
    struct topomap_bgraph lev[FIT_MAXLEV];
    int *cmap[FIT_MAXLEV], maxw[FIT_MAXLEV], nl = 1, rc = -1;
    char *sides[FIT_MAXLEV];
    struct work W = {0};
    struct cand C = {0};
    lev[0] = *G;
    memset(cmap, 0, sizeof cmap);
    memset(sides, 0, sizeof sides);
    long total = 0;
    maxw[0] = 1;
    for (int v = 0; v < n; v++) {
        total += G->vw[v];
        maxw[0] = G->vw[v] > maxw[0] ? G->vw[v] : maxw[0];
    }
    int maxvw = (int)(FIT_COARSE_VW * (double)total / FIT_COARSE);
    maxvw = maxvw > maxw[0] ? maxvw : maxw[0];
    uint64_t rng = topomap_mix64(seed ^ 0x5bd1e995u);
    W.gain = malloc(sizeof(double) * (size_t)n);
    W.pos = malloc(sizeof(int) * (size_t)n);
    W.moves = malloc(sizeof(int) * (size_t)n);
    W.h0 = malloc(sizeof(int) * (size_t)n);
    W.h1 = malloc(sizeof(int) * (size_t)n);
    W.lock = malloc((size_t)n);
    if (!W.gain || !W.pos || !W.moves || !W.h0 || !W.h1 || !W.lock)
        goto nomem;
    /* Step 1. */
    while (lev[nl - 1].n > FIT_COARSE && nl < FIT_MAXLEV) {
        const struct topomap_bgraph *F = &lev[nl - 1];
        cmap[nl] = malloc(sizeof(int) * (size_t)F->n);
        if (!cmap[nl])
            goto nomem;
        int nc = coarsen(F, maxvw, &rng, &lev[nl], cmap[nl]);
        if (nc < 0)
            goto nomem;
        if (nc > F->n - F->n / 20) { /* under 5% fewer: stop */
            topomap_bgraph_free(&lev[nl]);
            free(cmap[nl]);
            cmap[nl] = NULL;
            break;
        }
        maxw[nl] = 1;
        for (int v = 0; v < nc; v++)
            maxw[nl] = lev[nl].vw[v] > maxw[nl] ? lev[nl].vw[v] : maxw[nl];
        nl++;
    }
    for (int l = 1; l < nl; l++)
        if (!(sides[l] = malloc((size_t)lev[l].n)))
            goto nomem;
    /* Step 2. */
    int L = nl - 1, nL = lev[L].n;
    if (!(C.side = malloc((size_t)FIT_NCAND * (size_t)nL)))
        goto nomem;
    if (coarse_cut(pb, &lev[L], lo, hi, L ? maxw[L] : 0, maxw[L], target, &C, &W, err, errlen) <
        0)
        goto out;
    /* The candidates in order of (excess, cut), ties by direction. */
    int ord[FIT_NCAND], got = 0;
    for (int i = 0; i < C.n; i++) {
        int j = i;
        for (; j > 0 && better(C.ex[i], C.cut[i], C.ex[ord[j - 1]], C.cut[ord[j - 1]], 0); j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    /* Step 3 for the best one, and for up to nalt - 1 more distinct ones
     * whose cut is within FIT_NEAR of it (the caller picks). */
    for (int t = 0; t < C.n && got < nalt; t++) {
        int c = ord[t];
        const char *cs = C.side + (size_t)c * (size_t)nL;
        if (t > 0 && (C.ex[c] != C.ex[ord[0]] || C.cut[c] > C.cut[ord[0]] * (1 + FIT_NEAR)))
            continue;
        int dup = 0;
        for (int u = 0; u < t && !dup; u++)
            dup = !memcmp(C.side + (size_t)ord[u] * (size_t)nL, cs, (size_t)nL);
        if (dup)
            continue;
        char *out = side + (size_t)got * (size_t)n;
        memcpy(L ? sides[L] : out, cs, (size_t)nL);
        double cut = C.cut[c];
        for (int l = L - 1; l >= 0; l--) {
            char *sl = l ? sides[l] : out;
            for (int v = 0; v < lev[l].n; v++)
                sl[v] = sides[l + 1][cmap[l + 1][v]];
            cut = fm(&lev[l], sl, lo, hi, l ? maxw[l] : 0, maxw[l], &W);
        }
        if (got > 0 && seen(side, got, out, n))
            continue;
        if (cuts)
            cuts[got] = cut;
        got++;
    }
    rc = got;
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    for (int l = 1; l < nl; l++) {
        topomap_bgraph_free(&lev[l]);
        free(sides[l]);
    }
    for (int l = 1; l < FIT_MAXLEV; l++)
        free(cmap[l]);
    free(C.side);
    free(W.gain);
    free(W.pos);
    free(W.moves);
    free(W.h0);
    free(W.h1);
    free(W.lock);
    return rc;
}
