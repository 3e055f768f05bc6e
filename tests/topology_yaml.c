/* SPDX-License-Identifier: BSD-3-Clause */
/* Malformed YAML topology descriptions (tests/data/topologies/bad/): every
 * error class must fail with the right errno and a one-line message that
 * names FILE:LINE:COL of the offending key or value. Line and column were
 * counted by hand in the fixtures (1-based). */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

#define BAD SRCDIR "/data/topologies/bad/"

static const struct {
    const char *file;
    int err;
    const char *msg;
} cases[] = {
    /* unknown keys */
    {"unknown-key.yaml", EINVAL,
     "unknown-key.yaml:4:1: unknown key 'nodez' in the topology (expected one of: name, "
     "description, network, nodes, node, node_types, gpu_fabric)"},
    {"unknown-network-key.yaml", EINVAL,
     "unknown-network-key.yaml:3:3: unknown key 'dim' in network (expected one of: kind, "
     "hop_cost, link_bandwidth, dims, wrap)"},
    {"node-level-key.yaml", EINVAL,
     "node-level-key.yaml:7:30: unknown key 'latency' in a node level (expected one of: name, "
     "arity, cost)"},
    {"unknown-kind.yaml", EINVAL,
     "unknown-kind.yaml:2:9: unknown network kind 'hypercube' (expected torus, mesh, tianhe3, "
     "fat-tree or dragonfly)"},
    {"duplicate-key.yaml", EINVAL,
     "duplicate-key.yaml:4:3: duplicate key 'kind' in network (first at line 2)"},
    {"hwloc-costs.yaml", EINVAL,
     "hwloc-costs.yaml:6:25: 'costs': hwloc found no level 'numa' (levels: package, core)"},
    /* wrong types */
    {"not-int.yaml", EINVAL, "not-int.yaml:3:9: 'rows' must be an integer, not a plain scalar 'four'"},
    {"quoted-int.yaml", EINVAL, "quoted-int.yaml:5:10: 'cores' must be an integer, not a string '4'"},
    {"dims-not-list.yaml", EINVAL, "dims-not-list.yaml:3:9: 'dims' must be a list of 1..16 sizes"},
    {"bad-bool.yaml", EINVAL,
     "bad-bool.yaml:4:15: 'wrap' must be true or false, not a plain scalar 'maybe'"},
    {"not-a-map.yaml", EINVAL,
     "not-a-map.yaml:1:1: a topology description must be a mapping with 'network', not a list"},
    /* values out of range */
    {"hop-cost.yaml", EINVAL, "hop-cost.yaml:4:13: 'hop_cost' must be > 0, not -1"},
    {"odd-npc.yaml", EINVAL,
     "odd-npc.yaml:5:19: 'nodes_per_chip' must be even (left and right halves), not 7"},
    {"long-level-name.yaml", EINVAL,
     "long-level-name.yaml:6:14: 'name' must be at most 23 characters"},
    {"bad-hostlist.yaml", EINVAL, "bad-hostlist.yaml:4:8: nodes: hostlist 'n[4-1]': reversed range '4-1'"},
    /* inconsistent sizes and combinations */
    {"count-mismatch.yaml", EINVAL,
     "count-mismatch.yaml:5:8: 'nodes' names 10 hosts but the torus network has 8 nodes"},
    {"wrap-length.yaml", EINVAL, "wrap-length.yaml:4:9: 'wrap' has 3 entries but 'dims' has 2"},
    {"duplicate-host.yaml", EINVAL,
     "duplicate-host.yaml:4:8: node name 'a1' is given twice (nodes 0 and 2)"},
    {"node-two-kinds.yaml", EINVAL,
     "node-two-kinds.yaml:5:3: node: give exactly one of 'cores', 'levels' or 'hwloc' (2 given)"},
    {"levels-and-conf.yaml", EINVAL,
     "levels-and-conf.yaml:5:19: give either 'levels' or 'slurm_topology', not both"},
    {"conf-with-nodes.yaml", EINVAL,
     "conf-with-nodes.yaml:4:8: 'nodes' cannot be given with 'slurm_topology'"},
    /* missing required keys */
    {"missing-network.yaml", EINVAL,
     "missing-network.yaml:1:1: missing required key 'network' in the topology"},
    {"missing-kind.yaml", EINVAL, "missing-kind.yaml:2:3: missing required key 'kind' in network"},
    {"missing-dims.yaml", EINVAL, "missing-dims.yaml:2:3: missing required key 'dims' in network"},
    {"missing-arity.yaml", EINVAL,
     "missing-arity.yaml:5:7: missing required key 'arity' in a network level"},
    /* YAML itself */
    {"syntax.yaml", EINVAL, "syntax.yaml:4:6: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence"},
    {"empty.yaml", EINVAL, "empty.yaml:1:1: empty topology description"},
    {"two-docs.yaml", EINVAL,
     "two-docs.yaml:5:1: only one YAML document is allowed per topology file"},
    {"bad-utf8.yaml", EINVAL, "bad-utf8.yaml:4:10: YAML syntax error: incomplete UTF-8 octet sequence"},
    /* files named by the YAML */
    {"hwloc-missing.yaml", ENOENT,
     "hwloc-missing.yaml:5:10: hwloc: " SRCDIR "/data/topologies/bad/no-such-file.xml: No such "
     "file or directory"},
    {"conf-ref-not-conf.yaml", EINVAL,
     "conf-ref-not-conf.yaml:3:19: slurm_topology: " SRCDIR
     "/data/topologies/bad/../torus-like.txt is not a Slurm topology.conf"},
    {"conf-ref-bad.yaml", EINVAL, "conf-unknown-key.conf:2: unknown key 'Speed'"},
};

int main(void)
{
    char err[TOPOMAP_ERRLEN];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, BAD "%s", cases[i].file);
        err[0] = 0;
        errno = 0;
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        int e = errno;
        ok(!t && e == cases[i].err, "%s rejected with %s (errno %d)", cases[i].file,
           cases[i].err == EINVAL ? "EINVAL" : "ENOENT", e);
        like(err, cases[i].msg, "  message: %s", err);
        ok(!strchr(err, '\n'), "  on one line");
        topomap_topology_free(t);
    }
    /* A NULL error buffer is allowed. */
    errno = 0;
    ok(!topomap_topology_load(BAD "unknown-key.yaml", NULL, 0) && errno == EINVAL,
       "NULL error buffer: still EINVAL");
    ok(!topomap_topology_load(NULL, err, sizeof err) && errno == EINVAL, "NULL path: EINVAL");
    return done_testing();
}
