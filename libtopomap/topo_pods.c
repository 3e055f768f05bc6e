/* SPDX-License-Identifier: BSD-3-Clause */
/* Several rings or 3-D tori side by side (Slurm 26.05's topology/ring and
 * topology/torus3d, read by topo_slurmyaml_torus.c): each pod is a torus of
 * 1 (a ring) or 3 dimensions, every dimension wrapped, whose positions
 * (cells) hold the nodes the file names; a position Slurm leaves unmapped
 * (regions that do not cover the torus) is a hole. One pod that fills its
 * torus is built as topo_torus.c's torus instead; this kind is for the rest.
 *
 * Inside a pod, hops and routes are those of topo_torus.c: dimension-ordered,
 * the shorter way round, + on a tie; a hole still forwards (its position is
 * part of the cabling, Slurm only has no node there), so a route may pass
 * through it. Between pods Slurm gives no cabling: the pods are taken as
 * joined by one virtual switch, and two nodes in different pods are
 * (largest pod diameter + 1) hops apart, farther than any pair inside a pod,
 * so that mappings keep neighbours in a pod (Slurm allocates a placement
 * inside one torus). That route is two channels, up to the switch and down.
 *
 * Elements: the nodes, then the holes (in cell order), then the virtual
 * switch (with several pods). Channels: inside a pod, global cell x 6 +
 * 2 k + (1 going - in dimension k); between pods, ncells x 6 + 2 node (up)
 * or + 2 node + 1 (down). The diameter inside a pod with holes is the
 * torus's (an upper bound of the hops between its nodes). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

#define PODS(t) (&(t)->u.pods)

/* Cell coordinate of local cell l of pod p in dimension k. */
static int pod_coord(const struct topo_pods *P, int p, int l, int k)
{
    const int *d = P->dims + 3 * p;
    return k == 0 ? l % d[0] : k == 1 ? (l / d[0]) % d[1] : l / (d[0] * d[1]);
}

static int pod_diameter(const struct topo_pods *P, int p)
{
    int h = 0;
    for (int k = 0; k < P->ndims; k++)
        h += P->dims[3 * p + k] / 2;
    return h;
}

static int pods_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_pods *P = PODS(t);
    int p = P->node_pod[a];
    if (p != P->node_pod[b])
        return P->inter;
    int la = P->node_cell[a] - P->cell0[p], lb = P->node_cell[b] - P->cell0[p], h = 0;
    for (int k = 0; k < P->ndims; k++) {
        int size = P->dims[3 * p + k], d = abs(pod_coord(P, p, la, k) - pod_coord(P, p, lb, k));
        h += 2 * d > size ? size - d : d;
    }
    return h;
}

static int pods_diameter(const topomap_topology_t *t)
{
    const struct topo_pods *P = PODS(t);
    return P->npods > 1 ? P->inter : pod_diameter(P, 0);
}

/* The pod, then the position in it. Not group levels (topology.c): the
 * position's coordinates are not nested groups, and the spectral
 * algorithm's levels would group nodes of one x across pods. */
static int pods_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_pods *P = PODS(t);
    int p = P->node_pod[node], l = P->node_cell[node] - P->cell0[p];
    if (maxdims > 0)
        coords[0] = p;
    for (int k = 0; k < P->ndims && k + 1 < maxdims; k++)
        coords[k + 1] = pod_coord(P, p, l, k);
    return P->ndims + 1;
}

static int pods_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_pods *P = PODS(t);
    const char *what = P->ndims == 1 ? "rings" : "tori";
    char safe[256];
    fprintf(f, "%s: %d (Slurm topology/%s), every dimension wrapped", what, P->npods,
            P->ndims == 1 ? "ring" : "torus3d");
    if (P->npods > 1)
        fprintf(f, "; nodes of two different %s are %d hops apart (a virtual switch)", what,
                P->inter);
    fprintf(f, "\n");
    for (int p = 0; p < P->npods; p++) {
        if (p == 8 && P->npods > 9) {
            fprintf(f, "  ... %d more\n", P->npods - p);
            break;
        }
        int cells = P->cell0[p + 1] - P->cell0[p], used = 0;
        for (int c = P->cell0[p]; c < P->cell0[p + 1]; c++)
            used += P->cell_elem[c] < t->nnodes;
        fprintf(f, "  %s: ", topomap_printable(P->name[p], safe, sizeof safe));
        if (P->ndims == 1)
            fprintf(f, "%d nodes in ring order\n", cells);
        else
            fprintf(f, "%d x %d x %d, %d of %d positions hold nodes (x varies fastest)\n",
                    P->dims[3 * p], P->dims[3 * p + 1], P->dims[3 * p + 2], used, cells);
    }
    return 0;
}

