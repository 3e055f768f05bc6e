/* SPDX-License-Identifier: BSD-3-Clause */
/* Topology descriptions in YAML (libtopomap/topo_yaml.c, Slurm's topology.yaml in
 * libtopomap/topo_slurmyaml.c, and the builders). The directory also holds a small
 * topology.conf (ok.conf) and an hwloc XML file (node.xml) that inputs may
 * name in slurm_topology: and hwloc:. */
#include "fuzz.h"

static const char conf[] = "SwitchName=top Switches=l[1-2]\n"
                           "SwitchName=l1 Nodes=a[1-2]\nSwitchName=l2 Nodes=a[3-4]\n";
static const char xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
    "<topology version=\"2.0\">\n"
    "  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
    "allowed_nodeset=\"0x00000001\" gp_index=\"1\">\n"
    "    <object type=\"Package\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\">\n"
    "      <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"3\">\n"
    "        <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\"/>\n"
    "      </object>\n"
    "      <object type=\"Core\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\">\n"
    "        <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"6\"/>\n"
    "      </object>\n"
    "    </object>\n"
    "    <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
    "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"7\" local_memory=\"1000000\"/>\n"
    "  </object>\n"
    "</topology>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        fuzz_file("ok.conf", (const uint8_t *)conf, sizeof conf - 1);
        fuzz_file("node.xml", (const uint8_t *)xml, sizeof xml - 1);
        ready = 1;
    }
    fuzz_topology_file("t.yaml", data, size);
    return 0;
}
