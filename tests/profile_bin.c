/* SPDX-License-Identifier: BSD-3-Clause */
/* The binary profile format: write/load round trips equal the text profile
 * (ranks, every entry's bytes and messages, metadata) on a small, a created
 * and random profiles; detection by magic, gzip; and every malformed class
 * (truncated, bad magic, version, flags, counts, checksum, row offsets, peers,
 * values, metadata) rejected with one "PATH: problem" line. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "topomap.h"

#define DATA SRCDIR "/data/profiles/"

static char tmpdir[64];
static char *made[64];
static int nmade;

static const char *tmp_path(const char *name)
{
    for (int i = 0; i < nmade; i++)
        if (!strcmp(strrchr(made[i], '/') + 1, name))
            return made[i];
    size_t len = strlen(tmpdir) + strlen(name) + 2;
    char *path = malloc(len);
    snprintf(path, len, "%s/%s", tmpdir, name);
    made[nmade++] = path;
    return path;
}

/* p written in format to tmpdir/name; returns the path. */
static const char *save(const topomap_profile_t *p, int format, const char *name)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    int rc = f ? topomap_profile_write_as(p, format, f) : -1;
    if (f)
        fclose(f);
    if (rc < 0)
        ok(0, "write %s", name);
    return path;
}

/* Two profiles are the same: ranks, messages or not, the four CSR views bit
 * for bit, the same metadata. */
static int same_profile(const topomap_profile_t *a, const topomap_profile_t *b)
{
    if (!a || !b || topomap_profile_nranks(a) != topomap_profile_nranks(b) ||
        topomap_profile_has_msgs(a) != topomap_profile_has_msgs(b))
        return 0;
    for (int aff = 0; aff <= topomap_profile_has_msgs(a); aff++)
        for (int sym = 0; sym < 2; sym++) {
            topomap_graph_t g, h;
            if (topomap_profile_graph(a, aff, sym, &g) || topomap_profile_graph(b, aff, sym, &h))
                return 0;
            int64_t m = g.xadj[g.n];
            if (memcmp(g.xadj, h.xadj, (size_t)(g.n + 1) * sizeof *g.xadj) ||
                memcmp(g.adj, h.adj, (size_t)m * sizeof *g.adj) ||
                memcmp(g.w, h.w, (size_t)m * sizeof *g.w))
                return 0;
        }
    static const char *const keys[] = {"nranks", "application", "date", "counted", "k", NULL};
    for (int i = 0; keys[i]; i++) {
        const char *x = topomap_profile_meta(a, keys[i]), *y = topomap_profile_meta(b, keys[i]);
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
            return 0;
    }
    return 1;
}

static topomap_profile_t *load(const char *path, int format)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(path, format, err, sizeof err);
    if (!p)
        ok(0, "load %s: %s", path, err);
    return p;
}

