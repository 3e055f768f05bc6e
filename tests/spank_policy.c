/* SPDX-License-Identifier: BSD-3-Clause */
/* The Slurm-free half of the SPANK plugin (spank/policy.c): plugstack.conf
 * arguments, srun's command line and environment, Slurm's default layout
 * (against layouts seen from Slurm 22.05 on the local cluster), the formats
 * handed to the compute nodes, core binding on a synthetic hwloc machine, and
 * the placement decision with its failure policy. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "tap.h"

#define DATA SRCDIR "/data/slurm"

/* A fake environment: NULL-terminated "NAME=value" strings. */
static const char *fake_env(const char *name, void *arg)
{
    const char *const *env = arg;
    size_t len = strlen(name);
    for (; env && *env; env++)
        if (!strncmp(*env, name, len) && (*env)[len] == '=')
            return *env + len + 1;
    return NULL;
}

static int parse(struct topomap_srun *o, const char *const *env, char *err, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, err);
    for (char *a; argc < 63 && (a = va_arg(ap, char *));)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    topomap_srun_init(o);
    return topomap_srun_parse(o, argc, argv, fake_env, (void *)env, err, TOPOMAP_ERRLEN);
}

static int layout(const struct topomap_srun *o, int nalloc, const int *cpus, char *got,
                  size_t len, char *err)
{
    int tasks[16], nstep = 0;
    got[0] = 0;
    if (topomap_slurm_layout(o, nalloc, cpus, &nstep, tasks, err, TOPOMAP_ERRLEN) < 0)
        return -1;
    for (int i = 0; i < nstep; i++)
        snprintf(got + strlen(got), len - strlen(got), i ? ",%d" : "%d", tasks[i]);
    return 0;
}

/* MPICH's reading of a PMI_process_mapping vector (no wraparound needed when
 * the blocks cover every rank): node of each rank, -1 past the end. */
static int expand_vector(const char *s, int *node, int n)
{
    int k = 0;
    if (strncmp(s, "(vector", 7))
        return -1;
    s += 7;
    while (*s == ',') {
        int start, count, size, used;
        if (sscanf(s, ",(%d,%d,%d)%n", &start, &count, &size, &used) != 3)
            return -1;
        s += used;
        for (int c = 0; c < count; c++)
            for (int z = 0; z < size; z++) {
                if (k >= n)
                    return -1;
                node[k++] = start + c;
            }
    }
    return strcmp(s, ")") ? -1 : k;
}

