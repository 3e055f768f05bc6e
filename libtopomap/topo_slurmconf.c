/* SPDX-License-Identifier: BSD-3-Clause */
/* Import a Slurm topology.conf, either plugin's:
 *   topology/tree:  SwitchName=s0 Nodes=cn[001-022]
 *                   SwitchName=top Switches=s[0-3]
 *   topology/block: BlockName=b1 Nodes=cn[001-004]
 *                   BlockSizes=4,16
 *   topology/ring:  RingName=ring0 Nodes=cn[001-008]   (Slurm 26.05: tag
 *                   slurm-26-05-3-1, src/plugins/topology/ring/ring_record.c,
 *                   _read_topo_file(); built by topo_rings_build())
 * Keys are case-insensitive, values are hostlist expressions, '#' starts a
 * comment, a trailing '\' continues a line (as in slurm.conf). LinkSpeed= is
 * accepted and ignored. One file describes one plugin: SwitchName=,
 * BlockName= and RingName= lines do not mix. Blocks are built by topo_slurmblock.c (the
 * model is described there). A tree is an irregular tree (topo_tree.c):
 * hops = links up to the lowest common switch and down. Node order: depth
 * first from the top switch(es) in file order, a switch's Nodes= before its
 * Switches=. Several top switches are joined under a virtual root, as
 * Slurm's route plugin would need some path between them; that choice is
 * documented in topologies/README.md. Every node gets one core (a YAML file
 * that names this topology.conf can describe the node inside). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "topology_priv.h"

struct sw {
    char *name;
    int line, col; /* col: in a topology.yaml, 0 in a topology.conf */
    char *nodes;    /* hostlist expression or NULL */
    char *switches; /* hostlist expression or NULL */
    int parent, depth;
};

struct blk {
    char *name, *nodes;
    int line;
};

struct conf {
    const char *path;
    struct sw *sw;
    int nsw, cap;
    int *hash;    /* switch names: open addressing over sw[], -1 = empty */
    size_t hmask; /* table size - 1 (a power of two, at least 2 nsw) */
    char *err;
    size_t errlen;
    /* topology/block */
    int blockfile; /* the file has BlockName= or BlockSizes= lines */
    int ringfile;  /* the file has RingName= lines (blk[] holds the rings) */
    struct blk *blk;
    int nblk, blkcap;
    struct topo_block_sizes sizes;
    /* The first line of each plugin's, 0 if none: they must not mix. */
    int first_switch, first_block, first_ring;
    /* The keys' names in messages: "Nodes=" or, from a topology.yaml, "nodes". */
    const char *nodes_key, *switches_key;
    char at[1100]; /* sw_at()'s */
};

/* The values of one logical line (pointers into it), NULL when absent. */
struct toks {
    char *sw, *block, *nodes, *switches, *sizes, *ring;
};

/* "PATH:LINE" (or "PATH:LINE:COL" from a topology.yaml) of switch i. Valid
 * until the next call. */
static const char *sw_at(struct conf *c, int i)
{
    return topo_where(c->at, sizeof c->at, c->path, c->sw[i].line, c->sw[i].col);
}

/* Does a (logical) line begin with key= ? */
static int starts_key(const char *s, const char *key)
{
    size_t n = strlen(key);
    return !strncasecmp(s, key, n) && s[n] == '=';
}

/* 1 if some (logical) line begins with one of the keys. */
static int has_line(const char *text, const char *const *keys)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        for (int k = 0; keys[k]; k++)
            if (starts_key(p, keys[k]))
                return 1;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return 0;
}

static const char *const block_keys[] = {"BlockName", "BlockSizes", NULL};
static const char *const ring_keys[] = {"RingName", NULL};

int topo_is_slurmconf(const char *text)
{
    static const char *const keys[] = {"SwitchName", "BlockName", "BlockSizes", "RingName", NULL};
    return has_line(text, keys);
}

static void conf_free(struct conf *c)
{
    for (int i = 0; i < c->nsw; i++) {
        free(c->sw[i].name);
        free(c->sw[i].nodes);
        free(c->sw[i].switches);
    }
    free(c->sw);
    free(c->hash);
    for (int i = 0; i < c->nblk; i++) {
        free(c->blk[i].name);
        free(c->blk[i].nodes);
    }
    free(c->blk);
}

