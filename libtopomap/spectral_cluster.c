/* SPDX-License-Identifier: BSD-3-Clause */
/* CP-NSC, the communication-pattern normalised spectral clustering of Wang,
 * Qing, Wei and Qi, "Optimization of process-to-core mapping based on
 * clustering analysis", Chinese Journal of Computers 38(5), 2015, section 4.3,
 * Algorithm 1 (itself Ng, Jordan and Weiss's NSC on a similarity matrix):
 *  1. A' = A + A^T (the problem's symmetric graph, pb->g);
 *  2. S: s_ii = SELF_SIMILARITY, s_ij = a'_ij / max(A') * MAX_SIMILARITY;
 *  3. L = I - D^-1/2 S D^-1/2, d_ii = sum_j s_ij;
 *  4. V = the k eigenvectors of L of smallest eigenvalue (the "first" k);
 *  5. U: each row of V scaled to norm sqrt(k - 1), as the paper writes it
 *     (any common scale gives the same k-means; the paper's sqrt(k - 1) is
 *     kept, so rows are zero for k = 1, where no clustering is needed);
 *  6. k-means on the rows of U.
 * The eigenvectors of L of smallest eigenvalue are those of
 * M = D^-1/2 S D^-1/2 of largest eigenvalue, which is what is computed
 * (spectral_eigen.c):
 *  - up to cpnsc_dense_max ranks (tuning.h), dense: LAPACK's dsyevr (MRRR) on M,
 *    eigenvalues n-k+1..n;
 *  - beyond, sparse: ARPACK's implicitly restarted Lanczos (dsaupd/dseupd,
 *    "LA": largest algebraic) with a matrix-vector product over the graph's
 *    edges, O(edges) per product. Its start vector is drawn from the seed
 *    (ARPACK's own random start keeps a state across calls).
 * Where the paper is silent: SELF_SIMILARITY is 1 as the paper suggests;
 * MAX_SIMILARITY, not given, is 1 too (similarities then lie in [0, 1], the
 * self similarity equal to the strongest pair). k-means is seeded with
 * k-means++ (Arthur & Vassilvitskii 2007) from opts->seed, then runs Lloyd's
 * iterations until no point changes cluster (at most KMEANS_MAX_ITER); an
 * empty cluster takes the point farthest from its centre (none when all
 * points coincide with their centres: the cluster stays empty, so fewer
 * than k clusters may come back). Ties go to the lowest index everywhere.
 *
 * Threads: the matrix-vector products and the k-means assignment run in
 * parallel, each output element computed by one thread in a fixed order, and
 * every sum over points is taken sequentially, so results do not depend on
 * the thread count. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


#include "spectral.h"
#include "spectral_eigen.h"

#define MAX_SIMILARITY 1.0
#define KMEANS_MAX_ITER 100
/* Steps 1-3: S and D of the subgraph induced by ranks[0..nr). */
static int sim_build(struct simgraph *G, const topomap_graph_t *g, const int *ranks, int nr,
                     int *loc)
{
    memset(G, 0, sizeof *G);
    G->n = nr;
    int64_t ne = 0;
    for (int i = 0; i < nr; i++) {
        loc[ranks[i]] = i;
        ne += g->xadj[ranks[i] + 1] - g->xadj[ranks[i]];
    }
    G->xadj = malloc(sizeof(int64_t) * ((size_t)nr + 1));
    G->adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    G->s = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    G->dinv = malloc(sizeof(double) * (size_t)(nr ? nr : 1));
    if (!G->xadj || !G->adj || !G->s || !G->dinv) {
        for (int i = 0; i < nr; i++)
            loc[ranks[i]] = -1;
        return -1;
    }
    double maxv = 0;
    ne = 0;
    G->xadj[0] = 0;
    for (int i = 0; i < nr; i++) {
        int r = ranks[i];
        for (int64_t e = g->xadj[r]; e < g->xadj[r + 1]; e++) {
            int l = loc[g->adj[e]];
            if (l >= 0 && l != i && g->w[e] > 0) {
                G->adj[ne] = l;
                G->s[ne++] = g->w[e];
                if (g->w[e] > maxv)
                    maxv = g->w[e];
            }
        }
        G->xadj[i + 1] = ne;
    }
    for (int i = 0; i < nr; i++)
        loc[ranks[i]] = -1;
    for (int i = 0; i < nr; i++) {
        double d = SELF_SIMILARITY;
        for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++) {
            G->s[e] = G->s[e] / maxv * MAX_SIMILARITY;
            d += G->s[e];
        }
        G->dinv[i] = 1 / sqrt(d);
    }
    return 0;
}

