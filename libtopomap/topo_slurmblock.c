/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology/block (BlockName= lines of a topology.conf, a block: of a
 * topology.yaml) and topology/flat, built as irregular trees of switches
 * (topo_tree.c), so that hops, routes and channels are those of a tree.
 *
 * The block model, from topology.conf(5): a block is a set of nodes with
 * fast links between them; contiguous blocks are paired into higher-level
 * blocks, and those again, up to the sizes BlockSizes enforces (the base
 * block size first, then each aggregated size the previous one times a
 * power of two). Here:
 *  - every block is a leaf switch over its nodes: 2 hops inside a block;
 *  - every aggregated size Bk adds a level of switches, each over Bk / B0
 *    consecutive blocks in file order: 2 (k + 1) hops between blocks of the
 *    same aggregate of level k but not of a lower level;
 *  - a root joins the aggregates of the last level when there are several:
 *    2 (L + 1) hops between nodes in no common aggregate.
 * All blocks are at the same depth, so the hop count depends only on the
 * lowest level two nodes share, never on the size of a block (a block may
 * have more nodes than B0, as in the man page's example; never fewer). The
 * levels stop at the first one whose single aggregate holds every block:
 * larger sizes would add switches above all the nodes and change no count.
 * Without BlockSizes, the base size is the smallest block's and blocks are
 * paired, then pairs paired, and so on (2, 4, 8 ... blocks).
 *
 * topology/flat: one switch over all the nodes, 2 hops between any two. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

struct build {
    const char *path, *nodes_key, *sizes_key;
    const struct topo_block_def *b;
    int nb;
    char *err;
    size_t errlen;
};

/* The sizes ascend, each the previous one times a power of two. */
static int check_sizes(struct build *B, const struct topo_block_sizes *s)
{
    char at[1100];
    if (s->n > TOPO_MAX_BLOCK_SIZES)
        return topomap_fail(B->err, B->errlen, EINVAL, "%s: %s: at most %d sizes, not %d",
                            topo_where(at, sizeof at, B->path, s->line[0], s->col[0]), B->sizes_key,
                            TOPO_MAX_BLOCK_SIZES, s->n);
    for (int k = 0; k < s->n; k++) {
        topo_where(at, sizeof at, B->path, s->line[k], s->col[k]);
        if (s->size[k] < 1 || s->size[k] > TOPO_MAX_NODES)
            return topomap_fail(B->err, B->errlen, EINVAL, "%s: %s: a size must be in 1..%d, "
                                "not %ld", at, B->sizes_key, TOPO_MAX_NODES, s->size[k]);
        if (k == 0)
            continue;
        long prev = s->size[k - 1], r = s->size[k] / prev;
        if (s->size[k] <= prev)
            return topomap_fail(B->err, B->errlen, EINVAL, "%s: %s: %ld after %ld: the sizes "
                                "must ascend", at, B->sizes_key, s->size[k], prev);
        if (s->size[k] % prev || (r & (r - 1)))
            return topomap_fail(B->err, B->errlen, EINVAL, "%s: %s: %ld is not %ld times a power "
                                "of two (each size pairs blocks of the size before)", at,
                                B->sizes_key, s->size[k], prev);
    }
    return 0;
}

/* Distinct block names. */
static int check_names(struct build *B)
{
    int a, b, rc = topo_fields_repeat(B->b, sizeof *B->b, offsetof(struct topo_block_def, name),
                                      B->nb, &a, &b);
    if (rc < 0)
        return topomap_fail(B->err, B->errlen, ENOMEM, "%s: out of memory", B->path);
    if (rc > 0) {
        char at[1100];
        return topomap_fail(B->err, B->errlen, EINVAL, "%s: block '%s' is already defined at "
                            "line %d", topo_where(at, sizeof at, B->path, B->b[b].line, B->b[b].col),
                            B->b[b].name, B->b[a].line);
    }
    return 0;
}

/* Every block's nodes in file order into one list (NULL with err); first[i]
 * is block i's first node, first[nb] the node count. */
static topomap_hostlist_t *block_nodes(struct build *B, int *first)
{
    char at[1100], herr[TOPOMAP_ERRLEN];
    topomap_hostlist_t *all = topo_hostlist_new();
    if (!all) {
        topomap_fail(B->err, B->errlen, ENOMEM, "%s: out of memory", B->path);
        return NULL;
    }
    size_t nn = 0;
    for (int i = 0; i < B->nb; i++) {
        const struct topo_block_def *d = &B->b[i];
        topo_where(at, sizeof at, B->path, d->line, d->col);
        first[i] = (int)nn;
        topomap_hostlist_t *hl = topomap_hostlist_parse(d->nodes, herr, sizeof herr);
        if (!hl) {
            topomap_fail(B->err, B->errlen, errno, "%s: %s: %s", at, B->nodes_key, herr);
            goto fail;
        }
        size_t m = topomap_hostlist_count(hl);
        if (m == 0 || nn + m > TOPO_MAX_NODES) {
            topomap_hostlist_free(hl);
            if (m == 0)
                topomap_fail(B->err, B->errlen, EINVAL, "%s: block '%s' has no nodes", at,
                             d->name);
            else
                topomap_fail(B->err, B->errlen, EINVAL, "%s: more than %d nodes", at,
                             TOPO_MAX_NODES);
            goto fail;
        }
        for (size_t k = 0; k < m; k++) {
            const char *nm = topomap_hostlist_get(hl, k);
            if (topo_hostlist_push(all, nm, strlen(nm)) < 0) {
                topomap_hostlist_free(hl);
                topomap_fail(B->err, B->errlen, ENOMEM, "%s: out of memory", at);
                goto fail;
            }
        }
        nn += m;
        topomap_hostlist_free(hl);
    }
    first[B->nb] = (int)nn;
    if (topo_hostlist_seal(all) == 0)
        return all;
    topomap_fail(B->err, B->errlen, ENOMEM, "%s: out of memory", B->path);
fail:
    topomap_hostlist_free(all);
    return NULL;
}

/* The block sizes of the levels that are built (see the top of the file):
 * bsize[0] the base, bsize[k] / bsize[0] blocks under a switch of level k,
 * up to the first level with one aggregate. Returns the number of levels. */
static int levels(const struct topo_block_sizes *s, long smallest, int nb, long *bsize)
{
    int n = 1;
    bsize[0] = s->n ? s->size[0] : smallest;
    while (n < (s->n ? s->n : TOPO_MAX_BLOCK_SIZES) && bsize[n - 1] / bsize[0] < nb) {
        bsize[n] = s->n ? s->size[n] : 2 * bsize[n - 1];
        n++;
    }
    return n;
}

/* Switches: blocks 0 .. nb-1, then each aggregate level, then the root
 * when the last level has several switches. Fills the tree's arrays. */
static int build_switches(topomap_topology_t *t, const struct topo_block_def *b, int nb,
                          const int *first)
{
    struct topo_itree *T = &t->u.itree;
    long count[TOPO_MAX_LEVELS], start[TOPO_MAX_LEVELS + 1];
    long total = 0;
    for (int k = 0; k < T->nbsizes; k++) {
        long g = T->bsize[k] / T->bsize[0];
        count[k] = (nb + g - 1) / g;
        start[k] = total;
        total += count[k];
    }
    int root = count[T->nbsizes - 1] > 1;
    start[T->nbsizes] = total;
    T->nsw = (int)(total + root);
    T->parent = malloc(sizeof(int) * (size_t)T->nsw);
    T->depth = malloc(sizeof(int) * (size_t)T->nsw);
    T->swname = calloc((size_t)T->nsw, sizeof *T->swname);
    T->leaf = malloc(sizeof(int) * (size_t)t->nnodes);
    T->port = malloc(sizeof(int) * (size_t)t->nnodes);
    if (!T->parent || !T->depth || !T->swname || !T->leaf || !T->port)
        return -1;
    int L = T->nbsizes;
    for (int k = 0; k < L; k++) {
        long g = T->bsize[k] / T->bsize[0];
        long up = k + 1 < L ? T->bsize[k + 1] / T->bsize[k] : 0;
        for (long j = 0; j < count[k]; j++) {
            int s = (int)(start[k] + j);
            T->parent[s] = k + 1 < L ? (int)(start[k + 1] + j / up) : root ? T->nsw - 1 : -1;
            T->depth[s] = root + L - 1 - k;
            if (k == 0) {
                T->swname[s] = strdup(b[j].name);
            } else {
                long lo = j * g, hi = lo + g < nb ? lo + g - 1 : nb - 1;
                size_t len = strlen(b[lo].name) + strlen(b[hi].name) + 3;
                if ((T->swname[s] = malloc(len)))
                    snprintf(T->swname[s], len, "%s..%s", b[lo].name, b[hi].name);
            }
            if (!T->swname[s])
                return -1;
        }
    }
    if (root) {
        T->parent[T->nsw - 1] = -1;
        T->depth[T->nsw - 1] = 0;
        if (!(T->swname[T->nsw - 1] = strdup("(root)")))
            return -1;
    }
    for (int i = 0; i < nb; i++)
        for (int v = first[i]; v < first[i + 1]; v++) {
            T->leaf[v] = i;
            T->port[v] = v - first[i];
        }
    return 0;
}

topomap_topology_t *topo_block_build(const char *path, int yaml, const struct topo_block_def *blocks,
                                     int nblocks, const struct topo_block_sizes *sizes, char *err,
                                     size_t errlen)
{
    struct build B = {path, yaml ? "nodes" : "Nodes=", yaml ? "block_sizes" : "BlockSizes=",
                      blocks, nblocks, err, errlen};
    char at[1100];
    if (check_sizes(&B, sizes) < 0 || check_names(&B) < 0)
        return NULL;
    int *first = malloc(sizeof(int) * ((size_t)nblocks + 1));
    if (!first) {
        topomap_fail(err, errlen, ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    topomap_hostlist_t *names = block_nodes(&B, first);
    topomap_topology_t *t = NULL;
    if (!names)
        goto out;
    /* Blocks smaller than the base size, then nodes in two blocks. */
    long smallest = TOPO_MAX_NODES;
    for (int i = 0; i < nblocks; i++) {
        long m = first[i + 1] - first[i];
        if (sizes->n && m < sizes->size[0]) {
            topomap_fail(err, errlen, EINVAL, "%s: block '%s' has %ld node%s, fewer than the base "
                         "block size %ld (%s line %d)",
                         topo_where(at, sizeof at, path, blocks[i].line, blocks[i].col), blocks[i].name,
                         m, m == 1 ? "" : "s", sizes->size[0], B.sizes_key, sizes->line[0]);
            goto out;
        }
        if (m < smallest)
            smallest = m;
    }
    int a, b, r = topo_names_repeat(names, &a, &b);
    if (r < 0) {
        topomap_fail(err, errlen, ENOMEM, "%s: out of memory", path);
        goto out;
    }
    if (r > 0) {
        int ba = 0, bb = 0; /* the blocks of nodes a and b */
        while (first[ba + 1] <= a)
            ba++;
        while (first[bb + 1] <= b)
            bb++;
        topomap_fail(err, errlen, EINVAL, "%s: node '%s' is in block '%s' and already in block "
                     "'%s' (line %d)", topo_where(at, sizeof at, path, blocks[bb].line, blocks[bb].col),
                     topomap_hostlist_get(names, (size_t)b), blocks[bb].name, blocks[ba].name,
                     blocks[ba].line);
        goto out;
    }
    char berr[TOPOMAP_ERRLEN];
    t = topo_new(&topo_itree_ops, "fat-tree", first[nblocks], names, berr, sizeof berr);
    names = NULL; /* taken over */
    if (!t) {
        topomap_fail(err, errlen, errno, "%s: %s", path, berr);
        goto out;
    }
    struct topo_itree *T = &t->u.itree;
    T->from = TOPO_FROM_BLOCK;
    T->nblocks = nblocks;
    T->sizes_given = sizes->n > 0;
    T->nbsizes = levels(sizes, smallest, nblocks, T->bsize);
    if (build_switches(t, blocks, nblocks, first) < 0) {
        topomap_fail(err, errlen, ENOMEM, "%s: out of memory (%d blocks)", path, nblocks);
        topomap_topology_free(t);
        t = NULL;
        goto out;
    }
    if (topo_itree_prepare(t, berr, sizeof berr) < 0) {
        topomap_fail(err, errlen, errno, "%s: %s", path, berr);
        topomap_topology_free(t);
        t = NULL;
        goto out;
    }
    if (!(t = topo_finish(t, 1, berr, sizeof berr)))
        topomap_fail(err, errlen, errno, "%s: %s", path, berr);
out:
    topomap_hostlist_free(names);
    free(first);
    return t;
}

topomap_topology_t *topo_flat_build(topomap_hostlist_t *names, char *err, size_t errlen)
{
    int n = (int)topomap_hostlist_count(names);
    topomap_topology_t *t = topo_new(&topo_itree_ops, "fat-tree", n, names, err, errlen);
    if (!t)
        return NULL;
    struct topo_itree *T = &t->u.itree;
    T->from = TOPO_FROM_FLAT;
    T->nsw = 1;
    T->parent = malloc(sizeof *T->parent);
    T->depth = calloc(1, sizeof *T->depth);
    T->swname = calloc(1, sizeof *T->swname);
    T->leaf = calloc((size_t)n, sizeof *T->leaf);
    T->port = malloc(sizeof(int) * (size_t)n);
    if (!T->parent || !T->depth || !T->swname || !T->leaf || !T->port ||
        !(T->swname[0] = strdup("flat"))) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        topomap_topology_free(t);
        return NULL;
    }
    T->parent[0] = -1;
    for (int i = 0; i < n; i++)
        T->port[i] = i;
    if (topo_itree_prepare(t, err, errlen) < 0) {
        topomap_topology_free(t);
        return NULL;
    }
    return topo_finish(t, 1, err, errlen);
}