/* The switch called name, or -1. O(1) on average: a file of many switches
 * stays linear (each switch is looked up when defined and when listed). */
static int find_switch(const struct conf *c, const char *name)
{
    if (!c->hash)
        return -1;
    for (size_t h = (size_t)topomap_name_hash(name) & c->hmask; c->hash[h] >= 0;
         h = (h + 1) & c->hmask)
        if (!strcmp(c->sw[c->hash[h]].name, name))
            return c->hash[h];
    return -1;
}

static void hash_put(struct conf *c, int i)
{
    size_t h = (size_t)topomap_name_hash(c->sw[i].name) & c->hmask;
    while (c->hash[h] >= 0)
        h = (h + 1) & c->hmask;
    c->hash[h] = i;
}

/* Enter switch i (the last of sw[]) in the table, doubling it at half full. */
static int hash_add(struct conf *c, int i)
{
    if (!c->hash || 2 * (size_t)c->nsw > c->hmask + 1) {
        size_t size = c->hash ? 2 * (c->hmask + 1) : 64;
        int *nh = malloc(size * sizeof *nh);
        if (!nh)
            return -1;
        memset(nh, 0xff, size * sizeof *nh);
        free(c->hash);
        c->hash = nh;
        c->hmask = size - 1;
        for (int k = 0; k < i; k++)
            hash_put(c, k);
    }
    hash_put(c, i);
    return 0;
}

/* Split one logical line into its KEY=VALUE tokens. */
static int tokenize(struct conf *c, char *s, int line, struct toks *k)
{
    memset(k, 0, sizeof *k);
    char *save = NULL;
    for (char *tok = strtok_r(s, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: expected KEY=VALUE, got '%s'",
                                c->path, line, tok);
        *eq = 0;
        char *val = eq + 1;
        size_t vl = strlen(val);
        if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
            val[vl - 1] = 0;
            val++;
        }
        char **slot = NULL;
        if (!strcasecmp(tok, "SwitchName"))
            slot = &k->sw;
        else if (!strcasecmp(tok, "BlockName"))
            slot = &k->block;
        else if (!strcasecmp(tok, "Nodes"))
            slot = &k->nodes;
        else if (!strcasecmp(tok, "Switches"))
            slot = &k->switches;
        else if (!strcasecmp(tok, "BlockSizes"))
            slot = &k->sizes;
        else if (!strcasecmp(tok, "RingName"))
            slot = &k->ring;
        else if (strcasecmp(tok, "LinkSpeed"))
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: unknown key '%s' (expected %s)",
                                c->path, line, tok,
                                c->ringfile    ? "RingName, Nodes"
                                : c->blockfile ? "BlockName, Nodes, BlockSizes"
                                               : "SwitchName, Switches, Nodes, LinkSpeed");
        if (!slot)
            continue;
        if (*slot)
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: %s= given twice", c->path,
                                line, tok);
        if (!*val)
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: empty %s=", c->path, line,
                                tok);
        *slot = val;
    }
    return 0;
}

/* BlockSizes=4,16,64 on a line of its own, once. */
static int add_sizes(struct conf *c, const struct toks *k, int line)
{
    struct topo_block_sizes *bs = &c->sizes;
    if (k->block || k->nodes || k->switches)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: BlockSizes= goes on a line of "
                            "its own", c->path, line);
    if (bs->n)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: BlockSizes= is already given at "
                            "line %d", c->path, line, bs->line[0]);
    for (const char *p = k->sizes; bs->n == 0 || *p++ == ',';) {
        size_t len = strcspn(p, ",");
        char item[24];
        long v;
        if (len >= sizeof item || (memcpy(item, p, len), item[len] = 0,
                                   topomap_parse_long(item, &v) < 0))
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: BlockSizes=: '%.*s' is not a "
                                "number of nodes", c->path, line, (int)(len > 40 ? 40 : len), p);
        if (bs->n == TOPO_MAX_BLOCK_SIZES)
            return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: BlockSizes=: at most %d "
                                "sizes", c->path, line, TOPO_MAX_BLOCK_SIZES);
        bs->line[bs->n] = line;
        bs->col[bs->n] = 0;
        bs->size[bs->n++] = v;
        p += len;
    }
    return 0;
}

