/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap stats: matrix statistics and the process grid of a profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char help_stats[] =
    "Usage: topomap stats --profile FILE [--k K1,K2,...] [--tasks-per-node K]\n"
    "                     [--json] [--grid-weak F] [--profile-format FMT] [--verbose]\n"
    "\n"
    "Print the matrix statistics of Bordage & Jeannot (2017, section 4.4) of the\n"
    "symmetrised byte matrix C = A + A^T, the process grid the profile is, if any,\n"
    "and whether remapping is likely to help:\n"
    "\n"
    "  CH     communication heterogeneity: the mean over ranks of the variance of\n"
    "         their traffic with every rank (C scaled to a maximum of 1); higher:\n"
    "         some pairs talk far more than others\n"
    "  CB     communication balance: how evenly the ranks' total traffic is spread\n"
    "         (1: every rank sends as much)\n"
    "  CC     communication centrality: the mean width, as a fraction of the ranks,\n"
    "         of the window of ranks around a rank that holds half of its bytes;\n"
    "         small: traffic stays between nearby rank numbers\n"
    "  NBC    the square root of the fraction of bytes NOT exchanged with the\n"
    "         rank neighbours i-1 and i+1 (0: all traffic is with them; the paper\n"
    "         calls it the neighbour communication fraction)\n"
    "  SP(k)  split fraction: the fraction of bytes that leave blocks of k\n"
    "         consecutive ranks, the ranks Slurm's block layout puts on one node\n"
    "         of k cores\n"
    "  grid   the process grid (Bhatele et al. 2010: 2D to 4D nearest-neighbour\n"
    "         grids, periodic or not, in rank order or permuted), e.g. '3D grid\n"
    "         8 x 4 x 4, periodic, x fastest' or 'not a grid: WHY'\n"
    "  remapping likely to help?  from SP(k) at the node size k, the statistic\n"
    "         the study found most consistently tied to the gain of a mapping:\n"
    "         'unlikely' below 0.1, 'maybe' below 0.3, else 'likely' (our\n"
    "         thresholds; the study gives correlations, not thresholds). It\n"
    "         says how much traffic a layout could keep inside the nodes, not\n"
    "         what the network lets it save: on a small network or for a grid\n"
    "         that the block layout already lays out well, 'topomap compare'\n"
    "         can find nothing better ('auto = 1.0000 x block'); measure with it\n"
    "         before relying on the verdict\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required; '-': standard input)\n"
    "  --k LIST              comma-separated block sizes k of SP(k), at most 8,\n"
    "                        e.g. cores per node (default: 4,8,16,24)\n"
    "  --tasks-per-node K    the node size the verdict uses (default: the largest\n"
    "                        k of --k); added to the SP(k) list\n"
    "  --json                print one JSON object instead of a table\n"
    "  --grid-weak F         the grid analyzer ignores edges below F times the\n"
    "                        average edge (default: 0.2, the paper's)\n"
    "  --profile-format FMT  auto (default), edges, dense, mtx or binary\n"
    "  -v, --verbose         report progress on standard error\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap stats --profile app.txt --k 8,24 --json\n";

/* Is remapping likely to pay, from SP(k) at the node size (see the help). */
static const char *verdict(double sp, double total)
{
    if (total <= 0)
        return "no";
    return sp < 0.1 ? "unlikely" : sp < 0.3 ? "maybe" : "likely";
}

