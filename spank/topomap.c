/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap.so, the Slurm SPANK plugin: `srun --topomap=ALGO` places the ranks
 * of a step so that ranks which talk a lot sit close together, and binds each
 * rank to the core the mapping chose. The only file that includes
 * <slurm/spank.h>; all decisions are made in the Slurm-free files declared
 * in policy.h.
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
 *                        store it (topomap_record_register). slurmstepd's
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
 * Recording is exempt from strict=1: a recording that
 * cannot be set up or stored loses only the profile, the step's own work is
 * intact (and when task 0 ends it is done), so failing the step would only
 * throw that work away.
 */
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

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <slurm/slurm.h> /* SLURM_BATCH_SCRIPT and the other special step ids */
#include <slurm/spank.h>

#include "common.h" /* topomap_sp_clean */
#include "policy.h"

SPANK_PLUGIN(topomap, 1);

/* The installed profiler (spank/Makefile.am); plugstack.conf's profiler=
 * overrides it, e.g. for tests from the build tree. */
#ifndef TOPOMAP_PKGLIBDIR
#error "TOPOMAP_PKGLIBDIR must be defined (spank/Makefile.am)"
#endif
#define PROFILER_DEFAULT TOPOMAP_PKGLIBDIR "/libtopomap-profiler.so"

enum { OPT_ALGO = 1, OPT_PROFILE, OPT_VERBOSE, OPT_RECORD };

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option options[] = {
    {"topomap", "ALGO",
     "place the ranks with mapping algorithm ALGO (auto, ohtma, block, ...; off: Slurm's "
     "layout; help: the list); ALGO,verbose and ALGO,profile=NAME add those options",
     1, OPT_ALGO, option_cb},
    {"topomap-profile", "NAME",
     "communication profile NAME from the profile store, or a file when NAME contains '/' "
     "(default: the executable's name)",
     1, OPT_PROFILE, option_cb},
    {"topomap-verbose", NULL,
     "print the placement: algorithm, hop-bytes before and after, time taken", 0, OPT_VERBOSE,
     option_cb},
    {"topomap-record", "NAME",
     "record the step's MPI communication (libtopomap-profiler) and store it as profile NAME "
     "(default: --topomap-profile's name, else the executable's name)",
     2, OPT_RECORD, option_cb},
    SPANK_OPTIONS_TABLE_END};

static struct topomap_site site;
static int site_ready;

/* srun side */
static struct topomap_decision decision;
static char hostfile[64];    /* "/proc/self/fd/N", see drop_hostfile */
static int hostfile_fd = -1;

/* slurmstepd side: the CPU set of each local task, or none. */
static cpu_set_t *task_sets;
static unsigned char *task_bind;
static struct topomap_gpu_task *gpu_tasks; /* gpu_bind=yes: per local task */
static uint32_t gpu_ntasks;
static uint32_t ntask_local;
static char bind_problem[512];
static int bind_local;   /* bind_problem is this node's, not the whole step's */
static int step_fail;    /* srun failed the step (strict=1): tasks exit */
static int pmi2_lost; /* remapped under pmi2 without a PMI2 mapping */

/* slurmstepd side, --topomap-record */
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

static const char *env_get(const char *name, void *arg)
{
    return getenv(name);
}

static void load_site(int ac, char **av, int report)
{
    char err[1024];
    if (site_ready)
        return;
    topomap_site_init(&site);
    if (topomap_site_parse(&site, ac, av, err, sizeof err) > 0 && report)
        slurm_error("topomap: %s (bad arguments ignored)", err);
    site_ready = 1;
}

/* ------------------------------------------------------------------------ */
/* srun side                                                                  */
/* ------------------------------------------------------------------------ */

