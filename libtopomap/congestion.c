/* SPDX-License-Identifier: BSD-3-Clause */
/* Congestion: the bytes every channel carries when each directed pair of the
 * profile is sent along the network's deterministic minimal route. Wu et al.
 * 2016 define a link's congestion as its bytes divided by its bandwidth and a
 * mapping's as the largest over the links (section 2.2), and report it in
 * bytes assuming equal bandwidths (section 4.3): congestion_max here, and
 * congestion_max_seconds when the topology gives the bandwidth. A channel is
 * one direction of a cable between two network elements; the routes and
 * channel numbers come from the network kind (route() and channel_ends() of
 * topo_torus.c, topo_tree.c, topo_tianhe3.c, topo_dragonfly.c). Pairs on one
 * node use no channel. A kind may also give a spread routing model (several
 * weighted routes per pair, a dragonfly's `routing: valiant`), a class per
 * channel (node, local, global link) and a bandwidth per channel.
 *
 * Channel numbers are sparse (a Tianhe-3 chip-link number grows with chips x
 * (rows + cols)), so loads are kept in an open-addressing hash table keyed by
 * channel: memory grows with the channels that carry traffic, never with
 * nodes x nodes. The loop is serial and adds the pairs in rank order, so every
 * load, and the sums over them taken in channel order, are the same on every
 * run and for any thread count. Cost: O(pairs x route length). */
#include <errno.h>
#include <stdlib.h>

#include "congestion.h"
#include "internal.h"
#include "topology_priv.h"

struct load_table {
    int64_t *key; /* channel, -1 = empty */
    double *load;
    size_t mask;  /* size - 1, size a power of two */
    size_t used;
    int shift;    /* 64 - log2(size): the hash keeps the top bits */
};

static size_t slot_of(const struct load_table *lt, int64_t c)
{
    /* Fibonacci hashing: channel numbers of one route are close together. */
    return (size_t)(((uint64_t)c * 0x9E3779B97F4A7C15ULL) >> lt->shift);
}

static int table_alloc(struct load_table *lt, int bits)
{
    size_t size = (size_t)1 << bits;
    lt->key = malloc(size * sizeof *lt->key);
    lt->load = malloc(size * sizeof *lt->load);
    if (!lt->key || !lt->load) {
        free(lt->key);
        free(lt->load);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < size; i++)
        lt->key[i] = -1;
    lt->mask = size - 1;
    lt->shift = 64 - bits;
    lt->used = 0;
    return 0;
}

/* Insert a channel that is not in the table yet, or add to its load. */
static void table_put(struct load_table *lt, int64_t c, double w)
{
    size_t i = slot_of(lt, c);
    while (lt->key[i] >= 0 && lt->key[i] != c)
        i = (i + 1) & lt->mask;
    if (lt->key[i] < 0) {
        lt->key[i] = c;
        lt->load[i] = 0;
        lt->used++;
    }
    lt->load[i] += w;
}

/* Double the table (kept at most half full). */
static int table_grow(struct load_table *lt)
{
    struct load_table old = *lt;
    if (table_alloc(lt, 64 - old.shift + 1) < 0) {
        *lt = old;
        return -1;
    }
    for (size_t i = 0; i <= old.mask; i++)
        if (old.key[i] >= 0)
            table_put(lt, old.key[i], old.load[i]);
    free(old.key);
    free(old.load);
    return 0;
}

/* A channel and its load, sorted by channel before the ends are looked up. */
struct chan_load {
    int64_t c;
    double load;
};

static int cmp_chan(const void *a, const void *b)
{
    int64_t x = ((const struct chan_load *)a)->c, y = ((const struct chan_load *)b)->c;
    return (x > y) - (x < y);
}

/* Tori and meshes number their channels densely, node x 2 x dims + 2 x
 * dimension + direction (topo_torus.c): an array indexed by channel then
 * replaces the hash table, whose probes were half the cost of routing a
 * scattered mapping of a million ranks. The loads are added in the same
 * order, so every sum is the same number. 0 when the network is no torus
 * or mesh. */
static size_t dense_channels(const topomap_topology_t *t)
{
    int dims[8], wrap[8];
    int nd = topomap_topology_grid(t, dims, wrap, 8);
    return nd > 0 ? (size_t)t->nnodes * 2 * (size_t)nd : 0;
}

