/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap: the command line face of libtopomap. Uses only the public API
 * (topomap.h). Exit status: 0 success, 1 bad input (a file that cannot be
 * read or is malformed, an unknown host, a mapping that failed), 2 bad usage
 * (unknown option, missing required option, bad number). Every error is one
 * line on stderr starting "topomap: ".
 *
 * This file holds the table of commands, the overview and 'topomap help'.
 * Each command is one file cli/NAME.c with its help text and cmd_NAME();
 * cli/common.c holds what they share. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"

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
    "  topology          describe a topology (show), list the shipped ones (list),\n"
    "                    the hops between two nodes (hops)\n"
    "  algorithms        list the mapping algorithms\n"
    "  profile           manage the profile store (add, list, show, rm)\n"
    "  plan -- srun ...  what the Slurm plugin would decide for an srun command line\n"
    "  plot KIND         draw a picture: matrix, mapping, links or bench\n"
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

static const char help_help[] =
    "Usage: topomap help [COMMAND]\n"
    "\n"
    "Print the overview of topomap, or the help of COMMAND (map, eval, compare,\n"
    "stats, topology, algorithms, profile, plan, plot, help).\n"
    "\n"
    "Exit status: 0 success, 2 unknown command.\n";

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {.name = "map", .run = cmd_map, .help = help_map},
    {.name = "eval", .run = cmd_eval, .help = help_eval},
    {.name = "compare", .run = cmd_compare, .help = help_compare},
    {.name = "stats", .run = cmd_stats, .help = help_stats},
    {.name = "topology", .run = cmd_topology, .help = help_topology},
    {.name = "algorithms", .run = cmd_algorithms, .help = help_algorithms},
    {.name = "profile", .run = cmd_profile, .help = help_profile},
    {.name = "plan", .run = cmd_plan, .help = help_plan},
    {.name = "plot", .run = cmd_plot, .help = help_plot},
    {.name = "help", .run = cmd_help, .help = help_help},
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
    cli_start = now();
    if (argc < 2) {
        fputs("topomap: missing command (see 'topomap help')\n", stderr);
        return EXIT_USAGE;
    }
    const char *c = argv[1];
    /* The mapping thread the only one, for a SIGTERM during METIS
     * (topomap_blas_pool_stop()). */
    topomap_blas_pool_stop();
    if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
        if (argc > 2)
            usage_error("unexpected argument '%s'", argv[2]);
        printf("topomap %s\n", topomap_version());
        /* Slurm loads a plugin only under the release it was built for:
         * say which one, so an admin can check before upgrading Slurm. */
#ifdef TOPOMAP_SLURM_RELEASE
        printf("SPANK plugin built for Slurm %s\n", TOPOMAP_SLURM_RELEASE);
#else
        printf("SPANK plugin not built (configure found no Slurm headers)\n");
#endif
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
