#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A SIGTERM during a placement ends the process, also while METIS runs: METIS
# traps SIGTERM during its calls and returns an error, or hangs when the
# signal came inside malloc (libtopomap/metis_call.h), which made `topomap
# map` exit 1 with "METIS_PartGraphRecursive failed (status -4)" (or hang),
# and the plugin keep Slurm's layout instead of letting srun end.
# A 256 x 256 halo exchange (65,536 ranks) is mapped with `--algo metis`
# (and `drb`, METIS's recursive bisection at each level) on a 16x16x16 torus;
# the signal is sent when the verbose line says the algorithm started, while
# METIS cuts the graph (about a second on this machine, against the few
# milliseconds between that line and the call). Then `auto` with two
# threads, the signal while its candidates run side by side.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$(pwd)/..}"
topomap=$top_builddir/cli/topomap
. "$top_srcdir/tests/tap.sh"
tap_tmpdir signal

awk 'BEGIN { n = 256; for (y = 0; y < n; y++) for (x = 0; x < n; x++) {
        r = y * n + x
        print r, y * n + (x + 1) % n, 100000; print r, y * n + (x + n - 1) % n, 100000
        print r, ((y + 1) % n) * n + x, 50000; print r, ((y + n - 1) % n) * n + x, 50000 } }' \
    > "$tmp/halo.txt"

# term_during LINE DELAY WHAT -- MAP ARGS: `topomap map ARGS -v`, SIGTERM DELAY
# seconds after its verbose output shows LINE; it must end by the signal
# (143), without METIS's error. A hang (METIS's way out of the call stuck on
# malloc's lock) ends at the timeout, as a failure.
term_during() {
    line=$1 delay=$2 what=$3
    shift 4
    timeout -s KILL 120 "$topomap" map --profile "$tmp/halo.txt" "$@" -v -o "$tmp/out" \
        2> "$tmp/err" &
    pid=$!
    i=0
    while ! grep -q "$line" "$tmp/err" 2> /dev/null && [ $i -lt 600 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    sleep "$delay"
    kill -TERM $pid 2> /dev/null
    wait $pid
    rc=$?
    [ $rc -eq 143 ] && ! grep -q "failed (status" "$tmp/err"
    check $? "$what ends topomap by the signal (exit $rc, want 143)"
    [ $rc -eq 143 ] || sed 's/^/# /' "$tmp/err"
}

for algo in metis drb; do
    term_during "running $algo" 0.05 "$algo: SIGTERM during the mapping" -- \
        --topology "$top_srcdir/topologies/torus-16x16x16.yaml" --nodes all --cores-per-node 16 \
        --algo $algo
done
# auto with threads: candidates side by side (auto_batch.c) block SIGTERM
# in each of their threads while METIS runs in one of them; the signal comes
# when the batch has started (the line before it: block's busiest link) and
# ends the process when the batch is over. 65,536 ranks of the halo on 512
# nodes of 2 x 64 cores.
cat > "$tmp/ft.yaml" << 'EOF2'
nodes: "n[000-511]"
network:
  kind: fat-tree
  levels:
    - {arity: 16, hops: 4}
    - {arity: 32, hops: 2}
node:
  levels:
    - {name: socket, arity: 2, cost: 0.5}
    - {name: core, arity: 64, cost: 0.125}
EOF2
term_during "busiest link of block" 0.2 \
    "auto --threads 2: SIGTERM while candidates run side by side" -- \
    --topology "$tmp/ft.yaml" --nodes all --algo auto --threads 2
tap_done
