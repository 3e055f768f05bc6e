/* SPDX-License-Identifier: BSD-3-Clause */
/* The site policy (spank/site.c): plugstack.conf arguments, and the shipped
 * example line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "spank_test.h"
#include "tap.h"

static void site_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    tmsp_site_init(&s);
    is_str(s.dflt, "off", "default algorithm is off");
    ok(s.topology == NULL && s.profiles == NULL, "no topology or store by default");
    is_double(s.time_limit, 2000, 0, "time_limit 2000 ms by default");
    ok(s.bind == 1 && s.strict == 0 && s.min_gain == 0, "bind=cores, strict=0, min_gain=0");

    char *good[] = {"topology=/etc/topo.yaml", "profiles=/var/p", "default=ohtma", "min_gain=0.1",
                    "time_limit=500", "bind=none", "strict=1"};
    is_int(tmsp_site_parse(&s, 7, good, err, sizeof err), 0, "all keys accepted");
    is_str(s.topology, "/etc/topo.yaml", "topology=");
    is_str(s.profiles, "/var/p", "profiles=");
    is_str(s.dflt, "ohtma", "default=");
    is_double(s.min_gain, 0.1, 0, "min_gain=");
    is_double(s.time_limit, 500, 0, "time_limit=");
    ok(s.bind == 0 && s.strict == 1, "bind=none strict=1");
    is_str(err, "", "no message when all is well");

    char *bad[] = {"colour=blue", "min_gain=1.5", "time_limit=0", "bind=sockets", "strict=yes",
                   "novalue", "=x", "topology=", "min_gain=0.2"};
    is_int(tmsp_site_parse(&s, 9, bad, err, sizeof err), 8, "8 bad tokens counted");
    like(err, "unknown key 'colour'", "unknown key named");
    like(err,
         "known: topology, topology_name, profiles, default, min_gain, time_limit, bind, strict, "
         "profiler, spool",
         "known keys listed");
    like(err, "min_gain=1.5 is not a fraction below 1", "bad min_gain");
    like(err, "time_limit=0 is not a positive duration", "bad time_limit");
    like(err, "bind=sockets is not cores or none", "bad bind");
    like(err, "strict=yes is not 0 or 1", "bad strict");
    like(err, "'novalue' is not key=value", "token without =");
    char *empty[] = {"topology="};
    tmsp_site_parse(&s, 1, empty, err, sizeof err);
    like(err, "topology= needs a path", "empty path");
    ok(strchr(err, '\n') == NULL, "one line");
    char *esc[] = {"bind=\033[2Jcores\r"};
    ok(tmsp_site_parse(&s, 1, esc, err, sizeof err) == 1 &&
           strstr(err, "bind=?[2Jcores? is not cores or none"),
       "control characters in a value shown as '?': %s", err);
    is_double(s.min_gain, 0.2, 0, "good tokens after bad ones still apply");
    /* Found by tests/fuzz/fuzz_site: a negative min_gain remapped to worse layouts. */
    char *neg[] = {"min_gain=-.5", "default=\x1b]0;x\x07", "time_limit= 5"};
    is_int(tmsp_site_parse(&s, 1, neg, err, sizeof err), 1, "min_gain=-.5 refused");
    like(err, "min_gain=-.5 is not a fraction below 1 (0 or more)", "  message: %s", err);
    is_double(s.min_gain, 0.2, 0, "  min_gain kept");
    is_int(tmsp_site_parse(&s, 3, neg, err, sizeof err), 2,
           "default=ESC... accepted, time_limit=' 5' refused (strict numbers)");
    ok(!strchr(err, '\x1b') && !strchr(err, '\x07'), "messages without control characters");
    is_str(s.topology, "/etc/topo.yaml", "a bad token keeps the earlier value");
    char *gm[] = {"gain_metric=links", "gain_metric=congestion"};
    is_int(tmsp_site_parse(&s, 2, gm, err, sizeof err), 1, "gain_metric=links refused");
    like(err, "gain_metric=links is not hop-bytes or congestion", "bad gain_metric");
    ok(s.gain_congestion == 1, "gain_metric=congestion");
    topomap_opts_t o;
    topomap_opts_init(&o);
    tmsp_site_opts(&s, &o);
    is_int(o.objective, TOPOMAP_OBJECTIVE_CONGESTION, "gain_metric=congestion: objective congestion");
    char *gh[] = {"gain_metric=hop_bytes"};
    is_int(tmsp_site_parse(&s, 1, gh, err, sizeof err), 0, "gain_metric=hop_bytes accepted");
    tmsp_site_opts(&s, &o);
    is_int(o.objective, TOPOMAP_OBJECTIVE_HOP_BYTES, "gain_metric=hop_bytes: objective hop-bytes");
    /* One name and one unit everywhere: hop-bytes as the CLI's --objective,
     * durations with a unit as its --time-limit (a bare number stays ms). */
    char *gc[] = {"gain_metric=congestion", "gain_metric=hop-bytes", "time_limit=2.5s"};
    is_int(tmsp_site_parse(&s, 3, gc, err, sizeof err), 0,
           "gain_metric=hop-bytes, time_limit=2.5s");
    ok(s.gain_congestion == 0, "gain_metric=hop-bytes: hop-bytes");
    is_double(s.time_limit, 2500, 0, "time_limit=2.5s is 2500 ms");
    char *tl[] = {"time_limit=1500ms"};
    is_int(tmsp_site_parse(&s, 1, tl, err, sizeof err), 0, "time_limit=1500ms accepted");
    is_double(s.time_limit, 1500, 0, "time_limit=1500ms");
    char *tb[] = {"time_limit=2sec"};
    is_int(tmsp_site_parse(&s, 1, tb, err, sizeof err), 1, "time_limit=2sec refused");
    tmsp_site_free(&s);

    /* --topomap-record's keys: absolute paths only (used on the nodes). */
    tmsp_site_init(&s);
    ok(s.profiler == NULL && s.spool == NULL, "no profiler= or spool= by default");
    char *rec[] = {"profiler=/opt/t/libtopomap-profiler.so", "spool=/var/spool/topomap"};
    is_int(tmsp_site_parse(&s, 2, rec, err, sizeof err), 0, "profiler= and spool= accepted");
    is_str(s.profiler, "/opt/t/libtopomap-profiler.so", "profiler=");
    is_str(s.spool, "/var/spool/topomap", "spool=");
    char *recbad[] = {"profiler=lib/libtopomap-profiler.so", "spool=", "profiler="};
    is_int(tmsp_site_parse(&s, 3, recbad, err, sizeof err), 3, "3 bad recording paths");
    like(err, "profiler=lib/libtopomap-profiler.so is not an absolute path", "relative profiler=");
    like(err, "spool= is not an absolute path", "empty spool=");
    is_str(s.profiler, "/opt/t/libtopomap-profiler.so", "a bad profiler= keeps the earlier one");
    is_str(s.spool, "/var/spool/topomap", "a bad spool= keeps the earlier one");
    tmsp_site_free(&s);

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
    tmsp_site_init(&s);
    ok(found && ntok >= 7 && tmsp_site_parse(&s, ntok, tok, err, sizeof err) == 0,
       "etc/plugstack.conf.d/topomap.conf: %d arguments, all valid %s", ntok, err);
    tmsp_site_free(&s);
}

