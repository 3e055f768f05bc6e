#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The worked examples of the README and the guides (doc/*.md), run for real,
# so that their shown output cannot drift from what topomap prints.
#
#   contrib/readme-examples.sh [--check | --update] [README]
#
# A fenced block right after a line "<!-- example -->" holds commands ("$ "
# lines; a line ending in "\" continues on the next) and their output. Each
# block runs in a fresh temporary directory holding links to examples/ and
# topologies/ (so it needs nothing but a clone: no ../shared), with the built
# topomap first in PATH, as one shell session; a command's standard output and
# error follow it. --check (default) compares with the README and exits 1 on
# a difference, printing it; --update rewrites the blocks in place. Times
# (compare's last column, "in N s" of map's summary, "N ms" of the plugin's
# line in plan) are compared as TIME.
#
# Environment: top_srcdir, top_builddir (default: this script's tree).
mode=--check
case "$1" in --check | --update) mode=$1; shift ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
top_srcdir=${top_srcdir:-$here}
top_builddir=${top_builddir:-$here}
readme=${1:-$top_srcdir/README.md}
[ -x "$top_builddir/cli/topomap" ] || { echo "readme-examples: build topomap first" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-readme.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE \
    SLURM_NTASKS SLURM_NPROCS SLURM_CPUS_PER_TASK SLURM_JOB_ID TOPOMAP_TOPOLOGY_PATH \
    TOPOMAP_STORE SLURM_CONF

# Split the README: the text of block k goes to $tmp/block.k, everything else
# stays in order in $tmp/skeleton with a marker line "@@BLOCK k@@".
awk -v dir="$tmp" '
    state == 0 && /^<!-- example -->$/ { print; state = 1; next }
    state == 1 && /^```/ { print; k++; print "@@BLOCK " k "@@"; state = 2; next }
    state == 2 && /^```$/ { print; state = 0; next }
    state == 2 { print > (dir "/block." k); next }
    { print }
' "$readme" > "$tmp/skeleton"

# Run block k: every command, echoed as written, then what it printed.
run_block() {
    work=$tmp/work.$1
    mkdir "$work" && ln -s "$top_srcdir/examples" "$work/examples" &&
        ln -s "$top_srcdir/topologies" "$work/topologies" || return 1
    awk '
        cont { print "printf \"%s\\n\" " q($0); cmd = cmd "\n" $0; cont = /\\$/; if (!cont) { print "{ " cmd "\n} 2>&1"; cmd = "" } ; next }
        /^\$ / { s = substr($0, 3); print "printf \"%s\\n\" " q($0); cmd = s; cont = /\\$/; if (!cont) { print "{ " cmd "\n} 2>&1"; cmd = "" } }
        function q(s) { gsub(/\x27/, "\x27\\\x27\x27", s); return "\x27" s "\x27" }
    ' "$tmp/block.$1" > "$tmp/script.$1"
    # A command may fail on purpose: its message is part of the example.
    (cd "$work" && PATH="$top_builddir/cli:$PATH" sh "$tmp/script.$1") > "$tmp/out.$1"
    return 0
}
# Times, the one thing that changes from run to run.
untime() {
    sed -E -e 's/^([A-Za-z][A-Za-z0-9+-]* +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+) +[0-9]+\.[0-9]+$/\1 TIME/' \
        -e 's/ in [0-9]+\.[0-9]+ s;/ in TIME s;/' \
        -e 's/\), [0-9]+\.[0-9]+ ms(: |$)/), TIME ms\1/' "$1"
}

status=0
k=1
while [ -f "$tmp/block.$k" ]; do
    run_block $k || { echo "readme-examples: cannot run block $k" >&2; exit 2; }
    if [ "$mode" = --check ] && ! untime "$tmp/block.$k" > "$tmp/a" ||
        ! untime "$tmp/out.$k" > "$tmp/b"; then
        exit 2
    fi
    if [ "$mode" = --check ] && ! diff -u "$tmp/a" "$tmp/b" > "$tmp/diff.$k"; then
        echo "readme-examples: example $k of $readme differs from what topomap prints:"
        cat "$tmp/diff.$k"
        status=1
    fi
    k=$((k + 1))
done
if [ "$mode" = --update ]; then
    awk -v dir="$tmp" '
        /^@@BLOCK [0-9]+@@$/ { f = dir "/out." $2; sub(/@@$/, "", f); while ((getline l < f) > 0) print l; next }
        { print }
    ' "$tmp/skeleton" > "$tmp/new" && cat "$tmp/new" > "$readme"
    echo "readme-examples: $((k - 1)) example(s) of $readme rewritten"
else
    echo "readme-examples: $((k - 1)) example(s) of $readme checked"
fi
exit $status
