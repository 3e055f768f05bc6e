/* SPDX-License-Identifier: BSD-3-Clause */
/* train_step: the communication of a training step, replayed with MPI.
 *
 *   train_step LAYOUT BYTES STEPS
 *
 * LAYOUT "tp=4,pp=2,dp=2[,ep=E][,cp=C][,order=tp-dp-pp]" and BYTES
 * "tp=B,dp=B,pp=B[,ep=B][,cp=B]" are those of `topomap profile synth --tp ...
 * --order ... --bytes ...` (bytes mode, doc/training.md): the groups come
 * from libtopomap's layout (topomap_layout_group, Megatron-Core's rank
 * order), and each step moves what that profile records, phase after phase:
 *   tp: a ring all-reduce of B in every TP group (2 (n-1) steps of B/n to
 *       the next member, rank order), cp: a ring all-gather of B,
 *   ep: an all-to-all of B per rank (B/n to each member),
 *   pp: B to the next stage and B back (all stages at once),
 *   dp: a ring all-reduce of B in every data-parallel group (CP, EP and DP).
 * The rings are hand-written with MPI_Sendrecv (NCCL's ring, not the MPI
 * library's collective algorithms); the data is not reduced (the time is
 * the network's). Prints "train: loop_time_s=T step_s=S" from rank 0: T
 * the slowest rank's time for STEPS steps after one warm-up step. With
 * TRAIN_STEP_MATRIX=FILE, rank 0 also writes what every rank sent in the
 * warm-up step, "SRC DST BYTES MESSAGES" per line (the profile's format,
 * counted where the sends are made): tests/train_step.sh compares it with
 * topomap profile synth's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topomap.h"

#define M(d) (1u << (d))

static void die(int rank, const char *what)
{
    if (rank == 0)
        fprintf(stderr, "train_step: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* "k=v,k=v": sizes, order and bytes by dimension name. */
static int parse_kv(const char *s, int *size, char *order, size_t olen, double *bytes)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            return -1;
        *eq = 0;
        if (order && !strcmp(t, "order")) {
            snprintf(order, olen, "%s", eq + 1);
            continue;
        }
        int d = 0;
        while (d < TOPOMAP_PAR_DIMS && strcmp(topomap_par_name(d), t))
            d++;
        if (d == TOPOMAP_PAR_DIMS)
            return -1;
        char *end;
        double v = strtod(eq + 1, &end);
        if (*end || v < 0)
            return -1;
        if (size)
            size[d] = (int)v;
        if (bytes)
            bytes[d] = v;
    }
    return 0;
}

/* What this rank sends to each world rank, while counting (the warm-up). */
static double *sent_bytes, *sent_msgs;
static int counting;

/* Count bytes in one message to member @p to of @p comm. */
static void count(MPI_Comm comm, int to, double bytes)
{
    if (!counting)
        return;
    MPI_Group g, w;
    int wr;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &to, w, &wr);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    sent_bytes[wr] += bytes;
    sent_msgs[wr] += 1;
}

/* A ring in comm: steps transfers of chunk bytes to the next member. */
static void ring(MPI_Comm comm, int steps, size_t chunk, char *sbuf, char *rbuf)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (n < 2 || chunk == 0)
        return;
    count(comm, (me + 1) % n, (double)chunk * steps);
    if (counting) /* the messages: one per step */
        for (int s = 1; s < steps; s++)
            count(comm, (me + 1) % n, 0);
    for (int s = 0; s < steps; s++)
        MPI_Sendrecv(sbuf, (int)chunk, MPI_BYTE, (me + 1) % n, 0, rbuf, (int)chunk, MPI_BYTE,
                     (me + n - 1) % n, 0, comm, MPI_STATUS_IGNORE);
}

struct comms {
    MPI_Comm tp, cp, ep, dp, pp;
};

