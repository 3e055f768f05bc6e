/* SPDX-License-Identifier: BSD-3-Clause */
/* Dragonfly networks (Kim, Dally, Scott and Abts, ISCA 2008; Cray Aries,
 * HPE Slingshot): groups of switches, the switches of a group linked all to
 * all by local links, groups joined by global links. Node v sits on switch
 * v / nodes (node index = (group x switches + switch) x nodes + port).
 *
 * Global links. Each switch has `globals` global ports; port k of switch j of
 * group i is the group's port q = j x globals + k. An arrangement says where
 * group port q of group i goes (Camarero, Vallejo and Beivide, ACM TACO 11(4)
 * 2014, section 3, call them absolute, relative and circulant): with
 * m = groups - 1, d = q mod m (the peer number) and c = q / m (the copy),
 *   absolute:  peer group d, or d + 1 from d = i on (groups in order);
 *   relative:  peer group (i + 1 + d) mod groups;
 *   circulant: peer offset +1, -1, +2, -2, ... (d = 0, 1, 2, 3, ...);
 * and the port at the other end has the same copy c and the peer number
 * that leads back. Ports from (groups - 1) x floor(switches x globals / m)
 * on are left unused (each pair of groups gets the same number of links);
 * an explicit list of links uses the ports of each switch in list order.
 *
 * Minimal routing, as in the dragonfly literature: at most one global link,
 * i.e. local, global, local, shortest such path. Between two groups the
 * route takes a global link of the source switch that lands on the
 * destination switch, else one of the source switch, else one landing on
 * the destination switch, else link (source + destination switch) mod
 * (links between the two groups) of the pair's list. Hops count every cable
 * (node cables included): 2 on one switch, 3 in one group, 3 to 5 between
 * groups.
 *
 * Spread routing (the congestion model of the YAML `routing: valiant`): the
 * bytes of a pair in two different groups split evenly over groups - 1
 * paths, the minimal one and one Valiant path through each other group k
 * (minimal route to the switch where the chosen link into k lands, then
 * minimal route from there), which is what UGAL's choice averages to under
 * uniform load. Pairs inside a group keep their minimal route.
 *
 * Elements: the nodes, then switch s as element nnodes + s. Channels: 2 v
 * (node v up) and 2 v + 1 (down); from L = 2 nnodes, L + s x switches + j
 * (local, switch s to switch j of its group); from G = L + nsw x switches,
 * G + port (global, leaving that port). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

const char *const topo_df_arrangement_names[] = {"absolute", "relative", "circulant", "explicit",
                                                 NULL};

#define DF(t) (&(t)->u.df)

static int64_t ch_local(const topomap_topology_t *t, int s, int j)
{
    const struct topo_dragonfly *D = DF(t);
    return 2 * (int64_t)t->nnodes + (int64_t)s * D->p.switches + j % D->p.switches;
}

static int64_t ch_global(const topomap_topology_t *t, int port)
{
    const struct topo_dragonfly *D = DF(t);
    return 2 * (int64_t)t->nnodes + (int64_t)D->nsw * D->p.switches + port;
}

/* The global port from group ga to group gb that a route from switch sa to
 * switch sb (sa in ga, sb in gb, ga != gb) uses; *extra: local hops
 * around it (0, 1 or 2). */
static int pick_port(const struct topo_dragonfly *D, int sa, int sb, int *extra)
{
    int h = D->p.globals, G = D->p.groups, A = D->p.switches;
    int ga = sa / A, gb = sb / A;
    for (int k = 0; k < h; k++) {
        int q = D->peer[sa * h + k];
        if (q >= 0 && q / h == sb) {
            *extra = 0;
            return sa * h + k;
        }
    }
    int q = D->reach[sa * G + gb];
    if (q >= 0) {
        *extra = 1;
        return q;
    }
    q = D->reach[sb * G + ga];
    if (q >= 0) {
        *extra = 1;
        return D->peer[q];
    }
    int i = ga * G + gb, m = D->pair_first[i + 1] - D->pair_first[i];
    *extra = 2;
    return D->pair_port[D->pair_first[i] + (sa % A + sb % A) % m];
}

static int df_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_dragonfly *D = DF(t);
    int sa = a / D->p.nodes, sb = b / D->p.nodes, extra;
    if (sa == sb)
        return 2;
    if (sa / D->p.switches == sb / D->p.switches)
        return 3;
    pick_port(D, sa, sb, &extra);
    return 3 + extra;
}

