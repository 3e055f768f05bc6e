/* SPDX-License-Identifier: BSD-3-Clause */
/* The many-core set's time-quality curves (topomap_plot_curves()), drawn
 * from the section topomap-bench writes for it (bench_manycore.c): for each
 * case, `auto`'s hop-bytes relative to block's at each time limit, and
 * Scotch's (no limit) at the seconds it took.
 *
 * One panel per machine, two columns; in a panel one colour per profile
 * (the same profile keeps its colour in every panel), auto's points joined
 * by a line at the time limits (filled circles), Scotch as a hollow square
 * at its time. Both axes are logarithmic: the limits run from a quarter of
 * a second to seconds and Scotch's times to minutes; the ratios spread over
 * more than a factor of ten (a randomly numbered profile goes to a tenth of
 * block's, a curve-numbered one to a half). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define MAXLIM 8
#define MAXCASES 256
#define MAXNAMES 32

struct curve {
    char profile[48], machine[40];
    int nodes;
    double rel[MAXLIM];   /* auto / block at each limit (NAN: none) */
    double srel, ssecs;   /* Scotch / block and its seconds (NAN: none) */
};

struct curves {
    double limit[MAXLIM];
    int nlim, n;
    struct curve c[MAXCASES];
    const char *machine[MAXNAMES], *profile[MAXNAMES];
    int nmachine, nprofile;
};

static int find_name(const char *const *names, int n, const char *s)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], s))
            return k;
    return -1;
}

/* The index of s in names, added at the end when new; -1 when full. */
static int name_index(const char **names, int *n, const char *s)
{
    int k = find_name(names, *n, s);
    if (k >= 0 || *n == MAXNAMES)
        return k;
    names[*n] = s;
    return (*n)++;
}

/* A case line: profile, machine (one or more words), nodes, then per limit
 * "ratio wall/cpu", then Scotch's "ratio seconds" (or a note without
 * Scotch). Parsed from both ends, since the machine's name has a space. */
static int parse_case(char *line, int nlim, struct curve *C)
{
    char *tok[64];
    int nt = 0;
    for (char *s = strtok(line, " \t\n"); s && nt < 64; s = strtok(NULL, " \t\n"))
        tok[nt++] = s;
    int noscotch = nt > 0 && !strcmp(tok[nt - 1], "build)");
    if (noscotch) /* " (no Scotch in this build)": 5 words */
        nt -= 5;
    int tail = 2 * nlim + (noscotch ? 0 : 2);
    if (nt < 3 + tail)
        return -1;
    int first = nt - tail; /* the first limit's ratio */
    char *end;
    long nodes = strtol(tok[first - 1], &end, 10);
    if (*end || nodes <= 0)
        return -1;
    memset(C, 0, sizeof *C);
    snprintf(C->profile, sizeof C->profile, "%s", tok[0]);
    size_t len = 0;
    for (int k = 1; k < first - 1; k++)
        len += (size_t)snprintf(C->machine + len, len < sizeof C->machine ? sizeof C->machine - len : 0,
                                "%s%s", k > 1 ? " " : "", tok[k]);
    if (!C->machine[0])
        return -1;
    C->nodes = (int)nodes;
    for (int k = 0; k < nlim; k++) {
        C->rel[k] = strtod(tok[first + 2 * k], &end);
        if (*end || !strchr(tok[first + 2 * k + 1], '/'))
            return -1;
    }
    C->srel = C->ssecs = NAN;
    if (!noscotch) {
        C->srel = strtod(tok[nt - 2], &end);
        if (*end)
            return -1;
        C->ssecs = strtod(tok[nt - 1], &end);
        if (*end)
            return -1;
    }
    return 0;
}

/* The section: after "# manycore set", the head "# profile machine nodes
 * auto@L ... scotch s" gives the limits; case lines follow until a line
 * starting "##" or a comment that is not part of it. */
