/* SPDX-License-Identifier: BSD-3-Clause */
/* spectral: the clustering-based mapping of Wang, Qing, Wei and Qi,
 * "Optimization of process-to-core mapping based on clustering analysis",
 * Chinese Journal of Computers 38(5), 2015 (the AQAP model, section 3.2):
 * processes are clustered by CP-NSC (section 4.3, spectral_cluster.c), the
 * clusters are mapped onto nodes by the adaptive Plain / First-Fit /
 * Most-Reservation scheme (section 4.4.2, spectral_place.c), the
 * hierarchical specified mapping (section 4.5) does this switch level by
 * switch level, and APE (section 4.4.3, Algorithm 4) exchanges small
 * clusters to finish.
 *
 * Hierarchical mapping (4.5). The machine's nodes are grouped level by level
 * from the top: fat-trees, Slurm trees and dragonflies (group, switch) by the switch at each level,
 * Tianhe-3 by chip, then by side of the chip; the last level is the nodes.
 * At each level, the processes placed in one group are mapped onto its
 * children (the "virtual nodes", of as many slots as their nodes hold) by one
 * single-level mapping: CP-NSC on the processes of the group, then the
 * adaptive cluster mapping; then each child is mapped the same way, down to
 * the nodes, whose processes take the node's slots in rank order. The paper
 * says the mapping "decomposes into h single-level mappings", each coarse and
 * cheap; it does not say whether the clusters are recomputed at each level.
 * We recompute them, within each group, with k set for that group's children
 * (a single clustering with k >= the number of nodes, refined level by level,
 * would need thousands of eigenvectors at scale).
 * Departures, where the paper has nothing to follow:
 *  - tori and meshes have no switch levels; we group their nodes into
 *    blocks of 2^s along every dimension (s from the largest down to 1, an
 *    octree on a 3D torus), wraparound ignored;
 *  - a group whose processes do not communicate with each other is cut into
 *    k blocks of consecutive ranks instead of clustered.
 *
 * The number of clusters (4.3: "k at least the number of nodes, larger for
 * more irregular patterns"; section 5 uses 2 x nodes): at each level,
 * b = the number of children the group's processes fill when packed in order
 * (at most the number of children), and k = b when the group's communication
 * is regular, 2 b when it is irregular (the coefficient of variation of the
 * group's nonzero pair volumes above IRREGULAR_CV), at most the number of
 * processes. With k equal to the processes (one slot per node) the clusters
 * are the processes themselves.
 *
 * APE (Algorithm 4, spectral_ape.c) runs on the clusters of the last level,
 * split where a scheme split them over nodes: one per (cluster, node). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"

#define SPEC_MAXD 20
#define IRREGULAR_CV 1.0
/* spectral-fit: parts are ordered over at most this many children, in at
 * most this many passes of pair swaps. */
#define FIT_ORDER_MAX 256
#define FIT_ORDER_PASSES 8

struct spec {
    const struct topomap_problem *pb;
    int scheme;          /* forced TOPOMAP_CLUSTER_*, or 0: the rule */
    int fit;             /* spectral-fit: capacitated parts, ordered (ours) */
    int m;               /* allocated nodes */
    int *first, *cap;    /* per node: first slot, slots */
    int *tn;             /* per node: topology node */
    int nlev;            /* group levels above the nodes */
    int64_t *key;        /* m * nlev: group of each node at each level */
    int *nodes;          /* nodes sorted by their groups */
    int *ranks;          /* n, in segments */
    int *loc, *label, *cx, *cmem, *bin_of, *tmp;
    int *piece;          /* n: APE cluster of each rank */
    int npiece;
    long used[4];        /* levels mapped by each scheme */
    int *r2s;
};

static void spec_free(struct spec *S)
{
    free(S->first);
    free(S->cap);
    free(S->tn);
    free(S->key);
    free(S->nodes);
    free(S->ranks);
    free(S->loc);
    free(S->label);
    free(S->cx);
    free(S->cmem);
    free(S->bin_of);
    free(S->tmp);
    free(S->piece);
}

/* Sort nodes by their groups at every level, then topology index. */
static int cmp_nodes(const void *a, const void *b, void *ctx)
{
    const struct spec *S = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    for (int l = 0; l < S->nlev; l++) {
        int64_t kx = S->key[(size_t)x * (size_t)S->nlev + (size_t)l];
        int64_t ky = S->key[(size_t)y * (size_t)S->nlev + (size_t)l];
        if (kx != ky)
            return kx < ky ? -1 : 1;
    }
    return S->tn[x] < S->tn[y] ? -1 : S->tn[x] > S->tn[y];
}

