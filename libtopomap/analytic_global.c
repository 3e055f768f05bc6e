/* SPDX-License-Identifier: BSD-3-Clause */
/* Global mapping, the first stage of the analytical mapping of Wu, Xiong,
 * Berrocal, Wang and Lan, "Topology mapping of irregular parallel
 * applications on torus-connected supercomputers" (J. Supercomput. 2016),
 * section 3.3: continuous positions of the processes in the box of the
 * torus/mesh minimising sum c_ij |Phi_i - Phi_j|^2 (eq. 2), some processes
 * fixed at corners (section 3.6), as a sequence of unconstrained quadratic
 * problems (eq. 5, one linear system per dimension with the same matrix Q,
 * solved by CHOLMOD) whose spreading forces (3.3.3) push the processes out of
 * crowded bins, until every bin holds at most gamma processes ("almost
 * legal"), or ten iterations in a row do not lower the largest bin load
 * (section 3.6).
 *
 * Process shifting (3.3.2) follows FastPlace's cell shifting (Viswanathan and
 * Chu 2005, section V), which the paper refers to: along each dimension, the
 * bins of one row are resized by their loads and the processes moved with
 * their bin, which keeps their order. The new boundary between bins j and
 * j + 1 of a row is
 *     NB_j = (OB_{j-1} (U_{j+1} + delta) + OB_{j+1} (U_j + delta)) / (U_j + U_{j+1} + 2 delta)
 * with OB the old boundaries and U the bin loads.
 *
 * Where the paper is silent (our choices):
 * - delta = 1.5 (FastPlace's form; the paper gives no value);
 * - the load U of a bin without an allocated node (the box of a scattered
 *   allocation has holes) is its process count + 1, as if it were already
 *   full, so that shifting pushes processes out of it and neighbours do not
 *   grow into it;
 * - boundaries of a row are made non-decreasing after resizing (the formula
 *   can cross them when a light bin sits between two heavy ones, which would
 *   swap the order of processes the shifting must keep);
 * - a spreading force whose fake process would sit closer than a quarter bin
 *   (the shifted position on the boundary, the force pointing out) is put a
 *   quarter bin away; a process with no resultant force (no neighbours) is
 *   pulled to its shifted position with the mean weighted degree;
 * - every process is tied to the centre of the box with 1e-6 of the mean
 *   weighted degree, so that Q stays positive definite for components of the
 *   communication graph with no fixed process;
 * - weights are divided by their mean (conditioning only: the positions do
 *   not change). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"

#define SHIFT_DELTA 1.5
#define STALL_ITERS 10
#define TIE_EPS 1e-6
#define FAKE_MIN_DIST 0.25
#define ANCHOR_ALPHA 0.3
/* Iterations assumed by the work estimate (auto's budget, see
 * topomap_problem.work_limit): 33 to 59 at 4096 ranks in the benchmark. */
#define WORK_EST_ITERS 50

struct glob {
    const topomap_graph_t *q;
    const struct an_box *B;
    int n, nd, nfree;
    const int *fixed_bin;
    int *fidx;      /* n: index among the free vertices, -1 = fixed */
    int *fv;        /* nfree: vertex of each free index */
    int64_t *xadj;  /* free-vertex graph (free neighbours only) */
    int *adj;
    double *w;
    double *wdeg;   /* n: weighted degree (scaled) */
    double *fixrhs; /* nfree * nd: sum of w * position over fixed neighbours */
    double *fixdeg; /* nfree: sum of w over fixed neighbours */
    double *diag, *rhs, *x;
    double *beta, *fake;  /* nfree, nfree * nd: spreading forces */
    double *shifted;      /* n * nd */
    int *vb;              /* n: bin of each vertex */
    int *load;            /* nbins */
    double *nbd;          /* nbins: new right boundary of each bin (one dimension) */
    double scale, mean_deg, eps;
};

static void glob_free(struct glob *G)
{
    free(G->fidx);
    free(G->fv);
    free(G->xadj);
    free(G->adj);
    free(G->w);
    free(G->wdeg);
    free(G->fixrhs);
    free(G->fixdeg);
    free(G->diag);
    free(G->rhs);
    free(G->x);
    free(G->beta);
    free(G->fake);
    free(G->shifted);
    free(G->vb);
    free(G->load);
    free(G->nbd);
}

