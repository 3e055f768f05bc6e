/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's default layout as the plugin predicts it (spank/layout.c), against
 * layouts seen from Slurm 22.05 on the local cluster (tests/slurm.sh checks
 * them against the real thing). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

static int layout(const struct topomap_srun *o, int nalloc, const int *cpus, char *got,
                  size_t len, char *err)
{
    int tasks[16], nstep = 0;
    got[0] = 0;
    if (tmsp_slurm_layout(o, nalloc, cpus, &nstep, tasks, err, TOPOMAP_ERRLEN) < 0)
        return -1;
    for (int i = 0; i < nstep; i++)
        snprintf(got + strlen(got), len - strlen(got), i ? ",%d" : "%d", tasks[i]);
    return 0;
}

/* Slurm 22.05's _task_layout_block as it is written (without CR_PACK_NODES),
 * the reference for the closed form of tmsp_slurm_layout. */
static void slurm_block(const int *cpus, int nn, int nt, int *tasks)
{
    int task_id = 0, over = 0;
    for (int i = 0; i < nn; i++)
        tasks[i] = 0;
    for (int j = 0; task_id < nt; j++) {
        int room = 0;
        for (int i = 0; i < nn && task_id < nt; i++)
            if (j < cpus[i] || over) {
                tasks[i]++;
                task_id++;
                if (j + 1 < cpus[i])
                    room = 1;
            }
        if (!room)
            over = 1;
    }
}

static void reference_tests(void)
{
    unsigned seed = 11;
    int good = 1, cases = 0;
    for (int t = 0; t < 3000 && good; t++) {
        int nalloc = 1 + (int)(rand_r(&seed) % 9), cpus[16], cap[16], want[16], got[16], nstep;
        struct topomap_srun o;
        tmsp_srun_init(&o);
        o.cpus_per_task = 1 + (int)(rand_r(&seed) % 3);
        if (rand_r(&seed) % 3 == 0)
            o.ntasks_per_node = 1 + (int)(rand_r(&seed) % 4);
        if (rand_r(&seed) % 3 == 0)
            o.nnodes = 1 + (int)(rand_r(&seed) % nalloc);
        o.ntasks = 1 + (int)(rand_r(&seed) % 40);
        /* Without -O, layouts past the CPUs are refused (tested above); with
         * it, the layout counts one CPU per task. */
        o.overcommit = t % 2;
        int lcpt = o.overcommit ? 1 : (int)o.cpus_per_task;
        int nn = o.nnodes > 0 ? (int)o.nnodes : nalloc, total = 0;
        if (o.ntasks < nn)
            nn = (int)o.ntasks;
        for (int i = 0; i < nalloc; i++) {
            cpus[i] = 1 + (int)(rand_r(&seed) % 8);
            total += i < nn ? cpus[i] : 0;
        }
        if (!o.overcommit && o.ntasks * o.cpus_per_task > total)
            continue;
        long tpn = o.ntasks_per_node > 0 && o.ntasks_per_node == o.ntasks / nn ? o.ntasks_per_node : 0;
        for (int i = 0; i < nalloc; i++) {
            cap[i] = cpus[i] / lcpt;
            if (cap[i] < 1)
                cap[i] = 1;
            if (tpn > 0 && cap[i] > tpn * lcpt)
                cap[i] = (int)(tpn * lcpt);
        }
        slurm_block(cap, nn, (int)o.ntasks, want);
        char err[TOPOMAP_ERRLEN];
        good = tmsp_slurm_layout(&o, nalloc, cpus, &nstep, got, err, sizeof err) == 0 &&
               nstep == nn && !memcmp(got, want, (size_t)nn * sizeof *got);
        if (!good) {
            printf("# -n%ld -N%ld -c%ld --ntasks-per-node=%ld on", o.ntasks, o.nnodes,
                   o.cpus_per_task, o.ntasks_per_node);
            for (int i = 0; i < nalloc; i++)
                printf(" %d", cpus[i]);
            printf(": want");
            for (int i = 0; i < nn; i++)
                printf(" %d", want[i]);
            printf(", got %d nodes:", nstep);
            for (int i = 0; i < nstep; i++)
                printf(" %d", got[i]);
            printf(" %s\n", err);
        }
        cases++;
    }
    ok(good, "%d random allocations and steps: Slurm's loop, as written, gives the same tasks "
             "per node", cases);
}