/* srun's argv from /proc/self/cmdline; malloc'ed, NULL-terminated. */
static char **read_cmdline(int *argc)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    for (ssize_t k; buf; len += (size_t)k) {
        if (len == cap) {
            char *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        k = read(fd, buf + len, cap - len);
        if (k <= 0)
            break;
    }
    close(fd);
    if (!buf)
        return NULL;
    buf[len] = 0;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == 0;
    /* argv array followed by the string block, freed as one. */
    char **argv = malloc((size_t)(n + 1) * sizeof *argv + len + 1);
    if (!argv) {
        free(buf);
        return NULL;
    }
    char *strs = (char *)(argv + n + 1);
    memcpy(strs, buf, len + 1);
    free(buf);
    int k = 0;
    for (size_t i = 0; i < len && k < n; i += strlen(strs + i) + 1)
        argv[k++] = strs + i;
    argv[k] = NULL;
    *argc = k;
    return argv;
}

/* The hostfile is a file without a name: created in $TMPDIR, unlinked at
 * once, and handed to srun as SLURM_HOSTFILE=/proc/self/fd/N (srun opens
 * that path in its option verification). However srun ends (an option it
 * refuses, a signal), nothing is left behind; the descriptor survives the
 * re-execution without -N (no close-on-exec) and is closed once srun has
 * read it. */
static void drop_hostfile(void)
{
    if (hostfile_fd >= 0)
        close(hostfile_fd);
    hostfile_fd = -1;
    hostfile[0] = 0;
}

static void undo_placement(void)
{
    if (hostfile[0]) {
        drop_hostfile();
        unsetenv("SLURM_HOSTFILE");
    }
    unsetenv(TOPOMAP_ENV_BIND);
    unsetenv(TOPOMAP_ENV_GPU);
    unsetenv(TOPOMAP_ENV_PMI2);
    unsetenv(TOPOMAP_ENV_FAIL);
}

/* Write the hostfile and set the variables; 0 or -1 with a reason. */
static int apply_placement(const struct topomap_decision *d, char *why, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX];
    if (!tmp || !*tmp || access(tmp, W_OK) < 0)
        tmp = "/tmp";
    snprintf(path, sizeof path, "%s/topomap-hostfile.XXXXXX", tmp);
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, len, "cannot create a hostfile in %s: %s", tmp, strerror(errno));
        return -1;
    }
    unlink(path);
    int wfd = dup(fd);
    FILE *f = wfd >= 0 ? fdopen(wfd, "w") : NULL;
    int bad = !f;
    for (int r = 0; f && r < d->nranks && !bad; r++)
        bad = fprintf(f, "%s\n", d->hosts[r]) < 0;
    if (f && fclose(f) == EOF)
        bad = 1;
    else if (!f && wfd >= 0)
        close(wfd);
    if (bad) {
        snprintf(why, len, "cannot write a hostfile in %s: %s", tmp, strerror(errno));
        close(fd);
        return -1;
    }
    hostfile_fd = fd;
    snprintf(hostfile, sizeof hostfile, "/proc/self/fd/%d", fd);
    if (setenv("SLURM_HOSTFILE", hostfile, 1) < 0 ||
        (d->bind && setenv(TOPOMAP_ENV_BIND, d->bind, 1) < 0) ||
        (d->gpu && setenv(TOPOMAP_ENV_GPU, d->gpu, 1) < 0) ||
        setenv(TOPOMAP_ENV_PMI2, d->pmi2 ? d->pmi2 : "", 1) < 0) {
        snprintf(why, len, "cannot set the environment: %s", strerror(errno));
        undo_placement();
        return -1;
    }
    return 0;
}

/* The release srun is (S_SLURM_VERSION_*): its rules, or none when the
 * plugin was not tested with it (topomap_decide then declines). */
static void read_release(spank_t sp, struct topomap_srun *o)
{
    char *major = NULL, *minor = NULL;
    o->rel = NULL;
    if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS || !major || !minor)
        return;
    snprintf(o->release_seen, sizeof o->release_seen, "%.6s.%.6s", major, minor);
    o->rel = topomap_release_find(atoi(major), atoi(minor));
}

/* The second srun of a re-execution (see reexec_without_nodes): the first
 * one decided and wrote the hostfile. 1 when this is one. */