static int glob_init(struct glob *G, const topomap_graph_t *q, const struct an_box *B,
                     const int *fixed_bin)
{
    memset(G, 0, sizeof *G);
    G->q = q;
    G->B = B;
    G->n = q->n;
    G->nd = B->nd;
    G->fixed_bin = fixed_bin;
    size_t n = (size_t)(q->n > 0 ? q->n : 1), nd = (size_t)B->nd;
    G->fidx = malloc(sizeof(int) * n);
    G->fv = malloc(sizeof(int) * n);
    G->xadj = malloc(sizeof(int64_t) * (n + 1));
    G->adj = malloc(sizeof(int) * ((size_t)q->xadj[q->n] + 1));
    G->w = malloc(sizeof(double) * ((size_t)q->xadj[q->n] + 1));
    G->wdeg = malloc(sizeof(double) * n);
    G->fixrhs = calloc(n * nd, sizeof(double));
    G->fixdeg = calloc(n, sizeof(double));
    G->diag = malloc(sizeof(double) * n);
    G->rhs = malloc(sizeof(double) * n * nd);
    G->x = malloc(sizeof(double) * n * nd);
    G->beta = calloc(n, sizeof(double));
    G->fake = calloc(n * nd, sizeof(double));
    G->shifted = malloc(sizeof(double) * n * nd);
    G->vb = malloc(sizeof(int) * n);
    G->load = malloc(sizeof(int) * (size_t)B->nbins);
    G->nbd = malloc(sizeof(double) * (size_t)B->nbins);
    if (!G->fidx || !G->fv || !G->xadj || !G->adj || !G->w || !G->wdeg || !G->fixrhs ||
        !G->fixdeg || !G->diag || !G->rhs || !G->x || !G->beta || !G->fake || !G->shifted ||
        !G->vb || !G->load || !G->nbd)
        return -1;
    double sum = 0;
    int64_t cnt = 0;
    for (int64_t e = 0; e < q->xadj[q->n]; e++)
        if (q->w[e] > 0) {
            sum += q->w[e];
            cnt++;
        }
    G->scale = cnt ? (double)cnt / sum : 1;
    for (int v = 0; v < q->n; v++) {
        G->fidx[v] = fixed_bin[v] >= 0 ? -1 : G->nfree;
        if (fixed_bin[v] < 0)
            G->fv[G->nfree++] = v;
        double d = 0;
        for (int64_t e = q->xadj[v]; e < q->xadj[v + 1]; e++)
            if (q->w[e] > 0 && q->adj[e] != v)
                d += q->w[e] * G->scale;
        G->wdeg[v] = d;
        G->mean_deg += d;
    }
    G->mean_deg = q->n ? G->mean_deg / q->n : 0;
    if (!(G->mean_deg > 0))
        G->mean_deg = 1;
    G->eps = TIE_EPS * G->mean_deg;
    /* The free vertices' graph, and what their fixed neighbours contribute. */
    int64_t k = 0;
    for (int f = 0; f < G->nfree; f++) {
        int v = G->fv[f];
        G->xadj[f] = k;
        for (int64_t e = q->xadj[v]; e < q->xadj[v + 1]; e++) {
            int u = q->adj[e];
            double w = q->w[e] * G->scale;
            if (!(w > 0) || u == v)
                continue;
            if (G->fidx[u] >= 0) {
                G->adj[k] = G->fidx[u];
                G->w[k++] = w;
            } else {
                G->fixdeg[f] += w;
                for (int d = 0; d < G->nd; d++)
                    G->fixrhs[(size_t)d * (size_t)G->nfree + (size_t)f] +=
                        w * an_coord(B, fixed_bin[u], d);
            }
        }
    }
    G->xadj[G->nfree] = k;
    return 0;
}

/* Bin loads of the current positions; returns the largest. */
static int count_loads(struct glob *G, const double *pos)
{
    const struct an_box *B = G->B;
    memset(G->load, 0, sizeof(int) * (size_t)B->nbins);
    int mx = 0;
    for (int v = 0; v < G->n; v++) {
        G->vb[v] = an_pos_bin(B, pos + (size_t)v * (size_t)G->nd);
        if (++G->load[G->vb[v]] > mx)
            mx = G->load[G->vb[v]];
    }
    return mx;
}

static double bin_util(const struct glob *G, int b)
{
    return G->B->bin_node[b] >= 0 ? G->load[b] : G->load[b] + 1.0;
}

/* Process shifting along dimension k (section 3.3.2): new coordinates into
 * shifted[v * nd + k] for every vertex. */