/* BlockName=b1 Nodes=n[1-4], or in a ring file RingName=r0 Nodes=n[1-8]. */
static int add_block(struct conf *c, const struct toks *k, int line)
{
    const char *name = c->ringfile ? k->ring : k->block, *what = c->ringfile ? "ring" : "block";
    if (!name)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: line has no %s=", c->path, line,
                            c->ringfile ? "RingName" : "BlockName");
    if (k->switches)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: Switches= is topology/tree's: a "
                            "%s lists its Nodes=", c->path, line, what);
    if (!k->nodes)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: %s '%s' has no Nodes=",
                            c->path, line, what, name);
    if (c->nblk == TOPOMAP_MAX_SWITCHES)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: more than %d %ss", c->path,
                            line, TOPOMAP_MAX_SWITCHES, what);
    if (c->nblk == c->blkcap) {
        int cap = c->blkcap ? 2 * c->blkcap : 16;
        struct blk *nb = realloc(c->blk, (size_t)cap * sizeof *nb);
        if (!nb)
            return topomap_fail(c->err, c->errlen, ENOMEM, "%s:%d: out of memory", c->path, line);
        c->blk = nb;
        c->blkcap = cap;
    }
    struct blk b = {strdup(name), strdup(k->nodes), line};
    if (!b.name || !b.nodes) {
        free(b.name);
        free(b.nodes);
        return topomap_fail(c->err, c->errlen, ENOMEM, "%s:%d: out of memory", c->path, line);
    }
    c->blk[c->nblk++] = b;
    return 0;
}

/* SwitchName=s0 Nodes=... or Switches=... at line (and col in a YAML file). */
static int add_switch(struct conf *c, const struct toks *k, int line, int col)
{
    char *at = c->at;
    topo_where(at, sizeof c->at, c->path, line, col);
    if (!k->sw)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s: line has no SwitchName=", at);
    int old = find_switch(c, k->sw);
    if (old >= 0)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s: switch '%s' is already defined at "
                            "line %d", at, k->sw, c->sw[old].line);
    if (c->nsw == TOPOMAP_MAX_SWITCHES)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s: more than %d switches", at,
                            TOPOMAP_MAX_SWITCHES);
    if (c->nsw == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        struct sw *ns = realloc(c->sw, (size_t)cap * sizeof *ns);
        if (!ns)
            return topomap_fail(c->err, c->errlen, ENOMEM, "%s:%d: out of memory", c->path, line);
        c->sw = ns;
        c->cap = cap;
    }
    struct sw w = {strdup(k->sw), line, col, k->nodes ? strdup(k->nodes) : NULL,
                   k->switches ? strdup(k->switches) : NULL, -1, 0};
    if (!w.name || (k->nodes && !w.nodes) || (k->switches && !w.switches)) {
        free(w.name);
        free(w.nodes);
        free(w.switches);
        return topomap_fail(c->err, c->errlen, ENOMEM, "%s:%d: out of memory", c->path, line);
    }
    c->sw[c->nsw++] = w;
    if (hash_add(c, c->nsw - 1) < 0) {
        /* The entry stays in sw[] (freed with it), out of the table. */
        return topomap_fail(c->err, c->errlen, ENOMEM, "%s:%d: out of memory", c->path, line);
    }
    return 0;
}

/* RingName= lines mix with no other plugin's. */
static int ring_mix(struct conf *c, const struct toks *k, int line)
{
    const char *other = k->sw ? "SwitchName" : k->block ? "BlockName" : k->sizes ? "BlockSizes"
                                                                                  : NULL;
    int at = c->first_switch ? c->first_switch : c->first_block;
    if (k->ring && other)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: RingName= and %s= on one line: a "
                            "topology.conf describes one of topology/tree, topology/block or "
                            "topology/ring", c->path, line, other);
    if (k->ring && at)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: RingName= in a topology/%s file "
                            "(line %d): a topology.conf describes one of topology/tree, "
                            "topology/block or topology/ring", c->path, line,
                            c->first_switch ? "tree" : "block", at);
    if (other && c->first_ring)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: %s= in a topology/ring file "
                            "(RingName= at line %d): a topology.conf describes one of "
                            "topology/tree, topology/block or topology/ring", c->path, line,
                            other, c->first_ring);
    return 0;
}

