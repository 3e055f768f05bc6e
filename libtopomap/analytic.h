/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to the analytical mapping (map_analytic.c, analytic_global.c,
 * analytic_legal.c; Wu et al. 2016): the box of bins it places into, and its
 * two stages. */
#ifndef TOPOMAP_ANALYTIC_H
#define TOPOMAP_ANALYTIC_H

#include <math.h>

#include "internal.h"

#define AN_MAXD 8

/* The allocation's bounding box on the torus/mesh, one bin per network node
 * (section 3.3: node (i, j, k) at the integral point (i, j, k), its bin the
 * unit cube around it). Bins are numbered with dimension 0 fastest. Along a
 * torus dimension the box starts after the largest run of coordinates with
 * no allocated node, so that an allocation across the wrap stays in one
 * piece; it covers the whole ring only when every coordinate is used. */
struct an_box {
    int nd;
    int len[AN_MAXD];   /* bins along each dimension */
    int start[AN_MAXD]; /* network coordinate of bin coordinate 0 */
    int ring[AN_MAXD];  /* ring size if the network wraps there, else 0 (hops) */
    int wrap[AN_MAXD];  /* 1: the box is the whole ring: its end bins are linked */
    int stride[AN_MAXD];
    int nbins;
    int m;              /* allocated nodes in the box */
    int *node_of;       /* m: index of each among the allocation's nodes */
    int *bin_node;      /* nbins: index of the node in the box (< m), or -1 */
    int *node_bin;      /* m */
};

/* The box of a problem on a torus/mesh (map_analytic.c); need > 0: shrunk
 * to a compact sub-box that still holds at least need allocated nodes. 0, or
 * -1 + errno (EINVAL: not a torus/mesh, E2BIG: box too large); free with
 * _free. */
int topomap_an_box_init(struct an_box *B, const struct topomap_problem *pb, int need, char *err,
                        size_t errlen);
void topomap_an_box_free(struct an_box *B);

/* Coordinate k of bin b. */
static inline int an_coord(const struct an_box *B, int b, int k)
{
    return b / B->stride[k] % B->len[k];
}

/* Network hops between two bins (dimension-wise, the short way on a ring). */
static inline int an_hops(const struct an_box *B, int a, int b)
{
    int h = 0;
    for (int k = 0; k < B->nd; k++) {
        int d = an_coord(B, a, k) - an_coord(B, b, k);
        d = d < 0 ? -d : d;
        if (B->ring[k] && B->ring[k] - d < d)
            d = B->ring[k] - d;
        h += d;
    }
    return h;
}

/* Bin of a position: the nearest node, inside the box. */
static inline int an_pos_bin(const struct an_box *B, const double *p)
{
    int b = 0;
    for (int k = 0; k < B->nd; k++) {
        int c = (int)floor(p[k] + 0.5);
        c = c < 0 ? 0 : c >= B->len[k] ? B->len[k] - 1 : c;
        b += c * B->stride[k];
    }
    return b;
}

/* Neighbours of bin b in the network restricted to the box (wrap: with the
 * box's wraparound links, else those of the continuous domain only): fills
 * nb (at most 2 * nd, distinct) and returns their number. */
int topomap_an_neighbours(const struct an_box *B, int b, int wrap, int *nb);

/* Stage 1, global mapping (section 3.3): positions pos[v * nd + k] of the
 * vertices of q in the box, vertices with fixed_bin[v] >= 0 fixed at the
 * centre of that bin. Solves eq. (5) with spreading forces until every bin
 * holds at most gamma vertices, ten iterations do not lower the largest bin
 * load, max_iter iterations or the problem's deadline. anchored: growing
 * anchors at the shifted positions instead of the paper's forces (see
 * anchor_forces()). */
struct an_global_stats {
    int iterations;
    int max_load; /* largest bin load at the end */
    int legal;    /* 1: almost-legal reached */
};
int topomap_an_global(const struct topomap_problem *pb, const topomap_graph_t *q,
                      const struct an_box *B, const int *fixed_bin, int gamma, int max_iter,
                      int anchored, double *pos, struct an_global_stats *st, char *err,
                      size_t errlen);

/* Stage 2, legalization (section 3.4, Fig. 4): vbin[v] (in: any bin of the
 * box; out: an allocated bin) moved by the diffusion-like migration until
 * every allocated bin holds at most one vertex and the others none. Needs
 * q->n <= B->m. */
struct an_legal_stats {
    int rounds;       /* migration iterations (linear solves) */
    long moves;       /* vertices moved from a bin to a neighbouring bin */
    long fallback;    /* vertices placed by the safety net (nearest free bin) */
    double hop_bytes; /* sum over edges of w * hops, kept up to date by the moves */
};
int topomap_an_legalize(const struct topomap_problem *pb, const topomap_graph_t *q,
                        const struct an_box *B, int *vbin, struct an_legal_stats *st, char *err,
                        size_t errlen);

#endif
