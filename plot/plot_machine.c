/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout of the machine that the mapping and link pictures share (drawn
 * by plot_scene.c): where every node box and switch goes, the frames around z-slices, chips and
 * sides, and the cables, in layout units (a node box is 1 x 1), from the
 * public API only (coordinates, hops and routes of topomap.h).
 *  - tori and meshes: dimension 0 across, 1 down; the other dimensions make
 *    z-slices, laid out in a grid of the panel's shape (a row when they fit);
 *    wraparound cables are stubs leaving the slice's edge; cables between
 *    slices are drawn by the link picture as squares inside the node;
 *  - Tianhe-3: the chip grid; each chip a frame with its left and right
 *    side, each side a switch bar over its nodes in a row (boxes taller
 *    than wide, for their ranks); chips of one row
 *    or column are all linked directly, so those cables are arcs, bending
 *    more the farther they reach, left-side ones out to the left;
 *  - trees: nodes in a row at the bottom (boxes taller than wide, for their
 *    ranks), each switch centred over the nodes
 *    under it, one row of switches per level. Which network element a
 *    switch is comes from routes (a route from a node climbs through its
 *    switches), so regular and Slurm-imported trees are drawn the same way.
 * Unless the whole machine is asked for, only the part in use is drawn: the
 * bounding box of the used nodes on a torus, the chips in the bounding box
 * of the used chips and only their used nodes on Tianhe-3, the used nodes
 * and the switches above them on a tree. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define MAXD 16
#define PITCH 1.7       /* torus: node box + room for two link strokes */

static int add_frame(struct machine *m, double x, double y, double w, double h, int dashed,
                     const char *label)
{
    struct frame *f = realloc(m->frames, sizeof *f * (size_t)(m->nframes + 1));
    if (!f)
        return -1;
    m->frames = f;
    f += m->nframes++;
    *f = (struct frame){x, y, w, h, "", dashed};
    snprintf(f->label, sizeof f->label, "%s", label);
    return 0;
}

static int add_cable(struct machine *m, int a, int b, double x0, double y0, double x1, double y1,
                     double bulge, int wrap, int zdir)
{
    if (m->ncables % 256 == 0) {
        struct cable *c = realloc(m->cables, sizeof *c * (size_t)(m->ncables + 256));
        if (!c)
            return -1;
        m->cables = c;
    }
    if (a > b) { /* canonical: a < b, the geometry reversed with it */
        int e = a;
        a = b;
        b = e;
        double tx = x0, ty = y0;
        x0 = x1;
        y0 = y1;
        x1 = tx;
        y1 = ty;
        bulge = -bulge;
        zdir = -zdir;
    }
    m->cables[m->ncables++] = (struct cable){a, b, x0, y0, x1, y1, bulge, wrap, zdir};
    return 0;
}

static void set_box(struct machine *m, int e, double x, double y, double w, double h)
{
    m->x[e] = x;
    m->y[e] = y;
    m->w[e] = w;
    m->h[e] = h;
}

/* ---- tori and meshes ---------------------------------------------------- */

/* Tori and meshes: the cables to the + neighbour in every dimension,
 * wraparound included, between the boxes placed (coordinates coord, nd per
 * node; at: the node of each coordinate tuple by stride). 0, or -1 when out
 * of memory. */
static int torus_cables(struct machine *m, const int *coord, int nd, const int *dims,
                        const int *wrap, const int *lo, const int *hi, const int *at,
                        const long *stride)
{
    int n = m->nnodes;
    for (int v = 0; v < n; v++) {
        if (m->w[v] <= 0)
            continue;
        const int *cv = coord + (size_t)v * nd;
        for (int k = 0; k < nd; k++) {
            int up = cv[k] + 1, wr = 0;
            if (up == dims[k]) {
                if (!wrap[k])
                    continue;
                up = 0;
                wr = 1;
            }
            int u = -1;
            long lin = 0;
            for (int j = 0; j < nd; j++)
                lin += (j == k ? up : cv[j]) * stride[j];
            u = at[lin];
            if (u < 0 || m->w[u] <= 0 || u == v)
                continue;
            double ax = m->x[v] + 0.5, ay = m->y[v] + 0.5, bx = m->x[u] + 0.5, by = m->y[u] + 0.5;
            /* Wraparound cables of tori cropped to a box end outside the
             * picture: drawn only when both ends are its edges. */
            if (wr && !(cv[k] == hi[k] && up == lo[k]))
                continue;
            if (add_cable(m, v, u, ax, ay, bx, by, 0, wr, k >= 2 ? k - 1 : 0) < 0)
                return -1;
        }
    }
    return 0;
}

