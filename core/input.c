/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening an input file as a stdio stream, so that every reader takes
 * gzip-compressed files and standard input the same way: "-" is standard
 * input, and whatever is read goes through zlib's gzread, which passes plain
 * files through unchanged and decompresses gzip data (a "PROFILE.txt.gz", or
 * compressed data piped in). The stream is a glibc fopencookie() over the
 * gzFile. Corrupt or truncated gzip data is a read error with errno
 * EBADMSG. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

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

FILE *topomap_input_open(const char *path, char *err, size_t errlen)
{
    int stdin_input = !strcmp(path, "-");
    const char *shown = stdin_input ? "standard input" : path;
    int fd = stdin_input ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        topomap_fail(err, errlen, e, "%s: %s", shown, strerror(e));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        topomap_fail(err, errlen, EISDIR, "%s: %s", shown, strerror(EISDIR));
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