static int take_over_placement(void)
{
    const char *re = getenv(TOPOMAP_ENV_REEXEC);
    const char *hf = getenv("SLURM_HOSTFILE");
    if (!re)
        return 0;
    int fd = -1;
    char tail;
    int ours = hf && !strcmp(hf, re) && sscanf(re, "/proc/self/fd/%d%c", &fd, &tail) == 1 &&
               fd > 2 && fcntl(fd, F_GETFD) >= 0;
    if (ours) {
        hostfile_fd = fd;
        snprintf(hostfile, sizeof hostfile, "/proc/self/fd/%d", fd);
    }
    unsetenv(TOPOMAP_ENV_REEXEC);
    return ours;
}

/* Slurm 23.11+ refuses -N from the command line beside SLURM_HOSTFILE, and
 * exits (release.c). The hostfile names the step's nodes (every node of
 * Slurm's layout keeps its task count), so srun is run again, once, without
 * -N; the placement travels in the environment. Returns only on failure,
 * with a reason in @p why. */
static void reexec_without_nodes(int argc, char **argv, char *why, size_t len)
{
    char **nargv = topomap_srun_strip_nodes(argc, argv);
    if (!nargv || setenv(TOPOMAP_ENV_REEXEC, hostfile, 1) < 0) {
        snprintf(why, len, "out of memory");
        free(nargv);
        return;
    }
    execv("/proc/self/exe", nargv);
    snprintf(why, len, "cannot run srun again without -N: %s", strerror(errno));
    unsetenv(TOPOMAP_ENV_REEXEC);
    free(nargv);
}

/* --topomap-record: the name the nodes record under (srun side). */
static void pass_record(struct topomap_srun *o)
{
    /* Independent of the placement: a step may record while placed. An
     * empty value tells the nodes that srun declined (and said why). */
    char name[256] = "", msg[512];
    int named = topomap_record_name(o, name, sizeof name, msg, sizeof msg) == 0;
    if (!named)
        slurm_info("%s", msg);
    if (setenv(TOPOMAP_ENV_RECORD, named ? name : "", 1) < 0 ||
        (named && o->verbose && setenv(TOPOMAP_ENV_RECORD_VERBOSE, "1", 1) < 0)) {
        slurm_info("topomap: --topomap-record: cannot set the environment: %s; not "
                   "recording",
                   strerror(errno));
        unsetenv(TOPOMAP_ENV_RECORD);
        unsetenv(TOPOMAP_ENV_RECORD_VERBOSE);
    }
}

/* A placement that could not be put in place: Slurm's layout, or a failed
 * step under strict=1. */
static void placement_failed(const char *why)
{
    undo_placement();
    decision.outcome = site.strict ? TOPOMAP_FAIL : TOPOMAP_KEEP;
    snprintf(decision.message, sizeof decision.message, "topomap: %.900s; %s", why,
             site.strict ? "failing the step (strict=1)" : "using Slurm's default layout");
    topomap_sp_clean(decision.message); /* $TMPDIR is the user's */
    snprintf(decision.log, sizeof decision.log, "%.1000s", decision.message + 9);
}

/* Decide and act on srun's command line and environment. Returns -1 only when
 * the step must fail (strict=1). */
