/* SPDX-License-Identifier: BSD-3-Clause */
/* The Tianhe-3 exascale prototype network (Li et al., "OHTMA", FITEE 2020,
 * section 4.2 and Table 1): switch chips on a rows x cols mesh, chips in the
 * same row or column directly linked, each chip serving N compute nodes split
 * into a left and a right half. Table 1 gives the hop counts:
 *   same chip 1, same row or column 3, different row and column 5,
 *   one more when the two nodes sit on different sides; 0 for the same node.
 * The paper fixes N = 96 (48 + 48); here N is a parameter (any even number).
 * Node index = chip * N + k, chip = row * cols + col, k < N/2 on the left.
 *
 * Routes (for congestion, libtopomap/congestion.c). Elements: the nodes, then the
 * two halves of each chip (element nnodes + 2 chip + side, side 0 = left),
 * each half a switch serving its nodes. Cables: a node to its half; the two
 * halves of a chip (the extra hop between sides of Table 1); and the direct
 * links between chips of one row or column, one per side (left halves to
 * left halves, right to right). A message goes up its node's cable, changes
 * side on the source chip if the two nodes are on different sides, moves
 * along the source row to the destination column, then along that column to
 * the destination row (row-then-column), and goes down to its node.
 * Table 1 counts one hop per chip passed and one per link between chips or
 * sides; no cable model can give exactly those numbers (two nodes of one
 * side are 1 hop apart but share no cable other than their own two), so a
 * route of c chip links, s side changes and the two node cables has
 * 2 + c + s channels where Table 1 says 1 + 2 c + s hops.
 * Channel numbers: 2 node (up) and 2 node + 1 (down); then, from 2 nnodes,
 * 2 chip + side for the side change leaving that half; then, from
 * 2 nnodes + 2 chips, 2 (chip x (rows + cols) + t) + side for the chip link
 * leaving chip towards column t of its row (t < cols) or row t - cols of its
 * column. */
#include <errno.h>

#include "internal.h"
#include "topology_priv.h"

static int th3_hops(const topomap_topology_t *t, int a, int b)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    int ca = a / T->npc, cb = b / T->npc;
    int side = (a - ca * T->npc >= T->half) != (b - cb * T->npc >= T->half);
    if (ca == cb)
        return 1 + side;
    int same_line = ca / T->cols == cb / T->cols || ca % T->cols == cb % T->cols;
    return (same_line ? 3 : 5) + side;
}

static int th3_diameter(const topomap_topology_t *t)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    /* Every chip has both sides (npc >= 2), so the "+1" case always exists. */
    if (T->rows > 1 && T->cols > 1)
        return 6;
    if (T->rows * T->cols > 1)
        return 4;
    return 2;
}

static int th3_coords(const topomap_topology_t *t, int node, int *coords, int maxdims)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    int chip = node / T->npc, k = node % T->npc;
    int c[4] = {chip / T->cols, chip % T->cols, k >= T->half, k % T->half};
    for (int i = 0; i < 4 && i < maxdims; i++)
        coords[i] = c[i];
    return 4;
}

static int th3_describe(const topomap_topology_t *t, FILE *f)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    fprintf(f, "chips: %d x %d mesh, %d nodes per chip (%d left, %d right); "
               "hops 1/2 same chip, 3/4 same row or column, 5/6 otherwise (OHTMA Table 1)\n",
            T->rows, T->cols, T->npc, T->half, T->half);
    return 0;
}

static void th3_channels(const topomap_topology_t *t, int *nswitches, int *route_max)
{
    *nswitches = 2 * t->u.th3.rows * t->u.th3.cols;
    *route_max = 5; /* two node cables, one side change, two chip links */
}

