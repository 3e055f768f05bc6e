/* SPDX-License-Identifier: BSD-3-Clause */
/* Dragonfly networks (libtopomap/topo_dragonfly.c) and per-link bandwidths:
 * hops and routes by hand on 3 groups x 2 switches x 2 nodes; the three
 * arrangements by hand; hops and routes against a brute-force router (BFS
 * over the cables, at most one global link, the minimal routing of the
 * dragonfly literature) on random small dragonflies with explicit links;
 * global-link loads by hand for two placements and for the Valiant spread;
 * congestion in seconds on a tapered fat-tree by hand; a YAML error with
 * FILE:LINE:COL for every new key; a dragonfly site's topology.conf. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

static char dir[] = "/tmp/topomap-dragonfly-XXXXXX";
static int nfile;

/* Load YAML text from a new file; NULL with err filled on failure. */
static topomap_topology_t *load_text(const char *text, char *path, size_t plen, char *err,
                                     size_t errlen)
{
    snprintf(path, plen, "%s/t%d.yaml", dir, nfile++);
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    err[0] = 0;
    return topomap_topology_load(path, err, errlen);
}

static topomap_topology_t *load_ok(const char *text)
{
    char path[300], err[TOPOMAP_ERRLEN];
    topomap_topology_t *t = load_text(text, path, sizeof path, err, sizeof err);
    if (!t) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    return t;
}

static uint64_t rng = 424242;
static int rnd(int n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng >> 33) % (uint64_t)n);
}

/* 3 groups x 2 switches x 2 nodes, one global link per switch, absolute:
 * switch s of group g is element 12 + 2 g + s; its nodes 4 g + 2 s, +1.
 * Global links: g0 s0 - g1 s0, g0 s1 - g2 s0, g1 s1 - g2 s1. */
static const char *small =
    "network: {kind: dragonfly, groups: 3, switches_per_group: 2, nodes_per_switch: 2,\n"
    "          global_links_per_switch: 1}\n";

