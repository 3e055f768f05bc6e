/* SPDX-License-Identifier: BSD-3-Clause */
/* A placement drawn on the machine (topomap_plot_mapping()), as the mapping
 * papers draw theirs (Bhatele et al. figures 4-5: a grid coloured by where
 * the ranks went; the OHTMA paper's chip diagrams): every node box lists its
 * ranks, and the node pairs that exchange the most bytes are joined by a
 * line whose colour is their hop count and whose width is their bytes. Two
 * placements side by side share the layout, the hop colours and the line
 * scale, so that a good placement shows as short cool lines where block
 * shows long warm ones.
 *
 * The lines join nodes, not ranks: the bytes between two nodes are the sum
 * over their ranks (A[i][j] + A[j][i]), pairs inside one node cost no hop
 * and get no line. O(entries log entries) for the pairs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

struct npair {
    int u, v; /* u < v */
    double bytes;
    int hops;
};

static int by_nodes(const void *a, const void *b)
{
    const struct npair *x = a, *y = b;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int by_bytes_desc(const void *a, const void *b)
{
    const struct npair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return by_nodes(a, b); /* ties in a fixed order */
}

/* The k heaviest node pairs of placement node[] (at most k; fewer when
 * fewer pairs talk): *out, caller frees; -1 on no memory. */
static int heaviest_pairs(const topomap_profile_t *p, const topomap_topology_t *t,
                          const int *node, int k, struct npair **out, int *count)
{
    topomap_graph_t g;
    *out = NULL;
    *count = 0;
    if (k <= 0 || topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &g) < 0)
        return 0;
    size_t m = 0;
    for (int i = 0; i < g.n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            m += g.adj[e] > i && node[i] != node[g.adj[e]] && g.w[e] > 0;
    struct npair *pr = malloc(sizeof *pr * (m ? m : 1));
    if (!pr)
        return -1;
    size_t q = 0;
    for (int i = 0; i < g.n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            int j = g.adj[e], a = node[i], b = node[j];
            if (j <= i || a == b || !(g.w[e] > 0))
                continue;
            pr[q++] = (struct npair){a < b ? a : b, a < b ? b : a, g.w[e], 0};
        }
    qsort(pr, m, sizeof *pr, by_nodes);
    size_t u = 0;
    for (size_t i = 0; i < m; i++) {
        if (u && pr[u - 1].u == pr[i].u && pr[u - 1].v == pr[i].v)
            pr[u - 1].bytes += pr[i].bytes;
        else
            pr[u++] = pr[i];
    }
    qsort(pr, u, sizeof *pr, by_bytes_desc);
    *count = (int)(u < (size_t)k ? u : (size_t)k);
    for (int i = 0; i < *count; i++)
        pr[i].hops = topomap_topology_hops(t, pr[i].u, pr[i].v);
    *out = pr;
    return 0;
}

/* The hop colour legend: one swatch per hop class present up to hmax. */
static void hops_legend(struct plot *pl, double x, double y, int hmax, int npairs, int k)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.85, sw = fs * 2.2;
    char line[200];
    snprintf(line, sizeof line,
             "lines: the %d node pairs exchanging the most bytes (width: bytes), colour: hops", k);
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x, y, fs, 0, 0, pl->w - x - pl->font, 0, line);
    double lx = x, ly = y + fs * 1.9;
    int last = -1;
    for (int h = 1; h <= hmax; h++) {
        uint32_t c = plot_hops_colour(h, hmax);
        int h2 = h;
        while (h2 < hmax && plot_hops_colour(h2 + 1, hmax) == c)
            h2++;
        char lab[32];
        if (h2 > h)
            snprintf(lab, sizeof lab, "%d-%d hops", h, h2);
        else
            snprintf(lab, sizeof lab, "%d hop%s", h, h > 1 ? "s" : "");
        double tw = plot_text_width(pl, fs, lab);
        if (lx + sw + fs * 0.4 + tw > pl->w - pl->font) {
            lx = x;
            ly += fs * 1.5;
        }
        plot_rgb(cr, c);
        cairo_set_line_width(cr, fs * 0.45);
        cairo_move_to(cr, lx, ly);
        cairo_line_to(cr, lx + sw, ly);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(pl, lx + sw + fs * 0.4, ly, fs, 0, 0.5, 0, 0, lab);
        plot_item(pl, TOPOMAP_PLOT_ITEM_LEGEND, h, h2, 0, lx, ly - fs / 2, sw + tw, fs);
        lx += sw + tw + fs * 1.6;
        last = h2;
        h = h2;
    }
    if (last < 0 && npairs == 0) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        plot_text(pl, x, ly, fs, 0, 0.5, 0, 0, "(no traffic between nodes)");
    }
}

