#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Soak test of the plugin on the local Slurm cluster (tests/slurm_lib.sh: root,
# munged, slurmctld, 4 slurmd on this host): `make soak`, not part of make
# check. SOAK_N workers (default 4) run SOAK_ROUNDS steps each (default 5),
# mixing --topomap=auto (with a profile of the store), --topomap-record and
# --topomap=off, while the profile they use is replaced again and again;
# then the same with random scancel and kill -9 of the sruns. Checks:
#  - every step not killed ran all its tasks, exit 0;
#  - every profile in the store reads back whole (no partial profile) and no
#    temporary file of the store is left;
#  - no recording directory left in the spool, no file of the plugin left in
#    $TMPDIR;
#  - no node drained or down;
# and reports the median and 99th percentile of srun's time per mode (the
# launch time the plugin adds is auto's or record's minus off's).
. "$(dirname "$0")/slurm_lib.sh"
N=${SOAK_N:-4}
ROUNDS=${SOAK_ROUNDS:-5}
TOPO=$DATA/mesh-2x2-2core.yaml
PROFILER=$top_builddir/profiler/libtopomap-profiler.so
mkdir -p "$DIR/store" "$DIR/spool" "$DIR/tmp"
slurm_start 2 "topology=$TOPO profiles=$DIR/store spool=$DIR/spool profiler=$PROFILER"
export TMPDIR="$DIR/tmp"

# The step: an MPICH program when there is one (then --topomap-record really
# records: rank 0 writes the profile at MPI_Finalize), else a shell.
cat > "$DIR/hello.c" << 'EOF2'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, x = 0, y;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, (rank + size - 1) % size,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d\n", rank);
    MPI_Finalize();
    return 0;
}
EOF2
if command -v mpicc.mpich > /dev/null 2>&1 && [ -f "${PROFILER%.so}-mpich.so" ] &&
    mpicc.mpich -o "$DIR/hello" "$DIR/hello.c" 2> /dev/null; then
    STEP="--mpi=pmi2 $DIR/hello"
else
    STEP="sh -c 'echo \$SLURM_PROCID'"
    echo "# no MPICH program (mpicc.mpich or the profiler's MPICH build missing): --topomap-record records nothing"
fi

# Two profiles of 4 ranks that place differently, swapped under the steps.
printf '# nranks=4\n0 2 100000\n2 0 100000\n1 3 100000\n3 1 100000\n' > "$DIR/a.txt"
printf '# nranks=4\n0 1 100000\n1 0 100000\n2 3 100000\n3 2 100000\n' > "$DIR/b.txt"
"$TOPOMAP" profile add soak "$DIR/a.txt" --site --store "$DIR/store" > /dev/null
ok $? "the profile 'soak' stored"

# worker ID PHASE: ROUNDS steps of 4 tasks on 2 nodes; one line per step in
# $DIR/steps: PHASE ID ROUND MODE EXIT TASKS MILLISECONDS.
worker() {
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        case $(( ($1 + r) % 3 )) in
        0) mode=auto opts="--topomap=auto --topomap-profile=soak --topomap-verbose" ;;
        1) mode=record opts="--topomap-record=rec$1" ;;
        *) mode=off opts="--topomap=off" ;;
        esac
        out=$DIR/out.$2.$1.$r
        # The time of srun alone, inside the allocation (not the queueing).
        # The srun's pid goes to $out.pid for the killer (only our sruns).
        timeout -k 5 120 salloc -Q -t 2 -N2 -n4 sh -c \
            "s=\$(date +%s%N); srun -n4 $opts $STEP > '$out' 2> '$out.err' &
             echo \$! > '$out.pid'; wait \$!; rc=\$?; e=\$(date +%s%N); rm -f '$out.pid'
             echo \$rc \$(( (e - s) / 1000000 )) > '$out.rc'" \
            > /dev/null 2>&1
        read -r rc ms < "$out.rc" 2> /dev/null || { rc=killed ms=0; }
        echo "$2 $1 $r $mode $rc $(wc -l < "$out" 2> /dev/null || echo 0) $ms" >> "$DIR/steps"
        r=$((r + 1))
    done
}

# Replace 'soak' (a, b, a, ...) until the file stop exists.
replacer() {
    k=0
    while [ ! -e "$DIR/stop" ]; do
        f=$DIR/a.txt
        [ $((k % 2)) -eq 1 ] && f=$DIR/b.txt
        "$TOPOMAP" profile add soak "$f" --site --store "$DIR/store" > /dev/null 2>> "$DIR/replace.err"
        k=$((k + 1))
    done
    echo $k > "$DIR/replaced"
}

