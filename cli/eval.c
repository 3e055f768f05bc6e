/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap eval: the quality metrics of a mapping file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char help_eval[] =
    "Usage: topomap eval --profile FILE --topology T --mapping FILE [--json]\n"
    "                    [--bound] [--mapping-format FMT] [--cores-per-node N]\n"
    "                    [--topology-name NAME] [--layout SPEC]\n"
    "                    [--profile-format FMT] [--verbose]\n"
    "\n"
    "Print the quality metrics of a placement read from a mapping file: the\n"
    "slots ('RANK HOSTNAME CORE' per line), hostfile or rankfile that 'topomap\n"
    "map' writes, so Slurm's layout (a SLURM_HOSTFILE) or Open MPI's (a rankfile)\n"
    "can be judged too. Every rank of the profile must appear exactly once.\n"
    "\n"
    "Metrics (A[i][j] = bytes sent by rank i to rank j, as recorded):\n"
    "  total_bytes         sum of A[i][j], self traffic included\n"
    "  hop_bytes           sum of A[i][j] x network hops between their nodes\n"
    "  avg_hops_per_byte   hop_bytes / total_bytes\n"
    "  max_dilation        largest hop count over pairs that communicate\n"
    "  sumcom              sum of A[i][j] x cost(slot i, slot j), node levels included\n"
    "  maxcom              largest A[i][j] x cost(slot i, slot j)\n"
    "  internode_bytes     bytes between ranks on different nodes\n"
    "  internode_fraction  internode_bytes / total_bytes\n"
    "  congestion_max      the busiest link's bytes (a link: one direction of a\n"
    "                      cable) when every pair's bytes follow the network's\n"
    "                      routing:\n"
    "                      dimension-ordered on tori (+ way on a halfway tie),\n"
    "                      up-down on trees, row-then-column on Tianhe-3,\n"
    "                      at most one global link on a dragonfly\n"
    "  congestion_avg      mean bytes over the links that carry traffic\n"
    "  (and both divided by the topology's link_bandwidth, in seconds, if given)\n"
    "  traffic by level    bytes between ranks whose innermost shared level is the\n"
    "                      core, each node level (numa, socket...), the node, the\n"
    "                      leaf switch (networks with switches), or none (beyond);\n"
    "                      JSON: traffic_by_level\n"
    "  gpu fabric          (a topology with gpu_fabric; table only) bytes by path:\n"
    "                      NVLink in a node, NVLink in a domain, one rail, the\n"
    "                      spine; bytes between domains; the busiest NVLink port,\n"
    "                      NIC and rail uplink, in bytes and seconds\n"
    "  spread              with --layout: per kind of group (tp, cp, ep, dp, pp)\n"
    "                      how many span several domains and nodes, and the mean\n"
    "                      and largest number of domains, nodes and rails\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required; '-': standard input)\n"
    "  --topology T          machine description, a file or a shipped name (required)\n"
    "  --topology-name NAME  the topology NAME of a Slurm topology.yaml\n"
    "  --layout SPEC         the training layout of the ranks, for the spread:\n"
    "                        tp=N,dp=N[,cp=N][,ep=N][,pp=N][,order=ORDER] (see\n"
    "                        'topomap profile synth --help')\n"
    "  --mapping FILE        the mapping (required; '-': standard input)\n"
    "  --mapping-format FMT  auto (default: a first line 'rank R=...' is a rankfile,\n"
    "                        one field a hostfile, else slots), slots, hostfile (the\n"
    "                        k-th rank named on a node gets its core k, as Slurm\n"
    "                        binds tasks) or rankfile ('slot=CORE', a core number)\n"
    "  --cores-per-node N    describe every node as N cores (see 'topomap help map')\n"
    "  --json                print one JSON object instead of a table\n"
    "  --bound               also print a lower bound of hop-bytes: no placement of\n"
    "                        the ranks on the mapping's nodes (as many ranks on each)\n"
    "                        goes below it (the Gilmore-Lawler bound of that\n"
    "                        quadratic assignment), and the mapping's hop-bytes over\n"
    "                        it; JSON: hop_bytes_bound, hop_bytes_to_bound. At most\n"
    "                        2048 ranks (about a second at 1024)\n"
    "  --profile-format FMT  auto (default), edges, dense, mtx or binary\n"
    "  -v, --verbose         report progress on standard error\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap eval --profile app.txt --topology torus-8x8x8.yaml --mapping app.map --json\n";

