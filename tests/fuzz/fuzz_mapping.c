/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapping files in the slots format (libtopomap/mapping.c), read against a 4 x 4
 * torus of 4-core nodes n[00-15] for a ring profile of 1 to 64 ranks (first
 * byte); a mapping read is evaluated, and its metrics must be finite. */
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static topomap_topology_t *t;
    static topomap_profile_t *ring[65];
    char err[TOPOMAP_ERRLEN] = "";
    if (!t) {
        int dims[2] = {4, 4};
        t = topomap_topology_torus(2, dims, NULL, 4, "n[00-15]", err, sizeof err);
        FUZZ_CHECK(t);
    }
    if (size < 1)
        return 0;
    int n = 1 + data[0] % 64;
    if (!ring[n]) {
        int src[64], dst[64];
        double b[64];
        for (int i = 0; i < n; i++) {
            src[i] = i;
            dst[i] = (i + 1) % n;
            b[i] = 1 + i;
        }
        ring[n] = topomap_profile_create(n, (size_t)n, src, dst, b, NULL, err, sizeof err);
        FUZZ_CHECK(ring[n]);
    }
    const char *path = fuzz_file("m.map", data + 1, size - 1);
    int node[64], core[64];
    if (topomap_mapping_read(path, t, n, node, core, err, sizeof err) < 0) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(node[i] >= 0 && node[i] < 16 && core[i] >= 0 && core[i] < 4);
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    FUZZ_CHECK(topomap_eval(ring[n], t, node, core, &m) == 0);
    FUZZ_CHECK(isfinite(m.hop_bytes) && isfinite(m.sumcom) && isfinite(m.congestion_max));
    return 0;
}