static void pods_destroy(topomap_topology_t *t)
{
    struct topo_pods *P = PODS(t);
    for (int p = 0; P->name && p < P->npods; p++)
        free(P->name[p]);
    free(P->name);
    free(P->dims);
    free(P->cell0);
    free(P->cell_elem);
    free(P->node_cell);
    free(P->node_pod);
}

static void pods_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    const struct topo_pods *P = PODS(t);
    int m = P->npods > 1 ? 2 : 0;
    for (int p = 0; p < P->npods; p++)
        if (pod_diameter(P, p) > m)
            m = pod_diameter(P, p);
    *nswitches = P->nholes + (P->npods > 1);
    *route_max = m;
}

static int pods_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_pods *P = PODS(t);
    int p = P->node_pod[a];
    int64_t base = (int64_t)P->cell0[P->npods] * 6;
    if (p != P->node_pod[b]) {
        chan[0] = base + 2 * (int64_t)a;
        chan[1] = base + 2 * (int64_t)b + 1;
        return 2;
    }
    int c0 = P->cell0[p], cur = P->node_cell[a] - c0, lb = P->node_cell[b] - c0;
    int h = 0, stride = 1;
    for (int k = 0; k < P->ndims; k++) {
        int size = P->dims[3 * p + k], x = pod_coord(P, p, cur, k);
        int delta = pod_coord(P, p, lb, k) - x;
        if (delta < 0)
            delta += size;
        int neg = 2 * delta > size, steps = neg ? size - delta : delta;
        for (int s = 0; s < steps; s++) {
            chan[h++] = (int64_t)(c0 + cur) * 6 + 2 * k + neg;
            int nx = neg ? (x == 0 ? size - 1 : x - 1) : (x == size - 1 ? 0 : x + 1);
            cur += (nx - x) * stride;
            x = nx;
        }
        stride *= size;
    }
    return h;
}

static void pods_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_pods *P = PODS(t);
    int64_t base = (int64_t)P->cell0[P->npods] * 6;
    if (c >= base) {
        int node = (int)((c - base) / 2), sw = t->nnodes + P->nholes;
        *from = (c - base) % 2 ? sw : node;
        *to = (c - base) % 2 ? node : sw;
        return;
    }
    int cell = (int)(c / 6), k = (int)(c % 6) / 2, neg = (int)(c % 2), p = 0;
    while (P->cell0[p + 1] <= cell)
        p++;
    int l = cell - P->cell0[p], size = P->dims[3 * p + k], x = pod_coord(P, p, l, k);
    int stride = k == 0 ? 1 : k == 1 ? P->dims[3 * p] : P->dims[3 * p] * P->dims[3 * p + 1];
    int nx = neg ? (x == 0 ? size - 1 : x - 1) : (x == size - 1 ? 0 : x + 1);
    *from = P->cell_elem[cell];
    *to = P->cell_elem[cell + (nx - x) * stride];
}

static const struct topo_ops pods_ops = {
    .shape = TOPOMAP_SHAPE_GROUPS,
    .shortest_hops = 1,
    .node_routers = 1,
    .hops = pods_hops,
    .diameter = pods_diameter,
    .coords = pods_coords,
    .describe = pods_describe,
    .destroy = pods_destroy,
    .channels = pods_channels,
    .route = pods_route,
    .channel_ends = pods_channel_ends,
};

/* Fill P from the definitions; -1 with errno ENOMEM or EINVAL (a position
 * given twice, checked by the reader already). */
