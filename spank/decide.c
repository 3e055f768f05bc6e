/* SPDX-License-Identifier: BSD-3-Clause */
/* The placement decision on the srun side (see policy.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

void tmsp_decision_free(struct topomap_decision *d)
{
    if (!d)
        return;
    if (d->hosts) {
        for (int i = 0; i < d->nranks; i++)
            free(d->hosts[i]);
        free(d->hosts);
    }
    free(d->bind);
    free(d->gpu);
    free(d->pmi2);
    free(d->algo);
    memset(d, 0, sizeof *d);
}

/* Record why Slurm's layout is kept. @p quiet reasons are ordinary ways for
 * the site default to do nothing (the application was never profiled, the
 * user placed ranks himself, ...): they only show in the --topomap-verbose
 * summary and never fail the step. Otherwise the user gets one line, and
 * when @p fail (strict=1) the step fails. */
static void settle(struct topomap_decision *d, int quiet, int fail, const char *fmt, va_list ap)
{
    char why[768];
    vsnprintf(why, sizeof why, fmt, ap);
    tmsp_clean(why); /* it quotes inputs: the user's, files' */
    if (quiet) {
        d->outcome = TOPOMAP_KEEP;
        snprintf(d->summary, sizeof d->summary, "topomap: %s; using Slurm's default layout", why);
        return;
    }
    if (fail) {
        d->outcome = TOPOMAP_FAIL;
        snprintf(d->message, sizeof d->message, "topomap: %s; failing the step (strict=1)", why);
        return;
    }
    d->outcome = TOPOMAP_KEEP;
    snprintf(d->message, sizeof d->message, "topomap: %s; using Slurm's default layout", why);
}

