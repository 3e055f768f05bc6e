#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `topomap profile add|list|show|rm`, run as a user would, emitting TAP: the
# user's own profiles and the site's (--site), then, as root, with two
# unprivileged users made for the test (tests/users.sh): each one's profiles
# are his alone, the site's the store owner's alone, and a directory planted
# under another user's uid is refused, not used.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TOPOMAP=$top_builddir/cli/topomap
PAIR8=$top_srcdir/tests/data/slurm/pair8.txt
. "$top_srcdir/tests/users.sh"
tmp=$(mktemp -d /tmp/topomap-store-cli.XXXXXX) || { echo "1..0 # SKIP no temporary directory"; exit 0; }
chmod 755 "$tmp"
trap 'rm -rf "$tmp"; users_cleanup' EXIT
trap 'exit 1' INT TERM
S=$tmp/store
ME=$(id -u)
MINE=$S/users/$ME

. "$top_srcdir/tests/tap.sh"
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

# The store's owner creates it with a site profile (and DIR/users, sticky).
expect 0 "stored 'pair8' (8 ranks) in $S" profile add pair8 "$PAIR8" --site --store "$S"
[ -f "$S/pair8.profile" ] && head -1 "$S/pair8.profile" | grep -qx '# nranks=8'
check $? "the store holds pair8.profile, first line '# nranks=8'"
[ "$(stat -c %a "$S/users")" = 1777 ]
check $? "DIR/users made with mode 1777 ($(stat -c %a "$S/users" 2> /dev/null))"
# Without --site: one's own profile, in DIR/users/UID.
printf '0 1 5\n1 2 5\n2 0 5\n' > "$tmp/tri.txt"
expect 0 "stored 'tri' (3 ranks) in $MINE" profile add tri "$tmp/tri.txt" --store "$S"
[ "$(stat -c %a "$MINE")" = 700 ] && [ "$(stat -c %u "$MINE")" = "$ME" ]
check $? "DIR/users/$ME: mode 700, owned by the user"
expect 0 "pair8" profile list --store "$S"
"$TOPOMAP" profile list --store "$S" | awk 'NR > 1 {print $1, $2, $NF}' > "$tmp/list"
printf 'pair8 8 site\ntri 3 user\n' | cmp -s - "$tmp/list"
check $? "list: names sorted with their rank counts and scopes"
expect 0 "total bytes  8020" profile show pair8 --store "$S"
expect 0 "scope        site" profile show pair8 --store "$S"
expect 0 "file         $MINE/tri.profile" profile show tri --store "$S"
expect 0 "scope        user" profile show tri --store "$S"
# One's own profile comes first in the lookup order.
printf '0 1 7\n1 0 7\n' > "$tmp/two.txt"
expect 0 "stored 'pair8' (2 ranks) in $MINE" profile add pair8 "$tmp/two.txt" --store "$S"
expect 0 "ranks        2" profile show pair8 --store "$S"
"$TOPOMAP" profile list --store "$S" | awk 'NR > 1 {print $1, $NF}' > "$tmp/list"
printf 'pair8 user\npair8 site\ntri user\n' | cmp -s - "$tmp/list"
check $? "list: the user's pair8 before the site's (the lookup order)"
# Replacing keeps one file.
expect 0 "stored 'tri' (2 ranks)" profile add tri "$tmp/two.txt" --store "$S"
expect 0 "ranks        2" profile show tri --store "$S"
[ "$(ls -A "$MINE" | wc -l)" -eq 2 ]
check $? "replacing leaves two files and no temporary ones"
# TOPOMAP_STORE is the default store.
TOPOMAP_STORE=$S "$TOPOMAP" profile list | grep -q '^tri '
check $? "TOPOMAP_STORE names the store"
expect 0 "removed 'tri' from $MINE" profile rm tri --store "$S"
[ ! -e "$MINE/tri.profile" ]
check $? "rm removes the file"
expect 0 "removed 'pair8' from $MINE" profile rm pair8 --store "$S"
expect 0 "ranks        8" profile show pair8 --store "$S"
expect 0 "removed 'pair8' from $S" profile rm pair8 --site --store "$S"

