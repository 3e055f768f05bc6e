/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology/block in a topology.conf (libtopomap/topo_slurmblock.c): the
 * input is the file. fuzz_slurmconf reads the same files; this harness has
 * its own corpus and dictionary of BlockName=/BlockSizes= lines, so that
 * block files are not crowded out by switch trees. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_topology_file("topology.conf", data, size);
    return 0;
}
