/* SPDX-License-Identifier: BSD-3-Clause */
/* The part of the topomap command that every subcommand shares: messages and
 * exit statuses, number and option parsing, loading the inputs. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common.h" /* spank/common.h: the plugin's rules the CLI shares (threads) */

/* ------------------------------------------------------------------------ */
/* Errors and small helpers. */

const char *cmd_name = NULL; /* current command, for messages */

/* One "topomap: " line on stderr. Arguments and file contents can hold
 * control characters (ESC, CR): the line is made printable first. */
static void msg(const char *fmt, va_list ap)
{
    char line[TOPOMAP_ERRLEN + 1024], safe[sizeof line];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "topomap: %s%s%s\n", cmd_name ? cmd_name : "", cmd_name ? ": " : "",
            topomap_printable(line, safe, sizeof safe));
}

void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg(fmt, ap);
    va_end(ap);
}

/* Bad usage: one line, a pointer to the help, exit 2. */
void usage_error(const char *fmt, ...)
{
    char line[TOPOMAP_ERRLEN + 1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    say("%s (see 'topomap help%s%s')", line, cmd_name ? " " : "", cmd_name ? cmd_name : "");
    exit(EXIT_USAGE);
}

/* Bad input: one line, exit 1. */
void input_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg(fmt, ap);
    va_end(ap);
    exit(EXIT_INPUT);
}

/* Report a library error: its message if it left one, else errno's text. */
const char *liberr(const char *err, const char *what, int e)
{
    static char buf[TOPOMAP_ERRLEN + 256];
    if (err && *err)
        return err;
    snprintf(buf, sizeof buf, "%s: %s", what, strerror(e));
    return buf;
}

double cli_start;

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The shortest of %.15g..%.17g that reads back as the same double, so that
 * integers print as integers and nothing is lost. */
const char *num(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* A JSON number (JSON has no inf or nan: null). */
const char *jnum(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "null");
        return buf;
    }
    return num(v, buf, len);
}

/* Numbers are parsed strictly by the library's helpers: no blanks, no '+'. */
long parse_long_opt(const char *opt, const char *s, long min, long max)
{
    long v;
    if (topomap_parse_long(s, &v) < 0 || v < min || v > max)
        usage_error("%s: '%s' is not an integer from %ld to %ld", opt, s, min, max);
    return v;
}

int parse_long_item(const char *s, const char *stop, long *v, const char **next)
{
    char item[32];
    size_t len = strcspn(s, stop);
    *next = s + len;
    if (len >= sizeof item)
        return -1;
    memcpy(item, s, len);
    item[len] = 0;
    return topomap_parse_long(item, v);
}

uint64_t parse_seed(const char *s)
{
    uint64_t v;
    if (topomap_parse_u64(s, &v) < 0)
        usage_error("--seed: '%s' is not an integer from 0 to 18446744073709551615", s);
    return v;
}

double parse_fraction(const char *opt, const char *s)
{
    double v;
    if (topomap_parse_double(s, &v) < 0 || v <= 0 || v >= 1)
        usage_error("%s: '%s' is not a number between 0 and 1", opt, s);
    return v;
}

double parse_seconds(const char *opt, const char *s)
{
    double v;
    if (topomap_parse_duration(s, 1, &v) < 0 || v <= 0)
        usage_error("%s: '%s' is not a positive duration (e.g. 2s, 500ms; a bare number is "
                    "seconds)",
                    opt, s);
    return v;
}

int parse_profile_format(const char *s)
{
    static const char *names[] = {"auto", "edges", "dense", "mtx", "binary"};
    static const int values[] = {TOPOMAP_FMT_AUTO, TOPOMAP_FMT_EDGES, TOPOMAP_FMT_DENSE,
                                 TOPOMAP_FMT_MTX, TOPOMAP_FMT_BINARY};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i]))
            return values[i];
    usage_error("--profile-format: unknown format '%s' (known: auto, edges, dense, mtx, binary)",
                s);
}

/* Mapping file formats: what map writes (--format), what eval reads
 * (--mapping-format, @reading: auto and the first three). */
