/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin's decision as Slurm's side shapes it: what the release changes
 * (spank/release.c) on the 2x2 mesh of tests/data/slurm, an untested
 * release, mpirun's daemons, --topomap=help; topology=slurm (the network
 * beside slurm.conf, one topology of a topology.yaml); slurm.conf found as
 * Slurm's commands find it, configless included. The decision itself:
 * tests/spank_decide.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"
#include "topo_check.h" /* topo_put */

/* What the release changes in the decision (spank/release.c), an untested
 * release, mpirun's daemons, --topomap=help: on the mesh of decide_tests. */
static void release_decide_tests(struct topomap_site *s, const char *const *env)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* The same step under 24.11's rules: predicted the same (all nodes). */
    parse_release = tmsp_release_find(24, 11);
    parse(&o, env, err, "srun", "-N4", "-n8", "--topomap=cyclic,verbose,profile=pair8", "app",
          NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.summary[0],
       "24.11, -N4 -n8 --topomap=cyclic,verbose,profile=pair8: remapped, verbose");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* ... but a step on part of the allocation is not predicted: one line
     * when asked, silence under the site default. */
    parse(&o, env, err, "srun", "-n3", "--topomap=cyclic", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "Slurm 24.11 picks the nodes of a step"),
       "24.11, -n3 of 4 nodes asked: declined (%s)", d.message);
    like(d.log, "cannot predict Slurm's layout", "... and logged: %s", d.log);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    free(s->dflt);
    s->dflt = strdup("cyclic");
    parse(&o, env, err, "srun", "-n3", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0] && d.log[0],
       "... under the site default: nothing said to the user, logged (%s)", d.log);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    free(s->dflt);
    s->dflt = strdup("off");
    parse_release = NULL;
    /* A release without a row: one line, never a guess, and never a failed
     * step, not even under strict=1. */
    static const char *const seen[][2] = {
        {"23.05", "Slurm 23.05 is not a release this plugin knows (22.05, 23.02, 23.11, 24.05, "
                  "24.11, 25.05, 25.11, 26.05); using Slurm's default layout"},
        {"27.05", "Slurm 27.05 is newer than the newest release this plugin knows (26.05), so "
                  "its rules are unknown; using Slurm's default layout"},
        {"21.08", "Slurm 21.08 is older than the oldest release this plugin knows (22.05), so "
                  "its rules are unknown; using Slurm's default layout"},
        {"", "Slurm did not say its release"}};
    for (int strict = 0; strict <= 1; strict++)
        for (size_t k = 0; k < sizeof seen / sizeof seen[0]; k++) {
            s->strict = strict;
            parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8",
                  "app", NULL);
            o.rel = NULL;
            snprintf(o.release_seen, sizeof o.release_seen, "%s", seen[k][0]);
            tmsp_decide(s, &o, fake_env, (void *)env, &d);
            ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, seen[k][1]) &&
                   !strchr(d.message, '\n'),
               "Slurm '%s'%s: declined in one line (%s)", seen[k][0],
               strict ? ", strict=1" : "", d.message);
            tmsp_decision_free(&d);
            tmsp_srun_free(&o);
        }
    /* --topomap=off inside a job submitted with --topomap=auto, on a release
     * without a row: off, silently. */
    const char *envauto[8] = {env[0], env[1],
                              "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap=auto", NULL};
    parse(&o, envauto, err, "srun", "-n8", "--topomap=off", "app", NULL);
    o.rel = NULL;
    snprintf(o.release_seen, sizeof o.release_seen, "27.05");
    tmsp_decide(s, &o, fake_env, (void *)envauto, &d);
    ok(d.outcome == TOPOMAP_OFF && !d.message[0] && !d.summary[0] && !d.log[0],
       "srun --topomap=off in sbatch --topomap=auto, Slurm 27.05: off, nothing said");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* A layout the release makes unpredictable, under strict=1: declined. */
    parse_release = tmsp_release_find(24, 11);
    parse(&o, env, err, "srun", "-n3", "--topomap=cyclic", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "using Slurm's default layout"),
       "24.11, -n3 of 4 nodes, strict=1: declined, the step runs (%s)", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    s->strict = 0;
    /* 26.05: the task order from the cluster's slurm.conf. */
    char dir[] = "/tmp/topomap-conf.XXXXXX", conf[600], envconf[700];
    if (mkdtemp(dir)) {
        snprintf(conf, sizeof conf, "%s/slurm.conf", dir);
        snprintf(envconf, sizeof envconf, "SLURM_CONF=%s", conf);
        const char *env26[8] = {env[0], env[1], envconf, NULL};
        parse_release = tmsp_release_find(26, 5);
        static const char *const confs[][3] = {
            {"ClusterName=c\n", NULL, "no TopologyPlugin"},
            {"TopologyPlugin=topology/tree\n", "in the order of its nodes' topology ranks",
             "topology/tree"},
            {"TopologyPlugin=topology/tree\nSelectTypeParameters=CR_Core,CR_NO_DIST_TOPO_BLOCK\n",
             NULL, "topology/tree and CR_NO_DIST_TOPO_BLOCK"}};
        for (size_t k = 0; k < sizeof confs / sizeof confs[0]; k++) {
            FILE *f = fopen(conf, "w");
            if (f) {
                fputs(confs[k][0], f);
                fclose(f);
            }
            parse(&o, env26, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8",
                  "app", NULL);
            tmsp_decide(s, &o, fake_env, (void *)env26, &d);
            if (confs[k][1])
                ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, confs[k][1]),
                   "26.05, slurm.conf with %s: declined (%s)", confs[k][2], d.message);
            else
                ok(d.outcome == TOPOMAP_REMAP,
                   "26.05, slurm.conf with %s: predicted and remapped", confs[k][2]);
            tmsp_decision_free(&d);
            tmsp_srun_free(&o);
        }
        unlink(conf);
        env26[2] = "SLURM_CONF=/nonexistent/slurm.conf";
        parse(&o, env26, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8", "app",
              NULL);
        tmsp_decide(s, &o, fake_env, (void *)env26, &d);
        ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "slurm.conf cannot be read") &&
               strstr(d.message, "/nonexistent/slurm.conf"),
           "26.05, no slurm.conf: declined, naming it (%s)", d.message);
        tmsp_decision_free(&d);
        tmsp_srun_free(&o);
        rmdir(dir);
        parse_release = NULL;
    } else
        ok(0, "mkdtemp");
    /* Open MPI's mpirun starting its daemons through srun. */
    parse(&o, env, err, "srun", "--ntasks-per-node=1", "-N4", "--topomap=cyclic",
          "/usr/bin/prted", "--prtemca", "x", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "Open MPI's prted daemons for mpirun"),
       "mpirun's srun of prted: told why (%s)", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* torchrun: one agent per node, whose rendezvous numbers the workers. */
    parse(&o, env, err, "srun", "--ntasks-per-node=1", "-N4", "--topomap=cyclic",
          "--topomap-profile=pair8", "torchrun", "--nproc-per-node=2", "train.py", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "torchrun numbers the ranks itself") &&
           strstr(d.message, "training.md") && !strchr(d.message, '\n'),
       "srun torchrun: Slurm's layout, one line saying why (%s)", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=help", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_OFF && !d.message[0] && !d.log[0],
       "--topomap=help: nothing decided (the option callback lists the algorithms)");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}
