/* SPDX-License-Identifier: BSD-3-Clause */
/* benefit-report: the tables of `make benefit` from its raw results.
 *
 *   benefit-report [RESULTS]        (standard input without RESULTS)
 *
 * RESULTS is written by benefit.sh, one record per line ('#' lines are
 * comments, echoed):
 *   app APP TEXT...                       an application and what it runs
 *   metric APP PLACEMENT HB SUMCOM INTERNODE MAXLINK   topomap eval's figures
 *   same APP PLACEMENT OTHER              same node groups as OTHER: not run
 *   skip APP PLACEMENT REASON...          no such placement (REASON)
 *   aa APP PLACEMENT [TEXT...]            PLACEMENT is the A/A control of block
 *                                         (TEXT: what it is, "block on renamed nodes")
 *   time APP PLACEMENT ROUND SECONDS [WALL]   one run's loop time (nan: failed)
 *                                         and the wall time of its whole launch
 * Per application: loop time median/min/max per placement, paired ratio to
 * block per round with its range, the metrics, the correlation of each
 * metric with the median time (Bordage & Jeannot 2017's hypothesis A) and a
 * verdict on auto; then the correlations of all applications pooled (metric
 * and time both relative to block) and a summary table. */
#include "benefit_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXAPP 8
#define MAXPL 32
#define MAXROUND 64
#define NMETRIC 4

static const char *metric_name[NMETRIC] = {"hop-bytes", "SumCom", "internode", "max link"};

struct placement {
    char name[64];
    char same[64];    /* not run: same node groups as this one */
    char skip[160];   /* not run: the reason */
    char aatext[160]; /* what the A/A control is */
    int has_metric, aa;
    double m[NMETRIC];
    double t[MAXROUND];    /* by round; NAN: not run or failed */
    double wall[MAXROUND]; /* launch to exit, by round; 0: not given */
};

struct app {
    char name[64];
    char text[256];
    int npl, nround;
    struct placement pl[MAXPL];
};

static struct app apps[MAXAPP];
static int napp;

static void fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "benefit-report: %s:%d: %s\n", file, line, what);
    exit(1);
}

static struct app *find_app(const char *name, int create)
{
    for (int i = 0; i < napp; i++)
        if (!strcmp(apps[i].name, name))
            return &apps[i];
    if (!create || napp == MAXAPP)
        return NULL;
    struct app *a = &apps[napp++];
    snprintf(a->name, sizeof a->name, "%s", name);
    return a;
}

static struct placement *plnamed(struct app *a, const char *name)
{
    for (int i = 0; i < a->npl; i++)
        if (!strcmp(a->pl[i].name, name))
            return &a->pl[i];
    return NULL;
}

static struct placement *find_pl(struct app *a, const char *name)
{
    struct placement *p = plnamed(a, name);
    if (p)
        return p;
    if (a->npl == MAXPL)
        return NULL;
    p = &a->pl[a->npl++];
    snprintf(p->name, sizeof p->name, "%s", name);
    for (int r = 0; r < MAXROUND; r++)
        p->t[r] = NAN;
    return p;
}

static void parse(FILE *f, const char *file)
{
    char line[1024], kind[16], an[64], pn[64], rest[512];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#') {
            puts(line);
            continue;
        }
        if (strspn(line, " \t") == strlen(line))
            continue;
        rest[0] = 0;
        int k = sscanf(line, "%15s %63s %63s %511[^\n]", kind, an, pn, rest);
        if (k < 2)
            fail(file, ln, "expected RECORD APP ...");
        if (!strcmp(kind, "app")) {
            struct app *a = find_app(an, 1);
            if (!a)
                fail(file, ln, "too many applications");
            const char *t = strstr(line, an) + strlen(an);
            snprintf(a->text, sizeof a->text, "%s", t + strspn(t, " "));
            continue;
        }
        struct app *a = find_app(an, 0);
        if (!a)
            fail(file, ln, "application not introduced by an 'app' line");
        if (k < 3)
            fail(file, ln, "no placement name");
        struct placement *p = find_pl(a, pn);
        if (!p)
            fail(file, ln, "too many placements");
        if (!strcmp(kind, "metric")) {
            if (sscanf(rest, "%lf %lf %lf %lf", &p->m[0], &p->m[1], &p->m[2], &p->m[3]) != 4)
                fail(file, ln, "metric needs HB SUMCOM INTERNODE MAXLINK");
            p->has_metric = 1;
        } else if (!strcmp(kind, "same")) {
            if (k < 4 || !plnamed(a, rest) || plnamed(a, rest) == p)
                fail(file, ln, "same needs another placement named before it");
            snprintf(p->same, sizeof p->same, "%.63s", rest); /* a name of find_pl: < 64 */
        } else if (!strcmp(kind, "skip")) {
            snprintf(p->skip, sizeof p->skip, "%.159s", k == 4 ? rest : "no reason given");
        } else if (!strcmp(kind, "aa")) {
            p->aa = 1;
            snprintf(p->aatext, sizeof p->aatext, "%.159s", k == 4 ? rest : "the same layout again");
        } else if (!strcmp(kind, "time")) {
            int round;
            char sec[64];
            double wall = 0;
            /* strtod, not %lf: "nan" marks a failed run */
            int got = sscanf(rest, "%d %63s %lf", &round, sec, &wall);
            if (got < 2 || round < 1 || round > MAXROUND || wall < 0)
                fail(file, ln, "time needs ROUND (1..64) SECONDS [WALL]");
            p->wall[round - 1] = wall;
            char *end;
            errno = 0;
            double s = strtod(sec, &end);
            if (*end || errno)
                fail(file, ln, "SECONDS is not a number (nan for a failed run)");
            p->t[round - 1] = s > 0 ? s : NAN;
            if (round > a->nround)
                a->nround = round;
        } else
            fail(file, ln, "unknown record (app, metric, same, skip, aa, time)");
    }
}