static double unit_rand(uint64_t *st)
{
    return (double)(topomap_rng_next(st) >> 11) * 0x1p-53;
}

static double dist2(const double *a, const double *b, int dim)
{
    double s = 0;
    for (int c = 0; c < dim; c++)
        s += (a[c] - b[c]) * (a[c] - b[c]);
    return s;
}

/* Step 6: k-means on the n rows of U (row major, dim columns): k-means++
 * seeding, then Lloyd. label[i] = cluster of row i. */
static int kmeans(const double *U, int n, int dim, int k, uint64_t seed, int *label)
{
    double *C = malloc(sizeof(double) * (size_t)k * (size_t)dim);
    double *D2 = malloc(sizeof(double) * (size_t)n);
    int *cnt = malloc(sizeof(int) * (size_t)k);
    if (!C || !D2 || !cnt) {
        free(C);
        free(D2);
        free(cnt);
        return -1;
    }
    uint64_t st = seed ^ 0xc2b2ae3d27d4eb4fULL;
    /* k-means++: the first centre uniformly, each next one with probability
     * proportional to the squared distance to the nearest centre so far. */
    int first = (int)topomap_rng_below(&st, (uint64_t)n);
    memcpy(C, U + (size_t)first * (size_t)dim, sizeof(double) * (size_t)dim);
    for (int i = 0; i < n; i++)
        D2[i] = dist2(U + (size_t)i * (size_t)dim, C, dim);
    int nc = 1;
    for (; nc < k; nc++) {
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += D2[i];
        if (!(sum > 0))
            break; /* every point sits on a centre: fewer distinct points than k */
        double r = unit_rand(&st) * sum, acc = 0;
        int pick = -1;
        for (int i = 0; i < n; i++) {
            acc += D2[i];
            if (D2[i] > 0) {
                pick = i;
                if (acc > r)
                    break;
            }
        }
        double *c = C + (size_t)nc * (size_t)dim;
        memcpy(c, U + (size_t)pick * (size_t)dim, sizeof(double) * (size_t)dim);
        for (int i = 0; i < n; i++) {
            double d = dist2(U + (size_t)i * (size_t)dim, c, dim);
            if (d < D2[i])
                D2[i] = d;
        }
    }
    /* Lloyd's iterations over the nc centres found. */
    for (int i = 0; i < n; i++)
        label[i] = -1;
    for (int it = 0; it < KMEANS_MAX_ITER; it++) {
        long changed = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed) if ((long)n * nc * dim > 100000)
        for (int i = 0; i < n; i++) {
            const double *u = U + (size_t)i * (size_t)dim;
            int best = 0;
            double bd = dist2(u, C, dim);
            for (int c = 1; c < nc; c++) {
                double d = dist2(u, C + (size_t)c * (size_t)dim, dim);
                if (d < bd) {
                    bd = d;
                    best = c;
                }
            }
            D2[i] = bd;
            if (label[i] != best) {
                label[i] = best;
                changed++;
            }
        }
        if (!changed)
            break;
        /* Centres: means of their points, summed in point order. */
        memset(C, 0, sizeof(double) * (size_t)nc * (size_t)dim);
        memset(cnt, 0, sizeof(int) * (size_t)nc);
        for (int i = 0; i < n; i++) {
            double *c = C + (size_t)label[i] * (size_t)dim;
            const double *u = U + (size_t)i * (size_t)dim;
            for (int j = 0; j < dim; j++)
                c[j] += u[j];
            cnt[label[i]]++;
        }
        for (int c = 0; c < nc; c++) {
            if (cnt[c] == 0) {
                /* Empty: the point farthest from its centre, in a cluster of
                 * two or more points, moves here. */
                int far = -1;
                for (int i = 0; i < n; i++)
                    if (cnt[label[i]] > 1 && D2[i] > 0 && (far < 0 || D2[i] > D2[far]))
                        far = i;
                if (far < 0)
                    continue;
                const double *u = U + (size_t)far * (size_t)dim;
                double *o = C + (size_t)label[far] * (size_t)dim;
                for (int j = 0; j < dim; j++)
                    o[j] -= u[j];
                cnt[label[far]]--;
                label[far] = c;
                D2[far] = 0;
                memcpy(C + (size_t)c * (size_t)dim, u, sizeof(double) * (size_t)dim);
                cnt[c] = 1;
                continue;
            }
            for (int j = 0; j < dim; j++)
                C[(size_t)c * (size_t)dim + (size_t)j] /= cnt[c];
        }
    }
    free(C);
    free(D2);
    free(cnt);
    return 0;
}

