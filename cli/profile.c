/* SPDX-License-Identifier: BSD-3-Clause */
/* topomap profile: the profile store (add, list, show, rm) and converting
 * profiles between formats (convert). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char help_profile[] =
    "Usage: topomap profile add NAME FILE... [--site] [--profile-format FMT]\n"
    "                           [--ompi-kinds K] [--store DIR]\n"
    "       topomap profile list [--store DIR] [--json]\n"
    "       topomap profile show NAME [--store DIR]\n"
    "       topomap profile rm NAME [--site] [--store DIR]\n"
    "       topomap profile convert IN OUT [--to FMT] [--profile-format FMT]\n"
    "       topomap profile synth OUT --tp N --dp N ... (see topomap profile synth --help)\n"
    "\n"
    "Manage the profile store: communication profiles keyed by name, where the\n"
    "Slurm plugin finds the profile of an application (srun\n"
    "--topomap-profile=NAME, by default the executable's name). Each user has his\n"
    "own profiles (DIR/users/UID, which --topomap-record fills), used for his\n"
    "jobs only; the site's (DIR) are written by the store's owner only. A job\n"
    "uses its user's profile NAME, else the site's.\n"
    "\n"
    "  add NAME FILE...  read the profile FILE (any format 'map' reads; '-' is\n"
    "                  standard input) and store it as your NAME (--site: the\n"
    "                  site's), replacing a profile of that name. Open MPI's\n"
    "                  monitoring output (mpirun --mca pml_monitoring_enable 2\n"
    "                  --mca pml_monitoring_enable_output 3 --mca\n"
    "                  pml_monitoring_filename PREFIX) is read from its per-rank\n"
    "                  files PREFIX.RANK.prof, given all, or from PREFIX alone.\n"
    "                  The write is atomic: jobs reading NAME meanwhile see the\n"
    "                  old or the new profile, never part of one\n"
    "  list            one line per profile you see: name, ranks, size in bytes,\n"
    "                  last change, scope (user: yours, site); --json: one JSON\n"
    "                  object {\"store\": DIR, \"profiles\": [{name, ranks (null if\n"
    "                  unknown), bytes, mtime (seconds since the epoch), scope}]}\n"
    "  show NAME       the profile NAME your jobs use: where it is stored, its\n"
    "                  scope, rank count, entries, total bytes and metadata\n"
    "  rm NAME         remove your NAME (--site: the site's)\n"
    "  convert IN OUT  read the profile IN (any format 'map' reads; '-' is standard\n"
    "                  input) and write it to OUT ('-': standard output) in the\n"
    "                  format --to names: binary loads many times faster than text\n"
    "  synth OUT       the profile of one training step from its parallel layout\n"
    "                  (TP, CP, EP, DP, PP, rank order; 'topomap profile synth\n"
    "                  --help')\n"
    "\n"
    "A stored profile records its rank count and is used as it is for jobs with\n"
    "that many ranks. For another count, a profile that is a process grid in rank\n"
    "order is rescaled to the job's count; any other profile is refused (one\n"
    "'topomap:' line, Slurm's default layout).\n"
    "Names: 1 to 200 characters from A-Z a-z 0-9 . _ + -, not starting with '.'\n"
    "or '-'.\n"
    "\n"
    "Options:\n"
    "  --store DIR           the store (default: $TOPOMAP_STORE, else\n"
    "                        " TOPOMAP_STORE_DEFAULT ")\n"
    "  --site                add and rm: the site's profile (the store's owner only)\n"
    "  --profile-format FMT  format of FILE for add, of IN for convert: auto\n"
    "                        (default), edges, dense, mtx or binary\n"
    "  --to FMT              convert: the format of OUT, edges (the text that add\n"
    "                        stores) or binary (default: binary for an OUT ending in\n"
    "                        .bin, else edges)\n"
    "  --ompi-kinds K        which traffic of Open MPI's monitoring files to add up,\n"
    "                        comma-separated: external (default: the application's\n"
    "                        point-to-point messages), internal (messages made by\n"
    "                        collectives), osc (one-sided), coll (per-peer\n"
    "                        collective traffic)\n"
    "  -h, --help            print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 bad input (unreadable or malformed FILE, no such\n"
    "profile, a store that cannot be read or written), 2 bad usage.\n"
    "\n"
    "Examples:\n"
    "  topomap profile add lmp lammps-lj32k-128.txt --site --store /var/lib/topomap/profiles\n"
    "  topomap profile add lmp mon          (Open MPI's mon.0.prof, mon.1.prof, ...)\n"
    "  topomap profile list\n"
    "  topomap profile convert app.txt app.bin\n";

/* The profile store. Its options (--store) belong to no other command, so
 * they are parsed here rather than in the shared table. */
