#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The profile store on a slow filesystem: the store sits behind
# slowfs (tests/slowfs.c, a FUSE passthrough that sleeps before every
# operation, its delay changed between the checks), on the local Slurm
# cluster of tests/slurm_lib.sh with time_limit=1000 (ms). Checks:
#  - no delay, then a small one: --topomap=auto reads the profile through
#    FUSE and remaps, one line;
#  - a delay past time_limit (3 s per operation, some 30 operations per
#    lookup): one line naming time_limit, the step runs with Slurm's layout
#    (the same nodes as --topomap=off), exit 0, and srun waited no longer than
#    time_limit for the store (the lookup runs in a thread, left behind at
#    the deadline: spank/decide.c);
#  - a writer (topomap profile add) killed in the middle of a slow write,
#    once its temporary file exists: the profile under its name is the old
#    one, whole, and the temporary file is not listed; a slow write that ends
#    replaces it whole;
#  - a recording (--topomap-record of an MPICH program; slurmstepd stores it
#    when task 0 ends) on the slow store: stored whole, no temporary file.
# Skips, saying why, without root, Slurm, /dev/fuse, the slowfs program
# (libfuse3-dev at configure) or a working FUSE mount.
. "$(dirname "$0")/slurm_lib.sh"
SLOWFS=$top_builddir/tests/slowfs
[ -c /dev/fuse ] || skip_all "/dev/fuse is missing (no FUSE in this kernel or container): no slow filesystem to test on"
[ -x "$SLOWFS" ] || skip_all "tests/slowfs was not built (libfuse3-dev missing at configure: contrib/install-deps.sh installs it)"
command -v mountpoint > /dev/null 2>&1 || skip_all "mountpoint is not installed (apt-get install util-linux)"
TOPO=$DATA/mesh-2x2-2core.yaml
MNT=$DIR/mnt
STORE=$MNT/store
mkdir -p "$DIR/src" "$MNT" "$DIR/tmp"
echo 0 > "$DIR/delay"
"$SLOWFS" "$DIR/delay" "$DIR/src" "$MNT" -f > "$DIR/slowfs.log" 2>&1 &
sfpid=$!
trap 'umount "$MNT" 2> /dev/null || umount -l "$MNT" 2> /dev/null; kill $sfpid 2> /dev/null; cleanup' EXIT
i=0
while ! mountpoint -q "$MNT" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
mountpoint -q "$MNT" || skip_all "slowfs could not mount on $MNT: $(grep -v 'max threads' "$DIR/slowfs.log" | head -1)"
export TMPDIR="$DIR/tmp"
delay() { echo "$1" > "$DIR/delay"; }

# Site profiles: pair8 (ranks i and i+4 talk), which auto remaps.
"$TOPOMAP" profile add pair8 "$DATA/pair8.txt" --site --store "$STORE" > /dev/null
ok $? "a profile stored through slowfs"
cp "$STORE/pair8.profile" "$DIR/pair8.old"
PROFILER=$top_builddir/profiler/libtopomap-profiler.so
mkdir -p "$DIR/spool"
slurm_start 2 "topology=$TOPO profiles=$STORE time_limit=1000 profiler=$PROFILER spool=$DIR/spool"

# One line per rank, in rank order: "RANK NODE"; the time it started on stderr.
SHOW='echo "$SLURM_PROCID $SLURMD_NODENAME"; date +%s%N >&2'
# step OUT SRUN-OPTIONS...: 8 ranks on the 4 nodes; OUT.err (srun's lines),
# OUT.rc ("EXIT MS LAUNCH_MS": srun's time, and from its start to its first
# task's).
step() {
    out=$1
    shift
    $SALLOC -N4 --exclusive sh -c 's=$(date +%s%N); echo $s > "$0.start"; srun -n8 "$@"' "$out" "$@" \
        sh -c "$SHOW" 2> "$out.all" | sort -n > "$out"
    rc=$?
    e=$(date +%s%N)
    grep -Ev '^[0-9]+$' "$out.all" > "$out.err"
    read -r s < "$out.start"
    echo "$rc $(((e - s) / 1000000)) $(awk -v s="$s" '/^[0-9]+$/ && (!t || $1 < t) {t = $1}
        END {printf "%d", (t - s) / 1000000}' "$out.all")" > "$out.rc"
}
lines() { grep -c 'topomap' "$1"; }

step "$DIR/off" --topomap=off
[ "$(cut -d' ' -f1 "$DIR/off.rc")" = 0 ] && [ "$(wc -l < "$DIR/off")" = 8 ]
ok $? "Slurm's layout (--topomap=off): 8 ranks"

delay 0
step "$DIR/fast" --topomap=auto --topomap-profile=pair8 --topomap-verbose
[ "$(cut -d' ' -f1 "$DIR/fast.rc")" = 0 ] && [ "$(lines "$DIR/fast.err")" = 1 ] &&
    grep -q ': remapped$' "$DIR/fast.err" && ! cmp -s "$DIR/fast" "$DIR/off"
ok $? "no delay: auto read the profile through FUSE and remapped, one line ($(cut -d' ' -f2 "$DIR/fast.rc") ms)"
diag "$DIR/fast.err"

delay 20
step "$DIR/slow20" --topomap=auto --topomap-profile=pair8 --topomap-verbose
[ "$(cut -d' ' -f1 "$DIR/slow20.rc")" = 0 ] && [ "$(lines "$DIR/slow20.err")" = 1 ] &&
    grep -q ': remapped$' "$DIR/slow20.err" && cmp -s "$DIR/slow20" "$DIR/fast"
