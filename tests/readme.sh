#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The worked examples of the README and the guides (the blocks after
# "<!-- example -->" in README.md and doc/*.md) print what they show:
# contrib/readme-examples.sh runs them from the source tree's examples/ and
# topologies/ alone (no ../shared) and compares, times aside. One test point
# per document that has examples.
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
export top_srcdir top_builddir
if [ ! -x "$top_builddir/cli/topomap" ]; then
    echo "1..0 # SKIP cli/topomap not built"
    exit 0
fi
n=0
status=0
for doc in "$top_srcdir/README.md" "$top_srcdir"/doc/*.md; do
    grep -q '^<!-- example -->$' "$doc" || continue
    name=${doc#"$top_srcdir/"}
    n=$((n + 1))
    out=$(sh "$top_srcdir/contrib/readme-examples.sh" --check "$doc" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/# /'
    if [ $rc -eq 0 ]; then
        echo "ok $n - the examples of $name print what it shows"
    else
        echo "not ok $n - the examples of $name print what it shows (update with contrib/readme-examples.sh --update $name, review the diff)"
        status=1
    fi
done
# README.md has examples; so do the guides (a guide losing its markers would
# otherwise pass silently).
if [ $n -lt 3 ]; then
    n=$((n + 1))
    echo "not ok $n - at least README.md, doc/user-guide.md and doc/admin-guide.md have examples (found $((n - 1)))"
    status=1
fi
echo "1..$n"
exit $status
