/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot without cairo: options, formats and errors, compiled with
 * or without cairo (the drawing calls are plot_common.c and the other
 * plot_*.c files with cairo, plot_none.c without). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PLOT_NO_CAIRO
#include "plot.h"

int plot_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        /* What a terminal would act on (names from the command line), as
         * libtopomap's own messages. */
        topomap_printable(err, err, errlen);
    }
    errno = e;
    return -1;
}

void topomap_plot_opts_init(topomap_plot_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->pairs = 24;
}

void topomap_plot_bench_opts_init(topomap_plot_bench_opts_t *b)
{
    memset(b, 0, sizeof *b);
    b->relative = "block";
}

int topomap_plot_format_parse(const char *name)
{
    static const char *names[] = {"auto", "png", "svg", "pdf"};
    for (int i = 0; name && i < 4; i++)
        if (!strcasecmp(name, names[i]))
            return i;
    errno = EINVAL;
    return -1;
}

int topomap_plot_format_of(const char *path, int format, char *err, size_t errlen)
{
    if (format > TOPOMAP_PLOT_AUTO && format <= TOPOMAP_PLOT_PDF)
        return format;
    if (format != TOPOMAP_PLOT_AUTO || !path)
        return plot_fail(err, errlen, EINVAL, "unknown picture format %d", format);
    const char *dot = strrchr(path, '.');
    int f = dot && !strchr(dot, '/') ? topomap_plot_format_parse(dot + 1) : -1;
    if (f <= TOPOMAP_PLOT_AUTO)
        return plot_fail(err, errlen, EINVAL,
                         "%s: cannot tell the picture format from the name (use .png, .svg or "
                         ".pdf, or give the format)",
                         path);
    return f;
}
