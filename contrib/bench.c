/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: hop-bytes and mapping time of the mapping algorithms, with
 * Scotch's static mapping side by side, on every profile of the shared
 * workloads plus synthetic ones (3D stencils, random sparse graphs), on every
 * shipped topology, for a compact and a scattered allocation. Prints a table
 * (also saved as PREFIX.txt) and draws PREFIX.svg. Not part of `make check`:
 * run it with `make bench`.
 *
 * Allocations: the job gets ceil(n / cores) nodes, all cores of each but the
 * last ("c(xK),r" in Slurm's syntax), so that slots = ranks. "compact" takes
 * the first nodes in index order (an empty machine); "scattered" takes nodes
 * drawn at random over the machine (seeded), listed in index order (a busy
 * machine). Hop-bytes are computed by topomap_eval_slots() for everyone,
 * Scotch included; "vs block" divides by block's value on the same case.
 * Times are wall-clock seconds of topomap_map() (median of up to 5 runs when
 * a run is short), Scotch's from building its graph and architecture to the
 * slot assignment, measured the same way.
 *
 * Scotch (optional, SCOTCH_graphMap): the target architecture has one
 * terminal per allocated node: tori and meshes with SCOTCH_archTorusX /
 * SCOTCH_archMeshX restricted to the allocation with SCOTCH_archSub (the
 * terminal distances are checked against the topology), fat-trees with
 * SCOTCH_archTleaf (one level per switch level, link costs = hops) and
 * SCOTCH_archSub, and Tianhe-3 as a decomposition-defined ("deco 0")
 * architecture holding the exact hop table of the allocated nodes (Scotch's
 * builders from a graph were no good here: SCOTCH_archBuild2 only
 * approximates distances, and SCOTCH_archBuild0's cannot be checked).
 * Strict one task per slot: every node terminal must receive exactly its
 * number of slots; isolated dummy tasks fill the last node's missing cores,
 * Scotch is asked for a strict balance, and any task still over a node's
 * capacity is moved to the closest node with room (counted in the note).
 * Edge weights are scaled to integers (Scotch's SCOTCH_Num is 32-bit here). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "topomap.h"
#ifdef HAVE_SCOTCH
#include <scotch.h>
#endif

#ifndef BENCH_WORKLOADS
#define BENCH_WORKLOADS "../shared/workloads"
#endif
#ifndef BENCH_TOPOLOGIES
#define BENCH_TOPOLOGIES "topologies"
#endif

static const char *default_algos[] = {"block",  "cyclic",     "random",       "greedy",
                                      "rcm",    "metis",      "ohtma",        "ohtma-fast",
                                      "ohtma+refine", "auto", "scotch"};
#define MAXALG 16

struct result {
    char profile[48];
    int n;
    char topo[40];
    char shape[12];
    char algo[24];
    double hb, rel, secs;
    char note[80];
};

static struct result *res;
static size_t nres, capres;
static char err[TOPOMAP_ERRLEN];
static FILE *out; /* the table file */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (out) {
        va_start(ap, fmt);
        vfprintf(out, fmt, ap);
        va_end(ap);
    }
}

static struct result *add_result(void)
{
    if (nres == capres) {
        capres = capres ? 2 * capres : 256;
        res = realloc(res, capres * sizeof *res);
        if (!res) {
            perror("topomap-bench");
            exit(1);
        }
    }
    memset(&res[nres], 0, sizeof res[0]);
    return &res[nres++];
}

/* ---- synthetic profiles ----------------------------------------------------- */

static topomap_profile_t *stencil(int x, int y, int z, double face)
{
    int n = x * y * z;
    size_t m = (size_t)n * 6, k = 0;
    int *src = malloc(sizeof(int) * m), *dst = malloc(sizeof(int) * m);
    double *b = malloc(sizeof(double) * m);
    for (int c = 0; c < z; c++)
        for (int bb = 0; bb < y; bb++)
            for (int a = 0; a < x; a++) {
                int nb[6][3] = {{a - 1, bb, c}, {a + 1, bb, c}, {a, bb - 1, c},
                                {a, bb + 1, c}, {a, bb, c - 1}, {a, bb, c + 1}};
                for (int t = 0; t < 6; t++) {
                    int *q = nb[t];
                    if (q[0] < 0 || q[0] >= x || q[1] < 0 || q[1] >= y || q[2] < 0 || q[2] >= z)
                        continue;
                    src[k] = a + x * (bb + y * c);
                    dst[k] = q[0] + x * (q[1] + y * q[2]);
                    b[k++] = face;
                }
            }
    topomap_profile_t *p = topomap_profile_create(n, k, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

static uint64_t rng_state = 20240607;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Random sparse graph: each rank sends to deg random others, 1..1e5 bytes. */
static topomap_profile_t *random_sparse(int n, int deg)
{
    size_t m = (size_t)n * deg, k = 0;
    int *src = malloc(sizeof(int) * m), *dst = malloc(sizeof(int) * m);
    double *b = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < deg; d++) {
            int j = (int)(rng() % (uint64_t)n);
            if (j == i)
                continue;
            src[k] = i;
            dst[k] = j;
            b[k++] = (double)(1 + rng() % 100000);
        }
    topomap_profile_t *p = topomap_profile_create(n, k, src, dst, b, NULL, err, sizeof err);
    free(src);
    free(dst);
    free(b);
    return p;
}

/* ---- allocations ---------------------------------------------------------------- */

/* ceil(n / cores) nodes of t, compact (first ones) or scattered (random,
 * sorted), with exactly n slots. NULL when the machine is too small. */
static topomap_alloc_t *make_alloc(const topomap_topology_t *t, int n, int scattered)
{
    int c = topomap_topology_cores(t), nn = topomap_topology_nnodes(t);
    int k = (n + c - 1) / c;
    if (k > nn)
        return NULL;
    int *pick = malloc(sizeof(int) * (size_t)nn);
    for (int i = 0; i < nn; i++)
        pick[i] = i;
    if (scattered) {
        rng_state = 1000003u * (uint64_t)n + (uint64_t)nn; /* same draw for every algorithm */
        for (int i = 0; i < k; i++) {
            int j = i + (int)(rng() % (uint64_t)(nn - i));
            int tmp = pick[i];
            pick[i] = pick[j];
            pick[j] = tmp;
        }
        /* Index order, as Slurm lists nodes. */
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
                int tmp = pick[j];
                pick[j] = pick[j - 1];
                pick[j - 1] = tmp;
            }
    }
    const char **names = malloc(sizeof(char *) * (size_t)k);
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, pick[i]);
    char *hl = topomap_hostlist_compress(names, (size_t)k);
    char slots[64] = "";
    int last = n - (k - 1) * c;
    if (last != c) {
        if (k > 1)
            snprintf(slots, sizeof slots, "%d(x%d),%d", c, k - 1, last);
        else
            snprintf(slots, sizeof slots, "%d", last);
    }
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, slots, err, sizeof err) : NULL;
    if (!a)
        fprintf(stderr, "topomap-bench: allocation failed: %s\n", err);
    free(hl);
    free(names);
    free(pick);
    return a;
}

