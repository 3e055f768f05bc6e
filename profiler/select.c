/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler: pick the build that matches the program's MPI.
 *
 * The wrappers must be compiled against the MPI library the program uses
 * (handles are pointers in Open MPI, integers in MPICH), so there is one
 * build per library, and something has to choose. A launcher (the SPANK
 * plugin, a user's LD_PRELOAD) cannot easily tell which MPI a program uses;
 * the program itself can, once the dynamic loader has mapped its libraries:
 *
 *  - libtopomap-profiler.so (the dispatcher, no MPI in it, built from this
 *    file alone) looks, in its constructor, for a symbol only Open MPI
 *    defines (ompi_mpi_comm_world) or one only MPICH and its derivatives
 *    define (MPII_Version_string, MPIR_Err_create_code). Not an MPI program (a shell, srun's
 *    helpers, the program's children like hostname): nothing happens. An MPI
 *    program: it re-executes itself (/proc/self/exe, same arguments, same
 *    pid) with the dispatcher's LD_PRELOAD entry replaced by the matching
 *    build, libtopomap-profiler-openmpi.so or -mpich.so from the same
 *    directory. Costs one exec per MPI process, before main().
 *  - a flavoured build restores the original LD_PRELOAD for the program's
 *    own children, and if it finds itself in a program of the other MPI (a
 *    user preloaded the wrong one) re-executes likewise with the right one.
 *
 * If the matching build is missing or the exec fails, the program runs
 * unprofiled with one line on stderr: a profiler must never stop the job.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TP_DISPATCHER
#define TP_EXPORT __attribute__((visibility("default")))
void tp_select(const char *self_flavour);
#else
#include "profiler.h"
#endif

#define TP_ENV_ORIG "TOPOMAP_PROFILE_PRELOAD_ORIG"
#define TP_ENV_REEXEC "TOPOMAP_PROFILE_REEXEC"

/* The MPI the process has loaded: "openmpi", "mpich" or NULL. self (a
 * flavoured build, which links its own MPI) only asks about the other one. */
static const char *tp_process_mpi(const char *self)
{
    int ompi = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world") != NULL;
    int mpich = dlsym(RTLD_DEFAULT, "MPII_Version_string") != NULL ||
                dlsym(RTLD_DEFAULT, "MPIR_Err_create_code") != NULL;
    if (self && !strcmp(self, "openmpi"))
        return mpich ? "mpich" : "openmpi";
    if (self && !strcmp(self, "mpich"))
        return ompi ? "openmpi" : "mpich";
    return ompi ? "openmpi" : mpich ? "mpich" : NULL;
}

/* The command line of this process, as a NULL-terminated vector (malloc'ed,
 * one block); NULL on failure. */
static char **tp_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    close(fd);
    if (!buf || !len) {
        free(buf);
        return NULL;
    }
    size_t argc = 0;
    for (size_t i = 0; i < len; i++)
        argc += buf[i] == 0;
    if (buf[len - 1]) /* no final NUL: count the last piece */
        argc++;
    char **argv = malloc((argc + 1) * sizeof *argv + len + 1);
    if (!argv) {
        free(buf);
        return NULL;
    }
    char *s = (char *)(argv + argc + 1);
    memcpy(s, buf, len);
    s[len] = 0;
    free(buf);
    size_t a = 0;
    for (size_t i = 0; i < len && a < argc; a++) {
        argv[a] = s + i;
        i += strlen(s + i) + 1;
    }
    argv[a] = NULL;
    return argv;
}

/* LD_PRELOAD with the entry naming this library (by path, or by file name)
 * replaced by `want`; prepended when no entry names it. Entries are separated
 * by spaces or colons (ld.so accepts both). malloc'ed, NULL on failure. */
static char *tp_new_preload(const char *cur, const char *self_path, const char *want)
{
    const char *self_base = strrchr(self_path, '/');
    self_base = self_base ? self_base + 1 : self_path;
    size_t n = (cur ? strlen(cur) : 0) + strlen(want) + 2;
    char *out = malloc(n), *o = out;
    int replaced = 0;
    if (!out)
        return NULL;
    *o = 0;
    for (const char *p = cur ? cur : ""; *p; p += *p != 0) {
        size_t k = strcspn(p, " :");
        const char *piece = p, *b;
        size_t plen = k;
        if (!k)
            goto next;
        b = memrchr(p, '/', k);
        b = b ? b + 1 : p;
        if ((k == strlen(self_path) && !memcmp(p, self_path, k)) ||
            ((size_t)(p + k - b) == strlen(self_base) && !memcmp(b, self_base, strlen(self_base)))) {
            if (replaced) /* a second copy of this library: drop it */
                goto next;
            piece = want;
            plen = strlen(want);
            replaced = 1;
        }
        if (o != out)
            *o++ = ':';
        memcpy(o, piece, plen);
        o += plen;
        *o = 0;
    next:
        p += k;
    }
    if (!replaced) {
        size_t cl = strlen(out);
        memmove(out + strlen(want) + (cl ? 1 : 0), out, cl + 1);
        memcpy(out, want, strlen(want));
        if (cl)
            out[strlen(want)] = ':';
    }
    return out;
}

void tp_select(const char *self_flavour)
{
    const char *orig = getenv(TP_ENV_ORIG);
    const char *want = tp_process_mpi(self_flavour);
    if (self_flavour && getenv(TP_ENV_REEXEC)) {
        /* Re-executed by a dispatcher: children get the original LD_PRELOAD. */
        if (orig)
            setenv("LD_PRELOAD", orig, 1);
        unsetenv(TP_ENV_ORIG);
        unsetenv(TP_ENV_REEXEC);
        if (want && strcmp(want, self_flavour))
            fprintf(stderr, "topomap-profiler: the %s build was chosen for a %s program\n",
                    self_flavour, want);
        return;
    }
    if (!want || (self_flavour && !strcmp(want, self_flavour)))
        return;
    if (getenv(TP_ENV_REEXEC)) /* a re-executed program that is not the expected one */
        return;

    Dl_info info;
    if (!dladdr((void *)tp_select, &info) || !info.dli_fname || !strchr(info.dli_fname, '/')) {
        fprintf(stderr, "topomap-profiler: cannot locate this library: not profiling\n");
        return;
    }
    char path[PATH_MAX];
    const char *slash = strrchr(info.dli_fname, '/');
    snprintf(path, sizeof path, "%.*s/libtopomap-profiler-%s.so",
             (int)(slash - info.dli_fname), info.dli_fname, want);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "topomap-profiler: no %s build (%s: %s): not profiling\n", want, path,
                strerror(errno));
        return;
    }
    const char *cur = getenv("LD_PRELOAD");
    char *pre = tp_new_preload(cur, info.dli_fname, path);
    char **argv = tp_cmdline();
    if (!pre || !argv) {
        fprintf(stderr, "topomap-profiler: cannot re-execute with the %s build: not profiling\n",
                want);
        free(pre);
        free(argv);
        return;
    }
    char *saved = cur ? strdup(cur) : NULL;
    setenv(TP_ENV_ORIG, cur ? cur : "", 1);
    setenv(TP_ENV_REEXEC, "1", 1);
    setenv("LD_PRELOAD", pre, 1);
    execv("/proc/self/exe", argv);
    /* Still here: run unprofiled, environment as it was. */
    fprintf(stderr, "topomap-profiler: cannot re-execute with the %s build (%s): not profiling\n",
            want, strerror(errno));
    if (saved)
        setenv("LD_PRELOAD", saved, 1);
    else
        unsetenv("LD_PRELOAD");
    unsetenv(TP_ENV_ORIG);
    unsetenv(TP_ENV_REEXEC);
    free(saved);
    free(pre);
    free(argv);
}

#ifdef TP_DISPATCHER
__attribute__((constructor)) static void tp_dispatch(void)
{
    tp_select(NULL);
}
#endif
