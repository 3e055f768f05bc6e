/* SPDX-License-Identifier: BSD-3-Clause */
/* The congestion set: the busiest link beside hop-bytes on scattered torus
 * allocations. 128 ranks, 4 per node on 32 nodes spread over the 16x16x16
 * torus (every 128th node), the busy machine where minimising hop-bytes
 * alone can pile the traffic of the far-apart nodes onto a few links.
 * Profiles: every 128-rank shared workload (*-128.txt), plus synthetic ones
 * so that the set runs without them (a 3D stencil of 8x4x4 ranks, plain and
 * shuffled, and a random geometric graph). Algorithms: block, drb+refine,
 * auto, and auto with the congestion objective (auto@congestion). The table
 * gives each one's hop-bytes and busiest link (congestion_max) relative to
 * block's, the geometric means below it, and whether the targets hold:
 * auto's busiest link <= block's on every case; auto@congestion's <= 0.9 x
 * block's on the geometric mean with hop-bytes <= 0.9 x block's. */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *cong_algos[] = {"block", "drb+refine", "auto", "auto@congestion"};
#define NCONG_ALGOS ((int)(sizeof cong_algos / sizeof cong_algos[0]))
#define CONG_TOPO "torus-16x16x16"
#define CONG_SHAPE "every128"
#define CONG_MAXPROF 24

/* 32 nodes, every 128th of t, 4 slots each. */
static topomap_alloc_t *spread_alloc(const topomap_topology_t *t)
{
    int nn = topomap_topology_nnodes(t), k = 32, step = nn / k;
    const char *names[32];
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, i * step);
    char *hl = topomap_hostlist_compress(names, (size_t)k);
    topomap_alloc_t *a = hl ? topomap_alloc_create(t, hl, "4", bench_err, sizeof bench_err) : NULL;
    free(hl);
    if (!a)
        bench_emit("# congestion set skipped: %s\n", bench_err);
    return a;
}

static int ends_128(const struct dirent *d)
{
    size_t l = strlen(d->d_name);
    return l > 8 && !strcmp(d->d_name + l - 8, "-128.txt");
}

/* The shared 128-rank workloads into P[*np...], names into names. */
static void shared_profiles(const char *wdir, topomap_profile_t **P, char names[][48], int *np)
{
    struct dirent **list;
    int nf = scandir(wdir, &list, ends_128, alphasort);
    for (int i = 0; i < nf; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", wdir, list[i]->d_name);
        if (*np < CONG_MAXPROF &&
            (P[*np] = topomap_profile_load(path, TOPOMAP_FMT_AUTO, bench_err, sizeof bench_err)) &&
            topomap_profile_nranks(P[*np]) == 128) {
            snprintf(names[*np], 48, "%.*s", (int)strlen(list[i]->d_name) - 4, list[i]->d_name);
            (*np)++;
        } else if (*np < CONG_MAXPROF && P[*np]) {
            topomap_profile_free(P[*np]);
        }
        free(list[i]);
    }
    if (nf > 0)
        free(list);
    else
        bench_emit("# congestion set: no 128-rank shared workloads in %s: synthetic profiles "
                   "only\n",
                   wdir);
}

static double ratio(const char *pname, const char *algo, int cong)
{
    const struct bench_result *R = bench_find(pname, CONG_TOPO, CONG_SHAPE, algo);
    const struct bench_result *B = bench_find(pname, CONG_TOPO, CONG_SHAPE, "block");
    if (!R || !B)
        return NAN;
    double x = cong ? R->cong : R->hb, b = cong ? B->cong : B->hb;
    return b > 0 ? x / b : NAN;
}

