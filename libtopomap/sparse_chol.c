/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse symmetric positive definite solves through SuiteSparse's CHOLMOD
 * (Chen, Davis, Hager and Rajamanickam, ACM TOMS 35(3), 2008), the solver the
 * analytical mapping paper uses (Wu et al. 2016, section 3.6).
 *
 * The matrices of analytic placement are weighted graph Laplacians plus a
 * diagonal that changes from one iteration to the next: the pattern is
 * analysed (fill-reducing ordering) once, each new diagonal is a numeric
 * refactorisation. CHOLMOD is kept in its simplicial mode so that it never
 * calls a multithreaded BLAS: the plugin runs on shared nodes, where a
 * busy-waiting BLAS thread pool costs more than it saves (measured in the
 * doc/algorithms.md#analytic). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/cholmod.h>

#include "internal.h"

/* Flops of a factorisation above which orderings other than AMD are tried. */
#define CHOL_ND_FLOPS 2e7

struct topomap_chol {
    cholmod_common cm;
    cholmod_sparse *A; /* upper triangle, by columns */
    cholmod_factor *L;
    int n;
    int *diag_at; /* n: index of each column's diagonal entry in A->x */
    int started;
};

void topomap_chol_free(struct topomap_chol *c)
{
    if (!c)
        return;
    if (c->started) {
        cholmod_free_factor(&c->L, &c->cm);
        cholmod_free_sparse(&c->A, &c->cm);
        cholmod_finish(&c->cm);
    }
    free(c->diag_at);
    free(c);
}

struct topomap_chol *topomap_chol_new(int n, const int64_t *xadj, const int *adj, const double *w)
{
    struct topomap_chol *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->n = n;
    c->diag_at = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!c->diag_at)
        goto fail;
    cholmod_start(&c->cm);
    c->started = 1;
    c->cm.print = 0; /* the library never prints */
    c->cm.supernodal = CHOLMOD_SIMPLICIAL;
    c->cm.final_ll = 1;
    size_t nnz = (size_t)n;
    for (int j = 0; j < n; j++)
        for (int64_t e = xadj[j]; e < xadj[j + 1]; e++)
            nnz += adj[e] < j;
    c->A = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz, 1, 1, 1, CHOLMOD_REAL, &c->cm);
    if (!c->A)
        goto fail;
    int *Ap = c->A->p, *Ai = c->A->i;
    double *Ax = c->A->x;
    int k = 0;
    /* Column j of the upper triangle = the entries of row j left of the
     * diagonal (the graph is symmetric), rows ascending, then the diagonal. */
    for (int j = 0; j < n; j++) {
        Ap[j] = k;
        for (int64_t e = xadj[j]; e < xadj[j + 1]; e++)
            if (adj[e] < j) {
                Ai[k] = adj[e];
                Ax[k++] = -w[e];
            }
        c->diag_at[j] = k;
        Ai[k] = j;
        Ax[k++] = 1;
    }
    Ap[n] = k;
    c->A->sorted = 0; /* CSR rows need not be sorted: let CHOLMOD sort */
    c->L = cholmod_analyze(c->A, &c->cm);
    /* The pattern is factorised at every iteration: when AMD's ordering
     * costs over CHOL_ND_FLOPS per factorisation, also try METIS and
     * CHOLMOD's nested dissection and keep the ordering with the fewest
     * flops (CHOLMOD's default tries METIS only when AMD's fill is extreme).
     * On the 4096-rank mesh partitions of the benchmark nested dissection
     * needs 1.3x to 2.8x fewer flops than AMD; the analysis runs once.
     * Solutions then differ from AMD's by rounding only, which can still
     * break the ties of symmetric problems differently: smaller problems
     * keep AMD and their answers. */
    if (c->L && c->cm.fl > CHOL_ND_FLOPS) {
        double fl_amd = c->cm.fl;
        c->cm.nmethods = 4; /* the given ordering (none: skipped), AMD, METIS, NESDIS */
        cholmod_factor *L2 = cholmod_analyze(c->A, &c->cm);
        if (L2 && c->cm.fl < fl_amd) {
            cholmod_free_factor(&c->L, &c->cm);
            c->L = L2;
        } else {
            cholmod_free_factor(&L2, &c->cm);
        }
    }
    if (!c->L)
        goto fail;
    return c;
fail:
    topomap_chol_free(c);
    errno = ENOMEM;
    return NULL;
}

void topomap_chol_cost(const struct topomap_chol *c, double *flops, double *lnz)
{
    *flops = c->cm.fl;
    *lnz = c->cm.lnz;
}

int topomap_chol_factor(struct topomap_chol *c, const double *diag)
{
    double *Ax = c->A->x;
    for (int j = 0; j < c->n; j++)
        Ax[c->diag_at[j]] = diag[j];
    if (!cholmod_factorize(c->A, c->L, &c->cm) || c->cm.status != CHOLMOD_OK) {
        errno = c->cm.status == CHOLMOD_OUT_OF_MEMORY ? ENOMEM : EDOM;
        return -1;
    }
    return 0;
}

int topomap_chol_solve(struct topomap_chol *c, const double *b, double *x, int nrhs)
{
    cholmod_dense B;
    memset(&B, 0, sizeof B);
    B.nrow = (size_t)c->n;
    B.ncol = (size_t)nrhs;
    B.nzmax = B.nrow * B.ncol;
    B.d = B.nrow;
    B.x = (void *)b;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, c->L, &B, &c->cm);
    if (!X) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(x, X->x, sizeof(double) * B.nzmax);
    cholmod_free_dense(&X, &c->cm);
    return 0;
}
