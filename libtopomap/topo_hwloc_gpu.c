/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPUs of a node from hwloc's XML (`lstopo node.xml` on a GPU node, which
 * keeps the PCI devices and their OS devices):
 *  - GPUs: the OS devices of one runtime, in this order of preference: CUDA
 *    (cudaN), NVML (nvmlN), RSMI (rsmiN, AMD), LevelZero (zeN, Intel); GPU i
 *    is the runtime's device i (the number in its name), which is what the
 *    vendor's *_VISIBLE_DEVICES variables count;
 *  - the cores near a GPU: the cores of its first non-I/O ancestor (the
 *    package or NUMA domain its PCI bridge hangs from), numbered as
 *    topo_hwloc.c numbers them (hwloc's logical core index);
 *  - its NIC: the OpenFabrics device (else the network device) with the
 *    deepest common ancestor, ties to the first;
 *  - links: hwloc's "NVLinkBandwidth" (NVML) or "XGMIBandwidth" (RSMI)
 *    distances, divided by the smallest bandwidth of a linked pair so that
 *    one link's worth is 1 (the YAML's 'links' unit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "internal.h"
#include "topology_priv.h"
#include "input.h"

static const struct {
    const char *subtype, *prefix;
    int vendor;
} runtimes[] = {{.subtype = "CUDA", .prefix = "cuda", .vendor = TOPOMAP_GPU_NVIDIA},
                {.subtype = "NVML", .prefix = "nvml", .vendor = TOPOMAP_GPU_NVIDIA},
                {.subtype = "RSMI", .prefix = "rsmi", .vendor = TOPOMAP_GPU_AMD},
                {.subtype = "LevelZero", .prefix = "ze", .vendor = TOPOMAP_GPU_INTEL}};

/* The runtime's device number of o (cuda3 -> 3), or -1 when o is not one of
 * runtime r's. */
static int device_number(hwloc_obj_t o, int r)
{
    size_t pl = strlen(runtimes[r].prefix);
    if (!o->subtype || strcmp(o->subtype, runtimes[r].subtype) || !o->name ||
        strncmp(o->name, runtimes[r].prefix, pl))
        return -1;
    char *end;
    long v = strtol(o->name + pl, &end, 10);
    return end == o->name + pl || *end || v < 0 || v >= TOPOMAP_MAX_GPUS ? -1 : (int)v;
}

/* "0-9,20-29": the cores (hwloc's logical core index) inside set. */
static char *core_list(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
    hwloc_obj_type_t ct = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                            : HWLOC_OBJ_PU;
    int n = hwloc_get_nbobjs_by_type(topo, ct);
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int c = 0; c < n;) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, ct, (unsigned)c);
        if (!hwloc_bitmap_isincluded(o->cpuset, set)) {
            c++;
            continue;
        }
        int e = c;
        while (e + 1 < n &&
               hwloc_bitmap_isincluded(hwloc_get_obj_by_type(topo, ct, (unsigned)e + 1)->cpuset,
                                       set))
            e++;
        if (cap - len < 32) {
            char *ns = realloc(s, cap *= 2);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        len += (size_t)snprintf(s + len, cap - len, len ? ",%d" : "%d", c);
        if (e > c)
            len += (size_t)snprintf(s + len, cap - len, "-%d", e);
        c = e + 1;
    }
    return s;
}

/* The NUMA domain (logical index) that holds set, -1 when set spans several. */
static int numa_of(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
    int found = -1;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)))
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, set)) {
            if (found >= 0 && !hwloc_bitmap_isequal(o->cpuset, set) &&
                !hwloc_bitmap_isincluded(set, o->cpuset))
                return -1;
            if (found < 0)
                found = (int)o->logical_index;
        }
    return found;
}

/* Steps from o up to its ancestor anc. */
static int steps_up(hwloc_obj_t o, hwloc_obj_t anc)
{
    int k = 0;
    for (; o && o != anc; o = o->parent)
        k++;
    return k;
}

/* The NIC nearest to GPU osdev gpu: the fewest steps from the GPU up to
 * their common ancestor (I/O objects have no usable depth); among equals,
 * OpenFabrics before a network device, then the first. "mlx5_0:1" for
 * OpenFabrics (the way UCX names a port), the interface name for a network
 * device, or NULL when there is none. */
