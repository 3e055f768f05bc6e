/* SPDX-License-Identifier: BSD-3-Clause */
/* Input files. Every reader of the library opens its files here, so that:
 *  - "-" is standard input, and whatever is read goes through zlib's gzread,
 *    which passes plain files through unchanged and decompresses gzip data
 *    (a "PROFILE.txt.gz", or compressed data piped in); the stream is a
 *    glibc fopencookie() over the gzFile, and corrupt or truncated gzip data
 *    is a read error with errno EBADMSG;
 *  - any other path must be a regular file: a FIFO would block the reader
 *    forever (the open itself blocks until a writer appears), /dev/zero
 *    never ends, a terminal waits for a user; they are refused from their
 *    stat() before anything is opened or read, and the opened file is
 *    checked again;
 *  - whole files read into memory (topologies, hwloc XML) are capped, from
 *    their size before any allocation and again while reading (a file may
 *    grow);
 *  - a NUL byte is an error naming its line: C strings would silently drop
 *    everything after it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"
#include "input.h"

static ssize_t gz_read(void *cookie, char *buf, size_t size)
{
    unsigned chunk = size > (1u << 30) ? 1u << 30 : (unsigned)size;
    int n = gzread((gzFile)cookie, buf, chunk), e = Z_OK;
    if (n <= 0)
        gzerror((gzFile)cookie, &e);
    /* Z_BUF_ERROR at the end: the input stopped inside a gzip stream. */
    if (n < 0 || (n == 0 && e == Z_BUF_ERROR)) {
        errno = e == Z_ERRNO ? (errno ? errno : EIO) : EBADMSG;
        return -1;
    }
    return n;
}

static int gz_close(void *cookie)
{
    return gzclose_r((gzFile)cookie) == Z_OK ? 0 : -1;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static int not_regular(const char *path, mode_t m, char *err, size_t errlen)
{
    return topomap_fail(err, errlen, S_ISDIR(m) ? EISDIR : EINVAL,
                        "%s: is %s, not a regular file", path, file_kind(m));
}

int topomap_input_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!path)
        return topomap_fail(err, errlen, EINVAL, "no file name given");
    if (stat(path, &st) < 0) {
        int e = errno;
        return topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
    }
    return S_ISREG(st.st_mode) ? 0 : not_regular(path, st.st_mode, err, errlen);
}

/* A descriptor of the regular file path, opened without blocking; -1 with
 * errno and the message. */
