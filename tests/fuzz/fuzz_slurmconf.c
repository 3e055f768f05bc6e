/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm topology.conf files (libtopomap/topo_slurmconf.c, topology/tree,
 * topology/block (libtopomap/topo_slurmblock.c) and Slurm 26.05's
 * topology/ring (topo_rings_build in libtopomap/topo_pods.c)): the input is
 * the file; what has no SwitchName=, BlockName= or RingName= line goes to
 * the YAML reader, as in the library. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_topology_file("topology.conf", data, size);
    return 0;
}