static void site_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    topomap_site_init(&s);
    is_str(s.dflt, "off", "default algorithm is off");
    ok(s.topology == NULL && s.profiles == NULL, "no topology or store by default");
    is_double(s.time_limit, 2000, 0, "time_limit 2000 ms by default");
    ok(s.bind == 1 && s.strict == 0 && s.min_gain == 0, "bind=cores, strict=0, min_gain=0");

    char *good[] = {"topology=/etc/topo.yaml", "profiles=/var/p", "default=ohtma", "min_gain=0.1",
                    "time_limit=500", "bind=none", "strict=1"};
    is_int(topomap_site_parse(&s, 7, good, err, sizeof err), 0, "all keys accepted");
    is_str(s.topology, "/etc/topo.yaml", "topology=");
    is_str(s.profiles, "/var/p", "profiles=");
    is_str(s.dflt, "ohtma", "default=");
    is_double(s.min_gain, 0.1, 0, "min_gain=");
    is_double(s.time_limit, 500, 0, "time_limit=");
    ok(s.bind == 0 && s.strict == 1, "bind=none strict=1");
    is_str(err, "", "no message when all is well");

    char *bad[] = {"colour=blue", "min_gain=1.5", "time_limit=0", "bind=sockets", "strict=yes",
                   "novalue", "=x", "topology=", "min_gain=0.2"};
    is_int(topomap_site_parse(&s, 9, bad, err, sizeof err), 8, "8 bad tokens counted");
    like(err, "unknown key 'colour'", "unknown key named");
    like(err,
         "known: topology, profiles, default, min_gain, time_limit, bind, strict, profiler, spool",
         "known keys listed");
    like(err, "min_gain=1.5 is not a fraction below 1", "bad min_gain");
    like(err, "time_limit=0 is not a positive number of ms", "bad time_limit");
    like(err, "bind=sockets is not cores or none", "bad bind");
    like(err, "strict=yes is not 0 or 1", "bad strict");
    like(err, "'novalue' is not key=value", "token without =");
    like(err, "topology= needs a path", "empty path");
    ok(strchr(err, '\n') == NULL, "one line");
    is_double(s.min_gain, 0.2, 0, "good tokens after bad ones still apply");
    is_str(s.topology, "/etc/topo.yaml", "a bad token keeps the earlier value");
    char *gm[] = {"gain_metric=links", "gain_metric=congestion"};
    is_int(topomap_site_parse(&s, 2, gm, err, sizeof err), 1, "gain_metric=links refused");
    like(err, "gain_metric=links is not hop_bytes or congestion", "bad gain_metric");
    ok(s.gain_congestion == 1, "gain_metric=congestion");
    topomap_site_free(&s);

    /* --topomap-record's keys: absolute paths only (used on the nodes). */
    topomap_site_init(&s);
    ok(s.profiler == NULL && s.spool == NULL, "no profiler= or spool= by default");
    char *rec[] = {"profiler=/opt/t/libtopomap-profiler.so", "spool=/var/spool/topomap"};
    is_int(topomap_site_parse(&s, 2, rec, err, sizeof err), 0, "profiler= and spool= accepted");
    is_str(s.profiler, "/opt/t/libtopomap-profiler.so", "profiler=");
    is_str(s.spool, "/var/spool/topomap", "spool=");
    char *recbad[] = {"profiler=lib/libtopomap-profiler.so", "spool=", "profiler="};
    is_int(topomap_site_parse(&s, 3, recbad, err, sizeof err), 3, "3 bad recording paths");
    like(err, "profiler=lib/libtopomap-profiler.so is not an absolute path", "relative profiler=");
    like(err, "spool= is not an absolute path", "empty spool=");
    is_str(s.profiler, "/opt/t/libtopomap-profiler.so", "a bad profiler= keeps the earlier one");
    is_str(s.spool, "/var/spool/topomap", "a bad spool= keeps the earlier one");
    topomap_site_free(&s);

    /* The shipped example: its plugin line parses without a complaint. */
    FILE *f = fopen(SRCDIR "/../etc/plugstack.conf.d/topomap.conf", "r");
    char line[2048], *tok[32];
    int ntok = 0, found = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "optional ", 9) || !strncmp(line, "required ", 9)) {
            found = 1;
            strtok(line, " \t\n");
            strtok(NULL, " \t\n"); /* the path */
            for (char *t; ntok < 32 && (t = strtok(NULL, " \t\n"));)
                tok[ntok++] = t;
        }
    if (f)
        fclose(f);
    topomap_site_init(&s);
    ok(found && ntok >= 7 && topomap_site_parse(&s, ntok, tok, err, sizeof err) == 0,
       "etc/plugstack.conf.d/topomap.conf: %d arguments, all valid %s", ntok, err);
    topomap_site_free(&s);
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
    topomap_srun_free(&o);

    ok(parse(&o, none, err, "srun", "-lN2", "-o", "out.txt", "-c2", "--ntasks=6", "--mpi",
             "pmi2", "--overc", "hostname", NULL) == 0,
       "clustered short options, arguments skipped, long prefixes");
    ok(o.nnodes == 2 && o.cpus_per_task == 2 && o.ntasks == 6 && o.overcommit,
       "-lN2 -c2 --ntasks=6 --overc");
    is_str(o.mpi, "pmi2", "--mpi pmi2 (separate argument)");
    is_str(o.app, "hostname", "-o's argument is not taken for the executable");
    topomap_srun_free(&o);

    ok(parse(&o, none, err, "srun", "--topomap", "ohtma", "--topomap-prof=lj", "--topomap-verbose",
             "--", "-weird-name", NULL) == 0,
       "plugin options and --");
    is_str(o.algo, "ohtma", "--topomap ohtma");
    is_str(o.profile, "lj", "--topomap-prof= (unique prefix)");
    ok(o.verbose, "--topomap-verbose");
    is_str(o.app, "-weird-name", "executable after --");
    topomap_srun_free(&o);

    ok(parse(&o, none, err, "srun", "--multi-prog", "-n4", "conf.txt", NULL) == 0 && !o.app,
       "--multi-prog: no application name");
    topomap_srun_free(&o);

    const char *conflicts[][3] = {{"-w", "n1", "-w"},
                                  {"--nodelist=n[1-2]", NULL, "--nodelist"},
                                  {"-m", "cyclic", "-m"},
                                  {"-x", "n3", "-x"},
                                  {"--exact", NULL, "--exact"},
                                  {"-r1", NULL, "-r"},
                                  {"--spread-job", NULL, "--spread-job"},
                                  {":", NULL, "heterogeneous"},
                                  {"-N", "2-4", "-N range"}};
    for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++) {
        int rc = conflicts[i][1]
                     ? parse(&o, none, err, "srun", conflicts[i][0], conflicts[i][1], "a", NULL)
                     : parse(&o, none, err, "srun", conflicts[i][0], "a", NULL);
        ok(rc == 0 && o.conflict && strstr(o.conflict, conflicts[i][2]),
           "%s is a conflict (%s)", conflicts[i][0], o.conflict ? o.conflict : "none");
        topomap_srun_free(&o);
    }

    err[0] = 0;
    ok(parse(&o, none, err, "srun", "-n", "abc", "a", NULL) < 0 && errno == EINVAL,
       "-n abc rejected");
    like(err, "srun -n: 'abc' is not a task count", "message names the option and value");
    topomap_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--ntasks=0", "a", NULL) < 0 && errno == EINVAL,
       "--ntasks=0 rejected");
    topomap_srun_free(&o);
    ok(parse(&o, none, err, "srun", "-c", "-1", "a", NULL) < 0, "-c -1 rejected");
    topomap_srun_free(&o);
    err[0] = 0;
    ok(parse(&o, none, err, "srun", "-n", NULL) < 0 && errno == EINVAL, "-n without argument");
    like(err, "needs an argument", "message says so");
    topomap_srun_free(&o);

    /* The environment fills in what the command line left open. */
    const char *env[] = {"SLURM_NTASKS=16",
                         "SLURM_NNODES=4",
                         "SLURM_CPUS_PER_TASK=2",
                         "SLURM_NTASKS_PER_NODE=4",
                         "SLURM_MPI_TYPE=pmix",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap=greedy",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_profile=lammps",
                         "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_verbose=(null)",
                         NULL};
    ok(parse(&o, env, err, "srun", "app", NULL) == 0, "environment only");
    ok(o.ntasks == 16 && o.nnodes == 4 && o.cpus_per_task == 2 && o.ntasks_per_node == 4,
       "SLURM_NTASKS, SLURM_NNODES, SLURM_CPUS_PER_TASK, SLURM_NTASKS_PER_NODE");
    is_str(o.mpi, "pmix", "SLURM_MPI_TYPE");
    is_str(o.algo, "greedy", "--topomap from sbatch's environment");
    is_str(o.profile, "lammps", "--topomap-profile from sbatch's environment");
    ok(o.verbose, "--topomap-verbose from sbatch's environment (value \"(null)\")");
    topomap_srun_free(&o);
    ok(parse(&o, env, err, "srun", "-n", "8", "--topomap=block", "--mpi=pmi2", "app", NULL) == 0,
       "command line and environment");
    ok(o.ntasks == 8, "command line -n wins over SLURM_NTASKS");
    is_str(o.algo, "block", "command line --topomap wins over sbatch's");
    is_str(o.profile, "lammps", "sbatch's --topomap-profile still applies");
    is_str(o.mpi, "pmi2", "--mpi wins over SLURM_MPI_TYPE");
    topomap_srun_free(&o);
    const char *job7[] = {"SLURM_JOB_ID=7", NULL};
    ok(parse(&o, job7, err, "srun", "--jobid=7", "a", NULL) == 0 && !o.conflict,
       "--jobid of the job we are in: fine");
    topomap_srun_free(&o);
    ok(parse(&o, job7, err, "srun", "--jobid", "8", "a", NULL) == 0 && o.conflict &&
           strstr(o.conflict, "--jobid"),
       "--jobid of another job is a conflict");
    topomap_srun_free(&o);
    const char *hf[] = {"SLURM_HOSTFILE=/tmp/mine", NULL};
    ok(parse(&o, hf, err, "srun", "a", NULL) == 0 && o.conflict &&
           !strcmp(o.conflict, "SLURM_HOSTFILE"),
       "a user's SLURM_HOSTFILE is a conflict");
    topomap_srun_free(&o);
    const char *badenv[] = {"SLURM_NTASKS=lots", NULL};
    err[0] = 0;
    ok(parse(&o, badenv, err, "srun", "a", NULL) < 0, "bad SLURM_NTASKS rejected");
    like(err, "SLURM_NTASKS='lots'", "message names the variable");
    topomap_srun_free(&o);
    is_str(topomap_spank_option_env("topomap-profile"),
           "SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_profile", "option variable name");

    /* --topomap-record[=NAME]: an optional argument, attached only. */
    ok(parse(&o, none, err, "srun", "-n2", "app", NULL) == 0 && o.record == NULL,
       "no --topomap-record: not recording");
    topomap_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--topomap-record", "./bin/app", "x", NULL) == 0 && o.record &&
           !strcmp(o.record, ""),
       "--topomap-record without a name");
    is_str(o.app, "app", "... does not take the executable for its argument");
    topomap_srun_free(&o);
    ok(parse(&o, none, err, "srun", "--topomap-record=lj", "--topomap-rec=", "a", NULL) == 0 &&
           o.record && !strcmp(o.record, ""),
       "--topomap-rec= (prefix, empty) after --topomap-record=lj: the last one counts");
    topomap_srun_free(&o);
    const char *renv[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_record=(null)", NULL};
    ok(parse(&o, renv, err, "srun", "a", NULL) == 0 && o.record && !strcmp(o.record, ""),
       "sbatch --topomap-record (exported as \"(null)\"): recording, no name");
    topomap_srun_free(&o);
    const char *renv2[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_topomap_topomap_record=nb", NULL};
    ok(parse(&o, renv2, err, "srun", "a", NULL) == 0 && o.record && !strcmp(o.record, "nb"),
       "sbatch --topomap-record=nb");
    topomap_srun_free(&o);
    ok(parse(&o, renv2, err, "srun", "--topomap-record=mine", "a", NULL) == 0 && o.record &&
           !strcmp(o.record, "mine"),
       "srun's --topomap-record=mine wins over sbatch's");
    topomap_srun_free(&o);
}

static void layout_tests(void)
{
    char err[TOPOMAP_ERRLEN], got[128];
    struct topomap_srun o;
    int cpus[4];
    const char *none[] = {NULL};
    ok(topomap_cpus_per_node("4(x3),2", 4, cpus, err, sizeof err) == 0 && cpus[0] == 4 &&
           cpus[2] == 4 && cpus[3] == 2,
       "4(x3),2");
    ok(topomap_cpus_per_node("4(x3)", 4, cpus, err, sizeof err) < 0 && errno == EINVAL,
       "too few counts");
    like(err, "name 3 nodes, the allocation has 4", "message gives both counts");
    ok(topomap_cpus_per_node("4(x5)", 4, cpus, err, sizeof err) < 0, "too many counts");
    ok(topomap_cpus_per_node("4(3),2", 2, cpus, err, sizeof err) < 0, "4(3) rejected");
    ok(topomap_cpus_per_node("4(x0)", 1, cpus, err, sizeof err) < 0, "repeat 0 rejected");
    ok(topomap_cpus_per_node("a", 1, cpus, err, sizeof err) < 0, "garbage rejected");
    ok(topomap_cpus_per_node("", 1, cpus, err, sizeof err) < 0, "empty rejected");

    /* Layouts srun 22.05 chose inside `salloc -N4 --exclusive` on 4 nodes with
     * 4 CPUs each (contrib/slurm-local-cluster.sh; tests/slurm.sh checks the
     * 2-CPU cases against the real thing). */
    int c4[4] = {4, 4, 4, 4};
    struct {
        const char *argv[8], *want;
    } cases[] = {
        {{"srun", "-n8", "a"}, "2,2,2,2"},
        {{"srun", "-n5", "a"}, "2,1,1,1"},
        {{"srun", "-n2", "a"}, "1,1"},
        {{"srun", "a"}, "1,1,1,1"},
        {{"srun", "-N2", "-n6", "a"}, "3,3"},
        {{"srun", "-n6", "--ntasks-per-node=2", "a"}, "2,2,1,1"},
        {{"srun", "-n8", "--ntasks-per-node=2", "a"}, "2,2,2,2"},
        {{"srun", "-n8", "-c2", "a"}, "2,2,2,2"},
        {{"srun", "-n20", "-O", "a"}, "5,5,5,5"},
        {{"srun", "-n16", "a"}, "4,4,4,4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int argc = 0;
        while (cases[i].argv[argc])
            argc++;
        topomap_srun_init(&o);
        topomap_srun_parse(&o, argc, (char *const *)cases[i].argv, fake_env, none, err,
                           sizeof err);
        int rc = layout(&o, 4, c4, got, sizeof got, err);
        ok(rc == 0 && !strcmp(got, cases[i].want), "%s %s: %s (want %s)", cases[i].argv[1],
           argc > 3 ? cases[i].argv[2] : "", rc ? err : got, cases[i].want);
        topomap_srun_free(&o);
    }
    int mixed[4] = {4, 2, 2, 1};
    topomap_srun_init(&o);
    o.ntasks = 8;
    ok(layout(&o, 4, mixed, got, sizeof got, err) == 0 && !strcmp(got, "3,2,2,1"),
       "uneven nodes 4,2,2,1 with 8 tasks: %s", got);
    o.ntasks = 20;
    err[0] = 0;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0 && errno == EINVAL,
       "20 tasks on 16 CPUs without -O refused");
    like(err, "do not fit", "message says so");
    o.ntasks = 8;
    o.nnodes = 5;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0, "-N5 in a 4-node allocation refused");
    like(err, "5 nodes asked, the allocation has 4", "message gives both");
    o.ntasks = -1;
    o.nnodes = 2;
    o.ntasks_per_node = 2;
    ok(layout(&o, 4, c4, got, sizeof got, err) < 0, "-N with --ntasks-per-node and no -n refused");
    like(err, "give the task count with -n", "message says what to do");
    topomap_srun_free(&o);
}

