/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm 26.05's order for a step's tasks, from the cluster's slurm.conf
 * (release.c, topo_order; see policy.h). Slurm-free: text only. Only
 * slurm.conf itself is read (its Include lines are not followed), as
 * topomap_slurm_topology_path does. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common.h"

/* The value of the last line "KEY=..." of slurm.conf (keys are
 * case-insensitive, '#' starts a comment) among @p line. */
static void last_value(char *line, const char *key, char *val, size_t len)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *p = line + strspn(line, " \t");
    size_t k = strlen(key);
    if (strncasecmp(p, key, k) || p[k] != '=')
        return;
    p += k + 1;
    p[strcspn(p, " \t\r\n")] = 0;
    snprintf(val, len, "%s", p);
}

/* Whether the comma-separated list @p list names @p word (case-insensitive). */
static int names(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p; p += strcspn(p, ",\""), p += *p != 0) {
        p += *p == '"';
        if (!strncasecmp(p, word, n) && (p[n] == 0 || p[n] == ',' || p[n] == '"'))
            return 1;
    }
    return 0;
}

int tmsp_slurm_task_order(const char *slurm_conf, char *err, size_t errlen)
{
    FILE *f = fopen(slurm_conf, "r");
    if (!f) {
        tmsp_fail(err, errlen, errno, "%s: %s", slurm_conf, strerror(errno));
        return TOPOMAP_ORDER_UNKNOWN;
    }
    char *line = NULL, params[512] = "", plugin[128] = "";
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        last_value(line, "SelectTypeParameters", params, sizeof params);
        last_value(line, "TopologyPlugin", plugin, sizeof plugin);
    }
    int bad = ferror(f);
    free(line);
    fclose(f);
    if (bad) {
        tmsp_fail(err, errlen, EIO, "%s: read error", slurm_conf);
        return TOPOMAP_ORDER_UNKNOWN;
    }
    if (names(params, "CR_NO_DIST_TOPO_BLOCK"))
        return TOPOMAP_ORDER_NODES;
    /* A topology.yaml beside slurm.conf replaces TopologyPlugin=, and its
     * topologies may rank the nodes (flat ones too: alpha_step_rank). */
    char yaml[PATH_MAX];
    const char *slash = strrchr(slurm_conf, '/');
    int dirlen = slash ? (int)(slash - slurm_conf + 1) : 0;
    struct stat st;
    snprintf(yaml, sizeof yaml, "%.*stopology.yaml", dirlen, slurm_conf);
    if (stat(yaml, &st) == 0)
        return TOPOMAP_ORDER_TOPOLOGY;
    /* topology/flat ranks nothing; it was called topology/default before
     * 24.05 and topology/none before 23.11 (topo_slurmpath.c). */
    const char *p = plugin[0] == '"' ? plugin + 1 : plugin;
    if (!*p || !strncasecmp(p, "topology/flat", 13) || !strncasecmp(p, "topology/default", 16) ||
        !strncasecmp(p, "topology/none", 13))
        return TOPOMAP_ORDER_NODES;
    return TOPOMAP_ORDER_TOPOLOGY;
}
