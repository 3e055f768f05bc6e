/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: the plot (PREFIX.svg), drawn from the case table: hop-bytes
 * relative to block per topology x allocation group and, on the OHTMA
 * paper's machine, per profile; mapping time against ranks (log-log). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *palette[] = {"#7f7f7f", "#bcbd22", "#c7c7c7", "#1f77b4", "#9467bd", "#d62728",
                                "#ff7f0e", "#8c564b", "#2ca02c", "#17becf", "#e377c2", "#393b79"};
#define NPAL (int)(sizeof palette / sizeof palette[0])

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *txt,
                     double rot)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"", x, y, anchor,
            size);
    if (rot != 0)
        fprintf(f, " transform=\"rotate(%.0f %.1f %.1f)\"", rot, x, y);
    fprintf(f, ">%s</text>\n", txt);
}

/* A group label on two centred lines, split at the last '-' or ' ' when long. */
static void svg_label(FILE *f, double x, double y, const char *txt)
{
    size_t l = strlen(txt);
    const char *cut = NULL;
    if (l > 13)
        for (const char *c = txt + l - 1; c > txt && !cut; c--)
            if (*c == '-' || *c == ' ')
                cut = c;
    if (!cut) {
        svg_text(f, x, y, "middle", 10, txt, 0);
        return;
    }
    char a[64], b[64];
    snprintf(a, sizeof a, "%.*s", (int)(cut - txt), txt);
    snprintf(b, sizeof b, "%s", cut + 1);
    svg_text(f, x, y, "middle", 10, a, 0);
    svg_text(f, x, y + 12, "middle", 10, b, 0);
}

/* Grouped bars: groups x algorithms, values relative to block; bars above
 * ymax are cut and carry their value. */
static void svg_bars(FILE *f, double y0, const char *title, int ng, const char **glabels,
                     double *vals, const char **algos, int nalgo, double ymax)
{
    double x0 = 70, w = 1120, h = 250;
    svg_text(f, x0, y0 + 18, "start", 15, title, 0);
    double top = y0 + 34, bottom = top + h;
    for (double v = 0; v <= ymax + 1e-9; v += 0.25) {
        double y = bottom - v / ymax * h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" />\n", x0,
                y, x0 + w, y, fabs(v - 1) < 1e-9 ? "#000" : "#ddd");
        char lab[16];
        snprintf(lab, sizeof lab, "%.2f", v);
        svg_text(f, x0 - 6, y + 4, "end", 11, lab, 0);
    }
    svg_text(f, 22, top + h / 2, "middle", 12, "hop-bytes / block", -90);
    double gw = w / (ng > 0 ? ng : 1), bw = (gw - 8) / nalgo;
    for (int gi = 0; gi < ng; gi++) {
        for (int k = 0; k < nalgo; k++) {
            double v = vals[gi * nalgo + k];
            if (!(v >= 0))
                continue;
            double hv = (v > ymax ? ymax : v) / ymax * h;
            double x = x0 + gi * gw + 4 + k * bw;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>%s: %.3f</title></rect>\n",
                    x, bottom - hv, bw * 0.92, hv, palette[k % NPAL], algos[k], v);
            if (v > ymax) {
                char lab[16];
                snprintf(lab, sizeof lab, "%.1f", v);
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" "
                        "fill=\"#fff\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                        x + bw * 0.46 + 3, top + 3, x + bw * 0.46 + 3, top + 3, lab);
            }
        }
        svg_label(f, x0 + gi * gw + gw / 2, bottom + 14, glabels[gi]);
    }
}

static void svg_legend(FILE *f, double y, const char **algos, int nalgo)
{
    for (int k = 0; k < nalgo; k++) {
        double x = 70 + k % 11 * 100, yk = y + k / 11 * 17; /* 11 to a row */
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" />\n", x,
                yk - 11, palette[k % NPAL]);
        svg_text(f, x + 18, yk, "start", 12, algos[k], 0);
    }
}

