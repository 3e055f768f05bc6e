/* SPDX-License-Identifier: BSD-3-Clause */
/* Robust tabu search for the quadratic assignment of ranks to slots
 * (Taillard, "Robust taboo search for the quadratic assignment problem",
 * Parallel Computing 17, 1991): auto's step on small jobs after the
 * iterated local search, which stops where no kick followed by exchanges
 * helps. Taillard's method walks on: each iteration makes the best exchange
 * of two ranks' slots that is not tabu, improving or not, so it leaves the
 * local minima of the exchange neighbourhood.
 *
 * As in the paper:
 * - the neighbourhood is every exchange of two units' locations, each
 *   valued in O(1) from the previous iteration's value when it does not
 *   touch the two units just exchanged, in O(m) otherwise (its section 2);
 * - an exchange is tabu when both units would return to a location they
 *   left within the last t iterations; t is drawn at random in
 *   [0.9 m, 1.1 m] and drawn again every 2 x 1.1 m iterations;
 * - aspiration: a tabu exchange that gives a cost below the best known is
 *   allowed; an exchange that puts both units where neither has been for
 *   the last ASPIRATION_PER_M2 x m^2 iterations is made at once (the
 *   long-term diversification).
 * Where it departs, and why:
 * - more slots than ranks: the free slots hold zero-weight dummy units
 *   (the usual padding of the QAP); exchanges of two dummies are not
 *   looked at (they change nothing);
 * - several slots on a node: exchanges of two units on the same node change
 *   no hop-bytes, and in a tabu walk such a free move would be taken at
 *   every local minimum and waste the iteration: they are not looked at;
 * - a fixed number of iterations (the caller's work budget), a deadline,
 *   and the seed's generator: the answer depends on the inputs, the seed and
 *   the iteration count only (unless the deadline stops it first).
 * Cost: O(m^2) per iteration in time; in memory the problem's n x n
 * weights and m x m hops (qap.h) and two m x m tables (the values, the
 * iterations), 32 MB at 1024 slots; auto runs it on jobs of at most
 * AUTO_TABU_SLOTS slots (qap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "qap.h"

#define ASPIRATION_PER_M2 5
#define TABU_EPS 1e-9

struct tabu {
    int n, m;
    const double *f, *d; /* q's: n x n weights (the dummies have none), m x m hops */
    double *delta; /* m x m, upper triangle: the cost change of exchanging r and s */
    long *left;    /* m x m: iteration unit r last left location k */
    const int *group; /* node of each location: exchanges inside one are skipped */
    int *loc;         /* unit -> location */
    int *xadj, *adj;  /* each real unit's partners (f non-zero) */
    int *touched;     /* m: the partners of the exchanged pair, then 0 again */
    int *list;        /* m: those partners */
};

static double F(const struct tabu *T, int r, int s)
{
    return r < T->n && s < T->n ? T->f[(size_t)r * (size_t)T->n + (size_t)s] : 0;
}
static double D(const struct tabu *T, int a, int b)
{
    return T->d[(size_t)a * (size_t)T->m + (size_t)b];
}

/* The value below which a cost beats best (a relative tolerance, so that
 * rounding never takes a tie for a gain). */
static double beaten_below(double best)
{
    return best - TABU_EPS * (best > 1 ? best : 1);
}

/* The cost change of exchanging units r and s, from scratch: O(partners). */
static double delta_full(const struct tabu *T, int r, int s)
{
    int n = T->n, a = T->loc[r], b = T->loc[s];
    double x = 0;
    if (r < n)
        for (int e = T->xadj[r]; e < T->xadj[r + 1]; e++) {
            int k = T->adj[e];
            if (k != s)
                x += F(T, r, k) * (D(T, b, T->loc[k]) - D(T, a, T->loc[k]));
        }
    if (s < n)
        for (int e = T->xadj[s]; e < T->xadj[s + 1]; e++) {
            int k = T->adj[e];
            if (k != r)
                x -= F(T, s, k) * (D(T, b, T->loc[k]) - D(T, a, T->loc[k]));
        }
    return x;
}

/* Whether the exchange of r and s is looked at. */
static int skipped(const struct tabu *T, int r, int s)
{
    return (r >= T->n && s >= T->n) || T->group[T->loc[r]] == T->group[T->loc[s]];
}

/* Taillard's O(1) update of the value of exchanging r and s after u and v
 * (disjoint from r, s) were exchanged; loc is already the new one. */
static double delta_update(const struct tabu *T, int r, int s, int u, int v, double old)
{
    const int *p = T->loc;
    double w = F(T, r, u) - F(T, r, v) + F(T, s, v) - F(T, s, u);
    if (w == 0)
        return old;
    return old + w * (D(T, p[s], p[u]) - D(T, p[s], p[v]) + D(T, p[r], p[v]) - D(T, p[r], p[u]));
}

