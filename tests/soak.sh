#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Soak test of the plugin on the local Slurm cluster (tests/slurm_lib.sh: root,
# munged, slurmctld, 4 slurmd on this host): `make soak`, not part of make
# check. SOAK_N steps at once (default 200; the partition oversubscribes the
# 8 CPUs so that they all fit), SOAK_ROUNDS times (default 1), mixing
# --topomap=auto (with a profile of the store), --topomap-record and
# --topomap=off, while the profile they use is replaced again and again; then
# the same with SOAK_KILLS (default SOAK_N / 4) random scancel and kill -9 of
# the sruns. The tasks of every step wait at a gate until all the steps of the
# round run (or ended), so that SOAK_N steps are really in flight at once.
# Checks:
#  - every step not killed ran all its tasks (ranks 0..3, once each), exit 0;
#  - SOAK_N steps ran at once (Slurm's count of running steps at the gate);
#  - every profile in the store reads back whole (no partial profile) and no
#    temporary file of the store is left;
#  - no recording directory left in the spool, no file of the plugin left in
#    $TMPDIR;
#  - no error of the plugin in the slurmd logs; no node drained or down;
# and reports the median and 99th percentile of the launch time per mode (srun
# started -> its last task started) and of the decision's own time (auto).
. "$(dirname "$0")/slurm_lib.sh"
N=${SOAK_N:-200}
ROUNDS=${SOAK_ROUNDS:-1}
KILLS=${SOAK_KILLS:-$((N / 4))}
[ "$KILLS" -ge 1 ] || KILLS=1
# A step waits for its round's gate at most GATE seconds; the allocation lives
# at most LIMIT seconds.
GATE=${SOAK_GATE:-600}
LIMIT=$((GATE + 300))
TOPO=$DATA/mesh-2x2-2core.yaml
PROFILER=$top_builddir/profiler/libtopomap-profiler.so
mkdir -p "$DIR/store" "$DIR/spool" "$DIR/tmp"
# Each job takes both cores of two nodes: N jobs need each core N / 2 times.
TOPOMAP_SLURM_OVERSUBSCRIBE=$((N > 2 ? N : 2))
export TOPOMAP_SLURM_OVERSUBSCRIBE
slurm_start 2 "topology=$TOPO profiles=$DIR/store spool=$DIR/spool profiler=$PROFILER"
export TMPDIR="$DIR/tmp"

