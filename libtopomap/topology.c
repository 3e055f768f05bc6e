/* SPDX-License-Identifier: BSD-3-Clause */
/* The generic part of a topology: node names and their hash table, the cost
 * of two cores (the node types are in topo_nodetypes.c), hop_cost, and the
 * dispatch to the network kinds (topo_torus.c, topo_tianhe3.c, topo_tree.c,
 * ...). The loaders (topo_yaml.c, topo_slurmconf.c, topo_hwloc.c) build on
 * it; the file entry point that picks one is topo_load.c, above them.
 * Distances are computed on the fly by the kind; nothing here is O(n^2). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

/* ---- names -------------------------------------------------------------- */

/* Build the name table; error on duplicates (lookups would be ambiguous). */
/* Enter names 0 .. n-1 into the open-addressing table hash (mask + 1 slots,
 * all -1). Without keep, stop at the first name equal to an earlier one: 1
 * with the two indices (*second the smallest index that repeats a name).
 * With keep, go on: keep[i] = 0 for the repeats, 1 for the others. Which
 * pair is reported follows input order, not table order (the hash is keyed
 * per process). *probes, when not NULL, grows by the slots visited. */
static int fill_hash(const topomap_hostlist_t *names, int n, int *hash, size_t mask, int *first,
                     int *second, char *keep, size_t *probes)
{
    for (int i = 0; i < n; i++) {
        const char *name = topomap_hostlist_get(names, (size_t)i);
        size_t h = (size_t)topomap_name_hash(name) & mask, visited = 1;
        for (; hash[h] >= 0 && strcmp(topomap_hostlist_get(names, (size_t)hash[h]), name);
             visited++)
            h = (h + 1) & mask;
        if (probes)
            *probes += visited;
        if (hash[h] >= 0 && !keep) {
            *first = hash[h];
            *second = i;
            return 1;
        }
        if (keep)
            keep[i] = hash[h] < 0;
        if (hash[h] < 0)
            hash[h] = i;
    }
    return 0;
}

static int *new_hash(int n, size_t *mask)
{
    size_t size = 16;
    while (size < 2 * (size_t)n)
        size *= 2;
    int *hash = malloc(size * sizeof *hash);
    if (hash)
        memset(hash, 0xff, size * sizeof *hash);
    *mask = size - 1;
    return hash;
}

static int build_hash(topomap_topology_t *t, char *err, size_t errlen)
{
    int a, b;
    if (!(t->hash = new_hash(t->nnodes, &t->hmask)))
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    if (fill_hash(t->names, t->nnodes, t->hash, t->hmask, &a, &b, NULL, NULL))
        return topomap_fail(err, errlen, EINVAL, "node name '%s' is given twice (nodes %d and %d)",
                            topomap_hostlist_get(t->names, (size_t)a), a, b);
    return 0;
}

int topo_names_repeat(const topomap_hostlist_t *names, int *first, int *second)
{
    return topo_names_repeat_probes(names, first, second, NULL);
}

int topo_names_repeat_probes(const topomap_hostlist_t *names, int *first, int *second,
                             size_t *probes)
{
    size_t mask;
    int n = (int)topomap_hostlist_count(names), *hash = new_hash(n, &mask);
    if (!hash) {
        errno = ENOMEM;
        return -1;
    }
    int r = fill_hash(names, n, hash, mask, first, second, NULL, probes);
    free(hash);
    return r;
}

int topo_fields_repeat(const void *items, size_t size, size_t offset, int n, int *first,
                       int *second)
{
    topomap_hostlist_t *names = topo_hostlist_new();
    int rc = names ? 0 : -1;
    for (int i = 0; !rc && i < n; i++) {
        const char *nm = *(const char *const *)((const char *)items + (size_t)i * size + offset);
        rc = topo_hostlist_push(names, nm, strlen(nm));
    }
    if (!rc)
        rc = topo_hostlist_seal(names);
    if (!rc)
        rc = topo_names_repeat(names, first, second);
    topomap_hostlist_free(names);
    if (rc < 0)
        errno = ENOMEM;
    return rc;
}