static void small_by_hand(void)
{
    topomap_topology_t *t = load_ok(small);
    is_str(topomap_topology_kind(t), "dragonfly", "kind");
    is_int(topomap_topology_nnodes(t), 12, "12 nodes");
    is_int(topomap_topology_diameter(t), 5, "diameter 5");
    static const struct {
        int a, b, hops, n, el[6];
    } cases[] = {
        {0, 1, 2, 3, {0, 12, 1}},                 /* one switch */
        {0, 2, 3, 4, {0, 12, 13, 2}},             /* one group */
        {0, 4, 3, 4, {0, 12, 14, 4}},             /* global link of both switches */
        {0, 6, 4, 5, {0, 12, 14, 15, 6}},         /* source's link, then local */
        {2, 4, 4, 5, {2, 13, 12, 14, 4}},         /* local to the link into sw 14 */
        {2, 6, 5, 6, {2, 13, 12, 14, 15, 6}},     /* neither end has the link */
        {2, 8, 3, 4, {2, 13, 16, 8}},             /* g0 s1 - g2 s0 */
        {10, 2, 4, 5, {10, 17, 16, 13, 2}},       /* into the link that lands on 13 */
        {6, 10, 3, 4, {6, 15, 17, 10}},           /* g1 s1 - g2 s1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int el[16];
        is_int(topomap_topology_hops(t, cases[i].a, cases[i].b), cases[i].hops,
               "hops %d -> %d", cases[i].a, cases[i].b);
        int n = topomap_topology_route(t, cases[i].a, cases[i].b, el, 16) + 1;
        is_int(n, cases[i].n, "route %d -> %d: %d elements", cases[i].a, cases[i].b, cases[i].n);
        int same = n == cases[i].n;
        for (int k = 0; same && k < n; k++)
            same = el[k] == cases[i].el[k];
        ok(same, "route %d -> %d by hand", cases[i].a, cases[i].b);
    }
    int c[3];
    ok(topomap_topology_coords(t, 7, c, 3) == 3 && c[0] == 1 && c[1] == 1 && c[2] == 1,
       "coords of node 7: group 1, switch 1, port 1");
    ok(topomap_topology_link_classes(t) == TOPOMAP_LINK_CLASSES, "three link classes");
    topomap_topology_free(t);
}

/* 4 groups x 3 switches x 1 node, one global link per switch: node =
 * switch. Direct links give 3 hops. */
static void arrangements_by_hand(void)
{
    static const struct {
        const char *arr;
        int a, b; /* two switches that must be linked */
    } cases[] = {
        {"absolute", 0, 3},  /* g0 port 0 -> g1, back port 0 */
        {"absolute", 2, 9},  /* g0 port 2 -> g3, back port 0 */
        {"absolute", 5, 10}, /* g1 port 2 -> g3, back port 1 */
        {"relative", 0, 5},  /* g0 port 0 -> g1, back (0-1-1) mod 4 = 2 */
        {"relative", 1, 7},  /* g0 port 1 -> g2, back (0-2-1) mod 4 = 1 */
        {"relative", 3, 8},  /* g1 port 0 -> g2, back (1-2-1) mod 4 = 2 */
        {"circulant", 0, 4}, /* g0 +1 -> g1, back -1 = port 1 */
        {"circulant", 1, 9}, /* g0 -1 -> g3, back +1 = port 0 */
        {"circulant", 2, 8}, /* g0 +2 -> g2, back +2 = port 2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "network: {kind: dragonfly, groups: 4, switches_per_group: 3,\n"
                 "          nodes_per_switch: 1, arrangement: %s}\n",
                 cases[i].arr);
        topomap_topology_t *t = load_ok(text);
        is_int(topomap_topology_hops(t, cases[i].a, cases[i].b), 3, "%s: switches %d and %d linked",
               cases[i].arr, cases[i].a, cases[i].b);
        /* Each switch has one link: any other switch of that group is 4 away. */
        int other = cases[i].b / 3 * 3 + (cases[i].b % 3 + 1) % 3;
        is_int(topomap_topology_hops(t, cases[i].a, other), 4, "%s: %d and %d one local hop more",
               cases[i].arr, cases[i].a, other);
        topomap_topology_free(t);
    }
}

/* ---- brute force ------------------------------------------------------- */

struct bf {
    int G, A, P, h, nn, nsw;
    int nl, link[64][2]; /* global links, by switch number */
};

static int bf_adjacent(const struct bf *b, int x, int y, int *global)
{
    *global = 0;
    if (x < b->nn || y < b->nn) {
        int v = x < b->nn ? x : y, s = x < b->nn ? y : x;
        return s >= b->nn && (s - b->nn) == v / b->P;
    }
    x -= b->nn;
    y -= b->nn;
    if (x != y && x / b->A == y / b->A)
        return 1;
    for (int l = 0; l < b->nl; l++)
        if ((b->link[l][0] == x && b->link[l][1] == y) || (b->link[l][0] == y && b->link[l][1] == x))
            return *global = 1;
    return 0;
}

/* Shortest path from node a to node b with at most one global link: BFS
 * over (element, global links used). */
static int bf_hops(const struct bf *b, int a, int dst)
{
    int ne = b->nn + b->nsw, dist[2][256], queue[512], qh = 0, qt = 0;
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < ne; e++)
            dist[k][e] = -1;
    dist[0][a] = 0;
    queue[qt++] = a;
    while (qh < qt) {
        int st = queue[qh++], k = st / 256, x = st % 256;
        for (int y = 0; y < ne; y++) {
            int g;
            if (!bf_adjacent(b, x, y, &g) || k + g > 1 || dist[k + g][y] >= 0)
                continue;
            /* A node is an end, never a way through. */
            if (y < b->nn && y != dst)
                continue;
            dist[k + g][y] = dist[k][x] + 1;
            queue[qt++] = (k + g) * 256 + y;
        }
    }
    int d0 = dist[0][dst], d1 = dist[1][dst];
    return d0 < 0 ? d1 : d1 < 0 ? d0 : d0 < d1 ? d0 : d1;
}

/* A random dragonfly whose every two groups are linked, as YAML. */
static void bf_random(struct bf *b, char *text, size_t len)
{
    b->G = 2 + rnd(4);
    b->A = 1 + rnd(4);
    b->P = 1 + rnd(3);
    b->h = (b->G - 1 + b->A - 1) / b->A + rnd(2);
    b->nsw = b->G * b->A;
    b->nn = b->nsw * b->P;
    b->nl = 0;
    int used[32] = {0};
    size_t o = (size_t)snprintf(text, len,
                                "network:\n  kind: dragonfly\n  groups: %d\n  switches_per_group: "
                                "%d\n  nodes_per_switch: %d\n  global_links_per_switch: %d\n"
                                "  global_links:\n",
                                b->G, b->A, b->P, b->h);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < b->G; i++)
            for (int j = i + 1; j < b->G; j++) {
                if (round && rnd(2))
                    continue;
                /* Free ports on a random switch of each group, if any. */
                int x = -1, y = -1;
                for (int tries = 0; tries < 16 && x < 0; tries++) {
                    int s = i * b->A + rnd(b->A);
                    x = used[s] < b->h ? s : -1;
                }
                for (int tries = 0; tries < 16 && y < 0; tries++) {
                    int s = j * b->A + rnd(b->A);
                    y = used[s] < b->h ? s : -1;
                }
                for (int s = i * b->A; x < 0 && s < (i + 1) * b->A; s++)
                    x = used[s] < b->h ? s : -1;
                for (int s = j * b->A; y < 0 && s < (j + 1) * b->A; s++)
                    y = used[s] < b->h ? s : -1;
                if (x < 0 || y < 0)
                    continue; /* round 0 always finds ports: h x A >= G - 1 */
                used[x]++;
                used[y]++;
                b->link[b->nl][0] = x;
                b->link[b->nl][1] = y;
                b->nl++;
                o += (size_t)snprintf(text + o, len - o, "    - [%d, %d, %d, %d]\n", i, x % b->A, j,
                                      y % b->A);
            }
}

