/* SPDX-License-Identifier: BSD-3-Clause */
/* The launchers that number the ranks themselves (spank/launcher.c): the
 * step's command as srun runs it, argv[0] the executable; the shell scripts
 * it runs (spank/launcher_script.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spank_test.h"
#include "tap.h"

#define MAXW 16

/* tmsp_launcher() on the words of @p cmd, split at spaces; a word in [...]
 * is one argument with its spaces (a shell's -c script). */
static const char *script_of; /* the script file of the last launcher_of() */

static const char *launcher_of(const char *cmd)
{
    static char buf[512];
    char *argv[MAXW + 1];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", cmd);
    for (char *p = buf; *p && argc < MAXW;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *end;
        if (*p == '[') {
            argv[argc++] = ++p;
            end = strchr(p, ']');
        } else {
            argv[argc++] = p;
            end = strchr(p, ' ');
        }
        if (!end)
            break;
        *end = 0;
        p = end + 1;
    }
    argv[argc] = NULL;
    const char *got = tmsp_launcher(argc, argv, &script_of);
    static char script[512];
    if (script_of) /* into buf: keep it past the next call's snprintf */
        script_of = strcpy(script, script_of);
    return got;
}

static void check(const char *cmd, const char *want)
{
    const char *got = launcher_of(cmd);
    if (want)
        ok(got && !strcmp(got, want), "%s: %s (got %s)", cmd, want, got ? got : "none");
    else
        ok(!got, "%s: no launcher (got %s)", cmd, got ? got : "none");
}

/* @p name in @p dir holding @p len bytes of @p text (mode @p mode); the
 * path into @p path. */
static void put(char *path, size_t plen, const char *dir, const char *name, const char *text,
                size_t len, mode_t mode)
{
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) == EOF || chmod(path, mode) < 0)
        printf("# could not write %s\n", path);
}

#define PUT(name, text) put(path, sizeof path, dir, name, text, sizeof text - 1, 0755)

/* The launcher in the script file srun runs (srun ./train.sh, srun bash
 * train.sh): read when it is a shell script, comments left out. */
static void script_tests(const char *dir)
{
    char path[600], cmd[700];
    PUT("train.sh", "#!/bin/bash\nset -e\n# the agents: one per node\ncd /w && "
                    "exec torchrun --nnodes=$SLURM_NNODES train.py\n");
    check(path, "torchrun");
    ok(script_of && !strcmp(script_of, path), "... started by %s (got %s)", path,
       script_of ? script_of : "none");
    snprintf(cmd, sizeof cmd, "bash -e -o pipefail %s", path);
    check(cmd, "torchrun");
    ok(script_of && !strcmp(script_of, path), "... the script file given to bash");
    snprintf(cmd, sizeof cmd, "sh -- %s", path);
    check(cmd, "torchrun");
    snprintf(cmd, sizeof cmd, "bash -s %s", path); /* the script on stdin, not this file */
    check(cmd, NULL);
    check("/bin/true", NULL);
    ok(!script_of, "... no script when none names a launcher");
    PUT("mod.sh", "#!/usr/bin/env -S bash -l\nOMP_NUM_THREADS=4 python3 \\\n"
                  "    -m torch.distributed.run --nproc-per-node=4 train.py\n");
    check(path, "torchrun (python -m torch.distributed.run)");
    PUT("acc.sh", "#!/bin/sh\nif true; then accelerate launch train.py; fi\n");
    check(path, "accelerate launch");
    PUT("say.sh", "#!/bin/sh\necho \"torchrun later\"\n");
    check(path, "torchrun"); /* a string counts: the documented rule */

    /* Not launchers. */
    PUT("comment.sh", "#!/bin/bash\n# was: torchrun train.py\n"
                      "python train.py  # not torchrun\necho ${#a} done\n");
    check(path, NULL);
    snprintf(cmd, sizeof cmd, "sh %s", path);
    check(cmd, NULL);
    PUT("train.py", "#!/usr/bin/env python3\nprint('run me under torchrun')\n");
    check(path, NULL); /* not a shell script */
    PUT("noshebang", "torchrun train.py\n");
    check(path, NULL);
    PUT("binary", "\177ELF\002\001\000\000 torchrun\n");
    check(path, NULL);
    PUT("nul.sh", "#!/bin/sh\n\000\ntorchrun x\n");
    check(path, NULL);
    check("/dev/null", NULL);
    check(dir, NULL);
    snprintf(cmd, sizeof cmd, "%s/nothere.sh", dir);
    check(cmd, NULL);

    /* Only the first 64 KiB are read. */
    size_t big = 70 * 1024;
    char *text = malloc(big + 64);
    if (text) {
        memset(text, '#', big);
        memcpy(text, "#!/bin/sh\n", 10);
        text[big - 1] = '\n';
        strcpy(text + big, "torchrun x\n");
        put(path, sizeof path, dir, "long.sh", text, strlen(text), 0755);
        check(path, NULL);
        memcpy(text + 1024, "\ntorchrun x\n", 12);
        put(path, sizeof path, dir, "long2.sh", text, strlen(text), 0755);
        check(path, "torchrun");
        free(text);
    }

    /* A FIFO is never opened (no writer: open() or read() would wait). */
    snprintf(path, sizeof path, "%s/fifo.sh", dir);
    ok(mkfifo(path, 0755) == 0, "mkfifo %s", path);
    alarm(10); /* a hang kills the test */
    check(path, NULL);
    snprintf(cmd, sizeof cmd, "bash %s", path);
    check(cmd, NULL);
    alarm(0);

    /* An unreadable script (executable, not readable): not seen. As root,
     * looked at by a child that became nobody. */
    PUT("secret.sh", "#!/bin/sh\ntorchrun x\n");
    chmod(path, 0111);
    if (geteuid() != 0) {
        check(path, NULL);
    } else {
        chmod(dir, 0711);
        pid_t pid = fork();
        if (pid == 0) {
            char *argv[] = {path, NULL};
            _exit(setgid(65534) || setuid(65534) ? 2 : tmsp_launcher(1, argv, NULL) ? 1 : 0);
        }
        int st = -1;
        waitpid(pid, &st, 0);
        ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "%s, mode 0111, seen by uid 65534: no launcher (exit %d)", path,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        chmod(dir, 0700);
    }

    /* A name without '/' along PATH, as srun finds it. */
    const char *old = getenv("PATH");
    char *keep = old ? strdup(old) : NULL;
    snprintf(cmd, sizeof cmd, "/nonexistent:%s", dir);
    setenv("PATH", cmd, 1);
    check("train.sh", "torchrun");
    check("comment.sh", NULL);
    if (keep)
        setenv("PATH", keep, 1);
    free(keep);
}

