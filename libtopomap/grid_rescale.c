/* SPDX-License-Identifier: BSD-3-Clause */
/* A grid profile recorded at one rank count, synthesised for another, so
 * that a profile recorded once serves every job size. A stencil code run on
 * more ranks cuts the same global domain into more, smaller boxes: the
 * process grid is what the application's own factorisation gives (here
 * MPI_Dims_create's, the most common), the rank
 * order stays x fastest, and the bytes between two neighbours follow the
 * area of the face they share (surface-to-volume). topomap.h documents the
 * rule; what a real application does may differ (LAMMPS picks its grid from
 * the box's shape, PETSc's DMDA from the mesh's), so the synthesised profile
 * is a prediction, said as such by the plugin. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAXD TOPOMAP_GRID_MAXDIMS

/* Best non-increasing factorisation of n into nd factors so far: the
 * lexicographically smallest (smallest largest factor, then second...), which
 * is MPI_Dims_create's "as close to each other as possible" (MPICH gives
 * 128 -> 8 x 4 x 4, 256 -> 8 x 8 x 4). */
static void dims_search(long n, int nd, int at, long maxf, long *cur, long *best, int *found)
{
    if (at == nd - 1) {
        if (n > maxf)
            return;
        cur[at] = n;
        int better = !*found;
        for (int k = 0; k < nd && !better; k++) {
            if (cur[k] != best[k]) {
                better = cur[k] < best[k];
                break;
            }
        }
        if (better) {
            memcpy(best, cur, sizeof(long) * (size_t)nd);
            *found = 1;
        }
        return;
    }
    for (long f = maxf < n ? maxf : n; f >= 1; f--)
        if (n % f == 0) {
            cur[at] = f;
            dims_search(n / f, nd, at + 1, f, cur, best, found);
        }
}

/* MPI_Dims_create(n, nd) with every dimension free, largest first. */
static void dims_create(long n, int nd, long *out)
{
    long cur[MAXD];
    int found = 0;
    dims_search(n, nd, 0, n, cur, out, &found);
}

topomap_profile_t *topomap_grid_rescale(const topomap_profile_t *p, int nranks, double weak,
                                        topomap_grid_t *gout, char *err, size_t errlen)
{
    if (!p || nranks < 1) {
        topomap_fail(err, errlen, EINVAL, "topomap_grid_rescale: bad argument");
        return NULL;
    }
    topomap_grid_t g;
    int nd = topomap_grid_detect(p, weak, &g, NULL);
    if (nd < 0) {
        topomap_fail(err, errlen, errno, "out of memory");
        return NULL;
    }
    if (nd == 0) {
        topomap_fail(err, errlen, EINVAL, "not a grid (%s)", g.why);
        return NULL;
    }
    if (!g.rank_order) {
        topomap_fail(err, errlen, EINVAL,
                     "a grid whose ranks are permuted: its order at another rank count is unknown");
        return NULL;
    }
    long ext[MAXD];
    dims_create(nranks, nd, ext);
    if (ext[nd - 1] < 2) {
        topomap_fail(err, errlen, ERANGE, "%d ranks make no %dD grid of extents of at least 2",
                     nranks, nd);
        return NULL;
    }
    /* The largest new extent to the largest old one; ties: slowest first. */
    int order[MAXD];
    for (int k = 0; k < nd; k++)
        order[k] = nd - 1 - k;
    for (int a = 1; a < nd; a++)
        for (int b = a; b > 0 && g.dims[order[b]] > g.dims[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    topomap_grid_t ng = g;
    for (int k = 0; k < nd; k++)
        ng.dims[order[k]] = (int)ext[k];
    ng.rank0_ignored = 0;
    ng.weak_edges = 0;
    /* Bytes of one face along k: a size-2 periodic dimension puts both
     * faces in one entry. */
    double fb[MAXD], fm[MAXD];
    for (int k = 0; k < nd; k++) {
        double faces = g.dims[k] == 2 && g.periodic[k] ? 2 : 1;
        double area = 1;
        for (int j = 0; j < nd; j++)
            if (j != k)
                area *= (double)g.dims[j] / ng.dims[j];
        double nfaces = ng.dims[k] == 2 && ng.periodic[k] ? 2 : 1;
        fb[k] = g.dim_bytes[k] / faces * area * nfaces;
        fm[k] = g.dim_msgs[k] / faces * nfaces;
        ng.dim_bytes[k] = fb[k];
        ng.dim_msgs[k] = fm[k];
    }
    size_t cap = (size_t)nranks * 2 * MAXD, ne = 0;
    int *src = malloc(sizeof(int) * cap), *dst = malloc(sizeof(int) * cap);
    double *bytes = malloc(sizeof(double) * cap), *msgs = malloc(sizeof(double) * cap);
    topomap_profile_t *out = NULL;
    if (!src || !dst || !bytes || !msgs) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto done;
    }
    for (int r = 0; r < nranks; r++) {
        long st = 1;
        for (int k = 0; k < nd; k++) {
            int x = (int)((r / st) % ng.dims[k]);
            /* Extent 2: both sides are one neighbour, one entry. */
            for (int s = -1; s <= 1; s += ng.dims[k] == 2 ? 3 : 2) {
                int y = ng.dims[k] == 2 ? 1 - x : x + s;
                if (y < 0 || y >= ng.dims[k]) {
                    if (!ng.periodic[k])
                        continue;
                    y = (y + ng.dims[k]) % ng.dims[k];
                }
                src[ne] = r;
                dst[ne] = (int)(r + (long)(y - x) * st);
                bytes[ne] = fb[k];
                msgs[ne] = fm[k];
                ne++;
            }
            st *= ng.dims[k];
        }
    }
    out = topomap_profile_create(nranks, ne, src, dst, bytes,
                                 topomap_profile_has_msgs(p) ? msgs : NULL, err, errlen);
    if (out) {
        char from[24], desc[64];
        size_t dl = 0;
        snprintf(from, sizeof from, "%d", topomap_profile_nranks(p));
        for (int k = 0; k < nd; k++)
            dl += (size_t)snprintf(desc + dl, sizeof desc - dl, "%s%d", k ? "x" : "", ng.dims[k]);
        if (topomap_profile_copy_meta(out, p) < 0 ||
            topomap_profile_set_meta(out, "rescaled_from", from) < 0 ||
            topomap_profile_set_meta(out, "grid", desc) < 0) {
            topomap_profile_free(out);
            out = NULL;
            topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
    }
    if (out && gout)
        *gout = ng;
done:
    free(src);
    free(dst);
    free(bytes);
    free(msgs);
    return out;
}

int topomap_count_refused(const char *name, int had, int nranks, char *err, size_t errlen)
{
    return topomap_fail(err, errlen, ERANGE,
                        "profile '%s' was recorded with %d ranks, this job has %d: not used",
                        name ? name : "?", had, nranks);
}

topomap_profile_t *topomap_profile_adapt(topomap_profile_t *p, int nranks, const char *name,
                                         char *err, size_t errlen)
{
    if (!p) {
        topomap_fail(err, errlen, EINVAL, "topomap_profile_adapt: bad argument");
        return NULL;
    }
    int had = topomap_profile_nranks(p);
    if (nranks < 1 || had == nranks)
        return p;
    topomap_profile_t *r = topomap_grid_rescale(p, nranks, 0, NULL, NULL, 0);
    topomap_profile_free(p);
    if (!r)
        topomap_count_refused(name, had, nranks, err, errlen);
    return r;
}