/* topology=slurm: the file beside the cluster's slurm.conf (SLURM_CONF);
 * topology_name= one topology of a Slurm topology.yaml. */

static void slurm_topology_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN], dir[] = "/tmp/topomap-slurmtopo-test.XXXXXX", conf[700], pa[600];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(conf, sizeof conf, "SLURM_CONF=%s/slurm.conf", dir);
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", conf,
                         NULL};
    snprintf(pa, sizeof pa, "profiles=%s", store);
    /* topology/block: blocks n[1-2] and n[3-4]; pair8 talks i <-> i+4. */
    topo_put(dir, "slurm.conf", "ClusterName=c\nTopologyPlugin=topology/block\n");
    topo_put(dir, "topology.conf", "BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n");
    tmsp_site_init(&s);
    char *args[] = {"topology=slurm", pa};
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0, "topology=slurm accepted");
    parse(&o, env, err, "srun", "-n8", "--topomap=ohtma", "--topomap-profile=pair8",
          "--topomap-verbose", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "topology=slurm, topology/block beside slurm.conf: remapped (%s)",
       d.message[0] ? d.message : d.summary);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* topology.yaml beside it wins; topology_name= picks one of its topologies. */
    topo_put(dir, "topology.yaml",
        "- topology: blocks\n  cluster_default: true\n  block:\n    block_sizes: [2]\n"
        "    blocks:\n      - block: b1\n        nodes: n[1-2]\n      - block: b2\n"
        "        nodes: n[3-4]\n"
        "- topology: other\n  tree:\n    switches:\n      - switch: s1\n"
        "        nodes: x[1-4]\n");
    parse(&o, env, err, "srun", "-n8", "--topomap=ohtma", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "topology=slurm, topology.yaml's default topology: remapped");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    char *named[] = {"topology_name=other"};
    is_int(tmsp_site_parse(&s, 1, named, err, sizeof err), 0, "topology_name= accepted");
    parse(&o, env, err, "srun", "-n8", "--topomap=ohtma", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "n1"),
       "topology_name=other, whose nodes are x[1-4]: declined, one line (%s)", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
    /* A cluster without a topology. */
    topo_put(dir, "topology.yaml", "");
    char path[700];
    snprintf(path, sizeof path, "%s/topology.yaml", dir);
    unlink(path);
    topo_put(dir, "slurm.conf", "ClusterName=c\n");
    tmsp_site_init(&s);
    tmsp_site_parse(&s, 2, args, err, sizeof err);
    parse(&o, env, err, "srun", "-n8", "--topomap=ohtma", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "topology=slurm: ") &&
           strstr(d.message, "slurm.conf"),
       "topology=slurm on a cluster with no topology: one line (%s)", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
    const char *files[] = {"slurm.conf", "topology.conf", "topology.yaml"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}
