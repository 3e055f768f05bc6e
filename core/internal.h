/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: never installed. What algorithms and modules share. */
#ifndef TOPOMAP_INTERNAL_H
#define TOPOMAP_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include "topomap.h"

/* One mapping problem, built once by topomap_map() and handed to an algorithm.
 * All arrays are owned by topomap_map() and valid during the call. */
struct topomap_problem {
    const topomap_profile_t *profile;
    const topomap_alloc_t *alloc;
    const topomap_topology_t *topo;
    const topomap_opts_t *opts;
    topomap_graph_t g;    /* symmetric affinity graph (A + A^T, no diagonal) */
    int n;                /* ranks */
    int nslots;
    const int *slot_node; /* nslots: topology node of each slot */
    const int *slot_core; /* nslots: core of each slot */
    double deadline;      /* topomap_now() value past which to stop, 0 = none */
};

/* Hop distance between two slots: network hops of their nodes (0 inside a node). */
static inline int topomap_slot_hops(const struct topomap_problem *pb, int s1, int s2)
{
    return topomap_topology_hops(pb->topo, pb->slot_node[s1], pb->slot_node[s2]);
}

/* An algorithm fills rank_to_slot[0..n-1] with distinct slots; 0 or -1 + errno. */
typedef int (*topomap_map_fn)(const struct topomap_problem *pb, int *rank_to_slot,
                              char *err, size_t errlen);

struct topomap_algo {
    const char *name;
    const char *summary;
    topomap_map_fn map;
};

/* The algorithms, one file each (core/map_NAME.c). */
int topomap_map_block(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_cyclic(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);
int topomap_map_random(const struct topomap_problem *pb, int *r2s, char *err, size_t errlen);

/* util.c */
/* printf into err (if non-NULL) and return -1 after setting errno = e. */
int topomap_fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Monotonic clock in seconds. */
double topomap_now(void);
/* 1 once the problem's deadline has passed. */
int topomap_expired(const struct topomap_problem *pb);
/* splitmix64: small, seedable, same stream on every platform. */
uint64_t topomap_rng_next(uint64_t *state);
/* Uniform integer in [0, n). */
uint64_t topomap_rng_below(uint64_t *state, uint64_t n);
/* Strict number parsing: whole string must be consumed. 0 or -1. */
int topomap_parse_long(const char *s, long *out);
int topomap_parse_double(const char *s, double *out);

#endif
