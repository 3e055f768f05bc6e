/* SPDX-License-Identifier: BSD-3-Clause */
/* Incremental channel loads: the loads of congestion.c (every directed pair
 * sent along the network's deterministic minimal route), kept up to date
 * while ranks change slots, so that a refinement can ask what a move does to
 * the busiest link without routing the whole profile again.
 *
 * Moving rank r changes only the routes of r's own pairs: each is taken off
 * the channels of its old route and put on those of its new one, O(degree of
 * r x route length x log channels). The busiest channel is the top of a
 * binary max-heap over the channels (ids in order of first use), updated at
 * every change of a load; the sum of squared loads is kept beside it (a
 * smooth measure of how the traffic is spread, which breaks ties between
 * placements of equal busiest link).
 *
 * Channel numbers are sparse (see congestion.c), so a hash table maps a
 * channel to a dense id; ids, loads and heap positions never move when the
 * table grows. Everything is serial and in a fixed order: the same moves
 * give the same loads and the same heap on every run. Loads of integer byte
 * counts stay exact (sums of integers below 2^53); a channel whose load
 * falls back to zero keeps its id. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "internal.h"
#include "topology_priv.h"

struct topomap_cload {
    const struct topomap_problem *pb;
    int cls; /* the class of channel loaded (-1: every class) */
    /* The directed byte graph (rows: senders) and its transpose (rows:
     * receivers), self pairs dropped. */
    int64_t *oxadj, *ixadj;
    int *oadj, *iadj;
    double *ow, *iw;
    int *r2s, *s2r; /* the placement held (s2r: -1 = free slot) */
    /* channel -> id: open addressing, kept at most half full */
    int64_t *hkey;
    int *hid;
    size_t hmask;
    int hshift;
    /* per id */
    int64_t *chan;
    double *load;
    double *weight; /* topomap_channel_weight of the channel */
    int *hpos;
    int nid, capid;
    int *heap; /* ids, the largest load on top */
    double sumsq;
    int64_t *route; /* scratch of route_max channels */
    /* Scratch of add_rank: bytes to and from each node (all 0 between
     * calls), the nodes touched. */
    double *to, *from;
    int *touched;
};

/* Build the directed graph without self pairs and its transpose. */
static int build_graphs(struct topomap_cload *cl)
{
    const struct topomap_problem *pb = cl->pb;
    topomap_graph_t g;
    if (topomap_profile_graph(pb->profile, TOPOMAP_AFFINITY_BYTES, 0, &g) < 0)
        return -1;
    int n = pb->n;
    int64_t m = 0;
    for (int i = 0; i < n; i++)
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            m += g.adj[e] != i && g.w[e] > 0;
    size_t ms = (size_t)(m ? m : 1);
    cl->oxadj = calloc((size_t)n + 1, sizeof *cl->oxadj);
    cl->ixadj = calloc((size_t)n + 2, sizeof *cl->ixadj);
    cl->oadj = malloc(ms * sizeof *cl->oadj);
    cl->iadj = malloc(ms * sizeof *cl->iadj);
    cl->ow = malloc(ms * sizeof *cl->ow);
    cl->iw = malloc(ms * sizeof *cl->iw);
    if (!cl->oxadj || !cl->ixadj || !cl->oadj || !cl->iadj || !cl->ow || !cl->iw) {
        errno = ENOMEM;
        return -1;
    }
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        for (int64_t e = g.xadj[i]; e < g.xadj[i + 1]; e++)
            if (g.adj[e] != i && g.w[e] > 0) {
                cl->oadj[k] = g.adj[e];
                cl->ow[k++] = g.w[e];
                cl->ixadj[g.adj[e] + 2]++;
            }
        cl->oxadj[i + 1] = k;
    }
    /* Counting sort by receiver: rows of the transpose in sender order. */
    for (int j = 0; j < n; j++)
        cl->ixadj[j + 2] += cl->ixadj[j + 1];
    for (int i = 0; i < n; i++)
        for (int64_t e = cl->oxadj[i]; e < cl->oxadj[i + 1]; e++) {
            int64_t p = cl->ixadj[cl->oadj[e] + 1]++;
            cl->iadj[p] = i;
            cl->iw[p] = cl->ow[e];
        }
    return 0;
}

