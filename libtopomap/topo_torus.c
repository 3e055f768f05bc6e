/* SPDX-License-Identifier: BSD-3-Clause */
/* n-D meshes and tori with per-dimension wraparound. With dimension-ordered
 * minimal routing a message crosses, in each dimension, the shorter way round
 * (a wrapped dimension) or the straight distance (an open one), so the hop
 * count is the sum of the per-dimension distances.
 *
 * Routes (for congestion, libtopomap/congestion.c): the nodes are the routers, so
 * the elements are the nodes and a channel is one direction of the cable
 * between two neighbours. A message corrects dimension 0 first, then 1, ...
 * (dimension-ordered routing). On a wrapped dimension it goes the shorter way
 * round; when both ways are equally long (the destination exactly half an
 * even ring away) it goes in the + direction (increasing coordinate, wrapping
 * from size - 1 to 0). Channel number: node x 2 ndims + 2 k + (1 if the
 * channel leaves the node in the - direction of dimension k). */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "topology_priv.h"

static int torus_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_torus *T = &t->u.torus;
    return topomap_coord_hops(T->coord + (size_t)a * T->ndims, T->coord + (size_t)b * T->ndims,
                             T->dims, T->wrap, T->ndims);
}

static int torus_diameter(const topomap_topology_t *t)
{
    const struct topo_torus *T = &t->u.torus;
    int h = 0;
    for (int k = 0; k < T->ndims; k++)
        h += T->wrap[k] ? T->dims[k] / 2 : T->dims[k] - 1;
    return h;
}

static int torus_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_torus *T = &t->u.torus;
    for (int k = 0; k < T->ndims && k < maxdims; k++)
        coords[k] = T->coord[(size_t)node * T->ndims + k];
    return T->ndims;
}

static int torus_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_torus *T = &t->u.torus;
    fprintf(f, "dims: ");
    for (int k = 0; k < T->ndims; k++)
        fprintf(f, "%s%d", k ? " x " : "", T->dims[k]);
    fprintf(f, " (wrap:");
    for (int k = 0; k < T->ndims; k++)
        fprintf(f, " %s", T->wrap[k] ? "yes" : "no");
    fprintf(f, "; node index = x0 + d0 * (x1 + d1 * (x2 + ...)))\n");
    return 0;
}

static void torus_destroy(topomap_topology_t *t)
{
    free(t->u.torus.coord);
}

static void torus_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    *nswitches = 0;
    *route_max = torus_diameter(t);
}

/* Node index stride of dimension k (x0 + d0 * (x1 + d1 * ...)). */
static int torus_stride(const struct topo_torus *T, int k)
{
    int s = 1;
    for (int l = 0; l < k; l++)
        s *= T->dims[l];
    return s;
}

static int torus_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_torus *T = &t->u.torus;
    const int *cb = T->coord + (size_t)b * T->ndims;
    int nd = T->ndims, h = 0, cur = a, stride = 1;
    for (int k = 0; k < nd; k++) {
        int size = T->dims[k], x = T->coord[(size_t)a * nd + k], steps, neg;
        /* delta: how far + goes (mod size on a ring); + on a tie. */
        int delta = cb[k] - x;
        if (T->wrap[k]) {
            if (delta < 0)
                delta += size;
            neg = 2 * delta > size;
            steps = neg ? size - delta : delta;
        } else {
            neg = delta < 0;
            steps = neg ? -delta : delta;
        }
        for (int s = 0; s < steps; s++) {
            chan[h++] = (int64_t)cur * 2 * nd + 2 * k + neg;
            /* Move cur one step along dimension k, wrapping on a ring. */
            if (neg) {
                cur -= stride;
                if (x == 0)
                    cur += size * stride;
                x = x == 0 ? size - 1 : x - 1;
            } else {
                cur += stride;
                if (x == size - 1)
                    cur -= size * stride;
                x = x == size - 1 ? 0 : x + 1;
            }
        }
        stride *= size;
    }
    return h;
}

