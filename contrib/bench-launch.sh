#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-launch.sh: what the topomap SPANK plugin adds to a job launch. Times
# `srun -n N -O true` on the local Slurm cluster (contrib/slurm-local-cluster.sh,
# 4 nodes with 2 CPUs each, oversubscribed) inside one allocation:
#   none        no plugin in plugstack.conf
#   loaded      the plugin loaded, no --topomap (what every job pays)
#   ALGO        --topomap=ALGO with a stored profile: placement computed,
#               hostfile written, ranks bound (the full path)
# and prints the median wall time of each and its ratio to "none".
#
#   contrib/bench-launch.sh [-b BUILDDIR] [-r REPS] [-n "16 1024"] [-a "cyclic ohtma auto"]
#
#   -b BUILDDIR  where spank/.libs/topomap.so and cli/topomap were built
#                [TOPOMAP_BUILD, else the source tree]
#   -r REPS      launches per measurement, median reported [7]
#   -n LIST      rank counts [16 1024]
#   -a LIST      algorithms for the full path [cyclic ohtma auto] (the
#                README's table)
#
# The profile for N ranks pairs rank i with rank i + N/2 (and a ring), so
# every algorithm here moves ranks away from Slurm's block layout. Needs root
# (it starts its own cluster on ports 16817+200 and 17201-17204).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
BUILD=${TOPOMAP_BUILD:-$src}
REPS=7
RANKS="16 1024"
ALGOS="cyclic ohtma auto"
while getopts b:r:n:a:h c; do
    case $c in
    b) BUILD=$OPTARG ;;
    r) REPS=$OPTARG ;;
    n) RANKS=$OPTARG ;;
    a) ALGOS=$OPTARG ;;
    h) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "bench-launch: unknown option (try -h)" >&2; exit 2 ;;
    esac
done
die() { echo "bench-launch: $*" >&2; exit 1; }
PLUGIN=$BUILD/spank/.libs/topomap.so
TOPOMAP=$BUILD/cli/topomap
[ "$(id -u)" = 0 ] || die "must run as root (it starts a local Slurm cluster)"
[ -f "$PLUGIN" ] || die "$PLUGIN not found (build first, or give -b BUILDDIR)"
[ -x "$TOPOMAP" ] || die "$TOPOMAP not found"
case $REPS in ''|*[!0-9]*|0) die "-r must be a positive integer" ;; esac

DIR=$(mktemp -d /tmp/topomap-bench-launch.XXXXXX) || die "cannot create a temporary directory"
chmod 755 "$DIR"
CL="--dir $DIR/cluster --ctld-port 17017 --node-port 17201 --cpus 2"
ARGS="topology=$src/tests/data/slurm/mesh-2x2-2core.yaml profiles=$DIR/store"
trap '"$here/slurm-local-cluster.sh" stop $CL >/dev/null 2>&1; rm -rf "$DIR"' EXIT
trap 'exit 1' INT TERM
"$here/slurm-local-cluster.sh" start $CL > "$DIR/start.log" 2>&1 || { cat "$DIR/start.log" >&2; die "the cluster did not start"; }
export SLURM_CONF="$DIR/cluster/etc/slurm.conf"

for n in $RANKS; do
    awk -v n="$n" 'BEGIN {
        print "# nranks=" n
        for (i = 0; i < n; i++) {
            print i, (i + n / 2) % n, 1000
            print i, (i + 1) % n, 10
        }
    }' > "$DIR/pairs$n.txt"
    "$TOPOMAP" profile add "pairs$n" "$DIR/pairs$n.txt" --site --store "$DIR/store" > /dev/null ||
        die "cannot store the profile for $n ranks"
done

# time_launches N REPS OPTIONS...: median seconds of REPS launches.
time_launches() {
    n=$1 reps=$2
    shift 2
    salloc -Q -N4 --exclusive sh -c '
        n=$1 reps=$2; shift 2
        i=0
        while [ $i -lt "$reps" ]; do
            t0=$(date +%s.%N)
            srun -n "$n" -O "$@" true > /dev/null 2>> "'"$DIR"'/srun.err" || echo fail
            t1=$(date +%s.%N)
            echo "$t0 $t1" | awk "{printf \"%.4f\n\", \$2 - \$1}"
            # Let the step be cleaned up, so the next one is not held back.
            sleep 0.5
            i=$((i + 1))
        done' sh "$n" "$reps" "$@" > "$DIR/times" 2>> "$DIR/srun.err"
    grep -q fail "$DIR/times" && { echo "FAILED"; return; }
    sort -n "$DIR/times" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

printf '%-6s %-18s %10s %7s\n' ranks launch median_s ratio
for n in $RANKS; do
    "$here/slurm-local-cluster.sh" start $CL > /dev/null || die "cannot rewrite plugstack.conf"
    base=$(time_launches "$n" "$REPS")
    printf '%-6s %-18s %10s %7s\n' "$n" "none" "$base" "1.00"
    "$here/slurm-local-cluster.sh" start $CL --plugin "$PLUGIN" --plugin-args "$ARGS" > /dev/null ||
        die "cannot rewrite plugstack.conf"
    t=$(time_launches "$n" "$REPS")
    printf '%-6s %-18s %10s %7s\n' "$n" "loaded" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN {printf "%.2f", a / b}')"
    for algo in $ALGOS; do
        t=$(time_launches "$n" "$REPS" --topomap="$algo" --topomap-profile="pairs$n")
        printf '%-6s %-18s %10s %7s\n' "$n" "--topomap=$algo" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN {printf "%.2f", a / b}')"
    done
done
# Check that the full path really remapped (and did not fall back), and show
# the time the plugin itself took in srun for each case.
for n in $RANKS; do
    for algo in $ALGOS; do
        salloc -Q -N4 --exclusive srun -n "$n" -O --topomap="$algo" --topomap-profile="pairs$n" \
            --topomap-verbose true 2>&1 | grep 'topomap:' | sed 's/^/# /'
    done
done
if [ -s "$DIR/srun.err" ]; then
    echo "# srun said:"
    sort "$DIR/srun.err" | uniq -c | sort -rn | head -5 | sed 's/^/#   /'
fi
