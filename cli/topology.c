/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap topology: describe a machine description. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char help_topology[] =
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

int cmd_topology(int argc, char **argv)
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
