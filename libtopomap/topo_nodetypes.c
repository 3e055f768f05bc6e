/* SPDX-License-Identifier: BSD-3-Clause */
/* Node types: the inside of the nodes of a topology (levels with arity and
 * SumCom costs). A topology has 1 .. K types; type 0 is the one every
 * topology starts with (the YAML "node:" section, hwloc, or
 * topomap_topology_set_node_levels()), and node_types entries or
 * topomap_topology_set_node_levels_for() move named nodes to new types.
 * Node v's type is node_type[v], an int array, so that the cost of two cores
 * stays O(levels) with one more load; with one type the array is not even
 * allocated (every node of type 0) and nothing differs from before. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

double topo_default_cost(const topomap_topology_t *t, int k)
{
    /* Each level of sharing halves the cost, starting below one hop: cores
     * that share only the node cost hop_cost / 2, a socket hop_cost / 4 ...
     * (a documented convention, see topologies/README.md). */
    return ldexp(t->hop_cost, -(k + 1));
}

int topo_type_levels(const topomap_topology_t *t, struct topo_ntype *ty, int nlevels,
                     const int *arity, const double *cost, const char *const *names, char *err,
                     size_t errlen)
{
    if (nlevels < 1 || nlevels > TOPO_MAX_LEVELS)
        return topomap_fail(err, errlen, EINVAL, "a node must have 1..%d levels, not %d",
                            TOPO_MAX_LEVELS, nlevels);
    long cores = 1;
    for (int k = 0; k < nlevels; k++) {
        if (arity[k] < 1)
            return topomap_fail(err, errlen, EINVAL, "node level %d: arity must be >= 1, not %d",
                                k, arity[k]);
        cores *= arity[k];
        if (cores > TOPO_MAX_CORES)
            return topomap_fail(err, errlen, EINVAL, "a node may have at most %d cores",
                                TOPO_MAX_CORES);
    }
    if (cost)
        for (int k = 0; k <= nlevels; k++)
            if (!isfinite(cost[k]) || cost[k] < 0 || cost[k] > TOPOMAP_MAX_COST)
                return topomap_fail(err, errlen, EINVAL,
                                    "node cost %d must be a number from 0 to %g, not %g", k,
                                    TOPOMAP_MAX_COST, cost[k]);
    /* names may point into ty->level_name: copy them before writing it. */
    char namebuf[TOPO_MAX_LEVELS][TOPO_NAME_LEN];
    static const char *const generic[][3] = {
        {"core"}, {"socket", "core"}, {"socket", "numa", "core"}};
    for (int k = 0; k < nlevels; k++) {
        const char *nm = names ? names[k] : nlevels <= 3 ? generic[nlevels - 1][k] : NULL;
        if (nm)
            snprintf(namebuf[k], sizeof namebuf[k], "%s", nm);
        else
            snprintf(namebuf[k], sizeof namebuf[k], "level%d", k);
    }
    ty->nlevels = nlevels;
    ty->cores = (int)cores;
    int inner = 1;
    for (int k = nlevels - 1; k >= 0; k--) {
        ty->arity[k] = arity[k];
        ty->inner[k] = inner;
        inner *= arity[k];
    }
    for (int k = 0; k <= nlevels; k++)
        ty->cost[k] = cost ? cost[k] : k == nlevels ? 0.0 : topo_default_cost(t, k);
    memcpy(ty->level_name, namebuf, sizeof namebuf[0] * (size_t)nlevels);
    return 0;
}

void topo_type_clear(struct topo_ntype *ty)
{
    free(ty->node_source);
    ty->node_source = NULL;
    topo_gpus_free(ty->gpus);
    ty->gpus = NULL;
}

void topo_types_free(topomap_topology_t *t)
{
    for (int i = 0; t->types && i < t->ntypes; i++)
        topo_type_clear(&t->types[i]);
    free(t->types);
    free(t->node_type);
    t->types = NULL;
    t->node_type = NULL;
    t->ntypes = 0;
}

