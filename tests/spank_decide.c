/* SPDX-License-Identifier: BSD-3-Clause */
/* The placement decision (spank/decide.c) on the 2x2 mesh of tests/data/slurm,
 * with its failure policy, and at scale on the shipped 16x16x16 torus. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

/* The placement decision on the 2x2 mesh of tests/data/slurm (what the
 * release changes in it: tests/spank_release.c). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A lookup in the store slower than time_limit, as on a slow or hung
 * filesystem (tests/store_slow.sh does it on a FUSE filesystem that sleeps;
 * here a profile of 8 ranks with 2 million edge lines to parse): the lookup's
 * thread is left behind at the deadline, and the step keeps Slurm's layout
 * then, with one line. */
static void slow_lookup_tests(struct topomap_site *sd, const char *const *env, const char *store)
{
    char err[TOPOMAP_ERRLEN], path[700];
    struct topomap_srun o;
    struct topomap_decision d;
    snprintf(path, sizeof path, "%s/slow8.profile", store);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# nranks=8\n", f);
        for (int i = 0; i < 2000000; i++)
            fputs("0 1 1\n", f);
        if (fclose(f) == EOF)
            f = NULL;
    }
    double t0 = now();
    topomap_profile_t *p = topomap_store_lookup(store, "slow8", 8, err, sizeof err);
    double whole = now() - t0;
    ok(f && p, "a profile of 8 ranks and 2 million edge lines: %.0f ms to look up", 1e3 * whole);
    topomap_profile_free(p);
    sd->time_limit = 20;
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=slow8", "app", NULL);
    t0 = now();
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    double t = now() - t0;
    ok(d.outcome == TOPOMAP_KEEP &&
           !strcmp(d.message, "topomap: reading profile 'slow8' from the store did not end within "
                              "time_limit=20ms (its filesystem is slow or hung); using Slurm's "
                              "default layout"),
       "time_limit=20 and that lookup: Slurm's layout, one line (%s)", d.message);
    ok(t < whole && d.hosts == NULL && d.pmi2 == NULL,
       "... decided in %.1f ms, before the lookup could end: it was left behind", 1e3 * t);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* The thread left behind still reads it: unlinking is safe. */
    unlink(path);
    /* It ends, and frees what it read (the leak checkers see every block
     * freed at exit only if it has). */
    double t1 = now();
    while (tmsp_lookups_left() > 0 && now() - t1 < 120)
        usleep(10000);
    is_int(tmsp_lookups_left(), 0, "the lookup left behind ended after %.0f ms more",
           1e3 * (now() - t1));
}

/* Failures: one line each, Slurm's layout kept. */
static void failure_tests(struct topomap_site *s, const char *const *env)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    const char *none[] = {NULL};
    /* Failures: one line, Slurm's layout. */
    struct {
        const char *argv[6];
        const char *const *env;
        const char *want;
    } bad[] = {
        {{"srun", "-n8", "--topomap=cyclic", "--topomap-profile=nothere", "app"}, env,
         "no profile 'nothere' in the store"},
        {{"srun", "-n8", "--topomap=cyclic", "--topomap-profile=corrupt", "app"}, env,
         "corrupt.profile:"},
        {{"srun", "-n4", "--topomap=cyclic", "--topomap-profile=pair8", "app"}, env,
         "recorded with 8 ranks, this job has 4"},
        {{"srun", "-n8", "--topomap=cyclic", "-w", "n1", "app"}, env, "-w given"},
        {{"srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8", "app"}, none,
         "not inside an allocation"},
        {{"srun", "-n8", "--topomap=cyclic", "--multi-prog", "conf"}, env, "no profile name"},
        {{"srun", "-n20", "--topomap=cyclic", "--topomap-profile=pair8", "app"}, env,
         "cannot predict Slurm's layout"},
        {{"srun", "-n8", "--topomap=random", "--topomap-profile=pair8", "app"}, env,
         "random does not reduce hop-bytes (8000 -> 8040)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (argc < 6 && bad[i].argv[argc])
            argc++;
        tmsp_srun_init(&o);
        tmsp_srun_parse(&o, argc, (char *const *)bad[i].argv, fake_env, (void *)bad[i].env,
                        err, sizeof err);
        tmsp_decide(s, &o, fake_env, (void *)bad[i].env, &d);
        ok(d.outcome == TOPOMAP_KEEP && !d.hosts && !strncmp(d.message, "topomap: ", 9) &&
               strstr(d.message, bad[i].want) && strchr(d.message, '\n') == NULL,
           "%s %s: %s", bad[i].argv[2], bad[i].argv[3] ? bad[i].argv[3] : "", d.message);
        tmsp_decision_free(&d);
        tmsp_srun_free(&o);
    }

    /* An unknown algorithm is srun's error (the option callback's), before
     * any decision; what the user typed is not echoed raw. */
    ok(parse(&o, env, err, "srun", "-n8", "--topomap=x\033]0;owned\007\r", "app", NULL) < 0 &&
           strstr(err, "unknown algorithm 'x?]0;owned?" "?'") && !strpbrk(err, "\033\007\r"),
       "an algorithm name with ESC, BEL, CR: refused, shown as '?'");
    tmsp_srun_free(&o);
    /* A site default naming no algorithm (plugstack.conf) still gets one line. */
    free(s->dflt);
    s->dflt = strdup("nosuch");
    parse(&o, env, err, "srun", "-n8", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "unknown algorithm 'nosuch' (known: off, "),
       "default=nosuch: %s", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    free(s->dflt);
    s->dflt = strdup("off");

}

