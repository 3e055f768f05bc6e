/* SPDX-License-Identifier: BSD-3-Clause */
/* The ring and torus3d topologies of Slurm 26.05's topology.yaml, read as
 * Slurm reads them (tag slurm-26-05-3-1: doc/man/man5/topology.yaml.5; the
 * keys in src/plugins/data_parser/v0.0.45/parsers.c, RING_CONFIG and
 * TORUS3D_CONFIG; the rules in src/plugins/topology/ring/ring_record.c,
 * ring_record_validate(), and src/plugins/topology/torus3d/torus3d_record.c,
 * _validate_config(), _validate_regions_config(), _validate_placement()):
 *
 *   ring:    {rings: [{ring: NAME, nodes: HOSTLIST}]}     1..16 nodes a ring
 *            (MAX_RING_SIZE, ring_record.h), in ring order
 *   torus3d: {toruses: [{name: NAME, dims: {x: X, y: Y, z: Z},
 *                        nodes: HOSTLIST            x*y*z nodes, x-major order
 *                        | regions: [{anchor: {x, y, z}, dims: {x, y, z},
 *                                     nodes: HOSTLIST}]  x-major in the region,
 *                                                        no wrap, no overlap
 *                        placements: [{dims: {x, y, z},       <= the torus
 *                                      anchor_seed: {x, y, z}, < the torus
 *                                      anchor_spacing: {x, y, z}}]}]}  <= it
 *
 * Slurm's missing x, y or z is 0 (refused for dims, the origin for an anchor
 * or seed, "the placement's dims" for a spacing); so here. Placements only
 * shape Slurm's allocations: they are checked, not kept. Where Slurm only
 * warns (a name not in slurm.conf) there is no slurm.conf here: every name
 * is a node. Where Slurm does not check (a node in two rings, or twice in a
 * torus) a node here has one place and a second is an error.
 *
 * The model: one ring, or one torus whose positions all hold nodes, is
 * topo_torus.c's torus (a ring is its 1-D case; node order = position
 * order); several rings or tori, or a torus with positions no region
 * covers, are topo_pods.c's pods. Rings are built by topo_rings_build()
 * (topo_pods.c), shared with topology.conf's RingName= lines. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "topo_yamldoc.h"
#include "topology_priv.h"

#define AXIS_MAX 65535  /* uint16_t x, y, z: slurm_conf_torus3d_dims_t */

/* The nodes read so far, in file order, each with its pod, its cell in the
 * pod and the YAML node that named it. */
struct placed {
    topomap_hostlist_t *names;
    int *pod, *cell;
    yaml_node_t **src;
    int n, cap;
};

static int line_of(const yaml_node_t *n)
{
    return (int)n->start_mark.line + 1;
}

static int place(struct topo_yctx *c, struct placed *pl, const char *name, int pod, int cell,
                 yaml_node_t *src)
{
    if (pl->n >= TOPO_MAX_NODES)
        return topo_y_fail(c, src, EINVAL, "more than %d nodes", TOPO_MAX_NODES);
    if (pl->n == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 64;
        int *p = realloc(pl->pod, sizeof(int) * (size_t)cap);
        if (p)
            pl->pod = p;
        int *q = p ? realloc(pl->cell, sizeof(int) * (size_t)cap) : NULL;
        if (q)
            pl->cell = q;
        yaml_node_t **s = q ? realloc(pl->src, sizeof *s * (size_t)cap) : NULL;
        if (!s)
            return topo_y_fail(c, src, ENOMEM, "out of memory");
        pl->src = s;
        pl->cap = cap;
    }
    if (topo_hostlist_push(pl->names, name, strlen(name)) < 0)
        return topo_y_fail(c, src, ENOMEM, "out of memory");
    pl->pod[pl->n] = pod;
    pl->cell[pl->n] = cell;
    pl->src[pl->n++] = src;
    return 0;
}

static void placed_free(struct placed *pl)
{
    topomap_hostlist_free(pl->names);
    free(pl->pod);
    free(pl->cell);
    free(pl->src);
}

/* The hostlist expression v (key nodes), or NULL with c's err. */
static topomap_hostlist_t *hosts(struct topo_yctx *c, yaml_node_t *v)
{
    const char *expr;
    char herr[TOPOMAP_ERRLEN];
    if (topo_y_str(c, v, "nodes", &expr) < 0)
        return NULL;
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, herr, sizeof herr);
    if (!hl)
        topo_y_fail(c, v, errno, "nodes: %s", herr);
    return hl;
}