void topo_types_reset(topomap_topology_t *t, struct topo_ntype *ty)
{
    /* topo_new() allocated room for type 0: this cannot fail. */
    for (int i = 0; i < t->ntypes; i++)
        topo_type_clear(&t->types[i]);
    t->types[0] = *ty;
    t->ntypes = 1;
    free(t->node_type);
    t->node_type = NULL;
    t->cores = ty->cores;
}

int topo_set_levels(topomap_topology_t *t, int nlevels, const int *arity, const double *cost,
                    const char *const *names, char *err, size_t errlen)
{
    struct topo_ntype ty = {0};
    if (topo_type_levels(t, &ty, nlevels, arity, cost, names, err, errlen) < 0)
        return -1;
    topo_types_reset(t, &ty);
    return 0;
}

int topo_types_add(topomap_topology_t *t, struct topo_ntype *ty, const char *hostlist,
                   char *err, size_t errlen)
{
    char herr[TOPOMAP_ERRLEN];
    int *nodes = NULL, rc = -1;
    topomap_hostlist_t *hl = topomap_hostlist_parse(hostlist, herr, sizeof herr);
    if (!hl) {
        topomap_fail(err, errlen, errno, "hostlist: %s", herr);
        goto out;
    }
    size_t n = topomap_hostlist_count(hl);
    if (n == 0) {
        topomap_fail(err, errlen, EINVAL, "hostlist '%s' names no node", hostlist);
        goto out;
    }
    if (t->ntypes >= TOPOMAP_MAX_NODE_TYPES) {
        topomap_fail(err, errlen, EINVAL, "a topology may have at most %d node types",
                     TOPOMAP_MAX_NODE_TYPES);
        goto out;
    }
    struct topo_ntype *types = realloc(t->types, sizeof *types * (size_t)(t->ntypes + 1));
    if (types)
        t->types = types;
    nodes = malloc(sizeof(int) * n);
    if (!types || !nodes || (!t->node_type && !(t->node_type = calloc((size_t)t->nnodes,
                                                                      sizeof(int))))) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* Check every name before changing anything: a failure leaves t as it was. */
    int k = t->ntypes;
    size_t claimed = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = topomap_hostlist_get(hl, i);
        int v = topomap_topology_node_lookup(t, name);
        if (v < 0) {
            char known[160];
            topomap_fail(err, errlen, EINVAL, "node '%s' is not in the topology (its nodes: %s)",
                         name, topomap_topology_names_hint(t, known, sizeof known));
            goto undo;
        }
        if (t->node_type[v] == k) {
            topomap_fail(err, errlen, EINVAL, "node '%s' is named twice", name);
            goto undo;
        }
        if (t->node_type[v] != 0) {
            topomap_fail(err, errlen, EINVAL, "node '%s' already has node type %d", name,
                         t->node_type[v]);
            goto undo;
        }
        t->node_type[v] = k;
        nodes[claimed++] = v;
    }
    t->types[k] = *ty;
    memset(ty, 0, sizeof *ty); /* taken over */
    t->ntypes++;
    if (t->types[k].cores > t->cores)
        t->cores = t->types[k].cores;
    rc = k;
    goto out;
undo:
    for (size_t i = 0; i < claimed; i++)
        t->node_type[nodes[i]] = 0;
out:
    if (t->node_type && t->ntypes == 1) {
        free(t->node_type); /* one type: no array */
        t->node_type = NULL;
    }
    if (rc < 0)
        topo_type_clear(ty);
    free(nodes);
    topomap_hostlist_free(hl);
    return rc;
}

/* ---- the public calls --------------------------------------------------- */

int topomap_topology_set_node_levels(topomap_topology_t *t, int nlevels, const int *arity,
                                     const double *cost, char *err, size_t errlen)
{
    if (!t || !arity || !cost)
        return topomap_fail(err, errlen, EINVAL, "topomap_topology_set_node_levels: NULL argument");
    return topo_set_levels(t, nlevels, arity, cost, NULL, err, errlen);
}

