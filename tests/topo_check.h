/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tests of the topology readers share (header only, after tap.h):
 * hops between nodes by name, describe() as a string, writing a small file,
 * and files that must fail with EINVAL and one line of error. */
#ifndef TOPOMAP_TOPO_CHECK_H
#define TOPOMAP_TOPO_CHECK_H
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topomap.h"

static inline int hops_by_name(const topomap_topology_t *t, const char *a, const char *b)
{
    return topomap_topology_hops(t, topomap_topology_node_lookup(t, a),
                                 topomap_topology_node_lookup(t, b));
}

/* topomap_topology_describe() into a static buffer. */
static inline char *describe(const topomap_topology_t *t)
{
    static char buf[4096];
    FILE *f = tmpfile();
    size_t n = 0;
    if (f && topomap_topology_describe(t, f) == 0) {
        rewind(f);
        n = fread(buf, 1, sizeof buf - 1, f);
    }
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

/* A file of text in dir (a slurm.conf, a topology file). */
static inline void topo_put(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

struct topo_reject {
    const char *file, *msg; /* file in dir; a part of its one-line error */
};

/* Every file of cases (in dir) fails to load with EINVAL and its message. */
static inline void check_rejects(const char *dir, const struct topo_reject *cases, size_t n)
{
    char err[TOPOMAP_ERRLEN];
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", dir, cases[i].file);
        err[0] = 0;
        errno = 0;
        topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
        ok(!t && errno == EINVAL, "%s rejected with EINVAL", cases[i].file);
        like(err, cases[i].msg, "  message: %s", err);
        ok(!strchr(err, '\n') && !strncmp(err, path, strlen(path)), "  one line, from the path");
        topomap_topology_free(t);
    }
}
#endif
