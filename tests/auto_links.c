/* SPDX-License-Identifier: BSD-3-Clause */
/* auto on networks whose links are not alike (map_auto.c): on the shipped
 * dragonfly, candidates keyed by the busiest global link then hop-bytes,
 * and the spread step, so that auto's busiest global link and hop-bytes are
 * never above block's, and its busiest global link is below that of the
 * hop-bytes candidate drb+refine where hop-bytes pile the traffic between
 * two groups onto a few of their links; on a 2:1 tapered fat-tree, auto
 * told of the taper is not above auto not told of it (both answers in
 * seconds on the tapered tree), and below it on some case. Public API only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"
#include "tap.h"

/* A TAP comment line. */
#define note(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* Log lines of auto: a result of the spread step was kept. */
static void count_spread(const char *line, void *arg)
{
    if (strstr(line, "auto: chose ") && strstr(line, "+spread"))
        ++*(int *)arg;
}

/* Map p on a with algo, no time limit; metrics of the answer on t (NULL:
 * a's own topology) into *m. 0, or -1. */
static int map_eval(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                    const topomap_topology_t *t, int *spread, topomap_metrics_t *m)
{
    int n = topomap_profile_nranks(p), rc;
    int *r2s = malloc(sizeof(int) * (size_t)n), *node = malloc(sizeof(int) * (size_t)n),
        *core = malloc(sizeof(int) * (size_t)n);
    topomap_opts_t o;
    topomap_opts_init(&o);
    o.log = count_spread;
    o.log_arg = spread;
    rc = topomap_map(algo, p, a, &o, r2s, err, sizeof err);
    for (int r = 0; rc == 0 && r < n; r++) {
        node[r] = topomap_alloc_slot_node(a, r2s[r]);
        core[r] = topomap_alloc_slot_core(a, r2s[r]);
    }
    if (rc == 0)
        rc = topomap_eval(p, t ? t : topomap_alloc_topology(a), node, core, m);
    free(r2s), free(node), free(core);
    return rc;
}

/* Nodes first, first + step, ... (k of them), `slots` slots each. */
static topomap_alloc_t *nodes_from(const topomap_topology_t *t, int first, int step, int k,
                                   const char *slots)
{
    const char **names = malloc(sizeof(char *) * (size_t)k);
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, first + step * i);
    char *hl = topomap_hostlist_compress(names, (size_t)k);
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, slots, err, sizeof err) : NULL;
    free(hl);
    free(names);
    return a;
}

static void dragonfly(void)
{
    topomap_topology_t *t =
        topomap_topology_load(SRCDIR "/../topologies/dragonfly-slingshot-2048.yaml", err, sizeof err);
    ok(t != NULL, "dragonfly-slingshot-2048 loads%s%s", t ? "" : ": ", t ? "" : err);
    if (!t)
        return;
    /* 256 ranks one per node: on the first 256 nodes (two groups), and on
     * every 8th node (all 16 groups). */
    int over = 0, hb_over = 0, below_drb = 0, spread = 0, cases = 0;
    for (int c = 0; c < 4; c++) {
        topomap_profile_t *p = c % 2 ? random_profile(256, 4) : stencil(8, 8, 4, 1, 0);
        topomap_alloc_t *a = nodes_from(t, 0, c < 2 ? 1 : 8, 256, "1");
        topomap_metrics_t mb = TOPOMAP_METRICS_INIT, ma = TOPOMAP_METRICS_INIT,
                          md = TOPOMAP_METRICS_INIT;
        int ignore = 0;
        if (!p || !a || map_eval("block", p, a, NULL, &ignore, &mb) < 0 ||
            map_eval("auto", p, a, NULL, &spread, &ma) < 0 ||
            map_eval("drb+refine", p, a, NULL, &ignore, &md) < 0) {
            ok(0, "dragonfly case %d runs (%s)", c, err);
        } else {
            double gb = mb.congestion_class_max[TOPOMAP_LINK_GLOBAL];
            double ga = ma.congestion_class_max[TOPOMAP_LINK_GLOBAL];
            double gd = md.congestion_class_max[TOPOMAP_LINK_GLOBAL];
            note("dragonfly case %d: busiest global link block %g, drb+refine %g, auto %g; "
                 "hop-bytes %g, %g, %g",
                 c, gb, gd, ga, mb.hop_bytes, md.hop_bytes, ma.hop_bytes);
            cases++;
            over += ga > gb;
            hb_over += ma.hop_bytes > mb.hop_bytes;
            below_drb += ga < gd;
        }
        topomap_alloc_free(a);
        topomap_profile_free(p);
    }
    ok(cases == 4 && over == 0, "dragonfly: auto's busiest global link never above block's "
                                "(%d of %d over)", over, cases);
    ok(cases == 4 && hb_over == 0, "dragonfly: auto's hop-bytes never above block's (%d of %d)",
       hb_over, cases);
    ok(below_drb >= 2 && spread >= 2,
       "dragonfly: auto's busiest global link below drb+refine's on %d of 4 cases, the spread "
       "step's answer chosen on %d",
       below_drb, spread);
    topomap_topology_free(t);
}

