/* SPDX-License-Identifier: BSD-3-Clause */
/* The Slurm-free part of the SPANK plugin, one file per concern, all declared
 * here: plugstack.conf arguments (site.c), the srun command line (srun.c)
 * and the launchers in it and in its scripts (launcher.c, launcher_script.c),
 * Slurm's default task layout (layout.c), the placement decision (decide.c),
 * the Slurm releases (release.c) and 26.05's task order (order.c), the
 * binding codec and CPU sets (bind.c), the PMI2 mapping (pmi2.c) and
 * recording (record.c); private helpers in common.c. spank/topomap.c and
 * its plugin_*.c are the only files that see <slurm/spank.h>; each file
 * here is unit-tested without Slurm by tests/spank_FILE.c.
 *
 * How a placement travels (see also spank/topomap.c):
 *  - srun (local context) decides, writes a hostfile and sets SLURM_HOSTFILE
 *    (Slurm then lays the step out rank by rank), and sets two variables that
 *    srun forwards to every node in the step's environment:
 *      TOPOMAP_BIND="1:CPT:LIST"  for every rank, the index of its core among
 *                                 the cores Slurm gives the step on its node
 *                                 (ranks' cores renumbered 0..k-1 per node in
 *                                 the order the algorithm chose them); LIST is
 *                                 comma-separated "X", "X-Y" (X, X+1 .. Y) and
 *                                 "XxK" (X repeated K times) items, rank order;
 *                                 CPT is the CPUs per task (cores per rank).
 *      TOPOMAP_PMI2_MAPPING       the PMI2 process mapping of the new layout
 *                                 "(vector,(node,count,size),...)", or empty
 *                                 when it does not fit in PMI2's 1024-byte
 *                                 values (the nodes then warn, see below).
 *  - slurmstepd (remote context) replaces Slurm's SLURM_PMI2_PROC_MAPPING with
 *    TOPOMAP_PMI2_MAPPING (Slurm's pmi2 plugin publishes "every rank on its own
 *    node" for arbitrary layouts, which makes MPICH give up shared memory);
 *    when the step uses pmi2 and the mapping was too long, rank 0 prints one
 *    "topomap:" warning (the srun side cannot know the MPI type: MpiDefault),
 *    turns each rank's core index into a CPU set with hwloc, and binds each
 *    task with sched_setaffinity() in slurm_spank_task_init.
 */
#ifndef TOPOMAP_SPANK_POLICY_H
#define TOPOMAP_SPANK_POLICY_H

#include <stddef.h>
#include <sys/types.h>

#include <hwloc.h>

#include "topomap.h"

/** Names of the variables passed from srun to the compute nodes. */
#define TOPOMAP_ENV_BIND "TOPOMAP_BIND"
/** Each rank's slot on its node, the GPU number on GPU nodes (gpu_bind=yes),
 *  in TOPOMAP_BIND's format. */
#define TOPOMAP_ENV_GPU "TOPOMAP_GPU"
/** What the plugin sets in a task bound to a GPU: the NIC near it. */
#define TOPOMAP_ENV_GPU_NIC "TOPOMAP_GPU_NIC"
#define TOPOMAP_ENV_PMI2 "TOPOMAP_PMI2_MAPPING"
/** The decision, passed by srun to the nodes, where the slurmstepd of global
 *  task 0 writes it to the slurmd log: one line per step for the admin
 *  (SLURM_-prefixed so that srun --export=NONE passes it too). */
#define TOPOMAP_ENV_LOG "SLURM_TOPOMAP_LOG"
/** Set by srun when it runs itself again without -N (release.c,
 *  nodes_vs_hostfile): the hostfile already written, which the second srun
 *  takes over instead of deciding again. */
#define TOPOMAP_ENV_REEXEC "TOPOMAP_REEXEC"
/** Set by srun when the step must fail (strict=1): Slurm ignores the return
 *  code of a plugin loaded as "optional", so every task of the step exits
 *  with status 1 before exec instead (what slurmstepd itself does when a
 *  "required" plugin's task_init fails). SLURM_-prefixed so that it also
 *  reaches the nodes under srun --export=NONE. */
