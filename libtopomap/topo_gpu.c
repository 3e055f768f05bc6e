/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU nodes: a node type whose slots are its GPUs (one rank per GPU), each
 * with the CPU cores, NUMA domain and NIC near it, and a cost per GPU pair
 * from the links between them (NVLink, Infinity Fabric).
 *
 * Model (doc/gpu-nodes.md): the cost of GPUs a != b of a node is
 * link_cost / links[a][b] when they have links (a count, or a bandwidth in
 * any unit: more of it, cheaper), host_cost when they have none (the path
 * through PCIe and the host). Without a links matrix the GPUs cost what the
 * slot levels say (GPUs of one NUMA domain closer than the others), which is
 * what a GPU-unaware placement sees. SumCom and every algorithm read the
 * pair cost through topomap_topology_cost(), so nothing else changes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topology_priv.h"

void topo_gpus_free(struct topo_gpus *g)
{
    if (!g)
        return;
    for (int i = 0; g->gpu && i < g->ngpu; i++) {
        free(g->gpu[i].cpus);
        free(g->gpu[i].nic);
    }
    free(g->gpu);
    free(g->links);
    free(g->cost);
    free(g);
}

long topo_cpulist_max(const char *s)
{
    long max = -1;
    const char *p = s;
    if (!*p)
        return -1;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return -1;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            if (p[1] < '0' || p[1] > '9')
                return -1;
            b = strtol(p + 1, &end, 10);
            p = end;
            if (b < a)
                return -1;
        }
        if (a > TOPO_MAX_CORES || b > TOPO_MAX_CORES)
            return -1;
        if (b > max)
            max = b;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    return max;
}

/* Slot levels: one per NUMA domain when every GPU names its domain, the
 * GPUs of a domain are consecutive and every domain has as many (two or
 * more); else one level of GPUs. */
static int gpu_levels(const struct topo_gpus *g, int *arity, const char **names)
{
    int n = g->ngpu, ndom = 1, per = 0;
    for (int i = 0; i < n; i++)
        if (g->gpu[i].numa < 0)
            goto flat;
    for (int i = 1; i < n; i++)
        if (g->gpu[i].numa != g->gpu[i - 1].numa) {
            for (int j = 0; j < i; j++)
                if (g->gpu[j].numa == g->gpu[i].numa)
                    goto flat; /* not consecutive */
            ndom++;
        }
    per = n / ndom;
    if (ndom < 2 || per < 2 || per * ndom != n)
        goto flat;
    for (int i = 0; i < n; i++)
        if (g->gpu[i].numa != g->gpu[i / per * per].numa)
            goto flat;
    arity[0] = ndom;
    names[0] = "numa";
    arity[1] = per;
    names[1] = "gpu";
    return 2;
flat:
    arity[0] = n;
    names[0] = "gpu";
    return 1;
}

int topo_gpus_attach(const topomap_topology_t *t, struct topo_ntype *ty, struct topo_gpus *g,
                     char *err, size_t errlen)
{
    int n = g->ngpu;
    if (n < 1 || n > TOPOMAP_MAX_GPUS) {
        topo_gpus_free(g);
        return topomap_fail(err, errlen, EINVAL, "a node may have 1..%d GPUs, not %d",
                            TOPOMAP_MAX_GPUS, n);
    }
    g->cpu_cores = ty->cores;
    for (int i = 0; i < n; i++) {
        long max = topo_cpulist_max(g->gpu[i].cpus ? g->gpu[i].cpus : "");
        if (max < 0 || max >= g->cpu_cores) {
            int c = g->cpu_cores;
            topo_gpus_free(g);
            if (max < 0)
                return topomap_fail(err, errlen, EINVAL, "GPU %d: 'cpus' is not a CPU list", i);
            return topomap_fail(err, errlen, EINVAL,
                                "GPU %d: core %ld is past the node's %d cores (0-%d)", i, max, c,
                                c - 1);
        }
    }
    if (g->links) {
        if (!(g->cost = malloc(sizeof(double) * (size_t)n * (size_t)n))) {
            topo_gpus_free(g);
            return topomap_fail(err, errlen, ENOMEM, "out of memory");
        }
        /* A tiny links value would give a cost past what SumCom may sum
         * (TOPOMAP_MAX_COST bounds every cost the YAML gives). */
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double l = g->links[(size_t)a * n + b];
                double c = a == b ? 0.0 : l > 0 ? g->link_cost / l : g->host_cost;
                g->cost[(size_t)a * n + b] = c < TOPOMAP_MAX_COST ? c : TOPOMAP_MAX_COST;
            }
    }
    int arity[2], nl;
    const char *names[2];
    double cost[3];
    nl = gpu_levels(g, arity, names);
    for (int k = 0; k < nl; k++)
        cost[k] = topo_default_cost(t, k);
    cost[nl] = ty->cost[ty->nlevels]; /* self_cost */
    if (topo_type_levels(t, ty, nl, arity, cost, names, err, errlen) < 0) {
        topo_gpus_free(g);
        return -1;
    }
    topo_gpus_free(ty->gpus);
    ty->gpus = g;
    return 0;
}