topomap_hostlist_t *topo_names_unique(const topomap_hostlist_t *names)
{
    size_t mask;
    int n = (int)topomap_hostlist_count(names), *hash = new_hash(n, &mask), a, b;
    char *keep = malloc(n ? (size_t)n : 1);
    topomap_hostlist_t *out = topo_hostlist_new();
    int rc = hash && keep && out ? 0 : -1;
    if (!rc)
        fill_hash(names, n, hash, mask, &a, &b, keep, NULL);
    for (int i = 0; !rc && i < n; i++) {
        const char *nm = topomap_hostlist_get(names, (size_t)i);
        if (keep[i])
            rc = topo_hostlist_push(out, nm, strlen(nm));
    }
    if (!rc)
        rc = topo_hostlist_seal(out);
    free(hash);
    free(keep);
    if (rc) {
        topomap_hostlist_free(out);
        errno = ENOMEM;
        return NULL;
    }
    return out;
}

static topomap_hostlist_t *default_names(int n)
{
    topomap_hostlist_t *hl = topo_hostlist_new();
    int width = 1;
    for (int m = n - 1; m >= 10; m /= 10)
        width++;
    if (!hl)
        return NULL;
    for (int i = 0; i < n; i++) {
        char name[32];
        int len = snprintf(name, sizeof name, "node%0*d", width, i);
        if (topo_hostlist_push(hl, name, (size_t)len) < 0) {
            topomap_hostlist_free(hl);
            return NULL;
        }
    }
    if (topo_hostlist_seal(hl) < 0) {
        topomap_hostlist_free(hl);
        return NULL;
    }
    return hl;
}

topomap_topology_t *topo_new(const struct topo_ops *ops, const char *kind, int nnodes,
                             topomap_hostlist_t *names, char *err, size_t errlen)
{
    topomap_topology_t *t = calloc(1, sizeof *t);
    if (!t) {
        topomap_hostlist_free(names);
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        return NULL;
    }
    t->ops = ops;
    t->kind = kind;
    t->nnodes = nnodes;
    t->hop_cost = 1.0;
    /* Room for type 0, filled by topo_finish(). */
    if (!(t->types = calloc(1, sizeof *t->types))) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    t->ntypes = 1;
    if (names) {
        size_t n = topomap_hostlist_count(names);
        t->names = names;
        if (n != (size_t)nnodes) {
            topomap_fail(err, errlen, EINVAL, "the hostlist names %zu nodes but the %s has %d",
                         n, kind, nnodes);
            goto fail;
        }
    } else if (!(t->names = default_names(nnodes))) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    if (build_hash(t, err, errlen) < 0)
        goto fail;
    return t;
fail:
    /* The kind's data is not filled yet: free only the generic part. */
    t->ops = NULL;
    topomap_topology_free(t);
    return NULL;
}

topomap_topology_t *topo_finish(topomap_topology_t *t, int cores, char *err, size_t errlen)
{
    if (cores < 1 || cores > TOPO_MAX_CORES) {
        topomap_fail(err, errlen, EINVAL, "cores per node must be in 1..%d, not %d",
                     TOPO_MAX_CORES, cores);
        topomap_topology_free(t);
        return NULL;
    }
    const char *core = "core";
    if (topo_set_levels(t, 1, &cores, NULL, &core, err, errlen) < 0) {
        topomap_topology_free(t);
        return NULL;
    }
    t->diameter = t->ops->diameter(t);
    t->ops->channels(t, &t->nswitches, &t->route_max);
    return t;
}

/* ---- costs --------------------------------------------------------------- */

/* The inside of a node (levels, node types) is in topo_nodetypes.c. */

int topomap_topology_set_hop_cost(topomap_topology_t *t, double hop_cost)
{
    if (!t || !isfinite(hop_cost) || hop_cost < 0 || hop_cost > TOPOMAP_MAX_COST) {
        errno = EINVAL;
        return -1;
    }
    t->hop_cost = hop_cost;
    return 0;
}

