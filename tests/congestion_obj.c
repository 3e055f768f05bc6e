/* SPDX-License-Identifier: BSD-3-Clause */
/* Congestion as an objective: the incremental channel loads
 * (congestion_incr.c) against a recomputation from scratch
 * (topomap_congestion, topomap_link_loads) after random moves on every
 * network kind; the refinement for the busiest link (refine_congestion.c);
 * auto's guard (never a busiest link above block's) on small scattered
 * allocations, with either objective; the objective option's parsing and
 * errors; the same answer for 1 and 2 threads; on a tapered fat-tree, loads
 * weighted by each link's bandwidth (the busiest link in seconds). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "congestion.h"
#include "problem.h"
#include "synth.h"
#include "tap.h"

/* From scratch: busiest link and sum of squared loads of p placed by r2s. */
static void scratch(const struct prob *P, const int *r2s, double *max, double *sumsq)
{
    int *node = malloc(sizeof(int) * (size_t)P->pb.n);
    for (int r = 0; r < P->pb.n; r++)
        node[r] = P->pb.slot_node[r2s[r]];
    topomap_link_load_t *l = NULL;
    size_t n = 0;
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    *max = *sumsq = -1;
    if (topomap_link_loads(P->pb.profile, P->pb.topo, node, &l, &n) == 0 &&
        topomap_congestion(P->pb.profile, P->pb.topo, node, &m) == 0) {
        *max = m.congestion_max;
        *sumsq = 0;
        for (size_t i = 0; i < n; i++)
            *sumsq += l[i].load * l[i].load;
    }
    free(l);
    free(node);
}

/* k nodes chosen at random (seeded), or (step > 0) every step-th node from
 * the first, in index order, `slots` slots each. */
static topomap_alloc_t *scattered(const topomap_topology_t *t, int k, int step, const char *slots)
{
    int nn = topomap_topology_nnodes(t);
    int *pick = malloc(sizeof(int) * (size_t)nn);
    for (int i = 0; i < nn; i++)
        pick[i] = step > 0 ? (i * step) % nn : i;
    for (int i = 0; step == 0 && i < k; i++) {
        int j = i + rnd(nn - i), x = pick[i];
        pick[i] = pick[j];
        pick[j] = x;
    }
    qsort(pick, (size_t)k, sizeof(int), topomap_cmp_int);
    const char **names = malloc(sizeof(char *) * (size_t)k);
    for (int i = 0; i < k; i++)
        names[i] = topomap_topology_node_name(t, pick[i]);
    char *hl = topomap_hostlist_compress(names, (size_t)k);
    topomap_alloc_t *a = topomap_alloc_create(t, hl, slots, err, sizeof err);
    free(hl);
    free(names);
    free(pick);
    return a;
}

static topomap_topology_t *network(int kind)
{
    int dims[3] = {6, 5, 4}, wrap[3] = {1, 1, 0}, arity[2] = {4, 6}, hops[2] = {4, 2};
    switch (kind) {
    case 0: return topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    case 1: return topomap_topology_tree(2, arity, hops, 4, NULL, err, sizeof err);
    default: return topomap_topology_tianhe3(3, 3, 4, 4, NULL, err, sizeof err);
    }
}
static const char *kind_name[] = {"torus", "fat-tree", "tianhe3"};

/* Incremental loads after random moves (to free slots and exchanges) equal
 * a recomputation from scratch. */
