/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file topomap.h
 * @brief libtopomap: place the ranks of a parallel job onto a machine so that
 *        ranks which talk a lot sit close together.
 *
 * The public header of libtopomap: this umbrella and the topic headers of
 * its topomap/ directory, which it includes (listed at its end; include
 * this one). Everything they declare is prefixed topomap_ / TOPOMAP_.
 * Conventions (hwloc's):
 *  - functions returning int give 0 on success, -1 with errno set on failure;
 *  - functions returning a pointer give NULL with errno set on failure;
 *  - loaders and algorithms also fill an optional error buffer @p err of
 *    @p errlen bytes with one human sentence, prefixed "FILE:LINE:COL: " or
 *    "FILE:LINE: " where a file is involved. @p err may be NULL;
 *  - handles are opaque; *_free() accepts NULL;
 *  - the library never prints, exits or aborts; inputs marked const are never
 *    modified; results depend only on inputs and an explicit seed, never on
 *    the number of threads.
 */
#ifndef TOPOMAP_H
#define TOPOMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h> /* uid_t, gid_t: the profile store */

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what this header declares
 * is its exported surface, and nothing else is. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/** Suggested size of error buffers. */
#define TOPOMAP_ERRLEN 512

/** Version of this header. configure takes the package version from the
 *  TOPOMAP_VERSION line, so the two cannot differ. */
#define TOPOMAP_VERSION "0.1.0"
#define TOPOMAP_VERSION_MAJOR 0
#define TOPOMAP_VERSION_MINOR 1
#define TOPOMAP_VERSION_PATCH 0
/** One comparable number: (major << 16) | (minor << 8) | patch, e.g.
 *  #if TOPOMAP_VERSION_NUMBER >= 0x000100 (as hwloc's HWLOC_API_VERSION). */
#define TOPOMAP_VERSION_NUMBER \
    ((TOPOMAP_VERSION_MAJOR << 16) | (TOPOMAP_VERSION_MINOR << 8) | TOPOMAP_VERSION_PATCH)

/** Version of the library linked at run time, e.g. "0.1.0" (compare with
 *  TOPOMAP_VERSION, the header's). */
const char *topomap_version(void);

/**
 * For a program that maps in its main thread (the topomap command, srun's
 * plugin): stops the idle thread pool OpenBLAS starts when it is loaded (it
 * starts again when a BLAS call asks for more than one thread; libtopomap's
 * own calls ask for one). libtopomap blocks SIGTERM in the calling thread
 * while METIS runs, since METIS traps it (libtopomap/metis_call.h); with no
 * other thread to receive it, a SIGTERM then waits for METIS's call to end
 * and ends the process as usual. Not for a library inside someone else's
 * program.
 * @return 0 when a pool was stopped, 1 when this BLAS has none to stop.
 */
int topomap_blas_pool_stop(void);

/* The topics, in this order (doc/api.md#headers): */
#include "topomap/base.h" /* input limits, strict number parsers, printable strings */
#include "topomap/hostlist.h" /* Slurm hostlist expressions */
#include "topomap/profile.h" /* communication profiles: load, create, write, CSR view */
#include "topomap/training.h" /* training jobs' layouts and their synthesized profiles */
#include "topomap/topology.h" /* machines: networks, node levels, GPUs, routes */
#include "topomap/alloc.h" /* allocations: the slots a job may use */
#include "topomap/mapping.h" /* topomap_opts_t, topomap_map() and the algorithms */
#include "topomap/metrics.h" /* topomap_metrics_t, eval, congestion, GPU fabrics, statistics */
#include "topomap/grid.h" /* process grids: detection, rescaling, topomap_profile_adapt() */
#include "topomap/mapfile.h" /* mapping files: write and read */
#include "topomap/store.h" /* the profile store */
#include "topomap/import.h" /* profiles recorded by other tools (Open MPI's monitoring) */

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* TOPOMAP_H */