static void test_roundtrip(void)
{
    topomap_profile_t *p = load(DATA "small.txt", TOPOMAP_FMT_AUTO);
    const char *bin = save(p, TOPOMAP_FMT_BINARY, "small.bin");
    topomap_profile_t *q = load(bin, TOPOMAP_FMT_AUTO), *r = load(bin, TOPOMAP_FMT_BINARY);
    ok(same_profile(p, q), "small.txt: binary read back by its magic equals the text profile");
    ok(same_profile(p, r), "small.txt: and with TOPOMAP_FMT_BINARY");
    is_str(q ? topomap_profile_meta(q, "application") : NULL, "handmade", "metadata kept");
    is_int(topomap_profile_nedges(q), 7, "7 entries");
    topomap_profile_free(q);
    topomap_profile_free(r);
    /* Any name: the magic decides, not the extension. */
    const char *txt = tmp_path("binary.txt");
    rename(bin, txt);
    q = load(txt, TOPOMAP_FMT_AUTO);
    ok(same_profile(p, q), "a binary file named .txt is read as binary");
    topomap_profile_free(q);
    topomap_profile_free(p);

    /* Values that are not 32-bit integers go as doubles, bit for bit; no
     * message counts; a silent last rank. */
    char err[TOPOMAP_ERRLEN];
    int src[] = {0, 1, 2, 2}, dst[] = {1, 2, 0, 0};
    double bytes[] = {0.1, 1e20, 123456789012345678.0, 5e-324};
    p = topomap_profile_create(4, 4, src, dst, bytes, NULL, err, sizeof err);
    q = load(save(p, TOPOMAP_FMT_BINARY, "created.bin"), TOPOMAP_FMT_AUTO);
    ok(same_profile(p, q), "0.1, 1e20, 123456789012345678, 5e-324: bit for bit");
    ok(q && !topomap_profile_has_msgs(q), "no message counts read back without");
    topomap_profile_free(q);
    topomap_profile_free(p);

    /* Message counts but no entry left: the flag says so. */
    double zero = 0, one = 1;
    p = topomap_profile_create(3, 1, src, dst, &zero, &zero, err, sizeof err);
    q = load(save(p, TOPOMAP_FMT_BINARY, "empty.bin"), TOPOMAP_FMT_AUTO);
    ok(same_profile(p, q) && topomap_profile_has_msgs(q) && topomap_profile_nedges(q) == 0,
       "no entry, message counts kept");
    topomap_profile_free(q);
    topomap_profile_free(p);
    /* Messages without bytes. */
    p = topomap_profile_create(3, 1, src, dst, &zero, &one, err, sizeof err);
    q = load(save(p, TOPOMAP_FMT_BINARY, "msgonly.bin"), TOPOMAP_FMT_AUTO);
    ok(same_profile(p, q) && topomap_profile_nedges(q) == 1, "an entry of 0 bytes, 1 message");
    topomap_profile_free(q);
    topomap_profile_free(p);

    errno = 0;
    ok(topomap_profile_write_as(NULL, TOPOMAP_FMT_BINARY, stdout) < 0 && errno == EINVAL,
       "write_as(NULL) is EINVAL");
    p = load(DATA "small.txt", TOPOMAP_FMT_AUTO);
    errno = 0;
    ok(topomap_profile_write_as(p, TOPOMAP_FMT_MTX, stdout) < 0 && errno == EINVAL,
       "writing Matrix Market is EINVAL");
    FILE *f = fopen("/dev/full", "w");
    if (f) {
        errno = 0;
        ok(topomap_profile_write_as(p, TOPOMAP_FMT_BINARY, f) < 0 && errno == ENOSPC,
           "binary to /dev/full: ENOSPC");
        fclose(f);
    } else {
        ok(1, "# SKIP no /dev/full");
    }
    topomap_profile_free(p);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random profiles: text written and read back, then binary, must agree. */
static void test_random(void)
{
    int good = 0, tries = 40;
    for (int t = 0; t < tries; t++) {
        int n = 1 + (int)(next() % 300), m = (int)(next() % 2000), msgs = t % 2;
        int *src = malloc(sizeof(int) * (size_t)(m + 1)), *dst = malloc(sizeof(int) * (size_t)(m + 1));
        double *b = malloc(sizeof(double) * (size_t)(m + 1)), *c = malloc(sizeof(double) * (size_t)(m + 1));
        for (int k = 0; k < m; k++) {
            src[k] = (int)(next() % (uint64_t)n);
            dst[k] = (int)(next() % (uint64_t)n);
            b[k] = t % 3 == 0 ? (double)(next() % 1000) / 8 : (double)(next() % 100000);
            c[k] = (double)(next() % 4);
        }
        char err[TOPOMAP_ERRLEN];
        topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, b, msgs ? c : NULL,
                                                      err, sizeof err);
        topomap_profile_t *x = p ? load(save(p, TOPOMAP_FMT_EDGES, "r.txt"), 0) : NULL;
        topomap_profile_t *y = x ? load(save(x, TOPOMAP_FMT_BINARY, "r.bin"), 0) : NULL;
        good += same_profile(p, x) && same_profile(x, y);
        topomap_profile_free(p);
        topomap_profile_free(x);
        topomap_profile_free(y);
        free(src);
        free(dst);
        free(b);
        free(c);
    }
    is_int(good, tries, "%d random profiles: text and binary round trips agree", tries);
}

/* ---- malformed files ---------------------------------------------------- */

static unsigned char img[4096];
static size_t imglen;

/* The test's own CRC-32 and little-endian stores, written from the format's
 * description rather than taken from libtopomap/profile_bin.c: they check the
 * layout doc/formats.md#communication-profile documents. */
static uint32_t crc32_of(const unsigned char *p, size_t len)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0xedb88320u & -(c & 1));
    }
    return ~c;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* The checksum of a changed image made right again. */
