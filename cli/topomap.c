/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap: the command line face of libtopomap. Uses only the public API
 * (topomap.h). Exit status: 0 success, 1 bad input (a file that cannot be
 * read or is malformed, an unknown host, a mapping that failed), 2 bad usage
 * (unknown option, missing required option, bad number). Every error is one
 * line on stderr starting "topomap: ". */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topomap.h"

#define EXIT_INPUT 1
#define EXIT_USAGE 2

/* ------------------------------------------------------------------------ */
/* Help texts. Keep them in step with cli/topomap.1 (tests/cli.sh checks that
 * every option named here is documented there). */

static const char help_main[] =
    "Usage: topomap COMMAND [OPTIONS]\n"
    "       topomap --version | --help | help [COMMAND]\n"
    "\n"
    "Place the MPI ranks of a job onto the nodes and cores of a machine so that\n"
    "ranks which communicate a lot sit close together, and judge placements.\n"
    "\n"
    "Commands:\n"
    "  map               compute a mapping of ranks onto the slots of an allocation\n"
    "  eval              print the quality metrics of a mapping file\n"
    "  compare           run several mapping algorithms and compare their hop-bytes\n"
    "  stats             print the matrix statistics of a communication profile\n"
    "  topology show T   summarise the topology described by the file T\n"
    "  algorithms        list the mapping algorithms\n"
    "  profile           manage the profile store (add, list, show, rm)\n"
    "  help [COMMAND]    print this help, or the help of COMMAND\n"
    "\n"
    "Options:\n"
    "  -h, --help        print this help and exit\n"
    "  -V, --version     print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0  success\n"
    "  1  bad input: a file that cannot be read or is malformed, an unknown host,\n"
    "     a mapping that could not be computed or written\n"
    "  2  bad usage: unknown command or option, missing required option, bad number\n"
    "\n"
    "Run 'topomap help COMMAND' for the options of a command, 'man topomap' for\n"
    "the manual (file formats, metrics, examples).\n";

static const char help_map[] =
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

static const char help_eval[] =
    "Usage: topomap eval --profile FILE --topology FILE --mapping FILE [--json]\n"
    "                    [--profile-format FMT]\n"
    "\n"
    "Print the quality metrics of a placement read from a mapping file in the\n"
    "slots format ('RANK HOSTNAME CORE' per line, '#' comments), as written by\n"
    "'topomap map'. Every rank of the profile must appear exactly once.\n"
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
    "  congestion_max      bytes on the busiest channel (one direction of a cable)\n"
    "                      when every pair's bytes follow the network's routing:\n"
    "                      dimension-ordered on tori (+ way on a halfway tie),\n"
    "                      up-down on trees, row-then-column on Tianhe-3\n"
    "  congestion_avg      mean bytes over the channels that carry traffic\n"
    "  (and both divided by the topology's link_bandwidth, in seconds, if given)\n"
    "  traffic by level    bytes between ranks whose innermost shared level is the\n"
    "                      core, each node level (numa, socket...), the node, the\n"
    "                      leaf switch (networks with switches), or none (beyond);\n"
    "                      JSON: traffic_by_level\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required)\n"
    "  --topology FILE       machine description (required)\n"
    "  --mapping FILE        mapping in the slots format (required)\n"
    "  --json                print one JSON object instead of a table\n"
    "  --profile-format FMT  auto (default), edges, dense or mtx\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap eval --profile app.txt --topology torus-8x8x8.yaml --mapping app.map --json\n";

static const char help_compare[] =
    "Usage: topomap compare --profile FILE --topology FILE [--nodes HOSTLIST]\n"
    "                       [--tasks-per-node K | --slots SPEC] [--algos A,B,...]\n"
    "                       [--seed S] [--affinity bytes|msgs] [--threads N]\n"
    "                       [--time-limit SEC] [--refine] [--loop N]\n"
    "                       [--profile-format FMT] [--node-place MODE]\n"
    "                       [--json]\n"
    "\n"
    "Run several mapping algorithms on the same allocation and print, for each,\n"
    "its hop-bytes, hop-bytes relative to the block mapping, SumCom, congestion\n"
    "(bytes on the busiest channel), fraction of internode bytes and the time it took. An algorithm that fails is reported on\n"
    "standard error, the others still run, and the exit status is 1.\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (required)\n"
    "  --topology FILE       machine description (required)\n"
    "  --nodes HOSTLIST      allocated nodes (default: every node of the topology)\n"
    "  --tasks-per-node K    use K slots on every node (default: every core)\n"
    "  --slots SPEC          slots per node, SLURM_JOB_CPUS_PER_NODE syntax\n"
    "  --algos LIST          comma-separated algorithms (default: all of them)\n"
    "  --seed S              seed of randomised algorithms (default: 1)\n"
    "  --affinity KIND       bytes (default) or msgs\n"
    "  --threads N           OpenMP threads for the algorithms\n"
    "  --time-limit SEC      time limit of each algorithm\n"
    "  --refine              run the swap-refinement engine after each algorithm\n"
    "  --loop N              pair-exchange steps of ohtma/ohtma-fast (default: n/2)\n"
    "  --profile-format FMT  auto (default), edges, dense or mtx\n"
    "  --node-place MODE     node-internal placement: auto (default), treematch,\n"
    "                        refine or off (see 'topomap help map')\n"
    "  --json                print one JSON object instead of a table\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input or an algorithm failed, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap compare --profile app.txt --topology fattree-plafrim2.yaml \\\n"
    "      --nodes 'plafrim[001-004]' --algos block,cyclic,random\n";

