/* SPDX-License-Identifier: BSD-3-Clause */
/* The binary profile format (libtopomap/profile_bin.c) alone: the input is the
 * file, read as binary by format and by content (auto). Its own corpus keeps
 * inputs that pass the header checks, which random text rarely does in
 * fuzz_profile. A loaded profile has the properties of every profile and
 * reads back the same (fuzz_check_profile); both ways of reading agree. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("p.bin", data, size);
    char err[TOPOMAP_ERRLEN] = "", err2[TOPOMAP_ERRLEN] = "";
    topomap_profile_t *p = topomap_profile_load(path, TOPOMAP_FMT_BINARY, err, sizeof err);
    topomap_profile_t *q = topomap_profile_load(path, TOPOMAP_FMT_AUTO, err2, sizeof err2);
    if (!p) {
        FUZZ_CHECK(err[0]);
        fuzz_check_message(err);
    } else {
        fuzz_check_profile(p);
    }
    if (!q) {
        fuzz_check_message(err2);
    } else if (p) { /* a file that is binary by format and by content */
        FUZZ_CHECK(topomap_profile_nranks(p) == topomap_profile_nranks(q));
        FUZZ_CHECK(topomap_profile_nedges(p) == topomap_profile_nedges(q));
        FUZZ_CHECK(topomap_profile_total_bytes(p) == topomap_profile_total_bytes(q));
    }
    topomap_profile_free(q);
    topomap_profile_free(p);
    return 0;
}
