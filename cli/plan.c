/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap plan: what the Slurm plugin would decide for an srun command line,
 * computed by the plugin's own decision code (spank/policy.c: srun's options,
 * Slurm's default layout, the algorithm within the site's time limit, the
 * min_gain test), inside a job or outside one with a given allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "policy.h"

const char help_plan[] =
    "Usage: topomap plan --topology T [--profile FILE] [--algo NAME] [--store DIR]\n"
    "                    [--site 'KEY=VALUE ...'] [--slurm RELEASE]\n"
    "                    [--nodes HOSTLIST --slots SPEC]\n"
    "                    [-o FILE] [--verbose] -- srun [SRUN OPTIONS] PROGRAM [ARGS]\n"
    "\n"
    "A dry run of the SPANK plugin: what it would decide for this srun command\n"
    "line in this allocation, decided by the plugin's own code. Prints the\n"
    "outcome (remap: a new layout; keep: Slurm's layout, and why; off: nothing\n"
    "asked; fail: what strict=1 would fail), the algorithm, the hop-bytes of\n"
    "Slurm's default layout and of the new one, and the line the plugin would\n"
    "print. The srun line's own --topomap, --topomap-profile and -N/-n/-c/\n"
    "--ntasks-per-node options are read as srun reads them.\n"
    "\n"
    "Options:\n"
    "  --topology T          the site's machine description (topology= of\n"
    "                        plugstack.conf): a file or a shipped name (required)\n"
    "  --profile FILE        the profile, as --topomap-profile=FILE would give it\n"
    "                        (default: the srun line's --topomap-profile, else the\n"
    "                        program's name in the store)\n"
    "  --algo NAME           the algorithm when the srun line has no --topomap\n"
    "                        (as a user's --topomap=NAME; default: the site's\n"
    "                        default=, off unless --site sets it)\n"
    "  --store DIR           the profile store (profiles= of plugstack.conf)\n"
    "  --slurm RELEASE       the Slurm release whose srun rules apply, one of\n"
    "                        22.05 23.02 23.11 24.05 24.11 25.05 25.11 26.05\n"
    "                        (default: the one the plugin is built for, else\n"
    "                        22.05); another MAJOR.MINOR: the plugin's decline;\n"
    "                        26.05 reads slurm.conf ($SLURM_CONF, else\n"
    "                        /etc/slurm/slurm.conf) for its task order\n"
    "  --site 'K=V ...'      more site keys, as on the plugstack.conf line:\n"
    "                        default=, min_gain=, gain_metric=, time_limit=,\n"
    "                        bind=, strict=\n"
    "  -w, --nodes HOSTLIST  the allocation's nodes (default inside a job:\n"
    "                        SLURM_JOB_NODELIST); required outside a job; also\n"
    "                        --nodelist\n"
    "  --slots SPEC          the allocation's CPUs per node, SLURM_JOB_CPUS_PER_NODE\n"
    "                        syntax (default: the job's, else every core)\n"
    "  -o, --output FILE     write the hostfile the plugin would hand to srun\n"
    "                        (SLURM_HOSTFILE) when it remaps\n"
    "  -v, --verbose         also print the rank -> host list and the binding\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 a decision was made (whatever it is), 1 bad input, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  topomap plan --topology site.yaml --profile app.txt --nodes 'n[1-4]' \\\n"
    "      --slots '16(x4)' -- srun -N4 -n32 --cpus-per-task 2 --topomap=ohtma ./app\n";

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

static const char *const outcome_name[] = {"off", "keep", "remap", "fail"};

int cmd_plan(int argc, char **argv)
{
    struct args a;
    parse_args(argc, argv,
               "topology profile algo store site slurm nodes slots output verbose help",
               help_plan, &a);
    require(a.topology, "--topology");
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
    if (!plan_getenv("SLURM_JOB_NODELIST", &pe))
        usage_error("no allocation: give --nodes HOSTLIST (and --slots SPEC), or run inside a "
                    "Slurm job");
    char *topo = find_topology(a.topology);
    if (!topo)
        input_error("%s: no such file, nor a shipped topology of that name (see 'topomap "
                    "topology list')",
                    a.topology);
    if (a.nodes && !a.slots) {
        /* Every core of each node, as a whole-node allocation would give. */
        topomap_topology_t *t = load_topology(&a, topo);
        topomap_hostlist_t *hl = topomap_hostlist_parse(a.nodes, err, sizeof err);
        if (!hl)
            input_error("--nodes: %s", liberr(err, a.nodes, errno));
        /* Each node's own cores (node types): "C(xN)" runs, one per change. */
        size_t nh = topomap_hostlist_count(hl);
        static char *spec;
        spec = malloc(nh * 24 + 1);
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
        pe.cpus = spec;
        topomap_hostlist_free(hl);
        topomap_topology_free(t);
    }

    struct topomap_site site;
    topomap_site_init(&site);
    if (a.site) {
        char *copy = strdup(a.site), *tok[64], *save = NULL;
        int nt = 0;
        if (!copy)
            input_error("out of memory");
        for (char *t = strtok_r(copy, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
            tok[nt++] = t;
        if (topomap_site_parse(&site, nt, tok, err, sizeof err) > 0)
            usage_error("--site: %s", err);
        free(copy);
    }
    free(site.topology);
    site.topology = topo;
    if (a.store) {
        free(site.profiles);
        site.profiles = strdup(a.store);
    }

    struct topomap_srun o;
    topomap_srun_init(&o);
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
                        topomap_release_list());
        /* A release without a row is decided as the plugin would: declined. */
        o.rel = topomap_release_find(major, minor);
        snprintf(o.release_seen, sizeof o.release_seen, "%d.%02d", major, minor);
    }
    if (topomap_srun_parse(&o, a.npos, a.pos, plan_getenv, &pe, err, sizeof err) < 0)
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
    topomap_decide(&site, &o, plan_getenv, &pe, &d);

    char b[3][40];
    printf("%-12s %s\n", "decision", outcome_name[d.outcome]);
    printf("%-12s %s\n", "algorithm", d.algo ? d.algo : "-");
    printf("%-12s %d\n", "ranks", d.nranks);
    if (d.hop_bytes_default > 0 || d.hop_bytes_new > 0) {
        printf("%-12s %s (Slurm's layout)", "hop-bytes", num(d.hop_bytes_default, b[0], 40));
        if (d.outcome == TOPOMAP_REMAP || d.hop_bytes_new > 0)
            printf(" -> %s (new)", num(d.hop_bytes_new, b[1], 40));
        printf("\n");
    }
    if (d.message[0])
        printf("%-12s %s\n", "message", d.message);
    if (d.summary[0])
        printf("%-12s %s\n", "verbose", d.summary);
    if (d.note[0])
        printf("%-12s %s\n", "note", d.note);
    if (d.outcome == TOPOMAP_REMAP) {
        printf("%-12s %s\n", "binding", d.bind ? d.bind : "(bind=none: Slurm's)");
        printf("%-12s %s\n", "pmi2", d.pmi2 ? d.pmi2 : "(too long: MPICH loses shared memory)");
        if (a.verbose)
            for (int r = 0; r < d.nranks; r++)
                printf("rank %d %s\n", r, d.hosts[r]);
        if (a.output) {
            FILE *f = fopen(a.output, "w");
            for (int r = 0; f && r < d.nranks; r++)
                fprintf(f, "%s\n", d.hosts[r]);
            if (!f || fclose(f) != 0)
                input_error("cannot write '%s': %s", a.output, strerror(errno));
        }
    }
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    topomap_site_free(&site);
    return finish_stdout(0);
}
