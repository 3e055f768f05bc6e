/* SPDX-License-Identifier: BSD-3-Clause */
/* srun's command line and environment: what the step asks for (see policy.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

void tmsp_srun_init(struct topomap_srun *o)
{
    memset(o, 0, sizeof *o);
    o->ntasks = o->nnodes = o->cpus_per_task = o->ntasks_per_node = -1;
    o->uid = getuid();
    o->rel = tmsp_release_default();
}

void tmsp_srun_free(struct topomap_srun *o)
{
    if (!o)
        return;
    free(o->mpi);
    free(o->conflict);
    free(o->app);
    free(o->launcher_script);
    free(o->algo);
    free(o->profile);
    free(o->jobid);
    free(o->record);
    const struct topomap_release *rel = o->rel;
    memset(o, 0, sizeof *o);
    o->rel = rel;
}

/* What an option means to topomap. */
enum {
    O_NONE,      /* irrelevant */
    O_NTASKS,
    O_NODES,
    O_CPT,
    O_TPN,
    O_OVERCOMMIT,
    O_MPI,
    O_CONFLICT,  /* changes the layout in ways topomap does not model */
    O_MULTIPROG,
    O_JOBID,     /* another job: its nodes are not in our environment */
    O_ALGO,
    O_PROFILE,
    O_VERBOSE,
    O_RECORD
};
enum { A_NO, A_REQ, A_OPT };

struct srun_opt {
    const char *name; /* long name */
    char shrt;        /* short letter or 0 */
    int arg;          /* A_NO, A_REQ, A_OPT */
    int what;
};

/* srun 22.05's options (srun --help, slurm_opt.c). Only whether an option
 * takes an argument matters for most: it decides where the executable is. */
