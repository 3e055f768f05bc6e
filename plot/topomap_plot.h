/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap_plot.h
 * @brief Pictures: communication matrices, placements on the machine, link
 *        loads and benchmark tables, drawn with cairo into PNG, SVG or PDF.
 *
 * libtopomap-plot is a small library beside libtopomap (plot/plot_*.c),
 * linked into the topomap command (`topomap plot`) and topomap-bench, and
 * never into libtopomap itself, so that the library and the SPANK plugin do
 * not load cairo. It uses only the public API of topomap.h and follows its
 * conventions: 0 / -1 with errno, one sentence in an optional error buffer,
 * const inputs never modified, nothing printed. cairo is optional at build
 * time: without it every drawing call fails with errno ENOTSUP and says so
 * (plot/plot_none.c). Not installed: its interface may change.
 */
#ifndef TOPOMAP_PLOT_H
#define TOPOMAP_PLOT_H

#include <stddef.h>

#include "topomap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output formats. */
enum topomap_plot_format {
    TOPOMAP_PLOT_AUTO = 0, /**< by the file's extension: .png, .svg, .pdf */
    TOPOMAP_PLOT_PNG,
    TOPOMAP_PLOT_SVG,
    TOPOMAP_PLOT_PDF
};

/** 1 when built with cairo (pictures can be drawn), else 0. */
int topomap_plot_available(void);

/**
 * The format named @p name ("png", "svg", "pdf", "auto"), or -1 with errno
 * EINVAL.
 */
int topomap_plot_format_parse(const char *name);

/**
 * The format a picture written to @p path gets: @p format unless it is
 * TOPOMAP_PLOT_AUTO, else the one of @p path's extension (case-insensitive).
 * @return the format, or -1 with errno EINVAL and a message in @p err when
 *         the extension names none.
 */
int topomap_plot_format_of(const char *path, int format, char *err, size_t errlen);

/** What the drawing calls report through topomap_plot_opts_t.on_item. */
enum topomap_plot_item_kind {
    TOPOMAP_PLOT_ITEM_TEXT = 0, /**< a text: text, its box */
    TOPOMAP_PLOT_ITEM_CELLS,    /**< matrix: the heat map; a = bins per side,
                                     b = ranks per bin, value = pixels per bin */
    TOPOMAP_PLOT_ITEM_NODE,     /**< a node box; a = node, value = ranks on it,
                                     b = 1 when allocated */
    TOPOMAP_PLOT_ITEM_SWITCH,   /**< a switch; a = network element */
    TOPOMAP_PLOT_ITEM_LINK,     /**< links: one loaded channel; a -> b
                                     (elements), value = bytes, box = the
                                     middle of its stroke */
    TOPOMAP_PLOT_ITEM_PAIR,     /**< mapping: a line between nodes a and b,
                                     value = bytes between their ranks */
    TOPOMAP_PLOT_ITEM_BAR,      /**< bench: a bar; a = group, b = series */
    TOPOMAP_PLOT_ITEM_LEGEND,   /**< a legend's box */
    TOPOMAP_PLOT_ITEM_POINT     /**< curves: a point; a = case (line of the
                                     section), b = time limit (0 ..), or the
                                     number of limits for Scotch's mark,
                                     value = hop-bytes / block's */
};

/** One thing drawn, in canvas units (pixels for PNG, points otherwise). */
typedef struct topomap_plot_item {
    int kind;         /**< enum topomap_plot_item_kind */
    int panel;        /**< 0, or 1 for the right picture of a comparison,
                           the panel of a benchmark picture */
    int a, b;         /**< see enum topomap_plot_item_kind */
    double value;     /**< see enum topomap_plot_item_kind */
    double x, y, w, h; /**< bounding box: left, top, width, height */
    const char *text; /**< TEXT: the string (valid during the call), else NULL */
} topomap_plot_item_t;

/** Options common to every picture. Initialise with topomap_plot_opts_init(). */
typedef struct topomap_plot_opts {
    int format;        /**< enum topomap_plot_format (default: by extension) */
    int width, height; /**< canvas size; 0: the picture's default (height 0:
                            from the width and the picture's shape) */
    const char *title; /**< NULL: a title naming the inputs; "": none */
    /** mapping: the heaviest node pairs drawn as lines (default 24, 0: none) */
    int pairs;
    /** mapping, links: 1 draws the whole machine; 0 (default) only the part
     *  the allocation and the placements use (a box of a torus, the chips
     *  of Tianhe-3 and their used nodes, the used branches of a tree) */
    int whole;
    /** Called for every item drawn (tests, image maps); NULL: none. */
    void (*on_item)(const topomap_plot_item_t *item, void *arg);
    void *item_arg;
} topomap_plot_opts_t;

void topomap_plot_opts_init(topomap_plot_opts_t *o);

