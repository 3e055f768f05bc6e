#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Writes the hwloc XML fixtures of GPU nodes (gpu-*.xml beside this script)
# from documented layouts, the way `lstopo node.xml` writes a GPU node: PCI
# bridges under the packages, a PCI device per GPU and NIC with its OS
# devices, and the NVLink/XGMI bandwidth matrix hwloc's NVML/RSMI backends
# report. The layouts (doc/gpu-nodes.md says where each comes from):
#  dgx1:    NVIDIA DGX-1 (V100): 2 packages x 20 cores (1 PU each here), GPUs
#           0-3 under package 0, 4-7 under package 1, one EDR NIC per GPU
#           pair (mlx5_0 with GPUs 0-1 ...), NVLinks of the hybrid cube-mesh
#           (`nvidia-smi topo -m` of a DGX-1V: NV1/NV2/none); 25 GB/s a link.
#  amd4:    a synthetic AMD node of 4 GPUs (not a product): 1 package of 4
#           NUMA domains x 8 cores, GPU i near NUMA i with its own network
#           device hsn<i>; XGMI: 4 links between GPUs 0-1 and 2-3, else 1
#           (the pattern of the GCD pairs of an MI250X).
import sys, os

def mask(bits):
    v = 0
    for b in bits:
        v |= 1 << b
    h = "%x" % v
    # hwloc's bitmap syntax: 32-bit words separated by commas, first word 8 digits
    words = []
    while h:
        words.insert(0, h[-8:].rjust(8, "0"))
        h = h[:-8]
    return "0x" + ",0x".join(words)

class W:
    def __init__(self):
        self.gp = 0
        self.out = []
    def gpi(self):
        self.gp += 1
        return self.gp
    def line(self, depth, s):
        self.out.append("  " * depth + s)

