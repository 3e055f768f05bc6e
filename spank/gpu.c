/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU binding (gpu_bind=yes, see policy.h): on a node whose topology type
 * has GPUs, the slot the mapping gave a task is a GPU; the task gets that
 * GPU (the vendor's variable), the cores near it and the NIC near it. A step
 * that uses no GPU is left to the core binding of bind.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Slurm's variables that say a step has GPUs (gres/gpu sets them). */
static const char *const gpu_job_vars[] = {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS",
                                           "SLURM_GPUS_ON_NODE"};

int tmsp_gpu_step(topomap_getenv_fn env, void *arg)
{
    for (size_t i = 0; i < sizeof gpu_job_vars / sizeof *gpu_job_vars; i++) {
        const char *v = tmsp_env(env, arg, gpu_job_vars[i]);
        if (v && strcmp(v, "0"))
            return 1;
    }
    return 0;
}

const char *tmsp_gpu_var(int vendor)
{
    switch (vendor) {
    case TOPOMAP_GPU_NVIDIA:
        return "CUDA_VISIBLE_DEVICES";
    case TOPOMAP_GPU_AMD:
        return "ROCR_VISIBLE_DEVICES";
    case TOPOMAP_GPU_INTEL:
        return "ZE_AFFINITY_MASK";
    default:
        return NULL;
    }
}

/* Item k of the comma-separated list s into buf (len bytes); 0, -1 when s
 * has fewer, -2 when the item is empty, too long, or has a character no
 * device name has. Slurm writes indices, or with gres.conf Flags=env_uuid
 * (Slurm 26.05) UUIDs, "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6" (NVIDIA),
 * "GPU-<16 hex digits>" (AMD), MIG devices "MIG-<uuid>" (tag
 * slurm-26-05-3-1, src/plugins/gres/common/gres_common.c,
 * common_gres_set_env(): the device's unique_id in place of its index in
 * the local list); they are exported as they are. */
static int list_item(const char *s, int k, char *buf, size_t len)
{
    for (; k > 0 && s; k--)
        if ((s = strchr(s, ',')))
            s++;
    if (!s || !*s)
        return -1;
    size_t n = strcspn(s, ",");
    static const char name_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "abcdefghijklmnopqrstuvwxyz-_:./";
    if (n == 0 || n >= len || strspn(s, name_chars) < n)
        return -2;
    memcpy(buf, s, n);
    buf[n] = 0;
    return 0;
}

int tmsp_gpu_task(const topomap_topology_t *t, int node, int gpu, topomap_getenv_fn env,
                  void *arg, struct tmsp_gpu_task *out, char *err, size_t errlen)
{
    topomap_gpu_t g;
    memset(out, 0, sizeof *out);
    if (topomap_topology_gpu(t, node, gpu, &g) < 0)
        return tmsp_fail(err, errlen, EINVAL, "slot %d is not a GPU of node %s", gpu,
                         topomap_topology_node_name(t, node));
    const char *var = tmsp_gpu_var(g.vendor);
    snprintf(out->var, sizeof out->var, "%s", var);
    /* Slurm's list of the step's GPUs for this vendor, when it set one:
     * GPU g of the node is its g-th entry (the numbering the runtime will
     * see, or the GPU's UUID); else the node's own number. */
    const char *slurm = tmsp_env(env, arg, var);
    int rc = slurm ? list_item(slurm, gpu, out->dev, sizeof out->dev) : 0;
    if (rc == -1)
        return tmsp_fail(err, errlen, ERANGE, "GPU %d is not among the step's GPUs "
                         "(%s=%.64s)", gpu, var, slurm);
    if (rc == -2)
        return tmsp_fail(err, errlen, EINVAL, "entry %d of %s=%.64s is not a GPU index "
                         "or UUID", gpu, var, slurm);
    if (!slurm)
        snprintf(out->dev, sizeof out->dev, "%d", gpu);
    snprintf(out->cpus, sizeof out->cpus, "%s", g.cpus);
    if (g.nic)
        snprintf(out->nic, sizeof out->nic, "%s", g.nic);
    return 0;
}

int tmsp_gpu_cpuset(hwloc_topology_t topo, const char *cpus, const int *alloc, int nalloc,
                    hwloc_bitmap_t set, char *err, size_t errlen)
{
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int *ids = malloc(sizeof(int) * (size_t)(ncores > 0 ? ncores : 1));
    if (!ids)
        return tmsp_fail(err, errlen, ENOMEM, "out of memory");
    int n = tmsp_cpulist_parse(cpus, ids, ncores > 0 ? ncores : 1);
    hwloc_bitmap_zero(set);
    if (n < 0) {
        free(ids);
        return tmsp_fail(err, errlen, ERANGE, "the GPU's cores %.64s are not cores of this "
                         "node (%d cores)", cpus, ncores);
    }
    for (int i = 0; i < n; i++) {
        int in = !alloc;
        for (int k = 0; !in && k < nalloc; k++)
            in = alloc[k] == ids[i];
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)ids[i]);
        if (!o || !o->cpuset) {
            int c = ids[i];
            free(ids);
            return tmsp_fail(err, errlen, ERANGE, "core %d near the GPU does not exist "
                             "here (%d cores)", c, ncores);
        }
        if (in)
            hwloc_bitmap_or(set, set, o->cpuset);
    }
    free(ids);
    if (hwloc_bitmap_iszero(set))
        return tmsp_fail(err, errlen, ERANGE,
                         "the step has none of the cores near the GPU (%.64s)", cpus);
    return 0;
}

