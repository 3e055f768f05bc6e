/* SPDX-License-Identifier: BSD-3-Clause */
/* What topomap plan prints: the decision, the site keys it was made under,
 * and the binding in words (TOPOMAP_BIND's encoding is for the nodes, not
 * for the admin), as text or one JSON object (doc/reference.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan.h"

static const char *const outcome_name[] = {"off", "keep", "remap", "fail"};

/* "0-3,8": ascending runs of v[0..n-1] as written, cut with "..." when
 * longer than @p len. */
static void runs(const int *v, int n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < len; i++) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        at += (size_t)snprintf(buf + at, len - at, j > i ? "%s%d-%d" : "%s%d", i ? "," : "", v[i],
                               v[j]);
        i = j;
    }
    if (at >= len && len > 4)
        strcpy(buf + len - 4, "...");
}

/* Each rank's core index on its node (TOPOMAP_BIND decoded), or NULL. */
static int *bind_cores(const struct topomap_decision *d, int *cpt)
{
    int *core = d->bind && d->nranks > 0 ? malloc((size_t)d->nranks * sizeof *core) : NULL;
    if (core && tmsp_bind_decode(d->bind, d->nranks, core, cpt) < 0) {
        free(core);
        core = NULL;
    }
    return core;
}

/* Ranks by node name, then rank: each node's ranks in a run. */
static char *const *sort_hosts;
static int by_host(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(sort_hosts[x], sort_hosts[y]);
    return c ? c : (x > y) - (x < y);
}

/* "n1 ranks 0,4 -> cores 0-1; n2 ..." for the nodes of the first @p
 * maxnodes ranks' order (the node of rank 0 first). */
static void binding_words(const struct topomap_decision *d, const int *core, int maxnodes)
{
    int n = d->nranks, *idx = malloc((size_t)n * sizeof *idx);
    int *start = malloc(((size_t)n + 1) * sizeof *start), *rk = malloc((size_t)n * sizeof *rk);
    int *cr = malloc((size_t)n * sizeof *cr);
    char rb[256], cb[256];
    int nodes = 0;
    if (idx && start && rk && cr) {
        for (int r = 0; r < n; r++)
            idx[r] = r;
        sort_hosts = d->hosts;
        qsort(idx, (size_t)n, sizeof *idx, by_host);
        for (int i = 0; i < n; i++)
            if (!i || strcmp(d->hosts[idx[i]], d->hosts[idx[i - 1]]))
                start[nodes++] = i;
        start[nodes] = n;
        /* The nodes in the order of their first rank, the first maxnodes. */
        for (int shown = 0, last = -1; shown < maxnodes && shown < nodes; shown++) {
            int g = -1;
            for (int k = 0; k < nodes; k++)
                if (idx[start[k]] > last && (g < 0 || idx[start[k]] < idx[start[g]]))
                    g = k;
            last = idx[start[g]];
            int m = start[g + 1] - start[g];
            for (int i = 0; i < m; i++) {
                rk[i] = idx[start[g] + i];
                cr[i] = core[rk[i]];
            }
            runs(rk, m, rb, sizeof rb);
            runs(cr, m, cb, sizeof cb);
            printf("%s%s rank%s %s -> core%s %s", shown ? "; " : "", d->hosts[rk[0]],
                   m > 1 ? "s" : "", rb, m > 1 ? "s" : "", cb);
        }
    }
    if (nodes > maxnodes)
        printf("; ... (%d nodes; --verbose lists every rank)", nodes);
    free(idx);
    free(start);
    free(rk);
    free(cr);
}

static void print_site(const struct topomap_site *s, const char *file)
{
    char b[40];
    printf("%-12s topology=%s", "site", s->topology ? s->topology : "(none)");
    if (s->topology && strcmp(s->topology, file))
        printf(" (%s)", file);
    if (s->topology_name)
        printf(" topology_name=%s", s->topology_name);
    printf(" profiles=%s default=%s min_gain=%s", topomap_store_dir(s->profiles), s->dflt,
           num(s->min_gain, b, sizeof b));
    printf(" gain_metric=%s time_limit=%sms bind=%s strict=%d", plan_gain_metric(s),
           num(s->time_limit, b, sizeof b), s->bind ? "cores" : "none", s->strict);
    if (s->gpu_bind)
        printf(" gpu_bind=yes");
    if (s->threads)
        printf(" threads=%d", s->threads);
    printf("\n");
}

const char *plan_gain_metric(const struct topomap_site *s)
{
    return s->gain_congestion ? "congestion" : "hop-bytes";
}