static int place(spank_t sp)
{
    int argc = 0, rc = 0;
    char **argv;
    char err[TOPOMAP_ERRLEN] = "";
    struct topomap_srun o;

    if (take_over_placement())
        return 0;
    argv = read_cmdline(&argc);
    undo_placement();
    unsetenv(TOPOMAP_ENV_LOG);
    unsetenv(TOPOMAP_ENV_RECORD);
    unsetenv(TOPOMAP_ENV_RECORD_VERBOSE);
    topomap_decision_free(&decision);
    topomap_srun_init(&o);
    read_release(sp, &o);
    if (!argv || topomap_srun_parse(&o, argc, argv, env_get, NULL, err, sizeof err) < 0) {
        /* A bad -n or -N: srun itself rejects the command line. */
        slurm_verbose("topomap: cannot read srun's command line (%s)",
                      argv ? err : strerror(errno));
        free(argv);
        topomap_srun_free(&o);
        return 0;
    }
    if (o.record)
        pass_record(&o);

    topomap_decide(&site, &o, env_get, NULL, &decision);
    int again = 0;
    if (decision.outcome == TOPOMAP_REMAP) {
        char why[PATH_MAX + 256];
        if (apply_placement(&decision, why, sizeof why) < 0)
            placement_failed(why);
        else
            again = o.rel && o.rel->nodes_vs_hostfile && o.nnodes > 0 && !o.nnodes_env;
    }
    if (decision.note[0])
        slurm_info("%s", decision.note);
    if (decision.summary[0])
        slurm_info("%s", decision.summary);
    /* The admin's record of the step (slurmd's log, see log_decision). */
    if (decision.log[0] && setenv(TOPOMAP_ENV_LOG, decision.log, 1) < 0)
        slurm_verbose("topomap: cannot set %s: %s", TOPOMAP_ENV_LOG, strerror(errno));
    if (again) {
        char why[512];
        reexec_without_nodes(argc, argv, why, sizeof why);
        placement_failed(why); /* only reached when it failed */
        setenv(TOPOMAP_ENV_LOG, decision.log, 1);
    }
    free(argv);
    if (decision.outcome == TOPOMAP_FAIL) {
        /* -1 stops srun when the plugin is "required"; when it is "optional"
         * Slurm ignores it and the tasks exit instead (TOPOMAP_ENV_FAIL). */
        if (setenv(TOPOMAP_ENV_FAIL, "1", 1) < 0)
            slurm_error("topomap: cannot set %s: %s", TOPOMAP_ENV_FAIL, strerror(errno));
        slurm_error("%s", decision.message);
        rc = -1;
    } else if (decision.message[0])
        slurm_info("%s", decision.message);
    topomap_srun_free(&o);
    return rc;
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
            rec_asked = 1;
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
    topomap_srun_init(&o);
    int rc = topomap_algo_arg(&o, optarg, err, sizeof err);
    if (rc < 0)
        slurm_error("topomap: %s", err);
    else if (!strcmp(o.algo, "help")) {
        printf("--topomap=ALGO[,verbose][,profile=NAME] places the ranks with ALGO:\n");
        printf("  %-16s %s\n", "off", "Slurm's own layout");
        for (int i = 0; topomap_algo_name(i); i++)
            printf("  %-16s %s\n", topomap_algo_name(i), topomap_algo_summary(i));
        printf("verbose: print the placement; profile=NAME: as --topomap-profile=NAME\n");
        fflush(stdout);
        topomap_srun_free(&o);
        exit(0);
    }
    topomap_srun_free(&o);
    return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* slurmstepd side                                                            */
/* ------------------------------------------------------------------------ */

/* A variable of the job's environment, without copying (values such as
 * TOPOMAP_BIND can be large). */
static const char *job_env(spank_t sp, const char *name)
{
    char **env = NULL;
    size_t len = strlen(name);
    if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || !env)
        return NULL;
    for (char **e = env; *e; e++)
        if (!strncmp(*e, name, len) && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static int srun_step(uint32_t step);

/* 1 when global task 0 of the step runs on this node (slurmstepd). */
static int task0_here(spank_t sp)
{
    uint32_t ntask = 0;
    if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntask) != ESPANK_SUCCESS)
        return 0;
    for (uint32_t l = 0; l < ntask; l++) {
        uint32_t gid = 1;
        if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, l, &gid) == ESPANK_SUCCESS && gid == 0)
            return 1;
    }
    return 0;
}

/* srun's decision, into this node's slurmd log when global task 0 runs
 * here: one line per step, where an admin looks (a site's configuration
 * problems, a missing topology file or an unreadable store, show there
 * too, not only on the users' terminals). */
static void log_decision(spank_t sp)
{
    const char *line = job_env(sp, TOPOMAP_ENV_LOG);
    uint32_t job = 0, step = 0;
    if (!line)
        return;
    spank_get_item(sp, S_JOB_ID, &job);
    spank_get_item(sp, S_JOB_STEPID, &step);
    if (srun_step(step) && task0_here(sp)) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", line);
        slurm_info("topomap: step %u.%u: %s", job, step, topomap_sp_clean(copy));
    }
    spank_unsetenv(sp, TOPOMAP_ENV_LOG);
}

