/* SPDX-License-Identifier: BSD-3-Clause */
/* The network section of kind dragonfly (schema: topologies/README.md):
 *   groups, switches_per_group, nodes_per_switch: required sizes;
 *   global_links_per_switch: default 1;
 *   arrangement: absolute (default), relative or circulant; or
 *   global_links: explicit [group, switch, group, switch] links;
 *   node_bandwidth, local_bandwidth, global_bandwidth: bytes per second of
 *     each class of link (default link_bandwidth);
 *   routing: minimal (default) or valiant, the congestion model.
 * Every error names FILE:LINE:COL of the key or value at fault. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_yamldoc.h"
#include "topology_priv.h"

const char *const topo_y_dragonfly_keys[] = {
    "kind",           "hop_cost",         "link_bandwidth",  "groups",
    "switches_per_group", "nodes_per_switch", "global_links_per_switch", "arrangement",
    "global_links",   "node_bandwidth",   "local_bandwidth", "global_bandwidth",
    "routing",        NULL};

/* One of the names of list (NULL-terminated) at n: its index, or -1 with
 * the message. */
static int y_choice(struct topo_yctx *c, yaml_node_t *n, const char *key,
                    const char *const *list, int count)
{
    const char *s;
    if (topo_y_str(c, n, key, &s) < 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (!strcmp(s, list[i]))
            return i;
    char names[128] = "";
    for (int i = 0; i < count; i++) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", list[i]);
    }
    return topo_y_fail(c, n, EINVAL, "'%s' must be one of %s, not '%s'", key, names, s);
}

/* global_links: a list of [group, switch, group, switch]; *links (caller
 * frees) gets 4 ints per link. Ranges are checked here, where the line is
 * known; the number of links per switch by topo_dragonfly_build(). */
static int load_links(struct topo_yctx *c, yaml_node_t *v, const struct topo_df_params *p,
                      int **links, int *nlinks)
{
    if (v->type != YAML_SEQUENCE_NODE || topo_y_len(v) < 1)
        return topo_y_fail(c, v, EINVAL,
                           "'global_links' must be a non-empty list of [group, switch, group, "
                           "switch]");
    int n = topo_y_len(v);
    int *l = malloc(sizeof(int) * 4 * (size_t)n);
    if (!l)
        return topo_y_fail(c, v, ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        yaml_node_t *e = topo_y_item(c, v, i);
        if (e->type != YAML_SEQUENCE_NODE || topo_y_len(e) != 4) {
            free(l);
            return topo_y_fail(c, e, EINVAL,
                               "a global link must be [group, switch, group, switch], not %s",
                               e->type == YAML_SEQUENCE_NODE ? "a list of another length"
                                                              : topo_y_type(e));
        }
        for (int k = 0; k < 4; k++) {
            int max = k % 2 ? p->switches - 1 : p->groups - 1;
            if (topo_y_int(c, topo_y_item(c, e, k), k % 2 ? "switch" : "group", 0, max,
                           &l[4 * i + k]) < 0) {
                free(l);
                return -1;
            }
        }
        if (l[4 * i] == l[4 * i + 2]) {
            int g = l[4 * i];
            free(l);
            return topo_y_fail(c, e, EINVAL,
                               "a global link joins two groups, not group %d to itself", g);
        }
    }
    *links = l;
    *nlinks = n;
    return 0;
}

static int y_bandwidth(struct topo_yctx *c, yaml_node_t *net, const char *key, double *bw)
{
    yaml_node_t *v = topo_y_get(c, net, key);
    *bw = 0;
    return v ? topo_y_double(c, v, key, TOPOMAP_MIN_BANDWIDTH, 0, HUGE_VAL, bw) : 0;
}

/* The sizes and the arrangement; *links set with an explicit list. */
static int load_params(struct topo_yctx *c, yaml_node_t *net, struct topo_df_params *p,
                       int **links)
{
    yaml_node_t *v;
    if (!(v = topo_y_require(c, net, "groups", "network")) ||
        topo_y_int(c, v, "groups", 1, TOPO_MAX_NODES, &p->groups) < 0)
        return -1;
    if (!(v = topo_y_require(c, net, "switches_per_group", "network")) ||
        topo_y_int(c, v, "switches_per_group", 1, TOPO_MAX_NODES, &p->switches) < 0)
        return -1;
    if (!(v = topo_y_require(c, net, "nodes_per_switch", "network")) ||
        topo_y_int(c, v, "nodes_per_switch", 1, TOPO_MAX_NODES, &p->nodes) < 0)
        return -1;
    p->globals = 1;
    if ((v = topo_y_get(c, net, "global_links_per_switch")) &&
        topo_y_int(c, v, "global_links_per_switch", 0, 4096, &p->globals) < 0)
        return -1;
    p->arrangement = TOPO_DF_ABSOLUTE;
    yaml_node_t *arr = topo_y_get(c, net, "arrangement"), *gl = topo_y_get(c, net, "global_links");
    if (arr) {
        int a = y_choice(c, arr, "arrangement", topo_df_arrangement_names, gl ? 4 : 3);
        if (a < 0)
            return -1;
        p->arrangement = (enum topo_df_arrangement)a;
    }
    if (gl && arr && p->arrangement != TOPO_DF_EXPLICIT)
        return topo_y_fail(c, arr, EINVAL,
                           "'arrangement: %s' and 'global_links' both say where the global links "
                           "go: give one",
                           topo_df_arrangement_names[p->arrangement]);
    if (gl) {
        p->arrangement = TOPO_DF_EXPLICIT;
        if (load_links(c, gl, p, links, &p->nlinks) < 0)
            return -1;
        p->links = *links;
    }
    if (y_bandwidth(c, net, "node_bandwidth", &p->bw_node) < 0 ||
        y_bandwidth(c, net, "local_bandwidth", &p->bw_local) < 0 ||
        y_bandwidth(c, net, "global_bandwidth", &p->bw_global) < 0)
        return -1;
    return 0;
}

struct topomap_topology *topo_y_dragonfly(struct topo_yctx *c, yaml_node_t *net,
                                          yaml_node_t *nodes_node, const char *kind)
{
    static const char *const routings[] = {"minimal", "valiant"};
    struct topo_df_params p = {0};
    int *links = NULL, spread = 0;
    char berr[TOPOMAP_ERRLEN];
    topomap_hostlist_t *names = NULL;
    topomap_topology_t *t = NULL;
    yaml_node_t *v;
    if (load_params(c, net, &p, &links) < 0)
        goto out;
    if ((v = topo_y_get(c, net, "routing")) && (spread = y_choice(c, v, "routing", routings, 2)) < 0)
        goto out;
    int count = topo_dragonfly_count(&p, berr, sizeof berr);
    if (count < 0) {
        topo_y_fail(c, net, EINVAL, "%s", berr);
        goto out;
    }
    if (nodes_node && topo_y_names(c, nodes_node, count, kind, &names) < 0)
        goto out;
    if (!(t = topo_dragonfly_build(&p, 1, names, berr, sizeof berr))) {
        yaml_node_t *at = topo_y_get(c, net, "global_links");
        /* A message about link i points at that link. */
        int i;
        if (at && sscanf(berr, "global link %d", &i) == 1 && i >= 0 && i < topo_y_len(at))
            at = topo_y_item(c, at, i);
        topo_y_fail(c, at ? at : net, errno, "%s", berr);
        goto out;
    }
    t->spread = spread;
out:
    free(links);
    return t;
}