static const char help_stats[] =
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

static const char help_topology[] =
    "Usage: topomap topology show FILE\n"
    "\n"
    "Summarise the topology described by FILE (a site YAML description or a\n"
    "Slurm topology.conf): kind, number of nodes, node names, cores per node,\n"
    "node levels and diameter.\n"
    "\n"
    "Options:\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap topology show /usr/share/topomap/topologies/torus-8x8x8.yaml\n";

static const char help_algorithms[] =
    "Usage: topomap algorithms\n"
    "\n"
    "List the mapping algorithms that --algo and --algos accept, one per line\n"
    "with a one-line summary.\n"
    "\n"
    "Options:\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 success, 2 bad usage.\n";

static const char help_profile[] =
    "Usage: topomap profile add NAME FILE [--profile-format FMT] [--store DIR]\n"
    "       topomap profile list [--store DIR]\n"
    "       topomap profile show NAME [--store DIR]\n"
    "       topomap profile rm NAME [--store DIR]\n"
    "\n"
    "Manage the profile store: a directory of communication profiles keyed by\n"
    "name, where the Slurm plugin finds the profile of an application\n"
    "(srun --topomap-profile=NAME, by default the executable's name).\n"
    "\n"
    "  add NAME FILE   read the profile FILE (any format 'map' reads) and store it\n"
    "                  as NAME, replacing a profile of that name. The write is\n"
    "                  atomic: jobs reading NAME meanwhile see the old or the new\n"
    "                  profile, never part of one\n"
    "  list            one line per profile: name, ranks, size in bytes, last change\n"
    "  show NAME       where NAME is stored, its rank count, entries, total bytes\n"
    "                  and recorded metadata\n"
    "  rm NAME         remove NAME\n"
    "\n"
    "A stored profile records its rank count and is only used for jobs with that\n"
    "many ranks; the plugin refuses it for any other count (one 'topomap:' line,\n"
    "Slurm's default layout). Names: 1 to 200 characters from A-Z a-z 0-9 . _ + -,\n"
    "not starting with '.' or '-'.\n"
    "\n"
    "Options:\n"
    "  --store DIR           the store (default: $TOPOMAP_STORE, else\n"
    "                        " TOPOMAP_STORE_DEFAULT ")\n"
    "  --profile-format FMT  format of FILE for add: auto (default), edges, dense\n"
    "                        or mtx\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input (unreadable or malformed FILE, no such\n"
    "profile, a store that cannot be read or written), 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap profile add lmp lammps-lj32k-128.txt --store /var/lib/topomap/profiles\n"
    "  topomap profile list\n";

static const char help_help[] =
    "Usage: topomap help [COMMAND]\n"
    "\n"
    "Print the overview of topomap, or the help of COMMAND (map, eval, compare,\n"
    "stats, topology, algorithms, profile, help).\n"
    "\n"
    "Exit status: 0 success, 2 unknown command.\n";

/* ------------------------------------------------------------------------ */
/* Errors and small helpers. */

static const char *cmd_name = NULL; /* current command, for messages */

