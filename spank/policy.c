/* SPDX-License-Identifier: BSD-3-Clause */
/* The Slurm-free half of the SPANK plugin; see policy.h for the design. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy.h"

/* ------------------------------------------------------------------------ */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------ */

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    errno = e;
    return -1;
}

/* Strict non-negative integer; 0 or -1. */
static int parse_count(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < 0 || v > INT_MAX || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    *out = v;
    return 0;
}

static int parse_real(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = xstrdup(s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Append to a "; "-joined one-line message. */
static void append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    size_t len = strlen(err);
    if (len && len + 2 < errlen) {
        strcpy(err + len, "; ");
        len += 2;
    }
    if (len + 1 >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + len, errlen - len, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Site policy                                                                */
/* ------------------------------------------------------------------------ */

void topomap_site_init(struct topomap_site *s)
{
    memset(s, 0, sizeof *s);
    s->dflt = strdup("off");
    s->min_gain = 0;
    s->time_limit = 2000;
    s->bind = 1;
    s->strict = 0;
}

void topomap_site_free(struct topomap_site *s)
{
    if (!s)
        return;
    free(s->topology);
    free(s->profiles);
    free(s->dflt);
    free(s->profiler);
    free(s->spool);
    memset(s, 0, sizeof *s);
}

int topomap_site_parse(struct topomap_site *s, int argc, char *const *argv, char *err,
                       size_t errlen)
{
    int bad = 0;
    if (err && errlen)
        err[0] = 0;
    for (int i = 0; i < argc; i++) {
        const char *tok = argv[i];
        const char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            append(err, errlen, "plugstack.conf argument '%s' is not key=value", tok);
            bad++;
            continue;
        }
        size_t klen = (size_t)(eq - tok);
        const char *v = eq + 1;
#define KEY(name) (klen == strlen(name) && !strncmp(tok, name, klen))
        if (KEY("topology") || KEY("profiles")) {
            if (!*v) {
                append(err, errlen, "plugstack.conf: %.*s= needs a path", (int)klen, tok);
                bad++;
            } else
                set_str(KEY("topology") ? &s->topology : &s->profiles, v);
        } else if (KEY("profiler") || KEY("spool")) {
            /* Both are used on the compute nodes, from slurmstepd and from
             * the tasks' working directories: only absolute paths mean the
             * same thing everywhere. */
            if (*v != '/') {
                append(err, errlen, "plugstack.conf: %.*s=%s is not an absolute path", (int)klen,
                       tok, v);
                bad++;
            } else
                set_str(KEY("profiler") ? &s->profiler : &s->spool, v);
        } else if (KEY("default")) {
            if (!*v) {
                append(err, errlen, "plugstack.conf: default= needs an algorithm or off");
                bad++;
            } else
                set_str(&s->dflt, v);
        } else if (KEY("min_gain")) {
            double g;
            if (parse_real(v, &g) < 0 || g >= 1) {
                append(err, errlen, "plugstack.conf: min_gain=%s is not a fraction below 1", v);
                bad++;
            } else
                s->min_gain = g;
        } else if (KEY("gain_metric")) {
            /* make benefit (README "Does it help?"): run time followed the
             * busiest link, not hop-bytes, on the emulated cluster. */
            if (!strcmp(v, "hop_bytes") || !strcmp(v, "congestion"))
                s->gain_congestion = v[0] == 'c';
            else {
                append(err, errlen, "plugstack.conf: gain_metric=%s is not hop_bytes or congestion",
                       v);
                bad++;
            }
        } else if (KEY("time_limit")) {
            double t;
            if (parse_real(v, &t) < 0 || t <= 0) {
                append(err, errlen, "plugstack.conf: time_limit=%s is not a positive number of ms",
                       v);
                bad++;
            } else
                s->time_limit = t;
        } else if (KEY("bind")) {
            if (!strcmp(v, "cores"))
                s->bind = 1;
            else if (!strcmp(v, "none"))
                s->bind = 0;
            else {
                append(err, errlen, "plugstack.conf: bind=%s is not cores or none", v);
                bad++;
            }
        } else if (KEY("strict")) {
            if (!strcmp(v, "0") || !strcmp(v, "1"))
                s->strict = v[0] == '1';
            else {
                append(err, errlen, "plugstack.conf: strict=%s is not 0 or 1", v);
                bad++;
            }
        } else {
            append(err, errlen,
                   "plugstack.conf: unknown key '%.*s' (known: topology, profiles, default, "
                   "min_gain, time_limit, bind, strict, profiler, spool, gain_metric)",
                   (int)klen, tok);
            bad++;
        }
#undef KEY
    }
    return bad;
}

/* ------------------------------------------------------------------------ */
/* srun's command line                                                        */
/* ------------------------------------------------------------------------ */

void topomap_srun_init(struct topomap_srun *o)
{
    memset(o, 0, sizeof *o);
    o->ntasks = o->nnodes = o->cpus_per_task = o->ntasks_per_node = -1;
}

void topomap_srun_free(struct topomap_srun *o)
{
    if (!o)
        return;
    free(o->mpi);
    free(o->conflict);
    free(o->app);
    free(o->algo);
    free(o->profile);
    free(o->jobid);
    free(o->record);
    memset(o, 0, sizeof *o);
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

/* Record one option occurrence; 0 or -1 (bad value). */
static int take(struct topomap_srun *o, const struct srun_opt *opt, const char *spelled,
                const char *val, char *err, size_t errlen)
{
    long v;
    switch (opt->what) {
    case O_NTASKS:
        if (parse_count(val, &v) < 0 || v == 0)
            return fail(err, errlen, EINVAL, "srun %s: '%s' is not a task count", spelled, val);
        o->ntasks = v;
        break;
    case O_NODES:
        if (parse_count(val, &v) < 0 || v == 0) {
            /* "min-max" ranges: srun picks the count, topomap cannot know it. */
            if (val && strchr(val, '-') && !o->conflict) {
                size_t n = strlen(spelled) + 2;
                o->conflict = malloc(n + 8);
                if (o->conflict)
                    snprintf(o->conflict, n + 8, "%s range", spelled);
                break;
            }
            return fail(err, errlen, EINVAL, "srun %s: '%s' is not a node count", spelled, val);
        }
        o->nnodes = v;
        break;
    case O_CPT:
        if (parse_count(val, &v) < 0 || v == 0)
            return fail(err, errlen, EINVAL, "srun %s: '%s' is not a CPU count", spelled, val);
        o->cpus_per_task = v;
        break;
    case O_TPN:
        if (parse_count(val, &v) < 0 || v == 0)
            return fail(err, errlen, EINVAL, "srun %s: '%s' is not a task count", spelled, val);
        o->ntasks_per_node = v;
        break;
    case O_OVERCOMMIT:
        o->overcommit = 1;
        break;
    case O_MPI:
        set_str(&o->mpi, val);
        break;
    case O_CONFLICT:
        if (!o->conflict)
            o->conflict = xstrdup(spelled);
        break;
    case O_MULTIPROG:
        break; /* see topomap_srun_parse: the executable is a configuration file */
    case O_JOBID:
        set_str(&o->jobid, val);
        break;
    case O_ALGO:
        set_str(&o->algo, val);
        break;
    case O_PROFILE:
        set_str(&o->profile, val);
        break;
    case O_VERBOSE:
        o->verbose = 1;
        break;
    case O_RECORD:
        set_str(&o->record, val ? val : "");
        break;
    }
    return 0;
}

const char *topomap_spank_option_env(const char *opt)
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

static const char *get(topomap_getenv_fn env, void *arg, const char *name)
{
    const char *v = env ? env(name, arg) : NULL;
    return v && *v ? v : NULL;
}

int topomap_srun_parse(struct topomap_srun *o, int argc, char *const *argv,
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
                    return fail(err, errlen, EINVAL, "srun --%s needs an argument", opt->name);
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
                    return fail(err, errlen, EINVAL, "srun %s needs an argument", spelled);
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
        set_str(&o->app, slash ? slash + 1 : argv[i]);
        if (o->app && !*o->app)
            set_str(&o->app, NULL);
    }

    /* What the command line left open, srun takes from its environment. */
    const char *v;
    long n;
    if (o->ntasks < 0 && ((v = get(env, env_arg, "SLURM_NTASKS")) ||
                          (v = get(env, env_arg, "SLURM_NPROCS")))) {
        if (parse_count(v, &n) < 0 || n == 0)
            return fail(err, errlen, EINVAL, "SLURM_NTASKS='%s' is not a task count", v);
        o->ntasks = n;
    }
    if (o->nnodes < 0 && (v = get(env, env_arg, "SLURM_NNODES"))) {
        if (parse_count(v, &n) < 0 || n == 0)
            return fail(err, errlen, EINVAL, "SLURM_NNODES='%s' is not a node count", v);
        o->nnodes = n;
    }
    if (o->cpus_per_task < 0 && (v = get(env, env_arg, "SLURM_CPUS_PER_TASK"))) {
        if (parse_count(v, &n) < 0 || n == 0)
            return fail(err, errlen, EINVAL, "SLURM_CPUS_PER_TASK='%s' is not a CPU count", v);
        o->cpus_per_task = n;
    }
    if (o->ntasks_per_node < 0 && (v = get(env, env_arg, "SLURM_NTASKS_PER_NODE"))) {
        if (parse_count(v, &n) < 0 || n == 0)
            return fail(err, errlen, EINVAL, "SLURM_NTASKS_PER_NODE='%s' is not a task count", v);
        o->ntasks_per_node = n;
    }
    if (!o->overcommit && get(env, env_arg, "SLURM_OVERCOMMIT"))
        o->overcommit = 1;
    if (!o->mpi && (v = get(env, env_arg, "SLURM_MPI_TYPE")))
        set_str(&o->mpi, v);
    if (!o->conflict && get(env, env_arg, "SLURM_DISTRIBUTION"))
        o->conflict = strdup("SLURM_DISTRIBUTION");
    if (!o->conflict && get(env, env_arg, "SLURM_HOSTFILE"))
        o->conflict = strdup("SLURM_HOSTFILE");
    if (!o->conflict && get(env, env_arg, "SLURM_HET_SIZE"))
        o->conflict = strdup("a heterogeneous job");
    /* --jobid naming another job than the one whose nodes we see. */
    if (!o->conflict && o->jobid &&
        (!(v = get(env, env_arg, "SLURM_JOB_ID")) || strcmp(v, o->jobid)))
        o->conflict = strdup("--jobid of another job");
    /* Options given to sbatch/salloc reach srun as environment variables. */
    if (!seen_algo && (v = get(env, env_arg, topomap_spank_option_env("topomap"))))
        set_str(&o->algo, v);
    if (!seen_profile && (v = get(env, env_arg, topomap_spank_option_env("topomap-profile"))))
        set_str(&o->profile, v);
    if (!o->verbose && get(env, env_arg, topomap_spank_option_env("topomap-verbose")))
        o->verbose = 1;
    /* sbatch/salloc --topomap-record without a name export "(null)"; any
     * value, even empty, means recording was asked for. */
    if (!seen_record && env && (v = env(topomap_spank_option_env("topomap-record"), env_arg)))
        set_str(&o->record, !strcmp(v, "(null)") ? "" : v);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Slurm's default layout                                                     */
/* ------------------------------------------------------------------------ */

int topomap_cpus_per_node(const char *spec, int nnodes, int *cpus, char *err, size_t errlen)
{
    if (!spec || !*spec)
        return fail(err, errlen, EINVAL, "no CPU counts (SLURM_JOB_CPUS_PER_NODE)");
    int k = 0;
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        long c = strtol(p, &end, 10);
        if (end == p || errno || c <= 0 || c > INT_MAX || *p == '-' || *p == '+')
            return fail(err, errlen, EINVAL, "CPU counts '%s': bad count at '%s'", spec, p);
        long rep = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                return fail(err, errlen, EINVAL, "CPU counts '%s': expected '(xN)'", spec);
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep <= 0)
                return fail(err, errlen, EINVAL, "CPU counts '%s': bad repeat count", spec);
            p = end + 1;
        }
        if (rep > nnodes - k)
            return fail(err, errlen, EINVAL, "CPU counts '%s' name more than %d nodes", spec,
                        nnodes);
        for (long r = 0; r < rep; r++)
            cpus[k++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p)
            return fail(err, errlen, EINVAL, "CPU counts '%s': unexpected '%c'", spec, *p);
    }
    if (k != nnodes)
        return fail(err, errlen, EINVAL, "CPU counts '%s' name %d nodes, the allocation has %d",
                    spec, k, nnodes);
    return 0;
}