/* Room for the stubs of wraparound cables around the picture. */
static void wrap_margin(struct machine *m)
{
    int n = m->nnodes;
    int wraps = 0;
    for (int i = 0; i < m->ncables; i++)
        wraps |= m->cables[i].wrap && !m->cables[i].zdir;
    if (wraps) {
        double mg = 0.6;
        for (int v = 0; v < n; v++)
            if (m->w[v] > 0) {
                m->x[v] += mg;
                m->y[v] += mg;
            }
        for (int i = 0; i < m->nframes; i++) {
            m->frames[i].x += mg;
            m->frames[i].y += mg;
        }
        for (int i = 0; i < m->ncables; i++) {
            m->cables[i].x0 += mg;
            m->cables[i].x1 += mg;
            m->cables[i].y0 += mg;
            m->cables[i].y1 += mg;
        }
        m->W += 2 * mg;
        m->H += 2 * mg;
    }
}

static int layout_torus(struct machine *m, const int *show, int whole, double aspect)
{
    const topomap_topology_t *t = m->t;
    int n = m->nnodes, nd = 0, c[MAXD];
    int dims[MAXD] = {0}, lo[MAXD], hi[MAXD], wrap[MAXD] = {0};
    for (int k = 0; k < MAXD; k++) {
        lo[k] = 1 << 30;
        hi[k] = -1;
    }
    for (int v = 0; v < n; v++) {
        nd = topomap_topology_coords(t, v, c, MAXD);
        for (int k = 0; k < nd; k++) {
            if (c[k] + 1 > dims[k])
                dims[k] = c[k] + 1;
            if (show[v] || whole) {
                lo[k] = c[k] < lo[k] ? c[k] : lo[k];
                hi[k] = c[k] > hi[k] ? c[k] : hi[k];
            }
        }
    }
    if (nd < 1 || nd > MAXD)
        return -1;
    /* Node of each coordinate tuple (mixed radix, dimension 0 fastest). */
    long stride[MAXD + 1];
    stride[0] = 1;
    for (int k = 0; k < nd; k++)
        stride[k + 1] = stride[k] * dims[k];
    int *at = malloc(sizeof(int) * (size_t)stride[nd]);
    int *coord = malloc(sizeof(int) * (size_t)n * nd);
    if (!at || !coord) {
        free(at);
        free(coord);
        return -1;
    }
    for (long i = 0; i < stride[nd]; i++)
        at[i] = -1;
    for (int v = 0; v < n; v++) {
        topomap_topology_coords(t, v, coord + (size_t)v * nd, nd);
        long lin = 0;
        for (int k = 0; k < nd; k++)
            lin += coord[(size_t)v * nd + k] * stride[k];
        at[lin] = v;
    }
    /* A dimension wraps when its two ends are one hop apart. */
    for (int k = 0; k < nd; k++)
        if (dims[k] > 2 && at[0] >= 0 && at[(dims[k] - 1) * stride[k]] >= 0)
            wrap[k] = topomap_topology_hops(t, at[0], at[(dims[k] - 1) * stride[k]]) == 1;

    int nx = hi[0] - lo[0] + 1, ny = nd > 1 ? hi[1] - lo[1] + 1 : 1, ns = 1;
    for (int k = 2; k < nd; k++)
        ns *= hi[k] - lo[k] + 1;
    int framed = ns > 1;
    double pad = framed ? FRAME_PAD : 0, lab = framed ? FRAME_LABEL : 0;
    double sw = nx * PITCH - (PITCH - 1) + 2 * pad, sh = ny * PITCH - (PITCH - 1) + 2 * pad + lab;
    double gap = framed ? 0.8 : 0;
    /* Slices in the grid of columns that gives the largest scale. */
    int best = 1;
    double bs = 0;
    for (int cols = 1; cols <= ns; cols++) {
        int rows = (ns + cols - 1) / cols;
        double W = cols * (sw + gap) - gap, H = rows * (sh + gap) - gap;
        double s = fmin(aspect / W, 1.0 / H);
        if (s > bs * 1.0001) {
            bs = s;
            best = cols;
        }
    }
    int rows = (ns + best - 1) / best;
    m->W = best * (sw + gap) - gap;
    m->H = rows * (sh + gap) - gap;
    for (int s = 0; s < ns; s++) {
        double sx = (s % best) * (sw + gap), sy = (s / best) * (sh + gap);
        if (framed) {
            char label[48] = "", part[16];
            int rest = s;
            for (int k = 2; k < nd; k++) {
                int ext = hi[k] - lo[k] + 1;
                snprintf(part, sizeof part, "%s%c = %d", k > 2 ? ", " : "", k == 2 ? 'z' : 'w' + k - 3,
                         lo[k] + rest % ext);
                strncat(label, part, sizeof label - strlen(label) - 1);
                rest /= ext;
            }
            if (add_frame(m, sx, sy, sw, sh, 0, label) < 0)
                goto fail;
        }
        for (int v = 0; v < n; v++) {
            const int *cv = coord + (size_t)v * nd;
            int inside = 1, slice = 0, mul = 1;
            for (int k = 0; k < nd && inside; k++)
                inside = cv[k] >= lo[k] && cv[k] <= hi[k];
            for (int k = 2; k < nd && inside; k++) {
                slice += (cv[k] - lo[k]) * mul;
                mul *= hi[k] - lo[k] + 1;
            }
            if (!inside || slice != s)
                continue;
            set_box(m, v, sx + pad + (cv[0] - lo[0]) * PITCH,
                    sy + pad + lab + (nd > 1 ? cv[1] - lo[1] : 0) * PITCH, 1, 1);
        }
    }
    if (torus_cables(m, coord, nd, dims, wrap, lo, hi, at, stride) < 0)
        goto fail;
    wrap_margin(m);
    free(at);
    free(coord);
    return 0;
fail:
    free(at);
    free(coord);
    return -1;
}

