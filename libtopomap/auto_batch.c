/* SPDX-License-Identifier: BSD-3-Clause */
/* How auto's candidates run (map_auto.c judges them): one candidate's run
 * (auto_cand_run: its algorithm, refinement and node placement), its
 * predicted time, and candidates side by side: with more than one thread,
 * candidates that do not depend on each other run at the same time, each
 * thread taking the next job when done with one, and candidate() then
 * judges their outcomes one by one in candidate order, exactly as if each
 * had run there and then (doc/algorithms.md#threads). METIS calls run one
 * at a time (metis_call.h): what surrounds them runs in parallel.
 *
 * Why it gives the same answer for any thread count without a time limit:
 *  - a candidate's run reads nothing that an earlier candidate's run writes
 *    (its own copy of the problem, options, output and work counter; the
 *    algorithms' inner loops give the same result for any thread count);
 *  - what an earlier candidate changes (the work spent, the first drb's
 *    work, the kept mapping) only decides whether the outcome is taken,
 *    and candidate() decides that afterwards, in order, with the same state
 *    as with one thread: an outcome the work budget would not have allowed
 *    is dropped (its work is lost, not counted), its progress lines too;
 *  - what a run needs from an earlier one: treematch+refine refines
 *    treematch's unrefined mapping, so both run in one job, one after the
 *    other; analytic-anchor's allowance (COST_SELF) depends on the work
 *    spent before it, so it runs alone once those before it are judged;
 *    a candidate weighed against the first drb's work waits for it too.
 * Under a time limit the candidates started and stopped depend on time, as
 * with one thread.
 *
 * SIGTERM is blocked in every thread of a batch from its first job to its
 * last (metis_call.h: GKlib's handler must not run in a thread that is not
 * inside METIS); the threads a job's own parallel loops start inherit the
 * mask. A SIGTERM that comes meanwhile is delivered when the batch ends
 * (tests/signal.sh). */
#include <errno.h>
#ifdef _OPENMP
#include <omp.h>
#else
/* Built without OpenMP (configure --disable-openmp, the fuzzing build):
 * one thread, so auto_batch() leaves every candidate to run alone. */
static int omp_get_max_threads(void)
{
    return 1;
}
static int omp_get_max_active_levels(void)
{
    return 1;
}
static void omp_set_max_active_levels(int n)
{
    (void)n;
}
static void omp_set_num_threads(int n)
{
    (void)n;
}
#endif
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auto.h"
#include "refine.h"

/* With a time limit, after the fast start: candidate c's time in units of
 * the fast start's, from its .time_ratio in the list (candidates() in
 * map_auto.c, where each figure is explained); 0 there means 1. A candidate
 * whose prediction does not fit in the time left does not start. */
double auto_time_ratio(const struct cand *c)
{
    return c->time_ratio > 0 ? c->time_ratio : 1.0;
}


int auto_cand_run(const struct auto_run *ar, int k, struct topomap_problem *sub,
                  topomap_opts_t *so, const int *raw_in, int *out, int *raw_out, int *raw_ok,
                  double *cw, char *err, size_t errlen)
{
    const struct cand *c = &ar->c[k];
    *cw = 0;
    *raw_ok = 0;
    sub->work = cw;
    so->seed = ar->pb->opts->seed + c->seed_offset;
    int rc = 0;
    size_t sz = sizeof(int) * (size_t)ar->pb->n;
    if (raw_in) {
        memcpy(out, raw_in, sz);
    } else if ((rc = c->fn(sub, out, err, errlen)) == 0 && raw_out) {
        memcpy(raw_out, out, sz);
        *raw_ok = 1;
    }
    if (rc == 0 && c->refine) {
        struct topomap_refine_params rp = {0, sub->deadline, REFINE_MIN_GAIN,
                                           TOPOMAP_REFINE_AUTO};
        rc = topomap_refine(sub, out, &rp, NULL, err, errlen);
    }
    /* With quick placements block is the floor as it is: the answer's
     * placement comes at the end. */
    if (rc == 0 && ar->sumcom && !(k == 0 && sub->quick_place))
        rc = topomap_node_place(sub, out, ar->place, NULL, err, errlen);
    sub->work = NULL;
    return rc;
}

int auto_reuses_raw(const struct auto_run *ar, int k)
{
    return k > 0 && ar->c[k].fn == ar->c[k - 1].fn &&
           ar->c[k].seed_offset == ar->c[k - 1].seed_offset;
}

/* A candidate at least this many times the fast start's time (block +
 * refine, greedy + refine, analytic-anchor: the refinement engine and
 * CHOLMOD, which use the threads themselves) runs alone, first of its
 * batch, with every thread for its own parallel loops. */
#define BATCH_ALONE_RATIO 3.0

/* One job: candidate k, and with chain candidate k + 1 from k's unrefined
 * mapping, in one thread. */
struct job {
    int k, chain;
};

