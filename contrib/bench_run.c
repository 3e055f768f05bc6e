/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: allocations, one algorithm run under the time limit (in a
 * child process), and one case (every algorithm on one profile x allocation),
 * with its lines of the case table. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bench_result *bench_res;
size_t bench_nres;
static size_t capres;
char bench_err[TOPOMAP_ERRLEN];
FILE *bench_out;
double bench_time_limit = 60;
int bench_threads;
uint64_t bench_rng_state = 20240607;

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void bench_emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (bench_out) {
        va_start(ap, fmt);
        vfprintf(bench_out, fmt, ap);
        va_end(ap);
    }
}

static void *check(void *p)
{
    if (!p) {
        perror("topomap-bench");
        exit(1);
    }
    return p;
}

void *bench_xmalloc(size_t size)
{
    return check(malloc(size ? size : 1));
}

void *bench_xcalloc(size_t n, size_t size)
{
    return check(calloc(n ? n : 1, size ? size : 1));
}

void *bench_xrealloc(void *ptr, size_t size)
{
    return check(realloc(ptr, size ? size : 1));
}

uint64_t bench_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t bench_rng(void)
{
    return bench_rng_next(&bench_rng_state);
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static struct bench_result *add_result(void)
{
    if (bench_nres == capres) {
        capres = capres ? 2 * capres : 256;
        bench_res = bench_xrealloc(bench_res, capres * sizeof *bench_res);
    }
    memset(&bench_res[bench_nres], 0, sizeof bench_res[0]);
    return &bench_res[bench_nres++];
}

/* ---- allocations ---------------------------------------------------------------- */

topomap_alloc_t *bench_make_alloc(const topomap_topology_t *t, int n, int scattered,
                                  int one_per_node)
{
    int c = one_per_node ? 1 : topomap_topology_cores(t), nn = topomap_topology_nnodes(t);
    int k = (n + c - 1) / c;
    if (k > nn || n < 1)
        return NULL;
    int *pick = bench_xmalloc(sizeof(int) * (size_t)nn);
    for (int i = 0; i < nn; i++)
        pick[i] = i;
    if (scattered) {
        bench_rng_state = 1000003u * (uint64_t)n + (uint64_t)nn; /* same draw for every algorithm */
        for (int i = 0; i < k; i++) {
            int j = i + (int)(bench_rng() % (uint64_t)(nn - i));
            int tmp = pick[i];
            pick[i] = pick[j];
            pick[j] = tmp;
        }
        /* Index order, as Slurm lists nodes. */
        qsort(pick, (size_t)k, sizeof(int), cmp_int);
    }
    const char **names = bench_xmalloc(sizeof(char *) * (size_t)k);
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, pick[i]);
    char *hl = topomap_hostlist_compress(names, (size_t)k);
    char slots[64] = "";
    int last = n - (k - 1) * c;
    if (one_per_node)
        snprintf(slots, sizeof slots, "1");
    else if (last != c) {
        if (k > 1)
            snprintf(slots, sizeof slots, "%d(x%d),%d", c, k - 1, last);
        else
            snprintf(slots, sizeof slots, "%d", last);
    }
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, slots, bench_err, sizeof bench_err) : NULL;
    if (!a)
        fprintf(stderr, "topomap-bench: allocation failed: %s\n", bench_err);
    free(hl);
    free(names);
    free(pick);
    return a;
}

/* ---- one algorithm, in a child process ------------------------------------------------ */

/* What a child process sends back. */
struct reply {
    int rc;      /* 0, or -1 with a note */
    int timeout; /* 1: over the time limit */
    double secs, hb, cong, sumcom; /* cong: congestion_max */
    char note[80];
};

