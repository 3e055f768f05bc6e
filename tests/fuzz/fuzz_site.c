/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin's site arguments (plugstack.conf key=value tokens, spank/): the
 * input split at blanks, newlines and NULs into at most 64 tokens. */
#include "fuzz.h"
#include "policy.h"

/* Tokens of s (modified in place) at blanks, newlines and NULs of its n bytes. */
static int tokens(char *s, size_t n, char **tok, int max)
{
    int k = 0;
    for (size_t i = 0; i < n && k < max;) {
        while (i < n && (!s[i] || s[i] == ' ' || s[i] == '\n' || s[i] == '\t'))
            s[i++] = 0;
        if (i < n)
            tok[k++] = s + i;
        while (i < n && s[i] && s[i] != ' ' && s[i] != '\n' && s[i] != '\t')
            i++;
    }
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), *tok[64], err[TOPOMAP_ERRLEN] = "";
    int n = tokens(s, size, tok, 64);
    struct topomap_site site;
    tmsp_site_init(&site);
    int bad = tmsp_site_parse(&site, n, tok, err, sizeof err);
    FUZZ_CHECK(bad >= 0 && bad <= n);
    fuzz_check_message(err);
    FUZZ_CHECK(site.min_gain >= 0 && site.time_limit > 0);
    tmsp_site_free(&site);
    free(s);
    return 0;
}