/* ---- Tianhe-3 ----------------------------------------------------------- */

#define TH_NODE 1.3  /* node pitch in a side's row */
#define TH_NODE_H 1.6 /* node box height: a name over three lines of ranks (a crowded node: its
                      * first ranges, an ellipsis, the count), as TREE_NODE_H */
#define TH_BAR 0.35  /* height of a side's switch bar */
#define TH_DROP 0.75 /* from the bar to the nodes */
#define TH_SIDEGAP 0.9
#define TH_CHIPGAP 2.2

static int layout_tianhe3(struct machine *m, const int *show, int whole)
{
    const topomap_topology_t *t = m->t;
    int n = m->nnodes, c[4], rows = 0, cols = 0, half = 0;
    for (int v = 0; v < n; v++) {
        topomap_topology_coords(t, v, c, 4);
        rows = c[0] + 1 > rows ? c[0] + 1 : rows;
        cols = c[1] + 1 > cols ? c[1] + 1 : cols;
        half = c[3] + 1 > half ? c[3] + 1 : half;
    }
    int nchips = rows * cols, r0 = rows, r1 = -1, c0 = cols, c1 = -1;
    /* Nodes shown per side, and the box of used chips. */
    int *count = calloc((size_t)nchips * 2, sizeof(int));
    if (!count)
        return -1;
    int most = 1;
    for (int v = 0; v < n; v++) {
        if (!show[v] && !whole)
            continue;
        topomap_topology_coords(t, v, c, 4);
        int k = (c[0] * cols + c[1]) * 2 + c[2];
        if (++count[k] > most)
            most = count[k];
        r0 = c[0] < r0 ? c[0] : r0;
        r1 = c[0] > r1 ? c[0] : r1;
        c0 = c[1] < c0 ? c[1] : c0;
        c1 = c[1] > c1 ? c[1] : c1;
    }
    if (r1 < 0) {
        free(count);
        return -1;
    }
    double SW = fmax(1.6, most * TH_NODE - (TH_NODE - 1));
    double CW = 2 * FRAME_PAD + 2 * SW + TH_SIDEGAP;
    double CH = FRAME_LABEL + FRAME_PAD + TH_BAR + TH_DROP + TH_NODE_H + FRAME_PAD;
    double PX = CW + TH_CHIPGAP, PY = CH + TH_CHIPGAP;
    /* Room for the arcs around the grid: half a gap on each side. */
    double ox = TH_CHIPGAP / 2, oy = TH_CHIPGAP / 2;
    m->W = (c1 - c0 + 1) * PX;
    m->H = (r1 - r0 + 1) * PY;
    int *slot = calloc((size_t)nchips * 2, sizeof(int));
    if (!slot) {
        free(count);
        return -1;
    }
    for (int r = r0; r <= r1; r++)
        for (int q = c0; q <= c1; q++) {
            int chip = r * cols + q;
            double cx = ox + (q - c0) * PX, cy = oy + (r - r0) * PY;
            char label[48];
            snprintf(label, sizeof label, "chip %d,%d", r, q);
            if (add_frame(m, cx, cy, CW, CH, 0, label) < 0)
                goto fail;
            for (int s = 0; s < 2; s++) {
                int e = n + 2 * chip + s;
                set_box(m, e, cx + FRAME_PAD + s * (SW + TH_SIDEGAP), cy + FRAME_LABEL + FRAME_PAD,
                        SW, TH_BAR);
            }
            /* The cable between the two sides. */
            int el = n + 2 * chip;
            if (add_cable(m, el, el + 1, m->x[el] + SW, m->y[el] + TH_BAR / 2, m->x[el + 1],
                          m->y[el] + TH_BAR / 2, 0, 0, 0) < 0)
                goto fail;
        }
    for (int v = 0; v < n; v++) {
        if (!show[v] && !whole)
            continue;
        topomap_topology_coords(t, v, c, 4);
        int chip = c[0] * cols + c[1], e = n + 2 * chip + c[2];
        int i = slot[chip * 2 + c[2]]++;
        set_box(m, v, m->x[e] + i * TH_NODE, m->y[e] + TH_BAR + TH_DROP, 1, TH_NODE_H);
        if (add_cable(m, v, e, m->x[v] + 0.5, m->y[v], m->x[v] + 0.5, m->y[e] + TH_BAR, 0, 0, 0) <
            0)
            goto fail;
    }
    /* Chip links: every pair of chips of a row (arcs over the row) and of a
     * column (arcs beside it, out to the left for left sides). */
    for (int r = r0; r <= r1; r++)
        for (int q = c0; q <= c1; q++)
            for (int s = 0; s < 2; s++) {
                int a = n + 2 * (r * cols + q) + s;
                for (int q2 = q + 1; q2 <= c1; q2++) {
                    int b = n + 2 * (r * cols + q2) + s;
                    double bend = 0.35 + 0.45 * (q2 - q - 1) + 0.25 * s;
                    if (add_cable(m, a, b, m->x[a] + SW / 2, m->y[a], m->x[b] + SW / 2, m->y[b],
                                  bend + FRAME_LABEL / 2, 0, 0) < 0)
                        goto fail;
                }
                for (int r2 = r + 1; r2 <= r1; r2++) {
                    int b = n + 2 * (r2 * cols + q) + s;
                    double ex = s ? FRAME_PAD + SW : -FRAME_PAD, ymid = CH / 2 - FRAME_LABEL;
                    double bend = (0.35 + 0.45 * (r2 - r - 1)) * (s ? 1 : -1);
                    /* Downwards, the left-hand normal points right (+x). */
                    if (add_cable(m, a, b, m->x[a] + ex, m->y[a] + ymid, m->x[b] + ex,
                                  m->y[b] + ymid, -bend, 0, 0) < 0)
                        goto fail;
                }
            }
    free(count);
    free(slot);
    return 0;
fail:
    free(count);
    free(slot);
    return -1;
}