static void msg(const char *fmt, va_list ap)
{
    fputs("topomap: ", stderr);
    if (cmd_name)
        fprintf(stderr, "%s: ", cmd_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* Bad usage: one line, a pointer to the help, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("topomap: ", stderr);
    if (cmd_name)
        fprintf(stderr, "%s: ", cmd_name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'topomap help%s%s')\n", cmd_name ? " " : "", cmd_name ? cmd_name : "");
    exit(EXIT_USAGE);
}

/* Bad input: one line, exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2))) input_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg(fmt, ap);
    va_end(ap);
    exit(EXIT_INPUT);
}

/* Report a library error: its message if it left one, else errno's text. */
static const char *liberr(const char *err, const char *what, int e)
{
    static char buf[TOPOMAP_ERRLEN + 256];
    if (err && *err)
        return err;
    snprintf(buf, sizeof buf, "%s: %s", what, strerror(e));
    return buf;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The shortest of %.15g..%.17g that reads back as the same double, so that
 * integers print as integers and nothing is lost. */
static const char *num(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* A JSON number (JSON has no inf or nan: null). */
static const char *jnum(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "null");
        return buf;
    }
    return num(v, buf, len);
}

static long parse_long_opt(const char *opt, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max)
        usage_error("%s: '%s' is not an integer from %ld to %ld", opt, s, min, max);
    return v;
}

static uint64_t parse_seed(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || strchr(s, '-'))
        usage_error("--seed: '%s' is not an integer from 0 to 18446744073709551615", s);
    return (uint64_t)v;
}

static double parse_fraction(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v <= 0 || v >= 1)
        usage_error("%s: '%s' is not a number between 0 and 1", opt, s);
    return v;
}

static double parse_seconds(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v <= 0)
        usage_error("%s: '%s' is not a positive number of seconds", opt, s);
    return v;
}

static int parse_profile_format(const char *s)
{
    static const char *names[] = {"auto", "edges", "dense", "mtx"};
    static const int values[] = {TOPOMAP_FMT_AUTO, TOPOMAP_FMT_EDGES, TOPOMAP_FMT_DENSE,
                                 TOPOMAP_FMT_MTX};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i]))
            return values[i];
    usage_error("--profile-format: unknown format '%s' (known: auto, edges, dense, mtx)", s);
}

static int parse_mapping_format(const char *s)
{
    if (!strcmp(s, "slots"))
        return TOPOMAP_MAPPING_SLOTS;
    if (!strcmp(s, "hostfile"))
        return TOPOMAP_MAPPING_HOSTFILE;
    if (!strcmp(s, "rankfile"))
        return TOPOMAP_MAPPING_RANKFILE;
    usage_error("--format: unknown format '%s' (known: slots, hostfile, rankfile)", s);
}

static int parse_node_place(const char *s)
{
    static const char *const modes[] = {"auto", "off", "treematch", "refine"};
    for (int m = 0; m < 4; m++) /* enum topomap_node_place order */
        if (!strcmp(s, modes[m]))
            return m;
    usage_error("--node-place: unknown mode '%s' (known: auto, off, treematch, refine)", s);
}

static int parse_affinity(const char *s)
{
    if (!strcmp(s, "bytes"))
        return TOPOMAP_AFFINITY_BYTES;
    if (!strcmp(s, "msgs"))
        return TOPOMAP_AFFINITY_MSGS;
    usage_error("--affinity: unknown affinity '%s' (known: bytes, msgs)", s);
}

static void algo_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; topomap_algo_name(i) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 topomap_algo_name(i));
}

/* Write errors on stdout (a full disk, a closed pipe) are bad output, not
 * success. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno ? errno : EIO;
        fprintf(stderr, "topomap: write error on standard output: %s\n", strerror(e));
        return EXIT_INPUT;
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Options. One table; each command accepts a subset of it. */

enum {
    OPT_PROFILE = 256,
    OPT_TOPOLOGY,
    OPT_NODES,
    OPT_TPN,
    OPT_SLOTS,
    OPT_ALGO,
    OPT_ALGOS,
    OPT_SEED,
    OPT_AFFINITY,
    OPT_THREADS,
    OPT_TIME_LIMIT,
    OPT_REFINE,
    OPT_LOOP,
    OPT_PROFILE_FORMAT,
    OPT_FORMAT,
    OPT_MAPPING,
    OPT_JSON,
    OPT_K,
    OPT_GRID_WEAK,
    OPT_NODE_PLACE,
    OPT_OUTPUT = 'o',
    OPT_VERBOSE = 'v',
    OPT_HELP = 'h',
};

