/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmark's picture (topomap_plot_bench()), drawn from the case table
 * topomap-bench writes (PREFIX.txt; the saved contrib/bench-reference.txt
 * too, whose older table has fewer columns): hop-bytes relative to a
 * reference algorithm as grouped bars, geometric mean over the profiles of
 * each topology and allocation, then per profile on one topology, then the
 * median mapping time against the number of ranks (log-log).
 *
 * Ratios are recomputed from the hop-bytes column (hop-bytes / the
 * reference's on the same case), so either reference works with either
 * table. Bars start at 1 on a logarithmic axis (up: worse than the
 * reference, down: better) when the ratios of a panel spread over more than
 * a factor of 4, else at 0 on a linear one. The legend sits inside the
 * picture above the panels, wrapping into as many rows as it needs. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define MAXSERIES 32
#define MAXGROUPS 64

struct row {
    char profile[48], topo[40], alloc[16], algo[24];
    int n, scaling;
    double hb, secs;
};

struct table {
    struct row *r;
    size_t n;
    const char *algo[MAXSERIES]; /* in first-seen order, pointers into r */
    int nalgo;
};

static int algo_index(const struct table *T, const char *name)
{
    for (int k = 0; k < T->nalgo; k++)
        if (!strcmp(T->algo[k], name))
            return k;
    return -1;
}

/* Read the case table: the lines after the "profile ranks topology ..."
 * head; lines after a "# scaling" comment are the scaling runs. */
static int read_table(const char *path, struct table *T, char *err, size_t errlen)
{
    memset(T, 0, sizeof *T);
    FILE *f = fopen(path, "r");
    if (!f)
        return plot_fail(err, errlen, errno, "cannot read '%s': %s", path, strerror(errno));
    char line[1024];
    int head = 0, wide = 0, scaling = 0, lineno = 0, headline = 0;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!head) {
            if (!strncmp(line, "profile ", 8) && strstr(line, "algorithm") &&
                strstr(line, "hop-bytes")) {
                head = 1;
                headline = lineno;
                wide = strstr(line, "max link") != NULL;
            }
            continue;
        }
        if (!strncmp(line, "# scaling", 9))
            scaling = 1;
        if (!strncmp(line, "##", 2) || !strncmp(line, "# Aspect", 8))
            break;
        if (line[0] == '#' || isspace((unsigned char)line[0]))
            continue;
        struct row R = {0};
        char hb[32], rel[32], srel[32], cong[32], crel[32], secs[32];
        int got = wide ? sscanf(line, "%47s %d %39s %15s %23s %31s %31s %31s %31s %31s %31s",
                                R.profile, &R.n, R.topo, R.alloc, R.algo, hb, rel, srel, cong,
                                crel, secs)
                       : sscanf(line, "%47s %d %39s %15s %23s %31s %31s %31s", R.profile, &R.n,
                                R.topo, R.alloc, R.algo, hb, rel, secs);
        if (got != (wide ? 11 : 8))
            continue; /* not a case line */
        R.hb = strtod(hb, NULL);
        R.secs = strtod(secs, NULL);
        R.scaling = scaling;
        if (T->n == cap) {
            cap = cap ? 2 * cap : 256;
            struct row *nr = realloc(T->r, sizeof *nr * cap);
            if (!nr) {
                fclose(f);
                free(T->r);
                return plot_fail(err, errlen, ENOMEM, "out of memory");
            }
            T->r = nr;
        }
        T->r[T->n++] = R;
    }
    fclose(f);
    if (!head || !T->n) {
        free(T->r);
        T->r = NULL;
        return plot_fail(err, errlen, EINVAL, "%s:%d: %s", path, head ? headline : lineno,
                         head ? "no case lines under the table's head"
                              : "no case table (a line starting 'profile ranks topology')");
    }
    for (size_t i = 0; i < T->n; i++)
        if (algo_index(T, T->r[i].algo) < 0 && T->nalgo < MAXSERIES)
            T->algo[T->nalgo++] = T->r[i].algo;
    return 0;
}

