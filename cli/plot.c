/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap plot: pictures of a profile's matrix, of placements on the
 * machine, of their link loads and of a benchmark table (its bars and its
 * many-core curves), drawn by
 * libtopomap-plot (plot/topomap_plot.h, cairo). Its options (--format of a
 * picture, --size, --compare ...) belong to no other command, so they are
 * parsed here; the inputs are loaded with the shared helpers of cli.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "topomap_plot.h"

const char help_plot[] =
    "Usage: topomap plot matrix --profile FILE -o PICTURE [--topology FILE\n"
    "                    (--mapping FILE | --algo NAME [ALLOCATION])]\n"
    "       topomap plot mapping --profile FILE --topology FILE -o PICTURE\n"
    "                    [--mapping FILE | --algo NAME]\n"
    "                    [--compare ALGO | --compare-mapping FILE]\n"
    "                    [ALLOCATION] [--pairs K] [--whole]\n"
    "       topomap plot links --profile FILE --topology FILE -o PICTURE\n"
    "                    [--mapping FILE | --algo NAME]\n"
    "                    [--compare ALGO | --compare-mapping FILE]\n"
    "                    [ALLOCATION] [--whole]\n"
    "       topomap plot bench --table FILE -o PICTURE [--relative ALGO]\n"
    "                    [--algos A,B,...] [--per-profile TOPOLOGY]\n"
    "       topomap plot curves --table FILE -o PICTURE\n"
    "  ALLOCATION: [--nodes HOSTLIST] [--tasks-per-node K | --slots SPEC] [--seed S]\n"
    "  every kind: [--format png|svg|pdf] [--size W[xH]] [--title TEXT]\n"
    "\n"
    "Draw a picture into PICTURE, a PNG, SVG or PDF file (by its extension, or\n"
    "--format). Needs topomap built with cairo (libcairo2-dev).\n"
    "\n"
    "  matrix   the communication matrix as a heat map: bytes from row rank to\n"
    "           column rank on a log colour scale with a legend in bytes, white\n"
    "           where nothing was sent; ranks in recorded order, or with a\n"
    "           placement grouped by node with the node boundaries drawn. More\n"
    "           ranks than pixels are binned (each cell sums k x k ranks; the\n"
    "           picture says so)\n"
    "  mapping  a placement on the machine: meshes and tori as grids (3D as a row\n"
    "           of z-slices), Tianhe-3 as its chip grid with the left and right\n"
    "           side of each chip, fat-trees as switches over node boxes; each\n"
    "           node shows its name and its ranks as ranges (0-3,64-67; the\n"
    "           first ones and their count where they do not fit), the node pairs\n"
    "           exchanging the most bytes are lines coloured by hops; with\n"
    "           --compare, two placements side by side, the reference on the\n"
    "           left, with their hop-bytes\n"
    "  links    the load of every network channel (every pair's bytes routed as\n"
    "           the congestion metric routes them) on the same drawing, one\n"
    "           stroke per direction, coloured on a log scale in bytes\n"
    "  bench    a topomap-bench table (bench-results.txt) as grouped bars of\n"
    "           hop-bytes relative to block (or --relative) and the mapping time\n"
    "           against ranks\n"
    "  curves   the many-core set of a topomap-bench table (topomap-bench -s\n"
    "           manycore) as time-quality curves: a panel per machine, auto's\n"
    "           hop-bytes relative to block at each time limit, a line per\n"
    "           profile, and Scotch's (no limit) at the seconds it took\n"
    "\n"
    "Options:\n"
    "  --profile FILE        communication profile (matrix, mapping, links)\n"
    "  --topology FILE       machine description (mapping, links; matrix with a\n"
    "                        placement)\n"
    "  --mapping FILE        the placement, a mapping in the slots format as\n"
    "                        written by 'topomap map'\n"
    "  --algo NAME           compute the placement with NAME on the allocation\n"
    "                        (default for mapping and links: block)\n"
    "  --compare ALGO        mapping, links: draw ALGO's placement on the\n"
    "                        allocation on the left, as the reference of the\n"
    "                        first one (then on the right)\n"
    "  --compare-mapping FILE  the same with the placement of a mapping file\n"
    "  -w, --nodes HOSTLIST  allocated nodes, or 'all' (default inside a Slurm job: the\n"
    "                        job's; see 'topomap help map'); also --nodelist\n"
    "  --tasks-per-node K    use K slots on every node (default: every core); also\n"
    "                        --ntasks-per-node\n"
    "  --slots SPEC          slots per node, SLURM_JOB_CPUS_PER_NODE syntax\n"
    "  --seed S              seed of randomised algorithms (default: 1)\n"
    "  --pairs K             mapping: lines for the K heaviest node pairs\n"
    "                        (default: 24; 0: none)\n"
    "  --whole               mapping, links: draw the whole machine, not only the\n"
    "                        part the allocation uses\n"
    "  --table FILE          bench, curves: the table of a topomap-bench run\n"
    "  --relative ALGO       bench: the reference of the ratios (default: block;\n"
    "                        scotch when the table has it)\n"
    "  --algos LIST          bench: comma-separated algorithms to draw\n"
    "  --per-profile TOPO    bench: the topology whose cases are also drawn per\n"
    "                        profile (default: the table's tianhe3 one; none: no\n"
    "                        such panel)\n"
    "  --profile-format FMT  auto (default), edges, dense, mtx or binary\n"
    "  -o, --output FILE     the picture to write (required); on success one line\n"
    "                        on standard output says so: wrote FILE (KIND)\n"
    "  --format FMT          png, svg or pdf (default: by the extension of FILE)\n"
    "  --size W[xH]          canvas size in pixels (PNG) or points (SVG, PDF);\n"
    "                        default: a width per kind, the height from the shape\n"
    "  --title TEXT          the title ('' for none; default: names the inputs)\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input, a picture that cannot be written, or no\n"
    "cairo in this build, 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap plot matrix --profile app.txt -o app-matrix.png\n"
    "  topomap plot mapping --profile app.txt --topology torus-8x8x8.yaml \\\n"
    "      --nodes 't[000-015]' --tasks-per-node 4 --algo auto --compare block \\\n"
    "      -o app.svg\n"
    "  topomap plot bench --table contrib/bench-reference.txt -o bench.svg\n"
    "  topomap plot curves --table contrib/bench-results.txt -o curves.svg\n";

