/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: the busiest-link objective. Channel weights and
 * classes and the weighted busiest link (congestion.c, under the public
 * topomap_congestion of topomap.h), the channel loads of a placement kept
 * as ranks move (congestion_incr.c), and the descent on the congestion
 * objective (refine_congestion.c), which algo.c and map_auto.c run. */
#ifndef TOPOMAP_CONGESTION_H
#define TOPOMAP_CONGESTION_H

#include <stdint.h>

#include "internal.h"

/* congestion_incr.c: the channel loads of a placement (congestion.c's
 * routes), updated as ranks move. Create from r2s (copied; -1 + EINVAL when
 * it is no injective map to slots), free with topomap_cload_free (NULL
 * accepted). move: rank r to slot, exchanging with the rank there if any;
 * 0, or -1 + ENOMEM. max: the busiest channel's load; top: that channel (-1
 * when none); sumsq: sum of squared loads; load: channel c's load (0 when
 * unused); r2s/s2r: the placement held, valid until the next move.
 * crossing: cross[r] = bytes of rank r's pairs whose route uses channel c
 * (both ends counted), n doubles written; returns how many ranks have some.
 * Loads are weighted by topomap_channel_weight (bytes at the network's link
 * bandwidth: a tapered level's bytes count as the time they take). */
struct topomap_cload;
/* congestion.c: the weight of channel c's bytes in the busiest-link
 * objective, the topology's link_bandwidth over the channel's own (2 on a
 * level tapered 2:1), so that loads compare as seconds; 1 when the network
 * has no per-channel bandwidths or either is unknown. */
double topomap_channel_weight(const topomap_topology_t *t, int64_t c);
/* congestion.c: 1 when the channels of t do not all have one bandwidth (a
 * tapered tree, a dragonfly's slower global links), judged on the routes
 * from node 0 to nodes 1, 2, 4, ... and the last; 0 otherwise. */
int topomap_channels_uneven(const topomap_topology_t *t);
/* congestion.c: the class of channel c (TOPOMAP_LINK_*; LOCAL on networks
 * without classes). */
int topomap_channel_class(const topomap_topology_t *t, int64_t c);
/* The busiest channel's load so weighted, of ranks on nodes node[]
 * (congestion.c's routes and sums), over the channels of class cls (-1:
 * every channel); 0, or -1 + errno. */
int topomap_congestion_weighted(const topomap_profile_t *p, const topomap_topology_t *t,
                                const int *node, int cls, double *wmax);
/* Weight of hop-bytes against the busiest link in the congestion objective
 * (refine_congestion.c, map_auto.c). */
#define TOPOMAP_CONG_LAMBDA 0.5
struct topomap_cload *topomap_cload_create(const struct topomap_problem *pb, const int *r2s);
/* The same, loading only the channels of class cls (TOPOMAP_LINK_*; -1:
 * all): a dragonfly's global links alone, whose busiest one is the
 * objective there while every rank's node cable carries its fixed bytes. */
struct topomap_cload *topomap_cload_create_class(const struct topomap_problem *pb, const int *r2s,
                                                 int cls);
void topomap_cload_free(struct topomap_cload *cl);
int topomap_cload_move(struct topomap_cload *cl, int r, int slot);
double topomap_cload_max(const struct topomap_cload *cl);
int64_t topomap_cload_top(const struct topomap_cload *cl);
double topomap_cload_sumsq(const struct topomap_cload *cl);
const int *topomap_cload_r2s(const struct topomap_cload *cl);
const int *topomap_cload_s2r(const struct topomap_cload *cl);
int topomap_cload_crossing(const struct topomap_cload *cl, int64_t c, double *cross);

/* refine_congestion.c: descent on the mixed objective of
 * TOPOMAP_OBJECTIVE_CONGESTION (see the file) from r2s, updated in place;
 * stops when the busiest channel's ranks have no improving move, after
 * max_moves moves (0: no limit) or at pb's deadline (keeping what it has).
 * *cmax = the busiest link's load after, when not NULL. 0, or -1 + errno. */
int topomap_refine_congestion(const struct topomap_problem *pb, int *r2s, long max_moves,
                              double *cmax, char *err, size_t errlen);
/* The same with C and Q over the channels of class cls only (-1: all;
 * TOPOMAP_LINK_GLOBAL on a dragonfly, for map_auto.c's spread step). */
int topomap_refine_congestion_class(const struct topomap_problem *pb, int *r2s, long max_moves,
                                    int cls, double *cmax, char *err, size_t errlen);
/* The busiest link's load of r2s, weighted as topomap_channel_weight says
 * (congestion.c's congestion_max where the network has one bandwidth), or
 * -1 + errno. */
double topomap_slots_congestion(const struct topomap_problem *pb, const int *r2s);
/* The same over the channels of class cls only (-1: all). */
double topomap_slots_congestion_class(const struct topomap_problem *pb, const int *r2s, int cls);

#endif