/* hop-bytes of the reference algorithm on the case of row i, NAN if none. */
static double ref_hb(const struct table *T, size_t i, const char *ref)
{
    const struct row *R = &T->r[i];
    /* The rows of one case are adjacent: look around i. */
    for (size_t j = i > 64 ? i - 64 : 0; j < T->n && j < i + 64; j++) {
        const struct row *S = &T->r[j];
        if (!strcmp(S->algo, ref) && S->n == R->n && S->scaling == R->scaling &&
            !strcmp(S->profile, R->profile) && !strcmp(S->topo, R->topo) &&
            !strcmp(S->alloc, R->alloc))
            return S->hb;
    }
    return NAN;
}

/* One bar panel: ng groups x ns series, vals[g * ns + s] (NAN: none). */
struct panel {
    char title[160];
    int ng;
    char glabel[MAXGROUPS][2][48];
    double vals[MAXGROUPS * MAXSERIES];
};

static int add_group(struct panel *P, const char *l1, const char *l2, int ns)
{
    if (P->ng == MAXGROUPS)
        return -1;
    snprintf(P->glabel[P->ng][0], 48, "%s", l1);
    snprintf(P->glabel[P->ng][1], 48, "%s", l2);
    for (int s = 0; s < ns; s++)
        P->vals[P->ng * MAXSERIES + s] = NAN;
    return P->ng++;
}

/* The geometric mean of the ratio of algorithm s over the rows that match
 * topo, alloc and (if non-NULL) profile. */
static double ratio_mean(const struct table *T, const char *ref, const char *algo,
                         const char *topo, const char *alloc, const char *profile)
{
    double sum = 0;
    int c = 0;
    for (size_t i = 0; i < T->n; i++) {
        const struct row *R = &T->r[i];
        if (R->scaling || strcmp(R->algo, algo) || strcmp(R->topo, topo) ||
            strcmp(R->alloc, alloc) || (profile && strcmp(R->profile, profile)))
            continue;
        double b = ref_hb(T, i, ref);
        if (R->hb > 0 && b > 0) {
            sum += log(R->hb / b);
            c++;
        }
    }
    return c ? exp(sum / c) : NAN;
}

/* Distinct values of a string field over the non-scaling rows. */
static int distinct(const struct table *T, size_t off, const char **out, int max)
{
    int k = 0;
    for (size_t i = 0; i < T->n; i++) {
        if (T->r[i].scaling)
            continue;
        const char *v = (const char *)&T->r[i] + off;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = !strcmp(out[j], v);
        if (!seen && k < max)
            out[k++] = v;
    }
    return k;
}

/* ---- drawing ------------------------------------------------------------ */

/* The legend: a swatch and the name of each algorithm drawn, in rows that
 * wrap inside the canvas. Returns its height (measure only when !draw). */
static double draw_legend(struct plot *pl, double y, const struct table *T, const int *shown,
                          int draw)
{
    double fs = pl->font * 0.9, x = pl->font * 4, sw = fs * 1.2, lx = x, ly = y;
    for (int k = 0; k < T->nalgo; k++) {
        if (!shown[k])
            continue;
        double w = sw + fs * 0.4 + plot_text_width(pl, fs, T->algo[k]) + fs * 1.4;
        if (lx > x && lx + w > pl->w - pl->font) {
            lx = x;
            ly += fs * 1.6;
        }
        if (draw) {
            int hatched;
            uint32_t c = plot_series_colour(k, &hatched);
            plot_rgb(pl->cr, c);
            cairo_rectangle(pl->cr, lx, ly, sw, sw);
            cairo_fill(pl->cr);
            cairo_set_source_rgb(pl->cr, 0, 0, 0);
            plot_text(pl, lx + sw + fs * 0.4, ly + sw / 2, fs, 0, 0.5, 0, 0, T->algo[k]);
            plot_item(pl, TOPOMAP_PLOT_ITEM_LEGEND, k, 0, 0, lx, ly, w - fs * 1.4, sw);
        }
        lx += w;
    }
    return ly - y + fs * 2.2;
}

