#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `topomap profile add|list|show|rm`, run as a user would, emitting TAP.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TOPOMAP=$top_builddir/cli/topomap
PAIR8=$top_srcdir/tests/data/slurm/pair8.txt
tmp=$(mktemp -d /tmp/topomap-store-cli.XXXXXX) || { echo "1..0 # SKIP no temporary directory"; exit 0; }
trap 'rm -rf "$tmp"' EXIT
S=$tmp/store

n=0
failed=0
check() { # STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
# expect RC PATTERN ARGS...: exit status RC and PATTERN on stdout+stderr.
expect() {
    rc=$1 pat=$2
    shift 2
    "$TOPOMAP" "$@" > "$tmp/out" 2>&1
    got=$?
    [ $got -eq "$rc" ] && grep -qF -- "$pat" "$tmp/out"
    check $? "topomap $* -> exit $rc, '$pat'"
    [ $got -eq "$rc" ] && grep -qF -- "$pat" "$tmp/out" || sed 's/^/# /' "$tmp/out"
}

expect 0 "stored 'pair8' (8 ranks) in $S" profile add pair8 "$PAIR8" --store "$S"
[ -f "$S/pair8.profile" ] && head -1 "$S/pair8.profile" | grep -qx '# nranks=8'
check $? "the store holds pair8.profile, first line '# nranks=8'"
printf '0 1 5\n1 2 5\n2 0 5\n' > "$tmp/tri.txt"
expect 0 "stored 'tri' (3 ranks)" profile add tri "$tmp/tri.txt" --store "$S"
expect 0 "pair8" profile list --store "$S"
"$TOPOMAP" profile list --store "$S" | awk 'NR > 1 {print $1, $2}' > "$tmp/list"
printf 'pair8 8\ntri 3\n' | cmp -s - "$tmp/list"
check $? "list: names sorted with their rank counts"
expect 0 "total bytes  8020" profile show pair8 --store "$S"
expect 0 "file         $S/tri.profile" profile show tri --store "$S"
# Replacing keeps one file.
printf '0 1 7\n1 0 7\n' > "$tmp/two.txt"
expect 0 "stored 'tri' (2 ranks)" profile add tri "$tmp/two.txt" --store "$S"
expect 0 "ranks        2" profile show tri --store "$S"
[ "$(ls -A "$S" | wc -l)" -eq 2 ]
check $? "replacing leaves two files and no temporary ones"
# TOPOMAP_STORE is the default store.
TOPOMAP_STORE=$S "$TOPOMAP" profile list | grep -q '^tri '
check $? "TOPOMAP_STORE names the store"
expect 0 "removed 'tri' from $S" profile rm tri --store "$S"
[ ! -e "$S/tri.profile" ]
check $? "rm removes the file"

# Bad input: exit 1, one line naming the problem.
expect 1 "no profile 'tri' in the store $S" profile show tri --store "$S"
expect 1 "no profile 'tri' in the store $S" profile rm tri --store "$S"
printf '0 1 5\n1 x 5\n' > "$tmp/bad.txt"
expect 1 "$tmp/bad.txt:2" profile add bad "$tmp/bad.txt" --store "$S"
[ ! -e "$S/bad.profile" ]
check $? "a malformed file is not stored"
expect 1 "$tmp/none.txt" profile add x "$tmp/none.txt" --store "$S"
expect 1 "cannot read the profile store" profile list --store "$tmp/nothere"
: > "$tmp/file"
expect 1 "cannot create the profile store" profile add y "$PAIR8" --store "$tmp/file"

# Open MPI's monitoring output (issue 13: 'profile add' never called the
# importer): the per-rank files, by prefix or listed, E lines by default.
OMPI=$top_srcdir/tests/data/ompi
expect 0 "stored 'mon' (3 ranks)" profile add mon "$OMPI/mon" --store "$S"
printf '# nranks=3\n0 1 1200 3\n1 0 1000 2\n1 2 8 1\n2 0 16 2\n' | cmp -s - "$S/mon.profile"
check $? "prefix mon: the application's point-to-point bytes and messages (E lines) per pair"
expect 0 "stored 'mon2' (3 ranks)" profile add mon2 "$OMPI/mon.2.prof" "$OMPI/mon.0.prof" \
    "$OMPI/mon.1.prof" --store "$S"
cmp -s "$S/mon.profile" "$S/mon2.profile"
check $? "the three .prof files listed in any order = the prefix"
expect 0 "stored 'monall' (3 ranks)" profile add monall "$OMPI/mon" --ompi-kinds external,internal,coll \
    --store "$S"
grep -qx '0 1 1240 4' "$S/monall.profile" && grep -qx '0 2 40 1' "$S/monall.profile"
check $? "--ompi-kinds external,internal,coll adds the collectives' traffic"
expect 1 "no file for rank 1 of 3" profile add part "$OMPI/mon.0.prof" --store "$S"
expect 2 "--ompi-kinds: 'osc,bogus' is not a comma-separated list" profile add x "$OMPI/mon" \
    --ompi-kinds osc,bogus
expect 2 "--ompi-kinds only applies to add" profile list --ompi-kinds osc
expect 2 "--profile-format reads one FILE, not 2" profile add x "$PAIR8" "$PAIR8" --profile-format edges
# Standard input and gzip.
expect 0 "stored 'fromstdin' (8 ranks)" profile add fromstdin - --store "$S" < "$PAIR8"
gzip -c "$PAIR8" > "$tmp/pair8.txt.gz"
expect 0 "stored 'gz' (8 ranks)" profile add gz "$tmp/pair8.txt.gz" --store "$S"
cmp -s "$S/gz.profile" "$S/fromstdin.profile" && cmp -s "$S/gz.profile" "$S/pair8.profile"
check $? "the same profile from a file, standard input and gzip"

# Bad usage: exit 2.
expect 2 "missing subcommand" profile
expect 2 "unknown subcommand 'ls'" profile ls
expect 2 "add: missing profile file" profile add y
expect 2 "show: missing profile name" profile show
expect 2 "invalid profile name '../y'" profile add ../y "$PAIR8"
expect 2 "unexpected argument 'z'" profile rm y z
expect 2 "--profile-format only applies to add" profile list --profile-format edges
expect 2 "unknown option '--bogus'" profile list --bogus
expect 0 "Usage: topomap profile add NAME FILE" profile --help

echo "1..$n"
[ $failed -eq 0 ]
