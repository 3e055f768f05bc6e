/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal TAP producer for the C tests (header only). */
#ifndef TOPOMAP_TAP_H
#define TOPOMAP_TAP_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                                              \
    do {                                                                                    \
        long long g_ = (long long)(got), w_ = (long long)(want);                            \
        if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__))                             \
            printf("#   got %lld, want %lld\n", g_, w_);                                    \
    } while (0)
#define is_double(got, want, tol, ...)                                                      \
    do {                                                                                    \
        double g_ = (double)(got), w_ = (double)(want);                                     \
        if (!tap_ok(fabs(g_ - w_) <= (tol), __FILE__, __LINE__, __VA_ARGS__))               \
            printf("#   got %.17g, want %.17g\n", g_, w_);                                  \
    } while (0)
#define is_str(got, want, ...)                                                              \
    do {                                                                                    \
        const char *g_ = (got), *w_ = (want);                                               \
        if (!tap_ok(g_ && w_ && !strcmp(g_, w_), __FILE__, __LINE__, __VA_ARGS__))          \
            printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)");     \
    } while (0)
/* err contains the substring want. */
#define like(got, want, ...)                                                                \
    do {                                                                                    \
        const char *g_ = (got), *w_ = (want);                                               \
        if (!tap_ok(g_ && strstr(g_, w_) != NULL, __FILE__, __LINE__, __VA_ARGS__))         \
            printf("#   '%s' does not contain '%s'\n", g_ ? g_ : "(null)", w_);              \
    } while (0)

static inline int done_testing(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}
#endif