def node(path, npkg, numa_per_pkg, cores_per_numa, gpus, nics, links, bw, subtype, prefix):
    """gpus: list of numa index per GPU; nics: list of (name, numa, gpu list sharing its switch, ib)"""
    w = W()
    ncores = npkg * numa_per_pkg * cores_per_numa
    nnuma = npkg * numa_per_pkg
    w.line(0, '<?xml version="1.0" encoding="UTF-8"?>')
    w.line(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    w.line(0, '<topology version="2.0">')
    allc = mask(range(ncores))
    alln = mask(range(nnuma))
    w.line(1, '<object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" allowed_cpuset="%s" '
           'nodeset="%s" complete_nodeset="%s" allowed_nodeset="%s" gp_index="%d">'
           % (allc, allc, allc, alln, alln, alln, w.gpi()))
    gpu_gp = {}
    bus = 1
    for p in range(npkg):
        pc = range(p * numa_per_pkg * cores_per_numa, (p + 1) * numa_per_pkg * cores_per_numa)
        pn = range(p * numa_per_pkg, (p + 1) * numa_per_pkg)
        w.line(2, '<object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" '
               'complete_nodeset="%s" gp_index="%d">' % (p, mask(pc), mask(pc), mask(pn), mask(pn), w.gpi()))
        for d in pn:
            dc = range(d * cores_per_numa, (d + 1) * cores_per_numa)
            inner = 3
            if numa_per_pkg > 1:
                w.line(3, '<object type="Group" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" '
                       'gp_index="%d" kind="1001" subkind="0">' % (mask(dc), mask(dc), mask([d]), mask([d]), w.gpi()))
                inner = 4
            w.line(inner, '<object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" '
                   'complete_nodeset="%s" gp_index="%d" local_memory="68719476736"/>'
                   % (d, mask(dc), mask(dc), mask([d]), mask([d]), w.gpi()))
            for c in dc:
                w.line(inner, '<object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" '
                       'complete_nodeset="%s" gp_index="%d">' % (c, mask([c]), mask([c]), mask([d]), mask([d]), w.gpi()))
                w.line(inner + 1, '<object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" '
                       'complete_nodeset="%s" gp_index="%d"/>' % (c, mask([c]), mask([c]), mask([d]), mask([d]), w.gpi()))
                w.line(inner, '</object>')
            # One host bridge per NIC of this domain: a PCIe switch with the NIC and its GPUs.
            for (name, nnuma_, ngpus, ib) in nics:
                if nnuma_ != d:
                    continue
                first = bus
                last = bus + len(ngpus) + 1
                w.line(inner, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
                       'bridge_pci="0000:[%02x-%02x]">' % (w.gpi(), first, last))
                w.line(inner + 1, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="1" '
                       'bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:00.0" pci_type="0604 [10b5:8747] [0000:0000] ca" '
                       'pci_link_speed="15.753846">' % (w.gpi(), first + 1, last, first))
                b = first + 1
                for g in ngpus:
                    w.line(inner + 2, '<object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" '
                           'pci_type="0302 [10de:1db1] [10de:1212] a1" pci_link_speed="15.753846">' % (w.gpi(), b))
                    gp = w.gpi()
                    gpu_gp[g] = gp
                    w.line(inner + 3, '<object type="OSDev" gp_index="%d" name="%s%d" subtype="%s" osdev_type="%d"/>'
                           % (gp, prefix, g, subtype, 5 if subtype == "CUDA" else 1))
                    w.line(inner + 2, '</object>')
                    b += 1
                w.line(inner + 2, '<object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" '
                       'pci_type="0207 [15b3:1013] [15b3:0008] 00" pci_link_speed="15.753846">' % (w.gpi(), b))
                w.line(inner + 3, '<object type="OSDev" gp_index="%d" name="%s" osdev_type="%d"/>'
                       % (w.gpi(), name, 3 if ib else 2))
                w.line(inner + 2, '</object>')
                w.line(inner + 1, '</object>')
                w.line(inner, '</object>')
                bus = last + 1
            if numa_per_pkg > 1:
                w.line(3, '</object>')
        w.line(2, '</object>')
    w.line(1, '</object>')
    if links:
        n = len(gpus)
        w.line(1, '<distances2 type="OSDev" nbobjs="%d" kind="9" name="%s" indexing="gp">'
               % (n, "NVLinkBandwidth" if subtype == "CUDA" else "XGMIBandwidth"))
        idx = " ".join(str(gpu_gp[g]) for g in range(n))
        w.line(2, '<indexes length="%d">%s</indexes>' % (len(idx) + 1, idx + " "))
        vals = " ".join(str(links[a][b] * bw if a != b else 0) for a in range(n) for b in range(n))
        w.line(2, '<u64values length="%d">%s</u64values>' % (len(vals) + 1, vals + " "))
        w.line(1, '</distances2>')
    w.line(0, '</topology>')
    with open(path, "w") as f:
        f.write("\n".join(w.out) + "\n")

DGX1_LINKS = [
    [0, 1, 1, 2, 2, 0, 0, 0],
    [1, 0, 2, 1, 0, 2, 0, 0],
    [1, 2, 0, 2, 0, 0, 1, 0],
    [2, 1, 2, 0, 0, 0, 0, 1],
    [2, 0, 0, 0, 0, 1, 1, 2],
    [0, 2, 0, 0, 1, 0, 2, 1],
    [0, 0, 1, 0, 1, 2, 0, 2],
    [0, 0, 0, 1, 2, 1, 2, 0],
]
MI4_LINKS = [
    [0, 4, 1, 1],
    [4, 0, 1, 1],
    [1, 1, 0, 4],
    [1, 1, 4, 0],
]

here = os.path.dirname(os.path.abspath(__file__))
# DGX-1: NUMA domain = package; NICs mlx5_0 (GPUs 0,1) mlx5_1 (2,3) on package 0 ...
node(os.path.join(here, "gpu-dgx1.xml"), 2, 1, 20, [0] * 4 + [1] * 4,
     [("mlx5_0", 0, [0, 1], True), ("mlx5_1", 0, [2, 3], True),
      ("mlx5_2", 1, [4, 5], True), ("mlx5_3", 1, [6, 7], True)],
     DGX1_LINKS, 25000, "CUDA", "cuda")
node(os.path.join(here, "gpu-amd4.xml"), 1, 4, 8, [0, 1, 2, 3],
     [("hsn0", 0, [0], False), ("hsn1", 1, [1], False), ("hsn2", 2, [2], False), ("hsn3", 3, [3], False)],
     MI4_LINKS, 50000, "RSMI", "rsmi")
