/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot (plot/topomap_plot.h): every picture kind drawn to PNG and
 * SVG on small cases and checked from the outside: the PNG's size, the
 * colours of pixels at places the drawing reports (cells of the matrix,
 * node boxes, the middle of a loaded channel, a bar), which are the
 * documented colours of the scales (viridis reversed, the Okabe-Ito hop
 * colours, Paul Tol's series colours: hard-coded here, not taken from the
 * library); every text inside the canvas, the legend's texts present; the
 * SVG well formed (xmllint, when installed) with every glyph inside its
 * viewBox. Then the error paths, and 16,384-rank cases (their times are
 * printed, not judged: targets live in benchmarks). The labels in the node
 * boxes: tests/plot_labels.c. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"
#include "topomap_plot.h"

#ifndef HAVE_CAIRO
int main(void)
{
    printf("1..0 # SKIP built without cairo (libcairo2-dev): no pictures to check\n");
    return 0;
}
#else
#include <cairo.h>

#include "plot_test.h"

/* ---- reading the pictures back ------------------------------------------ */

static cairo_surface_t *png;

static int load_png(const char *path, int w, int h)
{
    if (png)
        cairo_surface_destroy(png);
    png = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(png) != CAIRO_STATUS_SUCCESS)
        return 0;
    return cairo_image_surface_get_width(png) == w && cairo_image_surface_get_height(png) == h;
}

static unsigned pixel(double x, double y)
{
    return png_pixel(png, x, y);
}

static int near(unsigned got, unsigned want, int tol)
{
    for (int s = 0; s < 24; s += 8)
        if (abs((int)(got >> s & 255) - (int)(want >> s & 255)) > tol)
            return 0;
    return 1;
}

#define is_colour(got, want, tol, ...)                                                      \
    do {                                                                                    \
        unsigned g_ = (got), w_ = (want);                                                   \
        if (!tap_ok(near(g_, w_, tol), __FILE__, __LINE__, __VA_ARGS__))                    \
            printf("#   got #%06x, want #%06x\n", g_, w_);                                  \
    } while (0)

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s)
        s[n] = 0;
    if (len)
        *len = (size_t)n;
    return s;
}

static int have_xmllint = -1;

/* The SVG: well formed (xmllint), its viewBox is w x h, and every glyph
 * cairo placed (<use xlink:href="#glyph..." x= y=>) is inside it. */