static void format_tests(void)
{
    int core[64], back[64], cpt;
    int a[] = {0, 1, 2, 3};
    char *s = topomap_bind_encode(a, 4, 1);
    is_str(s, "1:1:0-3", "ascending run");
    free(s);
    int b[] = {0, 0, 0, 1, 1, 5};
    s = topomap_bind_encode(b, 6, 2);
    is_str(s, "1:2:0x3,1x2,5", "repeats");
    ok(s && topomap_bind_decode(s, 6, back, &cpt) == 0 && cpt == 2 && !memcmp(back, b, sizeof b),
       "decodes back");
    free(s);
    int c[] = {0, 1, 1, 1, 2, 3, 4, 0};
    s = topomap_bind_encode(c, 8, 1);
    ok(s && topomap_bind_decode(s, 8, back, &cpt) == 0 && !memcmp(back, c, sizeof c),
       "run then repeat then run: %s", s ? s : "");
    free(s);
    unsigned seed = 7;
    int good = 1;
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(rand_r(&seed) % 60);
        for (int i = 0; i < n; i++)
            core[i] = (int)(rand_r(&seed) % 5);
        s = topomap_bind_encode(core, n, 1);
        good &= s && topomap_bind_decode(s, n, back, &cpt) == 0 &&
                !memcmp(back, core, (size_t)n * sizeof *core);
        free(s);
    }
    ok(good, "200 random encode/decode round trips");
    ok(topomap_bind_decode("1:1:0-3", 3, back, &cpt) < 0 && errno == EINVAL, "too many cores");
    ok(topomap_bind_decode("1:1:0-3", 5, back, &cpt) < 0, "too few cores");
    ok(topomap_bind_decode("2:1:0", 1, back, &cpt) < 0, "unknown version");
    ok(topomap_bind_decode("1:0:0", 1, back, &cpt) < 0, "0 CPUs per task");
    ok(topomap_bind_decode("1:1:3-1", 3, back, &cpt) < 0, "descending range");
    ok(topomap_bind_decode("1:1:a", 1, back, &cpt) < 0, "garbage");
    ok(topomap_bind_decode("1:1:0,", 1, back, &cpt) < 0, "trailing comma");
    ok(topomap_bind_decode("1:1:0x0", 0, back, &cpt) < 0, "zero repeat");
    ok(topomap_bind_decode(NULL, 1, back, &cpt) < 0, "NULL");

    int blk[] = {0, 0, 1, 1, 2, 2, 3, 3}, cyc[] = {0, 1, 2, 3, 0, 1, 2, 3};
    s = topomap_pmi2_mapping(blk, 8, 1000);
    is_str(s, "(vector,(0,4,2))", "block layout: one block");
    free(s);
    s = topomap_pmi2_mapping(cyc, 8, 1000);
    is_str(s, "(vector,(0,4,1),(0,4,1))", "cyclic layout");
    free(s);
    int odd[] = {2, 2, 0, 1, 1, 3};
    s = topomap_pmi2_mapping(odd, 6, 1000);
    is_str(s, "(vector,(2,1,2),(0,1,1),(1,1,2),(3,1,1))", "irregular layout");
    free(s);
    good = 1;
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(rand_r(&seed) % 64);
        for (int i = 0; i < n; i++)
            core[i] = (int)(rand_r(&seed) % 6);
        s = topomap_pmi2_mapping(core, n, 100000);
        good &= s && expand_vector(s, back, 64) == n &&
                !memcmp(back, core, (size_t)n * sizeof *core);
        free(s);
    }
    ok(good, "200 random layouts read back the way MPICH reads them");
    for (int i = 0; i < 64; i++)
        core[i] = (i * 7) % 13;
    errno = 0;
    ok(topomap_pmi2_mapping(core, 64, 100) == NULL && errno == E2BIG,
       "a mapping longer than the limit: E2BIG");

    int ids[16];
    is_int(topomap_cpulist_parse("0-3,8,10-11", ids, 16), 7, "cpu list count");
    ok(ids[0] == 0 && ids[3] == 3 && ids[4] == 8 && ids[6] == 11, "cpu list values");
    ok(topomap_cpulist_parse("0-20", ids, 16) < 0 && errno == E2BIG, "too long: E2BIG");
    ok(topomap_cpulist_parse("3-1", ids, 16) < 0 && errno == EINVAL, "descending: EINVAL");
    ok(topomap_cpulist_parse("", ids, 16) < 0 && errno == EINVAL, "empty: EINVAL");
    ok(topomap_cpulist_parse("1,,2", ids, 16) < 0, "empty item");
    ok(topomap_cpulist_parse("1,", ids, 16) < 0, "trailing comma");
}

