#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# slurm-demo.sh: topomap on a real (local) Slurm cluster in one command. Starts
# the 4-node cluster of contrib/slurm-local-cluster.sh with the plugin and
# topologies/local-4node.yaml (a 2x2 mesh of 4-core nodes), stores the profile
# of a 4x4 halo exchange (16 ranks, each talking to its grid neighbours), runs
# the same step with Slurm's layout and with --topomap=ALGO, prints where each
# rank landed and the hop-bytes before and after, draws both placements side
# by side into DIR/placement.png (topomap plot mapping; when topomap was
# built with cairo), and stops the cluster.
#
#   contrib/slurm-demo.sh [-b BUILDDIR] [-a ALGO] [-d DIR] [-p PORT] [-k]
#     -b BUILDDIR  where the plugin and cli/topomap were built [TOPOMAP_BUILD,
#                  else the source tree]
#     -a ALGO      mapping algorithm [auto]
#     -d DIR       the cluster's state, logs, profiles and the picture
#                  [TOPOMAP_DEMO_DIR, else /tmp/topomap-demo]
#     -p PORT      slurmctld's port; the 4 slurmd take PORT+1 to PORT+4
#                  [TOPOMAP_DEMO_PORT, else slurmctld 16837, slurmd 17041-17044].
#                  Two demos on one host need their own -d and -p
#     -k           keep the cluster running afterwards (stop it with
#                  contrib/slurm-local-cluster.sh stop --dir DIR)
# Needs root (slurmd), slurm-wlm and munge.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
BUILD=${TOPOMAP_BUILD:-$src}
ALGO=auto
KEEP=0
DIR=${TOPOMAP_DEMO_DIR:-/tmp/topomap-demo}
PORT=${TOPOMAP_DEMO_PORT:-}
while getopts b:a:d:p:kh c; do
    case $c in
    b) BUILD=$OPTARG ;;
    a) ALGO=$OPTARG ;;
    d) DIR=$OPTARG ;;
    p) PORT=$OPTARG ;;
    k) KEEP=1 ;;
    h) sed -n '3,/^# Needs/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "slurm-demo: unknown option (try -h)" >&2; exit 2 ;;
    esac
done
die() { echo "slurm-demo: $*" >&2; exit 1; }
PLUGIN=$BUILD/spank/.libs/topomap.so
TOPOMAP=$BUILD/cli/topomap
[ -f "$PLUGIN" ] || die "$PLUGIN not found: build first (./configure && make), or give -b BUILDDIR"
[ -x "$TOPOMAP" ] || die "$TOPOMAP not found"

case $DIR in /*) ;; *) DIR=$(pwd)/$DIR ;; esac
case $PORT in
'') CTLD_PORT=16837 NODE_PORT=17041 ;;
*[!0-9]*) die "-p: '$PORT' is not a port number" ;;
*) [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65530 ] || die "-p: $PORT is not a port from 1024 to 65530"
   CTLD_PORT=$PORT NODE_PORT=$((PORT + 1)) ;;
esac
CL="--dir $DIR --ctld-port $CTLD_PORT --node-port $NODE_PORT --cpus 4"
ARGS="topology=$src/topologies/local-4node.yaml profiles=$DIR/profiles"
# Binding needs the 4 cores per node the topology promises; a smaller host
# gets the placement without binding.
[ "$(nproc)" -ge 4 ] || ARGS="$ARGS bind=none"
"$here/slurm-local-cluster.sh" start $CL --plugin "$PLUGIN" --plugin-args "$ARGS" ||
    die "the local cluster did not start"
[ $KEEP -eq 1 ] || trap '"$here/slurm-local-cluster.sh" stop $CL > /dev/null' EXIT
export SLURM_CONF=$DIR/etc/slurm.conf

# 4x4 halo: rank r = x + 4y sends 1 MB to each grid neighbour.
awk 'BEGIN {
    print "# nranks=16"; print "# application=halo"
    for (y = 0; y < 4; y++) for (x = 0; x < 4; x++) {
        r = x + 4 * y
        if (x > 0) print r, r - 1, 1000000; if (x < 3) print r, r + 1, 1000000
        if (y > 0) print r, r - 4, 1000000; if (y < 3) print r, r + 4, 1000000
    } }' > "$DIR/halo.txt"
"$TOPOMAP" profile add halo "$DIR/halo.txt" --site --store "$DIR/profiles" || die "cannot store the profile"

# JOB: each task prints its rank, its node and the CPUs it may run on (a stand-in
# for the halo application whose profile was stored above).
show='echo "$SLURM_PROCID $SLURMD_NODENAME $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"'
grid() { # FILE: the 4x4 grid of ranks, each shown by its node
    sort -n "$1" | awk '{n[$1] = $2} END {for (y = 0; y < 4; y++) {
        printf "      "; for (x = 0; x < 4; x++) printf " %3s", n[x + 4 * y]; printf "\n" } }'
}
echo
echo "== srun -n16 JOB (Slurm's layout): the 4x4 rank grid of the halo, each rank shown by its node"
salloc -Q -N4 --exclusive srun -n16 sh -c "$show" > "$DIR/slurm.out" 2>&1
grid "$DIR/slurm.out"
echo
echo "== srun -n16 --topomap=$ALGO --topomap-profile=halo --topomap-verbose JOB"
salloc -Q -N4 --exclusive srun -n16 --topomap="$ALGO" --topomap-profile=halo --topomap-verbose \
    sh -c "$show" > "$DIR/topomap.out" 2> "$DIR/topomap.err"
grep 'topomap:' "$DIR/topomap.err"
grid "$DIR/topomap.out"
echo
echo "rank node cpus (with --topomap=$ALGO)"
sort -n "$DIR/topomap.out" | awk '{printf "%4s %4s %4s\n", $1, $2, $3}'
# The two placements as mapping files (rank, node, core), drawn side by side:
# Slurm's on the left, topomap's on the right. The core is the one CPU a
# rank is bound to; a rank allowed several CPUs (bind=none on a small host)
# gets the next core of its node in rank order, so no two share one.
to_map() { # OUT FILE: 'RANK NODE CORE' lines from the JOB's output
    sort -n "$1" | awk 'NF >= 3 { k = used[$2]++
        if ($3 ~ /^[0-9]+$/) print $1, $2, $3 % 4; else print $1, $2, k % 4 }' > "$2"
}
to_map "$DIR/slurm.out" "$DIR/slurm-layout.map"
to_map "$DIR/topomap.out" "$DIR/topomap-$ALGO.map"
echo
if "$TOPOMAP" plot mapping --profile "$DIR/halo.txt" --topology "$src/topologies/local-4node.yaml" \
    --compare-mapping "$DIR/slurm-layout.map" --mapping "$DIR/topomap-$ALGO.map" \
    --title "4x4 halo on the 2x2 mesh of the local cluster: Slurm's layout (left), --topomap=$ALGO (right)" \
    -o "$DIR/placement.png"; then
    echo "picture of both placements: $DIR/placement.png"
fi
[ "$(nproc)" -ge 4 ] || echo "(this host has $(nproc) cores, fewer than the 4 each demo node claims, so the demo runs with bind=none and every rank may use all of them; tests/slurm.sh checks core binding on 2-core nodes)"
