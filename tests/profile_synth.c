/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap_profile_synth: the bytes of each group worked out by hand on small
 * layouts (TP 2 x PP 2 x DP 2 in every rank order, TP 4, CP, EP), the model
 * mode's formulas (doc/training.md) on a tiny model, and bad input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topomap.h"

/* The dense 8 x 8 bytes (and messages) of a profile. */
static void dense(const topomap_profile_t *p, double *a, double *msg)
{
    topomap_graph_t g, m;
    memset(a, 0, 64 * sizeof *a);
    topomap_profile_graph(p, TOPOMAP_AFFINITY_BYTES, 0, &g);
    for (int i = 0; i < g.n; i++)
        for (int64_t k = g.xadj[i]; k < g.xadj[i + 1]; k++)
            a[i * 8 + g.adj[k]] = g.w[k];
    if (msg && topomap_profile_graph(p, TOPOMAP_AFFINITY_MSGS, 0, &m) == 0) {
        memset(msg, 0, 64 * sizeof *msg);
        for (int i = 0; i < m.n; i++)
            for (int64_t k = m.xadj[i]; k < m.xadj[i + 1]; k++)
                msg[i * 8 + m.adj[k]] = m.w[k];
    }
}

/* Add bytes both ways between the pairs of s ("01 23 45 67"). */
static void pairs(double *want, const char *s, double b)
{
    for (; *s; s += s[2] ? 3 : 2) {
        int i = s[0] - '0', j = s[1] - '0';
        want[i * 8 + j] += b;
        want[j * 8 + i] += b;
    }
}

static topomap_profile_t *synth(int tp, int cp, int ep, int dp, int pp, const char *order,
                                const topomap_train_t *m, topomap_train_bytes_t *sum)
{
    topomap_layout_t l = {{tp, cp, ep, dp, pp}, {0}};
    char err[TOPOMAP_ERRLEN];
    if (topomap_layout_order(order, l.order, err, sizeof err) < 0)
        return NULL;
    return topomap_profile_synth(&l, m, sum, err, sizeof err);
}

/* TP 2 x DP 2 x PP 2, bytes mode, every order: with 2 ranks per group a
 * ring all-reduce of S sends 2 (2-1)/2 S = S each way. The pairs, by hand:
 * the innermost dimension pairs ranks 1 apart (A), the middle one 2 (B),
 * the outermost 4 (C). */
static void every_order(void)
{
    static const struct {
        const char *order, *tp, *dp, *pp;
    } o[] = {
        {"tp-dp-pp", "01 23 45 67", "02 13 46 57", "04 15 26 37"},
        {"tp-pp-dp", "01 23 45 67", "04 15 26 37", "02 13 46 57"},
        {"dp-tp-pp", "02 13 46 57", "01 23 45 67", "04 15 26 37"},
        {"dp-pp-tp", "04 15 26 37", "01 23 45 67", "02 13 46 57"},
        {"pp-tp-dp", "02 13 46 57", "04 15 26 37", "01 23 45 67"},
        {"pp-dp-tp", "04 15 26 37", "02 13 46 57", "01 23 45 67"},
    };
    topomap_train_t m = {.bytes = {1000, 0, 0, 100, 10}};
    for (size_t k = 0; k < sizeof o / sizeof o[0]; k++) {
        topomap_train_bytes_t s;
        topomap_profile_t *p = synth(2, 1, 1, 2, 2, o[k].order, &m, &s);
        double a[64], want[64] = {0};
        ok(p && topomap_profile_nranks(p) == 8, "%s: 8 ranks", o[k].order);
        if (!p)
            continue;
        dense(p, a, NULL);
        pairs(want, o[k].tp, 1000);
        pairs(want, o[k].dp, 100);
        pairs(want, o[k].pp, 10);
        int same = 1;
        for (int i = 0; i < 64; i++)
            same &= a[i] == want[i];
        ok(same, "%s: every entry as worked out by hand", o[k].order);
        ok(s.bytes[TOPOMAP_PAR_TP] == 8000 && s.bytes[TOPOMAP_PAR_DP] == 800 &&
               s.bytes[TOPOMAP_PAR_PP] == 80 && s.groups[TOPOMAP_PAR_TP] == 4 &&
               s.groups[TOPOMAP_PAR_DP] == 4 && s.groups[TOPOMAP_PAR_PP] == 4,
           "%s: totals 8000 / 800 / 80 in 4 groups each", o[k].order);
        topomap_profile_free(p);
    }
    /* The default order is Megatron's; dimensions left out follow it. */
    topomap_par_t ord[TOPOMAP_PAR_DIMS];
    ok(topomap_layout_order("tp-cp-ep-dp-pp", ord, NULL, 0) == 0 && ord[0] == TOPOMAP_PAR_TP &&
           ord[4] == TOPOMAP_PAR_PP,
       "Megatron's order parses");
    ok(topomap_layout_order("pp-tp", ord, NULL, 0) == 0 && ord[0] == TOPOMAP_PAR_PP &&
           ord[1] == TOPOMAP_PAR_TP && ord[2] == TOPOMAP_PAR_CP && ord[4] == TOPOMAP_PAR_DP,
       "dimensions left out follow in the default order");
}

