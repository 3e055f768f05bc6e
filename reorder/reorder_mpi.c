/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder: PMPI wrappers of MPI's topology constructors. With
 * reorder = 1 the ranks are renumbered so that rank r of the new
 * communicator, which plays vertex r of the declared graph, sits where
 * libtopomap's `auto` mapping puts vertex r (reorder_plan.c decides, on rank
 * 0, and broadcasts the answer); the real constructor is then called with
 * reorder = 0 on a communicator split in that order. Anything that fails
 * leaves MPI's own answer. Prints nothing unless TOPOMAP_REORDER_VERBOSE=1
 * (one line on rank 0 per call). See README.md. */
#define _GNU_SOURCE
#include "reorder.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TR_EXPORT __attribute__((visibility("default")))
#ifndef TR_TOPOLOGIESDIR
#define TR_TOPOLOGIESDIR NULL
#endif

/* One call: who we are and what rank 0 will say. */
struct tr_call {
    const char *fn;
    MPI_Comm comm;
    int me, n, verbose;
    double t0, tmap; /* start, seconds of rank 0's decision */
    int reordered;
    double hb[2];
    char why[512];
};

struct tr_where {
    char host[256];
    int cpu;
};

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Is reordering worth starting? 0: call MPI as it is (reorder = 0, an
 * intercommunicator, MPI not initialised: all ranks agree on each). */
static int begin(MPI_Comm comm, int reorder, const char *fn, struct tr_call *c)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->verbose = env_flag("TOPOMAP_REORDER_VERBOSE");
    int inter = 0, init = 0;
    PMPI_Initialized(&init);
    if (!init || comm == MPI_COMM_NULL)
        return 0; /* MPI reports the error; no line (c->fn unset) */
    c->fn = fn;
    PMPI_Comm_rank(comm, &c->me);
    PMPI_Comm_size(comm, &c->n);
    c->t0 = PMPI_Wtime();
    PMPI_Comm_test_inter(comm, &inter);
    if (!reorder || inter) {
        snprintf(c->why, sizeof c->why, "%s", inter ? "an intercommunicator" : "reorder = 0");
        return 0;
    }
    return 1;
}

/* rank 0, verbose: one line saying what was done. */
static void report(const struct tr_call *c)
{
    if (!c->verbose || c->me != 0 || !c->fn)
        return;
    if (c->reordered)
        fprintf(stderr,
                "topomap-reorder: %s: %d ranks reordered, hop-bytes %.6g -> %.6g (auto), "
                "set-up %.3f s (mapping %.3f s)\n",
                c->fn, c->n, c->hb[0], c->hb[1], PMPI_Wtime() - c->t0, c->tmap);
    else
        fprintf(stderr, "topomap-reorder: %s: MPI's numbering kept (%s)\n", c->fn,
                c->why[0] ? c->why : "unknown reason");
}

/* This process's host (TOPOMAP_REORDER_HOSTS[world rank], a test and
 * emulation hook; else SLURMD_NODENAME; else gethostname) and first CPU. */
static void where_am_i(struct tr_where *w)
{
    memset(w, 0, sizeof *w);
    const char *list = getenv("TOPOMAP_REORDER_HOSTS"), *node = getenv("SLURMD_NODENAME");
    if (list && *list) {
        int wr = 0;
        PMPI_Comm_rank(MPI_COMM_WORLD, &wr);
        const char *p = list;
        for (int i = 0; i < wr && p; i++)
            if ((p = strchr(p, ',')))
                p++;
        if (p) {
            size_t len = strcspn(p, ",");
            if (len >= sizeof w->host)
                len = sizeof w->host - 1;
            memcpy(w->host, p, len);
        }
    } else if (node && *node) {
        snprintf(w->host, sizeof w->host, "%s", node);
    } else if (gethostname(w->host, sizeof w->host - 1) != 0) {
        w->host[0] = 0;
    }
    w->cpu = -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int i = 0; i < CPU_SETSIZE && w->cpu < 0; i++)
            if (CPU_ISSET(i, &set))
                w->cpu = i;
}

