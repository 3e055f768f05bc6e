/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap plan: what the Slurm plugin would decide for an srun command line,
 * computed by the plugin's own decision code (spank/policy.c: srun's options,
 * Slurm's default layout, the algorithm within the site's time limit, the
 * min_gain test), inside a job or outside one with a given allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli.h"
#include "plan.h"

const char help_plan[] =
    "Usage: topomap plan [--site 'PLUGSTACK LINE'] [--topology T] [--profile FILE]\n"
    "                    [--algo NAME] [--store DIR] [--slurm RELEASE]\n"
    "                    [--nodes HOSTLIST --slots SPEC] [-o FILE] [--json]\n"
    "                    [--verbose] -- srun [SRUN OPTIONS] PROGRAM [ARGS]\n"
    "\n"
    "A dry run of the SPANK plugin: what it would decide for this srun command\n"
    "line in this allocation, under this plugstack.conf line, decided by the\n"
    "plugin's own code. The check of a line before it is deployed: every key\n"
    "of --site is read as the plugin reads it (topology= a path or slurm,\n"
    "profiles=, default=, min_gain=, gain_metric=, time_limit=, bind=, strict=,\n"
    "...); a missing topology= file is an error here, where the plugin would\n"
    "keep Slurm's layout for every step. Prints the outcome (remap: a new\n"
    "layout; keep: Slurm's layout, and why; off: nothing asked; fail: what\n"
    "strict=1 fails the step for), the algorithm, the hop-bytes of Slurm's\n"
    "default layout and of the new one, the line the plugin would print, the\n"
    "binding in words (each node's ranks and their cores; core k is the k-th\n"
    "core Slurm gives the step on that node), the variables the plugin passes\n"
    "to the nodes, and the site keys in force. The srun line's own --topomap,\n"
    "--topomap-profile and -N/-n/-c/--ntasks-per-node options are read as srun\n"
    "reads them.\n"
    "\n"
    "Options:\n"
    "  --site 'LINE'         the plugstack.conf line: whole ('optional\n"
    "                        /usr/lib/.../topomap.so topology=... profiles=...')\n"
    "                        or its key=value words alone\n"
    "  --topology T          the machine description, instead of the line's\n"
    "                        topology=: a file, a shipped name, or slurm (the\n"
    "                        file beside $SLURM_CONF); required without --site\n"
    "                        topology=\n"
    "  --profile FILE        the profile, as --topomap-profile=FILE would give it\n"
    "                        (default: the srun line's --topomap-profile, else the\n"
    "                        program's name in the store)\n"
    "  --algo NAME           the algorithm when the srun line has no --topomap\n"
    "                        (as a user's --topomap=NAME; default: the site's\n"
    "                        default=, off unless --site sets it)\n"
    "  --store DIR           the profile store, instead of the line's profiles=\n"
    "  --slurm RELEASE       the Slurm release whose srun rules apply, one of\n"
    "                        22.05 23.02 23.11 24.05 24.11 25.05 25.11 26.05\n"
    "                        (default: the one the plugin is built for, else\n"
    "                        22.05); another MAJOR.MINOR: the plugin's decline;\n"
    "                        26.05 reads slurm.conf ($SLURM_CONF, else\n"
    "                        /etc/slurm/slurm.conf, else /run/slurm/conf/slurm.conf)\n"
    "                        for its task order\n"
    "  -w, --nodes HOSTLIST  the allocation's nodes (default inside a job:\n"
    "                        SLURM_JOB_NODELIST); required outside a job; also\n"
    "                        --nodelist\n"
    "  --slots SPEC          the allocation's CPUs per node, SLURM_JOB_CPUS_PER_NODE\n"
    "                        syntax (default: the job's, else every core)\n"
    "  -o, --output FILE     write the hostfile the plugin would hand to srun\n"
    "                        (SLURM_HOSTFILE) when it remaps\n"
    "  --json                print one JSON object (fields: doc/reference.md)\n"
    "  -v, --verbose         also print each rank's node and core\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 a decision was made (remap, keep or off), 1 bad input (a\n"
    "missing topology), 2 bad usage (a bad key in --site), 3 the decision is\n"
    "fail (strict=1: the plugin would fail the step).\n"
    "\n"
    "Examples:\n"
    "  topomap plan --topology site.yaml --profile app.txt --nodes 'n[1-4]' \\\n"
    "      --slots '16(x4)' -- srun -N4 -n32 --cpus-per-task 2 --topomap=ohtma ./app\n"
    "  topomap plan --site 'optional /usr/lib/slurm/topomap.so topology=slurm \\\n"
    "      profiles=/var/lib/topomap/profiles default=auto strict=1' -- srun -n64 ./app\n";

/* The environment the plugin sees: the real one, with the allocation
 * overridden by --nodes / --slots. */
