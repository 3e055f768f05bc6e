/* SPDX-License-Identifier: BSD-3-Clause */
/* The load of every network channel as a heat map on the drawing of the
 * machine (topomap_plot_links()): each pair's bytes routed as the
 * congestion metric routes them (topomap_link_loads(), libtopomap/congestion.c),
 * every cable drawn as two strokes, one per direction, each right of its
 * direction of travel, coloured on one log scale for every placement shown.
 * Cables without traffic stay thin and grey. Channels between the z-slices
 * of a torus cannot be lines between slices: they are two small squares at
 * the bottom of the node they leave (left: towards z - 1, right: z + 1;
 * further dimensions one row of squares higher each). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

static int cable_cmp(const void *a, const void *b)
{
    const struct cable *x = a, *y = b;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return (x->b > y->b) - (x->b < y->b);
}

/* The cable joining elements e and f, NULL when it is not drawn. */
static const struct cable *find_cable(const struct machine *m, int e, int f)
{
    struct cable key = {e < f ? e : f, e < f ? f : e, 0, 0, 0, 0, 0, 0, 0};
    return bsearch(&key, m->cables, (size_t)m->ncables, sizeof key, cable_cmp);
}

/* The square of a channel between z-slices, in the node it leaves. */
static void zsquare(struct plot *pl, const struct machine *m, const struct view *v,
                    const struct cable *c, int from, double *box)
{
    /* zdir > 0: b is a's + neighbour along dimension zdir + 1. */
    int plus = (from == c->a) == (c->zdir > 0), row = abs(c->zdir) - 1;
    double q = 0.24 * v->s, x = v->ox + m->x[from] * v->s, y = v->oy + m->y[from] * v->s;
    box[0] = plus ? x + v->s - q - 0.06 * v->s : x + 0.06 * v->s;
    box[1] = y + v->s - q - 0.06 * v->s - row * (q + 0.04 * v->s);
    box[2] = box[3] = q;
    cairo_rectangle(pl->cr, box[0], box[1], q, q);
}

int topomap_plot_links(const char *path, const topomap_plot_opts_t *o,
                       const topomap_profile_t *p, const topomap_topology_t *t,
                       const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                       char *err, size_t errlen)
{
    struct scene sc;
    if (scene_begin(&sc, path, o, p, t, a, pl, npl, "Link loads", 2.8, err, errlen) < 0)
        return -1;
    struct plot *P = &sc.pl;
    cairo_t *cr = P->cr;
    topomap_link_load_t *links[2] = {NULL, NULL};
    size_t nl[2] = {0, 0};
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < npl; k++) {
        if (topomap_link_loads(p, t, pl[k].node, &links[k], &nl[k]) < 0) {
            int e = errno;
            free(links[0]);
            scene_end(&sc, -1);
            return plot_fail(err, errlen, e, "cannot route the traffic of placement %d: %s", k + 1,
                             strerror(e));
        }
        for (size_t i = 0; i < nl[k]; i++) {
            lo = fmin(lo, links[k][i].load);
            hi = fmax(hi, links[k][i].load);
        }
    }
    qsort(sc.m.cables, (size_t)sc.m.ncables, sizeof *sc.m.cables, cable_cmp);
    for (int k = 0; k < npl; k++) {
        const struct view *v = scene_panel(&sc, k, &pl[k]);
        machine_draw_nodes(P, &sc.m, v, &pl[k], sc.nranks, 1);
        double lw = fmax(1.2, fmin(7, v->s * 0.1)), outside = 0;
        size_t hidden = 0;
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
        for (size_t i = 0; i < nl[k]; i++) {
            const topomap_link_load_t *l = &links[k][i];
            const struct cable *c = find_cable(&sc.m, l->from, l->to);
            if (!c) {
                hidden++;
                outside = fmax(outside, l->load);
                continue;
            }
            plot_rgb(cr, plot_heat(0.08 + 0.92 * plot_logpos(l->load, lo, hi)));
            double mid[2] = {0, 0}, box[4];
            if (c->zdir) {
                zsquare(P, &sc.m, v, c, l->from, box);
                cairo_fill(cr);
                mid[0] = box[0] + box[2] / 2;
                mid[1] = box[1] + box[3] / 2;
            } else {
                cairo_set_line_width(cr, lw);
                machine_cable_path(P, &sc.m, v, c, l->from != c->a, lw * 0.6, mid);
                cairo_stroke(cr);
            }
            plot_item(P, TOPOMAP_PLOT_ITEM_LINK, l->from, l->to, l->load, mid[0] - lw / 2,
                      mid[1] - lw / 2, lw, lw);
        }
        char extra[200], b[32];
        int len = snprintf(extra, sizeof extra, "busiest link %s, %zu links loaded",
                           plot_bytes(sc.met[k].congestion_max, b, sizeof b), nl[k]);
        if (hidden)
            snprintf(extra + len, sizeof extra - (size_t)len, " (%zu outside the picture)", hidden);
        scene_caption(&sc, k, extra);
    }
    P->panel = 0;
    double cw = fmin(P->w - 2 * P->font, P->font * 34);
    if (hi > 0)
        plot_colourbar(P, P->font, sc.legend_y, cw, P->font * 1.1, lo, hi,
                       "bytes per link, each direction of a cable right of its travel (log "
                       "scale; grey: none)");
    else
        plot_text(P, P->font, sc.legend_y, P->font * 0.85, 0, 0, 0, 0,
                  "no traffic leaves a node: every link is idle");
    free(links[0]);
    free(links[1]);
    return scene_end(&sc, 0);
}
