#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hostile inputs through the topomap command, emitting TAP: each
# case failed before its fix (a hang, a crash, a silent wrong answer, a raw
# control character on the terminal). The library side is hardening.c.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TOPOMAP=$top_builddir/cli/topomap
T=$top_srcdir/topologies/torus-8x8x8.yaml
tmp=$(mktemp -d /tmp/topomap-hardening-sh.XXXXXX) || { echo "1..0 # SKIP no temporary directory"; exit 0; }
trap 'rm -rf "$tmp"' EXIT
# A reader that blocks (a FIFO) must not hang the suite: every run is bounded.
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 60"
ESC=$(printf '\033')
CR=$(printf '\r')

. "$top_srcdir/tests/tap.sh"
# expect RC PATTERN ARGS...: exit status RC, PATTERN in the output, and no
# control character other than newline in it.
expect() {
    rc=$1 pat=$2
    shift 2
    $TIMEOUT "$TOPOMAP" "$@" > "$tmp/out" 2>&1
    got=$?
    clean=0
    if LC_ALL=C grep -q "[$ESC$CR]" "$tmp/out"; then clean=1; fi
    [ $got -eq "$rc" ] && grep -qF -- "$pat" "$tmp/out" && [ $clean -eq 0 ]
    st=$?
    check $st "topomap $(printf '%s ' "$@" | LC_ALL=C tr -d '\000-\037') -> exit $rc, '$pat'"
    [ $st -eq 0 ] || LC_ALL=C tr '\000-\011\013-\037' '?' < "$tmp/out" | sed 's/^/# /'
}

printf '# nranks=2\n0 1 100 2\n1 0 50 1\n' > "$tmp/pair.txt"
printf '0 t000 0\n1 t001 0\n' > "$tmp/pair.map"

# Numbers: strict, one helper (no blanks, no '+').
expect 1 "slots ' +4': expected a positive count at ' +4'" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --slots ' +4'
expect 1 "slots '+4': expected a positive count" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --slots '+4'
expect 2 "--tasks-per-node: ' 2' is not an integer" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --tasks-per-node ' 2'
expect 2 "--seed: '+5' is not an integer" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --seed '+5'
expect 2 "--time-limit: ' 1' is not a positive duration" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --time-limit ' 1'
expect 2 "--k: '4,+8' is not a comma-separated list" stats --profile "$tmp/pair.txt" --k '4,+8'
printf '0 t000 +1\n1 t001 0\n' > "$tmp/plus.map"
expect 1 "plus.map:1: malformed line: core '+1' is not an integer" \
    eval --profile "$tmp/pair.txt" --topology "$T" --mapping "$tmp/plus.map"
# --threads: libgomp's own message and abort before.
expect 2 "topomap: map: --threads: '4096' is not auto or an integer from 1 to 1024" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes 't[000-001]' --threads 4096

# Silent wrong results.
printf '0 1 0 0\n1 0 0 0\n' > "$tmp/zero.txt"
expect 0 "stored 'zero' (2 ranks)" profile add zero "$tmp/zero.txt" --store "$tmp/store"
expect 0 "0 t000 0" map --profile "$tmp/store/users/$(id -u)/zero.profile" --affinity msgs --topology "$T" \
    --nodes 't[000-001]'
printf '0 1 1e308\n1 0 1e308\n' > "$tmp/big.txt"
expect 1 "big.txt:1: total bytes pass 1e+30, the limit of a profile" \
    eval --json --profile "$tmp/big.txt" --topology "$T" --mapping "$tmp/pair.map"
printf 'SwitchName=s0 Nodes=a[0-1]\nSwitchName=s1 Nodes=b[0-1]\000\nSwitchName=top Switches=s[0-1]\n' \
    > "$tmp/nul.conf"
expect 1 "nul.conf:2: NUL byte in line" topology show "$tmp/nul.conf"
printf '0 t000 1\n1 t000 1\n' > "$tmp/shared.map"
expect 1 "shared.map:2: rank 1 shares core 1 of 't000' with rank 0 (line 1)" \
    eval --profile "$tmp/pair.txt" --topology "$T" --mapping "$tmp/shared.map"

# FIFOs (a hang before) and devices (2 GB read, then the wrong reason).
if mkfifo "$tmp/fifo" 2>/dev/null; then
    expect 1 "fifo: is a FIFO (named pipe), not a regular file" \
        map --profile "$tmp/fifo" --topology "$T" --nodes 't[000-001]'
    expect 1 "fifo: is a FIFO (named pipe), not a regular file" \
        topology show "$tmp/fifo"
    expect 1 "fifo: is a FIFO (named pipe), not a regular file" \
        eval --profile "$tmp/pair.txt" --topology "$T" --mapping "$tmp/fifo"
    expect 1 "fifo: is a FIFO (named pipe), not a regular file" \
        profile add f "$tmp/fifo" --store "$tmp/store"
    printf 'network: {kind: fat-tree, slurm_topology: fifo}\n' > "$tmp/st.yaml"
    expect 1 "st.yaml:1:43: slurm_topology: $tmp/fifo: is a FIFO" topology show "$tmp/st.yaml"
else
    skip "mkfifo failed"
fi
expect 1 "/dev/zero: is a character device, not a regular file" \
    map --profile /dev/zero --topology "$T" --nodes 't[000-001]'
expect 1 "/dev/zero: is a character device, not a regular file" \
    eval --profile "$tmp/pair.txt" --topology "$T" --mapping /dev/zero

# Control characters from arguments and files never reach the terminal.
expect 1 "control character 0x1b in a host name" \
    map --profile "$tmp/pair.txt" --topology "$T" --nodes "t000,t000x${ESC}P0;owned$CR"
expect 1 "No such file or directory" \
    map --profile "$tmp/no${ESC}[2Jsuch" --topology "$T" --nodes 't[000-001]'
expect 2 "unknown format '?[31m'" map --profile "$tmp/pair.txt" --topology "$T" \
    --nodes 't[000-001]' --format "$ESC[31m"
printf '0 1 5\n1 0 \033[2J\n' > "$tmp/esc.txt"
expect 1 "esc.txt:2: '?[2J' is not a number" stats --profile "$tmp/esc.txt"
printf 'name: "\\e]0;x\\a"\nnetwork: {kind: mesh, dims: [2]}\nnode: {levels: [{name: "\\e[1m", arity: 2}]}\n' > "$tmp/esc.yaml"
expect 0 "name: ?]0;x?" topology show "$tmp/esc.yaml"
printf '# application=x\033]0;owned\007y\n0 1 5\n' > "$tmp/escmeta.txt"
expect 0 "stored 'escmeta'" profile add escmeta "$tmp/escmeta.txt" --store "$tmp/store"
expect 0 "application  x?]0;owned?y" profile show escmeta --store "$tmp/store"
printf '0 t000 0\n1 x\033[1m\r 0\n' > "$tmp/esc.map"
expect 1 "esc.map:2: unknown host 'x?[1m'" \
    eval --profile "$tmp/pair.txt" --topology "$T" --mapping "$tmp/esc.map"

tap_done