static int write_all(int fd, const void *buf, size_t len)
{
    const char *b = buf;
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

/* 0, -1 at end of file or error, -2 past deadline (0: none). */
static int read_all(int fd, void *buf, size_t len, double deadline)
{
    char *b = buf;
    while (len > 0) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - bench_now();
            if (left <= 0)
                return -2;
            ms = (int)(left * 1000) + 1;
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            continue; /* the deadline check above ends it */
        ssize_t got = read(fd, b, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        b += got;
        len -= (size_t)got;
    }
    return 0;
}

/* "bound": no mapping, the Gilmore-Lawler lower bound of hop-bytes on the
 * nodes block's layout uses (the job's nodes, as many ranks on each:
 * topomap_hop_bytes_bound()), in the hop-bytes column; congestion and
 * SumCom are NaN. */
static void run_bound(const topomap_profile_t *p, const topomap_alloc_t *a, struct reply *rep)
{
    int n = topomap_profile_nranks(p);
    int *node = bench_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int r = 0; r < n; r++)
        node[r] = topomap_alloc_slot_node(a, r);
    double t0 = bench_now();
    if (topomap_hop_bytes_bound(p, topomap_alloc_topology(a), node, &rep->hb) < 0) {
        snprintf(rep->note, sizeof rep->note, "no bound: %s",
                 errno == E2BIG ? "too many ranks" : strerror(errno));
        rep->rc = -1;
    } else {
        rep->secs = bench_now() - t0;
        rep->cong = rep->sumcom = NAN;
        snprintf(rep->note, sizeof rep->note, "lower bound (Gilmore-Lawler), no mapping");
        rep->rc = 0;
    }
    free(node);
}

/* Run algo (an algorithm name, "NAME+refine", "scotch" or "bound") on p
 * mapped onto a and evaluate it: rep->rc 0 with the median time of up to 5
 * runs (repeated while the total stays under 0.2 s) and the hop-bytes, or
 * -1 with a note (rep->timeout 1 when the library said ETIMEDOUT). */
static void run_algo(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                     struct reply *rep)
{
    if (!strcmp(algo, "bound")) {
        run_bound(p, a, rep);
        return;
    }
    int *r2s = bench_xmalloc(sizeof(int) * (size_t)topomap_alloc_nslots(a));
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    rep->rc = -1;
    if (!strcmp(algo, "scotch")) {
#ifdef HAVE_SCOTCH
        rep->rc = bench_scotch_map(p, a, r2s, &rep->secs, rep->note, sizeof rep->note);
        if (rep->rc == 0 && bench_time_limit > 0 && rep->secs > bench_time_limit) {
            rep->rc = -1;
            rep->timeout = 1;
        }
#else
        snprintf(rep->note, sizeof rep->note, "built without Scotch");
#endif
    } else {
        char name[32];
        snprintf(name, sizeof name, "%s", algo);
        topomap_opts_t o;
        topomap_opts_init(&o);
        /* NAME:off, NAME:tm, NAME:sumref: the node-internal placement off,
         * TreeMatch only, the SumCom refinement only. */
        char *colon = strchr(name, ':');
        if (colon) {
            *colon = 0;
            o.node_place = !strcmp(colon + 1, "off")  ? TOPOMAP_NODE_PLACE_OFF
                           : !strcmp(colon + 1, "tm") ? TOPOMAP_NODE_PLACE_TREEMATCH
                                                      : TOPOMAP_NODE_PLACE_REFINE;
        }
        /* NAME@congestion: the congestion objective. */
        char *at = strchr(name, '@');
        if (at) {
            *at = 0;
            o.objective = topomap_objective_parse(at + 1);
        }
        char *plus = strchr(name, '+');
        o.time_limit = bench_time_limit;
        o.nthreads = bench_threads;
        if (plus) {
            *plus = 0;
            o.refine = 1;
        }
        double t[5], total = 0;
        int runs = 0;
        while (runs < 5) {
            double t0 = bench_now();
            if (topomap_map(name, p, a, &o, r2s, bench_err, sizeof bench_err) < 0) {
                rep->timeout = errno == ETIMEDOUT;
                snprintf(rep->note, sizeof rep->note, "%.70s", bench_err);
                break;
            }
            t[runs] = bench_now() - t0;
            total += t[runs++];
            if (total > 0.2)
                break;
        }
        if (runs && !rep->note[0]) {
            qsort(t, (size_t)runs, sizeof t[0], bench_cmp_double);
            rep->secs = t[runs / 2];
            rep->rc = 0;
        }
    }
    if (rep->rc == 0 && topomap_eval_slots(p, a, r2s, &m) < 0) {
        rep->rc = -1;
        snprintf(rep->note, sizeof rep->note, "topomap_eval_slots failed: %s", strerror(errno));
    } else if (rep->rc == 0) {
        rep->hb = m.hop_bytes;
        rep->cong = m.congestion_max;
        rep->sumcom = m.sumcom;
    }
    free(r2s);
}