int topomap_plot_mapping(const char *path, const topomap_plot_opts_t *o,
                         const topomap_profile_t *p, const topomap_topology_t *t,
                         const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                         char *err, size_t errlen)
{
    struct scene sc;
    if (scene_begin(&sc, path, o, p, t, a, pl, npl, "Placement", 2.6, err, errlen) < 0)
        return -1;
    struct plot *P = &sc.pl;
    cairo_t *cr = P->cr;
    struct npair *pairs[2] = {NULL, NULL};
    int np[2] = {0, 0}, hmax = 1;
    double bmax = 0;
    for (int k = 0; k < npl; k++) {
        if (heaviest_pairs(p, t, pl[k].node, P->o.pairs, &pairs[k], &np[k]) < 0) {
            free(pairs[0]);
            scene_end(&sc, -1);
            return plot_fail(err, errlen, ENOMEM, "out of memory");
        }
        for (int i = 0; i < np[k]; i++) {
            hmax = pairs[k][i].hops > hmax ? pairs[k][i].hops : hmax;
            bmax = fmax(bmax, pairs[k][i].bytes);
        }
    }
    for (int k = 0; k < npl; k++) {
        const struct view *v = scene_panel(&sc, k, &pl[k]);
        /* Lightest first, so that the heaviest lie on top. */
        double wmax = fmax(2, fmin(9, v->s * 0.16));
        for (int i = np[k] - 1; i >= 0; i--) {
            const struct npair *q = &pairs[k][i];
            const struct machine *m = &sc.m;
            double x0 = v->ox + (m->x[q->u] + 0.5) * v->s,
                   y0 = v->oy + (m->y[q->u] + m->h[q->u] / 2) * v->s;
            double x1 = v->ox + (m->x[q->v] + 0.5) * v->s,
                   y1 = v->oy + (m->y[q->v] + m->h[q->v] / 2) * v->s;
            plot_rgba(cr, plot_hops_colour(q->hops, hmax), 0.85);
            cairo_set_line_width(cr, 1.2 + (wmax - 1.2) * sqrt(q->bytes / bmax));
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
            cairo_move_to(cr, x0, y0);
            cairo_line_to(cr, x1, y1);
            cairo_stroke(cr);
            plot_item(P, TOPOMAP_PLOT_ITEM_PAIR, q->u, q->v, q->bytes, fmin(x0, x1), fmin(y0, y1),
                      fabs(x1 - x0), fabs(y1 - y0));
        }
        machine_draw_nodes(P, &sc.m, v, &pl[k], sc.nranks, 1);
        char extra[200], b1[32], b2[32];
        snprintf(extra, sizeof extra, "%s of %s between nodes; busiest link %s",
                 plot_bytes(sc.met[k].internode_bytes, b1, sizeof b1),
                 plot_bytes(sc.met[k].total_bytes, b2, sizeof b2),
                 plot_si(sc.met[k].congestion_max, "B", (char[32]){0}, 32));
        scene_caption(&sc, k, extra);
    }
    P->panel = 0;
    int most = np[0] > np[npl - 1] ? np[0] : np[npl - 1];
    hops_legend(P, P->font, sc.legend_y, hmax, most, most);
    free(pairs[0]);
    free(pairs[1]);
    return scene_end(&sc, 0);
}
