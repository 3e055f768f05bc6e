#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make benefit-train's MPI program (contrib/netemu/train_step.c) on this
# host, without namespaces (emitting TAP): built with Debian's Open MPI, run
# on 8 ranks with small buffers, the sends it makes in one step (counted
# where MPI is called, TRAIN_STEP_MATRIX) must be exactly the profile that
# `topomap profile synth` writes for the same layout and bytes; on three
# layouts (Megatron's order with pipeline stages, experts with another
# order, CP). Skipped without mpicc.openmpi and mpirun.openmpi;
# TOPOMAP_SKIP_MPI=1 skips it (CI's sanitizer pass).
set -u
case ${TOPOMAP_SKIP_MPI:-} in '' | 0) ;; *) echo "1..0 # SKIP TOPOMAP_SKIP_MPI=$TOPOMAP_SKIP_MPI"; exit 0 ;; esac
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TOPOMAP=$top_builddir/cli/topomap
for t in mpicc.openmpi mpirun.openmpi; do
    command -v $t > /dev/null || { echo "1..0 # SKIP $t not found (Debian: libopenmpi-dev, openmpi-bin)"; exit 0; }
done
[ -f "$top_builddir/libtopomap/.libs/libtopomap.so" ] ||
    { echo "1..0 # SKIP no shared libtopomap (configured with --disable-shared)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-trainstep.XXXXXX") || { echo "1..0 # SKIP no temporary directory"; exit 0; }
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
TO=
command -v timeout > /dev/null 2>&1 && TO="timeout 60"

. "$top_srcdir/tests/tap.sh"

mpicc.openmpi -O1 -I"$top_srcdir/libtopomap" -o "$tmp/train_step" \
    "$top_srcdir/contrib/netemu/train_step.c" -L"$top_builddir/libtopomap/.libs" -ltopomap \
    -Wl,-rpath,"$top_builddir/libtopomap/.libs" 2> "$tmp/cc.err"
check $? "train_step.c builds with mpicc.openmpi"
[ -x "$tmp/train_step" ] || { echo "1..$n"; sed 's/^/# /' "$tmp/cc.err"; exit 1; }

# LAYOUT BYTES: the warm-up step's sends against profile synth's profile.
same_as_synth() {
    synth=$(echo "$1" | tr ',' '\n' | sed 's/^\([a-z]*\)=/--\1 /' | tr '\n' ' ')
    rm -f "$tmp/m.txt"
    TRAIN_STEP_MATRIX=$tmp/m.txt $TO mpirun.openmpi --oversubscribe -np 8 --bind-to none \
        --mca btl self,vader "$tmp/train_step" "$1" "$2" 1 > "$tmp/out" 2> "$tmp/err"
    grep -q '^train: loop_time_s=[0-9.]* step_s=[0-9.]* ranks=8$' "$tmp/out"
    check $? "$1 ($2): runs on 8 ranks, prints its loop time"
    # shellcheck disable=SC2086
    "$TOPOMAP" profile synth "$tmp/s.txt" $synth --bytes "$2" > /dev/null 2>&1 &&
        grep -v '^#' "$tmp/s.txt" | sort > "$tmp/s.sorted" && [ -s "$tmp/s.sorted" ] &&
        [ -s "$tmp/m.txt" ] && sort "$tmp/m.txt" | cmp -s - "$tmp/s.sorted"
    check $? "$1 ($2): its sends are profile synth's, pair by pair ($(wc -l < "$tmp/s.sorted" 2> /dev/null) pairs)"
}
same_as_synth tp=4,pp=2 tp=4000,pp=300
same_as_synth tp=2,ep=2,dp=4,order=dp-tp-pp tp=1000,dp=2000,ep=400
same_as_synth tp=2,cp=2,dp=2 tp=1000,cp=600,dp=800

# A layout that is not the job's: one line, exit status not 0.
$TO mpirun.openmpi --oversubscribe -np 8 --bind-to none --mca btl self,vader \
    "$tmp/train_step" tp=3 tp=100 1 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -q "train_step: the layout's ranks are not the job's" "$tmp/err"
check $? "tp=3 on 8 ranks: refused (exit $rc)"

tap_done