/* rank 0: the decision for graph @p g (NULL: invalid arguments) over the
 * processes at @p w. Fills newrank[0..n-1]; returns 1 to reorder. */
static int decide0(struct tr_call *c, const tr_graph_t *g, const struct tr_where *w,
                   int *newrank)
{
    if (!g) {
        snprintf(c->why, sizeof c->why, "arguments MPI will reject");
        return 0;
    }
    const char *name = getenv("TOPOMAP_TOPOLOGY");
    if (!name || !*name) {
        snprintf(c->why, sizeof c->why, "TOPOMAP_TOPOLOGY is not set");
        return 0;
    }
    char err[400] = "";
    topomap_topology_t *t = tr_topology_find(name, TR_TOPOLOGIESDIR, err, sizeof err);
    if (!t) {
        snprintf(c->why, sizeof c->why, "topology: %s", err);
        return 0;
    }
    const char **host = malloc((size_t)c->n * sizeof *host);
    int *cpu = malloc((size_t)c->n * sizeof *cpu);
    int rc = -1;
    double lim = 1;
    const char *tl = getenv("TOPOMAP_REORDER_TIME_LIMIT");
    if (tl && *tl && (topomap_parse_double(tl, &lim) < 0 || lim < 0))
        snprintf(err, sizeof err, "TOPOMAP_REORDER_TIME_LIMIT=%s is not a number of seconds", tl);
    else if (host && cpu) {
        for (int i = 0; i < c->n; i++) {
            host[i] = w[i].host;
            cpu[i] = w[i].cpu;
        }
        rc = tr_decide(g, c->n, host, cpu, t, lim, newrank, c->hb, err, sizeof err);
    } else
        snprintf(err, sizeof err, "out of memory");
    if (rc <= 0)
        snprintf(c->why, sizeof c->why, "%s", err);
    free(host);
    free(cpu);
    topomap_topology_free(t);
    return rc == 1;
}

/* Collective over c->comm: the new rank of this process, or -1 to keep MPI's
 * answer. @p g is significant at rank 0 only. */
static int plan(struct tr_call *c, const tr_graph_t *g)
{
    struct tr_where me, *all = NULL;
    where_am_i(&me);
    int *buf = malloc(((size_t)c->n + 1) * sizeof *buf);
    if (c->me == 0)
        all = malloc((size_t)c->n * sizeof *all);
    int okmem = buf && (c->me != 0 || all), allok = 0;
    PMPI_Allreduce(&okmem, &allok, 1, MPI_INT, MPI_LAND, c->comm);
    if (!allok) {
        snprintf(c->why, sizeof c->why, "out of memory");
        free(buf);
        free(all);
        return -1;
    }
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, c->comm);
    if (c->me == 0) {
        double t = PMPI_Wtime();
        buf[0] = decide0(c, g, all, buf + 1);
        c->tmap = PMPI_Wtime() - t;
    }
    PMPI_Bcast(buf, c->n + 1, MPI_INT, 0, c->comm);
    int nr = buf[0] ? buf[1 + c->me] : -1;
    c->reordered = buf[0];
    free(buf);
    free(all);
    return nr;
}

/* The communicator in the new order (the caller frees it). */
static MPI_Comm renumbered(const struct tr_call *c, int newrank)
{
    MPI_Comm tmp = MPI_COMM_NULL;
    PMPI_Comm_split(c->comm, 0, newrank, &tmp);
    return tmp;
}