static const struct option all_options[] = {
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"topology", required_argument, NULL, OPT_TOPOLOGY},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"tasks-per-node", required_argument, NULL, OPT_TPN},
    {"slots", required_argument, NULL, OPT_SLOTS},
    {"algo", required_argument, NULL, OPT_ALGO},
    {"algos", required_argument, NULL, OPT_ALGOS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"affinity", required_argument, NULL, OPT_AFFINITY},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"refine", no_argument, NULL, OPT_REFINE},
    {"loop", required_argument, NULL, OPT_LOOP},
    {"profile-format", required_argument, NULL, OPT_PROFILE_FORMAT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"mapping", required_argument, NULL, OPT_MAPPING},
    {"json", no_argument, NULL, OPT_JSON},
    {"k", required_argument, NULL, OPT_K},
    {"grid-weak", required_argument, NULL, OPT_GRID_WEAK},
    {"node-place", required_argument, NULL, OPT_NODE_PLACE},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"help", no_argument, NULL, OPT_HELP},
};
#define NOPTIONS ((int)(sizeof all_options / sizeof all_options[0]))

struct args {
    const char *profile, *topology, *nodes, *tpn, *slots, *algo, *algos, *mapping, *output, *k;
    int profile_format, format, json;
    topomap_opts_t o;
    char **pos; /* positional arguments */
    int npos;
};

/* Progress lines of the library (opts.log), for --verbose. */
static void log_stderr(const char *line, void *arg)
{
    (void)arg;
    fprintf(stderr, "topomap: %s\n", line);
}

static const char *option_name(int val)
{
    for (int i = 0; i < NOPTIONS; i++)
        if (all_options[i].val == val)
            return all_options[i].name;
    return "?";
}

/* Parse argv (argv[0] is the command) accepting the options whose names are
 * listed in @allowed (space separated). --help prints @help and exits 0. */
static void parse_args(int argc, char **argv, const char *allowed, const char *help,
                       struct args *a)
{
    struct option opts[NOPTIONS + 1];
    int n = 0;
    char shorts[8] = ":"; /* leading ':' reports a missing argument as ':' */
    for (int i = 0; i < NOPTIONS; i++) {
        const char *name = all_options[i].name;
        size_t len = strlen(name);
        const char *p = allowed;
        int found = 0;
        while ((p = strstr(p, name)) != NULL) {
            if ((p == allowed || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0)) {
                found = 1;
                break;
            }
            p += len;
        }
        if (!found)
            continue;
        opts[n++] = all_options[i];
        if (all_options[i].val == 'o')
            strcat(shorts, "o:");
        if (all_options[i].val == 'h')
            strcat(shorts, "h");
        if (all_options[i].val == 'v')
            strcat(shorts, "v");
    }
    memset(&opts[n], 0, sizeof opts[n]);

    memset(a, 0, sizeof *a);
    topomap_opts_init(&a->o);
    a->profile_format = TOPOMAP_FMT_AUTO;
    a->format = TOPOMAP_MAPPING_SLOTS;
    opterr = 0;
    optind = 0; /* full reset of GNU getopt */
    int c;
    while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        switch (c) {
        case OPT_PROFILE: a->profile = optarg; break;
        case OPT_TOPOLOGY: a->topology = optarg; break;
        case OPT_NODES: a->nodes = optarg; break;
        case OPT_TPN: a->tpn = optarg; break;
        case OPT_SLOTS: a->slots = optarg; break;
        case OPT_ALGO: a->algo = optarg; break;
        case OPT_ALGOS: a->algos = optarg; break;
        case OPT_MAPPING: a->mapping = optarg; break;
        case OPT_OUTPUT: a->output = optarg; break;
        case OPT_K: a->k = optarg; break;
        case OPT_GRID_WEAK: a->o.grid_weak = parse_fraction("--grid-weak", optarg); break;
        case OPT_JSON: a->json = 1; break;
        case OPT_VERBOSE: a->o.log = log_stderr; break;
        case OPT_REFINE: a->o.refine = 1; break;
        case OPT_LOOP: a->o.loop = parse_long_opt("--loop", optarg, 0, 1L << 30); break;
        case OPT_SEED: a->o.seed = parse_seed(optarg); break;
        case OPT_AFFINITY: a->o.affinity = parse_affinity(optarg); break;
        case OPT_NODE_PLACE: a->o.node_place = parse_node_place(optarg); break;
        case OPT_THREADS: a->o.nthreads = (int)parse_long_opt("--threads", optarg, 1, 4096); break;
        case OPT_TIME_LIMIT: a->o.time_limit = parse_seconds("--time-limit", optarg); break;
        case OPT_PROFILE_FORMAT: a->profile_format = parse_profile_format(optarg); break;
        case OPT_FORMAT: a->format = parse_mapping_format(optarg); break;
        case OPT_HELP:
            fputs(help, stdout);
            exit(finish_stdout(0));
        case ':':
            if (optopt > 255)
                usage_error("option '--%s' needs an argument", option_name(optopt));
            usage_error("option '-%c' needs an argument", optopt);
        default: /* '?' */
            if (optopt > 255)
                usage_error("option '--%s' takes no argument", option_name(optopt));
            if (optopt)
                usage_error("unknown option '-%c'", optopt);
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    a->pos = argv + optind;
    a->npos = argc - optind;
}

static void no_positional(const struct args *a)
{
    if (a->npos > 0)
        usage_error("unexpected argument '%s'", a->pos[0]);
}

static void require(const char *value, const char *option)
{
    if (!value)
        usage_error("missing required option %s", option);
}

/* ------------------------------------------------------------------------ */
/* Loading inputs; each failure is bad input (exit 1). */

static topomap_profile_t *load_profile(const struct args *a)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(a->profile, a->profile_format, err, sizeof err);
    if (!p)
        input_error("%s", liberr(err, a->profile, errno));
    return p;
}

