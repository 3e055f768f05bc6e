/* SPDX-License-Identifier: BSD-3-Clause */
/* The placement decision on the srun side (see policy.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

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
    topomap_sp_clean(why); /* it quotes inputs: the user's, files' */
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

void topomap_decide(const struct topomap_site *site, const struct topomap_srun *o,
                    topomap_getenv_fn env, void *env_arg, struct topomap_decision *d)
{
    char err[TOPOMAP_ERRLEN] = "";
    double t0 = topomap_sp_now();
    memset(d, 0, sizeof *d);
    const char *algo = o->algo ? o->algo : site->dflt ? site->dflt : "off";
    d->explicit_req = o->algo != NULL;
    d->algo = topomap_sp_strdup(algo);
    /* The site default stays silent about ordinary reasons to do nothing. */
    int quiet = !d->explicit_req;

    topomap_topology_t *topo = NULL;
    topomap_hostlist_t *hl = NULL;
    topomap_profile_t *prof = NULL;
    topomap_alloc_t *alloc = NULL;
    int *cpus = NULL, *tasks = NULL, *r2s = NULL, *ident = NULL, *core = NULL, *nodeix = NULL;
    const char **names = NULL;
    char *step_hosts = NULL;
    struct topomap_sbuf slots = {0}; /* tasks per node, "4,4,2": the allocation and the summary */
    const char *nodelist, *cpuspec, *pname;
    int nalloc = 0, nstep = 0, n = 0;

    if (!strcmp(algo, "off") || !strcmp(algo, "help")) { /* help: the option callback lists */
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
    if (!o->rel) {
        keep(d, site, 0, "Slurm %s is not a release this plugin was built and tested for (%s)",
             o->release_seen[0] ? o->release_seen : "(unknown)", topomap_release_list());
        goto out;
    }
    if (o->app && (!strcmp(o->app, "prted") || !strcmp(o->app, "orted"))) {
        /* Open MPI's mpirun inside the job starts one daemon per node with
         * srun; the ranks it then starts are not srun's to place. */
        keep(d, site, quiet,
             "this srun starts Open MPI's %s daemons for mpirun, whose ranks topomap cannot "
             "place (launch the application with srun --mpi=pmix instead of mpirun)",
             o->app);
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
    nodelist = topomap_sp_env(env, env_arg, "SLURM_JOB_NODELIST");
    cpuspec = topomap_sp_env(env, env_arg, "SLURM_JOB_CPUS_PER_NODE");
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
        /* A layout this release makes from the job's history (ENOTSUP) is an
         * ordinary reason for the site default to do nothing. */
        keep(d, site, quiet && errno == ENOTSUP, "cannot predict Slurm's layout: %s", err);
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
        prof = topomap_store_find(site->profiles, o->uid, pname, n, NULL, NULL, 0, err,
                                  sizeof err);
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
        topomap_sb_printf(&slots, i ? ",%d" : "%d", tasks[i]);
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
    double left = site->time_limit / 1000.0 - (topomap_sp_now() - t0);
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
    d->seconds = topomap_sp_now() - t0;

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
        d->hosts[r] = topomap_sp_strdup(topomap_topology_node_name(topo, tn));
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
            qsort(tmp, (size_t)m, sizeof *tmp, topomap_sp_cmp_int);
            int u = 0;
            for (int k = 0; k < m; k++)
                if (!u || tmp[u - 1] != tmp[k])
                    tmp[u++] = tmp[k];
            for (int r = 0; r < n; r++)
                if (nodeix[r] == i) {
                    int c = topomap_alloc_slot_core(alloc, r2s[r]);
                    int *hit = bsearch(&c, tmp, (size_t)u, sizeof *tmp, topomap_sp_cmp_int);
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
    /* For the admin's log, whatever the user sees. */
    if (d->outcome != TOPOMAP_OFF) {
        const char *line = d->outcome == TOPOMAP_REMAP || !d->message[0] ? d->summary : d->message;
        if (!strncmp(line, "topomap: ", 9))
            line += 9;
        snprintf(d->log, sizeof d->log, "%s", line);
        topomap_sp_clean(d->log);
    }
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
    topomap_sp_clean(d->summary);
    topomap_sp_clean(d->note);
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