/* Switch-level minimal route from switch sa to switch sb into chan. */
static int sw_route(const topomap_topology_t *t, int sa, int sb, int64_t *chan)
{
    const struct topo_dragonfly *D = DF(t);
    int A = D->p.switches, h = D->p.globals, n = 0, extra;
    if (sa == sb)
        return 0;
    if (sa / A == sb / A) {
        chan[0] = ch_local(t, sa, sb);
        return 1;
    }
    int q = pick_port(D, sa, sb, &extra);
    int x = q / h, y = D->peer[q] / h;
    if (x != sa)
        chan[n++] = ch_local(t, sa, x);
    chan[n++] = ch_global(t, q);
    if (y != sb)
        chan[n++] = ch_local(t, y, sb);
    return n;
}

static int df_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_dragonfly *D = DF(t);
    int n = 0;
    chan[n++] = 2 * (int64_t)a;
    n += sw_route(t, a / D->p.nodes, b / D->p.nodes, chan + n);
    chan[n++] = 2 * (int64_t)b + 1;
    return n;
}

static int df_spread(const topomap_topology_t *t, int a, int b, int64_t *chan, double *w)
{
    const struct topo_dragonfly *D = DF(t);
    int A = D->p.switches, G = D->p.groups, h = D->p.globals;
    int sa = a / D->p.nodes, sb = b / D->p.nodes, ga = sa / A, gb = sb / A;
    if (ga == gb) {
        int n = df_route(t, a, b, chan);
        for (int i = 0; i < n; i++)
            w[i] = 1;
        return n;
    }
    double share = 1.0 / (G - 1);
    int n = 0;
    chan[n++] = 2 * (int64_t)a;
    n += sw_route(t, sa, sb, chan + n);
    for (int k = 0; k < G; k++) {
        if (k == ga || k == gb)
            continue;
        int extra, q = pick_port(D, sa, k * A, &extra);
        /* The path lands where the link into k lands, then goes on. */
        int y = D->peer[q] / h, x = q / h;
        if (x != sa)
            chan[n++] = ch_local(t, sa, x);
        chan[n++] = ch_global(t, q);
        n += sw_route(t, y, sb, chan + n);
    }
    chan[n++] = 2 * (int64_t)b + 1;
    w[0] = w[n - 1] = 1;
    for (int i = 1; i < n - 1; i++)
        w[i] = share;
    return n;
}

/* Per pair of groups: 5 hops when a switch of each has no link to the
 * other group, else 4 when some two switches are not linked directly, else
 * 3; O(groups x switches x globals) in all. */
static int df_diameter(const topomap_topology_t *t)
{
    const struct topo_dragonfly *D = DF(t);
    int A = D->p.switches, G = D->p.groups, h = D->p.globals;
    int d = A > 1 ? 3 : D->p.nodes > 1 ? 2 : 0;
    for (int ga = 0; ga < G; ga++)
        for (int gb = 0; gb < G; gb++) {
            if (ga == gb)
                continue;
            int lone_a = 0, lone_b = 0, direct = 1;
            for (int j = 0; j < A; j++) {
                lone_a |= D->reach[(ga * A + j) * G + gb] < 0;
                lone_b |= D->reach[(gb * A + j) * G + ga] < 0;
            }
            if (lone_a && lone_b)
                return 5;
            /* Every switch of ga linked to every switch of gb? */
            for (int x = ga * A; x < (ga + 1) * A && direct; x++)
                for (int y = gb * A; y < (gb + 1) * A && direct; y++) {
                    int found = 0;
                    for (int k = 0; k < h && !found; k++)
                        found = D->peer[x * h + k] >= 0 && D->peer[x * h + k] / h == y;
                    direct = found;
                }
            d = d > (direct ? 3 : 4) ? d : direct ? 3 : 4;
        }
    return d;
}

static int df_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_dragonfly *D = DF(t);
    int s = node / D->p.nodes, c[3] = {s / D->p.switches, s % D->p.switches, node % D->p.nodes};
    for (int k = 0; k < 3 && k < maxdims; k++)
        coords[k] = c[k];
    return 3;
}

static int df_group_levels(const topomap_topology_t *t)
{
    (void)t;
    return 2; /* group, switch */
}

static int df_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_dragonfly *D = DF(t);
    fprintf(f, "dragonfly: %d groups x %d switches x %d nodes, %d global links per switch (%s), "
               "%d..%d links between two groups; routing %s\n",
            D->p.groups, D->p.switches, D->p.nodes, D->p.globals,
            topo_df_arrangement_names[D->p.arrangement], D->min_links, D->max_links,
            t->spread ? "valiant (spread)" : "minimal");
    if (D->p.bw_node > 0 || D->p.bw_local > 0 || D->p.bw_global > 0)
        fprintf(f, "bandwidth (bytes/s): node %g, local %g, global %g\n", D->p.bw_node,
                D->p.bw_local, D->p.bw_global);
    return 0;
}

static void df_destroy(topomap_topology_t *t)
{
    struct topo_dragonfly *D = DF(t);
    free(D->peer);
    free(D->reach);
    free(D->pair_first);
    free(D->pair_port);
}