# Kill a random srun or cancel a random job now and then, until stop.
killer() {
    while [ ! -e "$DIR/stop" ]; do
        sleep "0.$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 ))"
        if [ $(( $(od -An -N1 -tu1 /dev/urandom) % 2 )) -eq 0 ]; then
            pid=$(cat "$DIR"/out.*.pid 2> /dev/null | shuf -n1)
            [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null && echo "kill -9 srun $pid" >> "$DIR/kills"
        else
            job=$(squeue -h -o %i -t R | shuf -n1)
            [ -n "$job" ] && scancel "$job" 2> /dev/null && echo "scancel $job" >> "$DIR/kills"
        fi
    done
}

phase() { # PHASE [killer]
    rm -f "$DIR/stop"
    replacer &
    rp=$!
    kp=
    if [ "${2:-}" = killer ]; then killer & kp=$!; fi
    pids=
    i=0
    while [ $i -lt "$N" ]; do worker $i "$1" & pids="$pids $!"; i=$((i + 1)); done
    for p in $pids; do wait "$p"; done
    touch "$DIR/stop"
    wait $rp
    [ -n "$kp" ] && wait "$kp"
    return 0
}

: > "$DIR/steps"
phase calm
steps=$(grep -c '^calm ' "$DIR/steps")
bad=$(awk '$1 == "calm" && ($5 != 0 || $6 != 4)' "$DIR/steps" | wc -l)
ok $((bad != 0 || steps != N * ROUNDS)) "calm: $steps steps with the profile replaced $(cat "$DIR/replaced") times under them, every one ran its 4 tasks ($bad did not)"
[ "$bad" -eq 0 ] || awk '$1 == "calm" && ($5 != 0 || $6 != 4)' "$DIR/steps" | head -5 | diag

: > "$DIR/kills"
phase chaos killer
nk=$(wc -l < "$DIR/kills")
# A step whose srun or job was killed may fail; the others must not. Which
# ones were hit is not known step by step: a failed step counts as killed only
# while there were kills to account for it.
failed_steps=$(awk '$1 == "chaos" && ($5 != 0 || $6 != 4)' "$DIR/steps" | wc -l)
ok $((failed_steps > nk)) "chaos: $failed_steps failed steps for $nk kills/cancels (a step may only fail when hit)"

# The store: every profile whole, no temporary file.
partial=0
for f in $(find "$DIR/store" -name '*.profile'); do
    "$TOPOMAP" stats --profile "$f" > /dev/null 2>&1 || { partial=$((partial + 1)); echo "# partial: $f"; }
done
ok $partial "every profile of the store reads back whole ($(find "$DIR/store" -name '*.profile' | wc -l) profiles)"
tmpf=$(find "$DIR/store" -name '.*' | wc -l)
ok $((tmpf != 0)) "no temporary file left in the store ($tmpf)"
test ! -s "$DIR/replace.err"
ok $? "every replacement succeeded, silently"

# The nodes: recordings cleaned up, no hostfile left, no node drained.
sleep 5
left=$(find "$DIR/spool" -maxdepth 2 -name 'topomap-record.*' | wc -l)
ok $((left != 0)) "no recording directory left in the spool ($left)"
tleft=$(find "$DIR/tmp" -mindepth 1 | wc -l)
ok $((tleft != 0)) "no file of the plugin left in \$TMPDIR ($tleft)"
states=$(sinfo -h -N -o '%t' | sort | uniq -c | tr '\n' ' ')
sinfo -h -N -o '%t' | grep -Eqv '^(idle|mix|alloc|comp)$'
ok $((! $?)) "no node drained or down: $states"

# What the plugin said, by kind of line (numbers as N).
cat "$DIR"/out.calm.*.err 2> /dev/null | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn |
    head -8 | sed 's/^/# calm phase stderr: /'
# Launch times of the calm phase, per mode.
for mode in off auto record; do
    awk -v m=$mode '$1 == "calm" && $4 == m && $5 == 0 {print $7}' "$DIR/steps" | sort -n |
        awk -v m=$mode '{v[NR] = $1} END {
            if (!NR) { print "# " m ": no step"; exit }
            p = int(0.99 * NR + 0.999); if (p < 1) p = 1
            printf "# srun time, %s: median %d ms, p99 %d ms over %d steps\n", m, v[int((NR + 1) / 2)], v[p], NR }'
done
echo "1..$n"
[ "$failed" -eq 0 ]
