#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# benefit.sh: does topomap make jobs faster? Times real MPI applications
# under each placement on an emulated cluster (netemu.sh: network
# namespaces on a bridge, links rate-limited by tc). `make benefit` runs it.
#
# For each application: record its communication profile with topomap's
# profiler (profiler/) on the emulated cluster, compute the
# placements (block = Slurm's layout, its A/A control = block on renamed
# nodes, and every algorithm of -A), evaluate them (topomap eval: hop-bytes,
# SumCom, inter-node bytes, busiest link), run every distinct one -r times
# in alternating order (round k starts k-1 places further down the list)
# and time the application's own loop. benefit-report prints the tables:
# median/min/max, paired ratio to block per round, correlations of the
# metrics with time, a verdict per application.
#
#   benefit.sh [options]
#     -a APPS    comma list of halo, halo-dist, halo-cart, lammps, gromacs
#                [halo,halo-dist,halo-cart,lammps,gromacs]
#     -A ALGOS   algorithms besides block
#                [cyclic,random,greedy,rcm,metis,drb,ohtma,spectral,spectral-fit,treematch,auto]
#     -r N       rounds [5]
#     -n N       nodes [4]               -k K    ranks per node [4]
#     -R RATE    link rate [25mbit]      -t KIND star or tree [star]
#     -u RATE    uplink rate of a tree [= -R]
#     -o DIR     results directory [benefit-results]
#     -b DIR     build directory (cli/topomap, contrib/...) [TOPOMAP_BUILD, else the source tree]
#     -p PFX     netemu name prefix [tmbf]      -s NET  netemu /24 [10.213.9]
#     -T SEC     time limit of one run [120]
#     -S         also through Slurm: a local cluster whose slurmd run in the
#                emulated nodes (slurm-local-cluster.sh --netns), the
#                recorded profile stored, and each application launched
#                with srun --mpi=pmix, --topomap=off (block, twice: the second
#                is the A/A control) and --topomap=auto, alternating. Ports:
#                TOPOMAP_TEST_CTLD_PORT [16967], TOPOMAP_TEST_NODE_PORT
#                [17601] and up. Reported as APP-slurm. A launch that has not
#                ended after min(-T, 60) s is cancelled and counts as failed.
#
# Applications (a missing one is skipped with a line): halo (contrib/netemu/
# halo.c, built by make benefit); halo-dist and halo-cart, the same halo
# declared to MPI with MPI_Dist_graph_create_adjacent or MPI_Cart_create,
# run under the block layout only: `block` with reorder = 0, `reorder` with
# reorder = 1 and libtopomap-reorder (reorder) preloaded, the
# machine's topology.yaml in TOPOMAP_TOPOLOGY (its metrics are those of the
# numbering the library chose, which the halo prints); lammps (Debian lammps: lmp, input
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

APPS=halo,halo-dist,halo-cart,lammps,gromacs
ALGOS=cyclic,random,greedy,rcm,metis,drb,ohtma,spectral,spectral-fit,treematch,auto
ROUNDS=5 NODES=4 PPN=4 RATE=25mbit KIND=star UPRATE= OUT=benefit-results
BUILD=${TOPOMAP_BUILD:-$src} PFX=tmbf NET=10.213.9 TLIMIT=120 SLURM=0 PROF=
while getopts :a:A:r:n:k:R:t:u:o:b:p:s:T:Sh o; do
    case $o in
    a) APPS=$OPTARG ;; A) ALGOS=$OPTARG ;; r) ROUNDS=$OPTARG ;; n) NODES=$OPTARG ;;
    k) PPN=$OPTARG ;; R) RATE=$OPTARG ;; t) KIND=$OPTARG ;; u) UPRATE=$OPTARG ;;
    o) OUT=$OPTARG ;; b) BUILD=$OPTARG ;; p) PFX=$OPTARG ;; s) NET=$OPTARG ;; T) TLIMIT=$OPTARG ;;
    S) SLURM=1 ;;
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
# Under Slurm a launch that hangs (see README) is cut sooner.
STLIMIT=$TLIMIT
[ "$STLIMIT" -le 60 ] || STLIMIT=60

TOPOMAP=$BUILD/cli/topomap
REPORT=$BUILD/contrib/benefit-report
HALO=$BUILD/contrib/netemu/halo
PROFILER=$BUILD/profiler/libtopomap-profiler.so
REORDER=$BUILD/reorder/libtopomap-reorder-openmpi.so
NETEMU="$here/netemu.sh"
# shellcheck source=contrib/netemu/common.sh
. "$here/common.sh"
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
CL="$here/../slurm-local-cluster.sh"
CLOPT="--dir $OUT/slurm --nodes $NODES --cpus $PPN --netns $OUT/cluster
    --ctld-port ${TOPOMAP_TEST_CTLD_PORT:-16967} --node-port ${TOPOMAP_TEST_NODE_PORT:-17601}"