/* route_all() with the loads in an array of nchan channels. */
static int route_dense(const topomap_graph_t *g, const topomap_topology_t *t, const int *node,
                       size_t nchan, struct chan_load **out, size_t *count)
{
    double *load = calloc(nchan, sizeof *load);
    int64_t *chan = malloc(sizeof *chan * (size_t)(t->route_max > 0 ? t->route_max : 1));
    struct chan_load *cl = NULL;
    if (!load || !chan)
        goto oom;
    for (int i = 0; i < g->n; i++)
        for (int64_t e = g->xadj[i]; e < g->xadj[i + 1]; e++) {
            int a = node[i], b = node[g->adj[e]];
            double w = g->w[e];
            if (a == b || w <= 0)
                continue;
            int h = t->ops->route(t, a, b, chan);
            for (int k = 0; k < h; k++)
                load[chan[k]] += w;
        }
    size_t m = 0;
    for (size_t c = 0; c < nchan; c++)
        m += load[c] > 0;
    cl = malloc(sizeof *cl * (m ? m : 1));
    if (!cl)
        goto oom;
    m = 0;
    for (size_t c = 0; c < nchan; c++)
        if (load[c] > 0)
            cl[m++] = (struct chan_load){(int64_t)c, load[c]};
    free(load);
    free(chan);
    *out = cl;
    *count = m;
    return 0;
oom:
    free(load);
    free(chan);
    errno = ENOMEM;
    return -1;
}

/* Route every pair; *out (caller frees) gets the loaded channels in channel
 * order, *count their number. */
static int route_all(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                     struct chan_load **out, size_t *count)
{
    topomap_graph_t g;
    if (topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return -1;
    for (int r = 0; r < g.n; r++)
        if ((unsigned)node[r] >= (unsigned)t->nnodes) {
            errno = EINVAL;
            return -1;
        }
    size_t nchan = dense_channels(t);
    if (nchan > 0)
        return route_dense(&g, t, node, nchan, out, count);
    struct load_table lt;
    size_t rm = (size_t)(t->route_max > 0 ? t->route_max : 1);
    int64_t *chan = malloc(sizeof *chan * rm);
    double *share = malloc(sizeof *share * rm);
    int spread = t->spread && t->ops->spread;
    if (!chan || !share || table_alloc(&lt, 10) < 0) {
        free(chan);
        free(share);
        errno = ENOMEM;
        return -1;
    }
    int rc = -1;
    for (int i = 0; i < g.n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++) {
            int a = node[i], b = node[g.adj[e]];
            double w = g.w[e];
            if (a == b || w <= 0)
                continue;
            int h = spread ? t->ops->spread(t, a, b, chan, share) : t->ops->route(t, a, b, chan);
            /* Room for a whole route before it is added: at most half full. */
            while (2 * (lt.used + (size_t)h) > lt.mask + 1)
                if (table_grow(&lt) < 0)
                    goto out;
            for (int k = 0; k < h; k++)
                table_put(&lt, chan[k], spread ? w * share[k] : w);
        }
    struct chan_load *cl = malloc(sizeof *cl * (lt.used ? lt.used : 1));
    if (!cl) {
        errno = ENOMEM;
        goto out;
    }
    size_t m = 0;
    for (size_t i = 0; i <= lt.mask; i++)
        if (lt.key[i] >= 0)
            cl[m++] = (struct chan_load){lt.key[i], lt.load[i]};
    qsort(cl, m, sizeof *cl, cmp_chan);
    *out = cl;
    *count = m;
    rc = 0;
out:
    free(chan);
    free(share);
    free(lt.key);
    free(lt.load);
    return rc;
}

int topomap_link_loads(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                       topomap_link_load_t **links, size_t *n)
{
    if (!p || !t || !node || !links || !n) {
        errno = EINVAL;
        return -1;
    }
    struct chan_load *cl;
    size_t m;
    if (route_all(p, t, node, &cl, &m) < 0)
        return -1;
    topomap_link_load_t *l = m ? malloc(sizeof *l * m) : NULL;
    if (m && !l) {
        free(cl);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        t->ops->channel_ends(t, cl[i].c, &l[i].from, &l[i].to);
        l[i].load = cl[i].load;
    }
    free(cl);
    *links = l;
    *n = m;
    return 0;
}

const char *topomap_link_class_name(topomap_link_class_t k)
{
    static const char *const names[TOPOMAP_LINK_CLASSES] = {"node", "local", "global"};
    return (unsigned)k < TOPOMAP_LINK_CLASSES ? names[k] : NULL; /* a negative k too */
}

int topomap_channel_class(const topomap_topology_t *t, int64_t c)
{
    return t->ops->channel_class ? t->ops->channel_class(t, c) : TOPOMAP_LINK_LOCAL;
}

double topomap_channel_weight(const topomap_topology_t *t, int64_t c)
{
    if (!t->ops->channel_bandwidth || !(t->link_bandwidth > 0))
        return 1;
    double bw = t->ops->channel_bandwidth(t, c);
    return bw > 0 ? t->link_bandwidth / bw : 1;
}

int topomap_channels_uneven(const topomap_topology_t *t)
{
    if (!t->ops->channel_bandwidth || t->nnodes < 2)
        return 0;
    /* Routes from node 0 to nodes 1, 2, 4, ... and the last: on a tree the
     * last one climbs to the top, on a dragonfly it leaves the group, so
     * together they meet every level and class of channel. */
    int64_t *chan = malloc(sizeof *chan * (size_t)(t->route_max > 0 ? t->route_max : 1));
    if (!chan)
        return 0;
    double first = 0;
    int uneven = 0;
    for (int b = 1; !uneven; b = b < t->nnodes / 2 ? 2 * b : t->nnodes - 1) {
        int h = t->ops->route(t, 0, b, chan);
        for (int k = 0; k < h && !uneven; k++) {
            double w = topomap_channel_weight(t, chan[k]);
            if (first == 0)
                first = w;
            uneven = w != first;
        }
        if (b == t->nnodes - 1)
            break;
    }
    free(chan);
    return uneven;
}

int topomap_congestion_weighted(const topomap_profile_t *p, const topomap_topology_t *t,
                                const int *node, int cls, double *wmax)
{
    struct chan_load *cl;
    size_t n;
    if (route_all(p, t, node, &cl, &n) < 0)
        return -1;
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        if (cls >= 0 && topomap_channel_class(t, cl[i].c) != cls)
            continue;
        double l = cl[i].load * topomap_channel_weight(t, cl[i].c);
        if (l > max)
            max = l;
    }
    free(cl);
    *wmax = max;
    return 0;
}