static void fix_pmi2_mapping(spank_t sp)
{
    const char *ours = job_env(sp, TOPOMAP_ENV_PMI2);
    if (!ours)
        return;
    /* Only when Slurm's pmi2 plugin is in use for this step. */
    if (job_env(sp, TOPOMAP_ENV_SLURM_PMI2) && !*ours)
        pmi2_lost = 1;
    else if (job_env(sp, TOPOMAP_ENV_SLURM_PMI2)) {
        char *copy = strdup(ours);
        if (copy && spank_setenv(sp, TOPOMAP_ENV_SLURM_PMI2, copy, 1) != ESPANK_SUCCESS)
            slurm_error("topomap: cannot replace %s", TOPOMAP_ENV_SLURM_PMI2);
        free(copy);
    }
    spank_unsetenv(sp, TOPOMAP_ENV_PMI2);
}

/* A binding problem: @p local when it is this node's own (its cores, hwloc,
 * memory), not the whole step's (what srun sent), which every node sees the
 * same and only the node of global task 0 tells the user. */
static void bind_fail(int local, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bind_fail(int local, const char *fmt, ...)
{
    va_list ap;
    if (bind_problem[0])
        return; /* the first problem is the one told */
    va_start(ap, fmt);
    vsnprintf(bind_problem, sizeof bind_problem - 64, fmt, ap);
    va_end(ap);
    bind_local = local;
}

/* The cores Slurm gave the step here (caller frees), or NULL: all cores in
 * order. */
static int *step_cores(spank_t sp, hwloc_topology_t topo, int *nalloc)
{
    char *cores_str = NULL;
    int *alloc = NULL;
    *nalloc = 0;
    if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores_str) == ESPANK_SUCCESS && cores_str &&
        *cores_str) {
        int max = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) * 2 + 4096;
        alloc = malloc((size_t)max * sizeof *alloc);
        if (alloc)
            *nalloc = topomap_cpulist_parse(cores_str, alloc, max);
        if (*nalloc < 0) {
            free(alloc);
            alloc = NULL;
        }
    }
    return alloc;
}

/* Work out every local task's CPU set (once per node, before the fork). A
 * problem is kept in bind_problem for slurm_spank_task_init to tell (and,
 * under strict=1, to fail the tasks there): this callback runs in
 * slurmstepd, whose failure Slurm may answer by draining the node. */
static void prepare_binding(spank_t sp)
{
    const char *spec = job_env(sp, TOPOMAP_ENV_BIND);
    uint32_t ntotal = 0;
    int *core = NULL, *alloc = NULL, nalloc = 0, cpt = 1;
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t set = NULL;

    if (!spec)
        return;
    if (!site.bind)
        goto out;
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntotal) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &ntask_local) != ESPANK_SUCCESS ||
        ntotal == 0 || ntotal > INT_MAX) {
        bind_fail(1, "cannot get the step's task counts");
        goto out;
    }
    core = malloc(ntotal * sizeof *core);
    task_sets = calloc(ntask_local ? ntask_local : 1, sizeof *task_sets);
    task_bind = calloc(ntask_local ? ntask_local : 1, 1);
    if (!core || !task_sets || !task_bind) {
        bind_fail(1, "out of memory");
        goto out;
    }
    if (topomap_bind_decode(spec, (int)ntotal, core, &cpt) < 0) {
        bind_fail(0, "%s does not describe %u tasks", TOPOMAP_ENV_BIND, ntotal);
        goto out;
    }
    if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0 ||
        !(set = hwloc_bitmap_alloc())) {
        bind_fail(1, "hwloc cannot read this node's topology");
        goto out;
    }
    alloc = step_cores(sp, topo, &nalloc);
    int unbound = 0;
    for (uint32_t l = 0; l < ntask_local; l++) {
        uint32_t gid = 0;
        char why[256];
        if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, l, &gid) != ESPANK_SUCCESS ||
            gid >= ntotal) {
            bind_fail(1, "cannot get the rank of local task %u", l);
            unbound++;
            continue;
        }
        if (topomap_bind_cpuset(topo, alloc, alloc ? nalloc : 0, core[gid], cpt, set, why,
                                sizeof why) < 0) {
            bind_fail(1, "rank %u: %s", gid, why);
            unbound++;
            continue;
        }
        CPU_ZERO(&task_sets[l]);
        hwloc_cpuset_to_glibc_sched_affinity(topo, set, &task_sets[l], sizeof task_sets[l]);
        task_bind[l] = 1;
    }
    if (unbound) {
        char more[128];
        snprintf(more, sizeof more, " (%d of %u tasks here)", unbound, ntask_local);
        strncat(bind_problem, more, sizeof bind_problem - strlen(bind_problem) - 1);
    }