static size_t hslot(const struct topomap_cload *cl, int64_t c)
{
    return (size_t)(((uint64_t)c * 0x9E3779B97F4A7C15ULL) >> cl->hshift);
}

static int hash_alloc(struct topomap_cload *cl, int bits)
{
    size_t size = (size_t)1 << bits;
    int64_t *key = malloc(size * sizeof *key);
    int *id = malloc(size * sizeof *id);
    if (!key || !id) {
        free(key), free(id);
        errno = ENOMEM;
        return -1;
    }
    memset(key, 0xff, size * sizeof *key); /* all -1: empty */
    free(cl->hkey), free(cl->hid);
    cl->hkey = key;
    cl->hid = id;
    cl->hmask = size - 1;
    cl->hshift = 64 - bits;
    for (int d = 0; d < cl->nid; d++) {
        size_t i = hslot(cl, cl->chan[d]);
        while (cl->hkey[i] >= 0)
            i = (i + 1) & cl->hmask;
        cl->hkey[i] = cl->chan[d];
        cl->hid[i] = d;
    }
    return 0;
}

static int lookup(const struct topomap_cload *cl, int64_t c)
{
    size_t i = hslot(cl, c);
    while (cl->hkey[i] >= 0) {
        if (cl->hkey[i] == c)
            return cl->hid[i];
        i = (i + 1) & cl->hmask;
    }
    return -1;
}

static void sift_up(struct topomap_cload *cl, int p)
{
    int d = cl->heap[p];
    while (p > 0) {
        int q = (p - 1) / 2;
        if (cl->load[cl->heap[q]] >= cl->load[d])
            break;
        cl->heap[p] = cl->heap[q];
        cl->hpos[cl->heap[p]] = p;
        p = q;
    }
    cl->heap[p] = d;
    cl->hpos[d] = p;
}

static void sift_down(struct topomap_cload *cl, int p)
{
    int d = cl->heap[p];
    for (;;) {
        int c = 2 * p + 1;
        if (c >= cl->nid)
            break;
        if (c + 1 < cl->nid && cl->load[cl->heap[c + 1]] > cl->load[cl->heap[c]])
            c++;
        if (cl->load[cl->heap[c]] <= cl->load[d])
            break;
        cl->heap[p] = cl->heap[c];
        cl->hpos[cl->heap[p]] = p;
        p = c;
    }
    cl->heap[p] = d;
    cl->hpos[d] = p;
}

/* The id of channel c, a new one (load 0) when c has none yet. */
static int id_of(struct topomap_cload *cl, int64_t c)
{
    int d = lookup(cl, c);
    if (d >= 0)
        return d;
    if (2 * ((size_t)cl->nid + 1) > cl->hmask + 1 && hash_alloc(cl, 65 - cl->hshift) < 0)
        return -1;
    if (cl->nid == cl->capid) {
        int cap = cl->capid ? 2 * cl->capid : 256;
        int64_t *ch = realloc(cl->chan, (size_t)cap * sizeof *ch);
        if (ch)
            cl->chan = ch;
        double *ld = realloc(cl->load, (size_t)cap * sizeof *ld);
        if (ld)
            cl->load = ld;
        double *wt = realloc(cl->weight, (size_t)cap * sizeof *wt);
        if (wt)
            cl->weight = wt;
        int *hp = realloc(cl->hpos, (size_t)cap * sizeof *hp);
        if (hp)
            cl->hpos = hp;
        int *he = realloc(cl->heap, (size_t)cap * sizeof *he);
        if (he)
            cl->heap = he;
        if (!ch || !ld || !wt || !hp || !he) {
            errno = ENOMEM;
            return -1;
        }
        cl->capid = cap;
    }
    d = cl->nid++;
    cl->chan[d] = c;
    cl->load[d] = 0;
    cl->weight[d] = topomap_channel_weight(cl->pb->topo, c);
    cl->heap[d] = d;
    cl->hpos[d] = d;
    size_t i = hslot(cl, c);
    while (cl->hkey[i] >= 0)
        i = (i + 1) & cl->hmask;
    cl->hkey[i] = c;
    cl->hid[i] = d;
    return d;
}