static void hatch(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 1.2);
    for (double d = -h; d < w; d += 4.5) {
        cairo_move_to(cr, x + d, y + h);
        cairo_line_to(cr, x + d + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* A grouped bar panel in the box (x, y, w, h) of the plot area. */
static void draw_bars(struct plot *pl, const struct panel *P, const struct table *T,
                      const int *series, int ns, const char *ref, double x, double y, double w,
                      double h)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.8, lo = INFINITY, hi = 0;
    for (int g = 0; g < P->ng; g++)
        for (int s = 0; s < ns; s++) {
            double v = P->vals[g * MAXSERIES + s];
            if (v > 0) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        }
    int logy = hi / lo > 4;
    double y0, y1; /* axis range (log2 when logy) */
    if (logy) {
        y0 = floor(log2(fmin(lo, 1)));
        y1 = ceil(log2(fmax(hi, 1)));
    } else {
        y0 = 0;
        y1 = ceil(fmax(hi, 1) * 4 + 0.01) / 4;
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x, y, pl->font, 0, 0, w, 0, P->title);
    double top = y + pl->font * 1.8, ph = h - pl->font * 1.8;
#define YPOS(v) (top + ph - ((logy ? log2(v) : (v)) - y0) / (y1 - y0) * ph)
    /* Grid lines and their labels; the reference's line black. */
    double step = logy ? 1 : (y1 > 2 ? 0.5 : 0.25);
    char lab[32];
    for (double t = y0; t <= y1 + 1e-9; t += step) {
        double v = logy ? pow(2, t) : t;
        if (logy && v < 1)
            snprintf(lab, sizeof lab, "1/%g", 1 / v);
        else
            snprintf(lab, sizeof lab, "%g", v);
        plot_hgrid(pl, x, w, YPOS(v), fs, fabs(v - 1) < 1e-9, lab);
    }
    snprintf(lab, sizeof lab, "hop-bytes / %s%s", ref, logy ? " (log)" : "");
    plot_text(pl, x - pl->font * 3, top + ph / 2, fs, 0.5, 0.5, ph, -M_PI / 2, lab);
    double gw = w / (P->ng > 0 ? P->ng : 1), bw = gw * 0.84 / (ns > 0 ? ns : 1);
    double base = YPOS(logy ? 1 : 1e-300);
    if (!logy)
        base = top + ph;
    for (int g = 0; g < P->ng; g++) {
        for (int s = 0; s < ns; s++) {
            double v = P->vals[g * MAXSERIES + s];
            if (!(v > 0))
                continue;
            int hatched;
            uint32_t c = plot_series_colour(series[s], &hatched);
            double bx = x + g * gw + gw * 0.08 + s * bw, vy = YPOS(v);
            double by = fmin(vy, base), bh = fmax(fabs(base - vy), 1);
            plot_rgb(cr, c);
            cairo_rectangle(cr, bx, by, bw * 0.9, bh);
            cairo_fill(cr);
            if (hatched)
                hatch(cr, bx, by, bw * 0.9, bh);
            plot_item(pl, TOPOMAP_PLOT_ITEM_BAR, g, series[s], v, bx, by, bw * 0.9, bh);
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(pl, x + (g + 0.5) * gw, top + ph + fs * 0.4, fs, 0.5, 0, gw * 0.98, 0,
                  P->glabel[g][0]);
        plot_text(pl, x + (g + 0.5) * gw, top + ph + fs * 1.6, fs, 0.5, 0, gw * 0.98, 0,
                  P->glabel[g][1]);
    }
#undef YPOS
}

/* Median mapping time of each algorithm against ranks, log-log. */
static void draw_times(struct plot *pl, const struct table *T, const int *shown, double x,
                       double y, double w, double h)
{
    cairo_t *cr = pl->cr;
    double fs = pl->font * 0.8, nmin = INFINITY, nmax = 0, tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < T->n; i++)
        if (!T->r[i].scaling && T->r[i].secs >= 0) {
            nmin = fmin(nmin, T->r[i].n);
            nmax = fmax(nmax, T->r[i].n);
            tmax = fmax(tmax, T->r[i].secs);
            tmin = fmin(tmin, fmax(T->r[i].secs, 1e-5));
        }
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(pl, x, y, pl->font, 0, 0, w, 0,
              "Mapping time (median over the cases of each size) against ranks");
    if (!(nmax > 0))
        return;
    double top = y + pl->font * 1.8, ph = h - pl->font * 3.4;
    double lx0 = floor(log2(nmin)), lx1 = fmax(ceil(log2(nmax)), lx0 + 1);
    double ly0 = floor(log10(tmin)), ly1 = fmax(ceil(log10(tmax)), ly0 + 1);
    char lab[32];
    cairo_set_line_width(cr, 1);
    for (double e = ly0; e <= ly1; e++) {
        snprintf(lab, sizeof lab, "1e%g s", e);
        plot_hgrid(pl, x, w, top + ph - (e - ly0) / (ly1 - ly0) * ph, fs, 0, lab);
    }
    int every = (int)ceil((lx1 - lx0) * fs * 4 / w);
    for (double e = lx0; e <= lx1; e += every) {
        double gx = x + (e - lx0) / (lx1 - lx0) * w;
        snprintf(lab, sizeof lab, "%.0f", pow(2, e));
        plot_text(pl, gx, top + ph + fs * 0.4, fs, 0.5, 0, 0, 0, lab);
    }
    plot_text(pl, x + w / 2, top + ph + fs * 1.7, fs, 0.5, 0, 0, 0, "ranks");
    double *ts = malloc(sizeof(double) * (T->n + 1));
    int *sizes = malloc(sizeof(int) * (T->n + 1));
    if (!ts || !sizes) {
        free(ts);
        free(sizes);
        return;
    }
    for (int k = 0; k < T->nalgo; k++) {
        if (!shown[k])
            continue;
        int ns = 0;
        for (size_t i = 0; i < T->n; i++) {
            const struct row *R = &T->r[i];
            if (R->scaling || strcmp(R->algo, T->algo[k]) || !(R->secs >= 0))
                continue;
            int seen = 0;
            for (int s = 0; s < ns && !seen; s++)
                seen = sizes[s] == R->n;
            if (!seen)
                sizes[ns++] = R->n;
        }
        for (int s = 1; s < ns; s++) /* insertion sort: few sizes */
            for (int q = s; q > 0 && sizes[q - 1] > sizes[q]; q--) {
                int tmp = sizes[q];
                sizes[q] = sizes[q - 1];
                sizes[q - 1] = tmp;
            }
        plot_rgb(cr, plot_series_colour(k, NULL));
        cairo_set_line_width(cr, 2);
        for (int pass = 0; pass < 2; pass++)
            for (int s = 0; s < ns; s++) {
                int c = 0;
                for (size_t i = 0; i < T->n; i++)
                    if (!T->r[i].scaling && !strcmp(T->r[i].algo, T->algo[k]) &&
                        T->r[i].n == sizes[s] && T->r[i].secs >= 0)
                        ts[c++] = fmax(T->r[i].secs, 1e-5);
                qsort(ts, (size_t)c, sizeof *ts, plot_cmp_double);
                double px = x + (log2(sizes[s]) - lx0) / (lx1 - lx0) * w;
                double py = top + ph - (log10(ts[c / 2]) - ly0) / (ly1 - ly0) * ph;
                if (pass == 0) {
                    if (s == 0)
                        cairo_move_to(cr, px, py);
                    else
                        cairo_line_to(cr, px, py);
                } else {
                    cairo_arc(cr, px, py, 3.2, 0, 2 * M_PI);
                    cairo_fill(cr);
                }
                if (pass == 0 && s == ns - 1)
                    cairo_stroke(cr);
            }
    }
    free(ts);
    free(sizes);
}

int topomap_plot_bench(const char *path, const topomap_plot_opts_t *o, const char *table,
                       const topomap_plot_bench_opts_t *b, char *err, size_t errlen)
{
    topomap_plot_bench_opts_t bo;
    if (b)
        bo = *b;
    else
        topomap_plot_bench_opts_init(&bo);
    const char *ref = bo.relative ? bo.relative : "block";
    if (!table)
        return plot_fail(err, errlen, EINVAL, "no benchmark table to draw");
    struct table T;
    if (read_table(table, &T, err, errlen) < 0)
        return -1;
    int rc = -1, shown[MAXSERIES] = {0}, series[MAXSERIES], ns = 0;
    struct panel *P = calloc(3, sizeof *P);
    if (!P) {
        plot_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (algo_index(&T, ref) < 0) {
        plot_fail(err, errlen, EINVAL, "%s: no algorithm '%s' in the table to compare with",
                  table, ref);
        goto out;
    }
    /* The algorithms drawn: --algos, else all; bars for all but the reference. */
    for (int k = 0; k < T.nalgo; k++) {
        const char *s = bo.algos;
        size_t len = strlen(T.algo[k]);
        int want = !s;
        while (s && *s && !want) {
            want = !strncmp(s, T.algo[k], len) && (s[len] == ',' || !s[len]);
            s = strchr(s, ',');
            s = s ? s + 1 : NULL;
        }
        shown[k] = want || !strcmp(T.algo[k], ref);
        if (shown[k] && strcmp(T.algo[k], ref))
            series[ns++] = k;
    }
    const char *topos[MAXGROUPS], *allocs[8], *profiles[MAXGROUPS];
    int nt = distinct(&T, offsetof(struct row, topo), topos, MAXGROUPS);
    int na = distinct(&T, offsetof(struct row, alloc), allocs, 8);
    int np = distinct(&T, offsetof(struct row, profile), profiles, MAXGROUPS);
    const char *ptopo = bo.topology;
    for (int i = 0; !ptopo && i < nt; i++)
        if (strstr(topos[i], "tianhe3"))
            ptopo = topos[i];
    /* Panel 0: per topology and allocation; 1, 2: per profile on ptopo. */
    int npanels = 1;
    snprintf(P[0].title, sizeof P[0].title,
             "Hop-bytes relative to %s, geometric mean over the profiles (lower is better)", ref);
    for (int ti = 0; ti < nt; ti++)
        for (int ai = 0; ai < na; ai++) {
            double v[MAXSERIES];
            int any = 0;
            for (int s = 0; s < ns; s++)
                any |= (v[s] = ratio_mean(&T, ref, T.algo[series[s]], topos[ti], allocs[ai],
                                          NULL)) > 0;
            int g = any ? add_group(&P[0], topos[ti], allocs[ai], ns) : -1;
            for (int s = 0; g >= 0 && s < ns; s++)
                P[0].vals[g * MAXSERIES + s] = v[s];
        }
    for (int ai = 0; ptopo && *ptopo && ai < na && npanels < 3; ai++) {
        struct panel *Q = &P[npanels];
        snprintf(Q->title, sizeof Q->title, "%s, %s allocation, per profile", ptopo, allocs[ai]);
        for (int pi = 0; pi < np; pi++) {
            double v[MAXSERIES];
            int any = 0;
            for (int s = 0; s < ns; s++)
                any |= (v[s] = ratio_mean(&T, ref, T.algo[series[s]], ptopo, allocs[ai],
                                          profiles[pi])) > 0;
            const char *dash = strrchr(profiles[pi], '-');
            char l1[48];
            snprintf(l1, sizeof l1, "%.*s", dash ? (int)(dash - profiles[pi]) : 47, profiles[pi]);
            int g = any ? add_group(Q, l1, dash ? dash + 1 : "", ns) : -1;
            for (int s = 0; g >= 0 && s < ns; s++)
                Q->vals[g * MAXSERIES + s] = v[s];
        }
        npanels += Q->ng > 0;
    }

    topomap_plot_opts_t oo;
    if (o)
        oo = *o;
    else
        topomap_plot_opts_init(&oo);
    double W = oo.width > 0 ? oo.width : 1200, font = plot_font_size(W, 0);
    double panel_h = font * 18, time_h = font * 24;
    double H = oo.height > 0 ? oo.height : font * 8 + npanels * (panel_h + font * 4) + time_h;
    struct plot pl;
    if (plot_open(&pl, path, &oo, W, H, err, errlen) < 0)
        goto out;
    /* The height the panels get once the legend's rows are known. */
    double y = plot_title(&pl, oo.title ? oo.title : "topomap benchmark: hop-bytes and mapping time");
    double lh = draw_legend(&pl, y, &T, shown, 0);
    draw_legend(&pl, y, &T, shown, 1);
    y += lh;
    double avail = pl.h - y - pl.font, unit = avail / (npanels * 22.0 + 24.0);
    double x = pl.font * 5.5, w = pl.w - x - pl.font * 1.5;
    for (int k = 0; k < npanels; k++) {
        pl.panel = k;
        draw_bars(&pl, &P[k], &T, series, ns, ref, x, y, w, unit * 18);
        y += unit * 22;
    }
    pl.panel = npanels;
    draw_times(&pl, &T, shown, x, y, w, unit * 24);
    rc = plot_close(&pl);
out:
    free(P);
    free(T.r);
    return rc;
}
