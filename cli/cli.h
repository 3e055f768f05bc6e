/* SPDX-License-Identifier: BSD-3-Clause */
/* What the files of the topomap command share (cli/common.c), and one
 * entry point and help text per subcommand (cli/NAME.c). Errors are one
 * line on stderr starting "topomap: "; usage_error exits 2, input_error 1. */
#ifndef TOPOMAP_CLI_H
#define TOPOMAP_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "topomap.h"

struct args;

#define EXIT_INPUT 1
#define EXIT_USAGE 2

/* The command being run, for messages ("topomap: map: ..."). */
extern const char *cmd_name;

/* Bad usage: one line, a pointer to the help, exit 2. */
void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Bad input: one line, exit 1. */
void input_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* One "topomap: [COMMAND: ]..." line on stderr, made printable. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library error: its message if it left one, else "WHAT: strerror(E)".
 * Valid until the next call. */
const char *liberr(const char *err, const char *what, int e);
/* Seconds on the monotonic clock. */
double now(void);
/* now() when the process started (main): --time-limit counts from it. */
extern double cli_start;
/* The shortest %g that reads back as V; jnum writes null for inf/nan. */
const char *num(double v, char *buf, size_t len);
const char *jnum(double v, char *buf, size_t len);
/* @str as a JSON string on @f: quoted, escaped, bytes that are not UTF-8 as
 * U+FFFD; NULL as null (cli/json.c). Every string of a --json output goes
 * through it. */
void json_str(FILE *f, const char *str);
/* ", \"KEY\": VALUE" (no comma when @first), both through json_str. */
void json_key(FILE *f, int first, const char *key, const char *value);

long parse_long_opt(const char *opt, const char *s, long min, long max);
/* The strict integer at the start of s, up to the first character of stop
 * or the end; *next points there. 0, or -1 when it is no integer. */