void bench_write_svg(const char *path, const char **algos, int nalgo, const char *paper_topo)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    const char *topos[32], *shapes[8], *profiles[64];
    int nt = bench_distinct(offsetof(struct bench_result, topo), topos, 32);
    int nsh = bench_distinct(offsetof(struct bench_result, shape), shapes, 8);
    int np = bench_distinct(offsetof(struct bench_result, profile), profiles, 64);
    double H = 1560;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1220\" height=\"%.0f\" "
            "font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            H);
    svg_text(f, 610, 24, "middle", 18,
             "topomap benchmark: hop-bytes relative to block (lower is better) and mapping time",
             0);
    svg_legend(f, 50, algos, nalgo);

    /* Panel 1: geometric means per topology and allocation. */
    const char *gl[32];
    char glbuf[32][64];
    double *vals = calloc((size_t)64 * (size_t)nalgo, sizeof(double));
    int ng = 0;
    for (int ti = 0; ti < nt; ti++)
        for (int si = 0; si < nsh; si++) {
            int c;
            bench_geomean(offsetof(struct bench_result, rel), topos[ti], shapes[si], "block", &c);
            if (!c || ng >= 32)
                continue;
            snprintf(glbuf[ng], sizeof glbuf[ng], "%s %s", topos[ti], shapes[si]);
            /* svg_label splits at the last space: topology, then allocation. */
            gl[ng] = glbuf[ng];
            for (int k = 0; k < nalgo; k++)
                vals[ng * nalgo + k] = bench_geomean(offsetof(struct bench_result, rel), topos[ti],
                                                     shapes[si], algos[k], &c);
            ng++;
        }
    svg_bars(f, 70, "Geometric mean over profiles, per topology and allocation", ng, gl, vals,
             algos, nalgo, 2.0);
    /* Two-line labels "topology" / "allocation" come from the space. */

    /* Panels 2-3: the paper's machine, per profile. */
    for (int si = 0; si < nsh && si < 2; si++) {
        int g2 = 0;
        for (int pi = 0; pi < np && g2 < 32; pi++) {
            const struct bench_result *B = bench_find(profiles[pi], paper_topo, shapes[si], "block");
            if (!B || !(B->hb > 0))
                continue; /* absent, or one node: nothing to compare */
            snprintf(glbuf[g2], sizeof glbuf[g2], "%s", profiles[pi]);
            gl[g2] = glbuf[g2];
            for (int k = 0; k < nalgo; k++) {
                const struct bench_result *R = bench_find(profiles[pi], paper_topo, shapes[si], algos[k]);
                vals[g2 * nalgo + k] = R ? R->rel : NAN;
            }
            g2++;
        }
        char title[128];
        snprintf(title, sizeof title, "%s, %s allocation, per profile", paper_topo, shapes[si]);
        svg_bars(f, 400 + si * 330, title, g2, gl, vals, algos, nalgo, 2.0);
    }
    free(vals);

    /* Panel 4: time vs ranks, log-log, median over the cases of each size. */
    double y0 = 1070, x0 = 70, w = 1120, h = 380;
    svg_text(f, x0, y0 + 18, "start", 16, "Mapping time (median over cases) vs ranks", 0);
    double top = y0 + 36, bottom = top + h;
    double lx0 = log10(8), lx1 = log10(131072), ly0 = -5, ly1 = 2;
    for (int e = (int)ly0; e <= (int)ly1; e++) {
        double y = bottom - (e - ly0) / (ly1 - ly0) * h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\" />\n",
                x0, y, x0 + w, y);
        char lab[16];
        snprintf(lab, sizeof lab, "1e%d s", e);
        svg_text(f, x0 - 6, y + 4, "end", 11, lab, 0);
    }
    for (int e = 4; e <= 17; e++) {
        double x = x0 + (e * log10(2) - lx0) / (lx1 - lx0) * w;
        if (x < x0)
            continue;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\" />\n", x,
                top, x, bottom);
        char lab[16];
        snprintf(lab, sizeof lab, "%d", 1 << e);
        svg_text(f, x, bottom + 14, "middle", 11, lab, 0);
    }
    svg_text(f, x0 + w / 2, bottom + 30, "middle", 12, "ranks", 0);
    for (int k = 0; k < nalgo; k++) {
        int sizes[64], ns = 0;
        for (size_t i = 0; i < bench_nres; i++) {
            if (bench_res[i].scaling || strcmp(bench_res[i].algo, algos[k]) ||
                !(bench_res[i].secs >= 0))
                continue;
            int seen = 0;
            for (int s = 0; s < ns; s++)
                seen |= sizes[s] == bench_res[i].n;
            if (!seen && ns < 64)
                sizes[ns++] = bench_res[i].n;
        }
        for (int s = 1; s < ns; s++)
            for (int q = s; q > 0 && sizes[q - 1] > sizes[q]; q--) {
                int tmp = sizes[q];
                sizes[q] = sizes[q - 1];
                sizes[q - 1] = tmp;
            }
        if (!ns)
            continue; /* no time to draw (failed everywhere) */
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                palette[k % NPAL]);
        for (int pass = 0; pass < 2; pass++)
            for (int s = 0; s < ns; s++) {
                double ts[512];
                int c = 0;
                for (size_t i = 0; i < bench_nres && c < 512; i++)
                    if (!bench_res[i].scaling && !strcmp(bench_res[i].algo, algos[k]) &&
                        bench_res[i].n == sizes[s] && bench_res[i].secs >= 0)
                        ts[c++] = bench_res[i].secs;
                qsort(ts, (size_t)c, sizeof ts[0], bench_cmp_double);
                double tv = ts[c / 2] > 1e-5 ? ts[c / 2] : 1e-5;
                double x = x0 + (log10(sizes[s]) - lx0) / (lx1 - lx0) * w;
                double y = bottom - (log10(tv) - ly0) / (ly1 - ly0) * h;
                if (pass == 0)
                    fprintf(f, "%.1f,%.1f ", x, y);
                else
                    fprintf(f,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, %d "
                            "ranks: %.4g s</title></circle>\n",
                            x, y, palette[k % NPAL], algos[k], sizes[s], ts[c / 2]);
                if (pass == 0 && s == ns - 1)
                    fprintf(f, "\" />\n");
            }
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}