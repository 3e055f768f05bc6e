/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap-bench: the summary under the case table. Per topology x allocation
 * group: geometric means of hop-bytes / block, hop-bytes / Scotch,
 * congestion / Scotch's congestion and time / Scotch's time, and the cases
 * where an algorithm is above 1.05 x Scotch's hop-bytes; then the performance
 * targets and the OHTMA paper's claim. Results run for the scaling tables only
 * are left out. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

const struct bench_result *bench_find(const char *profile, const char *topo, const char *shape,
                                      const char *algo)
{
    for (size_t i = 0; i < bench_nres; i++)
        if (!strcmp(bench_res[i].profile, profile) && !strcmp(bench_res[i].topo, topo) &&
            !strcmp(bench_res[i].shape, shape) && !strcmp(bench_res[i].algo, algo))
            return &bench_res[i];
    return NULL;
}

static int in_group(const struct bench_result *R, const char *topo, const char *shape,
                    const char *algo)
{
    return !R->scaling && !strcmp(R->topo, topo) && !strcmp(R->shape, shape) &&
           !strcmp(R->algo, algo);
}

double bench_geomean(size_t off, const char *topo, const char *shape, const char *algo,
                     int *count)
{
    double s = 0;
    int c = 0;
    for (size_t i = 0; i < bench_nres; i++) {
        const struct bench_result *R = &bench_res[i];
        double v = *(const double *)((const char *)R + off);
        if (in_group(R, topo, shape, algo) && v > 0) {
            s += log(v);
            c++;
        }
    }
    *count = c;
    return c ? exp(s / c) : NAN;
}

int bench_distinct(size_t off, const char **vals, int max)
{
    int nv = 0;
    for (size_t i = 0; i < bench_nres; i++) {
        if (bench_res[i].scaling)
            continue;
        const char *v = (const char *)&bench_res[i] + off;
        int seen = 0;
        for (int k = 0; k < nv && !seen; k++)
            seen = !strcmp(vals[k], v);
        if (!seen && nv < max)
            vals[nv++] = v;
    }
    return nv;
}

/* Cases of a group, counted on its first algorithm. */
static int group_cases(const char *topo, const char *shape, const char *algo)
{
    int c = 0;
    for (size_t i = 0; i < bench_nres; i++)
        c += in_group(&bench_res[i], topo, shape, algo);
    return c;
}

/* Above 1.05 x Scotch's hop-bytes, over the cases where both have a value. */
static void over_scotch(const char *topo, const char *shape, const char *algo, int *over,
                        int *of)
{
    *over = *of = 0;
    for (size_t i = 0; i < bench_nres; i++) {
        const struct bench_result *R = &bench_res[i];
        if (in_group(R, topo, shape, algo) && R->srel >= 0) {
            (*of)++;
            *over += R->srel > 1.05;
        }
    }
}

/* One table: a row per topology x allocation group, a column per algorithm.
 * off: the field whose geometric mean is shown; (size_t)-1: the counts above
 * 1.05 x Scotch. */
static void group_table(const char *title, size_t off, const char **algos, int nalgo)
{
    const char *topos[32], *shapes[8];
    int nt = bench_distinct(offsetof(struct bench_result, topo), topos, 32);
    int nsh = bench_distinct(offsetof(struct bench_result, shape), shapes, 8);
    bench_emit("\n## %s\n\n", title);
    bench_emit("%-18s %-11s %5s", "topology", "alloc", "cases");
    for (int k = 0; k < nalgo; k++)
        bench_emit(" %12s", algos[k]);
    bench_emit("\n");
    for (int ti = 0; ti < nt; ti++)
        for (int si = 0; si < nsh; si++) {
            int c = group_cases(topos[ti], shapes[si], algos[0]);
            if (!c)
                continue;
            bench_emit("%-18s %-11s %5d", topos[ti], shapes[si], c);
            for (int k = 0; k < nalgo; k++) {
                int over, of;
                char cell[32];
                if (off == (size_t)-1) {
                    over_scotch(topos[ti], shapes[si], algos[k], &over, &of);
                    snprintf(cell, sizeof cell, of ? "%d/%d" : "-", over, of);
                } else {
                    double g = bench_geomean(off, topos[ti], shapes[si], algos[k], &of);
                    snprintf(cell, sizeof cell, of ? "%.3f" : "-", g);
                }
                bench_emit(" %12s", cell);
            }
            bench_emit("\n");
        }
}