static void shift_dim(struct glob *G, const double *pos, int k)
{
    const struct an_box *B = G->B;
    int len = B->len[k], st = B->stride[k];
    for (int b0 = 0; b0 < B->nbins; b0++) {
        if (an_coord(B, b0, k) != 0)
            continue;
        /* One row: bins b0, b0 + st, ... along dimension k. */
        double prev = -0.5;
        for (int j = 0; j < len; j++) {
            int b = b0 + j * st;
            double nb;
            if (j == len - 1) {
                nb = len - 0.5;
            } else {
                double u0 = bin_util(G, b), u1 = bin_util(G, b + st);
                nb = ((j - 0.5) * (u1 + SHIFT_DELTA) + (j + 1.5) * (u0 + SHIFT_DELTA)) /
                     (u0 + u1 + 2 * SHIFT_DELTA);
            }
            if (nb < prev)
                nb = prev;
            G->nbd[b] = prev = nb;
        }
    }
    for (int v = 0; v < G->n; v++) {
        int b = G->vb[v], j = an_coord(B, b, k);
        double lo = j == 0 ? -0.5 : G->nbd[b - st], hi = G->nbd[b];
        double x = pos[(size_t)v * (size_t)G->nd + (size_t)k];
        G->shifted[(size_t)v * (size_t)G->nd + (size_t)k] = lo + (x - (j - 0.5)) * (hi - lo);
    }
}

/* Spreading forces (section 3.3.3): for each free vertex, the fake process on
 * the boundary and the weight beta of eq. (9), from the resultant force of
 * eq. (7) at the shifted position, the other vertices where they are. */
static void spreading_forces(struct glob *G, const double *pos)
{
    const topomap_graph_t *q = G->q;
    int nd = G->nd;
    for (int f = 0; f < G->nfree; f++) {
        int v = G->fv[f];
        const double *xs = G->shifted + (size_t)v * (size_t)nd;
        double F[AN_MAXD] = {0}, norm = 0;
        for (int64_t e = q->xadj[v]; e < q->xadj[v + 1]; e++) {
            int u = q->adj[e];
            double w = q->w[e] * G->scale;
            if (!(w > 0) || u == v)
                continue;
            for (int d = 0; d < nd; d++)
                F[d] += w * (xs[d] - pos[(size_t)u * (size_t)nd + (size_t)d]);
        }
        for (int d = 0; d < nd; d++)
            norm += F[d] * F[d];
        norm = sqrt(norm);
        double *fk = G->fake + (size_t)f * (size_t)nd;
        if (!(norm > 1e-12 * (G->wdeg[v] + G->mean_deg))) {
            memcpy(fk, xs, sizeof(double) * (size_t)nd);
            G->beta[f] = G->mean_deg;
            continue;
        }
        /* The ray from the shifted position along the force meets the box. */
        double t = INFINITY;
        for (int d = 0; d < nd; d++) {
            double u = F[d] / norm;
            if (fabs(u) < 1e-15)
                continue;
            double bound = u > 0 ? G->B->len[d] - 0.5 : -0.5;
            double td = (bound - xs[d]) / u;
            t = td < t ? td : t;
        }
        if (!(t >= FAKE_MIN_DIST))
            t = FAKE_MIN_DIST;
        for (int d = 0; d < nd; d++)
            fk[d] = xs[d] + t * F[d] / norm;
        G->beta[f] = norm / t;
    }
}

/* The anchored variant (`analytic-anchor`, not in the paper): each free
 * vertex tied to its shifted position itself, with a weight that grows with
 * the iterations, ANCHOR_ALPHA x (iteration + 1) x its weighted degree (the
 * anchors of SimPL, Kim, Lee and Markov 2010). The paper's forces are
 * recomputed from scratch each iteration and are only as strong as the
 * springs at the shifted position: on a 3D stencil they spread the processes
 * in one step and then let them fall back, and bin loads stall at 4 to 9
 * (doc/algorithms.md#analytic); growing anchors hold the spread, so that global
 * mapping can go on to one process per bin. */
static void anchor_forces(struct glob *G, int it)
{
    int nd = G->nd;
    for (int f = 0; f < G->nfree; f++) {
        int v = G->fv[f];
        memcpy(G->fake + (size_t)f * (size_t)nd, G->shifted + (size_t)v * (size_t)nd,
               sizeof(double) * (size_t)nd);
        G->beta[f] = ANCHOR_ALPHA * (it + 1) * (G->wdeg[v] + 0.01 * G->mean_deg);
    }
}