static void reseal(unsigned char *d, size_t len)
{
    put32(d + len - 8, crc32_of(d, len - 8));
}

/* d (len bytes) must be rejected, errno EINVAL, with "PATH: want", one line. */
static void bad(const char *what, const unsigned char *d, size_t len, int format,
                const char *want)
{
    const char *path = tmp_path("bad.bin");
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(d, 1, len, f);
        fclose(f);
    }
    char err[TOPOMAP_ERRLEN] = "", full[1024];
    errno = 0;
    topomap_profile_t *p = topomap_profile_load(path, format, err, sizeof err);
    int e = errno;
    snprintf(full, sizeof full, "%s: %s", path, want);
    ok(p == NULL && e == EINVAL, "%s: rejected with EINVAL (errno %d)", what, e);
    like(err, full, "%s: message", what);
    ok(!strchr(err, '\n'), "%s: one line", what);
    topomap_profile_free(p);
}

/* A changed copy of img: value v (width w bytes) at offset off, resealed. */
static void bad_at(const char *what, size_t off, uint64_t v, int w, const char *want)
{
    unsigned char d[sizeof img];
    memcpy(d, img, imglen);
    if (w == 4)
        put32(d + off, (uint32_t)v);
    else
        put64(d + off, v);
    reseal(d, imglen);
    bad(what, d, imglen, TOPOMAP_FMT_AUTO, want);
}