# The step: prints "RANK START_NS" at once, waits for the gate file (argv[1]),
# then with MPI one ring exchange, so that --topomap-record really records
# (rank 0 writes the profile at MPI_Finalize). The gate is polled with stat,
# 5 times a second: hundreds of waiting tasks cost no CPU.
cat > "$DIR/step.c" << 'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef SOAK_MPI
#include <mpi.h>
#endif
int main(int argc, char **argv)
{
    struct timespec t;
    struct stat st;
    const char *id = getenv("SLURM_PROCID");
    clock_gettime(CLOCK_REALTIME, &t);
    printf("%s %lld\n", id ? id : "?", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
    fflush(stdout);
    for (int i = 0; argc > 1 && i < 5 * atoi(argv[2]) && stat(argv[1], &st) != 0; i++)
        usleep(200000);
#ifdef SOAK_MPI
    int rank, size, x = 0, y;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, (rank + size - 1) % size,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
#endif
    return 0;
}
EOF2
cc -O -o "$DIR/step" "$DIR/step.c"
ok $? "the step program built"
# Recording steps run the MPICH build (auto and off the plain one, whose
# launch times compare): when there is none, recordings record nothing.
RSTEP=$DIR/step RMPI=
if command -v mpicc.mpich > /dev/null 2>&1 && [ -f "${PROFILER%.so}-mpich.so" ] &&
    mpicc.mpich -DSOAK_MPI -o "$DIR/step-mpi" "$DIR/step.c" 2> /dev/null; then
    RSTEP=$DIR/step-mpi RMPI=--mpi=pmi2
else
    echo "# no MPICH program (mpicc.mpich or the profiler's MPICH build missing): --topomap-record records nothing"
fi

# Two profiles of 4 ranks that place differently, swapped under the steps.
printf '# nranks=4\n0 2 100000\n2 0 100000\n1 3 100000\n3 1 100000\n' > "$DIR/a.txt"
printf '# nranks=4\n0 1 100000\n1 0 100000\n2 3 100000\n3 2 100000\n' > "$DIR/b.txt"
"$TOPOMAP" profile add soak "$DIR/a.txt" --site --store "$DIR/store" > /dev/null
ok $? "the profile 'soak' stored"

# worker ID PHASE: ROUNDS steps of 4 tasks on 2 nodes. The files of a step are
# $DIR/PHASE.ROUND/ID.*: out (its tasks' lines), err, job (the job id), pid
# (srun's, while it runs), rc ("EXIT START_NS END_NS" of srun), done (written
# when the allocation ended). One line per step in $DIR/steps:
# PHASE ID ROUND MODE EXIT.
worker() {
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        step="$DIR/step $DIR/gate.$2.$r $GATE" mpi=
        case $(( ($1 + r) % 3 )) in
        0) mode=auto opts="--topomap=auto --topomap-profile=soak --topomap-verbose" ;;
        1) mode=record opts="--topomap-record=rec$(($1 % 8))" mpi=$RMPI
           step="$RSTEP $DIR/gate.$2.$r $GATE" ;;
        *) mode=off opts="--topomap=off" ;;
        esac
        f=$DIR/$2.$r/$1
        timeout -k 5 $LIMIT salloc -Q -t $((LIMIT / 60 + 1)) -N2 -n4 sh -c \
            "echo \$SLURM_JOB_ID > '$f.job'; s=\$(date +%s%N)
             srun -n4 $mpi $opts $step > '$f.out' 2> '$f.err' &
             echo \$! > '$f.pid'; wait \$!; rc=\$?; e=\$(date +%s%N); rm -f '$f.pid'
             echo \$rc \$s \$e > '$f.rc'" \
            > /dev/null 2>&1
        echo done > "$f.done"
        read -r rc s e < "$f.rc" 2> /dev/null || rc=killed
        echo "$2 $1 $r $mode $rc" >> "$DIR/steps"
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

