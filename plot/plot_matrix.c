/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication matrix as a heat map (topomap_plot_matrix()): the cell
 * of row i and column j has the colour of the bytes rank i sent to rank j,
 * on a logarithmic scale (traffic spans many decades: a stencil's faces
 * against its edges and corners, a collective's root against the rest),
 * white where nothing was sent. As the papers topomap follows show their
 * matrices (Bordage and Jeannot's matrix figures; Bhatele et al.'s figure
 * of a permuted grid).
 *
 * The heat map is an image of exactly one pixel per screen pixel, painted
 * 1:1: every cell is cs x cs pixels, so a PNG has no blurred edges and the
 * tests can read a cell's colour at a known place. More ranks than pixels
 * are binned: a cell then sums k x k ranks, and the caption says so.
 * O(entries + bins^2). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

/* Bins per side at most, whatever the canvas: 2048^2 doubles = 32 MiB. */
#define MATRIX_MAX_BINS 2048

/* The position of each rank along the axes: rank order, or node by node
 * (a counting sort: nodes in index order, ranks ascending inside one).
 * first[] (nnodes + 1 entries, may be NULL) gets where each node starts. */
static int matrix_order(int n, const int *node, int nnodes, int *pos, int *first)
{
    if (!node) {
        for (int r = 0; r < n; r++)
            pos[r] = r;
        return 0;
    }
    for (int v = 0; v <= nnodes; v++)
        first[v] = 0;
    for (int r = 0; r < n; r++)
        first[node[r] + 1]++;
    for (int v = 0; v < nnodes; v++)
        first[v + 1] += first[v];
    int *next = malloc(sizeof(int) * (size_t)(nnodes > 0 ? nnodes : 1));
    if (!next)
        return -1;
    memcpy(next, first, sizeof(int) * (size_t)nnodes);
    for (int r = 0; r < n; r++)
        pos[r] = next[node[r]]++;
    free(next);
    return 0;
}

/* Labels along both axes: node names at their group's middle (grouped
 * order), else rank numbers at round steps. Every m-th label so that they
 * do not overlap. */
static void matrix_axes(struct plot *pl, double x0, double y0, double D, int n, double per_rank,
                        const int *first, int nnodes, const topomap_topology_t *t)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.8;
    char b[64];
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (first) {
        int used = 0;
        for (int v = 0; v < nnodes; v++)
            used += first[v + 1] > first[v];
        double room = D / (used ? used : 1);
        int every = (int)ceil(fs * 1.3 / room);
        for (int v = 0, k = 0; v < nnodes; v++) {
            if (first[v + 1] == first[v])
                continue;
            if (k++ % every)
                continue;
            const char *name = t ? topomap_topology_node_name(t, v) : NULL;
            if (!name) {
                snprintf(b, sizeof b, "%d", v);
                name = b;
            }
            double mid = (first[v] + first[v + 1]) / 2.0 * per_rank;
            plot_text(pl, x0 + mid, y0 + D + fs * 0.4, fs, 1, 0.5, pl->font * 5, -M_PI / 2, name);
            plot_text(pl, x0 - fs * 0.4, y0 + mid, fs, 1, 0.5, pl->font * 5, 0, name);
        }
        return;
    }
    /* Rank ticks: a round step giving at most about 8 labels. */
    int step = plot_round_step(n, 8);
    for (int r = 0; r < n; r += step) {
        double c = (r + 0.5) * per_rank;
        snprintf(b, sizeof b, "%d", r);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        cairo_set_line_width(cr, 0.8);
        cairo_move_to(cr, x0 + c, y0 + D);
        cairo_line_to(cr, x0 + c, y0 + D + fs * 0.3);
        cairo_move_to(cr, x0, y0 + c);
        cairo_line_to(cr, x0 - fs * 0.3, y0 + c);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(pl, x0 + c, y0 + D + fs * 0.45, fs, 0.5, 0, 0, 0, b);
        plot_text(pl, x0 - fs * 0.45, y0 + c, fs, 1, 0.5, 0, 0, b);
    }
}

