/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap.so, slurmstepd's side (S_CTX_REMOTE, see topomap.c) of a placed
 * step: the decision into slurmd's log, the PMI2 process mapping, each local
 * task's CPU set (bind.c) and GPU (gpu.c) worked out once per node before
 * the fork, and applied in each task. Problems are kept for the tasks to
 * tell (and, under strict=1, to fail on): failing slurmstepd's own callbacks
 * could drain the node. */
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

#include "common.h" /* tmsp_clean */
#include "plugin.h"

/* The CPU set of each local task, or none. */
static cpu_set_t *task_sets;
static unsigned char *task_bind;
static struct tmsp_gpu_task *gpu_tasks; /* gpu_bind=yes: per local task */
static uint32_t gpu_ntasks;
static uint32_t ntask_local;
static char bind_problem[512];
static int bind_local; /* bind_problem is this node's, not the whole step's */
static int pmi2_lost;  /* remapped under pmi2 without a PMI2 mapping */

/* A variable of the job's environment, without copying (values such as
 * TOPOMAP_BIND can be large). */
const char *tmsp_job_env(spank_t sp, const char *name)
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

int tmsp_srun_step(uint32_t step)
{
    return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
           step != SLURM_INTERACTIVE_STEP;
}

/* 1 when global task 0 of the step runs on this node (slurmstepd). */
int tmsp_task0_here(spank_t sp)
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
 * here: one line per step, where an admin looks (a tmsp_site's configuration
 * problems, a missing topology file or an unreadable store, show there
 * too, not only on the users' terminals). */
static void log_decision(spank_t sp)
{
    const char *line = tmsp_job_env(sp, TOPOMAP_ENV_LOG);
    uint32_t job = 0, step = 0;
    if (!line)
        return;
    spank_get_item(sp, S_JOB_ID, &job);
    spank_get_item(sp, S_JOB_STEPID, &step);
    if (tmsp_srun_step(step) && tmsp_task0_here(sp)) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", line);
        slurm_info("topomap: step %u.%u: %s", job, step, tmsp_clean(copy));
    }
    spank_unsetenv(sp, TOPOMAP_ENV_LOG);
}