/* The traffic split by level: ", \"traffic_by_level\": {...}" inside the
 * JSON object, or one line. */
static void print_split(const topomap_traffic_split_t *s, int json)
{
    char b[40];
    if (!json) {
        printf("%-20s", "traffic by level");
        for (int k = 0; k < s->n; k++)
            printf("%s%s %s", k ? ", " : " ", s->name[k], num(s->bytes[k], b, sizeof b));
        printf("\n");
        return;
    }
    printf(", \"traffic_by_level\": {");
    for (int k = 0; k < s->n; k++) {
        printf("%s", k ? ", " : "");
        json_str(stdout, s->name[k]);
        printf(": %s", jnum(s->bytes[k], b, sizeof b));
    }
    printf("}");
}

/* @json 0: a table; 1: one JSON object and a newline; 2: the object alone
 * (inside another one). @split: the traffic by level, or NULL. */
/* The busiest link of each class, on networks that have
 * classes (dragonflies): JSON members or lines. */
static void print_classes(const topomap_metrics_t *m, int json)
{
    char b[40];
    for (int k = 0; k < TOPOMAP_LINK_CLASSES; k++) {
        const char *name = topomap_link_class_name(k);
        if (json)
            printf(", \"congestion_%s_max\": %s", name, jnum(m->congestion_class_max[k], b, 40));
        else
        {
            char label[32];
            snprintf(label, sizeof label, "busiest %s link", name);
            printf("%-20s %s bytes\n", label, num(m->congestion_class_max[k], b, 40));
        }
    }
    if (json)
        printf(", \"global_link_bytes\": %s", jnum(m->congestion_global_bytes, b, 40));
    else
        printf("%-20s %s bytes (carried by global links)\n", "global link bytes",
               num(m->congestion_global_bytes, b, 40));
}

/* The Gilmore-Lawler bound and the mapping's hop-bytes over it (null /
 * "-" when the bound is 0: nothing needs a hop). */
static void print_bound(const topomap_metrics_t *m, double bound, int json)
{
    char b[2][40];
    double ratio = bound > 0 ? m->hop_bytes / bound : 0;
    if (json) {
        printf(", \"hop_bytes_bound\": %s, \"hop_bytes_to_bound\": %s", jnum(bound, b[0], 40),
               bound > 0 ? jnum(ratio, b[1], 40) : "null");
        return;
    }
    if (bound > 0)
        snprintf(b[1], 40, "%.4f", ratio);
    printf("%-20s %s (no placement on these nodes goes below; this one: %s x it)\n",
           "hop-bytes bound", num(bound, b[0], 40), bound > 0 ? b[1] : "-");
}