static void incremental(void)
{
    for (int kind = 0; kind < 3; kind++) {
        topomap_topology_t *t = network(kind);
        topomap_alloc_t *a = t ? scattered(t, 12, 0, "4") : NULL;
        topomap_profile_t *p = random_profile(40, 5);
        ok(t && a && p, "%s: machine, allocation and profile", kind_name[kind]);
        if (!t || !a || !p)
            continue;
        struct prob P;
        prob_init(&P, p, a);
        int *r2s = malloc(sizeof(int) * 40);
        for (int r = 0; r < 40; r++)
            r2s[r] = r; /* 48 slots: 8 free */
        struct topomap_cload *cl = topomap_cload_create(&P.pb, r2s);
        ok(cl != NULL, "%s: loads created", kind_name[kind]);
        int bad = 0, checks = 0;
        for (int step = 0; cl && step < 300; step++) {
            int r = rnd(40), s = rnd(P.pb.nslots);
            if (topomap_cload_move(cl, r, s) < 0) {
                bad++;
                break;
            }
            if (step % 10 == 9) {
                double mx, sq;
                scratch(&P, topomap_cload_r2s(cl), &mx, &sq);
                checks++;
                bad += fabs(mx - topomap_cload_max(cl)) > 1e-9 * mx ||
                       fabs(sq - topomap_cload_sumsq(cl)) > 1e-9 * sq;
            }
        }
        /* The placement held is still an injective map. */
        int *seen = calloc((size_t)P.pb.nslots, sizeof(int));
        const int *h = cl ? topomap_cload_r2s(cl) : r2s;
        for (int r = 0; r < 40; r++)
            bad += seen[h[r]]++ > 0;
        ok(bad == 0 && checks == 30,
           "%s: 300 random moves, busiest link and sum of squared loads equal a "
           "recomputation at 30 points",
           kind_name[kind]);
        free(seen);
        /* Refinement: the busiest link never rises, the placement stays valid. */
        double before, sq, after = -1;
        memcpy(r2s, h, sizeof(int) * 40);
        scratch(&P, r2s, &before, &sq);
        int rc = topomap_refine_congestion(&P.pb, r2s, 0, &after, err, sizeof err);
        double check;
        scratch(&P, r2s, &check, &sq);
        ok(rc == 0 && valid(r2s, 40, P.pb.nslots) && after <= before &&
               fabs(check - after) <= 1e-9 * check,
           "%s: refinement for the busiest link %g -> %g (recomputed %g)", kind_name[kind],
           before, after, check);
        topomap_cload_free(cl);
        free(r2s);
        free(P.sn), free(P.sc);
        topomap_profile_free(p);
        topomap_alloc_free(a);
        topomap_topology_free(t);
    }
    topomap_cload_free(NULL); /* accepted */
}

/* Counts auto's log lines that refuse a candidate for its busiest link. */
static void count_refusals(const char *line, void *arg)
{
    if (strstr(line, "above block's"))
        ++*(int *)arg;
}

static double busiest(const topomap_profile_t *p, const topomap_alloc_t *a, const int *r2s)
{
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    return topomap_eval_slots(p, a, r2s, &m) == 0 ? m.congestion_max : -1;
}

/* auto, either objective, never above block's busiest link on small
 * scattered cases; drb+refine (hop-bytes alone) or a candidate auto refused
 * is above it on some, so the guard has work to do. */
