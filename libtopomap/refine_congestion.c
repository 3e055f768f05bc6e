/* SPDX-License-Identifier: BSD-3-Clause */
/* Refinement for the busiest link (ours): the objective of
 * TOPOMAP_OBJECTIVE_CONGESTION,
 *
 *     F = C / C0 + LAMBDA x H / H0 + MU x sqrt(Q / Q0),
 *
 * C the busiest channel's load (congestion_max), H the hop-bytes, Q the sum
 * of squared channel loads, each relative to its value at the start. C is
 * what the run time follows best in `make benefit`; H keeps the total
 * traffic from growing while C falls (a placement can lower its busiest
 * link by sending bytes the long way round); Q, which falls when any loaded
 * channel is relieved, lets the descent cross the plateaus where several
 * channels share the largest load and no single move lowers C.
 *
 * Steepest descent with a focus: each step takes the busiest channel (the
 * top of the load heap, congestion_incr.c), finds the ranks whose pairs are
 * routed over it, and tries moving the REFINE_CONG_RANKS of them with the
 * most bytes over it (ties by rank) to every slot of another node
 * (exchanging with the rank there, if any); the move of lowest F is
 * committed, if it lowers F. A move of rank r (and of the rank b it
 * exchanges with) lowers C by at most the bytes of their pairs over that
 * channel, so a move whose hop-bytes rise outweighs that bound is not
 * tried. Loads are updated incrementally: a trial costs O((degree of r and
 * b) x route length x log channels), the scan for the channel's ranks
 * O(pairs x route length).
 *
 * It ends when no move of the busiest channel's ranks lowers F, after
 * REFINE_CONG_STEPS steps (or the caller's max_moves), or at the deadline,
 * keeping every committed move. Serial and in a fixed order: the same
 * answer for any thread count. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "congestion.h"
#include "internal.h"
#include "topology_priv.h"

/* Weights of hop-bytes and of the spread of the loads against the busiest
 * link (see the top): with LAMBDA 0.5 a move may add 2% of the hop-bytes to
 * take 1% off the busiest link. Chosen on the scattered-torus table of `make
 * bench` (doc/congestion.md). */
#define LAMBDA TOPOMAP_CONG_LAMBDA
#define MU 0.1
/* Steps when the caller sets no limit: every step scans the whole profile
 * for the busiest channel's ranks, so on large jobs fewer: at most
 * REFINE_CONG_SCAN channel visits (pairs x longest route) in all, at least
 * 16 steps; the deadline bounds it further. */
#define REFINE_CONG_STEPS 400
#define REFINE_CONG_SCAN 2e8
/* A step must lower F by this much (relative) to be taken. */
#define REFINE_CONG_EPS 1e-9
/* Ranks of the busiest channel tried per step: those with the most bytes
 * over it, whose moves can lower it most (all of them made a 128-rank
 * profile with a light all-to-all take 40 s, for a busiest link 1% lower). */
#define REFINE_CONG_RANKS 8
/* Rotations of three nodes' contents (try_node_cycles) up to this many
 * allocated nodes: 47 x 46 rotations tried per stuck step at most. */
#define REFINE_CONG_CYCLE_NODES 48

struct crank {
    double cross;
    int r;
};

