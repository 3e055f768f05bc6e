/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: building a hostlist name by name (hostlist.c), for
 * the readers of machine descriptions (topo_*.c, topology.c) and the tests.
 * Apart from topology_priv.h so that hostlist.c, below the topology model,
 * includes nothing of the layers above it (doc/architecture.md). */
#ifndef TOPOMAP_HOSTLIST_H
#define TOPOMAP_HOSTLIST_H

#include <stddef.h>

#include "topomap.h"

/* Build a list name by name (len bytes of name, no NUL needed), then seal it
 * before topomap_hostlist_get() is used by others. new: NULL + errno ENOMEM;
 * push and seal: 0, or -1 + errno ENOMEM. */
topomap_hostlist_t *topo_hostlist_new(void);
int topo_hostlist_push(topomap_hostlist_t *hl, const char *name, size_t len);
int topo_hostlist_seal(topomap_hostlist_t *hl);

#endif