static void fix_pmi2_mapping(spank_t sp)
{
    const char *ours = tmsp_job_env(sp, TOPOMAP_ENV_PMI2);
    if (!ours)
        return;
    /* Only when Slurm's pmi2 plugin is in use for this step. */
    if (tmsp_job_env(sp, TOPOMAP_ENV_SLURM_PMI2) && !*ours)
        pmi2_lost = 1;
    else if (tmsp_job_env(sp, TOPOMAP_ENV_SLURM_PMI2)) {
        char *copy = strdup(ours);
        if (copy && spank_setenv(sp, TOPOMAP_ENV_SLURM_PMI2, copy, 1) != ESPANK_SUCCESS)
            slurm_error("topomap: cannot replace %s", TOPOMAP_ENV_SLURM_PMI2);
        free(copy);
    }
    spank_unsetenv(sp, TOPOMAP_ENV_PMI2);
}

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
            *nalloc = tmsp_cpulist_parse(cores_str, alloc, max);
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
    const char *spec = tmsp_job_env(sp, TOPOMAP_ENV_BIND);
    uint32_t ntotal = 0;
    int *core = NULL, *alloc = NULL, nalloc = 0, cpt = 1;
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t set = NULL;

    if (!spec)
        return;
    if (!tmsp_site.bind)
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
    if (tmsp_bind_decode(spec, (int)ntotal, core, &cpt) < 0) {
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
        if (tmsp_bind_cpuset(topo, alloc, alloc ? nalloc : 0, core[gid], cpt, set, why,
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
    return tmsp_job_env(arg, name);
}

/* gpu_bind=yes (gpu.c): each local task's GPU, NIC and, with bind=cores,
 * the cores near its GPU instead of its core. After prepare_binding. */
static void prepare_gpus(spank_t sp)
{
    const char *spec = tmsp_job_env(sp, TOPOMAP_ENV_GPU);
    uint32_t ntotal = 0, nl = 0;
    int *gid = NULL, *alloc = NULL, nalloc = 0;
    hwloc_topology_t topo = NULL;
    hwloc_bitmap_t *sets = NULL;
    char err[TOPOMAP_ERRLEN], host[256];

    if (!spec || !tmsp_site.gpu_bind)
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
        if (tmsp_site.bind && !(sets[l] = hwloc_bitmap_alloc())) {
            bind_fail(1, "gpu_bind: out of memory");
            goto out;
        }
    }
    alloc = step_cores(sp, topo, &nalloc);
    /* The job's environment gets SLURMD_NODENAME only in each task;
     * slurmstepd has it from slurmd (a node name may differ from the
     * host's name, and the local test cluster runs every node on one host). */
    const char *node = tmsp_job_env(sp, "SLURMD_NODENAME");
    if (!node)
        node = getenv("SLURMD_NODENAME");
    if (!node && gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = 0;
        host[strcspn(host, ".")] = 0;
        node = host;
    }
    int n = tmsp_gpu_prepare(&tmsp_site, spec, (int)ntotal, gid, (int)nl, node, job_getenv, sp,
                             topo, alloc, nalloc, gpu_tasks, tmsp_site.bind ? sets : NULL, err,
                             sizeof err);
    if (n < 0)
        bind_fail(1, "gpu_bind: %s", err);
    if (n <= 0)
        goto out;
    gpu_ntasks = nl;
    if (tmsp_site.bind && !task_sets) {
        task_sets = calloc(nl, sizeof *task_sets);
        task_bind = calloc(nl, 1);
        ntask_local = task_sets && task_bind ? nl : 0;
    }
    for (uint32_t l = 0; tmsp_site.bind && l < ntask_local; l++) {
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
    const struct tmsp_gpu_task *g = &gpu_tasks[l];
    int bad = spank_setenv(sp, g->var, g->dev, 1) != ESPANK_SUCCESS;
    if (g->nic[0]) {
        bad |= spank_setenv(sp, TOPOMAP_ENV_GPU_NIC, g->nic, 1) != ESPANK_SUCCESS;
        /* UCX (Open MPI, MPICH with UCX) names a port "mlx5_0:1"; a user's
         * own choice stays. */
        if (strchr(g->nic, ':') && !tmsp_job_env(sp, "UCX_NET_DEVICES"))
            bad |= spank_setenv(sp, "UCX_NET_DEVICES", g->nic, 0) != ESPANK_SUCCESS;
    }
    if (bad && l == 0)
        fprintf(stderr, "topomap: cannot set %s=%s in task %u's environment; keeping Slurm's\n",
                g->var, g->dev, l);
}

void tmsp_step_init(spank_t sp)
{
    log_decision(sp);
    fix_pmi2_mapping(sp);
}

void tmsp_step_prepare(spank_t sp)
{
    prepare_binding(sp);
    prepare_gpus(sp);
}

/* In task l (UINT32_MAX: unknown) before exec; task0: it is global task 0.
 * Tells the node's or the step's binding problem once, sets the task's GPU
 * variables and binds it. */
void tmsp_step_task(spank_t sp, uint32_t l, int task0)
{
    if (task0 && pmi2_lost)
        fprintf(stderr,
                "topomap: this layout is too irregular for --mpi=pmi2's process mapping "
                "(over %d bytes), so MPI sees every rank on its own node (MPICH: no "
                "shared memory); use --mpi=pmix with Open MPI, or a more regular layout\n",
                TOPOMAP_PMI2_MAXLEN);
    if (bind_problem[0]) {
        /* One line per problem: a node's own from its first task, the
         * step's from global task 0 only (every node has the same). */
        const char *node = bind_local ? tmsp_job_env(sp, "SLURMD_NODENAME") : NULL;
        if (bind_local ? l == 0 : task0)
            fprintf(stderr, "topomap: %.64s%s%s; %s\n", node ? node : "", node ? ": " : "",
                    bind_problem,
                    tmsp_site.strict ? "failing the step (strict=1)"
                                     : "keeping Slurm's binding for them");
        if (tmsp_site.strict)
            _exit(1);
    }
    set_gpu_env(sp, l);
    if (!task_bind || l >= ntask_local || !task_bind[l])
        return;
    if (sched_setaffinity(0, sizeof task_sets[l], &task_sets[l]) < 0) {
        fprintf(stderr, "topomap: cannot bind task %u: %s; %s\n", l, strerror(errno),
                tmsp_site.strict ? "failing the step (strict=1)" : "keeping Slurm's binding");
        if (tmsp_site.strict)
            _exit(1);
    }
}

void tmsp_step_exit(void)
{
    bind_problem[0] = 0;
    bind_local = 0;
    free(task_sets);
    free(task_bind);
    free(gpu_tasks);
    task_sets = NULL;
    task_bind = NULL;
    gpu_tasks = NULL;
    gpu_ntasks = 0;
}
