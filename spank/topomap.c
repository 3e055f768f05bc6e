/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap.so, the Slurm SPANK plugin: `srun --topomap=ALGO` places the ranks
 * of a step so that ranks which talk a lot sit close together, and binds each
 * rank to the core the mapping chose. This file: the options and the SPANK
 * entry points; beside it, the files that include <slurm/spank.h> too, one
 * per side (plugin.h): plugin_srun.c (srun), plugin_step.c (slurmstepd: the
 * placed step's binding and GPUs), plugin_record.c (slurmstepd:
 * --topomap-record). All decisions are made in the Slurm-free files
 * declared in policy.h.
 *
 * Where things happen (Slurm 22.05):
 *  srun (S_CTX_LOCAL)
 *   slurm_spank_init     register options; decide the placement from srun's
 *                        command line (/proc/self/cmdline) and environment,
 *                        write a private hostfile (a file without a name,
 *                        see drop_hostfile) and set SLURM_HOSTFILE,
 *                        TOPOMAP_BIND, TOPOMAP_PMI2_MAPPING. srun reads
 *                        SLURM_HOSTFILE in its option verification, after
 *                        this and after the option callbacks, but before
 *                        slurm_spank_init_post_opt, which is too late. The
 *                        command line is read directly because srun's own
 *                        options (-n, -N, ...) are not available to plugins
 *                        at that point. With --topomap-record, also
 *                        TOPOMAP_RECORD=NAME (policy.h), whatever the
 *                        placement.
 *   option callbacks     nothing (see option_cb).
 *   slurm_spank_init_post_opt  srun has read the hostfile: close it and
 *                        unset SLURM_HOSTFILE so that tasks do not inherit it.
 *  slurmstepd (S_CTX_REMOTE)
 *   slurm_spank_init     put TOPOMAP_PMI2_MAPPING in place of Slurm's
 *                        SLURM_PMI2_PROC_MAPPING (runs before the pmi2 plugin
 *                        reads it); when srun passed it empty (too long for
 *                        PMI2), rank 0 warns in its task_init.
 *                        With TOPOMAP_RECORD (as root, before privileges are
 *                        dropped): create this node's recording directory in
 *                        the spool, owned by the job's user, and put the
 *                        profiler in the tasks' LD_PRELOAD with
 *                        TOPOMAP_PROFILE_OUT/APP (see policy.h). Every node
 *                        does so: the profiler must be in every rank or in
 *                        none, since its MPI_Finalize is collective.
 *   option callbacks     note that --topomap-record arrived (see option_cb).
 *   slurm_spank_user_init  once per node, before the tasks are forked: turn
 *                        TOPOMAP_BIND and the step's cores (S_STEP_ALLOC_CORES)
 *                        into one CPU set per local task with hwloc; notice a
 *                        --topomap-record whose TOPOMAP_RECORD was lost.
 *   slurm_spank_task_init  in each task, after task/affinity set its mask:
 *                        sched_setaffinity() to that CPU set (doing it in
 *                        task_init_privileged races with task/affinity).
 *                        Messages for the user go to the task's stderr: from
 *                        the first task of a node for binding problems, from
 *                        global task 0 for recording problems.
 *   slurm_spank_task_exit  in slurmstepd when a task ends: when global task 0
 *                        ends, rank 0 has written the profile or never will;
 *                        store it (tmsp_record_register). slurmstepd's
 *                        stderr still reaches the user here (it no longer
 *                        does in slurm_spank_exit), so the outcome is told
 *                        here: a failure always, success with
 *                        --topomap-verbose.
 *   slurm_spank_exit     remove this node's recording directory.
 *  sbatch/salloc (S_CTX_ALLOCATOR)
 *                        only register the options: Slurm exports their values
 *                        to the job, and srun inside reads them (srun.c).
 *
 * Failure policy: the plugin never fails a job or drains a node by itself.
 * Anything that goes wrong prints one "topomap: ..." line and leaves Slurm's
 * layout and binding in place; with strict=1 in plugstack.conf the step fails
 * with that line instead. Slurm ignores what the callbacks of a plugin loaded
 * as "optional" return (src/common/spank.c: only "required" plugins' errors
 * count), so strict=1 does not rely on return codes: srun returns -1 (which
 * stops a "required" plugin's srun at once) and sets TOPOMAP_ENV_FAIL, and
 * every task of the step then exits with status 1 in slurm_spank_task_init,
 * before exec (what slurmstepd does itself when a required plugin's task_init
 * fails); a binding problem under strict=1 does the same on its node. Nothing
 * returns an error from slurmstepd's own callbacks, which could drain a node.
 * The Slurm release never fails a step, not even under strict=1: a release
 * without a row in release.c, or a layout the release makes unpredictable,
 * is declined with one line (decide.c). Every callback returns 0, or -1
 * (srun's strict=1 failure, a bad --topomap value), an error under every
 * release's rule (negative up to 24.11, non-zero from 25.05).
 * Recording is exempt from strict=1: a recording that
 * cannot be set up or stored loses only the profile, the step's own work is
 * intact (and when task 0 ends it is done), so failing the step would only
 * throw that work away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The plugin is built with -fvisibility=hidden and linked with the
 * export list of spank/Makefile.am: what Slurm looks up (the slurm_spank_*
 * callbacks spank.h declares and SPANK_PLUGIN's identity) is visible, the
 * rest stays out of srun's and slurmstepd's name space, which every plugin
 * of plugstack.conf and libslurm share (tests/exports.sh). */
#pragma GCC visibility push(default)
#include <slurm/spank.h>

SPANK_PLUGIN(topomap, 1);
#pragma GCC visibility pop

#include "plugin.h"

#if defined(SLURM_VERSION_NUMBER) && SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/* Slurm 25.05+ (src/common/spank.c, _do_call_stack; spank(8)): when a
 * "required" plugin's slurm_spank_init fails, ESPANK_JOB_FAILURE fails the
 * job instead of draining the node (ESPANK_NODE_FAILURE, the default).
 * slurmstepd's slurm_spank_init never fails here; srun's does only under
 * strict=1, and srun 25.05+ then stops on any non-zero value. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

enum { OPT_ALGO = 1, OPT_PROFILE, OPT_VERBOSE, OPT_RECORD };

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option options[] = {
    {.name = "topomap",
     .arginfo = "ALGO",
     .usage = "place the ranks with mapping algorithm ALGO (auto, ohtma, block, ...; off: "
              "Slurm's layout; help: the list); ALGO,verbose and ALGO,profile=NAME add those "
              "options",
     .has_arg = 1,
     .val = OPT_ALGO,
     .cb = option_cb},
    {.name = "topomap-profile",
     .arginfo = "NAME",
     .usage = "communication profile NAME from the profile store, or a file when NAME "
              "contains '/' (default: the executable's name)",
     .has_arg = 1,
     .val = OPT_PROFILE,
     .cb = option_cb},
    {.name = "topomap-verbose",
     .usage = "print the placement: algorithm, hop-bytes before and after, time taken",
     .has_arg = 0,
     .val = OPT_VERBOSE,
     .cb = option_cb},
    {.name = "topomap-record",
     .arginfo = "NAME",
     .usage = "record the step's MPI communication (libtopomap-profiler) and store it as "
              "profile NAME (default: --topomap-profile's name, else the executable's name)",
     .has_arg = 2,
     .val = OPT_RECORD,
     .cb = option_cb},
    SPANK_OPTIONS_TABLE_END};

struct topomap_site tmsp_site;
static int site_ready;
static int step_fail; /* srun failed the step (strict=1): tasks exit */

static void load_site(int ac, char **av, int report)
{
    char err[1024];
    if (site_ready)
        return;
    tmsp_site_init(&tmsp_site);
    if (tmsp_site_parse(&tmsp_site, ac, av, err, sizeof err) > 0 && report)
        slurm_error("topomap: %s (bad arguments ignored)", err);
    site_ready = 1;
}

/* The values are read in slurm_spank_init from srun's command line and the
 * environment instead (srun.c), for two reasons: srun reads SLURM_HOSTFILE
 * right after the callbacks, so the placement must be known before the last
 * one; and for options given both to sbatch and to srun, srun calls the
 * callback with sbatch's value last, while the command line should win. */
static int option_cb(int val, const char *optarg, int remote)
{
    /* In slurmstepd (after slurm_spank_init): --topomap-record reached the
     * node as an option even when srun's environment did not (srun
     * --export=NONE), which check_record() reports. */
    if (remote) {
        if (val == OPT_RECORD)
            tmsp_record_option();
        return 0;
    }
    if (val != OPT_ALGO)
        return 0;
    /* srun, sbatch, salloc: a bad --topomap value is refused at once, as
     * Slurm refuses its own (srun then says "Invalid --topomap argument"
     * and exits 1, before anything runs); --topomap=help lists the
     * algorithms and exits 0, like --cpu-bind=help. */
    struct topomap_srun o;
    char err[TOPOMAP_ERRLEN];
    tmsp_srun_init(&o);
    int rc = tmsp_algo_arg(&o, optarg, err, sizeof err);
    if (rc < 0)
        slurm_error("topomap: %s", err);
    else if (!strcmp(o.algo, "help")) {
        printf("--topomap=ALGO[,verbose][,profile=NAME] places the ranks with ALGO:\n");
        printf("  %-16s %s\n", "off", "Slurm's own layout");
        for (int i = 0; topomap_algo_name(i); i++)
            printf("  %-16s %s\n", topomap_algo_name(i), topomap_algo_summary(i));
        printf("verbose: print the placement; profile=NAME: as --topomap-profile=NAME\n");
        fflush(stdout);
        tmsp_srun_free(&o);
        exit(0);
    }
    tmsp_srun_free(&o);
    return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* SPANK entry points                                                         */
/* ------------------------------------------------------------------------ */

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR)
        return 0;
    for (struct spank_option *o = options; o->name; o++)
        if (spank_option_register(sp, o) != ESPANK_SUCCESS)
            slurm_error("topomap: cannot register --%s", o->name);
    if (ctx == S_CTX_ALLOCATOR)
        return 0;
    load_site(ac, av, 1);
    if (ctx == S_CTX_LOCAL)
        return tmsp_place(sp);
    if (tmsp_job_env(sp, TOPOMAP_ENV_FAIL)) {
        step_fail = 1; /* srun said why; the tasks exit in task_init */
        spank_unsetenv(sp, TOPOMAP_ENV_FAIL);
    }
    tmsp_step_init(sp);
    tmsp_record_init(sp);
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_LOCAL)
        return 0;
    /* srun has read the hostfile by now; the tasks must not inherit it. */
    tmsp_hostfile_read();
    return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    tmsp_record_check();
    tmsp_step_prepare(sp);
    return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    uint32_t l = 0, gid = 1;
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    /* strict=1 failed the step in srun, which said why. This runs in the
     * task, before exec: exiting here is how the step fails whether the
     * plugin is "optional" or "required". */
    if (step_fail)
        _exit(1);
    int task0 = spank_get_item(sp, S_TASK_GLOBAL_ID, &gid) == ESPANK_SUCCESS && gid == 0;
    if (task0)
        tmsp_record_tell();
    if (spank_get_item(sp, S_TASK_ID, &l) != ESPANK_SUCCESS)
        l = UINT32_MAX;
    tmsp_step_task(sp, l, task0);
    return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    if (spank_context() == S_CTX_REMOTE)
        tmsp_record_task_exit(sp);
    return 0; /* never fails the step, see the failure policy above */
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    if (spank_context() == S_CTX_LOCAL)
        tmsp_srun_exit();
    tmsp_record_exit();
    step_fail = 0;
    tmsp_step_exit();
    if (site_ready)
        tmsp_site_free(&tmsp_site);
    site_ready = 0;
    return 0;
}
