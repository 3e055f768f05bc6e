/* SPDX-License-Identifier: BSD-3-Clause */
/* cyclic (round-robin): rank r goes to the next node in allocation order that
 * still has a free slot, cycling over nodes (Slurm's --distribution=cyclic).
 * Nodes with fewer slots drop out of the cycle once full. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int topomap_map_cyclic(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    const topomap_alloc_t *a = pb->alloc;
    int nn = topomap_alloc_nnodes(a);
    /* first[i], end[i]: slot range of the i-th allocated node; next[i]: next free slot. */
    int *first = malloc(sizeof(int) * (size_t)(nn + 1));
    int *next = malloc(sizeof(int) * (size_t)nn);
    if (!first || !next) {
        free(first);
        free(next);
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    }
    int i = 0;
    for (int s = 0; s < pb->nslots; s++)
        if (s == 0 || pb->slot_node[s] != pb->slot_node[s - 1])
            first[i++] = s;
    first[nn] = pb->nslots;
    for (i = 0; i < nn; i++)
        next[i] = first[i];
    int node = 0;
    for (int r = 0; r < pb->n; r++) {
        while (next[node] == first[node + 1])
            node = (node + 1) % nn;
        r2s[r] = next[node]++;
        node = (node + 1) % nn;
    }
    free(first);
    free(next);
    return 0;
}
