/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap/base.h
 * @brief libtopomap: Input limits and small helpers for callers.
 *
 * Part of <topomap.h>, which includes it with the others in order:
 * include <topomap.h>, not this file.
 */
#ifndef TOPOMAP_API_BASE_H
#define TOPOMAP_API_BASE_H
#ifndef TOPOMAP_H
#error "include <topomap.h>, not <topomap/base.h>"
#endif

/*
 * Input limits (doc/formats.md#input-limits). An input that declares more is
 * refused with errno EINVAL and a "FILE:LINE: ..." message before anything
 * proportional to the declared size is allocated: a 10-byte file cannot ask
 * for gigabytes. Every input file must be a regular file: FIFOs, devices and
 * directories are refused before anything is read, so that a reader never
 * blocks on them.
 */
/** Ranks of a profile (declared rank count, matrix size, a rank number + 1). */
#define TOPOMAP_MAX_RANKS (1 << 22)
/** Nodes of a topology, and the names one hostlist expression expands to. */
#define TOPOMAP_MAX_NODES (1 << 20)
/** Node types of a topology (type 0 included). */
#define TOPOMAP_MAX_NODE_TYPES 256
/** Switches of a Slurm topology.conf. */
#define TOPOMAP_MAX_SWITCHES (1 << 20)
/** Slots of an allocation (nodes x slots per node). */
#define TOPOMAP_MAX_SLOTS (1 << 24)
/** Bytes of a topology file (YAML, topology.conf) or hwloc XML file. */
#define TOPOMAP_MAX_TOPOLOGY_FILE (64L << 20)
/** Nesting depth (mappings and lists inside each other) of a topology YAML. */
#define TOPOMAP_MAX_YAML_DEPTH 64
/** Nodes (scalars, mappings, lists) of a topology YAML. */
#define TOPOMAP_MAX_YAML_NODES (1 << 21)
/** Total bytes, and total messages, of a profile (real traffic is far below).
 *  With the cost and bandwidth bounds below, every metric stays finite:
 *  hop-bytes, SumCom, congestion, statistics. */
#define TOPOMAP_MAX_TOTAL 1e30
/** Largest SumCom cost of one hop and of a node level (YAML hop_cost, cost,
 *  self_cost, costs; topomap_topology_set_hop_cost(), _set_node_levels()). */
#define TOPOMAP_MAX_COST 1e6
/** Smallest link bandwidth other than 0 (unknown), in bytes per second. */
#define TOPOMAP_MIN_BANDWIDTH 1.0
/** OpenMP threads of topomap_opts_t.nthreads. */
#define TOPOMAP_MAX_THREADS 1024

/**
 * A copy of @p s that is safe to print on a terminal: control characters
 * (C0 including tab, DEL, C1), bytes that are not UTF-8 and Unicode
 * bidirectional overrides become '?'; other UTF-8 text is kept. At most
 * @p len - 1 bytes: a longer @p s is cut and ends with "...". @p buf may be
 * @p s itself (in place). Every error message of the library is made safe
 * this way.
 * @return @p buf (NUL-terminated when @p len > 0).
 */
char *topomap_printable(const char *s, char *buf, size_t len);

/**
 * Strict decimal integer: an optional '-' and digits, nothing else (no
 * blanks, no '+', no base prefix), that fits in a long.
 * @return 0 with *@p out set, or -1 with errno EINVAL (not such an integer)
 *         or ERANGE (too large).
 */
int topomap_parse_long(const char *s, long *out);
/** Same for an unsigned 64-bit integer (digits only). */
int topomap_parse_u64(const char *s, uint64_t *out);
/**
 * Strict finite number: what strtod() reads in the C locale, all of @p s,
 * with no leading blanks, not inf or nan.
 * @return 0, or -1 with errno EINVAL or ERANGE (overflow).
 */
int topomap_parse_double(const char *s, double *out);
/**
 * A duration: a strict number (as topomap_parse_double) followed by a unit,
 * "ms", "s" or "min" ("2s", "2000ms", "0.5s"), or a bare number counted in
 * @p unit seconds (1: the command line's seconds, 0.001: plugstack.conf's
 * milliseconds), into *@p seconds. The sign is not checked.
 * @return 0, or -1 with errno EINVAL or ERANGE.
 */
int topomap_parse_duration(const char *s, double unit, double *seconds);

#endif /* TOPOMAP_API_BASE_H */