# Leave nothing behind, whatever happens.
cleanup() {
    [ $SLURM -eq 1 ] && sh "$CL" stop $CLOPT > /dev/null 2>&1
    sh "$NETEMU" down $NE > /dev/null 2>&1
}
trap 'cleanup; exit 130' INT TERM HUP
trap 'cleanup' EXIT
sh "$NETEMU" up $NE >&2 || die "the emulated cluster did not come up"
TOPO=$OUT/cluster/topology.yaml
HOSTS=$OUT/cluster/hosts
if [ $SLURM -eq 1 ]; then
    # PMIX_MCA_gds=hash: the PMIx servers of all slurmstepds of a step share
    # this host's /dev/shm, so the shared-memory store was suspected of Open
    # MPI's start-up failures here; they happen with it too (README).
    export PMIX_MCA_gds=hash SLURM_CONF="$OUT/slurm/etc/slurm.conf"
    export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include="$NET.0/24" \
        OMPI_MCA_mpi_yield_when_idle=1
    sh "$CL" start $CLOPT --plugin "$BUILD/spank/.libs/topomap.so" --plugin-args \
        "topology=$TOPO profiles=$OUT/slurm/profiles bind=none" >&2 ||
        die "the Slurm cluster did not start on the emulated nodes"
fi

# Launch PROG ARGS... in WORKDIR on the emulated cluster. HOW is either a
# hostfile, for mpirun: ranks in hostfile order (one address per rank),
# started through the netemu agent, TCP between nodes only over the bridge's
# subnet, shared memory inside a node, no busy polling (2 cores); or
# srun:ALGO, for srun --topomap=ALGO on the Slurm cluster of -S, or
# reorder:HOSTFILE, a hostfile with libtopomap-reorder preloaded. PROF, when
# set, is where the profiler writes the profile (mpirun only).
launch() { # HOW WORKDIR PROG ARGS...
    l_how=$1 l_wd=$2 l_pre=
    shift 2
    case $l_how in
    reorder:*)
        l_how=${l_how#reorder:}
        # the build's libtopomap.so, which the library links to
        l_pre="-x LD_PRELOAD=$REORDER -x TOPOMAP_TOPOLOGY=$TOPO -x TOPOMAP_REORDER_VERBOSE=1
            -x LD_LIBRARY_PATH=$BUILD/libtopomap/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    srun:*)
        (cd "$l_wd" && OMP_NUM_THREADS=1 timeout -k 5 "$STLIMIT" salloc -Q -N $NODES --exclusive \
            srun -n $RANKS --mpi=pmix --topomap="${l_how#srun:}" --topomap-profile="$r_app" \
            --topomap-verbose "$@")
        l_rc=$?
        [ $l_rc -eq 0 ] || scancel --quiet --full $(squeue -h -o %i 2> /dev/null) 2> /dev/null
        return $l_rc ;;
    esac
    mpirun_netemu "$l_how" "$l_wd" \
        ${PROF:+-x LD_PRELOAD="$PROFILER" -x TOPOMAP_PROFILE_OUT="$PROF"} $l_pre \
        -x OMP_NUM_THREADS=1 "$@"
}