static void bind_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    hwloc_topology_t t;
    hwloc_topology_init(&t);
    /* 2 packages x 2 cores x 2 threads: core i has PUs 2i and 2i+1. */
    if (hwloc_topology_set_synthetic(t, "pack:2 core:2 pu:2") < 0 || hwloc_topology_load(t) < 0) {
        ok(0, "synthetic hwloc topology");
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char buf[64];
    ok(topomap_bind_cpuset(t, NULL, 0, 1, 1, set, err, sizeof err) == 0, "core 1 of the node");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "2-3", "both threads of core 1");
    int alloc[] = {2, 3};
    ok(topomap_bind_cpuset(t, alloc, 2, 0, 1, set, err, sizeof err) == 0,
       "first core of a step holding cores 2-3");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "4-5", "is core 2");
    int all[] = {0, 1, 2, 3};
    ok(topomap_bind_cpuset(t, all, 4, 1, 2, set, err, sizeof err) == 0, "2 CPUs per task");
    hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
    is_str(buf, "4-7", "task 1 gets cores 2 and 3");
    err[0] = 0;
    ok(topomap_bind_cpuset(t, alloc, 2, 2, 1, set, err, sizeof err) < 0 && errno == ERANGE,
       "index past the step's cores: ERANGE");
    like(err, "past the 2 cores of the step", "message says so");
    int ghost[] = {0, 7};
    err[0] = 0;
    ok(topomap_bind_cpuset(t, ghost, 2, 1, 1, set, err, sizeof err) < 0 && errno == ERANGE,
       "a core the node does not have: ERANGE");
    like(err, "core 7 does not exist here (4 cores)", "message names it");
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(t);
}