static void layout_tests(void)
{
    char err[TOPOMAP_ERRLEN], got[128];
    struct topomap_srun o;
    int cpus[4];
    const char *none[] = {NULL};
    ok(tmsp_cpus_per_node("4(x3),2", 4, cpus, err, sizeof err) == 0 && cpus[0] == 4 &&
           cpus[2] == 4 && cpus[3] == 2,
       "4(x3),2");
    ok(tmsp_cpus_per_node("4(x3)", 4, cpus, err, sizeof err) < 0 && errno == EINVAL,
       "too few counts");
    like(err, "name 3 nodes, the allocation has 4", "message gives both counts");
    ok(tmsp_cpus_per_node("4(x5)", 4, cpus, err, sizeof err) < 0, "too many counts");
    ok(tmsp_cpus_per_node("4(3),2", 2, cpus, err, sizeof err) < 0, "4(3) rejected");
    ok(tmsp_cpus_per_node("4(x0)", 1, cpus, err, sizeof err) < 0, "repeat 0 rejected");
    ok(tmsp_cpus_per_node("a", 1, cpus, err, sizeof err) < 0, "garbage rejected");
    /* Found by tests/fuzz/fuzz_cpulist: the value was echoed raw. */
    ok(tmsp_cpus_per_node("\n0", 1, cpus, err, sizeof err) < 0 && !strchr(err, '\n'),
       "a newline in the counts: refused with a one-line message: %s", err);
    ok(tmsp_cpus_per_node(" 4", 1, cpus, err, sizeof err) < 0 &&
           tmsp_cpus_per_node("4(x 1)", 1, cpus, err, sizeof err) < 0 &&
           tmsp_cpus_per_node("\t4", 1, cpus, err, sizeof err) < 0,
       "blanks refused (strict numbers)");
    ok(tmsp_cpus_per_node("", 1, cpus, err, sizeof err) < 0, "empty rejected");
    ok(tmsp_cpus_per_node("4\033[2J", 1, cpus, err, sizeof err) < 0 && !strchr(err, '\033') &&
           strstr(err, "'4?[2J'"),
       "control characters shown as '?': %s", err);

    /* Layouts srun 22.05 chose inside `salloc -N4 --exclusive` on 4 nodes with
     * 4 CPUs each (contrib/slurm-local-cluster.sh; tests/slurm.sh checks the
     * 2-CPU cases against the real thing). */
    int c4[4] = {4, 4, 4, 4};
    struct {
        const char *argv[8], *want;
    } cases[] = {
        {{"srun", "-n8", "a"}, "2,2,2,2"},
        {{"srun", "-n5", "a"}, "2,1,1,1"},
        {{"srun", "-n2", "a"}, "1,1"},
        {{"srun", "a"}, "1,1,1,1"},
        {{"srun", "-N2", "-n6", "a"}, "3,3"},
        {{"srun", "-n6", "--ntasks-per-node=2", "a"}, "2,2,1,1"},
        {{"srun", "-n8", "--ntasks-per-node=2", "a"}, "2,2,2,2"},
        {{"srun", "-n8", "-c2", "a"}, "2,2,2,2"},
        {{"srun", "-n20", "-O", "a"}, "5,5,5,5"},
        {{"srun", "-n16", "a"}, "4,4,4,4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int argc = 0;
        while (cases[i].argv[argc])
            argc++;
        tmsp_srun_init(&o);
        tmsp_srun_parse(&o, argc, (char *const *)cases[i].argv, fake_env, none, err,
                        sizeof err);
        int rc = layout(&o, 4, c4, got, sizeof got, err);
        ok(rc == 0 && !strcmp(got, cases[i].want), "%s %s: %s (want %s)", cases[i].argv[1],
           argc > 3 ? cases[i].argv[2] : "", rc ? err : got, cases[i].want);
        tmsp_srun_free(&o);
    }
    int mixed[4] = {4, 2, 2, 1};
    tmsp_srun_init(&o);
    o.ntasks = 8;
    ok(layout(&o, 4, mixed, got, sizeof got, err) == 0 && !strcmp(got, "3,2,2,1"),
       "uneven nodes 4,2,2,1 with 8 tasks: %s", got);
    o.ntasks = 20;
    err[0] = 0;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == EINVAL,
       "20 tasks on 16 CPUs without -O refused");
    like(err, "do not fit", "message says so");
    o.ntasks = 8;
    o.nnodes = 5;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0, "-N5 in a 4-node allocation refused");
    like(err, "5 nodes asked, the allocation has 4", "message gives both");
    o.ntasks = -1;
    o.nnodes = 2;
    o.ntasks_per_node = 2;
    ok(layout(&o, 4, c4, got, sizeof got, err) == 0 && !strcmp(got, "2,2"),
       "-N2 --ntasks-per-node=2 and no -n: 2 x 2 tasks, as srun (%s)", got);
    /* Found by tests/fuzz/fuzz_srun: -n 2000000000 -O looped for minutes. */
    o.ntasks = 2000000000;
    o.nnodes = o.ntasks_per_node = -1;
    o.overcommit = 1;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == EINVAL,
       "-n 2000000000 -O declined at once");
    like(err, "2000000000 tasks: over topomap's limit of 4194304 ranks", "  %s", err);
    tmsp_srun_free(&o);
}