static const struct srun_opt srun_opts[] = {
    {"account", 'A', A_REQ, O_NONE},
    /* 26.05 (src/srun/opt.c at slurm-26-05-3-1, srun.1): the step is
     * queued and started later by the job's step manager, on the nodes
     * free then, after srun has returned: no layout to predict, and the
     * plugin's hostfile would be gone. */
    {"async", 0, A_NO, O_CONFLICT},
    {"acctg-freq", 0, A_REQ, O_NONE},
    {"bb", 0, A_REQ, O_NONE},
    {"bbf", 0, A_REQ, O_NONE},
    {"bcast", 0, A_OPT, O_NONE},
    {"bcast-exclude", 0, A_REQ, O_NONE},
    {"begin", 'b', A_REQ, O_NONE},
    {"cpus-per-task", 'c', A_REQ, O_CPT},
    {"comment", 0, A_REQ, O_NONE},
    {"compress", 0, A_OPT, O_NONE},
    {"container", 0, A_REQ, O_NONE},
    {"cpu-freq", 0, A_REQ, O_NONE},
    {"dependency", 'd', A_REQ, O_NONE},
    {"deadline", 0, A_REQ, O_NONE},
    {"delay-boot", 0, A_REQ, O_NONE},
    {"chdir", 'D', A_REQ, O_NONE},
    {"export", 0, A_REQ, O_NONE},
    {"error", 'e', A_REQ, O_NONE},
    {"epilog", 0, A_REQ, O_NONE},
    {"preserve-env", 'E', A_NO, O_CONFLICT},
    {"gres", 0, A_REQ, O_NONE},
    {"gres-flags", 0, A_REQ, O_NONE},
    {"hold", 'H', A_NO, O_NONE},
    {"input", 'i', A_REQ, O_NONE},
    {"immediate", 'I', A_OPT, O_NONE},
    {"jobid", 0, A_REQ, O_JOBID},
    {"job-name", 'J', A_REQ, O_NONE},
    {"no-kill", 'k', A_OPT, O_NONE},
    {"kill-on-bad-exit", 'K', A_OPT, O_NONE},
    {"label", 'l', A_NO, O_NONE},
    {"licenses", 'L', A_REQ, O_NONE},
    {"clusters", 'M', A_REQ, O_NONE},
    {"distribution", 'm', A_REQ, O_CONFLICT},
    {"mail-type", 0, A_REQ, O_NONE},
    {"mail-user", 0, A_REQ, O_NONE},
    {"mcs-label", 0, A_REQ, O_NONE},
    {"mpi", 0, A_REQ, O_MPI},
    {"multi-prog", 0, A_NO, O_MULTIPROG},
    {"ntasks", 'n', A_REQ, O_NTASKS},
    {"nice", 0, A_OPT, O_NONE},
    {"ntasks-per-node", 0, A_REQ, O_TPN},
    {"nodes", 'N', A_REQ, O_NODES},
    {"output", 'o', A_REQ, O_NONE},
    {"overcommit", 'O', A_NO, O_OVERCOMMIT},
    {"overlap", 0, A_NO, O_NONE},
    {"het-group", 0, A_REQ, O_CONFLICT},
    {"pack-group", 0, A_REQ, O_CONFLICT},
    {"partition", 'p', A_REQ, O_NONE},
    {"power", 0, A_REQ, O_NONE},
    {"priority", 0, A_REQ, O_NONE},
    {"prolog", 0, A_REQ, O_NONE},
    {"profile", 0, A_REQ, O_NONE},
    {"propagate", 0, A_OPT, O_NONE},
    {"pty", 0, A_NO, O_NONE},
    {"quit-on-interrupt", 0, A_NO, O_NONE},
    {"qos", 'q', A_REQ, O_NONE},
    {"quiet", 'Q', A_NO, O_NONE},
    {"reboot", 0, A_NO, O_NONE},
    {"relative", 'r', A_REQ, O_CONFLICT},
    {"oversubscribe", 's', A_NO, O_NONE},
    {"parsable", 0, A_NO, O_NONE}, /* 26.05, with --async */
    {"core-spec", 'S', A_REQ, O_NONE},
    {"send-libs", 0, A_OPT, O_NONE},
    {"signal", 0, A_REQ, O_NONE},
    {"slurmd-debug", 0, A_REQ, O_NONE},
    {"spread-job", 0, A_NO, O_CONFLICT},
    {"switches", 0, A_REQ, O_NONE},
    {"task-epilog", 0, A_REQ, O_NONE},
    {"task-prolog", 0, A_REQ, O_NONE},
    {"thread-spec", 0, A_REQ, O_NONE},
    {"threads", 'T', A_REQ, O_NONE},
    {"time", 't', A_REQ, O_NONE},
    {"time-min", 0, A_REQ, O_NONE},
    {"unbuffered", 'u', A_NO, O_NONE},
    {"use-min-nodes", 0, A_NO, O_CONFLICT},
    {"verbose", 'v', A_NO, O_NONE},
    {"wait", 'W', A_REQ, O_NONE},
    {"wckey", 0, A_REQ, O_NONE},
    {"disable-status", 'X', A_NO, O_NONE},
    {"cluster-constraint", 0, A_REQ, O_NONE},
    {"contiguous", 0, A_NO, O_NONE},
    {"constraint", 'C', A_REQ, O_NONE},
    {"mem", 0, A_REQ, O_NONE},
    {"mincpus", 0, A_REQ, O_NONE},
    {"reservation", 0, A_REQ, O_NONE},
    {"tmp", 0, A_REQ, O_NONE},
    {"nodelist", 'w', A_REQ, O_CONFLICT},
    {"nodefile", 0, A_REQ, O_CONFLICT},
    {"exclude", 'x', A_REQ, O_CONFLICT},
    {"no-allocate", 'Z', A_NO, O_CONFLICT},
    {"exact", 0, A_NO, O_CONFLICT},
    {"exclusive", 0, A_OPT, O_CONFLICT},
    {"mem-per-cpu", 0, A_REQ, O_NONE},
    {"resv-ports", 0, A_OPT, O_NONE},
    {"sockets-per-node", 0, A_REQ, O_NONE},
    {"cores-per-socket", 0, A_REQ, O_NONE},
    {"threads-per-core", 0, A_REQ, O_NONE},
    {"extra-node-info", 'B', A_REQ, O_NONE},
    {"ntasks-per-core", 0, A_REQ, O_CONFLICT},
    {"ntasks-per-socket", 0, A_REQ, O_CONFLICT},
    {"ntasks-per-gpu", 0, A_REQ, O_CONFLICT},
    {"cpus-per-gpu", 0, A_REQ, O_CONFLICT},
    {"gpus", 'G', A_REQ, O_CONFLICT},
    {"gpu-bind", 0, A_REQ, O_NONE},
    {"gpu-freq", 0, A_REQ, O_NONE},
    {"gpus-per-node", 0, A_REQ, O_CONFLICT},
    {"gpus-per-socket", 0, A_REQ, O_CONFLICT},
    {"gpus-per-task", 0, A_REQ, O_CONFLICT},
    {"mem-per-gpu", 0, A_REQ, O_NONE},
    {"cpu-bind", 0, A_REQ, O_NONE},
    {"cpu_bind", 0, A_REQ, O_NONE},
    {"mem-bind", 0, A_REQ, O_NONE},
    {"mem_bind", 0, A_REQ, O_NONE},
    {"hint", 0, A_REQ, O_NONE},
    {"accel-bind", 0, A_REQ, O_NONE},
    {"network", 0, A_REQ, O_NONE},
    {"tres-per-task", 0, A_REQ, O_NONE},
    {"open-mode", 0, A_REQ, O_NONE},
    {"x11", 0, A_OPT, O_NONE},
    {"uid", 0, A_REQ, O_NONE},
    {"gid", 0, A_REQ, O_NONE},
    {"get-user-env", 0, A_OPT, O_NONE},
    {"test-only", 0, A_NO, O_NONE},
    {"debugger-test", 0, A_NO, O_NONE},
    {"help", 'h', A_NO, O_NONE},
    {"usage", 0, A_NO, O_NONE},
    {"version", 'V', A_NO, O_NONE},
    /* This plugin's options (SPANK options are long-only). */
    {"topomap", 0, A_REQ, O_ALGO},
    {"topomap-profile", 0, A_REQ, O_PROFILE},
    {"topomap-verbose", 0, A_NO, O_VERBOSE},
    {"topomap-record", 0, A_OPT, O_RECORD},
};
#define NOPTS (sizeof srun_opts / sizeof srun_opts[0])

