/* SPDX-License-Identifier: BSD-3-Clause */
/* The inside of a node from hwloc: an XML file written by `lstopo node.xml`
 * (or `hwloc-gather-topology`), or the running machine. Levels: packages,
 * NUMA nodes when they split a package, cores (PUs when hwloc reports no
 * cores). The model needs identical packages and NUMA nodes (a product of
 * arities); asymmetric machines are rejected with a message rather than
 * approximated. Core c of the node is hwloc's core of logical index c, which
 * hwloc numbers package by package, so the mixed-radix layout holds; it is
 * checked anyway. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "internal.h"
#include "topology_priv.h"
#include "input.h"

/* NUMA nodes that hold cores, without repeats (a memory-only node such as
 * HBM shares its cpuset with a DRAM node and is not a separate domain). */
static int numa_domains(hwloc_topology_t topo, hwloc_obj_t *dom, int max)
{
    int n = 0;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o))) {
        if (!o->cpuset || hwloc_bitmap_iszero(o->cpuset))
            continue;
        int dup = 0;
        for (int k = 0; k < n && !dup; k++)
            dup = hwloc_bitmap_isequal(dom[k]->cpuset, o->cpuset);
        if (dup)
            continue;
        if (n == max)
            return -1;
        dom[n++] = o;
    }
    return n;
}

static int levels_from(hwloc_topology_t topo, const topomap_topology_t *t,
                       struct topo_ntype *ty, const char *what, char *err, size_t errlen)
{
    hwloc_obj_type_t ctype = HWLOC_OBJ_CORE;
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) {
        ctype = HWLOC_OBJ_PU;
        ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    if (ncores <= 0)
        return topomap_fail(err, errlen, EINVAL, "%s: no cores found", what);
    if (ncores > TOPO_MAX_CORES)
        return topomap_fail(err, errlen, EINVAL, "%s: %d cores is too many", what, ncores);
    int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (npkg <= 0)
        npkg = 1; /* no package level reported: the whole machine is one */
    if (ncores % npkg)
        return topomap_fail(err, errlen, EINVAL,
                            "%s: %d cores do not split evenly over %d packages", what, ncores,
                            npkg);
    int cpp = ncores / npkg;
    /* Every package the same size, cores numbered package by package. */
    for (int c = 0; c < ncores; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, ctype, (unsigned)c);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core);
        int p = pkg ? (int)pkg->logical_index : 0;
        if (p != c / cpp)
            return topomap_fail(err, errlen, EINVAL,
                                "%s: packages are not identical (core %d is in package %d, "
                                "expected %d with %d cores per package)",
                                what, c, p, c / cpp, cpp);
    }
    /* NUMA domains that split packages evenly. */
    int maxdom = ncores < 4096 ? ncores : 4096;
    hwloc_obj_t *dom = malloc(sizeof *dom * (size_t)maxdom);
    if (!dom)
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    int ndom = numa_domains(topo, dom, maxdom);
    int split = ndom > npkg && ndom % npkg == 0;
    int cpd = split ? ncores / ndom : 0;
    for (int d = 0; split && d < ndom; d++) {
        /* Inside one package, the expected size, and in core order. */
        int in = hwloc_get_nbobjs_inside_cpuset_by_type(topo, dom[d]->cpuset, ctype);
        hwloc_obj_t first = hwloc_get_next_obj_inside_cpuset_by_type(topo, dom[d]->cpuset,
                                                                     ctype, NULL);
        if (in != cpd || !first || (int)first->logical_index % cpd)
            split = 0;
        else {
            hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, first);
            if (pkg && !hwloc_bitmap_isincluded(dom[d]->cpuset, pkg->cpuset))
                split = 0;
        }
    }
    free(dom);
    int arity[3], nl = 0;
    const char *names[3];
    arity[nl] = npkg;
    names[nl++] = "package";
    if (split) {
        arity[nl] = ndom / npkg;
        names[nl++] = "numa";
        arity[nl] = cpd;
    } else {
        arity[nl] = cpp;
    }
    names[nl++] = ctype == HWLOC_OBJ_CORE ? "core" : "pu";
    return topo_type_levels(t, ty, nl, arity, NULL, names, err, errlen);
}

int topo_hwloc_type(const topomap_topology_t *t, const char *xml_path, struct topo_ntype *ty,
                    char *err, size_t errlen)
{
    hwloc_topology_t topo;
    char what[1024], *xml = NULL;
    size_t len = 0;
    if (xml_path) {
        /* Read by us, not by hwloc: a clear message for a missing file, no
         * FIFO or device (hwloc would block or read forever), a size cap. */
        if (!(xml = topomap_input_slurp(xml_path, TOPOMAP_MAX_TOPOLOGY_FILE, "an hwloc XML file",
                                        &len, err, errlen)))
            return -1;
        snprintf(what, sizeof what, "%s", xml_path);
    } else {
        snprintf(what, sizeof what, "this machine (hwloc)");
    }
    if (hwloc_topology_init(&topo) < 0) {
        free(xml);
        return topomap_fail(err, errlen, ENOMEM, "hwloc_topology_init failed");
    }
    if (xml) {
        /* The size counts the final NUL, as hwloc's own XML export gives it. */
        int rc = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1);
        int e = errno;
        free(xml);
        if (rc < 0) {
            hwloc_topology_destroy(topo);
            return topomap_fail(err, errlen, EINVAL, "%s: not a usable hwloc XML file (%s)",
                                xml_path, strerror(e));
        }
    } else {
        /* The node as built, not just the cores this process may use. */
        hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    }
    if (hwloc_topology_load(topo) < 0) {
        int e = errno;
        hwloc_topology_destroy(topo);
        return topomap_fail(err, errlen, EINVAL, "%s: hwloc could not load it (%s)", what,
                            strerror(e));
    }
    int rc = levels_from(topo, t, ty, what, err, errlen);
    hwloc_topology_destroy(topo);
    if (rc < 0)
        return -1;
    char src[1100];
    snprintf(src, sizeof src, "%s%s", xml_path ? "hwloc XML " : "", what);
    free(ty->node_source);
    ty->node_source = strdup(src); /* describe() only; NULL on ENOMEM is harmless */
    return 0;
}

int topomap_topology_set_node_hwloc(topomap_topology_t *t, const char *xml_path, char *err,
                                    size_t errlen)
{
    struct topo_ntype ty = {0};
    if (!t)
        return topomap_fail(err, errlen, EINVAL, "topomap_topology_set_node_hwloc: NULL topology");
    if (topo_hwloc_type(t, xml_path, &ty, err, errlen) < 0) {
        topo_type_clear(&ty);
        return -1;
    }
    topo_types_reset(t, &ty);
    return 0;
}