int parse_mapping_format(const char *s, int reading)
{
    static const struct {
        const char *name;
        int value;
    } f[] = {{"slots", TOPOMAP_MAPPING_SLOTS},
             {"hostfile", TOPOMAP_MAPPING_HOSTFILE},
             {"rankfile", TOPOMAP_MAPPING_RANKFILE},
             {"mpich-rank-order", TOPOMAP_MAPPING_MPICH_RANK_ORDER},
             {"map-cpu", TOPOMAP_MAPPING_MAP_CPU},
             {"auto", TOPOMAP_MAPPING_AUTO}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!strcmp(s, f[i].name) &&
            (reading ? f[i].value <= TOPOMAP_MAPPING_RANKFILE : f[i].value >= 0))
            return f[i].value;
    if (reading)
        usage_error("--mapping-format: unknown format '%s' (known: auto, slots, hostfile, rankfile)",
                    s);
    usage_error("--format: unknown format '%s' (known: slots, hostfile, rankfile, "
                "mpich-rank-order, map-cpu)",
                s);
}

int parse_node_place(const char *s)
{
    static const char *const modes[] = {"auto", "off", "treematch", "refine"};
    for (int m = 0; m < 4; m++) /* enum topomap_node_place order */
        if (!strcmp(s, modes[m]))
            return m;
    usage_error("--node-place: unknown mode '%s' (known: auto, off, treematch, refine)", s);
}

int parse_affinity(const char *s)
{
    if (!strcmp(s, "bytes"))
        return TOPOMAP_AFFINITY_BYTES;
    if (!strcmp(s, "msgs"))
        return TOPOMAP_AFFINITY_MSGS;
    usage_error("--affinity: unknown affinity '%s' (known: bytes, msgs)", s);
}

void algo_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; topomap_algo_name(i) && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 topomap_algo_name(i));
}

/* Write errors on stdout (a full disk, a closed pipe) are bad output, not
 * success. */
int finish_stdout(int rc)
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
    OPT_CORES_PER_NODE,
    OPT_MAPPING_FORMAT,
    OPT_STORE,
    OPT_SLURM,
    OPT_SITE,
    OPT_NODE_PLACE,
    OPT_OBJECTIVE,
    OPT_TOPOLOGY_NAME,
    OPT_LAYOUT,
    OPT_BOUND,
    OPT_OUTPUT = 'o',
    OPT_QUIET = 'q',
    OPT_VERBOSE = 'v',
    OPT_HELP = 'h',
};

static const struct option all_options[] = {
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"topology", required_argument, NULL, OPT_TOPOLOGY},
    {"topology-name", required_argument, NULL, OPT_TOPOLOGY_NAME},
    {"layout", required_argument, NULL, OPT_LAYOUT},
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
    {"bound", no_argument, NULL, OPT_BOUND},
    {"k", required_argument, NULL, OPT_K},
    {"grid-weak", required_argument, NULL, OPT_GRID_WEAK},
    {"cores-per-node", required_argument, NULL, OPT_CORES_PER_NODE},
    {"mapping-format", required_argument, NULL, OPT_MAPPING_FORMAT},
    {"store", required_argument, NULL, OPT_STORE},
    {"slurm", required_argument, NULL, OPT_SLURM},
    {"site", required_argument, NULL, OPT_SITE},
    {"node-place", required_argument, NULL, OPT_NODE_PLACE},
    {"objective", required_argument, NULL, OPT_OBJECTIVE},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"help", no_argument, NULL, OPT_HELP},
    /* Slurm's spellings, for the hands used to srun: -w/--nodelist for the
     * nodes, --ntasks-per-node for the tasks per node. Accepted wherever the
     * option they stand for is (alias_of). */
    {"nodelist", required_argument, NULL, OPT_NODES},
    {"ntasks-per-node", required_argument, NULL, OPT_TPN},
};
#define NOPTIONS ((int)(sizeof all_options / sizeof all_options[0]))

/* The option an alias stands for: the first entry of all_options with the
 * same value. */
static const char *alias_of(const struct option *o)
{
    for (int i = 0; i < NOPTIONS; i++)
        if (all_options[i].val == o->val)
            return all_options[i].name;
    return o->name;
}

/* Progress lines of the library (opts.log): shown with --verbose; the
 * lines of `auto` that say what it chose and whether its time limit stopped
 * it are also kept for the summary of map (libtopomap/map_auto.c writes them). */
static void cli_log(const char *line, void *arg)
{
    struct args *a = arg;
    if (a->verbose)
        fprintf(stderr, "topomap: %s\n", line);
    const char *chose = "auto: chose ";
    if (!strncmp(line, chose, strlen(chose))) {
        size_t len = strcspn(line + strlen(chose), " ");
        if (len >= sizeof a->chosen)
            len = sizeof a->chosen - 1;
        memcpy(a->chosen, line + strlen(chose), len);
        a->chosen[len] = 0;
    }
    if (!strncmp(line, "auto: ", 6) && strstr(line, "time limit"))
        a->time_limited = 1;
}

