/* SPDX-License-Identifier: BSD-3-Clause */
/* Launchers whose ranks are not Slurm's tasks: torchrun (and python -m
 * torch.distributed.run / .launch), accelerate launch, deepspeed. Each srun
 * task runs one agent that starts the node's worker processes and numbers
 * them itself (c10d rendezvous: in the order the agents join; static: from
 * --node-rank), so the placement of srun's tasks never reaches the ranks
 * (doc/training.md, "Launching"). */
#include <ctype.h>
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

/* A shell's -c script: any of its words that names a launcher (the script
 * is not parsed; a launcher's name is what counts, wherever it is). */
static const char *shell_launcher(const char *script)
{
    char *copy = strdup(script), *save = NULL;
    char *words[256];
    int n = 0;
    const char *found = NULL;
    if (!copy)
        return NULL;
    for (char *w = strtok_r(copy, " \t\n;&|()'\"`", &save); w && n < 256;
         w = strtok_r(NULL, " \t\n;&|()'\"`", &save))
        words[n++] = w;
    for (int i = 0; i < n && !found; i++) {
        found = launcher_word(n, words, i);
        if (!found && !strcmp(words[i], "-m") && i + 1 < n && i > 0 &&
            is_python(base(words[i - 1])))
            found = launcher_module(words[i + 1]);
    }
    free(copy);
    return found;
}

const char *tmsp_launcher(int argc, char *const *argv)
{
    for (int i = 0; i < argc && argv[i]; i++) {
        const char *b = base(argv[i]), *found = launcher_word(argc, argv, i);
        if (found)
            return found;
        if (is_python(b))
            return python_launcher(argc, argv, i);
        if (is_shell(b)) {
            /* sh -c SCRIPT, bash -lc SCRIPT: the first argument after the
             * option cluster ending in 'c' */
            for (int k = i + 1; k < argc && argv[k][0] == '-'; k++)
                if (argv[k][1] != '-' && argv[k][strlen(argv[k]) - 1] == 'c')
                    return k + 1 < argc ? shell_launcher(argv[k + 1]) : NULL;
            return NULL; /* a script file: not read */
        }
        if (!is_wrapper(b) && i == 0)
            return NULL; /* the application itself */
        /* after a wrapper: its options and arguments, then the program */
    }
    return NULL;
}