/* NAME+refine, and a grid profile recorded at another rank count. */
static void refine_grid_tests(struct topomap_site *s, const char *const *env, const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* NAME+refine: the algorithm, then the refinement engine. random+refine
     * improves on random's 8040 and, on this pair profile, on Slurm's 8000. */
    parse(&o, env, err, "srun", "-n8", "--topomap=random+refine", "--topomap-profile=pair8",
          "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.hop_bytes_new < d.hop_bytes_default,
       "--topomap=random+refine is accepted and remaps (%g -> %g)", d.hop_bytes_default,
       d.hop_bytes_new);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);

    /* A grid recorded at another rank count: synthesised, said under
     * --topomap-verbose. A 2 x 2 halo stored at 4 ranks, used by
     * an 8-rank step: MPI_Dims_create(8, 2) = 4 x 2, the 4 on the slowest
     * dimension as the recorded extents tie (x = 2, y = 4). */
    {
        int hs[8] = {0, 1, 2, 3, 0, 2, 1, 3}, hd[8] = {1, 0, 3, 2, 2, 0, 3, 1};
        double hb[8] = {500, 500, 500, 500, 500, 500, 500, 500};
        topomap_profile_t *halo = topomap_profile_create(4, 8, hs, hd, hb, NULL, err, sizeof err);
        ok(halo && topomap_store_add(store, "halo4", halo, err, sizeof err) == 0,
           "stored a 2 x 2 halo recorded at 4 ranks");
        topomap_profile_free(halo);
    }
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=halo4",
          "--topomap-verbose", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP || d.outcome == TOPOMAP_KEEP, "8-rank step with halo4: placed");
    is_str(d.note,
           "topomap: profile 'halo4' was recorded with 4 ranks; it is a process grid, so its "
           "8-rank version (grid 2x4) was synthesised from it",
           "--topomap-verbose says the profile was synthesised, in one line");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=halo4", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(!d.note[0] && !strstr(d.message, "recorded with"), "... silent without --topomap-verbose");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}

/* gain_metric: what decides whether the new layout is worth it; then a
 * profile given as a path. */
