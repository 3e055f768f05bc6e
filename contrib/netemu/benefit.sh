#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# benefit.sh: does topomap make jobs faster? Times real MPI applications
# under each placement on an emulated cluster (netemu.sh: network
# namespaces on a bridge, links rate-limited by tc). `make benefit` runs it.
#
# For each application: record its communication profile with topomap's
# profiler (contrib/profiler/) on the emulated cluster, compute the
# placements (block = Slurm's layout, its A/A control = block on renamed
# nodes, and every algorithm of -A), evaluate them (topomap eval: hop-bytes,
# SumCom, inter-node bytes, busiest link), run every distinct one -r times
# in alternating order (round k starts k-1 places further down the list)
# and time the application's own loop. benefit-report prints the tables:
# median/min/max, paired ratio to block per round, correlations of the
# metrics with time, a verdict per application.
#
#   benefit.sh [options]
#     -a APPS    comma list of halo, lammps, gromacs [halo,lammps,gromacs]
#     -A ALGOS   algorithms besides block [cyclic,random,greedy,rcm,metis,drb,ohtma,spectral,auto]
#     -r N       rounds [5]
#     -n N       nodes [4]               -k K    ranks per node [4]
#     -R RATE    link rate [25mbit]      -t KIND star or tree [star]
#     -u RATE    uplink rate of a tree [= -R]
#     -o DIR     results directory [benefit-results]
#     -b DIR     build directory (cli/topomap, contrib/...) [TOPOMAP_BUILD, else the source tree]
#     -p PFX     netemu name prefix [tmbf]      -s NET  netemu /24 [10.213.9]
#     -T SEC     time limit of one run [120]
#
# Applications (a missing one is skipped with a line): halo (contrib/netemu/
# halo.c, built by make benefit), lammps (Debian lammps: lmp, input
# in.lj-walls), gromacs (Debian gromacs: gmx, gmx_mpi, water.mdp). The sizes
# are set for 16 ranks on 4 nodes at 25 Mbit/s (a few seconds per run).
# Needs root, Open MPI (mpirun), iproute2; install with
# contrib/install-deps.sh --benefit. Leaves nothing behind: the emulated
# cluster is taken down on exit or interrupt.

set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
die() { echo "benefit: $*" >&2; exit 1; }
say() { echo "benefit: $*" >&2; }

APPS=halo,lammps,gromacs
ALGOS=cyclic,random,greedy,rcm,metis,drb,ohtma,spectral,auto
ROUNDS=5 NODES=4 PPN=4 RATE=25mbit KIND=star UPRATE= OUT=benefit-results
BUILD=${TOPOMAP_BUILD:-$src} PFX=tmbf NET=10.213.9 TLIMIT=120
while getopts :a:A:r:n:k:R:t:u:o:b:p:s:T:h o; do
    case $o in
    a) APPS=$OPTARG ;; A) ALGOS=$OPTARG ;; r) ROUNDS=$OPTARG ;; n) NODES=$OPTARG ;;
    k) PPN=$OPTARG ;; R) RATE=$OPTARG ;; t) KIND=$OPTARG ;; u) UPRATE=$OPTARG ;;
    o) OUT=$OPTARG ;; b) BUILD=$OPTARG ;; p) PFX=$OPTARG ;; s) NET=$OPTARG ;; T) TLIMIT=$OPTARG ;;
    h) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    :) echo "benefit: option -$OPTARG needs a value (try -h)" >&2; exit 2 ;;
    *) echo "benefit: unknown option -$OPTARG (try -h)" >&2; exit 2 ;;
    esac
done
is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 6 ]; }
for v in "$ROUNDS" "$NODES" "$PPN" "$TLIMIT"; do
    is_uint "$v" && [ "$v" -ge 1 ] || { echo "benefit: -r, -n, -k, -T take positive integers, not '$v'" >&2; exit 2; }
done
[ "$ROUNDS" -le 64 ] || { echo "benefit: -r is at most 64" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, tc)"

TOPOMAP=$BUILD/cli/topomap
REPORT=$BUILD/contrib/benefit-report
HALO=$BUILD/contrib/netemu/halo
PROFILER=$BUILD/contrib/profiler/libtopomap-profiler.so
NETEMU="$here/netemu.sh"
for f in "$TOPOMAP" "$REPORT" "$PROFILER"; do
    [ -x "$f" ] || [ -f "$f" ] || die "$f not found: build first (make benefit builds it)"
done
command -v mpirun.openmpi > /dev/null || die "Open MPI's mpirun.openmpi not found (Debian: openmpi-bin)"
RANKS=$((NODES * PPN))
# The process grid: PX x PY = RANKS, PX the largest divisor <= sqrt(RANKS).
PX=1 i=1
while [ $((i * i)) -le $RANKS ]; do
    [ $((RANKS % i)) -eq 0 ] && PX=$i
    i=$((i + 1))
done
PY=$((RANKS / PX))

mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
RES=$OUT/results.txt
NE="-p $PFX -s $NET -n $NODES -r $RATE -t $KIND -c $PPN -d $OUT/cluster"
[ -n "$UPRATE" ] && NE="$NE -u $UPRATE"
# Leave nothing behind, whatever happens.
cleanup() { "$NETEMU" down $NE > /dev/null 2>&1; }
trap 'cleanup; exit 130' INT TERM HUP
trap 'cleanup' EXIT
"$NETEMU" up $NE >&2 || die "the emulated cluster did not come up"
TOPO=$OUT/cluster/topology.yaml
HOSTS=$OUT/cluster/hosts

# mpirun on the emulated cluster: ranks in hostfile order (one address per
# rank), started through the netemu agent, TCP between nodes only over the
# bridge's subnet, shared memory inside a node, no busy polling (2 cores).
mpi() { # HOSTFILE WORKDIR [mpirun arguments and program]
    m_hf=$1 m_wd=$2
    shift 2
    timeout "$TLIMIT" mpirun.openmpi --allow-run-as-root -np $RANKS --hostfile "$m_hf" \
        --mca rmaps seq --mca plm_rsh_agent "$OUT/cluster/rsh" --mca plm_rsh_no_tree_spawn 1 \
        --mca pml ob1 --mca btl self,vader,tcp \
        --mca btl_tcp_if_include "$NET.0/24" --mca oob_tcp_if_include "$NET.0/24" \
        --mca mpi_yield_when_idle 1 --oversubscribe --bind-to none --wdir "$m_wd" "$@"
}

# APP's run: prints its loop time in seconds (nan if it failed) and the
# wall-clock time of the whole mpirun. ARGS: APP HOSTFILE
# [mpirun options, e.g. the profiler's -x].
HALO_ITERS=30 HALO_BYTES=32768 LMP_STEPS=30 GMX_STEPS=100
run_app() {
    r_app=$1 r_hf=$2
    shift 2
    r_wd=$OUT/$r_app/run
    mkdir -p "$r_wd"
    r_t=
    r_0=$(date +%s.%N)
    case $r_app in
    halo)
        r_t=$(mpi "$r_hf" "$r_wd" "$@" "$HALO" $PX $PY $HALO_ITERS $HALO_BYTES 2> "$r_wd/err" |
            sed -n 's/^halo: loop_time_s=\([0-9.]*\).*/\1/p') ;;
    lammps)
        rm -f "$r_wd/log.lammps"
        mpi "$r_hf" "$r_wd" "$@" lmp -in "$here/in.lj-walls" -var steps $LMP_STEPS \
            -var px $PX -var py $PY -log "$r_wd/log.lammps" -screen none > "$r_wd/err" 2>&1
        r_t=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on.*/\1/p' "$r_wd/log.lammps" 2> /dev/null) ;;
    gromacs)
        rm -f "$r_wd/md.log"
        mpi "$r_hf" "$r_wd" "$@" -x OMP_NUM_THREADS=1 gmx_mpi mdrun -s "$OUT/gromacs/water.tpr" \
            -dd $PX $PY 1 -npme 0 -ntomp 1 -pin off -dlb no -nb cpu -nsteps $GMX_STEPS -g md.log \
            -noconfout -cpo state.cpt -e ener.edr > "$r_wd/err" 2>&1
        r_t=$(awk '$1 == "Time:" {print $3}' "$r_wd/md.log" 2> /dev/null) ;;
    esac
    # A killed or failed run leaves processes in the namespaces: end them.
    [ -n "$r_t" ] || "$NETEMU" kill $NE > /dev/null 2>&1
    echo "${r_t:-nan} $(echo "$r_0 $(date +%s.%N)" | awk '{printf "%.2f", $2 - $1}')"
}

# Whether APP can run here; prepares its input. Prints the reason if not.
prepare_app() {
    case $1 in
    halo) [ -x "$HALO" ] || { echo "$HALO not built (make benefit builds it)"; return 1; } ;;
    lammps) command -v lmp > /dev/null || { echo "lmp not found (Debian: lammps)"; return 1; } ;;
    gromacs)
        command -v gmx > /dev/null && command -v gmx_mpi > /dev/null ||
            { echo "gmx/gmx_mpi not found (Debian: gromacs)"; return 1; }
        g=$OUT/gromacs
        mkdir -p "$g"
        (cd "$g" && gmx -quiet solvate -cs spc216.gro -box 4.8 4.8 4.8 -o water.gro > log 2>&1 &&
            printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n[ system ]\nwater\n[ molecules ]\nSOL %s\n' \
                "$(grep -c OW water.gro)" > topol.top &&
            gmx -quiet grompp -f "$here/water.mdp" -c water.gro -p topol.top -o water.tpr \
                -po mdout.mdp >> log 2>&1) || { echo "gmx solvate/grompp failed (see $g/log)"; return 1; } ;;
    *) echo "unknown application (halo, lammps, gromacs)"; return 1 ;;
    esac
}
describe() {
    case $1 in
    halo) echo "4x4-style halo ${PX}x${PY}, $HALO_ITERS iterations of $HALO_BYTES bytes per neighbour" ;;
    lammps) echo "LAMMPS LJ melt between walls, 32,000 atoms, $LMP_STEPS steps, processors $PX $PY 1" ;;
    gromacs) echo "GROMACS SPC/E water 4.8 nm box, reaction field, $GMX_STEPS steps, -dd $PX $PY 1" ;;
    esac
}

