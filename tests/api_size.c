/* SPDX-License-Identifier: BSD-3-Clause */
/* The caller-allocated structs that grow (doc/api.md#growth-safe-structs):
 * topomap_opts_t and topomap_metrics_t of an older header (shorter: fields
 * are only appended) are read and written within their size; an unknown
 * size (an uninitialised struct, a newer header) is refused with EINVAL. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

/* The sizeof a struct of an older header that ends with field F. */
#define OLD_SIZE(T, F)                                                                     \
    ((offsetof(T, F) + sizeof(((T *)0)->F) + _Alignof(T) - 1) / _Alignof(T) * _Alignof(T))

#define NR 16
static char err[TOPOMAP_ERRLEN];

/* A ring of NR ranks on a 2 x 2 mesh of 4-core nodes. */
static topomap_profile_t *ring(void)
{
    int src[NR], dst[NR];
    double bytes[NR];
    for (int r = 0; r < NR; r++) {
        src[r] = r;
        dst[r] = (r + 5) % NR;
        bytes[r] = 100.0 + r;
    }
    return topomap_profile_create(NR, NR, src, dst, bytes, NULL, err, sizeof err);
}

static void opts_tests(const topomap_profile_t *p, const topomap_alloc_t *a)
{
    int want[NR], got[NR];
    topomap_opts_t o;
    topomap_opts_init(&o);
    ok(o.size == sizeof o && o.seed == 1 && o.loop == -1 &&
           o.objective == TOPOMAP_OBJECTIVE_HOP_BYTES,
       "topomap_opts_init: size %zu, the defaults", o.size);
    ok(topomap_map("greedy", p, a, &o, want, err, sizeof err) == 0, "greedy, this header's opts");

    /* An older header's struct, without node_place and objective, in a
     * buffer of exactly its size (AddressSanitizer sees a read beyond). */
    size_t old = OLD_SIZE(topomap_opts_t, grid_weak);
    ok(old < sizeof o && old == offsetof(topomap_opts_t, node_place),
       "an older topomap_opts_t: %zu bytes of %zu", old, sizeof o);
    topomap_opts_t *po = malloc(old);
    size_t size = 0;
    uint64_t seed = 0;
    if (po && topomap_opts_init_size(po, old) == 0) { /* read as an older caller would */
        memcpy(&size, (char *)po + offsetof(topomap_opts_t, size), sizeof size);
        memcpy(&seed, (char *)po + offsetof(topomap_opts_t, seed), sizeof seed);
    }
    ok(size == old && seed == 1, "topomap_opts_init_size(%zu): the defaults of its fields", old);
    ok(po && topomap_map("greedy", p, a, po, got, err, sizeof err) == 0 &&
           !memcmp(got, want, sizeof want),
       "topomap_map takes it, the missing fields at their defaults: %s", err);
    free(po);

    /* What lies beyond the size is not read: an objective no library
     * takes, past an older size, is ignored; within this size, refused. */
    topomap_opts_init_size(&o, old);
    o.objective = (topomap_objective_t)99;
    ok(topomap_map("greedy", p, a, &o, got, err, sizeof err) == 0 && !memcmp(got, want, sizeof want),
       "bytes past the caller's size are not read");
    o.size = sizeof o;
    errno = 0;
    ok(topomap_map("greedy", p, a, &o, got, err, sizeof err) < 0 && errno == EINVAL,
       "the same objective within the size: EINVAL");

    /* Sizes that are no struct's: refused with a message, nothing written. */
    size_t bad[] = {0, 3, sizeof o + 8, old + 4, (size_t)-1};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        topomap_opts_init(&o);
        o.size = bad[i];
        errno = 0;
        err[0] = 0;
        ok(topomap_map("greedy", p, a, &o, got, err, sizeof err) < 0 && errno == EINVAL &&
               strstr(err, "topomap_opts_t of") && strstr(err, "topomap_opts_init()"),
           "topomap_opts_t.size %zu: EINVAL, '%s'", bad[i], err);
        memset(&o, 0x5a, sizeof o);
        errno = 0;
        ok(topomap_opts_init_size(&o, bad[i]) < 0 && errno == EINVAL &&
               ((unsigned char *)&o)[0] == 0x5a && ((unsigned char *)&o)[sizeof o - 1] == 0x5a,
           "topomap_opts_init_size(%zu): EINVAL, the struct untouched", bad[i]);
    }
    ok(topomap_opts_init_size(NULL, sizeof o) < 0 && errno == EINVAL, "init of NULL: EINVAL");
}

