/* SPDX-License-Identifier: BSD-3-Clause */
/* srun's command line and environment (spank/srun.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

/* --topomap-record[=NAME]: an optional argument, attached only. */
static void record_option_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    const char *none[] = {NULL};

    ok(parse(&o, none, err, "srun", "-n2", "app", NULL) == 0 && o.record == NULL,
       "no --topomap-record: not recording");
    tmsp_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--topomap-record", "./bin/app", "x", NULL) == 0 && o.record &&
           !strcmp(o.record, ""),
       "--topomap-record without a name");
    is_str(o.app, "app", "... does not take the executable for its argument");
    tmsp_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--topomap-record=lj", "--topomap-rec=", "a", NULL) == 0 &&
           o.record && !strcmp(o.record, ""),
       "--topomap-rec= (prefix, empty) after --topomap-record=lj: the last one counts");
    tmsp_srun_free(&o);
    const char *renv[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_record=(null)", NULL};
    ok(parse(&o, renv, err, "srun", "a", NULL) == 0 && o.record && !strcmp(o.record, ""),
       "sbatch --topomap-record (exported as \"(null)\"): recording, no name");
    tmsp_srun_free(&o);
    const char *renv2[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_record=nb", NULL};
    ok(parse(&o, renv2, err, "srun", "a", NULL) == 0 && o.record && !strcmp(o.record, "nb"),
       "sbatch --topomap-record=nb");
    tmsp_srun_free(&o);
    ok(parse(&o, renv2, err, "srun", "--topomap-record=mine", "a", NULL) == 0 && o.record &&
           !strcmp(o.record, "mine"),
       "srun's --topomap-record=mine wins over sbatch's");
    tmsp_srun_free(&o);
}

static void srun_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_srun o;
    const char *none[] = {NULL};

    ok(parse(&o, none, err, "srun", "-n", "8", "-N4", "./bin/app", "-n", "3", NULL) == 0,
       "srun -n 8 -N4 ./bin/app -n 3");
    ok(o.ntasks == 8 && o.nnodes == 4, "-n 8 -N4 read, the application's -n ignored");
    is_str(o.app, "app", "application name is the executable's basename");
    ok(!o.conflict && !o.algo && !o.profile && !o.verbose, "nothing else set");
    tmsp_srun_free(&o);

    ok(parse(&o, none, err, "srun", "-lN2", "-o", "out.txt", "-c2", "--ntasks=6", "--mpi",
             "pmi2", "--overc", "hostname", NULL) == 0,
       "clustered short options, arguments skipped, long prefixes");
    ok(o.nnodes == 2 && o.cpus_per_task == 2 && o.ntasks == 6 && o.overcommit,
       "-lN2 -c2 --ntasks=6 --overc");
    is_str(o.mpi, "pmi2", "--mpi pmi2 (separate argument)");
    is_str(o.app, "hostname", "-o's argument is not taken for the executable");
    tmsp_srun_free(&o);

    ok(parse(&o, none, err, "srun", "--topomap", "ohtma", "--topomap-prof=lj", "--topomap-verbose",
             "--", "-weird-name", NULL) == 0,
       "plugin options and --");
    is_str(o.algo, "ohtma", "--topomap ohtma");
    is_str(o.profile, "lj", "--topomap-prof= (unique prefix)");
    ok(o.verbose, "--topomap-verbose");
    is_str(o.app, "-weird-name", "executable after --");
    tmsp_srun_free(&o);

    ok(parse(&o, none, err, "srun", "--multi-prog", "-n4", "conf.txt", NULL) == 0 && !o.app,
       "--multi-prog: no application name");
    tmsp_srun_free(&o);

    const char *conflicts[][3] = {{"-w", "n1", "-w"},
                                  {"--nodelist=n[1-2]", NULL, "--nodelist"},
                                  {"-m", "cyclic", "-m"},
                                  {"-x", "n3", "-x"},
                                  {"--exact", NULL, "--exact"},
                                  {"-r1", NULL, "-r"},
                                  {"--spread-job", NULL, "--spread-job"},
                                  {"--async", NULL, "--async"},
                                  {":", NULL, "heterogeneous"},
                                  {"-N", "2-4", "-N range"}};
    for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++) {
        int rc = conflicts[i][1]
                     ? parse(&o, none, err, "srun", conflicts[i][0], conflicts[i][1], "a", NULL)
                     : parse(&o, none, err, "srun", conflicts[i][0], "a", NULL);
        ok(rc == 0 && o.conflict && strstr(o.conflict, conflicts[i][2]),
           "%s is a conflict (%s)", conflicts[i][0], o.conflict ? o.conflict : "none");
        tmsp_srun_free(&o);
    }

    err[0] = 0;
    ok(parse(&o, none, err, "srun", "-n", "abc", "a", NULL) < 0 && errno == EINVAL,
       "-n abc rejected");
    like(err, "srun -n: 'abc' is not a task count", "message names the option and value");
    tmsp_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--ntasks=0", "a", NULL) < 0 && errno == EINVAL,
       "--ntasks=0 rejected");
    tmsp_srun_free(&o);
    ok(parse(&o, none, err, "srun", "-c", "-1", "a", NULL) < 0, "-c -1 rejected");
    tmsp_srun_free(&o);
    /* Control characters from the command line are not echoed. */
    ok(parse(&o, none, err, "srun", "-n", "\033]0;x\007\r8", "a", NULL) < 0 &&
           strstr(err, "'?]0;x??8' is not a task count") && !strpbrk(err, "\033\007\r"),
       "a bad -n with ESC, BEL, CR: shown as '?' (%s)", err);
    tmsp_srun_free(&o);
    const char *escenv[] = {"SLURM_NNODES=\0334", NULL};
    ok(parse(&o, escenv, err, "srun", "a", NULL) < 0 && strstr(err, "SLURM_NNODES='?4'"),
       "... nor from the environment (%s)", err);
    tmsp_srun_free(&o);
    err[0] = 0;
    ok(parse(&o, none, err, "srun", "-n", NULL) < 0 && errno == EINVAL, "-n without argument");
    like(err, "needs an argument", "message says so");
    tmsp_srun_free(&o);

    /* The environment fills in what the command line left open. */
    const char *env[] = {"SLURM_NTASKS=16",
                         "SLURM_NNODES=4",
                         "SRUN_CPUS_PER_TASK=2",
                         "SLURM_CPUS_PER_TASK=3",
                         "SLURM_NTASKS_PER_NODE=4",
                         "SLURM_MPI_TYPE=pmix",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap=greedy",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_profile=lammps",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_verbose=(null)",
                         NULL};
    ok(parse(&o, env, err, "srun", "app", NULL) == 0, "environment only");
    ok(o.ntasks == 16 && o.nnodes == 4 && o.cpus_per_task == 2 && o.ntasks_per_node == 4,
       "SLURM_NTASKS, SLURM_NNODES, SRUN_CPUS_PER_TASK (22.05), SLURM_NTASKS_PER_NODE");
    ok(o.ntasks_env && o.nnodes_env, "counts from the environment are marked so");
    tmsp_srun_free(&o);
    parse_release = tmsp_release_find(24, 11);
    ok(parse(&o, env, err, "srun", "app", NULL) == 0 && o.cpus_per_task == 3,
       "24.11 reads SLURM_CPUS_PER_TASK instead (%ld)", o.cpus_per_task);
    tmsp_srun_free(&o);
    parse_release = tmsp_release_find(23, 2);
    ok(parse(&o, env, err, "srun", "app", NULL) == 0 && o.cpus_per_task == 2,
       "23.02 still reads SRUN_CPUS_PER_TASK (%ld)", o.cpus_per_task);
    tmsp_srun_free(&o);
    parse_release = tmsp_release_find(23, 11);
    ok(parse(&o, env, err, "srun", "app", NULL) == 0 && o.cpus_per_task == 3,
       "23.11 reads SLURM_CPUS_PER_TASK (%ld)", o.cpus_per_task);
    parse_release = NULL;
    tmsp_srun_free(&o);
    ok(parse(&o, env, err, "srun", "-N2", "-n4", "app", NULL) == 0 && !o.ntasks_env &&
           !o.nnodes_env,
       "-n and -N from the command line are not marked");
    is_str(o.mpi, "pmix", "SLURM_MPI_TYPE");
    is_str(o.algo, "greedy", "--topomap from sbatch's environment");
    is_str(o.profile, "lammps", "--topomap-profile from sbatch's environment");
    ok(o.verbose, "--topomap-verbose from sbatch's environment (value \"(null)\")");
    tmsp_srun_free(&o);
    ok(parse(&o, env, err, "srun", "-n", "8", "--topomap=block", "--mpi=pmi2", "app", NULL) == 0,
       "command line and environment");
    ok(o.ntasks == 8, "command line -n wins over SLURM_NTASKS");
    is_str(o.algo, "block", "command line --topomap wins over sbatch's");
    is_str(o.profile, "lammps", "sbatch's --topomap-profile still applies");
    is_str(o.mpi, "pmi2", "--mpi wins over SLURM_MPI_TYPE");
    tmsp_srun_free(&o);
    const char *job7[] = {"SLURM_JOB_ID=7", NULL};
    ok(parse(&o, job7, err, "srun", "--jobid=7", "a", NULL) == 0 && !o.conflict,
       "--jobid of the job we are in: fine");
    tmsp_srun_free(&o);
    ok(parse(&o, job7, err, "srun", "--jobid", "8", "a", NULL) == 0 && o.conflict &&
           strstr(o.conflict, "--jobid"),
       "--jobid of another job is a conflict");
    tmsp_srun_free(&o);
    const char *hf[] = {"SLURM_HOSTFILE=/tmp/mine", NULL};
    ok(parse(&o, hf, err, "srun", "a", NULL) == 0 && o.conflict &&
           !strcmp(o.conflict, "SLURM_HOSTFILE"),
       "a user's SLURM_HOSTFILE is a conflict");
    tmsp_srun_free(&o);
    const char *badenv[] = {"SLURM_NTASKS=lots", NULL};
    err[0] = 0;
    ok(parse(&o, badenv, err, "srun", "a", NULL) < 0, "bad SLURM_NTASKS rejected");
    like(err, "SLURM_NTASKS='lots'", "message names the variable");
    tmsp_srun_free(&o);
    is_str(tmsp_spank_option_env("topomap-profile"),
           "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_profile", "option variable name");

    record_option_tests();
}

