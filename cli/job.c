/* SPDX-License-Identifier: BSD-3-Clause */
/* What map, compare, eval and plan work on: the profile, the topology (a
 * path, or the name of a shipped description), the allocation (--nodes, or
 * the Slurm job the command runs in), and running one algorithm. Failures
 * are one line: bad usage exits 2, bad input 1. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"

#ifndef TOPOMAP_TOPOLOGIESDIR
#define TOPOMAP_TOPOLOGIESDIR "/usr/local/share/topomap/topologies"
#endif

topomap_profile_t *load_profile(const struct args *a)
{
    char err[TOPOMAP_ERRLEN] = "";
    double t0 = now();
    progress(a, "reading the profile %s", a->profile);
    topomap_profile_t *p = topomap_profile_load(a->profile, a->profile_format, err, sizeof err);
    if (!p)
        input_error("%s", liberr(err, a->profile, errno));
    char b[40];
    progress(a, "profile: %d ranks, %zu entries, %s bytes (%.2f s)", topomap_profile_nranks(p),
             topomap_profile_nedges(p), num(topomap_profile_total_bytes(p), b, sizeof b),
             now() - t0);
    return p;
}

/* ---- topologies by name ------------------------------------------------- */

/* The source tree's topologies when this binary is the one built in the
 * build tree (not installed): a clone finds its shipped topologies by name. */
static const char *build_tree_dir(void)
{
#if defined(TOPOMAP_BUILDDIR) && defined(TOPOMAP_SRCTOPODIR)
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    size_t bl = strlen(TOPOMAP_BUILDDIR);
    if (n > 0) {
        exe[n] = 0;
        if (!strncmp(exe, TOPOMAP_BUILDDIR, bl) && exe[bl] == '/' &&
            access(TOPOMAP_SRCTOPODIR, R_OK) == 0)
            return TOPOMAP_SRCTOPODIR;
    }
#endif
    return NULL;
}

int topology_dirs(const char **dirs, int max)
{
    static char path[4096];
    int n = 0;
    const char *env = getenv("TOPOMAP_TOPOLOGY_PATH");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
        for (char *save = NULL, *d = strtok_r(path, ":", &save); d && n < max - 2;
             d = strtok_r(NULL, ":", &save))
            if (*d)
                dirs[n++] = d;
    }
    if (n < max)
        dirs[n++] = TOPOMAP_TOPOLOGIESDIR;
    const char *build = build_tree_dir();
    char *rb = build ? realpath(build, NULL) : NULL;
    for (int i = 0; rb && i < n; i++) {
        char *ri = realpath(dirs[i], NULL);
        if (ri && !strcmp(ri, rb))
            build = NULL; /* already searched */
        free(ri);
    }
    free(rb);
    if (build && n < max)
        dirs[n++] = build;
    return n;
}

/* "slurm": the file beside slurm.conf ($SLURM_CONF, else Slurm's default),
 * as topology=slurm in plugstack.conf. */
static char *slurm_topology(char *err, size_t errlen)
{
    const char *conf = getenv("SLURM_CONF");
    char path[4096], e[TOPOMAP_ERRLEN] = "";
    if (!conf || !*conf)
        conf = "/etc/slurm/slurm.conf";
    if (topomap_slurm_topology_path(conf, path, sizeof path, e, sizeof e) < 0) {
        snprintf(err, errlen, "slurm (the topology beside %s): %s", conf, liberr(e, conf, errno));
        return NULL;
    }
    return strdup(path);
}

char *find_topology_err(const char *name, char *err, size_t errlen)
{
    if (strchr(name, '/') || access(name, F_OK) == 0)
        return strdup(name);
    if (!strcmp(name, "slurm"))
        return slurm_topology(err, errlen);
    const char *dirs[32];
    int nd = topology_dirs(dirs, 32);
    for (int i = 0; i < nd; i++) {
        for (int ext = 0; ext < 2; ext++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s%s", dirs[i], name, ext ? ".yaml" : "");
            if (access(path, R_OK) == 0)
                return strdup(path);
        }
    }
    /* Name the shipped ones, so that a typo shows its fix. */
    size_t at = (size_t)snprintf(err, errlen,
                                 "%s: no such file, nor a shipped topology of that name (see "
                                 "'topomap topology list')",
                                 name);
    int listed = 0;
    for (int i = 0; i < nd && at < errlen; i++) {
        struct dirent **ents;
        int ne = scandir(dirs[i], &ents, NULL, alphasort);
        for (int k = 0; k < ne; k++) {
            size_t len = strlen(ents[k]->d_name);
            if (len > 5 && !strcmp(ents[k]->d_name + len - 5, ".yaml") && at < errlen)
                at += (size_t)snprintf(err + at, errlen - at, "%s%.*s",
                                       listed++ ? ", " : "; shipped: ", (int)len - 5,
                                       ents[k]->d_name);
            free(ents[k]);
        }
        if (ne >= 0)
            free(ents);
    }
    if (!listed && at < errlen)
        snprintf(err + at, errlen - at,
                 "; none found in %s: set TOPOMAP_TOPOLOGY_PATH to a directory of "
                 "them",
                 TOPOMAP_TOPOLOGIESDIR);
    return NULL;
}