TR_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                              int reorder, MPI_Comm *comm_cart)
{
    struct tr_call c;
    if (!begin(comm, reorder, "MPI_Cart_create", &c)) {
        report(&c);
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
    }
    tr_graph_t g = {0};
    int gok = c.me != 0 || tr_graph_cart(ndims, dims, periods, c.n, &g) == 0;
    int nr = plan(&c, gok ? &g : NULL);
    tr_graph_free(&g);
    int rc;
    if (nr < 0) {
        rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart);
    } else {
        MPI_Comm tmp = renumbered(&c, nr);
        rc = PMPI_Cart_create(tmp, ndims, dims, periods, 0, comm_cart);
        PMPI_Comm_free(&tmp);
    }
    report(&c);
    return rc;
}

TR_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                               int reorder, MPI_Comm *comm_graph)
{
    struct tr_call c;
    if (!begin(comm, reorder, "MPI_Graph_create", &c)) {
        report(&c);
        return PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
    }
    /* index[] holds cumulative degrees: vertex v's neighbours are
     * edges[index[v-1] .. index[v]-1]. */
    tr_graph_t g = {0};
    int gok = 1;
    if (c.me == 0) {
        int *off = nnodes >= 1 && nnodes <= c.n ? malloc(((size_t)nnodes + 1) * sizeof *off)
                                                : NULL;
        gok = off != NULL;
        for (int v = 0; gok && v < nnodes; v++) {
            off[v] = v ? index[v - 1] : 0;
            gok = index[v] >= off[v];
        }
        if (gok) {
            off[nnodes] = index[nnodes - 1];
            gok = tr_graph_lists(nnodes, off, edges, NULL, NULL, &g) == 0;
        }
        free(off);
    }
    int nr = plan(&c, gok ? &g : NULL);
    tr_graph_free(&g);
    int rc;
    if (nr < 0) {
        rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph);
    } else {
        MPI_Comm tmp = renumbered(&c, nr);
        rc = PMPI_Graph_create(tmp, nnodes, index, edges, 0, comm_graph);
        PMPI_Comm_free(&tmp);
    }
    report(&c);
    return rc;
}

/* ---- distributed graphs ------------------------------------------------- */

/* 0: weights given, 1: MPI_UNWEIGHTED, 2: MPI_WEIGHTS_EMPTY. */
static int weights_flag(const int *w)
{
    return w == MPI_UNWEIGHTED ? 1 : w == MPI_WEIGHTS_EMPTY ? 2 : 0;
}

static const int *weights_of(int flag, const int *w)
{
    return flag == 1 ? MPI_UNWEIGHTED : flag == 2 ? MPI_WEIGHTS_EMPTY : w;
}

/* One rank's adjacent lists as ints: indegree, outdegree, the two weight
 * flags, sources, source weights, destinations, destination weights (1s
 * where there are none). Negative degrees keep only the first four. */
static int *pack_adjacent(int indeg, const int *src, const int *sw, int outdeg, const int *dst,
                          const int *dw, int *len)
{
    int bad = indeg < 0 || outdeg < 0;
    *len = bad ? 4 : 4 + 2 * indeg + 2 * outdeg;
    int *r = malloc((size_t)*len * sizeof *r);
    if (!r)
        return NULL;
    r[0] = indeg;
    r[1] = outdeg;
    r[2] = weights_flag(sw);
    r[3] = weights_flag(dw);
    if (bad)
        return r;
    int *p = r + 4;
    for (int k = 0; k < indeg; k++)
        p[k] = src[k], p[indeg + k] = r[2] ? 1 : sw[k];
    p += 2 * indeg;
    for (int k = 0; k < outdeg; k++)
        p[k] = dst[k], p[outdeg + k] = r[3] ? 1 : dw[k];
    return r;
}

