/* SPDX-License-Identifier: BSD-3-Clause */
/* The PMI2 process mapping of a placement (see policy.h). */
#include <errno.h>
#include <stdlib.h>

#include "common.h"

char *tmsp_pmi2_mapping(const int *node, int n, size_t maxlen)
{
    struct topomap_sbuf b = {0};
    tmsp_sb_printf(&b, "(vector");
    /* Blocks (start, count, size): count consecutive nodes from start, size
     * consecutive ranks on each, the way MPICH reads PMI_process_mapping. */
    int i = 0;
    while (i < n) {
        int start = node[i], size = 1;
        while (i + size < n && node[i + size] == start)
            size++;
        int count = 1, j = i + size;
        for (;;) {
            int k = 0;
            while (j + k < n && k < size && node[j + k] == start + count)
                k++;
            if (k != size || (j + k < n && node[j + k] == start + count))
                break;
            count++;
            j += size;
        }
        tmsp_sb_printf(&b, ",(%d,%d,%d)", start, count, size);
        i = j;
        if (!b.oom && b.len > maxlen)
            break;
    }
    tmsp_sb_printf(&b, ")");
    if (b.oom) {
        free(b.s);
        errno = ENOMEM;
        return NULL;
    }
    if (b.len > maxlen) {
        free(b.s);
        errno = E2BIG;
        return NULL;
    }
    return b.s;
}

