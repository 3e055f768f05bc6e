/* SPDX-License-Identifier: BSD-3-Clause */
/* The launchers that number the ranks themselves (spank/launcher.c): the
 * step's command as srun runs it, argv[0] the executable. */
#include <string.h>

#include "spank_test.h"
#include "tap.h"

#define MAXW 16

/* tmsp_launcher() on the words of @p cmd, split at spaces; a word in [...]
 * is one argument with its spaces (a shell's -c script). */
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
    return tmsp_launcher(argc, argv);
}

static void check(const char *cmd, const char *want)
{
    const char *got = launcher_of(cmd);
    if (want)
        ok(got && !strcmp(got, want), "%s: %s (got %s)", cmd, want, got ? got : "none");
    else
        ok(!got, "%s: no launcher (got %s)", cmd, got ? got : "none");
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
    return done_testing();
}
