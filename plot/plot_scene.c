/* SPDX-License-Identifier: BSD-3-Clause */
/* What the mapping and link pictures share: the drawing of the machine laid
 * out by plot_machine.c (frames, switches, cables, node boxes with their
 * ranks), and the frame of the picture (struct scene): the placements
 * checked, the canvas sized to the layout's shape and opened with its
 * title, one view per placement side by side, the metrics of each placement
 * for the captions. The node boxes and their labels: plot_nodes.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"


static int check_placements(const topomap_profile_t *p, const topomap_topology_t *t,
                            const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                            char *err, size_t errlen)
{
    if (!p || !t || !pl || npl < 1 || npl > 2)
        return plot_fail(err, errlen, EINVAL, "%s", !p ? "no profile to draw"
                                                    : !t ? "no topology to draw on"
                                                         : "one or two placements can be drawn");
    if (a && topomap_alloc_topology(a) != t)
        return plot_fail(err, errlen, EINVAL, "the allocation is on another topology");
    int n = topomap_profile_nranks(p), nn = topomap_topology_nnodes(t);
    for (int k = 0; k < npl; k++) {
        if (!pl[k].node)
            return plot_fail(err, errlen, EINVAL, "placement %d has no nodes", k + 1);
        for (int r = 0; r < n; r++)
            if (pl[k].node[r] < 0 || pl[k].node[r] >= nn ||
                (pl[k].core && (pl[k].core[r] < 0 ||
                                pl[k].core[r] >= topomap_topology_node_cores(t, pl[k].node[r]))))
                return plot_fail(err, errlen, EINVAL, "placement %d: rank %d: %s out of range",
                                 k + 1, r, pl[k].node[r] < 0 || pl[k].node[r] >= nn ? "node" : "core");
    }
    return 0;
}

int scene_begin(struct scene *sc, const char *path, const topomap_plot_opts_t *o,
                const topomap_profile_t *p, const topomap_topology_t *t, const topomap_alloc_t *a,
                const topomap_plot_placement_t *pl, int npl, const char *what,
                double legend_lines, char *err, size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    if (check_placements(p, t, a, pl, npl, err, errlen) < 0)
        return -1;
    int n = topomap_profile_nranks(p);
    sc->npl = npl;
    sc->nranks = n;
    for (int k = 0; k < npl; k++)
        sc->label[k] = pl[k].label ? pl[k].label : npl > 1 ? (k ? "right" : "left") : "mapping";
    int *zero = calloc((size_t)n + 1, sizeof(int));
    if (!zero)
        return plot_fail(err, errlen, ENOMEM, "out of memory");
    for (int k = 0; k < npl; k++)
        if (topomap_metrics_init(&sc->met[k]) < 0 ||
            topomap_eval(p, t, pl[k].node, pl[k].core ? pl[k].core : zero, &sc->met[k]) < 0) {
            free(zero);
            return plot_fail(err, errlen, errno, "cannot evaluate placement %d", k + 1);
        }
    free(zero);

    topomap_plot_opts_t oo;
    if (o)
        oo = *o;
    else
        topomap_plot_opts_init(&oo);
    /* The canvas: the width asked for (default 1000 per placement, less
     * when two), the height from the layout's shape. */
    double W = oo.width > 0 ? oo.width : npl == 1 ? 1000 : 1500;
    double font = plot_font_size(W, 0), gap = 4 * font;
    double pw = (W - 2 * font - gap * (npl - 1)) / npl;
    if (machine_layout(&sc->m, t, a, pl, npl, n, oo.whole, 1.4, err, errlen) < 0)
        return -1;
    double s = fmin(pw / sc->m.W, font * 12);
    double legend_h = legend_lines * font * 1.4 + font;
    double H = oo.height > 0 ? oo.height : ceil(font * 2.6 + sc->m.H * s + font * 3.6 + legend_h);
    if (H > 16384)
        H = 16384;
    if (H < 200 && oo.height <= 0)
        H = 200;
    if (plot_open(&sc->pl, path, &oo, W, H, err, errlen) < 0) {
        machine_free(&sc->m);
        return -1;
    }
    char title[320];
    const char *app = topomap_profile_meta(p, "application");
    if (npl == 2)
        snprintf(title, sizeof title, "%s%s%s: %s against %s", what, app ? " of " : "",
                 app ? app : "", sc->label[0], sc->label[1]);
    else
        snprintf(title, sizeof title, "%s%s%s, %d ranks on a %s network", what, app ? " of " : "",
                 app ? app : "", n, topomap_topology_kind(t));
    double top = plot_title(&sc->pl, oo.title ? oo.title : title);
    legend_h = legend_lines * sc->pl.font * 1.4 + sc->pl.font;
    machine_views(&sc->pl, &sc->m, npl, top, legend_h, sc->v, &sc->cap_y);
    machine_fit_names(&sc->pl, &sc->m, &sc->v[0]);
    sc->legend_y = sc->cap_y + sc->pl.font * 2.9;
    return 0;
}