#define TOPOMAP_ENV_FAIL "SLURM_TOPOMAP_FAIL"
/** Slurm's variable read by its pmi2 plugin in slurmstepd. */
#define TOPOMAP_ENV_SLURM_PMI2 "SLURM_PMI2_PROC_MAPPING"
/** Longest PMI2 mapping handed over (MPICH's PMI2_MAX_VALLEN is 1024). */
#define TOPOMAP_PMI2_MAXLEN 1000

/* ------------------------------------------------------------------------ */
/* Site policy: plugstack.conf arguments                                      */
/* ------------------------------------------------------------------------ */

struct topomap_site {
    char *topology;    /* topology= site YAML, Slurm's topology.conf or topology.yaml,
                        * or "slurm": the file the cluster's slurm.conf uses
                        * (topomap_slurm_topology_path); NULL: none */
    char *topology_name; /* topology_name= one topology of a Slurm topology.yaml;
                          * NULL: its default */
    char *profiles;    /* profiles= store directory; NULL: topomap_store_dir(NULL) */
    char *dflt;        /* default= algorithm when the user gives none; "off" */
    double min_gain;   /* min_gain= fraction of gain_metric saved to remap; 0 */
    int gain_congestion; /* gain_metric=congestion (1): min_gain compares the
                          * busiest link (congestion_max), and the placement
                          * minimises it (objective congestion, see
                          * tmsp_site_opts); hop_bytes (0, default) */
    double time_limit; /* time_limit= milliseconds for the whole decision; 2000 */
    int bind;          /* bind=cores (1, default) or none (0) */
    int strict;        /* strict=1: failures fail the step; 0 */
    int threads;       /* threads= threads of the decision, 1..TOPOMAP_MAX_THREADS;
                        * 0 (auto, default): tmsp_auto_threads() */
    int gpu_bind;      /* gpu_bind=yes (1): on GPU nodes, each task its GPU, the
                        * cores and NIC near it (gpu.c); no (0, default) */
    char *profiler;    /* profiler= libtopomap-profiler.so to preload for
                        * --topomap-record; NULL: the installed one */
    char *spool;       /* spool= node-local directory for recordings in
                        * progress; NULL: TOPOMAP_SPOOL_DEFAULT */
};

/** slurm.conf when srun's environment has no SLURM_CONF (topology=slurm):
 *  where Slurm's packages of Debian and RHEL put it. */
#define TOPOMAP_SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"
/** slurm.conf on a configless cluster, where slurmd and sackd keep the
 *  controller's configuration files (tmsp_slurm_conf()). */
#define TOPOMAP_SLURM_CONF_CACHED "/run/slurm/conf/slurm.conf"

/** Where recordings in progress go when plugstack.conf has no spool=. */
#define TOPOMAP_SPOOL_DEFAULT "/tmp"

/** Defaults as documented above. */
void tmsp_site_init(struct topomap_site *s);
/**
 * Apply whitespace-free key=value tokens (plugstack.conf arguments). A bad
 * token (unknown key, bad value, no '=') is skipped and the others still
 * apply. @return the number of bad tokens; the problems, joined by "; ", are in
 * @p err (one line).
 */
int tmsp_site_parse(struct topomap_site *s, int argc, char *const *argv, char *err,
                    size_t errlen);
void tmsp_site_free(struct topomap_site *s);
/* The library options the site's keys choose, set in o (initialised by the
 * caller): the objective of gain_metric, the threads of threads=. */
void tmsp_site_opts(const struct topomap_site *s, topomap_opts_t *o);

/* ------------------------------------------------------------------------ */
/* What srun was asked                                                        */
/* ------------------------------------------------------------------------ */

/** A getenv-like lookup, so that tests can give a fake environment. */
typedef const char *(*topomap_getenv_fn)(const char *name, void *arg);

/** slurm.conf as Slurm's own commands find it (src/common/read_config.c,
 *  _establish_config_source, at slurm-22-05-11-1 and slurm-26-05-3-1 alike):
 *  $SLURM_CONF; else @p deflt when it exists; else @p cached when it exists
 *  (a configless cluster: slurmd and sackd write the controller's files,
 *  topology.conf and topology.yaml among them, to /run/slurm/conf); else
 *  @p deflt, for the error message. Valid while the environment and the
 *  arguments are. */
