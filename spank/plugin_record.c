/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap.so, slurmstepd's side of --topomap-record (see topomap.c): as root
 * in slurm_spank_init, this node's recording directory in the spool and the
 * profiler in the tasks' LD_PRELOAD; when global task 0 ends, the profile
 * rank 0 wrote is stored (record.c); at the end, the directory removed.
 * Recording is exempt from strict=1: it loses only the profile. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "common.h" /* tmsp_clean */
#include "plugin.h"

/* The installed profiler (spank/Makefile.am); plugstack.conf's profiler=
 * overrides it, e.g. for tests from the build tree. */
#ifndef TOPOMAP_PKGLIBDIR
#error "TOPOMAP_PKGLIBDIR must be defined (spank/Makefile.am)"
#endif
#define PROFILER_DEFAULT TOPOMAP_PKGLIBDIR "/libtopomap-profiler.so"

static int rec_fd = -1;             /* this node's recording directory */
static char rec_dir[PATH_MAX];
static char rec_name[256];
static int rec_task0;               /* global task 0 runs on this node */
static int rec_verbose;
static int rec_done;                /* task 0's profile was dealt with */
static int rec_env;                 /* TOPOMAP_RECORD reached this node */
static int rec_asked;               /* the --topomap-record option did */
static uint32_t rec_step;           /* the step's id */
static char rec_problem[PATH_MAX + 512]; /* told by task 0 in task_init */

static int set_task_env(spank_t sp, const char *name, const char *value)
{
    if (spank_setenv(sp, name, value, 1) == ESPANK_SUCCESS)
        return 0;
    snprintf(rec_problem, sizeof rec_problem,
             "topomap: --topomap-record: cannot set %s in the tasks' environment; not recording",
             name);
    return -1;
}

/* In slurm_spank_user_init, after the option callbacks: the option arrived
 * but srun's environment did not. */
static void check_record(void)
{
    if (rec_asked && !rec_env && tmsp_srun_step(rec_step) && !rec_problem[0])
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: srun's environment did not reach the step (srun "
                 "--export=NONE or a list without TOPOMAP_RECORD?); not recording");
}

/* In slurm_spank_init (root, before the tasks exist). */
static void setup_record(spank_t sp)
{
    const char *v = tmsp_job_env(sp, TOPOMAP_ENV_RECORD);
    uint32_t job = 0, step = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    char err[TOPOMAP_ERRLEN];

    if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
        return;
    rec_step = step;
    if (!v)
        return;
    rec_env = 1;
    snprintf(rec_name, sizeof rec_name, "%s", v);
    rec_verbose = tmsp_job_env(sp, TOPOMAP_ENV_RECORD_VERBOSE) != NULL;
    /* The tasks have no use for them (and a nested srun must not inherit). */
    spank_unsetenv(sp, TOPOMAP_ENV_RECORD);
    spank_unsetenv(sp, TOPOMAP_ENV_RECORD_VERBOSE);
    /* Only srun's steps: not a batch script, nor the extern or interactive
     * step (TOPOMAP_RECORD in their environment came from the user); and
     * not when srun declined (empty name, srun said why). */
    if (!tmsp_srun_step(step) || !rec_name[0])
        return;
    rec_task0 = tmsp_task0_here(sp);
    if (!topomap_store_name_valid(rec_name)) {
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: '%.200s' is not a valid profile name; not recording",
                 rec_name);
        return;
    }
    /* The profiler goes into every rank or none (its MPI_Finalize is
     * collective), and that depends only on the installation. */
    const char *lib = tmsp_site.profiler ? tmsp_site.profiler : PROFILER_DEFAULT;
    if (access(lib, R_OK) < 0) {
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: the profiler %s: %s (profiler= in plugstack.conf); "
                 "not recording",
                 lib, strerror(errno));
        return;
    }
    char *preload = tmsp_preload_prepend(lib, tmsp_job_env(sp, "LD_PRELOAD"));
    int bad = !preload || set_task_env(sp, "LD_PRELOAD", preload) < 0 ||
              set_task_env(sp, "TOPOMAP_PROFILE_APP", rec_name) < 0;
    free(preload);
    if (bad) {
        if (!rec_problem[0])
            snprintf(rec_problem, sizeof rec_problem,
                     "topomap: --topomap-record: out of memory; not recording");
        return;
    }
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: cannot get the job's user; not recording");
        return;
    }
    rec_fd = tmsp_record_mkdir(tmsp_site.spool, job, step, uid, gid, rec_dir, sizeof rec_dir,
                               err, sizeof err);
    if (rec_fd < 0) {
        /* The profiler stays (see above); rank 0 writes its default file. */
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: %s (spool= in plugstack.conf); rank 0 leaves its "
                 "profile in its working directory, not stored",
                 err);
        return;
    }
    char out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/%s", rec_dir, TOPOMAP_RECORD_FILE);
    if (set_task_env(sp, "TOPOMAP_PROFILE_OUT", out) < 0) {
        tmsp_record_cleanup(rec_fd, rec_dir, err, sizeof err);
        rec_fd = -1;
        rec_dir[0] = 0;
    }
}

/* Store what rank 0 wrote; in slurmstepd when global task 0 has ended. */
static void finish_record(spank_t sp)
{
    uint32_t job = 0, step = 0, ntotal = 0;
    uid_t uid = 0;
    char msg[PATH_MAX + 1024], id[64];

    rec_done = 1;
    spank_get_item(sp, S_JOB_ID, &job);
    spank_get_item(sp, S_JOB_STEPID, &step);
    snprintf(id, sizeof id, "%u.%u", job, step);
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntotal) != ESPANK_SUCCESS)
        ntotal = 0;
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
        fprintf(stderr, "topomap: cannot get the job's user; nothing recorded\n");
        return;
    }
    gid_t gid = 0;
    if (spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
        gid = (gid_t)-1; /* fchown leaves the group alone */
    int rc = tmsp_record_register(rec_fd, rec_dir, uid, gid, (long)ntotal, tmsp_site.profiles,
                                  rec_name, id, msg, sizeof msg);
    slurm_info("%s", msg);
    if (rc < 0 || rec_verbose)
        fprintf(stderr, "%s\n", msg);
}

void tmsp_record_init(spank_t sp)
{
    setup_record(sp);
}

void tmsp_record_option(void)
{
    rec_asked = 1;
}

void tmsp_record_check(void)
{
    check_record();
}

void tmsp_record_tell(void)
{
    if (rec_problem[0])
        fprintf(stderr, "%s\n", tmsp_clean(rec_problem));
}

void tmsp_record_task_exit(spank_t sp)
{
    uint32_t gid = 1;
    if (rec_fd < 0 || !rec_task0 || rec_done)
        return;
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &gid) == ESPANK_SUCCESS && gid == 0)
        finish_record(sp);
}

void tmsp_record_exit(void)
{
    if (rec_fd >= 0) {
        char err[PATH_MAX + 256];
        if (rec_task0 && !rec_done)
            slurm_info("topomap: --topomap-record: task 0 of this step never ended here; "
                       "nothing recorded");
        if (tmsp_record_cleanup(rec_fd, rec_dir, err, sizeof err) < 0)
            slurm_info("topomap: %s", err);
    }
    rec_fd = -1;
    rec_dir[0] = rec_name[0] = rec_problem[0] = 0;
    rec_task0 = rec_verbose = rec_done = rec_env = rec_asked = 0;
    rec_step = 0;
}