void scene_caption(struct scene *sc, int k, const char *extra)
{
    struct plot *pl = &sc->pl;
    double pw = (pl->w - 2 * pl->font - 2 * pl->font * (sc->npl - 1)) / sc->npl;
    double x = pl->font + k * (pw + 2 * pl->font), fs = pl->font * 0.9;
    char line[256], b[32];
    plot_si(sc->met[k].hop_bytes, "", b, sizeof b);
    if (k > 0 && sc->met[0].hop_bytes > 0)
        snprintf(line, sizeof line, "%s: hop-bytes %s = %.2f x %s", sc->label[k], b,
                 sc->met[k].hop_bytes / sc->met[0].hop_bytes, sc->label[0]);
    else
        snprintf(line, sizeof line, "%s: hop-bytes %s", sc->label[k], b);
    cairo_set_source_rgb(pl->cr, 0, 0, 0);
    plot_text(pl, x + pw / 2, sc->cap_y, fs * 1.05, 0.5, 0, pw, 0, line);
    cairo_set_source_rgb(pl->cr, 0.25, 0.25, 0.25);
    plot_text(pl, x + pw / 2, sc->cap_y + fs * 1.45, fs, 0.5, 0, pw, 0, extra);
}

const struct view *scene_panel(struct scene *sc, int k, const topomap_plot_placement_t *pl)
{
    sc->pl.panel = k;
    machine_draw_frames(&sc->pl, &sc->m, &sc->v[k]);
    machine_draw_cables(&sc->pl, &sc->m, &sc->v[k]);
    machine_draw_nodes(&sc->pl, &sc->m, &sc->v[k], pl, sc->nranks, 0);
    return &sc->v[k];
}

int scene_end(struct scene *sc, int rc)
{
    if (sc->m.counted & 1)
        machine_note(&sc->m, "(n): n ranks on the node");
    if (sc->m.counted & 2)
        machine_note(&sc->m, "ranks left out in the smallest nodes");
    if (rc == 0 && sc->m.note[0]) {
        cairo_set_source_rgb(sc->pl.cr, 0.35, 0.35, 0.35);
        plot_text(&sc->pl, sc->pl.w - sc->pl.font, sc->pl.h - sc->pl.font * 0.4,
                  sc->pl.font * 0.75, 1, 1, sc->pl.w - 2 * sc->pl.font, 0, sc->m.note);
    }
    machine_free(&sc->m);
    return rc == 0 ? plot_close(&sc->pl) : plot_abort(&sc->pl, errno ? errno : ENOMEM);
}

/* ---- drawing ------------------------------------------------------------ */

void machine_views(struct plot *pl, const struct machine *m, int npl, double top,
                   double legend_h, struct view *v, double *cap_y)
{
    double margin = pl->font, gap = pl->font * 4; /* panels apart */
    double pw = (pl->w - 2 * margin - gap * (npl - 1)) / npl;
    double ph = pl->h - top - legend_h - pl->font * 3.6;
    double s = fmin(pw / m->W, ph / m->H);
    s = fmin(s, pl->font * 12); /* node boxes of at most 12 text lines */
    for (int k = 0; k < npl; k++) {
        v[k].s = s;
        v[k].ox = margin + k * (pw + gap) + (pw - m->W * s) / 2;
        v[k].oy = top;
    }
    *cap_y = top + m->H * s + pl->font * 0.5;
}