static void torus_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_torus *T = &t->u.torus;
    int nd = T->ndims, node = (int)(c / (2 * nd)), k = (int)(c % (2 * nd)) / 2;
    int neg = (int)(c % 2), size = T->dims[k], stride = torus_stride(T, k);
    int x = T->coord[(size_t)node * nd + k];
    int nx = neg ? (x == 0 ? size - 1 : x - 1) : (x == size - 1 ? 0 : x + 1);
    *from = node;
    *to = node + (nx - x) * stride;
}

static const struct topo_ops torus_ops = {
    .shape = TOPOMAP_SHAPE_GRID,
    .shortest_hops = 1,
    .hops = torus_hops,
    .diameter = torus_diameter,
    .coords = torus_coords,
    .describe = torus_describe,
    .destroy = torus_destroy,
    .channels = torus_channels,
    .route = torus_route,
    .channel_ends = torus_channel_ends,
};

int topo_torus_count(int ndims, const int *dims, const int *wrap, char *err, size_t errlen)
{
    (void)wrap;
    if (ndims < 1 || ndims > TOPO_MAX_DIMS || !dims)
        return topomap_fail(err, errlen, EINVAL, "a torus/mesh needs 1..%d dimensions, not %d",
                            TOPO_MAX_DIMS, ndims);
    long n = 1;
    for (int k = 0; k < ndims; k++) {
        if (dims[k] < 1)
            return topomap_fail(err, errlen, EINVAL, "dimension %d has size %d (must be >= 1)",
                                k, dims[k]);
        n *= dims[k];
        if (n > TOPO_MAX_NODES)
            return topomap_fail(err, errlen, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
    }
    return (int)n;
}

topomap_topology_t *topo_torus_build(int ndims, const int *dims, const int *wrap, int cores,
                                     topomap_hostlist_t *names, char *err, size_t errlen)
{
    int n = topo_torus_count(ndims, dims, wrap, err, errlen);
    if (n < 0) {
        topomap_hostlist_free(names);
        return NULL;
    }
    int any_wrap = 0;
    for (int k = 0; wrap && k < ndims; k++)
        any_wrap |= wrap[k] != 0;
    topomap_topology_t *t = topo_new(&torus_ops, any_wrap ? "torus" : "mesh", n, names, err,
                                     errlen);
    if (!t)
        return NULL;
    struct topo_torus *T = &t->u.torus;
    T->ndims = ndims;
    for (int k = 0; k < ndims; k++) {
        T->dims[k] = dims[k];
        T->wrap[k] = wrap && wrap[k] != 0;
    }
    T->coord = malloc((size_t)n * (size_t)ndims * sizeof *T->coord);
    if (!T->coord) {
        topomap_topology_free(t);
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        int rest = i;
        for (int k = 0; k < ndims; k++) {
            T->coord[(size_t)i * ndims + k] = rest % dims[k];
            rest /= dims[k];
        }
    }
    return topo_finish(t, cores, err, errlen);
}

topomap_topology_t *topomap_topology_torus(int ndims, const int *dims, const int *wrap,
                                           int cores, const char *hostlist, char *err,
                                           size_t errlen)
{
    topomap_hostlist_t *names = NULL;
    if (hostlist && !(names = topomap_hostlist_parse(hostlist, err, errlen)))
        return NULL;
    return topo_torus_build(ndims, dims, wrap, cores, names, err, errlen);
}

int topomap_topology_grid(const topomap_topology_t *t, int *dims, int *wrap, int maxdims)
{
    if (!t || t->ops != &torus_ops)
        return 0;
    const struct topo_torus *T = &t->u.torus;
    for (int k = 0; k < T->ndims && k < maxdims; k++) {
        dims[k] = T->dims[k];
        wrap[k] = T->wrap[k];
    }
    return T->ndims;
}