/* ---- Scotch ------------------------------------------------------------------------ */

#ifdef HAVE_SCOTCH
/* Check terminal distances of arch against factor x hops on sampled pairs. */
static int scotch_check(SCOTCH_Arch *arch, const topomap_topology_t *t, const int *nodes, int k,
                        char *why, size_t len)
{
    double factor = 0;
    for (int s = 0; s < 400 && k > 1; s++) {
        int i = (int)(rng() % (uint64_t)k), j = (int)(rng() % (uint64_t)k);
        SCOTCH_ArchDom di, dj;
        if (SCOTCH_archDomTerm(arch, &di, i) || SCOTCH_archDomTerm(arch, &dj, j)) {
            snprintf(why, len, "Scotch terminal %d or %d missing", i, j);
            return -1;
        }
        double d = (double)SCOTCH_archDomDist(arch, &di, &dj);
        int h = topomap_topology_hops(t, nodes[i], nodes[j]);
        if (h > 0 && factor == 0)
            factor = d / h;
        if (fabs(d - factor * h) > 1e-9) {
            snprintf(why, len, "Scotch distance %g != %g x %d hops", d, factor, h);
            return -1;
        }
    }
    return 0;
}

/* Tianhe-3 (or any topology) as a Scotch "deco 0" architecture: terminal i is
 * the i-th allocated node, the decomposition tree halves the allocation in
 * index order (chips, then sides, then nodes on Tianhe-3), and the terminal
 * distance matrix is the exact hop table; Scotch averages it for the inner
 * domains. Written as text and read back with SCOTCH_archLoad. (We do not
 * check it through SCOTCH_archDomTerm: in Scotch 7.0.3 that function returns
 * off-by-one domains for decomposition-defined architectures.) */
static void deco_split(int lo, int hi, long dom, long *num)
{
    if (hi - lo == 1) {
        num[lo] = dom;
        return;
    }
    int mid = lo + (hi - lo + 1) / 2;
    deco_split(lo, mid, 2 * dom, num);
    deco_split(mid, hi, 2 * dom + 1, num);
}

static int scotch_deco(SCOTCH_Arch *arch, const topomap_topology_t *t, const int *nodes, int k,
                       char *why, size_t len)
{
    long *num = malloc(sizeof(long) * (size_t)k), max = 0;
    deco_split(0, k, 1, num);
    for (int i = 0; i < k; i++)
        if (num[i] > max)
            max = num[i];
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    fprintf(f, "deco\n0\n%d %ld\n", k, max);
    for (int i = 0; i < k; i++)
        fprintf(f, "%d 1 %ld\n", i, num[i]);
    for (int i = 1; i < k; i++) {
        for (int j = 0; j < i; j++)
            fprintf(f, "%d ", topomap_topology_hops(t, nodes[i], nodes[j]));
        fputc('\n', f);
    }
    fclose(f);
    free(num);
    f = fmemopen(buf, blen, "r");
    SCOTCH_archInit(arch);
    int e = !f || SCOTCH_archLoad(arch, f);
    if (f)
        fclose(f);
    free(buf);
    if (e) {
        snprintf(why, len, "SCOTCH_archLoad of the deco architecture failed");
        return -1;
    }
    return 0;
}

/* The node-level target architecture of allocation a (terminal i = the i-th
 * allocated node). 0, or -1 with the reason in why. */
