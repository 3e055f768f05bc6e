#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Overhead of libtopomap-profiler on a message-rate microbenchmark: runs
# msgrate without and with the profiler (LD_PRELOAD), alternating, and prints
# the medians, the best rates and the slowdowns, for each MPI the profiler
# was built for. On a loaded machine the best-of-N ratio is the steadier one.
#
#   overhead.sh [-r REPS] [-n RANKS] [-m rate|cpurate] [-d DIR] [FLAVOUR...]
#               [-- MSGRATE-OPTIONS]
#
# Default: 1 rank sending to itself (msgrate -p self), compared on cpurate,
# messages per CPU second of the sending thread, which other processes on a
# shared machine barely disturb. -n 2 -m rate -- -i 40000 compares the usual
# two-rank wall-clock message rate instead (noisy when the cores are shared).
#
# DIR holds libtopomap-profiler-FLAVOUR.so and msgrate-FLAVOUR (default: the
# directory of this script, as in a build tree's profiler); FLAVOUR is
# openmpi and/or mpich (default: those built). `make profiler-overhead` in
# contrib/ runs it. Slowdown = rate without / rate with - 1.
set -u
reps=9
ranks=1
metric=cpurate
dir=$(cd "$(dirname "$0")" && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    -r) reps=$2; shift 2 ;;
    -n) ranks=$2; shift 2 ;;
    -m) metric=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "overhead.sh: unknown option $1" >&2; exit 2 ;;
    *) flavours="${flavours:-} $1"; shift ;;
    esac
done
opts="$*"
[ -n "$opts" ] || opts="-p self -i 40000"
case $metric in rate | cpurate) ;; *) echo "overhead.sh: -m rate or cpurate" >&2; exit 2 ;; esac
if [ -z "${flavours:-}" ]; then
    for f in openmpi mpich; do
        [ -x "$dir/msgrate-$f" ] && [ -f "$dir/libtopomap-profiler-$f.so" ] && flavours="${flavours:-} $f"
    done
fi
[ -n "${flavours:-}" ] || { echo "overhead.sh: no msgrate-FLAVOUR in $dir: build first" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/topomap-overhead.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

# run FLAVOUR PRELOAD: prints the rate
run() {
    case $1 in
    openmpi)
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun.openmpi --oversubscribe -np "$ranks" ${2:+-x LD_PRELOAD="$2"} \
            -x TOPOMAP_PROFILE_OUT="$out/p.txt" "$dir/msgrate-openmpi" $opts ;;
    mpich)
        mpiexec.mpich -n "$ranks" ${2:+-env LD_PRELOAD "$2"} \
            -env TOPOMAP_PROFILE_OUT "$out/p.txt" "$dir/msgrate-mpich" $opts ;;
    esac | tr ' ' '\n' | sed -n "s/^$metric=\\([0-9]*\\)\$/\\1/p"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
best() { sort -g | tail -n 1; }

status=0
for f in $flavours; do
    : >"$out/without"
    : >"$out/with"
    i=0
    while [ $i -lt "$reps" ]; do
        run "$f" "" >>"$out/without"
        run "$f" "$dir/libtopomap-profiler-$f.so" >>"$out/with"
        i=$((i + 1))
    done
    if [ "$(wc -l <"$out/without")" -ne "$reps" ] || [ "$(wc -l <"$out/with")" -ne "$reps" ]; then
        echo "$f: msgrate failed" >&2
        status=1
        continue
    fi
    a=$(median <"$out/without")
    b=$(median <"$out/with")
    c=$(best <"$out/without")
    d=$(best <"$out/with")
    awk -v f="$f" -v m="$metric" -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v r="$reps" -v n="$ranks" -v o="$opts" 'BEGIN {
        printf "%s: %s without / with the profiler: median %.3g / %.3g (ratio %.3f, slowdown %.1f%%), best %.3g / %.3g (ratio %.3f, slowdown %.1f%%); %d runs each, %d ranks, msgrate %s\n",
            f, m, a, b, a / b, (a / b - 1) * 100, c, d, c / d, (c / d - 1) * 100, r, n, o }'
done
exit $status
