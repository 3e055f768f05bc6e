/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap profile synth: the profile of one training step from its
 * parallel layout (libtopomap's topomap_profile_synth, doc/training.md). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char help_profile_synth[] =
    "Usage: topomap profile synth OUT --tp N --dp N [--cp N] [--ep N] [--pp N]\n"
    "                             [--order ORDER] (--bytes KIND=B,... | MODEL)\n"
    "                             [--to FMT]\n"
    "\n"
    "Write to OUT ('-': standard output) the communication profile of one\n"
    "training step of a job whose ranks are laid out as Megatron-Core lays\n"
    "them out: tp x cp x dp x pp ranks, the expert-parallel groups (ep, which\n"
    "divides dp) taken out of the data-parallel ranks. Every TP group runs ring\n"
    "all-reduces, every CP group ring all-gathers, every data-parallel group\n"
    "(CP, EP and DP ranks holding the same parameters) the gradient reduction,\n"
    "every EP group all-to-alls, and consecutive pipeline stages send\n"
    "activations forward and gradients back. The model and its sources:\n"
    "doc/training.md. With OUT a file, one line per kind of group is printed:\n"
    "the number of groups, their size and the bytes of the step.\n"
    "\n"
    "Options:\n"
    "  --tp, --cp, --ep, --dp, --pp N  sizes of the parallel dimensions (default 1)\n"
    "  --order ORDER       rank order, innermost first (default tp-cp-ep-dp-pp,\n"
    "                      Megatron's; e.g. tp-dp-pp, tp-pp-dp); dimensions left\n"
    "                      out follow in the default order\n"
    "  --bytes KIND=B,...  bytes per step given per group, KIND one of tp (each TP\n"
    "                      group all-reduces B), cp (all-gathers B), dp (each\n"
    "                      data-parallel group all-reduces B of gradients), ep\n"
    "                      (each rank sends B in all-to-alls), pp (each stage\n"
    "                      sends B to the next and gets B back)\n"
    "  MODEL: --layers L --hidden H --seq S --micro-batch B --micro-batches M\n"
    "                      the model's shape; with\n"
    "  --precision P       bf16 (default), fp16, fp32 or fp8: bytes of an activation\n"
    "  --grad-bytes N      bytes of a reduced gradient element (default: the\n"
    "                      precision's)\n"
    "  --zero Z            0: gradients all-reduced (default); 1, 2: distributed\n"
    "                      optimizer (reduce-scatter, all-gather); 3: parameters\n"
    "                      also gathered in forward and backward\n"
    "  --experts E --topk K  a mixture-of-experts model, E experts (split over\n"
    "                      EP), each token routed to K\n"
    "  --to FMT            edges (default; binary for an OUT ending in .bin)\n"
    "  -h, --help          print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input (a model the layout does not divide, an\n"
    "unwritable OUT), 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap profile synth gpt.txt --tp 8 --pp 4 --dp 16 --layers 96 --hidden 12288 \\\n"
    "      --seq 2048 --micro-batch 1 --micro-batches 64\n"
    "  topomap profile synth small.txt --tp 2 --pp 2 --dp 2 --bytes tp=8e9,dp=1e9,pp=2e8\n";

/* --bytes tp=B,dp=B,... */
static void parse_bytes(const char *s, topomap_train_t *m)
{
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        int d = 0;
        while (eq && d < TOPOMAP_PAR_DIMS &&
               ((size_t)(eq - p) != 2 || strncmp(p, topomap_par_name(d), 2)))
            d++;
        char val[64];
        size_t vl = eq ? len - (size_t)(eq - p) - 1 : 0;
        double v;
        if (!eq || d == TOPOMAP_PAR_DIMS || vl == 0 || vl >= sizeof val)
            usage_error("--bytes: '%s' is not a list of KIND=BYTES, KIND one of tp, cp, ep, dp, "
                        "pp",
                        s);
        memcpy(val, eq + 1, vl);
        val[vl] = 0;
        if (topomap_parse_double(val, &v) < 0 || !(v > 0 && v <= TOPOMAP_MAX_TOTAL))
            usage_error("--bytes: '%s' is not a positive number of bytes", val);
        m->bytes[d] = v;
        if (!p[len])
            return;
        p += len + 1;
    }
}

static double parse_precision(const char *s)
{
    static const struct {
        const char *name;
        double bytes;
    } p[] = {{"bf16", 2}, {"fp16", 2}, {"fp32", 4}, {"fp8", 1}};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (!strcmp(s, p[i].name))
            return p[i].bytes;
    usage_error("--precision: '%s' is not bf16, fp16, fp32 or fp8", s);
}

/* One line per kind of group with traffic. */
static void print_summary(const topomap_layout_t *l, const topomap_train_bytes_t *s, int nranks)
{
    char b[40];
    printf("%d ranks, order", nranks);
    for (int k = 0; k < TOPOMAP_PAR_DIMS; k++)
        printf("%c%s", k ? '-' : ' ', topomap_par_name(l->order[k]));
    printf("\n%-4s %8s %6s %16s\n", "KIND", "GROUPS", "SIZE", "BYTES");
    for (int d = 0; d < TOPOMAP_PAR_DIMS; d++) {
        if (!s->groups[d])
            continue;
        int size = l->size[d];
        if (d == TOPOMAP_PAR_DP) /* the dense parameters' group */
            size *= l->size[TOPOMAP_PAR_CP];
        printf("%-4s %8d %6d %16s\n", topomap_par_name(d), s->groups[d], size,
               num(s->bytes[d], b, sizeof b));
    }
}