static void df_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    const struct topo_dragonfly *D = DF(t);
    *nswitches = D->nsw;
    /* Spread: two node cables, the minimal path (3) and groups - 2 Valiant
     * paths of at most 2 + 3 channels each. */
    *route_max = 5 + (D->p.groups > 2 ? 5 * (D->p.groups - 2) : 0);
}

static int df_class(const topomap_topology_t *t, int64_t c)
{
    const struct topo_dragonfly *D = DF(t);
    int64_t L = 2 * (int64_t)t->nnodes, G = L + (int64_t)D->nsw * D->p.switches;
    return c < L ? TOPOMAP_LINK_NODE : c < G ? TOPOMAP_LINK_LOCAL : TOPOMAP_LINK_GLOBAL;
}

static double df_bandwidth(const topomap_topology_t *t, int64_t c)
{
    const struct topo_dragonfly *D = DF(t);
    int k = df_class(t, c);
    double bw = k == TOPOMAP_LINK_NODE ? D->p.bw_node
              : k == TOPOMAP_LINK_LOCAL ? D->p.bw_local : D->p.bw_global;
    return bw > 0 ? bw : t->link_bandwidth;
}

static void df_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_dragonfly *D = DF(t);
    int n = t->nnodes, A = D->p.switches, h = D->p.globals;
    int64_t L = 2 * (int64_t)n, G = L + (int64_t)D->nsw * A;
    if (c < L) {
        int v = (int)(c / 2), s = n + v / D->p.nodes;
        *from = c % 2 ? s : v;
        *to = c % 2 ? v : s;
    } else if (c < G) {
        int s = (int)((c - L) / A), j = (int)((c - L) % A);
        *from = n + s;
        *to = n + (s / A) * A + j;
    } else {
        int q = (int)(c - G);
        *from = n + q / h;
        *to = n + D->peer[q] / h;
    }
}

static const struct topo_ops df_ops = {
    .shape = TOPOMAP_SHAPE_GROUPS,
    .hops = df_hops,
    .diameter = df_diameter,
    .coords = df_coords,
    .describe = df_describe,
    .destroy = df_destroy,
    .channels = df_channels,
    .route = df_route,
    .channel_ends = df_channel_ends,
    .channel_class = df_class,
    .channel_bandwidth = df_bandwidth,
    .spread = df_spread,
    .group_levels = df_group_levels,
};

