/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot built without cairo (configure found no libcairo2-dev, or
 * --without-cairo): every drawing call fails with ENOTSUP and one sentence
 * saying why, so that `topomap plot` can say so in one line. */
#include <errno.h>

#define PLOT_NO_CAIRO
#include "plot.h"

int topomap_plot_available(void)
{
    return 0;
}

int topomap_plot_matrix(const char *path, const topomap_plot_opts_t *o,
                        const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                        char *err, size_t errlen)
{
    return plot_fail(err, errlen, ENOTSUP, PLOT_NO_CAIRO_MSG);
}

int topomap_plot_mapping(const char *path, const topomap_plot_opts_t *o,
                         const topomap_profile_t *p, const topomap_topology_t *t,
                         const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                         char *err, size_t errlen)
{
    return plot_fail(err, errlen, ENOTSUP, PLOT_NO_CAIRO_MSG);
}

int topomap_plot_links(const char *path, const topomap_plot_opts_t *o,
                       const topomap_profile_t *p, const topomap_topology_t *t,
                       const topomap_alloc_t *a, const topomap_plot_placement_t *pl, int npl,
                       char *err, size_t errlen)
{
    return plot_fail(err, errlen, ENOTSUP, PLOT_NO_CAIRO_MSG);
}

int topomap_plot_bench(const char *path, const topomap_plot_opts_t *o, const char *table,
                       const topomap_plot_bench_opts_t *b, char *err, size_t errlen)
{
    return plot_fail(err, errlen, ENOTSUP, PLOT_NO_CAIRO_MSG);
}

int topomap_plot_curves(const char *path, const topomap_plot_opts_t *o, const char *table,
                        char *err, size_t errlen)
{
    return plot_fail(err, errlen, ENOTSUP, PLOT_NO_CAIRO_MSG);
}
