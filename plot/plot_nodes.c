/* SPDX-License-Identifier: BSD-3-Clause */
/* The node boxes of the mapping and link pictures and their labels: each
 * node's name over the ranks it holds, written as ranges the way a Slurm
 * hostlist writes names ("0-3,64-67"). Labels are sized to their box and
 * never drawn below LABEL_MIN pixels, the smallest size that stays
 * readable: node names that do not fit are shortened to what tells them
 * apart (without the prefix they all share, which the picture's note names)
 * or left out (the note says so); ranks that do not fit give the leading
 * ranges that do, an ellipsis and the count ("0-3,8,…" over "12 ranks"),
 * or the count alone, or nothing in a box too small for it (the note says
 * so). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define LABEL_MIN 8.0 /* pixels (points in PDF and SVG) */
#define LINE 96       /* bytes of one line of ranks */
#define TOK 24        /* bytes of one range: "2147483646-2147483647," */

/* The size at which s fits width w, at most want. */
static double fit_size(struct plot *pl, const char *s, double want, double w)
{
    double tw = plot_text_width(pl, want, s);
    return tw > w ? want * w / tw : want;
}

void machine_note(struct machine *m, const char *what)
{
    size_t len = strlen(m->note);
    snprintf(m->note + len, sizeof m->note - len, "%s%s", len ? "; " : "", what);
}

void machine_fit_names(struct plot *pl, struct machine *m, const struct view *v)
{
    /* A name takes at most a third of its box, a fifth where there is room. */
    double s = v->s, want = fmin(pl->font * 0.8, fmax(s * 0.2, s >= 3 * LABEL_MIN ? LABEL_MIN : 0));
    double full = want, part = want;
    const char *first = NULL;
    size_t pre = 0;
    int n = m->nnodes, nodes = 0;
    m->names = 0;
    m->name_skip = 0;
    for (int u = 0; u < n; u++) {
        const char *name = m->w[u] > 0 ? topomap_topology_node_name(m->t, u) : NULL;
        if (!name)
            continue;
        nodes++;
        if (!first) {
            first = name;
            pre = strlen(name);
        }
        size_t i = 0;
        while (i < pre && name[i] == first[i])
            i++;
        pre = i;
        full = fmin(full, fit_size(pl, name, want, s * 0.92));
    }
    if (!nodes)
        return;
    /* The shared prefix, cut before its digits: "cn0000" and "cn0385" share
     * "cn0", and "0000", "0385" read better than "000", "385". */
    while (pre > 0 && isdigit((unsigned char)first[pre - 1]))
        pre--;
    for (int u = 0; u < n && pre > 0; u++) {
        const char *name = m->w[u] > 0 ? topomap_topology_node_name(m->t, u) : NULL;
        if (!name)
            continue;
        if (!name[pre])
            pre = 0; /* a name that is all prefix */
        else
            part = fmin(part, fit_size(pl, name + pre, want, s * 0.92));
    }
    char what[80];
    if (full >= LABEL_MIN) {
        m->names = 1;
        m->name_size = full;
    } else if (pre > 0 && pre < 40 && part >= LABEL_MIN) {
        m->names = 1;
        m->name_size = part;
        m->name_skip = (int)pre;
        snprintf(what, sizeof what, "node names without their prefix '%.*s'", (int)pre, first);
        machine_note(m, what);
    } else {
        machine_note(m, "node names left out (too small)");
    }
}

/* The ranks of one node (ascending) as ranges, one token each ("0-3,"),
 * every token but the last ending in a comma. Returns the number. */
static int rank_tokens(const int *r, int k, char (*tok)[TOK])
{
    int nt = 0;
    for (int i = 0; i < k;) {
        int j = i;
        while (j + 1 < k && r[j + 1] == r[j] + 1)
            j++;
        const char *comma = j + 1 < k ? "," : "";
        if (j > i)
            snprintf(tok[nt++], TOK, "%d-%d%s", r[i], r[j], comma);
        else
            snprintf(tok[nt++], TOK, "%d%s", r[i], comma);
        i = j + 1;
    }
    return nt;
}

/* Tokens from the first on, into at most maxl lines of width w at size fs
 * (*nl of them); a range too wide for a line of its own is split after its
 * dash (the token keeps the rest). Returns how many tokens went in. */
static int fill_lines(struct plot *pl, char (*tok)[TOK], int nt, double fs, double w,
                      char (*lines)[LINE], int maxl, int *nl)
{
    int t = 0, l;
    for (l = 0; l < maxl && t < nt; l++) {
        lines[l][0] = 0;
        while (t < nt) {
            char cand[LINE + TOK];
            snprintf(cand, sizeof cand, "%s%s", lines[l], tok[t]);
            if (strlen(cand) >= LINE - 4 || plot_text_width(pl, fs, cand) > w)
                break;
            memcpy(lines[l], cand, strlen(cand) + 1);
            t++;
        }
        char *dash = lines[l][0] ? NULL : strchr(tok[t], '-');
        if (dash && dash - tok[t] < LINE - 4) {
            /* A range wider than the box: "104-" here, "111" on the next
             * line, when the first part fits. */
            snprintf(lines[l], LINE, "%.*s", (int)(dash - tok[t] + 1), tok[t]);
            if (plot_text_width(pl, fs, lines[l]) > w) {
                lines[l][0] = 0;
                break;
            }
            memmove(tok[t], dash + 1, strlen(dash + 1) + 1);
        } else if (!lines[l][0]) {
            break; /* a number wider than the box */
        }
    }
    *nl = l;
    return t;
}

