/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the script file a step runs (srun ./train.sh, srun bash train.sh),
 * for launcher.c to look for a launcher in it. srun waits for this, so it
 * never blocks: only regular files are opened (a FIFO, a device or a socket
 * is left alone, before open() and again after it), and at most
 * TMSP_SCRIPT_MAX bytes are read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* @p name with no '/' the way execvp and srun find it: the first executable
 * regular file along PATH (an empty entry is the current directory), else
 * the current directory (srun looks there last). Into @p buf. */
static const char *lookup(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    struct stat st;
    if (strchr(name, '/'))
        return name;
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        int dlen = end ? (int)(end - p) : (int)strlen(p);
        int n = dlen ? snprintf(buf, len, "%.*s/%s", dlen, p, name)
                     : snprintf(buf, len, "%s", name);
        if (n > 0 && (size_t)n < len && !stat(buf, &st) && S_ISREG(st.st_mode) &&
            !access(buf, X_OK))
            return buf;
        if (!end)
            break;
        p = end + 1;
    }
    return name;
}

char *tmsp_script_read(const char *path)
{
    char where[PATH_MAX];
    struct stat st, fst;
    if (!path || !*path)
        return NULL;
    path = lookup(path, where, sizeof where);
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    /* The file may have been replaced between stat() and open(). */
    if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode)) {
        close(fd);
        return NULL;
    }
    char *text = malloc(TMSP_SCRIPT_MAX + 1);
    size_t len = 0;
    int bad = !text;
    while (!bad && len < TMSP_SCRIPT_MAX) {
        ssize_t r = read(fd, text + len, TMSP_SCRIPT_MAX - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            bad = 1;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    /* A NUL byte: not a text file (an executable, an archive). */
    if (bad || memchr(text, 0, len)) {
        free(text);
        return NULL;
    }
    text[len] = 0;
    return text;
}