static void gain_tests(struct topomap_site *s, const char *const *env, const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* gain_metric=congestion: the busiest link decides. Profile
     * hb8: 0->2 1000 bytes, 0<->4 100 each way. Block (n1: 0 1, n2: 2 3,
     * n3: 4 5) loads n1->n2 with 1000 and n1<->n3 with 100: hop-bytes 1200;
     * cyclic (n1: 0 4, n3: 2 6) keeps 0<->4 on n1 and sends 0->2 over
     * n1->n3: hop-bytes 1000, the busiest link still 1000. */
    {
        int gs[3] = {0, 0, 4}, gd[3] = {2, 4, 0};
        double gb[3] = {1000, 100, 100};
        topomap_profile_t *hb8 = topomap_profile_create(8, 3, gs, gd, gb, NULL, err, sizeof err);
        ok(hb8 && topomap_store_add(store, "hb8", hb8, err, sizeof err) == 0, "stored hb8");
        topomap_profile_free(hb8);
    }
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=hb8",
          "--topomap-verbose", "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.hop_bytes_default == 1200 && d.hop_bytes_new == 1000,
       "gain_metric=hop_bytes (default): hop-bytes 1200 -> 1000, remapped");
    tmsp_decision_free(&d);
    char *gm[] = {"gain_metric=congestion"};
    is_int(tmsp_site_parse(s, 1, gm, err, sizeof err), 0, "gain_metric=congestion accepted");
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_KEEP, "gain_metric=congestion: busiest link 1000 -> 1000, kept");
    is_str(d.message,
           "topomap: cyclic does not reduce busiest-link load (1000 -> 1000); using Slurm's "
           "default layout",
           "... and the user is told why, in one line");
    like(d.summary, "busiest link 1000 -> 1000 bytes: gain below min_gain", "summary");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* pair8: cyclic takes both 2000-byte links off the network (10 left). */
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8",
          "--topomap-verbose", "app", NULL);
    s->min_gain = 0.99;
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "gain_metric=congestion: busiest link 2000 -> 10 passes "
                                   "min_gain=0.99");
    like(d.summary, "busiest link 2000 -> 10 bytes", "summary gives the busiest link");
    tmsp_decision_free(&d);
    s->min_gain = 0.999;
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    is_str(d.message,
           "topomap: cyclic would save 99.5% of busiest-link load, less than min_gain=99.9%; "
           "using Slurm's default layout",
           "... and 99.5% is less than min_gain=0.999");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    char *gh[] = {"gain_metric=hop_bytes", "min_gain=0"};
    tmsp_site_parse(s, 2, gh, err, sizeof err);
    ok(!s->gain_congestion && s->min_gain == 0, "gain_metric=hop_bytes restores the default");

    /* A profile given as a path. */
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=" DATA "/pair8.txt",
          "app", NULL);
    tmsp_decide(s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_REMAP, "--topomap-profile=PATH loads the file");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}

/* A site default (default=cyclic): quiet unless asked, strict=1. */
static void site_default_tests(struct topomap_site *sd, const char *const *env)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* The site default stays quiet about unprofiled applications... */
    parse(&o, env, err, "srun", "-n8", "unprofiled", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0] && !d.summary[0] && !d.explicit_req,
       "site default, no profile: silent");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap-verbose", "unprofiled", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0], "... with --topomap-verbose: no message");
    like(d.summary, "no profile 'unprofiled'", "... but the summary says why");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    /* ... and applies to profiled ones, named after the executable. */
    parse(&o, env, err, "srun", "-n8", "/some/where/pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && !d.explicit_req, "site default remaps a profiled application");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "env", "A=1", "accelerate", "launch", "pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0] && strstr(d.log, "accelerate launch numbers"),
       "site default, accelerate launch: silent for the user, said in the admin's log (%s)",
       d.log);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=off", "pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_OFF && !d.message[0], "--topomap=off overrides the site default");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);

    /* strict=1: explicit failures fail the step, quiet ones do not. */
    char *sargs[] = {"strict=1"};
    tmsp_site_parse(sd, 1, sargs, err, sizeof err);
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=nothere", "a", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_FAIL && strstr(d.message, "failing the step (strict=1)"),
       "strict: a missing profile asked for fails the step");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "unprofiled", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_KEEP,
           "strict: the site default on an unprofiled application does not");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}