/* --ompi-kinds: "external,internal,osc,coll" into enum topomap_ompi_kind. */
static unsigned parse_ompi_kinds(const char *s)
{
    static const char *const names[] = {"external", "internal", "osc", "coll"};
    unsigned kinds = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < 4 && (strlen(names[k]) != len || strncmp(p, names[k], len)))
            k++;
        if (k == 4)
            usage_error("--ompi-kinds: '%s' is not a comma-separated list of external, "
                        "internal, osc, coll",
                        s);
        kinds |= 1u << k;
        if (!p[len])
            return kinds;
        p += len + 1;
    }
}

/* convert IN OUT: in is read in format, written in to (-1: by OUT's name). */
static int profile_convert(const char *in, const char *out, int format, int to)
{
    size_t ol = strlen(out);
    if (to < 0)
        to = ol > 4 && !strcmp(out + ol - 4, ".bin") ? TOPOMAP_FMT_BINARY : TOPOMAP_FMT_EDGES;
    if (!strcmp(out, "-") && to == TOPOMAP_FMT_BINARY && isatty(STDOUT_FILENO))
        usage_error("convert: not writing a binary profile to a terminal");
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(in, format, err, sizeof err);
    if (!p)
        input_error("%s", liberr(err, in, errno));
    FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
    int bad = !f || topomap_profile_write_as(p, to, f) < 0;
    int e = errno;
    if (f && f != stdout)
        bad |= fclose(f) == EOF;
    topomap_profile_free(p);
    if (bad)
        input_error("%s: %s", out, strerror(e ? e : EIO));
    return finish_stdout(0);
}

/* list --json: names are restricted (topomap_store_name_valid) but DIR is
 * not; both are escaped all the same. */
static void profile_list_json(const char *dir, const topomap_store_entry_t *e, size_t n)
{
    printf("{");
    json_key(stdout, 1, "store", dir);
    printf(", \"profiles\": [");
    for (size_t i = 0; i < n; i++) {
        printf("%s{", i ? ", " : "");
        json_key(stdout, 1, "name", e[i].name);
        if (e[i].nranks > 0)
            printf(", \"ranks\": %d", e[i].nranks);
        else
            printf(", \"ranks\": null");
        printf(", \"bytes\": %lld, \"mtime\": %lld", e[i].bytes, e[i].mtime);
        json_key(stdout, 0, "scope", e[i].scope == TOPOMAP_STORE_USER ? "user" : "site");
        printf("}");
    }
    printf("]}\n");
}

/* What the subcommands read from the command line. */
struct profile_cmd {
    const char *store; /* --store or NULL */
    const char *dir;   /* where the profiles go, for messages */
    int format, site;
    unsigned kinds;
    char **pos; /* the subcommand, its arguments */
    int npos;
    char *err; /* the command's message buffer */
    size_t errlen;
};

/* Where the store of a message came from, and how to name another:
 * "(the default; give --store DIR or set TOPOMAP_STORE for another)". */
static const char *store_said(const struct profile_cmd *pc)
{
    static char said[128];
    const char *env = getenv("TOPOMAP_STORE");
    snprintf(said, sizeof said, "(%s; give --store DIR or set TOPOMAP_STORE for another)",
             pc->store && *pc->store ? "from --store"
             : env && *env           ? "from TOPOMAP_STORE"
                                     : "the default");
    return said;
}

/* add NAME FILE...: a format given (or standard input) reads one file;
 * else whatever recorded it. */
