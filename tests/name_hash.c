/* SPDX-License-Identifier: BSD-3-Clause */
/* The keyed hash of node and switch names (libtopomap/siphash.c):
 *  1. SipHash-2-4 gives the reference outputs of its paper (key 00..0f,
 *     messages 00, 00 01, ...);
 *  2. names crafted to share a bucket under the former unkeyed hash
 *     (FNV-1a + splitmix64's finaliser, copied below) cost the keyed table
 *     no more than random names: counted in probes (table slots visited), not
 *     time, so the test does not depend on the machine's load; the times are
 *     printed as diagnostics (doc/robustness.md);
 *  3. nothing depends on the key: a topology loaded under two keys describes
 *     itself identically, finds every node at the same index, and reports
 *     the same pair of repeated names.
 * NAME_HASH_N sets the number of names (default 4096). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "tap.h"
#include "topology_priv.h"
#include "topomap.h"

/* The hash the name tables used before they were keyed. */
static uint64_t old_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return topomap_mix64(h);
}

static double secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The table size topology.c gives n names. */
static size_t table_mask(size_t n)
{
    size_t size = 16;
    while (size < 2 * n)
        size *= 2;
    return size - 1;
}

/* Probes of a linear-probing table of the names under the old hash, as
 * topology.c filled it (the names are distinct). */
static size_t old_probes(char **names, size_t n)
{
    size_t mask = table_mask(n), probes = 0;
    int *t = malloc((mask + 1) * sizeof *t);
    memset(t, 0xff, (mask + 1) * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)old_hash(names[i]) & mask;
        for (probes++; t[h] >= 0; probes++) {
            if (!strcmp(names[t[h]], names[i]))
                break;
            h = (h + 1) & mask;
        }
        t[h] = (int)i;
    }
    free(t);
    return probes;
}

/* n names whose old hash falls in the first 16 slots of their table: each
 * found by trying candidates, as an attacker would offline. */
static char **crafted(size_t n)
{
    char **v = malloc(n * sizeof *v), buf[32];
    size_t mask = table_mask(n), k = 0;
    for (unsigned long c = 0; k < n; c++) {
        snprintf(buf, sizeof buf, "c%lx", c);
        if ((old_hash(buf) & mask) < 16)
            v[k++] = strdup(buf);
    }
    return v;
}

static char **randoms(size_t n)
{
    char **v = malloc(n * sizeof *v), buf[32];
    uint64_t s = 12345;
    for (size_t k = 0; k < n; k++) {
        snprintf(buf, sizeof buf, "r%zx-%llx", k, (unsigned long long)(topomap_rng_next(&s) >> 40));
        v[k] = strdup(buf);
    }
    return v;
}

static topomap_hostlist_t *as_list(char **names, size_t n)
{
    topomap_hostlist_t *hl = topo_hostlist_new();
    for (size_t i = 0; i < n; i++)
        topo_hostlist_push(hl, names[i], strlen(names[i]));
    topo_hostlist_seal(hl);
    return hl;
}

static size_t new_probes(char **names, size_t n, double *seconds)
{
    topomap_hostlist_t *hl = as_list(names, n);
    size_t probes = 0;
    int a, b;
    double t0 = secs();
    if (topo_names_repeat_probes(hl, &a, &b, &probes) != 0)
        probes = 0;
    *seconds = secs() - t0;
    topomap_hostlist_free(hl);
    return probes;
}

/* A YAML description of a ring of the n names; its load time. */
static double load_time(char **names, size_t n, const char *path)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "network: {kind: torus, dims: [%zu]}\nnodes: [", n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? ", " : "", names[i]);
    fprintf(f, "]\nnode: {cores: 1}\n");
    fclose(f);
    char err[TOPOMAP_ERRLEN];
    double t0 = secs();
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    double s = secs() - t0;
    if (!t)
        printf("# load failed: %s\n", err);
    topomap_topology_free(t);
    return t ? s : -1;
}