int topomap_slurm_layout(const struct topomap_srun *o, int nalloc, const int *cpus, int *nstep,
                         int *tasks, char *err, size_t errlen)
{
    long cpt = o->cpus_per_task > 0 ? o->cpus_per_task : 1;
    long nn = o->nnodes > 0 ? o->nnodes : nalloc;
    if (nn > nalloc)
        return fail(err, errlen, EINVAL, "%ld nodes asked, the allocation has %d", nn, nalloc);
    long nt = o->ntasks;
    if (nt <= 0) {
        if (o->ntasks_per_node > 0 && o->nnodes > 0)
            return fail(err, errlen, EINVAL,
                        "-N with --ntasks-per-node and no -n: give the task count with -n");
        nt = o->ntasks_per_node > 0 ? o->ntasks_per_node * nn : nn;
    }
    if (nt < nn)
        nn = nt; /* srun: "can't run N processes on M nodes, setting nnodes to N" */
    int *cap = malloc((size_t)nalloc * sizeof *cap);
    if (!cap)
        return fail(err, errlen, ENOMEM, "out of memory");
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
                return fail(err, errlen, EINVAL,
                            "%ld tasks do not fit on %ld nodes without --overcommit", nt, nn);
            }
            over = 1;
        }
    }
    free(cap);
    for (long i = 0; i < nn; i++)
        if (tasks[i] == 0)
            return fail(err, errlen, EINVAL, "node %ld of the step would get no task", i);
    *nstep = (int)nn;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Formats passed to the compute nodes                                        */