const char *tmsp_slurm_conf_in(topomap_getenv_fn env, void *arg, const char *deflt,
                               const char *cached);
/** tmsp_slurm_conf_in() with TOPOMAP_SLURM_CONF_DEFAULT and
 *  TOPOMAP_SLURM_CONF_CACHED. */
const char *tmsp_slurm_conf(topomap_getenv_fn env, void *arg);

/* ------------------------------------------------------------------------ */
/* The Slurm releases the plugin knows (release.c)                            */
/* ------------------------------------------------------------------------ */

/** What differs between the Slurm releases the plugin knows, for the layout
 *  prediction and srun's command line (release.c says where each rule is in
 *  Slurm's source). 0 is the oldest behaviour (22.05's). */
struct topomap_release {
    int version;              /* major * 100 + minor: 2205, 2411 */
    const char *name;         /* "22.05" */
    const char *cpt_env;      /* the variable srun reads for -c */
    int ntasks_env_reset;     /* SLURM_NTASKS dropped by --ntasks-per-node + -N */
    int nodes_vs_hostfile;    /* srun refuses -N with SLURM_HOSTFILE */
    int tpn_max;              /* --ntasks-per-node dropped only when the tasks
                               * exceed nodes x it (else: unless tasks / nodes) */
    int overcommit_cpt;       /* -O tasks count -c CPUs in the layout (else 1) */
    int step_cursor;          /* a step on part of its allocation starts after
                               * the job's previous step: unpredictable */
    int topo_order;           /* tasks given out in the order of the nodes'
                               * topology ranks (o->task_order says whether
                               * the cluster ranks them) */
};

/** The release @p major.@p minor, or NULL when the plugin does not know it. */
const struct topomap_release *tmsp_release_find(int major, int minor);
/** 22.05's rules: what tmsp_srun_init() starts with. */
const struct topomap_release *tmsp_release_default(void);
/** The known releases, "22.05, 23.02, ..., 26.05" (static string). */
const char *tmsp_release_list(void);
/** Why a release without a row (@p seen, "27.05"; "" or NULL: Slurm did not
 *  say) is declined, one line into @p why: newer than the newest row, older
 *  than the oldest, or between them. */
void tmsp_release_unknown(const char *seen, char *why, size_t len);

/** Slurm's order for a step's tasks on releases with rel->topo_order. */
enum topomap_task_order {
    TOPOMAP_ORDER_UNKNOWN = -1, /* slurm.conf unreadable */
    TOPOMAP_ORDER_NODES = 0,    /* the allocation's node order (block) */
    TOPOMAP_ORDER_TOPOLOGY = 1  /* the nodes' topology ranks first */
};
/**
 * Whether the cluster of @p slurm_conf has Slurm 26.05 give out a step's
 * tasks by its nodes' topology ranks (release.c, topo_order): not under
 * SelectTypeParameters=...,CR_NO_DIST_TOPO_BLOCK, nor with topology/flat and
 * no topology.yaml (flat ranks nothing); else yes (tree, block, ring,
 * torus3d, or a topology.yaml, whose topologies may be any of them). Only
 * slurm.conf itself is read, as topomap_slurm_topology_path does.
 * @return an enum topomap_task_order; TOPOMAP_ORDER_UNKNOWN with errno and
 *         one line in @p err when slurm.conf cannot be read.
 */
int tmsp_slurm_task_order(const char *slurm_conf, char *err, size_t errlen);

