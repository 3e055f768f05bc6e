#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Give the SPANK plugin's own functions and variables the prefix tmsp_
# ("topomap spank"), in every tracked text file: topomap_sp_X and plug_X
# become tmsp_X, topomap_sb_X tmsp_sb_X, and the other topomap_X that
# spank/policy.h, spank/common.h and spank/plugin.h declare (and
# libtopomap/topomap.h does not) tmsp_X. Why a prefix of their own: topomap_
# is libtopomap's public name space (tests/exports.sh), which the plugin and
# `topomap plan` link beside these; spank_ and slurm_ are Slurm's, plugin_
# its plugins' identity. Types, macros and messages keep their names.
#
#   contrib/rename-spank-prefix.sh   (from anywhere in the checkout)
# Re-runnable after a merge: the names come from the headers as they are,
# and a second run finds nothing left to rename. Stops, changing nothing,
# when a new name is taken already.
set -eu
cd "$(git rev-parse --show-toplevel)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rename-spank.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

${CC:-cc} -E -P libtopomap/topomap.h | grep -oE '\btopomap_[a-z0-9_]+ *\(' | sed 's/ *($//' |
    sort -u > "$tmp/api"
h="spank/policy.h spank/common.h spank/plugin.h"
{ grep -ohE '\b(topomap|plug)_[a-z0-9_]+ *\(' $h | sed 's/ *($//'
  grep -ohE '\bplug_[a-z0-9_]+\b' spank/plugin.h; } | sort -u | comm -23 - "$tmp/api" > "$tmp/old"
if [ ! -s "$tmp/old" ]; then
    echo "rename-spank-prefix: nothing left to rename"
    exit 0
fi
sed -E 's/^topomap_sp_/tmsp_/; s/^topomap_sb_/tmsp_sb_/; s/^topomap_/tmsp_/; s/^plug_/tmsp_/' \
    "$tmp/old" > "$tmp/new"
dup=$(sort "$tmp/new" | uniq -d)
[ -z "$dup" ] || { echo "rename-spank-prefix: two names would become $dup" >&2; exit 1; }
taken=$(git grep -hwoF -f "$tmp/new" -- . || true)
if [ -n "$taken" ]; then
    echo "rename-spank-prefix: taken already:" $(echo $taken | tr ' ' '\n' | sort -u) >&2
    exit 1
fi

paste -d ' ' "$tmp/old" "$tmp/new" > "$tmp/map"
git grep -lwF -f "$tmp/old" -- . ':!tests/fuzz/corpus' ':!tests/fuzz/regress' \
    ':!tests/fuzz/seeds' > "$tmp/files" || true
# Rename, and move left the continuation lines aligned under a parenthesis
# that a shorter name moved (argument lists keep their alignment).
cat > "$tmp/rename.pl" <<'PERL'
use strict; use warnings;
open my $m, "<", shift or die; my %to;
while (<$m>) { my ($o, $n) = split; $to{$o} = $n }
my $re = join "|", sort { length $b <=> length $a } keys %to;
# Blank out string and character literals (their parentheses do not count).
sub code { my $s = shift; $s =~ s/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/"x" x length $&/ge; $s }
# The column of the innermost parenthesis still open at the end of a line.
sub open_at { my @st; my $s = code(shift);
    for my $i (0 .. length($s) - 1) { my $c = substr $s, $i, 1;
        if ($c eq "(") { push @st, $i } elsif ($c eq ")") { pop @st } }
    return @st ? $st[-1] : -1 }
for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!"; my @l = <$in>; close $in;
    my ($from, $shift, $bal) = (-1, 0, 0);
    for my $line (@l) {
        my $o = $line; $line =~ s/\b($re)\b/$to{$1}/g;
        if ($from >= 0) {
            substr($line, 0, $shift) = "" if $line =~ /^( *)\S/ && length($1) == $from;
            my $c = code($line); $bal += ($c =~ tr/(//) - ($c =~ tr/)//);
            $from = -1 if $bal <= 0;
        }
        if ($o ne $line) {
            my ($co, $cn) = (open_at($o), open_at($line));
            ($from, $shift, $bal) = ($co + 1, $co - $cn, 1) if $cn >= 0 && $co > $cn;
        }
    }
    open my $out, ">", $f or die "$f: $!"; print $out @l; close $out;
}
PERL
perl "$tmp/rename.pl" "$tmp/map" $(cat "$tmp/files")
echo "rename-spank-prefix: $(wc -l < "$tmp/old") names in $(wc -l < "$tmp/files") files"
