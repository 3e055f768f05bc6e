/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap_plot_curves() (plot/plot_curves.c): the many-core set of a
 * topomap-bench table drawn as time-quality curves, checked from the
 * outside on a table written here: one point per case and time limit and
 * one Scotch mark per case that has Scotch, in one panel per machine; in
 * each panel the points' heights follow their ratios (lower ratio, lower
 * point) and their positions across follow the time limits; a point's
 * centre has its profile's colour (Paul Tol's palette, hard-coded here);
 * every text inside the canvas. Then the errors: no section, a line that
 * is not one of it, a section without its head. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "plot_test.h"

static const char *write_file(const char *name, const char *text)
{
    const char *path = out(name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        return NULL;
    return path;
}

/* Three machines (one name with a space, as the bench writes them), two
 * profiles, five limits; the last case without Scotch. */
static const char table[] =
    "# topomap 0.1.0 benchmark\n"
    "profile                 ranks topology           alloc       algorithm        hop-bytes\n"
    "\n"
    "# manycore set: auto's hop-bytes / block's at each time limit (one thread), ...\n"
    "# profile              machine          nodes  auto@0.25       auto@0.5        auto@1    "
    "      auto@2          auto@5         scotch     s\n"
    "knn8-4096-random       fat-tree 2x64       32 0.1300 0.25/0.14 0.1250 0.50/0.34 0.1212 "
    "1.00/0.65 0.1212 1.45/0.80 0.1212 1.30/0.81 0.1691  0.68\n"
    "knn8-4096-curve        fat-tree 2x64       32 1.0000 0.25/0.17 0.5322 0.50/0.27 0.5322 "
    "1.00/0.61 0.5100 0.93/0.68 0.5000 1.03/0.68 0.7337 30.00\n"
    "knn8-4096-random       torus-8^3 2x64      32 0.0492 0.25/0.22 0.0536 0.50/0.43 0.0536 "
    "1.00/0.81 0.0536 1.74/1.52 0.0536 1.58/1.51 0.0986  0.78\n"
    "knn8-4096-curve        dragonfly 2x32      64 0.6171 0.25/0.22 0.5102 0.40/0.36 0.5102 "
    "0.75/0.62 0.5102 1.09/1.05 0.5102 1.06/1.05 (no Scotch in this build)\n"
    "\n"
    "## Hop-bytes relative to block, geometric mean over the profiles of each group\n"
    "knn8-4096-random       fat-tree 2x64       32 9 9/9 9 9/9 9 9/9 9 9/9 9 9/9 9 9\n";

static const topomap_plot_item_t *point(int c, int k)
{
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == TOPOMAP_PLOT_ITEM_POINT && items[i].a == c && items[i].b == k)
            return &items[i];
    return NULL;
}