struct topomap_srun {
    long ntasks;          /* -n, SLURM_NTASKS/SLURM_NPROCS; -1 unknown */
    long nnodes;          /* -N, SLURM_NNODES; -1 unknown */
    long cpus_per_task;   /* -c, rel->cpt_env; -1 unknown */
    long ntasks_per_node; /* --ntasks-per-node, SLURM_NTASKS_PER_NODE; -1 */
    int overcommit;       /* -O, SLURM_OVERCOMMIT */
    char *mpi;            /* --mpi, SLURM_MPI_TYPE; NULL unknown */
    char *conflict;       /* first option topomap cannot honour, e.g. "-w" */
    char *app;            /* basename of the executable; NULL if none */
    const char *launcher; /* a launcher that numbers the ranks itself
                           * (tmsp_launcher), static; NULL if none */
    char *launcher_script; /* the script file it is in; NULL if none */
    char *jobid;          /* --jobid; NULL if not given */
    uid_t uid;            /* whose profiles the store looks up first: the user
                           * running srun (getuid(), set by tmsp_srun_init) */
    /* The plugin's own options: command line first, then the environment
     * variables sbatch/salloc export for their SPANK options. */
    char *algo;           /* --topomap */
    char *profile;        /* --topomap-profile */
    int verbose;          /* --topomap-verbose */
    char *record;         /* --topomap-record[=NAME]: NULL not asked, "" asked
                           * without a name, else NAME */
    /* Where the counts came from, for the release's rules. */
    int ntasks_env;       /* ntasks from SLURM_NTASKS/SLURM_NPROCS, not -n */
    int nnodes_env;       /* nnodes from SLURM_NNODES, not -N */
    /* The Slurm release srun is: its rules for the command line and the
     * layout. Set before tmsp_srun_parse(); tmsp_srun_init() sets
     * tmsp_release_default(). */
    const struct topomap_release *rel;
    char release_seen[16]; /* "27.05" when srun's release has no row (rel
                            * NULL): tmsp_decide() declines with it */
    int task_order;        /* enum topomap_task_order, for rel->topo_order:
                            * tmsp_decide() reads it from slurm.conf;
                            * tmsp_srun_init() sets TOPOMAP_ORDER_NODES */
};

void tmsp_srun_init(struct topomap_srun *o);
void tmsp_srun_free(struct topomap_srun *o);
/**
 * Read srun's command line @p argv (argv[0] is "srun") up to the executable,
 * then fill what it did not say from the environment (-c from o->rel's
 * variable: SRUN_CPUS_PER_TASK on 22.05). Options topomap cannot
 * honour (-w, -x, -m, -r, --exact, heterogeneous steps, ...) set o->conflict.
 * @return 0, or -1 with errno EINVAL and a message (a bad -n/-N/-c value, an
 *         option missing its argument).
 */
int tmsp_srun_parse(struct topomap_srun *o, int argc, char *const *argv,
                    topomap_getenv_fn env, void *env_arg, char *err, size_t errlen);

/**
 * The value of --topomap: "ALGO[,verbose][,profile=NAME]", ALGO an algorithm
 * of libtopomap, "off" or "help". Sets o->algo (and o->verbose, o->profile).
 * @return 0, or -1 with errno EINVAL and one line in @p err naming the value
 *         and the valid names (what srun, sbatch and salloc reject the option
 *         with, before anything runs).
 */
int tmsp_algo_arg(struct topomap_srun *o, const char *val, char *err, size_t errlen);

/**
 * srun's command line @p argv without its -N/--nodes options (and their
 * values; "-lN2" becomes "-l"): what the plugin runs srun again with on
 * releases that refuse -N beside a hostfile (o->rel->nodes_vs_hostfile), where
 * the hostfile gives the nodes. Everything from the executable on is kept as
 * it is. @return a malloc'ed NULL-terminated array whose strings are @p argv's
 * or copies in the same block (free the array only, while @p argv lives), or
 * NULL (ENOMEM).
 */
char **tmsp_srun_strip_nodes(int argc, char *const *argv);

/**
 * The launcher the step's command @p argv (argv[0] the executable, as srun
 * runs it) starts when it is one that numbers the ranks itself: torchrun,
 * python -m torch.distributed.run or .launch, accelerate launch, deepspeed,
 * also behind env, apptainer/singularity exec and similar wrappers, in a
 * shell's -c script, and in the script file srun runs (argv[0] a shell script:
 * its first line "#!" names sh, bash, dash, zsh or ksh) or gives a shell
 * (bash train.sh), of which the first 64 KiB are read, comments left out
 * (launcher.c, launcher_script.c). Each srun task is then an agent starting
 * the node's workers, which its rendezvous numbers: srun's task placement
 * does not reach them. @return a static name for the user's message, or NULL;
 * *@p script (when @p script is not NULL) is then the element of @p argv
 * naming the script file the launcher is in, or NULL.
 */
