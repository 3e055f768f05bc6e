/* SPDX-License-Identifier: BSD-3-Clause */
/* The best placement of a node's ranks on its slots by exhaustive search,
 * for nodes small enough (a GPU node: 8 GPUs give at most 8! = 40,320
 * placements). GPU pairs do not form a tree (a DGX-1's hybrid cube-mesh,
 * a Frontier node's Infinity Fabric), so the tree-shaped TreeMatch and the
 * exchange refinement of node_place.c can stop above the optimum; this
 * search cannot. Depth-first with the cost of the pairs placed so far as
 * the bound (costs are >= 0); ties keep the first found, so the answer is
 * deterministic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct exact {
    int nr, ns;
    const int64_t *xadj;
    const int *adj;
    const double *w, *cost;
    int *pos, *used, *best;
    double best_cost;
};

static void search(struct exact *X, int i, double sofar)
{
    if (sofar >= X->best_cost)
        return;
    if (i == X->nr) {
        X->best_cost = sofar;
        memcpy(X->best, X->pos, sizeof(int) * (size_t)X->nr);
        return;
    }
    for (int x = 0; x < X->ns; x++) {
        if (X->used[x])
            continue;
        double add = 0;
        const double *row = X->cost + (size_t)x * (size_t)X->ns;
        for (int64_t e = X->xadj[i]; e < X->xadj[i + 1]; e++)
            if (X->adj[e] < i)
                add += X->w[e] * row[X->pos[X->adj[e]]];
        X->used[x] = 1;
        X->pos[i] = x;
        search(X, i + 1, sofar + add);
        X->used[x] = 0;
    }
}

int topomap_place_exact(int nr, int ns, const int64_t *xadj, const int *adj, const double *w,
                        const double *cost, int *pos, double *best)
{
    if (nr > ns || ns > TOPOMAP_EXACT_MAX) {
        errno = EINVAL;
        return -1;
    }
    struct exact X = {nr, ns, xadj, adj, w, cost, NULL, NULL, NULL, *best};
    X.pos = malloc(sizeof(int) * (size_t)(nr + 1));
    X.used = calloc((size_t)ns, sizeof(int));
    X.best = malloc(sizeof(int) * (size_t)(nr + 1));
    if (!X.pos || !X.used || !X.best) {
        free(X.pos), free(X.used), free(X.best);
        errno = ENOMEM;
        return -1;
    }
    search(&X, 0, 0.0);
    int found = X.best_cost < *best;
    if (found) {
        memcpy(pos, X.best, sizeof(int) * (size_t)nr);
        *best = X.best_cost;
    }
    free(X.pos), free(X.used), free(X.best);
    return found;
}
