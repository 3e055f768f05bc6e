#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every citation of a document's section leads to a heading that exists
# (TAP): in the Markdown documents, the links [text](FILE.md#anchor) and
# [text](#anchor) (FILE relative to the document); in the code, the man
# pages and the build files, citations written doc/FILE.md#anchor (and
# README.md#anchor, topologies/README.md#anchor, ...) from the top of the
# tree. An anchor is GitHub's: the heading's text in lower case, its
# punctuation but '-' and '_' dropped, its spaces made '-'; headings inside
# fenced code blocks do not count. One test point per document cited, then
# one that the code cites no README section by its quoted title (the
# sections moved to doc/ and the titles drifted: cite doc/FILE.md#anchor).
#
#   anchors.sh [FILE...]   (other files to read, to show that it can fail)
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"
cd "$top_srcdir" || exit 1
tap_tmpdir anchors

docs=$(ls README.md doc/*.md */README.md 2>/dev/null)
code=$(ls libtopomap/*.[ch] libtopomap/topomap/*.h spank/*.[ch] cli/*.[ch] cli/*.1 plot/*.[ch] profiler/*.[ch] \
    reorder/*.[ch] contrib/*.[ch] contrib/*.sh tests/*.[ch] tests/*.sh doc/*.8 \
    Makefile.am */Makefile.am configure.ac 2>/dev/null | grep -vx tests/anchors.sh)

# "FILE ANCHOR CITED-IN" per citation, FILE from the top of the tree.
for d in $docs "$@"; do
    dir=$(dirname "$d")
    grep -oE '\]\([^) ]*#[^) ]+\)' "$d" | sed 's/^](//; s/)$//' | while IFS='#' read -r f a; do
        if [ -z "$f" ]; then f=$d; else f=$dir/$f; fi
        echo "$f $a $d"
    done
done > "$tmp/cites"
for c in $code "$@"; do
    grep -oE '(\b(doc|topologies|profiler|reorder|examples)/)?\b[A-Za-z0-9_-]+\.md#[A-Za-z0-9_-]+' "$c" |
        sed 's/#/ /' | while read -r f a; do echo "$f $a $c"; done
done >> "$tmp/cites"
# doc/../x.md -> x.md
sed -i -e 's#[^ /]*/\.\./##g' -e 's#^\./##' "$tmp/cites"

# anchors FILE: the anchors of FILE's headings, one per line.
anchors() {
    awk '/^(```|~~~)/ { fence = !fence; next } !fence && /^#+ / { print }' "$1" |
        sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for f in $(awk '{ print $1 }' "$tmp/cites" | sort -u); do
    if [ ! -f "$f" ]; then
        awk -v f="$f" '$1 == f { print "# " $3 " cites " f "#" $2 ": no such file" }' "$tmp/cites"
        check 1 "$f exists (cited)"
        continue
    fi
    anchors "$f" > "$tmp/anchors"
    awk -v f="$f" '$1 == f' "$tmp/cites" | while read -r _ a by; do
        grep -qxF "$a" "$tmp/anchors" || echo "# $by cites $f#$a: no such heading"
    done > "$tmp/bad"
    [ ! -s "$tmp/bad" ]
    check $? "every anchor of $f that is cited is a heading ($(awk -v f="$f" '$1 == f' "$tmp/cites" | wc -l) citations)"
    cat "$tmp/bad"
done
[ -s "$tmp/cites" ]
check $? "citations found ($(wc -l < "$tmp/cites"))"

# README sections cited by title, the old style: (README, "Analytic").
grep -nE 'README(\.md)?,? +\(?"[A-Z]' $code "$@" > "$tmp/old"
[ ! -s "$tmp/old" ]
check $? "no README section cited by its title ($(wc -l < "$tmp/old"); cite doc/FILE.md#anchor)"
sed 's/^/# /' "$tmp/old" | head -20
tap_done
