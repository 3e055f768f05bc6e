/* SPDX-License-Identifier: BSD-3-Clause */
/* Step 4 of CP-NSC (spectral_cluster.c, where the method is described): the
 * k leading eigenvectors of M = D^-1/2 S D^-1/2 of a similarity graph, by
 * LAPACK dsyevr up to cpnsc_dense_max (tuning.h) vertices and by ARPACK beyond
 * (component by component on a disconnected graph), with one OpenBLAS thread
 * for the length of a solve, and returned in a form that does not depend on
 * the BLAS's kernels (eig_canonical). Used by spectral, spectral-fit and
 * their bisections (spectral_bisect.c through topomap_walk_vectors). */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <arpack.h>
#include <lapacke.h>

#include "spectral.h"
#include "spectral_eigen.h"

/* ARPACK: relative accuracy of the Ritz values, restarts allowed. The
 * clustering needs the eigenvectors' directions roughly, not to machine
 * precision. */
#define ARPACK_TOL 1e-6
#define ARPACK_MAXITER 3000

void topomap_sim_free(struct simgraph *G)
{
    free(G->xadj);
    free(G->adj);
    free(G->s);
    free(G->dinv);
    free(G->self);
}

/* y = M x, M = D^-1/2 S D^-1/2. */
void topomap_sim_matvec(const struct simgraph *G, const double *x, double *y)
{
    int n = G->n;
#pragma omp parallel for schedule(static) if (n > 4096)
    for (int i = 0; i < n; i++) {
        double acc = (G->self ? G->self[i] : SELF_SIMILARITY) * G->dinv[i] * x[i];
        for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++)
            acc += G->s[e] * G->dinv[G->adj[e]] * x[G->adj[e]];
        y[i] = G->dinv[i] * acc;
    }
}

/* M as a dense n x n matrix, column major (both triangles). */
static void dense_fill(const struct simgraph *G, double *a)
{
    int n = G->n;
    memset(a, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++) {
        a[(size_t)i * (size_t)n + (size_t)i] =
            (G->self ? G->self[i] : SELF_SIMILARITY) * G->dinv[i] * G->dinv[i];
        for (int64_t e = G->xadj[i]; e < G->xadj[i + 1]; e++) {
            int j = G->adj[e];
            a[(size_t)j * (size_t)n + (size_t)i] = G->s[e] * G->dinv[i] * G->dinv[j];
        }
    }
}

/* Step 4, dense: the k leading eigenvectors of M into V (n x k, column major). */
static int eig_dense(const struct simgraph *G, int k, double *V, char *err, size_t errlen)
{
    int n = G->n;
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n);
    lapack_int *isuppz = malloc(sizeof(lapack_int) * 2 * (size_t)k);
    if (!a || !w || !isuppz) {
        free(a);
        free(w);
        free(isuppz);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    dense_fill(G, a);
    lapack_int m = 0;
    lapack_int info = LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, a, n, 0, 0, n - k + 1, n,
                                     0, &m, w, V, n, isuppz);
    if (info == 0 && m != k) {
        /* dsyevr (LAPACK 3.11 with OpenBLAS 0.3.21) sometimes returns fewer
         * eigenpairs than the index range asks for when the eigenvalues at
         * its end are repeated (disconnected groups): then all of them by
         * divide and conquer (dsyevd), and the k last columns. */
        dense_fill(G, a);
        info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', n, a, n, w);
        if (info == 0) {
            memcpy(V, a + (size_t)(n - k) * (size_t)n, sizeof(double) * (size_t)n * (size_t)k);
            m = k;
        }
    }
    free(a);
    free(w);
    free(isuppz);
    if (info != 0 || m != k)
        return topomap_fail(err, errlen, EDOM,
                            "spectral: LAPACK dsyevr failed on %d ranks (info %d, %d of %d "
                            "eigenvectors)",
                            n, (int)info, (int)m, k);
    return 0;
}

/* Step 4, sparse: ARPACK's Lanczos for the k largest eigenvalues of M.
 * Returns the number of converged eigenvectors put in V (n x k, column
 * major), or -1. */
