/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: Scotch's static mapping (SCOTCH_graphMap), the rival of the
 * case table, measured and scored like the library's algorithms: hop-bytes
 * by topomap_eval_slots(), time from building Scotch's graph and
 * architecture to the slot assignment.
 *
 * The target architecture has one terminal per allocated node: tori and
 * meshes with SCOTCH_archTorusX / SCOTCH_archMeshX restricted to the
 * allocation with SCOTCH_archSub (the terminal distances are checked against
 * the topology), fat-trees with SCOTCH_archTleaf (one level per switch level,
 * link costs = hops) and SCOTCH_archSub, and Tianhe-3 as a
 * decomposition-defined ("deco 0") architecture holding the exact hop table
 * of the allocated nodes (Scotch's builders from a graph were no good here:
 * SCOTCH_archBuild2 only approximates distances, and SCOTCH_archBuild0's
 * cannot be checked). Strict one task per slot: every node terminal must
 * receive exactly its number of slots; isolated dummy tasks fill the last
 * node's missing cores, Scotch is asked for a strict balance, and any task
 * still over a node's capacity is moved to the closest node with room
 * (counted in the note). Edge weights are scaled to integers (Scotch's
 * SCOTCH_Num is 32-bit here).
 *
 * Scotch has no time limit of its own: like every run of the benchmark it
 * runs in a child process (bench_run.c), killed at the limit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scotch.h>

#include "bench.h"
#include "internal.h" /* the node's levels (scotch_hier) */