# Files nobody should trust are not used: a link, another owner's file.
ln -s "$PAIR8" "$MINE/link.profile"
expect 1 "$MINE/link.profile is a symbolic link: not used" profile show link --store "$S"
mkdir -m 755 "$tmp/open" && mkdir -m 1777 "$tmp/open/users"
cp "$PAIR8" "$tmp/open/x.profile"
chmod 777 "$tmp/open"
expect 1 "is writable by others than its owner (mode 0777): its profiles are not used" profile show x --store "$tmp/open"

# Bad input: exit 1, one line naming the problem.
expect 1 "no profile 'tri' in the store $S" profile show tri --store "$S"
expect 1 "no profile 'tri' in the store $MINE" profile rm tri --store "$S"
printf '0 1 5\n1 x 5\n' > "$tmp/bad.txt"
expect 1 "$tmp/bad.txt:2" profile add bad "$tmp/bad.txt" --store "$S"
[ ! -e "$MINE/bad.profile" ]
check $? "a malformed file is not stored"
expect 1 "$tmp/none.txt" profile add x "$tmp/none.txt" --store "$S"
# A store not made yet holds no profiles: an empty list, and where to point.
expect 0 "the profile store $tmp/nothere does not exist yet, so it holds no profiles (from --store; give --store DIR or set TOPOMAP_STORE for another)" \
    profile list --store "$tmp/nothere"
: > "$tmp/file"
expect 1 "cannot create the profile store" profile add y "$PAIR8" --site --store "$tmp/file"
export TOPOMAP_STORE="$tmp/file"
expect 1 "(from TOPOMAP_STORE; give --store DIR or set TOPOMAP_STORE for another)" \
    profile add y "$PAIR8" --site
unset TOPOMAP_STORE
printf 'a\033]0;x\007b' > "$tmp/esc"
expect 0 "the profile store $tmp/a?]0;x?b does not exist yet" profile list --store "$tmp/a$(printf '\033')]0;x$(printf '\007')b"

# Open MPI's monitoring output ('profile add' once never called
# the importer): the per-rank files, by prefix or listed, E lines by default.
OMPI=$top_srcdir/tests/data/ompi
expect 0 "stored 'mon' (3 ranks)" profile add mon "$OMPI/mon" --store "$S"
printf '# nranks=3\n0 1 1200 3\n1 0 1000 2\n1 2 8 1\n2 0 16 2\n' | cmp -s - "$MINE/mon.profile"
check $? "prefix mon: the application's point-to-point bytes and messages (E lines) per pair"
expect 0 "stored 'mon2' (3 ranks)" profile add mon2 "$OMPI/mon.2.prof" "$OMPI/mon.0.prof" \
    "$OMPI/mon.1.prof" --store "$S"
cmp -s "$MINE/mon.profile" "$MINE/mon2.profile"
check $? "the three .prof files listed in any order = the prefix"
expect 0 "stored 'monall' (3 ranks)" profile add monall "$OMPI/mon" --ompi-kinds external,internal,coll \
    --store "$S"
grep -qx '0 1 1240 4' "$MINE/monall.profile" && grep -qx '0 2 40 1' "$MINE/monall.profile"
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
expect 0 "stored 'plain' (8 ranks)" profile add plain "$PAIR8" --store "$S"
cmp -s "$MINE/gz.profile" "$MINE/fromstdin.profile" && cmp -s "$MINE/gz.profile" "$MINE/plain.profile"
check $? "the same profile from a file, standard input and gzip"

# Bad usage: exit 2.
expect 2 "missing subcommand" profile
expect 2 "unknown subcommand 'ls'" profile ls
expect 2 "add: missing profile file" profile add y
expect 2 "show: missing profile name" profile show
expect 2 "invalid profile name '../y'" profile add ../y "$PAIR8"
expect 2 "unexpected argument 'z'" profile rm y z
expect 2 "--profile-format only applies to add" profile list --profile-format edges
expect 2 "--site only applies to add and rm" profile show pair8 --site
expect 2 "unknown option '--bogus'" profile list --bogus
expect 0 "Usage: topomap profile add NAME FILE" profile --help