const char *tmsp_launcher(int argc, char *const *argv, const char **script);

/** Name of the environment variable sbatch/salloc use for option @p opt
 *  (e.g. "topomap-profile") of the plugin "topomap". Static buffer. */
const char *tmsp_spank_option_env(const char *opt);

/* ------------------------------------------------------------------------ */
/* Slurm's default layout                                                     */
/* ------------------------------------------------------------------------ */

/**
 * Expand Slurm's SLURM_JOB_CPUS_PER_NODE ("4(x3),2") into @p cpus for
 * @p nnodes nodes. @return 0, or -1 with errno EINVAL (syntax, count mismatch).
 */
int tmsp_cpus_per_node(const char *spec, int nnodes, int *cpus, char *err, size_t errlen);

/**
 * The number of tasks srun's default block distribution puts on each node of
 * an allocation of @p nalloc nodes with @p cpus CPUs each, as Slurm does (src/common/slurm_step_layout.c, _task_layout_block without
 * CR_PACK_NODES; srun's option rules): the task count is -n (or
 * SLURM_NTASKS), else --ntasks-per-node on each node, else one per node; the
 * step uses the first *@p nstep nodes, *@p nstep set from -N (default: all)
 * and lowered to the task count; a node holds CPUs / CPUs per task tasks (at
 * least 1; one CPU per task under -O), capped by --ntasks-per-node when srun
 * keeps it (it equals tasks / nodes); tasks per node are counted as a cyclic
 * distribution would until no node has room, then one per node per pass;
 * ranks are given out in blocks. tests/slurm_layout.sh checks this against
 * Slurm on the local cluster. @p tasks gets @p nalloc entries (0 after the
 * step's nodes).
 * o->rel's rules apply (release.c): SLURM_NTASKS dropped for
 * --ntasks-per-node x -N, when srun keeps --ntasks-per-node, CPUs per task
 * under -O; from 24.11 a step on fewer nodes than the allocation is not
 * predicted, nor on 26.05 a step on several nodes whose tasks Slurm orders
 * by topology (o->task_order not TOPOMAP_ORDER_NODES).
 * @return 0, or -1 with errno EINVAL and a message when srun itself would
 *         refuse (more nodes than allocated, more CPUs than the nodes have
 *         without -O), ENOTSUP when the release makes the layout from what
 *         srun cannot know (the job's earlier steps).
 */
int tmsp_slurm_layout(const struct topomap_srun *o, int nalloc, const int *cpus, int *nstep,
                      int *tasks, char *err, size_t errlen);

/* ------------------------------------------------------------------------ */
/* The placement decision (srun side)                                         */
/* ------------------------------------------------------------------------ */

enum topomap_outcome {
    TOPOMAP_OFF = 0,   /* nothing asked: Slurm's layout, no message */
    TOPOMAP_KEEP,      /* Slurm's layout; message says why (may be empty) */
    TOPOMAP_REMAP,     /* new layout: hostfile and variables below */
    TOPOMAP_FAIL       /* strict=1 and something failed: fail the step */
};

struct topomap_decision {
    int outcome;        /* enum topomap_outcome */
    int explicit_req;   /* the user asked (--topomap), not the site default */
    char message[1024]; /* one "topomap: ..." line for the user, or "" */
    char summary[1024]; /* the --topomap-verbose line, or "" */
    char log[1024];     /* the decision for the admin's log (slurmd's, through
                         * TOPOMAP_ENV_LOG), without "topomap: "; "" when the
                         * step asked nothing (OFF) */
    char note[512];     /* --topomap-verbose: how the profile was obtained when
                         * it was synthesised for another rank count, or "" */
    int nranks;
    char **hosts;       /* REMAP: hostname of each rank (hostfile lines) */
    char *bind;         /* REMAP: TOPOMAP_BIND value, NULL when bind=none */
    char *gpu;          /* REMAP: TOPOMAP_GPU value, NULL unless gpu_bind=yes and
                         * every node of the step has GPUs */
    char *pmi2;         /* REMAP: TOPOMAP_PMI2_MAPPING value, NULL if longer than
                         * TOPOMAP_PMI2_MAXLEN (srun then passes it empty) */
    /* For --topomap-verbose and the tests. */
    char *algo;
    double hop_bytes_default, hop_bytes_new, seconds;
};