/* Steps 1-5 of CP-NSC on the subgraph induced by ranks[0..nr), 2 <= k < nr:
 * the rows of U (nr x *dimp, row major, caller frees), the paper's rows of
 * norm sqrt(k - 1). 0, or -1 + errno. */
static int cpnsc_embed(const struct topomap_problem *pb, const int *ranks, int nr, int k, int *loc,
                       double **Up, int *dimp, char *err, size_t errlen)
{
    struct simgraph G;
    *Up = NULL;
    if (sim_build(&G, &pb->g, ranks, nr, loc) < 0) {
        topomap_sim_free(&G);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    double *V = malloc(sizeof(double) * (size_t)nr * (size_t)k);
    double *U = malloc(sizeof(double) * (size_t)nr * (size_t)k);
    int rc = -1, dim = k;
    if (!V || !U) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    dim = topomap_spectral_solve(&G, k, pb, V, err, errlen);
    if (dim <= 0) {
        if (dim == 0)
            topomap_fail(err, errlen, EDOM, "spectral: no eigenvector found on %d ranks", nr);
        goto out;
    }
    /* Step 5: rows of V scaled to norm sqrt(k - 1), into row-major U. */
    double scale = sqrt((double)(k - 1));
    for (int i = 0; i < nr; i++) {
        double s = 0;
        for (int c = 0; c < dim; c++)
            s += V[(size_t)c * (size_t)nr + (size_t)i] * V[(size_t)c * (size_t)nr + (size_t)i];
        double f = s > 0 ? scale / sqrt(s) : 0;
        for (int c = 0; c < dim; c++)
            U[(size_t)i * (size_t)dim + (size_t)c] = V[(size_t)c * (size_t)nr + (size_t)i] * f;
    }
    rc = 0;
    *Up = U;
    U = NULL;
    *dimp = dim;
out:
    topomap_sim_free(&G);
    free(V);
    free(U);
    return rc;
}

int topomap_walk_vectors(const struct topomap_problem *pb, int n, const int64_t *xadj,
                         const int *adj, const double *w, const double *self, int k, double *X,
                         double *lambda, char *err, size_t errlen)
{
    struct simgraph G;
    memset(&G, 0, sizeof G);
    G.n = n;
    int64_t ne = xadj[n];
    G.xadj = malloc(sizeof(int64_t) * ((size_t)n + 1));
    G.adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    G.s = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    G.dinv = malloc(sizeof(double) * (size_t)n);
    G.self = malloc(sizeof(double) * (size_t)n);
    double *V = malloc(sizeof(double) * (size_t)n * (size_t)k);
    double *y = malloc(sizeof(double) * (size_t)n);
    int *ord = malloc(sizeof(int) * (size_t)k);
    int dim = -1;
    if (!G.xadj || !G.adj || !G.s || !G.dinv || !G.self || !V || !y || !ord) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* Similarities scaled to a largest entry of 1 (the walk matrix does not
     * change; the numbers stay those of CP-NSC on the finest graph). */
    double maxv = 0;
    for (int64_t e = 0; e < ne; e++)
        maxv = w[e] > maxv ? w[e] : maxv;
    for (int i = 0; i < n; i++)
        maxv = self[i] > maxv ? self[i] : maxv;
    if (!(maxv > 0))
        maxv = 1;
    memcpy(G.xadj, xadj, sizeof(int64_t) * ((size_t)n + 1));
    memcpy(G.adj, adj, sizeof(int) * (size_t)ne);
    for (int i = 0; i < n; i++) {
        double d = G.self[i] = self[i] / maxv;
        for (int64_t e = xadj[i]; e < xadj[i + 1]; e++)
            d += G.s[e] = w[e] / maxv;
        G.dinv[i] = d > 0 ? 1 / sqrt(d) : 0;
    }
    dim = topomap_spectral_solve(&G, k, pb, V, err, errlen);
    if (dim <= 0) {
        if (dim == 0)
            topomap_fail(err, errlen, EDOM, "spectral: no eigenvector found on %d vertices", n);
        dim = -1;
        goto out;
    }
    /* Eigenvalues as Rayleigh quotients (the solvers order them differently),
     * columns by decreasing eigenvalue, then x = D^-1/2 v. */
    double *val = lambda;
    for (int c = 0; c < dim; c++) {
        const double *v = V + (size_t)c * (size_t)n;
        double num = 0, den = 0;
        topomap_sim_matvec(&G, v, y);
        for (int i = 0; i < n; i++) {
            num += v[i] * y[i];
            den += v[i] * v[i];
        }
        val[c] = den > 0 ? num / den : 0;
        ord[c] = c;
    }
    for (int a = 1; a < dim; a++) /* insertion sort, stable */
        for (int b = a; b > 0 && val[ord[b]] > val[ord[b - 1]]; b--) {
            int t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
    double *vs = malloc(sizeof(double) * (size_t)dim);
    if (!vs) {
        dim = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int c = 0; c < dim; c++) {
        vs[c] = val[ord[c]];
        for (int i = 0; i < n; i++)
            X[(size_t)c * (size_t)n + (size_t)i] =
                V[(size_t)ord[c] * (size_t)n + (size_t)i] * G.dinv[i];
    }
    memcpy(lambda, vs, sizeof(double) * (size_t)dim);
    free(vs);
out:
    topomap_sim_free(&G);
    free(V);
    free(y);
    free(ord);
    return dim;
}

int topomap_cpnsc(const struct topomap_problem *pb, const int *ranks, int nr, int k, int *loc,
                  int *label, char *err, size_t errlen)
{
    if (k > nr)
        k = nr;
    if (k <= 1 || nr <= 1) {
        for (int i = 0; i < nr; i++)
            label[i] = 0;
        return nr > 0;
    }
    if (k == nr) {
        for (int i = 0; i < nr; i++)
            label[i] = i;
        return nr;
    }
    double *U;
    int dim = 0;
    if (cpnsc_embed(pb, ranks, nr, k, loc, &U, &dim, err, errlen) < 0)
        return -1;
    int *map = malloc(sizeof(int) * (size_t)k);
    int rc = -1;
    if (!map || kmeans(U, nr, dim, k, pb->opts->seed, label) < 0) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* Clusters numbered in order of their lowest member. */
    for (int c = 0; c < k; c++)
        map[c] = -1;
    rc = 0;
    for (int i = 0; i < nr; i++) {
        if (map[label[i]] < 0)
            map[label[i]] = rc++;
        label[i] = map[label[i]];
    }
out:
    free(U);
    free(map);
    return rc;
}