static void brute_force(void)
{
    int bad_hops = 0, bad_route = 0, pairs = 0, bad_diam = 0;
    for (int c = 0; c < 40; c++) {
        struct bf b;
        char text[4096];
        bf_random(&b, text, sizeof text);
        topomap_topology_t *t = load_ok(text);
        int diam = 0;
        for (int x = 0; x < b.nn; x++)
            for (int y = 0; y < b.nn; y++) {
                if (x == y)
                    continue;
                int want = bf_hops(&b, x, y), el[16];
                diam = want > diam ? want : diam;
                pairs++;
                bad_hops += topomap_topology_hops(t, x, y) != want;
                int n = topomap_topology_route(t, x, y, el, 16) + 1, globals = 0,
                    fine = n == want + 1;
                for (int k = 0; fine && k + 1 < n; k++) {
                    int g;
                    fine = bf_adjacent(&b, el[k], el[k + 1], &g);
                    globals += g;
                }
                bad_route += !(fine && globals <= 1 && el[0] == x && el[n - 1] == y);
            }
        bad_diam += topomap_topology_diameter(t) != diam;
        topomap_topology_free(t);
    }
    is_int(bad_hops, 0, "hops equal the brute-force router's on %d pairs of 40 dragonflies", pairs);
    is_int(bad_route, 0, "routes are shortest paths of cables with at most one global link");
    is_int(bad_diam, 0, "diameters equal the brute-force router's largest");
}

/* ---- loads ---------------------------------------------------------------- */

static topomap_profile_t *profile(int n, int m, const int *src, const int *dst, const double *b)
{
    char err[TOPOMAP_ERRLEN];
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, NULL, err, sizeof err);
    if (!p) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
    return p;
}