static int scotch_arch(const topomap_alloc_t *a, SCOTCH_Arch *full, SCOTCH_Arch *arch,
                       int *used_full, int *slot_level, int *maxdist, char *why, size_t len)
{
    const topomap_topology_t *t = topomap_alloc_topology(a);
    const char *kind = topomap_topology_kind(t);
    int k = topomap_alloc_nnodes(a), nn = topomap_topology_nnodes(t);
    SCOTCH_Num *sub = malloc(sizeof(SCOTCH_Num) * (size_t)k);
    int *nodes = malloc(sizeof(int) * (size_t)k);
    int rc = -1;
    *used_full = 0;
    *slot_level = 0;
    *maxdist = topomap_topology_diameter(t);
    for (int i = 0; i < k; i++)
        sub[i] = nodes[i] = topomap_alloc_node(a, i);
    int co[16];
    if (!strcmp(kind, "torus") || !strcmp(kind, "mesh")) {
        int nd = topomap_topology_coords(t, 0, co, 16);
        SCOTCH_Num dims[16] = {0};
        for (int v = 0; v < nn; v++) {
            topomap_topology_coords(t, v, co, 16);
            for (int d = 0; d < nd; d++)
                if (co[d] + 1 > dims[d])
                    dims[d] = co[d] + 1;
        }
        SCOTCH_archInit(full);
        int e = !strcmp(kind, "torus") ? SCOTCH_archTorusX(full, nd, dims)
                                       : SCOTCH_archMeshX(full, nd, dims);
        if (e) {
            snprintf(why, len, "SCOTCH_arch%sX failed", !strcmp(kind, "torus") ? "Torus" : "Mesh");
            goto out;
        }
        *used_full = 1;
        SCOTCH_archInit(arch);
        if (SCOTCH_archSub(arch, full, k, sub)) {
            snprintf(why, len, "SCOTCH_archSub failed");
            goto out;
        }
        rc = scotch_check(arch, t, nodes, k, why, len);
    } else if (!strcmp(kind, "fat-tree")) {
        /* Regular tree: levels from the coordinates (switch at each level). */
        int nd = topomap_topology_coords(t, 0, co, 16), nl = nd - 1;
        SCOTCH_Num size[16], link[16], below[17];
        below[nl] = 1;
        for (int l = nl - 1; l >= 0; l--) {
            /* Nodes under the level-l switch of node 0. */
            int c0[16], cnt = 0;
            topomap_topology_coords(t, 0, c0, 16);
            for (int v = 0; v < nn; v++) {
                topomap_topology_coords(t, v, co, 16);
                if (co[l] == c0[l])
                    cnt++;
            }
            below[l] = cnt;
        }
        below[0] = nn; /* the top switch holds everything */
        for (int l = 0; l < nl; l++) {
            size[l] = below[l] / below[l + 1];
            if (size[l] < 2 || below[l] % below[l + 1]) {
                snprintf(why, len, "not a regular tree: no Scotch tleaf");
                goto out;
            }
            link[l] = topomap_topology_hops(t, 0, (int)below[l + 1]);
        }
        /* One more level for the cores of a node, so that every terminal is
         * a slot (no node terminal of the wrong capacity): hops x 16 between
         * nodes, 1 inside a node (hop-bytes count 0 there; Scotch needs > 0). */
        int cores = topomap_topology_cores(t), ns = topomap_alloc_nslots(a);
        int lev = nl;
        for (int l = 0; l < nl; l++)
            link[l] *= 16;
        *maxdist *= 16;
        if (cores > 1) {
            size[nl] = cores;
            link[nl] = 1;
            lev = nl + 1;
            *slot_level = 1;
            free(sub);
            sub = malloc(sizeof(SCOTCH_Num) * (size_t)ns);
            for (int s2 = 0; s2 < ns; s2++)
                sub[s2] = (SCOTCH_Num)topomap_alloc_slot_node(a, s2) * cores +
                          topomap_alloc_slot_core(a, s2);
        }
        SCOTCH_archInit(full);
        if (SCOTCH_archTleaf(full, lev, size, link)) {
            snprintf(why, len, "SCOTCH_archTleaf failed");
            goto out;
        }
        *used_full = 1;
        SCOTCH_archInit(arch);
        if (SCOTCH_archSub(arch, full, *slot_level ? ns : k, sub)) {
            snprintf(why, len, "SCOTCH_archSub failed");
            goto out;
        }
        rc = 0; /* tleaf distances are per level, not per pair: not checked */
    } else if (!strcmp(kind, "tianhe3")) {
        rc = scotch_deco(arch, t, nodes, k, why, len);
    } else {
        snprintf(why, len, "no Scotch architecture for kind %s", kind);
    }
out:
    free(sub);
    free(nodes);
    return rc;
}

