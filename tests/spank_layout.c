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
    ok(topomap_cpus_per_node("", 1, cpus, err, sizeof err) < 0, "empty rejected");

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
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0, "-N with --ntasks-per-node and no -n refused");
    like(err, "give the task count with -n", "message says what to do");
    topomap_srun_free(&o);
}

int main(void)
{
    layout_tests();
    return done_testing();
}