/* The releases whose row has rule @p field set, as "23.11 24.05 ..." (the
 * releases are tried from 21.00 to 27.99). */
#define WITH_RULE(buf, field)                                                                 \
    do {                                                                                      \
        (buf)[0] = 0;                                                                         \
        for (int v = 2100; v < 2800; v++) {                                                   \
            const struct topomap_release *r_ = tmsp_release_find(v / 100, v % 100);        \
            if (r_ && r_->field)                                                              \
                snprintf((buf) + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",              \
                         (buf)[0] ? " " : "", r_->name);                                      \
        }                                                                                     \
    } while (0)

/* Each release's layout of one step, joined as "22.05:5,5,1,1 23.02:..." (an
 * error: "E" + errno name's first letter: EINVAL "EI", ENOTSUP "EN"). */
static void per_release(struct topomap_srun *o, int nalloc, const int *cpus, char *out,
                        size_t len)
{
    static const char *const names[] = {"22.05", "23.02", "23.11", "24.05",
                                        "24.11", "25.05", "25.11", "26.05"};
    out[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char got[128], err[TOPOMAP_ERRLEN];
        int major = atoi(names[i]), minor = atoi(names[i] + 3);
        o->rel = tmsp_release_find(major, minor);
        errno = 0;
        int rc = o->rel ? layout(o, nalloc, cpus, got, sizeof got, err) : -2;
        snprintf(out + strlen(out), len - strlen(out), "%s%s:%s", i ? " " : "", names[i],
                 rc == -2 ? "none" : rc == 0 ? got : errno == ENOTSUP ? "EN" : "EI");
    }
}

/* What differs between releases (spank/release.c): the rules read in each
 * release's source; 22.05's and 24.11's also seen on their local clusters
 * (tests/slurm_layout.sh on each). */
static void release_tests(void)
{
    struct topomap_srun o;
    char got[128], err[TOPOMAP_ERRLEN], all[512];
    const struct topomap_release *r2205 = tmsp_release_find(22, 5),
                                 *r2411 = tmsp_release_find(24, 11),
                                 *r2605 = tmsp_release_find(26, 5);
    is_str(tmsp_release_list(), "22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05",
           "a row per release from 22.05 to 26.05");
    ok(!tmsp_release_find(23, 5) && !tmsp_release_find(21, 8) &&
           !tmsp_release_find(27, 5),
       "no row for a release that is not one, nor before 22.05 or after 26.05");
    ok(tmsp_release_default() == r2205, "the default rules are 22.05's");
    WITH_RULE(all, nodes_vs_hostfile);
    is_str(all, "23.11 24.05 24.11 25.05 25.11 26.05",
           "srun refuses -N beside SLURM_HOSTFILE from 23.11 (plugin_srun.c runs it again)");
    int c4411[4] = {4, 4, 1, 1}, c421[3] = {4, 2, 1}, c4[4] = {4, 4, 4, 4};
    /* -c inside salloc -c: the variable srun reads */
    WITH_RULE(all, cpt_env && !strcmp(r_->cpt_env, "SLURM_CPUS_PER_TASK"));
    is_str(all, "23.11 24.05 24.11 25.05 25.11 26.05",
           "srun reads SLURM_CPUS_PER_TASK from 23.11, SRUN_CPUS_PER_TASK before");
    /* -n12 -O -c2 */
    tmsp_srun_init(&o);
    o.ntasks = 12;
    o.overcommit = 1;
    o.cpus_per_task = 2;
    per_release(&o, 4, c4411, all, sizeof all);
    is_str(all,
           "22.05:5,5,1,1 23.02:5,5,1,1 23.11:5,5,1,1 24.05:4,4,2,2 24.11:4,4,2,2 "
           "25.05:4,4,2,2 25.11:4,4,2,2 26.05:4,4,2,2",
           "-n12 -O -c2 on 4,4,1,1 CPUs: one CPU a task up to 23.11, -c CPUs from 24.05");
    o.rel = r2411;
    ok(layout(&o, 3, c421, got, sizeof got, err) == 0 && !strcmp(got, "5,4,3"),
       "24.11: -n12 -O -c2 on 4,2,1 CPUs: %s", got);
    /* -N2 --ntasks-per-node=2 inside salloc -n10 -N2 (SLURM_NTASKS=10) */
    tmsp_srun_init(&o);
    o.ntasks = 10;
    o.ntasks_env = 1;
    o.nnodes = 2;
    o.ntasks_per_node = 2;
    per_release(&o, 2, c4, all, sizeof all);
    is_str(all,
           "22.05:EI 23.02:2,2 23.11:2,2 24.05:2,2 24.11:2,2 25.05:2,2 25.11:2,2 26.05:2,2",
           "-N2 --ntasks-per-node=2 with SLURM_NTASKS=10: 10 tasks do not fit on 22.05, "
           "SLURM_NTASKS gives way from 23.02");
    o.rel = r2411;
    o.nnodes_env = 1;
    ok(layout(&o, 2, c4, got, sizeof got, err) < 0,
       "24.11: not when the node count is from the environment too");
    /* --ntasks-per-node that srun keeps from 24.05 only: -n11 -O
     * --ntasks-per-node=3 on 4,4,1,1 CPUs (11 is not 11 / 4 = 2 x 4, but fits
     * in 3 x 4): capped at 3 a node, then oversubscribed one a node. */
    tmsp_srun_init(&o);
    o.ntasks = 11;
    o.overcommit = 1;
    o.ntasks_per_node = 3;
    o.task_order = TOPOMAP_ORDER_TOPOLOGY; /* 26.05: no prediction on several nodes */
    per_release(&o, 4, c4411, all, sizeof all);
    is_str(all,
           "22.05:5,4,1,1 23.02:5,4,1,1 23.11:5,4,1,1 24.05:4,4,2,1 24.11:4,4,2,1 "
           "25.05:4,4,2,1 25.11:4,4,2,1 26.05:EN",
           "-n11 -O --ntasks-per-node=3 on 4,4,1,1 CPUs: dropped up to 23.11, kept from 24.05");
    o.task_order = TOPOMAP_ORDER_NODES;
    o.rel = r2605;
    ok(layout(&o, 4, c4411, got, sizeof got, err) == 0 && !strcmp(got, "4,4,2,1"),
       "26.05 under CR_NO_DIST_TOPO_BLOCK or topology/flat: predicted (%s)", got);
    o.ntasks = 13;
    o.rel = r2411;
    ok(layout(&o, 4, c4411, got, sizeof got, err) == 0 && !strcmp(got, "5,5,2,1"),
       "24.11: -n13 (over 3 x 4): --ntasks-per-node dropped (%s)", got);
    /* A step on part of the allocation */
    tmsp_srun_init(&o);
    o.ntasks = 3;
    per_release(&o, 4, c4, all, sizeof all);
    is_str(all,
           "22.05:1,1,1 23.02:1,1,1 23.11:1,1,1 24.05:1,1,1 24.11:EN 25.05:EN 25.11:EN "
           "26.05:EN",
           "-n3 on 4 nodes: the first three up to 24.05, after the previous step from 24.11");
    o.rel = r2411;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == ENOTSUP,
       "24.11: -n3 on 4 nodes: not predicted");
    like(err, "Slurm 24.11 picks the nodes of a step on 3 of its allocation's 4 nodes", "  %s",
         err);
    o.ntasks = 5;
    ok(layout(&o, 4, c4, got, sizeof got, err) == 0 && !strcmp(got, "2,1,1,1"),
       "24.11: -n5 on 4 nodes: all of them, predicted (%s)", got);
    /* 26.05's topology order */
    o.rel = r2605;
    o.task_order = TOPOMAP_ORDER_TOPOLOGY;
    errno = 0;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == ENOTSUP,
       "26.05, tasks in topology order: -n5 on 4 nodes not predicted");
    like(err, "Slurm 26.05 gives out a step's tasks in the order of its nodes' topology ranks",
         "  %s", err);
    like(err, "CR_NO_DIST_TOPO_BLOCK", "  ... and says how to turn it off");
    o.task_order = TOPOMAP_ORDER_UNKNOWN;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == ENOTSUP &&
           strstr(err, "slurm.conf cannot be read"),
       "26.05, slurm.conf unreadable: not predicted either (%s)", err);
    o.ntasks = 4;
    ok(layout(&o, 1, c4, got, sizeof got, err) == 0 && !strcmp(got, "4"),
       "26.05: a step on a one-node allocation has no order to guess (%s)", got);
    tmsp_srun_free(&o);
}