static int eig_arpack(const struct simgraph *G, int k, uint64_t seed,
                      const struct topomap_problem *pb, double *V, char *err, size_t errlen)
{
    a_int n = G->n, nev = k, ncv = 2 * k + 1 > k + 20 ? 2 * k + 1 : k + 20;
    if (ncv > n)
        ncv = n;
    a_int lworkl = ncv * (ncv + 8), ido = 0, info = 1;
    a_int iparam[11] = {0}, ipntr[11] = {0};
    double *resid = malloc(sizeof(double) * (size_t)n);
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)ncv);
    double *workd = malloc(sizeof(double) * 3 * (size_t)n);
    double *workl = malloc(sizeof(double) * (size_t)lworkl);
    double *d = malloc(sizeof(double) * (size_t)nev);
    a_int *select = calloc((size_t)ncv, sizeof(a_int));
    int rc = -1;
    if (!resid || !v || !workd || !workl || !d || !select) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* A start vector from the seed, all components of one sign bias
     * removed (uniform in [-1, 1)). */
    uint64_t st = seed ^ 0x9e3779b97f4a7c15ULL;
    for (a_int i = 0; i < n; i++)
        resid[i] = (double)(topomap_rng_next(&st) >> 11) * 0x1p-52 - 1.0;
    iparam[0] = 1; /* exact shifts */
    iparam[2] = ARPACK_MAXITER;
    iparam[6] = 1; /* mode 1: standard problem */
    for (long it = 0;; it++) {
        dsaupd_c(&ido, "I", n, "LA", nev, ARPACK_TOL, resid, ncv, v, n, iparam, ipntr, workd,
                 workl, lworkl, &info);
        if (ido != 1 && ido != -1)
            break;
        topomap_sim_matvec(G, workd + ipntr[0] - 1, workd + ipntr[1] - 1);
        if ((it & 31) == 31 && topomap_expired(pb)) {
            topomap_fail(err, errlen, ETIMEDOUT, "spectral: time limit reached (ARPACK)");
            goto out;
        }
    }
    if (info < 0) {
        topomap_fail(err, errlen, EDOM, "spectral: ARPACK dsaupd failed on %d ranks (info %d)",
                     (int)n, (int)info);
        goto out;
    }
    /* info 1: not every Ritz value converged within ARPACK_MAXITER
     * restarts; dseupd returns those that did (iparam[4]). */
    a_int nconv = iparam[4];
    if (nconv < 1) {
        topomap_fail(err, errlen, EDOM,
                     "spectral: ARPACK found no eigenvector of %d ranks in %d restarts", (int)n,
                     ARPACK_MAXITER);
        goto out;
    }
    dseupd_c(1, "A", select, d, V, n, 0.0, "I", n, "LA", nev, ARPACK_TOL, resid, ncv, v, n, iparam,
             ipntr, workd, workl, lworkl, &info);
    if (info != 0) {
        topomap_fail(err, errlen, EDOM, "spectral: ARPACK dseupd failed on %d ranks (info %d)",
                     (int)n, (int)info);
        goto out;
    }
    rc = (int)(nconv < nev ? nconv : nev);
    if (rc < k)
        topomap_log(pb, "spectral: ARPACK: %d of %d eigenvectors converged on %d ranks", rc, k,
                    (int)n);
out:
    free(resid);
    free(v);
    free(workd);
    free(workl);
    free(d);
    free(select);
    return rc;
}

/* The subgraph of G on its vertices vs[0..nv) (pos[v] = index in vs, -1
 * elsewhere): similarities and degrees as in G, so its M is a block of G's. */
