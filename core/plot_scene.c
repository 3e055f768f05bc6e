/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame the mapping and link pictures share (struct scene): the
 * placements checked, the machine laid out (plot_machine.c), the canvas
 * sized to the layout's shape and opened with its title, one view per
 * placement side by side, the metrics of each placement for the captions. */
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
        return topomap_fail(err, errlen, EINVAL, "%s", !p ? "no profile to draw"
                                                    : !t ? "no topology to draw on"
                                                         : "one or two placements can be drawn");
    if (a && topomap_alloc_topology(a) != t)
        return topomap_fail(err, errlen, EINVAL, "the allocation is on another topology");
    int n = topomap_profile_nranks(p), nn = topomap_topology_nnodes(t),
        nc = topomap_topology_cores(t);
    for (int k = 0; k < npl; k++) {
        if (!pl[k].node)
            return topomap_fail(err, errlen, EINVAL, "placement %d has no nodes", k + 1);
        for (int r = 0; r < n; r++)
            if (pl[k].node[r] < 0 || pl[k].node[r] >= nn ||
                (pl[k].core && (pl[k].core[r] < 0 || pl[k].core[r] >= nc)))
                return topomap_fail(err, errlen, EINVAL, "placement %d: rank %d: %s out of range",
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
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    for (int k = 0; k < npl; k++)
        if (topomap_eval(p, t, pl[k].node, pl[k].core ? pl[k].core : zero, &sc->met[k]) < 0) {
            free(zero);
            return topomap_fail(err, errlen, errno, "cannot evaluate placement %d", k + 1);
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
    double font = plot_font_size(W, 0), gap = 2 * font;
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
    if (rc == 0 && sc->m.note[0]) {
        cairo_set_source_rgb(sc->pl.cr, 0.35, 0.35, 0.35);
        plot_text(&sc->pl, sc->pl.w - sc->pl.font, sc->pl.h - sc->pl.font * 0.4,
                  sc->pl.font * 0.75, 1, 1, sc->pl.w / 2, 0, sc->m.note);
    }
    machine_free(&sc->m);
    return rc == 0 ? plot_close(&sc->pl) : plot_abort(&sc->pl, errno ? errno : ENOMEM);
}