# slots file -> hostfile of addresses in rank order
to_hostfile() {
    sort -n "$1" | awk 'NR == FNR {addr[$1] = $2; next} {print addr[$2]}' "$HOSTS" - > "$2"
}
# slots file -> its node groups as one word: node of each rank in rank
# order, on a star renamed by first appearance (every node of a star is
# alike, so placements that differ only by node names are the same).
groups_of() {
    sort -n "$1" | awk -v star=$([ "$KIND" = star ] && echo 1 || echo 0) \
        '{n = $2; if (star) {if (!(n in id)) id[n] = ++k; n = id[n]} printf "%s.", n} END {print ""}'
}

{
    echo "# benefit.sh: $RANKS ranks on $NODES nodes ($PPN per node), $KIND, links $RATE$(
        [ "$KIND" = tree ] && echo ", uplinks ${UPRATE:-$RATE}"), $ROUNDS rounds"
    echo "# host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
} > "$RES"
t_start=$(date +%s)
for app in $(echo "$APPS" | tr ',' ' '); do
    t_app=$(date +%s)
    d=$OUT/$app
    mkdir -p "$d"
    echo "app $app $(describe "$app")" >> "$RES"
    why=$(prepare_app "$app") || { say "$app skipped: $why"; echo "skip $app block $why" >> "$RES"; continue; }

    # Slurm's block layout (consecutive ranks fill a node) to record with.
    awk -v p=$PPN -v n=$NODES 'BEGIN {for (r = 0; r < n * p; r++) print r, "n" int(r / p) + 1, r % p}' \
        > "$d/block.slots"
    to_hostfile "$d/block.slots" "$d/block.hosts"

    say "$app: recording the profile (block layout)"
    rm -f "$d/profile.txt"
    t=$(run_app "$app" "$d/block.hosts" -x LD_PRELOAD="$PROFILER" -x TOPOMAP_PROFILE_OUT="$d/profile.txt")
    [ -s "$d/profile.txt" ] || { say "$app: no profile recorded (see $d/run/err)"; echo "skip $app block no profile recorded" >> "$RES"; continue; }

    # block as topomap computes it, and its A/A control: the same layout on
    # nodes renamed in reverse (a symmetry of a star and of a balanced tree).
    "$TOPOMAP" map --profile "$d/profile.txt" --topology "$TOPO" --tasks-per-node $PPN \
        --algo block -o "$d/block.slots" || die "$app: topomap map --algo block failed"
    awk -v n=$NODES '{sub(/^n/, "", $2); $2 = "n" (n + 1 - $2); print}' "$d/block.slots" \
        > "$d/block-renamed.slots"
    list="block block-renamed"
    for a in $(echo "$ALGOS" | tr ',' ' '); do
        if "$TOPOMAP" map --profile "$d/profile.txt" --topology "$TOPO" --tasks-per-node $PPN \
            --algo "$a" -o "$d/$a.slots" 2> "$d/$a.err"; then
            list="$list $a"
        else
            echo "skip $app $a $(sed 's/^topomap: map: //' "$d/$a.err" | head -1)" >> "$RES"
        fi
    done
    run_list=
    for p in $list; do
        "$TOPOMAP" eval --profile "$d/profile.txt" --topology "$TOPO" --mapping "$d/$p.slots" |
            awk -v a=$app -v p=$p '/^hop-bytes/ {hb = $2} /^SumCom/ {sc = $2}
                /^internode bytes/ {ib = $3} /^congestion max / && $3 != "time" {cm = $3}
                END {print "metric", a, p, hb, sc, ib, cm}' >> "$RES"
        g=$(groups_of "$d/$p.slots")
        same=
        [ "$p" = block-renamed ] || for q in $run_list; do
            [ "$q" = block-renamed ] && continue
            [ "$(groups_of "$d/$q.slots")" = "$g" ] && { same=$q; break; }
        done
        if [ -n "$same" ]; then
            echo "same $app $p $same" >> "$RES"
        else
            run_list="$run_list $p"
            to_hostfile "$d/$p.slots" "$d/$p.hosts"
        fi
    done
    echo "aa $app block-renamed" >> "$RES"

    set -- $run_list
    np=$#
    r=1
    while [ $r -le "$ROUNDS" ]; do
        # Round r starts at the (r-1)-th placement of the list (mod np).
        k=0
        while [ $k -lt $np ]; do
            idx=$(((k + r - 1) % np + 1))
            eval "p=\${$idx}"
            t=$(run_app "$app" "$d/$p.hosts")
            echo "time $app $p $r $t" >> "$RES"
            say "$app round $r/$ROUNDS $p: loop ${t% *} s (mpirun ${t#* } s)"
            k=$((k + 1))
        done
        r=$((r + 1))
    done
    say "$app: $(($(date +%s) - t_app)) s"
done
echo "# total $(($(date +%s) - t_start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >> "$RES"
"$REPORT" "$RES" | tee "$OUT/report.txt"