char *find_topology(const char *name)
{
    char err[TOPOMAP_ERRLEN];
    return find_topology_err(name, err, sizeof err);
}

topomap_topology_t *load_topology(const struct args *a, const char *name)
{
    char err[TOPOMAP_ERRLEN] = "";
    char *path = find_topology_err(name, err, sizeof err);
    if (!path)
        input_error("%s", err);
    double t0 = now();
    topomap_topology_t *t =
        topomap_topology_load_named(path, a ? a->topology_name : NULL, err, sizeof err);
    if (!t)
        input_error("%s", liberr(err, path, errno));
    if (a && a->cores_per_node > 0) {
        /* One level of cores, costed as the library's default for one level. */
        double cost[2] = {topomap_topology_hop_cost(t) / 2, 0};
        int arity = a->cores_per_node;
        if (topomap_topology_set_node_levels(t, 1, &arity, cost, err, sizeof err) < 0)
            input_error("--cores-per-node: %s", liberr(err, path, errno));
    }
    if (a)
        progress(a, "topology %s: %s, %d nodes of %s%d cores (%.2f s)", path,
                 topomap_topology_kind(t), topomap_topology_nnodes(t),
                 topomap_topology_ntypes(t) > 1 ? "up to " : "", topomap_topology_cores(t),
                 now() - t0);
    free(path);
    return t;
}

/* ---- the allocation ----------------------------------------------------- */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The job's node list, or NULL outside a job. */
static const char *job_nodelist(const char **from)
{
    const char *v = env(*from = "SLURM_JOB_NODELIST");
    if (!v)
        v = env(*from = "SLURM_NODELIST");
    return v;
}

void check_slot_options(const struct args *a)
{
    if (a->tpn && a->slots)
        usage_error("--tasks-per-node and --slots cannot be used together");
    if (a->tpn)
        parse_long_opt("--tasks-per-node", a->tpn, 1, 1 << 20);
}

void require_allocation(const struct args *a)
{
    const char *from;
    if (!a->nodes && !job_nodelist(&from))
        usage_error("no allocation: give --nodes HOSTLIST (--nodes all: every node of the "
                    "topology), or run inside a Slurm job");
}

/* Slots per node of @al as a "--slots" list, divided by divide; with cap, at
 * most each node's own cores. Caller frees. */
static char *slot_list(const topomap_topology_t *t, const topomap_alloc_t *al, int divide,
                       int cap)
{
    int nn = topomap_alloc_nnodes(al), ns = topomap_alloc_nslots(al);
    char *s = malloc((size_t)nn * 12 + 1);
    if (!s)
        input_error("out of memory");
    size_t len = 0;
    for (int i = 0, slot = 0; i < nn; i++) {
        int node = topomap_alloc_node(al, i), c = 0;
        while (slot < ns && topomap_alloc_slot_node(al, slot) == node) {
            c++;
            slot++;
        }
        c = c / divide > 0 ? c / divide : 1;
        if (cap && c > topomap_topology_node_cores(t, node))
            c = topomap_topology_node_cores(t, node); /* its node type's cores */
        len += (size_t)sprintf(s + len, "%s%d", i ? "," : "", c);
    }
    return s;
}

static topomap_alloc_t *alloc_or_die(const topomap_topology_t *t, const char *nodes,
                                     const char *slots, const char *nodes_from)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_alloc_t *al = topomap_alloc_create(t, nodes, slots, err, sizeof err);
    if (!al) {
        if (strcmp(nodes_from, "--nodes"))
            input_error("%s; these are the nodes of %s (--nodes chooses others)",
                        liberr(err, "allocation", errno), nodes_from);
        input_error("%s", liberr(err, "allocation", errno));
    }
    return al;
}

const char *fit_hint(const topomap_topology_t *t, int e)
{
    if (e == E2BIG && topomap_topology_cores(t) == 1)
        return " (the topology gives each node one core, as a Slurm topology.conf "
               "does: "
               "--cores-per-node N says how many it has)";
    return "";
}