out:
    /* For the node's log; the user hears it from a task (task_init). */
    if (bind_problem[0])
        slurm_info("topomap: %s", bind_problem);
    /* The tasks have no use for it, and it can be long. */
    spank_unsetenv(sp, TOPOMAP_ENV_BIND);
    hwloc_bitmap_free(set);
    if (topo)
        hwloc_topology_destroy(topo);
    free(alloc);
    free(core);
}

static const char *job_getenv(const char *name, void *arg)
{
    return job_env(arg, name);
}

/* gpu_bind=yes (gpu.c): each local task's GPU, NIC and, with bind=cores,
 * the cores near its GPU instead of its core. After prepare_binding. */
static void prepare_gpus(spank_t sp)
{
    const char *spec = job_env(sp, TOPOMAP_ENV_GPU);
    uint32_t ntotal = 0, nl = 0;
    int *gid = NULL, *alloc = NULL, nalloc = 0;
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t *sets = NULL;
    char err[TOPOMAP_ERRLEN], host[256];

    if (!spec || !site.gpu_bind)
        goto out;
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntotal) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &nl) != ESPANK_SUCCESS || ntotal == 0 ||
        ntotal > INT_MAX || nl == 0)
        goto out;
    gid = calloc(nl, sizeof *gid);
    gpu_tasks = calloc(nl, sizeof *gpu_tasks);
    sets = calloc(nl, sizeof *sets);
    if (!gid || !gpu_tasks || !sets || hwloc_topology_init(&topo) < 0 ||
        hwloc_topology_load(topo) < 0) {
        bind_fail(1, "gpu_bind: out of memory or no hwloc topology");
        goto out;
    }
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t g = UINT32_MAX;
        spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, l, &g);
        gid[l] = g > INT_MAX ? -1 : (int)g;
        if (site.bind && !(sets[l] = hwloc_bitmap_alloc())) {
            bind_fail(1, "gpu_bind: out of memory");
            goto out;
        }
    }
    alloc = step_cores(sp, topo, &nalloc);
    /* The job's environment gets SLURMD_NODENAME only in each task;
     * slurmstepd has it from slurmd (a node name may differ from the
     * host's name, and the local test cluster runs every node on one host). */
    const char *node = job_env(sp, "SLURMD_NODENAME");
    if (!node)
        node = getenv("SLURMD_NODENAME");
    if (!node && gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = 0;
        host[strcspn(host, ".")] = 0;
        node = host;
    }
    int n = topomap_gpu_prepare(&site, spec, (int)ntotal, gid, (int)nl, node, job_getenv, sp, topo,
                                alloc, nalloc, gpu_tasks, site.bind ? sets : NULL, err,
                                sizeof err);
    if (n < 0)
        bind_fail(1, "gpu_bind: %s", err);
    if (n <= 0)
        goto out;
    gpu_ntasks = nl;
    if (site.bind && !task_sets) {
        task_sets = calloc(nl, sizeof *task_sets);
        task_bind = calloc(nl, 1);
        ntask_local = task_sets && task_bind ? nl : 0;
    }
    for (uint32_t l = 0; site.bind && l < ntask_local; l++) {
        CPU_ZERO(&task_sets[l]);
        hwloc_cpuset_to_glibc_sched_affinity(topo, sets[l], &task_sets[l], sizeof task_sets[l]);
        task_bind[l] = 1;
    }
out:
    if (gpu_ntasks == 0) {
        free(gpu_tasks);
        gpu_tasks = NULL;
    }
    for (uint32_t l = 0; sets && l < nl; l++)
        hwloc_bitmap_free(sets[l]);
    free(sets);
    free(gid);
    free(alloc);
    if (topo)
        hwloc_topology_destroy(topo);
    spank_unsetenv(sp, TOPOMAP_ENV_GPU);
}