double topomap_topology_hop_cost(const topomap_topology_t *t)
{
    return t->hop_cost;
}

int topomap_topology_set_link_bandwidth(topomap_topology_t *t, double bytes_per_s)
{
    if (!t || !isfinite(bytes_per_s) || bytes_per_s < 0 ||
        (bytes_per_s > 0 && bytes_per_s < TOPOMAP_MIN_BANDWIDTH)) {
        errno = EINVAL;
        return -1;
    }
    t->link_bandwidth = bytes_per_s;
    return 0;
}

int topomap_topology_group_levels(const topomap_topology_t *t)
{
    return t->ops->group_levels ? t->ops->group_levels(t) : 0;
}

topomap_shape_t topomap_topology_shape(const topomap_topology_t *t)
{
    return t->ops->shape;
}

int topomap_topology_shortest_hops(const topomap_topology_t *t)
{
    return t->ops->shortest_hops;
}

int topomap_topology_link_classes(const topomap_topology_t *t)
{
    return t->ops->channel_class ? TOPOMAP_LINK_CLASSES : 1;
}

double topomap_topology_link_bandwidth(const topomap_topology_t *t)
{
    return t->link_bandwidth;
}

/* ---- queries ------------------------------------------------------------ */

void topomap_topology_free(topomap_topology_t *t)
{
    if (!t)
        return;
    if (t->ops && t->ops->destroy)
        t->ops->destroy(t);
    topomap_hostlist_free(t->names);
    free(t->hash);
    topo_types_free(t);
    topo_fabric_free(t->fabric);
    free(t->name);
    free(t->source);
    free(t);
}

const char *topomap_topology_kind(const topomap_topology_t *t)
{
    return t->kind;
}

int topomap_topology_nnodes(const topomap_topology_t *t)
{
    return t->nnodes;
}

const char *topomap_topology_node_name(const topomap_topology_t *t, int node)
{
    if (node < 0 || node >= t->nnodes)
        return NULL;
    return topomap_hostlist_get(t->names, (size_t)node);
}

const char *topomap_topology_names_hint(const topomap_topology_t *t, char *buf, size_t len)
{
    /* Error paths only: the whole list is compressed, then cut. */
    const char **names = malloc((size_t)(t->nnodes > 0 ? t->nnodes : 1) * sizeof *names);
    char *hl = NULL;
    for (int i = 0; names && i < t->nnodes; i++)
        names[i] = topomap_hostlist_get(t->names, (size_t)i);
    if (names)
        hl = topomap_hostlist_compress(names, (size_t)t->nnodes);
    if (!hl)
        snprintf(buf, len, "%d nodes", t->nnodes);
    else if (strlen(hl) + 1 > len && len > 4)
        snprintf(buf, len, "%.*s...", (int)len - 4, hl);
    else
        snprintf(buf, len, "%s", hl);
    free(hl);
    free(names);
    return buf;
}

int topomap_topology_node_lookup(const topomap_topology_t *t, const char *hostname)
{
    if (hostname) {
        size_t h = (size_t)topomap_name_hash(hostname) & t->hmask;
        for (; t->hash[h] >= 0; h = (h + 1) & t->hmask)
            if (!strcmp(topomap_hostlist_get(t->names, (size_t)t->hash[h]), hostname))
                return t->hash[h];
    }
    errno = ENOENT;
    return -1;
}

int topomap_topology_cores(const topomap_topology_t *t)
{
    return t->cores;
}

int topomap_topology_hops(const topomap_topology_t *t, int a, int b)
{
    if ((unsigned)a >= (unsigned)t->nnodes || (unsigned)b >= (unsigned)t->nnodes) {
        errno = EINVAL;
        return -1;
    }
    if (a == b)
        return 0;
    return t->ops->hops(t, a, b);
}