/* run_algo() in a child process, waited for until the time limit (plus 10%
 * and a second for the library, which stops itself; Scotch cannot): the
 * library's phases do not all check the limit, and a crash of one run must
 * not end the benchmark. The parent never runs libtopomap's OpenMP code
 * (mappings, metrics), since libgomp's threads do not survive fork(): a
 * child would hang in its first parallel region. */
static void run_in_child(const char *algo, const topomap_profile_t *p, const topomap_alloc_t *a,
                         struct reply *rep)
{
    int fd[2];
    memset(rep, 0, sizeof *rep);
    rep->rc = -1;
    if (pipe(fd) < 0) {
        snprintf(rep->note, sizeof rep->note, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout); /* nothing buffered may be written twice */
    fflush(stderr);
    if (bench_out)
        fflush(bench_out);
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(rep->note, sizeof rep->note, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        run_algo(algo, p, a, rep);
        write_all(fd[1], rep, sizeof *rep);
        _exit(0);
    }
    close(fd[1]);
    double wait = bench_time_limit;
    if (wait > 0 && strcmp(algo, "scotch"))
        wait += 1 + 0.1 * bench_time_limit;
    int r = read_all(fd[0], rep, sizeof *rep, wait > 0 ? t0 + wait : 0);
    if (r == -2)
        kill(pid, SIGKILL);
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (r == -2) {
        rep->rc = -1;
        rep->timeout = 1;
        if (strcmp(algo, "scotch"))
            snprintf(rep->note, sizeof rep->note,
                     "timeout: killed after %.1f s, the library ran past the limit", wait);
    } else if (r < 0) {
        rep->rc = -1;
        if (WIFSIGNALED(status))
            snprintf(rep->note, sizeof rep->note, "crashed (signal %d)", WTERMSIG(status));
        else
            snprintf(rep->note, sizeof rep->note, "exited (status %d)", WEXITSTATUS(status));
    }
    if (rep->timeout && strncmp(rep->note, "timeout", 7))
        snprintf(rep->note, sizeof rep->note, "timeout: over the limit of %g s", bench_time_limit);
}

/* ---- one case ------------------------------------------------------------------------ */

/* The family of a profile: its name without the last "-" part. */
static void family(const char *pname, char *fam, size_t len)
{
    const char *dash = strrchr(pname, '-');
    snprintf(fam, len, "%.*s", dash ? (int)(dash - pname) : (int)strlen(pname), pname);
}

void bench_plan_timeout(struct bench_plan *plan, const char *pname, int k, int n)
{
    char fam[40];
    family(pname, fam, sizeof fam);
    for (int i = 0; i < plan->ntimeouts; i++)
        if (plan->timeouts[i].algo == k && !strcmp(plan->timeouts[i].family, fam)) {
            if (n < plan->timeouts[i].n)
                plan->timeouts[i].n = n;
            return;
        }
    if (plan->ntimeouts == BENCH_MAXTIMEOUTS)
        return;
    snprintf(plan->timeouts[plan->ntimeouts].family, sizeof plan->timeouts[0].family, "%s", fam);
    plan->timeouts[plan->ntimeouts].algo = k;
    plan->timeouts[plan->ntimeouts++].n = n;
}

/* Ranks at which algorithm k timed out on a smaller profile of pname's family. */
static int timed_out_below(const struct bench_plan *plan, const char *pname, int k, int n)
{
    char fam[40];
    family(pname, fam, sizeof fam);
    for (int i = 0; plan->skip_larger && i < plan->ntimeouts; i++)
        if (plan->timeouts[i].algo == k && !strcmp(plan->timeouts[i].family, fam) &&
            plan->timeouts[i].n < n)
            return plan->timeouts[i].n;
    return 0;
}

static void run_one(struct bench_result *R, const char *pname, const topomap_profile_t *p,
                    const topomap_alloc_t *a, double block_hb, struct bench_plan *plan, int k)
{
    /* The forced cluster schemes of spectral (spectral-plain, -ff, -mr) are
     * a study of the paper's setting: switch hierarchies only (spectral-fit,
     * ours, runs everywhere). */
    const char *kind = topomap_topology_kind(topomap_alloc_topology(a));
    if (!strncmp(plan->algos[k], "spectral-", 9) && strncmp(plan->algos[k], "spectral-fit", 12) &&
        strcmp(kind, "tianhe3") &&
        strcmp(kind, "fat-tree")) {
        R->skipped = 1;
        snprintf(R->note, sizeof R->note, "skipped: scheme study on Tianhe-3 and fat-trees only");
        return;
    }
    int at = timed_out_below(plan, pname, k, R->n);
    if (at) {
        R->skipped = 1;
        snprintf(R->note, sizeof R->note, "skipped: timed out at %d ranks", at);
        return;
    }
    struct reply rep;
    run_in_child(R->algo, p, a, &rep);
    snprintf(R->note, sizeof R->note, "%s", rep.note);
    R->timeout = rep.timeout;
    if (rep.rc == 0) {
        R->secs = rep.secs;
        R->hb = rep.hb;
        R->cong = rep.cong;
        R->sumcom = rep.sumcom;
        R->rel = block_hb > 0 ? rep.hb / block_hb : NAN;
    }
    if (R->timeout)
        bench_plan_timeout(plan, pname, k, R->n);
}

void bench_run_case(const char *pname, const topomap_profile_t *p, const char *tname,
                    const char *shape, const topomap_alloc_t *a, struct bench_plan *plan)
{
    int n = topomap_profile_nranks(p);
    struct reply rep;
    run_in_child("block", p, a, &rep);
    double block_hb = rep.rc == 0 ? rep.hb : NAN, block_cong = rep.rc == 0 ? rep.cong : NAN;
    /* Scotch first, so that every line can be divided by its values. */
    struct bench_result S;
    memset(&S, 0, sizeof S);
    S.hb = S.rel = S.secs = S.cong = S.sumcom = NAN;
    S.n = n;
    snprintf(S.algo, sizeof S.algo, "scotch");
    int sk = -1;
    for (int k = 0; k < plan->nalgo; k++)
        if (!strcmp(plan->algos[k], "scotch"))
            sk = k;
    if (sk >= 0)
        run_one(&S, pname, p, a, block_hb, plan, sk);
    for (int k = 0; k < plan->nalgo; k++) {
        struct bench_result *R = add_result();
        if (k == sk) {
            *R = S;
        } else {
            R->n = n;
            R->hb = R->rel = R->secs = R->cong = R->sumcom = NAN;
            snprintf(R->algo, sizeof R->algo, "%s", plan->algos[k]);
            run_one(R, pname, p, a, block_hb, plan, k);
        }
        snprintf(R->profile, sizeof R->profile, "%s", pname);
        snprintf(R->topo, sizeof R->topo, "%s", tname);
        snprintf(R->shape, sizeof R->shape, "%s", shape);
        R->scaling = plan->scaling;
        R->srel = S.hb > 0 ? R->hb / S.hb : NAN;
        R->stime = S.secs > 0 ? R->secs / S.secs : NAN;
        R->crel = S.cong > 0 ? R->cong / S.cong : NAN;
        R->cbrel = block_cong > 0 ? R->cong / block_cong : NAN;
        R->sumrel = S.sumcom > 0 ? R->sumcom / S.sumcom : NAN;
        if (plan->sumcom)
            bench_emit("%-22s %6d %-18s %-11s %-18s %12.5g %7.3f %12.5g %7.3f %9.4f %8.3f  %s\n",
                       R->profile, R->n, R->topo, R->shape, R->algo, R->sumcom, R->sumrel, R->hb,
                       R->srel, R->secs, R->stime, R->note);
        else
            bench_emit("%-22s %6d %-18s %-11s %-13s %12.5g %7.3f %7.3f %10.4g %7.3f %9.4f %8.3f  %s\n",
                   R->profile, R->n, R->topo, R->shape, R->algo, R->hb, R->rel, R->srel, R->cong,
                   R->crel, R->secs, R->stime, R->note);
    }
}

/* The column heads of the lines above. */
void bench_table_head_sumcom(void)
{
    bench_emit("%-22s %6s %-18s %-11s %-18s %12s %7s %12s %7s %9s %8s  %s\n", "profile", "ranks",
               "topology", "alloc", "algorithm", "SumCom", "/scotch", "hop-bytes", "/scotch",
               "time (s)", "t/scotch", "note");
}

void bench_table_head(void)
{
    bench_emit("%-22s %6s %-18s %-11s %-13s %12s %7s %7s %10s %7s %9s %8s  %s\n", "profile",
               "ranks", "topology", "alloc", "algorithm", "hop-bytes", "/block", "/scotch",
               "max link", "/scotch", "time (s)", "t/scotch", "note");
}