static void profile_add(struct profile_cmd *pc)
{
    const char *const *files = (const char *const *)pc->pos + 2;
    topomap_profile_t *p =
        pc->format != TOPOMAP_FMT_AUTO || !strcmp(pc->pos[2], "-")
            ? topomap_profile_load(pc->pos[2], pc->format, pc->err, pc->errlen)
            : topomap_import(files, (size_t)(pc->npos - 2), pc->kinds, pc->err, pc->errlen);
    if (!p)
        input_error("%s", liberr(pc->err, pc->pos[2], errno));
    int existed = access(topomap_store_dir(pc->store), F_OK) == 0;
    if ((pc->site ? topomap_store_add(pc->store, pc->pos[1], p, pc->err, pc->errlen)
                  : topomap_store_user_add(pc->store, getuid(), getgid(), pc->pos[1], p,
                                           pc->err, pc->errlen)) < 0) {
        int e = errno;
        topomap_profile_free(p);
        input_error("%s %s", liberr(pc->err, pc->dir, e), store_said(pc));
    }
    if (!existed)
        notice("made the profile store %s %s", topomap_store_dir(pc->store), store_said(pc));
    printf("stored '%s' (%d ranks) in %s\n", pc->pos[1], topomap_profile_nranks(p), pc->dir);
    topomap_profile_free(p);
}

/* list: a table, or JSON. */
static void profile_list(struct profile_cmd *pc, int json)
{
    topomap_store_entry_t *e = NULL;
    size_t n = 0;
    if (access(topomap_store_dir(pc->store), F_OK) != 0 && errno == ENOENT)
        /* No store yet: nothing in it, as the plugin sees it. */
        notice("the profile store %s does not exist yet, so it holds no profiles %s",
               topomap_store_dir(pc->store), store_said(pc));
    else if (topomap_store_user_list(pc->store, getuid(), &e, &n, pc->err, pc->errlen) < 0)
        input_error("%s %s", liberr(pc->err, pc->dir, errno), store_said(pc));
    if (json) {
        profile_list_json(topomap_store_dir(pc->store), e, n);
        free(e);
        return;
    }
    printf("%-24s %8s %12s  %-19s  %s\n", "NAME", "RANKS", "BYTES", "MODIFIED", "SCOPE");
    for (size_t i = 0; i < n; i++) {
        char when[32] = "?", ranks[16] = "?";
        time_t t = (time_t)e[i].mtime;
        struct tm tm;
        if (localtime_r(&t, &tm))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        if (e[i].nranks > 0)
            snprintf(ranks, sizeof ranks, "%d", e[i].nranks);
        printf("%-24s %8s %12lld  %-19s  %s\n", e[i].name, ranks, e[i].bytes, when,
               e[i].scope == TOPOMAP_STORE_USER ? "user" : "site");
    }
    free(e);
}

/* show NAME: what the store knows of one profile. */
static void profile_show(struct profile_cmd *pc)
{
    char path[4096] = "", b[40];
    topomap_store_scope_t scope = TOPOMAP_STORE_SITE;
    topomap_profile_t *p = topomap_store_find(pc->store, getuid(), pc->pos[1], 0, &scope, path,
                                              sizeof path, pc->err, pc->errlen);
    if (!p)
        input_error("%s %s", liberr(pc->err, pc->pos[1], errno), store_said(pc));
    /* Metadata and paths come from files and the environment: printed
     * safe for a terminal (control characters as '?'). */
    char safe[sizeof path];
    printf("%-12s %s\n", "name", pc->pos[1]);
    printf("%-12s %s\n", "file", topomap_printable(path, safe, sizeof safe));
    printf("%-12s %s\n", "scope", scope == TOPOMAP_STORE_USER ? "user" : "site");
    printf("%-12s %d\n", "ranks", topomap_profile_nranks(p));
    printf("%-12s %zu\n", "entries", topomap_profile_nedges(p));
    printf("%-12s %s\n", "total bytes", num(topomap_profile_total_bytes(p), b, sizeof b));
    printf("%-12s %s\n", "messages", topomap_profile_has_msgs(p) ? "yes" : "no");
    static const char *const keys[] = {"application", "date", "counted", "source", NULL};
    for (int i = 0; keys[i]; i++)
        if (topomap_profile_meta(p, keys[i]))
            printf("%-12s %s\n", keys[i],
                   topomap_printable(topomap_profile_meta(p, keys[i]), safe, sizeof safe));
    topomap_profile_free(p);
}

/* rm NAME */
static void profile_rm(struct profile_cmd *pc)
{
    if ((pc->site ? topomap_store_remove(pc->store, pc->pos[1], pc->err, pc->errlen)
                  : topomap_store_user_remove(pc->store, getuid(), pc->pos[1], pc->err,
                                              pc->errlen)) < 0)
        input_error("%s %s", liberr(pc->err, pc->pos[1], errno), store_said(pc));
    printf("removed '%s' from %s\n", pc->pos[1], pc->dir);
}

