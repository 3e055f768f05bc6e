/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap.so, srun's side (S_CTX_LOCAL, see topomap.c): read srun's command
 * line and environment, decide the placement (decide.c), and put it in place
 * for srun: a hostfile without a name in SLURM_HOSTFILE, the binding, GPU and
 * PMI2 variables the nodes read, the recording's name, and, on releases
 * whose srun refuses -N beside a hostfile, srun run again without -N. */
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

#include <slurm/spank.h>

#include "common.h" /* tmsp_clean */
#include "plugin.h"

static struct topomap_decision decision;
static char hostfile[64]; /* "/proc/self/fd/N", see drop_hostfile */
static int hostfile_fd = -1;

static const char *env_get(const char *name, void *arg)
{
    return getenv(name);
}

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
 * plugin was not tested with it (tmsp_decide then declines). */
static void read_release(spank_t sp, struct topomap_srun *o)
{
    char *major = NULL, *minor = NULL;
    o->rel = NULL;
    if (spank_get_item(sp, S_SLURM_VERSION_MAJOR, &major) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_SLURM_VERSION_MINOR, &minor) != ESPANK_SUCCESS || !major || !minor)
        return;
    snprintf(o->release_seen, sizeof o->release_seen, "%.6s.%.6s", major, minor);
    o->rel = tmsp_release_find(atoi(major), atoi(minor));
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
    char **nargv = tmsp_srun_strip_nodes(argc, argv);
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
    int named = tmsp_record_name(o, name, sizeof name, msg, sizeof msg) == 0;
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
    decision.outcome = tmsp_site.strict ? TOPOMAP_FAIL : TOPOMAP_KEEP;
    snprintf(decision.message, sizeof decision.message, "topomap: %.900s; %s", why,
             tmsp_site.strict ? "failing the step (strict=1)" : "using Slurm's default layout");
    tmsp_clean(decision.message); /* $TMPDIR is the user's */
    snprintf(decision.log, sizeof decision.log, "%.1000s", decision.message + 9);
}

/* Decide and act on srun's command line and environment. Returns -1 only when
 * the step must fail (strict=1). */
int tmsp_place(spank_t sp)
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
    tmsp_decision_free(&decision);
    tmsp_srun_init(&o);
    read_release(sp, &o);
    if (!argv || tmsp_srun_parse(&o, argc, argv, env_get, NULL, err, sizeof err) < 0) {
        /* A bad -n or -N: srun itself rejects the command line. */
        slurm_verbose("topomap: cannot read srun's command line (%s)",
                      argv ? err : strerror(errno));
        free(argv);
        tmsp_srun_free(&o);
        return 0;
    }
    if (o.record)
        pass_record(&o);

    /* srun maps in this thread: no idle BLAS pool beside it to receive a
     * SIGTERM during METIS (topomap_blas_pool_stop()). */
    topomap_blas_pool_stop();
    tmsp_decide(&tmsp_site, &o, env_get, NULL, &decision);
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
    tmsp_srun_free(&o);
    return rc;
}

void tmsp_hostfile_read(void)
{
    if (hostfile[0]) {
        drop_hostfile();
        unsetenv("SLURM_HOSTFILE");
    }
}

void tmsp_srun_exit(void)
{
    drop_hostfile();
    tmsp_decision_free(&decision);
}