/* Map p onto a with Scotch, strictly one rank per slot. */
static int scotch_map(const topomap_profile_t *p, const topomap_alloc_t *a, int *r2s,
                      double *secs, char *note, size_t len)
{
    double t0 = now();
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int n = topomap_profile_nranks(p), k = topomap_alloc_nnodes(a), ns = topomap_alloc_nslots(a);
    int c = topomap_topology_cores(t);
    topomap_graph_t g;
    topomap_profile_graph(p, 0, 1, &g);
    SCOTCH_Arch full, arch;
    int used_full = 0, slot_level = 0, maxdist = 1, rc = -1;
    note[0] = 0;
    if (k == 1) { /* nothing to decide (and SCOTCH_archSub dislikes it) */
        for (int r = 0; r < n; r++)
            r2s[r] = r;
        *secs = now() - t0;
        snprintf(note, len, "one node: no mapping needed");
        return 0;
    }
    if (scotch_arch(a, &full, &arch, &used_full, &slot_level, &maxdist, note, len) < 0) {
        if (used_full)
            SCOTCH_archExit(&full);
        return -1;
    }
    /* Terminals: slots (slot_level) or allocated nodes, with their slots. */
    int nterm = slot_level ? ns : k;
    int *cnt = calloc((size_t)nterm, sizeof(int)), *cap = calloc((size_t)nterm, sizeof(int));
    int **slots = calloc((size_t)nterm, sizeof(int *));
    int *tnode = malloc(sizeof(int) * (size_t)nterm);
    for (int s = 0, i = -1, prev = -1; s < ns; s++) {
        int v = topomap_alloc_slot_node(a, s);
        if (slot_level) {
            i = s;
        } else if (v != prev) {
            i++;
            prev = v;
        }
        if (!slots[i])
            slots[i] = malloc(sizeof(int) * (size_t)(slot_level ? 1 : c));
        slots[i][cap[i]++] = s;
        tnode[i] = v;
    }
    /* Tasks: the n ranks, then (node terminals) dummies so that every node
     * terminal holds c tasks, fixed on the nodes with fewer slots. */
    int nt = slot_level ? n : k * c;
    if (nt < n)
        nt = n;
    double maxw = 0, sumw = 0;
    for (int64_t e = 0; e < g.xadj[n]; e++) {
        if (g.w[e] > maxw)
            maxw = g.w[e];
        sumw += g.w[e];
    }
    /* Integer loads; sum x distance must stay far from 2^31 in Scotch. */
    double f = maxw > 0 ? 1e6 / maxw : 1;
    if (sumw * f * maxdist > 1e9)
        f = 1e9 / (sumw * maxdist);
    SCOTCH_Num *verttab = malloc(sizeof(SCOTCH_Num) * ((size_t)nt + 1));
    SCOTCH_Num *edgetab = malloc(sizeof(SCOTCH_Num) * ((size_t)g.xadj[n] + 1));
    SCOTCH_Num *edlotab = malloc(sizeof(SCOTCH_Num) * ((size_t)g.xadj[n] + 1));
    SCOTCH_Num *part = malloc(sizeof(SCOTCH_Num) * (size_t)nt);
    for (int v = 0; v <= nt; v++)
        verttab[v] = (SCOTCH_Num)g.xadj[v < n ? v : n];
    for (int64_t e = 0; e < g.xadj[n]; e++) {
        edgetab[e] = g.adj[e];
        double w = floor(g.w[e] * f + 0.5);
        edlotab[e] = (SCOTCH_Num)(w < 1 ? 1 : w);
    }
    SCOTCH_Graph sg;
    SCOTCH_Strat st;
    SCOTCH_graphInit(&sg);
    SCOTCH_stratInit(&st);
    for (int v = 0; v < n; v++)
        part[v] = -1;
    for (int i = 0, v = n; i < nterm && !slot_level; i++)
        for (int m = cap[i]; m < c && v < nt; m++)
            part[v++] = i;
    if (SCOTCH_graphBuild(&sg, 0, nt, verttab, NULL, NULL, NULL, (SCOTCH_Num)g.xadj[n], edgetab,
                          edlotab) ||
        SCOTCH_stratGraphMapBuild(&st, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE, nterm, 0.0) ||
        SCOTCH_graphMapFixed(&sg, &arch, &st, part)) {
        snprintf(note, len, "SCOTCH_graphMapFixed failed");
        goto out;
    }
    int repaired = 0;
    int *over = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)), nover = 0;
    for (int r = 0; r < n; r++) {
        int i = (int)part[r];
        if (i >= 0 && i < nterm && cnt[i] < cap[i])
            r2s[r] = slots[i][cnt[i]++];
        else
            over[nover++] = r;
    }
    for (int o = 0; o < nover; o++) {
        int r = over[o], from = (int)part[r], best = -1, bh = 0;
        for (int i = 0; i < nterm; i++) {
            if (cnt[i] == cap[i])
                continue;
            int h = from >= 0 && from < nterm ? topomap_topology_hops(t, tnode[from], tnode[i]) : 0;
            if (best < 0 || h < bh) {
                best = i;
                bh = h;
            }
        }
        r2s[r] = slots[best][cnt[best]++];
        repaired++;
    }
    free(over);
    *secs = now() - t0;
    if (repaired)
        snprintf(note, len, "%d ranks moved to keep one per slot", repaired);
    rc = 0;
out:
    for (int i = 0; i < nterm; i++)
        free(slots[i]);
    free(slots);
    free(cnt);
    free(cap);
    free(tnode);
    SCOTCH_stratExit(&st);
    SCOTCH_graphExit(&sg);
    SCOTCH_archExit(&arch);
    if (used_full)
        SCOTCH_archExit(&full);
    free(verttab);
    free(edgetab);
    free(edlotab);
    free(part);
    return rc;
}
#endif