/* ---- trees -------------------------------------------------------------- */

/* Node boxes taller than wide: the row of nodes sets the width, and the
 * height gives their ranks more lines. */
#define TREE_NODE_H 1.6

/* The element of the switch at each level above node v (elem[k] for level
 * k < depth, -1 where unknown), from a route to the probe farthest away:
 * the route climbs from v's leaf switch to the lowest switch v and the
 * probe share, whose level the coordinates tell. */
static void tree_ancestors(const topomap_topology_t *t, int v, const int *probe, int nprobe,
                           int depth, int *route, int rmax, int *elem)
{
    int far = -1, fh = -1, cv[MAXD + 1], cf[MAXD + 1];
    for (int i = 0; i < nprobe; i++) {
        int h = topomap_topology_hops(t, v, probe[i]);
        if (h > fh) {
            fh = h;
            far = probe[i];
        }
    }
    for (int k = 0; k < depth; k++)
        elem[k] = -1;
    if (far < 0 || far == v)
        return;
    int nv = topomap_topology_coords(t, v, cv, MAXD + 1);
    int nf = topomap_topology_coords(t, far, cf, MAXD + 1);
    int k = 0; /* the first level where their switches differ */
    while (k < nv - 1 && k < nf - 1 && k < MAXD && cv[k] == cf[k])
        k++;
    int h = topomap_topology_route(t, v, far, route, rmax);
    /* route[1] is the switch of level depth - 1, ..., route[depth - k + 1]
     * the common one, of level k - 1. */
    for (int i = 1; i <= depth - k + 1 && i <= h && depth - i >= 0; i++)
        elem[depth - i] = route[i];
}

