/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU binding (spank/gpu.c, gpu_bind=yes): which steps count as using GPUs,
 * the variable and value each task gets (by vendor, through Slurm's list of
 * the step's GPUs), the CPU set near its GPU on a synthetic hwloc machine
 * (restricted to the step's cores), and the whole preparation of a node's
 * tasks for several GPUs per node (topologies/dgx1-v100.yaml) and one GPU per
 * node (tests/data/topologies/gpu-one.yaml), and for a step without GPUs
 * (nothing set); and what srun passes (TOPOMAP_GPU) with and without
 * gpu_bind=yes, on GPU and CPU nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* tmsp_set */
#include "spank_test.h"
#include "tap.h"

#define DGX1 SRCDIR "/../topologies/dgx1-v100.yaml"
#define ONE SRCDIR "/data/topologies/gpu-one.yaml"

static char err[TOPOMAP_ERRLEN];

static void step_and_vars(void)
{
    const char *none[] = {"PATH=/bin", NULL};
    const char *zero[] = {"SLURM_GPUS_ON_NODE=0", NULL};
    const char *step[] = {"SLURM_STEP_GPUS=0,1,2,3", NULL};
    const char *job[] = {"SLURM_JOB_GPUS=4", NULL};
    ok(!tmsp_gpu_step(fake_env, (void *)none), "no GPU variable: not a GPU step");
    ok(!tmsp_gpu_step(fake_env, (void *)zero), "SLURM_GPUS_ON_NODE=0: not a GPU step");
    ok(tmsp_gpu_step(fake_env, (void *)step), "SLURM_STEP_GPUS: a GPU step");
    ok(tmsp_gpu_step(fake_env, (void *)job), "SLURM_JOB_GPUS: a GPU step");
    is_str(tmsp_gpu_var(TOPOMAP_GPU_NVIDIA), "CUDA_VISIBLE_DEVICES", "nvidia");
    is_str(tmsp_gpu_var(TOPOMAP_GPU_AMD), "ROCR_VISIBLE_DEVICES", "amd");
    is_str(tmsp_gpu_var(TOPOMAP_GPU_INTEL), "ZE_AFFINITY_MASK", "intel");
    ok(tmsp_gpu_var(0) == NULL, "no vendor 0");
}

static void task_values(const topomap_topology_t *t)
{
    struct tmsp_gpu_task g;
    const char *none[] = {NULL};
    ok(tmsp_gpu_task(t, 1, 5, fake_env, (void *)none, &g, err, sizeof err) == 0 &&
           !strcmp(g.var, "CUDA_VISIBLE_DEVICES") && !strcmp(g.dev, "5") &&
           !strcmp(g.cpus, "20-39") && !strcmp(g.nic, "mlx5_2:1"),
       "dgx2 GPU 5: CUDA_VISIBLE_DEVICES=5, cores 20-39, NIC mlx5_2:1");
    const char *slurm[] = {"CUDA_VISIBLE_DEVICES=4,5,6,7,0,1,2,3", NULL};
    ok(tmsp_gpu_task(t, 1, 5, fake_env, (void *)slurm, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "1"),
       "Slurm's list 4,5,6,7,0,1,2,3: GPU 5 is its 6th entry, 1 (got %s)", g.dev);
    const char *one[] = {"CUDA_VISIBLE_DEVICES=3", NULL};
    ok(tmsp_gpu_task(t, 1, 0, fake_env, (void *)one, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "3"),
       "Slurm gave the step GPU 3 only: slot 0 is GPU 3 (got %s)", g.dev);
    /* Slurm 26.05, gres.conf Flags=env_uuid: UUIDs in place of indices
     * (gres.conf(5)'s example UUID); the entry is exported as it is. */
    const char *uuids[] = {"CUDA_VISIBLE_DEVICES=GPU-8932f937-d72c-4106-c12f-20bd9faed9f6,"
                           "GPU-0b5e7a31-9c2d-4e8f-a1b2-c3d4e5f60718,"
                           "MIG-5c2d6a10-1b3e-5f7a-9c8d-0e1f2a3b4c5d",
                           NULL};
    ok(tmsp_gpu_task(t, 1, 1, fake_env, (void *)uuids, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "GPU-0b5e7a31-9c2d-4e8f-a1b2-c3d4e5f60718") &&
           !strcmp(g.var, "CUDA_VISIBLE_DEVICES") && !strcmp(g.cpus, "0-19"),
       "a UUID list: GPU 1 is its 2nd UUID, kept whole (got %s)", g.dev);
    ok(tmsp_gpu_task(t, 1, 0, fake_env, (void *)uuids, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"),
       "  GPU 0: the 1st UUID (got %s)", g.dev);
    ok(tmsp_gpu_task(t, 1, 2, fake_env, (void *)uuids, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "MIG-5c2d6a10-1b3e-5f7a-9c8d-0e1f2a3b4c5d"),
       "  GPU 2: a MIG UUID (got %s)", g.dev);
    errno = 0;
    ok(tmsp_gpu_task(t, 1, 3, fake_env, (void *)uuids, &g, err, sizeof err) < 0 &&
           errno == ERANGE && strstr(err, "GPU 3 is not among the step's GPUs"),
       "  3 UUIDs have no 4th: %s", err);
    const char *amd[] = {"CUDA_VISIBLE_DEVICES=GPU-4b9c2e1f7a6d3b20,GPU-9e8d7c6b5a493827", NULL};
    ok(tmsp_gpu_task(t, 1, 1, fake_env, (void *)amd, &g, err, sizeof err) == 0 &&
           !strcmp(g.dev, "GPU-9e8d7c6b5a493827"),
       "  an AMD-style UUID (GPU-<16 hex>) (got %s)", g.dev);
    const char *odd[] = {"CUDA_VISIBLE_DEVICES=GPU-1 2,GPU-3", NULL};
    errno = 0;
    ok(tmsp_gpu_task(t, 1, 0, fake_env, (void *)odd, &g, err, sizeof err) < 0 &&
           errno == EINVAL && strstr(err, "entry 0 of CUDA_VISIBLE_DEVICES"),
       "  an entry with a space is no device name: %s", err);
    char longl[300] = "CUDA_VISIBLE_DEVICES=0,";
    memset(longl + strlen(longl), 'a', 200);
    const char *toolong[] = {longl, NULL};
    errno = 0;
    ok(tmsp_gpu_task(t, 1, 1, fake_env, (void *)toolong, &g, err, sizeof err) < 0 &&
           errno == EINVAL, "  an entry of 200 characters: EINVAL");
    const char *shortl[] = {"CUDA_VISIBLE_DEVICES=0,1", NULL};
    errno = 0;
    ok(tmsp_gpu_task(t, 1, 5, fake_env, (void *)shortl, &g, err, sizeof err) < 0 &&
           errno == ERANGE,
       "a list of 2 GPUs has no 6th: %s", err);
    ok(tmsp_gpu_task(t, 1, 8, fake_env, (void *)none, &g, err, sizeof err) < 0 &&
           errno == EINVAL,
       "slot 8 is not a GPU: %s", err);
}

static void cpusets(void)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
    if (hwloc_topology_init(&topo) < 0 ||
        hwloc_topology_set_synthetic(topo, "pack:2 core:20 pu:2") < 0 ||
        hwloc_topology_load(topo) < 0) {
        ok(0, "synthetic hwloc topology");
        return;
    }
    ok(tmsp_gpu_cpuset(topo, "20-39", NULL, 0, set, err, sizeof err) == 0 &&
           hwloc_bitmap_list_sscanf(want, "40-79") == 0 &&
           hwloc_bitmap_isequal(set, want),
       "cores 20-39 of 2 x 20 x 2: PUs 40-79");
    int alloc[] = {18, 19, 20, 21, 22, 23, 24, 25};
    ok(tmsp_gpu_cpuset(topo, "20-39", alloc, 8, set, err, sizeof err) == 0 &&
           hwloc_bitmap_list_sscanf(want, "40-51") == 0 && hwloc_bitmap_isequal(set, want),
       "the step's cores 18-25: cores 20-25 near the GPU, PUs 40-51");
    errno = 0;
    ok(tmsp_gpu_cpuset(topo, "20-39", alloc, 2, set, err, sizeof err) < 0 && errno == ERANGE,
       "the step has none of them: %s", err);
    ok(tmsp_gpu_cpuset(topo, "38-40", NULL, 0, set, err, sizeof err) < 0 && errno == ERANGE &&
           strstr(err, "core 40 near the GPU does not exist"),
       "a core past the node's: %s", err);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(want);
    hwloc_topology_destroy(topo);
}

/* 16 ranks on dgx[1-2]: rank r on GPU slot[r] of node r / 8; this is dgx2
 * with local tasks 0..7 = ranks 8..15. */
static void prepare_dgx1(void)
{
    struct topomap_site site;
    tmsp_site_init(&site);
    site.gpu_bind = 1;
    tmsp_set(&site.topology, DGX1);
    int slot[16] = {3, 0, 1, 2, 7, 6, 5, 4, 0, 1, 2, 3, 4, 5, 6, 7};
    slot[8] = 6, slot[14] = 0; /* ranks 8 and 14 trade GPUs */
    char *spec = tmsp_bind_encode(slot, 16, 1);
    int gid[8];
    for (int l = 0; l < 8; l++)
        gid[l] = 8 + l;
    struct tmsp_gpu_task tasks[8];
    hwloc_topology_t topo;
    hwloc_bitmap_t sets[8];
    hwloc_topology_init(&topo);
    hwloc_topology_set_synthetic(topo, "pack:2 core:20 pu:1");
    hwloc_topology_load(topo);
    for (int l = 0; l < 8; l++)
        sets[l] = hwloc_bitmap_alloc();
    const char *gpus[] = {"SLURM_STEP_GPUS=0,1,2,3,4,5,6,7", NULL};
    int n = tmsp_gpu_prepare(&site, spec, 16, gid, 8, "dgx2", fake_env, (void *)gpus, topo,
                             NULL, 0, tasks, sets, err, sizeof err);
    is_int(n, 8, "dgx2: 8 tasks bound to GPUs (%s)", n < 0 ? err : "ok");
    int good = n == 8;
    for (int l = 0; good && l < 8; l++) {
        char dev[8], list[32];
        snprintf(dev, sizeof dev, "%d", slot[8 + l]);
        hwloc_bitmap_list_snprintf(list, sizeof list, sets[l]);
        good &= !strcmp(tasks[l].var, "CUDA_VISIBLE_DEVICES") && !strcmp(tasks[l].dev, dev) &&
                !strcmp(list, slot[8 + l] < 4 ? "0-19" : "20-39");
        if (!good)
            printf("#   task %d: %s=%s on %s\n", l, tasks[l].var, tasks[l].dev, list);
    }
    ok(good, "each task: CUDA_VISIBLE_DEVICES = its slot, the 20 cores of the GPU's socket");
    ok(n == 8 && !strcmp(tasks[0].nic, "mlx5_3:1") && !strcmp(tasks[6].nic, "mlx5_0:1"),
       "rank 8 (GPU 6): NIC mlx5_3:1; rank 14 (GPU 0): mlx5_0:1");
    /* A step without GPUs: nothing. */
    memset(tasks, 0, sizeof tasks);
    const char *nogpu[] = {"PATH=/bin", NULL};
    n = tmsp_gpu_prepare(&site, spec, 16, gid, 8, "dgx2", fake_env, (void *)nogpu, topo, NULL,
                         0, tasks, sets, err, sizeof err);
    ok(n == 0 && !tasks[0].var[0] && !tasks[7].var[0], "a step without GPUs: no task touched");
    site.gpu_bind = 0;
    n = tmsp_gpu_prepare(&site, spec, 16, gid, 8, "dgx2", fake_env, (void *)gpus, topo, NULL, 0,
                         tasks, sets, err, sizeof err);
    ok(n == 0 && !tasks[0].var[0], "gpu_bind=no: nothing");
    site.gpu_bind = 1;
    errno = 0;
    n = tmsp_gpu_prepare(&site, spec, 16, gid, 8, "gpu9", fake_env, (void *)gpus, topo, NULL, 0,
                         tasks, sets, err, sizeof err);
    ok(n < 0 && errno == ENOENT, "a node the topology lacks: %s", err);
    n = tmsp_gpu_prepare(&site, "1:1:0-3", 16, gid, 8, "dgx2", fake_env, (void *)gpus, topo,
                         NULL, 0, tasks, sets, err, sizeof err);
    ok(n < 0 && errno == EINVAL, "a TOPOMAP_GPU for 4 ranks: %s", err);
    tmsp_set(&site.topology, "slurm");
    n = tmsp_gpu_prepare(&site, spec, 16, gid, 8, "dgx2", fake_env, (void *)gpus, topo, NULL, 0,
                         tasks, sets, err, sizeof err);
    ok(n < 0 && errno == EINVAL, "topology=slurm: %s", err);
    for (int l = 0; l < 8; l++)
        hwloc_bitmap_free(sets[l]);
    hwloc_topology_destroy(topo);
    free(spec);
    tmsp_site_free(&site);
}

/* One AMD GPU per node: 2 ranks, one per node; this is g2 (rank 1). */
static void prepare_one(void)
{
    struct topomap_site site;
    tmsp_site_init(&site);
    site.gpu_bind = 1;
    tmsp_set(&site.topology, ONE);
    int gid[1] = {1};
    struct tmsp_gpu_task task;
    hwloc_topology_t topo;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_topology_init(&topo);
    hwloc_topology_set_synthetic(topo, "pack:2 core:4 pu:2");
    hwloc_topology_load(topo);
    const char *gpus[] = {"SLURM_GPUS_ON_NODE=1", NULL};
    int alloc[] = {3, 4, 5};
    int n = tmsp_gpu_prepare(&site, "1:1:0x2", 2, gid, 1, "g2", fake_env, (void *)gpus, topo,
                             alloc, 3, &task, &set, err, sizeof err);
    char list[32] = "";
    hwloc_bitmap_list_snprintf(list, sizeof list, set);
    ok(n == 1 && !strcmp(task.var, "ROCR_VISIBLE_DEVICES") && !strcmp(task.dev, "0") &&
           !strcmp(task.nic, "hsn0") && !strcmp(list, "8-11"),
       "g2: ROCR_VISIBLE_DEVICES=0, NIC hsn0, the step's cores near the GPU (4-5: PUs %s)", list);
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    tmsp_site_free(&site);
}

static void site_key(void)
{
    struct topomap_site s;
    tmsp_site_init(&s);
    ok(s.gpu_bind == 0, "gpu_bind: no by default");
    char *yes[] = {"gpu_bind=yes"}, *no[] = {"gpu_bind=no"}, *bad[] = {"gpu_bind=1"};
    ok(tmsp_site_parse(&s, 1, yes, err, sizeof err) == 0 && s.gpu_bind == 1, "gpu_bind=yes");
    ok(tmsp_site_parse(&s, 1, no, err, sizeof err) == 0 && s.gpu_bind == 0, "gpu_bind=no");
    ok(tmsp_site_parse(&s, 1, bad, err, sizeof err) == 1 &&
           !strcmp(err, "plugstack.conf: gpu_bind=1 is not yes or no"),
       "gpu_bind=1: %s", err);
    tmsp_site_free(&s);
}

/* srun's decision: TOPOMAP_GPU only with gpu_bind=yes on GPU nodes. */
static void decide_gpu(const char *store)
{
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    static const char *const topo[] = {DATA "/mesh-2x2-2gpu.yaml", DATA "/mesh-2x2-2core.yaml"};
    for (int k = 0; k < 3; k++) {
        struct topomap_site s;
        struct topomap_srun o;
        struct topomap_decision d;
        char pa[600], ta[600], *args[] = {ta, pa, "gpu_bind=yes"};
        tmsp_site_init(&s);
        snprintf(ta, sizeof ta, "topology=%s", topo[k == 2]);
        snprintf(pa, sizeof pa, "profiles=%s", store);
        tmsp_site_parse(&s, k == 1 ? 2 : 3, args, err, sizeof err);
        parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8", "app",
              NULL);
        tmsp_decide(&s, &o, fake_env, (void *)env, &d);
        if (k == 0)
            ok(d.outcome == TOPOMAP_REMAP && d.gpu && !strcmp(d.gpu, "1:1:0x4,1x4"),
               "gpu_bind=yes, GPU nodes: TOPOMAP_GPU %s (ranks 0-3 on GPU 0, 4-7 on GPU 1)",
               d.gpu ? d.gpu : "(none)");
        else
            ok(d.outcome == TOPOMAP_REMAP && d.gpu == NULL && d.bind != NULL,
               "%s: no TOPOMAP_GPU, the core binding as before",
               k == 1 ? "gpu_bind=no" : "gpu_bind=yes on nodes without GPUs");
        tmsp_decision_free(&d);
        tmsp_srun_free(&o);
        tmsp_site_free(&s);
    }
}

int main(void)
{
    char store[] = "/tmp/topomap-gpu-store.XXXXXX";
    if (make_store(store) == 0) {
        topomap_profile_t *p = topomap_profile_load(DATA "/pair8.txt", TOPOMAP_FMT_AUTO, err,
                                                    sizeof err);
        if (ok(p && topomap_store_add(store, "pair8", p, err, sizeof err) == 0,
               "store pair8 (%s)", p ? "ok" : err))
            decide_gpu(store);
        topomap_profile_free(p);
        remove_store(store);
    }
    site_key();
    step_and_vars();
    topomap_topology_t *t = topomap_topology_load(DGX1, err, sizeof err);
    if (!t) {
        printf("Bail out! %s\n", err);
        return 1;
    }
    task_values(t);
    topomap_topology_free(t);
    cpusets();
    prepare_dgx1();
    prepare_one();
    return done_testing();
}
