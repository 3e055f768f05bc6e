/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder without MPI: the communication graph of a topology
 * constructor's arguments, the allocation the processes hold, and which
 * process plays which vertex. Unit-tested by tests/reorder_graph.t. */
#include "reorder.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, int e, const char *msg, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s%s%s", msg, arg ? " " : "", arg ? arg : "");
    errno = e;
    return -1;
}

void tr_graph_free(tr_graph_t *g)
{
    if (!g)
        return;
    free(g->src);
    free(g->dst);
    free(g->w);
    memset(g, 0, sizeof *g);
}

static int alloc_edges(tr_graph_t *g, int n, size_t cap)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    size_t c = cap ? cap : 1;
    g->src = malloc(c * sizeof *g->src);
    g->dst = malloc(c * sizeof *g->dst);
    g->w = malloc(c * sizeof *g->w);
    if (!g->src || !g->dst || !g->w) {
        tr_graph_free(g);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

struct edge {
    int s, d;
    double w;
};

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);
}

/* Sort the g->nedges edges by (src, dst) and sum the weights of duplicates. */
static int finish(tr_graph_t *g)
{
    size_t m = g->nedges;
    struct edge *e = malloc((m ? m : 1) * sizeof *e);
    if (!e) {
        tr_graph_free(g);
        errno = ENOMEM;
        return -1;
    }
    for (size_t k = 0; k < m; k++)
        e[k] = (struct edge){g->src[k], g->dst[k], g->w[k]};
    qsort(e, m, sizeof *e, edge_cmp);
    size_t out = 0;
    for (size_t k = 0; k < m; k++) {
        if (out && e[k].s == g->src[out - 1] && e[k].d == g->dst[out - 1]) {
            g->w[out - 1] += e[k].w;
            continue;
        }
        g->src[out] = e[k].s;
        g->dst[out] = e[k].d;
        g->w[out++] = e[k].w;
    }
    g->nedges = out;
    free(e);
    return 0;
}

int tr_graph_cart(int ndims, const int *dims, const int *periods, int maxn, tr_graph_t *g)
{
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
        return fail(NULL, 0, EINVAL, "", NULL);
    long n = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 1)
            return fail(NULL, 0, EINVAL, "", NULL);
        n *= dims[d];
        if (n > maxn)
            return fail(NULL, 0, EINVAL, "", NULL);
    }
    if (alloc_edges(g, (int)n, (size_t)n * 2 * (size_t)ndims) < 0)
        return -1;
    for (long v = 0; v < n; v++) {
        long stride = 1, rest = v;
        for (int d = ndims - 1; d >= 0; d--) {
            int c = (int)(rest % dims[d]);
            rest /= dims[d];
            for (int dir = -1; dir <= 1; dir += 2) {
                int c2 = c + dir;
                if (c2 < 0 || c2 >= dims[d]) {
                    if (!periods[d])
                        continue;
                    c2 = (c2 + dims[d]) % dims[d];
                }
                g->src[g->nedges] = (int)v;
                g->dst[g->nedges] = (int)(v + (long)(c2 - c) * stride);
                g->w[g->nedges++] = 1;
            }
            stride *= dims[d];
        }
    }
    return finish(g);
}

int tr_graph_lists(int n, const int *off, const int *dst, const int *w, const int *unweighted,
                   tr_graph_t *g)
{
    if (n < 0 || !off)
        return fail(NULL, 0, EINVAL, "", NULL);
    for (int v = 0; v < n; v++)
        if (off[v + 1] < off[v])
            return fail(NULL, 0, EINVAL, "", NULL);
    size_t m = (size_t)off[n] - (size_t)off[0];
    if (alloc_edges(g, n, m) < 0)
        return -1;
    for (int v = 0; v < n; v++) {
        for (int k = off[v]; k < off[v + 1]; k++) {
            int weighted = w && !(unweighted && unweighted[v]);
            if (dst[k] < 0 || dst[k] >= n || (weighted && w[k] < 0)) {
                tr_graph_free(g);
                return fail(NULL, 0, EINVAL, "", NULL);
            }
            g->src[g->nedges] = v;
            g->dst[g->nedges] = dst[k];
            g->w[g->nedges++] = weighted ? w[k] : 1;
        }
    }
    return finish(g);
}