static int sim_restrict(const struct simgraph *G, const int *vs, int nv, const int *pos,
                        struct simgraph *H)
{
    memset(H, 0, sizeof *H);
    H->n = nv;
    int64_t ne = 0;
    for (int i = 0; i < nv; i++)
        ne += G->xadj[vs[i] + 1] - G->xadj[vs[i]];
    H->xadj = malloc(sizeof(int64_t) * ((size_t)nv + 1));
    H->adj = malloc(sizeof(int) * (size_t)(ne ? ne : 1));
    H->s = malloc(sizeof(double) * (size_t)(ne ? ne : 1));
    H->dinv = malloc(sizeof(double) * (size_t)nv);
    H->self = G->self ? malloc(sizeof(double) * (size_t)nv) : NULL;
    if (!H->xadj || !H->adj || !H->s || !H->dinv || (G->self && !H->self))
        return -1;
    ne = 0;
    H->xadj[0] = 0;
    for (int i = 0; i < nv; i++) {
        for (int64_t e = G->xadj[vs[i]]; e < G->xadj[vs[i] + 1]; e++) {
            H->adj[ne] = pos[G->adj[e]];
            H->s[ne++] = G->s[e];
        }
        H->xadj[i + 1] = ne;
        H->dinv[i] = G->dinv[vs[i]];
        if (G->self)
            H->self[i] = G->self[vs[i]];
    }
    return 0;
}

static int eig(const struct simgraph *G, int k, uint64_t seed, const struct topomap_problem *pb,
               double *V, char *err, size_t errlen);

/* An eigenpair of one connected component. */
struct epair {
    double val;
    int comp, idx;
};