/* In task_init: the GPU, and the NIC near it, of task l. */
static void set_gpu_env(spank_t sp, uint32_t l)
{
    if (!gpu_tasks || l >= gpu_ntasks)
        return;
    const struct topomap_gpu_task *g = &gpu_tasks[l];
    int bad = spank_setenv(sp, g->var, g->dev, 1) != ESPANK_SUCCESS;
    if (g->nic[0]) {
        bad |= spank_setenv(sp, TOPOMAP_ENV_GPU_NIC, g->nic, 1) != ESPANK_SUCCESS;
        /* UCX (Open MPI, MPICH with UCX) names a port "mlx5_0:1"; a user's
         * own choice stays. */
        if (strchr(g->nic, ':') && !job_env(sp, "UCX_NET_DEVICES"))
            bad |= spank_setenv(sp, "UCX_NET_DEVICES", g->nic, 0) != ESPANK_SUCCESS;
    }
    if (bad && l == 0)
        fprintf(stderr, "topomap: cannot set %s=%s in task %u's environment; keeping Slurm's\n",
                g->var, g->dev, l);
}

/* ------------------------------------------------------------------------ */
/* slurmstepd side: --topomap-record                                          */
/* ------------------------------------------------------------------------ */

static int set_task_env(spank_t sp, const char *name, const char *value)
{
    if (spank_setenv(sp, name, value, 1) == ESPANK_SUCCESS)
        return 0;
    snprintf(rec_problem, sizeof rec_problem,
             "topomap: --topomap-record: cannot set %s in the tasks' environment; not recording",
             name);
    return -1;
}

static int srun_step(uint32_t step)
{
    return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
           step != SLURM_INTERACTIVE_STEP;
}

/* In slurm_spank_user_init, after the option callbacks: the option arrived
 * but srun's environment did not. */
static void check_record(void)
{
    if (rec_asked && !rec_env && srun_step(rec_step) && !rec_problem[0])
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: srun's environment did not reach the step (srun "
                 "--export=NONE or a list without TOPOMAP_RECORD?); not recording");
}