/* The placement decision on the 2x2 mesh of tests/data/slurm. */
static void decide_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    const char *none[] = {NULL};

    topomap_site_init(&s);
    char *args[] = {"topology=" DATA "/mesh-2x2-2core.yaml", NULL};
    char pa[600];
    snprintf(pa, sizeof pa, "profiles=%s", store);
    args[1] = pa;
    is_int(topomap_site_parse(&s, 2, args, err, sizeof err), 0, "site policy for the mesh");

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
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_REMAP, "remapped");
    is_int(d.nranks, 8, "8 ranks");
    int same = d.hosts != NULL;
    for (int r = 0; r < 8 && same; r++)
        same = !strcmp(d.hosts[r], topomap_topology_node_name(t, topomap_alloc_slot_node(a, r2s[r])));
    ok(same, "every rank on the node topomap_map chose");
    is_str(d.bind, "1:1:0x4,1x4", "cores: the first 4 ranks on core 0, the next on core 1");
    is_str(d.pmi2, "(vector,(0,4,1),(0,4,1))", "PMI2 mapping of the cyclic layout");
    is_double(d.hop_bytes_default, 8000, 0, "hop-bytes of Slurm's layout by hand: 8 x 1000 x 1");
    is_double(d.hop_bytes_new, 20, 0, "after: only 0<->1 (10+10 bytes, 1 hop) leaves a node");
    like(d.summary, "cyclic on 8 ranks, nodes n[1-4] (2,2,2,2 tasks per node)", "summary");
    like(d.summary, "hop-bytes 8000 -> 20 (-99.8%)", "summary has hop-bytes before/after");
    is_str(d.message, "", "no message");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* block: nothing to change, nothing said. */
    parse(&o, env, err, "srun", "-n8", "--topomap=block", "--topomap-profile=pair8", "app", NULL);
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.hosts && !d.message[0] && !d.summary[0],
       "block keeps Slurm's layout silently");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

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
        {{"srun", "-n8", "--topomap=nosuch", "app"}, env,
         "unknown algorithm 'nosuch' (known: off, block, cyclic"},
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
        topomap_srun_init(&o);
        topomap_srun_parse(&o, argc, (char *const *)bad[i].argv, fake_env, (void *)bad[i].env,
                           err, sizeof err);
        topomap_decide(&s, &o, fake_env, (void *)bad[i].env, &d);
        ok(d.outcome == TOPOMAP_KEEP && !d.hosts && !strncmp(d.message, "topomap: ", 9) &&
               strstr(d.message, bad[i].want) && strchr(d.message, '\n') == NULL,
           "%s %s: %s", bad[i].argv[2], bad[i].argv[3] ? bad[i].argv[3] : "", d.message);
        topomap_decision_free(&d);
        topomap_srun_free(&o);
    }

    /* NAME+refine: the algorithm, then the refinement engine. random+refine
     * improves on random's 8040 and, on this pair profile, on Slurm's 8000. */
    parse(&o, env, err, "srun", "-n8", "--topomap=random+refine", "--topomap-profile=pair8",
          "app", NULL);
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.hop_bytes_new < d.hop_bytes_default,
       "--topomap=random+refine is accepted and remaps (%g -> %g)", d.hop_bytes_default,
       d.hop_bytes_new);
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* A grid recorded at another rank count: synthesised, said under
     * --topomap-verbose (issue 12). A 2 x 2 halo stored at 4 ranks, used by
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
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP || d.outcome == TOPOMAP_KEEP, "8-rank step with halo4: placed");
    is_str(d.note,
           "topomap: profile 'halo4' was recorded with 4 ranks; it is a process grid, so its "
           "8-rank version (grid 2x4) was synthesised from it",
           "--topomap-verbose says the profile was synthesised, in one line");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=halo4", "app", NULL);
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(!d.note[0] && !strstr(d.message, "recorded with"), "... silent without --topomap-verbose");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* gain_metric=congestion (issue 15): the busiest link decides. Profile
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
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.hop_bytes_default == 1200 && d.hop_bytes_new == 1000,
       "gain_metric=hop_bytes (default): hop-bytes 1200 -> 1000, remapped");
    topomap_decision_free(&d);
    char *gm[] = {"gain_metric=congestion"};
    is_int(topomap_site_parse(&s, 1, gm, err, sizeof err), 0, "gain_metric=congestion accepted");
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_KEEP, "gain_metric=congestion: busiest link 1000 -> 1000, kept");
    is_str(d.message,
           "topomap: cyclic does not reduce busiest-link load (1000 -> 1000); using Slurm's "
           "default layout",
           "... and the user is told why, in one line");
    like(d.summary, "busiest link 1000 -> 1000 bytes: gain below min_gain", "summary");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    /* pair8: cyclic takes both 2000-byte links off the network (10 left). */
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=pair8",
          "--topomap-verbose", "app", NULL);
    s.min_gain = 0.99;
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "gain_metric=congestion: busiest link 2000 -> 10 passes "
                                   "min_gain=0.99");
    like(d.summary, "busiest link 2000 -> 10 bytes", "summary gives the busiest link");
    topomap_decision_free(&d);
    s.min_gain = 0.999;
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    is_str(d.message,
           "topomap: cyclic would save 99.5% of busiest-link load, less than min_gain=99.9%; "
           "using Slurm's default layout",
           "... and 99.5% is less than min_gain=0.999");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    char *gh[] = {"gain_metric=hop_bytes", "min_gain=0"};
    topomap_site_parse(&s, 2, gh, err, sizeof err);
    ok(!s.gain_congestion && s.min_gain == 0, "gain_metric=hop_bytes restores the default");

    /* A profile given as a path. */
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=" DATA "/pair8.txt",
          "app", NULL);
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_REMAP, "--topomap-profile=PATH loads the file");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* The site default stays quiet about unprofiled applications... */
    struct topomap_site sd;
    topomap_site_init(&sd);
    char *dargs[] = {args[0], pa, "default=cyclic"};
    topomap_site_parse(&sd, 3, dargs, err, sizeof err);
    parse(&o, env, err, "srun", "-n8", "unprofiled", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0] && !d.summary[0] && !d.explicit_req,
       "site default, no profile: silent");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap-verbose", "unprofiled", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && !d.message[0], "... with --topomap-verbose: no message");
    like(d.summary, "no profile 'unprofiled'", "... but the summary says why");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    /* ... and applies to profiled ones, named after the executable. */
    parse(&o, env, err, "srun", "-n8", "/some/where/pair8", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && !d.explicit_req, "site default remaps a profiled application");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "--topomap=off", "pair8", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_OFF && !d.message[0], "--topomap=off overrides the site default");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* strict=1: explicit failures fail the step, quiet ones do not. */
    char *sargs[] = {"strict=1"};
    topomap_site_parse(&sd, 1, sargs, err, sizeof err);
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "--topomap-profile=nothere", "a", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_FAIL && strstr(d.message, "failing the step (strict=1)"),
       "strict: a missing profile asked for fails the step");
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    parse(&o, env, err, "srun", "-n8", "unprofiled", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    is_int(d.outcome, TOPOMAP_KEEP, "strict: the site default on an unprofiled application does not");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* min_gain, bind=none, time_limit, topology problems. */
    char *margs[] = {"min_gain=0.999", "bind=none"};
    topomap_site_parse(&sd, 2, margs, err, sizeof err);
    sd.strict = 0;
    parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", "pair8", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "less than min_gain=99.9%"),
       "a gain of 99.75%% is below min_gain=0.999");
    topomap_decision_free(&d);
    sd.min_gain = 0.5;
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.bind == NULL && d.pmi2 != NULL,
       "bind=none: remapped, no TOPOMAP_BIND");
    topomap_decision_free(&d);
    sd.time_limit = 1e-9;
    topomap_decide(&sd, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "time_limit=1e-09ms"),
       "a time limit that cannot be met: %s", d.message);
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    sd.time_limit = 2000;
    const char *other[] = {"SLURM_JOB_NODELIST=x[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    parse(&o, other, err, "srun", "-n8", "--topomap=cyclic", "pair8", NULL);
    topomap_decide(&sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "'x1' is not in the topology"),
       "hosts missing from the topology: %s", d.message);
    topomap_decision_free(&d);
    free(sd.topology);
    sd.topology = strdup(DATA "/no-such.yaml");
    topomap_decide(&sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "topology: "), "unreadable topology: %s",
       d.message);
    topomap_decision_free(&d);
    free(sd.topology);
    sd.topology = NULL;
    topomap_decide(&sd, &o, fake_env, (void *)other, &d);
    ok(d.outcome == TOPOMAP_KEEP && strstr(d.message, "no topology configured"),
       "no topology= in plugstack.conf");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    /* Too irregular for a PMI2 mapping: remapped all the same. */
    topomap_site_parse(&sd, 1, args, err, sizeof err);
    sd.min_gain = -1000; /* accept any layout */
    sd.bind = 1;
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
    topomap_decide(&sd, &o, fake_env, (void *)big, &d);
    ok(d.outcome == TOPOMAP_REMAP && d.pmi2 == NULL && d.hosts && d.bind && !d.message[0],
       "random layout of 400 ranks: remapped, no PMI2 mapping (the nodes warn)");
    topomap_decision_free(&d);
    topomap_srun_free(&o);

    topomap_site_free(&sd);
    topomap_site_free(&s);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* Scale: 4096 ranks on the 4096 nodes of the shipped 16x16x16 torus, one
 * slot per node, a 3D stencil whose rank order is shuffled (Slurm's layout
 * is poor). With the default time_limit (2000 ms) --topomap=auto must remap
 * and say nothing about a time-out (issue 8: the plugin used to fall back to
 * Slurm's layout exactly on such jobs). */
static void scale_tests(const char *store)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    const char *env[] = {"SLURM_JOB_NODELIST=t[0000-4095]", "SLURM_JOB_CPUS_PER_NODE=1(x4096)",
                         NULL};
    topomap_site_init(&s);
    char pa[600];
    snprintf(pa, sizeof pa, "profiles=%s", store);
    char *args[] = {"topology=" SRCDIR "/../topologies/torus-16x16x16.yaml", pa};
    is_int(topomap_site_parse(&s, 2, args, err, sizeof err), 0, "site policy: shipped 16x16x16 torus");
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
    topomap_profile_t *p = topomap_profile_create(n, (size_t)m, src, dst, by, NULL, err, sizeof err);
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
    topomap_decide(&s, &o, fake_env, (void *)env, &d);
    ok(d.outcome == TOPOMAP_REMAP, "remapped within the default time_limit (%s%s)", d.summary,
       d.message);
    is_str(d.message, "", "nothing to tell the user (no time-out)");
    ok(d.hop_bytes_new < 0.5 * d.hop_bytes_default,
       "hop-bytes at least halved: %.6g -> %.6g in %.0f ms", d.hop_bytes_default,
       d.hop_bytes_new, 1000.0 * d.seconds);
    topomap_decision_free(&d);
    topomap_srun_free(&o);
    topomap_site_free(&s);
}