/* Times of the rounds that ran (failed ones left out). */
static int times(const struct placement *p, int nround, double *out)
{
    int k = 0;
    for (int r = 0; r < nround; r++)
        if (p->t[r] > 0)
            out[k++] = p->t[r];
    return k;
}

static struct placement *aa_of(struct app *a)
{
    for (int i = 0; i < a->npl; i++)
        if (a->pl[i].aa)
            return &a->pl[i];
    return NULL;
}

/* Placements that ran and have metrics, the A/A control left out. */
static int is_point(const struct placement *p, int nround)
{
    double t[MAXROUND];
    return !p->aa && !p->same[0] && !p->skip[0] && p->has_metric && times(p, nround, t) > 0;
}

static void correlations(const char *what, double (*x)[NMETRIC], const double *y, int n)
{
    printf("%s, %d placements:", what, n);
    for (int m = 0; m < NMETRIC; m++) {
        double col[MAXAPP * MAXPL], r, rho;
        for (int i = 0; i < n; i++)
            col[i] = x[i][m];
        int ok1 = bs_pearson(col, y, n, &r) == 0, ok2 = bs_spearman(col, y, n, &rho) == 0;
        printf("%s %s r=", m ? ";" : "", metric_name[m]);
        printf(ok1 ? "%.3f" : "n/a", r);
        printf(" rho=");
        printf(ok2 ? "%.3f" : "n/a", rho);
    }
    printf("\n");
}

struct summary {
    double block, autot, lo, hi, ratio, noise;
    enum bs_verdict v;
    int rounds, keeps; /* keeps: auto found block's node groups */
};