# APP's run: prints its loop time in seconds (nan if it failed) and the
# wall-clock time of the whole launch. ARGS: APP HOW (as launch's).
HALO_ITERS=30 HALO_BYTES=32768 LMP_STEPS=30 GMX_STEPS=100
run_app() {
    r_app=$1 r_how=$2
    r_wd=$OUT/$r_app/run
    mkdir -p "$r_wd"
    r_t=
    r_0=$(date +%s.%N)
    case $r_app in
    halo)
        r_t=$(launch "$r_how" "$r_wd" "$HALO" $PX $PY $HALO_ITERS $HALO_BYTES 2> "$r_wd/err" |
            sed -n 's/^halo: loop_time_s=\([0-9.]*\).*/\1/p') ;;
    halo-dist | halo-cart)
        r_re=0
        case $r_how in reorder:*) r_re=1 ;; esac
        launch "$r_how" "$r_wd" "$HALO" $PX $PY $HALO_ITERS $HALO_BYTES ${r_app#halo-} $r_re \
            > "$r_wd/out" 2> "$r_wd/err"
        r_t=$(sed -n 's/^halo: loop_time_s=\([0-9.]*\).*/\1/p' "$r_wd/out") ;;
    lammps)
        rm -f "$r_wd/log.lammps"
        launch "$r_how" "$r_wd" lmp -in "$here/in.lj-walls" -var steps $LMP_STEPS \
            -var px $PX -var py $PY -log "$r_wd/log.lammps" -screen none > "$r_wd/err" 2>&1
        r_t=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on.*/\1/p' "$r_wd/log.lammps" 2> /dev/null) ;;
    gromacs)
        rm -f "$r_wd/md.log"
        launch "$r_how" "$r_wd" gmx_mpi mdrun -s "$OUT/gromacs/water.tpr" \
            -dd $PX $PY 1 -npme 0 -ntomp 1 -pin off -dlb no -nb cpu -nsteps $GMX_STEPS -g md.log \
            -noconfout -cpo state.cpt -e ener.edr > "$r_wd/err" 2>&1
        r_t=$(awk '$1 == "Time:" {print $3}' "$r_wd/md.log" 2> /dev/null) ;;
    esac
    # The plugin's line about its placement, for the record; a failed run's
    # messages are kept.
    [ "$r_how" = srun:auto ] && grep -h 'topomap: ' "$r_wd/err" | head -1 > "$r_wd/topomap-auto.line"
    [ -n "$r_t" ] || cp "$r_wd/err" "$r_wd/failed.$(date +%s).err" 2> /dev/null
    # A killed or failed mpirun leaves processes in the namespaces: end them
    # (not under Slurm: slurmd lives there; launch cancelled the job).
    case $r_how in srun:*) ;; *) [ -n "$r_t" ] || sh "$NETEMU" kill $NE > /dev/null 2>&1 ;; esac
    echo "${r_t:-nan} $(echo "$r_0 $(date +%s.%N)" | awk '{printf "%.2f", $2 - $1}')"
}

# Whether APP can run here; prepares its input. Prints the reason if not.
prepare_app() {
    case $1 in
    halo) [ -x "$HALO" ] || { echo "$HALO not built (make benefit builds it)"; return 1; } ;;
    halo-dist | halo-cart)
        [ -x "$HALO" ] || { echo "$HALO not built (make benefit builds it)"; return 1; }
        [ -f "$REORDER" ] || { echo "$REORDER not built (make builds it with the shared libtopomap)"; return 1; } ;;
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
    *) echo "unknown application (halo, halo-dist, halo-cart, lammps, gromacs)"; return 1 ;;
    esac
}
describe() {
    case $1 in
    halo) echo "4x4-style halo ${PX}x${PY}, $HALO_ITERS iterations of $HALO_BYTES bytes per neighbour" ;;
    halo-dist) echo "the halo on MPI_Dist_graph_create_adjacent, block layout; reorder = 1 with libtopomap-reorder vs reorder = 0" ;;
    halo-cart) echo "the halo on MPI_Cart_create, block layout; reorder = 1 with libtopomap-reorder vs reorder = 0" ;;
    lammps) echo "LAMMPS LJ melt between walls, 32,000 atoms, $LMP_STEPS steps, processors $PX $PY 1" ;;
    gromacs) echo "GROMACS SPC/E water 4.8 nm box, reaction field, $GMX_STEPS steps, -dd $PX $PY 1" ;;
    esac
}

# slots file -> its node groups as one word: node of each rank in rank
# order, on a star renamed by first appearance (every node of a star is
# alike, so placements that differ only by node names are the same).
groups_of() {
    sort -n "$1" | awk -v star=$([ "$KIND" = star ] && echo 1 || echo 0) \
        '{n = $2; if (star) {if (!(n in id)) id[n] = ++k; n = id[n]} printf "%s.", n} END {print ""}'
}

# Alternating rounds (alternate, common.sh). ARGS: NAME (in the results)
# APP PLACEMENT...
rounds() {
    ro_name=$1 ro_app=$2
    shift 2
    alternate "$ROUNDS" round_one "$@"
}
round_one() { # PLACEMENT ROUND, of ro_name's ro_app
    ro_p=$1 ro_r=$2
    case $ro_name in
    *-slurm) ro_how=srun:$([ "$ro_p" = auto ] && echo auto || echo off) ;;
    *) ro_how=$OUT/$ro_app/$ro_p.hosts ;;
    esac
    [ "$ro_p" = reorder ] && ro_how=reorder:$OUT/$ro_app/block.hosts
    ro_t=$(run_app "$ro_app" "$ro_how")
    echo "time $ro_name $ro_p $ro_r $ro_t" >> "$RES"
    say "$ro_name round $ro_r/$ROUNDS $ro_p: loop ${ro_t% *} s (launch ${ro_t#* } s)"
}

