/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap topology: describe a machine description, list the shipped ones,
 * ask how far apart two nodes are. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char help_topology[] =
    "Usage: topomap topology show T [--topology-name NAME] [--cores-per-node N]\n"
    "                             [--json]\n"
    "       topomap topology list\n"
    "       topomap topology hops T NODE1 NODE2 [--topology-name NAME]\n"
    "                             [--cores-per-node N]\n"
    "\n"
    "T is a machine description: a site YAML file, a Slurm topology.conf\n"
    "(topology/tree or topology/block), a Slurm topology.yaml, or the name of a\n"
    "shipped description (torus-8x8x8 finds torus-8x8x8.yaml in the\n"
    "directories of $TOPOMAP_TOPOLOGY_PATH, colon-separated, then in the\n"
    "installed PREFIX/share/topomap/topologies).\n"
    "\n"
    "  show T              summarise T: kind, number of nodes, node names, cores\n"
    "                      per node, node levels and diameter (each node type\n"
    "                      with its nodes when T has several)\n"
    "  list                the shipped descriptions found by name: name, kind,\n"
    "                      nodes, cores per node, file\n"
    "  hops T NODE1 NODE2  the network hops between two nodes and the route the\n"
    "                      congestion metric charges (network elements past the\n"
    "                      nodes are switches or chip halves, by number)\n"
    "\n"
    "Options:\n"
    "  --topology-name NAME\n"
    "                      the topology NAME of a Slurm topology.yaml (default:\n"
    "                      its cluster_default one, else its first)\n"
    "  --cores-per-node N  describe every node as N cores\n"
    "  --json              show: print one JSON object: topology (T), kind,\n"
    "                      nnodes, nodes (every name, in node order), cores,\n"
    "                      node_types ([{cores, count, nodes}], nodes a hostlist),\n"
    "                      diameter, hop_cost, link_bandwidth (null if unset)\n"
    "  -h, --help          print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap topology show torus-8x8x8\n"
    "  topomap topology hops tianhe3-prototype cn0000 cn0097\n";

/* A file of a later directory that NAME finds in an earlier one. */
static int shadowed(const char *nm, size_t len, const char *path)
{
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)len, nm);
    char *found = find_topology(name);
    int other = found && strcmp(found, path);
    free(found);
    return other;
}

static int topology_list(void)
{
    const char *dirs[32];
    int nd = topology_dirs(dirs, 32), found = 0;
    printf("%-24s %-9s %7s %6s  %s\n", "NAME", "KIND", "NODES", "CORES", "FILE");
    for (int i = 0; i < nd; i++) {
        struct dirent **ents;
        int ne = scandir(dirs[i], &ents, NULL, alphasort);
        for (int k = 0; k < ne; k++) {
            const char *nm = ents[k]->d_name;
            size_t len = strlen(nm);
            char path[4096], err[TOPOMAP_ERRLEN] = "";
            snprintf(path, sizeof path, "%s/%s", dirs[i], nm);
            if (len > 5 && !strcmp(nm + len - 5, ".yaml") && !shadowed(nm, len - 5, path)) {
                topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
                if (t) {
                    /* Node types: the cores of each, "128/48". */
                    char cores[64] = "";
                    for (int ty = 0, at = 0; ty < topomap_topology_ntypes(t) && at < 48; ty++)
                        at += snprintf(cores + at, sizeof cores - (size_t)at, "%s%d",
                                       ty ? "/" : "", topomap_topology_type_cores(t, ty));
                    printf("%-24.*s %-9s %7d %6s  %s\n", (int)len - 5, nm,
                           topomap_topology_kind(t), topomap_topology_nnodes(t), cores, path);
                } else {
                    fprintf(stderr, "topomap: topology: %s\n", liberr(err, path, errno));
                }
                topomap_topology_free(t);
                found++;
            }
            free(ents[k]);
        }
        if (ne >= 0)
            free(ents);
    }
    if (!found) {
        fflush(stdout);
        notice("no topology descriptions in %s%s (set TOPOMAP_TOPOLOGY_PATH to a directory of "
               "them, e.g. the source tree's topologies/)",
               dirs[0], nd > 1 ? " nor the other directories searched" : "");
    }
    return finish_stdout(found ? 0 : EXIT_INPUT);
}

