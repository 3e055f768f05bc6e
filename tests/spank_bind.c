/* SPDX-License-Identifier: BSD-3-Clause */
/* Core binding (spank/bind.c): the TOPOMAP_BIND codec, CPU lists, and CPU sets
 * on a synthetic hwloc machine. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

static void codec_tests(void)
{
    int core[64], back[64], cpt;
    int a[] = {0, 1, 2, 3};
    char *s = tmsp_bind_encode(a, 4, 1);
    is_str(s, "1:1:0-3", "ascending run");
    free(s);
    int b[] = {0, 0, 0, 1, 1, 5};
    s = tmsp_bind_encode(b, 6, 2);
    is_str(s, "1:2:0x3,1x2,5", "repeats");
    ok(s && tmsp_bind_decode(s, 6, back, &cpt) == 0 && cpt == 2 && !memcmp(back, b, sizeof b),
       "decodes back");
    free(s);
    int c[] = {0, 1, 1, 1, 2, 3, 4, 0};
    s = tmsp_bind_encode(c, 8, 1);
    ok(s && tmsp_bind_decode(s, 8, back, &cpt) == 0 && !memcmp(back, c, sizeof c),
       "run then repeat then run: %s", s ? s : "");
    free(s);
    unsigned seed = 7;
    int good = 1;
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(rand_r(&seed) % 60);
        for (int i = 0; i < n; i++)
            core[i] = (int)(rand_r(&seed) % 5);
        s = tmsp_bind_encode(core, n, 1);
        good &= s && tmsp_bind_decode(s, n, back, &cpt) == 0 &&
                !memcmp(back, core, (size_t)n * sizeof *core);
        free(s);
    }
    ok(good, "200 random encode/decode round trips");
    ok(tmsp_bind_decode("1:1:0-3", 3, back, &cpt) < 0 && errno == EINVAL, "too many cores");
    ok(tmsp_bind_decode("1:1:0-3", 5, back, &cpt) < 0, "too few cores");
    ok(tmsp_bind_decode("2:1:0", 1, back, &cpt) < 0, "unknown version");
    ok(tmsp_bind_decode("1:0:0", 1, back, &cpt) < 0, "0 CPUs per task");
    ok(tmsp_bind_decode("1:1:3-1", 3, back, &cpt) < 0, "descending range");
    ok(tmsp_bind_decode("1:1:a", 1, back, &cpt) < 0, "garbage");
    ok(tmsp_bind_decode("1:1:0,", 1, back, &cpt) < 0, "trailing comma");
    ok(tmsp_bind_decode("1:1:0x0", 0, back, &cpt) < 0, "zero repeat");
    ok(tmsp_bind_decode(NULL, 1, back, &cpt) < 0, "NULL");

    int ids[16];
    is_int(tmsp_cpulist_parse("0-3,8,10-11", ids, 16), 7, "cpu list count");
    ok(ids[0] == 0 && ids[3] == 3 && ids[4] == 8 && ids[6] == 11, "cpu list values");
    ok(tmsp_cpulist_parse("0-20", ids, 16) < 0 && errno == E2BIG, "too long: E2BIG");
    ok(tmsp_cpulist_parse("3-1", ids, 16) < 0 && errno == EINVAL, "descending: EINVAL");
    ok(tmsp_cpulist_parse("", ids, 16) < 0 && errno == EINVAL, "empty: EINVAL");
    ok(tmsp_cpulist_parse("1,,2", ids, 16) < 0, "empty item");
    ok(tmsp_cpulist_parse("1,", ids, 16) < 0, "trailing comma");
}

static void bind_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    hwloc_topology_t t;
    hwloc_topology_init(&t);
    /* 2 packages x 2 cores x 2 threads: core i has PUs 2i and 2i+1. */
    if (hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:2") < 0 || hwloc_topology_load(t) < 0) {
        ok(0, "synthetic hwloc topology");
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char buf[64];
    ok(tmsp_bind_cpuset(t, NULL, 0, 1, 1, set, err, sizeof err) == 0, "core 1 of the node");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "2-3", "both threads of core 1");
    int alloc[] = {2, 3};
    ok(tmsp_bind_cpuset(t, alloc, 2, 0, 1, set, err, sizeof err) == 0,
       "first core of a step holding cores 2-3");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "4-5", "is core 2");
    int all[] = {0, 1, 2, 3};
    ok(tmsp_bind_cpuset(t, all, 4, 1, 2, set, err, sizeof err) == 0, "2 CPUs per task");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "4-7", "task 1 gets cores 2 and 3");
    err[0] = 0;
    ok(tmsp_bind_cpuset(t, alloc, 2, 2, 1, set, err, sizeof err) < 0 && errno == ERANGE,
       "index past the step's cores: ERANGE");
    like(err, "past the 2 cores of the step", "message says so");
    int ghost[] = {0, 7};
    err[0] = 0;
    ok(tmsp_bind_cpuset(t, ghost, 2, 1, 1, set, err, sizeof err) < 0 && errno == ERANGE,
       "a core the node does not have: ERANGE");
    like(err, "core 7 does not exist here (4 cores)", "message names it");
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(t);
}

int main(void)
{
    codec_tests();
    bind_tests();
    return done_testing();
}