int cmd_profile(int argc, char **argv)
{
    static const struct option opts[] = {
        {"store", required_argument, NULL, 's'},
        {"profile-format", required_argument, NULL, 'f'},
        {"site", no_argument, NULL, 'S'},
        {"ompi-kinds", required_argument, NULL, 'k'},
        {"to", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* synth has options of its own (cli/profile_synth.c). */
    if (argc > 1 && !strcmp(argv[1], "synth"))
        return profile_synth(argc - 1, argv + 1);
    const char *store = NULL;
    int format = TOPOMAP_FMT_AUTO, c, site = 0, to = -1, json = 0;
    unsigned kinds = 0;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 's': store = optarg; break;
        case 'f': format = parse_profile_format(optarg); break;
        case 'S': site = 1; break;
        case 'k': kinds = parse_ompi_kinds(optarg); break;
        case 'j': json = 1; break;
        case 't':
            to = !strcmp(optarg, "edges")    ? TOPOMAP_FMT_EDGES
                 : !strcmp(optarg, "binary") ? TOPOMAP_FMT_BINARY
                                             : -2;
            if (to == -2)
                usage_error("--to: '%s' is not a format profiles are written in (edges, binary)",
                            optarg);
            break;
        case 'h':
            fputs(help_profile, stdout);
            exit(finish_stdout(0));
        case ':': usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    char **pos = argv + optind;
    int npos = argc - optind;
    if (npos == 0)
        usage_error("missing subcommand: expected add, list, show, rm, convert or synth");
    const char *sub = pos[0];
    if (to != -1 && strcmp(sub, "convert"))
        usage_error("--to only applies to convert");
    if (json && strcmp(sub, "list"))
        usage_error("--json only applies to list");
    if (!strcmp(sub, "convert")) {
        if (npos < 3)
            usage_error("convert: missing %s", npos == 1 ? "input profile" : "output file");
        if (npos > 3)
            usage_error("unexpected argument '%s'", pos[3]);
        if (store || site || kinds)
            usage_error("convert: --store, --site and --ompi-kinds do not apply");
        return profile_convert(pos[1], pos[2], format, to);
    }
    int want = !strcmp(sub, "add") ? 3 : !strcmp(sub, "list") ? 1
             : (!strcmp(sub, "show") || !strcmp(sub, "rm")) ? 2 : -1;
    if (want < 0)
        usage_error("unknown subcommand '%s': expected add, list, show, rm, convert or synth", sub);
    if (npos < want)
        usage_error("%s: missing %s", sub, npos == 1 ? "profile name" : "profile file");
    if (npos > want && want != 3)
        usage_error("unexpected argument '%s'", pos[want]);
    if (want > 1 && !topomap_store_name_valid(pos[1]))
        usage_error("invalid profile name '%s' (1 to 200 characters from A-Z a-z 0-9 . _ + -, "
                    "not starting with '.' or '-')", pos[1]);
    if (format != TOPOMAP_FMT_AUTO && strcmp(sub, "add"))
        usage_error("--profile-format only applies to add");
    if (site && strcmp(sub, "add") && strcmp(sub, "rm"))
        usage_error("--site only applies to add and rm");
    if (kinds && strcmp(sub, "add"))
        usage_error("--ompi-kinds only applies to add");
    if (format != TOPOMAP_FMT_AUTO && npos > 3)
        usage_error("--profile-format reads one FILE, not %d", npos - 2);
    if (npos > 3 && !strcmp(pos[2], "-"))
        usage_error("add: '-' (standard input) is read alone");
    char err[TOPOMAP_ERRLEN] = "", mine[4096];
    const char *dir = topomap_store_dir(store);
    if (!site && topomap_store_user_path(store, getuid(), NULL, mine, sizeof mine, err,
                                         sizeof err) == 0)
        dir = mine; /* where your profiles go */

    struct profile_cmd pc = {store, dir, format, site, kinds, pos, npos, err, sizeof err};
    if (!strcmp(sub, "add"))
        profile_add(&pc);
    else if (!strcmp(sub, "list"))
        profile_list(&pc, json);
    else if (!strcmp(sub, "show"))
        profile_show(&pc);
    else
        profile_rm(&pc);
    return finish_stdout(0);
}
