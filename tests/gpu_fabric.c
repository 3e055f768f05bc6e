/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fabrics (gpu_fabric: rails, NVLink domains): the shipped DGX H100 pod
 * and NVL72 racks, the racks read from a Slurm topology/block file, hops and
 * domains by hand, the traffic classes and busiest links of small
 * placements worked out by hand, the spread of groups, and the errors of
 * the key. doc/networks.md, "GPU fabrics". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define SHIPPED SRCDIR "/../topologies/"
#define TOPOS SRCDIR "/data/topologies/"

static char err[TOPOMAP_ERRLEN];

static topomap_topology_t *yaml_text(const char *text)
{
    char path[] = "/tmp/gpu_fabric_XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    unlink(path);
    return t;
}

static void shipped(void)
{
    topomap_topology_t *pod = topomap_topology_load(SHIPPED "dgx-h100-superpod-32.yaml", err,
                                                    sizeof err);
    ok(pod && topomap_topology_nnodes(pod) == 32 && topomap_topology_rails(pod) == 8 &&
           topomap_topology_domains(pod) == 32 && topomap_topology_node_gpus(pod, 0) == 8,
       "DGX H100 pod: 32 nodes, 8 GPUs, 8 rails, a domain per node %s", pod ? "" : err);
    if (pod) {
        ok(topomap_topology_hops(pod, 0, 31) == 2 && topomap_topology_domain(pod, 5) == 5,
           "pod: 2 hops between nodes, node 5 its own domain");
        topomap_topology_free(pod);
    }
    const char *racks[] = {SHIPPED "nvl72-16racks.yaml", TOPOS "nvl72-blocks.yaml"};
    for (int k = 0; k < 2; k++) {
        topomap_topology_t *t = topomap_topology_load(racks[k], err, sizeof err);
        ok(t && topomap_topology_nnodes(t) == 288 && topomap_topology_domains(t) == 16 &&
               topomap_topology_rails(t) == 4 && topomap_topology_node_gpus(t, 0) == 4,
           "%s: 288 nodes of 4 GPUs, 16 domains, 4 rails %s", k ? "block file" : "NVL72 racks",
           t ? "" : err);
        if (!t)
            continue;
        /* gb018 is the last of rack 1, gb019 the first of rack 2. */
        int a = topomap_topology_node_lookup(t, "gb018"), b = topomap_topology_node_lookup(t, "gb019");
        int c = topomap_topology_node_lookup(t, "gb001"), z = topomap_topology_node_lookup(t, "gb288");
        ok(topomap_topology_domain(t, c) == 0 && topomap_topology_domain(t, a) == 0 &&
               topomap_topology_domain(t, b) == 1 && topomap_topology_domain(t, z) == 15,
           "%s: gb001, gb018 in domain 0, gb019 in 1, gb288 in 15", racks[k] + strlen(SRCDIR));
        ok(topomap_topology_hops(t, c, a) == (k ? 2 : 1) && topomap_topology_hops(t, a, b) == 4,
           "%s: %d hop(s) inside a rack, 4 between racks", racks[k] + strlen(SRCDIR), k ? 2 : 1);
        topomap_topology_free(t);
    }
}

/* Two racks of 2 nodes of 2 GPUs, 2 rails; by hand below. */
static const char *tiny =
    "network: {kind: fat-tree, levels: [{arity: 2, hops: 4}, {arity: 2, hops: 1}]}\n"
    "nodes: \"n[1-4]\"\n"
    "node: {cores: 2, gpus: {devices: [{cpus: 0}, {cpus: 1}]}}\n"
    "gpu_fabric: {rails: 2, domains: blocks, nvlink_bandwidth: 100, nic_bandwidth: 10}\n";

