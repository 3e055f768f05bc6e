/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the tests of the plugin's Slurm-free files (tests/spank_*.c):
 * a fake environment and srun command lines given as arguments. */
#ifndef TOPOMAP_SPANK_TEST_H
#define TOPOMAP_SPANK_TEST_H
#include <stdarg.h>
#include <string.h>

#include "policy.h"

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

/* topomap_srun_parse of the NULL-terminated arguments after @p err. */
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
    topomap_srun_init(o);
    return topomap_srun_parse(o, argc, argv, fake_env, (void *)env, err, TOPOMAP_ERRLEN);
}
#endif