/* min_gain, bind=none, time_limit, topology problems, under site sd. */
static void limit_tests(struct topomap_site *sd, const char *const *env, const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* min_gain, bind=none, time_limit, topology problems. */
    char *margs[] = {"min_gain=0.999", "bind=none"};
    tmsp_site_parse(sd, 2, margs, err, sizeof err);
    sd->strict = 0;
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "less than min_gain=99.9%"),
       "a gain of 99.75%% is below min_gain=0.999");
    tmsp_decision_free(&d);
    sd->min_gain = 0.5;
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.bind == NULL && d.pmi2 != NULL,
       "bind=none: remapped, no TOPOMAP_BIND");
    tmsp_decision_free(&d);
    /* A budget spent before the profile is looked up: nothing is looked up or
     * mapped, Slurm's layout stays, and one line says which step used the
     * time. */
    sd->time_limit = 1e-9;
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "time_limit=1e-09ms"),
       "a time limit that cannot be met: %s", d.message);
    ok(!strncmp(d.message, "topomap: predicting Slurm's layout ended at ", 44) &&
           strstr(d.message, "; using Slurm's default layout") && !strchr(d.message, '\n'),
       "the budget ends before loading: one line naming the step");
    ok(d.hosts == NULL && d.pmi2 == NULL && d.bind == NULL && d.seconds == 0,
       "the budget ends before loading: no mapping is computed");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=auto,verbose", "pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.log, "predicting Slurm's layout ended at ") &&
           !d.summary[0],
       "auto, verbose, budget spent before loading: kept, the log line says why (%s)", d.log);
    tmsp_decision_free(&d);
    sd->strict = 1;
    tmsp_decide(sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_FAIL && strstr(d.message, "past time_limit=1e-09ms; failing the step"),
       "strict=1: a budget spent before loading fails the step (%s)", d.message);
    tmsp_decision_free(&d);
    sd->strict = 0;
    tmsp_srun_free(&o);
    slow_lookup_tests(sd, env, store);
    sd->time_limit = 2000;
    const char *other[] = {"SLURM_JOB_NODELIST=x[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    parse(&o, other, err, "srun", "-n8", "--topomap=cyclic", "pair8", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "'x1' is not in the topology"),
       "hosts missing from the topology: %s", d.message);
    tmsp_decision_free(&d);
    free(sd->topology);
    sd->topology = strdup(DATA "/no-such.yaml");
    tmsp_decide(sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "topology: "), "unreadable topology: %s",
       d.message);
    tmsp_decision_free(&d);
    free(sd->topology);
    sd->topology = NULL;
    tmsp_decide(sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "no topology configured"),
       "no topology= in plugstack.conf");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}

/* A layout too irregular for PMI2; args: the site arguments of the mesh. */
static void irregular_tests(struct topomap_site *sd, char **args, const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    struct topomap_decision d;
    /* Too irregular for a PMI2 mapping: remapped all the same. */
    tmsp_site_parse(sd, 1, args, err, sizeof err);
    sd->min_gain = -1000; /* accept any layout */
    sd->bind = 1;
    const char *big[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=100(x4)", NULL};
    int n = 400, *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    double *by = malloc(n * sizeof *by);
    for (int i = 0; i < n; i++) {
        src[i] = i;
        dst[i] = (i + 1) % n;
        by[i] = 1;
    }
    topomap_profile_t *ringp = topomap_profile_create(n, n, src, dst, by, NULL, err, sizeof err);
    topomap_store_add(store, "ring400", ringp, err, sizeof err);
    topomap_profile_free(ringp);
    free(src);
    free(dst);
    free(by);
    parse(&o, big, err, "srun", "-n400", "-O", "--topomap=random", "--mpi=pmi2", "ring400", NULL);
    tmsp_decide(sd, &o, fake_env, (void *)big, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.pmi2 == NULL && d.hosts && d.bind && !d.message[0],
       "random layout of 400 ranks: remapped, no PMI2 mapping (the nodes warn)");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
}

static void decide_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};

    tmsp_site_init(&s);
    char *args[] = {"topology=" DATA "/mesh-2x2-2core.yaml", NULL};
    char pa[600];
    snprintf(pa, sizeof pa, "profiles=%s", store);
    args[1] = pa;
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0, "site policy for the mesh");

    /* What `topomap map --algo cyclic` computes for the same inputs. */
    topomap_topology_t *t = topomap_topology_load(DATA "/mesh-2x2-2core.yaml", err, sizeof err);
    topomap_alloc_t *a = topomap_alloc_create(t, "n[1-4]", "2", err, sizeof err);
    topomap_profile_t *p = topomap_store_lookup(store, "pair8", 8, err, sizeof err);
    int r2s[8];
    ok(t && a && p && topomap_map("cyclic", p, a, NULL, r2s, err, sizeof err) == 0,
       "reference cyclic mapping");

    ok(parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8",
             "--topomap-verbose", "--mpi=pmi2", "app", NULL) == 0,
       "srun -n8 --topomap=cyclic");
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_REMAP, "remapped");
    is_int(d.nranks, 8, "8 ranks");
    int same = d.hosts != NULL;
    for (int r = 0; r < 8 && same; r++)
        same =
            !strcmp(d.hosts[r], topomap_topology_node_name(t, topomap_alloc_slot_node(a, r2s[r])));
    ok(same, "every rank on the node topomap_map chose");
    is_str(d.bind, "1:1:0x4,1x4", "cores: the first 4 ranks on core 0, the next on core 1");
    is_str(d.pmi2, "(vector,(0,4,1),(0,4,1))", "PMI2 mapping of the cyclic layout");
    is_double(d.hop_bytes_default, 8000, 0, "hop-bytes of Slurm's layout by hand: 8 x 1000 x 1");
    is_double(d.hop_bytes_new, 20, 0, "after: only 0<->1 (10+10 bytes, 1 hop) leaves a node");
    like(d.summary, "cyclic on 8 ranks, nodes n[1-4] (2,2,2,2 tasks per node)", "summary");
    like(d.summary, "hop-bytes 8000 -> 20 (-99.8%)", "summary has hop-bytes before/after");
    is_str(d.message, "", "no message");
    like(d.log, "cyclic on 8 ranks, nodes n[1-4] (2,2,2,2 tasks per node): hop-bytes 8000 -> 20",
         "the admin's log line: %s", d.log);
    ok(strncmp(d.log, "topomap: ", 9) != 0 && strstr(d.log, ": remapped"),
       "... says remapped, without the 'topomap: ' prefix");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);

    /* block: nothing to change, nothing said. */
    parse(&o, env, err, "srun", "-n8", "--topomap=block", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.hosts && !d.message[0] && !d.summary[0],
       "block keeps Slurm's layout silently");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);

    failure_tests(&s, env);
    refine_grid_tests(&s, env, store);
    gain_tests(&s, env, store);

    struct topomap_site sd;
    tmsp_site_init(&sd);
    char *dargs[] = {args[0], pa, "default=cyclic"};
    tmsp_site_parse(&sd, 3, dargs, err, sizeof err);
    site_default_tests(&sd, env);
    limit_tests(&sd, env, store);
    irregular_tests(&sd, args, store);

    tmsp_site_free(&sd);
    tmsp_site_free(&s);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Scale: 4096 ranks on the 4096 nodes of the shipped 16x16x16 torus, one
 * slot per node, a 3D stencil whose rank order is shuffled (Slurm's layout
 * is poor). With the default time_limit (2000 ms) --topomap=auto must remap
 * and say nothing about a time-out (the plugin once fell back to Slurm's
 * layout exactly on such jobs). */