static void res_log(const char *line, void *arg)
{
    struct auto_res *r = arg;
    size_t len = strlen(line);
    if (r->loglen + len + 2 > r->logcap) {
        size_t cap = 2 * r->logcap + len + 256;
        char *p = realloc(r->log, cap);
        if (!p)
            return; /* a progress line lost, nothing else */
        r->log = p;
        r->logcap = cap;
    }
    memcpy(r->log + r->loglen, line, len);
    r->loglen += len;
    r->log[r->loglen++] = '\n';
    r->log[r->loglen] = 0;
}

void auto_res_replay(const struct topomap_problem *pb, struct auto_res *res)
{
    for (char *p = res->log, *nl; p && (nl = strchr(p, '\n')); p = nl + 1) {
        *nl = 0;
        topomap_log(pb, "%s", p);
    }
    free(res->log);
    res->log = NULL;
    res->loglen = res->logcap = 0;
}

void auto_res_free(struct auto_run *ar)
{
    for (int k = 0; ar->res && k < ar->nc; k++)
        free(ar->res[k].map), free(ar->res[k].raw), free(ar->res[k].log);
    free(ar->res);
    ar->res = NULL;
}

/* Candidate k of the job into its result, with the caller's sub and options
 * copied; raw_in: the unrefined mapping to start from, or NULL. */
static void run_job_one(const struct auto_run *ar, int k, const int *raw_in)
{
    struct auto_res *r = &ar->res[k];
    struct topomap_problem sub = ar->sub;
    topomap_opts_t so = ar->so;
    so.log = ar->pb->opts->log ? res_log : NULL;
    so.log_arg = r;
    sub.opts = &so;
    sub.work_limit = 0; /* analytic-anchor's allowance: it never runs in a batch */
    double t = topomap_now();
    r->rc = auto_cand_run(ar, k, &sub, &so, raw_in, r->map, raw_in ? NULL : r->raw, &r->raw_ok,
                          &r->work, r->err, sizeof r->err);
    r->errnum = r->rc < 0 ? errno : 0;
    r->secs = topomap_now() - t;
    r->ready = 1;
}

/* Processor seconds of the calling thread. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs job j; its processor time (this thread's) in *cpu. */
static void run_job(const struct auto_run *ar, const struct job *j, double *cpu)
{
    double c0 = thread_cpu(), now = topomap_now();
    *cpu = 0;
    /* A job taken late (its thread was busy): the time rules of
     * candidate(), which then judges it as not run. */
    if ((ar->start_by > 0 && now > ar->start_by) ||
        (ar->t_fast > 0 && ar->end > 0 &&
         now + auto_time_ratio(&ar->c[j->k]) * ar->t_fast > ar->end))
        return;
    /* Candidate k's first, from the kept unrefined mapping of k - 1. */
    const int *from = ar->rawk == j->k - 1 && auto_reuses_raw(ar, j->k) ? ar->raw : NULL;
    run_job_one(ar, j->k, from);
    const struct auto_res *r = &ar->res[j->k];
    if (j->chain) {
        double t = topomap_now();
        run_job_one(ar, j->k + 1, r->raw_ok ? r->raw : NULL);
        /* Its own time, as with one thread (the unrefined mapping is not
         * computed twice there either). */
        ar->res[j->k + 1].secs = topomap_now() - t;
    }
    *cpu = thread_cpu() - c0;
}

/* Whether candidate k runs alone (see BATCH_ALONE_RATIO). */
static int alone(const struct auto_run *ar, int k)
{
    return ar->c[k].cost == COST_SELF || auto_time_ratio(&ar->c[k]) >= BATCH_ALONE_RATIO;
}

/* Whether candidate k is known now to be refused later by candidate():
 * the work spent only grows and time only passes. */
static int refused(const struct auto_run *ar, int k, double now)
{
    const struct cand *c = &ar->c[k];
    if (c->cost > 0 && ar->w_drb >= 0 &&
        c->cost * ar->w_drb > topomap_tuning()->auto_work_budget - ar->spent)
        return 1;
    return ar->t_fast > 0 && ar->end > 0 && now + auto_time_ratio(c) * ar->t_fast > ar->end;
}

/* A job's predicted time (time ratios), for the order the threads take
 * the jobs in. */
static double job_time(const struct auto_run *ar, const struct job *j)
{
    return auto_time_ratio(&ar->c[j->k]) + (j->chain ? auto_time_ratio(&ar->c[j->k + 1]) : 0);
}

/* The jobs of the batch from k in js (at most maxj), their count in *nj;
 * returns how many candidates the batch covers. Without a time limit the
 * longest first, so that the threads end together (the answer does not
 * depend on the order); with one, in candidate order: the fast start
 * first. */
