/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap compare: several algorithms on one allocation, side by side. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const char help_compare[] =
    "Usage: topomap compare --profile FILE --topology T [--nodes HOSTLIST|all]\n"
    "                       [--tasks-per-node K | --slots SPEC] [--cores-per-node N]\n"
    "                       [--topology-name NAME]\n"
    "                       [--algos A,B,...] [--seed S] [--affinity bytes|msgs]\n"
    "                       [--threads N] [--time-limit T] [--refine] [--loop N]\n"
    "                       [--profile-format FMT] [--node-place MODE] [--objective OBJ]\n"
    "                       [--json]\n"
    "                       [--verbose]\n"
    "\n"
    "Run several mapping algorithms on the same allocation and print, for each,\n"
    "its hop-bytes, hop-bytes relative to the block mapping, SumCom, the busiest\n"
    "link's bytes (congestion), fraction of internode bytes and the time it\n"
    "took. Each row is printed as soon as its algorithm finishes. An algorithm\n"
    "that fails is reported on standard error, the others still run, and the\n"
    "exit status is 1.\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required; '-': standard input)\n"
    "  --topology T          machine description, a file or a shipped name (required)\n"
    "  --topology-name NAME  the topology NAME of a Slurm topology.yaml\n"
    "  -w, --nodes HOSTLIST  allocated nodes, or 'all' (default inside a Slurm job: the\n"
    "                        job's; see 'topomap help map'); also --nodelist\n"
    "  --tasks-per-node K    use K slots on every node (default: every core); also\n"
    "                        --ntasks-per-node\n"
    "  --slots SPEC          slots per node, SLURM_JOB_CPUS_PER_NODE syntax\n"
    "  --cores-per-node N    describe every node as N cores\n"
    "  --algos LIST          comma-separated algorithms (default: every algorithm\n"
    "                        that applies to the topology and profile, exact with\n"
    "                        5 s unless --time-limit; the others are named in one\n"
    "                        line on standard error)\n"
    "  --seed S              seed of randomised algorithms (default: 1)\n"
    "  --affinity KIND       bytes (default) or msgs\n"
    "  --threads N|auto      OpenMP threads for the algorithms, 1 to 1024, or auto (as\n"
    "                        map's; default: 1, or OMP_NUM_THREADS when set)\n"
    "  --time-limit T        time limit of each algorithm, a duration (2s, 500ms;\n"
    "                        a bare number is seconds; auto: 60s unless given)\n"
    "  --refine              run the swap-refinement engine after each algorithm\n"
    "  --loop N              pair-exchange steps of ohtma/ohtma-fast (default: n/2)\n"
    "  --profile-format FMT  auto (default), edges, dense, mtx or binary\n"
    "  --node-place MODE     node-internal placement: auto (default), treematch,\n"
    "                        refine or off (see 'topomap help map')\n"
    "  --objective OBJ       hop-bytes (default) or congestion (see 'topomap help map')\n"
    "  --json                print one JSON object (at the end) instead of a table\n"
    "  -v, --verbose         report progress on standard error (which algorithm\n"
    "                        runs, the candidates auto tries)\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input or an algorithm failed, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap compare --profile app.txt --topology fattree-plafrim2 \\\n"
    "      --nodes 'plafrim[001-004]' --algos block,cyclic,random\n";

struct result {
    const char *name;
    int ok;
    int skipped; /* default list only: the algorithm does not apply here (ENOTSUP) */
    topomap_metrics_t m;
    double seconds;
};

/* One row of the table, printed as soon as the algorithm is done. */
static void print_row(const struct result *r, double ref)
{
    char b[3][40], rel[32] = "-";
    if (!r->ok) {
        printf("%-16s %13s %9s %17s %13s %9s %10.6f\n", r->name, "failed", "-", "-", "-", "-",
               r->seconds);
    } else {
        if (ref > 0)
            snprintf(rel, sizeof rel, "%.4f", r->m.hop_bytes / ref);
        printf("%-16s %13s %9s %17s %13s %9.4f %10.6f\n", r->name, num(r->m.hop_bytes, b[0], 40),
               rel, num(r->m.sumcom, b[1], 40), num(r->m.congestion_max, b[2], 40),
               r->m.internode_fraction, r->seconds);
    }
    fflush(stdout);
}

static void print_json(const struct result *res, int nnames, double ref)
{
    char b[7][40];
    printf("{\"reference\": \"block\", \"block_hop_bytes\": %s, \"algorithms\": [",
           jnum(ref, b[0], 40));
    int first = 1;
    for (int i = 1; i <= nnames; i++) {
        if (res[i].skipped)
            continue;
        printf("%s{\"name\": ", first ? "" : ", ");
        json_str(stdout, res[i].name);
        printf(", \"ok\": %s", res[i].ok ? "true" : "false");
        first = 0;
        if (res[i].ok)
            printf(", \"hop_bytes\": %s, \"relative_hop_bytes\": %s, \"sumcom\": %s, "
                   "\"max_dilation\": %d, \"internode_fraction\": %s, "
                   "\"congestion_max\": %s, \"congestion_avg\": %s",
                   jnum(res[i].m.hop_bytes, b[0], 40),
                   ref > 0 ? jnum(res[i].m.hop_bytes / ref, b[1], 40) : "null",
                   jnum(res[i].m.sumcom, b[2], 40), res[i].m.max_dilation,
                   jnum(res[i].m.internode_fraction, b[3], 40),
                   jnum(res[i].m.congestion_max, b[5], 40), jnum(res[i].m.congestion_avg, b[6], 40));
        printf(", \"seconds\": %s}", jnum(res[i].seconds, b[4], 40));
    }
    printf("], \"skipped\": [");
    first = 1;
    for (int i = 1; i <= nnames; i++)
        if (res[i].skipped) {
            printf("%s", first ? "" : ", ");
            json_str(stdout, res[i].name);
            first = 0;
        }
    printf("]}\n");
}