/* Add w (negative: remove) to every channel of the route from node a to b. */
static int add_route(struct topomap_cload *cl, int a, int b, double w)
{
    if (a == b)
        return 0;
    const topomap_topology_t *t = cl->pb->topo;
    int h = t->ops->route(t, a, b, cl->route);
    for (int k = 0; k < h; k++) {
        if (cl->cls >= 0 && topomap_channel_class(t, cl->route[k]) != cl->cls)
            continue;
        int d = id_of(cl, cl->route[k]);
        if (d < 0)
            return -1;
        double old = cl->load[d], nw = old + w * cl->weight[d];
        cl->load[d] = nw;
        cl->sumsq += nw * nw - old * old;
        if (nw > old)
            sift_up(cl, cl->hpos[d]);
        else
            sift_down(cl, cl->hpos[d]);
    }
    return 0;
}

static int node_of(const struct topomap_cload *cl, int r)
{
    return cl->pb->slot_node[cl->r2s[r]];
}

/* Note w bytes to (dir 0) or from (1) node b in the scratch of add_rank. */
static void note(struct topomap_cload *cl, int b, int dir, double w, int *nt)
{
    if (cl->to[b] == 0 && cl->from[b] == 0)
        cl->touched[(*nt)++] = b;
    (dir ? cl->from : cl->to)[b] += w;
}

/* Add (sign 1) or remove (-1) the routes of r's pairs, those with `skip`
 * left out (the other rank of an exchange, whose pairs with r are counted
 * once, with it). The pairs are summed by the other end's node first: one
 * route per node rather than per partner. */
static int add_rank(struct topomap_cload *cl, int r, double sign, int skip)
{
    int a = node_of(cl, r), nt = 0, rc = 0;
    for (int64_t e = cl->oxadj[r]; e < cl->oxadj[r + 1]; e++)
        if (cl->oadj[e] != skip && node_of(cl, cl->oadj[e]) != a)
            note(cl, node_of(cl, cl->oadj[e]), 0, cl->ow[e], &nt);
    for (int64_t e = cl->ixadj[r]; e < cl->ixadj[r + 1]; e++)
        if (cl->iadj[e] != skip && node_of(cl, cl->iadj[e]) != a)
            note(cl, node_of(cl, cl->iadj[e]), 1, cl->iw[e], &nt);
    for (int k = 0; k < nt; k++) {
        int b = cl->touched[k];
        if (rc == 0 && cl->to[b] > 0)
            rc = add_route(cl, a, b, sign * cl->to[b]);
        if (rc == 0 && cl->from[b] > 0)
            rc = add_route(cl, b, a, sign * cl->from[b]);
        cl->to[b] = cl->from[b] = 0;
    }
    return rc;
}

void topomap_cload_free(struct topomap_cload *cl)
{
    if (!cl)
        return;
    free(cl->oxadj), free(cl->ixadj), free(cl->oadj), free(cl->iadj), free(cl->ow), free(cl->iw);
    free(cl->r2s), free(cl->s2r), free(cl->hkey), free(cl->hid);
    free(cl->chan), free(cl->load), free(cl->weight), free(cl->hpos), free(cl->heap), free(cl->route);
    free(cl->to), free(cl->from), free(cl->touched);
    free(cl);
}

struct topomap_cload *topomap_cload_create(const struct topomap_problem *pb, const int *r2s)
{
    return topomap_cload_create_class(pb, r2s, -1);
}

