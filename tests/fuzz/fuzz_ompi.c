/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI monitoring files (libtopomap/import_ompi.c): up to four files
 * PREFIX.R.prof separated by "\xff\xfe", the first byte choosing the line
 * kinds imported and whether the files are named by rank. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned kinds = data[0] & 15;
    int unnamed = data[0] & 16;
    const uint8_t *part[4];
    size_t len[4];
    int np = fuzz_split(data + 1, size - 1, part, len, 4);
    const char *paths[4];
    char name[32], copy[4][256];
    for (int i = 0; i < np; i++) {
        snprintf(name, sizeof name, unnamed ? "m-%d.txt" : "m.%d.prof", i);
        snprintf(copy[i], sizeof copy[i], "%s", fuzz_file(name, part[i], len[i]));
        paths[i] = copy[i];
    }
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_import_ompi(paths, (size_t)np, kinds, err, sizeof err);
    if (!p) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
        return 0;
    }
    FUZZ_CHECK(topomap_profile_has_msgs(p));
    fuzz_check_profile(p);
    topomap_profile_free(p);
    return 0;
}
