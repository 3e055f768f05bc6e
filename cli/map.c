/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap map: compute a mapping, write it, and say in one line what it
 * achieved (hop-bytes against block, the candidate auto chose). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char help_map[] =
    "Usage: topomap map --profile FILE --topology T [--topology-name NAME]\n"
    "                   [--nodes HOSTLIST|all]\n"
    "                   [--tasks-per-node K | --slots SPEC] [--cores-per-node N]\n"
    "                   [--algo NAME] [--seed S] [--affinity bytes|msgs] [--threads N]\n"
    "                   [--time-limit T] [--refine] [--loop N] [--profile-format FMT]\n"
    "                   [-o FILE] [--format FMT] [--json] [--grid-weak F]\n"
    "                   [--node-place MODE] [--objective OBJ] [--verbose] [--quiet]\n"
    "\n"
    "Compute a placement of the ranks of a communication profile onto the slots\n"
    "(node, core) of an allocation and write it, one line per rank. A summary\n"
    "line on standard error says what it achieved: hop-bytes, and their ratio\n"
    "to the block layout (Slurm's default), and for auto the candidate it chose.\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required); '-' reads standard\n"
    "                        input; FILE.gz is decompressed; see --profile-format\n"
    "  --topology T          machine description (required): a site YAML file, a\n"
    "                        Slurm topology.conf or topology.yaml, or the name of a\n"
    "                        shipped one (e.g. torus-8x8x8; see 'topomap topology list')\n"
    "  --topology-name NAME  the topology NAME of a Slurm topology.yaml (default: its\n"
    "                        cluster_default one, else its first)\n"
    "  -w, --nodes HOSTLIST  allocated nodes in allocation order, as a Slurm hostlist\n"
    "                        expression, e.g. 'cn[0000-0015]'; 'all': every node of\n"
    "                        the topology. Default inside a Slurm job: the job's\n"
    "                        nodes (SLURM_JOB_NODELIST) and slots (SLURM_TASKS_PER_NODE\n"
    "                        when the job gave a task count, else\n"
    "                        SLURM_JOB_CPUS_PER_NODE / SLURM_CPUS_PER_TASK), said on\n"
    "                        standard error; outside a job --nodes is required.\n"
    "                        --nodelist is the same (srun's spelling)\n"
    "  --tasks-per-node K    use K slots on every node (default: every core); more\n"
    "                        than the node's cores is refused (--ntasks-per-node:\n"
    "                        the same)\n"
    "  --slots SPEC          slots per node in SLURM_JOB_CPUS_PER_NODE syntax, e.g.\n"
    "                        '4(x3),2'; not together with --tasks-per-node\n"
    "  --cores-per-node N    describe every node as N cores (a Slurm topology.conf\n"
    "                        says nothing about cores: each node counts as one)\n"
    "  --algo NAME           mapping algorithm (default: block), in any case; see\n"
    "                        'topomap algorithms'; NAME+refine (e.g. ohtma+refine) is\n"
    "                        the same as NAME --refine\n"
    "  --seed S              seed of randomised algorithms, 0 to 2^64-1 (default: 1)\n"
    "  --affinity KIND       what measures affinity: bytes (default) or msgs (needs\n"
    "                        a message count column in the profile)\n"
    "  --threads N|auto      OpenMP threads for the algorithm, 1 to 1024, or auto (half\n"
    "                        the idle CPUs this process may use, at most 8, as the\n"
    "                        plugin's threads=; default: 1, or OMP_NUM_THREADS when\n"
    "                        set); the result does not depend on N unless the time\n"
    "                        limit stops auto. On a shared node set\n"
    "                        OMP_WAIT_POLICY=passive too\n"
    "  --time-limit T        the whole run, loading included, ends within about T,\n"
    "                        a duration (2s, 500ms, 1.5min; a bare number is\n"
    "                        seconds), as the plugin's time_limit: the algorithm\n"
    "                        gets 90% of what loading left, and fails when it\n"
    "                        runs longer; auto instead returns the best placement\n"
    "                        it found (never worse than block; default for auto:\n"
    "                        60s, and the summary says when the limit was hit),\n"
    "                        as does exact (default 60s too; -v says whether its\n"
    "                        answer was proven optimal)\n"
    "  --refine              improve the result with the swap-refinement engine\n"
    "  --loop N              pair-exchange steps of ohtma/ohtma-fast (default: half\n"
    "                        the number of ranks, as in the OHTMA paper)\n"
    "  --profile-format FMT  auto (default: by extension and content), edges, dense,\n"
    "                        mtx or binary\n"
    "  -o, --output FILE     write the mapping to FILE instead of standard output\n"
    "  --format FMT          slots (default): 'RANK HOSTNAME CORE' per line;\n"
    "                        hostfile: one hostname per line in rank order, usable as\n"
    "                        SLURM_HOSTFILE with srun --distribution=arbitrary;\n"
    "                        rankfile: Open MPI rankfile 'rank R=HOST slot=CORE';\n"
    "                        mpich-rank-order: Cray MPICH's MPICH_RANK_ORDER file\n"
    "                        (MPICH_RANK_REORDER_METHOD=3), ranks in slot order;\n"
    "                        map-cpu: 'map_cpu:LIST' for srun --cpu-bind= (the core\n"
    "                        of each node's k-th task), beside a hostfile\n"
    "  --json                print the summary, the metrics and (without -o) the\n"
    "                        mapping as one JSON object on standard output\n"
    "  --grid-weak F         grid and auto: the process grid analyzer ignores edges\n"
    "                        below F times the average edge (default: 0.2)\n"
    "  --node-place MODE     after the algorithm, place each node's ranks on its cores\n"
    "                        by the node's hierarchy (sockets, NUMA domains): auto\n"
    "                        (default: TreeMatch on the node, then the SumCom\n"
    "                        refinement), treematch, refine, or off; never moves a\n"
    "                        rank to another node; not for block, cyclic, random\n"
    "  --objective OBJ       what to minimise: hop-bytes (default) or congestion (the\n"
    "                        busiest link's load, with hop-bytes at half its weight:\n"
    "                        auto judges its candidates by that mix and refines the\n"
    "                        winner, NAME+refine refines for it); the summary then\n"
    "                        gives the busiest link against block's too. Whatever\n"
    "                        the objective, auto never returns a placement whose\n"
    "                        busiest link is above block's\n"
    "  -v, --verbose         report progress on standard error (reading the inputs,\n"
    "                        the candidates auto tries, their hop-bytes and times)\n"
    "  -q, --quiet           no summary line and no allocation line\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input or failed mapping, 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap map --profile app.txt --topology torus-8x8x8 \\\n"
    "      --nodes 't[000-015]' --tasks-per-node 4 --algo block -o app.map\n"
    "  topomap map --profile app.txt --topology site.yaml --algo auto --format hostfile\n"
    "      (inside a job: the job's nodes and tasks per node)\n";

