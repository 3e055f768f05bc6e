/* SPDX-License-Identifier: BSD-3-Clause */
/* srun's command line and environment as the plugin reads them (spank/):
 * the input is the command line (NUL- or newline-separated words, "srun"
 * first), then after "\xff\xfe" the environment ("NAME=VALUE" lines), then
 * after a second "\xff\xfe" an allocation (one byte per node: its CPUs). A
 * command line read is also laid out the way Slurm would, and named for a
 * recording. */
#include "fuzz.h"
#include "policy.h"

struct env {
    char *text;
};

/* getenv over "NAME=VALUE" lines. */
static const char *lookup(const char *name, void *arg)
{
    const struct env *e = arg;
    size_t len = strlen(name);
    for (const char *p = e->text; p && *p;) {
        const char *nl = strchr(p, '\n');
        if (!strncmp(p, name, len) && p[len] == '=') {
            static char val[4096];
            size_t vl = nl ? (size_t)(nl - p - len - 1) : strlen(p + len + 1);
            if (vl >= sizeof val)
                vl = sizeof val - 1;
            memcpy(val, p + len + 1, vl);
            val[vl] = 0;
            return val;
        }
        p = nl ? nl + 1 : NULL;
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[3];
    size_t len[3];
    int np = fuzz_split(data, size, part, len, 3);
    char *cmd = fuzz_str(part[0], len[0]);
    char *argv[128];
    int argc = 0;
    argv[argc++] = "srun";
    for (size_t i = 0; i < len[0] && argc < 127;) {
        argv[argc++] = cmd + i;
        while (i < len[0] && cmd[i] && cmd[i] != '\n')
            i++;
        if (i < len[0])
            cmd[i++] = 0;
    }
    argv[argc] = NULL;
    struct env e = {np > 1 ? fuzz_str(part[1], len[1]) : NULL};
    struct topomap_srun o;
    tmsp_srun_init(&o);
    char err[TOPOMAP_ERRLEN] = "";
    if (tmsp_srun_parse(&o, argc, argv, lookup, &e, err, sizeof err) < 0) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
    } else if (np > 2 && len[2] > 0) {
        int nalloc = (int)(len[2] > 64 ? 64 : len[2]), cpus[64], tasks[64], nstep = 0;
        for (int i = 0; i < nalloc; i++)
            cpus[i] = 1 + part[2][i] % 64;
        if (tmsp_slurm_layout(&o, nalloc, cpus, &nstep, tasks, err, sizeof err) == 0) {
            long total = 0;
            FUZZ_CHECK(nstep >= 1 && nstep <= nalloc);
            for (int i = 0; i < nalloc; i++) {
                FUZZ_CHECK(tasks[i] >= 0 && (i < nstep || tasks[i] == 0));
                total += tasks[i];
            }
            FUZZ_CHECK(o.ntasks < 0 || total == o.ntasks);
        }
        char name[256], msg[1024];
        tmsp_record_name(&o, name, sizeof name, msg, sizeof msg);
    }
    tmsp_srun_free(&o);
    free(e.text);
    free(cmd);
    return 0;
}