static void check_svg(const char *path, double w, double h, const char *what)
{
    char *s = slurp(path, NULL);
    ok(s && strstr(s, "<svg"), "%s: an SVG file", what);
    if (!s)
        return;
    double vw = 0, vh = 0;
    const char *vb = strstr(s, "viewBox=\"");
    ok(vb && sscanf(vb, "viewBox=\"0 0 %lf %lf\"", &vw, &vh) == 2 && vw == w && vh == h,
       "%s: viewBox 0 0 %g %g", what, w, h);
    int glyphs = 0, outside = 0;
    for (const char *p = s; (p = strstr(p, "<use xlink:href=\"#glyph")) != NULL; p++) {
        double x, y;
        const char *px = strstr(p, " x=\""), *py = strstr(p, " y=\"");
        if (!px || !py || sscanf(px, " x=\"%lf\"", &x) != 1 || sscanf(py, " y=\"%lf\"", &y) != 1)
            continue;
        glyphs++;
        outside += x < 0 || y < 0 || x > w || y > h;
    }
    ok(glyphs > 0 && outside == 0, "%s: %d glyphs, all inside the viewBox (%d outside)", what,
       glyphs, outside);
    free(s);
    if (have_xmllint < 0)
        have_xmllint = system("xmllint --version > /dev/null 2>&1") == 0;
    if (!have_xmllint) {
        printf("ok %d - # SKIP %s: xmllint not installed, XML not checked\n", ++tap_n, what);
        return;
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
    ok(system(cmd) == 0, "%s: well-formed XML (xmllint)", what);
}

/* ---- inputs ------------------------------------------------------------- */

/* A nx x ny x nz stencil, face bytes to each neighbour (for the large cases). */
static topomap_profile_t *stencil(int nx, int ny, int nz)
{
    int n = nx * ny * nz, m = 0;
    int *s = malloc(sizeof(int) * 6 * n), *d = malloc(sizeof(int) * 6 * n);
    double *b = malloc(sizeof(double) * 6 * n);
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int r = x + nx * (y + ny * z);
                int nb[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                                {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
                for (int k = 0; k < 6; k++) {
                    int X = nb[k][0], Y = nb[k][1], Z = nb[k][2];
                    if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz)
                        continue;
                    s[m] = r;
                    d[m] = X + nx * (Y + ny * Z);
                    b[m++] = 1000.0 * (1 + k);
                }
            }
    topomap_profile_t *p = profile(n, m, s, d, b);
    free(s);
    free(d);
    free(b);
    return p;
}

/* ---- the pictures ------------------------------------------------------- */

/* Colours of the documented scales. */
#define VIRIDIS_0 0x440154u  /* the heaviest traffic */
#define VIRIDIS_5 0x21918cu  /* halfway up the log scale */
#define VIRIDIS_10 0xfde725u /* the lightest traffic */
#define WHITE 0xffffffu

static void test_matrix(void)
{
    /* 0->1 1000 B, 1->0 10 B (the least), 2->3 100 kB (the most). */
    int s[] = {0, 1, 2}, d[] = {1, 0, 3};
    double b[] = {1000, 10, 100000};
    topomap_profile_t *p = profile(4, 3, s, d, b);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_plot_opts_t o = opts(400, 460);
    int rc = topomap_plot_matrix(out("m.png"), &o, p, NULL, NULL, err, sizeof err);
    ok(rc == 0, "matrix: drawn to PNG (%s)", err);
    ok(load_png(out("m.png"), 400, 460), "matrix: the PNG is 400 x 460");
    const topomap_plot_item_t *c = find(TOPOMAP_PLOT_ITEM_CELLS, 0, -1, -1);
    ok(c && c->a == 4 && c->b == 1 && c->value >= 1, "matrix: 4 x 4 cells of one rank");
    if (c) {
        double cs = c->value;
#define CELL(i, j) pixel(c->x + ((j) + 0.5) * cs, c->y + ((i) + 0.5) * cs)
        is_colour(CELL(2, 3), VIRIDIS_0, 0, "matrix: 2 -> 3, the most bytes, is the darkest");
        is_colour(CELL(1, 0), VIRIDIS_10, 0, "matrix: 1 -> 0, the fewest, is the lightest");
        is_colour(CELL(0, 1), VIRIDIS_5, 0, "matrix: 0 -> 1, halfway on the log scale");
        is_colour(CELL(0, 0), WHITE, 0, "matrix: no traffic is white");
        is_colour(CELL(3, 2), WHITE, 0, "matrix: 3 -> 2 sent nothing (rows send)");
    }
    ok(texts_inside(400, 460), "matrix: every text inside the canvas");
    ok(has_text("10 B") && has_text("100 kB") && has_text("log scale"),
       "matrix: the legend's ends in bytes");
    o = opts(400, 460);
    rc = topomap_plot_matrix(out("m.svg"), &o, p, NULL, NULL, err, sizeof err);
    ok(rc == 0, "matrix: drawn to SVG");
    ok(texts_inside(400, 460) && has_text("100 kB"), "matrix SVG: texts inside, legend");
    check_svg(out("m.svg"), 400, 460, "matrix SVG");
    o = opts(400, 460);
    ok(topomap_plot_matrix(out("m.pdf"), &o, p, NULL, NULL, err, sizeof err) == 0,
       "matrix: drawn to PDF");
    char *pdf = slurp(out("m.pdf"), NULL);
    ok(pdf && !strncmp(pdf, "%PDF", 4), "matrix: the PDF starts with %%PDF");
    free(pdf);

    /* Grouped by node: ranks 1, 3 on node 0, ranks 0, 2 on node 1; the
     * axes read 1 3 0 2, so 2 -> 3 is row 3, column 1. */
    int dims[] = {2}, wrap[] = {0};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 2, "n[0-1]", err, sizeof err);
    int node[] = {1, 0, 1, 0};
    o = opts(400, 500);
    rc = topomap_plot_matrix(out("mg.png"), &o, p, t, node, err, sizeof err);
    ok(rc == 0 && load_png(out("mg.png"), 400, 500), "matrix grouped: drawn");
    c = find(TOPOMAP_PLOT_ITEM_CELLS, 0, -1, -1);
    if (c) {
        double cs = c->value;
        is_colour(CELL(3, 1), VIRIDIS_0, 0, "matrix grouped: 2 -> 3 at row 3, column 1");
        is_colour(CELL(1, 0), WHITE, 0, "matrix grouped: 3 -> 1 sent nothing");
        is_colour(pixel(c->x + 2 * cs, c->y + 0.5 * cs), 0x262626, 0,
                  "matrix grouped: the node boundary after two ranks");
    }
    ok(has_text("n0") && has_text("n1") && texts_inside(400, 500),
       "matrix grouped: node names, every text inside");
    int bad[] = {0, 0, 5, 0};
    ok(topomap_plot_matrix(out("bad.png"), &o, p, t, bad, err, sizeof err) < 0 && errno == EINVAL &&
           access(out("bad.png"), F_OK) != 0,
       "matrix: a node out of range is EINVAL, no file left");
    topomap_topology_free(t);
    topomap_profile_free(p);

    /* More ranks than pixels: binned, and said. */
    int n = 3000, *s2 = malloc(sizeof(int) * n), *d2 = malloc(sizeof(int) * n);
    double *b2 = malloc(sizeof(double) * n);
    for (int r = 0; r < n; r++) {
        s2[r] = r;
        d2[r] = (r + 1) % n;
        b2[r] = 100 + r;
    }
    p = profile(n, n, s2, d2, b2);
    o = opts(500, 0);
    rc = topomap_plot_matrix(out("mb.png"), &o, p, NULL, NULL, err, sizeof err);
    c = find(TOPOMAP_PLOT_ITEM_CELLS, 0, -1, -1);
    ok(rc == 0 && c && c->b > 1 && c->a * c->b >= n && (c->a - 1) * c->b < n,
       "matrix: 3000 ranks binned (%d bins of %d ranks)", c ? c->a : 0, c ? c->b : 0);
    ok(has_text("binned: each cell sums") && texts_inside(500, png_height(out("mb.png"), 500)),
       "matrix binned: the caption says so, every text inside");
    free(s2);
    free(d2);
    free(b2);
    topomap_profile_free(p);
}

