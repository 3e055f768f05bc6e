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
# milliseconds between that line and the call).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$(pwd)/..}"
topomap=$top_builddir/cli/topomap
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-signal.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/tap.sh"

awk 'BEGIN { n = 256; for (y = 0; y < n; y++) for (x = 0; x < n; x++) {
        r = y * n + x
        print r, y * n + (x + 1) % n, 100000; print r, y * n + (x + n - 1) % n, 100000
        print r, ((y + 1) % n) * n + x, 50000; print r, ((y + n - 1) % n) * n + x, 50000 } }' \
    > "$tmp/halo.txt"

for algo in metis drb; do
    # A hang (METIS's way out of the call stuck on malloc's lock) ends at the
    # timeout, as a failure.
    timeout -s KILL 120 "$topomap" map --profile "$tmp/halo.txt" --topology "$top_srcdir/topologies/torus-16x16x16.yaml" \
        --nodes all --cores-per-node 16 --algo $algo -v -o "$tmp/out" 2> "$tmp/err" &
    pid=$!
    i=0
    while ! grep -q "running $algo" "$tmp/err" 2> /dev/null && [ $i -lt 600 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    sleep 0.05
    kill -TERM $pid 2> /dev/null
    wait $pid
    rc=$?
    [ $rc -eq 143 ] && ! grep -q "failed (status" "$tmp/err"
    check $? "$algo: SIGTERM during the mapping ends topomap by the signal (exit $rc, want 143)"
    [ $rc -eq 143 ] || sed 's/^/# /' "$tmp/err"
done
tap_done