topomap_alloc_t *make_alloc(struct args *a, const topomap_topology_t *t)
{
    char *all = NULL, *derived = NULL;
    const char *nodes = a->nodes, *slots = a->tpn ? a->tpn : a->slots;
    int in_job = 0, capped = 0;
    require_allocation(a);
    a->nodes_from = "--nodes";
    a->slots_from = a->tpn ? "--tasks-per-node" : a->slots ? "--slots" : "the cores";
    if (nodes && !strcmp(nodes, "all")) {
        int nn = topomap_topology_nnodes(t);
        const char **names = malloc(sizeof(char *) * (size_t)(nn > 0 ? nn : 1));
        if (!names)
            input_error("out of memory");
        for (int i = 0; i < nn; i++)
            names[i] = topomap_topology_node_name(t, i);
        all = topomap_hostlist_compress(names, (size_t)nn);
        free(names);
        if (!all)
            input_error("cannot list the nodes of the topology: %s", strerror(errno));
        nodes = all;
    } else if (!nodes) {
        nodes = job_nodelist(&a->nodes_from);
        in_job = 1;
        if (!slots && env("SLURM_TASKS_PER_NODE") && (env("SLURM_NTASKS") || env("SLURM_NPROCS"))) {
            slots = env(a->slots_from = "SLURM_TASKS_PER_NODE");
        } else if (!slots && env("SLURM_JOB_CPUS_PER_NODE")) {
            /* CPUs / CPUs per task, at most the cores (CPUs may be hardware
             * threads). */
            a->slots_from = "SLURM_JOB_CPUS_PER_NODE";
            topomap_alloc_t *cpus =
                alloc_or_die(t, nodes, env("SLURM_JOB_CPUS_PER_NODE"), a->nodes_from);
            const char *cpt = env("SLURM_CPUS_PER_TASK");
            int div = cpt ? atoi(cpt) : 1;
            char *uncapped = slot_list(t, cpus, div > 0 ? div : 1, 0);
            slots = derived = slot_list(t, cpus, div > 0 ? div : 1, 1);
            capped = strcmp(uncapped, derived) != 0;
            free(uncapped);
            topomap_alloc_free(cpus);
        }
    }
    topomap_alloc_t *al = alloc_or_die(t, nodes, slots, a->nodes_from);

    /* At most one rank per core. */
    int ns = topomap_alloc_nslots(al);
    for (int s = 0, first = 0; s <= ns; s++) {
        if (s < ns && topomap_alloc_slot_node(al, s) == topomap_alloc_slot_node(al, first))
            continue;
        int node = topomap_alloc_slot_node(al, first);
        int cores = topomap_topology_node_cores(t, node); /* its node type's */
        if (s - first > cores) {
            topomap_alloc_free(al);
            free(all);
            free(derived);
            input_error("%s gives %d slots on %s, which has %d core%s: topomap "
                        "places at most "
                        "one rank on a core%s",
                        a->slots_from, s - first, topomap_topology_node_name(t, node), cores,
                        cores == 1 ? "" : "s",
                        cores == 1 ? " (the topology gives each node one core, as a Slurm "
                                     "topology.conf does: --cores-per-node N says how many)"
                                   : "");
        }
        first = s;
    }
    if (in_job && !a->quiet) {
        const char *id = env("SLURM_JOB_ID");
        notice("using the allocation of Slurm job %s: %d nodes from %s, %d slots "
               "from %s%s; "
               "--nodes chooses others",
               id ? id : "(no SLURM_JOB_ID)", topomap_alloc_nnodes(al), a->nodes_from, ns,
               a->slots_from, capped ? " (at most one per core)" : "");
    }
    free(all);
    free(derived);
    return al;
}

/* ---- running an algorithm ----------------------------------------------- */

int is_auto(const char *algo)
{
    return !strcasecmp(algo, "auto") || !strcasecmp(algo, "auto+refine");
}

int default_limited(const char *algo)
{
    return is_auto(algo) || !strcasecmp(algo, "exact") || !strcasecmp(algo, "exact+refine");
}

void run_map(struct args *a, const char *algo, const topomap_profile_t *p,
             const topomap_alloc_t *al, int *r2s, double *seconds)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_opts_t o = a->o;
    if (default_limited(algo) && o.time_limit <= 0)
        o.time_limit = AUTO_DEFAULT_TIME_LIMIT;
    /* The limit counts from the start of the process, loading included, and
     * the mapping gets what the plugin's decision gets of its time_limit:
     * one rule (spank/common.c). */
    if (o.time_limit > 0)
        o.time_limit = tmsp_map_time_limit(cli_start + o.time_limit);
    a->chosen[0] = 0;
    a->time_limited = 0;
    progress(a, "running %s", algo);
    double t0 = now();
    int rc = topomap_map(algo, p, al, &o, r2s, err, sizeof err);
    *seconds = now() - t0;
    if (rc < 0) {
        int e = errno;
        input_error("%s%s", liberr(err, algo, e), fit_hint(topomap_alloc_topology(al), e));
    }
    progress(a, "%s done in %.3f s", algo, *seconds);
}
