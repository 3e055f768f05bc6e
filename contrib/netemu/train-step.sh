#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# train-step.sh: an emulated training step under Slurm's layout and auto's.
# `make benefit-train` runs it. Emulated GPUs are netemu.sh nodes (network
# namespaces, one MPI rank each) on a tree: a leaf switch of -a nodes is an
# NVLink domain (fast links, -R), the leaves are joined by slow uplinks (-u).
# The job holds a fragmented allocation (-w: by default 2 + 4 + 4 + 4 + 2
# nodes of five domains of 4). The step is `topomap profile synth`'s (bytes
# mode, -L and -B) replayed by train_step (train_step.c: NCCL-style rings
# in the TP and DP groups, sends between pipeline stages, all-to-all in EP
# groups, groups from libtopomap's Megatron layout). Placements: block
# (Slurm's layout: ranks in allocation order), block again (the A/A
# control: the same placement, run as often) and auto (topomap map on the
# synthesized profile); rounds alternate their order. benefit-report prints
# the tables (median, paired ratio to block per round, the A/A spread).
#
#   train-step.sh [options]
#     -L LAYOUT  layout as train_step takes it [tp=4,pp=2,dp=2]
#     -B BYTES   bytes per step as profile synth --bytes [tp=2e6,dp=1e6,pp=5e5]
#     -S STEPS   timed steps per run (after a warm-up step) [2]
#     -r N       rounds [3]
#     -n N       emulated nodes (GPUs) [20]     -a A   nodes per domain [4]
#     -w HOSTS   the allocation, a hostlist [n[3-18]]
#     -R RATE    links inside a domain [100mbit] -u RATE  uplinks between domains [20mbit]
#     -o DIR     results directory [train-results]
#     -b DIR     build directory [TOPOMAP_BUILD, else the source tree]
#     -p PFX     netemu name prefix [tmtr]      -s NET  netemu /24 [10.213.11]
#     -T SEC     time limit of one run [120]
#
# Needs root, Open MPI (mpirun.openmpi), iproute2; train_step is built by
# make benefit-train. Leaves nothing behind (the cluster is taken down on
# exit or interrupt).

set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
die() { echo "train-step: $*" >&2; exit 1; }
say() { echo "train-step: $*" >&2; }

LAYOUT=tp=4,pp=2,dp=2 BYTES=tp=2e6,dp=1e6,pp=5e5 STEPS=2 ROUNDS=3 NODES=20 ARITY=4
ALLOC='n[3-18]' RATE=100mbit UPRATE=20mbit OUT=train-results BUILD=${TOPOMAP_BUILD:-$src}
PFX=tmtr NET=10.213.11 TLIMIT=120
while getopts :L:B:S:r:n:a:w:R:u:o:b:p:s:T:h o; do
    case $o in
    L) LAYOUT=$OPTARG ;; B) BYTES=$OPTARG ;; S) STEPS=$OPTARG ;; r) ROUNDS=$OPTARG ;;
    n) NODES=$OPTARG ;; a) ARITY=$OPTARG ;; w) ALLOC=$OPTARG ;; R) RATE=$OPTARG ;;
    u) UPRATE=$OPTARG ;; o) OUT=$OPTARG ;; b) BUILD=$OPTARG ;; p) PFX=$OPTARG ;;
    s) NET=$OPTARG ;; T) TLIMIT=$OPTARG ;;
    h) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    :) echo "train-step: option -$OPTARG needs a value (try -h)" >&2; exit 2 ;;
    *) echo "train-step: unknown option -$OPTARG (try -h)" >&2; exit 2 ;;
    esac
done
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 6 ]; }
for v in "$STEPS" "$ROUNDS" "$TLIMIT"; do
    is_uint "$v" && [ "$v" -ge 1 ] || { echo "train-step: -S, -r, -T take positive integers, not '$v'" >&2; exit 2; }
done
[ "$ROUNDS" -le 64 ] || { echo "train-step: -r is at most 64" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, tc)"

TOPOMAP=$BUILD/cli/topomap
REPORT=$BUILD/contrib/benefit-report
STEP=$BUILD/contrib/netemu/train_step
NETEMU="$here/netemu.sh"
# shellcheck source=contrib/netemu/common.sh
. "$here/common.sh"
for f in "$TOPOMAP" "$REPORT" "$STEP"; do
    [ -x "$f" ] || die "$f not found: build first (make benefit-train builds it)"
