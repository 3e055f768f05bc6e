/* SPDX-License-Identifier: BSD-3-Clause */
/* The site policy: plugstack.conf arguments (see policy.h). */
#include <stdlib.h>
#include <string.h>

#include "common.h"

void tmsp_site_init(struct topomap_site *s)
{
    memset(s, 0, sizeof *s);
    s->dflt = strdup("off");
    s->min_gain = 0;
    s->time_limit = 2000;
    s->bind = 1;
    s->strict = 0;
}

void tmsp_site_free(struct topomap_site *s)
{
    if (!s)
        return;
    free(s->topology);
    free(s->topology_name);
    free(s->profiles);
    free(s->dflt);
    free(s->profiler);
    free(s->spool);
    memset(s, 0, sizeof *s);
}

int tmsp_site_parse(struct topomap_site *s, int argc, char *const *argv, char *err,
                    size_t errlen)
{
    int bad = 0;
    if (err && errlen)
        err[0] = 0;
    for (int i = 0; i < argc; i++) {
        const char *tok = argv[i];
        const char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            tmsp_append(err, errlen, "plugstack.conf argument '%s' is not key=value", tok);
            bad++;
            continue;
        }
        size_t klen = (size_t)(eq - tok);
        const char *v = eq + 1;
#define KEY(name) (klen == strlen(name) && !strncmp(tok, name, klen))
        if (KEY("topology") || KEY("profiles")) {
            if (!*v) {
                tmsp_append(err, errlen, "plugstack.conf: %.*s= needs a path", (int)klen,
                            tok);
                bad++;
            } else
                tmsp_set(KEY("topology") ? &s->topology : &s->profiles, v);
        } else if (KEY("topology_name")) {
            if (!*v) {
                tmsp_append(err, errlen, "plugstack.conf: topology_name= needs a name");
                bad++;
            } else
                tmsp_set(&s->topology_name, v);
        } else if (KEY("profiler") || KEY("spool")) {
            /* Both are used on the compute nodes, from slurmstepd and from
             * the tasks' working directories: only absolute paths mean the
             * same thing everywhere. */
            if (*v != '/') {
                tmsp_append(err, errlen, "plugstack.conf: %.*s=%s is not an absolute path",
                            (int)klen, tok, v);
                bad++;
            } else
                tmsp_set(KEY("profiler") ? &s->profiler : &s->spool, v);
        } else if (KEY("default")) {
            if (!*v) {
                tmsp_append(err, errlen,
                            "plugstack.conf: default= needs an algorithm or off");
                bad++;
            } else
                tmsp_set(&s->dflt, v);
        } else if (KEY("min_gain")) {
            double g;
            /* g < 0 would remap to worse layouts (found by tests/fuzz/fuzz_site). */
            if (topomap_parse_double(v, &g) < 0 || g < 0 || g >= 1) {
                tmsp_append(err, errlen,
                            "plugstack.conf: min_gain=%s is not a fraction below 1 (0 or "
                            "more)", v);
                bad++;
            } else
                s->min_gain = g;
        } else if (KEY("gain_metric")) {
            /* make benefit (doc/benchmarks.md#does-it-help): run time followed the
             * busiest link, not hop-bytes, on the emulated cluster.
             * hop-bytes is the name everywhere; hop_bytes is kept for the
             * lines written before. */
            int obj = topomap_objective_parse(v);
            if (obj >= 0)
                s->gain_congestion = obj == TOPOMAP_OBJECTIVE_CONGESTION;
            else {
                tmsp_append(err, errlen,
                            "plugstack.conf: gain_metric=%s is not hop-bytes or congestion",
                            v);
                bad++;
            }
        } else if (KEY("time_limit")) {
            /* "2s", "2000ms"; a bare number is milliseconds, as it always was. */
            double t;
            if (topomap_parse_duration(v, 1e-3, &t) < 0 || t <= 0) {
                tmsp_append(err, errlen,
                            "plugstack.conf: time_limit=%s is not a positive duration "
                            "(e.g. 2s, 2000ms; a bare number is ms)",
                            v);
                bad++;
            } else
                s->time_limit = t * 1e3;
        } else if (KEY("threads")) {
            if (tmsp_threads_parse(v, &s->threads) < 0) {
                tmsp_append(err, errlen,
                            "plugstack.conf: threads=%s is not auto or an integer from 1 to %d",
                            v, TOPOMAP_MAX_THREADS);
                bad++;
            }
        } else if (KEY("bind")) {
            if (!strcmp(v, "cores"))
                s->bind = 1;
            else if (!strcmp(v, "none"))
                s->bind = 0;
            else {
                tmsp_append(err, errlen, "plugstack.conf: bind=%s is not cores or none", v);
                bad++;
            }
        } else if (KEY("gpu_bind")) {
            if (!strcmp(v, "yes") || !strcmp(v, "no"))
                s->gpu_bind = v[0] == 'y';
            else {
                tmsp_append(err, errlen, "plugstack.conf: gpu_bind=%s is not yes or no", v);
                bad++;
            }
        } else if (KEY("strict")) {
            if (!strcmp(v, "0") || !strcmp(v, "1"))
                s->strict = v[0] == '1';
            else {
                tmsp_append(err, errlen, "plugstack.conf: strict=%s is not 0 or 1", v);
                bad++;
            }
        } else {
            tmsp_append(
                err, errlen,
                "plugstack.conf: unknown key '%.*s' (known: topology, topology_name, profiles, "
                "default, min_gain, time_limit, bind, strict, profiler, spool, gain_metric, "
                "gpu_bind, threads)",
                (int)klen, tok);
            bad++;
        }
#undef KEY
    }
    return bad;
}

void tmsp_site_opts(const struct topomap_site *s, topomap_opts_t *o)
{
    /* What decides (min_gain) is also what the placement minimises. */
    o->objective = s->gain_congestion ? TOPOMAP_OBJECTIVE_CONGESTION : TOPOMAP_OBJECTIVE_HOP_BYTES;
    /* srun's threads= (doc/topomap-spank.8): the site's, not the user's
     * OMP_NUM_THREADS. */
    o->nthreads = s->threads > 0 ? s->threads : tmsp_auto_threads();
}
