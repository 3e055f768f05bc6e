/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap-plot (plot/plot_*.c), never installed: the canvas
 * (a cairo surface writing to a file), text that reports where it went,
 * colour scales and legends, and the drawing of the machine that the
 * mapping and link pictures share (plot_machine.c). */
#ifndef TOPOMAP_PLOT_PRIV_H
#define TOPOMAP_PLOT_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "topomap_plot.h"

/* Fill err, set errno to e, return -1, as libtopomap's errors do
 * (plot_opts.c): the CLI links the shared libtopomap, whose surface is its
 * public API alone, so libtopomap-plot keeps its own. */
int plot_fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The message of every drawing call of a build without cairo. */
#define PLOT_NO_CAIRO_MSG \
    "this topomap was built without cairo, so it draws no pictures (install libcairo2-dev and rebuild)"

#ifndef PLOT_NO_CAIRO
#include <cairo.h>

/* A picture being drawn. */
struct plot {
    cairo_surface_t *surf;
    cairo_t *cr;
    FILE *f;          /* the output file, opened before any drawing */
    int regular;      /* 1: f is a regular file (removed when the write fails) */
    const char *path;
    int format;       /* TOPOMAP_PLOT_PNG, _SVG, _PDF */
    double w, h;      /* canvas size */
    double font;      /* base text size, from the canvas size */
    int panel;        /* reported with every item */
    topomap_plot_opts_t o;
    char *err;
    size_t errlen;
};

/* The base text size of a w x h canvas (h 0: not known yet). */
double plot_font_size(double w, double h);
/* Open path for a w x h picture (format from o and the extension), white
 * background; o may be NULL. -1 with err (nothing created) on failure. */
int plot_open(struct plot *pl, const char *path, const topomap_plot_opts_t *o, double w, double h,
              char *err, size_t errlen);
/* Finish and close the file; on failure the file is removed. plot_abort()
 * removes it whatever happened (an error while drawing). */
int plot_close(struct plot *pl);
int plot_abort(struct plot *pl, int e);

/* Report an item to o.on_item. */
void plot_item(struct plot *pl, int kind, int a, int b, double value, double x, double y,
               double w, double h);

/* Text of the given size at (x, y): ha is the horizontal anchor (0 left,
 * 0.5 centre, 1 right), va the vertical one (0 top, 0.5 middle, 1 bottom of
 * the text's ink box); angle in radians (0 or -pi/2 for rotated labels). It
 * is shrunk to fit maxw when maxw > 0 and dropped below 4 units; returns the
 * width drawn (0 when dropped). Reported as a TEXT item. */
double plot_text(struct plot *pl, double x, double y, double size, double ha, double va,
                 double maxw, double angle, const char *s);
/* Width of s at size. */
double plot_text_width(struct plot *pl, double size, const char *s);

void plot_rgb(cairo_t *cr, uint32_t rgb);
void plot_rgba(cairo_t *cr, uint32_t rgb, double alpha);
/* The heat map scale: t in [0, 1] from light (low) to dark (high), viridis
 * reversed. */
uint32_t plot_heat(double t);
/* Position of v on the log scale [lo, hi] (both > 0): 0 .. 1. */
double plot_logpos(double v, double lo, double hi);
/* Colour of a line of h hops when the largest is hmax (1 .. hmax). */
uint32_t plot_hops_colour(int h, int hmax);
/* Series colours of the benchmark: k-th distinct colour; *hatched set
 * when k is past the palette. */
uint32_t plot_series_colour(int k, int *hatched);

/* qsort comparison of doubles, ascending. */
int plot_cmp_double(const void *a, const void *b);
/* The smallest of 1, 2, 5, 10, 20, 50 ... that cuts n into at most max steps. */
int plot_round_step(int n, int max);
/* v with an SI prefix and unit, 3 significant digits: "1.5 MB", "200 B",
 * "32.4 M" (unit ""). */
const char *plot_si(double v, const char *unit, char *buf, size_t len);
/* The same in bytes. */
const char *plot_bytes(double v, char *buf, size_t len);
/* A horizontal colour bar for the log scale [lo, hi] in bytes at (x, y),
 * w x h, with ticks at the powers of 10 and the caption label above; an
 * item LEGEND for its box. Returns the height used, labels included. */
double plot_colourbar(struct plot *pl, double x, double y, double w, double h, double lo,
                      double hi, const char *label);
/* A horizontal grid line across (x, x + w) at gy, light grey or black
 * (strong), and its label right-aligned left of x at size fs. */
void plot_hgrid(struct plot *pl, double x, double w, double gy, double fs, int strong,
                const char *label);
/* The title line at the top; returns the height used. */
double plot_title(struct plot *pl, const char *title);

/* ---- the machine (plot_machine.c lays it out, plot_scene.c draws it) --- */

/* Layout units (a node box is 1 x 1): room around the boxes in a frame
 * (z-slice, chip), and above them for the frame's label. */