static void traffic(void)
{
    topomap_topology_t *t = yaml_text(tiny);
    ok(t && topomap_topology_domains(t) == 2, "tiny fabric loads %s", t ? "" : err);
    if (!t)
        return;
    /* Ranks 0..5 at (node, gpu): r0 (0,0) r1 (0,1) r2 (1,0) r3 (2,0) r4 (2,1) r5 (3,1).
     * 0->1 1000: same node; 0->2 100: same domain (nodes 0, 1); 0->3 10:
     * other domain, both GPU 0: rail; 0->4 1: other domain, GPU 0 -> 1:
     * spine; 2->5 5: spine; 4->5 7: domain (nodes 2, 3). */
    int src[] = {0, 0, 0, 0, 2, 4}, dst[] = {1, 2, 3, 4, 5, 5};
    double w[] = {1000, 100, 10, 1, 5, 7};
    topomap_profile_t *p = topomap_profile_create(6, 6, src, dst, w, NULL, err, sizeof err);
    int node[] = {0, 0, 1, 2, 2, 3}, slot[] = {0, 1, 0, 0, 1, 1};
    topomap_fabric_traffic_t f;
    ok(topomap_fabric_traffic(p, t, node, slot, &f) == 0, "traffic computed");
    ok(f.bytes[TOPOMAP_FABRIC_NODE] == 1000 && f.bytes[TOPOMAP_FABRIC_DOMAIN] == 107 &&
           f.bytes[TOPOMAP_FABRIC_RAIL] == 10 && f.bytes[TOPOMAP_FABRIC_SPINE] == 6 &&
           f.between_domains == 16,
       "classes by hand: node 1000, domain 107, rail 10, spine 6, between domains 16");
    /* Busiest: NVLink: GPU (0,0) sends 1100; NIC: (0,0) sends 11; spine:
     * rail 0 sends up 1 + 5 = 6 (rail 1 receives 6). */
    ok(f.busiest[TOPOMAP_FLINK_NVLINK] == 1100 && f.busiest[TOPOMAP_FLINK_NIC] == 11 &&
           f.busiest[TOPOMAP_FLINK_SPINE] == 6,
       "busiest by hand: NVLink 1100, NIC 11, spine 6 bytes");
    /* Seconds: 1100 / 100, 11 / 10, 6 / (4 nodes x 10). */
    is_double(f.seconds[TOPOMAP_FLINK_NVLINK], 11.0, 1e-12, "NVLink port 11 s");
    is_double(f.seconds[TOPOMAP_FLINK_NIC], 1.1, 1e-12, "NIC 1.1 s");
    is_double(f.seconds[TOPOMAP_FLINK_SPINE], 0.15, 1e-12, "spine 0.15 s (non-blocking default)");
    int bad[] = {0, 0, 1, 2, 2, 4};
    ok(topomap_fabric_traffic(p, t, bad, slot, &f) < 0 && errno == EINVAL, "node out of range");
    topomap_profile_free(p);

    /* Spread: TP 2 x DP 4 (8 ranks; TP groups {0,1}, {2,3}, ...) on the 4
     * nodes, block: every TP group inside a node. Then pairs across: rank r
     * on node r % 4, GPU r / 4: TP group {0,1} on nodes 0, 1 (one domain),
     * {2,3} on 2, 3 (one domain): split nodes, no domain split; rails 2. */
    topomap_layout_t l = {{2, 1, 1, 4, 1}, {0, 1, 2, 3, 4}};
    int bn[] = {0, 0, 1, 1, 2, 2, 3, 3}, bs[] = {0, 1, 0, 1, 0, 1, 0, 1};
    int xn[] = {0, 1, 2, 3, 0, 1, 2, 3}, xs[] = {0, 0, 0, 0, 1, 1, 1, 1};
    topomap_group_spread_t s;
    ok(topomap_group_spread(&l, 1u << TOPOMAP_PAR_TP, t, bn, bs, &s) == 0 && s.groups == 4 &&
           s.split_nodes == 0 && s.split_domains == 0 && s.max_rails == 2 && s.mean_nodes == 1,
       "block: TP groups whole in nodes, 2 rails each");
    ok(topomap_group_spread(&l, 1u << TOPOMAP_PAR_TP, t, xn, xs, &s) == 0 && s.split_nodes == 4 &&
           s.split_domains == 0 && s.max_rails == 1 && s.max_domains == 1,
       "across: 4 TP groups over 2 nodes, none over 2 domains, 1 rail each");
    /* DP groups (vary DP): {0,2,4,6} -> nodes 0,2,0,2 in 'across': 2 domains. */
    ok(topomap_group_spread(&l, 1u << TOPOMAP_PAR_DP, t, xn, xs, &s) == 0 && s.groups == 2 &&
           s.split_domains == 2 && s.max_nodes == 2 && s.max_rails == 2,
       "across: DP groups over 2 domains, 2 nodes, 2 rails");
    topomap_topology_free(t);
}

static void errors(void)
{
    static const struct {
        const char *fabric, *msg;
    } e[] = {
        {"{rails: 0}", "rails"},
        {"{domains: racks}", "domains must be node, blocks, {size: N} or a list of hostlists"},
        {"{domains: [\"n[1-2]\", \"n[2-3]\"]}", "node 'n2' is in two domains"},
        {"{domains: [\"m1\"]}", "node 'm1' is not in the topology"},
        {"{spine_bandwidth: 5}", "spine_bandwidth goes with rails"},
        {"{rail: 2}", "rail"},
    };
    for (size_t k = 0; k < sizeof e / sizeof e[0]; k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "network: {kind: torus, dims: [4]}\nnodes: \"n[1-4]\"\nnode: {cores: 2}\n"
                 "gpu_fabric: %s\n",
                 e[k].fabric);
        topomap_topology_t *t = yaml_text(text);
        ok(!t && strstr(err, e[k].msg) && strstr(err, ":4:"), "gpu_fabric %s: %s", e[k].fabric,
           err);
        topomap_topology_free(t);
    }
    topomap_topology_t *t = yaml_text("network: {kind: torus, dims: [4]}\nnodes: \"n[1-4]\"\n"
                                      "node: {cores: 2}\ngpu_fabric: {domains: blocks}\n");
    ok(!t && strstr(err, "domains: blocks needs a fat-tree network"), "blocks on a torus: %s",
       err);
    t = yaml_text("network: {kind: torus, dims: [4]}\nnodes: \"n[1-4]\"\nnode: {cores: 2}\n"
                  "gpu_fabric: {domains: {size: 3}}\n");
    ok(t && topomap_topology_domains(t) == 2 && topomap_topology_domain(t, 3) == 1,
       "domains by size: 4 nodes in 2 domains of 3 and 1");
    topomap_topology_free(t);
}

int main(void)
{
    shipped();
    traffic();
    errors();
    return done_testing();
}
