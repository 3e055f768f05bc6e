/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocations: the nodes of a job in allocation order and the slots on each. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct topomap_alloc {
    const topomap_topology_t *topo;
    int nnodes;
    int *nodes;      /* nnodes topology indices, allocation order */
    int nslots;
    int *slot_node;  /* nslots */
    int *slot_core;  /* nslots */
};

/* Parse "K", or Slurm's "4(x3),2" into counts[0..n-1]; 0 or -1 with err. */
static int parse_slots(const char *spec, int n, int *counts, char *err, size_t errlen)
{
    int filled = 0;
    const char *p = spec;
    while (*p) {
        /* Digits only: no sign, no blanks (strict, as every count topomap reads). */
        long v, rep = 1;
        int k = topomap_scan_count(p, TOPOMAP_MAX_SLOTS, &v);
        if (k < 0 || v == 0)
            return topomap_fail(err, errlen, EINVAL,
                                "slots '%s': expected a positive count at '%s'", spec, p);
        p += k;
        if (*p == '(') {
            if (p[1] != 'x')
                return topomap_fail(err, errlen, EINVAL, "slots '%s': expected '(xN)'", spec);
            k = topomap_scan_count(p + 2, TOPOMAP_MAX_NODES, &rep);
            if (k < 0 || p[2 + k] != ')' || rep == 0)
                return topomap_fail(err, errlen, EINVAL, "slots '%s': bad repeat count", spec);
            p += 3 + k;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return topomap_fail(err, errlen, EINVAL, "slots '%s': unexpected '%c'", spec, *p);
        if (filled == 0 && rep == 1 && !*p && !strchr(spec, ',')) {
            /* A single plain count: the same on every node. */
            for (int i = 0; i < n; i++)
                counts[i] = (int)v;
            return 0;
        }
        for (long i = 0; i < rep; i++) {
            if (filled >= n)
                return topomap_fail(err, errlen, EINVAL,
                                    "slots '%s' gives more counts than the %d nodes", spec, n);
            counts[filled++] = (int)v;
        }
    }
    if (filled != n)
        return topomap_fail(err, errlen, EINVAL, "slots '%s' gives %d counts for %d nodes", spec,
                            filled, n);
    return 0;
}

topomap_alloc_t *topomap_alloc_create(const topomap_topology_t *t, const char *hostlist,
                                      const char *slots, char *err, size_t errlen)
{
    topomap_alloc_t *a = NULL;
    int *counts = NULL;
    char *seen = NULL;
    if (!t || !hostlist) {
        topomap_fail(err, errlen, EINVAL, "topomap_alloc_create: NULL argument");
        return NULL;
    }
    topomap_hostlist_t *hl = topomap_hostlist_parse(hostlist, err, errlen);
    if (!hl)
        return NULL;
    int n = (int)topomap_hostlist_count(hl);
    if (n == 0) {
        topomap_fail(err, errlen, EINVAL, "empty node list '%s'", hostlist);
        goto fail;
    }
    a = calloc(1, sizeof *a);
    counts = malloc(sizeof(int) * (size_t)n);
    seen = calloc((size_t)topomap_topology_nnodes(t), 1);
    if (!a || !counts || !seen || !(a->nodes = malloc(sizeof(int) * (size_t)n))) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    a->topo = t;
    a->nnodes = n;
    for (int i = 0; i < n; i++) {
        const char *name = topomap_hostlist_get(hl, i);
        int node = topomap_topology_node_lookup(t, name);
        if (node < 0) {
            char known[160];
            topomap_fail(err, errlen, EINVAL, "node '%s' is not in the topology (its nodes: %s)",
                         name, topomap_topology_names_hint(t, known, sizeof known));
            goto fail;
        }
        if (seen[node]) {
            topomap_fail(err, errlen, EINVAL, "node '%s' is listed twice", name);
            goto fail;
        }
        seen[node] = 1;
        a->nodes[i] = node;
        counts[i] = topomap_topology_node_cores(t, node); /* its type's */
    }
    if (slots && *slots && parse_slots(slots, n, counts, err, errlen) < 0)
        goto fail;
    long total = 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    if (total > TOPOMAP_MAX_SLOTS) {
        topomap_fail(err, errlen, EINVAL, "%ld slots is over the limit of %d", total,
                     TOPOMAP_MAX_SLOTS);
        goto fail;
    }
    a->nslots = (int)total;
    a->slot_node = malloc(sizeof(int) * (size_t)total);
    a->slot_core = malloc(sizeof(int) * (size_t)total);
    if (!a->slot_node || !a->slot_core) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    int s = 0;
    for (int i = 0; i < n; i++) {
        int cores = topomap_topology_node_cores(t, a->nodes[i]);
        for (int k = 0; k < counts[i]; k++, s++) {
            a->slot_node[s] = a->nodes[i];
            a->slot_core[s] = k % cores;
        }
    }
    free(counts);
    free(seen);
    topomap_hostlist_free(hl);
    return a;
fail:
    free(counts);
    free(seen);
    topomap_hostlist_free(hl);
    topomap_alloc_free(a);
    return NULL;
}

void topomap_alloc_free(topomap_alloc_t *a)
{
    if (!a)
        return;
    free(a->nodes);
    free(a->slot_node);
    free(a->slot_core);
    free(a);
}

const topomap_topology_t *topomap_alloc_topology(const topomap_alloc_t *a) { return a->topo; }
int topomap_alloc_nslots(const topomap_alloc_t *a) { return a->nslots; }
int topomap_alloc_nnodes(const topomap_alloc_t *a) { return a->nnodes; }
int topomap_alloc_node(const topomap_alloc_t *a, int i) { return a->nodes[i]; }
int topomap_alloc_slot_node(const topomap_alloc_t *a, int s) { return a->slot_node[s]; }
int topomap_alloc_slot_core(const topomap_alloc_t *a, int s) { return a->slot_core[s]; }