int cmd_stats(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "profile k tasks-per-node json grid-weak profile-format verbose help",
               help_stats, &a);
    no_positional(&a);
    require(a.profile, "--profile");

    int ks[TOPOMAP_STATS_MAXK], nk = 0;
    const char *klist = a.k ? a.k : "4,8,16,24";
    for (const char *s = klist;;) {
        const char *end;
        long v;
        if (parse_long_item(s, ",", &v, &end) < 0 || v < 1 || v > 1 << 24)
            usage_error("--k: '%s' is not a comma-separated list of positive integers", klist);
        if (nk == TOPOMAP_STATS_MAXK)
            usage_error("--k: at most %d values", TOPOMAP_STATS_MAXK);
        ks[nk++] = (int)v;
        if (!*end)
            break;
        s = end + 1;
    }
    /* The node size of the verdict. */
    int kv = ks[0], iv = 0;
    for (int i = 1; i < nk; i++)
        if (ks[i] > kv)
            kv = ks[iv = i];
    if (a.tpn) {
        kv = (int)parse_long_opt("--tasks-per-node", a.tpn, 1, 1 << 24);
        for (iv = 0; iv < nk && ks[iv] != kv; iv++)
            ;
        if (iv == nk) {
            if (nk == TOPOMAP_STATS_MAXK)
                usage_error("--k: at most %d values with --tasks-per-node",
                            TOPOMAP_STATS_MAXK - 1);
            ks[nk++] = kv;
        }
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
    double total = topomap_profile_total_bytes(p), sp = st.sp[iv];
    const char *v = verdict(sp, total);
    if (a.json) {
        printf("{\"nranks\": %d, \"nedges\": %zu, \"total_bytes\": %s, \"ch\": %s, \"cb\": %s, "
               "\"cc\": %s, \"nbc\": %s, \"sp\": {",
               n, topomap_profile_nedges(p), jnum(total, b[0], 40), jnum(st.ch, b[1], 40),
               jnum(st.cb, b[2], 40), jnum(st.cc, b[3], 40), jnum(st.nbc, b[4], 40));
        for (int i = 0; i < st.nk; i++)
            printf("%s\"%d\": %s", i ? ", " : "", st.k[i], jnum(st.sp[i], b[5], 40));
        printf("}, \"grid\": {\"ndims\": %d, \"dims\": [", grid.ndims);
        for (int k = 0; k < grid.ndims; k++)
            printf("%s%d", k ? ", " : "", grid.dims[k]);
        printf("], \"periodic\": [");
        for (int k = 0; k < grid.ndims; k++)
            printf("%s%s", k ? ", " : "", grid.periodic[k] ? "true" : "false");
        printf("], \"rank_order\": %s", grid.ndims && grid.rank_order ? "true" : "false");
        json_key(stdout, 0, "description", gdesc);
        printf("}, \"remapping\": {");
        json_key(stdout, 1, "verdict", v);
        printf(", \"k\": %d, \"sp\": %s}}\n", kv, jnum(sp, b[6], 40));
    } else {
        printf("%-34s %d\n", "ranks", n);
        printf("%-34s %zu\n", "entries", topomap_profile_nedges(p));
        printf("%-34s %s\n", "total bytes", num(total, b[0], 40));
        printf("%-34s %.6f\n", "CH    communication heterogeneity", st.ch);
        printf("%-34s %.6f\n", "CB    communication balance", st.cb);
        printf("%-34s %.6f\n", "CC    communication centrality", st.cc);
        printf("%-34s %.6f\n", "NBC   beyond rank neighbours", st.nbc);
        for (int i = 0; i < st.nk; i++) {
            char key[16], label[64];
            snprintf(key, sizeof key, "SP(%d)", st.k[i]);
            snprintf(label, sizeof label, "%-5s leaving blocks of %d", key, st.k[i]);
            printf("%-34s %.6f\n", label, st.sp[i]);
        }
        printf("%-34s %s\n", "grid", gdesc);
        if (total <= 0)
            printf("%-34s no: the profile has no traffic\n", "remapping likely to help?");
        else
            /* A bound, not a measure: the bytes a layout could keep inside
             * nodes. Whether the network lets it is compare's question. */
            printf("%-34s %s: %.0f%% of the bytes cross nodes under the block layout (SP(%d), "
                   "%d ranks a node)%s\n",
                   "remapping likely to help?", v, 100 * sp, kv, kv,
                   v[0] == 'u' ? ": little for a new layout to win back"
                               : ", room a new layout may win back; 'topomap compare' measures "
                                 "what it wins on a network");
    }
    topomap_profile_free(p);
    return finish_stdout(0);
}