/* The user's line names the script (spank/decide.c). */
static void message_tests(const char *dir)
{
    char err[TOPOMAP_ERRLEN], script[600];
    const char *env[] = {"SLURM_JOB_NODELIST=n[1-4]", "SLURM_JOB_CPUS_PER_NODE=2(x4)", NULL};
    struct topomap_site s;
    struct topomap_srun o;
    struct topomap_decision d;
    snprintf(script, sizeof script, "%s/train.sh", dir);
    tmsp_site_init(&s);
    ok(parse(&o, env, err, "srun", "-n8", "--topomap=cyclic", script, NULL) == 0,
       "srun -n8 --topomap=cyclic %s", script);
    tmsp_decide(&s, &o, fake_env, (void *)env, &d);
    char want[900];
    snprintf(want, sizeof want, "topomap: torchrun, started by %s, numbers the ranks itself, ",
             script);
    ok(d.outcome == TOPOMAP_KEEP && !strncmp(d.message, want, strlen(want)),
       "Slurm's layout, the line names the script: %s", d.message);
    tmsp_decision_free(&d);
    tmsp_srun_free(&o);
    tmsp_site_free(&s);
}

int main(void)
{
    /* The launchers themselves. */
    check("torchrun --nnodes=4 --nproc-per-node=4 train.py", "torchrun");
    check("/opt/venv/bin/torchrun train.py", "torchrun");
    check("python -m torch.distributed.run --nproc-per-node=8 train.py",
          "torchrun (python -m torch.distributed.run)");
    check("python3.12 -u -X dev -mtorch.distributed.run train.py",
          "torchrun (python -m torch.distributed.run)");
    check("python3 -m torch.distributed.launch --use-env train.py", "torch.distributed.launch");
    check("accelerate launch --num_processes 8 train.py", "accelerate launch");
    check("python -m accelerate.commands.launch train.py", "accelerate launch");
    check("deepspeed --num_gpus 8 train.py --deepspeed ds.json", "deepspeed");
    check("python /usr/local/bin/torchrun train.py", "torchrun");
    /* Behind wrappers and in shell scripts. */
    check("env NCCL_DEBUG=INFO torchrun train.py", "torchrun");
    check("apptainer exec --nv --bind /data:/data img.sif torchrun train.py", "torchrun");
    check("bash -lc [cd /w && exec torchrun --node-rank=$SLURM_NODEID train.py]", "torchrun");
    check("sh -c [OMP_NUM_THREADS=4 python -m torch.distributed.run train.py]",
          "torchrun (python -m torch.distributed.run)");
    /* Not launchers: the application, python scripts, other modules. */
    check("./lmp -in in.lj", NULL);
    check("python train.py --launcher torchrun", NULL);
    check("python -m pytest tests", NULL);
    check("python -c [import torchrun]", NULL);
    check("accelerate config", NULL);
    check("app torchrun", NULL);
    check("sh -c [RANK=$SLURM_PROCID exec python train.py]", NULL);
    check("bash run-torchrun.sh", NULL);
    check("env", NULL);
    check("python", NULL);
    check("sh -c", NULL);

    char dir[] = "/tmp/topomap-launcher-test.XXXXXX";
    if (make_store(dir) < 0) /* a temporary directory */
        return done_testing();
    script_tests(dir);
    message_tests(dir);
    remove_store(dir);
    return done_testing();
}