# KILLS hits (kill -9 of a step's srun or scancel of its job) in PHASE: half
# while the steps start or wait at the gate, at random steps every 0.1-0.9 s
# (the gate of round 0 waits for $DIR/killed.half); the rest once the gate is
# open, on the recording steps, one after the other: while MPI starts, the
# ranks exchange and recordings are stored.
key() { f=${1#$DIR/}; echo "${f%.*}"; } # $DIR/PHASE.ROUND/ID.x -> PHASE.ROUND/ID
# hit PHASE N WHEN [STEP]: kill -9 the srun of STEP ($DIR/PHASE.ROUND/ID;
# default: a random running step of PHASE) when N is even, else scancel its
# job; "PHASE.ROUND/ID how, WHEN" in $DIR/kills when it hit.
hit() {
    f=${4:-}
    [ -n "$f" ] || f=$(ls "$DIR/$1".*/*.job 2> /dev/null | shuf | while read -r j; do
        [ -e "${j%.*}.done" ] || { echo "${j%.*}"; break; }
    done)
    [ -n "$f" ] || return 1
    if [ $(($2 % 2)) -eq 0 ]; then
        read -r pid 2> /dev/null < "$f.pid" && kill -9 "$pid" 2> /dev/null &&
            echo "$(key "$f.pid") kill -9 srun, $3" >> "$DIR/kills"
    else
        read -r job 2> /dev/null < "$f.job" && scancel "$job" 2> /dev/null &&
            echo "$(key "$f.job") scancel, $3" >> "$DIR/kills"
    fi
}
killer() { # PHASE
    k=0
    while [ ! -e "$DIR/stop" ] && [ $k -lt $((KILLS / 2)) ] && [ ! -e "$DIR/gate.$1.0" ]; do
        sleep "0.$(( $(od -An -N1 -tu1 /dev/urandom) % 9 + 1 ))"
        hit "$1" "$(od -An -N1 -tu1 /dev/urandom)" "before the gate" && k=$((k + 1))
    done
    touch "$DIR/killed.half"
    # After the gate: the recording steps still running, in a random order,
    # hit one after the other (few processes per hit: the host is loaded).
    while [ ! -e "$DIR/gate.$1.0" ] && [ ! -e "$DIR/stop" ]; do sleep 0.2; done
    i=0
    for f in $(ls "$DIR/$1".*/*.job 2> /dev/null | shuf); do
        [ $k -lt "$KILLS" ] && [ ! -e "$DIR/stop" ] || break
        id=${f##*/} r=${f%/*}
        [ $(((${id%.*} + ${r##*.}) % 3)) -eq 1 ] && [ ! -e "${f%.*}.done" ] || continue
        hit "$1" $i "after the gate" "${f%.*}" && k=$((k + 1))
        i=$((i + 1))
    done
}

# Open the gate of each round of PHASE once every step of it has all its tasks
# running or has ended, and (round 0 of chaos) half the kills are done (or
# after GATE seconds); "PHASE ROUND STEPS_RUNNING
# WAITED_S" in $DIR/gates, STEPS_RUNNING being Slurm's count at that moment.
gatekeeper() { # PHASE
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        t0=$(date +%s)
        while :; do
            ready=$(find "$DIR/$1.$r" \( -name '*.out' -o -name '*.done' \) -print0 |
                xargs -0 -r awk '{k = FILENAME; sub(/\.[a-z]+$/, "", k)} /^done$/ {ok[k] = 1}
                    FILENAME ~ /\.out$/ && FNR == 4 {ok[k] = 1} END {for (k in ok) c++; print c + 0}')
            [ "${ready:-0}" -ge "$N" ] && { [ "$1.$r" != chaos.0 ] || [ -e "$DIR/killed.half" ]; } && break
            [ $(($(date +%s) - t0)) -ge "$GATE" ] && break
            sleep 1
        done
        running=$(squeue -h -s -o %i 2> /dev/null | grep -Evc '\.(extern|batch)$')
        echo "$1 $r $running $(($(date +%s) - t0))" >> "$DIR/gates"
        touch "$DIR/gate.$1.$r"
        r=$((r + 1))
    done
}

phase() { # PHASE [killer]
    rm -f "$DIR/stop"
    r=0
    while [ $r -lt "$ROUNDS" ]; do mkdir -p "$DIR/$1.$r"; r=$((r + 1)); done
    replacer &
    rp=$!
    gatekeeper "$1" &
    gp=$!
    kp=
    if [ "${2:-}" = killer ]; then killer "$1" & kp=$!; fi
    pids=
    i=0
    while [ $i -lt "$N" ]; do worker $i "$1" & pids="$pids $!"; i=$((i + 1)); done
    for p in $pids; do wait "$p"; done
    touch "$DIR/stop"
    wait $rp $gp
    [ -n "$kp" ] && wait "$kp"
    return 0
}

# The steps of PHASE that failed: "PHASE.ROUND/ID MODE EXIT" (not exit 0, or
# not ranks 0..3 once each).
failures() { # PHASE
    awk -v p="$1" '$1 == p {print $3, $2, $4, $5}' "$DIR/steps" | while read -r r i mode rc; do
        ranks=$(awk '{print $1}' "$DIR/$1.$r/$i.out" 2> /dev/null | sort -n | tr '\n' ' ')
        [ "$rc" = 0 ] && [ "$ranks" = "0 1 2 3 " ] || echo "$1.$r/$i $mode $rc ranks: $ranks"
    done
}

# Errors of the plugin in the slurmd and slurmctld logs since the last call:
# their count, the lines in $DIR/errors; every error line in $DIR/errors.all.
plugin_errors() {
    : > "$DIR/errors"
    : > "$DIR/errors.all"
    for l in "$DIR"/cluster/log/slurm*.log; do
        k=$(basename "$l")
        from=$(cat "$DIR/logpos.$k" 2> /dev/null || echo 0)
        size=$(stat -c %s "$l")
        tail -c +$((from + 1)) "$l" | head -c $((size - from)) |
            grep -i 'error' | sed "s/^/$k: /" >> "$DIR/errors.all"
        echo "$size" > "$DIR/logpos.$k"
    done
    grep -Ei 'error.*(topomap:|spank)|(topomap:|spank).*error' "$DIR/errors.all" > "$DIR/errors"
    wc -l < "$DIR/errors"
}
plugin_errors > /dev/null

: > "$DIR/steps"
: > "$DIR/gates"
phase calm
steps=$(grep -c '^calm ' "$DIR/steps")
failures calm > "$DIR/failed.calm"
bad=$(wc -l < "$DIR/failed.calm")
ok $((bad != 0 || steps != N * ROUNDS)) "calm: $steps steps with the profile replaced $(cat "$DIR/replaced") times under them, every one ran its 4 tasks, ranks 0..3 ($bad did not)"
[ "$bad" -eq 0 ] || head -5 "$DIR/failed.calm" | diag
least=$(awk '$1 == "calm" {print $3}' "$DIR/gates" | sort -n | head -1)
ok $((${least:-0} < N)) "calm: $N steps in flight at once (Slurm's running steps at the gate, per round: $(awk '$1 == "calm" {printf "%s%s in %s s", s, $3, $4; s = ", "}' "$DIR/gates"))"
perr=$(plugin_errors)
ok $((perr != 0)) "calm: no error of the plugin in the slurmd and slurmctld logs ($perr)"
head -5 "$DIR/errors" | diag
# Slurm's own errors, by kind (numbers as N, timestamps dropped).
errkinds() { sed 's/\[[^]]*\] //; s/[0-9][0-9]*/N/g' "$DIR/errors.all" | sort | uniq -c | sort -rn | head -5; }
echo "# calm: $(wc -l < "$DIR/errors.all") error lines in the Slurm logs"
errkinds | diag

: > "$DIR/kills"
phase chaos killer
nk=$(wc -l < "$DIR/kills")
failures chaos > "$DIR/failed.chaos"
nf=$(wc -l < "$DIR/failed.chaos")
# A step may fail only when it was hit.
unhit=$(awk 'NR == FNR {hit[$1] = 1; next} !($1 in hit)' "$DIR/kills" "$DIR/failed.chaos")
nu=$(printf '%s' "$unhit" | grep -c .)
ok $((nu != 0)) "chaos: $nk steps hit ($(grep -c 'kill -9' "$DIR/kills") kill -9 of srun, $(grep -c scancel "$DIR/kills") scancel; $(grep -c 'after the gate' "$DIR/kills") after the gate), $nf failed, $nu of them not hit"
[ "$nu" -eq 0 ] || printf '%s\n' "$unhit" | head -5 | diag
echo "# chaos: running steps at the gate: $(awk '$1 == "chaos" {printf "%s%s in %s s", s, $3, $4; s = ", "}' "$DIR/gates")"
echo "# chaos: errors of the plugin in the logs: $(plugin_errors) (a killed step may leave some); $(wc -l < "$DIR/errors.all") error lines in all"
errkinds | diag

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
cat "$DIR"/calm.*/*.err 2> /dev/null | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn |
    head -8 | sed 's/^/# calm phase stderr: /'
# The calm phase, per mode: launch time (srun started -> its last task
# started), srun's whole time, and (auto) the decision's own time.
stats() { # LABEL: numbers on stdin
    sort -n | awk -v m="$1" '{v[NR] = $1} END {
        if (!NR) { print "# " m ": none"; exit }
        p = int(0.99 * NR + 0.999); if (p < 1) p = 1
        printf "# %s: median %d ms, p99 %d ms, max %d ms over %d steps\n", m, v[int((NR + 1) / 2)], v[p], v[NR], NR }'
}
for mode in off auto record; do
    awk -v m=$mode '$1 == "calm" && $4 == m && $5 == 0 {print $3, $2}' "$DIR/steps" |
        while read -r r i; do
            read -r rc s e < "$DIR/calm.$r/$i.rc"
            awk -v s="$s" '{if ($2 > t) t = $2} END {printf "%d\n", (t - s) / 1000000}' "$DIR/calm.$r/$i.out"
        done | stats "launch time, $mode"
done
for mode in off auto record; do
    awk -v m=$mode '$1 == "calm" && $4 == m && $5 == 0 {print $3, $2}' "$DIR/steps" |
        while read -r r i; do
            read -r rc s e < "$DIR/calm.$r/$i.rc"
            echo $(((e - s) / 1000000))
        done | stats "srun's whole time (the gate's wait included), $mode"
done
cat "$DIR"/calm.*/*.err 2> /dev/null | sed -n 's/.*topomap: .* \([0-9.]*\) ms: .*/\1/p' |
    awk '{printf "%d\n", $1 + 0.5}' | stats "decision's own time (--topomap-verbose), auto"
tap_done
