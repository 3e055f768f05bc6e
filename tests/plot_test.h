/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the tests of libtopomap-plot drawn with cairo (tests/plot.c,
 * tests/plot_labels.c, tests/plot_curves.c): a temporary directory for the pictures, what the
 * drawing reported (its on_item callback), the height and pixels of a PNG
 * read back,
 * small profiles. */
#ifndef TOPOMAP_PLOT_TEST_H
#define TOPOMAP_PLOT_TEST_H
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"
#include "topomap_plot.h"

static char dir[] = "/tmp/topomap-plot.XXXXXX";
/* DIR/name; four buffers in turn, so that a call may take two paths. */
static inline const char *out(const char *name)
{
    static char buf[4][4096];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* ---- what was drawn ----------------------------------------------------- */

#define MAXITEMS 20000
static topomap_plot_item_t items[MAXITEMS];
static char texts[MAXITEMS][96];
static int nitems;

static inline void collect(const topomap_plot_item_t *it, void *arg)
{
    (void)arg;
    if (nitems == MAXITEMS)
        return;
    items[nitems] = *it;
    if (it->text) {
        snprintf(texts[nitems], sizeof texts[nitems], "%s", it->text);
        items[nitems].text = texts[nitems];
    }
    nitems++;
}

static inline topomap_plot_opts_t opts(int w, int h)
{
    topomap_plot_opts_t o;
    topomap_plot_opts_init(&o);
    o.width = w;
    o.height = h;
    o.on_item = collect;
    nitems = 0;
    return o;
}

static inline const topomap_plot_item_t *find(int kind, int panel, int a, int b)
{
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == kind && items[i].panel == panel && (a < 0 || items[i].a == a) &&
            (b < 0 || items[i].b == b))
            return &items[i];
    return NULL;
}

static inline int count(int kind)
{
    int c = 0;
    for (int i = 0; i < nitems; i++)
        c += items[i].kind == kind;
    return c;
}

/* A text containing s was drawn. */
static inline int has_text(const char *s)
{
    for (int i = 0; i < nitems; i++)
        if (items[i].kind == TOPOMAP_PLOT_ITEM_TEXT && strstr(items[i].text, s))
            return 1;
    return 0;
}

/* Every text lies inside the w x h canvas. */
static inline int texts_inside(double w, double h)
{
    int bad = 0;
    for (int i = 0; i < nitems; i++) {
        const topomap_plot_item_t *t = &items[i];
        if (t->kind != TOPOMAP_PLOT_ITEM_TEXT)
            continue;
        if (t->x < 0 || t->y < 0 || t->x + t->w > w || t->y + t->h > h) {
            if (!bad++)
                printf("#   text '%s' at %.1f,%.1f %.1fx%.1f is outside %gx%g\n", t->text, t->x,
                       t->y, t->w, t->h, w, h);
        }
    }
    return !bad && count(TOPOMAP_PLOT_ITEM_TEXT) > 0;
}

/* ---- reading the pictures back ------------------------------------------ */

/* The height of the PNG at path (its width must be w), 0 if unreadable. */
static inline int png_height(const char *path, int w)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    int h = cairo_surface_status(s) == CAIRO_STATUS_SUCCESS && cairo_image_surface_get_width(s) == w
                ? cairo_image_surface_get_height(s)
                : 0;
    cairo_surface_destroy(s);
    return h;
}

/* The colour (0xRRGGBB) of the pixel at (x, y) of an image surface,
 * 0xdeadbeef outside it. */
static inline unsigned png_pixel(cairo_surface_t *s, double x, double y)
{
    int px = (int)floor(x), py = (int)floor(y);
    if (px < 0 || py < 0 || px >= cairo_image_surface_get_width(s) ||
        py >= cairo_image_surface_get_height(s))
        return 0xdeadbeef;
    const unsigned char *d = cairo_image_surface_get_data(s);
    return *(const uint32_t *)(d + (size_t)py * cairo_image_surface_get_stride(s) + 4 * px) &
           0xffffff;
}

/* ---- inputs ------------------------------------------------------------- */

static inline topomap_profile_t *profile(int n, int m, const int *src, const int *dst,
                                  const double *bytes)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, bytes, NULL, err,
                                                  sizeof err);
    if (!p)
        printf("# profile: %s\n", err);
    return p;
}

/* ---- the test's directory ----------------------------------------------- */

/* Make the pictures' directory: 0, or -1 after the TAP line that skips. */
static inline int plot_test_begin(void)
{
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP cannot create a temporary directory\n");
        return -1;
    }
    return 0;
}

/* Remove the pictures (TOPOMAP_KEEP_PICTURES keeps them); the TAP plan. */
static inline int plot_test_end(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!getenv("TOPOMAP_KEEP_PICTURES") && system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    else if (getenv("TOPOMAP_KEEP_PICTURES"))
        printf("# pictures kept in %s\n", dir);
    return done_testing();
}
#endif