struct topomap_cload *topomap_cload_create_class(const struct topomap_problem *pb, const int *r2s,
                                                 int cls)
{
    struct topomap_cload *cl = calloc(1, sizeof *cl);
    if (!cl) {
        errno = ENOMEM;
        return NULL;
    }
    cl->pb = pb;
    cl->cls = cls;
    int rm = pb->topo->route_max > 0 ? pb->topo->route_max : 1;
    cl->r2s = malloc(sizeof(int) * (size_t)(pb->n ? pb->n : 1));
    cl->s2r = malloc(sizeof(int) * (size_t)(pb->nslots ? pb->nslots : 1));
    cl->route = malloc(sizeof(int64_t) * (size_t)rm);
    size_t nn = (size_t)(pb->topo->nnodes > 0 ? pb->topo->nnodes : 1);
    cl->to = calloc(nn, sizeof *cl->to);
    cl->from = calloc(nn, sizeof *cl->from);
    cl->touched = malloc(nn * sizeof *cl->touched);
    if (!cl->r2s || !cl->s2r || !cl->route || !cl->to || !cl->from || !cl->touched || hash_alloc(cl, 10) < 0 || build_graphs(cl) < 0)
        goto fail;
    for (int s = 0; s < pb->nslots; s++)
        cl->s2r[s] = -1;
    for (int r = 0; r < pb->n; r++) {
        if ((unsigned)r2s[r] >= (unsigned)pb->nslots || cl->s2r[r2s[r]] >= 0) {
            errno = EINVAL;
            goto fail;
        }
        cl->r2s[r] = r2s[r];
        cl->s2r[r2s[r]] = r;
    }
    /* Senders in rank order, as congestion.c adds them. */
    for (int r = 0; r < pb->n; r++)
        for (int64_t e = cl->oxadj[r]; e < cl->oxadj[r + 1]; e++)
            if (add_route(cl, node_of(cl, r), node_of(cl, cl->oadj[e]), cl->ow[e]) < 0)
                goto fail;
    return cl;
fail:;
    int e = errno;
    topomap_cload_free(cl);
    errno = e;
    return NULL;
}

int topomap_cload_move(struct topomap_cload *cl, int r, int slot)
{
    int from = cl->r2s[r], b = cl->s2r[slot];
    if (slot == from)
        return 0;
    if (add_rank(cl, r, -1, -1) < 0 || (b >= 0 && add_rank(cl, b, -1, r) < 0))
        return -1;
    cl->r2s[r] = slot;
    cl->s2r[slot] = r;
    cl->s2r[from] = b;
    if (b >= 0)
        cl->r2s[b] = from;
    if (add_rank(cl, r, 1, -1) < 0 || (b >= 0 && add_rank(cl, b, 1, r) < 0))
        return -1;
    return 0;
}

double topomap_cload_max(const struct topomap_cload *cl)
{
    return cl->nid ? cl->load[cl->heap[0]] : 0;
}

int64_t topomap_cload_top(const struct topomap_cload *cl)
{
    return cl->nid ? cl->chan[cl->heap[0]] : -1;
}

double topomap_cload_sumsq(const struct topomap_cload *cl)
{
    return cl->sumsq;
}

const int *topomap_cload_r2s(const struct topomap_cload *cl)
{
    return cl->r2s;
}

const int *topomap_cload_s2r(const struct topomap_cload *cl)
{
    return cl->s2r;
}

int topomap_cload_crossing(const struct topomap_cload *cl, int64_t c, double *cross)
{
    const topomap_topology_t *t = cl->pb->topo;
    memset(cross, 0, sizeof *cross * (size_t)cl->pb->n);
    int count = 0;
    for (int r = 0; r < cl->pb->n; r++)
        for (int64_t e = cl->oxadj[r]; e < cl->oxadj[r + 1]; e++) {
            int a = node_of(cl, r), b = node_of(cl, cl->oadj[e]);
            if (a == b)
                continue;
            int h = t->ops->route(t, a, b, cl->route);
            for (int k = 0; k < h; k++)
                if (cl->route[k] == c) {
                    count += cross[r] == 0;
                    cross[r] += cl->ow[e];
                    count += cross[cl->oadj[e]] == 0;
                    cross[cl->oadj[e]] += cl->ow[e];
                    break;
                }
        }
    return count;
}
