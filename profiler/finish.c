/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-profiler at MPI_Finalize: agree on what can be written, move
 * receiver-counted collective traffic to its senders (peers.c), sum the
 * totals, and write the profile(s): rank 0 names the file, writes its header
 * and creates it empty under a temporary name; every rank encodes its own row
 * (format.c) and writes it in place (write.c); rank 0 renames the file when
 * every rank succeeded, so readers see a complete file or none.
 * TOPOMAP_PROFILE_FORMAT=binary asks for the binary format. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profiler.h"

#define TP_VERSION "0.1.0"

static int tp_done;

/* Characters kept in names and header values; others become '_' (names) so
 * that a file name or a header line can never be broken by them. */
static void tp_sanitize(char *s, int for_name)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (for_name ? !(isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+')
                     : (c < 0x20 || c == 0x7f))
            *s = for_name ? '_' : ' ';
    }
}

static void tp_app_name(char *buf, size_t len)
{
    const char *env = getenv("TOPOMAP_PROFILE_APP");
    char exe[PATH_MAX];
    if (env && *env) {
        snprintf(buf, len, "%.200s", env);
    } else {
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k > 0) {
            exe[k] = 0;
            const char *b = strrchr(exe, '/');
            snprintf(buf, len, "%.200s", b ? b + 1 : exe);
        } else {
            snprintf(buf, len, "%s", program_invocation_short_name);
        }
    }
    if (!*buf)
        snprintf(buf, len, "unknown");
    tp_sanitize(buf, 1);
}

/* The first line of MPI_Get_library_version, tabs and controls as spaces. */
static void tp_mpi_library(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int k = 0;
    if (PMPI_Get_library_version(v, &k) != MPI_SUCCESS)
        snprintf(v, sizeof v, "unknown");
    v[sizeof v - 1] = 0;
    char *nl = strchr(v, '\n');
    if (nl)
        *nl = 0;
    tp_sanitize(v, 0);
    size_t m = strlen(v);
    while (m && v[m - 1] == ' ')
        v[--m] = 0;
    snprintf(buf, len, "%s", v);
}

struct tp_names {
    char app[256], date[64], lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
};

struct tp_file {
    char path[PATH_MAX];
    char tmp[PATH_MAX + 32];
};

/* Set o->path; a path too long for PATH_MAX is refused (empty path). */
static void tp_setpath(struct tp_file *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void tp_setpath(struct tp_file *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->path, sizeof o->path, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof o->path) {
        tp_warn("output path longer than %d bytes: no profile written", PATH_MAX - 1);
        o->path[0] = 0;
    }
}

/* Rank 0 creates the empty temporary file; every rank learns its name (an
 * empty name: it could not be created) and the format in one broadcast.
 * 1 if it exists. */
static int tp_create(MPI_Comm c, struct tp_file *o, int *binary)
{
    struct {
        int binary;
        char tmp[sizeof o->tmp];
    } m = {*binary, ""};
    if (!tp.rank && o->path[0]) {
        snprintf(m.tmp, sizeof m.tmp, "%s.tmp.%ld", o->path, (long)getpid());
        int fd = open(m.tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0)
            tp_warn("cannot write %s: %s: no profile written", m.tmp, strerror(errno));
        if (fd < 0 || close(fd) != 0)
            m.tmp[0] = 0;
    }
    PMPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, c);
    memcpy(o->tmp, m.tmp, sizeof o->tmp);
    *binary = m.binary;
    return o->tmp[0] != 0;
}

/* Rank 0: move the file into place, or remove it. 0 once in place. */
static int tp_commit(struct tp_file *o, int ok)
{
    if (ok && rename(o->tmp, o->path) == 0)
        return 0;
    if (ok)
        tp_warn("cannot write %s: %s: no profile written", o->path, strerror(errno));
    unlink(o->tmp);
    return -1;
}