/* One logical line: whitespace-separated key=value tokens. */
static int parse_line(struct conf *c, char *s, int line)
{
    struct toks k;
    if (tokenize(c, s, line, &k) < 0)
        return -1;
    int block = k.block || k.sizes;
    if (!k.sw && !block && !k.ring && !k.nodes && !k.switches)
        return 0; /* blank, or only LinkSpeed=...: nothing to do */
    if (ring_mix(c, &k, line) < 0)
        return -1;
    if (k.ring || c->ringfile) {
        if (k.ring && !c->first_ring)
            c->first_ring = line;
        return add_block(c, &k, line);
    }
    /* One plugin per file (Slurm reads the lines of the configured one). */
    if (k.sw && block)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: SwitchName= and %s= on one line: "
                            "a topology.conf describes topology/tree or topology/block, not both",
                            c->path, line, k.block ? "BlockName" : "BlockSizes");
    if (block && c->first_switch)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: %s= in a topology/tree file "
                            "(SwitchName= at line %d): a topology.conf describes topology/tree "
                            "or topology/block, not both", c->path, line,
                            k.block ? "BlockName" : "BlockSizes", c->first_switch);
    if (k.sw && c->first_block)
        return topomap_fail(c->err, c->errlen, EINVAL, "%s:%d: SwitchName= in a topology/block "
                            "file (%s at line %d): a topology.conf describes topology/tree or "
                            "topology/block, not both", c->path, line,
                            c->nblk ? "BlockName=" : "BlockSizes=", c->first_block);
    if (block && !c->first_block)
        c->first_block = line;
    if (k.sw && !c->first_switch)
        c->first_switch = line;
    if (k.sizes)
        return add_sizes(c, &k, line);
    if (k.block || c->blockfile)
        return add_block(c, &k, line);
    return add_switch(c, &k, line, 0);
}

/* The blocks read into topo_block_build() (the rings into
 * topo_rings_build()). */
static topomap_topology_t *conf_blocks(struct conf *c)
{
    if (c->nblk == 0) {
        topomap_fail(c->err, c->errlen, EINVAL, "%s: no %s= lines", c->path,
                     c->ringfile ? "RingName" : "BlockName");
        return NULL;
    }
    struct topo_block_def *d = malloc((size_t)c->nblk * sizeof *d);
    if (!d) {
        topomap_fail(c->err, c->errlen, ENOMEM, "%s: out of memory (%d blocks)", c->path,
                     c->nblk);
        return NULL;
    }
    for (int i = 0; i < c->nblk; i++)
        d[i] = (struct topo_block_def){c->blk[i].name, c->blk[i].nodes, c->blk[i].line, 0};
    topomap_topology_t *t = c->ringfile ? topo_rings_build(c->path, 0, d, c->nblk, c->err,
                                                           c->errlen)
                                        : topo_block_build(c->path, 0, d, c->nblk, &c->sizes,
                                                           c->err, c->errlen);
    free(d);
    return t;
}

/* Split text into logical lines (comments removed, '\' continuations
 * joined) and parse each; logical holds strlen(text) + 1 bytes. Returns the
 * number of lines, or -1. */