static int topology_hops(const struct args *a)
{
    topomap_topology_t *t = load_topology(a, a->pos[1]);
    int n[2];
    for (int k = 0; k < 2; k++)
        if ((n[k] = topomap_topology_node_lookup(t, a->pos[2 + k])) < 0)
            input_error("'%s' is not a node of %s", a->pos[2 + k], a->pos[1]);
    int max = topomap_topology_route_max(t), nnodes = topomap_topology_nnodes(t);
    int *el = malloc(sizeof(int) * (size_t)(max + 1));
    if (!el)
        input_error("out of memory");
    int len = topomap_topology_route(t, n[0], n[1], el, max + 1);
    if (len < 0)
        input_error("cannot route %s to %s: %s", a->pos[2], a->pos[3], strerror(errno));
    printf("%s %s: %d hops; route over %d link%s:", a->pos[2], a->pos[3],
           topomap_topology_hops(t, n[0], n[1]), len, len == 1 ? "" : "s");
    for (int i = 0; i <= len; i++) {
        if (el[i] < nnodes)
            printf(" %s", topomap_topology_node_name(t, el[i]));
        else
            printf(" [%d]", el[i]);
    }
    printf("\n");
    free(el);
    topomap_topology_free(t);
    return finish_stdout(0);
}

/* show --json: what describe prints, as one object. */
static int topology_json(const char *name, const topomap_topology_t *t)
{
    int n = topomap_topology_nnodes(t), nt = topomap_topology_ntypes(t);
    char b[2][40];
    printf("{");
    json_key(stdout, 1, "topology", name);
    json_key(stdout, 0, "kind", topomap_topology_kind(t));
    printf(", \"nnodes\": %d, \"nodes\": [", n);
    for (int v = 0; v < n; v++) {
        printf("%s", v ? ", " : "");
        json_str(stdout, topomap_topology_node_name(t, v));
    }
    printf("], \"cores\": %d, \"node_types\": [", topomap_topology_cores(t));
    for (int i = 0; i < nt; i++) {
        int count = 0;
        for (int v = 0; v < n; v++)
            count += topomap_topology_node_type(t, v) == i;
        char *hl = topomap_topology_type_hostlist(t, i);
        if (!hl)
            input_error("out of memory");
        printf("%s{\"cores\": %d, \"count\": %d", i ? ", " : "",
               topomap_topology_type_cores(t, i), count);
        json_key(stdout, 0, "nodes", hl);
        printf("}");
        free(hl);
    }
    double bw = topomap_topology_link_bandwidth(t);
    printf("], \"diameter\": %d, \"hop_cost\": %s, \"link_bandwidth\": %s}\n",
           topomap_topology_diameter(t), jnum(topomap_topology_hop_cost(t), b[0], 40),
           bw > 0 ? jnum(bw, b[1], 40) : "null");
    return 0;
}

int cmd_topology(int argc, char **argv)
{
    struct args a;
    static const char usage[] = "expected 'topology show T', 'topology list' or "
                                "'topology hops T NODE1 NODE2'";
    parse_args(argc, argv, "cores-per-node topology-name json help", help_topology, &a);
    if (a.npos == 0)
        usage_error("missing subcommand: %s", usage);
    const char *sub = a.pos[0];
    int want = !strcmp(sub, "show") ? 2 : !strcmp(sub, "list") ? 1 : !strcmp(sub, "hops") ? 4 : -1;
    if (want < 0)
        usage_error("unknown subcommand '%s': %s", sub, usage);
    if (a.npos < want)
        usage_error("%s: missing %s", sub, a.npos == 1 ? "topology" : "node name");
    if (a.npos > want)
        usage_error("unexpected argument '%s'", a.pos[want]);
    if (a.json && want != 2)
        usage_error("--json only applies to show");
    if (want == 1)
        return topology_list();
    if (want == 4)
        return topology_hops(&a);
    topomap_topology_t *t = load_topology(&a, a.pos[1]);
    if (a.json)
        topology_json(a.pos[1], t);
    else if (topomap_topology_describe(t, stdout) < 0)
        input_error("write error on standard output: %s", strerror(errno));
    topomap_topology_free(t);
    return finish_stdout(0);
}