int cmd_compare(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "profile topology topology-name nodes tasks-per-node slots cores-per-node algos seed affinity "
               "threads time-limit refine loop profile-format node-place objective json verbose help",
               help_compare, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");

    /* The algorithm list: --algos, or every algorithm of the library. */
    int nalgos = 0;
    while (topomap_algo_name(nalgos))
        nalgos++;
    char *algos_copy = NULL;
    const char **names;
    int nnames = 0;
    if (a.algos) {
        algos_copy = strdup(a.algos);
        names = malloc(sizeof(char *) * (strlen(a.algos) + 1));
        if (!algos_copy || !names)
            input_error("out of memory");
        char *save = NULL;
        if (!*a.algos || a.algos[0] == ',' || a.algos[strlen(a.algos) - 1] == ',' ||
            strstr(a.algos, ",,"))
            usage_error("--algos: '%s' is not a comma-separated list of algorithms", a.algos);
        for (char *tok = strtok_r(algos_copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (!topomap_algo_valid(tok)) {
                char list[512];
                algo_list(list, sizeof list);
                usage_error("--algos: unknown algorithm '%s' (known: %s)", tok, list);
            }
            names[nnames++] = tok;
        }
    } else {
        names = malloc(sizeof(char *) * (size_t)(nalgos > 0 ? nalgos : 1));
        if (!names)
            input_error("out of memory");
        for (int i = 0; i < nalgos; i++)
            names[nnames++] = topomap_algo_name(i);
    }

    check_slot_options(&a);
    require_allocation(&a);
    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(&a, a.topology);
    topomap_alloc_t *al = make_alloc(&a, t);
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    struct result *res = calloc((size_t)nnames + 1, sizeof *res);
    if (!r2s || !res)
        input_error("out of memory");

    /* res[0] is always block, the reference; it is shown only if asked for. */
    if (!a.json)
        printf("%-16s %13s %9s %17s %13s %9s %10s\n", "algorithm", "hop-bytes", "vs block",
               "SumCom", "busiest link", "internode", "time (s)");
    int failed = 0;
    /* The default list runs every algorithm; those that do not apply to this
     * topology or profile (ENOTSUP: treematch off a tree, grid off a grid...)
     * are named in one line at the end, not failures. Asked for by --algos,
     * they fail as before. */
    char skipped[2048] = "";
    int nskipped = 0;
    for (int i = 0; i <= nnames; i++) {
        const char *algo = i == 0 ? "block" : names[i - 1];
        if (i > 0 && !strcasecmp(algo, "block")) {
            res[i] = res[0];
            res[i].name = algo;
        } else {
            char err[TOPOMAP_ERRLEN] = "";
            topomap_opts_t o = a.o;
            if (default_limited(algo) && o.time_limit <= 0)
                o.time_limit = AUTO_DEFAULT_TIME_LIMIT;
            /* exact, not asked for: a short look, not a minute's proof. */
            if (!a.algos && !strcasecmp(algo, "exact") && a.o.time_limit <= 0)
                o.time_limit = COMPARE_EXACT_TIME_LIMIT;
            res[i].name = algo;
            if (i > 0)
                progress(&a, "running %s (%d of %d)", algo, i, nnames);
            double t0 = now();
            int rc = topomap_map(algo, p, al, &o, r2s, err, sizeof err);
            res[i].seconds = now() - t0;
            if (rc < 0) {
                int e = errno;
                if (i == 0) /* block failing means the inputs do not fit */
                    input_error("%s%s", liberr(err, algo, e), fit_hint(t, e));
                if (e == ENOTSUP && !a.algos) {
                    res[i].skipped = 1;
                    size_t k = strlen(skipped);
                    snprintf(skipped + k, sizeof skipped - k, "%s%s", nskipped++ ? ", " : "",
                             algo);
                    continue;
                }
                fflush(stdout);
                say("%s: %s", algo, liberr(err, algo, e));
                failed = 1;
            } else {
                topomap_metrics_init(&res[i].m);
                if (topomap_eval_slots(p, al, r2s, &res[i].m) < 0)
                    input_error("cannot evaluate the mapping of '%s': %s", algo,
                                strerror(errno));
                res[i].ok = 1;
            }
        }
        if (i > 0 && !a.json)
            print_row(&res[i], res[0].m.hop_bytes);
    }
    if (nskipped) {
        fflush(stdout);
        say("not run, as they do not apply to this topology or profile: %s", skipped);
    }
    if (a.json)
        print_json(res, nnames, res[0].m.hop_bytes);
    free(res);
    free(r2s);
    free(names);
    free(algos_copy);
    topomap_alloc_free(al);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(failed ? EXIT_INPUT : 0);
}
