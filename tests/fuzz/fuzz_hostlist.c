/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm hostlist expressions (libtopomap/hostlist.c). An expanded list compressed
 * with topomap_hostlist_compress() must expand back to the same names. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *expr = fuzz_str(data, size);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, err, sizeof err);
    free(expr);
    if (!hl) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    size_t n = topomap_hostlist_count(hl);
    FUZZ_CHECK(n <= TOPOMAP_MAX_NODES);
    if (n <= 100000) {
        const char **names = malloc((n ? n : 1) * sizeof *names);
        FUZZ_CHECK(names);
        for (size_t i = 0; i < n; i++)
            names[i] = topomap_hostlist_get(hl, i);
        char *c = topomap_hostlist_compress(names, n);
        FUZZ_CHECK(c);
        topomap_hostlist_t *back = topomap_hostlist_parse(c, err, sizeof err);
        if (!back)
            fprintf(stderr, "fuzz: compressed '%s' does not parse: %s\n", c, err);
        FUZZ_CHECK(back && topomap_hostlist_count(back) == n);
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(!strcmp(topomap_hostlist_get(back, i), names[i]));
        topomap_hostlist_free(back);
        free(c);
        free(names);
    }
    topomap_hostlist_free(hl);
    return 0;
}
