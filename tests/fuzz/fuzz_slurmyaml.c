/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology.yaml (libtopomap/topo_slurmyaml.c, built by topo_tree.c and
 * topo_slurmblock.c; 26.05's ring and torus3d by topo_slurmyaml_torus.c and
 * topo_pods.c): one byte picking the topology asked for (Slurm's default or
 * a name; topo4 and topo5 are 26.05's ring and torus3d examples), then the
 * file. Refused with a printable message, or a consistent topology. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {NULL,    "topo1", "topo2", "topo3",   "default",
                                        "b",     "topo4", "topo5", "one-ring"};
    if (size < 1)
        return 0;
    const char *name = names[data[0] % 9];
    const char *path = fuzz_file("topology.yaml", data + 1, size - 1);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load_named(path, name, err, sizeof err);
    if (!t) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    fuzz_check_topology(t);
    topomap_topology_free(t);
    return 0;
}
