/* SPDX-License-Identifier: BSD-3-Clause */
/* The linear assignment problem: rows onto distinct columns at least cost,
 * by the Hungarian method (Kuhn 1955, Munkres 1957) in its O(nr^2 nc)
 * shortest-augmenting-path form with row and column potentials (as in
 * Jonker & Volgenant 1987, without their initialisation heuristics): each
 * row in turn is added by a Dijkstra-like search over reduced costs. The
 * potentials it keeps are an optimal dual, which the branch-and-bound of
 * map_exact.c uses to prune a child without bounding it. Written here:
 * Debian packages no C solver of it (LEMON is C++ and min-cost-flow
 * shaped; GLPK solves it as a general LP, far slower at these sizes). */
#include <errno.h>
#include <float.h>
#include <stdlib.h>

#include "qap.h"

double topomap_lap(int nr, int nc, const double *c, int *col, double *u_out, double *v_out)
{
    if (nr <= 0)
        return 0;
    /* 1-based, index 0 of the columns is the row being added. */
    double *u = calloc((size_t)nr + 1, sizeof *u), *v = calloc((size_t)nc + 1, sizeof *v);
    double *minv = malloc(sizeof(double) * ((size_t)nc + 1));
    int *p = calloc((size_t)nc + 1, sizeof *p), *way = calloc((size_t)nc + 1, sizeof *way);
    char *used = malloc((size_t)nc + 1);
    if (!u || !v || !minv || !p || !way || !used) {
        free(u), free(v), free(minv), free(p), free(way), free(used);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 1; i <= nr; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= nc; j++)
            minv[j] = DBL_MAX, used[j] = 0;
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            double delta = DBL_MAX;
            const double *row = c + (size_t)(i0 - 1) * (size_t)nc;
            for (int j = 1; j <= nc; j++) {
                if (used[j])
                    continue;
                double cur = row[j - 1] - u[i0] - v[j];
                if (cur < minv[j])
                    minv[j] = cur, way[j] = j0;
                if (minv[j] < delta)
                    delta = minv[j], j1 = j;
            }
            for (int j = 0; j <= nc; j++)
                if (used[j])
                    u[p[j]] += delta, v[j] -= delta;
                else
                    minv[j] -= delta;
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    double total = 0;
    for (int j = 1; j <= nc; j++)
        if (p[j]) {
            col[p[j] - 1] = j - 1;
            total += c[(size_t)(p[j] - 1) * (size_t)nc + (size_t)(j - 1)];
        }
    /* v[0] carried the rows' additions: the columns' duals are v[1..nc]. */
    for (int i = 0; u_out && i < nr; i++)
        u_out[i] = u[i + 1];
    for (int j = 0; v_out && j < nc; j++)
        v_out[j] = v[j + 1];
    free(u), free(v), free(minv), free(p), free(way), free(used);
    return total;
}
