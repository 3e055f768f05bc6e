/* SPDX-License-Identifier: BSD-3-Clause */
/* Profiles in the binary format (TOPOMAP_FMT_BINARY): the directed CSR as
 * written in memory, read in one go and checked, so that a million ranks
 * load in a fraction of a second. doc/formats.md#communication-profile
 * has the layout; in short, all integers little-endian, every section starting
 * at a multiple of 8 bytes:
 *
 *   0   8  magic "\x89TMPROF\n"
 *   8   4  version (1)
 *   12  4  flags: 1 message counts, 2 bytes as u32, 4 messages as u32
 *   16  8  nranks
 *   24  8  nedges: directed entries (src, dst), none with zero bytes and
 *          zero messages
 *   32  8  metadata length in bytes
 *   40  8  reserved, 0
 *   48     metadata: "key=value\n" lines, then zeros to a multiple of 8
 *          row offsets: nranks + 1 u64, from 0 to nedges, non-decreasing
 *          peers: nedges u32, increasing within each row (+ padding)
 *          bytes: nedges f64 (u32 with flag 2) (+ padding)
 *          messages, with flag 1: nedges f64 (u32 with flag 4) (+ padding)
 *   end-8  CRC-32 (zlib's crc32) of every byte before it, u32, then 4 zeros
 *
 * Values held as u32 when every one is an integer below 2^32 (what
 * profilers record) make a stencil's entries 12 bytes instead of 20.
 * Every malformed file gets one "PATH: problem" line and errno EINVAL. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"
#include "profile_priv.h"
#include "input.h"

#define BIN_VERSION 1
#define BIN_HEADER 48
#define BIN_MSGS 1u
#define BIN_BYTES32 2u
#define BIN_MSGS32 4u
#define BIN_MAX_META ((uint64_t)16 << 20)

const char topomap_bin_magic[8] = "\x89TMPROF\n";

static uint64_t pad8(uint64_t x)
{
    return (x + 7) & ~(uint64_t)7;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
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

/* zlib's crc32 over any length (its length argument is an unsigned int). */
static uLong crc_of(uLong crc, const unsigned char *p, size_t len)
{
    while (len) {
        unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
        crc = crc32(crc, p, chunk);
        p += chunk;
        len -= chunk;
    }
    return crc;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                    */
/* ------------------------------------------------------------------------ */

struct bin_out {
    FILE *f;
    uLong crc;
    int bad;
};

static void out_bytes(struct bin_out *o, const void *p, size_t len)
{
    if (o->bad || !len)
        return;
    o->crc = crc_of(o->crc, p, len);
    o->bad = fwrite(p, 1, len, o->f) != len;
}

static void out_pad(struct bin_out *o, uint64_t len)
{
    static const unsigned char zero[8];
    out_bytes(o, zero, (size_t)(pad8(len) - len));
}

/* 1 if every value is an integer below 2^32. */
static int fits_u32(const double *v, int64_t m)
{
    for (int64_t e = 0; e < m; e++)
        if (!(v[e] < 4294967296.0) || v[e] != floor(v[e]))
            return 0;
    return 1;
}

/* m values as u32 (narrow) or f64, little-endian, then padding. */
static void out_values(struct bin_out *o, const double *v, int64_t m, int narrow)
{
    unsigned char buf[8192];
    size_t w = narrow ? 4 : 8, per = sizeof buf / w;
    for (int64_t e = 0; e < m;) {
        size_t k = 0;
        for (; k < per && e < m; k++, e++) {
            if (narrow) {
                put32(buf + 4 * k, (uint32_t)v[e]);
            } else {
                uint64_t u;
                memcpy(&u, &v[e], 8);
                put64(buf + 8 * k, u);
            }
        }
        out_bytes(o, buf, k * w);
    }
    out_pad(o, (uint64_t)m * w);
}

/* The metadata block: "key=value\n" lines, nranks left to the header. -1
 * with errno EINVAL for a value that would not read back (a newline). */
static int out_meta(struct bin_out *o, const topomap_profile_t *p, uint64_t *len, int count)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->nmeta; i++) {
        const struct meta_entry *m = &p->meta[i];
        if (!strcmp(m->key, "nranks"))
            continue;
        if (strchr(m->val, '\n')) {
            errno = EINVAL;
            return -1;
        }
        size_t kl = strlen(m->key), vl = strlen(m->val);
        n += kl + vl + 2;
        if (!count) {
            out_bytes(o, m->key, kl);
            out_bytes(o, "=", 1);
            out_bytes(o, m->val, vl);
            out_bytes(o, "\n", 1);
        }
    }
    *len = n;
    if (!count)
        out_pad(o, n);
    return 0;
}

