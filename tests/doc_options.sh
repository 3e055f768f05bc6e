#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The guides show only options that exist: every `topomap CMD ... --OPTION`
# of README.md, doc/user-guide.md, doc/admin-guide.md and doc/reference.md
# (in code spans and code blocks, a command continued with "\" included, up
# to a " -- " that starts the srun line of `topomap plan`) is an option that
# `topomap help CMD` lists. One test point per document (TAP).
#
#   doc_options.sh [FILE...]   (other files, to show that the check can fail)
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"
topomap=$top_builddir/cli/topomap
need_built "$topomap" cli/topomap
tap_tmpdir docopts

# The options of each command, "CMD --OPTION" per line.
cmds=$("$topomap" help | sed -n '/^Commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}' | grep -v '^help$')
for cmd in $cmds; do
    "$topomap" help "$cmd" | grep -oE -- '(^|[ ,[|])--[a-z][a-z0-9-]*' | sed 's/^[ ,[|]//' |
        sort -u | sed "s/^/$cmd /"
    echo "$cmd --help"
done > "$tmp/known"
[ -s "$tmp/known" ]
check $? "topomap help lists the commands' options ($(wc -l < "$tmp/known"))"

# "CMD --OPTION LINE" for each option a document gives to topomap CMD.
uses() {
    perl -ne '
        # a code block: every line; a continued line joins the next
        if (/^```/) { $fence = !$fence; next }
        $_ = $held . $_; $held = "";
        if ($fence && /\\\s*$/) { s/\\\s*$/ /; chomp; $held = $_; next }
        my @parts = $fence ? ($_) : (/`([^`]*)`/g);
        for my $p (@parts) {
            while ($p =~ /\btopomap\s+([a-z]+)((?:\s+(?!--\s)\S+)*)/g) {
                my ($cmd, $args) = ($1, $2);
                $args =~ s/\s--\s.*//;            # the srun line of plan
                $args =~ s/\x27[^\x27]*\x27//g;   # quoted arguments
                $args =~ s/"[^"]*"//g;
                print "$cmd $1 $.\n" while $args =~ /(?:^|\s)(--[a-z][a-z0-9-]*)/g;
            }
        }' "$1"
}
for doc in "$top_srcdir/README.md" "$top_srcdir/doc/user-guide.md" \
    "$top_srcdir/doc/admin-guide.md" "$top_srcdir/doc/reference.md" "$@"; do
    name=${doc#"$top_srcdir/"}
    uses "$doc" > "$tmp/uses"
    bad=$(while read -r cmd opt line; do
        grep -q "^$cmd " "$tmp/known" || continue # not a command: "topomap is ..."
        grep -qxF "$cmd $opt" "$tmp/known" || echo "line $line: topomap $cmd $opt"
    done < "$tmp/uses")
    [ -s "$tmp/uses" ] && [ -z "$bad" ]
    check $? "$name: every option given to a topomap command exists ($(wc -l < "$tmp/uses") uses)"
    [ -z "$bad" ] || echo "$bad" | sed 's/^/# not an option of that command: /'
done
tap_done