done
command -v mpirun.openmpi > /dev/null || die "Open MPI's mpirun.openmpi not found (Debian: openmpi-bin)"

mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
RES=$OUT/results.txt
NE="-p $PFX -s $NET -n $NODES -r $RATE -u $UPRATE -t tree -a $ARITY -c 1 -d $OUT/cluster"
cleanup() { sh "$NETEMU" down $NE > /dev/null 2>&1; }
trap 'cleanup; exit 130' INT TERM HUP
trap 'cleanup' EXIT

# The profile, and the layout's size and flags for profile synth.
synth_args=$(echo "$LAYOUT" | tr ',' '\n' | sed 's/^\([a-z]*\)=/--\1 /' | tr '\n' ' ')
bytes_arg=--bytes\ $BYTES
# shellcheck disable=SC2086
"$TOPOMAP" profile synth "$OUT/profile.txt" $synth_args $bytes_arg > "$OUT/synth.txt" ||
    die "topomap profile synth $synth_args $bytes_arg failed"
RANKS=$(sed -n 's/^\([0-9]*\) ranks.*/\1/p' "$OUT/synth.txt")
sh "$NETEMU" up $NE >&2 || die "the emulated cluster did not come up"
TOPO=$OUT/cluster/topology.yaml
HOSTS=$OUT/cluster/hosts

for a in block auto; do
    "$TOPOMAP" map --profile "$OUT/profile.txt" --topology "$TOPO" --nodes "$ALLOC" \
        --tasks-per-node 1 --algo $a -o "$OUT/$a.slots" 2> "$OUT/$a.err" ||
        die "topomap map --algo $a failed: $(head -1 "$OUT/$a.err")"
    to_hostfile "$OUT/$a.slots" "$OUT/$a.hosts"
done
[ "$(wc -l < "$OUT/block.hosts")" -eq "$RANKS" ] ||
    die "the allocation $ALLOC does not hold the layout's $RANKS ranks one per node"
cp "$OUT/block.slots" "$OUT/block-again.slots"
cp "$OUT/block.hosts" "$OUT/block-again.hosts"

{
    echo "# train-step.sh: $LAYOUT, bytes $BYTES, $STEPS steps; $RANKS ranks on $ALLOC of $NODES nodes in domains of $ARITY, links $RATE, uplinks $UPRATE, $ROUNDS rounds"
    echo "# host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
    echo "app train step of $LAYOUT ($BYTES) on $ALLOC"
    for p in block block-again auto; do
        metric_line train "$p" "$OUT/profile.txt" "$OUT/$p.slots"
    done
    echo "aa train block-again block run again"
} > "$RES"
# TP groups over two domains: rank r of TP group r / tp sits in domain
# (node - 1) / ARITY.
TP=$(echo "$LAYOUT" | tr ',' '\n' | sed -n 's/^tp=//p')
for p in block auto; do
    echo "# $p: TP groups over several domains: $(sort -n "$OUT/$p.slots" | awk -v tp=${TP:-1} -v a=$ARITY \
        '{sub(/^n/, "", $2); d = int(($2 - 1) / a); g = int($1 / tp); if (g in dom && dom[g] != d) split_[g] = 1; dom[g] = d}
         END {n = 0; for (g in split_) n++; print n}')" >> "$RES"
done

run_one() { # PLACEMENT ROUND: one run's loop time (nan: failed) and launch wall time
    r_0=$(date +%s.%N)
    r_t=$(mpirun_netemu "$OUT/$1.hosts" "$OUT" "$STEP" "$LAYOUT" "$BYTES" "$STEPS" 2> "$OUT/run.err" |
        sed -n 's/^train: loop_time_s=\([0-9.]*\).*/\1/p')
    [ -n "$r_t" ] || { cp "$OUT/run.err" "$OUT/failed.$(date +%s).err"; sh "$NETEMU" kill $NE > /dev/null 2>&1; }
    r_t="${r_t:-nan} $(echo "$r_0 $(date +%s.%N)" | awk '{printf "%.2f", $2 - $1}')"
    echo "time train $1 $2 $r_t" >> "$RES"
    say "round $2/$ROUNDS $1: loop ${r_t% *} s (launch ${r_t#* } s)"
}
t_start=$(date +%s)
alternate "$ROUNDS" run_one block block-again auto
echo "# total $(($(date +%s) - t_start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >> "$RES"
"$REPORT" "$RES" | tee "$OUT/report.txt"
