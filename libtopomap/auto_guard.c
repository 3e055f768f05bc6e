/* SPDX-License-Identifier: BSD-3-Clause */
/* How auto scores and keeps its candidates (auto.h): the score, the
 * busiest-link guard and the keys of the congestion objective, dragonflies
 * and uneven bandwidths; the reasons are at the top of map_auto.c. */
#include <string.h>

#include "auto.h"
#include "congestion.h"
#include "refine.h"

/* The score of r2s: hop-bytes, or with sumcom SumCom (network hops times
 * hop_cost between nodes, the node's level costs inside a node); over the
 * symmetric graph every pair counts twice. */
double auto_score(const struct topomap_problem *pb, const int *r2s, int sumcom)
{
    double sum = 0;
    for (int i = 0; i < pb->n; i++)
        for (int64_t e = pb->g.xadj[i]; e < pb->g.xadj[i + 1]; e++) {
            int a = r2s[i], b = r2s[pb->g.adj[e]];
            sum += pb->g.w[e] * (sumcom ? topomap_topology_cost(pb->topo, pb->slot_node[a],
                                                                pb->slot_core[a], pb->slot_node[b],
                                                                pb->slot_core[b])
                                        : topomap_slot_hops(pb, a, b));
        }
    return sum / 2;
}

static double auto_mixed(const struct auto_guard *gd, double c, double h)
{
    return (gd->cb > 0 ? c / gd->cb : 0) + TOPOMAP_CONG_LAMBDA * (gd->hb > 0 ? h / gd->hb : 0);
}

/* Networks with a global link class (dragonflies): told by the topology's
 * channel classes, not by its kind's name. */
int auto_has_global_links(const topomap_topology_t *t)
{
    return topomap_topology_link_classes(t) > TOPOMAP_LINK_GLOBAL;
}

/* On dragonflies (ours, the objective of Bhatele et al., SC 2011 and Jain et
 * al., SC 2014 made a key): the busiest global link g first, hop-bytes h
 * second. A lexicographic order as one number: AUTO_DF_TIE is far below
 * any difference of g/gb between two mappings (a byte in a job's busiest
 * global link), and h/hb is near 1 (h <= hb is required, see auto_judge()). When
 * block sends nothing between groups (gb = 0), g is in bytes: any global
 * traffic loses. */
#define AUTO_DF_TIE 1e-9
static double auto_dfly_key(const struct auto_guard *gd, double g, double h)
{
    return (gd->gb > 0 ? g / gd->gb : g) + AUTO_DF_TIE * (gd->hb > 0 ? h / gd->hb : 0);
}

/* Set up the guard from block's mapping r2s and its score hb. 0, or -1 +
 * errno. */
int auto_guard_init(struct auto_guard *gd, const struct topomap_problem *pb,
                    const struct topomap_problem *sub, const int *r2s, double hb)
{
    double t = topomap_now();
    gd->dfly = auto_has_global_links(pb->topo);
    /* Uneven bandwidths (a tapered tree; ours): the hop-bytes candidates
     * cannot see that a byte over a thin level costs more, so the key is the
     * congestion objective's, whose busiest link is in seconds. */
    gd->uneven = !gd->dfly && topomap_channels_uneven(pb->topo);
    gd->mixed = pb->opts->objective == TOPOMAP_OBJECTIVE_CONGESTION || gd->uneven;
    gd->hb = hb;
    gd->cb = topomap_slots_congestion(pb, r2s);
    if (gd->cb < 0)
        return -1;
    if (gd->dfly && (gd->gb = topomap_slots_congestion_class(pb, r2s, TOPOMAP_LINK_GLOBAL)) < 0)
        return -1;
    double took = topomap_now() - t;
    gd->on = !(sub->deadline > 0 && 4 * took > sub->deadline - topomap_now());
    if (!gd->on) {
        topomap_log(pb, "auto: busiest link of block %.6g took %.3f s: no busiest-link guard "
                        "within the time limit",
                    gd->cb, took);
        gd->dfly = 0;
    } else if (gd->dfly) {
        topomap_log(pb, "auto: busiest link of block %.6g, busiest global link %.6g: candidates "
                        "judged by the busiest global link, then hop-bytes",
                    gd->cb, gd->gb);
    } else {
        topomap_log(pb, "auto: busiest link of block %.6g%s", gd->cb,
                    gd->uneven ? " (in seconds x link_bandwidth: the channels' bandwidths differ; "
                                 "candidates judged by the congestion objective)"
                               : "");
    }
    return 0;
}

/* The key of block's own mapping. */
double auto_block_key(const struct auto_guard *gd)
{
    if (gd->dfly)
        return auto_dfly_key(gd, gd->gb, gd->hb);
    return gd->mixed ? auto_mixed(gd, gd->cb, gd->hb) : gd->hb;
}

/* The key of a mapping of score hb (hop-bytes or SumCom): *key, lower is
 * better; returns 1 when it may be kept (its busiest link is not above
 * block's; on dragonflies, nor its hop-bytes), 0 when not (*key then
 * unset), -1 + errno. The busiest link is only computed when the key alone
 * would keep it (below `best`; best < 0: none yet). */
int auto_judge(const struct auto_guard *gd, const struct topomap_problem *pb, const int *r2s,
               double hb, double best, double *key)
{
    if (!gd->on) {
        *key = gd->mixed ? auto_mixed(gd, gd->cb, hb) : hb;
        return best < 0 || *key < best;
    }
    if (!gd->mixed && !gd->dfly && best >= 0 && hb >= best)
        return 0;
    /* A lower busiest global link bought with more hop-bytes than block's
     * is no gain over block. */
    if (gd->dfly && hb > gd->hb)
        return 0;
    double c = topomap_slots_congestion(pb, r2s);
    if (c < 0)
        return -1;
    if (gd->dfly) {
        double g = topomap_slots_congestion_class(pb, r2s, TOPOMAP_LINK_GLOBAL);
        if (g < 0)
            return -1;
        *key = auto_dfly_key(gd, g, hb);
    } else {
        *key = gd->mixed ? auto_mixed(gd, c, hb) : hb;
    }
    if (c > gd->cb) {
        topomap_log(pb, "auto: busiest link %.6g above block's %.6g: not kept", c, gd->cb);
        return 0;
    }
    return best < 0 || *key < best;
}

/* auto_judge() for a mapping after the candidates: on 1, *best = *key. */
int auto_keep_if(const struct auto_guard *gd, const struct topomap_problem *pb, const int *r2s,
                 double hb, double *best, double *key)
{
    int keep = auto_judge(gd, pb, r2s, hb, *best, key);
    if (keep == 1)
        *best = *key;
    return keep;
}

/* `from` refined in tmp for the congestion objective over the channels of
 * class cls (-1: all), copied to r2s when auto_keep_if() keeps it. Nothing at
 * the deadline. 0, or -1 + errno. */
int auto_refine_kept(const struct auto_guard *gd, const struct topomap_problem *sub,
                     const int *from, int *r2s, int *tmp, int sumcom, int cls, double *best,
                     char *err, size_t errlen)
{
    if (sub->deadline > 0 && topomap_now() > sub->deadline)
        return 0;
    memcpy(tmp, from, sizeof(int) * (size_t)sub->n);
    if (topomap_refine_congestion_class(sub, tmp, 0, cls, NULL, err, errlen) < 0)
        return -1;
    double key;
    if (auto_keep_if(gd, sub, tmp, auto_score(sub, tmp, sumcom), best, &key) == 1) {
        memcpy(r2s, tmp, sizeof(int) * (size_t)sub->n);
        return 1;
    }
    return 0;
}