static void one_step(const struct comms *c, const double *B, char *sbuf, char *rbuf)
{
    int n;
    MPI_Comm_size(c->tp, &n);
    ring(c->tp, 2 * (n - 1), (size_t)(B[TOPOMAP_PAR_TP] / n), sbuf, rbuf);
    MPI_Comm_size(c->cp, &n);
    ring(c->cp, n - 1, (size_t)(B[TOPOMAP_PAR_CP] / n), sbuf, rbuf);
    MPI_Comm_size(c->ep, &n);
    if (n > 1 && B[TOPOMAP_PAR_EP] > 0) {
        int k = (int)(B[TOPOMAP_PAR_EP] / n), me;
        MPI_Comm_rank(c->ep, &me);
        for (int i = 0; i < n; i++)
            if (i != me)
                count(c->ep, i, k);
        MPI_Alltoall(sbuf, k, MPI_BYTE, rbuf, k, MPI_BYTE, c->ep);
    }
    int me;
    MPI_Comm_size(c->pp, &n);
    MPI_Comm_rank(c->pp, &me);
    if (n > 1 && B[TOPOMAP_PAR_PP] > 0) {
        int k = (int)B[TOPOMAP_PAR_PP], nr = 0;
        MPI_Request rq[4];
        size_t half = (size_t)k;
        if (me + 1 < n) { /* activations forward, their gradient back */
            count(c->pp, me + 1, k);
            MPI_Isend(sbuf, k, MPI_BYTE, me + 1, 1, c->pp, &rq[nr++]);
            MPI_Irecv(rbuf, k, MPI_BYTE, me + 1, 2, c->pp, &rq[nr++]);
        }
        if (me > 0) {
            count(c->pp, me - 1, k);
            MPI_Irecv(rbuf + half, k, MPI_BYTE, me - 1, 1, c->pp, &rq[nr++]);
            MPI_Isend(sbuf + half, k, MPI_BYTE, me - 1, 2, c->pp, &rq[nr++]);
        }
        MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Comm_size(c->dp, &n);
    ring(c->dp, 2 * (n - 1), (size_t)(B[TOPOMAP_PAR_DP] / n), sbuf, rbuf);
}

/* TRAIN_STEP_MATRIX: every rank's sends of the warm-up step, from rank 0. */
static void write_matrix(int rank, int nranks)
{
    const char *path = getenv("TRAIN_STEP_MATRIX");
    if (!path || !*path)
        return;
    double *all = rank == 0 ? malloc(2 * (size_t)nranks * nranks * sizeof *all) : NULL;
    if (rank == 0 && !all)
        die(rank, "out of memory");
    MPI_Gather(sent_bytes, nranks, MPI_DOUBLE, all, nranks, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(sent_msgs, nranks, MPI_DOUBLE, all ? all + (size_t)nranks * nranks : NULL, nranks,
               MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        die(rank, "cannot write TRAIN_STEP_MATRIX");
    for (int s = 0; s < nranks; s++)
        for (int d = 0; d < nranks; d++)
            if (all[(size_t)s * nranks + d] > 0)
                fprintf(f, "%d %d %.0f %.0f\n", s, d, all[(size_t)s * nranks + d],
                        all[(size_t)nranks * nranks + (size_t)s * nranks + d]);
    fclose(f);
    free(all);
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 4)
        die(rank, "usage: train_step LAYOUT BYTES STEPS (e.g. tp=4,pp=2,dp=2 tp=1e6,dp=1e6 3)");

    topomap_layout_t l;
    char order[64] = "tp-cp-ep-dp-pp", err[256];
    double B[TOPOMAP_PAR_DIMS] = {0};
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++)
        l.size[d] = 1;
    int steps = atoi(argv[3]);
    if (parse_kv(argv[1], l.size, order, sizeof order, NULL) < 0 ||
        parse_kv(argv[2], NULL, NULL, 0, B) < 0 || steps < 1)
        die(rank, "bad LAYOUT, BYTES or STEPS");
    if (topomap_layout_order(order, l.order, err, sizeof err) < 0)
        die(rank, err);
    if (topomap_layout_nranks(&l) != nranks)
        die(rank, "the layout's ranks are not the job's");

    struct comms c;
    MPI_Comm_split(MPI_COMM_WORLD, topomap_layout_group(&l, M(TOPOMAP_PAR_TP), rank), rank, &c.tp);
    MPI_Comm_split(MPI_COMM_WORLD, topomap_layout_group(&l, M(TOPOMAP_PAR_CP), rank), rank, &c.cp);
    MPI_Comm_split(MPI_COMM_WORLD, topomap_layout_group(&l, M(TOPOMAP_PAR_EP), rank), rank, &c.ep);
    MPI_Comm_split(MPI_COMM_WORLD, topomap_layout_group(&l, M(TOPOMAP_PAR_PP), rank), rank, &c.pp);
    MPI_Comm_split(MPI_COMM_WORLD,
                   topomap_layout_group(&l, M(TOPOMAP_PAR_CP) | M(TOPOMAP_PAR_EP) | M(TOPOMAP_PAR_DP),
                                        rank),
                   rank, &c.dp);

    size_t max = 1;
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++)
        if ((size_t)B[d] + 1 > max)
            max = (size_t)B[d] + 1;
    char *sbuf = calloc(2 * max, 1), *rbuf = calloc(2 * max, 1);
    if (!sbuf || !rbuf)
        die(rank, "out of memory");

    sent_bytes = calloc((size_t)nranks, sizeof *sent_bytes);
    sent_msgs = calloc((size_t)nranks, sizeof *sent_msgs);
    if (!sent_bytes || !sent_msgs)
        die(rank, "out of memory");
    counting = 1;
    one_step(&c, B, sbuf, rbuf); /* warm-up: connections made, sends counted */
    counting = 0;
    write_matrix(rank, nranks);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++)
        one_step(&c, B, sbuf, rbuf);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("train: loop_time_s=%.4f step_s=%.4f ranks=%d\n", tmax, tmax / steps, nranks);
    free(sbuf);
    free(rbuf);
    free(sent_bytes);
    free(sent_msgs);
    MPI_Finalize();
    return 0;
}
