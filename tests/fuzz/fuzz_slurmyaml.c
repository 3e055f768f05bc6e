/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology.yaml (libtopomap/topo_slurmyaml.c, built by topo_tree.c and
 * topo_slurmblock.c): one byte picking the topology asked for (Slurm's
 * default or a name), then the file. Refused with a printable message, or a
 * consistent topology. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {NULL, "topo1", "topo2", "topo3", "default", "b"};
    if (size < 1)
        return 0;
    const char *name = names[data[0] % 6];
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
