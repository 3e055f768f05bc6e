/* SPDX-License-Identifier: BSD-3-Clause */
/* Launchers whose ranks are not Slurm's tasks: torchrun (and python -m
 * torch.distributed.run / .launch), accelerate launch, deepspeed. Each srun
 * task runs one agent that starts the node's worker processes and numbers
 * them itself (c10d rendezvous: in the order the agents join; static: from
 * --node-rank), so the placement of srun's tasks never reaches the ranks
 * (doc/training.md, "Launching"). A launcher is seen on the command line and
 * in the shell scripts it runs (sh -c's script, a script file:
 * launcher_script.c reads it). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* python, python3, python3.12, pypy3 */
static int is_python(const char *b)
{
    if (!strncmp(b, "pypy", 4))
        b += 4;
    else if (!strncmp(b, "python", 6))
        b += 6;
    else
        return 0;
    for (; *b; b++)
        if (!isdigit((unsigned char)*b) && *b != '.')
            return 0;
    return 1;
}

/* Programs that run the rest of their command line (their options and
 * arguments are passed over: none of them is a launcher's name). */
static int is_wrapper(const char *b)
{
    static const char *const w[] = {"env", "exec", "nice", "nohup", "time", "numactl",
                                    "taskset", "stdbuf", "apptainer", "singularity",
                                    "enroot", "podman", "docker", "uv", "conda", "micromamba",
                                    "pixi", NULL};
    for (int i = 0; w[i]; i++)
        if (!strcmp(b, w[i]))
            return 1;
    return 0;
}

static int is_shell(const char *b)
{
    return !strcmp(b, "sh") || !strcmp(b, "bash") || !strcmp(b, "dash") || !strcmp(b, "zsh") ||
           !strcmp(b, "ksh");
}

/* The launcher python's module @p m is, or NULL. */
static const char *launcher_module(const char *m)
{
    if (!strcmp(m, "torch.distributed.run"))
        return "torchrun (python -m torch.distributed.run)";
    if (!strcmp(m, "torch.distributed.launch"))
        return "torch.distributed.launch";
    if (!strcmp(m, "accelerate.commands.launch"))
        return "accelerate launch";
    if (!strcmp(m, "deepspeed.launcher.runner") || !strcmp(m, "deepspeed"))
        return "deepspeed";
    return NULL;
}

/* A launcher's own name at @p argv[i], or NULL. */
static const char *launcher_word(int argc, char *const *argv, int i)
{
    const char *b = base(argv[i]);
    if (!strcmp(b, "torchrun"))
        return "torchrun";
    if (!strcmp(b, "deepspeed"))
        return "deepspeed";
    if (!strcmp(b, "accelerate") && i + 1 < argc && !strcmp(argv[i + 1], "launch"))
        return "accelerate launch";
    return NULL;
}

/* python's command line from @p argv[i] (python itself): a launcher module
 * (-m NAME, -mNAME) or script (python /usr/bin/torchrun), else NULL. */
static const char *python_launcher(int argc, char *const *argv, int i)
{
    for (i++; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-m"))
            return i + 1 < argc ? launcher_module(argv[i + 1]) : NULL;
        if (!strncmp(a, "-m", 2))
            return launcher_module(a + 2);
        if (!strcmp(a, "-c") || !strcmp(a, "-") || !strcmp(a, "--"))
            return NULL; /* a program given inline or on standard input */
        if (!strcmp(a, "-W") || !strcmp(a, "-X")) {
            i++; /* their argument */
            continue;
        }
        if (a[0] != '-')
            return launcher_word(argc, argv, i); /* the script */
    }
    return NULL;
}

/* Separators of a shell's words, for this purpose: blanks, operators, quotes
 * (a quoted launcher name still counts: see tmsp_launcher_in_text) and the
 * backslash of a continued line. */
#define SEPS " \t\r\n;&|()<>'\"`\\"

static int is_sep(char c)
{
    return c && strchr(SEPS, c);
}