/* The mapping as "mapping": [[HOST, CORE], ...] in rank order. */
static void json_mapping(const topomap_alloc_t *al, int n, const int *r2s)
{
    const topomap_topology_t *t = topomap_alloc_topology(al);
    printf(", \"mapping\": [");
    for (int r = 0; r < n; r++) {
        printf("%s[", r ? ", " : "");
        json_str(stdout, topomap_topology_node_name(t, topomap_alloc_slot_node(al, r2s[r])));
        printf(", %d]", topomap_alloc_slot_core(al, r2s[r]));
    }
    printf("]");
}

int cmd_map(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "profile topology topology-name nodes tasks-per-node slots cores-per-node algo seed affinity "
               "threads time-limit refine loop profile-format output format json grid-weak "
               "node-place objective verbose quiet help",
               help_map, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");
    const char *algo = a.algo ? a.algo : "block";
    if (!topomap_algo_valid(algo)) {
        char list[512];
        algo_list(list, sizeof list);
        usage_error("--algo: unknown algorithm '%s' (known: %s)", algo, list);
    }
    check_slot_options(&a);
    require_allocation(&a);

    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(&a, a.topology);
    topomap_alloc_t *al = make_alloc(&a, t);
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!r2s)
        input_error("out of memory");
    double seconds;
    run_map(&a, algo, p, al, r2s, &seconds);

    /* What it achieved, against Slurm's default layout (block). */
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    double hb_block;
    int *rb = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    char err[TOPOMAP_ERRLEN] = "";
    if (!rb)
        input_error("out of memory");
    if (topomap_eval_slots(p, al, r2s, &m) < 0 ||
        topomap_map("block", p, al, NULL, rb, err, sizeof err) < 0 ||
        topomap_hop_bytes_slots(p, al, rb, &hb_block) < 0)
        input_error("cannot evaluate the mapping: %s", liberr(err, "block", errno));
    /* The busiest link against block's, for the congestion objective only
     * (routing every pair of block costs about what the mapping's did). */
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT;
    if (a.o.objective == TOPOMAP_OBJECTIVE_CONGESTION && topomap_eval_slots(p, al, rb, &mb) < 0)
        input_error("cannot evaluate the mapping: %s", strerror(errno));
    free(rb);

    /* Open the output only now, so a failed mapping leaves an old file alone. */
    FILE *f = stdout;
    int to_file = a.output && strcmp(a.output, "-");
    if (to_file) {
        f = fopen(a.output, "w");
        if (!f)
            input_error("cannot write '%s': %s", a.output, strerror(errno));
    }
    if ((to_file || !a.json) && topomap_mapping_write(f, a.format, al, n, r2s) < 0) {
        if (errno == EDOM)
            input_error("this mapping cannot be written as %s: %s",
                        a.format == TOPOMAP_MAPPING_MAP_CPU
                            ? "map-cpu (srun takes one core list for all nodes, and two nodes' "
                              "k-th tasks have different cores)"
                            : "mpich-rank-order (Cray fills the nodes in order, and the mapping "
                              "leaves a slot free before its last rank)",
                        "use --format hostfile or rankfile");
        input_error("cannot write '%s': %s", to_file ? a.output : "standard output",
                    strerror(errno));
    }
    if (to_file && fclose(f) != 0)
        input_error("cannot write '%s': %s", a.output, strerror(errno));

    char chosen[160] = "", rel[32], b[4][40];
    if (a.chosen[0])
        snprintf(chosen, sizeof chosen, " (chose %s%s)", a.chosen,
                 a.time_limited ? ", stopped by the time limit" : "");
    if (hb_block > 0)
        snprintf(rel, sizeof rel, " = %.4f x", m.hop_bytes / hb_block);
    else
        snprintf(rel, sizeof rel, ",");
    fflush(stdout); /* the mapping, then what it achieved */
    if (!a.quiet) {
        notice("%s%s: %d ranks on %d nodes in %.3f s; hop-bytes %s%s block's %s", algo, chosen,
               n, topomap_alloc_nnodes(al), seconds, num(m.hop_bytes, b[0], 40), rel,
               num(hb_block, b[1], 40));
        if (a.o.objective == TOPOMAP_OBJECTIVE_CONGESTION)
            notice("busiest link %s = %.4f x block's %s", num(m.congestion_max, b[0], 40),
                   mb.congestion_max > 0 ? m.congestion_max / mb.congestion_max : 1.0,
                   num(mb.congestion_max, b[1], 40));
        if (a.time_limited)
            notice("auto stopped at its time limit of %s s (%s) and kept the best mapping so "
                   "far; a larger --time-limit may find a better one",
                   num(a.o.time_limit > 0 ? a.o.time_limit : AUTO_DEFAULT_TIME_LIMIT, b[2], 40),
                   a.o.time_limit > 0 ? "--time-limit" : "the default");
    }
    if (a.json) {
        printf("{");
        json_key(stdout, 1, "algorithm", algo);
        json_key(stdout, 0, "chosen", a.chosen[0] ? a.chosen : NULL);
        printf(", \"time_limit_reached\": %s, \"seconds\": %s, \"nranks\": %d, \"nnodes\": %d, "
               "\"nslots\": %d",
               a.time_limited ? "true" : "false", jnum(seconds, b[0], 40), n,
               topomap_alloc_nnodes(al), topomap_alloc_nslots(al));
        json_key(stdout, 0, "nodes_from", a.nodes_from);
        json_key(stdout, 0, "slots_from", a.slots_from);
        printf(", \"hop_bytes\": %s, \"block_hop_bytes\": %s, \"relative_hop_bytes\": %s, "
               "\"metrics\": ",
               jnum(m.hop_bytes, b[1], 40), jnum(hb_block, b[2], 40),
               hb_block > 0 ? jnum(m.hop_bytes / hb_block, b[3], 40) : "null");
        print_metrics(&m, n, t, 2, NULL, NULL);
        if (to_file)
            json_key(stdout, 0, "output", a.output);
        else
            json_mapping(al, n, r2s);
        printf("}\n");
    }
    free(r2s);
    topomap_alloc_free(al);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(0);
}