int topomap_profile_write_binary(const topomap_profile_t *p, FILE *f)
{
    struct bin_out o = {f, crc32(0, Z_NULL, 0), 0};
    int64_t m = p->dir.xadj[p->n];
    uint32_t flags = 0;
    uint64_t mlen;
    if (out_meta(&o, p, &mlen, 1) < 0)
        return -1;
    if (p->has_msgs)
        flags |= BIN_MSGS;
    if (fits_u32(p->dir.bytes, m))
        flags |= BIN_BYTES32;
    if (p->has_msgs && fits_u32(p->dir.msgs, m))
        flags |= BIN_MSGS32;
    unsigned char h[BIN_HEADER] = {0};
    memcpy(h, topomap_bin_magic, 8);
    put32(h + 8, BIN_VERSION);
    put32(h + 12, flags);
    put64(h + 16, (uint64_t)p->n);
    put64(h + 24, (uint64_t)m);
    put64(h + 32, mlen);
    errno = 0;
    out_bytes(&o, h, sizeof h);
    out_meta(&o, p, &mlen, 0);
    unsigned char buf[8192];
    for (int i = 0; i <= p->n;) {
        size_t k = 0;
        for (; k < sizeof buf / 8 && i <= p->n; k++, i++)
            put64(buf + 8 * k, (uint64_t)p->dir.xadj[i]);
        out_bytes(&o, buf, 8 * k);
    }
    for (int64_t e = 0; e < m;) {
        size_t k = 0;
        for (; k < sizeof buf / 4 && e < m; k++, e++)
            put32(buf + 4 * k, (uint32_t)p->dir.adj[e]);
        out_bytes(&o, buf, 4 * k);
    }
    out_pad(&o, (uint64_t)m * 4);
    out_values(&o, p->dir.bytes, m, !!(flags & BIN_BYTES32));
    if (p->has_msgs)
        out_values(&o, p->dir.msgs, m, !!(flags & BIN_MSGS32));
    unsigned char t[8] = {0};
    put32(t, (uint32_t)o.crc);
    out_bytes(&o, t, 8);
    if (!o.bad)
        o.bad = fflush(f) == EOF;
    if (o.bad || ferror(f)) {
        errno = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                    */
/* ------------------------------------------------------------------------ */

/* What the header says, and where each section starts in the file. */
struct bin_layout {
    uint32_t flags;
    int n;
    uint64_t m, mlen;
    uint64_t meta, xadj, adj, bytes, msgs, trailer, size;
};

static int bin_fail(struct reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* -1 with errno EINVAL and "PATH: message". */
static int bin_fail(struct reader *r, const char *fmt, ...)
{
    char msg[TOPOMAP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return topomap_fail(r->err, r->errlen, EINVAL, "%s: %s", r->path, msg);
}

/* Check the header h (BIN_HEADER bytes) and lay the file out. 0, or -1 with
 * the message. */
static int bin_header(struct reader *r, const unsigned char *h, struct bin_layout *L)
{
    if (memcmp(h, topomap_bin_magic, 8))
        return bin_fail(r, "not a topomap binary profile (no \\x89TMPROF magic)");
    uint32_t version = get32(h + 8);
    if (version != BIN_VERSION)
        return bin_fail(r, "binary profile version %" PRIu32 ", this topomap reads version %d",
                        version, BIN_VERSION);
    L->flags = get32(h + 12);
    if (L->flags & ~(BIN_MSGS | BIN_BYTES32 | BIN_MSGS32))
        return bin_fail(r, "unknown flags 0x%" PRIx32 " in the header", L->flags);
    if ((L->flags & BIN_MSGS32) && !(L->flags & BIN_MSGS))
        return bin_fail(r, "flags 0x%" PRIx32 ": 32-bit message counts but no message counts",
                        L->flags);
    uint64_t n = get64(h + 16);
    if (n < 1 || n > TOPOMAP_MAX_RANKS)
        return bin_fail(r, "rank count %" PRIu64 " out of range 1..%d", n, TOPOMAP_MAX_RANKS);
    L->n = (int)n;
    L->m = get64(h + 24);
    if (L->m > n * n)
        return bin_fail(r, "edge count %" PRIu64 " is more than nranks^2 = %" PRIu64, L->m,
                        n * n);
    L->mlen = get64(h + 32);
    if (L->mlen > BIN_MAX_META)
        return bin_fail(r, "metadata of %" PRIu64 " bytes is over the limit of %" PRIu64,
                        L->mlen, BIN_MAX_META);
    if (get64(h + 40))
        return bin_fail(r, "reserved header field is not 0");
    /* n <= 2^22 and m <= n^2 = 2^44: no sum below overflows. */
    uint64_t wb = L->flags & BIN_BYTES32 ? 4 : 8, wm = L->flags & BIN_MSGS32 ? 4 : 8;
    L->meta = BIN_HEADER;
    L->xadj = L->meta + pad8(L->mlen);
    L->adj = L->xadj + 8 * (n + 1);
    L->bytes = L->adj + pad8(4 * L->m);
    L->msgs = L->bytes + pad8(wb * L->m);
    L->trailer = L->msgs + (L->flags & BIN_MSGS ? pad8(wm * L->m) : 0);
    L->size = L->trailer + 8;
    return 0;
}

/* "key=value\n" lines into r->meta. 0, or -1 with the message. */
static int bin_meta(struct reader *r, const char *s, size_t len)
{
    int line = 0;
    while (len) {
        const char *nl = memchr(s, '\n', len), *eq;
        line++;
        if (!nl)
            return bin_fail(r, "metadata line %d does not end with a newline", line);
        size_t ll = (size_t)(nl - s);
        eq = memchr(s, '=', ll);
        if (!eq || !topomap_rd_is_key(s, (size_t)(eq - s)) || memchr(s, 0, ll))
            return bin_fail(r, "metadata line %d is not key=value", line);
        size_t kl = (size_t)(eq - s);
        if (!(kl == 6 && !memcmp(s, "nranks", 6)) &&
            topomap_meta_set(&r->meta, &r->nmeta, s, kl, eq + 1, ll - kl - 1, 0) < 0)
            return topomap_fail(r->err, r->errlen, ENOMEM, "%s: out of memory", r->path);
        s = nl + 1;
        len -= ll + 1;
    }
    return 0;
}

/* The row offsets and peers of the file (data d) into c, checked. */
static int bin_rows(struct reader *r, const unsigned char *d, const struct bin_layout *L,
                    struct csr *c)
{
    const unsigned char *x = d + L->xadj, *a = d + L->adj;
    if (get64(x))
        return bin_fail(r, "row offsets do not start at 0");
    for (int i = 0; i < L->n; i++) {
        uint64_t lo = get64(x + 8 * (size_t)i), hi = get64(x + 8 * ((size_t)i + 1));
        if (hi < lo)
            return bin_fail(r, "row offsets decrease at rank %d (%" PRIu64 " then %" PRIu64 ")",
                            i, lo, hi);
        if (hi > L->m)
            return bin_fail(r, "row offset %" PRIu64 " of rank %d is past the %" PRIu64
                               " edges",
                            hi, i, L->m);
        c->xadj[i] = (int64_t)lo;
        for (uint64_t e = lo; e < hi; e++) {
            uint32_t j = get32(a + 4 * e);
            if (j >= (uint32_t)L->n)
                return bin_fail(r, "peer %" PRIu32 " of rank %d out of range (nranks=%d)", j, i,
                                L->n);
            if (e > lo && (int)j <= c->adj[e - 1])
                return bin_fail(r, "peers of rank %d not in increasing order (%d then %" PRIu32
                                   ")",
                                i, c->adj[e - 1], j);
            c->adj[e] = (int)j;
        }
    }
    if (get64(x + 8 * (size_t)L->n) != L->m)
        return bin_fail(r, "row offsets end at %" PRIu64 ", not at the edge count %" PRIu64,
                        get64(x + 8 * (size_t)L->n), L->m);
    c->xadj[L->n] = (int64_t)L->m;
    return 0;
}

/* m values (u32 if narrow, else f64) at p into v; what names them. */
static int bin_values(struct reader *r, const unsigned char *p, uint64_t m, int narrow,
                      double *v, const char *what)
{
    double total = 0;
    for (uint64_t e = 0; e < m; e++) {
        double x;
        if (narrow) {
            x = (double)get32(p + 4 * e);
        } else {
            uint64_t u = get64(p + 8 * e);
            memcpy(&x, &u, 8);
            if (!isfinite(x) || x < 0)
                return bin_fail(r, "entry %" PRIu64 ": %s %g is not a finite non-negative "
                                   "number",
                                e, what, x);
            x = x == 0 ? 0.0 : x; /* no -0 */
        }
        v[e] = x;
        total += x;
    }
    if (total > TOPOMAP_MAX_TOTAL)
        return bin_fail(r, "total %s pass %g, the limit of a profile", what, TOPOMAP_MAX_TOTAL);
    return 0;
}

/* The CSR of the file's data d, laid out as L, checked. */
static topomap_profile_t *bin_profile(struct reader *r, const unsigned char *d,
                                      const struct bin_layout *L)
{
    struct csr c;
    size_t m = (size_t)L->m ? (size_t)L->m : 1;
    c.xadj = malloc(((size_t)L->n + 1) * sizeof *c.xadj);
    c.adj = malloc(m * sizeof *c.adj);
    c.bytes = malloc(m * sizeof *c.bytes);
    c.msgs = L->flags & BIN_MSGS ? malloc(m * sizeof *c.msgs) : NULL;
    if (!c.xadj || !c.adj || !c.bytes || ((L->flags & BIN_MSGS) && !c.msgs)) {
        topomap_fail(r->err, r->errlen, ENOMEM, "%s: out of memory for %d ranks and %" PRIu64
                                                " entries",
                     r->path, L->n, L->m);
        goto fail;
    }
    if (bin_rows(r, d, L, &c) < 0 ||
        bin_values(r, d + L->bytes, L->m, !!(L->flags & BIN_BYTES32), c.bytes, "bytes") < 0 ||
        (c.msgs &&
         bin_values(r, d + L->msgs, L->m, !!(L->flags & BIN_MSGS32), c.msgs, "messages") < 0))
        goto fail;
    for (uint64_t e = 0; e < L->m; e++)
        if (!(c.bytes[e] > 0) && !(c.msgs && c.msgs[e] > 0))
            if (bin_fail(r, "entry %" PRIu64 " has neither bytes nor messages", e) < 0)
                goto fail;
    topomap_profile_t *p = topomap_profile_from_csr(L->n, c.msgs != NULL, &c);
    if (!p)
        topomap_fail(r->err, r->errlen, ENOMEM, "%s: out of memory for %d ranks", r->path,
                     L->n);
    return p;
fail:
    free(c.xadj);
    free(c.adj);
    free(c.bytes);
    free(c.msgs);
    return NULL;
}

/* The profile of the whole file, image d of len bytes: its header, size
 * and checksum checked, then its metadata into r->meta and its rows. */
static topomap_profile_t *bin_image(struct reader *r, const unsigned char *d, size_t len)
{
    struct bin_layout L = {0};
    if (len < 8 || memcmp(d, topomap_bin_magic, 8)) {
        bin_fail(r, "not a topomap binary profile (no \\x89TMPROF magic)");
        return NULL;
    }
    if (len < BIN_HEADER) {
        bin_fail(r, "truncated: %zu bytes, less than the %d-byte header", len, BIN_HEADER);
        return NULL;
    }
    if (bin_header(r, d, &L) < 0)
        return NULL;
    if (len != L.size) {
        if (len < L.size)
            bin_fail(r, "truncated: %zu of the %" PRIu64 " bytes its header announces", len,
                     L.size);
        else
            bin_fail(r, "data after the end of the profile (%" PRIu64 " bytes)", L.size);
        return NULL;
    }
    uint32_t want = get32(d + L.trailer);
    uint32_t crc = (uint32_t)crc_of(crc32(0, Z_NULL, 0), d, (size_t)L.trailer);
    if (crc != want || get32(d + L.trailer + 4)) {
        bin_fail(r, "checksum mismatch (CRC-32 %08" PRIx32 ", the file says %08" PRIx32
                    "): the file is corrupt",
                 crc, want);
        return NULL;
    }
    if (bin_meta(r, (const char *)d + L.meta, (size_t)L.mlen) < 0)
        return NULL;
    return bin_profile(r, d, &L);
}

topomap_profile_t *topomap_profile_read_binary(struct reader *r)
{
    size_t got;
    const unsigned char *d =
        (const unsigned char *)topomap_lines_peek(&r->l, BIN_HEADER, &got, r->err, r->errlen);
    if (!d)
        return NULL;
    /* The size the header announces (+ 1 to see data past it), read at once. */
    struct bin_layout L = {0};
    char quiet[8];
    struct reader hr = *r;
    hr.err = quiet;
    hr.errlen = sizeof quiet;
    if (got == BIN_HEADER && bin_header(&hr, d, &L) == 0 && L.size < SIZE_MAX &&
        !(d = (const unsigned char *)topomap_lines_peek(&r->l, (size_t)L.size + 1, &got, r->err,
                                                        r->errlen)))
        return NULL;
    return bin_image(r, d, got);
}

topomap_profile_t *topomap_profile_read_binary_file(struct reader *r, const char *path, int *handled)
{
    *handled = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    unsigned char head[8];
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 8 ||
        pread(fd, head, 8, 0) != 8 || memcmp(head, topomap_bin_magic, 8) ||
        (uint64_t)st.st_size > SIZE_MAX) {
        if (fd >= 0)
            close(fd);
        return NULL; /* not for here: the stream reader words any error */
    }
    /* One read, not mmap(): a file cut short while mapped would kill the
     * process with SIGBUS; read, it is only "truncated". */
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *d = malloc(size);
    if (!d) {
        close(fd);
        return NULL; /* the stream reader says it, or gets by */
    }
    while (got < size) {
        ssize_t k = read(fd, d + got, size - got > (1u << 30) ? 1u << 30 : size - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    *handled = 1;
    topomap_profile_t *p = bin_image(r, d, got);
    free(d);
    return p;
}