/* The header's "# key=value" lines into f. */
static void tp_header(FILE *f, const struct tp_names *nm, const char *counted, const uint64_t *tot)
{
    const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    int maj = 0, min = 0;
    PMPI_Get_version(&maj, &min);
    fprintf(f, "# nranks=%d\n", tp.size);
    fprintf(f, "# application=%s\n", nm->app);
    fprintf(f, "# date=%s\n", nm->date);
    fprintf(f, "# counted=%s\n", counted);
    fprintf(f, "# mpi_library=%s\n", nm->lib);
    fprintf(f, "# mpi_version=%d.%d\n", maj, min);
    fprintf(f, "# profiler=libtopomap-profiler %s (%s build)\n", TP_VERSION, TP_FLAVOUR);
    fprintf(f, "# total_bytes=%llu\n", (unsigned long long)tot[0]);
    fprintf(f, "# total_msgs=%llu\n", (unsigned long long)tot[1]);
    if (job && *job)
        fprintf(f, "# slurm_job_id=%s\n", job);
    if (step && *step)
        fprintf(f, "# slurm_step_id=%s\n", step);
}

/* The header (text) or the binary format's metadata: the same lines
 * without "# " and without nranks, which the binary header holds. */
static char *tp_head(const struct tp_names *nm, const char *counted, const uint64_t *tot,
                     const uint64_t *lost, const char *collfile, int binary, size_t *len)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f)
        return NULL;
    tp_header(f, nm, counted, tot);
    if (lost && (lost[0] || lost[1]))
        fprintf(f, "# outside_world_bytes=%llu\n# outside_world_msgs=%llu\n",
                (unsigned long long)lost[0], (unsigned long long)lost[1]);
    if (collfile)
        fprintf(f, "# collectives_file=%s\n", collfile);
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    if (binary) {
        char *w = s, *r = strchr(s, '\n') + 1; /* past "# nranks=" */
        while (*r) {
            r += 2;
            while (*r && (*w++ = *r++) != '\n')
                ;
        }
        *w = 0;
        n = (size_t)(w - s);
    }
    *len = n;
    return s;
}

static int tp_agree(MPI_Comm c, int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c);
    return all;
}

/* One profile file from every rank's row: 0 when it is in place. */
static int tp_write_file(MPI_Comm c, struct tp_file *o, const struct tp_row *row,
                         const char *head, size_t hlen, int binary)
{
    if (!tp_create(c, o, &binary))
        return -1;
    size_t k = 0;
    struct tp_pent *e = tp_row_sorted(row, &k);
    struct tp_piece pc[TP_PIECES];
    void *own = NULL;
    int enc = (binary ? tp_bin_pieces(c, head, hlen, e, k, pc, &own)
                      : tp_text_pieces(c, head, hlen, e, k, pc, &own)) == 0;
    int mine[2] = {e && !row->oom && enc && (tp.rank || head), tp_write_can(o->tmp, tp.rank)};
    int all[2] = {0, 0};
    PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, c);
    int ok = all[0];
    if (!ok && !tp.rank)
        tp_warn("a rank ran out of memory for its counters: no profile written in %s", o->path);
    if (ok) {
        /* Only rank 0 acts on the outcome: a reduction, not an agreement. */
        int mine_ok = tp_write_pieces(c, o->tmp, pc, all[1]), all_ok = 0;
        PMPI_Reduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, c);
        ok = all_ok;
    }
    if (!ok && all[0] && !tp.rank)
        tp_warn("cannot write %s: a rank failed to write its rows: no profile written", o->path);
    free(own);
    free(e);
    return tp.rank ? 0 : tp_commit(o, ok);
}