/* threads=: auto (the default) or 1..TOPOMAP_MAX_THREADS, into the
 * library's options; a bad value is one line naming the key, and the key
 * keeps its default. */
static void threads_tests(void)
{
    char err[TOPOMAP_ERRLEN];
    struct topomap_site s;
    topomap_opts_t o;
    tmsp_site_init(&s);
    is_int(s.threads, 0, "threads=auto by default");
    topomap_opts_init(&o);
    tmsp_site_opts(&s, &o);
    ok(o.nthreads >= 1 && o.nthreads <= TMSP_AUTO_THREADS_MAX, /* the load may move */
       "auto: %d threads (half the idle CPUs of the affinity mask, 1 to %d)", o.nthreads,
       TMSP_AUTO_THREADS_MAX);
    /* The rule: half the idle CPUs of the mask (online less the load). */
    is_int(tmsp_auto_threads_for(128, 128, 0.1), TMSP_AUTO_THREADS_MAX,
           "auto, idle 128-CPU login node: the most (%d)", TMSP_AUTO_THREADS_MAX);
    is_int(tmsp_auto_threads_for(8, 128, 0), 4, "auto, a job's cpuset of 8 CPUs on an idle node: 4");
    is_int(tmsp_auto_threads_for(8, 128, 124), 2,
           "auto, cpuset of 8 on a node with 4 CPUs idle: 2 (the idle ones, halved)");
    is_int(tmsp_auto_threads_for(64, 64, 60.5), 1, "auto, 64 CPUs at load 60.5: 1");
    is_int(tmsp_auto_threads_for(2, 2, 20), 1, "auto, 2 CPUs at load 20: 1");
    is_int(tmsp_auto_threads_for(1, 1, 0), 1, "auto, one CPU: 1");
    is_int(tmsp_auto_threads_for(16, 16, 0), TMSP_AUTO_THREADS_MAX, "auto, idle 16 CPUs: 8");
    char *good[] = {"threads=3"};
    is_int(tmsp_site_parse(&s, 1, good, err, sizeof err), 0, "threads=3 accepted");
    tmsp_site_opts(&s, &o);
    is_int(o.nthreads, 3, "threads=3: 3 threads for the decision");
    char *top[] = {"threads=1024", "threads=auto"};
    is_int(tmsp_site_parse(&s, 1, top, err, sizeof err), 0, "threads=1024 accepted");
    is_int(s.threads, 1024, "threads=1024");
    is_int(tmsp_site_parse(&s, 1, top + 1, err, sizeof err), 0, "threads=auto accepted");
    is_int(s.threads, 0, "threads=auto");
    static const char *bad[] = {"threads=0", "threads=1025", "threads=many", "threads=",
                                "threads=-2", "threads=4 ", "threads=Auto"};
    tmsp_site_free(&s);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tmsp_site_init(&s);
        char *tok[] = {(char *)bad[k]};
        int nbad = tmsp_site_parse(&s, 1, tok, err, sizeof err);
        char want[128];
        snprintf(want, sizeof want, "plugstack.conf: %s is not auto or an integer from 1 to 1024",
                 bad[k]);
        ok(nbad == 1 && !strcmp(err, want) && s.threads == 0,
           "'%s' refused in one line naming the key, auto kept: %s", bad[k], err);
        tmsp_site_free(&s);
    }
    int t;
    ok(tmsp_threads_parse("auto", &t) == 0 && t == 0 && tmsp_threads_parse("7", &t) == 0 &&
           t == 7 && tmsp_threads_parse("0", &t) < 0 && t == 7,
       "tmsp_threads_parse: auto, 7; 0 refused (the CLI's --threads too)");
}

int main(void)
{
    threads_tests();
    site_tests();
    return done_testing();
}
