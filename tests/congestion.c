/* SPDX-License-Identifier: BSD-3-Clause */
/* Congestion (libtopomap/congestion.c) and the routes behind it: every channel's
 * load by hand on a 4x4 torus (with a halfway-wrap tie) and on a 2-level tree;
 * an independent brute-force router, written here from coordinates and the
 * documented element numbering, against the library's loads and routes on
 * random small cases of every network kind; the route length against the hop
 * count; the YAML link_bandwidth; error paths. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define MAXPATH 64

static uint64_t rng = 12345;
static int rnd(int n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng >> 33) % (uint64_t)n);
}

/* The load of channel from -> to in a list (summed if listed twice); -1 if absent. */
static double load_of(const topomap_link_load_t *l, size_t n, int from, int to)
{
    double s = -1;
    for (size_t i = 0; i < n; i++)
        if (l[i].from == from && l[i].to == to)
            s = (s < 0 ? 0 : s) + l[i].load;
    return s;
}

/* One expected channel load. */
struct want_load {
    int from, to;
    double load;
};

/* The loads of p placed on node[] must be exactly want[0 .. nw-1]. */
static void check_loads(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                        const struct want_load *want, int nw, const char *what)
{
    topomap_link_load_t *l = NULL;
    size_t n = 0;
    ok(topomap_link_loads(p, t, node, &l, &n) == 0, "%s: link loads computed", what);
    is_int(n, nw, "%s: %d channels carry traffic", what, nw);
    for (int i = 0; i < nw; i++)
        is_double(load_of(l, n, want[i].from, want[i].to), want[i].load, 0,
                  "%s: channel %d -> %d carries %g bytes", what, want[i].from, want[i].to,
                  want[i].load);
    free(l);
}

static topomap_profile_t *profile(int n, int m, const int *src, const int *dst, const double *b)
{
    char err[TOPOMAP_ERRLEN];
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err, sizeof err);
    if (!p) {
        printf("Bail out! profile: %s\n", err);
        exit(1);
    }
    return p;
}

static void torus_by_hand(void)
{
    char err[TOPOMAP_ERRLEN];
    int dims[2] = {4, 4}, wrap[2] = {1, 1};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 2, NULL, err, sizeof err);
    ok(t != NULL, "4x4 torus built");
#define N(x, y) ((x) + 4 * (y))
    /* Ranks: r0 (0,0)  r1 (2,0)  r2 (3,1)  r3 (1,2)  r4 (1,0)  r5 (1,3)  r6 (0,0) */
    int node[7] = {N(0, 0), N(2, 0), N(3, 1), N(1, 2), N(1, 0), N(1, 3), N(0, 0)};
    /* r0 -> r1: x 0 -> 2 is half the ring: the tie goes + (0->1->2);
     * r1 -> r0: x 2 -> 0 is a tie too: + again, wrapping (2->3->0);
     * r2 -> r3: x first, 3 -> 1 is a tie: + (3->0->1), then y 1 -> 2;
     * r4 -> r5: y 0 -> 3 is shorter the - way: one wrapping step;
     * r0 -> r6: the same node, no channel; r6 -> r1 shares r0 -> r1's route. */
    int src[6] = {0, 1, 2, 4, 0, 6}, dst[6] = {1, 0, 3, 5, 6, 1};
    double bytes[6] = {100, 5, 10, 7, 1000, 1};
    topomap_profile_t *p = profile(7, 6, src, dst, bytes);
    struct want_load want[] = {
        {N(0, 0), N(1, 0), 101}, {N(1, 0), N(2, 0), 101}, {N(2, 0), N(3, 0), 5},
        {N(3, 0), N(0, 0), 5},   {N(3, 1), N(0, 1), 10},  {N(0, 1), N(1, 1), 10},
        {N(1, 1), N(1, 2), 10},  {N(1, 0), N(1, 3), 7},
    };
    /* Exactly these 8: in particular (0,0) -> (3,0) and (2,0) -> (1,0), the
     * - way of the ties, carry nothing. */
    check_loads(p, t, node, want, 8, "4x4 torus");
    int core[7] = {0};
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(topomap_eval(p, t, node, core, &m) == 0, "eval");
    is_double(m.congestion_max, 101, 0, "congestion_max 101 bytes");
    is_double(m.congestion_avg, 249.0 / 8, 1e-12, "congestion_avg (2x101 + 3x10 + 7 + 2x5) / 8");
    is_int(m.congestion_channels, 8, "8 loaded channels");
    is_double(m.congestion_max_seconds, 0, 0, "no bandwidth: no seconds");
    /* The routes the plot will draw. */
    int el[8];
    is_int(topomap_topology_route(t, N(3, 1), N(1, 2), el, 8), 3,
           "route (3,1) -> (1,2): 3 channels");
    ok(el[0] == N(3, 1) && el[1] == N(0, 1) && el[2] == N(1, 1) && el[3] == N(1, 2),
       "route passes (0,1) and (1,1)");
    topomap_profile_free(p);
    topomap_topology_free(t);
