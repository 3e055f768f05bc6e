/* SPDX-License-Identifier: BSD-3-Clause */
/* What the libFuzzer harnesses of tests/fuzz share (header only): a private
 * directory for the files the parsers read, input splitting, and checks of
 * properties every loaded object must have. A broken property aborts, which
 * libFuzzer reports as a finding, like a sanitizer error. */
#ifndef TOPOMAP_FUZZ_H
#define TOPOMAP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topomap.h"

#define FUZZ_CHECK(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "fuzz: property failed at %s:%d: %s\n", __FILE__, __LINE__,     \
                    #cond);                                                                  \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

static char fuzz_dir[64];

static inline void fuzz_cleanup(void)
{
    char cmd[128];
    if (!fuzz_dir[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir);
}

/* dir/name, the directory made on first use (in /dev/shm when there is one:
 * every input is written to a file, the parsers read files). */
static inline const char *fuzz_path(const char *name)
{
    static char buf[4][256];
    static int k;
    if (!fuzz_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/topomap-fuzz.XXXXXX", base);
        if (!mkdtemp(fuzz_dir)) {
            perror(fuzz_dir);
            abort();
        }
        atexit(fuzz_cleanup);
    }
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", fuzz_dir, name);
    return buf[k];
}

/* Write n bytes to dir/name; returns the path. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t n)
{
    const char *p = fuzz_path(name);
    FILE *f = fopen(p, "w");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f)) {
        perror(p);
        abort();
    }
    return p;
}

/* A NUL-terminated copy (caller frees). */
static inline char *fuzz_str(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = 0;
    return s;
}

/* Split data at the two-byte separator "\xff\xfe" into at most max parts
 * (the last part keeps any further separators). Returns the count. */
static inline int fuzz_split(const uint8_t *data, size_t n, const uint8_t **part, size_t *len, int max)
{
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i + 1 < n && k < max - 1; i++)
        if (data[i] == 0xff && data[i + 1] == 0xfe) {
            part[k] = data + start;
            len[k++] = i - start;
            start = i + 2;
            i++;
        }
    part[k] = data + start;
    len[k++] = n - start;
    return k;
}

/* Every error message is one printable line. */
static inline void fuzz_check_message(const char *err)
{
    for (const unsigned char *p = (const unsigned char *)err; *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
}

/* A loaded topology answers consistently: names look up to themselves,
 * hops are symmetric and within the diameter, routes fit route_max. */
static inline void fuzz_check_topology(const topomap_topology_t *t)
{
    int n = topomap_topology_nnodes(t), diam = topomap_topology_diameter(t);
    FUZZ_CHECK(n >= 1 && topomap_topology_cores(t) >= 1 && diam >= 0);
    int step = n > 64 ? n / 64 : 1, rmax = topomap_topology_route_max(t);
    int *elems = malloc(sizeof(int) * (size_t)(rmax + 1));
    FUZZ_CHECK(elems);
    /* A route costs its length: on a long ring (a 1-D torus of 500,000 nodes
     * has routes of 250,000 hops) 64 x 64 of them take a minute under ASan.
     * The routes checked are capped at about 2^24 elements in all, spread
     * evenly over the pairs sampled (every `every`-th); the hops are checked
     * for every pair. */
    long side = (n + step - 1) / step, pairs = side * side, routes = (1L << 24) / (rmax + 1);
    if (routes < 16)
        routes = 16;
    long every = pairs > routes ? (pairs + routes - 1) / routes : 1, pair = 0;
    for (int a = 0; a < n; a += step) {
        const char *name = topomap_topology_node_name(t, a);
        FUZZ_CHECK(name && topomap_topology_node_lookup(t, name) == a);
        for (int b = 0; b < n; b += step) {
            int h = topomap_topology_hops(t, a, b);
            FUZZ_CHECK(h >= 0 && h <= diam && h == topomap_topology_hops(t, b, a));
            FUZZ_CHECK((h == 0) == (a == b));
            if (pair++ % every)
                continue;
            int r = topomap_topology_route(t, a, b, elems, rmax + 1);
            FUZZ_CHECK(r >= 0 && r <= rmax && elems[0] == a && elems[r] == b);
        }
    }
    free(elems);
    FILE *null = fopen("/dev/null", "w");
    FUZZ_CHECK(null && topomap_topology_describe(t, null) == 0);
    fclose(null);
}

/* The input as a topology file NAME (YAML or topology.conf, as the library
 * decides): refused with a printable message, or consistent. */
static inline void fuzz_topology_file(const char *name, const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(name, data, size);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    if (!t) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return;
    }
    fuzz_check_topology(t);
    topomap_topology_free(t);
}

/* A loaded profile: its CSR views are well formed, and it reads back the
 * same after topomap_profile_write(). */
/* p written in format to name reads back with the same ranks, messages or
 * not, and the same CSR as want (the symmetric view if sym, else the directed
 * one). */
static inline void fuzz_reads_back(const topomap_profile_t *p, int format, const char *name,
                                   const topomap_graph_t *want, int sym)
{
    const char *out = fuzz_path(name);
    FILE *f = fopen(out, "wb");
    FUZZ_CHECK(f && topomap_profile_write_as(p, format, f) == 0);
    fclose(f);
    char err[TOPOMAP_ERRLEN];
    topomap_profile_t *q = topomap_profile_load(out, format, err, sizeof err);
    if (!q)
        fprintf(stderr, "fuzz: written profile (%s) does not read back: %s\n", name, err);
    FUZZ_CHECK(q);
    int n = want->n;
    topomap_graph_t h;
    FUZZ_CHECK(topomap_profile_nranks(q) == n && topomap_profile_has_msgs(q) == topomap_profile_has_msgs(p));
    FUZZ_CHECK(topomap_profile_graph(q, TOPOMAP_AFFINITY_BYTES, sym, &h) == 0);
    FUZZ_CHECK(!memcmp(h.xadj, want->xadj, ((size_t)n + 1) * sizeof *h.xadj));
    FUZZ_CHECK(!memcmp(h.adj, want->adj, (size_t)h.xadj[n] * sizeof *h.adj));
    FUZZ_CHECK(!memcmp(h.w, want->w, (size_t)h.xadj[n] * sizeof *h.w));
    topomap_profile_free(q);
}

static inline void fuzz_check_profile(const topomap_profile_t *p)
{
    int n = topomap_profile_nranks(p);
    FUZZ_CHECK(n >= 1 && n <= TOPOMAP_MAX_RANKS);
    double total = topomap_profile_total_bytes(p);
    FUZZ_CHECK(total >= 0 && total <= TOPOMAP_MAX_TOTAL);
    topomap_graph_t g, s;
    FUZZ_CHECK(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) == 0);
    FUZZ_CHECK(topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 1, &s) == 0);
    FUZZ_CHECK((size_t)g.xadj[n] == topomap_profile_nedges(p));
    for (int i = 0; i < n; i++)
        for (int64_t e = s.xadj[i]; e < s.xadj[i + 1]; e++)
            FUZZ_CHECK(s.adj[e] >= 0 && s.adj[e] < n && s.adj[e] != i &&
                       (e == s.xadj[i] || s.adj[e] > s.adj[e - 1]) && s.w[e] >= 0);
    fuzz_reads_back(p, TOPOMAP_FMT_EDGES, "written.txt", &g, 0);
    fuzz_reads_back(p, TOPOMAP_FMT_BINARY, "written.bin", &s, 1);
}

#endif