enum {
    P_PROFILE = 256, P_TOPOLOGY, P_MAPPING, P_ALGO, P_COMPARE, P_NODES, P_TPN, P_SLOTS, P_SEED,
    P_PAIRS, P_WHOLE, P_COMPARE_MAPPING, P_TABLE, P_RELATIVE, P_ALGOS, P_PER_PROFILE, P_PROFILE_FORMAT, P_FORMAT,
    P_SIZE, P_TITLE
};

struct plot_args {
    struct args a; /* the options load_profile() and make_alloc() read */
    int pairs_given;
    const char *kind, *compare, *compare_mapping, *table, *relative, *algos, *per_profile, *title;
    topomap_plot_opts_t po;
};

/* --size W or WxH. */
static void parse_size(const char *s, topomap_plot_opts_t *po)
{
    const char *end;
    long w, h = 0;
    int bad = parse_long_item(s, "x", &w, &end) < 0;
    if (!bad && *end == 'x')
        bad = parse_long_item(end + 1, "", &h, &end) < 0;
    if (bad || w < 64 || w > 16384 || (h && (h < 64 || h > 16384)) || (strchr(s, 'x') && !h))
        usage_error("--size: '%s' is not W or WxH with sides from 64 to 16384", s);
    po->width = (int)w;
    po->height = (int)h;
}

