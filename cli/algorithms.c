/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap algorithms: list the mapping algorithms. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char help_algorithms[] =
    "Usage: topomap algorithms\n"
    "\n"
    "List the mapping algorithms that --algo and --algos accept, one per line\n"
    "with a one-line summary.\n"
    "\n"
    "Options:\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Exit status: 0 success, 2 bad usage.\n";

int cmd_algorithms(int argc, char **argv)
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
