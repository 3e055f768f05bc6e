/* SPDX-License-Identifier: BSD-3-Clause */
/* The profile of one training step from its parallel layout (TP, CP, EP,
 * DP, PP sizes and Megatron-Core's rank order), from bytes given per group
 * or from the model's shape. The model, its formulas and their sources are
 * in doc/training.md; in short:
 *  - ranks: Megatron-Core's RankGenerator (megatron/core/parallel_state.py),
 *    order "tp-cp-ep-dp-pp", innermost first; EP carved out of DP;
 *  - collectives: NCCL's ring algorithm, each rank sending to the next member
 *    of its group in rank order 2(n-1)/n x S for an all-reduce of S bytes,
 *    (n-1)/n x S for an all-gather or reduce-scatter (nccl-tests,
 *    doc/PERFORMANCE.md, "Bus bandwidth");
 *  - volumes: Narayanan et al., SC'21, section 3.2 (TP: four all-reduces of
 *    b s h per layer and micro-batch; PP: b s h / t per micro-batch with the
 *    scatter/gather optimisation of section 4.1; P = 12 l h^2).
 * Lives in the library rather than in the CLI so that the plugin and the
 * placement (topomap_layout_group) share one definition of the groups. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "profile_priv.h"

static const char *const par_names[TOPOMAP_PAR_DIMS] = {"tp", "cp", "ep", "dp", "pp"};

const char *topomap_par_name(topomap_par_t d)
{
    return (unsigned)d < TOPOMAP_PAR_DIMS ? par_names[d] : NULL; /* a negative d too */
}

int topomap_layout_order(const char *s, topomap_par_t *order, char *err, size_t errlen)
{
    int seen = 0, n = 0;
    if (!s || !order)
        return topomap_fail(err, errlen, EINVAL, "no rank order given");
    for (const char *p = s;;) {
        size_t len = strcspn(p, "-");
        int d = 0;
        while (d < TOPOMAP_PAR_DIMS && (len != 2 || strncmp(p, par_names[d], 2)))
            d++;
        if (d == TOPOMAP_PAR_DIMS)
            return topomap_fail(err, errlen, EINVAL,
                                "rank order '%s': '%.*s' is not one of tp, cp, ep, dp, pp", s,
                                (int)(len > 20 ? 20 : len), p);
        if (seen & (1 << d))
            return topomap_fail(err, errlen, EINVAL, "rank order '%s': %s given twice", s,
                                par_names[d]);
        seen |= 1 << d;
        order[n++] = d;
        if (!p[len])
            break;
        p += len + 1;
    }
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++)
        if (!(seen & (1 << d)))
            order[n++] = d;
    return 0;
}

/* Extent of dimension d in the rank grid: DP counts dp / ep. */
static int extent(const topomap_layout_t *l, int d)
{
    return d == TOPOMAP_PAR_DP ? l->size[d] / l->size[TOPOMAP_PAR_EP] : l->size[d];
}

int topomap_layout_nranks(const topomap_layout_t *l)
{
    int seen = 0;
    if (!l)
        goto bad;
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
        if (l->size[d] < 1 || (unsigned)l->order[d] >= TOPOMAP_PAR_DIMS)
            goto bad;
        seen |= 1 << l->order[d];
    }
    if (seen != (1 << TOPOMAP_PAR_DIMS) - 1 ||
        l->size[TOPOMAP_PAR_DP] % l->size[TOPOMAP_PAR_EP])
        goto bad;
    long long n = 1;
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
        n *= extent(l, d);
        if (n > TOPOMAP_MAX_RANKS)
            goto bad;
    }
    return (int)n;
bad:
    errno = EINVAL;
    return -1;
}

/* Stride of each dimension (rank = sum coord x stride). */
static void strides(const topomap_layout_t *l, int *st)
{
    int s = 1;
    for (int k = 0; k < TOPOMAP_PAR_DIMS; k++) {
        st[l->order[k]] = s;
        s *= extent(l, l->order[k]);
    }
}

int topomap_layout_coord(const topomap_layout_t *l, int rank, topomap_par_t d)
{
    int n = topomap_layout_nranks(l), st[TOPOMAP_PAR_DIMS];
    if (n < 0 || rank < 0 || rank >= n || (unsigned)d >= TOPOMAP_PAR_DIMS) {
        errno = EINVAL;
        return -1;
    }
    strides(l, st);
    return rank / st[d] % extent(l, d);
}

