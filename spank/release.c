/* SPDX-License-Identifier: BSD-3-Clause */
/* The Slurm releases the plugin is tested with, and what differs between
 * them for the plugin (see policy.h). Each rule was read in Slurm's source at
 * the release's tag and checked on a local cluster of that release
 * (tests/slurm_layout.sh, run by contrib/check-release.sh for 24.11):
 *
 *  cpt_env            the variable srun reads for -c. 22.05 reads
 *                     SRUN_CPUS_PER_TASK only (src/srun/libsrun/opt.c's
 *                     env_vars); 23.11 went back to SLURM_CPUS_PER_TASK,
 *                     which salloc/sbatch -c set.
 *  ntasks_env_reset   23.11+ (src/srun/opt.c, _opt_verify): a task count
 *                     from the environment (SLURM_NTASKS) is dropped when
 *                     --ntasks-per-node is given and the node count is not
 *                     from the environment: srun -N2 --ntasks-per-node=2
 *                     inside salloc -n10 runs 4 tasks.
 *  nodes_vs_hostfile  23.11+ (src/common/slurm_opt.c, _validate_arbitrary):
 *                     a -N/--nodes from the command line together with
 *                     SLURM_HOSTFILE is an error ("--nodes is incompatible
 *                     with --distribution=arbitrary") and srun exits.
 *  step_cursor        24.11 (src/stepmgr/stepmgr.c, next_step_node_inx): a
 *                     step on fewer nodes than its allocation starts after
 *                     the last node the job's previous step used, so its
 *                     nodes depend on the job's history, which srun cannot
 *                     see when the plugin runs.
 *  overcommit_cpt     how many CPUs a task counts for in the layout under
 *                     --overcommit: 1 on 22.05 (-n12 -O -c2 on 4,4,1,1 CPUs
 *                     is 5,5,1,1), -c on 24.11 (4,4,2,2), measured on the
 *                     local cluster of each release (the step's CPUs come
 *                     from slurmctld, not from slurm_step_layout.c, which is
 *                     the same in both).
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

static const struct topomap_release releases[] = {
    {
        .version = 2205,
        .name = "22.05",
        .cpt_env = "SRUN_CPUS_PER_TASK",
    },
    {
        .version = 2411,
        .name = "24.11",
        .cpt_env = "SLURM_CPUS_PER_TASK",
        .ntasks_env_reset = 1,
        .nodes_vs_hostfile = 1,
        .step_cursor = 1,
        .overcommit_cpt = 1,
    },
};
#define NRELEASES (int)(sizeof releases / sizeof releases[0])

const struct topomap_release *topomap_release_find(int major, int minor)
{
    for (int i = 0; i < NRELEASES; i++)
        if (releases[i].version == major * 100 + minor)
            return &releases[i];
    return NULL;
}

const struct topomap_release *topomap_release_default(void)
{
    return &releases[0];
}

const char *topomap_release_list(void)
{
    static char buf[64];
    if (!buf[0])
        for (int i = 0; i < NRELEASES; i++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "",
                     releases[i].name);
    return buf;
}
