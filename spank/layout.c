/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's default task layout, predicted from the allocation and srun's
 * options (see policy.h; what differs between releases: release.c). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "common.h"

int tmsp_cpus_per_node(const char *spec, int nnodes, int *cpus, char *err, size_t errlen)
{
    if (!spec || !*spec)
        return tmsp_fail(err, errlen, EINVAL, "no CPU counts (SLURM_JOB_CPUS_PER_NODE)");
    int k = 0;
    const char *p = spec;
    while (*p) {
        /* Digits only (no blanks, no sign), as every count topomap reads. */
        const char *at = p;
        long c = tmsp_uint(&p);
        if (c <= 0)
            return tmsp_fail(err, errlen, EINVAL, "CPU counts '%s': bad count at '%s'", spec,
                             at);
        long rep = 1;
        if (*p == '(') {
            if (p[1] != 'x')
                return tmsp_fail(err, errlen, EINVAL, "CPU counts '%s': expected '(xN)'",
                                 spec);
            p += 2;
            rep = tmsp_uint(&p);
            if (rep <= 0 || *p != ')')
                return tmsp_fail(err, errlen, EINVAL, "CPU counts '%s': bad repeat count",
                                 spec);
            p++;
        }
        if (rep > nnodes - k)
            return tmsp_fail(err, errlen, EINVAL, "CPU counts '%s' name more than %d nodes",
                             spec, nnodes);
        for (long r = 0; r < rep; r++)
            cpus[k++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p)
            return tmsp_fail(err, errlen, EINVAL, "CPU counts '%s': unexpected '%c'", spec,
                             *p);
    }
    if (k != nnodes)
        return tmsp_fail(err, errlen, EINVAL,
                         "CPU counts '%s' name %d nodes, the allocation has %d", spec, k,
                         nnodes);
    return 0;
}

/* Tasks after Slurm's pass j of the capped cyclic count: node i has
 * min(cap[i], j). */
static long filled(const int *cap, long nn, long j)
{
    long f = 0;
    for (long i = 0; i < nn; i++)
        f += cap[i] < j ? cap[i] : j;
    return f;
}