/**
 * Decide the placement of a step: which algorithm (user's, else site default),
 * which profile (--topomap-profile, a path when it contains '/', else a name in
 * the store: o->uid's own, else the site's, topomap_store_find(); default the
 * executable's name), the allocation from
 * SLURM_JOB_NODELIST / SLURM_JOB_CPUS_PER_NODE in @p env, Slurm's default
 * layout's task counts per node (kept: only which rank goes where changes),
 * then the mapping within site->time_limit and the min_gain test against the
 * default layout. Never fails: problems end in KEEP with a message (only when
 * the user asked or verbose is on), or FAIL under strict=1.
 * Free with tmsp_decision_free().
 */
void tmsp_decide(const struct topomap_site *site, const struct topomap_srun *o,
                 topomap_getenv_fn env, void *env_arg, struct topomap_decision *d);
void tmsp_decision_free(struct topomap_decision *d);
/* How many store lookups tmsp_decide() left behind at its deadline are
 * still reading (each frees what it read when its reads end). For tests,
 * which wait for 0 before they exit so that nothing is still allocated. */
int tmsp_lookups_left(void);

/* ------------------------------------------------------------------------ */
/* Formats passed to the compute nodes                                        */
/* ------------------------------------------------------------------------ */

/** TOPOMAP_BIND value for @p n ranks. @return malloc'ed string or NULL (ENOMEM). */
char *tmsp_bind_encode(const int *core, int n, int cpt);
/**
 * Parse a TOPOMAP_BIND value for a step of @p n ranks into @p core[n] and
 * *@p cpt. @return 0, or -1 with errno EINVAL (bad syntax, wrong count).
 */
int tmsp_bind_decode(const char *s, int n, int *core, int *cpt);

/**
 * The PMI2 process mapping "(vector,(start,count,size),...)" of rank -> node
 * index @p node[n]: runs of consecutive ranks on one node, runs of equal size
 * on consecutive nodes merged. @return a malloc'ed string, or NULL with errno
 * E2BIG when longer than @p maxlen, ENOMEM.
 */
char *tmsp_pmi2_mapping(const int *node, int n, size_t maxlen);

/**
 * Parse a Slurm/Linux CPU list ("0-3,8,10-11") into @p ids (at most @p max,
 * ascending as written). @return the count, or -1 with errno EINVAL / E2BIG.
 */
int tmsp_cpulist_parse(const char *s, int *ids, int max);

/**
 * The CPUs a task with core index @p k (from TOPOMAP_BIND) is bound to: the
 * cores @p alloc[k*cpt .. k*cpt+cpt-1], where @p alloc lists the @p nalloc
 * cores Slurm gave the step on this node (Slurm's core numbers, which are
 * hwloc's logical core indices; NULL: all cores of the node in order), each
 * core with all its hardware threads, written into @p set.
 * @return 0, or -1 with errno ERANGE when the index is past the step's cores
 *         or a core is past the node's (message in @p err).
 */
int tmsp_bind_cpuset(hwloc_topology_t topo, const int *alloc, int nalloc, int k, int cpt,
                     hwloc_bitmap_t set, char *err, size_t errlen);

/* ------------------------------------------------------------------------ */
/* GPU binding (gpu.c, gpu_bind=yes)                                          */
/* ------------------------------------------------------------------------ */

/** 1 when the step has GPUs from Slurm (SLURM_STEP_GPUS, SLURM_JOB_GPUS or a
 *  non-zero SLURM_GPUS_ON_NODE in its environment): only such steps are
 *  bound to GPUs; the others keep the core binding. */