static char *nearest_nic(hwloc_topology_t topo, hwloc_obj_t gpu)
{
    hwloc_obj_t best = NULL, o = NULL;
    int best_steps = 0, best_ib = 0;
    while ((o = hwloc_get_next_osdev(topo, o))) {
        int ib = o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
        if (!ib && o->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
            continue;
        int k = steps_up(gpu, hwloc_get_common_ancestor_obj(topo, gpu, o));
        if (!best || k < best_steps || (k == best_steps && ib && !best_ib)) {
            best = o;
            best_steps = k;
            best_ib = ib;
        }
    }
    if (!best || !best->name)
        return NULL;
    char buf[256];
    snprintf(buf, sizeof buf, best_ib ? "%s:1" : "%s", best->name);
    return strdup(buf);
}

/* The PCI device above osdev o, or o itself. */
static hwloc_obj_t pci_of(hwloc_obj_t o)
{
    return o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE ? o->parent : o;
}

/* Links from a bandwidth matrix hwloc has between GPUs (any of their OS
 * devices: matched through the PCI device). */
static int read_links(hwloc_topology_t topo, struct topo_gpus *g, hwloc_obj_t *osdev)
{
    static const char *const names[] = {"NVLinkBandwidth", "XGMIBandwidth"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        unsigned nr = 1;
        struct hwloc_distances_s *d;
        if (hwloc_distances_get_by_name(topo, names[k], &nr, &d, 0) < 0 || nr == 0)
            continue;
        int n = g->ngpu, *idx = malloc(sizeof(int) * d->nbobjs);
        double *m = calloc((size_t)n * (size_t)n, sizeof(double));
        if (!idx || !m) {
            free(idx);
            free(m);
            hwloc_distances_release(topo, d);
            return -1;
        }
        for (unsigned i = 0; i < d->nbobjs; i++) {
            idx[i] = -1;
            for (int j = 0; j < n; j++)
                if (d->objs[i] && pci_of(d->objs[i]) == pci_of(osdev[j]))
                    idx[i] = j;
        }
        double min = 0;
        for (unsigned i = 0; i < d->nbobjs; i++)
            for (unsigned j = 0; j < d->nbobjs; j++) {
                double v = (double)d->values[i * d->nbobjs + j];
                if (idx[i] < 0 || idx[j] < 0 || idx[i] == idx[j] || v <= 0)
                    continue;
                m[(size_t)idx[i] * n + idx[j]] = v;
                if (min == 0 || v < min)
                    min = v;
            }
        hwloc_distances_release(topo, d);
        free(idx);
        /* Bandwidth one way may differ from the other: the pair's is the
         * smaller (symmetric, as the YAML requires). */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < a; b++) {
                double *x = &m[(size_t)a * n + b], *y = &m[(size_t)b * n + a];
                double v = *x < *y ? *x : *y;
                *x = *y = min > 0 ? v / min : 0;
            }
        g->links = m;
        return 0;
    }
    return 0;
}

/* The GPUs of runtime r into g (ngpu, gpu[], vendor), osdev[i] GPU i's. */
static int find_gpus(hwloc_topology_t topo, struct topo_gpus *g, hwloc_obj_t *osdev,
                     const char *what, char *err, size_t errlen)
{
    int r = 0, n = 0;
    for (; r < (int)(sizeof runtimes / sizeof *runtimes); r++) {
        hwloc_obj_t o = NULL;
        n = 0;
        while ((o = hwloc_get_next_osdev(topo, o))) {
            int i = device_number(o, r);
            if (i < 0)
                continue;
            if (osdev[i])
                return topomap_fail(err, errlen, EINVAL, "%s: two GPUs named %s", what, o->name);
            osdev[i] = o;
            n = i + 1 > n ? i + 1 : n;
        }
        if (n)
            break;
    }
    if (!n)
        return topomap_fail(err, errlen, ENOENT,
                            "%s: no GPU found (no CUDA, NVML, RSMI or LevelZero OS device; "
                            "was lstopo run with I/O devices on a GPU node?)",
                            what);
    for (int i = 0; i < n; i++)
        if (!osdev[i])
            return topomap_fail(err, errlen, EINVAL, "%s: GPU %s%d is missing (%d GPUs)", what,
                                runtimes[r].prefix, i, n);
    g->ngpu = n;
    g->vendor = runtimes[r].vendor;
    if (!(g->gpu = calloc((size_t)n, sizeof *g->gpu)))
        return topomap_fail(err, errlen, ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, osdev[i]);
        g->gpu[i].numa = numa_of(topo, anc->cpuset);
        g->gpu[i].cpus = core_list(topo, anc->cpuset);
        g->gpu[i].nic = nearest_nic(topo, osdev[i]);
        if (!g->gpu[i].cpus)
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        if (!*g->gpu[i].cpus)
            return topomap_fail(err, errlen, EINVAL, "%s: GPU %d has no core near it", what, i);
    }
    return 0;
}

struct topo_gpus *topo_hwloc_gpus(const char *xml_path, char *err, size_t errlen)
{
    hwloc_topology_t topo;
    size_t len = 0;
    char *xml = topomap_input_slurp(xml_path, TOPOMAP_MAX_TOPOLOGY_FILE, "an hwloc XML file", &len,
                                    err, errlen);
    if (!xml)
        return NULL;
    if (hwloc_topology_init(&topo) < 0) {
        free(xml);
        topomap_fail(err, errlen, ENOMEM, "hwloc_topology_init failed");
        return NULL;
    }
    /* hwloc drops I/O objects unless asked to keep them. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int rc = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1);
    free(xml);
    if (rc < 0 || hwloc_topology_load(topo) < 0) {
        int e = errno;
        hwloc_topology_destroy(topo);
        topomap_fail(err, errlen, EINVAL, "%s: hwloc could not load it (%s)", xml_path,
                     strerror(e));
        return NULL;
    }
    struct topo_gpus *g = calloc(1, sizeof *g);
    hwloc_obj_t osdev[TOPOMAP_MAX_GPUS] = {0};
    if (!g)
        topomap_fail(err, errlen, ENOMEM, "out of memory");
    else if (find_gpus(topo, g, osdev, xml_path, err, errlen) < 0 ||
             (read_links(topo, g, osdev) < 0 &&
              topomap_fail(err, errlen, ENOMEM, "out of memory") < 0)) {
        topo_gpus_free(g);
        g = NULL;
    }
    hwloc_topology_destroy(topo);
    return g;
}