static int cmp_epair(const void *a, const void *b)
{
    const struct epair *x = a, *y = b;
    if (x->val != y->val)
        return x->val > y->val ? -1 : 1;
    if (x->comp != y->comp)
        return x->comp < y->comp ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Step 4 on a disconnected graph: M is block diagonal, so its leading
 * eigenpairs are the leading ones of its blocks (zero elsewhere). Lanczos
 * alone would miss them: the eigenvalue 1 has one eigenvector per component,
 * and a Krylov space holds one vector of a repeated eigenspace. Each
 * component's min(k, size) leading pairs are computed; the k largest
 * eigenvalues win (ties: earlier component, then larger eigenvalue's order).
 * ncomp components, comp[v] of each vertex, numbered by first vertex.
 * Returns the number of columns of V, or -1. */
static int eig_components(const struct simgraph *G, int k, const int *comp, int ncomp,
                          uint64_t seed, const struct topomap_problem *pb, double *V, char *err,
                          size_t errlen)
{
    int n = G->n, rc = -1, npair = 0;
    int *xv = calloc((size_t)ncomp + 1, sizeof(int));
    int *vs = malloc(sizeof(int) * (size_t)n), *pos = malloc(sizeof(int) * (size_t)n);
    int *fill = malloc(sizeof(int) * (size_t)ncomp);
    int *xp = calloc((size_t)ncomp + 1, sizeof(int)); /* offsets of each component's pairs */
    struct epair *pairs = NULL;
    double *W = NULL, *vals = NULL;
    if (!xv || !vs || !pos || !fill || !xp)
        goto nomem;
    for (int v = 0; v < n; v++)
        xv[comp[v] + 1]++;
    for (int c = 0; c < ncomp; c++) {
        int sz = xv[c + 1];
        xp[c + 1] = xp[c] + (sz < k ? sz : k);
        xv[c + 1] += xv[c];
    }
    memcpy(fill, xv, sizeof(int) * (size_t)ncomp);
    for (int v = 0; v < n; v++) {
        pos[v] = fill[comp[v]] - xv[comp[v]];
        vs[fill[comp[v]]++] = v;
    }
    npair = xp[ncomp];
    pairs = malloc(sizeof(struct epair) * (size_t)npair);
    vals = malloc(sizeof(double) * (size_t)npair);
    /* Eigenvectors of component c: columns of W at xv-rows, one block each. */
    W = malloc(sizeof(double) * (size_t)n * (size_t)k);
    if (!pairs || !vals || !W)
        goto nomem;
    int np = 0;
    for (int c = 0; c < ncomp; c++) {
        int sz = xv[c + 1] - xv[c], kc = xp[c + 1] - xp[c];
        double *Wc = W + (size_t)xv[c] * (size_t)k; /* sz x kc, column major */
        if (sz == 1) {
            Wc[0] = 1;
            int v = vs[xv[c]];
            vals[xp[c]] = (G->self ? G->self[v] : SELF_SIMILARITY) * G->dinv[v] * G->dinv[v];
        } else {
            struct simgraph H;
            if (sim_restrict(G, vs + xv[c], sz, pos, &H) < 0) {
                topomap_sim_free(&H);
                goto nomem;
            }
            int got = eig(&H, kc, seed, pb, Wc, err, errlen);
            if (got >= 0) /* Rayleigh quotients: the eigenvalues */
                for (int j = 0; j < got; j++) {
                    double *x = Wc + (size_t)j * (size_t)sz, num = 0, den = 0;
                    double *y = malloc(sizeof(double) * (size_t)sz);
                    if (!y) {
                        got = -1;
                        topomap_fail(err, errlen, ENOMEM, "out of memory");
                        break;
                    }
                    topomap_sim_matvec(&H, x, y);
                    for (int i = 0; i < sz; i++) {
                        num += x[i] * y[i];
                        den += x[i] * x[i];
                    }
                    free(y);
                    vals[xp[c] + j] = den > 0 ? num / den : 0;
                }
            topomap_sim_free(&H);
            if (got < 0)
                goto out;
            for (int j = got; j < kc; j++)
                vals[xp[c] + j] = -INFINITY; /* not converged: never chosen */
        }
        for (int j = 0; j < kc; j++)
            pairs[np++] = (struct epair){vals[xp[c] + j], c, j};
    }
    qsort(pairs, (size_t)npair, sizeof(struct epair), cmp_epair);
    rc = 0;
    memset(V, 0, sizeof(double) * (size_t)n * (size_t)k);
    for (int t = 0; t < npair && rc < k; t++) {
        if (pairs[t].val == -INFINITY)
            break;
        int c = pairs[t].comp, sz = xv[c + 1] - xv[c];
        const double *x = W + (size_t)xv[c] * (size_t)k + (size_t)pairs[t].idx * (size_t)sz;
        for (int i = 0; i < sz; i++)
            V[(size_t)rc * (size_t)n + (size_t)vs[xv[c] + i]] = x[i];
        rc++;
    }
    goto out;
nomem:
    rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
out:
    free(xv);
    free(vs);
    free(pos);
    free(fill);
    free(xp);
    free(pairs);
    free(vals);
    free(W);
    return rc;
}

/* Connected components of G (breadth first): comp[v], numbered by first
 * vertex; returns their number. queue: n ints. */
static int components(const struct simgraph *G, int *comp, int *queue)
{
    int n = G->n, nc = 0;
    for (int v = 0; v < n; v++)
        comp[v] = -1;
    for (int v = 0; v < n; v++) {
        if (comp[v] >= 0)
            continue;
        int head = 0, tail = 0;
        comp[v] = nc;
        queue[tail++] = v;
        while (head < tail) {
            int u = queue[head++];
            for (int64_t e = G->xadj[u]; e < G->xadj[u + 1]; e++)
                if (comp[G->adj[e]] < 0) {
                    comp[G->adj[e]] = nc;
                    queue[tail++] = G->adj[e];
                }
        }
        nc++;
    }
    return nc;
}

/* OpenBLAS starts threads of its own (one per core) and spins them on every
 * call; --threads does not reach them, they double or triple the time of
 * the small dense solves on a busy machine, and with repeated eigenvalues
 * the basis returned depends on their number. So the solves run with one
 * OpenBLAS thread, restored afterwards. The functions are looked up at run
 * time: with another BLAS they are absent and nothing is changed. (The
 * setting is process-wide: a host program that calls OpenBLAS from another
 * thread at the same moment gets one thread for that call.) */
typedef int (*blas_get_fn)(void);
typedef void (*blas_set_fn)(int);

static int blas_pin(void)
{
    blas_get_fn get = (blas_get_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    blas_set_fn set = (blas_set_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (!get || !set)
        return 0;
    int old = get();
    if (old > 1)
        set(1);
    return old;
}

static void blas_restore(int old)
{
    blas_set_fn set = (blas_set_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (set && old > 1)
        set(old);
}

/* Step 4: the (up to) k leading eigenvectors of M into V; dense or ARPACK
 * by size. Returns the number found, or -1. */
static int eig(const struct simgraph *G, int k, uint64_t seed, const struct topomap_problem *pb,
               double *V, char *err, size_t errlen)
{
    int old = blas_pin(), rc;
    if (G->n <= topomap_tuning()->cpnsc_dense_max || k >= G->n - 1)
        rc = eig_dense(G, k, V, err, errlen) < 0 ? -1 : k;
    else
        rc = eig_arpack(G, k, seed, pb, V, err, errlen);
    blas_restore(old);
    return rc;
}

/* The eigenvectors in a form that does not depend on the BLAS's kernels
 * (ours; the paper is silent). OpenBLAS picks its kernels by CPU (Haswell,
 * SkylakeX, Cooperlake...), and their roundings differ in the last bits of
 * every entry and may flip a vector's sign; k-means, the sorts along a
 * vector and the cuts are discrete decisions on those entries, so the same
 * job mapped differently on two machines (the worked example of
 * doc/user-guide.md#the-topomap-command-task-by-task: the same hop-bytes,
 * another busiest channel). Each column (unit norm, entries
 * within [-1, 1]) is rounded to a fixed grid of 2^-EIG_GRID_BITS (about
 * 1e-9; the solvers' own accuracy is 1e-6 to 1e-12) and signed so that its
 * entry of largest magnitude, the first of those on ties, is positive. Two
 * kernels then give the same vectors where they differed only in rounding.
 * It does not help where the vectors themselves differ: a repeated
 * eigenvalue (periodic grids) has no preferred basis, a small eigengap
 * amplifies the rounding, and ARPACK stops at a tolerance of its own.
 * Measured on the benchmark's base and one sets (168 cases, Haswell against
 * Cooperlake kernels on one machine): spectral-fit's answers differed on 71
 * cases before and 59 after, spectral's on 74 and 55, auto's on 20 and 19;
 * a grid of 2^-20 was no better (53, 59, 16). */
#define EIG_GRID_BITS 30

static void eig_canonical(double *V, int n, int dim)
{
    for (int c = 0; c < dim; c++) {
        double *v = V + (size_t)c * (size_t)n, big = 0;
        int at = -1;
        for (int i = 0; i < n; i++) {
            v[i] = ldexp(nearbyint(ldexp(v[i], EIG_GRID_BITS)), -EIG_GRID_BITS);
            if (fabs(v[i]) > big) {
                big = fabs(v[i]);
                at = i;
            }
        }
        if (at >= 0 && v[at] < 0)
            for (int i = 0; i < n; i++)
                v[i] = -v[i];
    }
}

/* Step 4 on G, whichever solver fits: the dense one up to
 * cpnsc_dense_max (tuning.h) vertices; ARPACK beyond, component by component on
 * a disconnected graph (ARPACK misses repeated eigenvalues). V: n x k column
 * major, in the canonical form above. Returns the number of columns found,
 * or -1 + errno. */
int topomap_spectral_solve(const struct simgraph *G, int k, const struct topomap_problem *pb,
                           double *V, char *err, size_t errlen)
{
    int nr = G->n, dim;
    if (nr <= topomap_tuning()->cpnsc_dense_max || k >= nr - 1) {
        dim = eig(G, k, pb->opts->seed, pb, V, err, errlen);
    } else {
        int *comp = malloc(sizeof(int) * (size_t)nr), *queue = malloc(sizeof(int) * (size_t)nr);
        int nc = comp && queue ? components(G, comp, queue) : -1;
        if (nc < 0)
            dim = topomap_fail(err, errlen, ENOMEM, "out of memory");
        else if (nc == 1)
            dim = eig(G, k, pb->opts->seed, pb, V, err, errlen);
        else
            dim = eig_components(G, k, comp, nc, pb->opts->seed, pb, V, err, errlen);
        free(comp);
        free(queue);
    }
    if (dim > 0)
        eig_canonical(V, nr, dim);
    return dim;
}
