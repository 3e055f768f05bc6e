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
. "$top_srcdir/tests/tap.sh"
need_built "$top_builddir/cli/topomap" cli/topomap
for doc in "$top_srcdir/README.md" "$top_srcdir"/doc/*.md; do
    grep -q '^<!-- example -->$' "$doc" || continue
    name=${doc#"$top_srcdir/"}
    out=$(sh "$top_srcdir/contrib/readme-examples.sh" --check "$doc" 2>&1)
    rc=$?
    echo "$out" | sed 's/^/# /'
    if [ $rc -eq 0 ]; then
        ok "the examples of $name print what it shows"
    else
        notok "the examples of $name print what it shows (update with contrib/readme-examples.sh --update $name, review the diff)"
    fi
done
# README.md has examples; so do the guides (a guide losing its markers would
# otherwise pass silently).
[ $n -ge 3 ] ||
    notok "at least README.md, doc/user-guide.md and doc/admin-guide.md have examples (found $n)"
tap_done
