/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm topology.conf files (libtopomap/topo_slurmconf.c, topology/tree and
 * topology/block, libtopomap/topo_slurmblock.c): the input is the file;
 * what has no SwitchName= or BlockName= line goes to the YAML reader, as in
 * the library. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_topology_file("topology.conf", data, size);
    return 0;
}
