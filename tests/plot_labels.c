/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot's labels in the node boxes of a mapping picture
 * (plot/plot_nodes.c): a node's ranks as hostlist-style ranges, the first
 * ones, an ellipsis and the count when they do not fit; node names and ranks
 * never under 8 pixels: names lose their shared prefix, then are left out,
 * ranks become a count, and the picture's note says so. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#ifndef HAVE_CAIRO
int main(void)
{
    printf("1..0 # SKIP built without cairo (libcairo2-dev): no pictures to check\n");
    return 0;
}
#else
#include "plot_test.h"

/* The smallest size of a text drawn that is exactly s (0: none drawn). */
static double text_size(const char *s)
{
    double size = 0;
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == TOPOMAP_PLOT_ITEM_TEXT && !strcmp(items[i].text, s))
            size = size > 0 ? fmin(size, items[i].value) : items[i].value;
    return size;
}

/* The smallest size of the texts drawn inside node boxes (1e9: none). */
static double node_text_min(void)
{
    double size = 1e9;
    for (int i = 0; i < nitems; i++) {
        const topomap_plot_item_t *t = &items[i];
        if (t->kind != TOPOMAP_PLOT_ITEM_TEXT)
            continue;
        double cx = t->x + t->w / 2, cy = t->y + t->h / 2;
        for (int k = 0; k < nitems; k++)
            if (items[k].kind == TOPOMAP_PLOT_ITEM_NODE && cx > items[k].x &&
                cx < items[k].x + items[k].w && cy > items[k].y && cy < items[k].y + items[k].h) {
                if (t->value < 8)
                    printf("#   '%s' at %.1f pixels in a node of %.1f\n", t->text, t->value, items[k].w);
                size = fmin(size, t->value);
            }
    }
    return size;
}

static void test_labels(void)
{
    /* 16 nodes plafrim001..plafrim016 of a PlaFRIM-like tree (4 leaf
     * switches of 22): node 0 holds ranks 0-3 and 64-67, node 2 ranks 8-11,
     * node 1 the 92 odd ranks from 13 on (13, 15, ..., 63, 69, ...), the
     * others the rest. */
    char err[TOPOMAP_ERRLEN] = "";
    int ar[] = {4, 22}, hp[] = {4, 2};
    topomap_topology_t *t = topomap_topology_tree(2, ar, hp, 128, "plafrim[001-088]", err, sizeof err);
    int n = 200, s[] = {0}, d[] = {1};
    double b[] = {10};
    topomap_profile_t *p = profile(n, 1, s, d, b);
    int node[200];
    for (int r = 0; r < n; r++)
        node[r] = r < 4 || (r >= 64 && r < 68) ? 0 : r >= 8 && r < 12 ? 2 : r % 2 && r > 12 ? 1
                                                                                      : 3 + r % 13;
    topomap_plot_placement_t pl = {"labels", node, NULL};
    topomap_plot_opts_t o = opts(1600, 0);
    int rc = t && p ? topomap_plot_mapping(out("labels.png"), &o, p, t, NULL, &pl, 1, err, sizeof err)
                    : -1;
    ok(rc == 0 && count(TOPOMAP_PLOT_ITEM_NODE) == 16, "labels: 16 nodes drawn (%s)", err);
    ok(has_text("0-3,") && has_text("64-67") && has_text("8-11"),
       "labels: a node's ranks as ranges, hostlist style (0-3,64-67; 8-11)");
    ok(!has_text("8 ranks") && !has_text("4 ranks"), "labels: no count where the ranges fit");
    ok(has_text("…") && has_text("92 ranks") && has_text("13,15,"),
       "labels: 92 scattered ranks: the first ones, an ellipsis and the count");
    ok(text_size("plafrim001") >= 8 && text_size("plafrim016") >= 8 && node_text_min() >= 8,
       "labels: node names and ranks at 8 pixels or more (%.1f, %.1f)", text_size("plafrim001"),
       node_text_min());
    ok(texts_inside(1600, png_height(out("labels.png"), 1600)), "labels: every text inside the canvas");

    /* Narrower: the names lose their shared prefix (the note says so) rather
     * than shrink below 8 pixels. */
    o = opts(700, 0);
    rc = topomap_plot_mapping(out("labels2.png"), &o, p, t, NULL, &pl, 1, err, sizeof err);
    ok(rc == 0 && !has_text("plafrim001") && text_size("001") >= 8 && node_text_min() >= 8 &&
           has_text("node names without their prefix 'plafrim'"),
       "labels: 700 wide: names without 'plafrim' at %.1f pixels, the note says so",
       text_size("001"));
    /* Small: names left out, ranks too where not even their count fits, the
     * note says so; nothing in a node under 8 pixels. */
    for (int w = 300; w <= 500; w += 200) {
        o = opts(w, 0);
        rc = topomap_plot_mapping(out("labels3.png"), &o, p, t, NULL, &pl, 1, err, sizeof err);
        ok(rc == 0 && !has_text("001") && node_text_min() >= 8 &&
               (w < 500 || (has_text("node names left out") && has_text("(8)") &&
                            has_text("(n): n ranks"))),
           "labels: %d wide: names left out%s, no node text under 8 pixels (%.1f)", w,
           w < 500 ? "" : ", ranks counted as (8), the note says so", node_text_min());
    }
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* Tianhe-3 (plot_machine.c's side rows): 16 nodes of one chip in a row, 8
 * ranks each, block beside a placement in pairs (node 0: 0-1,32-33,64-65,96-97)
 * at 1500 pixels: every box of the pairs shows its first ranks, an ellipsis
 * and the count, as tree nodes do, not the count alone. */
static void test_tianhe3_labels(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_tianhe3(1, 1, 16, 8, "cn[0000-0015]", err, sizeof err);
    int n = 128, s[] = {0}, d[] = {1};
    double b[] = {10};
    topomap_profile_t *p = profile(n, 1, s, d, b);
    int block[128], pairs[128];
    for (int r = 0; r < n; r++) {
        block[r] = r / 8;
        pairs[r] = r / 2 % 16;
    }
    topomap_plot_placement_t pl[2] = {{"block", block, NULL}, {"pairs", pairs, NULL}};
    topomap_plot_opts_t o = opts(1500, 0);
    int rc = t && p ? topomap_plot_mapping(out("th3.png"), &o, p, t, NULL, pl, 2, err, sizeof err)
                    : -1;
    int ellipses = 0, counts = 0;
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == TOPOMAP_PLOT_ITEM_TEXT && items[i].panel == 1) {
            ellipses += strstr(items[i].text, "…") != NULL;
            counts += !strcmp(items[i].text, "(8)") || !strcmp(items[i].text, "8 ranks");
        }
    ok(rc == 0 && count(TOPOMAP_PLOT_ITEM_NODE) == 32 && ellipses == 16 && counts == 16 &&
           has_text("0-7") && node_text_min() >= 8,
       "tianhe3 labels: 16 crowded nodes, each with its first ranks, an ellipsis and the count "
       "(%d, %d; %.1f pixels) (%s)", ellipses, counts, node_text_min(), err);
    ok(texts_inside(1500, png_height(out("th3.png"), 1500)),
       "tianhe3 labels: every text inside the canvas");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

int main(void)
{
    if (plot_test_begin() < 0)
        return 0;
    test_labels();
    test_tianhe3_labels();
    return plot_test_end();
}
#endif