/* getopt_long's matching: an exact name, else a unique prefix. */
static const struct srun_opt *find_long(const char *name, size_t len)
{
    const struct srun_opt *hit = NULL;
    int nhit = 0;
    for (size_t i = 0; i < NOPTS; i++) {
        if (strncmp(srun_opts[i].name, name, len))
            continue;
        if (strlen(srun_opts[i].name) == len)
            return &srun_opts[i];
        hit = &srun_opts[i];
        nhit++;
    }
    return nhit == 1 ? hit : NULL;
}

static const struct srun_opt *find_short(char c)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (srun_opts[i].shrt == c)
            return &srun_opts[i];
    return NULL;
}

int tmsp_algo_arg(struct topomap_srun *o, const char *val, char *err, size_t errlen)
{
    char buf[512];
    if (!val || strlen(val) >= sizeof buf)
        return tmsp_fail(err, errlen, EINVAL, "--topomap: %s", val ? "value too long" : "no value");
    snprintf(buf, sizeof buf, "%s", val);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    if (!tok || (strcmp(tok, "off") && strcmp(tok, "help") && !topomap_algo_valid(tok))) {
        char known[512];
        return tmsp_fail(err, errlen, EINVAL,
                         "--topomap=%s: unknown algorithm '%s' (known: %s; --topomap=help "
                         "describes them)",
                         val, tok ? tok : "", tmsp_algo_list(known, sizeof known));
    }
    char *algo = tok, *profile = NULL;
    int verbose = 0;
    while ((tok = strtok_r(NULL, ",", &save))) {
        if (!strcmp(tok, "verbose"))
            verbose = 1;
        else if (!strncmp(tok, "profile=", 8) && tok[8])
            profile = tok + 8;
        else
            return tmsp_fail(err, errlen, EINVAL,
                             "--topomap=%s: unknown sub-argument '%s' (verbose, "
                             "profile=NAME)",
                             val, tok);
    }
    tmsp_set(&o->algo, algo);
    if (verbose)
        o->verbose = 1;
    if (profile)
        tmsp_set(&o->profile, profile);
    return 0;
}