/* The exchange to make at iteration it: the long-term aspiration first
 * (looked for only once it can apply: "old" is -tmax - 1 at the start),
 * else the best allowed one (tabu unless it beats best), the first of
 * equals. -1 in *bu when none is allowed. */
static void choose(const struct tabu *T, long it, long tenure, long aspiration, long old,
                   double cost, double best, int *bu, int *bv)
{
    int n = T->n, m = T->m, look_old = it - aspiration > old;
    double bd = 0, beat = beaten_below(best) - cost;
    *bu = *bv = -1;
    for (int r = 0; r < n && r < m - 1; r++) { /* a pair with a rank: r < n */
        const double *row = T->delta + (size_t)r * (size_t)m;
        const long *lrow = T->left + (size_t)r * (size_t)m;
        for (int s = r + 1; s < m; s++) {
            double d = row[s];
            if (!look_old && *bu >= 0 && d >= bd)
                continue;
            if (skipped(T, r, s))
                continue;
            long lr = lrow[T->loc[s]], ls = T->left[(size_t)s * (size_t)m + (size_t)T->loc[r]];
            if (look_old && lr < it - aspiration && ls < it - aspiration) {
                *bu = r, *bv = s;
                return;
            }
            if (*bu >= 0 && d >= bd)
                continue;
            if (lr >= it - tenure && ls >= it - tenure && d >= beat)
                continue; /* tabu, and not better than the best known */
            bd = d, *bu = r, *bv = s;
        }
    }
}

/* Exchange u and v, update every value: those of the pairs with u or v
 * from scratch, those of the pairs with a partner of u or v by Taillard's
 * update; the others do not change (the update's weight is zero). */
static void exchange(struct tabu *T, long it, int u, int v)
{
    int n = T->n, m = T->m, nl = 0;
    const int uv[2] = {u, v};
    T->left[(size_t)u * (size_t)m + (size_t)T->loc[u]] = it;
    T->left[(size_t)v * (size_t)m + (size_t)T->loc[v]] = it;
    int t = T->loc[u];
    T->loc[u] = T->loc[v];
    T->loc[v] = t;
    T->touched[u] = T->touched[v] = 2; /* not partners: recomputed below */
    for (int i = 0; i < 2; i++) {
        if (uv[i] >= n)
            continue; /* a dummy: no partners */
        for (int e = T->xadj[uv[i]]; e < T->xadj[uv[i] + 1]; e++)
            if (!T->touched[T->adj[e]])
                T->touched[T->adj[e]] = 1, T->list[nl++] = T->adj[e];
    }
    /* Each pair's value sits in the upper triangle and is computed with its
     * lower unit first. */
    for (int i = 0; i < nl; i++) {
        int r = T->list[i];
        for (int s = 0; s < m; s++)
            if (T->touched[s] != 2 && s != r && !(r >= n && s >= n)) {
                int lo = r < s ? r : s, hi = r < s ? s : r;
                double *x = &T->delta[(size_t)lo * (size_t)m + (size_t)hi];
                *x = delta_update(T, lo, hi, u, v, *x);
            }
        T->touched[r] = 2; /* its pairs are done */
    }
    for (int i = 0; i < 2; i++)
        for (int s = 0, w = uv[i]; s < m; s++)
            if (s != w && !(w >= n && s >= n) && !(i == 1 && s == u)) {
                int lo = w < s ? w : s, hi = w < s ? s : w;
                T->delta[(size_t)lo * (size_t)m + (size_t)hi] = delta_full(T, lo, hi);
            }
    for (int i = 0; i < nl; i++)
        T->touched[T->list[i]] = 0;
    T->touched[u] = T->touched[v] = 0;
}

static int tabu_alloc(struct tabu *T, const struct qap *q, const int *group, const int *node)
{
    size_t m = (size_t)q->m, mm = m * m + 1;
    T->n = q->n;
    T->m = q->m;
    T->group = group;
    T->f = q->f;
    T->d = q->d;
    T->delta = calloc(mm, sizeof(double));
    T->left = malloc(sizeof(long) * mm);
    T->loc = malloc(sizeof(int) * (m + 1));
    T->xadj = malloc(sizeof(int) * ((size_t)q->n + 1));
    T->touched = calloc(m + 1, sizeof(int));
    T->list = malloc(sizeof(int) * (m + 1));
    if (!T->delta || !T->left || !T->loc || !T->xadj || !T->touched || !T->list)
        return -1;
    size_t ne = 0;
    for (size_t k = 0; k < (size_t)q->n * (size_t)q->n; k++)
        ne += q->f[k] != 0;
    if (!(T->adj = malloc(sizeof(int) * (ne + 1))))
        return -1;
    ne = 0;
    for (int i = 0; i < q->n; i++) {
        T->xadj[i] = (int)ne;
        for (int j = 0; j < q->n; j++)
            if (q->f[(size_t)i * (size_t)q->n + (size_t)j] != 0)
                T->adj[ne++] = j;
    }
    T->xadj[q->n] = (int)ne;
    /* Units n .. m-1 are the dummies, on the free locations in order. */
    char *used = calloc(m + 1, 1);
    if (!used)
        return -1;
    for (int i = 0; i < q->n; i++)
        T->loc[i] = node[i], used[node[i]] = 1;
    for (int k = 0, i = q->n; k < q->m; k++)
        if (!used[k])
            T->loc[i++] = k;
    free(used);
    return 0;
}