# --- Two unprivileged users ---------------------------------------------------
NUSERS=13
if ! users_setup topomap-sc "$TOPOMAP" "$PAIR8"; then
    i=0; while [ $i -lt $NUSERS ]; do skip "two users: $users_why"; i=$((i + 1)); done
else
    T=$tmp/shared
    # The store's owner (root here) makes the store and a site profile.
    "$TOPOMAP" profile add app "$PAIR8" --site --store "$T" > /dev/null
    printf '0 1 31337\n1 0 31337\n' > "$tmp/evil.txt"
    printf '0 1 11\n1 0 11\n' > "$tmp/one.txt"
    printf '0 1 22\n1 0 22\n' > "$tmp/two2.txt"
    chmod 644 "$tmp"/*.txt
    u() { who=$1; shift; as_user "$who" "$TOPOMAP" "$@" --store "$T"; }
    u "$U1" profile add app "$tmp/one.txt" > /dev/null 2>&1
    check $? "$U1 stores his own 'app' (no --site)"
    [ "$(stat -c %u "$T/users/$UID1")" = "$UID1" ] && [ "$(stat -c %u "$T/users/$UID1/app.profile")" = "$UID1" ]
    check $? "... in $T/users/$UID1, his"
    u "$U2" profile add app "$tmp/two2.txt" > /dev/null 2>&1
    check $? "$U2 stores his own 'app'"
    u "$U1" profile show app > "$tmp/s1" 2>&1 && grep -q 'total bytes  22$' "$tmp/s1" && grep -q 'scope        user' "$tmp/s1"
    check $? "$U1 sees his own 'app' (22 bytes), not $U2's"
    u "$U2" profile show app > "$tmp/s2" 2>&1 && grep -q 'total bytes  44$' "$tmp/s2"
    check $? "$U2 sees his own 'app' (44 bytes)"
    u "$U2" profile add app "$tmp/evil.txt" --site > "$tmp/e" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "only the store's owner (uid 0) writes its site profiles" "$tmp/e" && ! grep -q 31337 "$T/app.profile"
    check $? "$U2 cannot write the site's 'app' (exit $rc: $(head -1 "$tmp/e"))"
    u "$U2" profile rm app --site > /dev/null 2>&1
    [ $? -eq 1 ] && [ -f "$T/app.profile" ]
    check $? "$U2 cannot remove the site's 'app'"
    # $U2 tries to write into $U1's directory: not his.
    as_user "$U2" sh -c "cat '$tmp/evil.txt' > '$T/users/$UID1/app.profile'" 2> /dev/null
    u "$U1" profile show app 2>&1 | grep -q 'total bytes  22$'
    check $? "$U2 cannot write into $U1's directory"
    # $U2 plants a directory under a uid that has none yet ($U1's after rm -r
    # by the admin): $U1's lookups refuse it, and fall back to nothing of it.
    rm -rf "$T/users/$UID1"
    as_user "$U2" sh -c "mkdir -m 755 '$T/users/$UID1' && cp '$tmp/evil.txt' '$T/users/$UID1/app.profile'"
    check $? "$U2 plants $T/users/$UID1 before $U1 has one"
    u "$U1" profile show app > "$tmp/p" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "$T/users/$UID1 belongs to uid $UID2, not to user $UID1: not used" "$tmp/p" && ! grep -q 62674 "$tmp/p"
    check $? "$U1's lookup refuses it (exit $rc: $(head -1 "$tmp/p"))"
    u "$U1" profile add app "$tmp/one.txt" > "$tmp/p" 2>&1
    [ $? -eq 1 ] && grep -q "belongs to uid $UID2" "$tmp/p"
    check $? "... and so does his add: the admin must remove it"
    u "$U2" profile list > "$tmp/l2" 2>&1 && ! grep -q "$UID1" "$tmp/l2" && awk 'NR > 1 {print $1, $NF}' "$tmp/l2" | grep -qx 'app user'
    check $? "$U2's list: his 'app' and the site's, nothing of $U1's"
    rm -rf "$T/users/$UID1"
    u "$U1" profile rm app > "$tmp/p" 2>&1
    [ $? -eq 1 ] && grep -q "no profile 'app' of user $UID1" "$tmp/p"
    check $? "$U1 has no 'app' of his own any more: rm says so"
fi

tap_done