/* Record one option occurrence; 0 or -1 (bad value). */
static int take(struct topomap_srun *o, const struct srun_opt *opt, const char *spelled,
                const char *val, char *err, size_t errlen)
{
    long v;
    switch (opt->what) {
    case O_NTASKS:
        if (tmsp_count(val, &v) < 0 || v == 0)
            return tmsp_fail(err, errlen, EINVAL, "srun %s: '%s' is not a task count",
                             spelled, val);
        o->ntasks = v;
        break;
    case O_NODES:
        if (tmsp_count(val, &v) < 0 || v == 0) {
            /* "min-max" ranges: srun picks the count, topomap cannot know it. */
            if (val && strchr(val, '-') && !o->conflict) {
                size_t n = strlen(spelled) + 2;
                o->conflict = malloc(n + 8);
                if (o->conflict)
                    snprintf(o->conflict, n + 8, "%s range", spelled);
                break;
            }
            return tmsp_fail(err, errlen, EINVAL, "srun %s: '%s' is not a node count",
                             spelled, val);
        }
        o->nnodes = v;
        break;
    case O_CPT:
        if (tmsp_count(val, &v) < 0 || v == 0)
            return tmsp_fail(err, errlen, EINVAL, "srun %s: '%s' is not a CPU count", spelled,
                             val);
        o->cpus_per_task = v;
        break;
    case O_TPN:
        if (tmsp_count(val, &v) < 0 || v == 0)
            return tmsp_fail(err, errlen, EINVAL, "srun %s: '%s' is not a task count",
                             spelled, val);
        o->ntasks_per_node = v;
        break;
    case O_OVERCOMMIT:
        o->overcommit = 1;
        break;
    case O_MPI:
        tmsp_set(&o->mpi, val);
        break;
    case O_CONFLICT:
        if (!o->conflict)
            o->conflict = tmsp_strdup(spelled);
        break;
    case O_MULTIPROG:
        break; /* see tmsp_srun_parse: the executable is a configuration file */
    case O_JOBID:
        tmsp_set(&o->jobid, val);
        break;
    case O_ALGO:
        if (tmsp_algo_arg(o, val, err, errlen) < 0)
            return -1;
        break;
    case O_PROFILE:
        tmsp_set(&o->profile, val);
        break;
    case O_VERBOSE:
        o->verbose = 1;
        break;
    case O_RECORD:
        tmsp_set(&o->record, val ? val : "");
        break;
    }
    return 0;
}

/* Where -N is in the short-option cluster @p a ("-lN2": at 'N'), or NULL;
 * *@p takes_next: the cluster's last option takes the next word as value. */
static const char *cluster_nodes(const char *a, int *takes_next)
{
    *takes_next = 0;
    for (const char *c = a + 1; *c; c++) {
        const struct srun_opt *opt = find_short(*c);
        if (!opt)
            return NULL; /* unknown: srun will complain */
        if (opt->what == O_NODES) {
            *takes_next = !c[1];
            return c;
        }
        if (opt->arg == A_REQ) {
            *takes_next = !c[1];
            return NULL; /* the rest of the cluster is its value */
        }
        if (opt->arg == A_OPT)
            return NULL;
    }
    return NULL;
}

char **tmsp_srun_strip_nodes(int argc, char *const *argv)
{
    /* The array, then room for shortened copies of clusters ("-lN2" -> "-l"). */
    size_t strs = 0;
    for (int i = 0; i < argc; i++)
        strs += strlen(argv[i]) + 1;
    char **out = malloc((size_t)(argc + 1) * sizeof *out + strs);
    if (!out)
        return NULL;
    char *room = (char *)(out + argc + 1);
    int k = 0, i = 0;
    if (argc > 0)
        out[k++] = argv[i++];
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--") || a[0] != '-' || !a[1])
            break; /* the executable (or "--"): the rest is its own */
        if (!strcmp(a, ":")) {
            out[k++] = argv[i];
            continue;
        }
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const struct srun_opt *opt = find_long(name, len);
            int has_next = opt && opt->arg == A_REQ && !eq && i + 1 < argc;
            if (opt && opt->what == O_NODES) {
                i += has_next; /* drop the option and its value */
                continue;
            }
            out[k++] = argv[i];
            if (has_next)
                out[k++] = argv[++i];
            continue;
        }
        int takes_next;
        const char *at = cluster_nodes(a, &takes_next);
        if (at && at > a + 1) { /* keep the options before -N */
            memcpy(room, a, (size_t)(at - a));
            room[at - a] = 0;
            out[k++] = room;
            room += at - a + 1;
        } else if (!at)
            out[k++] = argv[i];
        if (takes_next && i + 1 < argc) {
            i++;
            if (!at)
                out[k++] = argv[i];
        }
    }
    for (; i < argc; i++)
        out[k++] = argv[i];
    out[k] = NULL;
    return out;
}