#define FRAME_PAD 0.45
#define FRAME_LABEL 0.75

/* A cable between two network elements, in layout units: a straight line
 * from (x0, y0) to (x1, y1), bent by bulge along the left-hand normal of
 * its direction (0: straight); wrap: a torus wraparound, drawn as two stubs
 * leaving the picture's edge. a < b. */
struct cable {
    int a, b;
    double x0, y0, x1, y1, bulge;
    int wrap;
    int zdir; /* a cable between torus z-slices: +1 (b is a's z+1 neighbour) */
};

struct machine {
    const topomap_topology_t *t;
    int nnodes, nelem;
    char kind; /* 't' torus/mesh, 'h' tianhe3, 'f' tree */
    /* Per element: drawn box (w <= 0: not drawn), the cable anchor. */
    double *x, *y, *w, *h;
    int *allocated; /* per node: 1 when in the allocation or used */
    /* Labelled frames (slices, chips, sides) and switches' labels. */
    int nframes;
    struct frame {
        double x, y, w, h;
        char label[48];
        int dashed;
    } *frames;
    int ncables;
    struct cable *cables;
    double W, H;  /* extent in layout units */
    char note[256]; /* what was left out, for the caption */
    /* Node names (machine_fit_names): drawn or not, at which size, without
     * how many leading characters (the prefix all drawn nodes share). */
    int names, name_skip;
    double name_size;
    int counted; /* 1: a node's ranks given as their count alone, "(12)";
                  * 2: a node's ranks left out (its box too small) */
};

/* Lay out the part of t that the allocation a (may be NULL) and the npl
 * placements use (the whole machine when whole); nranks ranks each. */
int machine_layout(struct machine *m, const topomap_topology_t *t, const topomap_alloc_t *a,
                   const topomap_plot_placement_t *pl, int npl, int nranks, int whole,
                   double aspect, char *err, size_t errlen);
void machine_free(struct machine *m);

/* Where a panel of the machine is drawn: layout point (lx, ly) is at
 * (ox + s lx, oy + s ly). */
struct view {
    double ox, oy, s;
};

/* The panel boxes of npl placements side by side under the title, leaving
 * room for a caption under each and a legend of height legend_h: fills
 * v[npl] and the caption's top in *cap_y. */
void machine_views(struct plot *pl, const struct machine *m, int npl, double top,
                   double legend_h, struct view *v, double *cap_y);
/* Draw the frames and switches, the cables in grey, and the node boxes
 * (pass 0) or their names and the ranks of placement p on them (pass 1,
 * over whatever was drawn in between). */
void machine_draw_frames(struct plot *pl, const struct machine *m, const struct view *v);
void machine_draw_cables(struct plot *pl, const struct machine *m, const struct view *v);
void machine_draw_nodes(struct plot *pl, struct machine *m, const struct view *v,
                        const topomap_plot_placement_t *p, int nranks, int pass);
/* How the node names fit boxes of view v (plot_nodes.c): whole, without
 * the prefix all drawn nodes share, or left out; the note says which. */
void machine_fit_names(struct plot *pl, struct machine *m, const struct view *v);
/* Add what to the note ("; " between). */
void machine_note(struct machine *m, const char *what);
/* The path of cable c in canvas units: its direction a -> b (dir 0) or
 * b -> a (dir 1) shifted by off to the right of it; mid (may be NULL) gets
 * the middle of the stroke. */
void machine_cable_path(struct plot *pl, const struct machine *m, const struct view *v,
                        const struct cable *c, int dir, double off, double *mid);

/* What the mapping and link pictures share: the placements checked, the
 * machine laid out, the canvas opened with its title, a view per placement,
 * and the hop-bytes and busiest channel of each. */
struct scene {
    struct plot pl;
    struct machine m;
    struct view v[2];
    double cap_y;    /* top of the captions */
    double legend_y; /* top of the legend under them */
    int npl, nranks;
    const char *label[2];
    topomap_metrics_t met[2];
};
/* legend_lines: the legend's height in lines of text. -1 with err. */
int scene_begin(struct scene *sc, const char *path, const topomap_plot_opts_t *o,
                const topomap_profile_t *p, const topomap_topology_t *t, const topomap_alloc_t *a,
                const topomap_plot_placement_t *pl, int npl, const char *what,
                double legend_lines, char *err, size_t errlen);
/* The caption of placement k under its view: its label and hop-bytes
 * (relative to the first placement's), then the line extra. */
void scene_caption(struct scene *sc, int k, const char *extra);
/* Start panel k: the machine with the node boxes of placement pl (their
 * labels come with machine_draw_nodes(pass 1) once the panel's own strokes
 * are drawn). Returns its view. */
const struct view *scene_panel(struct scene *sc, int k, const topomap_plot_placement_t *pl);
/* Close the canvas (rc 0) or drop it (rc < 0), free the layout. */
int scene_end(struct scene *sc, int rc);

#endif /* PLOT_NO_CAIRO */
#endif