static int read_curves(const char *path, struct curves *S, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return plot_fail(err, errlen, errno, "cannot read '%s': %s", path, strerror(errno));
    char line[1024];
    int state = 0, lineno = 0, headline = 0; /* 0 before, 1 after the title, 2 in the cases */
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (state == 0) {
            state = !strncmp(line, "# manycore set", 14);
            continue;
        }
        if (state == 1) {
            if (strncmp(line, "# profile", 9))
                continue;
            headline = lineno;
            for (char *s = strstr(line, "auto@"); s && S->nlim < MAXLIM; s = strstr(s + 5, "auto@"))
                S->limit[S->nlim++] = strtod(s + 5, NULL);
            state = 2;
            continue;
        }
        if (!strncmp(line, "##", 2))
            break;
        if (line[0] == '#' || line[0] == '\n' || S->n == MAXCASES)
            continue;
        struct curve *C = &S->c[S->n];
        if (parse_case(line, S->nlim, C) < 0) {
            fclose(f);
            return plot_fail(err, errlen, EINVAL, "%s:%d: not a line of the many-core set",
                             path, lineno);
        }
        S->n++;
    }
    fclose(f);
    if (state == 0)
        return plot_fail(err, errlen, EINVAL,
                         "%s: no many-core set (a section '# manycore set'; run topomap-bench "
                         "-s manycore)", path);
    if (state == 1 || S->nlim < 1)
        return plot_fail(err, errlen, EINVAL, "%s:%d: the many-core set has no head with its "
                         "time limits (auto@SECONDS)", path, headline ? headline : lineno);
    if (S->n == 0)
        return plot_fail(err, errlen, EINVAL, "%s:%d: the many-core set has no case lines", path,
                         headline);
    for (int i = 0; i < S->n; i++)
        if (name_index(S->machine, &S->nmachine, S->c[i].machine) < 0 ||
            name_index(S->profile, &S->nprofile, S->c[i].profile) < 0)
            return plot_fail(err, errlen, EINVAL, "%s: more than %d machines or profiles", path,
                             MAXNAMES);
    return 0;
}

/* The ranges of both axes over every value drawn, in log10 and padded to
 * whole decades (x) and to a 1, 2, 5 step below and 1 above (y). */
struct axes {
    double x0, x1, y0, y1;
};

static void axes_of(const struct curves *S, struct axes *A)
{
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (int k = 0; k < S->nlim; k++)
        if (S->limit[k] > 0)
            xlo = fmin(xlo, S->limit[k]), xhi = fmax(xhi, S->limit[k]);
    for (int i = 0; i < S->n; i++) {
        const struct curve *C = &S->c[i];
        for (int k = 0; k < S->nlim; k++)
            if (C->rel[k] > 0)
                ylo = fmin(ylo, C->rel[k]), yhi = fmax(yhi, C->rel[k]);
        if (C->srel > 0 && C->ssecs > 0) {
            ylo = fmin(ylo, C->srel), yhi = fmax(yhi, C->srel);
            xlo = fmin(xlo, C->ssecs), xhi = fmax(xhi, C->ssecs);
        }
    }
    A->x0 = floor(log10(xlo > 0 && isfinite(xlo) ? xlo : 0.1));
    A->x1 = fmax(ceil(log10(xhi > 0 ? xhi : 1)), A->x0 + 1);
    /* y from the 1-2-5 step at or below the lowest ratio */
    double e = floor(log10(ylo > 0 && isfinite(ylo) ? ylo : 0.1)), m = pow(10, e);
    A->y0 = log10(ylo >= 5 * m ? 5 * m : ylo >= 2 * m ? 2 * m : m);
    A->y1 = fmax(0, ceil(log10(yhi > 0 ? yhi : 1)));
    if (A->y1 <= A->y0)
        A->y1 = A->y0 + 1;
}

