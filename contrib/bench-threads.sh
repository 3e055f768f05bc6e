#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole `topomap map --algo auto` process against the thread count
# (doc/scaling.md, "OpenMP"): a shuffled 3D stencil of RANKS ranks (the grid
# path) and a random geometric graph of RANKS / 4 ranks (the multilevel path)
# on a 3D torus of RANKS / 32 nodes of 32 cores, OMP_NUM_THREADS = 1, 2, 4,
# 8, 16. Prints wall and CPU seconds and peak memory per run, and checks that
# every thread count writes the same mapping (cmp) as one thread.
#
# Usage: contrib/bench-threads.sh [-n RANKS] [-d DIR] [-t "1 2 4 8 16"] [-b BUILD]
#   -n RANKS  stencil ranks, a power of two >= 8192 (default 1048576: a
#             128x128x64 stencil on the 32x32x32 torus, 4x4x2 ranks per
#             node, and a 262,144-rank graph with 8 ranks per node)
#   -d DIR    where the profiles are read from, or generated into when missing
#             (default: a temporary folder, removed at the end)
#   -t LIST   thread counts (default "1 2 4 8 16")
#   -b BUILD  the build tree (default: this script's tree)
# Which path auto takes depends on the size: the random geometric graph goes
# the multilevel way above 65,536 ranks (-n 524288 and more), drb + refine
# below. Needs python3 (the generators contrib/stencil-profile.py and
# contrib/rgg-profile.py). At the default size: generating the profiles takes
# about a minute of one core, each run a few seconds; on 16 cores the whole
# script stays under 5 minutes. The profiles are converted to the binary
# format once (`topomap profile convert`), so that the runs time the mapping
# rather than the text parser.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$here/.." && pwd)
ranks=1048576
dir=
threads="1 2 4 8 16"
while getopts n:d:t:b:h opt; do
    case $opt in
    n) ranks=$OPTARG ;;
    d) dir=$OPTARG ;;
    t) threads=$OPTARG ;;
    b) build=$(cd "$OPTARG" && pwd) ;;
    h) awk 'NR > 2 && !/^#/ {exit} NR > 2 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
topomap=$build/cli/topomap
[ -x "$topomap" ] || { echo "bench-threads.sh: $topomap: not built (run make first)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-threads.sh: python3 not found" >&2; exit 1; }
# RANKS a power of two, at least 32 ranks per node on 256 nodes.
if ! [[ $ranks =~ ^[0-9]+$ ]] || ((ranks < 8192 || (ranks & (ranks - 1)) != 0)); then
    echo "bench-threads.sh: -n $ranks: a power of two >= 8192 expected" >&2
    exit 2
fi

# The torus: RANKS / 32 nodes as balanced powers of two (x >= y >= z); the
# stencil is the torus times 4x4x2, so its natural embedding puts a 4x4x2
# block on each node.
nodes=$((ranks / 32))
tx=1 ty=1 tz=1
for ((k = nodes; k > 1; k /= 2)); do
    if ((tz < ty)); then tz=$((tz * 2)); elif ((ty < tx)); then ty=$((ty * 2)); else tx=$((tx * 2)); fi
done
sx=$((tx * 4)) sy=$((ty * 4)) sz=$((tz * 2))
rgg=$((ranks / 4))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$dir" ] || dir=$tmp/profiles
mkdir -p "$dir"
topo=$tmp/torus.yaml
last=$(printf '%05d' $((nodes - 1)))
cat >"$topo" <<EOF
name: torus-${tx}x${ty}x${tz}
description: 3D torus ${tx}x${ty}x${tz}, 32 cores per node (bench-threads.sh)
network:
  kind: torus
  dims: [$tx, $ty, $tz]
  wrap: [true, true, true]
  hop_cost: 1
nodes: "t[00000-$last]"
node:
  cores: 32
EOF

# A profile in DIR: NAME.bin, generated (text, then converted) when missing.
profile() { # NAME GENERATOR ARGS...
    local name=$1
    shift
    if [ ! -s "$dir/$name.bin" ]; then
        echo "generating $dir/$name.bin ..." >&2
        python3 "$@" >"$tmp/$name.txt"
        "$topomap" profile convert "$tmp/$name.txt" "$dir/$name.bin" --to binary
        rm -f "$tmp/$name.txt"
    fi
    echo "$dir/$name.bin"
}
stencil=$(profile "stencil-${sx}x${sy}x${sz}" "$here/stencil-profile.py" $sx $sy $sz 1)
graph=$(profile "rgg-$rgg" "$here/rgg-profile.py" $rgg)

timer=
[ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 && timer=/usr/bin/time
# One run: wall, user, sys (s) and peak RSS (MB, "-" without /usr/bin/time).
run() { # PROFILE TASKS_PER_NODE THREADS OUT
    local log=$4.log
    if [ -n "$timer" ]; then
        if ! OMP_NUM_THREADS=$3 $timer -v "$topomap" map --profile "$1" --topology "$topo" \
            --nodes all --tasks-per-node "$2" --algo auto -o "$4" 2>"$log"; then
            echo "bench-threads.sh: topomap map failed, $3 threads: $(grep topomap: "$log" | tail -1)" >&2
            echo "failed - - -"
            return 0
        fi
        awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); w = 0;
                        for (i = 1; i <= n; i++) w = w * 60 + t[i]}
                    /User time/ {u = $2} /System time/ {s = $2}
                    /Maximum resident set size/ {m = $2 / 1024}
                    END {printf "%.2f %.2f %.2f %.0f\n", w, u, s, m}' "$log"
    else
        local TIMEFORMAT='%R %U %S'
        if ! { time OMP_NUM_THREADS=$3 "$topomap" map --profile "$1" --topology "$topo" \
              --nodes all --tasks-per-node "$2" --algo auto -o "$4" 2>"$log"; } 2>"$log.time"; then
            echo "bench-threads.sh: topomap map failed, $3 threads: $(tail -1 "$log")" >&2
            echo "failed - - -"
            return 0
        fi
        echo "$(tail -1 "$log.time") -"
    fi
}

printf '%-28s %7s %8s %8s %8s %9s %s\n' profile threads wall_s user_s sys_s peak_MB \
    "same mapping as 1 thread"
status=0
profs=("$stencil" "$graph") tpns=(32 8)
for k in 0 1; do
    set -- "${profs[k]}" "${tpns[k]}"
    name=$(basename "$1" .bin)
    first=
    for th in $threads; do
        out=$tmp/$name.t$th.map
        read -r wall user sys rss < <(run "$1" "$2" "$th" "$out")
        if [ "$wall" = failed ]; then
            same=failed status=1
        elif [ -z "$first" ]; then
            first=$out same="(reference)"
        elif cmp -s "$first" "$out"; then
            same=yes
        else
            same=NO status=1
        fi
        printf '%-28s %7s %8s %8s %8s %9s %s\n' "$name" "$th" "$wall" "$user" "$sys" "$rss" "$same"
    done
    [ -z "$first" ] || grep -h "hop-bytes" "$first.log" | sed 's/^/  /' | tail -1
done
exit $status