/* Rings of 4, CP's all-gather, EP's all-to-all. */
static void larger_groups(void)
{
    topomap_train_t m = {.bytes = {4000}};
    topomap_profile_t *p = synth(4, 1, 1, 2, 1, "tp-dp-pp", &m, NULL);
    double a[64], msg[64];
    dense(p, a, msg);
    /* Ring all-reduce of 4: 2 (4-1)/4 x 4000 = 6000 to the next, 6 steps. */
    ok(a[0 * 8 + 1] == 6000 && a[1 * 8 + 2] == 6000 && a[3 * 8 + 0] == 6000 && a[0 * 8 + 2] == 0 &&
           a[1 * 8 + 0] == 0 && a[7 * 8 + 4] == 6000,
       "TP 4: a ring in rank order, 6000 bytes to the next");
    ok(msg[0 * 8 + 1] == 6, "TP 4: 2 (n-1) = 6 messages");
    topomap_profile_free(p);
    topomap_train_t mc = {.bytes = {0, 3000}};
    p = synth(1, 4, 1, 2, 1, "tp-cp-ep-dp-pp", &mc, NULL);
    dense(p, a, NULL);
    ok(a[0 * 8 + 1] == 2250 && a[3 * 8 + 0] == 2250 && a[4 * 8 + 5] == 2250 && a[0 * 8 + 4] == 0,
       "CP 4: ring all-gather, (4-1)/4 x 3000 = 2250 to the next");
    topomap_profile_free(p);
    /* EP 4 inside DP 4 (expert data parallel 1), TP 2: EP groups are ranks
     * 2 apart; each rank sends 800 / 4 = 200 to each other member. */
    topomap_train_t me = {.bytes = {0, 0, 800}};
    p = synth(2, 1, 4, 4, 1, "tp-cp-ep-dp-pp", &me, NULL);
    dense(p, a, NULL);
    ok(a[0 * 8 + 2] == 200 && a[0 * 8 + 6] == 200 && a[6 * 8 + 0] == 200 && a[0 * 8 + 1] == 0 &&
           a[1 * 8 + 3] == 200,
       "EP 4: all-to-all, 200 bytes to each peer");
    topomap_layout_t l = {{2, 1, 4, 4, 1}, {0, 1, 2, 3, 4}};
    ok(topomap_layout_group(&l, 1u << TOPOMAP_PAR_EP, 0) ==
               topomap_layout_group(&l, 1u << TOPOMAP_PAR_EP, 6) &&
           topomap_layout_group(&l, 1u << TOPOMAP_PAR_EP, 1) !=
               topomap_layout_group(&l, 1u << TOPOMAP_PAR_EP, 0) &&
           topomap_layout_group(&l, 1u << TOPOMAP_PAR_TP, 5) == 2 &&
           topomap_layout_coord(&l, 5, TOPOMAP_PAR_EP) == 2,
       "groups and coordinates");
    topomap_profile_free(p);
}