static void test_vectors(void)
{
    /* SipHash-2-4 reference outputs for key 00 01 .. 0f and message
     * 00 01 .. (len-1), read as little-endian 64-bit words. */
    static const struct { size_t len; uint64_t want; } v[] = {
        {0, 0x726fdb47dd0e0e31ULL},
        {1, 0x74f839c593dc67fdULL},
        {7, 0xab0200f58b01d137ULL},
        {8, 0x93f5f5799a932462ULL},
        {15, 0xa129ca6149be45e5ULL}, /* the paper's appendix A */
    };
    unsigned char key[16], msg[64];
    for (int i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    for (int i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint64_t got = topomap_siphash24(key, msg, v[i].len);
        if (!ok(got == v[i].want, "SipHash-2-4 reference output, %zu-byte message", v[i].len))
            printf("#   got %016llx, want %016llx\n", (unsigned long long)got,
                   (unsigned long long)v[i].want);
    }
}

static void test_crafted(size_t n, const char *dir)
{
    char **c = crafted(n), **r = randoms(n);
    double t0 = secs();
    size_t oc = old_probes(c, n);
    double toc = secs() - t0;
    t0 = secs();
    size_t orr = old_probes(r, n);
    double tor = secs() - t0, tnc, tnr;
    size_t nc = new_probes(c, n, &tnc), nr = new_probes(r, n, &tnr);
    printf("# %zu names: unkeyed hash %zu probes crafted (%.4f s), %zu random (%.4f s)\n", n, oc,
           toc, orr, tor);
    printf("# %zu names: keyed hash %zu probes crafted (%.4f s), %zu random (%.4f s)\n", n, nc,
           tnc, nr, tnr);
    ok(oc > 20 * orr, "the crafted names collide under the unkeyed hash (%zu probes vs %zu: "
       "quadratic)", oc, orr);
    ok(nc > 0 && nr > 0 && nc <= 2 * nr,
       "keyed: %zu crafted names cost at most twice the probes of random ones (%zu vs %zu)", n,
       nc, nr);
    ok(nr <= 3 * n, "keyed: random names cost O(1) probes each (%zu for %zu)", nr, n);
    char path[4096];
    snprintf(path, sizeof path, "%s/crafted.yaml", dir);
    double lc = load_time(c, n, path);
    snprintf(path, sizeof path, "%s/random.yaml", dir);
    double lr = load_time(r, n, path);
    ok(lc >= 0 && lr >= 0, "both descriptions load");
    printf("# load of a %zu-node description: crafted names %.4f s, random %.4f s\n", n, lc, lr);
    for (size_t i = 0; i < n; i++) {
        free(c[i]);
        free(r[i]);
    }
    free(c);
    free(r);
}

/* Everything a topology shows, under one key. */
static char *shown(const char *path, int *lookups_ok)
{
    char err[TOPOMAP_ERRLEN], *buf = NULL;
    size_t len = 0;
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    if (!t)
        return NULL;
    FILE *f = open_memstream(&buf, &len);
    topomap_topology_describe(t, f);
    *lookups_ok = 1;
    for (int v = 0; v < topomap_topology_nnodes(t); v++)
        *lookups_ok &= topomap_topology_node_lookup(t, topomap_topology_node_name(t, v)) == v;
    fclose(f);
    topomap_topology_free(t);
    return buf;
}

static void test_key_independence(const char *dir)
{
    char path[4096], conf[4096];
    snprintf(path, sizeof path, "%s/crafted.yaml", dir);
    snprintf(conf, sizeof conf, "%s/topology.conf", dir);
    FILE *f = fopen(conf, "w");
    fprintf(f, "SwitchName=top Switches=s[0-63]\n");
    for (int s = 0; s < 64; s++)
        fprintf(f, "SwitchName=s%d Nodes=n%d-[0-15]\n", s, s);
    fclose(f);
    unsigned char k1[16] = {1}, k2[16] = {2, 3, 4};
    const char *files[] = {path, conf};
    for (int i = 0; i < 2; i++) {
        int ok1 = 0, ok2 = 0;
        topomap_name_key_set(k1);
        char *a = shown(files[i], &ok1);
        topomap_name_key_set(k2);
        char *b = shown(files[i], &ok2);
        ok(a && b && !strcmp(a, b) && ok1 && ok2,
           "%s: same description and node indices under two keys", i ? "topology.conf" : "YAML");
        free(a);
        free(b);
    }
    /* Repeated names: the pair reported follows input order. */
    char *names[] = {"x5", "x1", "x2", "x3", "x1", "x2", "x5"};
    int first[2], second[2];
    for (int i = 0; i < 2; i++) {
        topomap_name_key_set(i ? k2 : k1);
        topomap_hostlist_t *hl = as_list(names, 7);
        topo_names_repeat(hl, &first[i], &second[i]);
        topomap_hostlist_free(hl);
    }
    ok(first[0] == 1 && second[0] == 4 && first[1] == 1 && second[1] == 4,
       "repeated names: nodes 1 and 4 under both keys (got %d,%d and %d,%d)", first[0],
       second[0], first[1], second[1]);
}

int main(void)
{
    const char *e = getenv("NAME_HASH_N");
    size_t n = e ? strtoul(e, NULL, 10) : 4096;
    char dir[] = "/tmp/topomap-hash.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP cannot make a temporary directory\n");
        return 0;
    }
    test_vectors();
    test_crafted(n, dir);
    test_key_independence(dir);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    printf("1..%d\n", tap_n);
    return tap_failed != 0;
}