static int pods_fill(topomap_topology_t *t, const struct topo_pod_def *pods, int npods,
                     const int *node_pod, const int *node_cell)
{
    struct topo_pods *P = PODS(t);
    int n = t->nnodes;
    P->dims = malloc(sizeof(int) * 3 * (size_t)npods);
    P->cell0 = malloc(sizeof(int) * ((size_t)npods + 1));
    P->name = calloc((size_t)npods, sizeof *P->name);
    P->node_cell = malloc(sizeof(int) * (size_t)n);
    P->node_pod = malloc(sizeof(int) * (size_t)n);
    if (!P->dims || !P->cell0 || !P->name || !P->node_cell || !P->node_pod)
        return errno = ENOMEM, -1;
    P->cell0[0] = 0;
    for (int p = 0; p < npods; p++) {
        long cells = 1;
        for (int k = 0; k < 3; k++) {
            P->dims[3 * p + k] = k < pods[p].ndims ? pods[p].dims[k] : 1;
            cells *= P->dims[3 * p + k];
        }
        if (cells > TOPO_MAX_NODES || P->cell0[p] + cells > TOPO_MAX_NODES)
            return errno = EINVAL, -1;
        P->cell0[p + 1] = P->cell0[p] + (int)cells;
        if (!(P->name[p] = strdup(pods[p].name)))
            return errno = ENOMEM, -1;
    }
    int ncells = P->cell0[npods];
    if (!(P->cell_elem = malloc(sizeof(int) * (size_t)ncells)))
        return errno = ENOMEM, -1;
    memset(P->cell_elem, 0xff, sizeof(int) * (size_t)ncells);
    for (int v = 0; v < n; v++) {
        int p = node_pod[v], c = P->cell0[p] + node_cell[v];
        if (p < 0 || p >= npods || node_cell[v] < 0 || c >= P->cell0[p + 1] ||
            P->cell_elem[c] >= 0)
            return errno = EINVAL, -1;
        P->node_pod[v] = p;
        P->node_cell[v] = c;
        P->cell_elem[c] = v;
    }
    P->nholes = 0;
    for (int c = 0; c < ncells; c++)
        if (P->cell_elem[c] < 0)
            P->cell_elem[c] = n + P->nholes++;
    P->inter = 0;
    for (int p = 0; p < npods; p++)
        if (pod_diameter(P, p) + 1 > P->inter)
            P->inter = pod_diameter(P, p) + 1;
    return 0;
}

topomap_topology_t *topo_pods_build(const struct topo_pod_def *pods, int npods, const int *node_pod,
                                    const int *node_cell, topomap_hostlist_t *names, char *err,
                                    size_t errlen)
{
    if (npods < 1 || !names || (pods[0].ndims != 1 && pods[0].ndims != 3)) {
        topomap_hostlist_free(names);
        topomap_fail(err, errlen, EINVAL, "a set of rings or tori needs a pod and node names");
        return NULL;
    }
    int ndims = pods[0].ndims, n = (int)topomap_hostlist_count(names);
    topomap_topology_t *t = topo_new(&pods_ops, ndims == 1 ? "rings" : "tori", n, names, err,
                                     errlen);
    if (!t)
        return NULL;
    PODS(t)->npods = npods;
    PODS(t)->ndims = ndims;
    int mixed = 0;
    for (int p = 0; p < npods; p++)
        mixed |= pods[p].ndims != ndims;
    if (mixed)
        errno = EINVAL;
    if (mixed || pods_fill(t, pods, npods, node_pod, node_cell) < 0) {
        topomap_fail(err, errlen, errno, errno == ENOMEM ? "out of memory" :
                     "the pods' positions do not match their nodes");
        topomap_topology_free(t);
        return NULL;
    }
    return topo_finish(t, 1, err, errlen);
}

/* ---- Slurm's rings (topology.yaml's ring:, topology.conf's RingName=) ---- */

#define RING_MAX 16 /* MAX_RING_SIZE, slurm-26-05-3-1 src/plugins/topology/ring/ring_record.h */

