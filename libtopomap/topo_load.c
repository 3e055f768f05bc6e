/* SPDX-License-Identifier: BSD-3-Clause */
/* The file entry point of topologies: topomap_topology_load(_named) reads a
 * file and hands it to the reader of its format, a Slurm topology.conf
 * (topo_slurmconf.c) or YAML (topo_yaml.c: a site description or a Slurm
 * topology.yaml). It sits above the readers, which sit above the base
 * object (topology.c), so that no file below calls back up. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "topology_priv.h"
#include "input.h"

/* Machine descriptions of other tools that look like ours but are not read:
 * a sentence saying so and what to give instead, or NULL. */
static const char *topo_unsupported(const char *path)
{
    size_t lp = strlen(path);
    if (lp > 4 && !strcasecmp(path + lp - 4, ".tgt"))
        return "Scotch target architectures (.tgt) are not read: describe the machine in a "
               "topomap YAML file (topologies/README.md)";
    return NULL;
}

topomap_topology_t *topomap_topology_load(const char *path, char *err, size_t errlen)
{
    return topomap_topology_load_named(path, NULL, err, errlen);
}

topomap_topology_t *topomap_topology_load_named(const char *path, const char *name, char *err,
                                                size_t errlen)
{
    size_t len;
    if (!path) {
        topomap_fail(err, errlen, EINVAL, "topomap_topology_load: NULL path");
        return NULL;
    }
    if (name && !*name) {
        topomap_fail(err, errlen, EINVAL, "%s: empty topology name", path);
        return NULL;
    }
    const char *unsupported = topo_unsupported(path);
    if (unsupported) {
        topomap_fail(err, errlen, EINVAL, "%s: %s", path, unsupported);
        return NULL;
    }
    char *text = topomap_input_slurp(path, TOPOMAP_MAX_TOPOLOGY_FILE, "a topology", &len, err,
                                     errlen);
    if (!text)
        return NULL;
    topomap_topology_t *t = NULL;
    if (topo_is_slurmconf(text) && name)
        topomap_fail(err, errlen, EINVAL, "%s: no topology named '%s': a topology.conf describes "
                     "one topology (only a Slurm topology.yaml names several)", path, name);
    else if (topo_is_slurmconf(text))
        t = topo_slurmconf_parse(path, text, err, errlen);
    else
        t = topo_yaml_load(path, text, len, name, err, errlen);
    free(text);
    if (t && !t->source && !(t->source = strdup(path))) {
        topomap_topology_free(t);
        topomap_fail(err, errlen, ENOMEM, "out of memory");
        return NULL;
    }
    return t;
}