static topomap_topology_t *load_topology(const char *path)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    if (!t)
        input_error("%s", liberr(err, path, errno));
    return t;
}

/* The allocation from --nodes (default: all nodes) and --tasks-per-node or
 * --slots. Caller frees. */
static topomap_alloc_t *make_alloc(const struct args *a, const topomap_topology_t *t)
{
    char err[TOPOMAP_ERRLEN] = "";
    char *all = NULL;
    const char *nodes = a->nodes;
    if (!nodes) {
        int nn = topomap_topology_nnodes(t);
        const char **names = malloc(sizeof(char *) * (size_t)(nn > 0 ? nn : 1));
        if (!names)
            input_error("out of memory");
        for (int i = 0; i < nn; i++)
            names[i] = topomap_topology_node_name(t, i);
        all = topomap_hostlist_compress(names, (size_t)nn);
        free(names);
        if (!all)
            input_error("cannot list the nodes of the topology: %s", strerror(errno));
        nodes = all;
    }
    topomap_alloc_t *al =
        topomap_alloc_create(t, nodes, a->tpn ? a->tpn : a->slots, err, sizeof err);
    if (!al)
        input_error("%s", liberr(err, "allocation", errno));
    free(all);
    return al;
}

static void check_slot_options(const struct args *a)
{
    if (a->tpn && a->slots)
        usage_error("--tasks-per-node and --slots cannot be used together");
    if (a->tpn)
        parse_long_opt("--tasks-per-node", a->tpn, 1, 1 << 20);
}

/* ------------------------------------------------------------------------ */
/* Commands. */

static int cmd_map(int argc, char **argv)
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

/* The traffic split by level: ", \"traffic_by_level\": {...}" inside the
 * JSON object, or one line. */
static void print_split(const topomap_traffic_split_t *s, int json)
{
    char b[40];
    printf(json ? ", \"traffic_by_level\": {" : "%-20s", json ? "" : "traffic by level");
    for (int k = 0; k < s->n; k++)
        printf(json ? "%s\"%s\": %s" : "%s%s %s", k ? (json ? ", " : ", ") : (json ? "" : " "),
               s->name[k], json ? jnum(s->bytes[k], b, sizeof b) : num(s->bytes[k], b, sizeof b));
    printf(json ? "}" : "\n");
}

static void print_metrics(const topomap_metrics_t *m, int nranks, double bandwidth, int json,
                          const topomap_traffic_split_t *split)
{
    char b[11][40];
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
               bandwidth > 0 ? jnum(m->congestion_max_seconds, b[9], 40) : "null",
               bandwidth > 0 ? jnum(m->congestion_avg_seconds, b[10], 40) : "null");
        if (split)
            print_split(split, 1);
        printf("}\n");
        return;
    }
    printf("%-20s %d\n", "ranks", nranks);
    printf("%-20s %s\n", "total bytes", num(m->total_bytes, b[0], 40));
    printf("%-20s %s\n", "hop-bytes", num(m->hop_bytes, b[1], 40));
    printf("%-20s %s\n", "avg hops per byte", num(m->avg_hops_per_byte, b[2], 40));
    printf("%-20s %d\n", "max dilation", m->max_dilation);
    printf("%-20s %s\n", "SumCom", num(m->sumcom, b[3], 40));
    printf("%-20s %s\n", "MaxCom", num(m->maxcom, b[4], 40));
    printf("%-20s %s\n", "internode bytes", num(m->internode_bytes, b[5], 40));
    printf("%-20s %s\n", "internode fraction", num(m->internode_fraction, b[6], 40));
    printf("%-20s %s bytes (busiest channel)\n", "congestion max", num(m->congestion_max, b[7], 40));
    printf("%-20s %s bytes (mean of %ld loaded channels)\n", "congestion avg",
           num(m->congestion_avg, b[8], 40), m->congestion_channels);
    if (bandwidth > 0) {
        printf("%-20s %s s at %s bytes/s\n", "congestion max time",
               num(m->congestion_max_seconds, b[9], 40), num(bandwidth, b[10], 40));
        printf("%-20s %s s\n", "congestion avg time", num(m->congestion_avg_seconds, b[9], 40));
    }
    if (split)
        print_split(split, 0);
}