int topomap_layout_group(const topomap_layout_t *l, unsigned mask, int rank)
{
    int n = topomap_layout_nranks(l), st[TOPOMAP_PAR_DIMS];
    if (n < 0 || rank < 0 || rank >= n || mask >= 1u << TOPOMAP_PAR_DIMS) {
        errno = EINVAL;
        return -1;
    }
    strides(l, st);
    /* The coordinates of the other dimensions, as a mixed radix number. */
    int g = 0, mul = 1;
    for (int k = 0; k < TOPOMAP_PAR_DIMS; k++) {
        int d = l->order[k];
        if (mask & (1u << d))
            continue;
        g += rank / st[d] % extent(l, d) * mul;
        mul *= extent(l, d);
    }
    return g;
}

/* An entry of the profile being built (skipping nothing and self). */
static int edge_add(struct edges *e, int s, int d, double b, double m)
{
    return b <= 0 || s == d ? 0 : topomap_edges_push(e, s, d, b, m);
}

/* The kinds of traffic a group carries. */
enum coll { RING_ALLREDUCE, RING_GATHER, ALLTOALL };

/* One collective kind in every group varying the dimensions of mask: each
 * rank's buffer is S bytes, run calls times. The members of a group, in rank
 * order, are its leader (masked coordinates 0) plus the mixed radix of the
 * masked coordinates; ring: member j sends to member j + 1. */
static int groups_emit(const topomap_layout_t *l, int nranks, unsigned mask, enum coll c, double S,
                       double calls, struct edges *e, double *total, int *ngroups, int *mem)
{
    int st[TOPOMAP_PAR_DIMS], n = 1;
    strides(l, st);
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++)
        if (mask & (1u << d))
            n *= extent(l, d);
    if (n < 2 || S <= 0)
        return 0;
    for (int r = 0; r < nranks; r++) {
        int leader = 1;
        for (int d = 0; d < TOPOMAP_PAR_DIMS && leader; d++)
            if ((mask & (1u << d)) && r / st[d] % extent(l, d))
                leader = 0;
        if (!leader)
            continue;
        for (int j = 0; j < n; j++) {
            int off = 0, q = j;
            for (int k = 0; k < TOPOMAP_PAR_DIMS; k++) {
                int d = l->order[k];
                if (!(mask & (1u << d)))
                    continue;
                off += q % extent(l, d) * st[d];
                q /= extent(l, d);
            }
            mem[j] = r + off;
        }
        (*ngroups)++;
        for (int j = 0; j < n; j++) {
            int rc = 0;
            if (c == ALLTOALL) {
                for (int i = 0; i < n; i++)
                    rc |= edge_add(e, mem[j], mem[i], S / n, calls);
                *total += S * (n - 1) / n;
            } else {
                double f = c == RING_ALLREDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
                double steps = c == RING_ALLREDUCE ? 2.0 * (n - 1) : n - 1;
                rc = edge_add(e, mem[j], mem[(j + 1) % n], f * S, steps * calls);
                *total += f * S;
            }
            if (rc)
                return -1;
        }
    }
    return 0;
}

/* Sends between consecutive pipeline stages, S bytes each way, calls times. */
static int pipeline_emit(const topomap_layout_t *l, int nranks, double S, double calls,
                         struct edges *e, double *total, int *ngroups)
{
    int st[TOPOMAP_PAR_DIMS], pp = l->size[TOPOMAP_PAR_PP];
    strides(l, st);
    if (pp < 2 || S <= 0)
        return 0;
    for (int r = 0; r < nranks; r++) {
        int stage = r / st[TOPOMAP_PAR_PP] % pp;
        if (stage == 0)
            (*ngroups)++;
        if (stage + 1 == pp)
            continue;
        int next = r + st[TOPOMAP_PAR_PP];
        if (edge_add(e, r, next, S, calls) || edge_add(e, next, r, S, calls))
            return -1;
        *total += 2 * S;
    }
    return 0;
}

#define M_TP (1u << TOPOMAP_PAR_TP)
#define M_CP (1u << TOPOMAP_PAR_CP)
#define M_EP (1u << TOPOMAP_PAR_EP)
#define M_DP (1u << TOPOMAP_PAR_DP)
/* Dense parameters' gradients: Megatron's data-parallel group with context
 * parallelism (CP ranks hold the same parameters), EP ranks included. */
#define M_DENSE (M_CP | M_EP | M_DP)
/* Experts' gradients: the expert data-parallel group. */
#define M_EXPERT (M_CP | M_DP)

/* Per-step buffers and call counts of the model mode (doc/training.md). */
struct volumes {
    double S[TOPOMAP_PAR_DIMS], calls[TOPOMAP_PAR_DIMS];
    double dense_params, expert_params; /* per rank */
};

