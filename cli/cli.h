/* SPDX-License-Identifier: BSD-3-Clause */
/* What the files of the topomap command share (cli/common.c), and one
 * entry point and help text per subcommand (cli/NAME.c). Errors are one
 * line on stderr starting "topomap: "; usage_error exits 2, input_error 1. */
#ifndef TOPOMAP_CLI_H
#define TOPOMAP_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "topomap.h"

#define EXIT_INPUT 1
#define EXIT_USAGE 2

/* The command being run, for messages ("topomap: map: ..."). */
extern const char *cmd_name;

/* Bad usage: one line, a pointer to the help, exit 2. */
void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Bad input: one line, exit 1. */
void input_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A library error: its message if it left one, else "WHAT: strerror(E)".
 * Valid until the next call. */
const char *liberr(const char *err, const char *what, int e);
/* Seconds on the monotonic clock. */
double now(void);
/* The shortest %g that reads back as V; jnum writes null for inf/nan. */
const char *num(double v, char *buf, size_t len);
const char *jnum(double v, char *buf, size_t len);

long parse_long_opt(const char *opt, const char *s, long min, long max);
uint64_t parse_seed(const char *s);
double parse_fraction(const char *opt, const char *s);
double parse_seconds(const char *opt, const char *s);
int parse_profile_format(const char *s);
int parse_mapping_format(const char *s);
int parse_affinity(const char *s);
/* --node-place: auto, off, treematch, refine (enum topomap_node_place). */
int parse_node_place(const char *s);
/* "block, cyclic, ..." into BUF. */
void algo_list(char *buf, size_t len);
/* Flush stdout; a write error turns RC into EXIT_INPUT with one line. */
int finish_stdout(int rc);

struct args {
    const char *profile, *topology, *nodes, *tpn, *slots, *algo, *algos, *mapping, *output, *k;
    int profile_format, format, json;
    topomap_opts_t o;
    char **pos; /* positional arguments */
    int npos;
};

/* Parse argv (argv[0] is the command) accepting the options whose names are
 * listed in ALLOWED (space separated). --help prints HELP and exits 0. */
void parse_args(int argc, char **argv, const char *allowed, const char *help, struct args *a);
void no_positional(const struct args *a);
void require(const char *value, const char *option);

/* Loading inputs; each failure is bad input (exit 1). */
topomap_profile_t *load_profile(const struct args *a);
topomap_topology_t *load_topology(const char *path);
/* The allocation from --nodes (default: all nodes) and --tasks-per-node or
 * --slots. Caller frees. */
topomap_alloc_t *make_alloc(const struct args *a, const topomap_topology_t *t);
void check_slot_options(const struct args *a);

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
TOPOMAP_CLI_COMMAND(plot)
#undef TOPOMAP_CLI_COMMAND

#endif