static int cmd_eval(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "profile topology mapping json profile-format help", help_eval, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");
    require(a.mapping, "--mapping");

    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(a.topology);
    int n = topomap_profile_nranks(p);
    int *node = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *core = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!node || !core)
        input_error("out of memory");
    char err[TOPOMAP_ERRLEN] = "";
    if (topomap_mapping_read(a.mapping, t, n, node, core, err, sizeof err) < 0)
        input_error("%s", liberr(err, a.mapping, errno));
    topomap_metrics_t m;
    if (topomap_eval(p, t, node, core, &m) < 0)
        input_error("cannot evaluate the mapping: %s", strerror(errno));
    topomap_traffic_split_t split;
    if (topomap_traffic_split(p, t, node, core, &split) < 0)
        input_error("cannot split the traffic by level: %s", strerror(errno));
    print_metrics(&m, n, topomap_topology_link_bandwidth(t), a.json, &split);
    free(node);
    free(core);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(0);
}

struct result {
    const char *name;
    int ok;
    topomap_metrics_t m;
    double seconds;
};

static int cmd_compare(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "profile topology nodes tasks-per-node slots algos seed affinity threads "
               "time-limit refine loop profile-format node-place json help",
               help_compare, &a);
    no_positional(&a);
    require(a.profile, "--profile");
    require(a.topology, "--topology");
    check_slot_options(&a);

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

    topomap_profile_t *p = load_profile(&a);
    topomap_topology_t *t = load_topology(a.topology);
    topomap_alloc_t *al = make_alloc(&a, t);
    int n = topomap_profile_nranks(p);
    int *r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    struct result *res = calloc((size_t)nnames + 1, sizeof *res);
    if (!r2s || !res)
        input_error("out of memory");

    /* res[0] is always block, the reference; it is shown only if asked for. */
    int failed = 0;
    for (int i = 0; i <= nnames; i++) {
        const char *algo = i == 0 ? "block" : names[i - 1];
        if (i > 0 && !strcmp(algo, "block")) {
            res[i] = res[0];
            continue;
        }
        char err[TOPOMAP_ERRLEN] = "";
        res[i].name = algo;
        double t0 = now();
        int rc = topomap_map(algo, p, al, &a.o, r2s, err, sizeof err);
        res[i].seconds = now() - t0;
        if (rc < 0) {
            if (i == 0) /* block failing means the inputs do not fit */
                input_error("%s", liberr(err, algo, errno));
            fprintf(stderr, "topomap: compare: %s: %s\n", algo, liberr(err, algo, errno));
            failed = 1;
            continue;
        }
        if (topomap_eval_slots(p, al, r2s, &res[i].m) < 0)
            input_error("cannot evaluate the mapping of '%s': %s", algo, strerror(errno));
        res[i].ok = 1;
    }

    double ref = res[0].m.hop_bytes;
    char b[7][40];
    if (a.json) {
        printf("{\"reference\": \"block\", \"block_hop_bytes\": %s, \"algorithms\": [",
               jnum(ref, b[0], 40));
        for (int i = 1; i <= nnames; i++) {
            printf("%s{\"name\": \"%s\", \"ok\": %s", i > 1 ? ", " : "", res[i].name,
                   res[i].ok ? "true" : "false");
            if (res[i].ok)
                printf(", \"hop_bytes\": %s, \"relative_hop_bytes\": %s, \"sumcom\": %s, "
                       "\"max_dilation\": %d, \"internode_fraction\": %s, "
                       "\"congestion_max\": %s, \"congestion_avg\": %s",
                       jnum(res[i].m.hop_bytes, b[0], 40),
                       ref > 0 ? jnum(res[i].m.hop_bytes / ref, b[1], 40) : "null",
                       jnum(res[i].m.sumcom, b[2], 40), res[i].m.max_dilation,
                       jnum(res[i].m.internode_fraction, b[3], 40),
                       jnum(res[i].m.congestion_max, b[5], 40),
                       jnum(res[i].m.congestion_avg, b[6], 40));
            printf(", \"seconds\": %s}", jnum(res[i].seconds, b[4], 40));
        }
        printf("]}\n");
    } else {
        printf("%-16s %13s %9s %17s %13s %9s %10s\n", "algorithm", "hop-bytes", "vs block",
               "SumCom", "max link (B)", "internode", "time (s)");
        for (int i = 1; i <= nnames; i++) {
            if (!res[i].ok) {
                printf("%-16s %13s %9s %17s %13s %9s %10.6f\n", res[i].name, "failed", "-", "-",
                       "-", "-", res[i].seconds);
                continue;
            }
            char rel[32];
            if (ref > 0)
                snprintf(rel, sizeof rel, "%.4f", res[i].m.hop_bytes / ref);
            else
                snprintf(rel, sizeof rel, "-");
            printf("%-16s %13s %9s %17s %13s %9.4f %10.6f\n", res[i].name,
                   num(res[i].m.hop_bytes, b[0], 40), rel, num(res[i].m.sumcom, b[1], 40),
                   num(res[i].m.congestion_max, b[2], 40), res[i].m.internode_fraction,
                   res[i].seconds);
        }
    }
    free(res);
    free(r2s);
    free(names);
    free(algos_copy);
    topomap_alloc_free(al);
    topomap_topology_free(t);
    topomap_profile_free(p);
    return finish_stdout(failed ? EXIT_INPUT : 0);
}