/* The nodes of the rings, in file order: names, each one's ring. */
static int ring_nodes(const char *path, const char *key, const struct topo_block_def *r, int n,
                      topomap_hostlist_t *names, int *pod, int *cell, struct topo_pod_def *pods,
                      char *err, size_t errlen)
{
    char at[1100], herr[TOPOMAP_ERRLEN];
    int count = 0;
    for (int i = 0; i < n; i++) {
        topo_where(at, sizeof at, path, r[i].line, r[i].col);
        topomap_hostlist_t *hl = topomap_hostlist_parse(r[i].nodes, herr, sizeof herr);
        if (!hl)
            return topomap_fail(err, errlen, errno, "%s: %s: %s", at, key, herr);
        int size = (int)topomap_hostlist_count(hl), rc = 0;
        if (size > RING_MAX)
            rc = topomap_fail(err, errlen, EINVAL, "%s: ring '%s' has %d nodes; Slurm allows at "
                              "most %d in a ring", at, r[i].name, size, RING_MAX);
        pods[i] = (struct topo_pod_def){r[i].name, 1, {size, 1, 1}};
        for (int k = 0; !rc && k < size; k++) {
            const char *nm = topomap_hostlist_get(hl, (size_t)k);
            if (count == TOPO_MAX_NODES)
                rc = topomap_fail(err, errlen, EINVAL, "%s: more than %d nodes", at,
                                  TOPO_MAX_NODES);
            else if (topo_hostlist_push(names, nm, strlen(nm)) < 0)
                rc = topomap_fail(err, errlen, ENOMEM, "%s: out of memory", at);
            else {
                pod[count] = i;
                cell[count++] = k;
            }
        }
        topomap_hostlist_free(hl);
        if (rc < 0)
            return -1;
    }
    return count;
}

topomap_topology_t *topo_rings_build(const char *path, int yaml, const struct topo_block_def *r,
                                     int n, char *err, size_t errlen)
{
    char at[1100];
    int a, b;
    topomap_hostlist_t *names = topo_hostlist_new();
    struct topo_pod_def *pods = calloc((size_t)(n > 0 ? n : 1), sizeof *pods);
    int *pod = NULL, *cell = NULL, rc = n > 0 ? 0 : -1;
    topomap_topology_t *t = NULL;
    if (n < 1)
        topomap_fail(err, errlen, EINVAL, "%s: no rings", path);
    /* A ring names at most RING_MAX nodes: n x RING_MAX bounds the nodes. */
    else if (!names || !pods || !(pod = malloc(sizeof(int) * (size_t)n * RING_MAX)) ||
             !(cell = malloc(sizeof(int) * (size_t)n * RING_MAX)))
        rc = topomap_fail(err, errlen, ENOMEM, "%s: out of memory", path);
    if (!rc && (rc = topo_fields_repeat(r, sizeof *r, offsetof(struct topo_block_def, name), n,
                                        &a, &b)) != 0)
        rc = rc < 0 ? topomap_fail(err, errlen, ENOMEM, "%s: out of memory", path)
                    : topomap_fail(err, errlen, EINVAL, "%s: ring '%s' is already defined at "
                                   "line %d", topo_where(at, sizeof at, path, r[b].line, r[b].col),
                                   r[b].name, r[a].line);
    if (!rc && (rc = ring_nodes(path, yaml ? "nodes" : "Nodes=", r, n, names, pod, cell, pods,
                                err, errlen)) >= 0) {
        int count = rc;
        rc = topo_hostlist_seal(names) < 0 ? -1 : topo_names_repeat(names, &a, &b);
        if (rc < 0)
            topomap_fail(err, errlen, ENOMEM, "%s: out of memory", path);
        else if (rc > 0)
            rc = topomap_fail(err, errlen, EINVAL, "%s: node '%s' is in ring '%s' and already "
                              "in ring '%s' (line %d)",
                              topo_where(at, sizeof at, path, r[pod[b]].line, r[pod[b]].col),
                              topomap_hostlist_get(names, (size_t)b), r[pod[b]].name,
                              r[pod[a]].name, r[pod[a]].line);
        else if (n == 1) {
            int wrap = 1;
            t = topo_torus_build(1, &count, &wrap, 1, names, err, errlen);
            names = NULL;
        } else {
            t = topo_pods_build(pods, n, pod, cell, names, err, errlen);
            names = NULL;
        }
    }
    topomap_hostlist_free(names);
    free(pods);
    free(pod);
    free(cell);
    return t;
}