/* ---- one case ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Run algo (an algorithm name, "NAME+refine" or "scotch"); 0 or -1 + note. */
static int run_algo(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                    int *r2s, double *secs, char *note, size_t len)
{
    note[0] = 0;
    if (!strcmp(algo, "scotch")) {
#ifdef HAVE_SCOTCH
        return scotch_map(p, a, r2s, secs, note, len);
#else
        snprintf(note, len, "built without Scotch");
        return -1;
#endif
    }
    char name[32];
    snprintf(name, sizeof name, "%s", algo);
    char *plus = strchr(name, '+');
    topomap_opts_t o;
    topomap_opts_init(&o);
    if (plus) {
        *plus = 0;
        o.refine = 1;
    }
    double t[5];
    int runs = 0;
    double total = 0;
    while (runs < 5) {
        double t0 = now();
        if (topomap_map(name, p, a, &o, r2s, err, sizeof err) < 0) {
            snprintf(note, len, "%.70s", err);
            return -1;
        }
        t[runs] = now() - t0;
        total += t[runs++];
        if (total > 0.2)
            break;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    *secs = t[runs / 2];
    return 0;
}

static void run_case(const char *pname, const topomap_profile_t *p, const char *tname,
                     const topomap_topology_t *t, const char *shape, const char **algos,
                     int nalgo)
{
    int n = topomap_profile_nranks(p);
    topomap_alloc_t *a = make_alloc(t, n, !strcmp(shape, "scattered"));
    if (!a)
        return;
    int *r2s = malloc(sizeof(int) * (size_t)topomap_alloc_nslots(a));
    double block_hb = NAN;
    topomap_metrics_t m;
    topomap_opts_t o;
    topomap_opts_init(&o);
    if (topomap_map("block", p, a, &o, r2s, err, sizeof err) == 0 &&
        topomap_eval_slots(p, a, r2s, &m) == 0)
        block_hb = m.hop_bytes;
    for (int k = 0; k < nalgo; k++) {
        struct result *R = add_result();
        snprintf(R->profile, sizeof R->profile, "%s", pname);
        snprintf(R->topo, sizeof R->topo, "%s", tname);
        snprintf(R->shape, sizeof R->shape, "%s", shape);
        snprintf(R->algo, sizeof R->algo, "%s", algos[k]);
        R->n = n;
        R->hb = R->rel = R->secs = NAN;
        if (run_algo(algos[k], p, a, r2s, &R->secs, R->note, sizeof R->note) == 0 &&
            topomap_eval_slots(p, a, r2s, &m) == 0) {
            R->hb = m.hop_bytes;
            R->rel = block_hb > 0 ? m.hop_bytes / block_hb : NAN;
        }
        emit("%-22s %6d %-18s %-9s %-13s %12.5g %7.3f %10.4f  %s\n", R->profile, R->n, R->topo,
             R->shape, R->algo, R->hb, R->rel, R->secs, R->note);
    }
    free(r2s);
    topomap_alloc_free(a);
}

/* ---- the summary ---------------------------------------------------------------------- */

static const struct result *find(const char *profile, const char *topo, const char *shape,
                                 const char *algo)
{
    for (size_t i = 0; i < nres; i++)
        if (!strcmp(res[i].profile, profile) && !strcmp(res[i].topo, topo) &&
            !strcmp(res[i].shape, shape) && !strcmp(res[i].algo, algo))
            return &res[i];
    return NULL;
}

static double geomean_rel(const char *topo, const char *shape, const char *algo, int *count)
{
    double s = 0;
    int c = 0;
    for (size_t i = 0; i < nres; i++)
        if (!strcmp(res[i].topo, topo) && !strcmp(res[i].shape, shape) &&
            !strcmp(res[i].algo, algo) && res[i].rel > 0) {
            s += log(res[i].rel);
            c++;
        }
    *count = c;
    return c ? exp(s / c) : NAN;
}

/* Distinct values of a string field, in first-seen order. */
static int distinct(size_t off, const char **vals, int max)
{
    int nv = 0;
    for (size_t i = 0; i < nres; i++) {
        const char *v = (const char *)&res[i] + off;
        int seen = 0;
        for (int k = 0; k < nv && !seen; k++)
            seen = !strcmp(vals[k], v);
        if (!seen && nv < max)
            vals[nv++] = v;
    }
    return nv;
}

static void summary(const char **algos, int nalgo, const char *paper_topo, int nshared,
                    char shared[][48])
{
    const char *topos[16], *shapes[4];
    int nt = distinct(offsetof(struct result, topo), topos, 16);
    int nsh = distinct(offsetof(struct result, shape), shapes, 4);
    emit("\n## Hop-bytes relative to block, geometric mean over the profiles of each case\n\n");
    emit("%-18s %-9s %5s", "topology", "alloc", "cases");
    for (int k = 0; k < nalgo; k++)
        emit(" %12s", algos[k]);
    emit("\n");
    for (int ti = 0; ti < nt; ti++)
        for (int si = 0; si < nsh; si++) {
            int c;
            geomean_rel(topos[ti], shapes[si], "block", &c);
            if (!c)
                continue;
            emit("%-18s %-9s %5d", topos[ti], shapes[si], c);
            for (int k = 0; k < nalgo; k++)
                emit(" %12.3f", geomean_rel(topos[ti], shapes[si], algos[k], &c));
            emit("\n");
        }

    emit("\n## Targets\n\n");
    double t512 = 0, t4096 = 0, tbig = NAN, worst = 0, sumr = 0;
    int c512 = 0, c4096 = 0, cboth = 0, over5 = 0;
    const struct result *worst_case = NULL;
    for (size_t i = 0; i < nres; i++) {
        const struct result *R = &res[i];
        if (!strcmp(R->algo, "ohtma") && R->secs >= 0) {
            if (R->n == 512) {
                c512++;
                if (R->secs > t512)
                    t512 = R->secs;
            }
            if (R->n == 4096) {
                c4096++;
                if (R->secs > t4096)
                    t4096 = R->secs;
            }
        }
        if (!strcmp(R->algo, "ohtma-fast") && R->n == 65536)
            tbig = R->secs;
        if (!strcmp(R->algo, "ohtma-fast") && R->hb >= 0) {
            const struct result *F = find(R->profile, R->topo, R->shape, "ohtma");
            if (F && F->hb > 0) {
                double r = R->hb / F->hb;
                cboth++;
                sumr += r;
                if (r > 1.05)
                    over5++;
                if (r > worst) {
                    worst = r;
                    worst_case = R;
                }
            }
        }
    }
    emit("ohtma at 512 ranks: slowest of %d cases %.4f s (target <= 0.1 s)\n", c512, t512);
    emit("ohtma at 4096 ranks: slowest of %d cases %.3f s (target <= 10 s)\n", c4096, t4096);
    if (!isnan(tbig))
        emit("ohtma-fast at 65536 ranks (3D torus 16x16x16, 16 cores): %.2f s\n", tbig);
    if (cboth)
        emit("ohtma-fast / ohtma hop-bytes over %d cases: mean %.4f, worst %.4f (%s on %s %s), "
             "%d cases above 1.05\n",
             cboth, sumr / cboth, worst, worst_case->profile, worst_case->topo, worst_case->shape,
             over5);

    emit("\n## The paper's claim: ohtma below block, cyclic, greedy and rcm on %s\n\n", paper_topo);
    const char *rivals[] = {"block", "cyclic", "greedy", "rcm"};
    int wins = 0, ties = 0, losses = 0, na = 0;
    for (int w = 0; w < nshared; w++)
        for (int si = 0; si < nsh; si++) {
            const struct result *O = find(shared[w], paper_topo, shapes[si], "ohtma");
            if (!O || !(O->hb >= 0))
                continue;
            if (O->hb == 0) { /* one node: every mapping costs nothing */
                emit("%-22s %-9s n/a: the job fits in one node, every mapping has 0 hop-bytes\n",
                     shared[w], shapes[si]);
                na++;
                continue;
            }
            char lose[160] = "", tie[96] = "", all[32];
            int nriv = 0;
            for (int r = 0; r < 4; r++) {
                const struct result *R = find(shared[w], paper_topo, shapes[si], rivals[r]);
                if (!R || !(R->hb >= 0))
                    continue;
                nriv++;
                char *buf = lose;
                size_t cap = sizeof lose;
                if (O->hb < R->hb) {
                    wins++;
                    continue;
                } else if (O->hb == R->hb) {
                    ties++;
                    buf = tie;
                    cap = sizeof tie;
                } else {
                    losses++;
                }
                size_t l = strlen(buf);
                snprintf(buf + l, cap - l, "%s%s (%.4f vs %.4f)", l ? ", " : "", rivals[r], O->rel,
                         R->rel);
            }
            snprintf(all, sizeof all, "below all %d", nriv);
            emit("%-22s %-9s %s%s%s%s%s\n", shared[w], shapes[si],
                 lose[0] || tie[0] ? "" : all, lose[0] ? "ABOVE " : "", lose,
                 tie[0] ? (lose[0] ? "; equal to " : "equal to ") : "", tie);
        }
    emit("ohtma below the rival in %d comparisons, equal in %d, above in %d (%d one-node cases)\n",
         wins, ties, losses, na);
}

/* ---- the plot ----------------------------------------------------------------------------- */

static const char *palette[] = {"#7f7f7f", "#bcbd22", "#c7c7c7", "#1f77b4", "#9467bd",
                                "#d62728", "#ff7f0e", "#8c564b", "#2ca02c", "#17becf"};

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *txt,
                     double rot)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"", x, y, anchor,
            size);
    if (rot != 0)
        fprintf(f, " transform=\"rotate(%.0f %.1f %.1f)\"", rot, x, y);
    fprintf(f, ">%s</text>\n", txt);
}