static void parse_plot_args(int argc, char **argv, struct plot_args *pa)
{
    static const struct option opts[] = {
        {"profile", required_argument, NULL, P_PROFILE},
        {"topology", required_argument, NULL, P_TOPOLOGY},
        {"mapping", required_argument, NULL, P_MAPPING},
        {"algo", required_argument, NULL, P_ALGO},
        {"compare", required_argument, NULL, P_COMPARE},
        {"compare-mapping", required_argument, NULL, P_COMPARE_MAPPING},
        {"nodes", required_argument, NULL, P_NODES},
        {"tasks-per-node", required_argument, NULL, P_TPN},
        {"slots", required_argument, NULL, P_SLOTS},
        {"seed", required_argument, NULL, P_SEED},
        {"pairs", required_argument, NULL, P_PAIRS},
        {"whole", no_argument, NULL, P_WHOLE},
        {"table", required_argument, NULL, P_TABLE},
        {"relative", required_argument, NULL, P_RELATIVE},
        {"algos", required_argument, NULL, P_ALGOS},
        {"per-profile", required_argument, NULL, P_PER_PROFILE},
        {"profile-format", required_argument, NULL, P_PROFILE_FORMAT},
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, P_FORMAT},
        {"size", required_argument, NULL, P_SIZE},
        {"title", required_argument, NULL, P_TITLE},
        {"help", no_argument, NULL, 'h'},
        {"nodelist", required_argument, NULL, P_NODES}, /* Slurm's spellings */
        {"ntasks-per-node", required_argument, NULL, P_TPN},
        {NULL, 0, NULL, 0},
    };
    memset(pa, 0, sizeof *pa);
    struct args *a = &pa->a;
    topomap_opts_init(&a->o);
    topomap_plot_opts_init(&pa->po);
    a->profile_format = TOPOMAP_FMT_AUTO;
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:w:", opts, NULL)) != -1) {
        switch (c) {
        case P_PROFILE: a->profile = optarg; break;
        case P_TOPOLOGY: a->topology = optarg; break;
        case P_MAPPING: a->mapping = optarg; break;
        case P_ALGO: a->algo = optarg; break;
        case P_COMPARE: pa->compare = optarg; break;
        case P_COMPARE_MAPPING: pa->compare_mapping = optarg; break;
        case 'w':
        case P_NODES: a->nodes = optarg; break;
        case P_TPN: a->tpn = optarg; break;
        case P_SLOTS: a->slots = optarg; break;
        case P_SEED: a->o.seed = parse_seed(optarg); break;
        case P_PAIRS:
            pa->po.pairs = (int)parse_long_opt("--pairs", optarg, 0, 100000);
            pa->pairs_given = 1;
            break;
        case P_WHOLE: pa->po.whole = 1; break;
        case P_TABLE: pa->table = optarg; break;
        case P_RELATIVE: pa->relative = optarg; break;
        case P_ALGOS: pa->algos = optarg; break;
        case P_PER_PROFILE: pa->per_profile = optarg; break;
        case P_PROFILE_FORMAT: a->profile_format = parse_profile_format(optarg); break;
        case 'o': a->output = optarg; break;
        case P_FORMAT:
            pa->po.format = topomap_plot_format_parse(optarg);
            if (pa->po.format < 0)
                usage_error("--format: unknown picture format '%s' (known: png, svg, pdf)",
                            optarg);
            break;
        case P_SIZE: parse_size(optarg, &pa->po); break;
        case P_TITLE: pa->po.title = optarg; break;
        case 'h':
            fputs(help_plot, stdout);
            exit(finish_stdout(0));
        case ':': usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            if (optopt > 255)
                usage_error("option '%s' takes no argument", argv[optind - 1]);
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    a->pos = argv + optind;
    a->npos = argc - optind;
}

/* Options that kind does not take are refused rather than ignored. */
static void only(const struct plot_args *pa, const char *kinds, int given, const char *opt)
{
    if (given && !strstr(kinds, pa->kind))
        usage_error("%s does not apply to 'plot %s'", opt, pa->kind);
}

static void check_algo(const char *opt, const char *algo)
{
    if (algo && !topomap_algo_valid(algo)) {
        char list[512];
        algo_list(list, sizeof list);
        usage_error("%s: unknown algorithm '%s' (known: %s)", opt, algo, list);
    }
}

