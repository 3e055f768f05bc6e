#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README's worked examples (the blocks after "<!-- example -->") print
# what they show: contrib/readme-examples.sh runs them from the source tree's
# examples/ and topologies/ alone (no ../shared) and compares, times aside.
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
export top_srcdir top_builddir
if [ ! -x "$top_builddir/cli/topomap" ]; then
    echo "1..0 # SKIP cli/topomap not built"
    exit 0
fi
out=$(sh "$top_srcdir/contrib/readme-examples.sh" --check "$top_srcdir/README.md" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
    echo "ok 1 - the README's examples print what the README shows"
else
    echo "not ok 1 - the README's examples print what the README shows (update with contrib/readme-examples.sh --update, review the diff)"
fi
echo "1..1"
[ $rc -eq 0 ]