void bench_summary(const char **algos, int nalgo, const char *paper_topo, int nshared,
                   char shared[][48])
{
    const char *shapes[8];
    int nsh = bench_distinct(offsetof(struct bench_result, shape), shapes, 8);
    group_table("Hop-bytes relative to block, geometric mean over the profiles of each group",
                offsetof(struct bench_result, rel), algos, nalgo);
    group_table("Busiest link (congestion_max) relative to block's, geometric mean over the "
                "profiles of each group",
                offsetof(struct bench_result, cbrel), algos, nalgo);
    group_table("Hop-bytes relative to Scotch (same case), geometric mean",
                offsetof(struct bench_result, srel), algos, nalgo);
    group_table("Cases above 1.05 x Scotch's hop-bytes / cases where both ran", (size_t)-1, algos,
                nalgo);
    group_table("Congestion (bytes on the busiest channel) relative to Scotch's (same case), "
                "geometric mean",
                offsetof(struct bench_result, crel), algos, nalgo);
    group_table("Time relative to Scotch's time (same case), geometric mean",
                offsetof(struct bench_result, stime), algos, nalgo);

    bench_emit("\n## Targets\n\n");
    double t512 = 0, t4096 = 0, tbig = NAN, tbigmax = 0, worst = 0, sumr = 0;
    int c512 = 0, c4096 = 0, cbig = 0, cboth = 0, over5 = 0;
    const struct bench_result *worst_case = NULL;
    for (size_t i = 0; i < bench_nres; i++) {
        const struct bench_result *R = &bench_res[i];
        if (R->scaling)
            continue;
        if (!strcmp(R->algo, "ohtma") && R->secs >= 0) {
            if (R->n == 512) {
                c512++;
                if (R->secs > t512)
                    t512 = R->secs;
            }
            if (R->n == 4096) {
                c4096++;
                if (R->secs > t4096)
                    t4096 = R->secs;
            }
        }
        if (!strcmp(R->algo, "ohtma-fast") && R->n == 65536 && R->secs >= 0) {
            if (!strcmp(R->profile, "stencil-64x32x32"))
                tbig = R->secs;
            cbig++;
            if (R->secs > tbigmax)
                tbigmax = R->secs;
        }
        if (!strcmp(R->algo, "ohtma-fast") && R->hb >= 0) {
            const struct bench_result *F = bench_find(R->profile, R->topo, R->shape, "ohtma");
            if (F && F->hb > 0) {
                double r = R->hb / F->hb;
                cboth++;
                sumr += r;
                if (r > 1.05)
                    over5++;
                if (r > worst) {
                    worst = r;
                    worst_case = R;
                }
            }
        }
    }
    if (c512)
        bench_emit("ohtma at 512 ranks: slowest of %d cases %.4f s (target <= 0.1 s)\n", c512,
                   t512);
    if (c4096)
        bench_emit("ohtma at 4096 ranks: slowest of %d cases %.3f s (target <= 10 s)\n", c4096,
                   t4096);
    if (!isnan(tbig))
        bench_emit("ohtma-fast at 65536 ranks (stencil-64x32x32, 3D torus 16x16x16, 16 cores): "
                   "%.2f s\n",
                   tbig);
    if (cbig)
        bench_emit("ohtma-fast at 65536 ranks: slowest of %d cases %.2f s\n", cbig, tbigmax);
    if (cboth)
        bench_emit("ohtma-fast / ohtma hop-bytes over %d cases: mean %.4f, worst %.4f (%s on %s %s), "
             "%d cases above 1.05\n",
             cboth, sumr / cboth, worst, worst_case->profile, worst_case->topo, worst_case->shape,
             over5);

    bench_emit("\n## The paper's claim: ohtma below block, cyclic, greedy and rcm (those run) on %s\n\n",
               paper_topo);
    const char *rivals[] = {"block", "cyclic", "greedy", "rcm"};
    int wins = 0, ties = 0, losses = 0, na = 0;
    for (int w = 0; w < nshared; w++)
        for (int si = 0; si < nsh; si++) {
            const struct bench_result *O = bench_find(shared[w], paper_topo, shapes[si], "ohtma");
            if (!O || !(O->hb >= 0))
                continue;
            if (O->hb == 0) { /* one node: every mapping costs nothing */
                bench_emit("%-22s %-11s n/a: the job fits in one node, every mapping has 0 hop-bytes\n",
                     shared[w], shapes[si]);
                na++;
                continue;
            }
            char lose[160] = "", tie[96] = "", all[32];
            int nriv = 0;
            for (int r = 0; r < 4; r++) {
                const struct bench_result *R = bench_find(shared[w], paper_topo, shapes[si], rivals[r]);
                if (!R || !(R->hb >= 0))
                    continue;
                nriv++;
                char *buf = lose;
                size_t cap = sizeof lose;
                if (O->hb < R->hb) {
                    wins++;
                    continue;
                } else if (O->hb == R->hb) {
                    ties++;
                    buf = tie;
                    cap = sizeof tie;
                } else {
                    losses++;
                }
                size_t l = strlen(buf);
                snprintf(buf + l, cap - l, "%s%s (%.4f vs %.4f)", l ? ", " : "", rivals[r], O->rel,
                         R->rel);
            }
            snprintf(all, sizeof all, "below all %d", nriv);
            bench_emit("%-22s %-11s %s%s%s%s%s\n", shared[w], shapes[si],
                 lose[0] || tie[0] ? "" : all, lose[0] ? "ABOVE " : "", lose,
                 tie[0] ? (lose[0] ? "; equal to " : "equal to ") : "", tie);
        }
    bench_emit("ohtma below the rival in %d comparisons, equal in %d, above in %d (%d one-node cases)\n",
         wins, ties, losses, na);
}