static void test_mapping(void)
{
    /* A 2x2 mesh, two cores per node: ranks 0, 1 on node 0 (top left),
     * 2, 3 on node 3 (bottom right); 0 <-> 2 exchange 5000 B. */
    char err[TOPOMAP_ERRLEN] = "";
    int dims[] = {2, 2}, wrap[] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 2, "m[0-3]", err, sizeof err);
    int s[] = {0, 2, 0}, d[] = {2, 0, 1};
    double b[] = {3000, 2000, 700};
    topomap_profile_t *p = profile(4, 3, s, d, b);
    int node[] = {0, 0, 3, 3}, core[] = {0, 1, 0, 1};
    topomap_plot_placement_t pl = {"diag", node, core};
    topomap_plot_opts_t o = opts(600, 560);
    int rc = topomap_plot_mapping(out("map.png"), &o, p, t, NULL, &pl, 1, err, sizeof err);
    ok(rc == 0 && load_png(out("map.png"), 600, 560), "mapping: drawn to a 600 x 560 PNG (%s)",
       err);
    ok(count(TOPOMAP_PLOT_ITEM_NODE) == 4, "mapping: the 4 nodes of the used box drawn");
    const topomap_plot_item_t *n0 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 0, -1),
                              *n1 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 1, -1);
    ok(n0 && n0->value == 2 && n0->b == 1 && n1 && n1->value == 0 && n1->b == 0,
       "mapping: node 0 holds 2 ranks, node 1 none and is not allocated");
    if (n0 && n1) {
        is_colour(pixel(n0->x + 3, n0->y + n0->h - 3), 0xd6e8f7, 1,
                  "mapping: a node with ranks is pale blue");
        is_colour(pixel(n1->x + 3, n1->y + n1->h - 3), 0xededed, 1,
                  "mapping: a node outside the allocation is grey");
        ok(n1->x > n0->x && fabs(n1->y - n0->y) < 1e-9, "mapping: node 1 right of node 0");
    }
    const topomap_plot_item_t *pr = find(TOPOMAP_PLOT_ITEM_PAIR, 0, 0, 3);
    ok(pr && pr->value == 5000, "mapping: one line for nodes 0 and 3, 5000 B");
    ok(count(TOPOMAP_PLOT_ITEM_PAIR) == 1, "mapping: pairs inside a node get no line");
    if (pr) /* 2 hops: Okabe-Ito's bluish green #009e73, 85% over white */
        is_colour(pixel(pr->x + pr->w / 2, pr->y + pr->h / 2), 0x26ad88, 2,
                  "mapping: the line of 2 hops is bluish green");
    ok(has_text("0-1") && has_text("2-3") && has_text("hop-bytes 10 k") && has_text("2 hops"),
       "mapping: ranks in their nodes, hop-bytes 10,000 in the caption, the hop legend");
    ok(texts_inside(600, 560), "mapping: every text inside the canvas");
    o = opts(600, 560);
    ok(topomap_plot_mapping(out("map.svg"), &o, p, t, NULL, &pl, 1, err, sizeof err) == 0,
       "mapping: drawn to SVG");
    check_svg(out("map.svg"), 600, 560, "mapping SVG");

    /* Side by side, with the allocation: the caption compares. */
    int node2[] = {0, 1, 2, 3};
    topomap_plot_placement_t two[2] = {{"first", node, core}, {"second", node2, NULL}};
    topomap_alloc_t *a = topomap_alloc_create(t, "m[0-3]", "2", err, sizeof err);
    o = opts(900, 0);
    rc = topomap_plot_mapping(out("map2.png"), &o, p, t, a, two, 2, err, sizeof err);
    ok(rc == 0, "mapping: two placements side by side");
    const topomap_plot_item_t *r1 = find(TOPOMAP_PLOT_ITEM_NODE, 1, 1, -1);
    ok(r1 && r1->b == 1 && r1->value == 1 && r1->x > 450, "mapping: node 1 of the right panel");
    /* second: 0->2 is 1 hop (node 0 -> node 2), 0->1 1 hop: 5700 = 0.57 x 10000 */
    ok(has_text("second: hop-bytes 5.7 k = 0.57 x first"), "mapping: the relative hop-bytes");
    o = opts(900, 0);
    topomap_plot_placement_t three[3] = {two[0], two[1], two[0]};
    errno = 0;
    ok(topomap_plot_mapping(out("x.png"), &o, p, t, a, three, 3, err, sizeof err) < 0 &&
           errno == EINVAL,
       "mapping: three placements are EINVAL");
    int far[] = {0, 0, 9, 3};
    topomap_plot_placement_t bad = {"bad", far, NULL};
    ok(topomap_plot_mapping(out("x.png"), &o, p, t, a, &bad, 1, err, sizeof err) < 0 &&
           errno == EINVAL && strstr(err, "rank 2"),
       "mapping: a node out of range is EINVAL and names the rank");
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);

    /* Tianhe-3: 2x2 chips of 4 nodes; switches are the chip halves. */
    t = topomap_topology_tianhe3(2, 2, 4, 1, NULL, err, sizeof err);
    int s3[] = {0, 1}, d3[] = {1, 2};
    double b3[] = {100, 200};
    p = profile(3, 2, s3, d3, b3);
    int nd3[] = {0, 2, 13}; /* chip 0 left, chip 0 right, chip 3 left */
    topomap_plot_placement_t p3 = {"th3", nd3, NULL};
    o = opts(800, 0);
    ok(topomap_plot_mapping(out("th3.png"), &o, p, t, NULL, &p3, 1, err, sizeof err) == 0,
       "tianhe3: drawn (%s)", err);
    ok(count(TOPOMAP_PLOT_ITEM_SWITCH) == 8 && find(TOPOMAP_PLOT_ITEM_SWITCH, 0, 16 + 2 * 3 + 0, -1),
       "tianhe3: the two sides of all 4 chips of the used box");
    const topomap_plot_item_t *a0 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 0, -1),
                              *a2 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 2, -1),
                              *a13 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 13, -1);
    ok(count(TOPOMAP_PLOT_ITEM_NODE) == 3 && a0 && a2 && a13 && a2->x > a0->x && a13->y > a0->y,
       "tianhe3: only the used nodes; right side right, chip row 1 below");
    ok(has_text("chip 1,1") && has_text("right") && texts_inside(800, png_height(out("th3.png"), 800)),
       "tianhe3: chips and sides labelled");
    o = opts(800, 0);
    o.whole = 1;
    ok(topomap_plot_mapping(out("th3w.svg"), &o, p, t, NULL, &p3, 1, err, sizeof err) == 0 &&
           count(TOPOMAP_PLOT_ITEM_NODE) == 16,
       "tianhe3: --whole draws all 16 nodes");
    topomap_profile_free(p);
    topomap_topology_free(t);

    /* A fat-tree: 2 leaf switches of 2 nodes under one top switch. */
    int ar[] = {2, 2}, hp[] = {4, 2};
    t = topomap_topology_tree(2, ar, hp, 1, NULL, err, sizeof err);
    p = profile(3, 2, s3, d3, b3);
    int nd4[] = {0, 1, 3};
    topomap_plot_placement_t p4 = {"tree", nd4, NULL};
    o = opts(700, 0);
    o.whole = 1;
    ok(topomap_plot_mapping(out("tree.png"), &o, p, t, NULL, &p4, 1, err, sizeof err) == 0,
       "tree: drawn (%s)", err);
    const topomap_plot_item_t *top = find(TOPOMAP_PLOT_ITEM_SWITCH, 0, 4, -1),
                              *l0 = find(TOPOMAP_PLOT_ITEM_SWITCH, 0, 5, -1),
                              *l1 = find(TOPOMAP_PLOT_ITEM_SWITCH, 0, 6, -1),
                              *t0 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 0, -1),
                              *t3 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 3, -1);
    ok(count(TOPOMAP_PLOT_ITEM_SWITCH) == 3 && top && l0 && l1 && t0 && t3,
       "tree: the top switch (element 4) and the leaf switches 5, 6 drawn");
    if (top && l0 && l1 && t0 && t3)
        ok(top->y < l0->y && l0->y < t0->y && l0->x < top->x && top->x < l1->x &&
               t3->x > l1->x - l1->w,
           "tree: top over leaves over nodes, leaf 5 left, leaf 6 right over node 3");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