/* The group levels of the machine (see the top of the file). */
static int build_levels(struct spec *S)
{
    const topomap_topology_t *t = S->pb->topo;
    int shape = topomap_topology_shape(t);
    int dims[SPEC_MAXD], wrap[SPEC_MAXD], c[SPEC_MAXD];
    int gd = topomap_topology_grid(t, dims, wrap, SPEC_MAXD);
    int bits = 0;
    /* Trees (regular or from a topology.conf) and dragonflies: the levels
     * are the leading coordinates. */
    int hier = shape == TOPOMAP_SHAPE_TREE || topomap_topology_group_levels(t) > 0;
    S->nlev = 0;
    if (shape == TOPOMAP_SHAPE_CHIPS) {
        S->nlev = 2; /* chips, sides */
    } else if (hier) {
        for (int i = 0; i < S->m; i++) {
            int k = topomap_topology_coords(t, S->tn[i], c, SPEC_MAXD);
            if (k - 1 > S->nlev)
                S->nlev = k - 1 > SPEC_MAXD ? SPEC_MAXD : k - 1; /* switches, not the port */
        }
    } else if (gd > 0) {
        int maxd = 1;
        for (int d = 0; d < gd && d < SPEC_MAXD; d++)
            maxd = dims[d] > maxd ? dims[d] : maxd;
        while ((1 << bits) < maxd)
            bits++;
        S->nlev = bits > 1 ? bits - 1 : 0; /* blocks of 2^s, s = bits-1 .. 1 */
    }
    S->key = malloc(sizeof(int64_t) * (size_t)S->m * (size_t)(S->nlev ? S->nlev : 1));
    if (!S->key)
        return -1;
    for (int i = 0; i < S->m; i++) {
        int64_t *K = S->key + (size_t)i * (size_t)S->nlev;
        int k = topomap_topology_coords(t, S->tn[i], c, SPEC_MAXD);
        if (shape == TOPOMAP_SHAPE_CHIPS) {
            K[0] = (int64_t)c[0] * 65536 + c[1];
            K[1] = K[0] * 2 + c[2];
        } else if (hier) {
            for (int l = 0; l < S->nlev; l++)
                K[l] = l < k - 1 ? c[l] : -1;
        } else {
            for (int l = 0; l < S->nlev; l++) {
                int s = bits - 1 - l;
                int64_t key = 0;
                for (int d = 0; d < gd && d < SPEC_MAXD && d < k; d++)
                    key = key * (dims[d] + 1) + (c[d] >> s);
                K[l] = key;
            }
        }
    }
    return 0;
}

static int spec_init(struct spec *S, const struct topomap_problem *pb, int scheme, int *r2s)
{
    memset(S, 0, sizeof *S);
    S->pb = pb;
    S->scheme = scheme;
    S->r2s = r2s;
    int n = pb->n, ns = pb->nslots, nn = topomap_alloc_nnodes(pb->alloc);
    size_t nz = (size_t)(n > 0 ? n : 1), mz = (size_t)(nn > 0 ? nn : 1);
    S->first = malloc(sizeof(int) * mz);
    S->cap = malloc(sizeof(int) * mz);
    S->tn = malloc(sizeof(int) * mz);
    S->nodes = malloc(sizeof(int) * mz);
    S->ranks = malloc(sizeof(int) * nz);
    S->loc = malloc(sizeof(int) * nz);
    S->label = malloc(sizeof(int) * nz);
    S->cx = malloc(sizeof(int) * (nz + 1));
    S->cmem = malloc(sizeof(int) * nz);
    S->bin_of = malloc(sizeof(int) * nz);
    S->tmp = malloc(sizeof(int) * (nz > mz ? nz : mz) + sizeof(int));
    S->piece = malloc(sizeof(int) * nz);
    if (!S->first || !S->cap || !S->tn || !S->nodes || !S->ranks || !S->loc || !S->label ||
        !S->cx || !S->cmem || !S->bin_of || !S->tmp || !S->piece)
        return -1;
    /* Slots are numbered node by node (alloc.c): one run of slots per node. */
    for (int s = 0; s < ns; s++) {
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            S->first[S->m] = s;
            S->tn[S->m] = pb->slot_node[s];
            S->cap[S->m++] = 0;
        }
        S->cap[S->m - 1]++;
    }
    for (int r = 0; r < n; r++) {
        S->ranks[r] = r;
        S->loc[r] = -1;
        S->piece[r] = -1;
    }
    if (build_levels(S) < 0)
        return -1;
    for (int i = 0; i < S->m; i++)
        S->nodes[i] = i;
    qsort_r(S->nodes, (size_t)S->m, sizeof(int), cmp_nodes, S);
    return 0;
}

