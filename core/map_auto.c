/* SPDX-License-Identifier: BSD-3-Clause */
/* auto: no single heuristic wins everywhere (see the benchmark: block is best
 * on stencils whose rank order already fits the machine, metis on fat-trees
 * and Tianhe-3, ohtma on some irregular graphs, greedy on some halos), so run
 * a few candidates, each followed by the swap-refinement engine, and keep the
 * one with the lowest hop-bytes. Ties go to the earlier candidate, so block is
 * kept unless something is strictly better. Deterministic: the candidates and
 * the engine are. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Jobs above this size use ohtma-fast (full ohtma is O(n) per exchange step). */
#define AUTO_OHTMA_MAX 8192

/* Hop-bytes of r2s: over the symmetric graph every pair counts twice. */
static double hop_bytes(const struct topomap_problem *pb, const int *r2s)
{
    double sum = 0;
    for (int i = 0; i < pb->n; i++)
        for (int64_t e = pb->g.xadj[i]; e < pb->g.xadj[i + 1]; e++)
            sum += pb->g.w[e] * topomap_slot_hops(pb, r2s[i], r2s[pb->g.adj[e]]);
    return sum / 2;
}

int topomap_map_auto(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    const topomap_map_fn cands[] = {
        topomap_map_block,
        topomap_map_greedy,
        topomap_map_metis,
        pb->n <= AUTO_OHTMA_MAX ? topomap_map_ohtma : topomap_map_ohtma_fast,
    };
    int *tmp = malloc(sizeof(int) * (size_t)(pb->n ? pb->n : 1));
    if (!tmp)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    double best = -1;
    struct topomap_refine_params rp = {0, pb->deadline, REFINE_MIN_GAIN, TOPOMAP_REFINE_AUTO};
    for (size_t c = 0; c < sizeof cands / sizeof cands[0]; c++) {
        /* Out of time: keep what we have (block at least has been tried). */
        if (best >= 0 && topomap_expired(pb))
            break;
        if (cands[c](pb, tmp, err, errlen) < 0 ||
            topomap_refine(pb, tmp, &rp, NULL, err, errlen) < 0) {
            int e = errno;
            free(tmp);
            errno = e;
            return -1;
        }
        double hb = hop_bytes(pb, tmp);
        if (best < 0 || hb < best) {
            best = hb;
            memcpy(r2s, tmp, sizeof(int) * (size_t)pb->n);
        }
    }
    free(tmp);
    return 0;
}