double topomap_topology_cost(const topomap_topology_t *t, int na, int ca, int nb, int cb)
{
    if ((unsigned)na >= (unsigned)t->nnodes || (unsigned)nb >= (unsigned)t->nnodes ||
        (unsigned)ca >= (unsigned)topo_type_of(t, na)->cores ||
        (unsigned)cb >= (unsigned)topo_type_of(t, nb)->cores) {
        errno = EINVAL;
        return -1.0;
    }
    if (na != nb)
        return t->ops->hops(t, na, nb) * t->hop_cost;
    /* The first level whose objects differ: the cores share level k-1. */
    const struct topo_ntype *ty = topo_type_of(t, na);
    if (ty->gpus && ty->gpus->cost && ca != cb)
        return topo_gpu_cost(ty->gpus, ca, cb);
    for (int k = 0; k < ty->nlevels; k++)
        if (ca / ty->inner[k] != cb / ty->inner[k])
            return ty->cost[k];
    return ty->cost[ty->nlevels];
}

int topomap_topology_diameter(const topomap_topology_t *t)
{
    return t->diameter;
}

int topomap_topology_nelements(const topomap_topology_t *t)
{
    return t->nnodes + t->nswitches;
}

int topomap_topology_leaf_switches(const topomap_topology_t *t)
{
    return t->nswitches > 0 && !t->ops->node_routers;
}

int topomap_topology_route_max(const topomap_topology_t *t)
{
    return t->route_max;
}

int topomap_topology_route(const topomap_topology_t *t, int a, int b, int *elems, int max)
{
    if ((unsigned)a >= (unsigned)t->nnodes || (unsigned)b >= (unsigned)t->nnodes || max < 1 ||
        !elems) {
        errno = EINVAL;
        return -1;
    }
    elems[0] = a;
    if (a == b)
        return 0;
    int64_t small[64], *chan = small;
    if (t->route_max > 64 && !(chan = malloc(sizeof *chan * (size_t)t->route_max))) {
        errno = ENOMEM;
        return -1;
    }
    int h = t->ops->route(t, a, b, chan), rc = h;
    if (h + 1 > max) {
        errno = ERANGE;
        rc = -1;
    } else {
        for (int i = 0; i < h; i++) {
            int from;
            t->ops->channel_ends(t, chan[i], &from, &elems[i + 1]);
        }
    }
    if (chan != small)
        free(chan);
    return rc;
}

int topomap_topology_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    if (node < 0 || node >= t->nnodes || maxdims < 0 || (!coords && maxdims > 0)) {
        errno = EINVAL;
        return -1;
    }
    return t->ops->coords(t, node, coords, maxdims);
}

int topomap_topology_describe(const topomap_topology_t *t, FILE *f)
{
    int n = t->nnodes;
    /* Names come from files (and file names): printed safe for a terminal.
     * Host names are free of control characters already (hostlist.c). */
    char safe[1100];
    if (t->name)
        fprintf(f, "name: %s\n", topomap_printable(t->name, safe, sizeof safe));
    if (t->source)
        fprintf(f, "source: %s\n", topomap_printable(t->source, safe, sizeof safe));
    fprintf(f, "kind: %s\n", t->kind);
    if (t->ops->describe(t, f) < 0)
        return -1;
    fprintf(f, "nodes: %d (%s .. %s)\n", n, topomap_topology_node_name(t, 0),
            topomap_topology_node_name(t, n - 1));
    topo_types_describe(t, f);
    topo_fabric_describe(t, f);
    fprintf(f, "diameter: %d hops\n", t->diameter);
    fprintf(f, "hop_cost: %g\n", t->hop_cost);
    if (t->link_bandwidth > 0)
        fprintf(f, "link_bandwidth: %g bytes/s per channel\n", t->link_bandwidth);
    if (ferror(f)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

/* ---- messages of the loaders ------------------------------------------- */

const char *topo_where(char *buf, size_t len, const char *path, int line, int col)
{
    if (col > 0)
        snprintf(buf, len, "%s:%d:%d", path, line, col);
    else
        snprintf(buf, len, "%s:%d", path, line);
    return buf;
}