static int th3_route(const topomap_topology_t *t, int a, int b, int64_t *chan)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    int64_t n = t->nnodes, chips = (int64_t)T->rows * T->cols, side_base = 2 * n;
    int64_t link_base = side_base + 2 * chips, width = T->rows + T->cols;
    int ca = a / T->npc, cb = b / T->npc;
    int sa = a - ca * T->npc >= T->half, sb = b - cb * T->npc >= T->half;
    int ra = ca / T->cols, rb = cb / T->cols, colb = cb % T->cols, h = 0;
    chan[h++] = 2 * (int64_t)a;
    if (sa != sb)
        chan[h++] = side_base + 2 * ca + sa;
    if (ca % T->cols != colb) /* along the row, to the destination column */
        chan[h++] = link_base + 2 * (ca * width + colb) + sb;
    int cur = ra * T->cols + colb;
    if (ra != rb) /* along the column, to the destination row */
        chan[h++] = link_base + 2 * (cur * width + T->cols + rb) + sb;
    chan[h++] = 2 * (int64_t)b + 1;
    return h;
}

static void th3_channel_ends(const topomap_topology_t *t, int64_t c, int *from, int *to)
{
    const struct topo_tianhe3 *T = &t->u.th3;
    int64_t n = t->nnodes, chips = (int64_t)T->rows * T->cols, side_base = 2 * n;
    int64_t link_base = side_base + 2 * chips, width = T->rows + T->cols;
    if (c < side_base) { /* a node's cable */
        int node = (int)(c / 2), chip = node / T->npc;
        int half = (int)n + 2 * chip + (node - chip * T->npc >= T->half);
        *from = c % 2 ? half : node;
        *to = c % 2 ? node : half;
    } else if (c < link_base) { /* a side change inside a chip */
        int half = (int)(n + (c - side_base));
        *from = half;
        *to = half ^ 1; /* the two halves of a chip differ in the last bit: n is even */
    } else {
        int64_t l = (c - link_base) / 2;
        int side = (int)((c - link_base) % 2), chip = (int)(l / width), k = (int)(l % width);
        int dest = k < T->cols ? chip / T->cols * T->cols + k
                               : (k - T->cols) * T->cols + chip % T->cols;
        *from = (int)n + 2 * chip + side;
        *to = (int)n + 2 * dest + side;
    }
}

static const struct topo_ops th3_ops = {
    .shape = TOPOMAP_SHAPE_CHIPS,
    .shortest_hops = 1,
    .hops = th3_hops,
    .diameter = th3_diameter,
    .coords = th3_coords,
    .describe = th3_describe,
    .channels = th3_channels,
    .route = th3_route,
    .channel_ends = th3_channel_ends,
};

int topo_tianhe3_count(int rows, int cols, int npc, char *err, size_t errlen)
{
    if (rows < 1 || cols < 1)
        return topomap_fail(err, errlen, EINVAL, "the chip mesh must be at least 1 x 1, not %d x %d",
                            rows, cols);
    if (npc < 2 || npc % 2)
        return topomap_fail(err, errlen, EINVAL,
                            "nodes per chip must be even and >= 2 (left and right halves), not %d",
                            npc);
    if ((long)rows * cols * npc > TOPO_MAX_NODES)
        return topomap_fail(err, errlen, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
    return rows * cols * npc;
}

topomap_topology_t *topo_tianhe3_build(int rows, int cols, int npc, int cores,
                                       topomap_hostlist_t *names, char *err, size_t errlen)
{
    int n = topo_tianhe3_count(rows, cols, npc, err, errlen);
    if (n < 0) {
        topomap_hostlist_free(names);
        return NULL;
    }
    topomap_topology_t *t = topo_new(&th3_ops, "tianhe3", n, names, err, errlen);
    if (!t)
        return NULL;
    t->u.th3.rows = rows;
    t->u.th3.cols = cols;
    t->u.th3.npc = npc;
    t->u.th3.half = npc / 2;
    return topo_finish(t, cores, err, errlen);
}

topomap_topology_t *topomap_topology_tianhe3(int rows, int cols, int nodes_per_chip, int cores,
                                             const char *hostlist, char *err, size_t errlen)
{
    topomap_hostlist_t *names = NULL;
    if (hostlist && !(names = topomap_hostlist_parse(hostlist, err, errlen)))
        return NULL;
    return topo_tianhe3_build(rows, cols, nodes_per_chip, cores, names, err, errlen);
}