/* A non-empty list of mappings with keys among allowed under key of map. */
static yaml_node_t *map_list(struct topo_yctx *c, yaml_node_t *map, const char *key,
                             const char *in, const char *what, const char *const *allowed)
{
    yaml_node_t *l = topo_y_require(c, map, key, in);
    if (!l)
        return NULL;
    if (l->type != YAML_SEQUENCE_NODE || topo_y_len(l) < 1)
        return topo_y_fail(c, l, EINVAL, "'%s' must be a non-empty list of %ss", key, what), NULL;
    for (int i = 0; i < topo_y_len(l); i++)
        if (topo_y_check_map(c, topo_y_item(c, l, i), what, allowed) < 0)
            return NULL;
    return l;
}

/* Distinct names of the n pods (their list items in item[]); kind for
 * messages. */
static int distinct(struct topo_yctx *c, const struct topo_pod_def *pods, yaml_node_t **item,
                    int n, const char *kind)
{
    int a, b, rc = topo_fields_repeat(pods, sizeof *pods, offsetof(struct topo_pod_def, name), n,
                                      &a, &b);
    if (rc < 0)
        return topo_y_fail(c, item[0], ENOMEM, "out of memory");
    if (rc > 0)
        return topo_y_fail(c, item[b], EINVAL, "%s '%s' is already defined at line %d", kind,
                           pods[b].name, line_of(item[a]));
    return 0;
}

/* The model of the pods: one full pod is a torus (names in cell order),
 * else pods. Seals and takes pl->names; where: the node of messages. */
static topomap_topology_t *build(struct topo_yctx *c, struct placed *pl,
                                 const struct topo_pod_def *pods, int npods, yaml_node_t *where)
{
    int a, b;
    char berr[TOPOMAP_ERRLEN];
    topomap_topology_t *t = NULL;
    if (topo_hostlist_seal(pl->names) < 0)
        return topo_y_fail(c, where, ENOMEM, "out of memory"), NULL;
    int rc = topo_names_repeat(pl->names, &a, &b);
    if (rc < 0)
        return topo_y_fail(c, where, ENOMEM, "out of memory"), NULL;
    if (rc > 0)
        return topo_y_fail(c, pl->src[b], EINVAL, "node '%s' is already placed at line %d (a node "
                           "has one place)", topomap_hostlist_get(pl->names, (size_t)b),
                           line_of(pl->src[a])), NULL;
    int cells = 1, wrap[3] = {1, 1, 1};
    for (int k = 0; k < pods[0].ndims; k++)
        cells *= pods[0].dims[k];
    if (npods == 1 && pl->n == cells) {
        topomap_hostlist_t *ordered = topo_hostlist_new();
        const char **at = calloc((size_t)cells, sizeof *at);
        for (int v = 0; at && v < pl->n; v++)
            at[pl->cell[v]] = topomap_hostlist_get(pl->names, (size_t)v);
        rc = ordered && at ? 0 : -1;
        for (int i = 0; !rc && i < cells; i++)
            rc = topo_hostlist_push(ordered, at[i], strlen(at[i]));
        free(at);
        if (rc < 0 || topo_hostlist_seal(ordered) < 0) {
            topomap_hostlist_free(ordered);
            return topo_y_fail(c, where, ENOMEM, "out of memory"), NULL;
        }
        t = topo_torus_build(pods[0].ndims, pods[0].dims, wrap, 1, ordered, berr, sizeof berr);
    } else {
        t = topo_pods_build(pods, npods, pl->pod, pl->cell, pl->names, berr, sizeof berr);
        pl->names = NULL;
    }
    if (!t)
        topo_y_fail(c, where, errno, "%s", berr);
    return t;
}

/* An {x, y, z} mapping under key (NULL n: all 0); each in lo..hi[k]
 * (AXIS_MAX without hi); need: every axis given. */
static int xyz(struct topo_yctx *c, yaml_node_t *n, const char *key, int lo, const int *hi,
               int need, int out[3])
{
    static const char *const axes[] = {"x", "y", "z", NULL};
    out[0] = out[1] = out[2] = 0;
    if (!n)
        return 0;
    if (topo_y_check_map(c, n, key, axes) < 0)
        return -1;
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s.%s", key, axes[k]);
        yaml_node_t *v = need ? topo_y_require(c, n, axes[k], key) : topo_y_get(c, n, axes[k]);
        if (need && !v)
            return -1;
        if (v && topo_y_int(c, v, what, lo, hi ? hi[k] : AXIS_MAX, &out[k]) < 0)
            return -1;
    }
    return 0;
}

