/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/alloc.h
 * @brief libtopomap: Allocations: the slots (node, core) a job may use.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_ALLOC_H
#define TOPOMAP_API_ALLOC_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/alloc.h>"
#endif

typedef struct topomap_alloc topomap_alloc_t;

/**
 * The allocation of a job on @p t: nodes given by the hostlist expression
 * @p hostlist in allocation order (any order, non-contiguous), and the number
 * of slots on each node by @p slots: NULL or "" for all cores of each node
 * (each node's own count, topomap_topology_node_cores(), when nodes are of
 * several types), "K" for K on every node, or Slurm's
 * SLURM_JOB_CPUS_PER_NODE syntax ("4(x3),2": one count per node). Slot s on
 * a node uses core s mod the node's cores.
 * Slots are numbered node by node in allocation order, cores ascending.
 * Errors (errno EINVAL, message in @p err): unknown hostname, a node listed
 * twice, count mismatch, zero slots.
 */
topomap_alloc_t *topomap_alloc_create(const topomap_topology_t *t, const char *hostlist,
                                      const char *slots, char *err, size_t errlen);
void topomap_alloc_free(topomap_alloc_t *a);
/** The topology @p a was made on. */
const topomap_topology_t *topomap_alloc_topology(const topomap_alloc_t *a);
int topomap_alloc_nslots(const topomap_alloc_t *a);
/** Number of nodes in the allocation. */
int topomap_alloc_nnodes(const topomap_alloc_t *a);
/** Topology node index of the @p i-th allocated node. */
int topomap_alloc_node(const topomap_alloc_t *a, int i);
/** Topology node index of slot @p s. */
int topomap_alloc_slot_node(const topomap_alloc_t *a, int s);
/** Core (0-based inside the node) of slot @p s. */
int topomap_alloc_slot_core(const topomap_alloc_t *a, int s);

#endif /* TOPOMAP_API_ALLOC_H */