int tmsp_gpu_step(topomap_getenv_fn env, void *arg);
/** The variable that selects a GPU of @p vendor (TOPOMAP_GPU_*): CUDA_VISIBLE_DEVICES,
 *  ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK; NULL for another number. */
const char *tmsp_gpu_var(int vendor);
/** Room for a GPU as Slurm names it: a number, or (Slurm 26.05, gres.conf
 *  Flags=env_uuid; MIG devices always) a UUID such as
 *  GPU-8932f937-d72c-4106-c12f-20bd9faed9f6 or MIG-<uuid>. */
#define TOPOMAP_GPU_DEV_LEN 128
/** What a task on GPU @p gpu of topology node @p node gets. */
struct tmsp_gpu_task {
    char var[32];   /**< the vendor's variable */
    char dev[TOPOMAP_GPU_DEV_LEN]; /**< its value: the GPU as the runtime will know it (the
                                        entry of Slurm's list, number or UUID) */
    char cpus[256]; /**< the cores near the GPU (a CPU list of node core numbers) */
    char nic[128];  /**< the NIC near it, "" when the topology names none */
};
/**
 * Fill @p out for the task on GPU @p gpu of @p node. When the step's
 * environment (@p env) already holds the vendor's variable as a list (Slurm's
 * gres/gpu), the GPU is its @p gpu-th entry, kept as Slurm wrote it (an index,
 * or a UUID with gres.conf Flags=env_uuid); else the number @p gpu.
 * @return 0, or -1 with errno EINVAL (not a GPU of the node, or an entry
 *         that is no device name) or ERANGE (the step's list is shorter) and
 *         a message in @p err.
 */
int tmsp_gpu_task(const topomap_topology_t *t, int node, int gpu, topomap_getenv_fn env,
                  void *arg, struct tmsp_gpu_task *out, char *err, size_t errlen);
/**
 * The CPU set of a task near a GPU: the cores of CPU list @p cpus (hwloc's
 * logical core numbers) that the step has here (@p alloc, @p nalloc: Slurm's
 * cores of the step; NULL: all), each with all its hardware threads.
 * @return 0, or -1 with errno ERANGE (a core past the node's, or none of them
 *         the step's) and a message in @p err.
 */
int tmsp_gpu_cpuset(hwloc_topology_t topo, const char *cpus, const int *alloc, int nalloc,
                    hwloc_bitmap_t set, char *err, size_t errlen);

/**
 * The GPU binding of the @p nlocal tasks of a step here (global ranks
 * @p gid[l]) from @p spec (TOPOMAP_GPU of the step's @p ntotal ranks): the
 * topology of @p site (loaded here), this node @p nodename in it, each
 * task's GPU variable and NIC into @p tasks[l] and, when @p sets is not NULL,
 * its CPU set into @p sets[l] (see tmsp_gpu_cpuset; @p topo is this node).
 * Nothing happens (0) without gpu_bind=yes, without @p spec, for a step
 * without GPUs (tmsp_gpu_step of @p env), or on a node without GPUs.
 * @return the number of tasks bound (@p nlocal), 0, or -1 with errno and a
 *         message in @p err (then no task is bound to a GPU).
 */
int tmsp_gpu_prepare(const struct topomap_site *site, const char *spec, int ntotal,
                     const int *gid, int nlocal, const char *nodename, topomap_getenv_fn env,
                     void *arg, hwloc_topology_t topo, const int *alloc, int nalloc,
                     struct tmsp_gpu_task *tasks, hwloc_bitmap_t *sets, char *err,
                     size_t errlen);

/* ------------------------------------------------------------------------ */
/* Recording a profile (--topomap-record[=NAME])                              */
/* ------------------------------------------------------------------------ */

