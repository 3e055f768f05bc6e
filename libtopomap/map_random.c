/* SPDX-License-Identifier: BSD-3-Clause */
/* random: a uniformly random choice of n distinct slots, from the seed only
 * (Fisher-Yates over all slots, then the first n). */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int topomap_map_random(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    int *perm = malloc(sizeof(int) * (size_t)pb->nslots);
    if (!perm)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    for (int s = 0; s < pb->nslots; s++)
        perm[s] = s;
    uint64_t st = pb->opts->seed;
    for (int s = pb->nslots - 1; s > 0; s--) {
        int j = (int)topomap_rng_below(&st, (uint64_t)s + 1);
        int t = perm[s];
        perm[s] = perm[j];
        perm[j] = t;
    }
    for (int r = 0; r < pb->n; r++)
        r2s[r] = perm[r];
    free(perm);
    return 0;
}