static int cmd_stats(int argc, char **argv)
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

static int cmd_topology(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "help", help_topology, &a);
    if (a.npos == 0)
        usage_error("missing subcommand: expected 'topology show FILE'");
    if (strcmp(a.pos[0], "show"))
        usage_error("unknown subcommand '%s': expected 'topology show FILE'", a.pos[0]);
    if (a.npos < 2)
        usage_error("missing topology file: expected 'topology show FILE'");
    if (a.npos > 2)
        usage_error("unexpected argument '%s'", a.pos[2]);
    topomap_topology_t *t = load_topology(a.pos[1]);
    if (topomap_topology_describe(t, stdout) < 0)
        input_error("write error on standard output: %s", strerror(errno));
    topomap_topology_free(t);
    return finish_stdout(0);
}

static int cmd_algorithms(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "help", help_algorithms, &a);
    no_positional(&a);
    int width = 0;
    for (int i = 0; topomap_algo_name(i); i++)
        if ((int)strlen(topomap_algo_name(i)) > width)
            width = (int)strlen(topomap_algo_name(i));
    for (int i = 0; topomap_algo_name(i); i++)
        printf("%-*s  %s\n", width, topomap_algo_name(i), topomap_algo_summary(i));
    return finish_stdout(0);
}

/* The profile store. Its options (--store) belong to no other command, so
 * they are parsed here rather than in the shared table. */