/* The default title: the application when the profile names one. */
static void matrix_title(const topomap_profile_t *p, int grouped, char *buf, size_t len)
{
    const char *app = topomap_profile_meta(p, "application");
    snprintf(buf, len, "Communication matrix%s%s, %d ranks%s", app ? " of " : "", app ? app : "",
             topomap_profile_nranks(p), grouped ? ", grouped by node" : "");
}

/* The heat map: bin (nb x nb cells of k x k ranks, cs pixels each) drawn
 * into img, one pixel per pixel, then onto the page at (x0, y0). */
static void draw_cells(struct plot *pl, cairo_surface_t *img, const double *bin, int nb, int k,
                       int cs, double x0, double y0, double lo, double hi)
{
    int D = nb * cs;
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int py = 0; py < D; py++) {
        uint32_t *row = (uint32_t *)(data + (size_t)py * stride);
        const double *brow = bin + (size_t)(py / cs) * nb;
        for (int px = 0; px < D; px++) {
            double v = brow[px / cs];
            row[px] = v > 0 ? plot_heat(plot_logpos(v, lo, hi)) : 0xffffff;
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_t *cr = pl->cr;
    cairo_set_source_surface(cr, img, x0, y0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, x0, y0, D, D);
    cairo_fill(cr);
    cairo_surface_destroy(img);
    plot_item(pl, TOPOMAP_PLOT_ITEM_CELLS, nb, k, cs, x0, y0, D, D);
}

/* The lines between the nodes' ranks (first: each node's first position),
 * or, when they are closer than 3 pixels on average, a note saying so. */
static void node_boundaries(struct plot *pl, const int *first, int nnodes, int n, double x0,
                            double y0, int D, double per_rank, char *note, size_t notelen)
{
    cairo_t *cr = pl->cr;
    int nused = 0;
    for (int v = 0; v < nnodes; v++)
        nused += first[v + 1] > first[v];
    if (D / (double)nused >= 3) {
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_set_line_width(cr, 1);
        for (int v = 1; v < nnodes; v++) {
            if (first[v] == 0 || first[v] == n || first[v + 1] == first[v])
                continue;
            double q = floor(x0 + first[v] * per_rank) + 0.5;
            double qy = floor(y0 + first[v] * per_rank) + 0.5;
            cairo_move_to(cr, q, y0);
            cairo_line_to(cr, q, y0 + D);
            cairo_move_to(cr, x0, qy);
            cairo_line_to(cr, x0 + D, qy);
        }
        cairo_stroke(cr);
    } else {
        snprintf(note, notelen, "; the %d node boundaries are too dense to draw", nused);
    }
}

int topomap_plot_matrix(const char *path, const topomap_plot_opts_t *o,
                        const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                        char *err, size_t errlen)
{
    if (!p)
        return plot_fail(err, errlen, EINVAL, "no profile to draw");
    int n = topomap_profile_nranks(p);
    int nnodes = t ? topomap_topology_nnodes(t) : 0;
    if (node)
        for (int r = 0; r < n; r++) {
            if (!t && node[r] >= nnodes)
                nnodes = node[r] + 1;
            if (node[r] < 0 || node[r] >= nnodes)
                return plot_fail(err, errlen, EINVAL, "rank %d: node %d out of range", r, node[r]);
        }
    topomap_graph_t g;
    if (n < 1 || topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return plot_fail(err, errlen, EINVAL, "the profile has no ranks");

    /* Layout: title, the square heat map with the axis labels left of and
     * under it, the colour bar and the caption under them. */
    topomap_plot_opts_t oo;
    if (o)
        oo = *o;
    else
        topomap_plot_opts_init(&oo);
    double W = oo.width > 0 ? oo.width : 760;
    double font = plot_font_size(W, 0);
    double ml = font * (node ? 6.5 : 4.5), mr = font * 1.5;
    double bottom = font * (node ? 6 : 2.5) + font * 4.8 + font * 4.2;
    double H = oo.height > 0 ? oo.height : W - ml - mr + bottom + font * 3.2;
    struct plot pl;
    if (plot_open(&pl, path, &oo, W, H, err, errlen) < 0)
        return -1;
    char title[256];
    matrix_title(p, node != NULL, title, sizeof title);
    double top = plot_title(&pl, oo.title ? oo.title : title);
    double S = fmin(pl.w - ml - mr, pl.h - top - bottom);
    int spx = (int)floor(S);
    if (spx < 8) {
        plot_abort(&pl, EINVAL);
        return plot_fail(err, errlen, EINVAL, "picture too small for a %d-rank matrix", n);
    }
    int lim = spx < MATRIX_MAX_BINS ? spx : MATRIX_MAX_BINS;
    int k = n <= lim ? 1 : (n + lim - 1) / lim;
    int nb = (n + k - 1) / k, cs = spx / nb;
    int D = nb * cs;
    double x0 = floor(ml + (pl.w - ml - mr - D) / 2), y0 = ceil(top);

    int *pos = malloc(sizeof(int) * (size_t)n);
    int *first = node ? malloc(sizeof(int) * ((size_t)nnodes + 1)) : NULL;
    double *bin = calloc((size_t)nb * (size_t)nb, sizeof(double));
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, D, D);
    if (!pos || (node && !first) || !bin || cairo_surface_status(img) != CAIRO_STATUS_SUCCESS ||
        matrix_order(n, node, nnodes, pos, first) < 0) {
        free(pos);
        free(first);
        free(bin);
        cairo_surface_destroy(img);
        plot_abort(&pl, ENOMEM);
        return plot_fail(err, errlen, ENOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            bin[(size_t)(pos[i] / k) * nb + (size_t)(pos[g.adj[e]] / k)] += g.w[e];
    double lo = INFINITY, hi = 0;
    for (size_t c = 0; c < (size_t)nb * nb; c++)
        if (bin[c] > 0) {
            lo = fmin(lo, bin[c]);
            hi = fmax(hi, bin[c]);
        }

    draw_cells(&pl, img, bin, nb, k, cs, x0, y0, lo, hi);

    /* Node boundaries, when they are at least 3 pixels apart on average. */
    double per_rank = (double)cs / k;
    char note[160] = "";
    if (node)
        node_boundaries(&pl, first, nnodes, n, x0, y0, D, per_rank, note, sizeof note);
    cairo_t *cr = pl.cr;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x0 - 0.5, y0 - 0.5, D + 1, D + 1);
    cairo_stroke(cr);
    matrix_axes(&pl, x0, y0, D, n, per_rank, first, nnodes, t);

    /* Axis names, the colour bar, the caption. */
    double fs = pl.font * 0.85, ly = y0 + D + pl.font * (node ? 6 : 2.2);
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(&pl, x0 + D / 2.0, ly, fs, 0.5, 0, D, 0,
              node ? "receiver (ranks grouped by node)" : "receiver rank");
    plot_text(&pl, x0 - ml + pl.font * 0.2, y0 + D / 2.0, fs, 0.5, 0, D, -M_PI / 2,
              node ? "sender (ranks grouped by node)" : "sender rank");
    double cy = ly + fs * 1.8, cw = fmin(D, pl.font * 30);
    if (hi > 0) {
        cy += plot_colourbar(&pl, x0, cy, cw, pl.font * 1.1, lo, hi,
                             k > 1 ? "bytes sent per cell (log scale; white: none)"
                                   : "bytes sent, row to column (log scale; white: none)");
    } else {
        plot_text(&pl, x0, cy, fs, 0, 0, D, 0, "no traffic recorded");
        cy += fs * 2;
    }
    char cap[320], b[32];
    snprintf(cap, sizeof cap, "%d ranks, %zu entries, %s in all", n, topomap_profile_nedges(p),
             plot_bytes(topomap_profile_total_bytes(p), b, sizeof b));
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(&pl, x0, cy + fs * 0.3, fs, 0, 0, pl.w - x0 - pl.font, 0, cap);
    if (k > 1)
        snprintf(cap, sizeof cap, "binned: each cell sums %d x %d ranks (%d x %d cells)%s", k, k,
                 nb, nb, note);
    else
        snprintf(cap, sizeof cap, "%s%s",
                 node ? "ranks in node order, node boundaries drawn" : "ranks in recorded order",
                 note);
    plot_text(&pl, x0, cy + fs * 1.7, fs, 0, 0, pl.w - x0 - pl.font, 0, cap);
    free(pos);
    free(first);
    free(bin);
    return plot_close(&pl);
}
