/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm hostlist expressions: expansion (padding, several bracket groups,
 * order, duplicates), every syntax error class, and compression. Expected
 * expansions were written out by hand (they agree with `scontrol show
 * hostnames` semantics). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

/* Expand expr and compare with the space-separated list want. */
static void expands(const char *expr, const char *want)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, err, sizeof err);
    char got[4096] = "";
    if (hl)
        for (size_t i = 0; i < topomap_hostlist_count(hl); i++) {
            size_t l = strlen(got);
            snprintf(got + l, sizeof got - l, "%s%s", i ? " " : "", topomap_hostlist_get(hl, i));
        }
    is_str(hl ? got : err, want, "'%s' expands to '%s'", expr, want);
    topomap_hostlist_free(hl);
}

static void rejects(const char *expr, const char *msg)
{
    char err[TOPOMAP_ERRLEN] = "";
    errno = 0;
    topomap_hostlist_t *hl = topomap_hostlist_parse(expr, err, sizeof err);
    ok(!hl && errno == EINVAL, "'%s' rejected with EINVAL", expr);
    like(err, msg, "  message: %s", err);
    topomap_hostlist_free(hl);
}

static void compresses(const char *const *names, size_t n, const char *want)
{
    char *s = topomap_hostlist_compress(names, n);
    is_str(s, want, "compress to '%s'", want);
    /* And back: the expression expands to the same names in the same order. */
    char err[TOPOMAP_ERRLEN] = "";
    topomap_hostlist_t *hl = s ? topomap_hostlist_parse(s, err, sizeof err) : NULL;
    int same = hl && topomap_hostlist_count(hl) == n;
    for (size_t i = 0; same && i < n; i++)
        same = !strcmp(topomap_hostlist_get(hl, i), names[i]);
    ok(same, "  '%s' expands back to the %zu names", s ? s : "(null)", n);
    topomap_hostlist_free(hl);
    free(s);
}

int main(void)
{
    char err[TOPOMAP_ERRLEN];

    /* Expansion. */
    expands("cn[0000-0003,0010],login1", "cn0000 cn0001 cn0002 cn0003 cn0010 login1");
    expands("n[8-11]", "n8 n9 n10 n11");
    expands("n[08-11]", "n08 n09 n10 n11");
    expands("n[098-101]", "n098 n099 n100 n101");
    expands("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
    expands("r[1-2]n[1,3]-ib", "r1n1-ib r1n3-ib r2n1-ib r2n3-ib");
    expands("[1-2]x", "1x 2x");
    expands("a,b a", "a b a");
    expands("  h[3,1] , h2 ", "h3 h1 h2");
    expands("n[5-5]", "n5");
    expands("n[3,1-2,3]", "n3 n1 n2 n3");
    expands("plain", "plain");
    /* Several ranges in every group: each group's values come back in order
     * every time the group to its left moves on (the expansion resumes at
     * the range of the previous value and starts again at 0). */
    expands("r[1,3-4]n[7,1-2]", "r1n7 r1n1 r1n2 r3n7 r3n1 r3n2 r4n7 r4n1 r4n2");
    expands("a[2,0]b[5-6,1]c[9,3]",
            "a2b5c9 a2b5c3 a2b6c9 a2b6c3 a2b1c9 a2b1c3 a0b5c9 a0b5c3 a0b6c9 a0b6c3 a0b1c9 a0b1c3");
    {
        /* A bracket of 80,000 single numbers (what compress writes for names
         * numbered in the middle): every name in its place. */
        size_t n = 80000, cap = n * 8 + 16, len = 0;
        char *expr = malloc(cap);
        len += (size_t)snprintf(expr + len, cap - len, "m[");
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(expr + len, cap - len, "%s%zu", i ? "," : "", 3 * i);
        snprintf(expr + len, cap - len, "]x");
        topomap_hostlist_t *hl = topomap_hostlist_parse(expr, err, sizeof err);
        int good = hl && topomap_hostlist_count(hl) == n;
        char want[32];
        for (size_t i = 0; good && i < n; i++) {
            snprintf(want, sizeof want, "m%zux", 3 * i);
            good = !strcmp(topomap_hostlist_get(hl, i), want);
        }
        ok(good, "a bracket of %zu single numbers expands to them in order", n);
        topomap_hostlist_free(hl);
        free(expr);
    }

    topomap_hostlist_t *hl = topomap_hostlist_parse("", err, sizeof err);
    ok(hl && topomap_hostlist_count(hl) == 0, "'' is an empty list");
    ok(topomap_hostlist_get(hl, 0) == NULL, "get past the end is NULL");
    topomap_hostlist_free(hl);

    hl = topomap_hostlist_parse("t[0000-4095]", err, sizeof err);
    ok(hl && topomap_hostlist_count(hl) == 4096, "t[0000-4095] has 4096 names");
    is_str(topomap_hostlist_get(hl, 4095), "t4095", "last is t4095");
    is_str(topomap_hostlist_get(hl, 273), "t0273", "t0273 at index 273");
    topomap_hostlist_free(hl);
    topomap_hostlist_free(NULL);

    /* Errors. */
    rejects("cn[1-2", "unbalanced '['");
    rejects("cn1-2]", "unbalanced ']'");
    rejects("cn[1-[2]]", "nested '['");
    rejects("cn[5-3]", "reversed range '5-3'");
    rejects(",a", "empty host name");
    rejects("a,", "empty host name after ','");
    rejects("a,,b", "empty host name between ','");
    rejects("a, ,b", "empty host name between ','");
    rejects("n[]", "empty brackets");
    rejects("n[1,]", "missing number");
    rejects("n[,1]", "missing number");
    rejects("n[1-]", "range '1-' has no upper bound");
    rejects("n[a-b]", "unexpected 'a' inside brackets");
    rejects("n[1-2x]", "unexpected 'x' inside brackets");
    rejects("n[1 2]", "unexpected ' ' inside brackets");
    rejects("n[0-99999999]", "expands to more than 1048576 names");
    rejects("a[0-9999]b[0-9999]", "expands to more than 1048576 names");
    rejects("n[1234567890123456789]", "is too long");
    errno = 0;
    ok(topomap_hostlist_parse(NULL, err, sizeof err) == NULL && errno == EINVAL,
       "NULL expression: EINVAL");

    /* Compression. */
    const char *a[] = {"cn0000", "cn0001", "cn0002", "cn0010", "login1"};
    compresses(a, 5, "cn[0000-0002,0010],login1");
    const char *b[] = {"n9", "n10", "n11"};
    compresses(b, 3, "n[9-11]");
    const char *c[] = {"n08", "n09", "n10", "n100"};
    compresses(c, 4, "n[08-10,100]");
    const char *d[] = {"n10", "n9"};
    compresses(d, 2, "n10,n9"); /* n9 is not n09: width differs */
    const char *e[] = {"h3", "h1", "h2"};
    compresses(e, 3, "h[3,1-2]");
    const char *f[] = {"r1n01", "r1n02", "r2n01", "r2n02"};
    compresses(f, 4, "r1n[01-02],r2n[01-02]");
    const char *g[] = {"login", "x1", "y1", "x2"};
    compresses(g, 4, "login,x1,y1,x2");
    const char *h[] = {"n1", "n1", "n2"};
    compresses(h, 3, "n[1,1-2]");
    const char *i1[] = {"solo7"};
    compresses(i1, 1, "solo7");
    compresses(NULL, 0, "");
    const char *j[] = {"n007", "n08"};
    compresses(j, 2, "n007,n08");

    return done_testing();
}