void print_metrics(const topomap_metrics_t *m, int nranks, const topomap_topology_t *t, int json,
                   const topomap_traffic_split_t *split, const double *bound)
{
    char b[11][40];
    double bandwidth = topomap_topology_link_bandwidth(t);
    /* Seconds are known with one bandwidth for all, or one per link. */
    int seconds = bandwidth > 0 || m->congestion_max_seconds > 0;
    int classes = topomap_topology_link_classes(t) > 1;
    if (json) {
        printf("{\"nranks\": %d, \"total_bytes\": %s, \"hop_bytes\": %s, "
               "\"avg_hops_per_byte\": %s, \"max_dilation\": %d, \"sumcom\": %s, "
               "\"maxcom\": %s, \"internode_bytes\": %s, \"internode_fraction\": %s, "
               "\"congestion_max\": %s, \"congestion_avg\": %s, \"congestion_channels\": %ld, "
               "\"congestion_max_seconds\": %s, \"congestion_avg_seconds\": %s",
               nranks, jnum(m->total_bytes, b[0], 40), jnum(m->hop_bytes, b[1], 40),
               jnum(m->avg_hops_per_byte, b[2], 40), m->max_dilation, jnum(m->sumcom, b[3], 40),
               jnum(m->maxcom, b[4], 40), jnum(m->internode_bytes, b[5], 40),
               jnum(m->internode_fraction, b[6], 40), jnum(m->congestion_max, b[7], 40),
               jnum(m->congestion_avg, b[8], 40), m->congestion_channels,
               seconds ? jnum(m->congestion_max_seconds, b[9], 40) : "null",
               seconds ? jnum(m->congestion_avg_seconds, b[10], 40) : "null");
        if (classes)
            print_classes(m, 1);
        if (split)
            print_split(split, 1);
        if (bound)
            print_bound(m, *bound, 1);
        printf("}%s", json == 2 ? "" : "\n");
        return;
    }
    printf("%-20s %d\n", "ranks", nranks);
    printf("%-20s %s\n", "total bytes", num(m->total_bytes, b[0], 40));
    printf("%-20s %s\n", "hop-bytes", num(m->hop_bytes, b[1], 40));
    if (bound)
        print_bound(m, *bound, 0);
    /* Ratios to 4 significant digits in the table (JSON keeps every digit). */
    printf("%-20s %.4g\n", "avg hops per byte", m->avg_hops_per_byte);
    printf("%-20s %d\n", "max dilation", m->max_dilation);
    printf("%-20s %s\n", "SumCom", num(m->sumcom, b[3], 40));
    printf("%-20s %s\n", "MaxCom", num(m->maxcom, b[4], 40));
    printf("%-20s %s\n", "internode bytes", num(m->internode_bytes, b[5], 40));
    printf("%-20s %.4g\n", "internode fraction", m->internode_fraction);
    printf("%-20s %s bytes (one direction of a cable)\n", "busiest link",
           num(m->congestion_max, b[7], 40));
    printf("%-20s %.0f bytes (mean of %ld loaded links)\n", "mean link load", m->congestion_avg,
           m->congestion_channels);
    /* One bandwidth for all when the busiest link's seconds are its
     * bytes over link_bandwidth; else the links have their own. */
    if (bandwidth > 0 && m->congestion_max_seconds == m->congestion_max / bandwidth) {
        printf("%-20s %.4g s at %s bytes/s\n", "busiest link time", m->congestion_max_seconds,
               num(bandwidth, b[10], 40));
        printf("%-20s %.4g s\n", "mean link time", m->congestion_avg_seconds);
    } else if (seconds) {
        printf("%-20s %.4g s (each link at its own bandwidth)\n", "busiest link time",
               m->congestion_max_seconds);
        printf("%-20s %.4g s\n", "mean link time", m->congestion_avg_seconds);
    }
    if (classes)
        print_classes(m, 0);
    if (split)
        print_split(split, 0);
}

int cmd_eval(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "profile topology topology-name mapping mapping-format cores-per-node json "
               "profile-format verbose help layout bound",
               help_eval, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");
    require(a.mapping, "--mapping");
    if (a.layout && a.json)
        usage_error("--layout: the spread is printed in the table only, not with --json");
    topomap_layout_t lay;
    if (a.layout)
        parse_layout(a.layout, &lay);
    if (!strcmp(a.profile, "-") && !strcmp(a.mapping, "-"))
        usage_error("--profile and --mapping cannot both be standard input");

    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(&a, a.topology);
    if (a.layout)
        check_layout(&lay, p, t);
    int n = topomap_profile_nranks(p);
    int *node = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *core = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!node || !core)
        input_error("out of memory");
    char err[TOPOMAP_ERRLEN] = "";
    if (topomap_mapping_read_format(a.mapping, a.mapping_format, t, n, node, core, err,
                                    sizeof err) < 0)
        input_error("%s", liberr(err, a.mapping, errno));
    progress(&a, "mapping %s read", a.mapping);
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    if (topomap_eval(p, t, node, core, &m) < 0)
        input_error("cannot evaluate the mapping: %s", strerror(errno));
    topomap_traffic_split_t split;
    if (topomap_traffic_split(p, t, node, core, &split) < 0)
        input_error("cannot split the traffic by level: %s", strerror(errno));
    double bound = 0;
    if (a.bound) {
        if (topomap_hop_bytes_bound(p, t, node, &bound) < 0) {
            /* The library refuses a job above its limit (E2BIG): say which. */
            if (errno == E2BIG)
                input_error("--bound: %s has %d ranks, more than the %d the bound takes (its "
                            "cost grows as the cube of the ranks)", a.profile, n,
                            TOPOMAP_HOP_BYTES_BOUND_MAX);
            input_error("--bound: %s", strerror(errno));
        }
        progress(&a, "the Gilmore-Lawler bound computed");
    }
    print_metrics(&m, n, t, a.json, &split, a.bound ? &bound : NULL);
    if (!a.json)
        print_fabric(p, t, node, core, a.layout ? &lay : NULL);
    free(node);
    free(core);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(0);
}