/* The table of ratios to block, geometric means and targets. */
static void cong_table(char names[][48], int np)
{
    bench_emit("\n# Congestion set: %s, 128 ranks, 4 per node on every 128th node (32 nodes)\n"
               "# hb = hop-bytes / block's, link = busiest link (congestion_max) / block's\n",
               CONG_TOPO);
    bench_emit("%-24s", "profile");
    for (int k = 1; k < NCONG_ALGOS; k++)
        bench_emit(" %9.9s-hb %9.9s-lk", cong_algos[k], cong_algos[k]);
    bench_emit("\n");
    double lsum[NCONG_ALGOS] = {0}, hsum[NCONG_ALGOS] = {0};
    int cnt[NCONG_ALGOS] = {0}, auto_over = 0, cases = 0;
    for (int i = 0; i < np; i++) {
        bench_emit("%-24s", names[i]);
        for (int k = 1; k < NCONG_ALGOS; k++) {
            double h = ratio(names[i], cong_algos[k], 0), l = ratio(names[i], cong_algos[k], 1);
            bench_emit(" %12.3f %12.3f", h, l);
            if (h > 0 && l > 0) {
                hsum[k] += log(h);
                lsum[k] += log(l);
                cnt[k]++;
            }
            if (!strcmp(cong_algos[k], "auto") && l > 0) {
                cases++;
                auto_over += l > 1;
            }
        }
        bench_emit("\n");
    }
    bench_emit("%-24s", "geometric mean");
    for (int k = 1; k < NCONG_ALGOS; k++)
        bench_emit(" %12.3f %12.3f", cnt[k] ? exp(hsum[k] / cnt[k]) : NAN,
                   cnt[k] ? exp(lsum[k] / cnt[k]) : NAN);
    bench_emit("\n");
    int ka = NCONG_ALGOS - 1;
    double gl = cnt[ka] ? exp(lsum[ka] / cnt[ka]) : NAN, gh = cnt[ka] ? exp(hsum[ka] / cnt[ka]) : NAN;
    bench_emit("# target: auto's busiest link <= block's on every case: %s (%d of %d over)\n",
               auto_over ? "MISSED" : "met", auto_over, cases);
    bench_emit("# target: auto@congestion's busiest link <= 0.9 x block's on the geometric mean "
               "(%.3f) with hop-bytes <= 0.9 x (%.3f): %s\n",
               gl, gh, gl <= 0.9 && gh <= 0.9 ? "met" : "MISSED");
}

void bench_cong_run(const char *tdir, const char *wdir, int quick)
{
    (void)quick; /* 128 ranks: the quick set is the whole set */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", tdir, CONG_TOPO);
    topomap_topology_t *t = topomap_topology_load(path, bench_err, sizeof bench_err);
    if (!t) {
        bench_emit("# congestion set skipped: %s\n", bench_err);
        return;
    }
    topomap_alloc_t *a = spread_alloc(t);
    topomap_profile_t *P[CONG_MAXPROF] = {0};
    char names[CONG_MAXPROF][48];
    int np = 0;
    if (a)
        shared_profiles(wdir, P, names, &np);
    struct {
        const char *name;
        topomap_profile_t *p;
    } syn[] = {{"stencil-8x4x4", a ? bench_stencil(8, 4, 4, 1e4, 0) : NULL},
               {"perm-stencil-8x4x4", a ? bench_stencil(8, 4, 4, 1e4, BENCH_PERM_SEED) : NULL},
               {"rgg-128", a ? bench_rgg(128, 8, BENCH_RGG_SEED) : NULL}};
    for (size_t i = 0; i < sizeof syn / sizeof syn[0]; i++)
        if (syn[i].p && np < CONG_MAXPROF) {
            P[np] = syn[i].p;
            snprintf(names[np++], 48, "%s", syn[i].name);
        } else {
            topomap_profile_free(syn[i].p);
        }
    struct bench_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.algos = cong_algos;
    plan.nalgo = NCONG_ALGOS;
    plan.scaling = 1; /* its own table, not in the summary */
    if (np) {
        bench_emit("\n# Congestion set: the case lines\n");
        bench_table_head();
    }
    for (int i = 0; i < np; i++)
        bench_run_case(names[i], P[i], CONG_TOPO, CONG_SHAPE, a, &plan);
    if (np)
        cong_table(names, np);
    for (int i = 0; i < np; i++)
        topomap_profile_free(P[i]);
    topomap_alloc_free(a);
    topomap_topology_free(t);
    bench_taper_run(wdir);
}