static int parse_text(struct conf *c, const char *text, char *logical)
{
    const char *p = text;
    int line = 0, start_line = 0;
    size_t ll = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        line++;
        if (ll == 0)
            start_line = line;
        const char *hash = memchr(p, '#', n);
        if (hash)
            n = (size_t)(hash - p);
        while (n > 0 && isspace((unsigned char)p[n - 1]))
            n--;
        int cont = n > 0 && p[n - 1] == '\\';
        if (cont)
            n--;
        if (ll)
            logical[ll++] = ' ';
        memcpy(logical + ll, p, n);
        ll += n;
        logical[ll] = 0;
        if (!cont || !nl) {
            if (parse_line(c, logical, start_line) < 0)
                return -1;
            ll = 0;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    return line;
}

/* Parse every Switches= list into kids[] and set the parents. Returns the
 * number of top switches, or -1. */
static int link_children(struct conf *c, topomap_hostlist_t **kids)
{
    int nsw = c->nsw;
    for (int i = 0; i < nsw; i++) {
        if (!c->sw[i].switches)
            continue;
        char herr[TOPOMAP_ERRLEN];
        kids[i] = topomap_hostlist_parse(c->sw[i].switches, herr, sizeof herr);
        if (!kids[i]) {
            topomap_fail(c->err, c->errlen, errno, "%s: %s: %s", sw_at(c, i), c->switches_key,
                         herr);
            return -1;
        }
        for (size_t k = 0; k < topomap_hostlist_count(kids[i]); k++) {
            const char *kn = topomap_hostlist_get(kids[i], k);
            int j = find_switch(c, kn);
            if (j < 0) {
                topomap_fail(c->err, c->errlen, EINVAL, "%s: switch '%s' is not defined",
                             sw_at(c, i), kn);
                return -1;
            }
            if (j == i) {
                topomap_fail(c->err, c->errlen, EINVAL, "%s: switch '%s' lists itself",
                             sw_at(c, i), kn);
                return -1;
            }
            if (c->sw[j].parent >= 0) {
                topomap_fail(c->err, c->errlen, EINVAL,
                             "%s: switch '%s' is already under switch '%s' (line %d)",
                             sw_at(c, i), kn, c->sw[c->sw[j].parent].name,
                             c->sw[c->sw[j].parent].line);
                return -1;
            }
            c->sw[j].parent = i;
        }
    }
    int nroots = 0;
    for (int i = 0; i < nsw; i++)
        nroots += c->sw[i].parent < 0;
    if (nroots == 0) {
        topomap_fail(c->err, c->errlen, EINVAL, "%s: the switches form a cycle (no top switch)",
                     sw_at(c, 0));
        return -1;
    }
    return nroots;
}

/* The nodes of a walk: names in order, and for each the switch it hangs
 * from and its place in that switch's Nodes=. */
struct walk {
    int *leaf, *port;
    size_t n, cap;
};

/* Append the nodes of switch s. */
static int push_nodes(struct conf *c, int s, topomap_hostlist_t *names, struct walk *w)
{
    char herr[TOPOMAP_ERRLEN];
    topomap_hostlist_t *hl = topomap_hostlist_parse(c->sw[s].nodes, herr, sizeof herr);
    if (!hl)
        return topomap_fail(c->err, c->errlen, errno, "%s: %s: %s", sw_at(c, s), c->nodes_key,
                            herr);
    int rc = 0;
    for (size_t k = 0; !rc && k < topomap_hostlist_count(hl); k++) {
        const char *nm = topomap_hostlist_get(hl, k);
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 64;
            int *nl = realloc(w->leaf, cap * sizeof *nl);
            if (nl)
                w->leaf = nl;
            int *np = nl ? realloc(w->port, cap * sizeof *np) : NULL;
            if (np)
                w->port = np;
            if (!nl || !np) {
                rc = topomap_fail(c->err, c->errlen, ENOMEM, "%s: out of memory", sw_at(c, s));
                break;
            }
            w->cap = cap;
        }
        if (w->n >= TOPO_MAX_NODES)
            rc = topomap_fail(c->err, c->errlen, EINVAL, "%s: more than %d nodes", sw_at(c, s),
                              TOPO_MAX_NODES);
        else if (topo_hostlist_push(names, nm, strlen(nm)) < 0)
            rc = topomap_fail(c->err, c->errlen, ENOMEM, "%s: out of memory", sw_at(c, s));
        else {
            w->leaf[w->n] = s;
            w->port[w->n++] = (int)k;
        }
    }
    topomap_hostlist_free(hl);
    return rc;
}

/* Depth-first walk from the top switches (or the virtual root nsw):
 * every switch's nodes appended in order to names and nodes, every switch's
 * depth set; stack: room for every switch and one more. 0, or -1 with the
 * error in c (a tree too high, a switch on a cycle). */