static int layout_tree(struct machine *m, const int *show, int whole)
{
    const topomap_topology_t *t = m->t;
    int n = m->nnodes, c[MAXD + 1], L = 0;
    int rmax = topomap_topology_route_max(t) + 1;
    int *route = malloc(sizeof(int) * (size_t)rmax);
    int *anc = malloc(sizeof(int) * (size_t)n * MAXD);
    int *depth = malloc(sizeof(int) * (size_t)n);
    int *probe = malloc(sizeof(int) * 66);
    double *lo = malloc(sizeof(double) * (size_t)m->nelem), *hi = malloc(sizeof(double) * (size_t)m->nelem);
    int *lev = malloc(sizeof(int) * (size_t)m->nelem);
    int rc = -1, nprobe = 0;
    if (!route || !anc || !depth || !probe || !lo || !hi || !lev)
        goto out;
    /* Probes: the first and last node and the first under each top child. */
    int lastchild = -1;
    probe[nprobe++] = 0;
    probe[nprobe++] = n - 1;
    for (int v = 0; v < n; v++) {
        int nc = topomap_topology_coords(t, v, c, MAXD + 1);
        depth[v] = nc - 1 < MAXD ? nc - 1 : MAXD;
        L = depth[v] > L ? depth[v] : L;
        if (nc > 2 && c[1] != lastchild && nprobe < 66) {
            lastchild = c[1];
            probe[nprobe++] = v;
        }
    }
    for (int e = 0; e < m->nelem; e++) {
        lo[e] = INFINITY;
        hi[e] = -INFINITY;
        lev[e] = -1;
    }
    /* Nodes in a row, a wider gap where the leaf switch changes. */
    double x = 0;
    int prevleaf = -2;
    for (int v = 0; v < n; v++) {
        if (!show[v] && !whole)
            continue;
        int *a = anc + (size_t)v * MAXD;
        tree_ancestors(t, v, probe, nprobe, depth[v], route, rmax, a);
        int leaf = depth[v] > 0 ? a[depth[v] - 1] : -1;
        if (prevleaf != -2)
            x += leaf != prevleaf ? 1.0 : 0.3;
        prevleaf = leaf;
        set_box(m, v, x, 0, 1, TREE_NODE_H);
        x += 1;
        for (int k = 0; k < depth[v]; k++)
            if (a[k] >= 0) {
                lo[a[k]] = fmin(lo[a[k]], m->x[v]);
                hi[a[k]] = fmax(hi[a[k]], m->x[v] + 1);
                lev[a[k]] = k;
            }
    }
    /* Switches: level k at y = 2.2 k, nodes under the deepest level. */
    double SWW = 1.6, SWH = 0.5, LEVEL = 2.2;
    for (int v = 0; v < n; v++)
        if (m->w[v] > 0)
            m->y[v] = L * LEVEL;
    double minx = 0, maxx = x;
    for (int e = n; e < m->nelem; e++) {
        if (lev[e] < 0)
            continue;
        double mid = (lo[e] + hi[e]) / 2;
        set_box(m, e, mid - SWW / 2, lev[e] * LEVEL, SWW, SWH);
        minx = fmin(minx, mid - SWW / 2);
        maxx = fmax(maxx, mid + SWW / 2);
    }
    /* Cables: every drawn element to the switch above it. */
    for (int v = 0; v < n; v++) {
        if (m->w[v] <= 0)
            continue;
        const int *a = anc + (size_t)v * MAXD;
        int below = v;
        for (int k = depth[v] - 1; k >= 0 && a[k] >= 0; k--) {
            int up = a[k];
            /* A switch's cable is added once, from its first node. */
            if (below == v || lo[below] == m->x[v])
                if (add_cable(m, below, up, m->x[below] + m->w[below] / 2, m->y[below],
                              m->x[up] + SWW / 2, m->y[up] + SWH, 0, 0, 0) < 0)
                    goto out;
            below = up;
        }
    }
    /* Shift so that nothing is left of 0. */
    for (int e = 0; e < m->nelem; e++)
        if (m->w[e] > 0)
            m->x[e] -= minx;
    for (int i = 0; i < m->ncables; i++) {
        m->cables[i].x0 -= minx;
        m->cables[i].x1 -= minx;
    }
    m->W = maxx - minx;
    m->H = L * LEVEL + TREE_NODE_H;
    rc = 0;
out:
    free(route);
    free(anc);
    free(depth);
    free(probe);
    free(lo);
    free(hi);
    free(lev);
    return rc;
}

