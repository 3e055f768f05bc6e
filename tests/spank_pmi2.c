/* SPDX-License-Identifier: BSD-3-Clause */
/* The PMI2 process mapping of a placement (spank/pmi2.c), read back the way
 * MPICH reads it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

/* MPICH's reading of a PMI_process_mapping vector (no wraparound needed when
 * the blocks cover every rank): node of each rank, -1 past the end. */
static int expand_vector(const char *s, int *node, int n)
{
    int k = 0;
    if (strncmp(s, "(vector", 7))
        return -1;
    s += 7;
    while (*s == ',') {
        int start, count, size, used;
        if (sscanf(s, ",(%d,%d,%d)%n", &start, &count, &size, &used) != 3)
            return -1;
        s += used;
        for (int c = 0; c < count; c++)
            for (int z = 0; z < size; z++) {
                if (k >= n)
                    return -1;
                node[k++] = start + c;
            }
    }
    return strcmp(s, ")") ? -1 : k;
}

static void pmi2_tests(void)
{
    int core[64], back[64], good;
    unsigned seed = 7;
    char *s;
    int blk[] = {0, 0, 1, 1, 2, 2, 3, 3}, cyc[] = {0, 1, 2, 3, 0, 1, 2, 3};
    s = tmsp_pmi2_mapping(blk, 8, 1000);
    is_str(s, "(vector,(0,4,2))", "block layout: one block");
    free(s);
    s = tmsp_pmi2_mapping(cyc, 8, 1000);
    is_str(s, "(vector,(0,4,1),(0,4,1))", "cyclic layout");
    free(s);
    int odd[] = {2, 2, 0, 1, 1, 3};
    s = tmsp_pmi2_mapping(odd, 6, 1000);
    is_str(s, "(vector,(2,1,2),(0,1,1),(1,1,2),(3,1,1))", "irregular layout");
    free(s);
    good = 1;
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(rand_r(&seed) % 64);
        for (int i = 0; i < n; i++)
            core[i] = (int)(rand_r(&seed) % 6);
        s = tmsp_pmi2_mapping(core, n, 100000);
        good &= s && expand_vector(s, back, 64) == n &&
                !memcmp(back, core, (size_t)n * sizeof *core);
        free(s);
    }
    ok(good, "200 random layouts read back the way MPICH reads them");
    for (int i = 0; i < 64; i++)
        core[i] = (i * 7) % 13;
    errno = 0;
    ok(tmsp_pmi2_mapping(core, 64, 100) == NULL && errno == E2BIG,
       "a mapping longer than the limit: E2BIG");

}

int main(void)
{
    pmi2_tests();
    return done_testing();
}
