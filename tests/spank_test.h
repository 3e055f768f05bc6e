/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the tests of the plugin's Slurm-free files (tests/spank_*.c):
 * a fake environment, srun command lines given as arguments, temporary
 * profile stores. */
#ifndef TOPOMAP_SPANK_TEST_H
#define TOPOMAP_SPANK_TEST_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tap.h"

#define DATA SRCDIR "/data/slurm"

/* A fake environment: NULL-terminated "NAME=value" strings. */
static inline const char *fake_env(const char *name, void *arg)
{
    const char *const *env = arg;
    size_t len = strlen(name);
    for (; env && *env; env++)
        if (!strncmp(*env, name, len) && (*env)[len] == '=')
            return *env + len + 1;
    return NULL;
}

/* tmsp_srun_parse of the NULL-terminated arguments after @p err. */
/* The Slurm release parse() reads for (NULL: tmsp_srun_init's, 22.05). */
static const struct topomap_release *parse_release;

static inline int parse(struct topomap_srun *o, const char *const *env, char *err, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, err);
    for (char *a; argc < 63 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    tmsp_srun_init(o);
    if (parse_release)
        o->rel = parse_release;
    return tmsp_srun_parse(o, argc, argv, fake_env, (void *)env, err, TOPOMAP_ERRLEN);
}

/* A temporary store; "rm -rf" of it at the end. */
static inline int make_store(char *store)
{
    if (!mkdtemp(store)) {
        ok(0, "temporary store");
        return -1;
    }
    return 0;
}

/* A temporary store holding DATA/pair8.txt as "pair8", the profile of the
 * tests on the mesh (spank_decide.c, spank_release.c): 0, or -1. */
static inline int make_pair8_store(char *store)
{
    char err[TOPOMAP_ERRLEN];
    if (make_store(store) < 0)
        return -1;
    topomap_profile_t *p = topomap_profile_load(DATA "/pair8.txt", TOPOMAP_FMT_AUTO, err,
                                                sizeof err);
    ok(p && topomap_store_add(store, "pair8", p, err, sizeof err) == 0, "store pair8: %s",
       p ? "" : err);
    topomap_profile_free(p);
    return 0;
}

static inline void remove_store(const char *store)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", store);
}
#endif