void machine_draw_frames(struct plot *pl, const struct machine *m, const struct view *v)
{
    cairo_t *cr = pl->cr;
    double fs = fmin(pl->font * 0.8, v->s * FRAME_LABEL * 0.75);
    for (int i = 0; i < m->nframes; i++) {
        const struct frame *f = &m->frames[i];
        double x = v->ox + f->x * v->s, y = v->oy + f->y * v->s;
        cairo_rectangle(cr, x, y, f->w * v->s, f->h * v->s);
        cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        plot_text(pl, x + FRAME_PAD * v->s * 0.5, y + FRAME_LABEL * v->s * 0.15, fs, 0, 0,
                  f->w * v->s, 0, f->label);
    }
    /* Switches: grey bars. */
    for (int e = m->nnodes; e < m->nelem; e++) {
        if (m->w[e] <= 0)
            continue;
        double x = v->ox + m->x[e] * v->s, y = v->oy + m->y[e] * v->s;
        cairo_rectangle(cr, x, y, m->w[e] * v->s, m->h[e] * v->s);
        cairo_set_source_rgb(cr, 0.55, 0.55, 0.6);
        cairo_fill(cr);
        plot_item(pl, TOPOMAP_PLOT_ITEM_SWITCH, e, 0, 0, x, y, m->w[e] * v->s, m->h[e] * v->s);
        if (m->kind == 'h') {
            cairo_set_source_rgb(cr, 1, 1, 1);
            plot_text(pl, x + m->w[e] * v->s / 2, y + m->h[e] * v->s / 2,
                      fmin(pl->font * 0.7, m->h[e] * v->s * 0.8), 0.5, 0.5, m->w[e] * v->s, 0,
                      (e - m->nnodes) % 2 ? "right" : "left");
        }
    }
}

void machine_cable_path(struct plot *pl, const struct machine *m, const struct view *v,
                        const struct cable *c, int dir, double off, double *mid)
{
    cairo_t *cr = pl->cr;
    double x0 = v->ox + c->x0 * v->s, y0 = v->oy + c->y0 * v->s;
    double x1 = v->ox + c->x1 * v->s, y1 = v->oy + c->y1 * v->s;
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len <= 0)
        return;
    /* Left-hand normal of a -> b (y down): (dy, -dx). Direction b -> a is
     * drawn right of its own travel, i.e. left of a -> b: -off. */
    double nx = dy / len, ny = -dx / len, o = dir ? off : -off;
    if (c->wrap) {
        /* Two stubs leaving the edge, away from the other end. */
        double stub = 0.55 * v->s, ux = dx / len, uy = dy / len;
        double ax = x0 + nx * o, ay = y0 + ny * o, bx = x1 + nx * o, by = y1 + ny * o;
        cairo_move_to(cr, ax - ux * 0.5 * v->s, ay - uy * 0.5 * v->s);
        cairo_line_to(cr, ax - ux * (0.5 * v->s + stub), ay - uy * (0.5 * v->s + stub));
        if (mid) {
            mid[0] = ax - ux * (0.5 * v->s + stub / 2);
            mid[1] = ay - uy * (0.5 * v->s + stub / 2);
        }
        cairo_move_to(cr, bx + ux * 0.5 * v->s, by + uy * 0.5 * v->s);
        cairo_line_to(cr, bx + ux * (0.5 * v->s + stub), by + uy * (0.5 * v->s + stub));
        return;
    }
    double bulge = c->bulge * v->s;
    x0 += nx * o;
    y0 += ny * o;
    x1 += nx * o;
    y1 += ny * o;
    /* Between node boxes on a torus: from edge to edge, not centre to centre. */
    double trim = m->kind == 't' ? 0.5 * v->s : 0;
    x0 += dx / len * trim;
    y0 += dy / len * trim;
    x1 -= dx / len * trim;
    y1 -= dy / len * trim;
    if (mid) { /* the middle of the stroke: of the quadratic arc too */
        mid[0] = (x0 + x1) / 2 + nx * bulge;
        mid[1] = (y0 + y1) / 2 + ny * bulge;
    }
    cairo_move_to(cr, x0, y0);
    if (bulge == 0) {
        cairo_line_to(cr, x1, y1);
        return;
    }
    /* A quadratic arc through the midpoint moved by bulge, as a cubic. */
    double mx = (x0 + x1) / 2 + nx * bulge * 2, my = (y0 + y1) / 2 + ny * bulge * 2;
    cairo_curve_to(cr, x0 + (mx - x0) * 2 / 3, y0 + (my - y0) * 2 / 3, x1 + (mx - x1) * 2 / 3,
                   y1 + (my - y1) * 2 / 3, x1, y1);
}

void machine_draw_cables(struct plot *pl, const struct machine *m, const struct view *v)
{
    cairo_t *cr = pl->cr;
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_set_line_width(cr, fmax(0.6, fmin(2, v->s * 0.06)));
    for (int i = 0; i < m->ncables; i++)
        if (!m->cables[i].zdir) {
            machine_cable_path(pl, m, v, &m->cables[i], 0, 0, NULL);
            cairo_stroke(cr);
        }
}