/* ------------------------------------------------------------------------ */

struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = b->cap ? 2 * b->cap : 256;
        while (nc < b->len + (size_t)k + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

char *topomap_bind_encode(const int *core, int n, int cpt)
{
    struct sbuf b = {0};
    sb_printf(&b, "1:%d:", cpt);
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (i)
            sb_printf(&b, ",");
        while (j < n && core[j] == core[i])
            j++;
        if (j - i > 1) {
            sb_printf(&b, "%dx%d", core[i], j - i);
            i = j;
            continue;
        }
        j = i + 1;
        while (j < n && core[j] == core[j - 1] + 1 && (j + 1 >= n || core[j + 1] != core[j]))
            j++;
        if (j - i > 1)
            sb_printf(&b, "%d-%d", core[i], core[j - 1]);
        else
            sb_printf(&b, "%d", core[i]);
        i = j;
    }
    if (b.oom) {
        free(b.s);
        errno = ENOMEM;
        return NULL;
    }
    return b.s;
}

/* Non-negative int at *p; advances; -1 if none. */
static long read_uint(const char **p)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return -1;
        s++;
    }
    *p = s;
    return v;
}

int topomap_bind_decode(const char *s, int n, int *core, int *cpt)
{
    if (!s || strncmp(s, "1:", 2)) {
        errno = EINVAL;
        return -1;
    }
    const char *p = s + 2;
    long c = read_uint(&p);
    if (c <= 0 || *p != ':') {
        errno = EINVAL;
        return -1;
    }
    *cpt = (int)c;
    p++;
    int k = 0;
    while (*p) {
        long a = read_uint(&p), b = a, rep = 1;
        if (a < 0)
            goto bad;
        if (*p == '-') {
            p++;
            b = read_uint(&p);
            if (b < a)
                goto bad;
        } else if (*p == 'x') {
            p++;
            rep = read_uint(&p);
            if (rep <= 0)
                goto bad;
        }
        for (long v = a; v <= b; v++)
            for (long r = 0; r < rep; r++) {
                if (k >= n)
                    goto bad;
                core[k++] = (int)v;
            }
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            goto bad;
    }
    if (k != n)
        goto bad;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

char *topomap_pmi2_mapping(const int *node, int n, size_t maxlen)
{
    struct sbuf b = {0};
    sb_printf(&b, "(vector");
    /* Blocks (start, count, size): count consecutive nodes from start, size
     * consecutive ranks on each, the way MPICH reads PMI_process_mapping. */
    int i = 0;
    while (i < n) {
        int start = node[i], size = 1;
        while (i + size < n && node[i + size] == start)
            size++;
        int count = 1, j = i + size;
        for (;;) {
            int k = 0;
            while (j + k < n && k < size && node[j + k] == start + count)
                k++;
            if (k != size || (j + k < n && node[j + k] == start + count))
                break;
            count++;
            j += size;
        }
        sb_printf(&b, ",(%d,%d,%d)", start, count, size);
        i = j;
        if (!b.oom && b.len > maxlen)
            break;
    }
    sb_printf(&b, ")");
    if (b.oom) {
        free(b.s);
        errno = ENOMEM;
        return NULL;
    }
    if (b.len > maxlen) {
        free(b.s);
        errno = E2BIG;
        return NULL;
    }
    return b.s;
}

int topomap_cpulist_parse(const char *s, int *ids, int max)
{
    int k = 0;
    const char *p = s;
    if (!p || !*p) {
        errno = EINVAL;
        return -1;
    }
    while (*p) {
        long a = read_uint(&p), b = a;
        if (a < 0) {
            errno = EINVAL;
            return -1;
        }
        if (*p == '-') {
            p++;
            b = read_uint(&p);
            if (b < a) {
                errno = EINVAL;
                return -1;
            }
        }
        for (long v = a; v <= b; v++) {
            if (k >= max) {
                errno = E2BIG;
                return -1;
            }
            ids[k++] = (int)v;
        }
        if (*p == ',' && p[1])
            p++;
        else if (*p) {
            errno = EINVAL;
            return -1;
        }
    }
    return k;
}

int topomap_bind_cpuset(hwloc_topology_t topo, const int *alloc, int nalloc, int k, int cpt,
                        hwloc_bitmap_t set, char *err, size_t errlen)
{
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int avail = alloc ? nalloc : ncores;
    hwloc_bitmap_zero(set);
    if (k < 0 || cpt <= 0 || (long)(k + 1) * cpt > avail)
        return fail(err, errlen, ERANGE,
                    "core index %d (x %d CPUs per task) is past the %d cores of the step here", k,
                    cpt, avail);
    for (int i = k * cpt; i < (k + 1) * cpt; i++) {
        int c = alloc ? alloc[i] : i;
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
        if (!obj || !obj->cpuset)
            return fail(err, errlen, ERANGE, "core %d does not exist here (%d cores)", c, ncores);
        hwloc_bitmap_or(set, set, obj->cpuset);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The placement decision                                                     */
/* ------------------------------------------------------------------------ */

void topomap_decision_free(struct topomap_decision *d)
{
    if (!d)
        return;
    if (d->hosts) {
        for (int i = 0; i < d->nranks; i++)
            free(d->hosts[i]);
        free(d->hosts);
    }
    free(d->bind);
    free(d->pmi2);
    free(d->algo);
    memset(d, 0, sizeof *d);
}

/* Record why Slurm's layout is kept. @p quiet reasons are ordinary ways for
 * the site default to do nothing (the application was never profiled, the
 * user placed ranks himself, ...): they only show in the --topomap-verbose
 * summary and never fail the step. Otherwise the user gets one line, and under
 * strict=1 the step fails. */
static void keep(struct topomap_decision *d, const struct topomap_site *site, int quiet,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void keep(struct topomap_decision *d, const struct topomap_site *site, int quiet,
                 const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (quiet) {
        d->outcome = TOPOMAP_KEEP;
        snprintf(d->summary, sizeof d->summary, "topomap: %s; using Slurm's default layout", why);
        return;
    }
    if (site->strict) {
        d->outcome = TOPOMAP_FAIL;
        snprintf(d->message, sizeof d->message, "topomap: %s; failing the step (strict=1)", why);
        return;
    }
    d->outcome = TOPOMAP_KEEP;
    snprintf(d->message, sizeof d->message, "topomap: %s; using Slurm's default layout", why);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void topomap_decide(const struct topomap_site *site, const struct topomap_srun *o,
                    topomap_getenv_fn env, void *env_arg, struct topomap_decision *d)
{
    char err[TOPOMAP_ERRLEN] = "";
    double t0 = now();
    memset(d, 0, sizeof *d);
    const char *algo = o->algo ? o->algo : site->dflt ? site->dflt : "off";
    d->explicit_req = o->algo != NULL;
    d->algo = xstrdup(algo);
    /* The site default stays silent about ordinary reasons to do nothing. */
    int quiet = !d->explicit_req;

    topomap_topology_t *topo = NULL;
    topomap_hostlist_t *hl = NULL;
    topomap_profile_t *prof = NULL;
    topomap_alloc_t *alloc = NULL;
    int *cpus = NULL, *tasks = NULL, *r2s = NULL, *ident = NULL, *core = NULL, *nodeix = NULL;
    const char **names = NULL;
    char *step_hosts = NULL;
    struct sbuf slots = {0}; /* tasks per node, "4,4,2": the allocation and the summary */
    const char *nodelist, *cpuspec, *pname;
    int nalloc = 0, nstep = 0, n = 0;

    if (!strcmp(algo, "off")) {
        d->outcome = TOPOMAP_OFF;
        if (o->verbose)
            snprintf(d->summary, sizeof d->summary, "topomap: off: Slurm's layout");
        return;
    }
    if (!topomap_algo_valid(algo)) {
        char known[512] = "off";
        for (int i = 0; topomap_algo_name(i); i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), ", %s",
                     topomap_algo_name(i));
        keep(d, site, 0, "unknown algorithm '%s' (known: %s)", algo, known);
        goto out;
    }
    if (o->conflict) {
        keep(d, site, quiet, "%s given, so Slurm places the ranks", o->conflict);
        goto out;
    }
    if (!site->topology) {
        keep(d, site, 0, "no topology configured (topology= in plugstack.conf)");
        goto out;
    }
    nodelist = get(env, env_arg, "SLURM_JOB_NODELIST");
    cpuspec = get(env, env_arg, "SLURM_JOB_CPUS_PER_NODE");
    if (!nodelist || !cpuspec) {
        keep(d, site, quiet,
             "not inside an allocation, and srun picks its nodes after topomap runs (use salloc "
             "or sbatch)");
        goto out;
    }
    hl = topomap_hostlist_parse(nodelist, err, sizeof err);
    if (!hl) {
        keep(d, site, 0, "SLURM_JOB_NODELIST: %s", err);
        goto out;
    }
    nalloc = (int)topomap_hostlist_count(hl);
    cpus = malloc((size_t)nalloc * sizeof *cpus);
    tasks = malloc((size_t)nalloc * sizeof *tasks);
    names = malloc((size_t)nalloc * sizeof *names);
    if (!cpus || !tasks || !names) {
        keep(d, site, 0, "out of memory");
        goto out;
    }
    if (topomap_cpus_per_node(cpuspec, nalloc, cpus, err, sizeof err) < 0 ||
        topomap_slurm_layout(o, nalloc, cpus, &nstep, tasks, err, sizeof err) < 0) {
        keep(d, site, 0, "cannot predict Slurm's layout: %s", err);
        goto out;
    }
    for (int i = 0; i < nstep; i++) {
        names[i] = topomap_hostlist_get(hl, (size_t)i);
        n += tasks[i];
    }
    d->nranks = n;

    pname = o->profile ? o->profile : o->app;
    if (!pname) {
        keep(d, site, quiet, "no profile name (give --topomap-profile=NAME)");
        goto out;
    }
    if (strchr(pname, '/')) {
        prof = topomap_profile_load(pname, TOPOMAP_FMT_AUTO, err, sizeof err);
        if (prof && topomap_profile_nranks(prof) != n) {
            /* A process grid is rescaled to the step's count, as in the store. */
            topomap_profile_t *r = topomap_grid_rescale(prof, n, 0, NULL, NULL, 0);
            if (!r)
                snprintf(err, sizeof err, "profile %s has %d ranks, this step has %d: not used",
                         pname, topomap_profile_nranks(prof), n);
            topomap_profile_free(prof);
            prof = r;
            errno = ERANGE;
        }
    } else
        prof = topomap_store_lookup(site->profiles, pname, n, err, sizeof err);
    const char *from = prof ? topomap_profile_meta(prof, "rescaled_from") : NULL;
    if (from && o->verbose)
        snprintf(d->note, sizeof d->note,
                 "topomap: profile '%s' was recorded with %s ranks; it is a process grid, so "
                 "its %d-rank version (grid %s) was synthesised from it",
                 pname, from, n, topomap_profile_meta(prof, "grid"));
    if (!prof) {
        /* The site default quietly skips applications nobody profiled. */
        int missing = errno == ENOENT;
        keep(d, site, quiet && missing, "%s", err);
        goto out;
    }

    topo = topomap_topology_load(site->topology, err, sizeof err);
    if (!topo) {
        keep(d, site, 0, "topology: %s", err);
        goto out;
    }
    step_hosts = topomap_hostlist_compress(names, (size_t)nstep);
    for (int i = 0; i < nstep; i++)
        sb_printf(&slots, i ? ",%d" : "%d", tasks[i]);
    if (!step_hosts || slots.oom) {
        keep(d, site, 0, "out of memory");
        goto out;
    }
    alloc = topomap_alloc_create(topo, step_hosts, slots.s, err, sizeof err);
    if (!alloc) {
        keep(d, site, 0, "%s", err);
        goto out;
    }

    r2s = malloc((size_t)n * sizeof *r2s);
    ident = malloc((size_t)n * sizeof *ident);
    core = malloc((size_t)n * sizeof *core);
    nodeix = malloc((size_t)n * sizeof *nodeix);
    if (!r2s || !ident || !core || !nodeix) {
        keep(d, site, 0, "out of memory");
        goto out;
    }
    topomap_opts_t opts;
    topomap_opts_init(&opts);
    double left = site->time_limit / 1000.0 - (now() - t0);
    if (left <= 0) {
        keep(d, site, 0, "loading the profile and topology used up time_limit=%gms",
             site->time_limit);
        goto out;
    }
    opts.time_limit = left;
    opts.nthreads = 1; /* srun is no place for a thread pool; results do not depend on it */
    if (topomap_map(algo, prof, alloc, &opts, r2s, err, sizeof err) < 0) {
        if (errno == ETIMEDOUT)
            keep(d, site, 0, "%s did not finish within time_limit=%gms", algo, site->time_limit);
        else
            keep(d, site, 0, "%s: %s", algo, err);
        goto out;
    }
    d->seconds = now() - t0;

    /* Slots are numbered in Slurm's block order, so the identity is Slurm's
     * default layout. */
    for (int r = 0; r < n; r++)
        ident[r] = r;
    topomap_metrics_t mdef, mnew;
    if (topomap_eval_slots(prof, alloc, ident, &mdef) < 0 ||
        topomap_eval_slots(prof, alloc, r2s, &mnew) < 0) {
        keep(d, site, 0, "cannot evaluate the placement");
        goto out;
    }
    d->hop_bytes_default = mdef.hop_bytes;
    d->hop_bytes_new = mnew.hop_bytes;
    double gain = mdef.hop_bytes > 0 ? (mdef.hop_bytes - mnew.hop_bytes) / mdef.hop_bytes : 0;

    snprintf(d->summary, sizeof d->summary,
             "topomap: %s on %d ranks, nodes %s (%s tasks per node): hop-bytes %.6g -> %.6g "
             "(%+.1f%%), %.1f ms",
             algo, n, step_hosts, slots.s, mdef.hop_bytes, mnew.hop_bytes,
             gain == 0 ? 0.0 : -100.0 * gain, 1000.0 * d->seconds);

    /* The metric min_gain compares: hop-bytes, or the busiest link's load. */
    const char *gname = site->gain_congestion ? "busiest-link load" : "hop-bytes";
    double gdef = site->gain_congestion ? mdef.congestion_max : mdef.hop_bytes;
    double gnew = site->gain_congestion ? mnew.congestion_max : mnew.hop_bytes;
    if (site->gain_congestion) {
        gain = gdef > 0 ? (gdef - gnew) / gdef : 0;
        snprintf(d->summary + strlen(d->summary), sizeof d->summary - strlen(d->summary),
                 ", busiest link %.6g -> %.6g bytes", gdef, gnew);
    }
    int same_nodes = 1;
    for (int r = 0; r < n && same_nodes; r++)
        same_nodes = topomap_alloc_slot_node(alloc, r2s[r]) == topomap_alloc_slot_node(alloc, r);
    if (same_nodes || !(gnew < gdef * (1 - site->min_gain))) {
        d->outcome = TOPOMAP_KEEP;
        if (same_nodes)
            strncat(d->summary, ": same nodes as Slurm's layout, kept", sizeof d->summary -
                                                                            strlen(d->summary) - 1);
        else
            strncat(d->summary, ": gain below min_gain, Slurm's layout kept",
                    sizeof d->summary - strlen(d->summary) - 1);
        if (d->explicit_req && !same_nodes && gain > 0)
            snprintf(d->message, sizeof d->message,
                     "topomap: %s would save %.1f%% of %s, less than min_gain=%g%%; "
                     "using Slurm's default layout",
                     algo, 100.0 * gain, gname, 100.0 * site->min_gain);
        else if (d->explicit_req && !same_nodes)
            snprintf(d->message, sizeof d->message,
                     "topomap: %s does not reduce %s (%.6g -> %.6g); using Slurm's "
                     "default layout",
                     algo, gname, gdef, gnew);
        goto out;
    }

    /* Remap: hostnames, per-node core indices, the PMI2 mapping. */
    d->hosts = calloc((size_t)n, sizeof *d->hosts);
    if (!d->hosts) {
        keep(d, site, 0, "out of memory");
        goto out;
    }
    /* Step node index of each topology node. */
    for (int r = 0; r < n; r++) {
        int tn = topomap_alloc_slot_node(alloc, r2s[r]);
        nodeix[r] = -1;
        for (int i = 0; i < nstep; i++)
            if (topomap_alloc_node(alloc, i) == tn) {
                nodeix[r] = i;
                break;
            }
        d->hosts[r] = xstrdup(topomap_topology_node_name(topo, tn));
        if (!d->hosts[r] || nodeix[r] < 0) {
            keep(d, site, 0, "internal error: rank %d on no allocated node", r);
            goto out;
        }
    }
    if (site->bind) {
        /* Renumber the cores used on each node 0..k-1 in the algorithm's
         * order: Slurm gives the step its own cores on each node, and the k-th
         * of them is what the node binds. */
        int *tmp = malloc((size_t)n * sizeof *tmp);
        if (!tmp) {
            keep(d, site, 0, "out of memory");
            goto out;
        }
        for (int i = 0; i < nstep; i++) {
            int m = 0;
            for (int r = 0; r < n; r++)
                if (nodeix[r] == i)
                    tmp[m++] = topomap_alloc_slot_core(alloc, r2s[r]);
            qsort(tmp, (size_t)m, sizeof *tmp, cmp_int);
            int u = 0;
            for (int k = 0; k < m; k++)
                if (!u || tmp[u - 1] != tmp[k])
                    tmp[u++] = tmp[k];
            for (int r = 0; r < n; r++)
                if (nodeix[r] == i) {
                    int c = topomap_alloc_slot_core(alloc, r2s[r]);
                    int *hit = bsearch(&c, tmp, (size_t)u, sizeof *tmp, cmp_int);
                    core[r] = (int)(hit - tmp);
                }
        }
        free(tmp);
        d->bind = topomap_bind_encode(core, n, (int)(o->cpus_per_task > 0 ? o->cpus_per_task : 1));
    }
    d->pmi2 = topomap_pmi2_mapping(nodeix, n, TOPOMAP_PMI2_MAXLEN);
    if (!d->pmi2 && errno != E2BIG) {
        keep(d, site, 0, "out of memory");
        goto out;
    }
    d->outcome = TOPOMAP_REMAP;
    strncat(d->summary, ": remapped", sizeof d->summary - strlen(d->summary) - 1);

out:
    if (d->outcome != TOPOMAP_REMAP && d->hosts) {
        for (int i = 0; i < d->nranks; i++)
            free(d->hosts[i]);
        free(d->hosts);
        d->hosts = NULL;
        free(d->bind);
        d->bind = NULL;
        free(d->pmi2);
        d->pmi2 = NULL;
    }
    if (!o->verbose || (d->message[0] && !strcmp(d->summary, d->message)))
        d->summary[0] = 0; /* the summary is for --topomap-verbose only */
    free(step_hosts);
    free(slots.s);
    free(cpus);
    free(tasks);
    free(names);
    free(r2s);
    free(ident);
    free(core);
    free(nodeix);
    topomap_alloc_free(alloc);
    topomap_profile_free(prof);
    topomap_topology_free(topo);
    topomap_hostlist_free(hl);
}

/* ------------------------------------------------------------------------ */
/* Recording a profile                                                        */
/* ------------------------------------------------------------------------ */

int topomap_record_name(const struct topomap_srun *o, char *name, size_t len, char *msg,
                        size_t msglen)
{
    const char *n = NULL, *from = NULL;
    if (o->record && *o->record) {
        n = o->record;
        from = "--topomap-record";
    } else if (o->profile && *o->profile && !strchr(o->profile, '/')) {
        /* The name the next run looks up with the same options. */
        n = o->profile;
        from = "--topomap-profile";
    } else if (o->app) {
        n = o->app;
        from = "the executable's name";
    }
    if (!n)
        return fail(msg, msglen, EINVAL,
                    "topomap: --topomap-record: no name to record under (give "
                    "--topomap-record=NAME); not recording");
    if (!topomap_store_name_valid(n))
        return fail(msg, msglen, EINVAL,
                    "topomap: --topomap-record: '%.200s' (%s) is not a valid profile name (1 to "
                    "200 characters from A-Z a-z 0-9 . _ + -, not starting with '.' or '-'); "
                    "not recording",
                    n, from);
    if (strlen(n) >= len)
        return fail(msg, msglen, EINVAL, "topomap: --topomap-record: name too long; not recording");
    strcpy(name, n);
    return 0;
}

char *topomap_preload_prepend(const char *lib, const char *cur)
{
    size_t ll = strlen(lib);
    /* ld.so separates LD_PRELOAD entries with ':' or ' '. */
    if (cur && !strncmp(cur, lib, ll) && (!cur[ll] || cur[ll] == ':' || cur[ll] == ' ')) {
        char *same = strdup(cur);
        if (!same)
            errno = ENOMEM;
        return same;
    }
    size_t cl = cur ? strlen(cur) : 0;
    char *s = malloc(ll + cl + 2);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(s, lib, ll + 1);
    if (cl) {
        s[ll] = ':';
        memcpy(s + ll + 1, cur, cl + 1);
    }
    return s;
}

int topomap_record_mkdir(const char *spool, unsigned long job, unsigned long step, uid_t uid,
                         gid_t gid, char *path, size_t len, char *err, size_t errlen)
{
    int e;
    if (!spool)
        spool = TOPOMAP_SPOOL_DEFAULT;
    if (len)
        path[0] = 0;
    if (mkdir(spool, 0755) < 0 && errno != EEXIST) {
        e = errno;
        return fail(err, errlen, e, "cannot create the spool directory %s: %s", spool,
                    strerror(e));
    }
    int k = snprintf(path, len, "%s/topomap-record.%lu.%lu.XXXXXX", spool, job, step);
    if (k < 0 || (size_t)k >= len) {
        if (len)
            path[0] = 0;
        return fail(err, errlen, ENAMETOOLONG, "spool directory %.200s: path too long", spool);
    }
    /* A fresh, unguessable name: the spool may be world-writable (/tmp). */
    if (!mkdtemp(path)) {
        e = errno;
        path[0] = 0;
        return fail(err, errlen, e, "cannot create a directory in %s: %s", spool, strerror(e));
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        rmdir(path);
        path[0] = 0;
        return fail(err, errlen, e, "cannot open a directory in %s: %s", spool, strerror(e));
    }
    /* The job's rank 0 writes into it as the job's user. */
    if ((uid != geteuid() || gid != getegid()) && fchown(fd, uid, gid) < 0) {
        e = errno;
        fail(err, errlen, e, "cannot give %s to uid %lu: %s", path, (unsigned long)uid,
             strerror(e));
        close(fd);
        rmdir(path);
        path[0] = 0;
        errno = e;
        return -1;
    }
    return fd;
}

int topomap_record_register(int dirfd, const char *dirpath, uid_t uid, long ntasks,
                            const char *store, const char *name, const char *step, char *msg,
                            size_t msglen)
{
    char shown[PATH_MAX + 32], fdpath[64], err[TOPOMAP_ERRLEN] = "";
    struct stat st;
    int e;

    snprintf(shown, sizeof shown, "%s/%s", dirpath, TOPOMAP_RECORD_FILE);
    if (!name || !topomap_store_name_valid(name))
        return fail(msg, msglen, EINVAL,
                    "topomap: '%.200s' is not a valid profile name; nothing recorded",
                    name ? name : "");
    /* Through the directory this process created and kept open, without
     * following links: the job's user owns the directory and its contents. */
    int fd = openat(dirfd, TOPOMAP_RECORD_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        e = errno;
        if (e == ENOENT)
            return fail(msg, msglen, ENOENT,
                        "topomap: step %s wrote no profile for '%s' (rank 0 did not reach "
                        "MPI_Finalize: not an MPI program, an abort, or a failed start); "
                        "nothing recorded",
                        step, name);
        if (e == ELOOP)
            return fail(msg, msglen, EPERM,
                        "topomap: %s is a symbolic link; nothing recorded", shown);
        return fail(msg, msglen, e, "topomap: cannot open %s: %s; nothing recorded", shown,
                    strerror(e));
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid) {
        close(fd);
        return fail(msg, msglen, EPERM,
                    "topomap: %s is not a regular file of uid %lu; nothing recorded", shown,
                    (unsigned long)uid);
    }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    topomap_profile_t *p = topomap_profile_load(fdpath, TOPOMAP_FMT_EDGES, err, sizeof err);
    e = errno;
    close(fd);
    if (!p) {
        /* Show the file's name, not the descriptor's. */
        size_t fl = strlen(fdpath);
        const char *rest = !strncmp(err, fdpath, fl) ? err + fl : NULL;
        if (rest)
            fail(msg, msglen, e, "topomap: cannot record '%s': %s%s; nothing recorded", name,
                 shown, rest);
        else
            fail(msg, msglen, e, "topomap: cannot record '%s' from %s: %s; nothing recorded",
                 name, shown, err);
        errno = e == ENOENT ? EINVAL : e;
        return -1;
    }
    int n = topomap_profile_nranks(p);
    if (ntasks > 0 && n != ntasks) {
        topomap_profile_free(p);
        return fail(msg, msglen, ERANGE,
                    "topomap: the profile step %s wrote has %d ranks but the step %ld tasks "
                    "(MPI did not start the tasks as one job, e.g. MPICH under --mpi=pmix: use "
                    "--mpi=pmi2); nothing recorded",
                    step, n, ntasks);
    }
    if (topomap_store_add(store, name, p, err, sizeof err) < 0) {
        e = errno;
        topomap_profile_free(p);
        return fail(msg, msglen, e, "topomap: cannot store profile '%s': %s; nothing recorded",
                    name, err);
    }
    snprintf(msg, msglen, "topomap: recorded profile '%s' (%d ranks, %.0f bytes) in %s", name, n,
             topomap_profile_total_bytes(p), topomap_store_dir(store));
    topomap_profile_free(p);
    return 0;
}

int topomap_record_cleanup(int dirfd, const char *dirpath, char *err, size_t errlen)
{
    int e = 0, left = 0;
    int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
    if (!d) {
        e = errno;
        if (dup >= 0)
            close(dup);
        left = 1;
    } else {
        for (struct dirent *de; (de = readdir(d));) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            /* Files only: a directory here was made by the job, not rank 0. */
            if (unlinkat(dirfd, de->d_name, 0) < 0) {
                if (!left)
                    e = errno;
                left++;
            }
        }
        closedir(d);
    }
    /* The job's user owns the directory and may have moved it: remove the
     * path only while it is still ours. */
    struct stat a, b;
    int moved = 0;
    if (!left) {
        if (fstat(dirfd, &a) < 0 || lstat(dirpath, &b) < 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
            moved = 1;
        else if (rmdir(dirpath) < 0) {
            e = errno;
            left = 1;
        }
    }
    close(dirfd);
    if (moved)
        return fail(err, errlen, ENOENT, "the recording directory %s was moved; left in place",
                    dirpath);
    if (left)
        return fail(err, errlen, e, "cannot remove the recording directory %s: %s", dirpath,
                    strerror(e));
    return 0;
}