static const char *const vendor_names[] = {"", "nvidia", "amd", "intel"};

const char *topomap_gpu_vendor_name(topomap_gpu_vendor_t vendor)
{
    return vendor >= TOPOMAP_GPU_NVIDIA && vendor <= TOPOMAP_GPU_INTEL ? vendor_names[vendor]
                                                                        : NULL;
}

int topomap_gpu_vendor_parse(const char *name)
{
    for (int v = TOPOMAP_GPU_NVIDIA; name && v <= TOPOMAP_GPU_INTEL; v++)
        if (!strcmp(name, vendor_names[v]))
            return v;
    errno = EINVAL;
    return -1;
}

void topo_gpus_describe(const struct topo_gpus *g, const char *indent, FILE *f)
{
    char safe[1100];
    fprintf(f, "%sGPUs: %d %s (slots), %d CPU cores\n", indent, g->ngpu,
            vendor_names[g->vendor], g->cpu_cores);
    for (int i = 0; i < g->ngpu; i++) {
        fprintf(f, "%s  GPU %d: cpus %s", indent, i,
                topomap_printable(g->gpu[i].cpus, safe, sizeof safe));
        if (g->gpu[i].numa >= 0)
            fprintf(f, ", numa %d", g->gpu[i].numa);
        if (g->gpu[i].nic)
            fprintf(f, ", nic %s", topomap_printable(g->gpu[i].nic, safe, sizeof safe));
        if (g->cost) {
            fprintf(f, ", pair costs");
            for (int j = 0; j < g->ngpu; j++)
                fprintf(f, " %g", g->cost[(size_t)i * g->ngpu + j]);
        }
        fputc('\n', f);
    }
    if (!g->cost)
        fprintf(f, "%s  no links given: GPU pairs cost what the levels say\n", indent);
}

int topomap_topology_node_gpus(const topomap_topology_t *t, int node)
{
    if (!t || (unsigned)node >= (unsigned)t->nnodes) {
        errno = EINVAL;
        return -1;
    }
    const struct topo_gpus *g = topo_type_of(t, node)->gpus;
    return g ? g->ngpu : 0;
}

int topomap_topology_gpu(const topomap_topology_t *t, int node, int gpu, topomap_gpu_t *out)
{
    int n = topomap_topology_node_gpus(t, node);
    if (n < 0 || !out || gpu < 0 || gpu >= n) {
        errno = EINVAL;
        return -1;
    }
    const struct topo_gpus *g = topo_type_of(t, node)->gpus;
    out->vendor = g->vendor;
    out->cpus = g->gpu[gpu].cpus;
    out->numa = g->gpu[gpu].numa;
    out->nic = g->gpu[gpu].nic;
    out->cpu_cores = g->cpu_cores;
    return 0;
}

int topomap_topology_gpu_links(const topomap_topology_t *t)
{
    for (int i = 0; i < t->ntypes; i++)
        if (t->types[i].gpus && t->types[i].gpus->cost)
            return 1;
    return 0;
}

/* The GPU fabric of a topology (read by topo_fabric.c): freed, asked and
 * described with the topology. */
void topo_fabric_free(struct topo_fabric *f)
{
    if (!f)
        return;
    free(f->domain);
    free(f);
}

int topomap_topology_rails(const topomap_topology_t *t)
{
    return t && t->fabric ? t->fabric->rails : 0;
}

int topomap_topology_domains(const topomap_topology_t *t)
{
    return t && t->fabric ? t->fabric->ndomains : 0;
}

int topomap_topology_domain(const topomap_topology_t *t, int node)
{
    if (!t || (unsigned)node >= (unsigned)t->nnodes) {
        errno = EINVAL;
        return -1;
    }
    return t->fabric && t->fabric->domain ? t->fabric->domain[node] : -1;
}

void topo_fabric_describe(const topomap_topology_t *t, FILE *out)
{
    const struct topo_fabric *f = t->fabric;
    static const char *const from[] = {"", "one per node", "the network's blocks", "by size",
                                       "listed"};
    if (!f)
        return;
    fprintf(out, "gpu fabric:");
    if (f->rails)
        fprintf(out, " %d rails (NIC per GPU, GPU g on rail g mod %d)", f->rails, f->rails);
    if (f->ndomains)
        fprintf(out, "%s %d NVLink domains (%s)", f->rails ? "," : "", f->ndomains,
                from[f->from]);
    fprintf(out, "\n");
    if (f->nvlink_bw || f->nic_bw)
        fprintf(out, "gpu bandwidth: NVLink %g B/s, NIC %g B/s per GPU\n", f->nvlink_bw,
                f->nic_bw);
}