const char *tmsp_launcher_in_text(const char *text)
{
    size_t len = strlen(text);
    char *copy = strdup(text);
    char **words = malloc((len / 2 + 1) * sizeof *words);
    const char *found = NULL;
    int n = 0;
    if (!copy || !words) {
        free(copy);
        free(words);
        return NULL;
    }
    /* Words; a word that starts with '#' starts a comment up to the line's
     * end (the shell's rule, quotes aside). */
    for (char *p = copy; *p;) {
        if (is_sep(*p)) {
            p++;
        } else if (*p == '#') {
            p += strcspn(p, "\n");
        } else {
            words[n++] = p;
            p += strcspn(p, SEPS);
            if (*p)
                *p++ = 0;
        }
    }
    for (int i = 0; i < n && !found; i++) {
        found = launcher_word(n, words, i);
        if (!found && !strcmp(words[i], "-m") && i + 1 < n && i > 0 &&
            is_python(base(words[i - 1])))
            found = launcher_module(words[i + 1]);
    }
    free(words);
    free(copy);
    return found;
}

/* A shell script's text @p text: its first line "#!" names a shell, directly
 * or through env (#!/bin/bash -l, #!/usr/bin/env bash). */
static int shell_shebang(const char *text)
{
    char line[256];
    if (strncmp(text, "#!", 2))
        return 0;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(text + 2, "\n"), text + 2);
    char *save = NULL, *w = strtok_r(line, " \t\r", &save);
    if (w && !strcmp(base(w), "env"))
        do /* env's options (-S, -i) and assignments */
            w = strtok_r(NULL, " \t\r", &save);
        while (w && (w[0] == '-' || strchr(w, '=')));
    return w && is_shell(base(w));
}

/* The launcher the script file @p path names (tmsp_script_read); a file
 * srun runs itself must be a shell script (@p shebang), one given to a
 * shell is one whatever its first line. */
static const char *script_launcher(const char *path, int shebang)
{
    char *text = tmsp_script_read(path);
    const char *found = NULL;
    if (text && (!shebang || shell_shebang(text)))
        found = tmsp_launcher_in_text(text);
    free(text);
    return found;
}

/* A shell's command line from @p argv[i] (the shell): its -c script (sh -c
 * SCRIPT, bash -lc SCRIPT: the first argument after the option cluster
 * ending in 'c') or its script file (the first argument that is not an
 * option, *@p script then set to it). */
static const char *shell_launcher(int argc, char *const *argv, int i, const char **script)
{
    int k;
    for (k = i + 1; k < argc && (argv[k][0] == '-' || argv[k][0] == '+'); k++) {
        if (!strcmp(argv[k], "--") || !strcmp(argv[k], "-")) {
            k++; /* the end of the options (bash: "-" as "--") */
            break;
        }
        if (argv[k][0] == '-' && argv[k][1] != '-' && argv[k][strlen(argv[k]) - 1] == 'c')
            return k + 1 < argc ? tmsp_launcher_in_text(argv[k + 1]) : NULL;
        if (argv[k][0] == '-' && argv[k][1] != '-' && strchr(argv[k], 's'))
            return NULL; /* sh -s: the script is on standard input */
        if (!strcmp(argv[k] + 1, "o") || !strcmp(argv[k], "-O") || !strcmp(argv[k], "+O"))
            k++; /* -o pipefail, -O extglob: their argument */
    }
    const char *found = k < argc ? script_launcher(argv[k], 0) : NULL;
    if (found && script)
        *script = argv[k];
    return found;
}

const char *tmsp_launcher(int argc, char *const *argv, const char **script)
{
    if (script)
        *script = NULL;
    for (int i = 0; i < argc && argv[i]; i++) {
        const char *b = base(argv[i]), *found = launcher_word(argc, argv, i);
        if (found)
            return found;
        if (is_python(b))
            return python_launcher(argc, argv, i);
        if (is_shell(b))
            return shell_launcher(argc, argv, i, script);
        if (!is_wrapper(b) && i == 0) {
            /* the application itself, maybe a shell script */
            found = script_launcher(argv[0], 1);
            if (found && script)
                *script = argv[0];
            return found;
        }
        /* after a wrapper: its options and arguments, then the program */
    }
    return NULL;
}