/* Coefficient of variation of the nonzero volumes between the processes
 * ranks[0..nr) (0 when there are none); *nedges: how many. */
static double volume_cv(struct spec *S, const int *ranks, int nr, long *nedges)
{
    const topomap_graph_t *g = &S->pb->g;
    for (int i = 0; i < nr; i++)
        S->loc[ranks[i]] = i;
    double sum = 0, sum2 = 0;
    long ne = 0;
    for (int i = 0; i < nr; i++)
        for (int64_t e = g->xadj[ranks[i]]; e < g->xadj[ranks[i] + 1]; e++)
            if (S->loc[g->adj[e]] >= 0 && g->w[e] > 0) {
                sum += g->w[e];
                sum2 += g->w[e] * g->w[e];
                ne++;
            }
    for (int i = 0; i < nr; i++)
        S->loc[ranks[i]] = -1;
    *nedges = ne;
    if (ne == 0 || !(sum > 0))
        return 0;
    double mean = sum / ne, var = sum2 / ne - mean * mean;
    return var > 0 ? sqrt(var) / mean : 0;
}

/* spectral-fit (ours): the cost sum_{p<q} T[p][q] D[at[p]][at[q]] of parts
 * p on children at[p], and the change when parts p and q trade children. */
static double swap_delta(const double *T, const double *D, const int *at, int np, int nb, int p,
                         int q)
{
    double d = 0;
    for (int r = 0; r < np; r++) {
        if (r == p || r == q)
            continue;
        d += T[(size_t)p * np + r] *
             (D[(size_t)at[q] * nb + at[r]] - D[(size_t)at[p] * nb + at[r]]);
        d += T[(size_t)q * np + r] *
             (D[(size_t)at[p] * nb + at[r]] - D[(size_t)at[q] * nb + at[r]]);
    }
    return d;
}

/* spectral-fit (ours, not in the paper): one level. Instead of k-means
 * clusters placed by Plain/First-Fit/Most-Reservation (which cut clusters
 * over children and fill children with clusters that do not talk to each
 * other), the ranks are cut into b parts of at most the slots of the first b
 * children (topomap_cpnsc_fit), then the parts are moved between children of
 * enough slots by pair swaps that lower the traffic between parts times the
 * hops between the children (first nodes), while that helps (children
 * at one switch are all alike: nothing moves). bin_of[i] = child of R[i]. */
