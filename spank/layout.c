/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm 22.05's default task layout, predicted from the allocation and srun's
 * options (see policy.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "common.h"

int topomap_cpus_per_node(const char *spec, int nnodes, int *cpus, char *err, size_t errlen)
{
    if (!spec || !*spec)
        return topomap_sp_fail(err, errlen, EINVAL, "no CPU counts (SLURM_JOB_CPUS_PER_NODE)");
    int k = 0;
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        long c = strtol(p, &end, 10);
        if (end == p || errno || c <= 0 || c > INT_MAX || *p == '-' || *p == '+')
            return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s': bad count at '%s'", spec, p);
        long rep = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s': expected '(xN)'", spec);
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep <= 0)
                return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s': bad repeat count", spec);
            p = end + 1;
        }
        if (rep > nnodes - k)
            return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s' name more than %d nodes", spec,
                        nnodes);
        for (long r = 0; r < rep; r++)
            cpus[k++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p)
            return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s': unexpected '%c'", spec, *p);
    }
    if (k != nnodes)
        return topomap_sp_fail(err, errlen, EINVAL, "CPU counts '%s' name %d nodes, the allocation has %d",
                    spec, k, nnodes);
    return 0;
}

int topomap_slurm_layout(const struct topomap_srun *o, int nalloc, const int *cpus, int *nstep,
                         int *tasks, char *err, size_t errlen)
{
    long cpt = o->cpus_per_task > 0 ? o->cpus_per_task : 1;
    long nn = o->nnodes > 0 ? o->nnodes : nalloc;
    if (nn > nalloc)
        return topomap_sp_fail(err, errlen, EINVAL, "%ld nodes asked, the allocation has %d", nn, nalloc);
    long nt = o->ntasks;
    if (nt <= 0) {
        if (o->ntasks_per_node > 0 && o->nnodes > 0)
            return topomap_sp_fail(err, errlen, EINVAL,
                        "-N with --ntasks-per-node and no -n: give the task count with -n");
        nt = o->ntasks_per_node > 0 ? o->ntasks_per_node * nn : nn;
    }
    if (nt < nn)
        nn = nt; /* srun: "can't run N processes on M nodes, setting nnodes to N" */
    int *cap = malloc((size_t)nalloc * sizeof *cap);
    if (!cap)
        return topomap_sp_fail(err, errlen, ENOMEM, "out of memory");
    for (int i = 0; i < nalloc; i++) {
        tasks[i] = 0;
        cap[i] = (int)(cpus[i] / cpt);
        /* --ntasks-per-node is honoured only when it matches -n (srun warns
         * and ignores it otherwise). */
        if (o->ntasks_per_node > 0 && o->ntasks_per_node * nn == nt && cap[i] > o->ntasks_per_node)
            cap[i] = (int)o->ntasks_per_node;
    }
    /* Slurm 22.05 src/common/slurm_step_layout.c, _task_layout_block: count
     * tasks per node as a cyclic distribution would, capped by each node's
     * CPUs; once no node has room, spread the rest evenly (only -O gets
     * there: srun refuses otherwise). */
    long placed = 0;
    int over = 0;
    for (long j = 0; placed < nt; j++) {
        int room = 0;
        for (long i = 0; i < nn && placed < nt; i++) {
            if (j < cap[i] || over) {
                tasks[i]++;
                placed++;
                if (j + 1 < cap[i])
                    room = 1;
            }
        }
        if (!room && placed < nt) {
            if (!o->overcommit) {
                free(cap);
                return topomap_sp_fail(err, errlen, EINVAL,
                            "%ld tasks do not fit on %ld nodes without --overcommit", nt, nn);
            }
            over = 1;
        }
    }
    free(cap);
    for (long i = 0; i < nn; i++)
        if (tasks[i] == 0)
            return topomap_sp_fail(err, errlen, EINVAL, "node %ld of the step would get no task", i);
    *nstep = (int)nn;
    return 0;
}