int tr_graph_edges(int n, size_t m, const int *src, const int *dst, const int *w, tr_graph_t *g)
{
    if (n < 0 || (m && (!src || !dst)))
        return fail(NULL, 0, EINVAL, "", NULL);
    if (alloc_edges(g, n, m) < 0)
        return -1;
    for (size_t k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= n || dst[k] < 0 || dst[k] >= n || (w && w[k] < 0)) {
            tr_graph_free(g);
            return fail(NULL, 0, EINVAL, "", NULL);
        }
        g->src[k] = src[k];
        g->dst[k] = dst[k];
        g->w[k] = w ? w[k] : 1;
    }
    g->nedges = m;
    return finish(g);
}

/* ---- where the processes run -------------------------------------------- */

struct proc {
    const char *host;
    int cpu, rank, group;
};

static int proc_cmp(const void *a, const void *b)
{
    const struct proc *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (c)
        return c;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

struct hostgrp {
    int first, start, count; /* lowest old rank, index in the sorted procs, size */
};

static int grp_cmp(const void *a, const void *b)
{
    const struct hostgrp *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The allocation of the hosts (in order of first appearance) with their
 * process counts, and slot[i] = the slot of process i. */
static topomap_alloc_t *held_slots(int n, const char *const *host, const int *cpu,
                                   const topomap_topology_t *t, int *slot, char *err,
                                   size_t errlen)
{
    struct proc *p = malloc((size_t)n * sizeof *p);
    struct hostgrp *g = malloc((size_t)n * sizeof *g);
    size_t hlen = 1, ng = 0;
    char *hl = NULL, *sl = NULL;
    topomap_alloc_t *a = NULL;
    if (!p || !g)
        goto nomem;
    for (int i = 0; i < n; i++)
        p[i] = (struct proc){host[i], cpu ? cpu[i] : -1, i, 0};
    qsort(p, (size_t)n, sizeof *p, proc_cmp);
    for (int i = 0; i < n; i++) {
        if (i == 0 || strcmp(p[i].host, p[i - 1].host)) {
            if (topomap_topology_node_lookup(t, p[i].host) < 0) {
                fail(err, errlen, EINVAL, "host not in the topology:", p[i].host);
                goto out;
            }
            g[ng++] = (struct hostgrp){p[i].rank, i, 0};
            hlen += strlen(p[i].host) + 1;
        }
        g[ng - 1].count++;
        if (p[i].rank < g[ng - 1].first)
            g[ng - 1].first = p[i].rank;
    }
    qsort(g, ng, sizeof *g, grp_cmp);
    hl = malloc(hlen);
    sl = malloc(ng * 12 + 1);
    if (!hl || !sl)
        goto nomem;
    size_t ho = 0, so = 0;
    int s = 0;
    for (size_t k = 0; k < ng; k++) {
        ho += (size_t)sprintf(hl + ho, "%s%s", k ? "," : "", p[g[k].start].host);
        so += (size_t)sprintf(sl + so, "%s%d", k ? "," : "", g[k].count);
        for (int j = 0; j < g[k].count; j++)
            slot[p[g[k].start + j].rank] = s++;
    }
    a = topomap_alloc_create(t, hl, sl, err, errlen);
    goto out;
nomem:
    fail(err, errlen, ENOMEM, "out of memory", NULL);
out:
    free(p);
    free(g);
    free(hl);
    free(sl);
    return a;
}

/* ---- the decision ------------------------------------------------------- */

static int mapped(const tr_graph_t *g, int n, const topomap_alloc_t *a, const int *slot,
                  double time_limit, int *newrank, double hb[2], char *err, size_t errlen)
{
    int rc = -1;
    int *v2s = malloc((size_t)n * sizeof *v2s), *s2p = malloc((size_t)n * sizeof *s2p);
    topomap_profile_t *p =
        topomap_profile_create(g->n, g->nedges, g->src, g->dst, g->w, NULL, err, errlen);
    if (!v2s || !s2p || !p) {
        if (!p)
            goto out;
        fail(err, errlen, ENOMEM, "out of memory", NULL);
        goto out;
    }
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.seed = 1;
    o.time_limit = time_limit;
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    if (topomap_eval_slots(p, a, slot, &m) < 0) /* vertex r where old rank r is */
        goto out;
    hb[0] = hb[1] = m.hop_bytes;
    if (topomap_map("auto", p, a, &o, v2s, err, errlen) < 0 ||
        topomap_eval_slots(p, a, v2s, &m) < 0)
        goto out;
    for (int i = 0; i < n; i++)
        s2p[slot[i]] = i;
    if (!(m.hop_bytes < hb[0])) {
        for (int i = 0; i < n; i++)
            newrank[i] = i;
        rc = 0;
        if (err && errlen)
            snprintf(err, errlen, "no gain: hop-bytes %.6g, auto's mapping %.6g", hb[0],
                     m.hop_bytes);
        goto out;
    }
    hb[1] = m.hop_bytes;
    for (int i = 0; i < n; i++)
        newrank[i] = -1;
    for (int v = 0; v < g->n; v++)
        newrank[s2p[v2s[v]]] = v;
    for (int i = 0, next = g->n; i < n; i++)
        if (newrank[i] < 0)
            newrank[i] = next++;
    rc = 1;
out:
    topomap_profile_free(p);
    free(v2s);
    free(s2p);
    return rc;
}

int tr_decide(const tr_graph_t *g, int n, const char *const *host, const int *cpu,
              const topomap_topology_t *t, double time_limit, int *newrank, double hb[2],
              char *err, size_t errlen)
{
    if (!g || !host || !t || !newrank || n < 1 || g->n > n)
        return fail(err, errlen, EINVAL, "invalid arguments", NULL);
    int *slot = malloc((size_t)n * sizeof *slot);
    if (!slot)
        return fail(err, errlen, ENOMEM, "out of memory", NULL);
    topomap_alloc_t *a = held_slots(n, host, cpu, t, slot, err, errlen);
    int rc = a ? mapped(g, n, a, slot, time_limit, newrank, hb, err, errlen) : -1;
    topomap_alloc_free(a);
    free(slot);
    return rc;
}

topomap_topology_t *tr_topology_find(const char *name, const char *shipped, char *err,
                                     size_t errlen)
{
    char path[4096] = "";
    if (strchr(name, '/') || access(name, F_OK) == 0) {
        snprintf(path, sizeof path, "%s", name);
    } else {
        const char *env = getenv("TOPOMAP_TOPOLOGY_PATH");
        char dirs[4096];
        snprintf(dirs, sizeof dirs, "%s%s%s", env ? env : "", env && *env ? ":" : "",
                 shipped ? shipped : "");
        for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !*path;
             d = strtok_r(NULL, ":", &save))
            for (int ext = 0; ext < 2 && !*path; ext++) {
                snprintf(path, sizeof path, "%s/%s%s", d, name, ext ? ".yaml" : "");
                if (access(path, R_OK) != 0)
                    *path = 0;
            }
        if (!*path) {
            fail(err, errlen, ENOENT, "no such topology file nor shipped name:", name);
            return NULL;
        }
    }
    char e2[512] = "";
    topomap_topology_t *t = topomap_topology_load(path, e2, sizeof e2);
    if (!t && err && errlen)
        snprintf(err, errlen, "%s: %s", path, *e2 ? e2 : strerror(errno));
    return t;
}