static void print_text(const struct topomap_site *site, const char *file,
                       const struct topomap_decision *d, int verbose)
{
    char b[2][40];
    printf("%-12s %s\n", "decision", outcome_name[d->outcome]);
    printf("%-12s %s\n", "algorithm", d->algo ? d->algo : "-");
    printf("%-12s %d\n", "ranks", d->nranks);
    if (d->hop_bytes_default > 0 || d->hop_bytes_new > 0) {
        printf("%-12s %s (Slurm's layout)", "hop-bytes", num(d->hop_bytes_default, b[0], 40));
        if (d->outcome == TOPOMAP_REMAP || d->hop_bytes_new > 0)
            printf(" -> %s (new)", num(d->hop_bytes_new, b[1], 40));
        printf("\n");
    }
    if (d->message[0])
        printf("%-12s %s\n", "message", d->message);
    if (d->summary[0])
        printf("%-12s %s\n", "verbose", d->summary);
    if (d->note[0])
        printf("%-12s %s\n", "note", d->note);
    int cpt = 1, *core = d->outcome == TOPOMAP_REMAP ? bind_cores(d, &cpt) : NULL;
    if (d->outcome == TOPOMAP_REMAP) {
        /* Core k of a node: its k-th core among those Slurm gives the step. */
        if (core) {
            printf("%-12s %d core%s per rank, numbered among the step's cores on "
                   "each node: ",
                   "binding", cpt, cpt > 1 ? "s" : "");
            binding_words(d, core, 4);
            printf("\n%-12s %s\n", "TOPOMAP_BIND", d->bind);
        } else
            printf("%-12s none: Slurm's task plugin binds (%s)\n", "binding",
                   site->bind ? "the topology does not describe the cores" : "bind=none");
        if (d->gpu)
            printf("%-12s %s\n", "TOPOMAP_GPU", d->gpu);
        printf("%-12s %s\n", "pmi2", d->pmi2 ? d->pmi2 : "(too long: MPICH loses shared memory)");
    }
    print_site(site, file);
    if (d->outcome == TOPOMAP_REMAP && verbose)
        for (int r = 0; r < d->nranks; r++) {
            if (core)
                printf("rank %d %s core %d\n", r, d->hosts[r], core[r]);
            else
                printf("rank %d %s\n", r, d->hosts[r]);
        }
    free(core);
}

/* ", KEY: V", V a number, or null where @p has is 0. */
static void json_num(const char *key, int has, double v)
{
    char b[40];
    printf(", \"%s\": %s", key, has ? jnum(v, b, sizeof b) : "null");
}

static void print_json_site(const struct topomap_site *s, const char *file)
{
    FILE *f = stdout;
    printf(", \"site\": {");
    json_key(f, 1, "topology", s->topology);
    json_key(f, 0, "topology_file", file);
    json_key(f, 0, "topology_name", s->topology_name);
    json_key(f, 0, "profiles", topomap_store_dir(s->profiles));
    json_key(f, 0, "default", s->dflt);
    json_num("min_gain", 1, s->min_gain);
    json_key(f, 0, "gain_metric", plan_gain_metric(s));
    json_num("time_limit_ms", 1, s->time_limit);
    json_key(f, 0, "bind", s->bind ? "cores" : "none");
    printf(", \"strict\": %s, \"gpu_bind\": %s", s->strict ? "true" : "false",
           s->gpu_bind ? "true" : "false");
    if (s->threads)
        printf(", \"threads\": %d}", s->threads);
    else
        printf(", \"threads\": null}");
}

static void print_json(const struct topomap_site *s, const char *file,
                       const struct topomap_decision *d, int rc)
{
    FILE *f = stdout;
    int remap = d->outcome == TOPOMAP_REMAP, cpt = 1, *core = remap ? bind_cores(d, &cpt) : NULL;
    printf("{");
    json_key(f, 1, "decision", outcome_name[d->outcome]);
    printf(", \"exit\": %d", rc);
    json_key(f, 0, "algorithm", d->algo);
    printf(", \"ranks\": %d", d->nranks);
    int has = d->hop_bytes_default > 0 || d->hop_bytes_new > 0;
    json_num("hop_bytes_default", has, d->hop_bytes_default);
    json_num("hop_bytes_new", has && (remap || d->hop_bytes_new > 0), d->hop_bytes_new);
    json_key(f, 0, "message", d->message[0] ? d->message : NULL);
    json_key(f, 0, "verbose", d->summary[0] ? d->summary : NULL);
    json_key(f, 0, "note", d->note[0] ? d->note : NULL);
    json_key(f, 0, "binding", remap ? d->bind : NULL);
    json_num("cores_per_rank", core != NULL, cpt);
    json_key(f, 0, "gpu", remap ? d->gpu : NULL);
    json_key(f, 0, "pmi2", remap ? d->pmi2 : NULL);
    printf(", \"hosts\": ");
    for (int r = 0; r < d->nranks && remap; r++) {
        printf(r ? ", " : "[");
        json_str(f, d->hosts[r]);
    }
    printf(remap && d->nranks ? "]" : "null");
    printf(", \"cores\": ");
    for (int r = 0; r < d->nranks && core; r++)
        printf("%s%d", r ? ", " : "[", core[r]);
    printf(core && d->nranks ? "]" : "null");
    print_json_site(s, file);
    printf("}\n");
    free(core);
}

void plan_print(const struct topomap_site *site, const char *file, const struct topomap_decision *d,
                int verbose, int json, int rc)
{
    if (json)
        print_json(site, file, d, rc);
    else
        print_text(site, file, d, verbose);
}
