/* SPDX-License-Identifier: BSD-3-Clause */
/* The bisection of a set of processes for treematch's top-down split
 * (treematch_kpart.c says where it is used and why): the graph the set
 * induces, METIS's recursive bisection with target sizes, a fix-up to
 * exact sizes, then Fiduccia-Mattheyses passes with the sizes kept; and
 * the workspace each thread does it in. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metis_call.h"
#include "treematch_split.h"

/* Imbalance METIS may leave (the fix-up below makes sizes exact). */
#define KP_UBFACTOR 1.001f
/* Bisections from this many seeds of up to KP_TRIES_MAX processes, the
 * best kept (one above: the time goes to the large ones). */
#define KP_TRIES 4
#define KP_TRIES_MAX 256
/* Fiduccia-Mattheyses passes after each bisection, and moves a pass goes
 * on without finding a better cut. */
#define KP_FM_PASSES 4
#define KP_FM_STALL 64

/* The calling thread's workspace (one per thread of the region). */
struct kp *tm_kp_self(struct kpshared *S)
{
    int i = topomap_thread_num();
    return &S->ws[i < S->nws ? i : 0];
}

void tm_kp_free(struct kp *K)
{
    free(K->part), free(K->bpart), free(K->tmp), free(K->mv), free(K->xadj), free(K->adj);
    free(K->wgt), free(K->ipart), free(K->gain), free(K->keys), free(K->ver), free(K->moved);
    free(K->lock), free(K->heap[0]), free(K->heap[1]);
    K->part = K->bpart = K->tmp = K->ver = K->moved = NULL;
    K->mv = NULL;
    K->xadj = K->adj = K->wgt = K->ipart = NULL;
    K->gain = K->keys = NULL;
    K->lock = NULL;
    K->heap[0] = K->heap[1] = NULL;
    K->capn = K->capm = 0;
}

/* Room in K for the processes pr[0 .. p) and their edges. 0, or -1 +
 * ENOMEM. */
int tm_kp_room(struct kp *K, const int *pr, int p)
{
    size_t m = 1, nn = (size_t)p + 1;
    for (int i = 0; i < p; i++)
        m += (size_t)(K->g->xadj[pr[i] + 1] - K->g->xadj[pr[i]]);
    if (nn <= K->capn && m <= K->capm)
        return 0;
    nn = nn > K->capn ? nn : K->capn;
    m = m > K->capm ? m : K->capm;
    tm_kp_free(K);
    K->part = malloc(sizeof(int) * nn);
    K->bpart = malloc(sizeof(int) * nn);
    K->tmp = malloc(sizeof(int) * nn);
    K->mv = malloc(sizeof *K->mv * nn);
    K->xadj = malloc(sizeof(idx_t) * (nn + 1));
    K->adj = malloc(sizeof(idx_t) * m);
    K->wgt = malloc(sizeof(idx_t) * m);
    K->ipart = malloc(sizeof(idx_t) * nn);
    K->gain = malloc(sizeof(int64_t) * nn);
    K->keys = malloc(sizeof(int64_t) * m);
    K->ver = malloc(sizeof(int) * nn);
    K->moved = malloc(sizeof(int) * nn);
    K->lock = malloc(nn);
    K->heap[0] = malloc(sizeof(struct hent) * (nn + m));
    K->heap[1] = malloc(sizeof(struct hent) * (nn + m));
    if (!K->part || !K->bpart || !K->tmp || !K->mv || !K->xadj || !K->adj || !K->wgt ||
        !K->ipart || !K->gain || !K->keys || !K->ver || !K->moved || !K->lock || !K->heap[0] ||
        !K->heap[1]) {
        tm_kp_free(K);
        errno = ENOMEM;
        return -1;
    }
    K->capn = nn;
    K->capm = m;
    return 0;
}

