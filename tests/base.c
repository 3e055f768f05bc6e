/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocations and the baseline algorithms (block, cyclic, random) on a small
 * programmatic torus. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

int main(void)
{
    char err[TOPOMAP_ERRLEN];
    char ver[64];
    snprintf(ver, sizeof ver, "%d.%d.%d", TOPOMAP_VERSION_MAJOR, TOPOMAP_VERSION_MINOR,
             TOPOMAP_VERSION_PATCH);
    ok(!strcmp(ver, TOPOMAP_VERSION) && !strcmp(topomap_version(), TOPOMAP_VERSION) &&
           TOPOMAP_VERSION_NUMBER == ((TOPOMAP_VERSION_MAJOR << 16) | (TOPOMAP_VERSION_MINOR << 8) |
                                      TOPOMAP_VERSION_PATCH),
       "TOPOMAP_VERSION %s = its parts %s = the library's %s", TOPOMAP_VERSION, ver,
       topomap_version());

    int dims[2] = {2, 2}, wrap[2] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 4, "h[1-4]", err, sizeof err);
    ok(t != NULL, "2x2 mesh with 4 cores per node: %s", t ? "" : err);
    if (!t)
        return done_testing();

    /* Allocation in a non-sorted order with Slurm's per-node counts. */
    topomap_alloc_t *a = topomap_alloc_create(t, "h[3,1],h2", "2(x2),3", err, sizeof err);
    ok(a != NULL, "allocation h[3,1],h2 with 2(x2),3: %s", a ? "" : err);
    is_int(topomap_alloc_nslots(a), 7, "7 slots");
    is_int(topomap_alloc_nnodes(a), 3, "3 nodes");
    is_int(topomap_alloc_slot_node(a, 0), 2, "slot 0 on h3 (node index 2)");
    is_int(topomap_alloc_slot_node(a, 2), 0, "slot 2 on h1");
    is_int(topomap_alloc_slot_core(a, 3), 1, "slot 3 is core 1 of h1");
    is_int(topomap_alloc_slot_node(a, 6), 1, "slot 6 on h2");
    is_int(topomap_alloc_slot_core(a, 6), 2, "slot 6 is core 2 of h2");

    err[0] = 0;
    ok(topomap_alloc_create(t, "h[1-5]", NULL, err, sizeof err) == NULL && errno == EINVAL,
       "unknown host rejected");
    like(err, "'h5' is not in the topology", "message names the host");
    ok(topomap_alloc_create(t, "h[1,1]", NULL, err, sizeof err) == NULL && errno == EINVAL,
       "node listed twice rejected");
    like(err, "listed twice", "message says twice");
    ok(topomap_alloc_create(t, "h[1-2]", "2(x3)", err, sizeof err) == NULL && errno == EINVAL,
       "too many slot counts rejected");
    ok(topomap_alloc_create(t, "h[1-2]", "0", err, sizeof err) == NULL && errno == EINVAL,
       "zero slots rejected");
    ok(topomap_alloc_create(t, "h[1-2]", "2,x", err, sizeof err) == NULL && errno == EINVAL,
       "garbage slot spec rejected");

    /* A 5-rank ring. */
    int src[5], dst[5];
    double bytes[5];
    for (int i = 0; i < 5; i++) {
        src[i] = i;
        dst[i] = (i + 1) % 5;
        bytes[i] = 100;
    }
    topomap_profile_t *p = topomap_profile_create(5, 5, src, dst, bytes, NULL, err, sizeof err);
    ok(p != NULL, "ring profile");

    int r2s[8];
    ok(topomap_map("block", p, a, NULL, r2s, err, sizeof err) == 0, "block maps");
    int want_block[5] = {0, 1, 2, 3, 4};
    ok(!memcmp(r2s, want_block, sizeof want_block), "block is the identity");

    ok(topomap_map("cyclic", p, a, NULL, r2s, err, sizeof err) == 0, "cyclic maps");
    /* nodes h3 (slots 0-1), h1 (2-3), h2 (4-6): round robin 0,2,4,1,3 */
    int want_cyc[5] = {0, 2, 4, 1, 3};
    ok(!memcmp(r2s, want_cyc, sizeof want_cyc), "cyclic goes round the nodes");

    topomap_opts_t o;
    topomap_opts_init(&o);
    o.seed = 42;
    int r2 [8];
    ok(topomap_map("random", p, a, &o, r2s, err, sizeof err) == 0 &&
           topomap_map("random", p, a, &o, r2, err, sizeof err) == 0 &&
           !memcmp(r2s, r2, 5 * sizeof(int)),
       "random: same seed, same mapping");
    int distinct = 1;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            distinct &= r2s[i] != r2s[j];
    ok(distinct, "random gives distinct slots");

    ok(topomap_algo_valid("ohtma") && topomap_algo_valid("block+refine") &&
           !topomap_algo_valid("+refine") && !topomap_algo_valid("block+") &&
           !topomap_algo_valid("nosuch+refine") && !topomap_algo_valid(NULL),
       "topomap_algo_valid: names, NAME+refine, nothing else");
    ok(topomap_algo_valid("OHTMA") && topomap_algo_valid("Block+Refine") &&
           topomap_map("CYCLIC", p, a, NULL, r2s, err, sizeof err) == 0 &&
           !memcmp(r2s, want_cyc, sizeof want_cyc),
       "algorithm names are case-insensitive (OHTMA, Block+Refine, CYCLIC maps as cyclic)");
    /* cyclic+refine = cyclic, then the refinement engine: cyclic's ring
     * crosses nodes on every edge (600); swaps must find better. */
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT, mr = TOPOMAP_METRICS_INIT;
    ok(topomap_map("cyclic", p, a, NULL, r2s, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2s, &mb) == 0 &&
           topomap_map("cyclic+refine", p, a, NULL, r2, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, r2, &mr) == 0 && mb.hop_bytes == 600 && mr.hop_bytes < 600,
       "cyclic+refine improves on cyclic for the ring (600 -> %g)", mr.hop_bytes);
    ok(topomap_map("nosuch+refine", p, a, NULL, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "unknown NAME+refine rejected");
    ok(topomap_map("nosuch", p, a, NULL, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "unknown algorithm rejected");
    like(err, "known: block, cyclic, random", "message lists the algorithms");

    topomap_alloc_t *small = topomap_alloc_create(t, "h1", "2", err, sizeof err);
    ok(topomap_map("block", p, small, NULL, r2s, err, sizeof err) < 0 && errno == E2BIG,
       "5 ranks on 2 slots: E2BIG");
    like(err, "5 ranks do not fit in 2 slots", "message gives both counts");

    topomap_alloc_free(small);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
    topomap_alloc_free(NULL);
    topomap_profile_free(NULL);
    topomap_topology_free(NULL);
    return done_testing();
}