ok $? "20 ms per operation: remapped as without delay, one line ($(cut -d' ' -f2 "$DIR/slow20.rc") ms)"
diag "$DIR/slow20.err"

# Past time_limit=1000: each operation of the lookup takes 3 s (waited for,
# the lookup alone would hold srun some 90 s).
delay 3000
step "$DIR/slow" --topomap=auto --topomap-profile=pair8 --topomap-verbose
delay 0
[ "$(cut -d' ' -f1 "$DIR/slow.rc")" = 0 ] && [ "$(lines "$DIR/slow.err")" = 1 ] &&
    grep -q "within time_limit=1000ms (its filesystem is slow or hung); using Slurm's default layout" "$DIR/slow.err"
ok $? "3 s per operation: one line naming time_limit, exit 0"
diag "$DIR/slow.err"
cmp -s "$DIR/slow" "$DIR/off"
ok $? "... and the step ran with Slurm's layout"
off_ms=$(cut -d' ' -f3 "$DIR/off.rc") slow_ms=$(cut -d' ' -f3 "$DIR/slow.rc")
[ "$slow_ms" -lt $((off_ms + 1000 + 10000)) ]
ok $? "... its first task started $slow_ms ms after srun, --topomap=off's $off_ms ms: the launch waited for the store no longer than time_limit (10 s allowed for a loaded host)"
echo "# srun's whole time: $(cut -d' ' -f2 "$DIR/slow.rc") ms, --topomap=off's $(cut -d' ' -f2 "$DIR/off.rc") ms (srun's exit waits for the FUSE operation under way, up to 3 s)"

# A writer killed in the middle of a slow write: the profile under its name
# stays the old one, whole. The new profile is ring8 (it places differently).
i=0
while [ $i -lt 8 ]; do echo "$i $(((i + 1) % 8)) 100"; i=$((i + 1)); done > "$DIR/ring8.txt"
echo "# nranks=8" >> "$DIR/ring8.txt"
delay 300
"$TOPOMAP" profile add pair8 "$DIR/ring8.txt" --site --store "$STORE" > /dev/null 2>&1 &
wp=$!
# Its temporary file, seen on the source directory (no delay there).
i=0
while [ -z "$(find "$DIR/src/store" -maxdepth 1 -name '.pair8*')" ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
kill -9 $wp 2> /dev/null
killed=$?
wait $wp 2> /dev/null
delay 0
cmp -s "$STORE/pair8.profile" "$DIR/pair8.old" && "$TOPOMAP" stats --profile "$STORE/pair8.profile" > /dev/null
ok $((killed != 0 || $? != 0)) "a writer killed in a slow write (300 ms per operation), its temporary file written: the old profile, whole"
tmp=$(find "$DIR/src/store" -maxdepth 1 -name '.pair8*' | wc -l)
"$TOPOMAP" profile list --store "$STORE" > "$DIR/list" 2>&1
[ "$tmp" = 1 ] && ! grep -q '\.pair8' "$DIR/list" && grep -q pair8 "$DIR/list"
ok $? "... the temporary file it leaves ($tmp, mode $(stat -c %a "$DIR"/src/store/.pair8* 2> /dev/null)) is not listed, pair8 is"

delay 100
s=$(date +%s%N)
"$TOPOMAP" profile add pair8 "$DIR/ring8.txt" --site --store "$STORE" > /dev/null
rc=$?
ms=$((($(date +%s%N) - s) / 1000000))
delay 0
"$TOPOMAP" stats --profile "$STORE/pair8.profile" > /dev/null && ! cmp -s "$STORE/pair8.profile" "$DIR/pair8.old"
ok $((rc != 0 || $? != 0)) "a slow write that ends (100 ms per operation, $ms ms) replaces the profile, whole"

# A recording stored on the slow store (100 ms per call), of the profiler's
# test program (tests/mpi/ring.c, once each message).
if ! command -v mpicc.mpich > /dev/null 2>&1; then
    skip "a recording on the slow store: mpicc.mpich not available"
elif [ ! -f "${PROFILER%.so}-mpich.so" ]; then
    skip "a recording on the slow store: libtopomap-profiler (MPICH build) not built"
elif ! mpicc.mpich -o "$DIR/ring" "$top_srcdir/tests/mpi/ring.c" 2> "$DIR/cc.err"; then
    skip "a recording on the slow store: mpicc.mpich failed ($(head -1 "$DIR/cc.err"))"
else
    s=$(date +%s%N)
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=fastrec "$DIR/ring" 1 1 > /dev/null 2>&1
    fast=$((($(date +%s%N) - s) / 1000000))
    delay 100
    s=$(date +%s%N)
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=slowrec "$DIR/ring" 1 1 > /dev/null 2> "$DIR/rec.err"
    rc=$?
    ms=$((($(date +%s%N) - s) / 1000000))
    delay 0
    f=$(find "$DIR/src/store" -name slowrec.profile)
    left=$(find "$DIR/src/store" -name '.slowrec*' | wc -l)
    [ "$rc" = 0 ] && [ -n "$f" ] && "$TOPOMAP" stats --profile "$f" > /dev/null 2>&1 && [ "$left" = 0 ]
    ok $? "a recording on the store with 100 ms per call: stored whole, no temporary file (exit $rc, $ms ms; without delay $fast ms)"
    diag "$DIR/rec.err"
fi

tap_done
