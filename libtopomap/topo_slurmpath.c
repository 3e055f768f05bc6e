/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a Slurm cluster describes its network: topomap_slurm_topology_path().
 * Slurm's rules (slurm.conf(5), topology.conf(5), topology.yaml(5)): both
 * files sit in slurm.conf's directory; a topology.yaml there is read first
 * and topology.conf is then ignored (each topology of the YAML names its own
 * plugin); otherwise TopologyPlugin= picks the plugin, and topology/tree,
 * topology/block and (Slurm 26.05) topology/ring read topology.conf, while
 * 26.05's topology/torus3d reads topology.yaml only (tag slurm-26-05-3-1,
 * src/plugins/topology/torus3d/torus3d_record.c: no configuration from the
 * YAML is fatal). topology/flat (called topology/default
 * before Slurm 24.05, topology/none before 23.11) is the default and reads
 * no file. Only slurm.conf itself is read: its Include lines are not
 * followed (TopologyPlugin= is a cluster-wide setting, kept in the main
 * file). Slurm-free: text only, no Slurm library. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "internal.h"
#include "topology_priv.h"
#include "input.h"

/* The value of the last TopologyPlugin= of slurm.conf's text (into val,
 * quotes removed, "" when absent) and its line (0 when absent). */
static int find_plugin(const char *text, char *val, size_t vlen)
{
    static const char key[] = "TopologyPlugin=";
    int line = 0, found = 0;
    val[0] = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        line++;
        const char *end = p + n, *hash = memchr(p, '#', n);
        if (hash)
            end = hash;
        /* Whitespace-separated KEY=VALUE tokens. */
        for (const char *q = p; q < end;) {
            while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            const char *tok = q;
            while (q < end && *q != ' ' && *q != '\t' && *q != '\r')
                q++;
            size_t tl = (size_t)(q - tok);
            if (tl >= sizeof key - 1 && !strncasecmp(tok, key, sizeof key - 1)) {
                const char *v = tok + sizeof key - 1;
                size_t l = tl - (sizeof key - 1);
                if (l >= 2 && v[0] == '"' && v[l - 1] == '"') {
                    v++;
                    l -= 2;
                }
                snprintf(val, vlen, "%.*s", (int)l, v);
                found = line;
            }
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    return found;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir of conf (with its '/', or "" for a bare name) + name into out. */
static int beside(const char *conf, const char *name, char *out, size_t outlen)
{
    const char *slash = strrchr(conf, '/');
    int dl = slash ? (int)(slash - conf) + 1 : 0;
    int n = snprintf(out, outlen, "%.*s%s", dl, conf, name);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int topomap_slurm_topology_path(const char *slurm_conf, char *out, size_t outlen, char *err,
                                size_t errlen)
{
    char yaml[4096], conf[4096], plugin[256];
    size_t len;
    if (!slurm_conf || !*slurm_conf || !out)
        return topomap_fail(err, errlen, EINVAL, "topomap_slurm_topology_path: no slurm.conf path");
    if (beside(slurm_conf, "topology.yaml", yaml, sizeof yaml) < 0 ||
        beside(slurm_conf, "topology.conf", conf, sizeof conf) < 0)
        return topomap_fail(err, errlen, ENAMETOOLONG, "%s: path too long", slurm_conf);
    char *text = topomap_input_slurp(slurm_conf, TOPOMAP_MAX_TOPOLOGY_FILE, "a slurm.conf", &len,
                                     err, errlen);
    if (!text)
        return -1;
    int line = find_plugin(text, plugin, sizeof plugin);
    free(text);
    const char *pick = NULL;
    const char *p = plugin;
    if (!strncasecmp(p, "topology/", 9))
        p += 9;
    if (exists(yaml))
        pick = yaml;
    else if (!strcasecmp(p, "tree") || !strcasecmp(p, "block") || !strcasecmp(p, "ring"))
        pick = conf;
    else if (!strcasecmp(p, "torus3d"))
        pick = yaml;
    else if (line && *p && strcasecmp(p, "flat") && strcasecmp(p, "default") &&
             strcasecmp(p, "none"))
        return topomap_fail(err, errlen, EINVAL, "%s:%d: TopologyPlugin=%s: topomap reads the "
                            "networks of topology/tree, topology/block, topology/ring, "
                            "topology/torus3d and topology/flat only",
                            slurm_conf, line, plugin);
    else
        return topomap_fail(err, errlen, ENOENT, "%s: the cluster describes no network topology "
                            "(%s%s, and no %s)", slurm_conf, line ? "TopologyPlugin=" : "",
                            line ? plugin : "no TopologyPlugin=: topology/flat", yaml);
    if (!exists(pick))
        return topomap_fail(err, errlen, ENOENT, "%s:%d: TopologyPlugin=%s reads %s, which does "
                            "not exist", slurm_conf, line, plugin, pick);
    if (strlen(pick) >= outlen)
        return topomap_fail(err, errlen, ERANGE, "%s: %zu bytes do not hold the path %s",
                            slurm_conf, outlen, pick);
    strcpy(out, pick);
    return 0;
}
