/* SPDX-License-Identifier: BSD-3-Clause */
/* grid: the framework of Bhatele, Gupta, Kale & Chung, "Automated mapping of
 * regular communication graphs on mesh interconnects" (HiPC 2010), Fig. 1:
 * the process topology analyzer (grid_detect.c) finds the process grid, a
 * suite of embeddings (grid_embed.c) places it onto the allocated part of a
 * torus or mesh, and the one with the lowest hop-bytes is kept. The
 * refinement engine (refine.c) then polishes it (the paper's PAIRS,
 * heuristic 7, used there only as a reference, plays that part here).
 *
 * Beyond the paper (which maps one rank per processor onto a whole mesh):
 *  - Several slots per node: the object grid is first cut into blocks of one
 *    node's slots and the grid of blocks is embedded into the grid of nodes;
 *    a block's ranks take its node's slots in order (all 0 hops apart). The
 *    "best shape" of a block is not only the one that cuts the fewest bytes
 *    (each dimension's mean edge bytes times the edges crossing block
 *    faces): ties are common and the block grid's shape decides how well it
 *    embeds, so every shape is tried, fewest cut bytes first, with every
 *    plan, within the plan budget.
 *  - Allocations: the allocated nodes must form a box of the torus/mesh (a
 *    box may wrap around a periodic dimension; it is periodic itself only
 *    when it spans the whole dimension). The embeddings are laid out in box
 *    coordinates; the hop-bytes that choose among them are measured on the
 *    real network (wraparound links included). Scattered nodes, nodes with
 *    different slot counts, fewer ranks than slots, other networks, or block
 *    sizes that tile no grid are declined with a clear error (so auto skips
 *    grid there); drb handles those cases.
 *  - Grids of 3D and 4D, and 2D grids on 2D/3D boxes: the plans of
 *    grid_embed.c (stacking, folding, merging, the 2D heuristics as base
 *    cases, EXCO/COCE/AFFN in n-D). Their number is capped so that trying
 *    them all stays O(n) per plan and about 2^23 rank-plans in all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "refine.h"

#define GRID_MAX_PLANS 96
#define GRID_PLAN_WORK (1L << 23) /* plans x ranks tried at most */
#define GRID_TOPO_MAXD 16

/* The allocated nodes as a box of the torus/mesh. */
struct box {
    int m, c;          /* nodes, slots per node */
    int *first, *tn;   /* per allocated node: first slot, topology node */
    int *node_at;      /* box cell -> allocated node */
    struct topomap_grid_shape shape; /* the box's extents > 1 */
};

static void box_free(struct box *b)
{
    free(b->first);
    free(b->tn);
    free(b->node_at);
}