/* Global optimisation (section 3.3.1): Q x + d = 0 per dimension. */
static int solve(struct glob *G, struct topomap_chol *chol, double *pos)
{
    int nf = G->nfree, nd = G->nd;
    const struct an_box *B = G->B;
    for (int f = 0; f < nf; f++) {
        double d = G->fixdeg[f] + G->beta[f] + G->eps;
        for (int64_t e = G->xadj[f]; e < G->xadj[f + 1]; e++)
            d += G->w[e];
        G->diag[f] = d;
        for (int k = 0; k < nd; k++)
            G->rhs[(size_t)k * (size_t)nf + (size_t)f] =
                G->fixrhs[(size_t)k * (size_t)nf + (size_t)f] +
                G->beta[f] * G->fake[(size_t)f * (size_t)nd + (size_t)k] +
                G->eps * (B->len[k] - 1) / 2.0;
    }
    if (topomap_chol_factor(chol, G->diag) < 0 || topomap_chol_solve(chol, G->rhs, G->x, nd) < 0)
        return -1;
    for (int f = 0; f < nf; f++)
        for (int k = 0; k < nd; k++) {
            double x = G->x[(size_t)k * (size_t)nf + (size_t)f];
            /* Inside the boundary (the solution is, up to rounding). */
            x = x < -0.5 ? -0.5 : x > B->len[k] - 0.5 ? B->len[k] - 0.5 : x;
            pos[(size_t)G->fv[f] * (size_t)nd + (size_t)k] = x;
        }
    return 0;
}

int topomap_an_global(const struct topomap_problem *pb, const topomap_graph_t *q,
                      const struct an_box *B, const int *fixed_bin, int gamma, int max_iter,
                      int anchored, double *pos, struct an_global_stats *st, char *err,
                      size_t errlen)
{
    struct glob G;
    struct topomap_chol *chol = NULL;
    memset(st, 0, sizeof *st);
    int rc = -1;
    if (glob_init(&G, q, B, fixed_bin) < 0) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int v = 0; v < q->n; v++)
        if (fixed_bin[v] >= 0)
            for (int k = 0; k < B->nd; k++)
                pos[(size_t)v * (size_t)B->nd + (size_t)k] = an_coord(B, fixed_bin[v], k);
    if (G.nfree == 0) {
        st->max_load = count_loads(&G, pos);
        st->legal = st->max_load <= gamma;
        rc = 0;
        goto out;
    }
    chol = topomap_chol_new(G.nfree, G.xadj, G.adj, G.w);
    if (!chol) {
        rc = topomap_fail(err, errlen, ENOMEM, "analytic: CHOLMOD analysis failed (out of memory)");
        goto out;
    }
    /* Work of one iteration: a factorisation, nd solves, the forces. */
    double fl, lnz;
    topomap_chol_cost(chol, &fl, &lnz);
    double it_work = (fl + 4 * lnz * G.nd + (double)G.xadj[G.nfree]) * TOPOMAP_WORK_FLOP;
    if (pb->work_limit > 0 && it_work * WORK_EST_ITERS > pb->work_limit) {
        rc = topomap_fail(err, errlen, ECANCELED,
                          "analytic: about %.3g work units (%d iterations of %.3g flops), over "
                          "the %.3g allowed",
                          it_work * WORK_EST_ITERS, WORK_EST_ITERS, fl, pb->work_limit);
        goto out;
    }
    int best = INT32_MAX, stall = 0;
    for (int it = 0;; it++) {
        topomap_work_add(pb, it_work);
        if (solve(&G, chol, pos) < 0) {
            rc = topomap_fail(err, errlen, errno, "analytic: CHOLMOD could not solve eq. (5): %s",
                              errno == ENOMEM ? "out of memory" : "matrix not positive definite");
            goto out;
        }
        st->iterations = it + 1;
        st->max_load = count_loads(&G, pos);
        if (st->max_load <= gamma) {
            st->legal = 1;
            break;
        }
        if (st->max_load < best) {
            best = st->max_load;
            stall = 0;
        } else if (++stall >= STALL_ITERS) {
            break;
        }
        if (it + 1 >= max_iter || topomap_expired(pb))
            break;
        if ((it + 1) % 10 == 0)
            topomap_log(pb, "analytic: global mapping, iteration %d, largest bin load %d", it + 1,
                        st->max_load);
        for (int k = 0; k < B->nd; k++)
            shift_dim(&G, pos, k);
        if (anchored)
            anchor_forces(&G, it);
        else
            spreading_forces(&G, pos);
    }
    rc = 0;
out:
    topomap_chol_free(chol);
    glob_free(&G);
    return rc;
}
