/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fabrics in `topomap eval`: the traffic of a placement by path class
 * (NVLink in a node, in a domain, one rail, the spine), the busiest links,
 * and with --layout the spread of the layout's groups over domains, nodes
 * and rails (doc/networks.md, "GPU fabrics"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void parse_layout(const char *s, topomap_layout_t *l)
{
    topomap_layout_t d = {{1, 1, 1, 1, 1}, {0, 1, 2, 3, 4}};
    char err[TOPOMAP_ERRLEN];
    *l = d;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        char val[64];
        size_t kl = eq ? (size_t)(eq - p) : 0, vl = eq ? len - kl - 1 : 0;
        if (!eq || vl == 0 || vl >= sizeof val)
            usage_error("--layout: '%s' is not a list of KEY=VALUE (tp, cp, ep, dp, pp, order)",
                        s);
        memcpy(val, eq + 1, vl);
        val[vl] = 0;
        int k = 0;
        while (k < TOPOMAP_PAR_DIMS && (kl != 2 || strncmp(p, topomap_par_name(k), 2)))
            k++;
        if (k < TOPOMAP_PAR_DIMS)
            l->size[k] = (int)parse_long_opt("--layout", val, 1, TOPOMAP_MAX_RANKS);
        else if (kl == 5 && !strncmp(p, "order", 5)) {
            if (topomap_layout_order(val, l->order, err, sizeof err) < 0)
                usage_error("--layout: %s", err);
        } else
            usage_error("--layout: unknown key '%.*s' (tp, cp, ep, dp, pp, order)", (int)kl, p);
        if (!p[len])
            break;
        p += len + 1;
    }
    if (topomap_layout_nranks(l) < 0)
        usage_error("--layout: '%s': ep must divide dp", s);
}

static void print_spread(const topomap_layout_t *l, const topomap_topology_t *t, const int *node,
                         const int *core)
{
    /* The data-parallel groups of the dense parameters vary CP, EP and DP. */
    static const unsigned masks[TOPOMAP_PAR_DIMS] = {
        1u << TOPOMAP_PAR_TP, 1u << TOPOMAP_PAR_CP, 1u << TOPOMAP_PAR_EP,
        1u << TOPOMAP_PAR_CP | 1u << TOPOMAP_PAR_EP | 1u << TOPOMAP_PAR_DP, 1u << TOPOMAP_PAR_PP};
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
        topomap_group_spread_t s;
        if (l->size[d] < 2 && d != TOPOMAP_PAR_TP)
            continue;
        if (topomap_group_spread(l, masks[d], t, node, core, &s) < 0)
            input_error("cannot compute the spread: %s", strerror(errno));
        printf("spread %-13s %d groups: %d over several domains, %d over several nodes; "
               "domains/nodes/rails mean %.2f/%.2f/%.2f, max %d/%d/%d\n",
               topomap_par_name(d), s.groups, s.split_domains, s.split_nodes, s.mean_domains,
               s.mean_nodes, s.mean_rails, s.max_domains, s.max_nodes, s.max_rails);
    }
}

void check_layout(const topomap_layout_t *l, const topomap_profile_t *p,
                  const topomap_topology_t *t)
{
    if (topomap_layout_nranks(l) != topomap_profile_nranks(p))
        input_error("--layout has %d ranks, the profile %d", topomap_layout_nranks(l),
                    topomap_profile_nranks(p));
    if (!topomap_topology_rails(t) && !topomap_topology_domains(t))
        input_error("--layout: the topology has no gpu_fabric (rails or NVLink domains)");
}

void print_fabric(const topomap_profile_t *p, const topomap_topology_t *t, const int *node,
                  const int *core, const topomap_layout_t *l)
{
    if (!topomap_topology_rails(t) && !topomap_topology_domains(t))
        return;
    topomap_fabric_traffic_t f;
    char b[TOPOMAP_FABRIC_CLASSES + 2][40];
    if (topomap_fabric_traffic(p, t, node, core, &f) < 0)
        input_error("cannot split the GPU traffic: %s", strerror(errno));
    printf("gpu traffic          ");
    for (int k = 0; k < TOPOMAP_FABRIC_CLASSES; k++)
        printf("%s%s %s", k ? ", " : "", topomap_fabric_class_name(k),
               num(f.bytes[k], b[k], sizeof b[k]));
    printf("; between domains %s\n", num(f.between_domains, b[4], sizeof b[4]));
    for (int k = 0; k < TOPOMAP_FLINK_KINDS; k++) {
        if (k == TOPOMAP_FLINK_SPINE && !topomap_topology_rails(t))
            continue;
        printf("busiest %-12s %s B", topomap_fabric_link_name(k),
               num(f.busiest[k], b[0], sizeof b[0]));
        if (f.seconds[k] > 0)
            printf(" = %.4g s", f.seconds[k]);
        printf("\n");
    }
    if (l)
        print_spread(l, t, node, core);
}