static void report_app(struct app *a, struct summary *s)
{
    struct placement *b = plnamed(a, "block"), *aa = aa_of(a);
    printf("\n== %s: %s\n", a->name, a->text);
    printf("%-16s %8s %8s %8s  %-22s %12s %12s %12s %12s\n", "placement", "median", "min", "max",
           "/block median [range]", "hop-bytes", "SumCom", "internode", "max link");
    double noise = NAN, aar[MAXROUND];
    int naa = 0;
    if (b && aa)
        naa = bs_paired_ratios(aa->t, b->t, a->nround, aar);
    if (naa > 0)
        noise = bs_noise(aar, naa);
    memset(s, 0, sizeof *s);
    s->block = s->autot = s->ratio = s->lo = s->hi = NAN;
    s->noise = noise;
    s->v = BS_UNKNOWN;
    for (int i = 0; i < a->npl; i++) {
        struct placement *p = &a->pl[i];
        printf("%-16s ", p->name);
        if (p->skip[0]) {
            printf("not run: %s\n", p->skip);
            continue;
        }
        if (p->same[0]) {
            printf("= %s (the same node groups, not run again)\n", p->same);
            continue;
        }
        double t[MAXROUND], rat[MAXROUND];
        int n = times(p, a->nround, t);
        int nr = b ? bs_paired_ratios(p->t, b->t, a->nround, rat) : 0;
        if (n)
            printf("%8.3f %8.3f %8.3f  ", bs_median(t, n), bs_min(t, n), bs_max(t, n));
        else
            printf("%8s %8s %8s  ", "failed", "", "");
        char rs[64] = "";
        if (nr)
            snprintf(rs, sizeof rs, "%.3f [%.3f-%.3f]", bs_median(rat, nr), bs_min(rat, nr),
                     bs_max(rat, nr));
        printf("%-22s", rs);
        if (p->has_metric)
            for (int m = 0; m < NMETRIC; m++)
                printf(" %12.5g", p->m[m]);
        if (p->aa)
            printf("  (A/A control)");
        if (n < a->nround)
            printf("  (%d of %d runs failed)", a->nround - n, a->nround);
        printf("\n");
        if (p == b && n)
            s->block = bs_median(t, n);
    }
    /* auto (reorder for the halo declared to MPI), or the placement with
     * its node groups that ran instead. */
    const char *subject = plnamed(a, "auto") || !plnamed(a, "reorder") ? "auto" : "reorder";
    struct placement *au = plnamed(a, subject);
    for (int hops = 0; au && au->same[0] && hops < MAXPL; hops++)
        au = plnamed(a, au->same);
    if (au && b && !au->skip[0]) {
        double t[MAXROUND], rat[MAXROUND];
        int n = times(au, a->nround, t), nr = bs_paired_ratios(au->t, b->t, a->nround, rat);
        if (n && nr) {
            s->autot = bs_median(t, n);
            s->ratio = bs_median(rat, nr);
            s->lo = bs_min(rat, nr);
            s->hi = bs_max(rat, nr);
            s->v = au == b ? BS_SAME : bs_verdict(rat, nr, noise);
            s->rounds = nr;
            s->keeps = au == b;
        }
    }
    double x[MAXPL][NMETRIC], y[MAXPL];
    int n = 0;
    for (int i = 0; i < a->npl; i++) {
        double t[MAXROUND];
        if (!is_point(&a->pl[i], a->nround))
            continue;
        memcpy(x[n], a->pl[i].m, sizeof x[n]);
        y[n++] = bs_median(t, times(&a->pl[i], a->nround, t));
    }
    correlations("correlation of each metric with the median loop time", x, y, n);
    /* The budget: a comparison (two placements x the rounds) in 2
     * minutes, counted from launch to exit of every run. */
    double wall_all = 0, wall_cmp = 0;
    for (int i = 0; i < a->npl; i++)
        for (int r = 0; r < a->nround; r++) {
            wall_all += a->pl[i].wall[r];
            if (&a->pl[i] == b || (au && au != b && &a->pl[i] == au))
                wall_cmp += a->pl[i].wall[r];
        }
    if (wall_all > 0)
        printf("wall time: %.0f s for all runs; %s and block, %d rounds each: %.0f s\n", wall_all,
               subject, a->nround, wall_cmp);
    if (naa)
        printf("A/A control (%s): ratio %.3f-%.3f over %d rounds, noise +-%.1f%%\n", aa->aatext,
               bs_min(aar, naa), bs_max(aar, naa), naa, 100 * noise);
    printf("verdict: %s: ", a->name);
    if (au == b && b)
        printf("%s keeps block's node groups: nothing to gain, nothing lost\n", subject);
    else if (!isnan(s->ratio))
        printf("%s%s%s x%.3f of block (rounds %.3f-%.3f), A/A noise +-%.1f%%: %s\n", subject,
               strcmp(au->name, subject) ? " = " : "", strcmp(au->name, subject) ? au->name : "",
               s->ratio, s->lo, s->hi, 100 * noise, bs_verdict_text(s->v));
    else
        printf("no %s/block comparison\n", subject);
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
        fprintf(stderr, "usage: benefit-report [RESULTS]\n");
        return argc > 2 ? 2 : 0;
    }
    FILE *f = stdin;
    const char *file = "<stdin>";
    if (argc == 2) {
        file = argv[1];
        f = fopen(file, "r");
        if (!f) {
            fprintf(stderr, "benefit-report: %s: %s\n", file, strerror(errno));
            return 1;
        }
    }
    parse(f, file);
    if (f != stdin)
        fclose(f);
    if (!napp) {
        fprintf(stderr, "benefit-report: %s: no application in the results\n", file);
        return 1;
    }
    struct summary sum[MAXAPP];
    double px[MAXAPP * MAXPL][NMETRIC], py[MAXAPP * MAXPL];
    int np = 0;
    for (int i = 0; i < napp; i++) {
        report_app(&apps[i], &sum[i]);
        /* Pooled: metric and time relative to block's. */
        struct placement *b = plnamed(&apps[i], "block");
        double tb[MAXROUND];
        int nb = b ? times(b, apps[i].nround, tb) : 0;
        if (!nb || !b->has_metric)
            continue;
        double bt = bs_median(tb, nb);
        for (int j = 0; j < apps[i].npl; j++) {
            struct placement *p = &apps[i].pl[j];
            double t[MAXROUND];
            if (!is_point(p, apps[i].nround))
                continue;
            for (int m = 0; m < NMETRIC; m++)
                px[np][m] = b->m[m] > 0 ? p->m[m] / b->m[m] : NAN;
            py[np++] = bs_median(t, times(p, apps[i].nround, t)) / bt;
        }
    }
    printf("\n== all applications\n");
    correlations("correlation of metric/block with time/block, pooled", px, py, np);
    printf("\n| application | block (s) | auto or reorder (s) | / block [rounds] | A/A noise | verdict |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int i = 0; i < napp; i++) {
        struct summary *s = &sum[i];
        printf("| %s | %.3f | %.3f | %.3f [%.3f-%.3f] | +-%.1f%% | %s |\n", apps[i].name, s->block,
               s->autot, s->ratio, s->lo, s->hi, 100 * s->noise,
               s->keeps ? "auto keeps block's layout" : bs_verdict_text(s->v));
    }
    return 0;
}