static int walk_tree(struct conf *c, topomap_hostlist_t *const *kids, const int *parent,
                     int *depth, int *stack, int vroot, topomap_hostlist_t *names,
                     struct walk *nodes)
{
    int nsw = c->nsw;
    /* The stack holds switches to visit; children pushed in reverse so they
     * are visited in file order. */
    int sp = 0;
    if (vroot) {
        stack[sp++] = nsw;
        depth[nsw] = 0;
    } else {
        for (int i = 0; i < nsw; i++)
            if (parent[i] < 0) {
                stack[sp++] = i;
                depth[i] = 0;
            }
    }
    while (sp > 0) {
        int s = stack[--sp];
        if (s < nsw && c->sw[s].nodes && push_nodes(c, s, names, nodes) < 0)
            return -1;
        /* Children: the virtual root's are the top switches. */
        int first = sp;
        if (s == nsw) {
            for (int i = 0; i < nsw; i++)
                if (parent[i] == nsw)
                    stack[sp++] = i;
        } else if (kids[s]) {
            for (size_t k = 0; k < topomap_hostlist_count(kids[s]); k++)
                stack[sp++] = find_switch(c, topomap_hostlist_get(kids[s], k));
        }
        for (int a = first, b = sp - 1; a < b; a++, b--) {
            int tmp = stack[a];
            stack[a] = stack[b];
            stack[b] = tmp;
        }
        for (int k = first; k < sp; k++) {
            int w = stack[k];
            depth[w] = depth[s] + 1;
            /* Every hop climbs the tree switch by switch: bound its height
             * (as a YAML fat-tree's levels; the virtual root not counted). */
            if (depth[w] - vroot >= TOPO_MAX_LEVELS) {
                topomap_fail(c->err, c->errlen, EINVAL,
                             "%s: switch '%s' is %d levels below the top: at most %d switch "
                             "levels", sw_at(c, w), c->sw[w].name, depth[w] - vroot,
                             TOPO_MAX_LEVELS);
                return -1;
            }
        }
    }
    for (int i = 0; i < nsw; i++)
        if (depth[i] < 0) {
            topomap_fail(c->err, c->errlen, EINVAL,
                         "%s: switch '%s' is on a cycle of switches (not under a top switch)",
                         sw_at(c, i), c->sw[i].name);
            return -1;
        }
    return 0;
}

/* The switches read into an irregular tree; line: the file's last. */
static topomap_topology_t *conf_tree(struct conf *c, int line)
{
    const char *path = c->path;
    char *err = c->err;
    size_t errlen = c->errlen;
    topomap_topology_t *t = NULL;
    topomap_hostlist_t **kids = NULL, *names = NULL;
    int *stack = NULL, *parent = NULL, *depth = NULL;
    struct walk nodes = {NULL, NULL, 0, 0};
    char **swname = NULL;
    int nsw = c->nsw, total_sw = 0;
    kids = calloc((size_t)nsw, sizeof *kids);
    if (!kids) {
        topomap_fail(err, errlen, ENOMEM, "%s:%d: out of memory (a tree of %d switches)",
                     path, line, c->nsw);
        goto fail;
    }
    int nroots = link_children(c, kids);
    if (nroots < 0)
        goto fail;
    int vroot = nroots > 1; /* join several tops under a virtual root */
    total_sw = nsw + vroot;

    /* Depth-first walk: node names in order, depths, visited switches. */
    stack = malloc(sizeof(int) * (size_t)(total_sw + 1));
    parent = malloc(sizeof(int) * (size_t)total_sw);
    depth = malloc(sizeof(int) * (size_t)total_sw);
    swname = calloc((size_t)total_sw, sizeof *swname);
    names = topo_hostlist_new();
    if (!stack || !parent || !depth || !swname || !names) {
        topomap_fail(err, errlen, ENOMEM, "%s:%d: out of memory (a tree of %d switches)",
                     path, line, c->nsw);
        goto fail;
    }
    for (int i = 0; i < total_sw; i++) {
        parent[i] = i < nsw ? c->sw[i].parent : -1;
        depth[i] = -1;
        swname[i] = strdup(i < nsw ? c->sw[i].name : "(root)");
        if (!swname[i]) {
            topomap_fail(err, errlen, ENOMEM, "%s:%d: out of memory (a tree of %d switches)",
                         path, line, c->nsw);
            goto fail;
        }
    }
    if (vroot)
        for (int i = 0; i < nsw; i++)
            if (parent[i] < 0)
                parent[i] = nsw;
    if (walk_tree(c, kids, parent, depth, stack, vroot, names, &nodes) < 0)
        goto fail;
    if (nodes.n == 0) {
        topomap_fail(err, errlen, EINVAL, "%s: no switch has %s", path, c->nodes_key);
        goto fail;
    }
    if (topo_hostlist_seal(names) < 0) {
        topomap_fail(err, errlen, ENOMEM, "%s:%d: out of memory (a tree of %d switches)",
                     path, line, c->nsw);
        goto fail;
    }
    /* A node under two switches: report both lines. */
    int a, b, r = topo_names_repeat(names, &a, &b);
    if (r != 0) {
        if (r < 0)
            topomap_fail(err, errlen, ENOMEM, "%s:%d: out of memory (a tree of %d switches)",
                         path, line, c->nsw);
        else
            topomap_fail(err, errlen, EINVAL,
                         "%s: node '%s' is under switch '%s' and already under switch '%s' "
                         "(line %d)", sw_at(c, nodes.leaf[b]), topomap_hostlist_get(names, b),
                         c->sw[nodes.leaf[b]].name, c->sw[nodes.leaf[a]].name,
                         c->sw[nodes.leaf[a]].line);
        goto fail;
    }

    /* What fails from here on (memory) is named at the file's last line. */
    char berr[TOPOMAP_ERRLEN];
    t = topo_new(&topo_itree_ops, "fat-tree", (int)nodes.n, names, berr, sizeof berr);
    names = NULL; /* taken over */
    if (!t) {
        topomap_fail(err, errlen, errno, "%s:%d: %s", path, line, berr);
        goto fail;
    }
    struct topo_itree *T = &t->u.itree;
    T->nsw = total_sw;
    T->swname = swname;
    T->parent = parent;
    T->depth = depth;
    T->leaf = nodes.leaf;
    T->port = nodes.port;
    T->virtual_root = vroot;
    swname = NULL;
    parent = depth = nodes.leaf = nodes.port = NULL;
    if (topo_itree_prepare(t, berr, sizeof berr) < 0) {
        topomap_fail(err, errlen, errno, "%s:%d: %s", path, line, berr);
        topomap_topology_free(t);
        t = NULL;
        goto fail;
    }
    if (!(t = topo_finish(t, 1, berr, sizeof berr)))
        topomap_fail(err, errlen, errno, "%s:%d: %s", path, line, berr);
fail:
    for (int i = 0; kids && i < c->nsw; i++)
        topomap_hostlist_free(kids[i]);
    free(kids);
    for (int i = 0; swname && i < total_sw; i++)
        free(swname[i]);
    free(swname);
    free(stack);
    free(parent);
    free(depth);
    free(nodes.leaf);
    free(nodes.port);
    topomap_hostlist_free(names);
    return t;
}

