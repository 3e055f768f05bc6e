/* SPDX-License-Identifier: BSD-3-Clause */
/* Small shared helpers: error reporting, clock, random numbers, number parsing. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "config.h"

#include "internal.h"

/* Replace in place what a terminal would act on (see topomap_printable()):
 * the replacement is one byte per bad byte, so the text never grows. */
static void make_printable(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                *p = '?';
            p++;
            continue;
        }
        /* A UTF-8 sequence: its length and code point, or invalid. */
        int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        unsigned cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
        for (int k = 1; k < n; k++) {
            if ((p[k] & 0xc0) != 0x80) {
                n = 0;
                break;
            }
            cp = cp << 6 | (p[k] & 0x3f);
        }
        int bad = n == 0 || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                  (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f /* C1 controls */ ||
                  (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
                  cp == 0x200e || cp == 0x200f || cp == 0x061c;
        if (bad) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

char *topomap_printable(const char *s, char *buf, size_t len)
{
    if (!buf || !len)
        return buf;
    size_t n = s ? strlen(s) : 0;
    if (n < len) {
        memmove(buf, s ? s : "", n + 1); /* buf may be s */
    } else {
        size_t keep = len > 4 ? len - 4 : len - 1;
        memmove(buf, s, keep);
        buf[keep] = 0;
        if (len > 4)
            memcpy(buf + keep, "...", 4);
    }
    make_printable(buf);
    return buf;
}

int topomap_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        make_printable(err);
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
    if (env && *env) {
        /* Bounded as the option is: OMP_NUM_THREADS=4096 must not make the
         * runtime abort the caller when it cannot start them. */
        int n = omp_get_max_threads();
        return n > TOPOMAP_MAX_THREADS ? TOPOMAP_MAX_THREADS : n;
    }
#endif
    return 1;
}

int topomap_par_threads(long n)
{
#ifdef _OPENMP
    if (n >= topomap_tuning()->par_min && omp_get_active_level() < omp_get_max_active_levels())
        return omp_get_max_threads();
#endif
    (void)n;
    return 1;
}

void topomap_par_trace(const char *where)
{
    if (topomap_tuning()->par_trace)
        topomap_tuning()->par_trace(where);
}

int topomap_thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
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

uint64_t topomap_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t topomap_rng_next(uint64_t *state)
{
    return topomap_mix64(*state += 0x9e3779b97f4a7c15ULL);
}

int topomap_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int topomap_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
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

int topomap_scan_count(const char *s, long max, long *out)
{
    long v = 0;
    int i = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        int d = s[i] - '0';
        if (v > (max - d) / 10) {
            errno = ERANGE;
            return -1;
        }
        v = v * 10 + d;
    }
    if (!i) {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return i;
}

int topomap_parse_long(const char *s, long *out)
{
    long v;
    if (!s || !out) {
        errno = EINVAL;
        return -1;
    }
    int neg = *s == '-';
    int k = topomap_scan_count(s + neg, LONG_MAX, &v); /* -LONG_MAX at the least */
    if (k < 0)
        return -1;
    if (s[neg + k]) {
        errno = EINVAL;
        return -1;
    }
    *out = neg ? -v : v;
    return 0;
}

int topomap_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    if (!s || !out) {
        errno = EINVAL;
        return -1;
    }
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            errno = ERANGE;
            return -1;
        }
        v = v * 10 + d;
    }
    if (!i || s[i]) {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

int topomap_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !out || !*s || isspace((unsigned char)*s)) {
        errno = EINVAL;
        return -1;
    }
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s) {
        errno = EINVAL;
        return -1;
    }
    if (errno == ERANGE)
        return -1;
    if (!isfinite(v)) {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

int topomap_parse_duration(const char *s, double unit, double *seconds)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {{"ms", 1e-3}, {"s", 1}, {"min", 60}};
    if (!s || !seconds || unit <= 0) {
        errno = EINVAL;
        return -1;
    }
    size_t len = strlen(s);
    double scale = unit;
    char num[64];
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t sl = strlen(units[u].suffix);
        if (len > sl && !strcmp(s + len - sl, units[u].suffix) &&
            (s[len - sl - 1] == '.' || isdigit((unsigned char)s[len - sl - 1]))) {
            scale = units[u].scale;
            len -= sl;
            break;
        }
    }
    if (len >= sizeof num) {
        errno = EINVAL;
        return -1;
    }
    memcpy(num, s, len);
    num[len] = 0;
    double v;
    if (topomap_parse_double(num, &v) < 0)
        return -1;
    *seconds = v * scale;
    return 0;
}

int topomap_size_known(const struct topomap_sized *d, size_t size)
{
    if (size == d->full)
        return 1;
    for (size_t i = 0; i < d->n; i++)
        if (size == (d->ends[i] + d->align - 1) / d->align * d->align)
            return 1;
    return 0;
}

int topomap_sized_put(const struct topomap_sized *d, void *to, size_t size, const void *from)
{
    if (!to || !topomap_size_known(d, size)) {
        errno = EINVAL;
        return -1;
    }
    memcpy(to, from, size);
    memcpy(to, &size, sizeof size);
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
    make_printable(line);
    pb->opts->log(line, pb->opts->log_arg);
}

int topomap_keyed_cmp(const void *a, const void *b)
{
    const struct topomap_keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}