/**
 * Draw the communication matrix of @p p (bytes from row rank to column rank,
 * as recorded) into @p path as a heat map: white where nothing was sent, a
 * colour on a logarithmic scale elsewhere, with a legend in bytes. With
 * @p node (nranks entries, may be NULL) the ranks are ordered by the node
 * they sit on (node order, then rank) and the node boundaries drawn; @p t
 * (may be NULL) then names the nodes. More ranks than pixels are binned
 * (bins of k x k ranks hold their sum; the picture says so).
 * @return 0, or -1 with errno EINVAL (bad argument, node out of range),
 *         ENOTSUP (built without cairo), ENOMEM, or the errno of writing
 *         @p path, with a message in @p err. A failed write leaves no file.
 */
int topomap_plot_matrix(const char *path, const topomap_plot_opts_t *o,
                        const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                        char *err, size_t errlen);

/** A placement to draw: where each rank of the profile sits. */
typedef struct topomap_plot_placement {
    const char *label; /**< e.g. the algorithm's name; NULL: "mapping" */
    const int *node;   /**< nranks topology nodes */
    const int *core;   /**< nranks cores, or NULL (not shown) */
} topomap_plot_placement_t;

/**
 * Draw @p npl (1 or 2) placements of @p p on @p t side by side: the network
 * (2D meshes and tori as grids, 3D and more as a row of z-slices, Tianhe-3
 * as its chip grid with the left and right side of each chip, trees as
 * switches over their nodes), each node showing its ranks (or how many when
 * they do not fit), the heaviest communicating node pairs as lines coloured
 * by their hop count, and under each placement its hop-bytes (relative to
 * the first one). @p a (may be NULL) is the allocation: its nodes are drawn
 * as allocated even when no rank uses them.
 * @return as topomap_plot_matrix(); EINVAL also for npl out of range.
 */
int topomap_plot_mapping(const char *path, const topomap_plot_opts_t *o,
                         const topomap_profile_t *p, const topomap_topology_t *t,
                         const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                         char *err, size_t errlen);

/**
 * Draw the load of every network channel (topomap_link_loads(): each pair's
 * bytes routed over the network) for @p npl (1 or 2) placements, on the same
 * drawing of the machine as topomap_plot_mapping(), one colour scale in bytes
 * for both; each cable is two strokes, one per direction (right-hand
 * traffic). Channels between z-slices of a torus are the small squares
 * under each node (left: towards z - 1, right: towards z + 1). Under each
 * placement: its busiest channel and the number of loaded channels.
 * @return as topomap_plot_mapping().
 */
int topomap_plot_links(const char *path, const topomap_plot_opts_t *o,
                       const topomap_profile_t *p, const topomap_topology_t *t,
                       const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                       char *err, size_t errlen);

/** What topomap_plot_bench() draws. */
typedef struct topomap_plot_bench_opts {
    /** The reference of the bars: "block" (default) or "scotch". */
    const char *relative;
    /** The topology whose cases are also drawn per profile; NULL: the
     *  table's tianhe3 topology when it has one; "": none. */
    const char *topology;
    /** Comma-separated algorithms to draw (NULL: every one of the table). */
    const char *algos;
} topomap_plot_bench_opts_t;

void topomap_plot_bench_opts_init(topomap_plot_bench_opts_t *b);

/**
 * Draw the case table of a topomap-bench run (@p table: its PREFIX.txt) as
 * grouped bars: hop-bytes relative to the reference, geometric mean over the
 * profiles of each topology and allocation, then per profile on one
 * topology (both allocations), then the median mapping time against the
 * number of ranks. Every legend entry is inside the picture, each algorithm
 * has its own colour (a colour-blind-safe palette; hatched beyond its
 * size), and the ratio axis is logarithmic when the ratios spread over more
 * than a factor of 4.
 * @return as topomap_plot_matrix(); EINVAL also for a table without a case
 *         table ("FILE:LINE: problem" in @p err) or a reference that is not
 *         in it.
 */
int topomap_plot_bench(const char *path, const topomap_plot_opts_t *o, const char *table,
                       const topomap_plot_bench_opts_t *b, char *err, size_t errlen);

/**
 * Draw the many-core set of a topomap-bench run (@p table: its PREFIX.txt,
 * the section "# manycore set") as time-quality curves: one panel per
 * machine, in each `auto`'s hop-bytes relative to block's at each time
 * limit (one line per profile, a colour per profile) and Scotch's, without
 * a limit, at the seconds it took; both axes logarithmic.
 * @return as topomap_plot_matrix(); EINVAL also for a table without that
 *         section or with a line that is not one of it ("FILE:LINE:
 *         problem" in @p err).
 */
int topomap_plot_curves(const char *path, const topomap_plot_opts_t *o, const char *table,
                        char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* TOPOMAP_PLOT_H */