topomap_topology_t *topo_slurmconf_parse(const char *path, const char *text, char *err,
                                         size_t errlen)
{
    struct conf c = {.path = path, .err = err, .errlen = errlen, .nodes_key = "Nodes=",
                     .switches_key = "Switches="};
    topomap_topology_t *t = NULL;
    char *logical = malloc(strlen(text) + 1);
    if (!logical) {
        topomap_fail(err, errlen, ENOMEM, "%s:1: out of memory", path);
        return NULL;
    }
    c.ringfile = has_line(text, ring_keys);
    c.blockfile = !c.ringfile && has_line(text, block_keys);
    int line = parse_text(&c, text, logical);
    if (line >= 0 && (c.blockfile || c.ringfile))
        t = conf_blocks(&c);
    else if (line >= 0 && c.nsw == 0)
        topomap_fail(err, errlen, EINVAL, "%s: no SwitchName= lines", path);
    else if (line >= 0)
        t = conf_tree(&c, line);
    free(logical);
    conf_free(&c);
    return t;
}

topomap_topology_t *topo_switches_build(const char *path, const struct topo_switch_def *sw, int nsw,
                                        char *err, size_t errlen)
{
    struct conf c = {.path = path, .err = err, .errlen = errlen, .nodes_key = "nodes",
                     .switches_key = "children"};
    topomap_topology_t *t = NULL;
    int last = 1, i;
    for (i = 0; i < nsw; i++) {
        struct toks k = {.sw = (char *)sw[i].name, .nodes = (char *)sw[i].nodes,
                         .switches = (char *)sw[i].switches};
        if (add_switch(&c, &k, sw[i].line, sw[i].col) < 0)
            break;
        if (sw[i].line > last)
            last = sw[i].line;
    }
    if (i == nsw && nsw > 0)
        t = conf_tree(&c, last);
    else if (nsw == 0)
        topomap_fail(err, errlen, EINVAL, "%s: no switches", path);
    conf_free(&c);
    return t;
}