#undef N
}

static void tree_by_hand(void)
{
    char err[TOPOMAP_ERRLEN];
    /* 2 leaf switches of 3 nodes under a top switch. Elements: nodes 0-5,
     * the top switch 6, leaf switches 7 (nodes 0-2) and 8 (nodes 3-5). */
    int arity[2] = {2, 3}, hops[2] = {4, 2};
    topomap_topology_t *t = topomap_topology_tree(2, arity, hops, 1, NULL, err, sizeof err);
    ok(t != NULL, "2-level tree built");
    is_int(topomap_topology_nelements(t), 9, "6 nodes + 3 switches");
    int node[4] = {0, 1, 4, 5};
    /* r0 -> r1: under one leaf (0->7->1); r0 -> r2: up to the top and down
     * (0->7->6->8->4); r3 -> r0: 5->8->6->7->0. */
    int src[3] = {0, 0, 3}, dst[3] = {1, 2, 0};
    double bytes[3] = {3, 20, 4};
    topomap_profile_t *p = profile(4, 3, src, dst, bytes);
    struct want_load want[] = {
        {0, 7, 23}, {7, 1, 3}, {7, 6, 20}, {6, 8, 20}, {8, 4, 20},
        {5, 8, 4},  {8, 6, 4}, {6, 7, 4},  {7, 0, 4},
    };
    check_loads(p, t, node, want, 9, "2-level tree");
    int core[4] = {0};
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(topomap_eval(p, t, node, core, &m) == 0, "eval");
    is_double(m.congestion_max, 23, 0, "congestion_max 23 (node 0's cable up)");
    is_double(m.congestion_avg, (23 + 3 + 3 * 20 + 4 * 4) / 9.0, 1e-12, "congestion_avg");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* ---- the brute-force router ------------------------------------------------
 * Builds the element sequence of a route from coordinates (the public
 * topomap_topology_coords) and the element numbering documented in
 * topomap.h, one hop at a time, without the library's route code. */

enum kind { TORUS, TREE, ITREE, TH3 };

struct net {
    enum kind kind;
    const topomap_topology_t *t;
    int nnodes;
    int ndims, dims[4], wrap[4];                   /* torus */
    int nlevels, arity[4];                         /* tree */
    int rows, cols;                                /* tianhe3 */
    int *parent, *depth;                           /* trees: per element */
};

/* Node index from torus coordinates. */
static int torus_index(const struct net *w, const int *x)
{
    int i = 0;
    for (int k = w->ndims - 1; k >= 0; k--)
        i = i * w->dims[k] + x[k];
    return i;
}

/* Fill the parent and depth of every element of a tree from coordinates. */
static void tree_parents(struct net *w)
{
    int ne = topomap_topology_nelements(w->t);
    w->parent = malloc(sizeof(int) * (size_t)ne);
    w->depth = malloc(sizeof(int) * (size_t)ne);
    for (int e = 0; e < ne; e++)
        w->parent[e] = w->depth[e] = -1;
    int first[8] = {0}, count = 1;
    first[0] = w->nnodes;
    for (int k = 1; k < w->nlevels; k++) {
        first[k] = first[k - 1] + count;
        count *= w->arity[k - 1];
    }
    for (int v = 0; v < w->nnodes; v++) {
        int c[16], len = topomap_topology_coords(w->t, v, c, 16);
        /* c: the switches from the top down, then the port. */
        int nsw = len - 1, prev = -1;
        for (int k = 0; k < nsw; k++) {
            int e = w->kind == TREE ? first[k] + c[k] : w->nnodes + c[k];
            w->parent[e] = prev;
            w->depth[e] = k;
            prev = e;
        }
        w->parent[v] = prev;
        w->depth[v] = nsw;
    }
}

/* The route a -> b as elements; returns the channel count. */
static int brute_route(const struct net *w, int a, int b, int *el)
{
    int h = 0;
    el[0] = a;
    if (a == b)
        return 0;
    if (w->kind == TORUS) {
        int x[4], y[4];
        topomap_topology_coords(w->t, a, x, 4);
        topomap_topology_coords(w->t, b, y, 4);
        for (int k = 0; k < w->ndims; k++)
            while (x[k] != y[k]) {
                int s = w->dims[k], up = (y[k] - x[k] + s) % s, down = (x[k] - y[k] + s) % s;
                int plus = w->wrap[k] ? up <= down : y[k] > x[k];
                x[k] = plus ? (x[k] + 1) % s : (x[k] + s - 1) % s;
                el[++h] = torus_index(w, x);
            }
        return h;
    }
    if (w->kind == TH3) {
        int x[4], y[4];
        topomap_topology_coords(w->t, a, x, 4);
        topomap_topology_coords(w->t, b, y, 4);
#define HALF(r, c, s) (w->nnodes + 2 * ((r) * w->cols + (c)) + (s))
        el[++h] = HALF(x[0], x[1], x[2]);
        if (x[2] != y[2])
            el[++h] = HALF(x[0], x[1], y[2]);
        if (x[1] != y[1])
            el[++h] = HALF(x[0], y[1], y[2]);
        if (x[0] != y[0])
            el[++h] = HALF(y[0], y[1], y[2]);
#undef HALF
        el[++h] = b;
        return h;
    }
    /* Trees: climb the deeper side, then both, to the common ancestor. */
    int up[MAXPATH], down[MAXPATH], nu = 0, nd = 0, ea = a, eb = b;
    while (w->depth[ea] > w->depth[eb])
        up[nu++] = ea = w->parent[ea];
    while (w->depth[eb] > w->depth[ea]) {
        down[nd++] = eb;
        eb = w->parent[eb];
    }
    while (ea != eb) {
        up[nu++] = ea = w->parent[ea];
        down[nd++] = eb;
        eb = w->parent[eb];
    }
    for (int i = 0; i < nu; i++)
        el[++h] = up[i];
    for (int i = nd - 1; i >= 0; i--)
        el[++h] = down[i];
    return h;
}

/* Random traffic on random nodes, brute-force loads against the library's;
 * every route against topomap_topology_route; route length against hops. */
static void check_net(struct net *w, const char *what)
{
    const topomap_topology_t *t = w->t;
    int nn = w->nnodes, ne = topomap_topology_nelements(t);
    if (w->kind == TREE || w->kind == ITREE)
        tree_parents(w);
    /* Every ordered pair of nodes: same route, and its length. */
    int bad_route = 0, bad_len = 0, el[MAXPATH], lib[MAXPATH];
    for (int a = 0; a < nn; a++)
        for (int b = 0; b < nn; b++) {
            int h = brute_route(w, a, b, el);
            int hl = topomap_topology_route(t, a, b, lib, MAXPATH);
            if (hl != h || memcmp(el, lib, sizeof(int) * (size_t)(h + 1)))
                bad_route++;
            int hops = topomap_topology_hops(t, a, b), want = h;
            if (w->kind == TH3 && a != b) {
                /* Table 1: one hop per chip passed and per chip or side
                 * link, where the route has two node cables instead. */
                int links = 0;
                for (int i = 1; i + 1 < h; i++)
                    links += el[i] / 2 != el[i + 1] / 2; /* another chip */
                want = h - 1 + links;
            }
            if (hops != want || h > topomap_topology_route_max(t))
                bad_len++;
        }
    is_int(bad_route, 0, "%s: every route equals the brute-force router's", what);
    is_int(bad_len, 0, "%s: every route's length matches the hop count", what);

    /* Random traffic. */
    int nr = 4 + rnd(20), m = 10 + rnd(60);
    int *node = malloc(sizeof(int) * (size_t)nr), *src = malloc(sizeof(int) * (size_t)m);
    int *dst = malloc(sizeof(int) * (size_t)m);
    double *bytes = malloc(sizeof(double) * (size_t)m);
    double *want = calloc((size_t)ne * (size_t)ne, sizeof(double));
    for (int r = 0; r < nr; r++)
        node[r] = rnd(nn);
    double hop_bytes = 0;
    for (int i = 0; i < m; i++) {
        src[i] = rnd(nr);
        dst[i] = rnd(nr);
        bytes[i] = 1 + rnd(1000);
        int h = brute_route(w, node[src[i]], node[dst[i]], el);
        for (int k = 0; k < h; k++)
            want[(size_t)el[k] * (size_t)ne + (size_t)el[k + 1]] += bytes[i];
        hop_bytes += bytes[i] * h;
    }
    topomap_profile_t *p = profile(nr, m, src, dst, bytes);
    topomap_link_load_t *l = NULL;
    size_t n = 0;
    ok(topomap_link_loads(p, t, node, &l, &n) == 0, "%s: link loads computed", what);
    int mismatch = 0;
    size_t nwant = 0;
    double max = 0, sum = 0, lsum = 0;
    for (size_t i = 0; i < (size_t)ne * (size_t)ne; i++)
        if (want[i] > 0) {
            nwant++;
            sum += want[i];
            max = want[i] > max ? want[i] : max;
            if (load_of(l, n, (int)(i / (size_t)ne), (int)(i % (size_t)ne)) != want[i])
                mismatch++;
        }
    for (size_t i = 0; i < n; i++)
        lsum += l[i].load;
    ok(mismatch == 0 && n == nwant, "%s: %zu channel loads equal the brute-force router's", what,
       nwant);
    is_double(lsum, hop_bytes, 1e-9 * hop_bytes, "%s: loads sum to bytes x route length", what);
    int *core = calloc((size_t)nr, sizeof(int));
    topomap_metrics_t mt = TOPOMAP_METRICS_INIT;
    ok(topomap_eval(p, t, node, core, &mt) == 0 && mt.congestion_max == max &&
           mt.congestion_channels == (long)nwant &&
           fabs(mt.congestion_avg - (nwant ? sum / (double)nwant : 0)) <= 1e-9 * sum,
       "%s: congestion_max %g, avg over %zu channels", what, max, nwant);
    free(core);
    free(l);
    topomap_profile_free(p);
    free(want);
    free(node);
    free(src);
    free(dst);
    free(bytes);
    free(w->parent);
    free(w->depth);
    w->parent = w->depth = NULL;
}

static void random_cases(void)
{
    char err[TOPOMAP_ERRLEN];
    for (int c = 0; c < 6; c++) { /* tori and meshes, 1 to 3 dimensions */
        struct net w = {.kind = TORUS};
        w.ndims = 1 + c % 3;
        int any = 0;
        for (int k = 0; k < w.ndims; k++) {
            w.dims[k] = 2 + rnd(w.ndims == 1 ? 8 : 4);
            w.wrap[k] = c < 3 ? 1 : rnd(2);
            any |= w.wrap[k];
        }
        topomap_topology_t *t =
            topomap_topology_torus(w.ndims, w.dims, w.wrap, 1, NULL, err, sizeof err);
        w.t = t;
        w.nnodes = topomap_topology_nnodes(t);
        char what[64];
        snprintf(what, sizeof what, "%s %d-D %dx%dx%d", any ? "torus" : "mesh", w.ndims,
                 w.dims[0], w.ndims > 1 ? w.dims[1] : 1, w.ndims > 2 ? w.dims[2] : 1);
        check_net(&w, what);
        topomap_topology_free(t);
    }
    for (int c = 0; c < 3; c++) { /* regular trees, default hops */
        struct net w = {.kind = TREE};
        w.nlevels = 1 + c;
        int hops[4];
        for (int k = 0; k < w.nlevels; k++) {
            w.arity[k] = 1 + rnd(3);
            hops[k] = 2 * (w.nlevels - k);
        }
        w.arity[w.nlevels - 1]++; /* at least two nodes per leaf switch */
        topomap_topology_t *t =
            topomap_topology_tree(w.nlevels, w.arity, hops, 1, NULL, err, sizeof err);
        w.t = t;
        w.nnodes = topomap_topology_nnodes(t);
        char what[64];
        snprintf(what, sizeof what, "tree of %d levels, %d nodes", w.nlevels, w.nnodes);
        check_net(&w, what);
        topomap_topology_free(t);
    }
    const char *confs[] = {"irregular.conf", "forest.conf", "balanced.conf"};
    for (int c = 0; c < 3; c++) { /* Slurm topology.conf trees */
        char path[512];
        snprintf(path, sizeof path, "%s/data/topologies/%s", SRCDIR, confs[c]);
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        ok(t != NULL, "%s loaded: %s", confs[c], t ? "yes" : err);
        if (!t)
            continue;
        struct net w = {.kind = ITREE};
        w.t = t;
        w.nnodes = topomap_topology_nnodes(t);
        check_net(&w, confs[c]);
        topomap_topology_free(t);
    }
    /* Shipped YAML descriptions: the loader's topologies route the same way. */
    struct {
        const char *file;
        struct net w;
    } shipped[] = {
        {"torus-8x8x8.yaml", {TORUS, .ndims = 3, .dims = {8, 8, 8}, .wrap = {1, 1, 1}}},
        {"fattree-plafrim2.yaml", {TREE, .nlevels = 2, .arity = {4, 22}}},
        {"local-4node.yaml", {TORUS, .ndims = 2, .dims = {2, 2}}},
    };
    for (int c = 0; c < 3; c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/../topologies/%s", SRCDIR, shipped[c].file);
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        ok(t != NULL, "%s loaded: %s", shipped[c].file, t ? "yes" : err);
        if (!t)
            continue;
        shipped[c].w.t = t;
        shipped[c].w.nnodes = topomap_topology_nnodes(t);
        check_net(&shipped[c].w, shipped[c].file);
        topomap_topology_free(t);
    }
    int shapes[4][3] = {{2, 3, 4}, {1, 3, 2}, {3, 1, 2}, {1, 1, 6}};
    for (int c = 0; c < 4; c++) { /* Tianhe-3 */
        struct net w = {.kind = TH3};
        w.rows = shapes[c][0];
        w.cols = shapes[c][1];
        topomap_topology_t *t =
            topomap_topology_tianhe3(w.rows, w.cols, shapes[c][2], 1, NULL, err, sizeof err);
        w.t = t;
        w.nnodes = topomap_topology_nnodes(t);
        char what[64];
        snprintf(what, sizeof what, "tianhe3 %dx%d chips x %d", w.rows, w.cols, shapes[c][2]);
        check_net(&w, what);
        topomap_topology_free(t);
    }
}

static void bandwidth_and_errors(void)
{
    char err[TOPOMAP_ERRLEN], dir[] = "/tmp/topomap-congestion-XXXXXX", path[300];
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        exit(1);
    }
    snprintf(path, sizeof path, "%s/ring.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs("network: {kind: torus, dims: [4], link_bandwidth: 2.5e9}\n", f);
    fclose(f);
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    ok(t != NULL, "YAML with link_bandwidth loads: %s", t ? "yes" : err);
    if (t) {
        is_double(topomap_topology_link_bandwidth(t), 2.5e9, 0, "link_bandwidth read");
        int node[2] = {0, 2}, core[2] = {0, 0}, src[1] = {0}, dst[1] = {1};
        double b[1] = {5e9};
        topomap_profile_t *p = profile(2, 1, src, dst, b);
        topomap_metrics_t m = TOPOMAP_METRICS_INIT;
        ok(topomap_eval(p, t, node, core, &m) == 0, "eval on the ring");
        is_double(m.congestion_max_seconds, 2.0, 1e-15, "5e9 bytes / 2.5e9 B/s = 2 s");
        is_double(m.congestion_avg_seconds, 2.0, 1e-15, "both channels carry 5e9 bytes");
        node[1] = 7;
        topomap_link_load_t *l = NULL;
        size_t n = 0;
        errno = 0;
        ok(topomap_link_loads(p, t, node, &l, &n) < 0 && errno == EINVAL,
           "a node out of range: EINVAL");
        ok(topomap_link_loads(NULL, t, node, &l, &n) < 0 && errno == EINVAL, "NULL profile: EINVAL");
        int el[3];
        errno = 0;
        ok(topomap_topology_route(t, 0, 2, el, 2) < 0 && errno == ERANGE,
           "route with room for 2 elements of 3: ERANGE");
        errno = 0;
        ok(topomap_topology_route(t, 0, 4, el, 3) < 0 && errno == EINVAL,
           "route to a node out of range: EINVAL");
        is_int(topomap_topology_route(t, 1, 1, el, 1), 0, "route to itself: no channel");
        ok(topomap_topology_set_link_bandwidth(t, -1) < 0 && errno == EINVAL,
           "negative bandwidth: EINVAL");
        topomap_profile_free(p);
        topomap_topology_free(t);
    }
    f = fopen(path, "w");
    fputs("network:\n  kind: mesh\n  dims: [4]\n  link_bandwidth: -3\n", f);
    fclose(f);
    t = topomap_topology_load(path, err, sizeof err);
    ok(t == NULL && errno == EINVAL, "negative link_bandwidth rejected");
    like(err, "ring.yaml:4:19: 'link_bandwidth' must be >= 1", "message names the value");
    topomap_topology_free(t);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    torus_by_hand();
    tree_by_hand();
    random_cases();
    bandwidth_and_errors();
    return done_testing();
}
