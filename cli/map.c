/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap map: compute a mapping and write it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "cli.h"

const char help_map[] =
    "Usage: topomap map --profile FILE --topology FILE [--nodes HOSTLIST]\n"
    "                   [--tasks-per-node K | --slots SPEC] [--algo NAME] [--seed S]\n"
    "                   [--affinity bytes|msgs] [--threads N] [--time-limit SEC]\n"
    "                   [--refine] [--loop N] [--profile-format FMT] [-o FILE]\n"
    "                   [--format slots|hostfile|rankfile] [--grid-weak F]\n"
    "                   [--node-place MODE] [--verbose]\n"
    "\n"
    "Compute a placement of the ranks of a communication profile onto the slots\n"
    "(node, core) of an allocation and write it, one line per rank.\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required); see --profile-format\n"
    "  --topology FILE       machine description: site YAML or Slurm topology.conf\n"
    "                        (required)\n"
    "  --nodes HOSTLIST      allocated nodes in allocation order, as a Slurm hostlist\n"
    "                        expression, e.g. 'cn[0000-0015]' (default: every node of\n"
    "                        the topology, in topology order)\n"
    "  --tasks-per-node K    use K slots on every node (default: every core)\n"
    "  --slots SPEC          slots per node in SLURM_JOB_CPUS_PER_NODE syntax, e.g.\n"
    "                        '4(x3),2'; not together with --tasks-per-node\n"
    "  --algo NAME           mapping algorithm (default: block); see 'topomap\n"
    "                        algorithms'; NAME+refine (e.g. ohtma+refine) is the\n"
    "                        same as NAME --refine\n"
    "  --seed S              seed of randomised algorithms, 0 to 2^64-1 (default: 1)\n"
    "  --affinity KIND       what measures affinity: bytes (default) or msgs (needs\n"
    "                        a message count column in the profile)\n"
    "  --threads N           OpenMP threads for the algorithm (default: the OpenMP\n"
    "                        runtime's); the result does not depend on N\n"
    "  --time-limit SEC      fail when the algorithm runs longer than SEC seconds;\n"
    "                        auto instead returns the best placement it found\n"
    "                        within SEC (never worse than block)\n"
    "  --refine              improve the result with the swap-refinement engine\n"
    "  --loop N              pair-exchange steps of ohtma/ohtma-fast (default: half\n"
    "                        the number of ranks, as in the OHTMA paper)\n"
    "  --profile-format FMT  auto (default: by extension and content), edges, dense\n"
    "                        or mtx\n"
    "  -o, --output FILE     write the mapping to FILE instead of standard output\n"
    "  --format FMT          slots (default): 'RANK HOSTNAME CORE' per line;\n"
    "                        hostfile: one hostname per line in rank order, usable as\n"
    "                        SLURM_HOSTFILE with srun --distribution=arbitrary;\n"
    "                        rankfile: Open MPI rankfile 'rank R=HOST slot=CORE'\n"
    "  --grid-weak F         grid and auto: the process grid analyzer ignores edges\n"
    "                        below F times the average edge (default: 0.2)\n"
    "  --node-place MODE     after the algorithm, place each node's ranks on its cores\n"
    "                        by the node's hierarchy (sockets, NUMA domains): auto\n"
    "                        (default: TreeMatch on the node, then the SumCom\n"
    "                        refinement), treematch, refine, or off; never moves a\n"
    "                        rank to another node; not for block, cyclic, random\n"
    "  -v, --verbose         report progress on standard error (the candidates auto\n"
    "                        tries, their hop-bytes and times, the one it keeps)\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input or failed mapping, 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap map --profile app.txt --topology torus-8x8x8.yaml \\\n"
    "      --nodes 't[000-015]' --tasks-per-node 4 --algo block -o app.map\n"
    "  topomap map --profile app.txt --topology site.yaml --nodes \"$SLURM_JOB_NODELIST\" \\\n"
    "      --slots \"$SLURM_JOB_CPUS_PER_NODE\" --algo random --seed 7 --format hostfile\n";

int cmd_map(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "profile topology nodes tasks-per-node slots algo seed affinity threads "
               "time-limit refine loop profile-format output format grid-weak node-place "
               "verbose help",
               help_map, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");
    check_slot_options(&a);
    const char *algo = a.algo ? a.algo : "block";
    if (!topomap_algo_valid(algo)) {
        char list[512];
        algo_list(list, sizeof list);
        usage_error("--algo: unknown algorithm '%s' (known: %s)", algo, list);
    }

    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(a.topology);
    topomap_alloc_t *al = make_alloc(&a, t);
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!r2s)
        input_error("out of memory");
    char err[TOPOMAP_ERRLEN] = "";
    if (topomap_map(algo, p, al, &a.o, r2s, err, sizeof err) < 0)
        input_error("%s", liberr(err, algo, errno));

    /* Open the output only now, so a failed mapping leaves an old file alone. */
    FILE *f = stdout;
    if (a.output && strcmp(a.output, "-")) {
        f = fopen(a.output, "w");
        if (!f)
            input_error("cannot write '%s': %s", a.output, strerror(errno));
    }
    if (topomap_mapping_write(f, a.format, al, n, r2s) < 0)
        input_error("cannot write '%s': %s", a.output ? a.output : "standard output",
                    strerror(errno));
    if (f != stdout && fclose(f) != 0)
        input_error("cannot write '%s': %s", a.output, strerror(errno));
    free(r2s);
    topomap_alloc_free(al);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(0);
}