/* rank 0: the graph of the out-lists in the gathered records, or -1. */
static int adjacent_graph(int n, const int *all, const int *disp, tr_graph_t *g)
{
    int *off = malloc(((size_t)n + 1) * sizeof *off), *unw = malloc((size_t)n * sizeof *unw);
    int *dst = NULL, *w = NULL, rc = -1;
    long m = 0;
    for (int v = 0; off && unw && v < n; v++) {
        const int *r = all + disp[v];
        if (r[0] < 0 || r[1] < 0)
            goto out;
        m += r[1];
    }
    dst = malloc((size_t)(m ? m : 1) * sizeof *dst);
    w = malloc((size_t)(m ? m : 1) * sizeof *w);
    if (!off || !unw || !dst || !w)
        goto out;
    off[0] = 0;
    for (int v = 0; v < n; v++) {
        const int *r = all + disp[v], *p = r + 4 + 2 * r[0];
        unw[v] = r[3] == 1;
        memcpy(dst + off[v], p, (size_t)r[1] * sizeof *dst);
        memcpy(w + off[v], p + r[1], (size_t)r[1] * sizeof *w);
        off[v + 1] = off[v] + r[1];
    }
    rc = tr_graph_lists(n, off, dst, w, unw, g);
out:
    free(off);
    free(unw);
    free(dst);
    free(w);
    return rc;
}

/* Every rank's records (caller frees *all and *disp), or -1 on every rank. */
static int gather_adjacent(const struct tr_call *c, int *mine, int len, int **all, int **disp)
{
    int *lens = malloc((size_t)c->n * sizeof *lens);
    *disp = malloc(((size_t)c->n + 1) * sizeof **disp);
    *all = NULL;
    int l = mine && lens && *disp ? len : -1;
    PMPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_INT, MPI_MIN, c->comm);
    if (l >= 0)
        PMPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, c->comm);
    long total = 0;
    for (int i = 0; l >= 0 && i < c->n; i++) {
        (*disp)[i] = (int)total;
        total += lens[i];
        if (total > 0x7fffffffL)
            l = -1; /* the same on every rank */
    }
    if (l >= 0)
        *all = malloc((size_t)total * sizeof **all);
    int ok = l >= 0 && *all, allok = 0;
    PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, c->comm);
    if (allok)
        PMPI_Allgatherv(mine, len, MPI_INT, *all, lens, *disp, MPI_INT, c->comm);
    free(lens);
    return allok ? 0 : -1;
}

TR_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                             const int sourceweights[], int outdegree,
                                             const int destinations[],
                                             const int destweights[], MPI_Info info,
                                             int reorder, MPI_Comm *comm_dist_graph)
{
    struct tr_call c;
    if (!begin(comm, reorder, "MPI_Dist_graph_create_adjacent", &c)) {
        report(&c);
        return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights,
                                               outdegree, destinations, destweights, info,
                                               reorder, comm_dist_graph);
    }
    int len = 0, *all = NULL, *disp = NULL, nr = -1;
    int *mine = pack_adjacent(indegree, sources, sourceweights, outdegree, destinations,
                              destweights, &len);
    if (gather_adjacent(&c, mine, len, &all, &disp) == 0) {
        /* Vertex r is old rank r's declaration; every rank has them all. */
        tr_graph_t g = {0};
        int gok = c.me != 0 || adjacent_graph(c.n, all, disp, &g) == 0;
        nr = plan(&c, gok ? &g : NULL);
        tr_graph_free(&g);
    } else {
        snprintf(c.why, sizeof c.why, "out of memory gathering the lists");
    }
    int rc;
    if (nr < 0) {
        rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                             destinations, destweights, info, reorder,
                                             comm_dist_graph);
    } else {
        /* This process now plays vertex nr: it declares what old rank nr did. */
        const int *r = all + disp[nr], *in = r + 4, *out = in + 2 * r[0];
        MPI_Comm tmp = renumbered(&c, nr);
        rc = PMPI_Dist_graph_create_adjacent(tmp, r[0], in, weights_of(r[2], in + r[0]), r[1],
                                             out, weights_of(r[3], out + r[1]), info, 0,
                                             comm_dist_graph);
        PMPI_Comm_free(&tmp);
    }
    free(mine);
    free(all);
    free(disp);
    report(&c);
    return rc;
}

/* One rank's MPI_Dist_graph_create edges as (source, destination, weight)
 * triples; NULL with *m = -1 for negative counts. */