/* ---- the layout --------------------------------------------------------- */

void machine_free(struct machine *m)
{
    free(m->x);
    free(m->y);
    free(m->w);
    free(m->h);
    free(m->allocated);
    free(m->frames);
    free(m->cables);
    memset(m, 0, sizeof *m);
}

int machine_layout(struct machine *m, const topomap_topology_t *t, const topomap_alloc_t *a,
                   const topomap_plot_placement_t *pl, int npl, int nranks, int whole,
                   double aspect, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    m->nnodes = topomap_topology_nnodes(t);
    m->nelem = topomap_topology_nelements(t);
    size_t ne = (size_t)(m->nelem > 0 ? m->nelem : 1);
    m->x = calloc(ne, sizeof(double));
    m->y = calloc(ne, sizeof(double));
    m->w = calloc(ne, sizeof(double));
    m->h = calloc(ne, sizeof(double));
    m->allocated = calloc((size_t)m->nnodes + 1, sizeof(int));
    int *show = calloc((size_t)m->nnodes + 1, sizeof(int));
    if (!m->x || !m->y || !m->w || !m->h || !m->allocated || !show) {
        free(show);
        machine_free(m);
        return plot_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int i = 0; a && i < topomap_alloc_nnodes(a); i++)
        m->allocated[topomap_alloc_node(a, i)] = show[topomap_alloc_node(a, i)] = 1;
    for (int k = 0; k < npl; k++)
        for (int r = 0; r < nranks; r++)
            m->allocated[pl[k].node[r]] = show[pl[k].node[r]] = 1;
    const char *kind = topomap_topology_kind(t);
    int rc, shape = topomap_topology_shape(t);
    if (shape == TOPOMAP_SHAPE_CHIPS) {
        m->kind = 'h';
        rc = layout_tianhe3(m, show, whole);
    } else if (shape == TOPOMAP_SHAPE_TREE) {
        m->kind = 'f';
        rc = layout_tree(m, show, whole);
    } else {
        m->kind = 't';
        rc = layout_torus(m, show, whole, aspect > 0 ? aspect : 1.5);
    }
    int drawn = 0, missing = 0;
    for (int v = 0; v < m->nnodes; v++) {
        drawn += m->w[v] > 0;
        missing += show[v] && m->w[v] <= 0;
    }
    free(show);
    if (rc < 0 || missing || !(m->W > 0 && m->H > 0)) {
        machine_free(m);
        return plot_fail(err, errlen, rc < 0 ? ENOMEM : EINVAL,
                         rc < 0 ? "out of memory" : "cannot draw this %s network", kind);
    }
    if (!whole && drawn < m->nnodes)
        snprintf(m->note, sizeof m->note, "%d of the %d nodes drawn", drawn, m->nnodes);
    return 0;
}
