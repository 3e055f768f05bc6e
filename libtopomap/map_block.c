/* SPDX-License-Identifier: BSD-3-Clause */
/* block (in-order): rank r on slot r. Slots are numbered node by node in
 * allocation order, so consecutive ranks fill a node, as Slurm's default
 * block distribution does. */
#include "internal.h"

int topomap_map_block(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    for (int r = 0; r < pb->n; r++)
        r2s[r] = r;
    return 0;
}