static void test_malformed(void)
{
    /* small.txt without metadata: 5 ranks, 7 entries, u32 bytes and
     * messages. Layout: header 48, metadata 0, offsets 48 bytes at 48, peers
     * 28 (+4) at 96, bytes at 128, messages at 160, trailer at 192. */
    char err[TOPOMAP_ERRLEN];
    int src[] = {0, 1, 1, 2, 2, 3, 4}, dst[] = {1, 0, 2, 2, 3, 0, 3};
    double b[] = {100, 50, 30, 5, 20, 10, 40}, m[] = {2, 1, 3, 1, 4, 5, 2};
    topomap_profile_t *p = topomap_profile_create(5, 7, src, dst, b, m, err, sizeof err);
    FILE *f = fopen(save(p, TOPOMAP_FMT_BINARY, "good.bin"), "rb");
    imglen = f ? fread(img, 1, sizeof img, f) : 0;
    if (f)
        fclose(f);
    topomap_profile_free(p);
    is_int(imglen, 200, "the 5-rank image is 200 bytes");
    ok(crc32_of(img, imglen - 8) == (uint32_t)(img[192] | img[193] << 8 | img[194] << 16 |
                                               (uint32_t)img[195] << 24),
       "its trailer is the CRC-32 of what comes before");

    bad("truncated", img, imglen - 1, 0, "truncated: 199 of the 200 bytes its header announces");
    bad("header cut", img, 20, TOPOMAP_FMT_BINARY, "truncated: 20 bytes, less than the 48-byte");
    unsigned char d[sizeof img];
    memcpy(d, img, imglen);
    memcpy(d + imglen, "x", 1);
    bad("trailing data", d, imglen + 1, 0, "data after the end of the profile (200 bytes)");
    memcpy(d, img, imglen);
    d[1] = 'X';
    bad("magic", d, imglen, TOPOMAP_FMT_BINARY,
        "not a topomap binary profile (no \\x89TMPROF magic)");
    memcpy(d, img, imglen);
    d[130] ^= 1;
    bad("flipped bit", d, imglen, 0, "checksum mismatch (CRC-32 ");
    bad_at("version", 8, 2, 4, "binary profile version 2, this topomap reads version 1");
    bad_at("flags", 12, 0x17, 4, "unknown flags 0x17 in the header");
    bad_at("u32 messages without messages", 12, 4, 4,
           "flags 0x4: 32-bit message counts but no message counts");
    bad_at("no ranks", 16, 0, 8, "rank count 0 out of range 1..4194304");
    bad_at("too many ranks", 16, 1u << 23, 8, "rank count 8388608 out of range 1..4194304");
    bad_at("edge count", 24, 26, 8, "edge count 26 is more than nranks^2 = 25");
    bad_at("edge count overflows", 24, UINT64_MAX / 4, 8, "edge count 4611686018427387903 is");
    bad_at("metadata too long", 32, (uint64_t)1 << 40, 8, "metadata of 1099511627776 bytes");
    bad_at("reserved", 40, 1, 8, "reserved header field is not 0");
    bad_at("offsets start", 48, 1, 8, "row offsets do not start at 0");
    bad_at("offsets decrease", 48 + 16, 0, 8, "row offsets decrease at rank 1 (1 then 0)");
    bad_at("offset past the end", 48 + 16, 9, 8, "row offset 9 of rank 1 is past the 7 edges");
    bad_at("offsets end", 48 + 40, 6, 8, "row offsets end at 6, not at the edge count 7");
    bad_at("peer out of range", 96, 5, 4, "peer 5 of rank 0 out of range (nranks=5)");
    bad_at("peer 2^32-1", 96, UINT32_MAX, 4, "peer 4294967295 of rank 0 out of range");
    bad_at("peers out of order", 96 + 4, 3, 4,
           "peers of rank 1 not in increasing order (3 then 2)");
    memcpy(d, img, imglen);
    put32(d + 128, 0);
    put32(d + 160, 0);
    reseal(d, imglen);
    bad("zero entry", d, imglen, 0, "entry 0 has neither bytes nor messages");
    bad("empty file as binary", img, 0, TOPOMAP_FMT_BINARY, "not a topomap binary profile");

    /* f64 values: 2 ranks, 0.5 and 1.5 bytes. */
    int s2[] = {0, 1}, d2[] = {1, 0};
    double b2[] = {0.5, 1.5};
    p = topomap_profile_create(2, 2, s2, d2, b2, NULL, err, sizeof err);
    f = fopen(save(p, TOPOMAP_FMT_BINARY, "f64.bin"), "rb");
    imglen = f ? fread(img, 1, sizeof img, f) : 0;
    if (f)
        fclose(f);
    topomap_profile_free(p);
    /* header 48, offsets 24 at 48, peers 8 at 72, bytes 16 at 80, trailer 96. */
    is_int(imglen, 104, "the 2-rank f64 image is 104 bytes");
    double neg = -1, big = 1e300;
    uint64_t u;
    bad_at("NaN bytes", 80, 0x7ff8000000000000ull, 8, "entry 0: bytes nan is not a finite non-negative number");
    memcpy(&u, &neg, 8);
    bad_at("negative bytes", 88, u, 8, "entry 1: bytes -1 is not a finite non-negative number");
    memcpy(&u, &big, 8);
    bad_at("huge bytes", 80, u, 8, "total bytes pass 1e+30, the limit of a profile");

    /* Metadata: key=value lines. */
    p = load(DATA "small.txt", 0);
    f = fopen(save(p, TOPOMAP_FMT_BINARY, "meta.bin"), "rb");
    imglen = f ? fread(img, 1, sizeof img, f) : 0;
    if (f)
        fclose(f);
    topomap_profile_free(p);
    ok(imglen > 80 && !memcmp(img + 48, "application=handmade\n", 21), "metadata at 48");
    memcpy(d, img, imglen);
    d[48 + 11] = ':';
    reseal(d, imglen);
    bad("metadata not key=value", d, imglen, 0, "metadata line 1 is not key=value");
    memcpy(d, img, imglen);
    d[48 + 36] = 'x'; /* the newline of "date=2024-05-01\n" */
    reseal(d, imglen);
    bad("metadata without newline", d, imglen, 0, "metadata line 2 does not end with a newline");
}

static void test_gzip(void)
{
    /* A gzip-compressed binary profile (PROFILE.bin.gz) reads as the file. */
    topomap_profile_t *p = load(DATA "small.txt", 0);
    const char *bin = save(p, TOPOMAP_FMT_BINARY, "z.bin"), *gz = tmp_path("z.bin.gz");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "gzip -c %s > %s", bin, gz);
    if (system(cmd) != 0) {
        ok(1, "# SKIP no gzip");
    } else {
        topomap_profile_t *q = load(gz, 0);
        ok(same_profile(p, q), "z.bin.gz reads as z.bin");
        topomap_profile_free(q);
    }
    topomap_profile_free(p);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/topomap-profile-bin-t.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        ok(0, "mkdtemp");
        return done_testing();
    }
    test_roundtrip();
    test_random();
    test_malformed();
    test_gzip();
    for (int i = nmade - 1; i >= 0; i--) {
        unlink(made[i]);
        free(made[i]);
    }
    rmdir(tmpdir);
    return done_testing();
}
