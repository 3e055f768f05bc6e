#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Finalize time and memory of libtopomap-profiler against the world size, on
# the fixed-degree stencil (stencil.c: 6 neighbours per rank): for each rank
# count, runs stencil without the profiler, with it, and with it and
# TOPOMAP_PROFILE_COLLECTIVES=1, and prints the slowest rank's MPI_Finalize
# time, the largest peak RSS, the profile's size, the largest and median
# processor time spent in MPI_Finalize and the median peak RSS.
# Oversubscribes freely: meant for a small machine, run it under nice.
#
#   scale.sh [-f openmpi|mpich] [-d DIR] [-s STENCIL] [-- ENV=VALUE...] NRANKS...
#
# DIR holds libtopomap-profiler-FLAVOUR.so (default: this script's
# directory); STENCIL the stencil program built with that MPI's mpicc.
# ENV=VALUE pairs after -- are set for the profiled runs (e.g.
# TOPOMAP_PROFILE_FORMAT=binary).
set -u
fl=mpich
dir=$(cd "$(dirname "$0")" && pwd)
prog=
while [ $# -gt 0 ]; do
    case $1 in
    -f) fl=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    -s) prog=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
envs=
while [ $# -gt 0 ]; do
    case $1 in *=*) envs="$envs $1"; shift ;; *) break ;; esac
done
[ -n "$prog" ] || { echo "scale.sh: -s STENCIL (stencil.c built with mpicc.$fl)" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/topomap-scale.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# one NP PRELOAD COLL: prints "ranks fin_max rss_max_kib bytes cpu_max cpu_median
# rss_median_kib"
one() {
    rm -f "$out/p.txt" "$out/p.txt.coll"
    set -- "$1" "$2" "$3"
    case $fl in
    openmpi)
        env $envs TOPOMAP_PROFILE_OUT="$out/p.txt" TOPOMAP_PROFILE_COLLECTIVES="$3" \
            mpirun.openmpi --oversubscribe -np "$1" ${2:+-x LD_PRELOAD="$2"} \
            -x TOPOMAP_PROFILE_OUT -x TOPOMAP_PROFILE_COLLECTIVES $(for e in $envs; do
                echo "-x ${e%%=*}"; done) "$prog" 10 16 ;;
    mpich)
        env $envs TOPOMAP_PROFILE_OUT="$out/p.txt" TOPOMAP_PROFILE_COLLECTIVES="$3" \
            mpiexec.mpich -n "$1" ${2:+-env LD_PRELOAD "$2"} "$prog" 10 16 ;;
    esac >"$out/log" 2>&1 || { echo "scale.sh: run failed:" >&2; tail -n 5 "$out/log" >&2; }
    sz=0
    [ -f "$out/p.txt" ] && sz=$(wc -c <"$out/p.txt")
    vals=$(sed -n 's/^fin=\([0-9.]*\) rss=\([0-9]*\) cpu=\([0-9.]*\)$/\1 \2 \3/p' "$out/log")
    k=$(printf '%s\n' "$vals" | grep -c .)
    # col I: column I sorted; max, median
    col() { printf '%s\n' "$vals" | awk -v i="$1" 'NF { print $i }' | sort -g; }
    max() { col "$1" | tail -n 1; }
    med() { col "$1" | sed -n "$((k / 2 + 1))p"; }
    echo "$k $(max 1) $(max 2) $sz $(max 3) $(med 3) $(med 2)"
}

so=$dir/libtopomap-profiler-$fl.so
echo "# $fl; columns: ranks, run, ranks reporting, slowest MPI_Finalize (s), max peak RSS (KiB), profile bytes, MPI_Finalize's processor time (s): largest, median; median peak RSS (KiB)"
for np in "$@"; do
    echo "$np none $(one "$np" "" 0)"
    echo "$np p2p $(one "$np" "$so" 0)"
    echo "$np coll $(one "$np" "$so" 1)"
done