/* slurm.conf found as Slurm's commands find it: $SLURM_CONF, the default
 * file, then the configless cache (tmsp_slurm_conf_in). */
static void slurm_conf_tests(void)
{
    char dir[] = "/tmp/topomap-confless.XXXXXX", deflt[600], cached[600];
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(deflt, sizeof deflt, "%s/etc-slurm.conf", dir);
    snprintf(cached, sizeof cached, "%s/run-slurm.conf", dir);
    const char *none[] = {NULL}, *set[] = {"SLURM_CONF=/site/slurm.conf", NULL};
    const char *c = tmsp_slurm_conf_in(fake_env, (void *)none, deflt, cached);
    ok(c && !strcmp(c, deflt), "no SLURM_CONF, no file: the default path, for the message (%s)",
       c ? c : "NULL");
    FILE *f = fopen(cached, "w");
    if (f)
        fclose(f);
    c = tmsp_slurm_conf_in(fake_env, (void *)none, deflt, cached);
    ok(c && !strcmp(c, cached), "configless (only the cached copy exists): the cache (%s)",
       c ? c : "NULL");
    f = fopen(deflt, "w");
    if (f)
        fclose(f);
    c = tmsp_slurm_conf_in(fake_env, (void *)none, deflt, cached);
    ok(c && !strcmp(c, deflt), "both exist: the default file first, as Slurm (%s)",
       c ? c : "NULL");
    c = tmsp_slurm_conf_in(fake_env, (void *)set, deflt, cached);
    ok(c && !strcmp(c, "/site/slurm.conf"), "SLURM_CONF before everything (%s)", c ? c : "NULL");
    unlink(deflt);
    unlink(cached);
    rmdir(dir);
}
int main(void)
{
    char err[TOPOMAP_ERRLEN], store[] = "/tmp/topomap-release-test.XXXXXX";
    if (make_pair8_store(store) < 0)
        return done_testing();

    /* The site of decide_tests (tests/spank_decide.c): the mesh, this store. */
    struct topomap_site s;
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    char pa[600];
    snprintf(pa, sizeof pa, "profiles=%s", store);
    char *args[] = {"topology=" DATA "/mesh-2x2-2core.yaml", pa};
    tmsp_site_init(&s);
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0, "site policy for the mesh");
    release_decide_tests(&s, env);
    tmsp_site_free(&s);

    slurm_topology_tests(store);
    slurm_conf_tests();
    remove_store(store);
    return done_testing();
}