int tmsp_slurm_layout(const struct topomap_srun *o, int nalloc, const int *cpus, int *nstep,
                      int *tasks, char *err, size_t errlen)
{
    long cpt = o->cpus_per_task > 0 ? o->cpus_per_task : 1;
    long nn = o->nnodes > 0 ? o->nnodes : nalloc;
    if (nn > nalloc)
        return tmsp_fail(err, errlen, EINVAL, "%ld nodes asked, the allocation has %d", nn,
                         nalloc);
    /* srun's task count: -n (or SLURM_NTASKS, in o->ntasks), else
     * --ntasks-per-node on every node, else one task per node. */
    long nt = o->ntasks;
    /* 23.11+: SLURM_NTASKS gives way to --ntasks-per-node x a -N from the
     * command line (release.c). */
    if (o->rel && o->rel->ntasks_env_reset && o->ntasks_env && o->ntasks_per_node > 0 &&
        o->nnodes > 0 && !o->nnodes_env)
        nt = -1;
    if (nt <= 0)
        nt = o->ntasks_per_node > 0 ? o->ntasks_per_node * nn : nn;
    /* Found by tests/fuzz/fuzz_srun: -n 2000000000 -O took minutes here, in
     * srun. No profile has that many ranks: decline before the loop. */
    if (nt > TOPOMAP_MAX_RANKS)
        return tmsp_fail(err, errlen, EINVAL, "%ld tasks: over topomap's limit of %d ranks",
                         nt, TOPOMAP_MAX_RANKS);
    if (nt < nn)
        nn = nt; /* srun: "can't run N processes on M nodes, setting nnodes to N" */
    if (o->rel && o->rel->step_cursor && nn < nalloc)
        return tmsp_fail(err, errlen, ENOTSUP,
                         "Slurm %s picks the nodes of a step on %ld of its allocation's %d "
                         "nodes after those of the job's previous step, which srun cannot "
                         "know",
                         o->rel->name, nn, nalloc);
    /* 26.05: the tasks go to the nodes in the order of their topology
     * ranks, which only slurmctld knows (release.c). */
    if (o->rel && o->rel->topo_order && nn > 1 && o->task_order != TOPOMAP_ORDER_NODES)
        return tmsp_fail(err, errlen, ENOTSUP,
                         o->task_order == TOPOMAP_ORDER_TOPOLOGY
                                   ? "Slurm %s gives out a step's tasks in the order of its nodes' "
                                     "topology ranks, which srun cannot know "
                                     "(SelectTypeParameters=CR_NO_DIST_TOPO_BLOCK turns that off)"
                                   : "Slurm %s may give out a step's tasks in the order of its "
                                     "nodes' topology ranks, and slurm.conf cannot be read to "
                                     "tell",
                         o->rel->name);
    /* Without -O, Slurm refuses a step needing more CPUs than the nodes
     * have ("More processors requested than permitted"): the total, not per
     * node (5 tasks of 3 CPUs run on 4 nodes of 4 CPUs, two on the first). */
    long total = 0;
    for (long i = 0; i < nn; i++)
        total += cpus[i];
    if (!o->overcommit && nt * cpt > total)
        return tmsp_fail(err, errlen, EINVAL,
                         "%ld tasks of %ld CPUs do not fit in the %ld CPUs of %ld nodes "
                         "without --overcommit",
                         nt, cpt, total, nn);
    /* Up to 23.11 srun keeps --ntasks-per-node only when it is the task
     * count divided by the node count, integer division ("can't honor
     * --ntasks-per-node ... Ignoring" otherwise): -n5 -N2
     * --ntasks-per-node=2 keeps it. 24.05+ drop it only when the tasks do
     * not fit in nodes x it (release.c, tpn_max). */
    long tpn = o->ntasks_per_node;
    if (tpn > 0 && (o->rel && o->rel->tpn_max ? nt > tpn * nn : tpn != nt / nn))
        tpn = -1;
    /* Under --overcommit 22.05's layout counts one CPU per task, whatever -c
     * says (-n12 -O -c2 on 4,4,1,1 CPUs is 5,5,1,1); 24.05's and later count
     * -c (4,4,2,2; release.c). */
    long lcpt = o->overcommit && !(o->rel && o->rel->overcommit_cpt) ? 1 : cpt;
    int *cap = malloc((size_t)nalloc * sizeof *cap);
    if (!cap)
        return tmsp_fail(err, errlen, ENOMEM, "out of memory");
    /* Slurm 22.05 src/common/slurm_step_layout.c, _init_task_layout: a node
     * holds CPUs / CPUs per task tasks, at least 1; --ntasks-per-node caps it
     * at ntasks_per_node x CPUs per task (Slurm's own units, kept as they
     * are). */
    long maxcap = 0;
    for (int i = 0; i < nalloc; i++) {
        tasks[i] = 0;
        long c = cpus[i] / lcpt;
        if (c < 1)
            c = 1;
        if (tpn > 0 && c > tpn * lcpt)
            c = tpn * lcpt;
        cap[i] = (int)c;
        if (i < nn && c > maxcap)
            maxcap = c;
    }
    /* _task_layout_block without CR_PACK_NODES: count tasks per node as a
     * cyclic distribution would (pass j gives one task to each node, in
     * order, whose cap is above j), then, once no node has room, one task
     * per node per pass (oversubscription); ranks are given out in blocks.
     * Computed in closed form: the last pass j that completes, then the
     * nodes of the cut pass in order, then the oversubscription. */
    long capacity = filled(cap, nn, maxcap);
    if (nt <= capacity) {
        long lo = 0, hi = maxcap; /* the largest j with filled(j) <= nt */
        while (lo < hi) {
            long mid = lo + (hi - lo + 1) / 2;
            if (filled(cap, nn, mid) <= nt)
                lo = mid;
            else
                hi = mid - 1;
        }
        long left = nt - filled(cap, nn, lo);
        for (long i = 0; i < nn; i++) {
            tasks[i] = (int)(cap[i] < lo ? cap[i] : lo);
            if (left > 0 && cap[i] > lo) {
                tasks[i]++;
                left--;
            }
        }
    } else {
        long rest = nt - capacity;
        for (long i = 0; i < nn; i++)
            tasks[i] = (int)(cap[i] + rest / nn + (i < rest % nn));
    }
    free(cap);
    *nstep = (int)nn;
    return 0;
}