/* The legend: a swatch per profile, then the two marks. Height used. */
static double draw_legend(struct plot *pl, double y, const struct curves *S, int draw)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.9, x0 = pl->font * 4, sw = fs * 1.2, lx = x0, ly = y;
    for (int k = 0; k < S->nprofile + 2; k++) {
        const char *label = k < S->nprofile ? S->profile[k]
                            : k == S->nprofile ? "auto at each time limit"
                                               : "Scotch (no limit) at its time";
        double w = sw + fs * 0.4 + plot_text_width(pl, fs, label) + fs * 1.4;
        if (lx > x0 && lx + w > pl->w - pl->font) {
            lx = x0;
            ly += fs * 1.6;
        }
        if (draw) {
            double cx = lx + sw / 2, cy = ly + sw / 2;
            if (k < S->nprofile) {
                plot_rgb(cr, plot_series_colour(k, NULL));
                cairo_rectangle(cr, lx, ly, sw, sw);
                cairo_fill(cr);
            } else {
                cairo_set_source_rgb(cr, 0, 0, 0);
                cairo_set_line_width(cr, 1.5);
                if (k == S->nprofile) {
                    cairo_arc(cr, cx, cy, sw * 0.3, 0, 2 * M_PI);
                    cairo_fill(cr);
                } else {
                    cairo_rectangle(cr, cx - sw * 0.3, cy - sw * 0.3, sw * 0.6, sw * 0.6);
                    cairo_stroke(cr);
                }
            }
            cairo_set_source_rgb(cr, 0, 0, 0);
            plot_text(pl, lx + sw + fs * 0.4, cy, fs, 0, 0.5, 0, 0, label);
            plot_item(pl, TOPOMAP_PLOT_ITEM_LEGEND, k, 0, 0, lx, ly, w - fs * 1.4, sw);
        }
        lx += w;
    }
    return ly - y + fs * 2.2;
}

/* The grid and the labels of a panel's axes in the box (x, y, w, h). */
static void draw_grid(struct plot *pl, const struct axes *A, double x, double y, double w,
                      double h)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.75;
    char lab[32];
    static const double steps[] = {1, 2, 5};
    cairo_set_line_width(cr, 1);
    for (double e = floor(A->y0 + 1e-9); e <= A->y1; e++)
        for (int s = 0; s < 3; s++) {
            double v = steps[s] * pow(10, e), ly = log10(v);
            if (ly > A->y1 + 1e-9)
                break;
            if (ly < A->y0 - 1e-9)
                continue;
            double gy = y + h - (ly - A->y0) / (A->y1 - A->y0) * h;
            snprintf(lab, sizeof lab, "%g", v);
            plot_hgrid(pl, x, w, gy, fs, fabs(v - 1) < 1e-9, lab);
        }
    for (double e = A->x0; e <= A->x1; e++) {
        double gx = x + (e - A->x0) / (A->x1 - A->x0) * w;
        cairo_set_source_rgb(cr, 0.87, 0.87, 0.87);
        cairo_move_to(cr, gx, y);
        cairo_line_to(cr, gx, y + h);
        cairo_stroke(cr);
        snprintf(lab, sizeof lab, "%g s", pow(10, e));
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(pl, gx, y + h + fs * 0.4, fs, 0.5, 0, 0, 0, lab);
    }
    cairo_rectangle(cr, x, y, w, h);
    cairo_stroke(cr);
}

/* One machine's panel: its cases' curves and Scotch's marks. */
static void draw_panel(struct plot *pl, const struct curves *S, const struct axes *A, int m,
                       double x, double y, double w, double h)
{
    cairo_t *cr = pl->cr;
    char title[96];
    int nodes = 0;
    for (int i = 0; i < S->n; i++)
        if (!strcmp(S->c[i].machine, S->machine[m]))
            nodes = S->c[i].nodes > nodes ? S->c[i].nodes : nodes;
    snprintf(title, sizeof title, "%s (up to %d nodes)", S->machine[m], nodes);
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x, y, pl->font * 0.9, 0, 0, w, 0, title);
    y += pl->font * 1.5;
    h -= pl->font * 1.5 + pl->font * 1.4;
    draw_grid(pl, A, x, y, w, h);