int tmsp_gpu_prepare(const struct topomap_site *site, const char *spec, int ntotal,
                     const int *gid, int nlocal, const char *nodename, topomap_getenv_fn env,
                     void *arg, hwloc_topology_t topo, const int *alloc, int nalloc,
                     struct tmsp_gpu_task *tasks, hwloc_bitmap_t *sets, char *err,
                     size_t errlen)
{
    char terr[TOPOMAP_ERRLEN];
    int *slot = NULL, rc = -1, node;
    topomap_topology_t *t = NULL;
    if (!site->gpu_bind || !spec || !tmsp_gpu_step(env, arg))
        return 0;
    if (!site->topology || !strcmp(site->topology, "slurm"))
        return tmsp_fail(err, errlen, EINVAL,
                         "gpu_bind=yes needs topology= a topomap YAML that describes the GPUs");
    if (!(slot = malloc(sizeof(int) * (size_t)(ntotal > 0 ? ntotal : 1))))
        return tmsp_fail(err, errlen, ENOMEM, "out of memory");
    if (tmsp_bind_decode(spec, ntotal, slot, &(int){0}) < 0) {
        tmsp_fail(err, errlen, EINVAL, "%s does not describe %d tasks", TOPOMAP_ENV_GPU,
                  ntotal);
        goto out;
    }
    if (!(t = topomap_topology_load_named(site->topology, site->topology_name, terr,
                                          sizeof terr))) {
        tmsp_fail(err, errlen, errno, "%s", terr);
        goto out;
    }
    if (!nodename || (node = topomap_topology_node_lookup(t, nodename)) < 0) {
        tmsp_fail(err, errlen, ENOENT, "node %.64s is not in the topology",
                  nodename ? nodename : "(unknown)");
        goto out;
    }
    if (topomap_topology_node_gpus(t, node) <= 0) {
        rc = 0; /* srun saw GPUs on every node: a changed file; nothing to do here */
        goto out;
    }
    for (int l = 0; l < nlocal; l++) {
        char why[TOPOMAP_ERRLEN];
        if (gid[l] < 0 || gid[l] >= ntotal) {
            tmsp_fail(err, errlen, EINVAL, "local task %d has no rank", l);
            goto out;
        }
        if (tmsp_gpu_task(t, node, slot[gid[l]], env, arg, &tasks[l], why, sizeof why) < 0 ||
            (sets && tmsp_gpu_cpuset(topo, tasks[l].cpus, alloc, nalloc, sets[l], why,
                                     sizeof why) < 0)) {
            tmsp_fail(err, errlen, errno, "rank %d: %s", gid[l], why);
            goto out;
        }
    }
    rc = nlocal;
out:
    topomap_topology_free(t);
    free(slot);
    return rc;
}