/* Congestion in seconds divides each channel's load by that channel's
 * bandwidth (tapered trees, a dragonfly's link classes), so the busiest
 * channel in seconds need not be the busiest in bytes. When a channel's
 * bandwidth is unknown, no figure in seconds is given (0). */
int topomap_congestion(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                       topomap_metrics_t *m)
{
    struct chan_load *cl;
    size_t n;
    if (route_all(p, t, node, &cl, &n) < 0)
        return -1;
    double max = 0, sum = 0, smax = 0, ssum = 0, gbytes = 0;
    int known = 1;
    for (int k = 0; k < TOPOMAP_LINK_CLASSES; k++)
        m->congestion_class_max[k] = 0;
    for (size_t i = 0; i < n; i++) {
        double l = cl[i].load;
        sum += l;
        if (l > max)
            max = l;
        int k = t->ops->channel_class ? t->ops->channel_class(t, cl[i].c) : TOPOMAP_LINK_LOCAL;
        if (l > m->congestion_class_max[k])
            m->congestion_class_max[k] = l;
        if (k == TOPOMAP_LINK_GLOBAL)
            gbytes += l;
        double bw = t->ops->channel_bandwidth ? t->ops->channel_bandwidth(t, cl[i].c)
                                              : t->link_bandwidth;
        if (!(bw > 0)) {
            known = 0;
            continue;
        }
        ssum += l / bw;
        if (l / bw > smax)
            smax = l / bw;
    }
    free(cl);
    m->congestion_max = max;
    m->congestion_avg = n ? sum / (double)n : 0;
    m->congestion_channels = (long)n;
    m->congestion_global_bytes = gbytes;
    m->congestion_max_seconds = known ? smax : 0;
    m->congestion_avg_seconds = known && n ? ssum / (double)n : 0;
    return 0;
}