static int model_volumes(const topomap_layout_t *l, const topomap_train_t *m, struct volumes *v,
                         char *err, size_t errlen)
{
    int tp = l->size[TOPOMAP_PAR_TP], cp = l->size[TOPOMAP_PAR_CP], ep = l->size[TOPOMAP_PAR_EP];
    int pp = l->size[TOPOMAP_PAR_PP];
    if (m->layers < 1 || m->hidden < 1 || m->seq < 1 || m->micro_batch < 1 ||
        m->micro_batches < 1 || m->dtype_bytes <= 0 || m->grad_bytes < 0 || m->zero < 0 ||
        m->zero > 3 || m->experts < 0 || m->topk < 0)
        return topomap_fail(err, errlen, EINVAL,
                            "the model needs layers, hidden size, sequence length, micro-batch "
                            "size and micro-batches >= 1, a precision > 0 and ZeRO stage 0-3");
    if (m->layers % pp)
        return topomap_fail(err, errlen, EINVAL, "%d layers do not split over %d pipeline stages",
                            m->layers, pp);
    if (m->hidden % tp)
        return topomap_fail(err, errlen, EINVAL, "hidden size %d does not split over TP %d",
                            m->hidden, tp);
    if (m->seq % (cp * tp))
        return topomap_fail(err, errlen, EINVAL,
                            "sequence length %d does not split over CP %d x TP %d", m->seq, cp, tp);
    if (ep > 1 && (m->experts < ep || m->experts % ep || m->topk < 1))
        return topomap_fail(err, errlen, EINVAL,
                            "EP %d needs a number of experts it divides and topk >= 1", ep);
    double Lp = m->layers / pp, mb = m->micro_batches, b = m->micro_batch, s = m->seq;
    double h = m->hidden, a = m->dtype_bytes;
    double tokens = b * s / cp; /* a rank's tokens in a micro-batch */
    memset(v, 0, sizeof *v);
    v->S[TOPOMAP_PAR_TP] = 4 * Lp * mb * tokens * h * a;
    v->calls[TOPOMAP_PAR_TP] = 4 * Lp * mb;
    /* Ring attention: K and V of this TP shard gathered in forward, again in
     * backward, their gradients reduce-scattered: three gathers' worth. */
    v->S[TOPOMAP_PAR_CP] = 3 * Lp * mb * 2 * b * s * (h / tp) * a;
    v->calls[TOPOMAP_PAR_CP] = 3 * Lp * mb;
    v->S[TOPOMAP_PAR_PP] = mb * tokens * h * a / tp;
    v->calls[TOPOMAP_PAR_PP] = mb;
    if (m->experts > 0) {
        /* Sequence parallel inside TP: a rank routes tokens / tp tokens,
         * each to topk experts; dispatch and combine, forward and backward. */
        v->S[TOPOMAP_PAR_EP] = 4 * Lp * mb * tokens / tp * m->topk * h * a;
        v->calls[TOPOMAP_PAR_EP] = 4 * Lp * mb;
        v->dense_params = 4 * h * h * Lp / tp;
        v->expert_params = 8 * h * h * Lp * (m->experts / ep) / tp;
    } else
        v->dense_params = 12 * h * h * Lp / tp;
    return 0;
}

/* The gradient and parameter collectives of P parameters a rank holds, in
 * the groups of mask, by ZeRO stage. */
static int dp_emit(const topomap_layout_t *l, int nranks, unsigned mask, double P,
                   const topomap_train_t *m, struct edges *e, double *total, int *ng, int *mem)
{
    double g = m->grad_bytes > 0 ? m->grad_bytes : m->dtype_bytes, a = m->dtype_bytes;
    if (m->zero == 0)
        return groups_emit(l, nranks, mask, RING_ALLREDUCE, P * g, 1, e, total, ng, mem);
    int dummy = 0;
    double gathers = m->zero == 3 ? 3 : 1; /* ZeRO-3: again in forward and backward */
    return groups_emit(l, nranks, mask, RING_GATHER, P * g, 1, e, total, ng, mem) ||
           groups_emit(l, nranks, mask, RING_GATHER, P * a * gathers, gathers, e, total, &dummy,
                       mem);
}

