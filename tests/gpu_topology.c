/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU nodes in the topology model: the shipped DGX-1 description (slots,
 * pair costs, cores and NICs of each GPU), the same node read from hwloc XML
 * fixtures written from documented layouts (tests/data/topologies/gpu-xml.py)
 * and from an XML without GPUs, and one FILE:LINE:COL message for every
 * error of each new YAML key. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define TOPOS SRCDIR "/data/topologies/"
#define SHIPPED SRCDIR "/../topologies/"

static char err[TOPOMAP_ERRLEN];
static char dir[] = "/tmp/topomap-gpu-XXXXXX";

/* DGX-1 V100 NVLinks per pair (NVIDIA WP-08437-002, figure 2). */
static const int dgx1_links[8][8] = {
    {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
    {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
    {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};

/* Pair costs of node 0 as the model says: link_cost / links, host_cost. */
static int dgx1_costs_ok(const topomap_topology_t *t, double link, double host)
{
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) {
            double want = a == b ? 0 : dgx1_links[a][b] ? link / dgx1_links[a][b] : host;
            if (topomap_topology_cost(t, 0, a, 0, b) != want)
                return 0;
        }
    return 1;
}

static void shipped_dgx1(void)
{
    topomap_topology_t *t = topomap_topology_load(SHIPPED "dgx1-v100.yaml", err, sizeof err);
    if (!ok(t != NULL, "topologies/dgx1-v100.yaml loads (%s)", t ? "ok" : err))
        return;
    is_int(topomap_topology_node_gpus(t, 0), 8, "8 GPUs per node");
    is_int(topomap_topology_node_cores(t, 3), 8, "slots are the GPUs: 8 per node");
    ok(dgx1_costs_ok(t, 0.25, 0.5), "pair costs: 0.125 (2 NVLinks), 0.25 (1), 0.5 (none)");
    is_double(topomap_topology_cost(t, 0, 0, 1, 0), 2.0, 0, "another node: 2 hops x 1");
    topomap_gpu_t g;
    ok(topomap_topology_gpu(t, 0, 5, &g) == 0 && g.vendor == TOPOMAP_GPU_NVIDIA &&
           !strcmp(g.cpus, "20-39") && g.numa == 1 && !strcmp(g.nic, "mlx5_2:1") &&
           g.cpu_cores == 40,
       "GPU 5: nvidia, cpus 20-39, numa 1, nic mlx5_2:1, 40 CPU cores");
    errno = 0;
    ok(topomap_topology_gpu(t, 0, 8, &g) < 0 && errno == EINVAL, "GPU 8: EINVAL");
    ok(topomap_topology_node_gpus(t, 4) < 0 && errno == EINVAL, "node 4: EINVAL");
    is_str(topomap_gpu_vendor_name(TOPOMAP_GPU_AMD), "amd", "vendor name");
    ok(topomap_gpu_vendor_parse("nvidia") == TOPOMAP_GPU_NVIDIA &&
           topomap_gpu_vendor_parse("ati") < 0,
       "vendor parse");
    topomap_topology_free(t);
    t = topomap_topology_load(TOPOS "dgx1-nolinks.yaml", err, sizeof err);
    if (ok(t != NULL, "dgx1-nolinks.yaml loads (%s)", t ? "ok" : err)) {
        /* No links: the levels (GPUs 0-3 and 4-7 by socket) decide. */
        ok(topomap_topology_cost(t, 0, 0, 0, 3) == topomap_topology_cost(t, 0, 0, 0, 1) &&
               topomap_topology_cost(t, 0, 0, 0, 4) > topomap_topology_cost(t, 0, 0, 0, 1),
           "without links: pairs by socket only");
        topomap_topology_free(t);
    }
}

/* Write text to dir/name and load it; NULL with err on failure. */
static topomap_topology_t *load_text(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return topomap_topology_load(path, err, sizeof err);
}

static void hwloc_nodes(void)
{
    static const char *const head = "network: {kind: mesh, dims: [2]}\nnodes: \"n[1-2]\"\nnode:\n";
    char text[1024];
    snprintf(text, sizeof text, "%s  hwloc: %sgpu-dgx1.xml\n  gpus: {from: hwloc}\n", head,
             TOPOS);
    topomap_topology_t *t = load_text("hw-dgx1.yaml", text);
    if (ok(t != NULL, "DGX-1 from hwloc XML (%s)", t ? "ok" : err)) {
        is_int(topomap_topology_node_gpus(t, 1), 8, "8 GPUs (cuda0..cuda7)");
        ok(dgx1_costs_ok(t, 0.25, 0.5), "NVLinkBandwidth matrix: the same pair costs as the YAML");
        int same = 1;
        static const char *const nic[8] = {"mlx5_0:1", "mlx5_0:1", "mlx5_1:1", "mlx5_1:1",
                                           "mlx5_2:1", "mlx5_2:1", "mlx5_3:1", "mlx5_3:1"};
        for (int i = 0; i < 8; i++) {
            topomap_gpu_t g;
            same &= topomap_topology_gpu(t, 0, i, &g) == 0 && g.nic && !strcmp(g.nic, nic[i]) &&
                    !strcmp(g.cpus, i < 4 ? "0-19" : "20-39") && g.numa == i / 4;
        }
        ok(same, "each GPU: the cores of its package, its NUMA, the NIC on its PCIe switch");
        topomap_topology_free(t);
    }
    snprintf(text, sizeof text, "%s  hwloc: %sgpu-amd4.xml\n  gpus: {from: hwloc}\n", head, TOPOS);
    t = load_text("hw-amd4.yaml", text);
    if (ok(t != NULL, "4-GPU AMD node from hwloc XML (%s)", t ? "ok" : err)) {
        topomap_gpu_t g;
        ok(topomap_topology_node_gpus(t, 0) == 4 && topomap_topology_gpu(t, 0, 2, &g) == 0 &&
               g.vendor == TOPOMAP_GPU_AMD && !strcmp(g.cpus, "16-23") && g.numa == 2 &&
               !strcmp(g.nic, "hsn2"),
           "rsmi2: amd, cores 16-23 of NUMA 2, network device hsn2");
        ok(topomap_topology_cost(t, 0, 0, 0, 1) == 0.25 / 4 &&
               topomap_topology_cost(t, 0, 0, 0, 2) == 0.25,
           "XGMIBandwidth: 4 links 0.0625, 1 link 0.25");
        topomap_topology_free(t);
    }
    /* The same XML without gpus: a node of cores, as before. */
    snprintf(text, sizeof text, "%s  hwloc: %sgpu-dgx1.xml\n", head, TOPOS);
    t = load_text("hw-cores.yaml", text);
    if (ok(t != NULL, "GPU node XML without 'gpus' (%s)", t ? "ok" : err)) {
        ok(topomap_topology_node_gpus(t, 0) == 0 && topomap_topology_node_cores(t, 0) == 40,
           "without 'gpus': 40 cores, no GPU");
        topomap_topology_free(t);
    }
    snprintf(text, sizeof text, "%s  hwloc: %snode-2x2x6.xml\n  gpus: {from: hwloc}\n", head,
             TOPOS);
    t = load_text("hw-nogpu.yaml", text);
    char want[512];
    snprintf(want, sizeof want, "%s/hw-nogpu.yaml:5:16: %snode-2x2x6.xml: no GPU found", dir,
             TOPOS);
    ok(!t && errno == ENOENT && !strncmp(err, want, strlen(want)),
       "XML without GPUs and from: hwloc: %s", err);
    topomap_topology_free(t);
}

static const char *const good_gpus =
    "    devices:\n      - {cpus: 0-1, numa: 0, nic: mlx5_0}\n      - {cpus: 2-3, numa: 1}\n";

static const struct {
    const char *name, *gpus, *msg; /* gpus: the lines after "  gpus:" */
} cases[] = {
    {"not-map", " [1, 2]\n", "5:9: 'gpus' must be a mapping, not a list"},
    {"unknown", " {gpu_count: 2}\n", "5:10: unknown key 'gpu_count' in gpus (expected one of: from, vendor, devices, links, "
     "link_cost, host_cost)"},
    {"from-other", " {from: nvml}\n", "5:16: 'from' must be hwloc, not 'nvml'"},
    {"from-nohwloc", " {from: hwloc}\n",
     "5:16: 'from: hwloc' needs the node's 'hwloc' file beside 'gpus'"},
    {"no-devices", " {vendor: amd}\n", "5:9: 'gpus' needs 'devices' (or 'from: hwloc')"},
    {"vendor", "\n    vendor: ati\n", "9:13: 'vendor' must be nvidia, amd or intel, not 'ati'"},
    {"devices-map", "\n    devices: {cpus: 0}\n", "6:14: 'devices' must be a list of 1..64 GPUs"},
    {"device-key", "\n    devices:\n      - {cpus: 0, pci: 1}\n", "7:19: unknown key 'pci' in a GPU (expected one of: cpus, numa, nic)"},
    {"device-cpus", "\n    devices:\n      - {numa: 0}\n",
     "7:9: missing required key 'cpus' in a GPU"},
    {"cpus-bad", "\n    devices:\n      - {cpus: 3-1}\n", "7:16: 'cpus' must be a CPU list such as 0-9,20-29, not '3-1'"},
    {"cpus-past", "\n    devices:\n      - {cpus: 0-4}\n",
     "7:16: 'cpus': core 4 is past the node's 4 cores (0-3)"},
    {"numa", "\n    devices:\n      - {cpus: 0, numa: -1}\n",
     "7:25: 'numa' must be in 0..1048576, not -1"},
    {"nic", "\n    devices:\n      - {cpus: 0, nic: \"\"}\n", "7:24: 'nic' must be a non-empty string, not empty"},
    {"links-rows", "\n    links: [[0, 1]]\n", "9:12: 'links' must be a list of 2 rows (one per GPU)"},
    {"links-row", "\n    links: [[0, 1], [1]]\n", "9:21: row 1 of 'links' must be a list of 2 numbers"},
    {"links-neg", "\n    links: [[0, -1], [-1, 0]]\n",
     "9:17: 'links' must be >= 0, not -1"},
    {"links-asym", "\n    links: [[0, 1], [2, 0]]\n",
     "9:22: 'links' must be symmetric: GPUs 1-0 have 2, 0-1 1"},
    {"link-cost", "\n    link_cost: -0.5\n",
     "9:16: 'link_cost' must be >= 0, not -0.5"},
    {"host-cost", "\n    host_cost: far\n",
     "9:16: 'host_cost' must be a number, not a plain scalar 'far'"},
};

static void yaml_errors(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], name[64], want[512];
        /* The rows that add to a valid node go after its devices (line 6-7). */
        int add_devices = cases[i].gpus[0] == '\n' && strstr(cases[i].gpus, "devices") == NULL;
        snprintf(text, sizeof text,
                 "network: {kind: mesh, dims: [2]}\nnodes: \"n[1-2]\"\nnode:\n  cores: 4\n"
                 "  gpus:%s%s",
                 add_devices ? "\n" : "", add_devices ? good_gpus : "");
        size_t l = strlen(text);
        snprintf(text + l, sizeof text - l, "%s", add_devices ? cases[i].gpus + 1 : cases[i].gpus);
        snprintf(name, sizeof name, "%s.yaml", cases[i].name);
        topomap_topology_t *t = load_text(name, text);
        snprintf(want, sizeof want, "%s/%s:%s", dir, name, cases[i].msg);
        ok(!t && !strcmp(err, want), "%s: %s", cases[i].name, err);
        if (strcmp(err, want))
            printf("#   want %s\n", want);
        topomap_topology_free(t);
    }
    /* A valid node: tiny links give the largest cost, not an overflow. */
    topomap_topology_t *cap = load_text(
        "cap.yaml", "network: {kind: mesh, dims: [2]}\nnodes: \"n[1-2]\"\nnode:\n  cores: 4\n"
                    "  gpus:\n    devices: [{cpus: 0-1}, {cpus: 2-3}]\n"
                    "    links: [[0, 1e-300], [1e-300, 0]]\n");
    ok(cap && topomap_topology_cost(cap, 0, 0, 0, 1) == TOPOMAP_MAX_COST,
       "links 1e-300: the pair costs TOPOMAP_MAX_COST (%s)", cap ? "ok" : err);
    topomap_topology_free(cap);
    /* In a node_types entry, and a count that disagrees with hwloc's. */
    char text[1024];
    topomap_topology_t *t = load_text(
        "types.yaml", "network: {kind: mesh, dims: [2]}\nnodes: \"n[1-2]\"\nnode: {cores: 2}\n"
                      "node_types:\n  - hostlist: n2\n    cores: 2\n    gpus: {vendor: amd}\n");
    char want[512];
    snprintf(want, sizeof want, "%s/types.yaml:7:11: 'gpus' needs 'devices' (or 'from: hwloc')",
             dir);
    ok(!t && !strcmp(err, want), "node_types entry: %s", err);
    topomap_topology_free(t);
    snprintf(text, sizeof text,
             "network: {kind: mesh, dims: [2]}\nnodes: \"n[1-2]\"\nnode:\n  hwloc: %sgpu-amd4.xml\n"
             "  gpus:\n    from: hwloc\n    devices: [{cpus: 0}]\n",
             TOPOS);
    t = load_text("count.yaml", text);
    snprintf(want, sizeof want, "%s/count.yaml:7:14: 'devices' lists 1 GPUs but hwloc found 4",
             dir);
    ok(!t && !strcmp(err, want), "devices against hwloc: %s", err);
    topomap_topology_free(t);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    shipped_dgx1();
    hwloc_nodes();
    yaml_errors();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    done_testing();
}