/* The lines that say which ranks sit on a box of side s with room h below
 * its name: every range at the largest size that fits, else at LABEL_MIN
 * the leading ranges, an ellipsis and the count ("(12)" where "12 ranks"
 * is too wide; m->counted says so, for the note). Returns the number of
 * lines (0: no room, not even for the count) and their size in *fs. */
static int rank_lines(struct plot *pl, struct machine *m, const int *r, int k, double s,
                      double h, double *fs, char (*tok)[TOK], char (*lines)[LINE])
{
    int nt = 0, nl = 0, maxl;
    double w = s * 0.9;
    for (double size = fmax(LABEL_MIN, fmin(pl->font * 1.1, s * 0.3));; size = fmax(LABEL_MIN, size * 0.9)) {
        *fs = size;
        nt = rank_tokens(r, k, tok); /* afresh: fill_lines splits ranges */
        maxl = (int)((h - size * 0.2) / (size * 1.2));
        maxl = maxl > 12 ? 12 : maxl;
        if (maxl > 0 && fill_lines(pl, tok, nt, size, w, lines, maxl, &nl) == nt)
            return nl;
        if (size <= LABEL_MIN)
            break;
    }
    if (maxl < 1) {
        m->counted |= 2;
        return 0;
    }
    char count[32];
    snprintf(count, sizeof count, "%d rank%s", k, k > 1 ? "s" : "");
    nl = 0;
    nt = rank_tokens(r, k, tok);
    if (maxl >= 2 &&
        fill_lines(pl, tok, nt, *fs, w - plot_text_width(pl, *fs, "…"), lines, maxl - 1, &nl) > 0)
        strcat(lines[nl - 1], "…");
    else
        nl = 0;
    if (plot_text_width(pl, *fs, count) > w) {
        snprintf(count, sizeof count, "(%d)", k);
        if (plot_text_width(pl, *fs, count) > w) {
            m->counted |= 2; /* not even the count */
            return 0;
        }
        m->counted |= 1;
    }
    snprintf(lines[nl++], LINE, "%s", count);
    return nl;
}

/* The name of node u (as machine_fit_names chose) and its k ranks r on
 * its box at (x, y), s wide and hs high. */
static void node_label(struct plot *pl, struct machine *m, int u, const int *r, int k,
                       double x, double y, double s, double hs, char (*tok)[TOK])
{
    cairo_t *cr = pl->cr;
    double used = 0, fs;
    if (m->names) {
        const char *name = topomap_topology_node_name(m->t, u);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        if (name && plot_text(pl, x + s / 2, y + m->name_size * 0.25, m->name_size, 0.5, 0,
                              s * 0.92, 0, name + m->name_skip) > 0)
            used = m->name_size * 1.3;
    }
    char lines[12][LINE];
    int nl = k ? rank_lines(pl, m, r, k, s, hs - used, &fs, tok, lines) : 0;
    if (!nl)
        return;
    /* On a pale ground, so that lines drawn over the box do not hide them. */
    double ty = y + used + (hs - used - nl * fs * 1.2) / 2, tw = 0;
    for (int i = 0; i < nl; i++)
        tw = fmax(tw, fmin(plot_text_width(pl, fs, lines[i]), s * 0.92));
    cairo_set_source_rgba(cr, 1, 1, 1, 0.75);
    cairo_rectangle(cr, x + (s - tw) / 2 - fs * 0.2, ty - fs * 0.1, tw + fs * 0.4,
                    nl * fs * 1.2 + fs * 0.1);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int i = 0; i < nl; i++)
        plot_text(pl, x + s / 2, ty + i * fs * 1.2, fs, 0.5, 0, s * 0.92, 0, lines[i]);
}

void machine_draw_nodes(struct plot *pl, struct machine *m, const struct view *v,
                        const topomap_plot_placement_t *p, int nranks, int pass)
{
    cairo_t *cr = pl->cr;
    int n = m->nnodes;
    int *first = calloc((size_t)n + 1, sizeof(int)), *rk = malloc(sizeof(int) * (size_t)(nranks + 1));
    char(*tok)[TOK] = malloc(sizeof *tok * (size_t)(nranks + 1));
    if (!first || !rk || !tok) {
        free(first);
        free(rk);
        free(tok);
        return;
    }
    for (int r = 0; r < nranks; r++)
        first[p->node[r] + 1]++;
    for (int i = 0; i < n; i++)
        first[i + 1] += first[i];
    for (int r = 0, *next = first; r < nranks; r++)
        rk[next[p->node[r]]++] = r; /* first[u] is now where node u ends */
    for (int u = 0; u < n; u++) {
        if (m->w[u] <= 0)
            continue;
        int b = u ? first[u - 1] : 0, k = first[u] - b;
        double x = v->ox + m->x[u] * v->s, y = v->oy + m->y[u] * v->s, s = v->s;
        double hs = m->h[u] * v->s; /* taller than wide on trees */
        if (pass) {
            node_label(pl, m, u, rk + b, k, x, y, s, hs, tok);
            continue;
        }
        cairo_rectangle(cr, x, y, s, hs);
        if (k)
            cairo_set_source_rgb(cr, 0.84, 0.91, 0.97);
        else if (m->allocated[u])
            cairo_set_source_rgb(cr, 1, 1, 1);
        else
            cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        cairo_set_line_width(cr, fmax(0.5, fmin(1.5, s * 0.03)));
        cairo_stroke(cr);
        plot_item(pl, TOPOMAP_PLOT_ITEM_NODE, u, m->allocated[u], k, x, y, s, hs);
    }
    free(first);
    free(rk);
    free(tok);
}