static int fit_level(struct spec *S, const int *R, int nr, int nb, int b, const int *bstart,
                     const int *bcap, long nedges, int log, char *err, size_t errlen)
{
    const struct topomap_problem *pb = S->pb;
    int *part = S->label;
    if (nedges == 0) {
        for (int i = 0, c = 0, f = 0; i < nr; i++) {
            while (f >= bcap[c]) {
                c++;
                f = 0;
            }
            part[i] = c;
            f++;
        }
    } else if (topomap_cpnsc_fit(pb, R, nr, b, bcap, S->loc, part, err, errlen) < 0) {
        return -1;
    }
    if (log)
        topomap_log(pb, "spectral-fit: %d ranks cut into %d parts over %d children", nr, b, nb);
    for (int i = 0; i < nr; i++)
        S->bin_of[i] = part[i];
    if (nb > FIT_ORDER_MAX || b < 2)
        return 0;
    /* Parts: the b parts, then nb - b empty ones on the unused children. */
    int np = nb;
    double *T = calloc((size_t)np * (size_t)np, sizeof(double));
    double *D = malloc(sizeof(double) * (size_t)nb * (size_t)nb);
    int *at = malloc(sizeof(int) * (size_t)np), *size = calloc((size_t)np, sizeof(int));
    if (!T || !D || !at || !size) {
        free(T);
        free(D);
        free(at);
        free(size);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    const topomap_graph_t *g = &pb->g;
    for (int i = 0; i < nr; i++)
        S->loc[R[i]] = i;
    for (int i = 0; i < nr; i++) {
        size[part[i]]++;
        for (int64_t e = g->xadj[R[i]]; e < g->xadj[R[i] + 1]; e++) {
            int j = S->loc[g->adj[e]];
            if (j >= 0 && part[j] != part[i])
                T[(size_t)part[i] * np + part[j]] += g->w[e];
        }
    }
    for (int i = 0; i < nr; i++)
        S->loc[R[i]] = -1;
    for (int c = 0; c < nb; c++) {
        at[c] = c;
        for (int d = 0; d < nb; d++)
            D[(size_t)c * nb + d] = topomap_topology_hops(pb->topo, S->tn[S->nodes[bstart[c]]],
                                                         S->tn[S->nodes[bstart[d]]]);
    }
    int same = 1; /* every two children equally far apart */
    for (int c = 0; c < nb && same; c++)
        for (int d = 0; d < nb && same; d++)
            same = c == d || D[(size_t)c * nb + d] == D[1];
    for (int pass = 0; pass < FIT_ORDER_PASSES && !same; pass++) {
        int moved = 0;
        for (int p = 0; p < np; p++)
            for (int q = p + 1; q < np; q++) {
                if (size[p] > bcap[at[q]] || size[q] > bcap[at[p]])
                    continue;
                if (swap_delta(T, D, at, np, nb, p, q) < -1e-9) {
                    int t = at[p];
                    at[p] = at[q];
                    at[q] = t;
                    moved = 1;
                }
            }
        if (!moved)
            break;
    }
    for (int i = 0; i < nr; i++)
        S->bin_of[i] = at[part[i]];
    free(T);
    free(D);
    free(at);
    free(size);
    return 0;
}

/* One level as the paper does it: CP-NSC clusters (k by the rule at the top
 * of the file), mapped onto the nb children by the scheme; bin_of[i] = child
 * of R[i], APE pieces recorded. 0, or -1 + errno. */
static int cluster_level(struct spec *S, const int *R, int nr, int nb, int b, const int *bcap,
                         double cv, long nedges, int lv, int rlo, char *err, size_t errlen)
{
    const struct topomap_problem *pb = S->pb;
    int k = cv > IRREGULAR_CV ? 2 * b : b;
    if (k > nr)
        k = nr;
    int nclus;
    if (nedges == 0) {
        for (int i = 0; i < nr; i++)
            S->label[i] = (int)((long)i * k / nr);
        nclus = k;
    } else {
        nclus = topomap_cpnsc(pb, R, nr, k, S->loc, S->label, err, errlen);
        if (nclus < 0)
            return -1;
    }
    if (k < 1 || nclus < 1)
        return topomap_fail(err, errlen, EDOM, "spectral: no cluster on %d ranks", nr);
    /* Clusters as member lists (local indices, ascending = rank order). */
    memset(S->cx, 0, sizeof(int) * ((size_t)nclus + 1));
    for (int i = 0; i < nr; i++)
        S->cx[S->label[i] + 1]++;
    for (int c = 0; c < nclus; c++)
        S->cx[c + 1] += S->cx[c];
    memcpy(S->tmp, S->cx, sizeof(int) * (size_t)nclus);
    for (int i = 0; i < nr; i++)
        S->cmem[S->tmp[S->label[i]]++] = i;
    int scheme = S->scheme ? S->scheme : topomap_cluster_scheme(nclus, S->cx);
    S->used[scheme]++;
    if (lv == 0 || rlo == 0)
        topomap_log(pb, "spectral: level %d: %d ranks on %d groups, %d clusters (k = %d), %s", lv,
                    nr, nb, nclus, k, topomap_cluster_scheme_name(scheme));
    if (topomap_cluster_map(scheme, nclus, S->cx, S->cmem, nb, bcap, S->bin_of) < 0) {
        return topomap_fail(err, errlen, errno, "spectral: %d ranks do not fit in the slots", nr);
    }
    /* APE clusters: one per (cluster, child); finer levels overwrite. */
    for (int c = 0; c < nclus; c++)
        for (int t = S->cx[c]; t < S->cx[c + 1]; t++) {
            int i = S->cmem[t];
            if (t == S->cx[c] || S->bin_of[i] != S->bin_of[S->cmem[t - 1]])
                S->npiece++;
            S->piece[R[i]] = S->npiece - 1;
        }
    return 0;
}

/* Map the ranks ranks[rlo..rhi) onto the nodes nodes[lo..hi), whose groups
 * agree on the levels above lv. */
static int assign(struct spec *S, int lo, int hi, int rlo, int rhi, int lv, char *err,
                  size_t errlen)
{
    const struct topomap_problem *pb = S->pb;
    int nr = rhi - rlo;
    if (nr == 0)
        return 0;
    int *R = S->ranks + rlo;
    qsort(R, (size_t)nr, sizeof(int), topomap_cmp_int);
    if (hi - lo == 1) {
        int v = S->nodes[lo];
        for (int k = 0; k < nr; k++)
            S->r2s[R[k]] = S->first[v] + k;
        return 0;
    }
    /* The children: runs of one group at level lv, or the nodes. */
    int *bstart = malloc(sizeof(int) * (size_t)(hi - lo + 1));
    int *bcap = malloc(sizeof(int) * (size_t)(hi - lo));
    int *off = malloc(sizeof(int) * (size_t)(hi - lo + 1));
    if (!bstart || !bcap || !off) {
        free(bstart);
        free(bcap);
        free(off);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    int nb = 0;
    for (int i = lo; i < hi; i++) {
        int v = S->nodes[i];
        if (i == lo || lv == S->nlev ||
            S->key[(size_t)v * (size_t)S->nlev + (size_t)lv] !=
                S->key[(size_t)S->nodes[i - 1] * (size_t)S->nlev + (size_t)lv]) {
            bstart[nb] = i;
            bcap[nb++] = 0;
        }
        bcap[nb - 1] += S->cap[v];
    }
    bstart[nb] = hi;
    int rc = 0;
    if (nb == 1) {
        rc = assign(S, lo, hi, rlo, rhi, lv + 1, err, errlen);
        goto out;
    }
    if (topomap_expired(pb)) {
        rc = topomap_fail(err, errlen, ETIMEDOUT, "spectral: time limit reached");
        goto out;
    }
    /* k (see the top of the file). */
    int b = 0;
    long acc = 0;
    while (b < nb && acc < nr)
        acc += bcap[b++];
    long nedges;
    double cv = volume_cv(S, R, nr, &nedges);
    if (S->fit)
        rc = fit_level(S, R, nr, nb, b, bstart, bcap, nedges, lv == 0 || rlo == 0, err, errlen);
    else
        rc = cluster_level(S, R, nr, nb, b, bcap, cv, nedges, lv, rlo, err, errlen);
    if (rc < 0)
        goto out;
    /* Stable partition of the ranks by child, then each child. */
    memset(off, 0, sizeof(int) * ((size_t)nb + 1));
    for (int i = 0; i < nr; i++)
        off[S->bin_of[i] + 1]++;
    for (int c = 0; c < nb; c++)
        off[c + 1] += off[c];
    memcpy(S->tmp, off, sizeof(int) * (size_t)nb);
    int *part = malloc(sizeof(int) * (size_t)nr);
    if (!part) {
        rc = topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < nr; i++)
        part[S->tmp[S->bin_of[i]]++] = R[i];
    memcpy(R, part, sizeof(int) * (size_t)nr);
    free(part);
    for (int c = 0; c < nb && rc == 0; c++)
        rc = assign(S, bstart[c], bstart[c + 1], rlo + off[c], rlo + off[c + 1],
                    lv < S->nlev ? lv + 1 : lv, err, errlen);
out:
    free(bstart);
    free(bcap);
    free(off);
    return rc;
}

static int spectral(const struct topomap_problem *pb, int scheme, int fit, int *r2s, char *err,
                    size_t errlen)
{
    struct spec S;
    if (spec_init(&S, pb, scheme, r2s) < 0) {
        spec_free(&S);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    S.fit = fit;
    int rc = assign(&S, 0, S.m, 0, pb->n, 0, err, errlen);
    if (rc == 0 && !fit) {
        topomap_log(pb, "spectral: single-level mappings: %ld plain, %ld first-fit, %ld "
                        "most-reservation",
                    S.used[TOPOMAP_CLUSTER_PLAIN], S.used[TOPOMAP_CLUSTER_FF],
                    S.used[TOPOMAP_CLUSTER_MR]);
        for (int r = 0; r < pb->n; r++)
            if (S.piece[r] < 0)
                S.piece[r] = S.npiece++; /* never clustered (a one-node job): alone */
        rc = topomap_ape(pb, r2s, S.piece, S.npiece, err, errlen);
    }
    spec_free(&S);
    return rc;
}

int topomap_map_spectral(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return spectral(pb, 0, 0, r2s, err, errlen);
}

int topomap_map_spectral_plain(const struct topomap_problem *pb, int *r2s, char *err,
                               size_t errlen)
{
    return spectral(pb, TOPOMAP_CLUSTER_PLAIN, 0, r2s, err, errlen);
}

int topomap_map_spectral_ff(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return spectral(pb, TOPOMAP_CLUSTER_FF, 0, r2s, err, errlen);
}

int topomap_map_spectral_mr(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return spectral(pb, TOPOMAP_CLUSTER_MR, 0, r2s, err, errlen);
}

int topomap_map_spectral_fit(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    return spectral(pb, 0, 1, r2s, err, errlen);
}