enum { O_TP = 1, O_CP, O_EP, O_DP, O_PP, O_ORDER, O_BYTES, O_LAYERS, O_HIDDEN, O_SEQ, O_MB,
       O_NMB, O_PREC, O_GRAD, O_ZERO, O_EXPERTS, O_TOPK, O_TO };

int profile_synth(int argc, char **argv)
{
    static const struct option opts[] = {
        {"tp", required_argument, NULL, O_TP}, {"cp", required_argument, NULL, O_CP},
        {"ep", required_argument, NULL, O_EP}, {"dp", required_argument, NULL, O_DP},
        {"pp", required_argument, NULL, O_PP}, {"order", required_argument, NULL, O_ORDER},
        {"bytes", required_argument, NULL, O_BYTES},
        {"layers", required_argument, NULL, O_LAYERS},
        {"hidden", required_argument, NULL, O_HIDDEN}, {"seq", required_argument, NULL, O_SEQ},
        {"micro-batch", required_argument, NULL, O_MB},
        {"micro-batches", required_argument, NULL, O_NMB},
        {"precision", required_argument, NULL, O_PREC},
        {"grad-bytes", required_argument, NULL, O_GRAD},
        {"zero", required_argument, NULL, O_ZERO},
        {"experts", required_argument, NULL, O_EXPERTS},
        {"topk", required_argument, NULL, O_TOPK}, {"to", required_argument, NULL, O_TO},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    topomap_layout_t l = {{1, 1, 1, 1, 1}, {0, 1, 2, 3, 4}};
    topomap_train_t m = {.dtype_bytes = 2};
    char err[TOPOMAP_ERRLEN] = "";
    int c, to = -1, model = 0, bytes = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        const char *o = argv[optind - 1];
        if (c >= O_TP && c <= O_PP)
            l.size[c - O_TP] = (int)parse_long_opt(o, optarg, 1, TOPOMAP_MAX_RANKS);
        else if (c >= O_LAYERS && c <= O_NMB) {
            int *f[] = {&m.layers, &m.hidden, &m.seq, &m.micro_batch, &m.micro_batches};
            *f[c - O_LAYERS] = (int)parse_long_opt(o, optarg, 1, 1L << 30);
            model = 1;
        } else
            switch (c) {
            case O_ORDER:
                if (topomap_layout_order(optarg, l.order, err, sizeof err) < 0)
                    usage_error("--order: %s", err);
                break;
            case O_BYTES: parse_bytes(optarg, &m); bytes = 1; break;
            case O_PREC: m.dtype_bytes = parse_precision(optarg); break;
            case O_GRAD: m.grad_bytes = (double)parse_long_opt(o, optarg, 1, 16); break;
            case O_ZERO: m.zero = (int)parse_long_opt(o, optarg, 0, 3); break;
            case O_EXPERTS: m.experts = (int)parse_long_opt(o, optarg, 1, 1 << 20); break;
            case O_TOPK: m.topk = (int)parse_long_opt(o, optarg, 1, 1 << 20); break;
            case O_TO:
                to = !strcmp(optarg, "edges")    ? TOPOMAP_FMT_EDGES
                     : !strcmp(optarg, "binary") ? TOPOMAP_FMT_BINARY
                                                 : -2;
                if (to == -2)
                    usage_error("--to: '%s' is not edges or binary", optarg);
                break;
            case 'h':
                fputs(help_profile_synth, stdout);
                exit(finish_stdout(0));
            case ':': usage_error("option '%s' needs an argument", o);
            default: usage_error("unknown option '%s'", o);
            }
    }
    if (optind >= argc)
        usage_error("synth: missing output file (OUT, '-' for standard output)");
    if (optind + 1 < argc)
        usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (bytes == model)
        usage_error("synth: give either --bytes or the model (--layers, --hidden, --seq, "
                    "--micro-batch, --micro-batches)");
    if (l.size[TOPOMAP_PAR_DP] % l.size[TOPOMAP_PAR_EP])
        usage_error("--ep %d does not divide --dp %d (expert parallelism is carved out of data "
                    "parallelism)",
                    l.size[TOPOMAP_PAR_EP], l.size[TOPOMAP_PAR_DP]);
    int n = topomap_layout_nranks(&l);
    if (n < 0)
        usage_error("synth: more than %d ranks", TOPOMAP_MAX_RANKS);
    const char *out = argv[optind];
    size_t ol = strlen(out);
    if (to < 0)
        to = ol > 4 && !strcmp(out + ol - 4, ".bin") ? TOPOMAP_FMT_BINARY : TOPOMAP_FMT_EDGES;
    int is_stdout = !strcmp(out, "-");
    if (is_stdout && to == TOPOMAP_FMT_BINARY && isatty(STDOUT_FILENO))
        usage_error("synth: not writing a binary profile to a terminal");
    topomap_train_bytes_t sum;
    topomap_profile_t *p = topomap_profile_synth(&l, &m, &sum, err, sizeof err);
    if (!p)
        input_error("%s", liberr(err, "synth", errno));
    FILE *f = is_stdout ? stdout : fopen(out, "wb");
    int bad = !f || topomap_profile_write_as(p, to, f) < 0;
    int e = errno;
    if (f && !is_stdout)
        bad |= fclose(f) == EOF;
    topomap_profile_free(p);
    if (bad)
        input_error("%s: %s", out, strerror(e ? e : EIO));
    if (!is_stdout)
        print_summary(&l, &sum, n);
    return finish_stdout(0);
}