/* Check terminal distances of arch against factor x hops on sampled pairs. */
static int scotch_check(SCOTCH_Arch *arch, const topomap_topology_t *t, const int *nodes, int k,
                        char *why, size_t len)
{
    double factor = 0;
    for (int s = 0; s < 400 && k > 1; s++) {
        int i = (int)(bench_rng() % (uint64_t)k), j = (int)(bench_rng() % (uint64_t)k);
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

/* The distance between terminals i and j of a deco architecture. */
typedef long (*deco_dist_fn)(const void *ctx, int i, int j);

struct hops_ctx {
    const topomap_topology_t *t;
    const int *nodes;
};

static long deco_hops(const void *ctx, int i, int j)
{
    const struct hops_ctx *c = ctx;
    return topomap_topology_hops(c->t, c->nodes[i], c->nodes[j]);
}

static int scotch_deco(SCOTCH_Arch *arch, int k, deco_dist_fn dist, const void *ctx, char *why,
                       size_t len)
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
            fprintf(f, "%ld ", dist(ctx, i, j));
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

int bench_scotch_hier;

/* The SumCom cost between slots i and j of a deco architecture, scaled. */
struct slot_ctx {
    const topomap_alloc_t *a;
    double scale;
};

static long deco_slots(const void *ctx, int i, int j)
{
    const struct slot_ctx *c = ctx;
    const topomap_topology_t *t = topomap_alloc_topology(c->a);
    double v = topomap_topology_cost(t, topomap_alloc_slot_node(c->a, i),
                                     topomap_alloc_slot_core(c->a, i),
                                     topomap_alloc_slot_node(c->a, j),
                                     topomap_alloc_slot_core(c->a, j));
    return lround(v * c->scale);
}

/* bench_scotch_hier: the whole hierarchy as Scotch's target, one terminal
 * per slot, distances = SumCom costs (hops x hop_cost between nodes, the
 * node's level costs inside). A regular tree is a tleaf (network levels,
 * then the node's levels; Scotch's tleaf distance between two leaves is the
 * sum of the link costs from their lowest common level down, so link l =
 * cost(l) - cost(l + 1)) restricted to the slots with SCOTCH_archSub; any
 * other tree (an unbalanced topology.conf) a "deco 0" architecture holding
 * the slots' cost table. Costs are scaled so that the smallest positive
 * step is 1 (exact for the shipped power-of-two costs). */
static int scotch_hier(const topomap_alloc_t *a, SCOTCH_Arch *full, SCOTCH_Arch *arch,
                       int *used_full, int *maxdist, char *why, size_t len)
{
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int nn = topomap_topology_nnodes(t), cores = topomap_topology_cores(t);
    int ns = topomap_alloc_nslots(a), nl = topomap_topology_node_nlevels(t);
    SCOTCH_Num size[32], sub_n;
    double cost[32];
    int lev = 0, regular = 1, co[16], c0[16];
    /* Network levels of a regular tree (as scotch_arch below). */
    int nd = topomap_topology_coords(t, 0, co, 16), netl = nd - 1;
    long below[17];
    below[netl] = 1;
    topomap_topology_coords(t, 0, c0, 16);
    for (int l = netl - 1; l >= 1 && regular; l--) {
        long cnt = 0;
        for (int v = 0; v < nn; v++) {
            if (topomap_topology_coords(t, v, co, 16) != nd)
                regular = 0;
            else if (co[l] == c0[l])
                cnt++;
        }
        below[l] = cnt;
    }
    below[0] = nn;
    for (int l = 0; l < netl && regular; l++) {
        if (below[l + 1] < 1 || below[l] % below[l + 1] || below[l] / below[l + 1] < 2) {
            regular = 0;
            break;
        }
        size[lev] = (SCOTCH_Num)(below[l] / below[l + 1]);
        cost[lev++] = topomap_topology_hops(t, 0, (int)below[l + 1]) * topomap_topology_hop_cost(t);
    }
    /* Every pair's hops must be the tleaf's (sampled above 512 nodes): a
     * topology.conf tree may be balanced in depth but not in arity. */
    for (int v = 0; v < nn && regular; v++)
        for (int w = v + 1; w < nn && regular; w += nn > 512 ? 1 + (int)(bench_rng() % 97) : 1) {
            int l = 0;
            while (l < netl && v / below[l + 1] == w / below[l + 1])
                l++;
            regular = l < netl && topomap_topology_hops(t, v, w) ==
                                      topomap_topology_hops(t, 0, (int)below[l + 1]);
        }
    /* Node levels (arity 1 levels left out: no pair differs there). */
    int objs_prev = 1;
    for (int k = 0; k < nl; k++) {
        int objs = topomap_topology_node_object(t, k, cores - 1) + 1, ar = objs / objs_prev;
        if (ar > 1) {
            size[lev] = ar;
            cost[lev++] = topomap_topology_cost(t, 0, 0, 0, cores / objs);
        }
        objs_prev = objs;
    }
    double step = INFINITY;
    for (int l = 0; l < lev; l++) {
        double d = cost[l] - (l + 1 < lev ? cost[l + 1] : 0);
        if (d < 0) {
            snprintf(why, len, "costs grow inward: no Scotch tleaf");
            return -1;
        }
        if (d > 0 && d < step)
            step = d;
    }
    double scale = step < INFINITY ? 1 / step : 1;
    *maxdist = (int)lround(cost[0] * scale);
    if (!regular) {
        struct slot_ctx sc = {a, scale};
        return scotch_deco(arch, ns, deco_slots, &sc, why, len);
    }
    SCOTCH_Num link[32];
    for (int l = 0; l < lev; l++)
        link[l] = (SCOTCH_Num)lround((cost[l] - (l + 1 < lev ? cost[l + 1] : 0)) * scale);
    SCOTCH_Num *sub = malloc(sizeof(SCOTCH_Num) * (size_t)ns);
    for (int s2 = 0; s2 < ns; s2++)
        sub[s2] = (SCOTCH_Num)topomap_alloc_slot_node(a, s2) * cores + topomap_alloc_slot_core(a, s2);
    sub_n = ns;
    int rc = -1;
    SCOTCH_archInit(full);
    if (SCOTCH_archTleaf(full, lev, size, link)) {
        snprintf(why, len, "SCOTCH_archTleaf failed");
    } else {
        *used_full = 1;
        SCOTCH_archInit(arch);
        if (SCOTCH_archSub(arch, full, sub_n, sub))
            snprintf(why, len, "SCOTCH_archSub failed");
        else
            rc = 0;
    }
    free(sub);
    return rc;
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
    if (bench_scotch_hier && !strcmp(kind, "fat-tree")) {
        *slot_level = 1;
        rc = scotch_hier(a, full, arch, used_full, maxdist, why, len);
    } else if (!strcmp(kind, "torus") || !strcmp(kind, "mesh")) {
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
    } else if (!strcmp(kind, "tianhe3") || !strcmp(kind, "dragonfly")) {
        /* The exact hop table: a distance matrix (a dragonfly's 2 to 5
         * hops fit no tleaf: groups, switches and global links cross). */
        struct hops_ctx hc = {t, nodes};
        rc = scotch_deco(arch, k, deco_hops, &hc, why, len);
    } else {
        snprintf(why, len, "no Scotch architecture for kind %s", kind);
    }
out:
    free(sub);
    free(nodes);
    return rc;
}

int bench_scotch_map(const topomap_profile_t *p, const topomap_alloc_t *a, int *r2s,
                     double *secs, char *note, size_t len)
{
    double t0 = bench_now();
    const topomap_topology_t *t = topomap_alloc_topology(a);
    int n = topomap_profile_nranks(p), k = topomap_alloc_nnodes(a), ns = topomap_alloc_nslots(a);
    /* A node terminal's capacity: the most slots of an allocated node (all its
     * cores, or 1 with one slot per node); slots are numbered node by node. */
    int c = 0;
    for (int s = 0, run = 0, prev = -1; s < ns; s++) {
        int v = topomap_alloc_slot_node(a, s);
        run = v == prev ? run + 1 : 1;
        prev = v;
        if (run > c)
            c = run;
    }
    topomap_graph_t g;
    topomap_profile_graph(p, 0, 1, &g);
    SCOTCH_Arch full, arch;
    int used_full = 0, slot_level = 0, maxdist = 1, rc = -1;
    note[0] = 0;
    if (k == 1) { /* nothing to decide (and SCOTCH_archSub dislikes it) */
        for (int r = 0; r < n; r++)
            r2s[r] = r;
        *secs = bench_now() - t0;
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
    /* A deterministic context with a fixed seed: Scotch 7 otherwise maps with
     * threads and a per-process seed, and its answer changes from run to run. */
    SCOTCH_Graph sg, cg;
    SCOTCH_Strat st;
    SCOTCH_Context ctx;
    SCOTCH_graphInit(&sg);
    SCOTCH_graphInit(&cg);
    SCOTCH_stratInit(&st);
    SCOTCH_contextInit(&ctx);
    SCOTCH_contextRandomClone(&ctx);
    SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
    SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
    SCOTCH_contextRandomSeed(&ctx, 1);
    for (int v = 0; v < n; v++)
        part[v] = -1;
    for (int i = 0, v = n; i < nterm && !slot_level; i++)
        for (int m = cap[i]; m < c && v < nt; m++)
            part[v++] = i;
    if (SCOTCH_graphBuild(&sg, 0, nt, verttab, NULL, NULL, NULL, (SCOTCH_Num)g.xadj[n], edgetab,
                          edlotab) ||
        SCOTCH_contextBindGraph(&ctx, &sg, &cg) ||
        SCOTCH_stratGraphMapBuild(&st, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE, nterm, 0.0) ||
        SCOTCH_graphMapFixed(&cg, &arch, &st, part)) {
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
    *secs = bench_now() - t0;
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
    SCOTCH_graphExit(&cg);
    SCOTCH_graphExit(&sg);
    SCOTCH_contextExit(&ctx);
    SCOTCH_archExit(&arch);
    if (used_full)
        SCOTCH_archExit(&full);
    free(verttab);
    free(edgetab);
    free(edlotab);
    free(part);
    return rc;
}