/* The regions of torus p (dims d; the list's items checked mappings) into
 * pl; taken: the line of the region
 * holding each cell, 0 when free. */
static int regions(struct topo_yctx *c, yaml_node_t *l, int p, const int *d, int *taken,
                   struct placed *pl)
{
    for (int r = 0; r < topo_y_len(l); r++) {
        yaml_node_t *it = topo_y_item(c, l, r), *v;
        int a[3], rd[3];
        if (xyz(c, topo_y_get(c, it, "anchor"), "anchor", 0, NULL, 0, a) < 0 ||
            !(v = topo_y_require(c, it, "dims", "a region")) ||
            xyz(c, v, "dims", 1, NULL, 1, rd) < 0)
            return -1;
        for (int k = 0; k < 3; k++)
            if (a[k] + rd[k] > d[k])
                return topo_y_fail(c, it, EINVAL, "the region from (%d, %d, %d) of %d x %d x %d "
                                   "goes past the torus (%d x %d x %d); regions do not wrap",
                                   a[0], a[1], a[2], rd[0], rd[1], rd[2], d[0], d[1], d[2]);
        if (!(v = topo_y_require(c, it, "nodes", "a region")))
            return -1;
        topomap_hostlist_t *hl = hosts(c, v);
        if (!hl)
            return -1;
        int size = rd[0] * rd[1] * rd[2], rc = 0;
        if ((int)topomap_hostlist_count(hl) != size)
            rc = topo_y_fail(c, v, EINVAL, "'nodes' names %zu nodes but the region's dims %d x %d "
                             "x %d have %d positions", topomap_hostlist_count(hl), rd[0], rd[1],
                             rd[2], size);
        for (int i = 0; !rc && i < size; i++) {
            int x = a[0] + i % rd[0], y = a[1] + (i / rd[0]) % rd[1], z = a[2] + i / (rd[0] * rd[1]);
            int cell = x + d[0] * (y + d[1] * z);
            if (taken[cell])
                rc = topo_y_fail(c, it, EINVAL, "the region overlaps the one at line %d at "
                                 "(%d, %d, %d)", taken[cell], x, y, z);
            else
                rc = place(c, pl, topomap_hostlist_get(hl, (size_t)i), p, cell, v);
            taken[cell] = line_of(it);
        }
        topomap_hostlist_free(hl);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Slurm's checks of the placements of a torus of dims d. */
static int placements(struct topo_yctx *c, yaml_node_t *l, const int *d)
{
    static const char *const keys[] = {"dims", "anchor_seed", "anchor_spacing", NULL};
    int below[3] = {d[0] - 1, d[1] - 1, d[2] - 1}, pd[3], seed[3], sp[3];
    if (l->type != YAML_SEQUENCE_NODE)
        return topo_y_fail(c, l, EINVAL, "'placements' must be a list of placements, not %s",
                           topo_y_type(l));
    for (int i = 0; i < topo_y_len(l); i++) {
        yaml_node_t *it = topo_y_item(c, l, i), *v;
        if (topo_y_check_map(c, it, "placement", keys) < 0 ||
            !(v = topo_y_require(c, it, "dims", "a placement")) ||
            xyz(c, v, "placement dims", 1, d, 1, pd) < 0 ||
            xyz(c, topo_y_get(c, it, "anchor_seed"), "anchor_seed", 0, below, 0, seed) < 0 ||
            xyz(c, topo_y_get(c, it, "anchor_spacing"), "anchor_spacing", 0, d, 0, sp) < 0)
            return -1;
    }
    return 0;
}

/* Torus item it (number p) into pods[p] and pl. */
static int torus(struct topo_yctx *c, yaml_node_t *it, int p, struct topo_pod_def *pod,
                 struct placed *pl)
{
    yaml_node_t *v, *nodes, *regs;
    if (!(v = topo_y_require(c, it, "name", "a torus")) || topo_y_str(c, v, "name", &pod->name) < 0 ||
        !(v = topo_y_require(c, it, "dims", "a torus")) || xyz(c, v, "dims", 1, NULL, 1, pod->dims) < 0)
        return -1;
    const int *d = pod->dims;
    pod->ndims = 3;
    long cells = (long)d[0] * d[1] * d[2];
    if (cells > TOPO_MAX_NODES)
        return topo_y_fail(c, v, EINVAL, "torus '%s' has %ld positions (at most %d)", pod->name,
                           cells, TOPO_MAX_NODES);
    nodes = topo_y_get(c, it, "nodes");
    regs = topo_y_get(c, it, "regions");
    if (!nodes == !regs)
        return topo_y_fail(c, it, EINVAL, "torus '%s': give exactly one of 'nodes' or 'regions'",
                           pod->name);
    if ((v = topo_y_get(c, it, "placements")) && placements(c, v, d) < 0)
        return -1;
    if (regs) {
        static const char *const keys[] = {"anchor", "dims", "nodes", NULL};
        if (regs->type != YAML_SEQUENCE_NODE || topo_y_len(regs) < 1)
            return topo_y_fail(c, regs, EINVAL, "'regions' must be a non-empty list of regions");
        for (int i = 0; i < topo_y_len(regs); i++)
            if (topo_y_check_map(c, topo_y_item(c, regs, i), "region", keys) < 0)
                return -1;
        int *taken = calloc((size_t)cells, sizeof *taken);
        if (!taken)
            return topo_y_fail(c, regs, ENOMEM, "out of memory");
        int rc = regions(c, regs, p, d, taken, pl);
        free(taken);
        return rc;
    }
    topomap_hostlist_t *hl = hosts(c, nodes);
    if (!hl)
        return -1;
    int rc = 0;
    if ((long)topomap_hostlist_count(hl) != cells)
        rc = topo_y_fail(c, nodes, EINVAL, "'nodes' names %zu nodes but dims %d x %d x %d have "
                         "%ld positions (Slurm fills them in x-major order)",
                         topomap_hostlist_count(hl), d[0], d[1], d[2], cells);
    for (int i = 0; !rc && i < (int)cells; i++)
        rc = place(c, pl, topomap_hostlist_get(hl, (size_t)i), p, i, nodes);
    topomap_hostlist_free(hl);
    return rc;
}

topomap_topology_t *topo_slurmyaml_ring(struct topo_yctx *c, yaml_node_t *ring)
{
    static const char *const keys[] = {"rings", NULL};
    static const char *const ring_keys[] = {"ring", "nodes", NULL};
    yaml_node_t *l, *v;
    if (topo_y_check_map(c, ring, "ring", keys) < 0 ||
        !(l = map_list(c, ring, "rings", "ring", "ring", ring_keys)))
        return NULL;
    int n = topo_y_len(l);
    struct topo_block_def *r = calloc((size_t)n, sizeof *r);
    topomap_topology_t *t = NULL;
    if (!r)
        return topo_y_fail(c, l, ENOMEM, "out of memory"), NULL;
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = topo_y_item(c, l, i);
        r[i].line = line_of(it);
        r[i].col = (int)it->start_mark.column + 1;
        if (!(v = topo_y_require(c, it, "ring", "a ring")) ||
            topo_y_str(c, v, "ring", &r[i].name) < 0 ||
            !(v = topo_y_require(c, it, "nodes", "a ring")) ||
            topo_y_str(c, v, "nodes", &r[i].nodes) < 0)
            goto out;
    }
    t = topo_rings_build(c->path, 1, r, n, c->err, c->errlen);
out:
    free(r);
    return t;
}

topomap_topology_t *topo_slurmyaml_torus3d(struct topo_yctx *c, yaml_node_t *torus3d)
{
    static const char *const keys[] = {"toruses", NULL};
    static const char *const torus_keys[] = {"name", "dims", "nodes", "regions", "placements",
                                             NULL};
    yaml_node_t *l;
    if (topo_y_check_map(c, torus3d, "torus3d", keys) < 0 ||
        !(l = map_list(c, torus3d, "toruses", "torus3d", "torus", torus_keys)))
        return NULL;
    int n = topo_y_len(l);
    struct topo_pod_def *pods = calloc((size_t)n, sizeof *pods);
    yaml_node_t **item = calloc((size_t)n, sizeof *item);
    struct placed pl = {topo_hostlist_new(), NULL, NULL, NULL, 0, 0};
    topomap_topology_t *t = NULL;
    long cells = 0;
    if (!pods || !item || !pl.names) {
        topo_y_fail(c, l, ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        item[i] = topo_y_item(c, l, i);
        if (torus(c, item[i], i, &pods[i], &pl) < 0)
            goto out;
        if ((cells += (long)pods[i].dims[0] * pods[i].dims[1] * pods[i].dims[2]) >
            TOPO_MAX_NODES) {
            topo_y_fail(c, item[i], EINVAL, "more than %d positions in all, with torus '%s'",
                        TOPO_MAX_NODES, pods[i].name);
            goto out;
        }
    }
    if (distinct(c, pods, item, n, "torus") == 0)
        t = build(c, &pl, pods, n, l);
out:
    placed_free(&pl);
    free(pods);
    free(item);
    return t;
}