static void guard(void)
{
    int over_drb = 0, over_auto = 0, over_cong = 0, cases = 0, lower = 0, refused = 0;
    int dims[3] = {8, 8, 8}, wrap[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    for (int c = 0; t && c < 6; c++) {
        topomap_alloc_t *a = scattered(t, 16, c < 3 ? 32 : 0, "4");
        topomap_profile_t *p = c % 3 == 0   ? stencil(4, 4, 4, 0, c > 2)
                               : c % 3 == 1 ? random_profile(64, 6)
                                            : stencil(8, 8, 1, 1, 1);
        int rb[64], rd[64], ra[64], rc[64];
        topomap_opts_t o;
        topomap_opts_init(&o);
        o.log = count_refusals;
        o.log_arg = &refused;
        int fail = !a || !p || topomap_map("block", p, a, &o, rb, err, sizeof err) < 0 ||
                   topomap_map("drb+refine", p, a, &o, rd, err, sizeof err) < 0 ||
                   topomap_map("auto", p, a, &o, ra, err, sizeof err) < 0;
        o.objective = TOPOMAP_OBJECTIVE_CONGESTION;
        fail = fail || topomap_map("auto", p, a, &o, rc, err, sizeof err) < 0;
        ok(!fail, "case %d: block, drb+refine, auto and auto (congestion) ran", c);
        if (!fail) {
            double cb = busiest(p, a, rb);
            cases++;
            over_drb += busiest(p, a, rd) > cb;
            over_auto += busiest(p, a, ra) > cb;
            over_cong += busiest(p, a, rc) > cb;
            lower += busiest(p, a, rc) < cb;
        }
        topomap_profile_free(p);
        topomap_alloc_free(a);
    }
    topomap_topology_free(t);
    is_int(cases, 6, "6 scattered cases on an 8x8x8 torus");
    ok(over_drb + refused > 0,
       "drb+refine's busiest link is above block's on %d of them, auto refused %d candidates "
       "for it",
       over_drb, refused);
    is_int(over_auto, 0, "auto's busiest link is never above block's");
    is_int(over_cong, 0, "auto (congestion)'s busiest link is never above block's");
    ok(lower >= 3, "auto (congestion) is below block's busiest link on %d cases", lower);
}

static void option(void)
{
    is_int(topomap_objective_parse("hop-bytes"), TOPOMAP_OBJECTIVE_HOP_BYTES, "hop-bytes");
    is_int(topomap_objective_parse("HOP_BYTES"), TOPOMAP_OBJECTIVE_HOP_BYTES, "HOP_BYTES");
    is_int(topomap_objective_parse("congestion"), TOPOMAP_OBJECTIVE_CONGESTION, "congestion");
    errno = 0;
    ok(topomap_objective_parse("links") < 0 && errno == EINVAL, "links: EINVAL");
    errno = 0;
    ok(topomap_objective_parse(NULL) < 0 && errno == EINVAL, "NULL: EINVAL");
    errno = 0;
    ok(topomap_objective_parse("congestion ") < 0 && errno == EINVAL, "trailing blank: EINVAL");

    int dims[2] = {4, 4}, wrap[2] = {1, 1};
    topomap_topology_t *t = topomap_topology_torus(2, dims, wrap, 2, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? prob_all_nodes(t, "2", err, sizeof err) : NULL;
    topomap_profile_t *p = random_profile(32, 4);
    topomap_opts_t o;
    topomap_opts_init(&o);
    is_int(o.objective, TOPOMAP_OBJECTIVE_HOP_BYTES, "default objective: hop-bytes");
    o.objective = 2;
    int r2s[32];
    errno = 0;
    ok(topomap_map("auto", p, a, &o, r2s, err, sizeof err) < 0 && errno == EINVAL,
       "objective 2: EINVAL");
    like(err, "objective 2", "message names it: %s", err);

    /* Same answer for 1 and 2 threads, with refinement for the objective. */
    int r1[32], r2[32];
    o.objective = TOPOMAP_OBJECTIVE_CONGESTION;
    o.nthreads = 1;
    int rc = topomap_map("auto", p, a, &o, r1, err, sizeof err);
    o.nthreads = 2;
    rc |= topomap_map("auto", p, a, &o, r2, err, sizeof err);
    ok(rc == 0 && !memcmp(r1, r2, sizeof r1), "auto (congestion): same answer for 1 and 2 "
                                                "threads");
    o.nthreads = 1;
    int rr[32], rp[32];
    rc = topomap_map("drb+refine", p, a, &o, rr, err, sizeof err);
    o.objective = TOPOMAP_OBJECTIVE_HOP_BYTES;
    rc |= topomap_map("drb+refine", p, a, &o, rp, err, sizeof err);
    ok(rc == 0 && busiest(p, a, rr) <= busiest(p, a, rp),
       "drb+refine with objective congestion: busiest link %g <= %g with hop-bytes",
       busiest(p, a, rr), busiest(p, a, rp));
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* A 2:1 tapered two-level fat-tree (uplinks at half the node links'
 * bandwidth): the incremental busiest link and the guard's are the busiest
 * link in seconds (congestion.c's congestion_max_seconds) x the link
 * bandwidth, after random moves, and differ from the busiest in bytes
 * somewhere (the weights are in use). */
static void tapered(void)
{
    char path[] = "/tmp/topomap-taper.XXXXXX";
    int fd = mkstemp(path);
    const char *yaml = "nodes: \"n[00-23]\"\n"
                       "network:\n"
                       "  kind: fat-tree\n"
                       "  link_bandwidth: 25e9\n"
                       "  levels:\n"
                       "    - {arity: 4, hops: 4, bandwidth: 12.5e9}\n"
                       "    - {arity: 6, hops: 2}\n"
                       "node:\n"
                       "  levels:\n"
                       "    - {name: core, arity: 4, cost: 0.5}\n";
    ok(fd >= 0 && write(fd, yaml, strlen(yaml)) == (ssize_t)strlen(yaml), "tapered tree written");
    if (fd >= 0)
        close(fd);
    topomap_topology_t *t = topomap_topology_load(path, err, sizeof err);
    unlink(path);
    topomap_alloc_t *a = t ? scattered(t, 12, 0, "4") : NULL;
    topomap_profile_t *p = random_profile(40, 5);
    ok(t && a && p, "tapered tree: machine, allocation and profile (%s)", t ? "" : err);
    if (!t || !a || !p)
        return;
    struct prob P;
    prob_init(&P, p, a);
    int r2s[40], node[40];
    for (int r = 0; r < 40; r++)
        r2s[r] = r;
    struct topomap_cload *cl = topomap_cload_create(&P.pb, r2s);
    int bad = cl == NULL, checks = 0, differ = 0;
    for (int step = 0; cl && step < 200; step++) {
        if (topomap_cload_move(cl, rnd(40), rnd(P.pb.nslots)) < 0) {
            bad++;
            break;
        }
        if (step % 10 != 9)
            continue;
        const int *h = topomap_cload_r2s(cl);
        for (int r = 0; r < 40; r++)
            node[r] = P.pb.slot_node[h[r]];
        topomap_metrics_t m = TOPOMAP_METRICS_INIT;
        if (topomap_congestion(p, t, node, &m) < 0) {
            bad++;
            break;
        }
        double want = m.congestion_max_seconds * 25e9, guard = topomap_slots_congestion(&P.pb, h);
        checks++;
        bad += fabs(topomap_cload_max(cl) - want) > 1e-9 * want ||
               fabs(guard - want) > 1e-9 * want;
        differ += fabs(want - m.congestion_max) > 1e-9 * want;
    }
    ok(bad == 0 && checks == 20 && differ > 0,
       "tapered tree: the incremental and the guard's busiest link are the busiest in seconds "
       "x the link bandwidth at 20 points (%d of them not the busiest in bytes)",
       differ);
    topomap_cload_free(cl);
    free(P.sn), free(P.sc);
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* The refinement for the busiest link from block's rb (n ranks) lowers
 * block's busiest link without raising its hop-bytes; `move` says how. */
static void refine_lowers(const topomap_profile_t *p, const topomap_alloc_t *a, const int *rb,
                          int n, const char *move)
{
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT, mx = TOPOMAP_METRICS_INIT;
    int *rx = malloc(sizeof(int) * (size_t)n);
    struct prob P;
    prob_init(&P, p, a);
    memcpy(rx, rb, sizeof(int) * (size_t)n);
    double cmax = -1;
    ok(topomap_refine_congestion(&P.pb, rx, 0, &cmax, err, sizeof err) == 0 &&
           topomap_eval_slots(p, a, rb, &mb) == 0 && topomap_eval_slots(p, a, rx, &mx) == 0,
       "refinement for the busiest link from block");
    ok(mx.congestion_max < mb.congestion_max && mx.hop_bytes <= mb.hop_bytes,
       "%s: busiest link %g -> %g, hop-bytes %g -> %g", move, mb.congestion_max,
       mx.congestion_max, mb.hop_bytes, mx.hop_bytes);
    prob_free(&P);
    free(rx);
}

/* The rotation of three nodes' contents (refine_congestion.c,
 * try_node_cycles): 6 ranks on 6 nodes of the diagonal of an 8x8 torus
 * (every 9th node, one slot each), a profile where no exchange of two
 * ranks lowers block's busiest link without raising its hop-bytes (checked
 * here), and the refinement's pair moves are stuck, but a rotation of three
 * lowers both. Found by a search over random profiles; without the
 * rotations the refinement makes no move here. */
static void rotation(void)
{
    static const int e[][3] = {{0, 4, 1}, {2, 1, 5}, {2, 1, 6}, {3, 4, 5}, {3, 5, 7},
                               {4, 5, 9}, {4, 1, 5}, {5, 4, 1}, {5, 4, 8}};
    int src[18], dst[18], rb[6], rx[6];
    double b[18];
    for (int i = 0; i < 9; i++) {
        src[2 * i] = dst[2 * i + 1] = e[i][0];
        dst[2 * i] = src[2 * i + 1] = e[i][1];
        b[2 * i] = b[2 * i + 1] = e[i][2];
    }
    int dims[3] = {8, 8, 1}, wrap[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 1, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? scattered(t, 6, 9, "1") : NULL;
    topomap_profile_t *p = topomap_profile_create(6, 18, src, dst, b, NULL, err, sizeof err);
    if (!ok(a && p && topomap_map("block", p, a, NULL, rb, err, sizeof err) == 0,
            "the rotation case: 6 ranks on the diagonal of an 8x8 torus"))
        return;
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT, mx = TOPOMAP_METRICS_INIT;
    topomap_eval_slots(p, a, rb, &mb);
    int lower = 0;
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) {
            memcpy(rx, rb, sizeof rx);
            rx[i] = rb[j];
            rx[j] = rb[i];
            lower += topomap_eval_slots(p, a, rx, &mx) == 0 &&
                     mx.congestion_max < mb.congestion_max && mx.hop_bytes <= mb.hop_bytes;
        }
    is_int(lower, 0, "no exchange of two ranks lowers block's busiest link (%g) and not its "
                     "hop-bytes (%g)", mb.congestion_max, mb.hop_bytes);
    refine_lowers(p, a, rb, 6, "a rotation of three nodes lowers it");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

/* The exchange of two node pairs (refine_congestion.c, try_node_swaps with
 * pairs): a LAMMPS-like 8 x 4 x 4 stencil (x, y, z neighbours 2.5e6, 7.4e5,
 * 4.4e5 bytes, each +-5% of deterministic noise, as measured profiles have) on
 * every 128th node of a 16^3 torus, 4 slots each: two rings of 16 nodes,
 * where block puts the x halves on the two rings. No exchange of two nodes'
 * contents lowers block's busiest link without raising its hop-bytes
 * (checked here); without the pair exchanges the refinement makes no move
 * from block (as on lammps-lj32k-128, doc/congestion.md); with them it
 * lowers both. */
static void pairs(void)
{
    static int src[768], dst[768], rb[128], rx[128];
    static double b[768];
    const double w[3] = {2.5e6, 7.4e5, 4.4e5};
    const int dim[3] = {8, 4, 4}, str[3] = {1, 8, 32};
    unsigned seed = 1;
    int m = 0;
    for (int r = 0; r < 128; r++)
        for (int k = 0; k < 3; k++)
            for (int sg = -1; sg <= 1; sg += 2) {
                int c = r / str[k] % dim[k], nc = (c + sg + dim[k]) % dim[k];
                seed = seed * 1103515245u + 12345u;
                src[m] = r;
                dst[m] = r + (nc - c) * str[k];
                b[m++] = w[k] * (1 + 0.05 * (((seed >> 8) & 0xffff) / 32768.0 - 1));
            }
    int dims[3] = {16, 16, 16}, wrap[3] = {1, 1, 1};
    topomap_topology_t *t = topomap_topology_torus(3, dims, wrap, 4, NULL, err, sizeof err);
    topomap_alloc_t *a = t ? scattered(t, 32, 128, "4") : NULL;
    topomap_profile_t *p = topomap_profile_create(128, m, src, dst, b, NULL, err, sizeof err);
    if (!ok(a && p && topomap_map("block", p, a, NULL, rb, err, sizeof err) == 0,
            "the pair case: an 8x4x4 stencil on two rings of a 16^3 torus"))
        return;
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT, mx = TOPOMAP_METRICS_INIT;
    topomap_eval_slots(p, a, rb, &mb);
    int lower = 0;
    for (int i = 0; i < 32; i++)
        for (int j = i + 1; j < 32; j++) {
            memcpy(rx, rb, sizeof rx);
            for (int r = 0; r < 128; r++)
                rx[r] = rb[r] / 4 == i   ? rb[r] + 4 * (j - i)
                        : rb[r] / 4 == j ? rb[r] - 4 * (j - i)
                                         : rb[r];
            lower += topomap_eval_slots(p, a, rx, &mx) == 0 &&
                     mx.congestion_max < mb.congestion_max && mx.hop_bytes <= mb.hop_bytes;
        }
    is_int(lower, 0, "no exchange of two nodes lowers block's busiest link (%g) and not its "
                     "hop-bytes (%g)", mb.congestion_max, mb.hop_bytes);
    refine_lowers(p, a, rb, 128, "exchanges of node pairs lower it");
    topomap_profile_free(p);
    topomap_alloc_free(a);
    topomap_topology_free(t);
}

int main(void)
{
    incremental();
    tapered();
    guard();
    option();
    rotation();
    pairs();
    return done_testing();
}