static void scale_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=t[0000-4095]", "SLURM_JOB_CPUS_PER_NODE=1(x4096)",
                         NULL};
    tmsp_site_init(&s);
    char pa[600];
    snprintf(pa, sizeof pa, "profiles=%s", store);
    char *args[] = {"topology=" SRCDIR "/../topologies/torus-16x16x16.yaml", pa};
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0,
           "site policy: shipped 16x16x16 torus");
    is_double(s.time_limit, 2000, 0, "default time_limit is 2000 ms");

    int X = 16, n = X * X * X, m = 0, *perm = malloc(sizeof(int) * (size_t)n);
    int *src = malloc(sizeof(int) * (size_t)n * 6), *dst = malloc(sizeof(int) * (size_t)n * 6);
    double *by = malloc(sizeof(double) * (size_t)n * 6);
    uint64_t st = 99;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* seeded shuffle */
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((st >> 33) % (uint64_t)(i + 1)), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (int z = 0; z < X; z++)
        for (int y = 0; y < X; y++)
            for (int x = 0; x < X; x++) {
                int i = x + X * (y + X * z), nb[3] = {x + 1 < X ? i + 1 : -1,
                                                       y + 1 < X ? i + X : -1,
                                                       z + 1 < X ? i + X * X : -1};
                for (int k = 0; k < 3; k++)
                    if (nb[k] >= 0) {
                        src[m] = perm[i], dst[m] = perm[nb[k]], by[m++] = 4096;
                        src[m] = perm[nb[k]], dst[m] = perm[i], by[m++] = 4096;
                    }
            }
    topomap_profile_t *p =
        topomap_profile_create(n, (size_t)m, src, dst, by, NULL, err, sizeof err);
    ok(p && topomap_store_add(store, "stencil4096", p, err, sizeof err) == 0,
       "store a shuffled 16^3 stencil: %s", p ? "" : err);
    topomap_profile_free(p);
    free(perm);
    free(src);
    free(dst);
    free(by);

    ok(parse(&o, env, err, "srun", "-n4096", "--topomap=auto", "--topomap-profile=stencil4096",
             "app", NULL) == 0,
       "srun -n4096 --topomap=auto on 4096 nodes");
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "remapped within the default time_limit (%s%s)", d.summary,
       d.message);
    is_str(d.message, "", "nothing to tell the user (no time-out)");
    ok(d.hop_bytes_new < 0.5 * d.hop_bytes_default,
       "hop-bytes at least halved: %.6g -> %.6g in %.0f ms", d.hop_bytes_default,
       d.hop_bytes_new, 1000.0 * d.seconds);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
}