/* A 16 x 16-node tree, 4 cores per node, its top level at bw (0: none). */
static topomap_topology_t *tree(double bw)
{
    char yaml[512], top[64] = "";
    if (bw > 0)
        snprintf(top, sizeof top, ", bandwidth: %g", bw);
    snprintf(yaml, sizeof yaml,
             "nodes: \"n[000-255]\"\nnetwork:\n  kind: fat-tree\n  link_bandwidth: 25e9\n"
             "  levels:\n    - {arity: 16, hops: 4%s}\n    - {arity: 16, hops: 2}\n"
             "node:\n  cores: 4\n",
             top);
    return topology_text(yaml);
}

static void tapered(void)
{
    topomap_topology_t *flat = tree(0), *thin = tree(12.5e9);
    ok(flat && thin, "tapered tree and the same untapered%s%s", flat && thin ? "" : ": ",
       flat && thin ? "" : err);
    if (!flat || !thin)
        return;
    int above = 0, below = 0, cases = 0;
    for (int c = 0; c < 2; c++) {
        /* 128 ranks, 4 per node on 8 nodes of each of leaves 0, 4, 8, 12. */
        topomap_profile_t *p = c ? random_profile(128, 4) : stencil(8, 4, 4, 0, 0);
        const char *hl = "n[000-007,064-071,128-135,192-199]";
        topomap_alloc_t *af = topomap_alloc_create(flat, hl, "4", err, sizeof err);
        topomap_alloc_t *at = topomap_alloc_create(thin, hl, "4", err, sizeof err);
        topomap_metrics_t mi = TOPOMAP_METRICS_INIT, ma = TOPOMAP_METRICS_INIT;
        int ignore = 0;
        if (!p || !af || !at || map_eval("auto", p, af, thin, &ignore, &mi) < 0 ||
            map_eval("auto", p, at, thin, &ignore, &ma) < 0) {
            ok(0, "tapered case %d runs (%s)", c, err);
        } else {
            note("tapered case %d: busiest link in seconds, auto told of the taper %g, not told "
                 "%g",
                 c, ma.congestion_max_seconds, mi.congestion_max_seconds);
            cases++;
            above += ma.congestion_max_seconds > mi.congestion_max_seconds * (1 + 1e-12);
            below += ma.congestion_max_seconds < mi.congestion_max_seconds * (1 - 1e-12);
        }
        topomap_alloc_free(af);
        topomap_alloc_free(at);
        topomap_profile_free(p);
    }
    ok(cases == 2 && above == 0 && below >= 1,
       "tapered tree: auto told of the taper never above auto not told (in seconds), below on "
       "%d of %d",
       below, cases);
    topomap_topology_free(flat);
    topomap_topology_free(thin);
}

int main(void)
{
    dragonfly();
    tapered();
    return done_testing();
}
