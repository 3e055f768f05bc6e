/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-plot as a build without cairo has it (plot/plot_none.c, linked
 * here whatever configure found): nothing available, every drawing call
 * fails with ENOTSUP and a sentence naming the missing package, and no
 * file is created. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap_plot.h"

int main(void)
{
    char err[TOPOMAP_ERRLEN] = "", path[] = "/tmp/topomap-nocairo.png";
    unlink(path);
    ok(topomap_plot_available() == 0, "not available without cairo");
    errno = 0;
    ok(topomap_plot_matrix(path, NULL, NULL, NULL, NULL, err, sizeof err) < 0 && errno == ENOTSUP,
       "matrix: ENOTSUP");
    like(err, "built without cairo", "matrix: says why");
    like(err, "libcairo2-dev", "matrix: names the package");
    err[0] = 0;
    ok(topomap_plot_mapping(path, NULL, NULL, NULL, NULL, NULL, 1, err, sizeof err) < 0 &&
           errno == ENOTSUP && strstr(err, "without cairo"),
       "mapping: ENOTSUP with the sentence");
    err[0] = 0;
    ok(topomap_plot_links(path, NULL, NULL, NULL, NULL, NULL, 1, err, sizeof err) < 0 &&
           errno == ENOTSUP && strstr(err, "without cairo"),
       "links: ENOTSUP with the sentence");
    err[0] = 0;
    ok(topomap_plot_bench(path, NULL, "table.txt", NULL, err, sizeof err) < 0 &&
           errno == ENOTSUP && strstr(err, "without cairo"),
       "bench: ENOTSUP with the sentence");
    err[0] = 0;
    ok(topomap_plot_curves(path, NULL, "table.txt", err, sizeof err) < 0 && errno == ENOTSUP &&
           strstr(err, "without cairo"),
       "curves: ENOTSUP with the sentence");
    ok(access(path, F_OK) != 0, "no file was created");
    ok(topomap_plot_format_parse("pdf") == TOPOMAP_PLOT_PDF &&
           topomap_plot_format_of("a.svg", 0, err, sizeof err) == TOPOMAP_PLOT_SVG,
       "formats are still known");
    return done_testing();
}
