/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm topology.conf files (core/topo_slurmconf.c): the input is the file;
 * what has no SwitchName= line goes to the YAML reader, as in the library. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("topology.conf", data, size);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    if (!t) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    fuzz_check_topology(t);
    topomap_topology_free(t);
    return 0;
}