/* Rank 0: the names of the files, the header's values. */
static void tp_names(struct tp_names *nm, struct tp_file *out, struct tp_file *cout, int coll,
                     int binary)
{
    const char *p = getenv("TOPOMAP_PROFILE_OUT"), *cp = getenv("TOPOMAP_PROFILE_COLL_OUT");
    const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
    const char *ext = binary ? "bin" : "txt";
    tp_app_name(nm->app, sizeof nm->app);
    tp_mpi_library(nm->lib, sizeof nm->lib);
    time_t now = time(NULL);
    struct tm tm;
    strftime(nm->date, sizeof nm->date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (p && *p)
        tp_setpath(out, "%s", p);
    else if (job && *job)
        tp_setpath(out, "topomap-profile.%s.%s.%s.%s", nm->app, job, step && *step ? step : "0",
                   ext);
    else
        tp_setpath(out, "topomap-profile.%s.%ld.%s", nm->app, (long)getpid(), ext);
    if (coll) {
        if (cp && *cp)
            tp_setpath(cout, "%s", cp);
        else if (*out->path)
            tp_setpath(cout, "%s.coll", out->path);
    }
}

static const char tp_counted_p2p[] =
    "point-to-point sends (MPI_Send/Bsend/Ssend/Rsend, the I- and persistent variants at "
    "MPI_Start, Sendrecv, Sendrecv_replace; C and Fortran mpif.h/use mpi), sender side, "
    "MPI_COMM_WORLD ranks, bytes = count x type size";
static const char tp_counted_coll[] =
    "collectives as the point-to-point messages of model algorithms (barrier: dissemination; "
    "bcast, reduce, gather, scatter: binomial tree; allreduce, scan, exscan: recursive "
    "doubling; allgather(v): ring; alltoall(v), reduce_scatter(_block): pairwise exchange; "
    "gatherv, scatterv: linear), blocking and nonblocking, intra-communicators only, "
    "zero-byte messages dropped except barrier's";

/* Whether the collectives can be written: set everywhere, merged. */
static int tp_merge_coll(MPI_Comm c, int coll)
{
    if (coll) {
        int ok = tp_row_send_back(c, &tp.cin, &tp.cout) == 0 && !tp.cout.oom;
        if (tp_agree(c, ok))
            return 1;
        if (!tp.rank)
            tp_warn("out of memory merging collectives: no collectives profile written");
    } else if (tp.coll && !tp.rank) {
        tp_warn("TOPOMAP_PROFILE_COLLECTIVES is not set on every rank: "
                "no collectives profile written");
    }
    return 0;
}

void tp_finish(void)
{
    int init = 0, fin = 0;
    if (tp_done)
        return;
    tp_done = 1;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS ||
        fin)
        return;
    tp_setup_slow();
    if (tp.size <= 0) /* set-up did not get as far as the rank count */
        return;

    /* Agree on what every rank can contribute (all ranks must take the same
     * path through the collectives below) and sum the headers' totals in the
     * same reduction: moving receiver-counted traffic to its sender leaves
     * the collectives' totals as they are. */
    uint64_t all[8], mine[8] = {(uint64_t)tp.ready, (uint64_t)(tp.ready && tp.coll), 0, 0, 0, 0,
                                tp.lost[0], tp.lost[1]};
    tp_row_sum(&tp.p2p, mine + 2);
    tp_row_sum(&tp.cout, mine + 4);
    tp_row_sum(&tp.cin, mine + 4);
    MPI_Comm c;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)
        return;
    PMPI_Allreduce(mine, all, 8, MPI_UINT64_T, MPI_SUM, c);
    if (all[0] != (uint64_t)tp.size) {
        if (!tp.rank)
            tp_warn("a rank could not record (see above): no profile written");
        PMPI_Comm_free(&c);
        return;
    }
    int coll = tp_merge_coll(c, all[1] == (uint64_t)tp.size);
    const uint64_t *tot = all + 2, *lost = all + 6;

    struct tp_file out = {.path = ""}, cout = {.path = ""};
    struct tp_names nm;
    char *head = NULL, *chead = NULL;
    size_t hlen = 0, chlen = 0;
    int verbose = 0, binary = 0;
    if (!tp.rank) {
        const char *fmt = getenv("TOPOMAP_PROFILE_FORMAT");
        binary = fmt && !strcmp(fmt, "binary");
        if (fmt && *fmt && !binary && strcmp(fmt, "text"))
            tp_warn("TOPOMAP_PROFILE_FORMAT=%s is neither text nor binary: writing text", fmt);
        verbose = tp_env_flag("TOPOMAP_PROFILE_VERBOSE");
        tp_names(&nm, &out, &cout, coll, binary);
        head = tp_head(&nm, tp_counted_p2p, tot, lost, coll ? cout.path : NULL, binary, &hlen);
        if (coll)
            chead = tp_head(&nm, tp_counted_coll, tot + 2, NULL, NULL, binary, &chlen);
    }
    if (!tp_write_file(c, &out, &tp.p2p, head, hlen, binary) && verbose)
        tp_warn("wrote %s (%d ranks, %llu bytes, %llu messages)", out.path, tp.size,
                (unsigned long long)tot[0], (unsigned long long)tot[1]);
    if (coll && !tp_write_file(c, &cout, &tp.cout, chead, chlen, binary) && verbose)
        tp_warn("wrote %s (%llu bytes, %llu messages)", cout.path, (unsigned long long)tot[2],
                (unsigned long long)tot[3]);
    free(head);
    free(chead);
    PMPI_Comm_free(&c);
}