static int cmp_crank(const void *a, const void *b)
{
    const struct crank *x = a, *y = b;
    if (x->cross != y->cross)
        return x->cross > y->cross ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

struct cstate {
    const struct topomap_problem *pb;
    struct topomap_cload *cl;
    double C0, H0, Q0;
    double H;
    /* The allocated nodes (in order of their first slot) and their slots:
     * node k has slots ns[nx[k] .. nx[k+1]), in slot order; at[s] = the
     * allocated node of slot s. */
    int nnodes, *nx, *ns, *at;
    int *pos; /* pos[s]: the index of slot s among its node's slots */
    char *moved; /* n, all 0 between node exchanges */
    double *acc; /* nnodes, all 0 between calls of partner() */
    int *part;   /* nnodes: each node's partner (partner()), set per pair step */
};

static double objective(const struct cstate *x, double C, double H, double Q)
{
    return C / x->C0 + LAMBDA * H / x->H0 + MU * sqrt(Q > 0 ? Q / x->Q0 : 0);
}

/* Hop-bytes of rank r if it sat on `slot`, the others where r2s puts them,
 * its pairs with `skip` left out. */
static double rank_hb(const struct topomap_problem *pb, const int *r2s, int r, int slot, int skip)
{
    double s = 0;
    for (int64_t e = pb->g.xadj[r]; e < pb->g.xadj[r + 1]; e++)
        if (pb->g.adj[e] != skip)
            s += pb->g.w[e] * topomap_slot_hops(pb, slot, r2s[pb->g.adj[e]]);
    return s;
}

/* Hop-bytes change of moving r to slot t, exchanging with b (-1: none). The
 * pair r-b keeps its distance. */
static double move_dh(const struct topomap_problem *pb, const int *r2s, int r, int t, int b)
{
    int s = r2s[r];
    double d = rank_hb(pb, r2s, r, t, b) - rank_hb(pb, r2s, r, s, b);
    if (b >= 0)
        d += rank_hb(pb, r2s, b, s, r) - rank_hb(pb, r2s, b, t, r);
    return d;
}

/* The best move so far: rank r to slot t, or (r < 0, t >= 0) the exchange
 * of the contents of allocated nodes na and t, or their rotation with nc,
 * or (pa >= 0) that exchange together with the exchange of pa and pb. */
struct best_move {
    int r, t, na;
    double f, dh;
    int nc; /* >= 0: the rotation na -> t -> nc -> na (try_node_cycles) */
    int pa, pb; /* >= 0: the partners exchanged with na and t (try_node_swaps with pairs) */
};

/* Exchange the contents of allocated nodes a and b (same slot counts),
 * slot by slot; done twice, it undoes itself. 0, or -1 + ENOMEM. */
static int swap_nodes(struct cstate *x, int a, int b)
{
    for (int k = 0; k < x->nx[a + 1] - x->nx[a]; k++) {
        int sa = x->ns[x->nx[a] + k], sb = x->ns[x->nx[b] + k];
        const int *s2r = topomap_cload_s2r(x->cl);
        int r = s2r[sa] >= 0 ? s2r[sa] : s2r[sb];
        if (r >= 0 && topomap_cload_move(x->cl, r, s2r[sa] >= 0 ? sb : sa) < 0)
            return -1;
    }
    return 0;
}

/* Hop-bytes change of swap_nodes(a, b): pairs between the moved ranks keep
 * their distance, the others change with the moved end. */
static double swap_dh(struct cstate *x, int a, int b)
{
    const struct topomap_problem *pb = x->pb;
    const int *r2s = topomap_cload_r2s(x->cl), *s2r = topomap_cload_s2r(x->cl);
    int w = x->nx[a + 1] - x->nx[a];
    for (int k = 0; k < 2 * w; k++) {
        int r = s2r[x->ns[x->nx[k < w ? a : b] + k % w]];
        if (r >= 0)
            x->moved[r] = 1;
    }
    double d = 0;
    for (int k = 0; k < 2 * w; k++) {
        int s = x->ns[x->nx[k < w ? a : b] + k % w], t = x->ns[x->nx[k < w ? b : a] + k % w];
        int r = s2r[s];
        for (int64_t e = r >= 0 ? pb->g.xadj[r] : 0; r >= 0 && e < pb->g.xadj[r + 1]; e++)
            if (!x->moved[pb->g.adj[e]])
                d += pb->g.w[e] * (topomap_slot_hops(pb, t, r2s[pb->g.adj[e]]) -
                                   topomap_slot_hops(pb, s, r2s[pb->g.adj[e]]));
    }
    for (int k = 0; k < 2 * w; k++) {
        int r = s2r[x->ns[x->nx[k < w ? a : b] + k % w]];
        if (r >= 0)
            x->moved[r] = 0;
    }
    return d;
}

/* Bytes over the busiest channel of the ranks on allocated node a. */
static double node_cross(const struct cstate *x, int a, const double *cross)
{
    const int *s2r = topomap_cload_s2r(x->cl);
    double c = 0;
    for (int k = x->nx[a]; k < x->nx[a + 1]; k++)
        c += s2r[x->ns[k]] >= 0 ? cross[s2r[x->ns[k]]] : 0;
    return c;
}

/* Trial of a move of whole nodes' contents: the exchanges sw[0..k) of
 * allocated nodes, applied in order and undone in reverse, which move the
 * m nodes v[] (hop-bytes change dh). Its F in *f and busiest link in *cmax,
 * or *f = HUGE_VAL untried when even the busiest channel losing all of the
 * m nodes' bytes over it could not bring F below fch. 0, or -1 + ENOMEM. */
static int node_trial(struct cstate *x, const int (*sw)[2], int k, const int *v, int m,
                      double dh, const double *cross, double fch, double *f, double *cmax)
{
    double lb = topomap_cload_max(x->cl);
    for (int i = 0; i < m; i++)
        lb -= node_cross(x, v[i], cross);
    *f = HUGE_VAL;
    if (lb / x->C0 + LAMBDA * (x->H + dh) / x->H0 >= fch)
        return 0;
    for (int i = 0; i < k; i++)
        if (swap_nodes(x, sw[i][0], sw[i][1]) < 0)
            return -1;
    *cmax = topomap_cload_max(x->cl);
    *f = objective(x, *cmax, x->H + dh, topomap_cload_sumsq(x->cl));
    for (int i = k - 1; i >= 0; i--)
        if (swap_nodes(x, sw[i][0], sw[i][1]) < 0)
            return -1;
    return 0;
}

/* The allocated node of rank cand[k], or -1 when an earlier candidate's is
 * the same (tried already). */
static int cand_node(const struct cstate *x, const int *cand, int k)
{
    const int *r2s = topomap_cload_r2s(x->cl);
    int a = x->at[r2s[cand[k]]];
    for (int j = 0; j < k; j++)
        if (x->at[r2s[cand[j]]] == a)
            return -1;
    return a;
}

/* Where moving the contents of allocated node v[i] to node to[i] (i < m;
 * the to[] a permutation of the v[]) takes slot s: the slot of the same
 * rank in its node (pos) on the target node; s itself off the moved nodes. */
static int moved_slot(const struct cstate *x, int s, const int *v, const int *to, int m)
{
    for (int i = 0; i < m; i++)
        if (x->at[s] == v[i])
            return x->ns[x->nx[to[i]] + x->pos[s]];
    return s;
}

/* Hop-bytes change of moving the contents of nodes v[i] to to[i] (i < m),
 * computed without moving: every pair with an end on the moved nodes, pairs
 * inside them counted once. */
static double perm_dh(const struct cstate *x, const int *v, const int *to, int m)
{
    const struct topomap_problem *pb = x->pb;
    const int *r2s = topomap_cload_r2s(x->cl), *s2r = topomap_cload_s2r(x->cl);
    double d = 0;
    for (int i = 0; i < m; i++)
        for (int j = x->nx[v[i]]; j < x->nx[v[i] + 1]; j++) {
            int s = x->ns[j], r = s2r[s], t = moved_slot(x, s, v, to, m);
            for (int64_t e = r >= 0 ? pb->g.xadj[r] : 0; r >= 0 && e < pb->g.xadj[r + 1]; e++) {
                int su = r2s[pb->g.adj[e]], tu = moved_slot(x, su, v, to, m);
                d += pb->g.w[e] * (tu != su ? 0.5 : 1) *
                     (topomap_slot_hops(pb, t, tu) - topomap_slot_hops(pb, s, su));
            }
        }
    return d;
}

/* Hop-bytes change of rotate(x, a, b, c). */
static double cycle_dh(const struct cstate *x, int a, int b, int c)
{
    const int v[3] = {a, b, c}, to[3] = {b, c, a};
    return perm_dh(x, v, to, 3);
}

/* The rotation of the contents of allocated nodes a -> b -> c -> a (a's
 * ranks to b, b's to c, c's to a; same slot counts) as two exchanges; undo
 * with rotate(x, a, c, b). 0, or -1 + ENOMEM. */
static int rotate(struct cstate *x, int a, int b, int c)
{
    return swap_nodes(x, a, b) < 0 || swap_nodes(x, a, c) < 0 ? -1 : 0;
}

/* Addition of ours (no paper's move): when no move of a rank and no
 * exchange of two nodes lowers F, try rotating the contents of three
 * nodes, a -> b -> c -> a, with a the node of the rank with the most bytes
 * over the busiest channel. Where every exchange of two nodes is uphill
 * (the bytes of one pair of nodes move onto another channel just as loaded,
 * or their routes lengthen), a rotation, which moves three groups at once,
 * can be downhill (tests/congestion_obj.c has such a case). A rotation is
 * taken only when it lowers the busiest channel itself, not F alone: it is
 * the escape from a local minimum of the busiest link, and the spread of
 * the loads (Q) alone is no reason to move three nodes' contents (our
 * choice, not measured against the other). Every ordered
 * pair (b, c) of other nodes of a's slot count: O(nodes^2) rotations, so
 * only on jobs of up to REFINE_CONG_CYCLE_NODES nodes, and only when the
 * other moves are stuck. Like try_moves. */
static int try_node_cycles(struct cstate *x, int r, const double *cross, struct best_move *best)
{
    if (x->nnodes > REFINE_CONG_CYCLE_NODES || r < 0)
        return 0;
    double C = topomap_cload_max(x->cl);
    double fch = C / x->C0 + LAMBDA * x->H / x->H0;
    int a = x->at[topomap_cload_r2s(x->cl)[r]], w = x->nx[a + 1] - x->nx[a];
    for (int b = 0; b < x->nnodes; b++) {
        if (topomap_expired(x->pb))
            return 1;
        if (b == a || x->nx[b + 1] - x->nx[b] != w)
            continue;
        for (int c = 0; c < x->nnodes; c++) {
            if (c == a || c == b || x->nx[c + 1] - x->nx[c] != w)
                continue;
            /* rotate(x, a, b, c) as its two exchanges. */
            const int sw[2][2] = {{a, b}, {a, c}}, v[3] = {a, b, c};
            double dh = cycle_dh(x, a, b, c), f, cr;
            topomap_work_add(x->pb, TOPOMAP_WORK_EDGE * 3.0 * w);
            if (node_trial(x, sw, 2, v, 3, dh, cross, fch, &f, &cr) < 0)
                return -1;
            if (f < best->f && cr < C)
                *best = (struct best_move){-1, b, a, f, dh, c, -1, -1};
        }
    }
    return 0;
}

/* The allocated node other than a whose ranks exchange the most bytes
 * (both ways) with a's ranks: a's partner; the lowest index on ties, -1
 * when none exchanges any. O(a's pairs). */
static int partner(const struct cstate *x, int a)
{
    const struct topomap_problem *pb = x->pb;
    const int *r2s = topomap_cload_r2s(x->cl), *s2r = topomap_cload_s2r(x->cl);
    int best = -1;
    for (int pass = 0; pass < 3; pass++)
        for (int j = x->nx[a]; j < x->nx[a + 1]; j++) {
            int r = s2r[x->ns[j]];
            for (int64_t e = r >= 0 ? pb->g.xadj[r] : 0; r >= 0 && e < pb->g.xadj[r + 1]; e++) {
                int v = x->at[r2s[pb->g.adj[e]]];
                if (pass == 0)
                    x->acc[v] += pb->g.w[e];
                else if (pass == 2)
                    x->acc[v] = 0;
                else if (v != a && (best < 0 || x->acc[v] > x->acc[best] ||
                                    (x->acc[v] == x->acc[best] && v < best)))
                    best = v;
            }
        }
    return best;
}

/* Exchange the contents of nodes a and b and of nodes c and d (four
 * distinct nodes); done twice, it undoes itself. 0, or -1 + ENOMEM. */
static int swap_pairs(struct cstate *x, int a, int b, int c, int d)
{
    return swap_nodes(x, a, b) < 0 || swap_nodes(x, c, d) < 0 ? -1 : 0;
}

/* Try exchanging the node of each rank of cand[0..nc) with every other
 * allocated node of as many slots: moves of single ranks split the groups
 * that share a node, which hop-bytes punish; whole nodes keep them. Like
 * try_moves.
 *
 * With pairs (an addition of ours, no paper's move; tried when no move of a
 * rank, no exchange of two nodes and no rotation lowers F): each node a
 * together with its partner a' (the node its ranks exchange the most bytes
 * with) against every other node b and b's partner b': a -> b and a' -> b'
 * at once, b -> a and b' -> a'. Where two nodes are bound by heavy traffic
 * (a domain split over two nodes), exchanging one of them alone stretches
 * that traffic and is uphill; the pair moves as one and keeps it. On
 * lammps-lj32k-128 on two rings of a 16^3 torus (doc/congestion.md) block is
 * a local minimum of every other move, and exchanges of the node pairs at
 * two positions of the rings lower its busiest link. O(nodes) pair
 * exchanges per candidate; one is taken when it lowers F without raising
 * the busiest link (taken on F alone, one that lowered the spread while
 * raising the busiest link left petsc-ex45-mg65-128 on the base set's
 * scattered 16^3 torus 1.4% above the answer without pairs). */
static int try_node_swaps(struct cstate *x, const int *cand, int nc, const double *cross,
                          struct best_move *best, int pairs)
{
    double C = topomap_cload_max(x->cl), fch = C / x->C0 + LAMBDA * x->H / x->H0;
    for (int v = 0; pairs && v < x->nnodes; v++)
        x->part[v] = partner(x, v);
    topomap_work_add(x->pb, pairs ? TOPOMAP_WORK_EDGE * (double)x->pb->g.xadj[x->pb->n] : 0);
    for (int k = 0; k < nc; k++) {
        if (topomap_expired(x->pb))
            return 1;
        int a = cand_node(x, cand, k), a2 = a >= 0 && pairs ? x->part[a] : -1;
        if (a < 0 || (pairs && a2 < 0))
            continue;
        int w = x->nx[a + 1] - x->nx[a], w2 = pairs ? x->nx[a2 + 1] - x->nx[a2] : 0;
        for (int b = 0; b < x->nnodes; b++) {
            if (b == a || b == a2 || x->nx[b + 1] - x->nx[b] != w)
                continue;
            int b2 = pairs ? x->part[b] : -1;
            if (pairs && (b2 < 0 || b2 == a || b2 == a2 || x->nx[b2 + 1] - x->nx[b2] != w2))
                continue;
            const int sw[2][2] = {{a, b}, {a2, b2}}, v[4] = {a, b, a2, b2},
                      to[4] = {b, a, b2, a2};
            double dh = pairs ? perm_dh(x, v, to, 4) : swap_dh(x, a, b), f, cmax;
            if (pairs)
                topomap_work_add(x->pb, TOPOMAP_WORK_EDGE * 4.0 * w);
            if (node_trial(x, sw, 1 + pairs, v, 2 + 2 * pairs, dh, cross, fch, &f, &cmax) < 0)
                return -1;
            if (f < best->f && (!pairs || cmax <= C))
                *best = (struct best_move){-1, b, a, f, dh, -1, a2, b2};
        }
    }
    return 0;
}

/* Try every move of the ranks cand[0..nc) (see the top); the best one of F
 * below best->f goes to *best. 0, -1 + errno (ENOMEM), or 1 at the deadline. */
static int try_moves(struct cstate *x, const int *cand, int nc, const double *cross,
                     struct best_move *best)
{
    const struct topomap_problem *pb = x->pb;
    double C = topomap_cload_max(x->cl);
    double fch = C / x->C0 + LAMBDA * x->H / x->H0;
    for (int k = 0; k < nc; k++) {
        if (topomap_expired(pb))
            return 1;
        int r = cand[k];
        const int *r2s = topomap_cload_r2s(x->cl);
        int s = r2s[r];
        for (int t = 0; t < pb->nslots; t++) {
            if (pb->slot_node[t] == pb->slot_node[s])
                continue;
            const int *s2r = topomap_cload_s2r(x->cl);
            int b = s2r[t];
            /* Only the first free slot of a node: the others give the same loads. */
            if (b < 0 && t > 0 && pb->slot_node[t - 1] == pb->slot_node[t] && s2r[t - 1] < 0)
                continue;
            double dh = move_dh(pb, r2s, r, t, b);
            topomap_work_add(pb, TOPOMAP_WORK_EDGE *
                                     (double)(pb->g.xadj[r + 1] - pb->g.xadj[r] +
                                              (b >= 0 ? pb->g.xadj[b + 1] - pb->g.xadj[b] : 0)));
            double cb = b >= 0 ? cross[b] : 0;
            if ((C - cross[r] - cb) / x->C0 + LAMBDA * (x->H + dh) / x->H0 >= fch)
                continue;
            if (topomap_cload_move(x->cl, r, t) < 0)
                return -1;
            double f = objective(x, topomap_cload_max(x->cl), x->H + dh,
                                 topomap_cload_sumsq(x->cl));
            if (topomap_cload_move(x->cl, r, s) < 0)
                return -1;
            if (f < best->f)
                *best = (struct best_move){r, t, -1, f, dh, -1, -1, -1};
        }
    }
    return 0;
}

/* The allocated nodes and their slots (struct cstate). 0, or -1 + ENOMEM. */
static int node_lists(struct cstate *x)
{
    const struct topomap_problem *pb = x->pb;
    int tn = topomap_topology_nnodes(pb->topo), ns = pb->nslots;
    int *idx = malloc(sizeof(int) * (size_t)(tn > 0 ? tn : 1));
    x->nx = calloc((size_t)ns + 2, sizeof(int));
    x->ns = malloc(sizeof(int) * (size_t)(ns ? ns : 1));
    x->at = malloc(sizeof(int) * (size_t)(ns ? ns : 1));
    x->pos = malloc(sizeof(int) * (size_t)(ns ? ns : 1));
    x->moved = calloc((size_t)(pb->n ? pb->n : 1), 1);
    if (!idx || !x->nx || !x->ns || !x->at || !x->pos || !x->moved) {
        free(idx);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < tn; i++)
        idx[i] = -1;
    for (int s = 0; s < ns; s++) {
        int v = pb->slot_node[s];
        if (idx[v] < 0)
            idx[v] = x->nnodes++;
        x->at[s] = idx[v];
        x->nx[idx[v] + 2]++;
    }
    for (int k = 0; k < x->nnodes; k++)
        x->nx[k + 2] += x->nx[k + 1];
    for (int s = 0; s < ns; s++)
        x->ns[x->nx[x->at[s] + 1]++] = s;
    x->acc = calloc((size_t)(x->nnodes ? x->nnodes : 1), sizeof *x->acc);
    x->part = malloc(sizeof *x->part * (size_t)(x->nnodes ? x->nnodes : 1));
    if (!x->acc || !x->part) {
        free(idx);
        errno = ENOMEM;
        return -1;
    }
    for (int k = 0; k < x->nnodes; k++)
        for (int j = x->nx[k]; j < x->nx[k + 1]; j++)
            x->pos[x->ns[j]] = j - x->nx[k];
    free(idx);
    return 0;
}

static void cstate_free(struct cstate *x)
{
    topomap_cload_free(x->cl);
    free(x->nx), free(x->ns), free(x->at), free(x->pos), free(x->moved), free(x->acc),
        free(x->part);
}

int topomap_refine_congestion(const struct topomap_problem *pb, int *r2s, long max_moves,
                              double *cmax, char *err, size_t errlen)
{
    return topomap_refine_congestion_class(pb, r2s, max_moves, -1, cmax, err, errlen);
}

int topomap_refine_congestion_class(const struct topomap_problem *pb, int *r2s, long max_moves,
                                    int cls, double *cmax, char *err, size_t errlen)
{
    struct cstate x = {pb, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    x.cl = topomap_cload_create_class(pb, r2s, cls);
    double *cross = malloc(sizeof *cross * (size_t)(pb->n ? pb->n : 1));
    struct crank *cr = malloc(sizeof *cr * (size_t)(pb->n ? pb->n : 1));
    int cand[REFINE_CONG_RANKS];
    if (!x.cl || !cross || !cr || node_lists(&x) < 0) {
        int e = errno;
        cstate_free(&x), free(cross), free(cr);
        return topomap_fail(err, errlen, e == EINVAL ? EINVAL : ENOMEM,
                            e == EINVAL ? "refine_congestion: invalid placement"
                                        : "out of memory");
    }
    x.C0 = topomap_cload_max(x.cl);
    x.Q0 = topomap_cload_sumsq(x.cl);
    for (int r = 0; r < pb->n; r++)
        x.H += rank_hb(pb, r2s, r, r2s[r], -1);
    x.H /= 2;
    x.H0 = x.H;
    double scan = (double)pb->g.xadj[pb->n] * (pb->topo->route_max > 0 ? pb->topo->route_max : 1);
    long steps = max_moves > 0 ? max_moves : REFINE_CONG_STEPS, moves = 0, swaps = 0, rotations = 0,
         pairs = 0;
    if (max_moves <= 0 && scan * steps > REFINE_CONG_SCAN)
        steps = REFINE_CONG_SCAN / scan > 16 ? (long)(REFINE_CONG_SCAN / scan) : 16;
    int rc = 0;
    /* Nothing is routed (all pairs inside nodes) or there are no hop-bytes
     * to weigh: nothing to do. */
    while (x.C0 > 0 && x.H0 > 0 && moves < steps) {
        int64_t c = topomap_cload_top(x.cl);
        int nc = 0;
        topomap_cload_crossing(x.cl, c, cross);
        topomap_work_add(pb, TOPOMAP_WORK_EDGE * (double)pb->g.xadj[pb->n]);
        int ncr = 0;
        for (int r = 0; r < pb->n; r++)
            if (cross[r] > 0)
                cr[ncr++] = (struct crank){cross[r], r};
        qsort(cr, (size_t)ncr, sizeof *cr, cmp_crank);
        for (; nc < ncr && nc < REFINE_CONG_RANKS; nc++)
            cand[nc] = cr[nc].r;
        double f = objective(&x, topomap_cload_max(x.cl), x.H, topomap_cload_sumsq(x.cl));
        struct best_move best = {-1, -1, -1, f - REFINE_CONG_EPS * f, 0, -1, -1, -1};
        rc = try_moves(&x, cand, nc, cross, &best);
        if (rc == 0)
            rc = try_node_swaps(&x, cand, nc, cross, &best, 0);
        if (rc == 0 && best.t < 0)
            rc = try_node_cycles(&x, nc ? cand[0] : -1, cross, &best);
        if (rc == 0 && best.t < 0)
            rc = try_node_swaps(&x, cand, nc, cross, &best, 1);
        if (rc < 0) {
            rc = topomap_fail(err, errlen, errno, "out of memory");
            break;
        }
        if (best.t < 0)
            break;
        if ((best.r >= 0    ? topomap_cload_move(x.cl, best.r, best.t)
             : best.nc >= 0 ? rotate(&x, best.na, best.t, best.nc)
             : best.pa >= 0 ? swap_pairs(&x, best.na, best.t, best.pa, best.pb)
                            : swap_nodes(&x, best.na, best.t)) < 0) {
            rc = topomap_fail(err, errlen, errno, "out of memory");
            break;
        }
        x.H += best.dh;
        moves++;
        swaps += best.r < 0 && best.nc < 0 && best.pa < 0;
        rotations += best.nc >= 0;
        pairs += best.pa >= 0;
        if (rc == 1) /* the deadline, after the best move found before it */
            break;
    }
    if (rc >= 0) {
        memcpy(r2s, topomap_cload_r2s(x.cl), sizeof *r2s * (size_t)pb->n);
        topomap_log(pb, "refine congestion: %ld moves (%ld node exchanges, %ld pair exchanges, "
                        "%ld rotations), busiest link %.6g -> %.6g, hop-bytes %.6g -> %.6g%s",
                    moves, swaps, pairs, rotations, x.C0, topomap_cload_max(x.cl), x.H0, x.H,
                    rc == 1 ? " (time limit)" : "");
        if (cmax)
            *cmax = topomap_cload_max(x.cl);
        rc = 0;
    }
    cstate_free(&x), free(cross), free(cr);
    return rc;
}

double topomap_slots_congestion(const struct topomap_problem *pb, const int *r2s)
{
    return topomap_slots_congestion_class(pb, r2s, -1);
}

double topomap_slots_congestion_class(const struct topomap_problem *pb, const int *r2s, int cls)
{
    /* congestion.c's serial sum: no heap to keep, the same value as the
     * metrics report. */
    int *node = malloc(sizeof(int) * (size_t)(pb->n ? pb->n : 1));
    if (!node) {
        errno = ENOMEM;
        return -1;
    }
    for (int r = 0; r < pb->n; r++)
        node[r] = pb->slot_node[r2s[r]];
    double wmax;
    int rc = topomap_congestion_weighted(pb->profile, pb->topo, node, cls, &wmax);
    free(node);
    return rc < 0 ? -1 : wmax;
}