/* Slurm's layout, and under strict=1 a failed step (see settle). */
static void keep(struct topomap_decision *d, const struct topomap_site *site, int quiet,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void keep(struct topomap_decision *d, const struct topomap_site *site, int quiet,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    settle(d, quiet, site->strict, fmt, ap);
    va_end(ap);
}

/* Slurm's layout because of the Slurm release (one without a row, or a
 * layout the release makes from what srun cannot know): never a failed step,
 * even under strict=1, since nothing the user or the site asked for went
 * wrong (see settle for @p quiet). */
static void decline(struct topomap_decision *d, int quiet, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void decline(struct topomap_decision *d, int quiet, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    settle(d, quiet, 0, fmt, ap);
    va_end(ap);
}

/* What the decision works on, step by step (tmsp_decide). Each step
 * returns 0 to go on, or -1 when it has settled the outcome (keep() or OFF). */
struct step {
    const struct topomap_site *site;
    const struct topomap_srun *o;
    struct topomap_decision *d;
    const char *algo;
    int quiet; /* the site default stays silent about ordinary reasons */
    double t0;       /* the step's start: time_limit counts from here */
    double deadline; /* t0 + time_limit: loading, mapping and writing fit before it */
    char err[TOPOMAP_ERRLEN];
    /* the allocation and Slurm's layout of the step */
    topomap_hostlist_t *hl;
    int nalloc, nstep, n;
    int *cpus, *tasks;
    const char **names;
    char *step_hosts;
    struct topomap_sbuf slots; /* tasks per node, "4,4,2": the allocation and the summary */
    /* the inputs and the mapping */
    topomap_profile_t *prof;
    topomap_topology_t *topo;
    topomap_alloc_t *alloc;
    int *r2s;
};

/* time_limit covers the whole decision, loading included: past the deadline
 * before a mapping exists the decision keeps Slurm's layout and says which
 * step used the time. The loaders cannot be interrupted, so the check comes
 * after each step. */
static int out_of_time(struct step *s, const char *what)
{
    double now = tmsp_now();
    if (now <= s->deadline)
        return 0;
    keep(s->d, s->site, 0, "%s ended at %.3g ms, past time_limit=%gms", what,
         1000.0 * (now - s->t0), s->site->time_limit);
    return -1;
}

/* Is there anything to place, and may topomap place it? */
static int check_request(struct step *s)
{
    const struct topomap_srun *o = s->o;
    if (!strcmp(s->algo, "off") || !strcmp(s->algo, "help")) { /* help: the option callback lists */
        s->d->outcome = TOPOMAP_OFF;
        if (o->verbose)
            snprintf(s->d->summary, sizeof s->d->summary, "topomap: off: Slurm's layout");
        return -1;
    }
    if (!topomap_algo_valid(s->algo)) {
        char known[512];
        keep(s->d, s->site, 0, "unknown algorithm '%s' (known: %s)", s->algo,
             tmsp_algo_list(known, sizeof known));
        return -1;
    }
    if (!o->rel) {
        char why[512];
        tmsp_release_unknown(o->release_seen, why, sizeof why);
        decline(s->d, 0, "%s", why);
        return -1;
    }
    if (o->app && (!strcmp(o->app, "prted") || !strcmp(o->app, "orted"))) {
        /* Open MPI's mpirun inside the job starts one daemon per node with
         * srun; the ranks it then starts are not srun's to place. */
        keep(s->d, s->site, s->quiet,
             "this srun starts Open MPI's %s daemons for mpirun, whose ranks topomap cannot "
             "place (launch the application with srun --mpi=pmix instead of mpirun)",
             o->app);
        return -1;
    }
    if (o->launcher) {
        /* One agent per task, whose rendezvous numbers the workers. */
        char who[512];
        if (o->launcher_script)
            snprintf(who, sizeof who, "%s, started by %s,", o->launcher, o->launcher_script);
        else
            snprintf(who, sizeof who, "%s", o->launcher);
        keep(s->d, s->site, s->quiet,
             "%s numbers the ranks itself, so topomap's placement of srun's tasks cannot "
             "reach them (a static rendezvous that keeps a placement: \"Launching\" in "
             "topomap's training.md)",
             who);
        return -1;
    }
    if (o->conflict) {
        keep(s->d, s->site, s->quiet, "%s given, so Slurm places the ranks", o->conflict);
        return -1;
    }
    if (!s->site->topology) {
        keep(s->d, s->site, 0, "no topology configured (topology= in plugstack.conf)");
        return -1;
    }
    return 0;
}

/* The allocation from the environment and Slurm's layout of the step on it. */
static int predict_layout(struct step *s, topomap_getenv_fn env, void *env_arg)
{
    const char *nodelist = tmsp_env(env, env_arg, "SLURM_JOB_NODELIST");
    const char *cpuspec = tmsp_env(env, env_arg, "SLURM_JOB_CPUS_PER_NODE");
    if (!nodelist || !cpuspec) {
        keep(s->d, s->site, s->quiet,
             "not inside an allocation, and srun picks its nodes after topomap runs (use salloc "
             "or sbatch)");
        return -1;
    }
    s->hl = topomap_hostlist_parse(nodelist, s->err, sizeof s->err);
    if (!s->hl) {
        keep(s->d, s->site, 0, "SLURM_JOB_NODELIST: %s", s->err);
        return -1;
    }
    s->nalloc = (int)topomap_hostlist_count(s->hl);
    s->cpus = malloc((size_t)s->nalloc * sizeof *s->cpus);
    s->tasks = malloc((size_t)s->nalloc * sizeof *s->tasks);
    s->names = malloc((size_t)s->nalloc * sizeof *s->names);
    if (!s->cpus || !s->tasks || !s->names) {
        keep(s->d, s->site, 0, "out of memory");
        return -1;
    }
    /* 26.05's task order depends on the cluster's configuration (release.c). */
    struct topomap_srun o = *s->o;
    char conferr[TOPOMAP_ERRLEN] = "";
    if (o.rel && o.rel->topo_order) {
        const char *conf = tmsp_slurm_conf(env, env_arg);
        o.task_order = tmsp_slurm_task_order(conf, conferr,
                                             sizeof conferr);
    }
    if (tmsp_cpus_per_node(cpuspec, s->nalloc, s->cpus, s->err, sizeof s->err) < 0 ||
        tmsp_slurm_layout(&o, s->nalloc, s->cpus, &s->nstep, s->tasks, s->err,
                          sizeof s->err) < 0) {
        /* A layout this release makes from what srun cannot know (ENOTSUP)
         * is the release's doing: declined, silently under the site
         * default. */
        int why = conferr[0] && strstr(s->err, "slurm.conf"); /* say what was unreadable */
        if (errno == ENOTSUP)
            decline(s->d, s->quiet, "cannot predict Slurm's layout: %s%s%s%s", s->err,
                    why ? " (" : "", why ? conferr : "", why ? ")" : "");
        else
            keep(s->d, s->site, 0, "cannot predict Slurm's layout: %s", s->err);
        return -1;
    }
    for (int i = 0; i < s->nstep; i++) {
        s->names[i] = topomap_hostlist_get(s->hl, (size_t)i);
        s->n += s->tasks[i];
    }
    s->d->nranks = s->n;
    return 0;
}

/* Lookups left behind and still reading (tmsp_lookups_left). */
static int lookups_left;

int tmsp_lookups_left(void)
{
    return __atomic_load_n(&lookups_left, __ATOMIC_SEQ_CST);
}

/* A lookup in the store, run by a thread of its own (store_find). */
struct lookup {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;      /* the thread has finished: prof, e, err are set */
    int abandoned; /* the decision went on without it: the thread frees all */
    char *dir, *name;
    uid_t uid;
    int nranks;
    topomap_profile_t *prof;
    int e;
    char err[TOPOMAP_ERRLEN];
};

static void lookup_free(struct lookup *l)
{
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    free(l->dir);
    free(l->name);
    free(l);
}

/* A lookup of @p pname for a thread of its own, its condition variable on
 * CLOCK_MONOTONIC like the deadline; NULL when out of memory or the
 * mutex or condition variable cannot be made. */
static struct lookup *lookup_new(const char *dir, const char *pname, uid_t uid, int n)
{
    struct lookup *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_condattr_t ca;
    int ok = pthread_condattr_init(&ca) == 0;
    if (ok) {
        ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&l->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (ok && pthread_mutex_init(&l->mu, NULL) != 0) {
        pthread_cond_destroy(&l->cv);
        ok = 0;
    }
    if (!ok) {
        free(l);
        return NULL;
    }
    l->dir = dir ? strdup(dir) : NULL;
    l->name = strdup(pname);
    l->uid = uid;
    l->nranks = n;
    if ((dir && !l->dir) || !l->name) {
        lookup_free(l);
        return NULL;
    }
    return l;
}

static void *lookup_run(void *arg)
{
    struct lookup *l = arg;
    topomap_profile_t *p =
        topomap_store_find(l->dir, l->uid, l->name, l->nranks, NULL, NULL, 0, l->err, sizeof l->err);
    int e = errno;
    pthread_mutex_lock(&l->mu);
    l->prof = p;
    l->e = e;
    l->done = 1;
    int abandoned = l->abandoned;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    if (abandoned) {
        topomap_profile_free(p);
        lookup_free(l);
        __atomic_sub_fetch(&lookups_left, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

/* The store's lookup of @p pname, waited for until the deadline at most: a
 * store on a slow or hung filesystem (NFS) must not hold the launch past
 * time_limit, and its reads cannot be interrupted. So the lookup runs in a
 * detached thread; past the deadline the decision goes on without it (*late
 * = 1, NULL) and the thread frees what it gets when its reads end, or dies
 * with srun (the waits of FUSE and NFS end on a fatal signal). Without a
 * thread (none could be made) the lookup runs here. */
static topomap_profile_t *store_find(struct step *s, const char *pname, int n, int *late)
{
    const char *dir = s->site->profiles;
    struct lookup *l = lookup_new(dir, pname, s->o->uid, n);
    pthread_t th;
    *late = 0;
    if (!l || pthread_create(&th, NULL, lookup_run, l) != 0) {
        if (l)
            lookup_free(l);
        return topomap_store_find(dir, s->o->uid, pname, n, NULL, NULL, 0, s->err, sizeof s->err);
    }
    pthread_detach(th);
    struct timespec ts;
    ts.tv_sec = (time_t)s->deadline;
    ts.tv_nsec = (long)((s->deadline - (double)ts.tv_sec) * 1e9);
    pthread_mutex_lock(&l->mu);
    while (!l->done && pthread_cond_timedwait(&l->cv, &l->mu, &ts) != ETIMEDOUT)
        ;
    if (!l->done) {
        l->abandoned = 1;
        __atomic_add_fetch(&lookups_left, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&l->mu);
        *late = 1;
        return NULL;
    }
    pthread_mutex_unlock(&l->mu);
    topomap_profile_t *p = l->prof;
    snprintf(s->err, sizeof s->err, "%s", l->err);
    int e = l->e;
    lookup_free(l);
    errno = e;
    return p;
}

/* The profile: a file when the name has a '/', else from the store. */
static int find_profile(struct step *s)
{
    const struct topomap_srun *o = s->o;
    const char *pname = o->profile ? o->profile : o->app;
    int n = s->n;
    if (!pname) {
        keep(s->d, s->site, s->quiet, "no profile name (give --topomap-profile=NAME)");
        return -1;
    }
    if (strchr(pname, '/')) {
        s->prof = topomap_profile_load(pname, TOPOMAP_FMT_AUTO, s->err, sizeof s->err);
        /* Another rank count: the store's rule (a process grid rescaled). */
        if (s->prof)
            s->prof = topomap_profile_adapt(s->prof, n, pname, s->err, sizeof s->err);
    } else {
        /* A budget spent already: no lookup (it could hang). */
        if (out_of_time(s, "predicting Slurm's layout"))
            return -1;
        int late;
        s->prof = store_find(s, pname, n, &late);
        if (late) {
            keep(s->d, s->site, 0,
                 "reading profile '%s' from the store did not end within time_limit=%gms "
                 "(its filesystem is slow or hung)",
                 pname, s->site->time_limit);
            return -1;
        }
    }
    const char *from = s->prof ? topomap_profile_meta(s->prof, "rescaled_from") : NULL;
    if (from && o->verbose)
        snprintf(s->d->note, sizeof s->d->note,
                 "topomap: profile '%s' was recorded with %s ranks; it is a process grid, so "
                 "its %d-rank version (grid %s) was synthesised from it",
                 pname, from, n, topomap_profile_meta(s->prof, "grid"));
    if (!s->prof) {
        /* The site default quietly skips applications nobody profiled. */
        int missing = errno == ENOENT;
        keep(s->d, s->site, s->quiet && missing, "%s", s->err);
        return -1;
    }
    return out_of_time(s, "loading the profile");
}

/* The topology, the step's slots on it, and the mapping within time_limit. */
static int compute_mapping(struct step *s, topomap_getenv_fn env, void *env_arg)
{
    const struct topomap_site *site = s->site;
    const char *path = site->topology;
    char found[4096];
    if (!strcmp(path, "slurm")) {
        /* The file the cluster describes its network in, beside slurm.conf. */
        const char *conf = tmsp_slurm_conf(env, env_arg);
        if (topomap_slurm_topology_path(conf, found,
                                        sizeof found, s->err, sizeof s->err) < 0) {
            keep(s->d, site, 0, "topology=slurm: %s", s->err);
            return -1;
        }
        path = found;
    }
    s->topo = topomap_topology_load_named(path, site->topology_name, s->err, sizeof s->err);
    if (!s->topo) {
        keep(s->d, site, 0, "topology: %s", s->err);
        return -1;
    }
    s->step_hosts = topomap_hostlist_compress(s->names, (size_t)s->nstep);
    for (int i = 0; i < s->nstep; i++)
        tmsp_sb_printf(&s->slots, i ? ",%d" : "%d", s->tasks[i]);
    if (!s->step_hosts || s->slots.oom) {
        keep(s->d, site, 0, "out of memory");
        return -1;
    }
    s->alloc = topomap_alloc_create(s->topo, s->step_hosts, s->slots.s, s->err, sizeof s->err);
    if (!s->alloc) {
        keep(s->d, site, 0, "%s", s->err);
        return -1;
    }
    s->r2s = malloc((size_t)s->n * sizeof *s->r2s);
    if (!s->r2s) {
        keep(s->d, site, 0, "out of memory");
        return -1;
    }
    if (out_of_time(s, "loading the profile and topology") < 0)
        return -1;
    topomap_opts_t opts;
    topomap_opts_init(&opts);
    tmsp_site_opts(site, &opts);
    /* The mapping leaves a tenth of what is left for judging and writing
     * it, as `topomap map --time-limit` does (one rule, common.c). */
    opts.time_limit = tmsp_map_time_limit(s->deadline);
    if (topomap_map(s->algo, s->prof, s->alloc, &opts, s->r2s, s->err, sizeof s->err) < 0) {
        if (errno == ETIMEDOUT)
            keep(s->d, site, 0, "%s did not finish within time_limit=%gms", s->algo,
                 site->time_limit);
        else
            keep(s->d, site, 0, "%s: %s", s->algo, s->err);
        return -1;
    }
    /* Past the limit, topomap_map() has failed (ETIMEDOUT) or, for auto,
     * returned its best mapping so far: that one is used. */
    s->d->seconds = tmsp_now() - s->t0;
    return 0;
}

/* The mapping against Slurm's layout: the summary, and min_gain. */
static int judge_gain(struct step *s)
{
    struct topomap_decision *d = s->d;
    const struct topomap_site *site = s->site;
    int n = s->n;
    int *ident = malloc((size_t)n * sizeof *ident);
    if (!ident) {
        keep(d, site, 0, "out of memory");
        return -1;
    }
    /* Slots are numbered in Slurm's block order, so the identity is Slurm's
     * default layout. */
    for (int r = 0; r < n; r++)
        ident[r] = r;
    topomap_metrics_t mdef = TOPOMAP_METRICS_INIT, mnew = TOPOMAP_METRICS_INIT;
    int bad = topomap_eval_slots(s->prof, s->alloc, ident, &mdef) < 0 ||
              topomap_eval_slots(s->prof, s->alloc, s->r2s, &mnew) < 0;
    free(ident);
    if (bad) {
        keep(d, site, 0, "cannot evaluate the placement");
        return -1;
    }
    d->hop_bytes_default = mdef.hop_bytes;
    d->hop_bytes_new = mnew.hop_bytes;
    double gain = mdef.hop_bytes > 0 ? (mdef.hop_bytes - mnew.hop_bytes) / mdef.hop_bytes : 0;
    snprintf(d->summary, sizeof d->summary,
             "topomap: %s on %d ranks, nodes %s (%s tasks per node): hop-bytes %.0f -> %.0f "
             "(%+.1f%%), %.1f ms",
             s->algo, n, s->step_hosts, s->slots.s, mdef.hop_bytes, mnew.hop_bytes,
             gain == 0 ? 0.0 : -100.0 * gain, 1000.0 * d->seconds);

    /* The metric min_gain compares: hop-bytes, or the busiest link's load. */
    const char *gname = site->gain_congestion ? "busiest-link load" : "hop-bytes";
    double gdef = site->gain_congestion ? mdef.congestion_max : mdef.hop_bytes;
    double gnew = site->gain_congestion ? mnew.congestion_max : mnew.hop_bytes;
    if (site->gain_congestion) {
        gain = gdef > 0 ? (gdef - gnew) / gdef : 0;
        snprintf(d->summary + strlen(d->summary), sizeof d->summary - strlen(d->summary),
                 ", busiest link %.0f -> %.0f bytes", gdef, gnew);
    }
    int same_nodes = 1;
    for (int r = 0; r < n && same_nodes; r++)
        same_nodes =
            topomap_alloc_slot_node(s->alloc, s->r2s[r]) == topomap_alloc_slot_node(s->alloc, r);
    if (!same_nodes && gnew < gdef * (1 - site->min_gain))
        return 0;
    d->outcome = TOPOMAP_KEEP;
    if (same_nodes)
        strncat(d->summary, ": same nodes as Slurm's layout, kept",
                sizeof d->summary - strlen(d->summary) - 1);
    else
        strncat(d->summary, ": gain below min_gain, Slurm's layout kept",
                sizeof d->summary - strlen(d->summary) - 1);
    if (d->explicit_req && !same_nodes && gain > 0)
        snprintf(d->message, sizeof d->message,
                 "topomap: %s would save %.1f%% of %s, less than min_gain=%g%%; "
                 "using Slurm's default layout",
                 s->algo, 100.0 * gain, gname, 100.0 * site->min_gain);
    else if (d->explicit_req && !same_nodes)
        snprintf(d->message, sizeof d->message,
                 "topomap: %s does not reduce %s (%.0f -> %.0f); using Slurm's "
                 "default layout",
                 s->algo, gname, gdef, gnew);
    return -1;
}

/* Each node's cores, renumbered 0..k-1 in the algorithm's order: Slurm gives
 * the step its own cores on each node, and the k-th of them is what the node
 * binds. core[r] gets rank r's index. 0 or -1 (ENOMEM). */
static int bind_indices(const struct step *s, const int *nodeix, int *core)
{
    int n = s->n;
    int *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return -1;
    for (int i = 0; i < s->nstep; i++) {
        int m = 0;
        for (int r = 0; r < n; r++)
            if (nodeix[r] == i)
                tmp[m++] = topomap_alloc_slot_core(s->alloc, s->r2s[r]);
        qsort(tmp, (size_t)m, sizeof *tmp, tmsp_cmp_int);
        int u = 0;
        for (int k = 0; k < m; k++)
            if (!u || tmp[u - 1] != tmp[k])
                tmp[u++] = tmp[k];
        for (int r = 0; r < n; r++)
            if (nodeix[r] == i) {
                int c = topomap_alloc_slot_core(s->alloc, s->r2s[r]);
                int *hit = bsearch(&c, tmp, (size_t)u, sizeof *tmp, tmsp_cmp_int);
                core[r] = (int)(hit - tmp);
            }
    }
    free(tmp);
    return 0;
}

/* gpu_bind=yes: each rank's slot on its node, which is its GPU, when every
 * node of the step has GPUs (core: scratch of n ints). 0 or -1 (ENOMEM). */
static int gpu_slots(const struct step *s, int *core)
{
    for (int i = 0; i < s->nstep; i++)
        if (topomap_topology_node_gpus(s->topo, topomap_alloc_node(s->alloc, i)) <= 0)
            return 0;
    for (int r = 0; r < s->n; r++)
        core[r] = topomap_alloc_slot_core(s->alloc, s->r2s[r]);
    s->d->gpu = tmsp_bind_encode(core, s->n, 1);
    return s->d->gpu ? 0 : -1;
}

/* Remap: hostnames, per-node core indices, the PMI2 mapping. */
static void build_remap(struct step *s)
{
    struct topomap_decision *d = s->d;
    int n = s->n;
    int *core = malloc((size_t)n * sizeof *core), *nodeix = malloc((size_t)n * sizeof *nodeix);
    d->hosts = calloc((size_t)n, sizeof *d->hosts);
    if (!d->hosts || !core || !nodeix) {
        keep(d, s->site, 0, "out of memory");
        goto out;
    }
    /* Step node index of each topology node. */
    for (int r = 0; r < n; r++) {
        int tn = topomap_alloc_slot_node(s->alloc, s->r2s[r]);
        nodeix[r] = -1;
        for (int i = 0; i < s->nstep; i++)
            if (topomap_alloc_node(s->alloc, i) == tn) {
                nodeix[r] = i;
                break;
            }
        d->hosts[r] = tmsp_strdup(topomap_topology_node_name(s->topo, tn));
        if (!d->hosts[r] || nodeix[r] < 0) {
            keep(d, s->site, 0, "internal error: rank %d on no allocated node", r);
            goto out;
        }
    }
    /* A topology that does not know the inside of the nodes (Slurm's own
     * files give each node one core) cannot choose cores: Slurm binds.
     * Without -O Slurm gives each task its own CPUs, so a node with fewer
     * cores than tasks is such a node; under -O tasks share cores anyway. */
    int cores_known = 1;
    for (int i = 0; i < s->nstep && cores_known && !s->o->overcommit; i++)
        cores_known = topomap_topology_node_cores(s->topo, topomap_alloc_node(s->alloc, i)) >=
                      s->tasks[i];
    if (s->site->bind && !cores_known)
        strncat(d->summary, ": binding left to Slurm (the topology does not describe the cores)",
                sizeof d->summary - strlen(d->summary) - 1);
    if (s->site->bind && cores_known) {
        if (bind_indices(s, nodeix, core) < 0) {
            keep(d, s->site, 0, "out of memory");
            goto out;
        }
        d->bind =
            tmsp_bind_encode(core, n, (int)(s->o->cpus_per_task > 0 ? s->o->cpus_per_task : 1));
    }
    if (s->site->gpu_bind && gpu_slots(s, core) < 0) {
        keep(d, s->site, 0, "out of memory");
        goto out;
    }
    d->pmi2 = tmsp_pmi2_mapping(nodeix, n, TOPOMAP_PMI2_MAXLEN);
    if (!d->pmi2 && errno != E2BIG) {
        keep(d, s->site, 0, "out of memory");
        goto out;
    }
    d->outcome = TOPOMAP_REMAP;
    strncat(d->summary, ": remapped", sizeof d->summary - strlen(d->summary) - 1);
out:
    free(core);
    free(nodeix);
}

/* The admin's log line, what the user sees, and the step's memory. */
static void finish(struct step *s)
{
    struct topomap_decision *d = s->d;
    if (d->outcome != TOPOMAP_OFF) {
        const char *line = d->outcome == TOPOMAP_REMAP || !d->message[0] ? d->summary : d->message;
        if (!strncmp(line, "topomap: ", 9))
            line += 9;
        snprintf(d->log, sizeof d->log, "%s", line);
        tmsp_clean(d->log);
    }
    if (d->outcome != TOPOMAP_REMAP && d->hosts) {
        for (int i = 0; i < d->nranks; i++)
            free(d->hosts[i]);
        free(d->hosts);
        d->hosts = NULL;
        free(d->bind);
        d->bind = NULL;
        free(d->gpu);
        d->gpu = NULL;
        free(d->pmi2);
        d->pmi2 = NULL;
    }
    if (!s->o->verbose || (d->message[0] && !strcmp(d->summary, d->message)))
        d->summary[0] = 0; /* the summary is for --topomap-verbose only */
    tmsp_clean(d->summary);
    tmsp_clean(d->note);
    free(s->step_hosts);
    free(s->slots.s);
    free(s->cpus);
    free(s->tasks);
    free(s->names);
    free(s->r2s);
    topomap_alloc_free(s->alloc);
    topomap_profile_free(s->prof);
    topomap_topology_free(s->topo);
    topomap_hostlist_free(s->hl);
}

void tmsp_decide(const struct topomap_site *site, const struct topomap_srun *o,
                 topomap_getenv_fn env, void *env_arg, struct topomap_decision *d)
{
    struct step s = {.site = site, .o = o, .d = d, .t0 = tmsp_now()};
    memset(d, 0, sizeof *d);
    s.algo = o->algo ? o->algo : site->dflt ? site->dflt : "off";
    d->explicit_req = o->algo != NULL;
    d->algo = tmsp_strdup(s.algo);
    s.quiet = !d->explicit_req;
    s.deadline = s.t0 + site->time_limit / 1000.0;
    if (check_request(&s) == 0 && predict_layout(&s, env, env_arg) == 0 && find_profile(&s) == 0 &&
        compute_mapping(&s, env, env_arg) == 0 && judge_gain(&s) == 0) {
        build_remap(&s);
        /* A mapping found within the limit is used even when judging and
         * writing it end past the limit (a loaded submit host): falling back
         * then would throw away the work the limit paid for. The admin's
         * log line says so. */
        double now = tmsp_now();
        if (d->outcome == TOPOMAP_REMAP && now > s.deadline)
            snprintf(d->summary + strlen(d->summary), sizeof d->summary - strlen(d->summary),
                     " (judged and written at %.3g ms, past time_limit=%gms)",
                     1000.0 * (now - s.t0), site->time_limit);
    }
    finish(&s);
}