const char *tmsp_spank_option_env(const char *opt)
{
    /* Slurm's spank.c: "_SLURM_SPANK_OPTION_" + plugin + "_" + option, every
     * character that is not alphanumeric made '_', then sbatch/salloc export
     * it with the prefix "SLURM_SPANK_". */
    static char buf[128];
    int k = snprintf(buf, sizeof buf, "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_%s", opt);
    for (int i = (int)strlen("SLURM_SPANK__SLURM_SPANK_OPTION_topomap_"); i < k && buf[i]; i++)
        if (!((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
              (buf[i] >= '0' && buf[i] <= '9')))
            buf[i] = '_';
    return buf;
}

int tmsp_srun_parse(struct topomap_srun *o, int argc, char *const *argv,
                    topomap_getenv_fn env, void *env_arg, char *err, size_t errlen)
{
    int multi_prog = 0, seen_algo = 0, seen_profile = 0, seen_record = 0;
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, ":")) { /* heterogeneous step */
            if (!o->conflict)
                o->conflict = strdup("':' (heterogeneous step)");
            continue;
        }
        if (a[0] != '-' || !a[1])
            break; /* the executable */
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const struct srun_opt *opt = find_long(name, len);
            const char *val = NULL;
            if (!opt)
                continue; /* srun will complain itself */
            if (opt->arg == A_REQ) {
                if (eq)
                    val = eq + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else
                    return tmsp_fail(err, errlen, EINVAL, "srun --%s needs an argument",
                                     opt->name);
            } else if (eq)
                val = eq + 1;
            char spelled[64];
            snprintf(spelled, sizeof spelled, "--%s", opt->name);
            if (take(o, opt, spelled, val, err, errlen) < 0)
                return -1;
            if (opt->what == O_MULTIPROG)
                multi_prog = 1;
            seen_algo |= opt->what == O_ALGO;
            seen_profile |= opt->what == O_PROFILE;
            seen_record |= opt->what == O_RECORD;
            continue;
        }
        /* A cluster of short options: "-lN2", "-n", "8". */
        for (const char *c = a + 1; *c; c++) {
            const struct srun_opt *opt = find_short(*c);
            if (!opt)
                break; /* unknown: srun will complain */
            char spelled[4] = {'-', *c, 0, 0};
            const char *val = NULL;
            if (opt->arg == A_REQ) {
                if (c[1])
                    val = c + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else
                    return tmsp_fail(err, errlen, EINVAL, "srun %s needs an argument",
                                     spelled);
                if (take(o, opt, spelled, val, err, errlen) < 0)
                    return -1;
                break;
            }
            if (opt->arg == A_OPT) { /* optional arguments are attached */
                if (take(o, opt, spelled, c[1] ? c + 1 : NULL, err, errlen) < 0)
                    return -1;
                break;
            }
            if (take(o, opt, spelled, NULL, err, errlen) < 0)
                return -1;
        }
    }
    if (i < argc && !multi_prog) {
        const char *slash = strrchr(argv[i], '/');
        tmsp_set(&o->app, slash ? slash + 1 : argv[i]);
        if (o->app && !*o->app)
            tmsp_set(&o->app, NULL);
        const char *script;
        o->launcher = tmsp_launcher(argc - i, argv + i, &script);
        tmsp_set(&o->launcher_script, script);
    }

    /* What the command line left open, srun takes from its environment. */
    const char *v;
    long n;
    if (o->ntasks < 0 && ((v = tmsp_env(env, env_arg, "SLURM_NTASKS")) ||
                          (v = tmsp_env(env, env_arg, "SLURM_NPROCS")))) {
        if (tmsp_count(v, &n) < 0 || n == 0)
            return tmsp_fail(err, errlen, EINVAL, "SLURM_NTASKS='%s' is not a task count", v);
        o->ntasks = n;
        o->ntasks_env = 1;
    }
    if (o->nnodes < 0 && (v = tmsp_env(env, env_arg, "SLURM_NNODES"))) {
        if (tmsp_count(v, &n) < 0 || n == 0)
            return tmsp_fail(err, errlen, EINVAL, "SLURM_NNODES='%s' is not a node count", v);
        o->nnodes = n;
        o->nnodes_env = 1;
    }
    /* 22.05's srun reads SRUN_CPUS_PER_TASK, not the SLURM_CPUS_PER_TASK
     * that salloc -c sets (release.c). */
    const char *cpt_env = o->rel ? o->rel->cpt_env : "SLURM_CPUS_PER_TASK";
    if (o->cpus_per_task < 0 && (v = tmsp_env(env, env_arg, cpt_env))) {
        if (tmsp_count(v, &n) < 0 || n == 0)
            return tmsp_fail(err, errlen, EINVAL, "%s='%s' is not a CPU count", cpt_env,
                             v);
        o->cpus_per_task = n;
    }
    if (o->ntasks_per_node < 0 && (v = tmsp_env(env, env_arg, "SLURM_NTASKS_PER_NODE"))) {
        if (tmsp_count(v, &n) < 0 || n == 0)
            return tmsp_fail(err, errlen, EINVAL,
                             "SLURM_NTASKS_PER_NODE='%s' is not a task count", v);
        o->ntasks_per_node = n;
    }
    if (!o->overcommit && tmsp_env(env, env_arg, "SLURM_OVERCOMMIT"))
        o->overcommit = 1;
    if (!o->mpi && (v = tmsp_env(env, env_arg, "SLURM_MPI_TYPE")))
        tmsp_set(&o->mpi, v);
    if (!o->conflict && tmsp_env(env, env_arg, "SLURM_DISTRIBUTION"))
        o->conflict = strdup("SLURM_DISTRIBUTION");
    if (!o->conflict && tmsp_env(env, env_arg, "SLURM_HOSTFILE"))
        o->conflict = strdup("SLURM_HOSTFILE");
    if (!o->conflict && tmsp_env(env, env_arg, "SLURM_HET_SIZE"))
        o->conflict = strdup("a heterogeneous job");
    /* --jobid naming another job than the one whose nodes we see. */
    if (!o->conflict && o->jobid &&
        (!(v = tmsp_env(env, env_arg, "SLURM_JOB_ID")) || strcmp(v, o->jobid)))
        o->conflict = strdup("--jobid of another job");
    /* Options given to sbatch/salloc reach srun as environment variables. */
    /* sbatch's --topomap-profile first: its --topomap=ALGO,profile=NAME wins. */
    if (!seen_profile && !o->profile &&
        (v = tmsp_env(env, env_arg, tmsp_spank_option_env("topomap-profile"))))
        tmsp_set(&o->profile, v);
    if (!seen_algo && (v = tmsp_env(env, env_arg, tmsp_spank_option_env("topomap")))) {
        char *keep = o->profile && seen_profile ? tmsp_strdup(o->profile) : NULL;
        int rc = tmsp_algo_arg(o, v, err, errlen);
        if (keep) /* srun's --topomap-profile wins over sbatch's sub-argument */
            tmsp_set(&o->profile, keep);
        free(keep);
        if (rc < 0)
            return -1;
    }
    if (!o->verbose && tmsp_env(env, env_arg, tmsp_spank_option_env("topomap-verbose")))
        o->verbose = 1;
    /* sbatch/salloc --topomap-record without a name export "(null)"; any
     * value, even empty, means recording was asked for. */
    if (!seen_record && env && (v = env(tmsp_spank_option_env("topomap-record"), env_arg)))
        tmsp_set(&o->record, !strcmp(v, "(null)") ? "" : v);
    return 0;
}