static int synth_emit(const topomap_layout_t *l, int n, const topomap_train_t *m,
                      struct edges *e, topomap_train_bytes_t *sum, int *mem, char *err,
                      size_t errlen)
{
    int bytes_mode = 0;
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
        if (!(m->bytes[d] >= 0 && m->bytes[d] <= TOPOMAP_MAX_TOTAL))
            return topomap_fail(err, errlen, EINVAL, "bytes of %s: not a number in 0 .. %g",
                                par_names[d], (double)TOPOMAP_MAX_TOTAL);
        bytes_mode |= m->bytes[d] > 0;
    }
    struct volumes v;
    memset(&v, 0, sizeof v);
    if (bytes_mode) {
        memset(&v, 0, sizeof v);
        for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
            v.S[d] = m->bytes[d];
            v.calls[d] = 1;
        }
    } else if (model_volumes(l, m, &v, err, errlen) < 0)
        return -1;
    double *t = sum->bytes;
    int *g = sum->groups, dummy = 0;
    int rc = groups_emit(l, n, M_TP, RING_ALLREDUCE, v.S[TOPOMAP_PAR_TP], v.calls[TOPOMAP_PAR_TP],
                         e, &t[TOPOMAP_PAR_TP], &g[TOPOMAP_PAR_TP], mem) ||
             groups_emit(l, n, M_CP, RING_GATHER, v.S[TOPOMAP_PAR_CP], v.calls[TOPOMAP_PAR_CP], e,
                         &t[TOPOMAP_PAR_CP], &g[TOPOMAP_PAR_CP], mem) ||
             groups_emit(l, n, M_EP, ALLTOALL, v.S[TOPOMAP_PAR_EP], v.calls[TOPOMAP_PAR_EP], e,
                         &t[TOPOMAP_PAR_EP], &g[TOPOMAP_PAR_EP], mem) ||
             pipeline_emit(l, n, v.S[TOPOMAP_PAR_PP], v.calls[TOPOMAP_PAR_PP], e,
                           &t[TOPOMAP_PAR_PP], &g[TOPOMAP_PAR_PP]);
    if (!rc && bytes_mode)
        rc = groups_emit(l, n, M_DENSE, RING_ALLREDUCE, v.S[TOPOMAP_PAR_DP], 1, e,
                         &t[TOPOMAP_PAR_DP], &g[TOPOMAP_PAR_DP], mem);
    else if (!rc)
        rc = dp_emit(l, n, M_DENSE, v.dense_params, m, e, &t[TOPOMAP_PAR_DP],
                     &g[TOPOMAP_PAR_DP], mem) ||
             dp_emit(l, n, M_EXPERT, v.expert_params, m, e, &t[TOPOMAP_PAR_DP], &dummy, mem);
    return rc ? topomap_fail(err, errlen, ENOMEM, "out of memory") : 0;
}

topomap_profile_t *topomap_profile_synth(const topomap_layout_t *l, const topomap_train_t *m,
                                         topomap_train_bytes_t *sum, char *err, size_t errlen)
{
    int n = l && m ? topomap_layout_nranks(l) : -1;
    if (n < 0) {
        topomap_fail(err, errlen, EINVAL,
                     "bad layout: sizes must be >= 1, ep must divide dp, the order a permutation "
                     "of tp, cp, ep, dp, pp, and the ranks at most %d",
                     TOPOMAP_MAX_RANKS);
        return NULL;
    }
    topomap_train_bytes_t local;
    if (!sum)
        sum = &local;
    memset(sum, 0, sizeof *sum);
    struct edges e = {0};
    int *mem = malloc((size_t)n * sizeof *mem);
    topomap_profile_t *p = NULL;
    if (!mem)
        topomap_fail(err, errlen, ENOMEM, "out of memory");
    else if (synth_emit(l, n, m, &e, sum, mem, err, errlen) == 0)
        p = topomap_profile_create(n, e.len, e.src, e.dst, e.bytes, e.msgs, err, errlen);
    int saved = errno;
    if (p) {
        char src[160];
        int len = snprintf(src, sizeof src, "topomap profile synth: tp=%d cp=%d ep=%d dp=%d pp=%d order=",
                           l->size[0], l->size[1], l->size[2], l->size[3], l->size[4]);
        for (int k = 0; k < TOPOMAP_PAR_DIMS && len > 0 && (size_t)len < sizeof src; k++)
            len += snprintf(src + len, sizeof src - (size_t)len, "%s%s", k ? "-" : "",
                            par_names[l->order[k]]);
        if (topomap_profile_set_meta(p, "source", src) < 0) {
            topomap_profile_free(p);
            p = NULL;
            topomap_fail(err, errlen, ENOMEM, "out of memory");
            saved = ENOMEM;
        }
    }
    free(mem);
    free(e.src);
    free(e.dst);
    free(e.bytes);
    free(e.msgs);
    errno = saved;
    return p;
}
