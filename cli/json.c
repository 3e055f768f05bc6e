/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON strings for every --json output. Names come from files and the
 * command line (node names, level names, paths): a quote, a backslash or a
 * control character in one must not end the string or the document early,
 * and bytes that are not UTF-8 must not make the whole output unreadable
 * (RFC 8259 section 8.1 requires UTF-8). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 section 4: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c < 0xc2 || c > 0xf4)
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void json_str(FILE *f, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    while (*s) {
        unsigned c = *s;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                        : c == '\t' ? "\\t" : NULL;
        if (esc) {
            fputs(esc, f);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            s++;
        } else if (c < 0x80) {
            putc((int)c, f);
            s++;
        } else {
            size_t n = utf8_len(s);
            if (n) {
                fwrite(s, 1, n, f);
                s += n;
            } else { /* a stray byte: the replacement character, not the byte */
                fputs("\\ufffd", f);
                s++;
            }
        }
    }
    putc('"', f);
}

void json_key(FILE *f, int first, const char *key, const char *value)
{
    fputs(first ? "" : ", ", f);
    json_str(f, key);
    fputs(": ", f);
    json_str(f, value);
}