static int *pack_edges(int n, const int *sources, const int *degrees, const int *dest,
                       const int *weights, int *m)
{
    long total = 0;
    for (int i = 0; n >= 0 && i < n; i++) {
        if (degrees[i] < 0)
            n = -1;
        else
            total += degrees[i];
    }
    *m = n < 0 || total > 0x7fffffffL / 3 ? -1 : (int)total;
    if (*m < 0)
        return NULL;
    int *t = malloc((size_t)(3 * *m + 1) * sizeof *t), k = 0;
    if (!t) {
        *m = -1;
        return NULL;
    }
    int unw = weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            t[3 * k] = sources[i];
            t[3 * k + 1] = dest[k];
            t[3 * k + 2] = unw ? 1 : weights[k];
        }
    return t;
}

/* rank 0: the graph of every rank's triples, gathered; -1 when a rank's
 * arguments were invalid or memory ran out. */
static int gather_edges(const struct tr_call *c, const int *mine, int m, tr_graph_t *g)
{
    int *cnt = NULL, *disp = NULL, *all = NULL, rc = 0, bad = 0;
    long total = 0;
    if (c->me == 0) {
        cnt = malloc((size_t)c->n * sizeof *cnt);
        disp = malloc((size_t)c->n * sizeof *disp);
        bad = !cnt || !disp;
    }
    int m3 = m < 0 ? -1 : 3 * m;
    PMPI_Gather(&m3, 1, MPI_INT, cnt, 1, MPI_INT, 0, c->comm);
    for (int i = 0; c->me == 0 && !bad && i < c->n; i++) {
        disp[i] = (int)total;
        bad = cnt[i] < 0 || total + cnt[i] > 0x7fffffffL;
        total += bad ? 0 : cnt[i];
    }
    if (c->me == 0 && !bad)
        bad = !(all = malloc((size_t)(total + 1) * sizeof *all));
    PMPI_Bcast(&bad, 1, MPI_INT, 0, c->comm);
    if (!bad)
        PMPI_Gatherv(mine, m3 < 0 ? 0 : m3, MPI_INT, all, cnt, disp, MPI_INT, 0, c->comm);
    if (c->me == 0) {
        size_t ne = (size_t)total / 3;
        int *s = malloc((ne + 1) * sizeof *s), *d = malloc((ne + 1) * sizeof *d);
        int *w = malloc((ne + 1) * sizeof *w);
        for (size_t k = 0; !bad && s && d && w && k < ne; k++)
            s[k] = all[3 * k], d[k] = all[3 * k + 1], w[k] = all[3 * k + 2];
        rc = bad || !s || !d || !w ? -1 : tr_graph_edges(c->n, ne, s, d, w, g);
        free(s);
        free(d);
        free(w);
    }
    free(cnt);
    free(disp);
    free(all);
    return rc;
}

TR_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                                    const int degrees[], const int destinations[],
                                    const int weights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph)
{
    struct tr_call c;
    if (!begin(comm, reorder, "MPI_Dist_graph_create", &c)) {
        report(&c);
        return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                      reorder, comm_dist_graph);
    }
    int m = 0;
    int *mine = pack_edges(n, sources, degrees, destinations, weights, &m);
    tr_graph_t g = {0};
    int gok = gather_edges(&c, mine, m, &g) == 0;
    int nr = plan(&c, gok ? &g : NULL);
    tr_graph_free(&g);
    free(mine);
    int rc;
    if (nr < 0) {
        rc = PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                    reorder, comm_dist_graph);
    } else {
        /* An edge names its two vertices, and new rank r plays vertex r:
         * every process declares the edges it declared. */
        MPI_Comm tmp = renumbered(&c, nr);
        rc = PMPI_Dist_graph_create(tmp, n, sources, degrees, destinations, weights, info, 0,
                                    comm_dist_graph);
        PMPI_Comm_free(&tmp);
    }
    report(&c);
    return rc;
}