int topomap_topology_set_node_levels_for(topomap_topology_t *t, const char *hostlist,
                                         int nlevels, const int *arity, const double *cost,
                                         char *err, size_t errlen)
{
    if (!t || !hostlist || !arity || !cost)
        return topomap_fail(err, errlen, EINVAL,
                            "topomap_topology_set_node_levels_for: NULL argument");
    struct topo_ntype ty = {0};
    if (topo_type_levels(t, &ty, nlevels, arity, cost, NULL, err, errlen) < 0)
        return -1;
    return topo_types_add(t, &ty, hostlist, err, errlen);
}

int topomap_topology_ntypes(const topomap_topology_t *t)
{
    return t->ntypes;
}

int topomap_topology_node_type(const topomap_topology_t *t, int node)
{
    if ((unsigned)node >= (unsigned)t->nnodes) {
        errno = EINVAL;
        return -1;
    }
    return t->node_type ? t->node_type[node] : 0;
}

int topomap_topology_node_cores(const topomap_topology_t *t, int node)
{
    if ((unsigned)node >= (unsigned)t->nnodes) {
        errno = EINVAL;
        return -1;
    }
    return topo_type_of(t, node)->cores;
}

int topomap_topology_type_cores(const topomap_topology_t *t, int type)
{
    if ((unsigned)type >= (unsigned)t->ntypes) {
        errno = EINVAL;
        return -1;
    }
    return t->types[type].cores;
}

char *topomap_topology_type_hostlist(const topomap_topology_t *t, int type)
{
    if (!t || (unsigned)type >= (unsigned)t->ntypes) {
        errno = EINVAL;
        return NULL;
    }
    const char **names = malloc(sizeof(char *) * (size_t)t->nnodes);
    if (!names) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = 0;
    for (int v = 0; v < t->nnodes; v++)
        if ((t->node_type ? t->node_type[v] : 0) == type)
            names[n++] = topomap_hostlist_get(t->names, (size_t)v);
    char *hl = topomap_hostlist_compress(names, n);
    free(names);
    return hl;
}

/* ---- describe ----------------------------------------------------------- */

static void describe_type(const struct topo_ntype *ty, const char *indent, FILE *f)
{
    char safe[1100];
    /* On GPU nodes the slots are the GPUs, not cores. */
    if (ty->gpus)
        fprintf(f, "%sslots per node: %d GPUs (", indent, ty->cores);
    else
        fprintf(f, "%scores per node: %d (", indent, ty->cores);
    for (int k = 0; k < ty->nlevels; k++)
        fprintf(f, "%s%s %d", k ? " x " : "",
                topomap_printable(ty->level_name[k], safe, sizeof safe), ty->arity[k]);
    fprintf(f, ")%s%s\n", ty->node_source ? " from " : "",
            ty->node_source ? topomap_printable(ty->node_source, safe, sizeof safe) : "");
    fprintf(f, "%snode costs:", indent);
    for (int k = 0; k < ty->nlevels; k++)
        fprintf(f, " %s %g,", topomap_printable(ty->level_name[k], safe, sizeof safe),
                ty->cost[k]);
    fprintf(f, " same core %g\n", ty->cost[ty->nlevels]);
    if (ty->gpus)
        topo_gpus_describe(ty->gpus, indent, f);
}

void topo_types_describe(const topomap_topology_t *t, FILE *f)
{
    if (t->ntypes == 1) {
        describe_type(&t->types[0], "", f);
        return;
    }
    fprintf(f, "node types: %d\n", t->ntypes);
    for (int i = 0; i < t->ntypes; i++) {
        int count = 0;
        for (int v = 0; v < t->nnodes; v++)
            count += t->node_type[v] == i;
        char *hl = topomap_topology_type_hostlist(t, i);
        fprintf(f, "type %d: %d node%s (%s)\n", i, count, count == 1 ? "" : "s",
                hl ? hl : "?");
        free(hl);
        describe_type(&t->types[i], "  ", f);
    }
}