/* Larger pull first, then lower index. */
static int cmp_mover(const void *a, const void *b)
{
    const struct mover *x = a, *y = b;
    if (x->pull != y->pull)
        return x->pull > y->pull ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Heap order: larger gain first, then lower vertex (deterministic). */
static int hbefore(const struct hent *a, const struct hent *b)
{
    return a->gain > b->gain || (a->gain == b->gain && a->v < b->v);
}

static void hpush(struct kp *K, int s, int v)
{
    struct hent *h = K->heap[s], e = {K->gain[v], v, K->ver[v]};
    int i = K->hn[s]++;
    while (i > 0 && hbefore(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

/* The unlocked vertex of side s with the largest gain, or -1. */
static int hpop(struct kp *K, int s)
{
    struct hent *h = K->heap[s];
    while (K->hn[s] > 0) {
        struct hent top = h[0], last = h[--K->hn[s]];
        int i = 0, n = K->hn[s];
        for (;;) {
            int c = 2 * i + 1;
            if (c >= n)
                break;
            if (c + 1 < n && hbefore(&h[c + 1], &h[c]))
                c++;
            if (!hbefore(&h[c], &last))
                break;
            h[i] = h[c];
            i = c;
        }
        if (n > 0)
            h[i] = last;
        if (!K->lock[top.v] && top.ver == K->ver[top.v])
            return top.v;
    }
    return -1;
}

/* Fiduccia-Mattheyses passes on the bisection of the p local vertices
 * (K->xadj ..., K->part), sizes kept: moves alternate between the sides,
 * and a pass keeps its best prefix of an even number of moves. */
int64_t tm_kp_fm(struct kp *K, int p)
{
    int64_t total = 0;
    for (int pass = 0; pass < KP_FM_PASSES; pass++) {
        for (int i = 0; i < p; i++) {
            int64_t gn = 0;
            for (idx_t e = K->xadj[i]; e < K->xadj[i + 1]; e++)
                gn += K->part[K->adj[e]] != K->part[i] ? K->wgt[e] : -K->wgt[e];
            K->gain[i] = gn;
            K->ver[i] = 0;
            K->lock[i] = 0;
        }
        K->hn[0] = K->hn[1] = 0;
        for (int i = 0; i < p; i++)
            hpush(K, K->part[i], i);
        int64_t cum = 0, best = 0;
        int nm = 0, bestm = 0;
        int s = K->hn[0] && (!K->hn[1] || !hbefore(&K->heap[1][0], &K->heap[0][0])) ? 0 : 1;
        for (;;) {
            int v = hpop(K, s);
            if (v < 0)
                break;
            cum += K->gain[v];
            K->lock[v] = 1;
            K->part[v] = 1 - s;
            K->moved[nm++] = v;
            for (idx_t e = K->xadj[v]; e < K->xadj[v + 1]; e++) {
                int u = K->adj[e];
                int64_t w2 = 2 * (int64_t)K->wgt[e];
                K->gain[u] += K->part[u] == K->part[v] ? -w2 : w2;
                if (!K->lock[u]) {
                    K->ver[u]++;
                    hpush(K, K->part[u], u);
                }
            }
            if (nm % 2 == 0) {
                if (cum > best) {
                    best = cum;
                    bestm = nm;
                } else if (nm - bestm > KP_FM_STALL) {
                    break;
                }
            }
            s = 1 - s;
        }
        for (int k = nm - 1; k >= bestm; k--)
            K->part[K->moved[k]] = 1 - K->part[K->moved[k]];
        if (best <= 0)
            break;
        total += best;
    }
    return total;
}

/* The graph induced on the processes pr[0 .. p) in K->xadj, adj, wgt
 * (local numbers, K->loc set), with integer weights: relative order kept to
 * about one part in a million, total below 2^30 (METIS sums in 32 bits).
 * Returns 0 when no traffic stays inside. The caller resets K->loc. */
int tm_kp_local_graph(struct kp *K, const int *pr, int p)
{
    const topomap_graph_t *g = K->g;
    for (int i = 0; i < p; i++)
        K->loc[pr[i]] = i;
    double maxw = 0, sumw = 0;
    for (int i = 0; i < p; i++)
        for (int64_t e = g->xadj[pr[i]]; e < g->xadj[pr[i] + 1]; e++)
            if (K->loc[g->adj[e]] >= 0 && g->w[e] > 0) {
                maxw = g->w[e] > maxw ? g->w[e] : maxw;
                sumw += g->w[e];
            }
    if (!(maxw > 0))
        return 0;
    double scale = fmin((double)(1 << 20) / maxw, (double)(1 << 30) / sumw);
    int64_t ne = 0;
    K->xadj[0] = 0;
    for (int i = 0; i < p; i++) {
        for (int64_t e = g->xadj[pr[i]]; e < g->xadj[pr[i] + 1]; e++) {
            int l = K->loc[g->adj[e]];
            if (l >= 0 && g->w[e] > 0) {
                double w = ceil(g->w[e] * scale);
                K->adj[ne] = l;
                K->wgt[ne++] = (idx_t)(w < 1 ? 1 : w);
            }
        }
        K->xadj[i + 1] = (idx_t)ne;
    }
    return 1;
}

/* One bisection of the local graph (p vertices, want0 on side 0) into
 * K->part: METIS with this seed and ncuts tries, the fix-up to exact sizes
 * (the side over its size gives up its vertices most attached to the other
 * side first), FM. Returns the cut, or -1 + errno. */
static int64_t bisect_once(struct kp *K, int p, int want0, int seed, int ncuts)
{
    idx_t nv = p, ncon = 1, nparts = 2, objval = 0;
    idx_t options[METIS_NOPTIONS];
    real_t ub = KP_UBFACTOR, tpw[2] = {(real_t)want0 / (real_t)p, 0};
    tpw[1] = 1 - tpw[0];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = (idx_t)(seed & 0x7fffffff);
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_NCUTS] = ncuts;
    int st = topomap_metis_recursive(&nv, &ncon, K->xadj, K->adj, NULL, NULL, K->wgt, &nparts, tpw,
                                      &ub, options, &objval, K->ipart);
    if (st != METIS_OK) {
        errno = st == METIS_ERROR_MEMORY ? ENOMEM : EINVAL;
        return -1;
    }
    int c0 = 0;
    for (int i = 0; i < p; i++) {
        K->part[i] = (int)K->ipart[i];
        c0 += K->part[i] == 0;
    }
    if (c0 != want0) {
        int from = c0 > want0 ? 0 : 1, excess = c0 > want0 ? c0 - want0 : want0 - c0, nc = 0;
        for (int i = 0; i < p; i++) {
            if (K->part[i] != from)
                continue;
            double pull = 0;
            for (idx_t e = K->xadj[i]; e < K->xadj[i + 1]; e++)
                pull += K->part[K->adj[e]] == from ? -(double)K->wgt[e] : (double)K->wgt[e];
            K->mv[nc++] = (struct mover){pull, i};
        }
        qsort(K->mv, (size_t)nc, sizeof *K->mv, cmp_mover);
        for (int c = 0; c < excess; c++)
            K->part[K->mv[c].i] = 1 - from;
    }
    (void)tm_kp_fm(K, p);
    int64_t cut = 0;
    for (int i = 0; i < p; i++)
        for (idx_t e = K->xadj[i]; e < K->xadj[i + 1]; e++)
            cut += K->part[K->adj[e]] != K->part[i] ? K->wgt[e] : 0;
    return cut;
}

/* Bisect the processes pr[0 .. p) (0 < want0 < p): K->part[i] = 0 for
 * want0 of them (local i), 1 for the others. Up to KP_TRIES_MAX processes
 * KP_TRIES bisections from different seeds, the best kept (one METIS run
 * ends in a local optimum that FM cannot leave; on small jobs the seed
 * decided the cut). 0, or -1 + errno. */
int tm_kp_bisect(struct kp *K, const int *pr, int p, int want0)
{
    int rc = 0;
    if (tm_kp_room(K, pr, p) < 0)
        return -1;
    if (!tm_kp_local_graph(K, pr, p)) {
        /* No traffic inside: any cut is as good. */
        for (int i = 0; i < p; i++)
            K->part[i] = i >= want0;
    } else {
        int tries = K->S->net && p <= KP_TRIES_MAX ? KP_TRIES : 1;
        int64_t best = -1;
        for (int q = 0; q < tries; q++) {
            int64_t c = bisect_once(K, p, want0, (int)(K->pb->opts->seed + (uint64_t)q), 1);
            if (c < 0) {
                rc = -1;
                break;
            }
            if (best < 0 || c < best) {
                best = c;
                memcpy(K->bpart, K->part, sizeof(int) * (size_t)p);
            }
        }
        if (rc == 0 && tries > 1)
            memcpy(K->part, K->bpart, sizeof(int) * (size_t)p);
    }
    for (int i = 0; i < p; i++)
        K->loc[pr[i]] = -1;
    return rc;
}