int parse_long_item(const char *s, const char *stop, long *v, const char **next);
uint64_t parse_seed(const char *s);
double parse_fraction(const char *opt, const char *s);
double parse_seconds(const char *opt, const char *s);
int parse_profile_format(const char *s);
/* --format (@reading 0) or --mapping-format (@reading 1). */
int parse_mapping_format(const char *s, int reading);
int parse_affinity(const char *s);
/* --node-place: auto, off, treematch, refine (enum topomap_node_place). */
int parse_node_place(const char *s);
/* "block, cyclic, ..." into BUF. */
void algo_list(char *buf, size_t len);
/* Flush stdout; a write error turns RC into EXIT_INPUT with one line. */
int finish_stdout(int rc);
/* "topomap: CMD: ..." on stderr: progress only with --verbose; notice always. */
void progress(const struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct args {
    const char *profile, *topology, *nodes, *tpn, *slots, *algo, *algos, *mapping, *output, *k;
    const char *store, *site, *slurm; /* plan */
    const char *topology_name; /* one topology of a Slurm topology.yaml */
    const char *layout;        /* eval: a training layout (cli/fabric.c) */
    int profile_format, format, mapping_format, json, verbose, quiet, cores_per_node;
    int bound; /* eval: the Gilmore-Lawler bound of hop-bytes */
    topomap_opts_t o;
    char **pos; /* positional arguments */
    int npos;
    /* Filled while loading: where the allocation came from ("--nodes",
     * "SLURM_JOB_NODELIST", ...), for messages. */
    const char *nodes_from, *slots_from;
    /* Filled from the library's progress lines (opts.log): the candidate
     * `auto` chose, and 1 when its time limit cut the search short. */
    char chosen[64];
    int time_limited;
};

/* Parse argv (argv[0] is the command) accepting the options whose names are
 * listed in ALLOWED (space separated). --help prints HELP and exits 0. */
void parse_args(int argc, char **argv, const char *allowed, const char *help, struct args *a);
void no_positional(const struct args *a);
void require(const char *value, const char *option);

/* Loading inputs (cli/job.c); each failure is bad input (exit 1). */
topomap_profile_t *load_profile(const struct args *a);
/* The topology NAME: a path, or the name of a shipped description found in
 * $TOPOMAP_TOPOLOGY_PATH, the installed directory, or the source tree's
 * topologies/ when run from the build tree (NAME or NAME.yaml);
 * --cores-per-node applied. */
topomap_topology_t *load_topology(const struct args *a, const char *name);
/* The path NAME stands for (see load_topology; "slurm": the file beside
 * slurm.conf, as topology=slurm), or NULL. Caller frees. find_topology_err
 * also says why not in ERR: the file is missing (naming the shipped ones),
 * or slurm.conf names no topology. */
char *find_topology(const char *name);
char *find_topology_err(const char *name, char *err, size_t errlen);
/* The directories searched for topologies by name, in order (at most @max):
 * the entries of $TOPOMAP_TOPOLOGY_PATH, then the installed one, then the
 * source tree's when this binary is the build tree's. */
int topology_dirs(const char **dirs, int max);
/* Check the allocation options before anything is loaded (usage errors):
 * --tasks-per-node with --slots; require_allocation: no --nodes outside a
 * Slurm job (make_alloc checks it too). */
void check_slot_options(const struct args *a);
void require_allocation(const struct args *a);
/* The allocation: --nodes HOSTLIST or 'all', else the Slurm job's
 * (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE, said
 * in one line); slots from --tasks-per-node / --slots, else the job's, else
 * every core. At most one rank per core. Caller frees. */
topomap_alloc_t *make_alloc(struct args *a, const topomap_topology_t *t);
/* A hint after "N ranks do not fit in M slots" when the topology has one
 * core per node (a Slurm topology.conf), else "". */
const char *fit_hint(const topomap_topology_t *t, int e);
/* Run ALGO, timing it; on failure one line and exit 1. */
void run_map(struct args *a, const char *algo, const topomap_profile_t *p,
             const topomap_alloc_t *al, int *r2s, double *seconds);
/* Is ALGO `auto` (any case, +refine or not)? */
int is_auto(const char *algo);
/* Is ALGO one that keeps to its limit itself and returns its best so far
 * (auto, exact)? Without --time-limit it gets AUTO_DEFAULT_TIME_LIMIT. */
int default_limited(const char *algo);
/* compare's default list runs exact this long without --time-limit. */
#define COMPARE_EXACT_TIME_LIMIT 5.0
/* `auto` and `exact` without --time-limit get this many seconds. */
#define AUTO_DEFAULT_TIME_LIMIT 60.0
/* Print metrics as eval does (table or one JSON object); @bound: the
 * hop-bytes bound too (eval --bound), or NULL. */
void print_metrics(const topomap_metrics_t *m, int nranks, const topomap_topology_t *t, int json,
                   const topomap_traffic_split_t *split, const double *bound);

/* GPU fabrics (cli/fabric.c): "tp=4,pp=2,dp=20[,cp=N][,ep=N][,order=O]"
 * into *l (usage error when bad); eval's lines for a topology with a
 * gpu_fabric (traffic by path class, busiest links) and, with a layout (may
 * be NULL), the spread of its groups. */
void parse_layout(const char *s, topomap_layout_t *l);
/* The layout fits the profile and the topology has a fabric, else bad input. */
void check_layout(const topomap_layout_t *l, const topomap_profile_t *p,
                  const topomap_topology_t *t);
void print_fabric(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                  const int *core, const topomap_layout_t *l);

/* topomap profile synth (cli/profile_synth.c); argv[0] is "synth". */
int profile_synth(int argc, char **argv);
extern const char help_profile_synth[];

/* The subcommands: cli/NAME.c. */
#define TOPOMAP_CLI_COMMAND(name) \
    int cmd_##name(int argc, char **argv); \
    extern const char help_##name[];
TOPOMAP_CLI_COMMAND(map)
TOPOMAP_CLI_COMMAND(eval)
TOPOMAP_CLI_COMMAND(compare)
TOPOMAP_CLI_COMMAND(stats)
TOPOMAP_CLI_COMMAND(topology)
TOPOMAP_CLI_COMMAND(algorithms)
TOPOMAP_CLI_COMMAND(profile)
TOPOMAP_CLI_COMMAND(plan)
TOPOMAP_CLI_COMMAND(plot)
#undef TOPOMAP_CLI_COMMAND

#endif