static void test_links(void)
{
    /* A ring of 4 nodes: 0 -> 1 carries 1000 B, 3 -> 0 (over the wrap) 10 B. */
    char err[TOPOMAP_ERRLEN] = "";
    int dims[] = {4}, wrap[] = {1};
    topomap_topology_t *t = topomap_topology_torus(1, dims, wrap, 1, NULL, err, sizeof err);
    int s[] = {0, 3}, d[] = {1, 0};
    double b[] = {1000, 10};
    topomap_profile_t *p = profile(4, 2, s, d, b);
    int node[] = {0, 1, 2, 3};
    topomap_plot_placement_t pl = {"ring", node, NULL};
    topomap_plot_opts_t o = opts(800, 420);
    int rc = topomap_plot_links(out("l.png"), &o, p, t, NULL, &pl, 1, err, sizeof err);
    ok(rc == 0 && load_png(out("l.png"), 800, 420), "links: drawn to an 800 x 420 PNG (%s)",
       err);
    const topomap_plot_item_t *l01 = find(TOPOMAP_PLOT_ITEM_LINK, 0, 0, 1),
                              *l30 = find(TOPOMAP_PLOT_ITEM_LINK, 0, 3, 0);
    ok(count(TOPOMAP_PLOT_ITEM_LINK) == 2 && l01 && l01->value == 1000 && l30 && l30->value == 10,
       "links: two loaded channels, 0 -> 1 and 3 -> 0 over the wraparound");
    if (l01 && l30) {
        double cx = l01->x + l01->w / 2, cy = l01->y + l01->h / 2;
        is_colour(pixel(cx, cy), VIRIDIS_0, 0, "links: the busiest link is the darkest");
        /* The other direction of that cable, mirrored across it, is idle. */
        const topomap_plot_item_t *n0 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 0, -1);
        double mid = n0 ? n0->y + n0->h / 2 : cy;
        ok(cy > mid, "links: a channel going right is drawn below its cable (right-hand)");
        ok(!near(pixel(cx, 2 * mid - cy), VIRIDIS_0, 40), "links: 1 -> 0 carries nothing");
        /* 10 B is the bottom of the scale: 8% up the reversed viridis. */
        is_colour(pixel(l30->x + l30->w / 2, l30->y + l30->h / 2), 0xcae126, 2,
                  "links: the least loaded channel is the light end of the scale");
    }
    ok(has_text("10 B") && has_text("1 kB") && has_text("busiest link 1 kB"),
       "links: the legend in bytes, the busiest link in the caption");
    ok(texts_inside(800, 420), "links: every text inside the canvas");
    o = opts(800, 420);
    ok(topomap_plot_links(out("l.svg"), &o, p, t, NULL, &pl, 1, err, sizeof err) == 0,
       "links: drawn to SVG");
    check_svg(out("l.svg"), 800, 420, "links SVG");
    topomap_profile_free(p);
    topomap_topology_free(t);

    /* A 2x2x2 torus: the channels between z-slices are squares. */
    int d3[] = {2, 2, 2}, w3[] = {0, 0, 0};
    t = topomap_topology_torus(3, d3, w3, 1, NULL, err, sizeof err);
    int s2[] = {0}, d2[] = {1};
    double b2[] = {500};
    p = profile(2, 1, s2, d2, b2);
    int nz[] = {0, 4}; /* (0,0,0) -> (0,0,1) */
    topomap_plot_placement_t pz = {"z", nz, NULL};
    o = opts(700, 0);
    ok(topomap_plot_links(out("lz.png"), &o, p, t, NULL, &pz, 1, err, sizeof err) == 0,
       "links 3D: drawn (%s)", err);
    const topomap_plot_item_t *lz = find(TOPOMAP_PLOT_ITEM_LINK, 0, 0, 4),
                              *n0 = find(TOPOMAP_PLOT_ITEM_NODE, 0, 0, -1);
    ok(lz && n0 && lz->x > n0->x + n0->w / 2 && lz->x < n0->x + n0->w && lz->y > n0->y + n0->h / 2,
       "links 3D: 0 -> z + 1 is the right square at the bottom of node 0");
    ok(has_text("z = 0") && has_text("z = 1"), "links 3D: the slices are labelled");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_bench(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    /* Two topologies, one allocation; a = 0.5 x block, b = 3 x: log axis. */
    write_file(out("t.txt"),
               "# topomap benchmark\n\n"
               "profile                 ranks topology           alloc       algorithm        "
               "hop-bytes  /block /scotch   max link /scotch  time (s) t/scotch  note\n"
               "p1 16 tA compact block 1000 1 nan 5 nan 0.001 nan\n"
               "p1 16 tA compact a 500 0.5 nan 5 nan 0.002 nan\n"
               "p1 16 tA compact b 3000 3 nan 5 nan 0.004 nan\n"
               "p2 64 tA compact block 2000 1 nan 5 nan 0.01 nan\n"
               "p2 64 tA compact a 1000 0.5 nan 5 nan 0.02 nan\n"
               "p2 64 tA compact b 6000 3 nan 5 nan 0.04 nan timeout\n"
               "p1 16 tB compact block 10 1 nan 5 nan 0.001 nan\n"
               "p1 16 tB compact a 5 0.5 nan 5 nan 0.002 nan\n"
               "p1 16 tB compact b 30 3 nan 5 nan 0.003 nan\n"
               "\n## Hop-bytes relative to block\n"
               "p9 16 tC compact block 1 1 nan 5 nan 0.001 nan\n");
    topomap_plot_opts_t o = opts(900, 800);
    topomap_plot_bench_opts_t bo;
    topomap_plot_bench_opts_init(&bo);
    int rc = topomap_plot_bench(out("b.png"), &o, out("t.txt"), &bo, err, sizeof err);
    ok(rc == 0 && load_png(out("b.png"), 900, 800), "bench: drawn to a 900 x 800 PNG (%s)", err);
    const topomap_plot_item_t *ba = find(TOPOMAP_PLOT_ITEM_BAR, 0, 0, 1),
                              *bb = find(TOPOMAP_PLOT_ITEM_BAR, 0, 1, 2);
    ok(count(TOPOMAP_PLOT_ITEM_BAR) == 4 && ba && fabs(ba->value - 0.5) < 1e-12 && bb &&
           fabs(bb->value - 3) < 1e-12,
       "bench: 2 groups x 2 algorithms (block is the line at 1), the geometric means");
    if (ba && bb) {
        is_colour(pixel(ba->x + ba->w / 2, ba->y + ba->h / 2), 0x88ccee, 0,
                  "bench: algorithm 1's bars are Tol's cyan");
        is_colour(pixel(bb->x + bb->w / 2, bb->y + bb->h / 2), 0x44aa99, 0,
                  "bench: algorithm 2's bars are Tol's teal");
        ok(ba->y >= bb->y + bb->h - 1, "bench: bars start at 1: a below the line, b above");
    }
    ok(has_text("(log)") && has_text("tA") && has_text("tB") && !has_text("tC"),
       "bench: a log axis (ratios 0.5 to 3), both topologies, nothing past the summary");
    int legend = 0;
    for (int i = 0; i < nitems; i++)
        legend += items[i].kind == TOPOMAP_PLOT_ITEM_LEGEND && items[i].x >= 0 &&
                  items[i].x + items[i].w <= 900 && items[i].y >= 0 && items[i].y + items[i].h <= 800;
    ok(legend == 3 && has_text("block") && texts_inside(900, 800),
       "bench: the 3 legend entries and every text inside the canvas");
    o = opts(900, 800);
    ok(topomap_plot_bench(out("b.svg"), &o, out("t.txt"), &bo, err, sizeof err) == 0,
       "bench: drawn to SVG");
    check_svg(out("b.svg"), 900, 800, "bench SVG");

    /* The older table of the saved reference run: 8 columns. */
    write_file(out("old.txt"),
               "profile                 ranks topology           alloc     algorithm        "
               "hop-bytes  /block   time (s)  note\n"
               "p1 16 tA compact block 1000 1.000 0.0000\n"
               "p1 16 tA compact a 900 0.900 0.0001\n");
    o = opts(700, 600);
    ok(topomap_plot_bench(out("old.png"), &o, out("old.txt"), NULL, err, sizeof err) == 0 &&
           count(TOPOMAP_PLOT_ITEM_BAR) == 1 && !has_text("(log)"),
       "bench: the old 8-column table, a linear axis (ratios close to 1)");
    bo.relative = "scotch";
    errno = 0;
    ok(topomap_plot_bench(out("x.png"), &o, out("t.txt"), &bo, err, sizeof err) < 0 &&
           errno == EINVAL && strstr(err, "scotch"),
       "bench: a reference not in the table is EINVAL");
    write_file(out("none.txt"), "# nothing\nhello\n");
    ok(topomap_plot_bench(out("x.png"), &o, out("none.txt"), NULL, err, sizeof err) < 0 &&
           errno == EINVAL && strstr(err, "none.txt:2: no case table"),
       "bench: a file without a case table: FILE:LINE and the problem");
    ok(topomap_plot_bench(out("x.png"), &o, out("missing.txt"), NULL, err, sizeof err) < 0 &&
           errno == ENOENT,
       "bench: a missing table is ENOENT");
}

