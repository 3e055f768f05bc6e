/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU lists ("0-3,8") and Slurm's SLURM_JOB_CPUS_PER_NODE ("4(x3),2"), as
 * the plugin reads them (spank/). The first byte gives the list's room and
 * the node count. */
#include "fuzz.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int max = data[0], nnodes = 1 + data[0] % 32;
    char *s = fuzz_str(data + 1, size - 1), err[TOPOMAP_ERRLEN] = "";
    int ids[256], cpus[32];
    int n = tmsp_cpulist_parse(s, ids, max);
    FUZZ_CHECK(n >= -1 && n <= max);
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(ids[i] >= 0);
    if (tmsp_cpus_per_node(s, nnodes, cpus, err, sizeof err) == 0) {
        for (int i = 0; i < nnodes; i++)
            FUZZ_CHECK(cpus[i] >= 1);
    } else {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
    }
    free(s);
    return 0;
}
