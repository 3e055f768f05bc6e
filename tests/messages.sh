#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every message a user can see from the plugin is in the "Messages" table
# of doc/reference.md: the string literals of spank/*.c that start with
# "topomap: ", "plugstack.conf" or "--topomap...: ", and the reasons given to
# keep() (printed as "topomap: REASON; using Slurm's default layout"), with
# each printf conversion shown as "…". One test point per message.
#
#   messages.sh [PAGE]   (another page, to show that the check can fail)
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"
guide=${1:-$top_srcdir/doc/reference.md}
msgs=$(perl -CS -e "$(cat <<'PERL'
use strict; use warnings; use utf8; binmode STDOUT, ':utf8';
my %seen;
for my $f (@ARGV) {
    open my $fh, '<', $f or die "$f: $!"; local $/; my $src = <$fh>; close $fh;
    $src =~ s{/\*.*?\*/}{ }gs;            # comments
    $src =~ s{//[^\n]*}{}g;
    # adjacent literals join: "a" "b" -> "ab"
    1 while $src =~ s/"((?:[^"\\\n]|\\.)*)"\s*"((?:[^"\\\n]|\\.)*)"/"$1$2"/g;
    my @m;
    while ($src =~ /"((?:[^"\\\n]|\\.)*)"/g) {
        my $s = $1;
        push @m, $s if $s =~ /^(topomap: |plugstack\.conf[: ]|--topomap\S*: )/;
    }
    # the reasons of keep(d, site, quiet, "format", ...)
    while ($src =~ /\bkeep\(\s*[^,]+,[^,]+,[^,]+,\s*"((?:[^"\\\n]|\\.)*)"/g) { push @m, $1; }
    for my $s (@m) {
        $s =~ s/\\n$//; $s =~ s/\\"/"/g; $s =~ s/\\\\/\\/g;
        $s =~ s/%%/\x01/g;
        $s =~ s/%[-+ #0]*(\*|\d+)?(\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]/…/g;
        $s =~ s/\x01/%/g;
        (my $lit = $s) =~ s/^(topomap: |plugstack\.conf: |--topomap\S*: )//;
        next if $lit !~ /[A-Za-z]{3}/;   # "topomap: …": nothing to look up
        print "$s\n" unless $seen{$s}++;
    }
}
PERL
)" "$top_srcdir"/spank/*.c) || { echo "1..0 # SKIP perl failed"; exit 0; }
# Only the Messages section counts, with "\|" in tables read as "|".
section=$(sed -n '/^## Messages$/,/^## /p' "$guide" | sed 's/\\|/|/g')
nl='
'
IFS=$nl
for m in $msgs; do
    case $section in
    *"$m"*) ok "in reference.md: $m" ;;
    *) notok "not in reference.md's Messages (add it with its cause and remedy): $m" ;;
    esac
done
[ $n -ge 40 ] || notok "found only $n messages in spank/*.c: is the extraction broken?"
tap_done
