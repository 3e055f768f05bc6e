/* SPDX-License-Identifier: BSD-3-Clause */
/* The binding codec passed from srun to the nodes (TOPOMAP_BIND, spank/):
 * decoded for 1 to 256 ranks (first byte), a value read must encode and
 * decode back to the same cores; the PMI2 mapping of the decoded cores
 * (used as node numbers) is built too. */
#include "fuzz.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n = 1 + data[0], core[256], back[256], cpt, cpt2;
    char *s = fuzz_str(data + 1, size - 1);
    if (tmsp_bind_decode(s, n, core, &cpt) == 0) {
        FUZZ_CHECK(cpt >= 1);
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(core[i] >= 0);
        char *e = tmsp_bind_encode(core, n, cpt);
        FUZZ_CHECK(e);
        FUZZ_CHECK(tmsp_bind_decode(e, n, back, &cpt2) == 0 && cpt2 == cpt);
        FUZZ_CHECK(!memcmp(back, core, sizeof(int) * (size_t)n));
        free(e);
        int node[256];
        for (int i = 0; i < n; i++)
            node[i] = core[i] % 64;
        char *m = tmsp_pmi2_mapping(node, n, TOPOMAP_PMI2_MAXLEN);
        free(m);
    }
    free(s);
    return 0;
}
