/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to libtopomap: reading input files (input.c), shared by the
 * profile, topology and mapping readers. */
#ifndef TOPOMAP_INPUT_H
#define TOPOMAP_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* input.c: reading input files (see there why). */
/* 0 if path names a regular file, else -1 with errno and "PATH: is a FIFO
 * (named pipe), not a regular file" (EISDIR for a directory, else EINVAL;
 * the errno of a failed stat). */
int topomap_input_check(const char *path, char *err, size_t errlen);
/* Open @path for reading: "-" is standard input (duplicated: fclose leaves
 * it open), anything else a regular file, opened without ever blocking on a
 * FIFO or device; gzip data is decompressed. NULL with errno and "PATH:
 * reason" in @err on failure. Caller fcloses. */
FILE *topomap_input_open(const char *path, char *err, size_t errlen);
/* A whole regular file of at most max bytes, NUL-terminated, its size in
 * *len; NULL with errno EFBIG ("PATH: ... over the MAX allowed for WHAT"),
 * EINVAL ("PATH:LINE: NUL byte in line"), ENOMEM, or the open's. Caller frees. */
char *topomap_input_slurp(const char *path, long max, const char *what, size_t *len, char *err,
                          size_t errlen);
/* Lines of an opened file: set f and path (zero the rest), then call
 * topomap_lines_next() until it returns 0 (end of file) or -1 (errno and
 * "PATH:LINE: problem": NUL byte, read error, out of memory); on 1, line
 * holds the line without its newline and trailing CRs (len bytes) and lineno
 * its 1-based number (line points into a buffer of the reader, valid until
 * the next call, and may be modified in place). topomap_lines_close() frees
 * the buffer and closes f. */
struct topomap_lines {
    FILE *f;
    const char *path;
    char *line;
    size_t len;
    long lineno;
    /* The reader's buffer: bytes [pos, end) not yet returned, the first NUL
     * byte at nul (cap: none), the stream's end or error seen (rerr: its
     * errno). Read in large blocks: line-by-line stdio was the bottleneck. */
    char *buf;
    size_t cap, pos, end, nul;
    int eof, rerr;
};
int topomap_lines_next(struct topomap_lines *l, char *err, size_t errlen);
/* The next bytes of l without consuming them, for a reader of binary data:
 * reads until want bytes are buffered or the stream ends, sets *got to what
 * is there (less than want only at the end) and returns them (valid until the
 * next call). NULL with errno and "PATH: problem" when memory runs out or a
 * read error (corrupt gzip data) comes before want bytes. */
const char *topomap_lines_peek(struct topomap_lines *l, size_t want, size_t *got, char *err,
                               size_t errlen);
void topomap_lines_close(struct topomap_lines *l);

#endif
