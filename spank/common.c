/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers shared by the Slurm-free files of the plugin. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

char *tmsp_clean(char *s)
{
    /* libtopomap's one helper: C1 controls and bidi overrides too. */
    return s ? topomap_printable(s, s, strlen(s) + 1) : s;
}

int tmsp_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        tmsp_clean(err);
    }
    errno = e;
    return -1;
}

void tmsp_append(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    size_t len = strlen(err);
    if (len && len + 2 < errlen) {
        strcpy(err + len, "; ");
        len += 2;
    }
    if (len + 1 >= errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + len, errlen - len, fmt, ap);
    va_end(ap);
    tmsp_clean(err + len);
}

/* Through libtopomap's strict parser: no blanks, no '+'. */
int tmsp_count(const char *s, long *out)
{
    long v;
    if (topomap_parse_long(s, &v) < 0 || v < 0 || v > INT_MAX)
        return -1;
    *out = v;
    return 0;
}

char *tmsp_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

void tmsp_set(char **dst, const char *s)
{
    free(*dst);
    *dst = tmsp_strdup(s);
}

double tmsp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tmsp_map_time_limit(double deadline)
{
    double left = 0.9 * (deadline - tmsp_now());
    return left > 1e-3 ? left : 1e-3;
}

int tmsp_threads_parse(const char *s, int *out)
{
    long v;
    if (!strcmp(s, "auto")) {
        *out = 0;
        return 0;
    }
    if (tmsp_count(s, &v) < 0 || v < 1 || v > TOPOMAP_MAX_THREADS)
        return -1;
    *out = (int)v;
    return 0;
}

int tmsp_auto_threads_for(long mask, long online, double load)
{
    double idle = (double)online - (load > 0 ? load : 0);
    double free_cpus = (double)mask < idle ? (double)mask : idle;
    if (free_cpus < 2)
        return 1;
    long n = (long)(free_cpus / 2); /* positive: truncation is the floor */
    return n > TMSP_AUTO_THREADS_MAX ? TMSP_AUTO_THREADS_MAX : (int)n;
}

int tmsp_auto_threads(void)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    long mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : online;
    double load[1];
    if (getloadavg(load, 1) != 1)
        load[0] = 0; /* unknown: the mask alone */
    return tmsp_auto_threads_for(mask, online > 0 ? online : mask, load[0]);
}

long tmsp_uint(const char **p)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return -1;
        s++;
    }
    *p = s;
    return v;
}

const char *tmsp_env(topomap_getenv_fn env, void *arg, const char *name)
{
    const char *v = env ? env(name, arg) : NULL;
    return v && *v ? v : NULL;
}

const char *tmsp_slurm_conf_in(topomap_getenv_fn env, void *arg, const char *deflt,
                               const char *cached)
{
    struct stat st;
    const char *v = tmsp_env(env, arg, "SLURM_CONF");
    if (v)
        return v;
    if (stat(deflt, &st) == 0 || stat(cached, &st) < 0)
        return deflt;
    return cached;
}

const char *tmsp_slurm_conf(topomap_getenv_fn env, void *arg)
{
    return tmsp_slurm_conf_in(env, arg, TOPOMAP_SLURM_CONF_DEFAULT,
                              TOPOMAP_SLURM_CONF_CACHED);
}

int tmsp_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void tmsp_sb_printf(struct topomap_sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = b->cap ? 2 * b->cap : 256;
        while (nc < b->len + (size_t)k + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

const char *tmsp_algo_list(char *buf, size_t len)
{
    snprintf(buf, len, "off");
    for (int i = 0; topomap_algo_name(i); i++)
        snprintf(buf + strlen(buf), len - strlen(buf), ", %s", topomap_algo_name(i));
    return buf;
}
