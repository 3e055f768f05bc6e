/* SPDX-License-Identifier: BSD-3-Clause */
/* Small shared helpers: error reporting, clock, random numbers, number parsing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "config.h"

#include "internal.h"

int topomap_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    errno = e;
    return -1;
}

/* Threads for a parallel region when the caller did not say: 1, or what
 * OMP_NUM_THREADS asks for (see topomap_opts.nthreads). */
int topomap_default_threads(void)
{
#ifdef _OPENMP
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env)
        return omp_get_max_threads();
#endif
    return 1;
}

double topomap_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int topomap_expired(const struct topomap_problem *pb)
{
    return pb->deadline > 0 && topomap_now() > pb->deadline;
}

uint64_t topomap_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t topomap_rng_below(uint64_t *state, uint64_t n)
{
    /* Rejection sampling: no modulo bias. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = topomap_rng_next(state);
    while (x >= limit);
    return x % n;
}

int topomap_parse_long(const char *s, long *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int topomap_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

const char *topomap_version(void)
{
    return PACKAGE_VERSION;
}

void topomap_log(const struct topomap_problem *pb, const char *fmt, ...)
{
    if (!pb->opts || !pb->opts->log)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pb->opts->log(line, pb->opts->log_arg);
}
