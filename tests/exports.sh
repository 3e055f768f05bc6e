#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The surface of the built libtopomap.so (TAP): its dynamic symbol table
# names topomap_* alone, holds no data a caller could change (only code and
# read-only constants), and has every function topomap.h declares. The
# internals are hidden (doc/architecture.md, "The library's surface"): a
# name such as tm_match must not clash with TreeMatch's own, and the tuning
# the tests turn (libtopomap/tuning.h) is no exported variable.
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"

so=$top_builddir/libtopomap/.libs/libtopomap.so
if [ ! -e "$so" ]; then
    echo "1..0 # SKIP no shared libtopomap (configured --disable-shared)"
    exit 0
fi
if ! command -v nm > /dev/null 2>&1; then
    echo "1..0 # SKIP nm is not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-exports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

nm -D --defined-only "$so" > "$tmp/nm"
check $? "nm -D --defined-only libtopomap.so"
# show FILE WHAT: the offenders, one diagnostic line each.
show() { sed "s/^/# $2: /" "$1" | head -40; }

awk '$NF !~ /^topomap_/ { print $NF }' "$tmp/nm" > "$tmp/unprefixed"
[ ! -s "$tmp/unprefixed" ]
check $? "every exported name starts with topomap_ ($(wc -l < "$tmp/unprefixed") do not)"
show "$tmp/unprefixed" "not topomap_"

# nm's letters: T code, R read-only data, i indirect function; anything else
# (D, B, G, S, C, V, ...) is data a caller could write.
awk 'NF == 3 && $2 !~ /^[TRi]$/ { print $2, $3 }' "$tmp/nm" > "$tmp/mutable"
[ ! -s "$tmp/mutable" ]
check $? "no writable data exported ($(wc -l < "$tmp/mutable") symbols)"
show "$tmp/mutable" "writable"

# The functions topomap.h declares, read after the preprocessor (comments
# gone), against what the library exports.
${TOPOMAP_TEST_CC:-cc} -E -P "$top_srcdir/libtopomap/topomap.h" > "$tmp/h" 2> "$tmp/cc.log"
check $? "topomap.h preprocesses"
grep -oE '\btopomap_[a-z0-9_]+ *\(' "$tmp/h" | sed 's/ *($//' | sort -u > "$tmp/api"
[ -s "$tmp/api" ]
check $? "topomap.h declares $(wc -l < "$tmp/api") functions"
awk '{ print $NF }' "$tmp/nm" | sort -u > "$tmp/exported"
comm -23 "$tmp/api" "$tmp/exported" > "$tmp/missing"
[ ! -s "$tmp/missing" ]
check $? "every function of topomap.h is exported ($(wc -l < "$tmp/missing") missing)"
show "$tmp/missing" "not exported"
tap_done