#define PX(v) (x + (log10(v) - A->x0) / (A->x1 - A->x0) * w)
#define PY(v) (y + h - (log10(v) - A->y0) / (A->y1 - A->y0) * h)
    double r = pl->font * 0.28;
    for (int i = 0; i < S->n; i++) {
        const struct curve *C = &S->c[i];
        if (strcmp(C->machine, S->machine[m]))
            continue;
        int pk = find_name(S->profile, S->nprofile, C->profile);
        plot_rgb(cr, plot_series_colour(pk, NULL));
        cairo_set_line_width(cr, 1.6);
        int drawn = 0;
        for (int k = 0; k < S->nlim; k++) {
            if (!(C->rel[k] > 0) || !(S->limit[k] > 0))
                continue;
            if (drawn++)
                cairo_line_to(cr, PX(S->limit[k]), PY(C->rel[k]));
            else
                cairo_move_to(cr, PX(S->limit[k]), PY(C->rel[k]));
        }
        cairo_stroke(cr);
        for (int k = 0; k < S->nlim; k++) {
            if (!(C->rel[k] > 0) || !(S->limit[k] > 0))
                continue;
            double px = PX(S->limit[k]), py = PY(C->rel[k]);
            cairo_arc(cr, px, py, r, 0, 2 * M_PI);
            cairo_fill(cr);
            plot_item(pl, TOPOMAP_PLOT_ITEM_POINT, i, k, C->rel[k], px - r, py - r, 2 * r, 2 * r);
        }
        if (C->srel > 0 && C->ssecs > 0) {
            double px = PX(C->ssecs), py = PY(C->srel);
            cairo_rectangle(cr, px - r, py - r, 2 * r, 2 * r);
            cairo_stroke(cr);
            plot_item(pl, TOPOMAP_PLOT_ITEM_POINT, i, S->nlim, C->srel, px - r, py - r, 2 * r,
                      2 * r);
        }
    }
#undef PX
#undef PY
}

int topomap_plot_curves(const char *path, const topomap_plot_opts_t *o, const char *table,
                        char *err, size_t errlen)
{
    if (!table)
        return plot_fail(err, errlen, EINVAL, "no benchmark table to draw");
    struct curves *S = calloc(1, sizeof *S);
    if (!S)
        return plot_fail(err, errlen, ENOMEM, "out of memory");
    int rc = -1;
    if (read_curves(table, S, err, errlen) < 0)
        goto out;
    topomap_plot_opts_t oo;
    if (o)
        oo = *o;
    else
        topomap_plot_opts_init(&oo);
    int rows = (S->nmachine + 1) / 2;
    double W = oo.width > 0 ? oo.width : 1200, font = plot_font_size(W, 0);
    double H = oo.height > 0 ? oo.height : font * 9 + rows * font * 20;
    struct plot pl;
    if (plot_open(&pl, path, &oo, W, H, err, errlen) < 0)
        goto out;
    double y = plot_title(&pl, oo.title ? oo.title
                                        : "topomap benchmark, many-core set: hop-bytes / block's "
                                          "against time (lower is better)");
    double lh = draw_legend(&pl, y, S, 0);
    draw_legend(&pl, y, S, 1);
    y += lh;
    struct axes A;
    axes_of(S, &A);
    double left = pl.font * 4.5, gap = pl.font * 4, pw = (pl.w - left - gap - pl.font) / 2;
    double ph = (pl.h - y - pl.font) / rows;
    cairo_set_source_rgb(pl.cr, 0, 0, 0);
    plot_text(&pl, pl.font * 1.2, y + (pl.h - y) / 2, pl.font * 0.8, 0.5, 0.5, pl.h - y,
              -M_PI / 2, "hop-bytes / block's (log)");
    for (int m = 0; m < S->nmachine; m++) {
        pl.panel = m;
        draw_panel(&pl, S, &A, m, left + (m % 2) * (pw + gap), y + (m / 2) * ph, pw,
                   ph - pl.font * 0.8);
    }
    rc = plot_close(&pl);
out:
    free(S);
    return rc;
}