# The numbering libtopomap-reorder gives APP's grid under the block layout,
# as a placement: one run with reorder = 1 prints the world rank of each new
# rank; new rank v runs where world rank perm[v] runs (DIR/block.slots), so
# DIR/reorder.slots is the placement of the grid. Its verbose line goes into
# the results. ARGS: APP DIR.
reorder_placement() {
    rp_t=$(run_app "$1" "reorder:$2/block.hosts")
    rp_perm=$(sed -n 's/^halo: perm //p' "$OUT/$1/run/out")
    if [ -z "$rp_perm" ] || [ "${rp_t% *}" = nan ]; then
        say "$1: the reorder = 1 run failed (see $OUT/$1/run/err)"
        echo "skip $1 reorder the reorder = 1 run failed" >> "$RES"
        return 1
    fi
    echo "# $1: $(grep -h '^topomap-reorder: ' "$OUT/$1/run/err" | head -1)" >> "$RES"
    echo "$rp_perm" | tr ' ' '\n' | awk 'NR == FNR {node[$1] = $2; core[$1] = $3; next}
        $1 != "" {print v++, node[$1], core[$1]}' "$2/block.slots" - > "$2/reorder.slots"
    to_hostfile "$2/reorder.slots" "$2/reorder.hosts"
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
    t=$(PROF=$d/profile.txt run_app "$app" "$d/block.hosts")
    [ -s "$d/profile.txt" ] || { say "$app: no profile recorded (see $d/run/err)"; echo "skip $app block no profile recorded" >> "$RES"; continue; }

    # block as topomap computes it, and its A/A control: the same layout on
    # nodes renamed in reverse (a symmetry of a star and of a balanced tree).
    "$TOPOMAP" map --profile "$d/profile.txt" --topology "$TOPO" --nodes "n[1-$NODES]" --tasks-per-node $PPN \
        --algo block -o "$d/block.slots" || die "$app: topomap map --algo block failed"
    awk -v n=$NODES '{sub(/^n/, "", $2); $2 = "n" (n + 1 - $2); print}' "$d/block.slots" \
        > "$d/block-renamed.slots"
    list="block block-renamed"
    case $app in halo-dist | halo-cart)
        reorder_placement "$app" "$d" || continue
        list="block block-renamed reorder" ;;
    esac
    for a in $(case $app in halo-*) ;; *) echo "$ALGOS" | tr ',' ' ' ;; esac); do
        if "$TOPOMAP" map --profile "$d/profile.txt" --topology "$TOPO" --nodes "n[1-$NODES]" --tasks-per-node $PPN \
            --algo "$a" -o "$d/$a.slots" 2> "$d/$a.err"; then
            list="$list $a"
        else
            echo "skip $app $a $(sed 's/^topomap: map: //' "$d/$a.err" | head -1)" >> "$RES"
        fi
    done
    run_list=
    for p in $list; do
        metric_line "$app" "$p" "$d/profile.txt" "$d/$p.slots" >> "$RES"
        g=$(groups_of "$d/$p.slots")
        same=
        [ "$p" = block-renamed ] || for q in $run_list; do
            [ "$q" = block-renamed ] && continue
            [ "$(groups_of "$d/$q.slots")" = "$g" ] && { same=$q; break; }
        done
        if [ -n "$same" ] && [ "$p" != reorder ]; then
            echo "same $app $p $same" >> "$RES"
        else
            run_list="$run_list $p"
            to_hostfile "$d/$p.slots" "$d/$p.hosts"
        fi
    done
    echo "aa $app block-renamed block on renamed nodes" >> "$RES"

    rounds "$app" "$app" $run_list

    if [ $SLURM -eq 1 ]; then
        # The same application through srun and the plugin.
        sa=$app-slurm
        echo "app $sa $(describe "$app"); srun --mpi=pmix on the Slurm cluster of the emulated nodes" >> "$RES"
        "$TOPOMAP" profile add "$app" "$d/profile.txt" --store "$OUT/slurm/profiles" > /dev/null ||
            die "$app: cannot store the profile"
        for p in block auto; do
            grep "^metric $app $p " "$RES" | sed "s/^metric $app /metric $sa /"
        done >> "$RES"
        grep "^metric $sa block " "$RES" | sed 's/ block / block-again /' >> "$RES"
        echo "aa $sa block-again block launched again" >> "$RES"
        rounds "$sa" "$app" block block-again auto
        [ -s "$d/run/topomap-auto.line" ] && echo "# $sa: $(cat "$d/run/topomap-auto.line")" >> "$RES"
    fi
    say "$app: $(($(date +%s) - t_app)) s"
done
echo "# total $(($(date +%s) - t_start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >> "$RES"
"$REPORT" "$RES" | tee "$OUT/report.txt"
