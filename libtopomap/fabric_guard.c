/* SPDX-License-Identifier: BSD-3-Clause */
/* auto on a GPU fabric with NVLink domains: never above Slurm's layout on
 * the busiest NIC. auto chooses nodes by hop-bytes, which on these networks
 * counts the bytes between domains, but a placement with fewer of them can
 * still load one GPU's NIC more (an all-to-all whose groups straddle
 * domains unevenly). The NIC of a GPU carries the bytes its rank sends to
 * and receives from other domains, so its load depends on the nodes alone,
 * not on the GPU inside the node. Here auto's placement is compared with
 * block (Slurm's layout: ranks in allocation order) put on the rails
 * (node_rails.c); when auto's busiest NIC is above that one's, the latter is
 * returned: it is then no worse on the busiest NIC and has block's bytes
 * between domains. Ours; doc/networks.md, "GPU fabrics". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The busiest NIC of placement r2s (bytes one way). */
static int busiest_nic(const struct topomap_problem *pb, const int *r2s, int *node, int *slot,
                       double *out)
{
    topomap_fabric_traffic_t f;
    for (int r = 0; r < pb->n; r++) {
        node[r] = pb->slot_node[r2s[r]];
        slot[r] = pb->slot_core[r2s[r]];
    }
    if (topomap_fabric_traffic(pb->profile, pb->topo, node, slot, &f) < 0)
        return -1;
    *out = f.busiest[TOPOMAP_FLINK_NIC];
    return 0;
}

int topomap_fabric_guard(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen)
{
    if (topomap_topology_domains(pb->topo) < 1 || pb->n < 2)
        return 0;
    int n = pb->n;
    int *alt = malloc(sizeof(int) * (size_t)n), *node = malloc(sizeof(int) * (size_t)n);
    int *slot = malloc(sizeof(int) * (size_t)n);
    double mine, theirs;
    int rc = -1;
    if (!alt || !node || !slot) {
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if (topomap_map_block(pb, alt, err, errlen) < 0 || topomap_node_rails(pb, alt, err, errlen) < 0)
        goto out;
    if (busiest_nic(pb, r2s, node, slot, &mine) < 0 ||
        busiest_nic(pb, alt, node, slot, &theirs) < 0) {
        topomap_fail(err, errlen, errno, "out of memory");
        goto out;
    }
    if (mine > theirs * (1 + 1e-9)) {
        topomap_log(pb, "auto: busiest NIC %.4g B above the layout's %.4g B: the layout on rails",
                    mine, theirs);
        memcpy(r2s, alt, sizeof(int) * (size_t)n);
    }
    rc = 0;
out:
    free(alt);
    free(node);
    free(slot);
    return rc;
}