/* A slurm.conf (and the files beside it) in @p dir; @p lines joined by
 * newlines. Returns its path (static). */
static const char *write_conf(const char *dir, const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* Whether a cluster's slurm.conf makes 26.05 order tasks by topology
 * (spank/order.c). */
static void order_tests(void)
{
    char dir[] = "/tmp/topomap-order.XXXXXX", err[TOPOMAP_ERRLEN], conf[600];
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(conf, sizeof conf, "%s", write_conf(dir, "slurm.conf", "ClusterName=c\n"));
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_NODES,
           "no TopologyPlugin (topology/flat), no topology.yaml: node order");
    write_conf(dir, "slurm.conf", "TopologyPlugin=topology/flat\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_NODES,
           "topology/flat: node order");
    write_conf(dir, "slurm.conf", "TopologyPlugin=topology/tree\n");
    write_conf(dir, "topology.conf", "SwitchName=s0 Nodes=n[1-4]\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_TOPOLOGY,
           "topology/tree: topology order");
    write_conf(dir, "slurm.conf",
               "TopologyPlugin=topology/tree\n"
               "  selecttypeparameters=CR_Core_Memory,CR_NO_DIST_TOPO_BLOCK # off\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_NODES,
           "... with SelectTypeParameters=...,CR_NO_DIST_TOPO_BLOCK: node order");
    write_conf(dir, "slurm.conf",
               "TopologyPlugin=topology/tree\n#SelectTypeParameters=CR_NO_DIST_TOPO_BLOCK\n"
               "SelectTypeParameters=CR_NO_DIST_TOPO_BLOCK\nSelectTypeParameters=CR_Core\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_TOPOLOGY,
           "... not in a comment, nor in an earlier line than the last");
    write_conf(dir, "slurm.conf", "TopologyPlugin=topology/ring\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_TOPOLOGY,
           "topology/ring: topology order");
    write_conf(dir, "slurm.conf", "ClusterName=c\n");
    write_conf(dir, "topology.yaml", "- topology: t\n  cluster_default: true\n  flat: true\n");
    is_int(tmsp_slurm_task_order(conf, err, sizeof err), TOPOMAP_ORDER_TOPOLOGY,
           "a topology.yaml: topology order (its topologies may rank nodes)");
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.conf", dir);
    errno = 0;
    ok(tmsp_slurm_task_order(missing, err, sizeof err) == TOPOMAP_ORDER_UNKNOWN &&
           errno == ENOENT && strstr(err, "none.conf"),
       "no slurm.conf: unknown, errno ENOENT (%s)", err);
    remove_store(dir);
}

int main(void)
{
    layout_tests();
    release_tests();
    order_tests();
    reference_tests();
    return done_testing();
}
