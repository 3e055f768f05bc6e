/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers shared by the Slurm-free files of the plugin (private: not
 * part of policy.h). */
#ifndef TOPOMAP_SPANK_COMMON_H
#define TOPOMAP_SPANK_COMMON_H

#include <stddef.h>

#include "policy.h"

/** Replace the control characters of message @p s (CR, ESC, ...: from a
 *  file, the environment or the command line, they could rewrite the user's
 *  terminal line) by '?', in place, with libtopomap's topomap_printable();
 *  returns @p s (NULL passes through). */
char *tmsp_clean(char *s);
/** Write a message into @p err (@p errlen bytes, control characters made '?',
 *  see tmsp_clean), set errno to @p e; returns -1. */
int tmsp_fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Append to a "; "-joined one-line message in @p err (control characters
 *  made '?'). */
void tmsp_append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Strict non-negative decimal integer up to INT_MAX into *@p out; 0 or -1. */
int tmsp_count(const char *s, long *out);
/** strdup that passes NULL through. */
char *tmsp_strdup(const char *s);
/** Replace the string *@p dst by a copy of @p s (NULL allowed). */
void tmsp_set(char **dst, const char *s);
/** Monotonic clock in seconds. */
double tmsp_now(void);
/**
 * The time_limit to give topomap_map() in a decision that must end by
 * @p deadline (a tmsp_now() value): nine tenths of what is left, the
 * last tenth for judging and writing the mapping (linear in the profile, like
 * its loading); at least a millisecond (`auto` then answers with block). The
 * plugin's time_limit and `topomap map --time-limit` both count from the
 * start (the step's, the process's), loading included, and both map with it.
 */
double tmsp_map_time_limit(double deadline);
/**
 * A thread count as plugstack.conf's threads= and `topomap --threads` take
 * it: "auto" (*@p out = 0) or an integer from 1 to TOPOMAP_MAX_THREADS.
 * @return 0, or -1 (nothing set).
 */
int tmsp_threads_parse(const char *s, int *out);
/** The most threads "auto" gives (doc/topomap-spank.8, threads=). */
#define TMSP_AUTO_THREADS_MAX 8
/**
 * What "auto" means here: half the CPUs this process may run on that are
 * idle: the smaller of its affinity mask (on a batch node srun's cpuset, the
 * job's cores there; on a login node usually all of them) and the CPUs
 * online less the 1-minute load average, at least 1 and at most
 * TMSP_AUTO_THREADS_MAX. Idle OpenMP threads spin while they wait, so on a
 * busy node more threads than idle CPUs cost far more than they gain
 * (doc/benchmarks.md#on-a-shared-node). The threads work for the
 * decision alone (at most its time_limit), and the answer without a time
 * limit is the same for any count (doc/algorithms.md#threads).
 */
int tmsp_auto_threads(void);
/** The rule of tmsp_auto_threads(): @p mask CPUs in the affinity mask,
 * @p online CPUs online, @p load the load average. */
int tmsp_auto_threads_for(long mask, long online, double load);
/** A non-negative int at *@p p (advanced past it), -1 if none or past INT_MAX. */
long tmsp_uint(const char **p);
/** The value of @p name from @p env, NULL when unset or empty. */
const char *tmsp_env(topomap_getenv_fn env, void *arg, const char *name);
/** "off, block, cyclic, ...": the values --topomap takes, into @p buf; returns it. */
const char *tmsp_algo_list(char *buf, size_t len);
/** qsort comparison of ints. */
int tmsp_cmp_int(const void *a, const void *b);

/**
 * The launcher that shell script @p text names (launcher.c): a word that is a
 * launcher's name (torchrun, deepspeed, accelerate launch) or python's -m
 * module, anywhere but in a comment (from a word starting with '#' to the
 * line's end). The script is not parsed: a name in a string or a here-document
 * counts too. @return a static name, or NULL.
 */
const char *tmsp_launcher_in_text(const char *text);
/** The most bytes of a script file tmsp_script_read() reads. */
#define TMSP_SCRIPT_MAX (64 * 1024)
/**
 * The text of the script file @p path (launcher_script.c): a name without '/'
 * is looked up along PATH, then in the current directory. Only a regular file
 * is opened (O_NONBLOCK: a FIFO or a device never blocks srun), and only its
 * first TMSP_SCRIPT_MAX bytes are read. @return a NUL-terminated malloc'ed
 * copy (caller frees), or NULL when the file is not a readable regular file
 * or holds a NUL byte (a binary).
 */
char *tmsp_script_read(const char *path);

/** A growing string; oom is set (and printing stops) when memory runs out. */
struct topomap_sbuf {
    char *s;
    size_t len, cap;
    int oom;
};
void tmsp_sb_printf(struct topomap_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
