/* SPDX-License-Identifier: BSD-3-Clause */
/* The Slurm releases the plugin knows, and what differs between them for the
 * plugin (see policy.h). Each rule was read in SchedMD's source at the latest
 * tag of each release (slurm-22-05-11-1, slurm-23-02-8-1, slurm-23-11-11-1,
 * slurm-24-05-8-1, slurm-24-11-7-1, slurm-25-05-8-1, slurm-25-11-7-1,
 * slurm-26-05-3-1); 22.05 and 24.11 were also checked on a local cluster of
 * the release (tests/slurm_layout.sh, run by contrib/check-release.sh).
 *
 *  cpt_env            the variable srun reads for -c (src/srun/opt.c,
 *                     env_vars; 22.05: src/srun/libsrun/opt.c): 22.05 and
 *                     23.02 read SRUN_CPUS_PER_TASK only; 23.11+ read
 *                     SLURM_CPUS_PER_TASK, which salloc/sbatch -c set.
 *  ntasks_env_reset   23.02+ (src/srun/opt.c, _opt_verify): a task count
 *                     from the environment (SLURM_NTASKS) is dropped when
 *                     --ntasks-per-node is given and the node count is not
 *                     from the environment: srun -N2 --ntasks-per-node=2
 *                     inside salloc -n10 runs 4 tasks. 22.05 has no such
 *                     branch.
 *  nodes_vs_hostfile  23.11+ (src/common/slurm_opt.c, _validate_arbitrary):
 *                     a -N/--nodes from the command line together with
 *                     SLURM_HOSTFILE is an error ("--nodes is incompatible
 *                     with --distribution=arbitrary") and srun exits.
 *  tpn_max            24.05+ (src/srun/opt.c, _opt_verify): srun drops
 *                     --ntasks-per-node only when the task count exceeds
 *                     nodes x it; up to 23.11 it dropped it whenever it was
 *                     not tasks / nodes. Kept, it caps each node's tasks in
 *                     the layout (src/common/slurm_step_layout.c,
 *                     _init_task_layout: plane_size).
 *  overcommit_cpt     how many CPUs a task counts for in the layout under
 *                     --overcommit. Up to 23.11 slurmctld
 *                     (src/slurmctld/step_mgr.c, step_create) zeroes the
 *                     step's cpu_count under -O and _calc_cpus_per_task then
 *                     returns 0: one CPU a task (-n12 -O -c2 on 4,4,1,1 CPUs
 *                     is 5,5,1,1, measured on 22.05). 24.05+
 *                     (src/stepmgr/stepmgr.c, _calc_cpus_per_task) take -c
 *                     from the step's tres_per_task "cpu:N" first (4,4,2,2,
 *                     measured on 24.11). 23.02, 23.11, 24.05 and later are
 *                     read, not measured.
 *  step_cursor        24.11+ (src/stepmgr/stepmgr.c, _pick_step_nodes_cpus:
 *                     next_step_node_inx): a step on fewer nodes than its
 *                     allocation starts after the last node the job's
 *                     previous step used, so its nodes depend on the job's
 *                     history, which srun cannot see when the plugin runs.
 *  topo_order         26.05 (src/common/slurm_step_layout.c,
 *                     _task_layout_topo; src/stepmgr/stepmgr.c,
 *                     step_layout_create: node_ranks;
 *                     src/plugins/select/cons_tres/job_test.c,
 *                     _job_test: topology_g_get_rank unless SelectTypeParameters
 *                     has CR_NO_DIST_TOPO_BLOCK): the default block layout
 *                     gives out a step's tasks in the order of its nodes'
 *                     topology ranks (leaf switch, block, ring or torus
 *                     position; topology/flat ranks nothing unless
 *                     topology.yaml asks for alpha_step_rank). The plugin
 *                     predicts it where the ranks are none (topomap_slurm_
 *                     task_order: CR_NO_DIST_TOPO_BLOCK, or topology/flat
 *                     without topology.yaml) and declines multi-node steps
 *                     otherwise.
 *
 * Read and with no rule here, because the plugin is right under them as it is:
 *  - 24.05's pmi2 plugin (src/plugins/mpi/pmi2/setup.c, _get_proc_mapping)
 *    maps arbitrary layouts as it maps plane ones, as the plugin's
 *    TOPOMAP_PMI2_MAPPING does; the replacement is then the same string, and
 *    a mapping too long for PMI2 is too long for Slurm's too. 24.05's
 *    spank.c calls a remote option's callback once (found_opts) where 23.11
 *    could call it twice; option_cb only notes that it came.
 *  - 25.05 makes any non-zero SPANK return an error where a negative one was
 *    (src/srun/opt.c, initialize_and_process_args: spank_init_post_opt;
 *    src/srun/srun_job.c: spank_init; src/slurmd/slurmstepd/task.c,
 *    exec_task: spank_user_task; src/slurmd/slurmstepd/mgr.c: spank_init),
 *    and src/common/spank.c (_do_call_stack) counts only a "required"
 *    plugin's returns on every release: the plugin returns 0 or -1 only.
 *    25.05 adds slurm_spank_init_failure_mode (topomap.c sets
 *    ESPANK_JOB_FAILURE where the headers have it).
 *  - 25.11 refuses a job allocation whose task count differs from its
 *    hostfile's names (src/common/job_record.c,
 *    job_record_calc_arbitrary_tpn: ESLURM_BAD_TASK_COUNT) and one with
 *    arbitrary distribution and no task count (src/slurmctld/job_mgr.c,
 *    validate_job_create_req); 26.05 refuses arbitrary distribution for job
 *    allocations under topology/block, ring and torus3d
 *    (src/plugins/topology/block/eval_nodes_block.c, eval_nodes_block;
 *    .../ring/eval_nodes_ring.c, eval_nodes_ring;
 *    .../torus3d/eval_nodes_torus3d.c) and under the busy, lln, serial and
 *    spread node selections (src/plugins/topology/common/eval_nodes.c).
 *    The plugin writes a hostfile only for a step inside an allocation
 *    (decide.c declines a srun that creates its own), with one line per
 *    task, which steps accept on every release.
 *  - srun reads SLURM_HOSTFILE in its option verification before
 *    slurm_spank_init_post_opt on every release (22.05, 23.02: src/srun/
 *    opt.c, _opt_verify; 23.11+: src/common/slurm_opt.c, _validate_nodelist,
 *    from _opt_verify), so the plugin decides in slurm_spank_init.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

static const struct topomap_release releases[] = {
    {.version = 2205, .name = "22.05", .cpt_env = "SRUN_CPUS_PER_TASK"},
    {.version = 2302, .name = "23.02", .cpt_env = "SRUN_CPUS_PER_TASK", .ntasks_env_reset = 1},
    {.version = 2311,
     .name = "23.11",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1},
    {.version = 2405,
     .name = "24.05",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1,
     .tpn_max = 1,
     .overcommit_cpt = 1},
    {.version = 2411,
     .name = "24.11",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1,
     .tpn_max = 1,
     .overcommit_cpt = 1,
     .step_cursor = 1},
    {.version = 2505,
     .name = "25.05",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1,
     .tpn_max = 1,
     .overcommit_cpt = 1,
     .step_cursor = 1},
    {.version = 2511,
     .name = "25.11",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1,
     .tpn_max = 1,
     .overcommit_cpt = 1,
     .step_cursor = 1},
    {.version = 2605,
     .name = "26.05",
     .cpt_env = "SLURM_CPUS_PER_TASK",
     .ntasks_env_reset = 1,
     .nodes_vs_hostfile = 1,
     .tpn_max = 1,
     .overcommit_cpt = 1,
     .step_cursor = 1,
     .topo_order = 1},
};
#define NRELEASES (int)(sizeof releases / sizeof releases[0])

const struct topomap_release *tmsp_release_find(int major, int minor)
{
    for (int i = 0; i < NRELEASES; i++)
        if (releases[i].version == major * 100 + minor)
            return &releases[i];
    return NULL;
}

const struct topomap_release *tmsp_release_default(void)
{
    return &releases[0];
}

const char *tmsp_release_list(void)
{
    static char buf[128];
    if (!buf[0])
        for (int i = 0; i < NRELEASES; i++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "",
                     releases[i].name);
    return buf;
}

void tmsp_release_unknown(const char *seen, char *why, size_t len)
{
    int major = 0, minor = 0;
    const struct topomap_release *old = &releases[0], *new = &releases[NRELEASES - 1];
    if (!seen || !*seen || sscanf(seen, "%d.%d", &major, &minor) != 2)
        snprintf(why, len, "Slurm did not say its release, so its rules are unknown (known: %s)",
                 tmsp_release_list());
    else if (major * 100 + minor > new->version)
        snprintf(why, len,
                 "Slurm %s is newer than the newest release this plugin knows (%s), so its "
                 "rules are unknown",
                 seen, new->name);
    else if (major * 100 + minor < old->version)
        snprintf(why, len,
                 "Slurm %s is older than the oldest release this plugin knows (%s), so its "
                 "rules are unknown",
                 seen, old->name);
    else
        snprintf(why, len, "Slurm %s is not a release this plugin knows (%s)", seen,
                 tmsp_release_list());
    tmsp_clean(why);
}