static int open_regular(const char *path, char *err, size_t errlen)
{
    if (topomap_input_check(path, err, errlen) < 0)
        return -1;
    /* O_NONBLOCK: should the path have become a FIFO since the stat(), the
     * open does not wait for a writer; the fstat() below refuses it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, st.st_mode, err, errlen);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *topomap_input_open(const char *path, char *err, size_t errlen)
{
    if (!path) {
        topomap_fail(err, errlen, EINVAL, "no file name given");
        return NULL;
    }
    int stdin_input = !strcmp(path, "-");
    const char *shown = stdin_input ? "standard input" : path;
    int fd;
    if (stdin_input) {
        if ((fd = dup(STDIN_FILENO)) < 0) {
            int e = errno;
            topomap_fail(err, errlen, e, "%s: %s", shown, strerror(e));
            return NULL;
        }
    } else if ((fd = open_regular(path, err, errlen)) < 0) {
        return NULL;
    }
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        topomap_fail(err, errlen, ENOMEM, "%s: out of memory", shown);
        return NULL;
    }
    cookie_io_functions_t io = {gz_read, NULL, NULL, gz_close};
    FILE *f = fopencookie(gz, "r", io);
    if (!f) {
        int e = errno;
        gzclose_r(gz);
        topomap_fail(err, errlen, e, "%s: %s", shown, strerror(e));
    }
    return f;
}

/* The 1-based line holding byte off of text. */
static long line_at(const char *text, size_t off)
{
    long line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

char *topomap_input_slurp(const char *path, long max, const char *what, size_t *len, char *err,
                          size_t errlen)
{
    int fd = open_regular(path, err, errlen);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0) {
            int e = errno;
            close(fd);
            topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
        }
        return NULL;
    }
    struct stat st = {0};
    if (fstat(fileno(f), &st) == 0 && st.st_size > max) {
        fclose(f);
        topomap_fail(err, errlen, EFBIG, "%s: %lld bytes, over the %ld allowed for %s", path,
                     (long long)st.st_size, max, what);
        return NULL;
    }
    /* Room for the size seen plus one byte, so that the end is seen at once;
     * a file that grows meanwhile is read on up to the cap. */
    size_t cap = (size_t)(st.st_size > 0 ? st.st_size : 0) + 2, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (n > (size_t)max)
                break;
            size_t nc = 2 * cap > (size_t)max + 2 ? (size_t)max + 2 : 2 * cap;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (!buf) {
        topomap_fail(err, errlen, ENOMEM, "%s: out of memory reading %zu bytes", path, n);
        return NULL;
    }
    if (e) {
        free(buf);
        topomap_fail(err, errlen, e, "%s: %s", path, strerror(e));
        return NULL;
    }
    if (n > (size_t)max) {
        free(buf);
        topomap_fail(err, errlen, EFBIG, "%s: more than the %ld bytes allowed for %s", path, max,
                     what);
        return NULL;
    }
    buf[n] = 0;
    const char *nul = memchr(buf, 0, n);
    if (nul) {
        long line = line_at(buf, (size_t)(nul - buf));
        free(buf);
        topomap_fail(err, errlen, EINVAL, "%s:%ld: NUL byte in line (not a text file?)", path,
                     line);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Read more of l->f into l->buf, keeping the bytes not yet returned
 * (moved to the front) and growing the buffer when a line fills it. 0, or -1
 * with errno ENOMEM. A read error or the end of the stream sets l->eof. */
static int lines_fill(struct topomap_lines *l)
{
    size_t keep = l->end - l->pos;
    if (l->pos) {
        memmove(l->buf, l->buf + l->pos, keep);
        if (l->nul != l->cap)
            l->nul -= l->pos;
        l->pos = 0;
        l->end = keep;
    }
    /* One byte always free after the data for the terminating NUL. */
    if (l->cap - keep < 4096) {
        size_t ncap = l->cap ? 2 * l->cap : (size_t)1 << 20;
        char *nb = realloc(l->buf, ncap);
        if (!nb) {
            errno = ENOMEM;
            return -1;
        }
        if (l->nul == l->cap)
            l->nul = ncap;
        l->buf = nb;
        l->cap = ncap;
    }
    errno = 0;
    size_t got = fread(l->buf + keep, 1, l->cap - keep - 1, l->f);
    if (got < l->cap - keep - 1) {
        l->eof = 1;
        if (ferror(l->f))
            l->rerr = errno ? errno : EIO;
    }
    const char *z = l->nul == l->cap ? memchr(l->buf + keep, 0, got) : NULL;
    if (z)
        l->nul = (size_t)(z - l->buf);
    l->end = keep + got;
    return 0;
}

const char *topomap_lines_peek(struct topomap_lines *l, size_t want, size_t *got, char *err,
                               size_t errlen)
{
    while (!l->eof && l->end - l->pos < want) {
        /* Doubling the buffer while the data lasts (realloc moves pages, not
         * bytes, at these sizes): a header may claim more than there is. */
        size_t ncap = l->cap ? 2 * l->cap : (size_t)1 << 20;
        if (l->cap - (l->end - l->pos) < want - (l->end - l->pos) + 1) {
            char *nb = realloc(l->buf, ncap);
            if (!nb) {
                topomap_fail(err, errlen, ENOMEM, "%s: out of memory reading %zu bytes", l->path,
                             want);
                return NULL;
            }
            if (l->nul == l->cap)
                l->nul = ncap;
            l->buf = nb;
            l->cap = ncap;
        }
        if (lines_fill(l) < 0) {
            topomap_fail(err, errlen, ENOMEM, "%s: out of memory", l->path);
            return NULL;
        }
    }
    if (l->eof && l->rerr && l->end - l->pos < want) {
        int e = l->rerr;
        topomap_fail(err, errlen, e, "%s: %s", l->path,
                     e == EBADMSG ? "corrupt or truncated gzip data" : strerror(e));
        return NULL;
    }
    *got = l->end - l->pos < want ? l->end - l->pos : want;
    return l->buf ? l->buf + l->pos : "";
}

int topomap_lines_next(struct topomap_lines *l, char *err, size_t errlen)
{
    char *nl;
    for (;;) {
        nl = l->buf ? memchr(l->buf + l->pos, '\n', l->end - l->pos) : NULL;
        if (nl || (l->eof && l->end > l->pos))
            break; /* a line, or the last one without its newline */
        if (l->eof) {
            int e = l->rerr;
            if (!e)
                return 0;
            if (e == EBADMSG) /* from gz_read */
                return topomap_fail(err, errlen, e, "%s:%ld: corrupt or truncated gzip data",
                                    l->path, l->lineno + 1);
            return topomap_fail(err, errlen, e, "%s:%ld: read error: %s", l->path,
                                l->lineno + 1, strerror(e));
        }
        if (lines_fill(l) < 0)
            return topomap_fail(err, errlen, ENOMEM, "%s:%ld: out of memory", l->path,
                                l->lineno + 1);
    }
    size_t start = l->pos, stop = nl ? (size_t)(nl - l->buf) : l->end;
    l->pos = nl ? stop + 1 : stop;
    l->lineno++;
    l->line = l->buf + start;
    size_t len = stop - start;
    while (len > 0 && l->line[len - 1] == '\r')
        len--;
    l->line[len] = 0;
    l->len = len;
    if (l->nul < stop)
        return topomap_fail(err, errlen, EINVAL, "%s:%ld: NUL byte in line (not a text file?)",
                            l->path, l->lineno);
    return 1;
}

void topomap_lines_close(struct topomap_lines *l)
{
    free(l->buf);
    l->buf = l->line = NULL;
    l->cap = l->pos = l->end = 0;
    if (l->f)
        fclose(l->f);
    l->f = NULL;
}