static int box_init(const struct topomap_problem *pb, struct box *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    int dims[GRID_TOPO_MAXD], wrap[GRID_TOPO_MAXD];
    int nd = topomap_topology_grid(pb->topo, dims, wrap, GRID_TOPO_MAXD);
    if (nd == 0)
        return topomap_fail(err, errlen, ENOTSUP,
                            "grid: the network is a %s, not a torus or mesh",
                            topomap_topology_kind(pb->topo));
    if (nd > GRID_TOPO_MAXD)
        return topomap_fail(err, errlen, ENOTSUP, "grid: a torus of %d dimensions", nd);
    int nn = topomap_alloc_nnodes(pb->alloc);
    b->first = malloc(sizeof(int) * (size_t)nn);
    b->tn = malloc(sizeof(int) * (size_t)nn);
    b->node_at = malloc(sizeof(int) * (size_t)nn);
    int *bc = malloc(sizeof(int) * (size_t)nn * GRID_TOPO_MAXD);
    char *used = NULL;
    int rc = -1;
    if (!b->first || !b->tn || !b->node_at || !bc) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    /* Slots are numbered node by node (alloc.c). */
    for (int s = 0; s < pb->nslots; s++)
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1]) {
            b->first[b->m] = s;
            b->tn[b->m++] = pb->slot_node[s];
        }
    b->c = b->m > 1 ? b->first[1] : pb->nslots;
    for (int i = 0; i < b->m; i++) {
        int cap = (i + 1 < b->m ? b->first[i + 1] : pb->nslots) - b->first[i];
        if (cap != b->c) {
            topomap_fail(err, errlen, ENOTSUP,
                         "grid: the nodes hold different numbers of slots (%d and %d)", b->c,
                         cap);
            goto out;
        }
    }
    if (pb->n != pb->nslots) {
        topomap_fail(err, errlen, ENOTSUP,
                     "grid: %d ranks for %d slots (grid fills every slot of the allocation)",
                     pb->n, pb->nslots);
        goto out;
    }
    for (int i = 0; i < b->m; i++)
        topomap_topology_coords(pb->topo, b->tn[i], bc + (size_t)i * GRID_TOPO_MAXD,
                                GRID_TOPO_MAXD);
    /* Per dimension, the smallest (cyclic, when wrapped) interval holding
     * the nodes' coordinates: start after the largest unused gap. */
    long cells = 1;
    int ext[GRID_TOPO_MAXD];
    for (int k = 0; k < nd; k++) {
        used = calloc((size_t)dims[k], 1);
        if (!used) {
            topomap_fail(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
        for (int i = 0; i < b->m; i++)
            used[bc[(size_t)i * GRID_TOPO_MAXD + k]] = 1;
        int start = 0, gap = 0;
        if (wrap[k]) {
            for (int s = 0; s < dims[k]; s++) {
                int len = 0;
                while (len < dims[k] && !used[(s + len) % dims[k]])
                    len++;
                if (len > gap) {
                    gap = len;
                    start = (s + len) % dims[k];
                }
            }
        } else {
            int lo = dims[k], hi = -1;
            for (int s = 0; s < dims[k]; s++)
                if (used[s]) {
                    lo = s < lo ? s : lo;
                    hi = s;
                }
            start = lo;
            gap = dims[k] - (hi - lo + 1);
        }
        free(used);
        used = NULL;
        ext[k] = dims[k] - gap;
        cells *= ext[k];
        for (int i = 0; i < b->m; i++) {
            int *v = bc + (size_t)i * GRID_TOPO_MAXD + k;
            *v = (*v - start + dims[k]) % dims[k];
        }
        if (cells > b->m)
            break;
    }
    if (cells != b->m) {
        topomap_fail(err, errlen, ENOTSUP,
                     "grid: the %d allocated nodes are not a box of the %s (their bounding box "
                     "holds %ld nodes)",
                     b->m, topomap_topology_kind(pb->topo), cells);
        goto out;
    }
    b->shape.nd = 0;
    for (int k = 0; k < nd; k++)
        if (ext[k] > 1) {
            if (b->shape.nd == TOPOMAP_GRID_MAXDIMS) {
                topomap_fail(err, errlen, ENOTSUP, "grid: a box of more than %d dimensions",
                             TOPOMAP_GRID_MAXDIMS);
                goto out;
            }
            b->shape.d[b->shape.nd++] = ext[k];
        }
    for (int i = 0; i < b->m; i++)
        b->node_at[i] = -1;
    for (int i = 0; i < b->m; i++) {
        long idx = 0;
        for (int k = nd - 1; k >= 0; k--)
            idx = idx * ext[k] + bc[(size_t)i * GRID_TOPO_MAXD + k];
        if (b->node_at[idx] >= 0) {
            topomap_fail(err, errlen, ENOTSUP, "grid: two allocated nodes share a position");
            goto out;
        }
        b->node_at[idx] = i;
    }
    rc = 0;
out:
    free(bc);
    free(used);
    return rc;
}

/* Bytes on grid edges that cross the faces of blocks of shape b. */
static double block_cost(const topomap_grid_t *g, const int *b)
{
    long n = 1;
    for (int k = 0; k < g->ndims; k++)
        n *= g->dims[k];
    double cost = 0;
    for (int k = 0; k < g->ndims; k++) {
        long cuts = g->dims[k] / b[k] - (g->periodic[k] && g->dims[k] > 2 ? 0 : 1);
        cost += g->dim_bytes[k] * (double)(n / g->dims[k]) * (double)cuts;
    }
    return cost;
}

#define GRID_MAX_BLOCKS 64
struct block {
    int b[TOPOMAP_GRID_MAXDIMS];
    double cost;
    int fits; /* 1: the grid of blocks has the box's extents, in some order */
    int idx;  /* enumeration order: the last tie-break */
};

/* Every block shape of c ranks: b[k] divides dims[k], the product is c. */
static void blocks(const topomap_grid_t *g, int k, int rest, int *cur, struct block *out,
                   int *nout)
{
    if (k == g->ndims) {
        if (rest == 1 && *nout < GRID_MAX_BLOCKS) {
            memcpy(out[*nout].b, cur, sizeof(int) * TOPOMAP_GRID_MAXDIMS);
            out[*nout].cost = block_cost(g, cur);
            out[*nout].fits = 0;
            out[*nout].idx = *nout;
            (*nout)++;
        }
        return;
    }
    for (int f = 1; f <= g->dims[k] && f <= rest; f++)
        if (g->dims[k] % f == 0 && rest % f == 0) {
            cur[k] = f;
            blocks(g, k + 1, rest / f, cur, out, nout);
        }
}

/* Fewest cut bytes first; among equal cuts (common: a stencil's dimensions
 * carry the same bytes), a grid of blocks that is the box itself, turned,
 * which the STACK plans embed one block per node with every edge one hop:
 * with a million ranks the plan budget tries only the first few shapes. */
static int block_cmp(const void *a, const void *b)
{
    const struct block *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    if (x->fits != y->fits)
        return y->fits - x->fits;
    return x->idx - y->idx;
}

static int int_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* 1 when the grid of blocks of shape b has the extents > 1 of the box. */
static int block_fits(const topomap_grid_t *g, int nd, const int *b,
                      const struct topomap_grid_shape *box)
{
    int e[TOPOMAP_GRID_MAXDIMS], be[TOPOMAP_GRID_MAXDIMS], m = 0;
    for (int k = 0; k < nd; k++)
        if (g->dims[k] / b[k] > 1)
            e[m++] = g->dims[k] / b[k];
    if (m != box->nd)
        return 0;
    memcpy(be, box->d, sizeof(int) * (size_t)m);
    qsort(e, (size_t)m, sizeof *e, int_cmp);
    qsort(be, (size_t)m, sizeof *be, int_cmp);
    return !memcmp(e, be, sizeof(int) * (size_t)m);
}

static void grid_str(const int *d, int nd, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    for (int k = 0; k < nd; k++)
        l += (size_t)snprintf(buf + l, l < len ? len - l : 0, "%s%d", k ? "x" : "", d[k]);
}

int topomap_map_grid(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    int n = pb->n;
    topomap_grid_t g;
    struct box bx;
    int *own = pb->grid ? NULL : malloc(sizeof(int) * (size_t)(n ? n : 1) * TOPOMAP_GRID_MAXDIMS);
    const int *coords = pb->grid ? pb->grid_coords : own;
    int *tmp = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *blockmap = NULL, *rnode = NULL, *blk = NULL, *inner = NULL;
    struct topomap_grid_plan *plans = NULL;
    memset(&bx, 0, sizeof bx);
    int rc = -1;
    if (!coords || !tmp) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    int nd;
    if (pb->grid) {
        g = *pb->grid;
        nd = g.ndims;
    } else
        nd = topomap_grid_detect(pb->profile, pb->opts->grid_weak, &g, own);
    if (nd < 0) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (nd == 0) {
        topomap_fail(err, errlen, ENOTSUP, "grid: the profile is not a process grid (%s)", g.why);
        goto out;
    }
    if (box_init(pb, &bx, err, errlen) < 0)
        goto out;
    /* Block shapes, fewest cut bytes first; each tried with every plan. */
    struct block bl[GRID_MAX_BLOCKS];
    int nbl = 0, cur[TOPOMAP_GRID_MAXDIMS] = {1, 1, 1, 1};
    char gs[48], bs[48], ps[48];
    grid_str(g.dims, nd, gs, sizeof gs);
    blocks(&g, 0, bx.c, cur, bl, &nbl);
    if (nbl == 0) {
        topomap_fail(err, errlen, ENOTSUP, "grid: no block of %d ranks tiles the %s grid", bx.c,
                     gs);
        goto out;
    }
    for (int s = 0; s < nbl; s++)
        bl[s].fits = block_fits(&g, nd, bl[s].b, &bx.shape);
    qsort(bl, (size_t)nbl, sizeof bl[0], block_cmp);
    blk = malloc(sizeof(int) * (size_t)n);
    inner = malloc(sizeof(int) * (size_t)n);
    rnode = malloc(sizeof(int) * (size_t)n);
    blockmap = malloc(sizeof(int) * (size_t)bx.m);
    long budget = GRID_PLAN_WORK / (n > 1 ? n : 1); /* plans over all block shapes */
    budget = budget < 4 ? 4 : budget;
    plans = malloc(sizeof *plans * GRID_MAX_PLANS);
    if (!blk || !inner || !rnode || !blockmap || !plans) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    double best = -1;
    int chosen = -1, chosen_bl = 0, tried = 0;
    char chosen_name[sizeof plans[0].name] = "";
    for (int s = 0; s < nbl && tried < budget; s++) {
        const int *b = bl[s].b;
        struct topomap_grid_shape os = {nd, {0}};
        for (int k = 0; k < nd; k++)
            os.d[k] = g.dims[k] / b[k];
        /* Each rank's block and its place inside the block. */
        for (int r = 0; r < n; r++) {
            int bi = 0, ii = 0;
            for (int k = nd - 1; k >= 0; k--) {
                int x = coords[(size_t)r * TOPOMAP_GRID_MAXDIMS + k];
                bi = bi * os.d[k] + x / b[k];
                ii = ii * b[k] + x % b[k];
            }
            blk[r] = bi;
            inner[r] = ii;
        }
        long left = budget - tried;
        int np = topomap_grid_plans(&os, &bx.shape, plans,
                                    left < GRID_MAX_PLANS ? (int)left : GRID_MAX_PLANS);
        for (int q = 0; q < np; q++) {
            if (chosen >= 0 && topomap_expired(pb))
                break;
            if (topomap_grid_plan_run(&plans[q], &os, &bx.shape, blockmap) < 0) {
                topomap_fail(err, errlen, errno, "grid: out of memory");
                goto out;
            }
            tried++;
            /* Work of auto's accounting: the embedding's hop-bytes. */
            topomap_work_add(pb, (double)(n + pb->g.xadj[n]) * TOPOMAP_WORK_EDGE);
            for (int r = 0; r < n; r++) {
                int node = bx.node_at[blockmap[blk[r]]];
                tmp[r] = bx.first[node] + inner[r];
                rnode[r] = bx.tn[node];
            }
            double hb = 0;
            for (int i = 0; i < n; i++)
                for (int64_t e = pb->g.xadj[i]; e < pb->g.xadj[i + 1]; e++)
                    hb += pb->g.w[e] *
                          topomap_topology_hops(pb->topo, rnode[i], rnode[pb->g.adj[e]]);
            hb /= 2;
            if (chosen < 0 || hb < best) {
                best = hb;
                chosen = q;
                chosen_bl = s;
                snprintf(chosen_name, sizeof chosen_name, "%s", plans[q].name);
                memcpy(r2s, tmp, sizeof(int) * (size_t)n);
            }
        }
    }
    if (chosen < 0) {
        topomap_fail(err, errlen, ENOTSUP, "grid: no embedding of the %s block grid", gs);
        goto out;
    }
    grid_str(bl[chosen_bl].b, nd, bs, sizeof bs);
    grid_str(bx.shape.d, bx.shape.nd, ps, sizeof ps);
    topomap_log(pb, "grid: %dD grid %s onto a %s box of nodes; best of %d embeddings: blocks %s, "
                "%s, hop-bytes %.6g",
                nd, gs, bx.shape.nd ? ps : "1", tried, bs, chosen_name, best);
    struct topomap_refine_params rp = {0, pb->deadline, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
    rc = topomap_refine(pb, r2s, &rp, NULL, err, errlen);
out:
    free(own);
    free(tmp);
    free(blk);
    free(inner);
    free(rnode);
    free(blockmap);
    free(plans);
    box_free(&bx);
    return rc;
}