/* Hop-bytes in the plugin's line are integers, as topomap map prints them
 * (1234000000, not 1.234e+09). */
static void integer_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN], pa[600];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    tmsp_site_init(&s);
    snprintf(pa, sizeof pa, "profiles=%s", store);
    char *args[] = {"topology=" DATA "/mesh-2x2-2core.yaml", pa};
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0, "site policy for the mesh");
    /* Rank r talks to r + 2 (mod 8): 1,234,000,000 bytes each way. */
    int src[16], dst[16];
    double by[16];
    for (int r = 0; r < 8; r++) {
        src[2 * r] = r, dst[2 * r] = (r + 2) % 8, by[2 * r] = 1234e6;
        src[2 * r + 1] = (r + 2) % 8, dst[2 * r + 1] = r, by[2 * r + 1] = 1234e6;
    }
    topomap_profile_t *p = topomap_profile_create(8, 16, src, dst, by, NULL, err, sizeof err);
    ok(p && topomap_store_add(store, "big8", p, err, sizeof err) == 0, "store big8");
    topomap_profile_free(p);
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=big8",
          "--topomap-verbose", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    char want[128];
    snprintf(want, sizeof want, "hop-bytes %.0f -> %.0f (", d.hop_bytes_default, d.hop_bytes_new);
    ok(d.hop_bytes_default >= 1e9 && strstr(d.summary, want) && !strstr(d.summary, "e+"),
       "hop-bytes as integers in the verbose line (%s)", d.summary);
    ok(strstr(d.log, want) != NULL, "... and in the admin's log (%s)", d.log);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
}

/* An allocation across node types (tests/data/topologies/mixed.yaml: m3
 * has 2 cores, m6 8): every rank on a node of the step, each node's ranks on
 * distinct cores of that node. */
static void node_type_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN], pa[600];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=m[3,6]", "SLURM_JOB_CPUS_PER_NODE=2,6", NULL};
    snprintf(pa, sizeof pa, "profiles=%s", store);
    char *args[] = {"topology=" SRCDIR "/data/topologies/mixed.yaml", pa};
    tmsp_site_init(&s);
    is_int(tmsp_site_parse(&s, 2, args, err, sizeof err), 0, "site on the mixed machine");
    s.min_gain = -1000; /* any layout: the point is its validity */
    parse(&o, env, err, "srun", "-n8", "--topomap=ohtma", "--topomap-profile=pair8", "app", NULL);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    int n3 = 0, n6 = 0, good = d.outcome == TOPOMAP_REMAP && d.hosts && d.bind;
    int core[8], cpt = 0;
    good = good && tmsp_bind_decode(d.bind, 8, core, &cpt) == 0;
    int used3 = 0, used6 = 0;
    for (int r = 0; good && r < 8; r++) {
        int on3 = !strcmp(d.hosts[r], "m3");
        good = on3 || !strcmp(d.hosts[r], "m6");
        if (on3) {
            n3++;
            good = good && core[r] < 2 && !(used3 & 1 << core[r]);
            used3 |= 1 << core[r];
        } else {
            n6++;
            good = good && core[r] < 6 && !(used6 & 1 << core[r]);
            used6 |= 1 << core[r];
        }
    }
    ok(good && n3 == 2 && n6 == 6,
       "m3 (2 cores) and m6 (8 cores): remapped, 2 + 6 ranks on distinct cores of their nodes (%s)",
       d.message[0] ? d.message : d.bind ? d.bind : "no binding");
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
}

int main(void)
{
    char store[] = "/tmp/topomap-policy-test.XXXXXX";
    if (make_pair8_store(store) < 0)
        return done_testing();
    char path[600];
    snprintf(path, sizeof path, "%s/corrupt.profile", store);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# nranks=8\n0 1 zz\n", f);
        fclose(f);
    }
    decide_tests(store);
    node_type_tests(store);
    integer_tests(store);
    scale_tests(store);
    remove_store(store);
    return done_testing();
}