static void tabu_free(struct tabu *T)
{
    free(T->delta), free(T->left), free(T->loc);
    free(T->xadj), free(T->adj), free(T->touched), free(T->list);
}

/* The work of one iteration: the exchanges looked at (those with a rank),
 * and the values updated (m per partner of the pair) or recomputed (2 m,
 * each over the partners of its two units), with the mean partner count. */
static double work_per_iteration(const struct tabu *T)
{
    int n = T->n;
    double deg = n > 0 ? (double)T->xadj[n] / n : 0;
    return (double)n * T->m - (double)n * (n + 1) / 2 + 6.0 * T->m * deg;
}

long topomap_qap_tabu(const struct qap *q, const int *group, int *node, double *cost, long iters,
                      double work, uint64_t seed, double deadline)
{
    struct tabu T = {0};
    int n = q->n, m = q->m;
    if (m < 2 || tabu_alloc(&T, q, group, node) < 0) {
        tabu_free(&T);
        if (m < 2)
            return 0;
        errno = ENOMEM;
        return -1;
    }
    long aspiration = (long)ASPIRATION_PER_M2 * m * m;
    long tmin = (long)(0.9 * m), tmax = (long)(1.1 * m + 0.999), tenure, it;
    if (tmin < 1)
        tmin = 1;
    /* At the start no exchange is tabu, and the long-term aspiration
     * forces none before about aspiration iterations. */
    long old = -tmax - 1;
    for (size_t k = 0; k < (size_t)m * (size_t)m; k++)
        T.left[k] = old;
    /* The first values, O(n m x partners): a phase of its own, under the
     * deadline too (under the sanitizers it alone took 0.18 s on 400
     * slots); stopped, the search makes no iteration. */
    for (int r = 0; r < n && r < m - 1; r++) {
        if (deadline > 0 && topomap_now() > deadline) {
            iters = 0;
            break;
        }
        for (int s = r + 1; s < m; s++)
            T.delta[(size_t)r * (size_t)m + (size_t)s] = delta_full(&T, r, s);
    }
    if (work > 0 && iters > work / work_per_iteration(&T))
        iters = (long)(work / work_per_iteration(&T));
    uint64_t rng = seed ^ 0x7ab0u;
    double c = *cost, best = c;
    tenure = tmin + (long)topomap_rng_below(&rng, (uint64_t)(tmax - tmin + 1));
    for (it = 1; it <= iters; it++) {
        if (it % (2 * tmax) == 0)
            tenure = tmin + (long)topomap_rng_below(&rng, (uint64_t)(tmax - tmin + 1));
        /* Every iteration: one costs O(m^2), the clock next to nothing
         * (every 16 overran a 50 ms limit 3.6 times under the sanitizers). */
        if (deadline > 0 && topomap_now() > deadline)
            break;
        int u, v;
        choose(&T, it, tenure, aspiration, old, c, best, &u, &v);
        if (u < 0)
            continue;
        c += T.delta[(size_t)u * (size_t)m + (size_t)v];
        exchange(&T, it, u, v);
        if (c < beaten_below(best)) {
            best = c;
            memcpy(node, T.loc, sizeof(int) * (size_t)n);
        }
    }
    /* The kept placement's cost from scratch, not the sum of the steps. */
    if (best < *cost)
        *cost = topomap_qap_cost(q, node);
    tabu_free(&T);
    return it - 1;
}

int topomap_tabu_improve(const struct topomap_problem *pb, int *r2s, long iters, double work,
                         double *hop_bytes)
{
    struct qap q;
    int *node;
    double start = topomap_qap_from(pb, r2s, &q, &node), cost = start, t0 = topomap_now();
    if (start < 0)
        return -1;
    long done = topomap_qap_tabu(&q, pb->slot_node, node, &cost, iters, work, pb->opts->seed,
                                 pb->deadline);
    if (done >= 0)
        topomap_log(pb, "tabu: %ld iterations, hop-bytes %.10g -> %.10g, %.3f s", done, start,
                    cost, topomap_now() - t0);
    else
        cost = start;
    int better = topomap_qap_keep(pb, &q, node, start, cost, r2s, hop_bytes);
    return done < 0 ? -1 : better;
}