/* A placement: from a mapping file, or computed with algo on al. */
static void place(const struct plot_args *pa, const topomap_profile_t *p,
                  const topomap_topology_t *t, const topomap_alloc_t *al, const char *mapping,
                  const char *algo, int *node, int *core)
{
    char err[TOPOMAP_ERRLEN] = "";
    int n = topomap_profile_nranks(p);
    if (mapping) {
        if (topomap_mapping_read(mapping, t, n, node, core, err, sizeof err) < 0)
            input_error("%s", liberr(err, mapping, errno));
        return;
    }
    int *r2s = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!r2s)
        input_error("out of memory");
    if (topomap_map(algo, p, al, &pa->a.o, r2s, err, sizeof err) < 0)
        input_error("%s", liberr(err, algo, errno));
    for (int r = 0; r < n; r++) {
        node[r] = topomap_alloc_slot_node(al, r2s[r]);
        core[r] = topomap_alloc_slot_core(al, r2s[r]);
    }
    free(r2s);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cmd_plot(int argc, char **argv)
{
    struct plot_args pa;
    parse_plot_args(argc, argv, &pa);
    struct args *a = &pa.a;
    if (!topomap_plot_available()) { /* the library's own sentence says why */
        char err[TOPOMAP_ERRLEN] = "";
        topomap_plot_matrix(NULL, NULL, NULL, NULL, NULL, err, sizeof err);
        input_error("%s", err);
    }
    if (a->npos == 0)
        usage_error("missing picture kind: expected matrix, mapping, links, bench or curves");
    pa.kind = a->pos[0];
    if (strcmp(pa.kind, "matrix") && strcmp(pa.kind, "mapping") && strcmp(pa.kind, "links") &&
        strcmp(pa.kind, "bench") && strcmp(pa.kind, "curves"))
        usage_error("unknown picture kind '%s': expected matrix, mapping, links, bench or curves",
                    pa.kind);
    if (a->npos > 1)
        usage_error("unexpected argument '%s'", a->pos[1]);
    require(a->output, "--output");
    char err[TOPOMAP_ERRLEN] = "";
    if (topomap_plot_format_of(a->output, pa.po.format, err, sizeof err) < 0)
        usage_error("%s", err);
    int placed = a->mapping || a->algo || pa.compare || pa.compare_mapping;
    only(&pa, "matrix mapping links", a->profile || a->topology || a->mapping || a->algo ||
         a->profile_format, "--profile, --topology, --mapping, --algo, --profile-format");
    only(&pa, "matrix mapping links", a->nodes || a->tpn || a->slots, "the allocation");
    only(&pa, "mapping links", pa.compare || pa.compare_mapping, "--compare");
    if (pa.compare && pa.compare_mapping)
        usage_error("--compare and --compare-mapping cannot be used together");
    only(&pa, "mapping links", pa.po.whole, "--whole");
    only(&pa, "mapping", pa.pairs_given, "--pairs");
    only(&pa, "bench curves", pa.table != NULL, "--table");
    only(&pa, "bench", pa.relative || pa.algos || pa.per_profile,
         "--relative, --algos, --per-profile");
    if (a->mapping && a->algo)
        usage_error("--mapping and --algo cannot be used together");
    check_algo("--algo", a->algo);
    check_algo("--compare", pa.compare);
    check_slot_options(a);

    if (!strcmp(pa.kind, "bench")) {
        require(pa.table, "--table");
        topomap_plot_bench_opts_t bo;
        topomap_plot_bench_opts_init(&bo);
        if (pa.relative)
            bo.relative = pa.relative;
        bo.algos = pa.algos;
        bo.topology = pa.per_profile && !strcmp(pa.per_profile, "none") ? "" : pa.per_profile;
        if (topomap_plot_bench(a->output, &pa.po, pa.table, &bo, err, sizeof err) < 0)
            input_error("%s", liberr(err, a->output, errno));
        printf("wrote %s (%s)\n", a->output, pa.kind);
        return finish_stdout(0);
    }
    if (!strcmp(pa.kind, "curves")) {
        require(pa.table, "--table");
        if (topomap_plot_curves(a->output, &pa.po, pa.table, err, sizeof err) < 0)
            input_error("%s", liberr(err, a->output, errno));
        printf("wrote %s (%s)\n", a->output, pa.kind);
        return finish_stdout(0);
    }

    require(a->profile, "--profile");
    if (strcmp(pa.kind, "matrix") || placed)
        require(a->topology, "--topology");
    if (!strcmp(pa.kind, "matrix") && a->topology && !placed)
        usage_error("--topology needs --mapping or --algo: the placement groups the ranks");
    topomap_profile_t *p = load_profile(a);
    topomap_topology_t *t = a->topology ? load_topology(a, a->topology) : NULL;
    int n = topomap_profile_nranks(p);
    size_t sz = sizeof(int) * (size_t)(n > 0 ? n : 1);
    int *node[2] = {malloc(sz), malloc(sz)}, *core[2] = {malloc(sz), malloc(sz)};
    if (!node[0] || !node[1] || !core[0] || !core[1])
        input_error("out of memory");
    topomap_alloc_t *al = NULL;
    const char *algo = a->algo ? a->algo : "block";
    if (t && (!a->mapping || pa.compare) && !(a->mapping && pa.compare_mapping))
        al = make_alloc(a, t);
    if (t && placed)
        place(&pa, p, t, al, a->mapping, algo, node[0], core[0]);
    int rc;
    if (!strcmp(pa.kind, "matrix")) {
        rc = topomap_plot_matrix(a->output, &pa.po, p, t, placed ? node[0] : NULL, err,
                                 sizeof err);
    } else {
        if (!placed)
            place(&pa, p, t, al, NULL, algo, node[0], core[0]);
        /* With --compare, ALGO's placement is the reference on the left. */
        topomap_plot_placement_t pl[2] = {
            {a->mapping ? base_name(a->mapping) : algo, node[0], core[0]},
            {pa.compare, node[1], core[1]},
        };
        int npl = 1;
        if (pa.compare || pa.compare_mapping) {
            place(&pa, p, t, al, pa.compare_mapping, pa.compare, node[1], core[1]);
            if (pa.compare_mapping)
                pl[1].label = base_name(pa.compare_mapping);
            topomap_plot_placement_t first = pl[0];
            pl[0] = pl[1];
            pl[1] = first;
            npl = 2;
        }
        rc = (!strcmp(pa.kind, "mapping") ? topomap_plot_mapping : topomap_plot_links)(
            a->output, &pa.po, p, t, al, pl, npl, err, sizeof err);
    }
    if (rc < 0)
        input_error("%s", liberr(err, a->output, errno));
    for (int k = 0; k < 2; k++) {
        free(node[k]);
        free(core[k]);
    }
    topomap_alloc_free(al);
    topomap_topology_free(t);
    topomap_profile_free(p);
    printf("wrote %s (%s)\n", a->output, pa.kind);
    return finish_stdout(0);
}