static void test_drawing(void)
{
    const char *t = write_file("bench.txt", table), *png = out("curves.png");
    char err[TOPOMAP_ERRLEN] = "";
    topomap_plot_opts_t o = opts(900, 0);
    int rc = topomap_plot_curves(png, &o, t, err, sizeof err);
    ok(rc == 0, "curves drawn (%s)", rc == 0 ? "ok" : err);
    int npoints = 0, panels[8] = {0};
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == TOPOMAP_PLOT_ITEM_POINT) {
            npoints++;
            if (items[i].panel >= 0 && items[i].panel < 8)
                panels[items[i].panel]++;
        }
    is_int(npoints, 4 * 5 + 3, "a point per case and limit, a mark per case with Scotch");
    ok(panels[0] == 12 && panels[1] == 6 && panels[2] == 5 && panels[3] == 0,
       "one panel per machine, in the table's order (%d, %d, %d points)", panels[0], panels[1],
       panels[2]);
    /* Heights follow the ratios within a panel (log axis: lower, lower). */
    int bad = 0, pairs = 0;
    for (int i = 0; i < nitems; i++)
        for (int j = 0; j < nitems; j++) {
            const topomap_plot_item_t *a = &items[i], *b = &items[j];
            if (a->kind != TOPOMAP_PLOT_ITEM_POINT || b->kind != TOPOMAP_PLOT_ITEM_POINT ||
                a->panel != b->panel || !(a->value < b->value * 0.999))
                continue;
            pairs++;
            bad += !(a->y > b->y);
        }
    ok(pairs > 50 && bad == 0, "a lower ratio is drawn lower (%d pairs, %d out of order)", pairs,
       bad);
    /* Across: the limits in order, Scotch's 30 s right of the 5 s limit,
     * its 0.68 s between 0.5 and 1 s. */
    int order = 1;
    for (int c = 0; c < 4; c++)
        for (int k = 1; k < 5; k++)
            order &= point(c, k) && point(c, k - 1) && point(c, k)->x > point(c, k - 1)->x;
    ok(order, "each case's points left to right in limit order");
    const topomap_plot_item_t *s1 = point(1, 5), *a15 = point(1, 4), *s0 = point(0, 5);
    ok(s1 && a15 && s1->x > a15->x, "Scotch's 30 s right of the 5 s limit");
    ok(s0 && point(0, 1) && point(0, 2) && s0->x > point(0, 1)->x && s0->x < point(0, 2)->x,
       "Scotch's 0.68 s between the 0.5 and 1 s limits");
    ok(!point(3, 5), "no Scotch mark for the case without it");
    ok(point(1, 0) && fabs(point(1, 0)->value - 1) < 1e-9 && point(0, 0) &&
           point(1, 0)->y < point(0, 0)->y,
       "block's own ratio (1) drawn above a better one");
    /* Colours: profile k has Paul Tol's k-th colour (0x332288, 0x88ccee). */
    cairo_surface_t *img = cairo_image_surface_create_from_png(png);
    int readable = cairo_surface_status(img) == CAIRO_STATUS_SUCCESS;
    ok(readable && cairo_image_surface_get_width(img) == 900, "the PNG reads back, 900 wide");
    if (readable) {
        const topomap_plot_item_t *p0 = point(2, 4), *p1 = point(3, 2);
        unsigned c0 = p0 ? png_pixel(img, p0->x + p0->w / 2, p0->y + p0->h / 2) : 0;
        unsigned c1 = p1 ? png_pixel(img, p1->x + p1->w / 2, p1->y + p1->h / 2) : 0;
        is_int(c0, 0x332288, "knn8-4096-random's point in its colour");
        is_int(c1, 0x88ccee, "knn8-4096-curve's point in its colour");
    }
    cairo_surface_destroy(img);
    ok(texts_inside(900, png_height(png, 900)), "every text inside the canvas");
}

static void expect_error(const char *name, const char *text, const char *want)
{
    const char *t = write_file(name, text), *path = out("bad.png");
    char err[TOPOMAP_ERRLEN] = "";
    errno = 0;
    int rc = topomap_plot_curves(path, NULL, t, err, sizeof err);
    ok(rc < 0 && errno == EINVAL && strstr(err, want) && strstr(err, name),
       "%s: refused, naming the file (%s)", name, err);
    ok(access(path, F_OK) != 0, "%s: no picture left", name);
}

int main(void)
{
    if (plot_test_begin() < 0)
        return 0;
    test_drawing();
    expect_error("nosection.txt", "profile ranks topology alloc algorithm hop-bytes\n",
                 "no many-core set");
    expect_error("badline.txt",
                 "# manycore set: x\n# profile machine nodes auto@1 auto@2 scotch s\n"
                 "knn8 fat-tree 32 0.5 1.00/0.90 0.4 x 0.6 1.0\n",
                 "badline.txt:3: not a line of the many-core set");
    expect_error("nohead.txt", "# manycore set: x\nknn8 fat-tree 32 0.5 1/1\n",
                 "no head with its time limits");
    return plot_test_end();
}
#endif