struct plan_env {
    const char *nodes, *cpus;
};

static const char *plan_getenv(const char *name, void *arg)
{
    const struct plan_env *e = arg;
    if (e->nodes && (!strcmp(name, "SLURM_JOB_NODELIST") || !strcmp(name, "SLURM_NODELIST")))
        return e->nodes;
    if (e->cpus && !strcmp(name, "SLURM_JOB_CPUS_PER_NODE"))
        return e->cpus;
    if (e->nodes && (!strcmp(name, "SLURM_NNODES") || !strcmp(name, "SLURM_JOB_NUM_NODES") ||
                     !strcmp(name, "SLURM_NTASKS") || !strcmp(name, "SLURM_NPROCS") ||
                     !strcmp(name, "SLURM_TASKS_PER_NODE")))
        return NULL; /* a given allocation, not the job's */
    return getenv(name);
}

/* --site: the plugstack.conf line, whole ("optional PATH/topomap.so K=V
 * ...", comments allowed) or its keys alone, into @p site; a bad key is bad
 * usage. */
static void plan_site(const char *line, struct topomap_site *site)
{
    char err[TOPOMAP_ERRLEN] = "";
    char *copy = strdup(line), *tok[64], *save = NULL;
    int nt = 0;
    if (!copy)
        input_error("out of memory");
    /* A file's text may come whole ("$(cat topomap.conf)"): comments out. */
    for (char *c = copy; (c = strchr(c, '#'));) {
        size_t end = strcspn(c, "\n");
        if (c == copy || strchr(" \t\n", c[-1]))
            memset(c, ' ', end);
        c += end;
    }
    for (char *t = strtok_r(copy, " \t\n", &save); t && nt < 64;
         t = strtok_r(NULL, " \t\n", &save)) {
        if (nt == 0 && !strchr(t, '=') && (!strcmp(t, "optional") || !strcmp(t, "required")))
            continue; /* the line's first words: the plugin's kind and path */
        if (nt == 0 && !strchr(t, '=') && strstr(t, ".so"))
            continue;
        tok[nt++] = t;
    }
    if (tmsp_site_parse(site, nt, tok, err, sizeof err) > 0)
        usage_error("--site: %s", err);
    free(copy);
    /* The plugin reads these from srun's and slurmstepd's working
     * directories: only absolute paths mean one file. */
    if (site->topology && site->topology[0] != '/' && strcmp(site->topology, "slurm") &&
        access(site->topology, F_OK) == 0)
        notice("--site: topology=%s is not an absolute path: the plugin would read it from each "
               "srun's working directory",
               site->topology);
    if (site->profiles && site->profiles[0] != '/')
        notice("--site: profiles=%s is not an absolute path: the plugin would read it from each "
               "srun's working directory",
               site->profiles);
}

/* The topology file: --topology (a path, a shipped name or slurm), else the
 * site's topology= as the plugin reads it (a path, or slurm). */
static char *plan_topology(const struct args *a, const struct topomap_site *site)
{
    char err[TOPOMAP_ERRLEN] = "";
    if (a->topology) {
        char *p = find_topology_err(a->topology, err, sizeof err);
        if (!p)
            input_error("--topology %s", err);
        return p;
    }
    if (!site->topology)
        usage_error("no topology: give --topology T, or topology= in --site");
    if (!strcmp(site->topology, "slurm")) {
        char *p = find_topology_err("slurm", err, sizeof err);
        if (!p)
            input_error("--site: topology=%s; the plugin would keep Slurm's layout for every step",
                        err);
        return p;
    }
    if (access(site->topology, R_OK) != 0) {
        int e = errno;
        char *shipped = strchr(site->topology, '/') ? NULL : find_topology(site->topology);
        input_error(
            "--site: topology=%s: %s; the plugin would keep Slurm's layout for every step%s%s%s",
            site->topology, strerror(e), shipped ? " (a shipped topology: " : "",
            shipped ? shipped : "", shipped ? ")" : "");
    }
    return strdup(site->topology);
}

/* Every core of each node, as a whole-node allocation would give: "C(xN)"
 * runs, one per change of node type. Caller frees. */