static int cmd_profile(int argc, char **argv)
{
    static const struct option opts[] = {
        {"store", required_argument, NULL, 's'},
        {"profile-format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *store = NULL;
    int format = TOPOMAP_FMT_AUTO, c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 's': store = optarg; break;
        case 'f': format = parse_profile_format(optarg); break;
        case 'h':
            fputs(help_profile, stdout);
            exit(finish_stdout(0));
        case ':': usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    char **pos = argv + optind;
    int npos = argc - optind;
    if (npos == 0)
        usage_error("missing subcommand: expected add, list, show or rm");
    const char *sub = pos[0];
    int want = !strcmp(sub, "add") ? 3 : !strcmp(sub, "list") ? 1
             : (!strcmp(sub, "show") || !strcmp(sub, "rm")) ? 2 : -1;
    if (want < 0)
        usage_error("unknown subcommand '%s': expected add, list, show or rm", sub);
    if (npos < want)
        usage_error("%s: missing %s", sub, npos == 1 ? "profile name" : "profile file");
    if (npos > want)
        usage_error("unexpected argument '%s'", pos[want]);
    if (want > 1 && !topomap_store_name_valid(pos[1]))
        usage_error("invalid profile name '%s' (1 to 200 characters from A-Z a-z 0-9 . _ + -, "
                    "not starting with '.' or '-')", pos[1]);
    if (format != TOPOMAP_FMT_AUTO && strcmp(sub, "add"))
        usage_error("--profile-format only applies to add");
    const char *dir = topomap_store_dir(store);
    char err[TOPOMAP_ERRLEN] = "";

    if (!strcmp(sub, "add")) {
        topomap_profile_t *p = topomap_profile_load(pos[2], format, err, sizeof err);
        if (!p)
            input_error("%s", liberr(err, pos[2], errno));
        if (topomap_store_add(store, pos[1], p, err, sizeof err) < 0)
            input_error("%s", liberr(err, dir, errno));
        printf("stored '%s' (%d ranks) in %s\n", pos[1], topomap_profile_nranks(p), dir);
        topomap_profile_free(p);
    } else if (!strcmp(sub, "list")) {
        topomap_store_entry_t *e = NULL;
        size_t n = 0;
        if (topomap_store_list(store, &e, &n, err, sizeof err) < 0)
            input_error("%s", liberr(err, dir, errno));
        printf("%-24s %8s %12s  %s\n", "NAME", "RANKS", "BYTES", "MODIFIED");
        for (size_t i = 0; i < n; i++) {
            char when[32] = "?", ranks[16] = "?";
            time_t t = (time_t)e[i].mtime;
            struct tm tm;
            if (localtime_r(&t, &tm))
                strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
            if (e[i].nranks > 0)
                snprintf(ranks, sizeof ranks, "%d", e[i].nranks);
            printf("%-24s %8s %12lld  %s\n", e[i].name, ranks, e[i].bytes, when);
        }
        free(e);
    } else if (!strcmp(sub, "show")) {
        char path[4096], b[40];
        topomap_profile_t *p = topomap_store_lookup(store, pos[1], 0, err, sizeof err);
        if (!p)
            input_error("%s", liberr(err, pos[1], errno));
        if (topomap_store_path(store, pos[1], path, sizeof path, err, sizeof err) < 0)
            input_error("%s", liberr(err, pos[1], errno));
        printf("%-12s %s\n", "name", pos[1]);
        printf("%-12s %s\n", "file", path);
        printf("%-12s %d\n", "ranks", topomap_profile_nranks(p));
        printf("%-12s %zu\n", "entries", topomap_profile_nedges(p));
        printf("%-12s %s\n", "total bytes", num(topomap_profile_total_bytes(p), b, sizeof b));
        printf("%-12s %s\n", "messages", topomap_profile_has_msgs(p) ? "yes" : "no");
        static const char *const keys[] = {"application", "date", "counted", "source", NULL};
        for (int i = 0; keys[i]; i++)
            if (topomap_profile_meta(p, keys[i]))
                printf("%-12s %s\n", keys[i], topomap_profile_meta(p, keys[i]));
        topomap_profile_free(p);
    } else {
        if (topomap_store_remove(store, pos[1], err, sizeof err) < 0)
            input_error("%s", liberr(err, pos[1], errno));
        printf("removed '%s' from %s\n", pos[1], dir);
    }
    return finish_stdout(0);
}

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"map", cmd_map, help_map},
    {"eval", cmd_eval, help_eval},
    {"compare", cmd_compare, help_compare},
    {"stats", cmd_stats, help_stats},
    {"topology", cmd_topology, help_topology},
    {"algorithms", cmd_algorithms, help_algorithms},
    {"profile", cmd_profile, help_profile},
    {"help", cmd_help, help_help},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static const struct command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int cmd_help(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv, "help", help_help, &a);
    if (a.npos > 1)
        usage_error("unexpected argument '%s'", a.pos[1]);
    if (a.npos == 0) {
        fputs(help_main, stdout);
        return finish_stdout(0);
    }
    const struct command *c = find_command(a.pos[0]);
    if (!c) {
        cmd_name = NULL; /* point at the overview, not at 'help help' */
        usage_error("unknown command '%s'", a.pos[0]);
    }
    fputs(c->help, stdout);
    return finish_stdout(0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("topomap: missing command (see 'topomap help')\n", stderr);
        return EXIT_USAGE;
    }
    const char *c = argv[1];
    if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
        if (argc > 2)
            usage_error("unexpected argument '%s'", argv[2]);
        printf("topomap %s\n", topomap_version());
        return finish_stdout(0);
    }
    if (!strcmp(c, "--help") || !strcmp(c, "-h")) {
        if (argc > 2)
            usage_error("unexpected argument '%s'", argv[2]);
        fputs(help_main, stdout);
        return finish_stdout(0);
    }
    const struct command *cmd = find_command(c);
    if (!cmd) {
        if (c[0] == '-')
            usage_error("unknown option '%s' before the command", c);
        usage_error("unknown command '%s'", c);
    }
    cmd_name = cmd->name;
    return cmd->run(argc - 1, argv + 1);
}
