/* SPDX-License-Identifier: BSD-3-Clause */
/* Core binding: the TOPOMAP_BIND codec, Slurm's CPU lists, and the CPU set of a
 * task on its node (see policy.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

char *tmsp_bind_encode(const int *core, int n, int cpt)
{
    struct topomap_sbuf b = {0};
    tmsp_sb_printf(&b, "1:%d:", cpt);
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (i)
            tmsp_sb_printf(&b, ",");
        while (j < n && core[j] == core[i])
            j++;
        if (j - i > 1) {
            tmsp_sb_printf(&b, "%dx%d", core[i], j - i);
            i = j;
            continue;
        }
        j = i + 1;
        while (j < n && core[j] == core[j - 1] + 1 && (j + 1 >= n || core[j + 1] != core[j]))
            j++;
        if (j - i > 1)
            tmsp_sb_printf(&b, "%d-%d", core[i], core[j - 1]);
        else
            tmsp_sb_printf(&b, "%d", core[i]);
        i = j;
    }
    if (b.oom) {
        free(b.s);
        errno = ENOMEM;
        return NULL;
    }
    return b.s;
}


int tmsp_bind_decode(const char *s, int n, int *core, int *cpt)
{
    if (!s || strncmp(s, "1:", 2)) {
        errno = EINVAL;
        return -1;
    }
    const char *p = s + 2;
    long c = tmsp_uint(&p);
    if (c <= 0 || *p != ':') {
        errno = EINVAL;
        return -1;
    }
    *cpt = (int)c;
    p++;
    int k = 0;
    while (*p) {
        long a = tmsp_uint(&p), b = a, rep = 1;
        if (a < 0)
            goto bad;
        if (*p == '-') {
            p++;
            b = tmsp_uint(&p);
            if (b < a)
                goto bad;
        } else if (*p == 'x') {
            p++;
            rep = tmsp_uint(&p);
            if (rep <= 0)
                goto bad;
        }
        for (long v = a; v <= b; v++)
            for (long r = 0; r < rep; r++) {
                if (k >= n)
                    goto bad;
                core[k++] = (int)v;
            }
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            goto bad;
    }
    if (k != n)
        goto bad;
    return 0;
bad:
    errno = EINVAL;
    return -1;
}

int tmsp_cpulist_parse(const char *s, int *ids, int max)
{
    int k = 0;
    const char *p = s;
    if (!p || !*p) {
        errno = EINVAL;
        return -1;
    }
    while (*p) {
        long a = tmsp_uint(&p), b = a;
        if (a < 0) {
            errno = EINVAL;
            return -1;
        }
        if (*p == '-') {
            p++;
            b = tmsp_uint(&p);
            if (b < a) {
                errno = EINVAL;
                return -1;
            }
        }
        for (long v = a; v <= b; v++) {
            if (k >= max) {
                errno = E2BIG;
                return -1;
            }
            ids[k++] = (int)v;
        }
        if (*p == ',' && p[1])
            p++;
        else if (*p) {
            errno = EINVAL;
            return -1;
        }
    }
    return k;
}

int tmsp_bind_cpuset(hwloc_topology_t topo, const int *alloc, int nalloc, int k, int cpt,
                     hwloc_bitmap_t set, char *err, size_t errlen)
{
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int avail = alloc ? nalloc : ncores;
    hwloc_bitmap_zero(set);
    if (k < 0 || cpt <= 0 || (long)(k + 1) * cpt > avail)
        return tmsp_fail(
            err, errlen, ERANGE,
            "core index %d (x %d CPUs per task) is past the %d cores of the step here", k, cpt,
            avail);
    for (int i = k * cpt; i < (k + 1) * cpt; i++) {
        int c = alloc ? alloc[i] : i;
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
        if (!obj || !obj->cpuset)
            return tmsp_fail(err, errlen, ERANGE, "core %d does not exist here (%d cores)", c,
                             ncores);
        hwloc_bitmap_or(set, set, obj->cpuset);
    }
    return 0;
}
