/* SPDX-License-Identifier: BSD-3-Clause */
/* Profile store files (libtopomap/store.c): the input is a stored profile, looked
 * up for a job of 0 (any) to 255 ranks (first byte); profiles of another
 * count go through the grid rescaling. The store is also listed. */
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int nranks = data[0];
    const char *dir = fuzz_path("store");
    char d[256];
    snprintf(d, sizeof d, "%s", dir);
    mkdir(d, 0700);
    char name[300];
    snprintf(name, sizeof name, "store/app.profile");
    fuzz_file(name, data + 1, size - 1);
    char err[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_store_lookup(d, "app", nranks, err, sizeof err);
    if (!p) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
    } else {
        FUZZ_CHECK(nranks == 0 || topomap_profile_nranks(p) == nranks);
        fuzz_check_profile(p);
        topomap_profile_free(p);
    }
    topomap_store_entry_t *e;
    size_t n;
    FUZZ_CHECK(topomap_store_list(d, &e, &n, err, sizeof err) == 0 && n == 1);
    free(e);
    return 0;
}
