/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to topomap.so: what the SPANK entry points (topomap.c) call on
 * each side. Hidden: a plugin's symbols share slurmstepd's and srun's name
 * space. */
#ifndef TOPOMAP_SPANK_PLUGIN_H
#define TOPOMAP_SPANK_PLUGIN_H

#include <stdint.h>

#include <slurm/spank.h>

#include "policy.h"

#pragma GCC visibility push(hidden)

/** The site's plugstack.conf arguments (topomap.c, read once per process). */
extern struct topomap_site tmsp_site;

/* srun (plugin_srun.c) */
/** Decide and act on srun's command line and environment; -1 only when the
 *  step must fail (strict=1). */
int tmsp_place(spank_t sp);
/** srun has read the hostfile: close it, unset SLURM_HOSTFILE. */
void tmsp_hostfile_read(void);
/** Close the hostfile and free the decision. */
void tmsp_srun_exit(void);

/* slurmstepd, the placed step (plugin_step.c) */
/** A variable of the job's environment, not copied; NULL when unset. */
const char *tmsp_job_env(spank_t sp, const char *name);
/** 1 for a step srun started (not the batch, extern or interactive step). */
int tmsp_srun_step(uint32_t step);
/** 1 when global task 0 of the step runs on this node. */
int tmsp_task0_here(spank_t sp);
/** slurm_spank_init: the decision into slurmd's log, the PMI2 mapping. */
void tmsp_step_init(spank_t sp);
/** slurm_spank_user_init: every local task's CPU set and GPU. */
void tmsp_step_prepare(spank_t sp);
/** In task @p l (UINT32_MAX: unknown), @p task0 when it is global task 0:
 *  problems told, GPU variables set, the task bound (exits under strict=1
 *  when it cannot be). */
void tmsp_step_task(spank_t sp, uint32_t l, int task0);
/** Free the per-task sets, forget the problems. */
void tmsp_step_exit(void);

/* slurmstepd, --topomap-record (plugin_record.c) */
/** slurm_spank_init (root): the recording directory, the profiler preloaded. */
void tmsp_record_init(spank_t sp);
/** The --topomap-record option reached this node. */
void tmsp_record_option(void);
/** slurm_spank_user_init: the option arrived without srun's environment. */
void tmsp_record_check(void);
/** Global task 0 tells the recording's problem, if any. */
void tmsp_record_tell(void);
/** A task ended: when it is global task 0, store the profile. */
void tmsp_record_task_exit(spank_t sp);
/** Remove this node's recording directory, forget the step. */
void tmsp_record_exit(void);

#pragma GCC visibility pop

#endif