void progress(const struct args *a, const char *fmt, ...)
{
    if (!a->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    msg(fmt, ap);
    va_end(ap);
}

void notice(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg(fmt, ap);
    va_end(ap);
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
void parse_args(int argc, char **argv, const char *allowed, const char *help,
                       struct args *a)
{
    struct option opts[NOPTIONS + 1];
    int n = 0;
    char shorts[16] = ":"; /* leading ':' reports a missing argument as ':' */
    for (int i = 0; i < NOPTIONS; i++) {
        const char *name = alias_of(&all_options[i]);
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
        if (all_options[i].val == 'q')
            strcat(shorts, "q");
        if (all_options[i].val == OPT_NODES && !strchr(shorts, 'w'))
            strcat(shorts, "w:");
    }
    memset(&opts[n], 0, sizeof opts[n]);

    memset(a, 0, sizeof *a);
    topomap_opts_init(&a->o);
    a->profile_format = TOPOMAP_FMT_AUTO;
    a->format = TOPOMAP_MAPPING_SLOTS;
    a->mapping_format = TOPOMAP_MAPPING_AUTO;
    opterr = 0;
    optind = 0; /* full reset of GNU getopt */
    int c;
    while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        switch (c) {
        case OPT_PROFILE: a->profile = optarg; break;
        case OPT_TOPOLOGY: a->topology = optarg; break;
        case OPT_TOPOLOGY_NAME: a->topology_name = optarg; break;
        case OPT_LAYOUT: a->layout = optarg; break;
        case 'w':
        case OPT_NODES: a->nodes = optarg; break;
        case OPT_TPN: a->tpn = optarg; break;
        case OPT_SLOTS: a->slots = optarg; break;
        case OPT_ALGO: a->algo = optarg; break;
        case OPT_ALGOS: a->algos = optarg; break;
        case OPT_MAPPING: a->mapping = optarg; break;
        case OPT_OUTPUT: a->output = optarg; break;
        case OPT_K: a->k = optarg; break;
        case OPT_STORE: a->store = optarg; break;
        case OPT_SLURM: a->slurm = optarg; break;
        case OPT_SITE: a->site = optarg; break;
        case OPT_GRID_WEAK: a->o.grid_weak = parse_fraction("--grid-weak", optarg); break;
        case OPT_JSON: a->json = 1; break;
        case OPT_BOUND: a->bound = 1; break;
        case OPT_VERBOSE: a->verbose = 1; break;
        case OPT_QUIET: a->quiet = 1; break;
        case OPT_CORES_PER_NODE:
            a->cores_per_node = (int)parse_long_opt("--cores-per-node", optarg, 1, 1 << 20);
            break;
        case OPT_MAPPING_FORMAT: a->mapping_format = parse_mapping_format(optarg, 1); break;
        case OPT_REFINE: a->o.refine = 1; break;
        case OPT_LOOP: a->o.loop = parse_long_opt("--loop", optarg, 0, 1L << 30); break;
        case OPT_SEED: a->o.seed = parse_seed(optarg); break;
        case OPT_AFFINITY: a->o.affinity = parse_affinity(optarg); break;
        case OPT_NODE_PLACE: a->o.node_place = parse_node_place(optarg); break;
        case OPT_OBJECTIVE: {
            int obj = topomap_objective_parse(optarg); /* an int: -1 for unknown */
            if (obj < 0)
                usage_error("--objective: unknown objective '%s' (known: hop-bytes, congestion)",
                            optarg);
            a->o.objective = (topomap_objective_t)obj;
            break;
        }
        case OPT_THREADS:
            /* One rule with the plugin's threads= (spank/common.c). */
            if (tmsp_threads_parse(optarg, &a->o.nthreads) < 0)
                usage_error("--threads: '%s' is not auto or an integer from 1 to %d", optarg,
                            TOPOMAP_MAX_THREADS);
            if (a->o.nthreads == 0)
                a->o.nthreads = tmsp_auto_threads();
            break;
        case OPT_TIME_LIMIT: a->o.time_limit = parse_seconds("--time-limit", optarg); break;
        case OPT_PROFILE_FORMAT: a->profile_format = parse_profile_format(optarg); break;
        case OPT_FORMAT: a->format = parse_mapping_format(optarg, 0); break;
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
    a->o.log = cli_log;
    a->o.log_arg = a;
}

void no_positional(const struct args *a)
{
    if (a->npos > 0)
        usage_error("unexpected argument '%s'", a->pos[0]);
}

void require(const char *value, const char *option)
{
    if (!value)
        usage_error("missing required option %s", option);
}