/*
 * How a recording travels (see also spank/topomap.c):
 *  - srun picks the name (tmsp_record_name) and passes it to the nodes in
 *    the step's environment as TOPOMAP_RECORD=NAME (TOPOMAP_RECORD_VERBOSE=1
 *    with --topomap-verbose), beside any placement.
 *  - slurmstepd on every node of the step (slurm_spank_init, as root) creates
 *    a private directory SPOOL/topomap-record.JOB.STEP.XXXXXX owned by the
 *    job's user (tmsp_record_mkdir), keeps it open, and sets in the tasks'
 *    environment LD_PRELOAD=PROFILER[:old value] (tmsp_preload_prepend),
 *    TOPOMAP_PROFILE_OUT=DIR/profile and TOPOMAP_PROFILE_APP=NAME.
 *  - Rank 0 writes DIR/profile at MPI_Finalize (temporary file + rename, so
 *    the file is complete or absent). When global task 0 exits, the
 *    slurmstepd of its node loads the file through the directory it kept
 *    open and stores it under NAME (tmsp_record_register); every node
 *    then removes its directory (tmsp_record_cleanup).
 */

/** Variables passed from srun to the nodes (removed from the tasks' view). */
#define TOPOMAP_ENV_RECORD "TOPOMAP_RECORD"
#define TOPOMAP_ENV_RECORD_VERBOSE "TOPOMAP_RECORD_VERBOSE"
/** The file rank 0 writes inside the recording directory. */
#define TOPOMAP_RECORD_FILE "profile"

/**
 * The store name of a recording: --topomap-record's NAME, else
 * --topomap-profile's when it is a name (no '/'), else the executable's name.
 * @return 0 with the name in @p name (@p len bytes), or -1 with errno EINVAL
 *         and one "topomap: ..." line in @p msg (no name to use, or a name the
 *         store does not accept).
 */
int tmsp_record_name(const struct topomap_srun *o, char *name, size_t len, char *msg,
                     size_t msglen);

/**
 * LD_PRELOAD with @p lib in front of @p cur (NULL or "": just @p lib; @p cur
 * already starting with @p lib: unchanged). @return a malloc'ed string
 * (caller frees), or NULL with errno ENOMEM.
 */
char *tmsp_preload_prepend(const char *lib, const char *cur);

/**
 * Create the recording directory SPOOL/topomap-record.JOB.STEP.XXXXXX (mode
 * 0700, then owned by @p uid:@p gid when those differ from the caller's),
 * creating @p spool itself (mode 0755) when missing. Its path goes into
 * @p path (@p len bytes).
 * @return an O_DIRECTORY descriptor of it (caller closes, and removes it with
 *         tmsp_record_cleanup), or -1 with errno and a message in @p err.
 */
int tmsp_record_mkdir(const char *spool, unsigned long job, unsigned long step, uid_t uid,
                      gid_t gid, char *path, size_t len, char *err, size_t errlen);

/**
 * Store the profile rank 0 wrote into the recording directory @p dirfd (shown
 * as @p dirpath) as user @p uid's profile @p name in store @p store (NULL:
 * topomap_store_dir()), DIR/users/UID, given to @p uid:@p gid (see
 * topomap_store_user_add: site profiles are the admins' only).
 * The file must be a regular file (no symbolic link) owned by @p uid and hold
 * a profile of @p ntasks ranks (@p ntasks <= 0: any); it is read through
 * @p dirfd, so renaming the directory does not redirect the read. @p step
 * ("JOB.STEP") only appears in messages.
 * @return 0 with a "topomap: recorded ..." line in @p msg, or -1 with errno
 *         ENOENT (the step wrote nothing: no MPI, an abort, no MPI_Finalize),
 *         EPERM (not a regular file of @p uid), ERANGE (rank count), EINVAL
 *         (corrupt file, invalid name) or the store's errno, with one
 *         "topomap: ...; nothing recorded" line in @p msg.
 */
int tmsp_record_register(int dirfd, const char *dirpath, uid_t uid, gid_t gid, long ntasks,
                         const char *store, const char *name, const char *step, char *msg,
                         size_t msglen);

/**
 * Remove the recording directory @p dirfd (at @p dirpath) and the files in it
 * (the profile, a temporary file an interrupted write left), then close
 * @p dirfd. The path is removed only while it still names that directory.
 * @return 0, or -1 with errno and a message in @p err (something was left).
 */
int tmsp_record_cleanup(int dirfd, const char *dirpath, char *err, size_t errlen);

#endif