static void test_errors(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    int s[] = {0}, d[] = {1};
    double b[] = {1};
    topomap_profile_t *p = profile(2, 1, s, d, b);
    topomap_plot_opts_t o = opts(300, 300);
    ok(topomap_plot_available() == 1, "available with cairo");
    ok(topomap_plot_format_parse("SVG") == TOPOMAP_PLOT_SVG && topomap_plot_format_parse("gif") < 0,
       "format names: svg known, gif not");
    errno = 0;
    ok(topomap_plot_matrix(out("m.gif"), &o, p, NULL, NULL, err, sizeof err) < 0 &&
           errno == EINVAL && strstr(err, "cannot tell the picture format") &&
           access(out("m.gif"), F_OK) != 0,
       "an unknown extension is EINVAL, no file created");
    o.format = TOPOMAP_PLOT_PNG;
    ok(topomap_plot_matrix(out("m.gif"), &o, p, NULL, NULL, err, sizeof err) == 0 &&
           load_png(out("m.gif"), 300, 300),
       "--format png overrides the extension");
    o.format = 0;
    err[0] = 0;
    ok(topomap_plot_matrix("/nonexistent-dir/m.png", &o, p, NULL, NULL, err, sizeof err) < 0 &&
           errno == ENOENT && strstr(err, "cannot write '/nonexistent-dir/m.png'"),
       "an unwritable file: the errno of the open, named in the message");
    o.width = 10;
    ok(topomap_plot_matrix(out("tiny.png"), &o, p, NULL, NULL, err, sizeof err) < 0 &&
           errno == EINVAL && access(out("tiny.png"), F_OK) != 0,
       "a canvas of 10 pixels is EINVAL");
    ok(topomap_plot_matrix(out("x.png"), &o, NULL, NULL, NULL, err, sizeof err) < 0 &&
           errno == EINVAL,
       "no profile is EINVAL");
    /* /dev/full: the open works, the write fails; the error is reported. */
    if (access("/dev/full", W_OK) == 0) {
        o.width = 300;
        o.format = TOPOMAP_PLOT_PNG;
        ok(topomap_plot_matrix("/dev/full", &o, p, NULL, NULL, err, sizeof err) < 0 &&
               errno == ENOSPC && access("/dev/full", W_OK) == 0,
           "a full disk is ENOSPC, and the device is left alone");
    } else {
        printf("ok %d - # SKIP no /dev/full to write to\n", ++tap_n);
    }
    topomap_profile_free(p);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 16,384 ranks (a 32x32x16 stencil) on the 16x16x16 torus with 4 slots per
 * node, block: every kind renders; the times are reported, not judged. */
static void test_large(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = stencil(32, 32, 16);
    int dims[] = {16, 16, 16}, wrap[] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    int n = 16384, *node = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++)
        node[r] = r / 4;
    topomap_plot_placement_t pl = {"block", node, NULL};
    topomap_plot_opts_t o;
    topomap_plot_opts_init(&o);
    double t0 = now();
    ok(topomap_plot_matrix(out("big-m.png"), &o, p, NULL, NULL, err, sizeof err) == 0,
       "16384 ranks: matrix drawn");
    double t1 = now();
    ok(topomap_plot_matrix(out("big-mg.png"), &o, p, t, node, err, sizeof err) == 0,
       "16384 ranks: matrix grouped by node drawn");
    double t2 = now();
    ok(topomap_plot_mapping(out("big-map.png"), &o, p, t, NULL, &pl, 1, err, sizeof err) == 0,
       "16384 ranks: mapping on 4096 nodes drawn");
    double t3 = now();
    ok(topomap_plot_links(out("big-l.png"), &o, p, t, NULL, &pl, 1, err, sizeof err) == 0,
       "16384 ranks: link loads drawn");
    double t4 = now();
    printf("# 16384 ranks, seconds: matrix %.2f, grouped %.2f, mapping %.2f, links %.2f\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    free(node);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

int main(void)
{
    if (plot_test_begin() < 0)
        return 0;
    test_matrix();
    test_mapping();
    test_links();
    test_bench();
    test_errors();
    test_large();
    if (png)
        cairo_surface_destroy(png);
    return plot_test_end();
}
#endif