/* A group label on two centred lines, split at the last '-' or ' ' when long. */
static void svg_label(FILE *f, double x, double y, const char *txt)
{
    size_t l = strlen(txt);
    const char *cut = NULL;
    if (l > 13)
        for (const char *c = txt + l - 1; c > txt && !cut; c--)
            if (*c == '-' || *c == ' ')
                cut = c;
    if (!cut) {
        svg_text(f, x, y, "middle", 10, txt, 0);
        return;
    }
    char a[64], b[64];
    snprintf(a, sizeof a, "%.*s", (int)(cut - txt), txt);
    snprintf(b, sizeof b, "%s", cut + 1);
    svg_text(f, x, y, "middle", 10, a, 0);
    svg_text(f, x, y + 12, "middle", 10, b, 0);
}

/* Grouped bars: groups x algorithms, values relative to block; bars above
 * ymax are cut and carry their value. */
static void svg_bars(FILE *f, double y0, const char *title, int ng, const char **glabels,
                     double *vals, const char **algos, int nalgo, double ymax)
{
    double x0 = 70, w = 1120, h = 250;
    svg_text(f, x0, y0 + 18, "start", 15, title, 0);
    double top = y0 + 34, bottom = top + h;
    for (double v = 0; v <= ymax + 1e-9; v += 0.25) {
        double y = bottom - v / ymax * h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" />\n", x0,
                y, x0 + w, y, fabs(v - 1) < 1e-9 ? "#000" : "#ddd");
        char lab[16];
        snprintf(lab, sizeof lab, "%.2f", v);
        svg_text(f, x0 - 6, y + 4, "end", 11, lab, 0);
    }
    svg_text(f, 22, top + h / 2, "middle", 12, "hop-bytes / block", -90);
    double gw = w / (ng > 0 ? ng : 1), bw = (gw - 8) / nalgo;
    for (int gi = 0; gi < ng; gi++) {
        for (int k = 0; k < nalgo; k++) {
            double v = vals[gi * nalgo + k];
            if (!(v >= 0))
                continue;
            double hv = (v > ymax ? ymax : v) / ymax * h;
            double x = x0 + gi * gw + 4 + k * bw;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>%s: %.3f</title></rect>\n",
                    x, bottom - hv, bw * 0.92, hv, palette[k % 10], algos[k], v);
            if (v > ymax) {
                char lab[16];
                snprintf(lab, sizeof lab, "%.1f", v);
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" "
                        "fill=\"#fff\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                        x + bw * 0.46 + 3, top + 3, x + bw * 0.46 + 3, top + 3, lab);
            }
        }
        svg_label(f, x0 + gi * gw + gw / 2, bottom + 14, glabels[gi]);
    }
}

static void svg_legend(FILE *f, double y, const char **algos, int nalgo)
{
    for (int k = 0; k < nalgo; k++) {
        double x = 70 + k * 125;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" />\n", x,
                y - 11, palette[k % 10]);
        svg_text(f, x + 18, y, "start", 12, algos[k], 0);
    }
}