static double load_of(const topomap_link_load_t *l, size_t n, int from, int to)
{
    for (size_t i = 0; i < n; i++)
        if (l[i].from == from && l[i].to == to)
            return l[i].load;
    return 0;
}

static void loads_by_hand(void)
{
    topomap_topology_t *t = load_ok(small);
    int src[4] = {0, 1, 2, 3}, dst[4] = {1, 0, 3, 2};
    double bytes[4] = {100, 100, 10, 10};
    topomap_profile_t *p = profile(4, 4, src, dst, bytes);
    int core[4] = {0};
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    /* Compact: both pairs inside group 0 or group 1. */
    int compact[4] = {0, 2, 4, 6};
    ok(topomap_eval(p, t, compact, core, &m) == 0, "compact placement evaluated");
    is_double(m.congestion_class_max[TOPOMAP_LINK_GLOBAL], 0, 0, "compact: no global load");
    is_double(m.congestion_global_bytes, 0, 0, "compact: no bytes between groups");
    is_double(m.congestion_class_max[TOPOMAP_LINK_LOCAL], 100, 0, "compact: local 12->13 100");
    is_double(m.congestion_class_max[TOPOMAP_LINK_NODE], 100, 0, "compact: node cables 100");
    /* Spread: both pairs across groups 0 and 1, sharing link 12 -> 14. */
    int spread[4] = {0, 4, 2, 6};
    ok(topomap_eval(p, t, spread, core, &m) == 0, "spread placement evaluated");
    is_double(m.congestion_class_max[TOPOMAP_LINK_GLOBAL], 110, 0,
              "spread: global 12 -> 14 carries 100 + 10");
    is_double(m.congestion_global_bytes, 220, 0, "spread: 220 bytes cross groups");
    is_double(m.congestion_class_max[TOPOMAP_LINK_LOCAL], 10, 0, "spread: local links 10");
    topomap_link_load_t *l = NULL;
    size_t n = 0;
    ok(topomap_link_loads(p, t, spread, &l, &n) == 0, "link loads of the spread placement");
    is_double(load_of(l, n, 12, 14), 110, 0, "12 -> 14: 110");
    is_double(load_of(l, n, 14, 12), 110, 0, "14 -> 12: 110");
    is_double(load_of(l, n, 13, 12), 10, 0, "13 -> 12: 10");
    is_double(load_of(l, n, 14, 15), 10, 0, "14 -> 15: 10");
    free(l);
    topomap_profile_free(p);
    topomap_topology_free(t);

    /* Valiant: half direct, half through group 2 (0 -> 1 local, 13 -> 16
     * global, 16 -> 17 local, 17 -> 15 global, 15 -> 14 local). */
    t = load_ok("network: {kind: dragonfly, groups: 3, switches_per_group: 2, nodes_per_switch: 2,\n"
                "          global_links_per_switch: 1, routing: valiant}\n");
    int one_src[1] = {0}, one_dst[1] = {1}, place[2] = {0, 4};
    double b100[1] = {100};
    p = profile(2, 1, one_src, one_dst, b100);
    ok(topomap_link_loads(p, t, place, &l, &n) == 0, "valiant loads");
    is_double(load_of(l, n, 0, 12), 100, 0, "valiant: node cable carries all");
    is_double(load_of(l, n, 12, 14), 50, 0, "valiant: direct global link half");
    is_double(load_of(l, n, 12, 13), 50, 0, "valiant: 12 -> 13 half");
    is_double(load_of(l, n, 13, 16), 50, 0, "valiant: 13 -> 16 half");
    is_double(load_of(l, n, 17, 15), 50, 0, "valiant: 17 -> 15 half");
    is_double(load_of(l, n, 15, 14), 50, 0, "valiant: 15 -> 14 half");
    is_double(load_of(l, n, 14, 4), 100, 0, "valiant: down to the node all");
    is_int(n, 8, "valiant: 8 channels loaded");
    ok(topomap_eval(p, t, place, core, &m) == 0, "valiant eval");
    is_double(m.congestion_global_bytes, 150, 0, "valiant: 50 + 2 x 50 on global links");
    free(l);
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* Per-class bandwidths and a tapered tree: seconds per channel. */
static void seconds_by_hand(void)
{
    topomap_topology_t *t =
        load_ok("network: {kind: dragonfly, groups: 3, switches_per_group: 2, nodes_per_switch: 2,\n"
                "          node_bandwidth: 100, local_bandwidth: 50, global_bandwidth: 10}\n");
    int src[2] = {0, 1}, dst[2] = {1, 0}, place[2] = {0, 4}, core[2] = {0, 0};
    double b[2] = {100, 20};
    topomap_profile_t *p = profile(2, 2, src, dst, b);
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    ok(topomap_eval(p, t, place, core, &m) == 0, "eval with class bandwidths");
    is_double(m.congestion_max_seconds, 10, 1e-12, "busiest: global 100 bytes at 10 B/s");
    /* Channels: 2 node cables and 1 global each way: 1 + 1 + 10 + 0.2 +
     * 0.2 + 2 over 6. */
    is_double(m.congestion_avg_seconds, 14.4 / 6, 1e-12, "mean of load / bandwidth");
    topomap_profile_free(p);
    topomap_topology_free(t);

    /* Two leaf switches of two nodes; node cables 4 B/s, leaf-to-top 1 B/s. */
    t = load_ok("network:\n  kind: fat-tree\n  link_bandwidth: 4\n  levels:\n"
                "    - {arity: 2, bandwidth: 1}\n    - {arity: 2}\n");
    int s2[2] = {0, 1}, d2[2] = {1, 0}, across[2] = {0, 2}, within[2] = {0, 1};
    double b2[2] = {8, 8};
    p = profile(2, 2, s2, d2, b2);
    ok(topomap_eval(p, t, across, core, &m) == 0, "tapered tree: across the top");
    is_double(m.congestion_max_seconds, 8, 1e-12, "8 bytes on a 1 B/s uplink: 8 s");
    is_double(m.congestion_max, 8, 0, "8 bytes on the busiest channel");
    ok(topomap_eval(p, t, within, core, &m) == 0, "tapered tree: one leaf");
    is_double(m.congestion_max_seconds, 2, 1e-12, "8 bytes on a 4 B/s node cable: 2 s");
    topomap_profile_free(p);
    topomap_topology_free(t);
}

/* ---- YAML errors ----------------------------------------------------------- */

#define DF "network: {kind: dragonfly, groups: 3, switches_per_group: 2, nodes_per_switch: 2"

static void yaml_errors(void)
{
    static const struct {
        const char *text, *where, *msg;
    } cases[] = {
        {"network: {kind: dragonfly, switches_per_group: 2, nodes_per_switch: 2}\n", ":1:10:",
         "missing required key 'groups'"},
        {DF ", groups: 0}\n", "", "duplicate"}, /* libyaml: a key given twice */
        {"network: {kind: dragonfly, groups: x, switches_per_group: 2, nodes_per_switch: 2}\n",
         ":1:36:", "groups"},
        {"network: {kind: dragonfly, groups: 3, switches_per_group: 0, nodes_per_switch: 2}\n",
         ":1:59:", "switches_per_group"},
        {"network: {kind: dragonfly, groups: 3, switches_per_group: 2}\n", ":1:10:",
         "missing required key 'nodes_per_switch'"},
        {DF ", global_links_per_switch: -1}\n", ":1:108:", "global_links_per_switch"},
        {DF ", global_links_per_switch: 0}\n", ":1:10:", "cannot reach the 2 other groups"},
        {DF ", arrangement: diagonal}\n", ":1:96:", "'arrangement' must be one of"},
        {DF ", arrangement: relative,\n  global_links: [[0, 0, 1, 0]]}\n", ":1:96:",
         "give one"},
        {DF ", global_links: 3}\n", ":1:97:", "non-empty list"},
        {DF ", global_links: [[0, 0, 1]]}\n", ":1:98:", "[group, switch, group, switch]"},
        {DF ", global_links: [[0, 0, 3, 0]]}\n", ":1:105:", "group"},
        {DF ", global_links: [[0, 0, 1, 2]]}\n", ":1:108:", "switch"},
        {DF ", global_links: [[1, 0, 1, 1]]}\n", ":1:98:", "to itself"},
        {DF ",\n  global_links: [[0, 0, 1, 0], [0, 0, 2, 0], [1, 1, 2, 1]]}\n", ":2:32:",
         "has only 1 global links"},
        {DF ",\n  global_links: [[0, 0, 1, 0], [0, 1, 1, 1]]}\n", ":2:17:",
         "no global link joins groups 0 and 2"},
        {DF ", node_bandwidth: 0}\n", ":1:99:", "node_bandwidth"},
        {DF ", local_bandwidth: fast}\n", ":1:100:", "local_bandwidth"},
        {DF ", global_bandwidth: -5}\n", ":1:101:", "global_bandwidth"},
        {DF ", routing: ugal}\n", ":1:92:", "'routing' must be one of minimal, valiant"},
        {DF ", rows: 2}\n", ":1:83:", "rows"},
        {"network:\n  kind: fat-tree\n  levels:\n    - {arity: 2, bandwidth: 0}\n", ":4:29:",
         "bandwidth"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[300], err[TOPOMAP_ERRLEN];
        errno = 0;
        topomap_topology_t *t = load_text(cases[i].text, path, sizeof path, err, sizeof err);
        ok(!t && errno == EINVAL, "YAML error %zu rejected with EINVAL", i);
        char want[400];
        snprintf(want, sizeof want, "%s%s", path, cases[i].where);
        ok(!strncmp(err, want, strlen(want)) && !strchr(err, '\n'),
           "  one line from %s: %s", want, err);
        like(err, cases[i].msg, "  says: %s", cases[i].msg);
        topomap_topology_free(t);
    }
}

/* A Slurm topology.conf as dragonfly sites write it (one switch per group,
 * no switch above them, or one per switch under a group switch) is read as
 * what it says: a tree, the groups joined by a virtual root. */
static void slurm_conf(void)
{
    char path[300], err[TOPOMAP_ERRLEN];
    topomap_topology_t *t = load_text("SwitchName=group0 Nodes=n[0-3]\n"
                                      "SwitchName=group1 Nodes=n[4-7]\n",
                                      path, sizeof path, err, sizeof err);
    ok(t != NULL, "topology.conf, one switch per group: %s", t ? "loads" : err);
    if (t) {
        is_str(topomap_topology_kind(t), "fat-tree", "  read as a tree");
        is_int(topomap_topology_hops(t, 0, 3), 2, "  same group switch: 2 hops");
        is_int(topomap_topology_hops(t, 0, 4), 4, "  across groups: up to the root and down");
    }
    topomap_topology_free(t);
    t = load_text("SwitchName=sw0 Nodes=n[0-1]\nSwitchName=sw1 Nodes=n[2-3]\n"
                  "SwitchName=sw2 Nodes=n[4-5]\nSwitchName=sw3 Nodes=n[6-7]\n"
                  "SwitchName=group0 Switches=sw[0-1]\nSwitchName=group1 Switches=sw[2-3]\n",
                  path, sizeof path, err, sizeof err);
    ok(t != NULL, "topology.conf, one switch per switch: %s", t ? "loads" : err);
    if (t) {
        is_int(topomap_topology_hops(t, 0, 1), 2, "  same switch: 2 hops");
        is_int(topomap_topology_hops(t, 0, 2), 4, "  same group: 4 hops");
        is_int(topomap_topology_hops(t, 0, 4), 6, "  across groups: 6 hops");
    }
    topomap_topology_free(t);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    small_by_hand();
    arrangements_by_hand();
    brute_force();
    loads_by_hand();
    seconds_by_hand();
    yaml_errors();
    slurm_conf();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    return done_testing();
}
