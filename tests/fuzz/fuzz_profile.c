/* SPDX-License-Identifier: BSD-3-Clause */
/* Profile files (libtopomap/profile_read.c and its parsers): the edge list, dense,
 * Matrix Market and binary formats, by extension, by content and forced, with
 * an optional PATH.meta side file. Input: one byte choosing format (bits 2-4,
 * modulo 5) and file name (bits 0-1), the file, and after "\xff\xfe" the
 * side file. A loaded profile must read back the same after
 * topomap_profile_write() and in the binary format; its statistics and grid
 * analysis run too. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"p.txt", "p.mat", "p.mtx", "p.dense"};
    static const int formats[] = {TOPOMAP_FMT_AUTO, TOPOMAP_FMT_EDGES, TOPOMAP_FMT_DENSE,
                                  TOPOMAP_FMT_MTX, TOPOMAP_FMT_BINARY};
    if (size < 1)
        return 0;
    const char *name = names[data[0] & 3];
    int format = formats[((data[0] >> 2) & 7) % 5];
    const uint8_t *part[2];
    size_t len[2];
    int np = fuzz_split(data + 1, size - 1, part, len, 2);
    const char *path = fuzz_file(name, part[0], len[0]);
    char meta[64];
    snprintf(meta, sizeof meta, "%s.meta", name);
    if (np == 2)
        fuzz_file(meta, part[1], len[1]);
    else
        unlink(fuzz_path(meta));
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(path, format, err, sizeof err);
    if (!p) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    fuzz_check_profile(p);
    int ks[2] = {1, 4};
    topomap_stats_t st;
    FUZZ_CHECK(topomap_stats(p, ks, 2, &st) == 0);
    if (topomap_profile_nranks(p) <= 4096) {
        topomap_grid_t g;
        FUZZ_CHECK(topomap_grid_detect(p, 0, &g, NULL) >= 0);
    }
    topomap_profile_free(p);
    return 0;
}