static int plan(const struct auto_run *ar, int k, int maxj, struct job *js, int *nj)
{
    double now = topomap_now();
    int m = 0, q = k;
    /* block (k = 0) takes a few milliseconds: not worth a thread. With a
     * time limit the fast start runs alone, with every thread for its own
     * loops: side by side with others on a loaded machine it ended too
     * late to be polished (65,536 ranks at 2 s: SumCom 1.8-1.9e11 with two
     * threads against 1.55e11 with one). */
    if (k == 0 || alone(ar, k) || (ar->start_by > 0 && now > ar->start_by) ||
        (ar->end > 0 && k == ar->fast_k)) {
        *nj = 0;
        return 1;
    }
    for (; q < ar->nc && m < maxj; q++) {
        const struct cand *c = &ar->c[q];
        if (q > k && alone(ar, q))
            break;
        /* A candidate the budget weighs against the first drb's work
         * waits for it: run now, it might be dropped (work lost). */
        if (q > k && c->cost > 0 && ar->w_drb < 0)
            break;
        if (refused(ar, q, now))
            continue;
        /* treematch+refine after treematch: in treematch's job. */
        if (m > 0 && js[m - 1].k == q - 1 && !js[m - 1].chain && auto_reuses_raw(ar, q)) {
            js[m - 1].chain = 1;
            continue;
        }
        js[m++] = (struct job){q, 0};
    }
    /* A last job whose next candidate would have chained to it takes it. */
    if (m > 0 && q < ar->nc && js[m - 1].k == q - 1 && !alone(ar, q) && auto_reuses_raw(ar, q) &&
        !refused(ar, q, now)) {
        js[m - 1].chain = 1;
        q++;
    }
    *nj = m;
    for (int a = 1; ar->end <= 0 && a < m; a++) /* insertion sort, stable */
        for (int b = a; b > 0 && job_time(ar, &js[b]) > job_time(ar, &js[b - 1]); b--) {
            struct job t = js[b];
            js[b] = js[b - 1];
            js[b - 1] = t;
        }
    return q - k;
}

/* ar->res[k] ready for a run: room for the mappings. 0, or -1 (ENOMEM). */
static int res_prepare(struct auto_run *ar, int k)
{
    struct auto_res *r = &ar->res[k];
    size_t sz = sizeof(int) * (size_t)(ar->pb->n ? ar->pb->n : 1);
    free(r->log);
    r->log = NULL;
    r->loglen = r->logcap = 0;
    r->ready = 0;
    if (!r->map)
        r->map = malloc(sz);
    if (!r->raw)
        r->raw = malloc(sz);
    return r->map && r->raw ? 0 : -1;
}

int auto_batch(struct auto_run *ar, int k)
{
    int nt = omp_get_max_threads();
    if (ar->res)
        for (int q = 0; q < ar->nc; q++)
            ar->res[q].ready = 0;
    if (nt < 2 || ar->nc - k < 2)
        return 1;
    struct job js[24];
    int nj, nb = plan(ar, k, 24, js, &nj);
    if (nj < 2)
        return 1; /* one job: candidate k alone, every thread for its loops */
    if (!ar->res && !(ar->res = calloc((size_t)ar->nc, sizeof *ar->res))) {
        errno = ENOMEM;
        return -1;
    }
    for (int q = 0; q < nj; q++)
        if (res_prepare(ar, js[q].k) < 0 || (js[q].chain && res_prepare(ar, js[q].k + 1) < 0)) {
            errno = ENOMEM;
            return -1;
        }
    /* More jobs than threads: each thread takes the next job when it is
     * done. Each job's own parallel loops and tasks get a share of the
     * threads in proportion to its predicted time (at least one): the
     * longest, which bounds the batch, the most (8 threads, multilevel,
     * drb+refine and treematch with its refinement: 2, 2 and 4). */
    int nthr = nj < nt ? nj : nt, levels = omp_get_max_active_levels(), inner[24], nested = 0;
    double sum = 0;
    for (int q = 0; q < nj; q++)
        sum += job_time(ar, &js[q]);
    for (int q = 0; q < nj; q++) {
        inner[q] = nj < nt ? (int)(nt * job_time(ar, &js[q]) / sum + 0.5) : 1;
        inner[q] = inner[q] > 1 ? inner[q] : 1;
        nested |= inner[q] > 1;
    }
    omp_set_max_active_levels(nested ? 2 : 1);
    (void)nthr; /* the parallel region's alone: unused without OpenMP */
    double cpu[24], t0 = topomap_now();
    /* SIGTERM blocked in every thread from the first job to the last
     * (the barrier of the loop): blocked only around each job, a thread
     * between jobs or done with its own received it while METIS ran in
     * another, met GKlib's handler and crashed (tests/signal.sh). */
#pragma omp parallel num_threads(nthr)
    {
        sigset_t term, old;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &term, &old);
#pragma omp for schedule(dynamic, 1)
        for (int q = 0; q < nj; q++) {
            omp_set_num_threads(inner[q]);
            run_job(ar, &js[q], &cpu[q]);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    omp_set_max_active_levels(levels);
    /* Where the time goes: the batch's wall time against its jobs'
     * processor times (the longest bounds it on an idle machine). */
    char line[160];
    int len = 0;
    for (int q = 0; q < nj && len < (int)sizeof line - 16; q++)
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %.3f", q ? ", " : "",
                        ar->c[js[q].k].name, cpu[q]);
    topomap_log(ar->pb, "auto: %d jobs side by side in %.3f s (processor s: %s)", nj,
                topomap_now() - t0, line);
    return nb;
}