/* Files for the recording tests. */
static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

static void record_tests(const char *tmp)
{
    char name[256], msg[1024], err[TOPOMAP_ERRLEN], dir[600], path[700], spool[600];
    struct topomap_srun o;
    const char *none[] = {NULL};

    /* The name: --topomap-record=NAME, --topomap-profile=NAME, the executable. */
    parse(&o, none, err, "srun", "--topomap-record=rec", "--topomap-profile=prof", "./a.out", NULL);
    ok(topomap_record_name(&o, name, sizeof name, msg, sizeof msg) == 0, "name given");
    is_str(name, "rec", "--topomap-record=rec wins");
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--topomap-profile=prof", "./a.out", NULL);
    topomap_record_name(&o, name, sizeof name, msg, sizeof msg);
    is_str(name, "prof", "then --topomap-profile's name (what the next run looks up)");
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--topomap-profile=/p/x.txt", "./a.out",
          NULL);
    topomap_record_name(&o, name, sizeof name, msg, sizeof msg);
    is_str(name, "a.out", "a --topomap-profile path is no name: the executable's");
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "--multi-prog", "conf", NULL);
    msg[0] = 0;
    ok(topomap_record_name(&o, name, sizeof name, msg, sizeof msg) < 0 && errno == EINVAL,
       "--multi-prog and no name: refused");
    like(msg, "topomap: --topomap-record: no name to record under (give --topomap-record=NAME); "
              "not recording", "... with one line");
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record=../etc/x", "a", NULL);
    ok(topomap_record_name(&o, name, sizeof name, msg, sizeof msg) < 0 && errno == EINVAL,
       "--topomap-record=../etc/x: refused");
    like(msg, "'../etc/x' (--topomap-record) is not a valid profile name", "... named: %s", msg);
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record", "./.hidden", NULL);
    ok(topomap_record_name(&o, name, sizeof name, msg, sizeof msg) < 0, "executable .hidden");
    like(msg, "'.hidden' (the executable's name) is not a valid profile name", "... named");
    topomap_srun_free(&o);
    parse(&o, none, err, "srun", "--topomap-record=abcdef", "a", NULL);
    ok(topomap_record_name(&o, name, 4, msg, sizeof msg) < 0 && errno == EINVAL,
       "a name longer than the buffer: refused");
    topomap_srun_free(&o);

    /* LD_PRELOAD. */
    char *pl = topomap_preload_prepend("/l/p.so", NULL);
    is_str(pl, "/l/p.so", "LD_PRELOAD unset");
    free(pl);
    pl = topomap_preload_prepend("/l/p.so", "");
    is_str(pl, "/l/p.so", "LD_PRELOAD empty");
    free(pl);
    pl = topomap_preload_prepend("/l/p.so", "/x/y.so z.so");
    is_str(pl, "/l/p.so:/x/y.so z.so", "prepended to the user's");
    free(pl);
    pl = topomap_preload_prepend("/l/p.so", "/l/p.so:/x/y.so");
    is_str(pl, "/l/p.so:/x/y.so", "already first: unchanged");
    free(pl);
    pl = topomap_preload_prepend("/l/p.so", "/l/p.so.1");
    is_str(pl, "/l/p.so:/l/p.so.1", "a longer name is another library");
    free(pl);

    /* The recording directory: created with the spool, private, the user's. */
    snprintf(spool, sizeof spool, "%s/spool", tmp);
    int fd = topomap_record_mkdir(spool, 12, 3, geteuid(), getegid(), dir, sizeof dir, err,
                                  sizeof err);
    ok(fd >= 0, "recording directory in a new spool: %s", fd < 0 ? err : dir);
    snprintf(path, sizeof path, "%s/topomap-record.12.3.", spool);
    ok(!strncmp(dir, path, strlen(path)) && strlen(dir) == strlen(path) + 6,
       "named SPOOL/topomap-record.JOB.STEP.XXXXXX");
    struct stat st;
    ok(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 &&
           st.st_uid == geteuid(),
       "mode 0700, owned by the caller");
    ok(stat(spool, &st) == 0 && (st.st_mode & 0777) == 0755, "the spool made with mode 0755");

    /* Registering: the step wrote nothing. */
    char store[600];
    snprintf(store, sizeof store, "%s/store", tmp);
    msg[0] = 0;
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "rec", "12.3", msg, sizeof msg) < 0 &&
           errno == ENOENT,
       "no profile: ENOENT");
    is_str(msg,
           "topomap: step 12.3 wrote no profile for 'rec' (rank 0 did not reach MPI_Finalize: "
           "not an MPI program, an abort, or a failed start); nothing recorded",
           "... and one line");
    snprintf(path, sizeof path, "%s/rec.profile", store);
    ok(access(path, F_OK) < 0, "... and no store entry");

    /* A good profile (as the profiler writes it). */
    snprintf(path, sizeof path, "%s/%s", dir, TOPOMAP_RECORD_FILE);
    write_file(path, "# nranks=4\n# application=rec\n0 2 1200 3\n2 0 1212 3\n1 3 8 2\n");
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "rec", "12.3", msg, sizeof msg) == 0,
       "a profile of 4 ranks for a step of 4: stored (%s)", msg);
    char want[1500];
    snprintf(want, sizeof want, "topomap: recorded profile 'rec' (4 ranks, 2420 bytes) in %s",
             store);
    is_str(msg, want, "... and said");
    snprintf(path, sizeof path, "%s/rec.profile", store);
    like(slurp(path), "0 2 1200 3\n1 3 8 2\n2 0 1212 3", "the store holds the matrix");
    topomap_profile_t *p = topomap_store_lookup(store, "rec", 4, err, sizeof err);
    ok(p && topomap_profile_total_bytes(p) == 2420 && topomap_profile_nedges(p) == 3,
       "... and reads back");
    topomap_profile_free(p);

    /* Rank count, owner, links, corruption, names, the store. */
    ok(topomap_record_register(fd, dir, geteuid(), 8, store, "rec8", "12.3", msg, sizeof msg) <
               0 && errno == ERANGE,
       "4 ranks for a step of 8 tasks: ERANGE");
    like(msg, "the profile step 12.3 wrote has 4 ranks but the step 8 tasks", "... said: %s", msg);
    snprintf(path, sizeof path, "%s/rec8.profile", store);
    ok(access(path, F_OK) < 0, "... nothing stored");
    ok(topomap_record_register(fd, dir, geteuid() + 1, 4, store, "rec2", "12.3", msg, sizeof msg) <
               0 && errno == EPERM,
       "a file of another user: EPERM");
    like(msg, "is not a regular file of uid", "... said");
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "a/b", "12.3", msg, sizeof msg) < 0 &&
           errno == EINVAL,
       "an invalid name: EINVAL");
    like(msg, "'a/b' is not a valid profile name; nothing recorded", "... said");
    ok(topomap_record_register(fd, dir, geteuid(), 4, "/dev/null/store", "rec", "12.3", msg,
                               sizeof msg) < 0,
       "an unusable store: refused");
    like(msg, "topomap: cannot store profile 'rec': ", "... said: %s", msg);
    snprintf(path, sizeof path, "%s/%s", dir, TOPOMAP_RECORD_FILE);
    write_file(path, "# nranks=4\n0 1 5\n1 x 5\n");
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "bad", "12.3", msg, sizeof msg) < 0 &&
           errno == EINVAL,
       "a corrupt profile: EINVAL");
    snprintf(want, sizeof want, "topomap: cannot record 'bad': %s:3", path);
    like(msg, want, "... the message names the file and line: %s", msg);
    ok(strstr(msg, "/proc/self/fd") == NULL, "... not the descriptor");
    unlink(path);
    snprintf(want, sizeof want, "%s/rec.profile", store);
    ok(symlink(want, path) == 0, "a symbolic link as the profile");
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "link", "12.3", msg, sizeof msg) < 0 &&
           errno == EPERM,
       "... is not followed: EPERM");
    like(msg, "is a symbolic link; nothing recorded", "... said");
    unlink(path);
    ok(mkdir(path, 0700) == 0, "a directory as the profile");
    ok(topomap_record_register(fd, dir, geteuid(), 4, store, "dir", "12.3", msg, sizeof msg) < 0 &&
           errno == EPERM,
       "... is refused: EPERM");
    rmdir(path);

    /* Cleanup: the directory and what is in it go. */
    write_file(path, "x");
    snprintf(want, sizeof want, "%s/%s.tmp.123", dir, TOPOMAP_RECORD_FILE);
    write_file(want, "x");
    ok(topomap_record_cleanup(fd, dir, err, sizeof err) == 0, "cleanup: %s", err);
    ok(access(dir, F_OK) < 0 && errno == ENOENT, "the directory is gone");

    /* A directory the job's user moved is left alone. */
    fd = topomap_record_mkdir(spool, 12, 4, geteuid(), getegid(), dir, sizeof dir, err,
                              sizeof err);
    char moved[700];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    ok(fd >= 0 && rename(dir, moved) == 0 && mkdir(dir, 0700) == 0,
       "directory moved, another made");
    ok(topomap_record_cleanup(fd, dir, err, sizeof err) < 0 && errno == ENOENT,
       "cleanup of a moved directory: ENOENT");
    like(err, "was moved; left in place", "... said: %s", err);
    ok(access(dir, F_OK) == 0, "... and the other directory is not removed");
    rmdir(dir);
    rmdir(moved);

    /* Errors creating it. */
    ok(topomap_record_mkdir("/dev/null/spool", 1, 0, geteuid(), getegid(), dir, sizeof dir, err,
                            sizeof err) < 0 && errno == ENOTDIR,
       "a spool under a file: ENOTDIR");
    like(err, "cannot create the spool directory /dev/null/spool", "... said: %s", err);
    ok(dir[0] == 0, "... no path");
    ok(topomap_record_mkdir(spool, 1, 0, geteuid(), getegid(), dir, 20, err, sizeof err) < 0 &&
           errno == ENAMETOOLONG,
       "a path that does not fit: ENAMETOOLONG");
    if (geteuid() == 0) {
        fd = topomap_record_mkdir(spool, 5, 0, 65534, 65534, dir, sizeof dir, err, sizeof err);
        ok(fd >= 0 && stat(dir, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534,
           "as root: the directory is given to the job's user");
        if (fd >= 0)
            topomap_record_cleanup(fd, dir, err, sizeof err);
    } else
        ok(1, "# SKIP not root: cannot give a directory away");
    rmdir(spool);
}

int main(void)
{
    char err[TOPOMAP_ERRLEN], store[] = "/tmp/topomap-policy-test.XXXXXX";
    site_tests();
    srun_tests();
    layout_tests();
    format_tests();
    bind_tests();

    if (!mkdtemp(store)) {
        ok(0, "temporary store");
        return done_testing();
    }
    topomap_profile_t *p = topomap_profile_load(DATA "/pair8.txt", TOPOMAP_FMT_AUTO, err,
                                                sizeof err);
    ok(p && topomap_store_add(store, "pair8", p, err, sizeof err) == 0, "store pair8: %s",
       p ? "" : err);
    topomap_profile_free(p);
    char path[600];
    snprintf(path, sizeof path, "%s/corrupt.profile", store);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# nranks=8\n0 1 zz\n", f);
        fclose(f);
    }
    decide_tests(store);
    scale_tests(store);
    record_tests(store);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", store);
    return done_testing();
}