/* srun's command line without -N: what the plugin runs srun again with on
 * 23.11+ (srun refuses -N beside a hostfile). */
static void strip_one(const char *want, int argc, char *const *argv)
{
    char **out = tmsp_srun_strip_nodes(argc, argv);
    char got[512] = "";
    for (int i = 0; out && out[i]; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", out[i]);
    char in[512] = "";
    for (int i = 0; i < argc; i++)
        snprintf(in + strlen(in), sizeof in - strlen(in), "%s%s", i ? " " : "", argv[i]);
    ok(out && !strcmp(got, want), "without -N: '%s' -> '%s' (want '%s')", in, got, want);
    free(out);
}

static void strip_tests(void)
{
#define STRIP(want, ...)                                                                           \
    do {                                                                                           \
        char *v[] = {__VA_ARGS__};                                                                 \
        strip_one(want, (int)(sizeof v / sizeof v[0]), v);                                         \
    } while (0)
    STRIP("srun -n16 app -N 3", "srun", "-N4", "-n16", "app", "-N", "3");
    STRIP("srun -n16 app", "srun", "-N", "4", "-n16", "app");
    STRIP("srun -n16 app", "srun", "--nodes=4", "-n16", "app");
    STRIP("srun -n16 app", "srun", "--nodes", "4", "-n16", "app");
    STRIP("srun -l -n16 app", "srun", "-lN4", "-n16", "app");
    STRIP("srun -l -n16 app", "srun", "-lN", "4", "-n16", "app");
    STRIP("srun -lo N4 app", "srun", "-lo", "N4", "app"); /* -o's value, not -N */
    STRIP("srun -oN4 app", "srun", "-oN4", "app");       /* the same, attached */
    STRIP("srun --nodelist=n1 -n2 app", "srun", "--nodelist=n1", "-n2", "app");
    STRIP("srun -n2 -- -N4", "srun", "-n2", "--", "-N4");
    STRIP("srun -n2 app --nodes=2", "srun", "-n2", "app", "--nodes=2");
    STRIP("srun --topomap=auto -n 8 app", "srun", "--topomap=auto", "-N", "2", "-n", "8", "app");
#undef STRIP
}

static const char *none_env[] = {NULL};

/* --topomap's value: checked when srun, sbatch or salloc read it. */
static void algo_arg_tests(void)
{
    struct topomap_srun o;
    char err[TOPOMAP_ERRLEN];
    tmsp_srun_init(&o);
    ok(tmsp_algo_arg(&o, "auto", err, sizeof err) == 0 && !strcmp(o.algo, "auto") &&
           !o.verbose && !o.profile,
       "--topomap=auto");
    ok(tmsp_algo_arg(&o, "ohtma,verbose,profile=lj", err, sizeof err) == 0 &&
           !strcmp(o.algo, "ohtma") && o.verbose && !strcmp(o.profile, "lj"),
       "--topomap=ohtma,verbose,profile=lj: sub-arguments");
    ok(tmsp_algo_arg(&o, "off", err, sizeof err) == 0 &&
           tmsp_algo_arg(&o, "help", err, sizeof err) == 0,
       "off and help are values");
    errno = 0;
    ok(tmsp_algo_arg(&o, "ohmta", err, sizeof err) < 0 && errno == EINVAL,
       "--topomap=ohmta (a typo) rejected");
    like(err, "--topomap=ohmta: unknown algorithm 'ohmta' (known: off, ", "  %s", err);
    like(err, "ohtma", "  ... the list names the valid ones");
    ok(tmsp_algo_arg(&o, "auto,verbos", err, sizeof err) < 0, "a bad sub-argument rejected");
    like(err, "unknown sub-argument 'verbos' (verbose, profile=NAME)", "  %s", err);
    ok(tmsp_algo_arg(&o, "", err, sizeof err) < 0, "an empty value rejected");
    tmsp_srun_free(&o);
    ok(parse(&o, none_env, err, "srun", "--topomap=ohmta", "app", NULL) < 0,
       "srun's command line with --topomap=ohmta does not parse");
    tmsp_srun_free(&o);
    const char *sb[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap=auto,profile=lj",
                        "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_profile=other", NULL};
    ok(parse(&o, sb, err, "srun", "app", NULL) == 0 && !strcmp(o.algo, "auto") &&
           !strcmp(o.profile, "lj"),
       "sbatch --topomap=auto,profile=lj: its sub-argument wins over its --topomap-profile");
    tmsp_srun_free(&o);
    ok(parse(&o, sb, err, "srun", "--topomap-profile=mine", "app", NULL) == 0 &&
           !strcmp(o.profile, "mine"),
       "... and srun's --topomap-profile over both");
    tmsp_srun_free(&o);
}

int main(void)
{
    srun_tests();
    strip_tests();
    algo_arg_tests();
    return done_testing();
}
