/* SPDX-License-Identifier: BSD-3-Clause */
/* SipHash-2-4 (J.-P. Aumasson and D. J. Bernstein, "SipHash: a fast
 * short-input PRF", INDOCRYPT 2012, section 2) and the per-process key of the
 * name tables. Names of nodes and switches come from files a user may write
 * (a topology.conf, a YAML description, a hostlist): with an unkeyed hash,
 * names chosen to share a bucket turn the O(n) load into O(n^2) probes. With
 * a secret random key per process, which names collide cannot be predicted.
 * Nothing depends on the key but the position of a name in a table: lookups
 * return node indices, never table order. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "internal.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound (the paper's figure 2). */
#define SIPROUND(v0, v1, v2, v3)                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = ROTL(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = ROTL(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = ROTL(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = ROTL(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = ROTL(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = ROTL(v2, 32);                                                                         \
    } while (0)

/* Little-endian 64-bit word of 8 bytes, whatever the host's byte order. */
static uint64_t le64(const unsigned char *p)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = (w << 8) | p[i];
    return w;
}

uint64_t topomap_siphash24(const unsigned char key[16], const void *data, size_t len)
{
    const unsigned char *m = data;
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    /* Initialisation: the constants spell "somepseudorandomlygeneratedbytes". */
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    size_t full = len & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) { /* compression: 2 rounds a word */
        uint64_t w = le64(m + i);
        v3 ^= w;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= w;
    }
    /* The last word: the 0-7 bytes left, the length mod 256 in the top byte. */
    uint64_t b = (uint64_t)(len & 0xff) << 56;
    for (size_t i = 0; i < (len & 7); i++)
        b |= (uint64_t)m[full + i] << (8 * i);
    v3 ^= b;
    SIPROUND(v0, v1, v2, v3);
    SIPROUND(v0, v1, v2, v3);
    v0 ^= b;
    v2 ^= 0xff; /* finalisation: 4 rounds */
    for (int r = 0; r < 4; r++)
        SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

static unsigned char name_key[16];

/* The kernel's random bytes; a process where neither getrandom nor
 * /dev/urandom works gets a key from the clock, the pid and an address
 * (ASLR): weaker, but never a fixed key everyone knows. */
static void key_fill(unsigned char *k, size_t len)
{
    size_t got = 0;
#if defined(__linux__)
    while (got < len) {
        ssize_t r = getrandom(k + got, len - got, GRND_NONBLOCK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
#endif
    if (got < len) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        while (fd >= 0 && got < len) {
            ssize_t r = read(fd, k + got, len - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (fd >= 0)
            close(fd);
    }
    if (got < len) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s[2] = {topomap_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30)),
                         topomap_mix64((uint64_t)getpid() ^ (uint64_t)(uintptr_t)&name_key)};
        memcpy(k, s, len < sizeof s ? len : sizeof s);
    }
}

/* Drawn once when the library is loaded, before any thread of the process
 * can build a table: every table of the process uses the same key. */
__attribute__((constructor)) static void name_key_init(void)
{
    int saved = errno;
    key_fill(name_key, sizeof name_key);
    errno = saved;
}

uint64_t topomap_name_hash(const char *s)
{
    return topomap_siphash24(name_key, s, strlen(s));
}

void topomap_name_key_set(const unsigned char key[16])
{
    memcpy(name_key, key, sizeof name_key);
}