/* The model mode on TP 2 x PP 2 x DP 2 (Megatron's order), 4 layers, hidden
 * 8, sequence 16, micro-batch 1, 2 micro-batches, bf16:
 *  TP: 4 all-reduces x 2 layers x 2 micro-batches of 16 x 8 x 2 = 256 B:
 *      S = 4096; a ring of 2 sends S = 4096 each way, 16 calls x 2 steps;
 *  PP: 2 micro-batches x 16 x 8 x 2 / 2 = 256 each way, 2 messages;
 *  DP: 12 x 8^2 x 2 layers / 2 = 768 parameters, 1536 bytes of gradients:
 *      1536 each way (ZeRO 0 and 1), 768 + 3 x 768 = 3072 with ZeRO 3. */
static void model(void)
{
    topomap_train_t m = {.layers = 4, .hidden = 8, .seq = 16, .micro_batch = 1,
                         .micro_batches = 2, .dtype_bytes = 2};
    double a[64], msg[64];
    for (int zero = 0; zero <= 3; zero += 1) {
        m.zero = zero;
        topomap_profile_t *p = synth(2, 1, 1, 2, 2, "tp-cp-ep-dp-pp", &m, NULL);
        dense(p, a, msg);
        double dpb = zero == 3 ? 3072 : 1536;
        ok(a[0 * 8 + 1] == 4096 && a[1 * 8 + 0] == 4096 && a[0 * 8 + 4] == 256 &&
               a[4 * 8 + 0] == 256 && a[0 * 8 + 2] == dpb && a[2 * 8 + 0] == dpb &&
               a[0 * 8 + 3] == 0,
           "model, ZeRO %d: TP 4096, PP 256, DP %g each way", zero, dpb);
        if (zero == 0)
            ok(msg[0 * 8 + 1] == 32 && msg[0 * 8 + 4] == 2, "model: 32 TP messages, 2 PP");
        topomap_profile_free(p);
    }
}

static void errors(void)
{
    char err[TOPOMAP_ERRLEN] = "";
    topomap_par_t ord[TOPOMAP_PAR_DIMS];
    ok(topomap_layout_order("tp-xx-pp", ord, err, sizeof err) < 0 && errno == EINVAL &&
           strstr(err, "'xx' is not one of"),
       "unknown dimension: %s", err);
    ok(topomap_layout_order("tp-dp-tp", ord, err, sizeof err) < 0 && strstr(err, "tp given twice"),
       "a dimension twice: %s", err);
    topomap_layout_t l = {{2, 1, 3, 4, 1}, {0, 1, 2, 3, 4}};
    topomap_train_t m = {.bytes = {1}};
    ok(!topomap_profile_synth(&l, &m, NULL, err, sizeof err) && errno == EINVAL &&
           strstr(err, "ep must divide dp"),
       "EP not dividing DP: %s", err);
    topomap_layout_t l2 = {{2, 1, 1, 2, 2}, {0, 1, 2, 3, 4}};
    topomap_train_t mm = {.layers = 3, .hidden = 8, .seq = 16, .micro_batch = 1,
                          .micro_batches = 1, .dtype_bytes = 2};
    ok(!topomap_profile_synth(&l2, &mm, NULL, err, sizeof err) && errno == EINVAL &&
           strstr(err, "3 layers do not split over 2 pipeline stages"),
       "layers not splitting: %s", err);
    mm.layers = 4;
    mm.hidden = 7;
    ok(!topomap_profile_synth(&l2, &mm, NULL, err, sizeof err) && strstr(err, "hidden size 7"),
       "hidden not splitting: %s", err);
    ok(topomap_layout_coord(&l2, 8, 0) < 0 && errno == EINVAL, "a rank out of range");
}

int main(void)
{
    every_order();
    larger_groups();
    model();
    errors();
    return done_testing();
}