static char *plan_all_cores(const struct args *a, const char *topo)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = load_topology(a, topo);
    topomap_hostlist_t *hl = topomap_hostlist_parse(a->nodes, err, sizeof err);
    if (!hl)
        input_error("--nodes: %s", liberr(err, a->nodes, errno));
    size_t nh = topomap_hostlist_count(hl);
    char *spec = malloc(nh * 24 + 1);
    if (!spec)
        input_error("out of memory");
    size_t len = 0;
    for (size_t i = 0, run = 0; i < nh; i++) {
        int v = topomap_topology_node_lookup(t, topomap_hostlist_get(hl, i));
        int c = v < 0 ? topomap_topology_cores(t) : topomap_topology_node_cores(t, v);
        int next = -1;
        if (i + 1 < nh) {
            int w = topomap_topology_node_lookup(t, topomap_hostlist_get(hl, i + 1));
            next = w < 0 ? topomap_topology_cores(t) : topomap_topology_node_cores(t, w);
        }
        run++;
        if (next != c) {
            len += (size_t)sprintf(spec + len, "%s%d(x%zu)", len ? "," : "", c, run);
            run = 0;
        }
    }
    spec[len] = 0;
    topomap_hostlist_free(hl);
    topomap_topology_free(t);
    return spec;
}

int cmd_plan(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "topology profile algo store site slurm nodes slots output verbose json help",
               help_plan, &a);
    if (a.npos == 0 || strcmp(a.pos[0], "srun"))
        usage_error("missing the srun command line: expected '-- srun [OPTIONS] PROGRAM'");
    if (a.algo && !topomap_algo_valid(a.algo) && strcmp(a.algo, "off")) {
        char list[512];
        algo_list(list, sizeof list);
        usage_error("--algo: unknown algorithm '%s' (known: off, %s)", a.algo, list);
    }
    char err[TOPOMAP_ERRLEN] = "";
    struct plan_env pe = {a.nodes, a.slots};
    if (!a.nodes && a.slots)
        usage_error("--slots needs --nodes");
    struct topomap_site site;
    tmsp_site_init(&site);
    if (a.site)
        plan_site(a.site, &site);
    if (!a.topology && !site.topology)
        usage_error("no topology: give --topology T, or topology= in --site");
    if (!plan_getenv("SLURM_JOB_NODELIST", &pe))
        usage_error(
            "no allocation: give --nodes HOSTLIST (and --slots SPEC), or run inside a Slurm job");
    char *topo = plan_topology(&a, &site);
    char *all_cores = NULL;
    a.topology_name = site.topology_name;
    if (a.nodes && !a.slots)
        pe.cpus = all_cores = plan_all_cores(&a, topo);
    /* --topology and --store stand for the line's topology= and profiles=;
     * topology=slurm stays as the plugin reads it (from SLURM_CONF). */
    if (a.topology || strcmp(site.topology, "slurm")) {
        free(site.topology);
        site.topology = strdup(topo);
    }
    if (a.store) {
        free(site.profiles);
        site.profiles = strdup(a.store);
    }

    struct topomap_srun o;
    tmsp_srun_init(&o);
#ifdef TOPOMAP_SLURM_RELEASE
    if (!a.slurm) /* the release the plugin beside this command is built for */
        a.slurm = TOPOMAP_SLURM_RELEASE;
#endif
    if (a.slurm) {
        int major = 0, minor = 0;
        char tail;
        if (sscanf(a.slurm, "%d.%d%c", &major, &minor, &tail) != 2 || major < 0 || minor < 0 ||
            major > 999 || minor > 99)
            usage_error("--slurm: '%s' is not a release MAJOR.MINOR (known: %s)", a.slurm,
                        tmsp_release_list());
        /* A release without a row is decided as the plugin would: declined. */
        o.rel = tmsp_release_find(major, minor);
        snprintf(o.release_seen, sizeof o.release_seen, "%d.%02d", major, minor);
    }
    if (tmsp_srun_parse(&o, a.npos, a.pos, plan_getenv, &pe, err, sizeof err) < 0)
        usage_error("srun line: %s", err);
    if (a.profile && !o.profile) {
        /* A path for the plugin: it reads NAME from the store otherwise. */
        o.profile = malloc(strlen(a.profile) + 3);
        if (!o.profile)
            input_error("out of memory");
        sprintf(o.profile, "%s%s", strchr(a.profile, '/') ? "" : "./", a.profile);
    }
    if (a.algo && !o.algo && !(o.algo = strdup(a.algo)))
        input_error("out of memory");
    o.verbose = 1; /* the plugin's messages even where it would stay silent */

    struct topomap_decision d;
    progress(&a, "deciding as the plugin would");
    tmsp_decide(&site, &o, plan_getenv, &pe, &d);

    if (d.outcome == TOPOMAP_REMAP && a.output) {
        FILE *f = fopen(a.output, "w");
        for (int r = 0; f && r < d.nranks; r++)
            fprintf(f, "%s\n", d.hosts[r]);
        if (!f || fclose(f) != 0)
            input_error("cannot write '%s': %s", a.output, strerror(errno));
    }
    int rc = d.outcome == TOPOMAP_FAIL ? EXIT_PLAN_FAIL : 0;
    plan_print(&site, topo, &d, a.verbose, a.json, rc);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&site);
    free(topo);
    free(all_cores);
    return finish_stdout(rc);
}