/* In slurm_spank_init (root, before the tasks exist). */
static void setup_record(spank_t sp)
{
    const char *v = job_env(sp, TOPOMAP_ENV_RECORD);
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
    rec_verbose = job_env(sp, TOPOMAP_ENV_RECORD_VERBOSE) != NULL;
    /* The tasks have no use for them (and a nested srun must not inherit). */
    spank_unsetenv(sp, TOPOMAP_ENV_RECORD);
    spank_unsetenv(sp, TOPOMAP_ENV_RECORD_VERBOSE);
    /* Only srun's steps: not a batch script, nor the extern or interactive
     * step (TOPOMAP_RECORD in their environment came from the user); and
     * not when srun declined (empty name, srun said why). */
    if (!srun_step(step) || !rec_name[0])
        return;
    rec_task0 = task0_here(sp);
    if (!topomap_store_name_valid(rec_name)) {
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: '%.200s' is not a valid profile name; not recording",
                 rec_name);
        return;
    }
    /* The profiler goes into every rank or none (its MPI_Finalize is
     * collective), and that depends only on the installation. */
    const char *lib = site.profiler ? site.profiler : PROFILER_DEFAULT;
    if (access(lib, R_OK) < 0) {
        snprintf(rec_problem, sizeof rec_problem,
                 "topomap: --topomap-record: the profiler %s: %s (profiler= in plugstack.conf); "
                 "not recording",
                 lib, strerror(errno));
        return;
    }
    char *preload = topomap_preload_prepend(lib, job_env(sp, "LD_PRELOAD"));
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
    rec_fd = topomap_record_mkdir(site.spool, job, step, uid, gid, rec_dir, sizeof rec_dir, err,
                                  sizeof err);
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
        topomap_record_cleanup(rec_fd, rec_dir, err, sizeof err);
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
    int rc = topomap_record_register(rec_fd, rec_dir, uid, gid, (long)ntotal, site.profiles,
                                     rec_name, id, msg, sizeof msg);
    slurm_info("%s", msg);
    if (rc < 0 || rec_verbose)
        fprintf(stderr, "%s\n", msg);
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
        return place(sp);
    if (job_env(sp, TOPOMAP_ENV_FAIL)) {
        step_fail = 1; /* srun said why; the tasks exit in task_init */
        spank_unsetenv(sp, TOPOMAP_ENV_FAIL);
    }
    log_decision(sp);
    fix_pmi2_mapping(sp);
    setup_record(sp);
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_LOCAL)
        return 0;
    /* srun has read the hostfile by now; the tasks must not inherit it. */
    if (hostfile[0]) {
        drop_hostfile();
        unsetenv("SLURM_HOSTFILE");
    }
    return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    if (spank_context() != S_CTX_REMOTE)
        return 0;
    check_record();
    prepare_binding(sp);
    prepare_gpus(sp);
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
    int have_gid = spank_get_item(sp, S_TASK_GLOBAL_ID, &gid) == ESPANK_SUCCESS;
    if (have_gid && gid == 0) {
        if (rec_problem[0])
            fprintf(stderr, "%s\n", topomap_sp_clean(rec_problem));
        if (pmi2_lost)
            fprintf(stderr,
                    "topomap: this layout is too irregular for --mpi=pmi2's process mapping "
                    "(over %d bytes), so MPI sees every rank on its own node (MPICH: no "
                    "shared memory); use --mpi=pmix with Open MPI, or a more regular layout\n",
                    TOPOMAP_PMI2_MAXLEN);
    }
    if (spank_get_item(sp, S_TASK_ID, &l) != ESPANK_SUCCESS)
        l = UINT32_MAX;
    if (bind_problem[0]) {
        /* One line per problem: a node's own from its first task, the
         * step's from global task 0 only (every node has the same). */
        const char *node = bind_local ? job_env(sp, "SLURMD_NODENAME") : NULL;
        if (bind_local ? l == 0 : have_gid && gid == 0)
            fprintf(stderr, "topomap: %.64s%s%s; %s\n", node ? node : "", node ? ": " : "",
                    bind_problem,
                    site.strict ? "failing the step (strict=1)"
                                : "keeping Slurm's binding for them");
        if (site.strict)
            _exit(1);
    }
    set_gpu_env(sp, l);
    if (!task_bind || l >= ntask_local || !task_bind[l])
        return 0;
    if (sched_setaffinity(0, sizeof task_sets[l], &task_sets[l]) < 0) {
        fprintf(stderr, "topomap: cannot bind task %u: %s; %s\n", l, strerror(errno),
                site.strict ? "failing the step (strict=1)" : "keeping Slurm's binding");
        if (site.strict)
            _exit(1);
    }
    return 0;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    uint32_t gid = 1;
    if (spank_context() != S_CTX_REMOTE || rec_fd < 0 || !rec_task0 || rec_done)
        return 0;
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &gid) == ESPANK_SUCCESS && gid == 0)
        finish_record(sp);
    return 0; /* never fails the step, see the failure policy above */
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    if (spank_context() == S_CTX_LOCAL) {
        drop_hostfile();
        topomap_decision_free(&decision);
    }
    if (rec_fd >= 0) {
        char err[PATH_MAX + 256];
        if (rec_task0 && !rec_done)
            slurm_info("topomap: --topomap-record: task 0 of this step never ended here; "
                       "nothing recorded");
        if (topomap_record_cleanup(rec_fd, rec_dir, err, sizeof err) < 0)
            slurm_info("topomap: %s", err);
    }
    rec_fd = -1;
    rec_dir[0] = rec_name[0] = rec_problem[0] = bind_problem[0] = 0;
    bind_local = step_fail = 0;
    rec_task0 = rec_verbose = rec_done = rec_env = rec_asked = 0;
    rec_step = 0;
    free(task_sets);
    free(task_bind);
    free(gpu_tasks);
    task_sets = NULL;
    task_bind = NULL;
    gpu_tasks = NULL;
    gpu_ntasks = 0;
    if (site_ready)
        topomap_site_free(&site);
    site_ready = 0;
    return 0;
}