int topo_dragonfly_count(const struct topo_df_params *p, char *err, size_t errlen)
{
    if (p->groups < 1 || p->switches < 1 || p->nodes < 1 || p->globals < 0)
        return topomap_fail(err, errlen, EINVAL,
                            "a dragonfly needs groups, switches and nodes >= 1 and global links "
                            ">= 0");
    long n = (long)p->groups * p->switches;
    if (n > TOPO_MAX_NODES || n * p->nodes > TOPO_MAX_NODES)
        return topomap_fail(err, errlen, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
    if (n * (p->groups + (long)p->globals) > (1L << 28))
        return topomap_fail(err, errlen, EINVAL,
                            "too many switches x (groups + global links per switch): at most "
                            "2^28");
    if (p->arrangement != TOPO_DF_EXPLICIT && p->groups > 1 &&
        (long)p->switches * p->globals < p->groups - 1)
        return topomap_fail(err, errlen, EINVAL,
                            "%d switches x %d global links per group cannot reach the %d other "
                            "groups",
                            p->switches, p->globals, p->groups - 1);
    return (int)(n * p->nodes);
}

/* Group port q of group i under a computed arrangement: the group and group
 * port at the other end, or -1 when the port is unused. */
static int arranged(const struct topo_df_params *p, int i, int q, int *qq)
{
    int G = p->groups, m = G - 1;
    if (m < 1 || q >= m * (p->switches * p->globals / m))
        return -1;
    int c = q / m, d = q % m, j, back;
    switch (p->arrangement) {
    case TOPO_DF_ABSOLUTE:
        j = d < i ? d : d + 1;
        back = i < j ? i : i - 1;
        break;
    case TOPO_DF_RELATIVE:
        j = (i + 1 + d) % G;
        back = ((i - j - 1) % G + G) % G;
        break;
    default: /* circulant */
        j = (i + (d % 2 ? G - (d / 2 + 1) : d / 2 + 1)) % G;
        back = (G % 2 == 0 && d == G - 2) ? d : d % 2 ? d - 1 : d + 1;
        break;
    }
    *qq = c * m + back;
    return j;
}

/* Fill D->peer from the arrangement or the explicit links. */
static int wire(topomap_topology_t *t, const struct topo_df_params *p, char *err, size_t errlen)
{
    struct topo_dragonfly *D = DF(t);
    int A = p->switches, h = p->globals;
    for (int s = 0; s < D->nsw * h; s++)
        D->peer[s] = -1;
    if (p->arrangement != TOPO_DF_EXPLICIT) {
        for (int i = 0; i < p->groups; i++)
            for (int q = 0; q < A * h; q++) {
                int qq, j = arranged(p, i, q, &qq);
                if (j >= 0)
                    D->peer[i * A * h + q] = j * A * h + qq;
            }
        return 0;
    }
    int *used = calloc((size_t)D->nsw, sizeof *used);
    if (!used)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int rc = 0;
    for (int l = 0; l < p->nlinks && !rc; l++) {
        const int *e = p->links + 4 * l;
        if (e[0] < 0 || e[0] >= p->groups || e[2] < 0 || e[2] >= p->groups || e[1] < 0 ||
            e[1] >= A || e[3] < 0 || e[3] >= A)
            rc = topomap_fail(err, errlen, EINVAL,
                              "global link %d: groups must be in 0..%d and switches in 0..%d", l,
                              p->groups - 1, A - 1);
        else if (e[0] == e[2])
            rc = topomap_fail(err, errlen, EINVAL,
                              "global link %d joins group %d to itself (local links are implied)",
                              l, e[0]);
        int x = e[0] * A + e[1], y = e[2] * A + e[3];
        if (!rc && (used[x] >= h || used[y] >= h))
            rc = topomap_fail(err, errlen, EINVAL,
                              "global link %d: switch %d of group %d has only %d global links",
                              l, used[x] >= h ? e[1] : e[3], used[x] >= h ? e[0] : e[2], h);
        if (!rc) {
            int qx = x * h + used[x]++, qy = y * h + used[y]++;
            D->peer[qx] = qy;
            D->peer[qy] = qx;
        }
    }
    free(used);
    return rc;
}

/* reach, the group-pair lists, and every pair of groups linked. */
static int index_links(topomap_topology_t *t, char *err, size_t errlen)
{
    struct topo_dragonfly *D = DF(t);
    int G = D->p.groups, A = D->p.switches, h = D->p.globals;
    size_t np = (size_t)G * G;
    D->reach = malloc(sizeof(int) * (size_t)D->nsw * G);
    D->pair_first = calloc(np + 1, sizeof(int));
    D->pair_port = malloc(sizeof(int) * ((size_t)D->nsw * h + 1));
    if (!D->reach || !D->pair_first || !D->pair_port)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; i < (size_t)D->nsw * G; i++)
        D->reach[i] = -1;
    for (int q = 0; q < D->nsw * h; q++)
        if (D->peer[q] >= 0) {
            int s = q / h, g = D->peer[q] / h / A;
            if (D->reach[s * G + g] < 0)
                D->reach[s * G + g] = q;
            D->pair_first[(size_t)(s / A) * G + g + 1]++;
        }
    for (size_t i = 0; i < np; i++)
        D->pair_first[i + 1] += D->pair_first[i];
    int *fill = malloc(sizeof(int) * np + 1);
    if (!fill)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    memcpy(fill, D->pair_first, sizeof(int) * np);
    for (int q = 0; q < D->nsw * h; q++)
        if (D->peer[q] >= 0)
            D->pair_port[fill[(size_t)(q / h / A) * G + D->peer[q] / h / A]++] = q;
    free(fill);
    D->min_links = G > 1 ? INT_MAX : 0;
    D->max_links = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            int m = D->pair_first[i * G + j + 1] - D->pair_first[i * G + j];
            if (i == j)
                continue;
            if (m == 0)
                return topomap_fail(err, errlen, EINVAL,
                                    "no global link joins groups %d and %d (minimal routing needs "
                                    "one between every two groups)",
                                    i, j);
            D->min_links = m < D->min_links ? m : D->min_links;
            D->max_links = m > D->max_links ? m : D->max_links;
        }
    return 0;
}

topomap_topology_t *topo_dragonfly_build(const struct topo_df_params *p, int cores,
                                         topomap_hostlist_t *names, char *err, size_t errlen)
{
    int n = topo_dragonfly_count(p, err, errlen);
    if (n < 0) {
        topomap_hostlist_free(names);
        return NULL;
    }
    topomap_topology_t *t = topo_new(&df_ops, "dragonfly", n, names, err, errlen);
    if (!t)
        return NULL;
    struct topo_dragonfly *D = DF(t);
    D->p = *p;
    D->p.links = NULL;
    D->p.nlinks = 0;
    D->nsw = p->groups * p->switches;
    D->peer = malloc(sizeof(int) * ((size_t)D->nsw * p->globals + 1));
    if (!D->peer) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    if (wire(t, p, err, errlen) < 0 || index_links(t, err, errlen) < 0)
        goto fail;
    return topo_finish(t, cores, err, errlen);
fail:
    topomap_topology_free(t);
    return NULL;
}