static void metrics_tests(const topomap_profile_t *p, const topomap_alloc_t *a)
{
    int r2s[NR];
    for (int r = 0; r < NR; r++)
        r2s[r] = r;
    topomap_metrics_t full = TOPOMAP_METRICS_INIT, m2;
    ok(full.size == sizeof full && full.hop_bytes == 0, "TOPOMAP_METRICS_INIT: size %zu, zero",
       full.size);
    ok(topomap_metrics_init(&m2) == 0 && m2.size == sizeof m2, "topomap_metrics_init");
    ok(topomap_eval_slots(p, a, r2s, &full) == 0 && full.hop_bytes > 0 && full.size == sizeof full,
       "eval_slots into this header's metrics: hop-bytes %g", full.hop_bytes);

    /* An older header's metrics, before the congestion fields, followed by
     * bytes that must stay as they are. */
    size_t old = OLD_SIZE(topomap_metrics_t, internode_fraction);
    ok(old < sizeof full, "an older topomap_metrics_t: %zu bytes of %zu", old, sizeof full);
    unsigned char *buf = malloc(sizeof full + 16);
    memset(buf, 0xa5, sizeof full + 16);
    topomap_metrics_t *mo = (topomap_metrics_t *)buf;
    ok(topomap_metrics_init_size(mo, old) == 0 && mo->size == old && mo->hop_bytes == 0 &&
           buf[old] == 0xa5,
       "topomap_metrics_init_size(%zu) zeroes its bytes alone", old);
    int rc = topomap_eval_slots(p, a, r2s, mo);
    int untouched = 1;
    for (size_t i = old; i < sizeof full + 16; i++)
        untouched &= buf[i] == 0xa5;
    ok(rc == 0 && mo->size == old && mo->hop_bytes == full.hop_bytes &&
           mo->internode_fraction == full.internode_fraction && untouched,
       "eval_slots fills the older struct's fields and writes no byte past it");
    memset(buf, 0xa5, sizeof full + 16);
    mo->size = old;
    rc = topomap_eval(p, topomap_alloc_topology(a), (int[NR]){0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                                             3, 3, 3, 3},
                      (int[NR]){0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}, mo);
    untouched = 1;
    for (size_t i = old; i < sizeof full + 16; i++)
        untouched &= buf[i] == 0xa5;
    ok(rc == 0 && mo->hop_bytes > 0 && untouched, "eval too writes within the older size");
    free(buf);

    size_t bad[] = {0, 3, sizeof full + 8, old + 4};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        topomap_metrics_t m;
        memset(&m, 0, sizeof m);
        m.size = bad[i];
        errno = 0;
        ok(topomap_eval_slots(p, a, r2s, &m) < 0 && errno == EINVAL && m.hop_bytes == 0,
           "topomap_metrics_t.size %zu: eval_slots EINVAL, nothing written", bad[i]);
        errno = 0;
        ok(topomap_metrics_init_size(&m, bad[i]) < 0 && errno == EINVAL && m.size == bad[i],
           "topomap_metrics_init_size(%zu): EINVAL", bad[i]);
    }
}

int main(void)
{
    int dims[2] = {2, 2}, wrap[2] = {0, 0};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 4, "h[1-4]", err, sizeof err);
    topomap_alloc_t *a = t ? topomap_alloc_create(t, "h[1-4]", NULL, err, sizeof err) : NULL;
    topomap_profile_t *p = ring();
    ok(t && a && p, "a 2 x 2 mesh, its 16 slots, a ring of 16 ranks: %s", err);
    if (!(t && a && p))
        return done_testing();
    opts_tests(p, a);
    metrics_tests(p, a);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
    return done_testing();
}