static void write_svg(const char *path, const char **algos, int nalgo, const char *paper_topo)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    const char *topos[16], *shapes[4], *profiles[64];
    int nt = distinct(offsetof(struct result, topo), topos, 16);
    int nsh = distinct(offsetof(struct result, shape), shapes, 4);
    int np = distinct(offsetof(struct result, profile), profiles, 64);
    double H = 1560;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1220\" height=\"%.0f\" "
            "font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            H);
    svg_text(f, 610, 24, "middle", 18,
             "topomap benchmark: hop-bytes relative to block (lower is better) and mapping time",
             0);
    svg_legend(f, 50, algos, nalgo);

    /* Panel 1: geometric means per topology and allocation. */
    const char *gl[32];
    char glbuf[32][64];
    double *vals = calloc((size_t)64 * (size_t)nalgo, sizeof(double));
    int ng = 0;
    for (int ti = 0; ti < nt; ti++)
        for (int si = 0; si < nsh; si++) {
            int c;
            geomean_rel(topos[ti], shapes[si], "block", &c);
            if (!c || ng >= 32)
                continue;
            snprintf(glbuf[ng], sizeof glbuf[ng], "%s %s", topos[ti], shapes[si]);
            /* svg_label splits at the last space: topology, then allocation. */
            gl[ng] = glbuf[ng];
            for (int k = 0; k < nalgo; k++)
                vals[ng * nalgo + k] = geomean_rel(topos[ti], shapes[si], algos[k], &c);
            ng++;
        }
    svg_bars(f, 70, "Geometric mean over profiles, per topology and allocation", ng, gl, vals,
             algos, nalgo, 2.0);
    /* Two-line labels "topology" / "allocation" come from the space. */

    /* Panels 2-3: the paper's machine, per profile. */
    for (int si = 0; si < nsh && si < 2; si++) {
        int g2 = 0;
        for (int pi = 0; pi < np && g2 < 32; pi++) {
            const struct result *B = find(profiles[pi], paper_topo, shapes[si], "block");
            if (!B || !(B->hb > 0))
                continue; /* absent, or one node: nothing to compare */
            snprintf(glbuf[g2], sizeof glbuf[g2], "%s", profiles[pi]);
            gl[g2] = glbuf[g2];
            for (int k = 0; k < nalgo; k++) {
                const struct result *R = find(profiles[pi], paper_topo, shapes[si], algos[k]);
                vals[g2 * nalgo + k] = R ? R->rel : NAN;
            }
            g2++;
        }
        char title[128];
        snprintf(title, sizeof title, "%s, %s allocation, per profile", paper_topo, shapes[si]);
        svg_bars(f, 400 + si * 330, title, g2, gl, vals, algos, nalgo, 2.0);
    }
    free(vals);

    /* Panel 4: time vs ranks, log-log, median over the cases of each size. */
    double y0 = 1070, x0 = 70, w = 1120, h = 380;
    svg_text(f, x0, y0 + 18, "start", 16, "Mapping time (median over cases) vs ranks", 0);
    double top = y0 + 36, bottom = top + h;
    double lx0 = log10(8), lx1 = log10(131072), ly0 = -5, ly1 = 2;
    for (int e = (int)ly0; e <= (int)ly1; e++) {
        double y = bottom - (e - ly0) / (ly1 - ly0) * h;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\" />\n",
                x0, y, x0 + w, y);
        char lab[16];
        snprintf(lab, sizeof lab, "1e%d s", e);
        svg_text(f, x0 - 6, y + 4, "end", 11, lab, 0);
    }
    for (int e = 4; e <= 17; e++) {
        double x = x0 + (e * log10(2) - lx0) / (lx1 - lx0) * w;
        if (x < x0)
            continue;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\" />\n", x,
                top, x, bottom);
        char lab[16];
        snprintf(lab, sizeof lab, "%d", 1 << e);
        svg_text(f, x, bottom + 14, "middle", 11, lab, 0);
    }
    svg_text(f, x0 + w / 2, bottom + 30, "middle", 12, "ranks", 0);
    for (int k = 0; k < nalgo; k++) {
        int sizes[64], ns = 0;
        for (size_t i = 0; i < nres; i++) {
            if (strcmp(res[i].algo, algos[k]) || !(res[i].secs >= 0))
                continue;
            int seen = 0;
            for (int s = 0; s < ns; s++)
                seen |= sizes[s] == res[i].n;
            if (!seen && ns < 64)
                sizes[ns++] = res[i].n;
        }
        for (int s = 1; s < ns; s++)
            for (int q = s; q > 0 && sizes[q - 1] > sizes[q]; q--) {
                int tmp = sizes[q];
                sizes[q] = sizes[q - 1];
                sizes[q - 1] = tmp;
            }
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                palette[k % 10]);
        for (int pass = 0; pass < 2; pass++)
            for (int s = 0; s < ns; s++) {
                double ts[512];
                int c = 0;
                for (size_t i = 0; i < nres && c < 512; i++)
                    if (!strcmp(res[i].algo, algos[k]) && res[i].n == sizes[s] && res[i].secs >= 0)
                        ts[c++] = res[i].secs;
                qsort(ts, (size_t)c, sizeof ts[0], cmp_double);
                double tv = ts[c / 2] > 1e-5 ? ts[c / 2] : 1e-5;
                double x = x0 + (log10(sizes[s]) - lx0) / (lx1 - lx0) * w;
                double y = bottom - (log10(tv) - ly0) / (ly1 - ly0) * h;
                if (pass == 0)
                    fprintf(f, "%.1f,%.1f ", x, y);
                else
                    fprintf(f,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s, %d "
                            "ranks: %.4g s</title></circle>\n",
                            x, y, palette[k % 10], algos[k], sizes[s], ts[c / 2]);
                if (pass == 0 && s == ns - 1)
                    fprintf(f, "\" />\n");
            }
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

/* ---- main -------------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of dir ending in ext, sorted; caller frees. */
static int list_files(const char *dir, const char *ext, char ***out_names)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > el && !strcmp(e->d_name + l - el, ext)) {
            names = realloc(names, sizeof(char *) * (size_t)(n + 1));
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), by_name);
    *out_names = names;
    return n;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: topomap-bench [-w WORKLOADS] [-t TOPOLOGIES] [-o PREFIX] [-a ALGO,...]\n"
            "                     [-L] [-q]\n"
            "  -w DIR  profiles (*.txt); default $TOPOMAP_WORKLOADS or %s\n"
            "  -t DIR  topologies (*.yaml); default %s\n"
            "  -o PFX  write the table to PFX.txt and the plot to PFX.svg (default bench-results)\n"
            "  -a LIST algorithms (default: block,cyclic,random,greedy,rcm,ohtma,ohtma-fast,\n"
            "          ohtma+refine,metis,auto,scotch; NAME+refine adds the refinement engine)\n"
            "  -L      also the large case: 65536 ranks, 3D stencil on a 16x16x16 torus, 16 cores\n"
            "  -q      quick: shared workloads only, no synthetic profiles\n",
            BENCH_WORKLOADS, BENCH_TOPOLOGIES);
}

