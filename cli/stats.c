/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap stats: matrix statistics and the process grid of a profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char help_stats[] =
    "Usage: topomap stats --profile FILE [--k K1,K2,...] [--json]\n"
    "                     [--grid-weak F] [--profile-format FMT]\n"
    "\n"
    "Print the matrix statistics of Bordage & Jeannot (2017, section 4.4) of the\n"
    "symmetrised byte matrix C = A + A^T: communication heterogeneity CH,\n"
    "communication balance CB, communication centrality CC, neighbour\n"
    "communication fraction NBC and the split fractions SP(k); and the process\n"
    "grid the profile is, if any (Bhatele et al. 2010: 2D to 4D nearest-neighbour\n"
    "grids, periodic or not, in rank order or permuted), e.g. '3D grid 8 x 4 x 4,\n"
    "periodic, x fastest' or 'not a grid: WHY'.\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required)\n"
    "  --k LIST              comma-separated block sizes k of SP(k), at most 8,\n"
    "                        e.g. cores per node (default: 4,8,16,24)\n"
    "  --json                print one JSON object instead of a table\n"
    "  --grid-weak F         the grid analyzer ignores edges below F times the\n"
    "                        average edge (default: 0.2, the paper's)\n"
    "  --profile-format FMT  auto (default), edges, dense or mtx\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap stats --profile app.txt --k 8,24 --json\n";

int cmd_stats(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "profile k json grid-weak profile-format help", help_stats, &a);
    no_positional(&a);
    require(a.profile, "--profile");

    int ks[TOPOMAP_STATS_MAXK], nk = 0;
    const char *klist = a.k ? a.k : "4,8,16,24";
    for (const char *s = klist;;) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 1 || v > 1 << 24 || (*end && *end != ','))
            usage_error("--k: '%s' is not a comma-separated list of positive integers", klist);
        if (nk == TOPOMAP_STATS_MAXK)
            usage_error("--k: at most %d values", TOPOMAP_STATS_MAXK);
        ks[nk++] = (int)v;
        if (!*end)
            break;
        s = end + 1;
    }

    topomap_profile_t *p = load_profile(&a);
    topomap_stats_t st;
    if (topomap_stats(p, ks, nk, &st) < 0)
        input_error("cannot compute the statistics of '%s': %s", a.profile, strerror(errno));
    topomap_grid_t grid;
    char gdesc[256];
    if (topomap_grid_detect(p, a.o.grid_weak, &grid, NULL) < 0)
        input_error("cannot analyse the process grid of '%s': %s", a.profile, strerror(errno));
    topomap_grid_describe(&grid, gdesc, sizeof gdesc);
    char b[8][40];
    int n = topomap_profile_nranks(p);
    if (a.json) {
        printf("{\"nranks\": %d, \"nedges\": %zu, \"total_bytes\": %s, \"ch\": %s, \"cb\": %s, "
               "\"cc\": %s, \"nbc\": %s, \"sp\": {",
               n, topomap_profile_nedges(p), jnum(topomap_profile_total_bytes(p), b[0], 40),
               jnum(st.ch, b[1], 40), jnum(st.cb, b[2], 40), jnum(st.cc, b[3], 40),
               jnum(st.nbc, b[4], 40));
        for (int i = 0; i < st.nk; i++)
            printf("%s\"%d\": %s", i ? ", " : "", st.k[i], jnum(st.sp[i], b[5], 40));
        printf("}, \"grid\": {\"ndims\": %d, \"dims\": [", grid.ndims);
        for (int k = 0; k < grid.ndims; k++)
            printf("%s%d", k ? ", " : "", grid.dims[k]);
        printf("], \"periodic\": [");
        for (int k = 0; k < grid.ndims; k++)
            printf("%s%s", k ? ", " : "", grid.periodic[k] ? "true" : "false");
        printf("], \"rank_order\": %s, \"description\": \"%s\"}}\n",
               grid.ndims && grid.rank_order ? "true" : "false", gdesc);
    } else {
        printf("%-12s %d\n", "ranks", n);
        printf("%-12s %zu\n", "entries", topomap_profile_nedges(p));
        printf("%-12s %s\n", "total bytes", num(topomap_profile_total_bytes(p), b[0], 40));
        printf("%-12s %.6f\n", "CH", st.ch);
        printf("%-12s %.6f\n", "CB", st.cb);
        printf("%-12s %.6f\n", "CC", st.cc);
        printf("%-12s %.6f\n", "NBC", st.nbc);
        for (int i = 0; i < st.nk; i++) {
            char label[32];
            snprintf(label, sizeof label, "SP(%d)", st.k[i]);
            printf("%-12s %.6f\n", label, st.sp[i]);
        }
        printf("%-12s %s\n", "grid", gdesc);
    }
    topomap_profile_free(p);
    return finish_stdout(0);
}
