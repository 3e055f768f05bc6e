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
    if (topomap_slurm_layout(o, nalloc, cpus, &nstep, tasks, err, TOPOMAP_ERRLEN) < 0)
        return -1;
    for (int i = 0; i < nstep; i++)
        snprintf(got + strlen(got), len - strlen(got), i ? ",%d" : "%d", tasks[i]);
    return 0;
}

/* Slurm 22.05's _task_layout_block as it is written (without CR_PACK_NODES),
 * the reference for the closed form of topomap_slurm_layout. */
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
        topomap_srun_init(&o);
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
        good = topomap_slurm_layout(&o, nalloc, cpus, &nstep, got, err, sizeof err) == 0 &&
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
    ok(topomap_cpus_per_node("4(x3),2", 4, cpus, err, sizeof err) == 0 && cpus[0] == 4 &&
           cpus[2] == 4 && cpus[3] == 2,
       "4(x3),2");
    ok(topomap_cpus_per_node("4(x3)", 4, cpus, err, sizeof err) < 0 && errno == EINVAL,
       "too few counts");
    like(err, "name 3 nodes, the allocation has 4", "message gives both counts");
    ok(topomap_cpus_per_node("4(x5)", 4, cpus, err, sizeof err) < 0, "too many counts");
    ok(topomap_cpus_per_node("4(3),2", 2, cpus, err, sizeof err) < 0, "4(3) rejected");
    ok(topomap_cpus_per_node("4(x0)", 1, cpus, err, sizeof err) < 0, "repeat 0 rejected");
    ok(topomap_cpus_per_node("a", 1, cpus, err, sizeof err) < 0, "garbage rejected");
    /* Found by tests/fuzz/fuzz_cpulist: the value was echoed raw. */
    ok(topomap_cpus_per_node("\n0", 1, cpus, err, sizeof err) < 0 && !strchr(err, '\n'),
       "a newline in the counts: refused with a one-line message: %s", err);
    ok(topomap_cpus_per_node(" 4", 1, cpus, err, sizeof err) < 0 &&
           topomap_cpus_per_node("4(x 1)", 1, cpus, err, sizeof err) < 0 &&
           topomap_cpus_per_node("\t4", 1, cpus, err, sizeof err) < 0,
       "blanks refused (strict numbers)");
    ok(topomap_cpus_per_node("", 1, cpus, err, sizeof err) < 0, "empty rejected");
    ok(topomap_cpus_per_node("4\033[2J", 1, cpus, err, sizeof err) < 0 && !strchr(err, '\033') &&
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
        topomap_srun_init(&o);
        topomap_srun_parse(&o, argc, (char *const *)cases[i].argv, fake_env, none, err,
                           sizeof err);
        int rc = layout(&o, 4, c4, got, sizeof got, err);
        ok(rc == 0 && !strcmp(got, cases[i].want), "%s %s: %s (want %s)", cases[i].argv[1],
           argc > 3 ? cases[i].argv[2] : "", rc ? err : got, cases[i].want);
        topomap_srun_free(&o);
    }
    int mixed[4] = {4, 2, 2, 1};
    topomap_srun_init(&o);
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
    topomap_srun_free(&o);
}

/* What differs between releases (spank/release.c), from the local clusters
 * of 22.05 and 24.11 (tests/slurm_layout.sh on each). */
static void release_tests(void)
{
    struct topomap_srun o;
    char got[128], err[TOPOMAP_ERRLEN];
    const struct topomap_release *r2205 = topomap_release_find(22, 5),
                                 *r2411 = topomap_release_find(24, 11);
    ok(r2205 && r2411 && !topomap_release_find(23, 11) && !topomap_release_find(25, 5),
       "tested releases: %s", topomap_release_list());
    ok(topomap_release_default() == r2205, "the default rules are 22.05's");
    int c4411[4] = {4, 4, 1, 1}, c421[3] = {4, 2, 1}, c4[4] = {4, 4, 4, 4};
    /* -n12 -O -c2 */
    topomap_srun_init(&o);
    o.ntasks = 12;
    o.overcommit = 1;
    o.cpus_per_task = 2;
    ok(layout(&o, 4, c4411, got, sizeof got, err) == 0 && !strcmp(got, "5,5,1,1"),
       "22.05: -n12 -O -c2 on 4,4,1,1 CPUs: %s (one CPU a task)", got);
    o.rel = r2411;
    ok(layout(&o, 4, c4411, got, sizeof got, err) == 0 && !strcmp(got, "4,4,2,2"),
       "24.11: the same: %s (-c CPUs a task)", got);
    ok(layout(&o, 3, c421, got, sizeof got, err) == 0 && !strcmp(got, "5,4,3"),
       "24.11: -n12 -O -c2 on 4,2,1 CPUs: %s", got);
    /* -N2 --ntasks-per-node=2 inside salloc -n10 -N2 (SLURM_NTASKS=10) */
    topomap_srun_init(&o);
    o.ntasks = 10;
    o.ntasks_env = 1;
    o.nnodes = 2;
    o.ntasks_per_node = 2;
    ok(layout(&o, 2, c4, got, sizeof got, err) < 0 && errno == EINVAL,
       "22.05: -N2 --ntasks-per-node=2 with SLURM_NTASKS=10 does not fit (as srun says)");
    o.rel = r2411;
    ok(layout(&o, 2, c4, got, sizeof got, err) == 0 && !strcmp(got, "2,2"),
       "24.11: SLURM_NTASKS gives way: %s", got);
    o.nnodes_env = 1;
    ok(layout(&o, 2, c4, got, sizeof got, err) < 0,
       "24.11: not when the node count is from the environment too");
    /* A step on part of the allocation */
    topomap_srun_init(&o);
    o.ntasks = 3;
    ok(layout(&o, 4, c4, got, sizeof got, err) == 0 && !strcmp(got, "1,1,1"),
       "22.05: -n3 on 4 nodes: the first three (%s)", got);
    o.rel = r2411;
    errno = 0;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == ENOTSUP,
       "24.11: -n3 on 4 nodes: not predicted");
    like(err, "Slurm 24.11 picks the nodes of a step on 3 of its allocation's 4 nodes", "  %s",
         err);
    o.ntasks = 5;
    ok(layout(&o, 4, c4, got, sizeof got, err) == 0 && !strcmp(got, "2,1,1,1"),
       "24.11: -n5 on 4 nodes: all of them, predicted (%s)", got);
    topomap_srun_free(&o);
}

int main(void)
{
    layout_tests();
    release_tests();
    reference_tests();
    return done_testing();
}