int main(int argc, char **argv)
{
    const char *wdir = getenv("TOPOMAP_WORKLOADS"), *tdir = BENCH_TOPOLOGIES;
    const char *prefix = "bench-results";
    const char *algos[MAXALG];
    int nalgo = 0, large = 0, quick = 0, opt;
    char *alist = NULL;
    if (!wdir || !*wdir)
        wdir = BENCH_WORKLOADS;
    while ((opt = getopt(argc, argv, "w:t:o:a:Lqh")) != -1) {
        switch (opt) {
        case 'w': wdir = optarg; break;
        case 't': tdir = optarg; break;
        case 'o': prefix = optarg; break;
        case 'a': alist = optarg; break;
        case 'L': large = 1; break;
        case 'q': quick = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    if (alist) {
        for (char *tok = strtok(alist, ","); tok && nalgo < MAXALG; tok = strtok(NULL, ","))
            algos[nalgo++] = tok;
    } else {
        for (size_t k = 0; k < sizeof default_algos / sizeof default_algos[0]; k++)
            algos[nalgo++] = default_algos[k];
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.txt", prefix);
    out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "topomap-bench: %s: %s\n", path, strerror(errno));
        return 1;
    }

    char **pfiles = NULL, **tfiles = NULL;
    int npf = list_files(wdir, ".txt", &pfiles);
    int ntf = list_files(tdir, ".yaml", &tfiles);
    if (npf < 0)
        fprintf(stderr, "topomap-bench: %s: %s (no shared workloads)\n", wdir, strerror(errno));
    if (ntf <= 0) {
        fprintf(stderr, "topomap-bench: no topologies in %s\n", tdir);
        return 1;
    }
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = NAN;
        fclose(la);
    }
    time_t now_t = time(NULL);
    emit("# topomap %s benchmark, %s", topomap_version(), ctime(&now_t));
    emit("# %ld CPUs online, load average %.2f at start; Scotch: %s\n",
         sysconf(_SC_NPROCESSORS_ONLN), load[0],
#ifdef HAVE_SCOTCH
         "yes"
#else
         "no"
#endif
    );
    emit("# workloads %s, topologies %s\n\n", wdir, tdir);
    emit("%-22s %6s %-18s %-9s %-13s %12s %7s %10s  %s\n", "profile", "ranks", "topology", "alloc",
         "algorithm", "hop-bytes", "/block", "time (s)", "note");

    /* Profiles: the shared workloads, then synthetic ones. */
    int nprof = 0;
    topomap_profile_t *profs[64];
    char pnames[64][48];
    int nshared = 0;
    for (int i = 0; i < npf && nprof < 60; i++) {
        snprintf(path, sizeof path, "%s/%s", wdir, pfiles[i]);
        topomap_profile_t *p = topomap_profile_load(path, TOPOMAP_FMT_AUTO, err, sizeof err);
        if (!p) {
            fprintf(stderr, "topomap-bench: skipping %s\n", err);
            continue;
        }
        snprintf(pnames[nprof], sizeof pnames[0], "%.*s", (int)strlen(pfiles[i]) - 4, pfiles[i]);
        profs[nprof++] = p;
        nshared++;
    }
    if (!quick) {
        profs[nprof] = stencil(8, 8, 8, 1e4);
        snprintf(pnames[nprof++], sizeof pnames[0], "stencil-8x8x8");
        profs[nprof] = random_sparse(1024, 6);
        snprintf(pnames[nprof++], sizeof pnames[0], "random-1024");
        profs[nprof] = stencil(16, 16, 16, 1e4);
        snprintf(pnames[nprof++], sizeof pnames[0], "stencil-16x16x16");
    }
    const char *paper_topo = "tianhe3-prototype";
    for (int ti = 0; ti < ntf; ti++) {
        snprintf(path, sizeof path, "%s/%s", tdir, tfiles[ti]);
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        if (!t) {
            fprintf(stderr, "topomap-bench: skipping %s\n", err);
            continue;
        }
        char tname[40];
        snprintf(tname, sizeof tname, "%.*s", (int)strlen(tfiles[ti]) - 5, tfiles[ti]);
        for (int pi = 0; pi < nprof; pi++)
            for (int sh = 0; sh < 2; sh++)
                run_case(pnames[pi], profs[pi], tname, t, sh ? "scattered" : "compact", algos,
                         nalgo);
        topomap_topology_free(t);
    }
    if (large) {
        int dims[3] = {16, 16, 16}, wrap[3] = {1, 1, 1};
        topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 16, NULL, err, sizeof err);
        topomap_profile_t *p = stencil(64, 32, 32, 1e4);
        const char *big[MAXALG];
        int nbig = 0;
        for (int k = 0; k < nalgo; k++)
            if (strcmp(algos[k], "ohtma") && strcmp(algos[k], "ohtma+refine") &&
                strcmp(algos[k], "auto") && strcmp(algos[k], "cyclic") &&
                strcmp(algos[k], "random"))
                big[nbig++] = algos[k];
        if (t && p)
            run_case("stencil-64x32x32", p, "torus-16^3x16c", t, "compact", big, nbig);
        topomap_profile_free(p);
        topomap_topology_free(t);
    }
    char shared[64][48];
    for (int i = 0; i < nshared; i++)
        memcpy(shared[i], pnames[i], sizeof shared[i]);
    summary(algos, nalgo, paper_topo, nshared, shared);
    snprintf(path, sizeof path, "%s.svg", prefix);
    write_svg(path, algos, nalgo, paper_topo);
    emit("\n# table: %s.txt, plot: %s.svg\n", prefix, prefix);
    fclose(out);
    for (int i = 0; i < nprof; i++)
        topomap_profile_free(profs[i]);
    for (int i = 0; i < npf; i++)
        free(pfiles[i]);
    for (int i = 0; i < ntf; i++)
        free(tfiles[i]);
    free(pfiles);
    free(tfiles);
    free(res);
    return 0;
}
