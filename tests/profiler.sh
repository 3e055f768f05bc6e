#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtopomap-profiler (profiler) on real MPI programs (tests/mpi/),
# with Debian's Open MPI and MPICH, C and Fortran (mpif.h and `use mpi`).
# Each recorded matrix is compared exactly with what the program must send,
# computed below (awk) from the program's parameters; the collective models
# likewise. Also:
# headers, the parallel write (one writer per group of ranks) against the
# write through rank 0, the binary format read back, the dispatcher and a
# wrongly chosen build (both re-execute the
# program with the right build), the default output name, unwritable output,
# MPI_Abort (nothing written), reading the profile back with libtopomap, and
# the Open MPI monitoring importer on a real monitoring run.
# An MPI library whose compiler, launcher or profiler build is missing is
# skipped, with the reason.
set -u
# TOPOMAP_SKIP_MPI=1 skips it (CI's sanitizer pass sets it).
case ${TOPOMAP_SKIP_MPI:-} in '' | 0) ;; *) echo "1..0 # SKIP TOPOMAP_SKIP_MPI=$TOPOMAP_SKIP_MPI"; exit 0 ;; esac
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$(pwd)/..}"
mpisrc=$top_srcdir/tests/mpi
pdir=$top_builddir/profiler
importer=$top_builddir/tests/import.t
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-profiler.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Containers often forbid the cross-process memory access of Open MPI's
# single-copy shared-memory path; it then warns on every run.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# A profiler built with AddressSanitizer (make PROFILER_CFLAGS=...) needs the
# sanitizer's runtime first in LD_PRELOAD; MPI libraries keep memory until exit.
pl() {
    asan=$(ldd "$1" 2>/dev/null | awk '$1 ~ /^libasan/ { print $3 }')
    echo "${asan:+$asan:}$1"
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

n=0
skip=
out() { echo "$@"; }
pass() { n=$((n + 1)); out "ok $n - $1"; }
fail() {
    n=$((n + 1))
    out "not ok $n - $1"
    [ -s "$tmp/why" ] && sed 's/^/#   /' "$tmp/why" | head -n 40
    return 0
}
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds; its output explains
# a failure. Under $skip, a skip with the reason.
check() {
    cdesc=$1
    shift
    if [ -n "$skip" ]; then
        n=$((n + 1))
        out "ok $n - $cdesc # SKIP $skip"
        return 0
    fi
    if "$@" >"$tmp/why" 2>&1; then pass "$cdesc"; else fail "$cdesc"; fi
}

# --------------------------------------------------------------------------
# What each program sends: "src dst bytes msgs" lines, sorted.
# --------------------------------------------------------------------------
expect() {
    prog=$1
    shift
    awk -v prog="$prog" -v args="$*" '
    function add(s, d, b, m) { B[s " " d] += b; M[s " " d] += m }
    function snd(i, j, b) { if (b > 0) add(W[i], W[j], b, 1) }
    function world(nn,   i) { for (i = 0; i < nn; i++) W[i] = i }
    function xor(a, b,   r, bit) {
        r = 0; bit = 1
        while (a > 0 || b > 0) {
            if (a % 2 != b % 2) r += bit
            a = int(a / 2); b = int(b / 2); bit *= 2
        }
        return r
    }
    function lowbit(r,   m) { m = 1; while (r % (2 * m) == 0) m *= 2; return m }
    # The collective models of profiler/coll.c, on ranks W[0..nn-1].
    function barrier(nn,   me, m) {
        for (me = 0; me < nn; me++) for (m = 1; m < nn; m *= 2) add(W[me], W[(me + m) % nn], 0, 1)
    }
    function bcast(nn, b, root,   me, r, lim, m) {
        for (me = 0; me < nn; me++) {
            r = (me - root + nn) % nn; lim = r ? lowbit(r) : nn
            for (m = 1; m < lim && r + m < nn; m *= 2) snd(me, (r + m + root) % nn, b)
        }
    }
    function reduce(nn, b, root,   me, r) {
        for (me = 0; me < nn; me++) {
            r = (me - root + nn) % nn
            if (r) snd(me, (r - lowbit(r) + root) % nn, b)
        }
    }
    function gather(nn, b, root,   me, r, cnt) {
        for (me = 0; me < nn; me++) {
            r = (me - root + nn) % nn
            if (!r) continue
            cnt = lowbit(r); if (nn - r < cnt) cnt = nn - r
            snd(me, (r - lowbit(r) + root) % nn, cnt * b)
        }
    }
    function scatter(nn, b, root,   me, r, lim, m, c, cnt) {
        for (me = 0; me < nn; me++) {
            r = (me - root + nn) % nn; lim = r ? lowbit(r) : nn
            for (m = 1; m < lim && r + m < nn; m *= 2) {
                c = r + m; cnt = m; if (nn - c < cnt) cnt = nn - c
                snd(me, (c + root) % nn, cnt * b)
            }
        }
    }
    function allreduce(nn, b,   pof2, rem, me, nr, m, nd) {
        pof2 = 1; while (pof2 * 2 <= nn) pof2 *= 2
        rem = nn - pof2
        for (me = 0; me < nn; me++) {
            if (me < 2 * rem) { if (me % 2 == 0) { snd(me, me + 1, b); nr = -1 } else nr = int(me / 2) }
            else nr = me - rem
            if (nr >= 0) for (m = 1; m < pof2; m *= 2) {
                nd = xor(nr, m); snd(me, nd < rem ? 2 * nd + 1 : nd + rem, b)
            }
            if (me < 2 * rem && me % 2 == 1) snd(me, me - 1, b)
        }
    }
    function scan(nn, b,   me, m, to) {
        for (me = 0; me < nn; me++) for (m = 1; m < nn; m *= 2) { to = xor(me, m); if (to < nn) snd(me, to, b) }
    }
    function allgather(nn, b,   me, s) {
        for (me = 0; me < nn; me++) for (s = 0; s < nn - 1; s++) snd(me, (me + 1) % nn, b)
    }
    function alltoall(nn, b,   me, j) {
        for (me = 0; me < nn; me++) for (j = 0; j < nn; j++) if (j != me) snd(me, j, b)
    }
    BEGIN {
        split(args, a, " ")
        if (prog == "ring") {              # n K C
            n = a[1]; K = a[2]; C = a[3]
            for (i = 0; i < n; i++) {
                add(i, (i + 1) % n, 2 * K * C * 4, 2 * K)
                add(i, (i - 1 + n) % n, K * 2 * C * 8, K)
                add(i, (i + 2) % n, K * C, K)
            }
            add(0, n - 1, (1 + 2 + 3 + 4 + 5 + 6) * 4, 6)
            add(1, 0, 0, 1)
            add(0, 1, 48, 1)
        } else if (prog == "halo2d") {     # PX PY K C
            px = a[1]; py = a[2]; K = a[3]; C = a[4]; n = px * py
            for (g = 0; g < n; g++) {
                x = int(g / py); y = g % py; w = n - 1 - g
                if (y > 0) add(w, n - 1 - (x * py + y - 1), K * C * 8, K)
                if (y < py - 1) add(w, n - 1 - (x * py + y + 1), K * C * 8, K)
                if (x > 0) add(w, n - 1 - ((x - 1) * py + y), K * 2 * C * 8, K)
                if (x < px - 1) add(w, n - 1 - ((x + 1) * py + y), K * 2 * C * 8, K)
            }
        } else if (prog == "persist") {    # n K C
            n = a[1]; K = a[2]; C = a[3]
            for (i = 0; i < n; i++) {
                add(i, (i + 1) % n, K * C * 4 + 4, K + 1)
                add(i, (i - 1 + n) % n, K * 2 * 4, K)
                for (j = 0; j < 100; j++) add(i, (i + 1) % n, (j % 3 + 1) * 4 * (1 + j % 2), 1 + j % 2)
            }
            add(0, n - 1, K * 3 * 8, K)
            add(n - 1, 0, K * 4 * 4, K)
        } else if (prog == "intercomm") {  # n K C
            n = a[1]; K = a[2]; C = a[3]; na = int((n + 1) / 2); nb = int(n / 2)
            for (i = 0; i < na; i++) add(2 * i, 2 * (i % nb) + 1, K * (i + 1) * 4, K)
            for (i = 0; i < nb; i++) add(2 * i + 1, 2 * ((i + 1) % na), K * C * 8, K)
            for (m = 0; m < n; m++) {
                t = (m + 1) % n
                add(m < na ? 2 * m : 2 * (m - na) + 1, t < na ? 2 * t : 2 * (t - na) + 1, 4, 1)
            }
        } else if (prog == "threads") {    # n K C
            n = a[1]; K = a[2]; C = a[3]
            for (i = 0; i < n; i++) add(i, (i + 1) % n, K * C * 4 * (1 + 2 + 3 + 4), 4 * K)
        } else if (prog == "usempi_f") {   # n K C
            n = a[1]; K = a[2]; C = a[3]
            for (i = 0; i < n; i++) add(i, (i + 1) % n, K * C * 4, K)
        } else if (prog == "colls") {      # n C: point-to-point part
            n = a[1]; C = a[2]
            for (i = 0; i < n; i++) add(i, (i + 1) % n, C * 4, 1)
        } else if (prog == "colls-coll") { # n C: the collectives
            n = a[1]; C = a[2]; world(n)
            barrier(n); bcast(n, 4 * C, 1); reduce(n, 8 * C, 2); allreduce(n, 4 * C)
            gather(n, 4 * C, 0)
            for (i = 0; i < n - 1; i++) snd(i, n - 1, (i + 1) * 4)
            scatter(n, 4 * C, 0)
            for (j = 0; j < n; j++) if (j != 1) snd(1, j, (j + 1) * 4)
            allgather(n, C)
            for (i = 0; i < n; i++) for (s = 0; s < n - 1; s++) snd(i, (i + 1) % n, ((i - s + n) % n + 1) * 4)
            alltoall(n, 8)
            for (i = 0; i < n; i++) for (j = 0; j < n; j++) if (j != i) snd(i, j, ((i + j) % 3) * 4)
            for (i = 0; i < n; i++) for (j = 0; j < n; j++) if (j != i) snd(i, j, ((i + j) % 2 + 1) * 4)
            for (i = 0; i < n; i++) for (j = 0; j < n; j++) if (j != i) snd(i, j, (j + 1) * 4)
            alltoall(n, 16)
            scan(n, 4 * C); scan(n, 4 * C)
            bcast(n, 12, 0); allreduce(n, 8)
            for (p = 0; p < 2; p++) {
                nn = 0; for (w = p; w < n; w += 2) W[nn++] = w
                bcast(nn, 16, 0); allreduce(nn, 8)
            }
        } else if (prog == "ring_f") {     # n K C
            n = a[1]; K = a[2]; C = a[3]
            for (i = 0; i < n; i++) {
                add(i, (i + 1) % n, 3 * K * C * 4, 3 * K)
                add(i, (i - 1 + n) % n, K * 2 * C * 8 + K * 4 + 12, 2 * K + 1)
                add(i, (i + 2) % n, K * C * 4, K)
            }
        } else if (prog == "ring_f-coll") {
            n = a[1]; K = a[2]; C = a[3]; world(n)
            barrier(n); bcast(n, 4 * C, 0); allreduce(n, 16); gather(n, 4 * C, 1)
            for (i = 0; i < n; i++) for (j = 0; j < n; j++) if (j != i) snd(i, j, ((i + j) % 3) * 4)
            allreduce(n, 4)
        } else {
            print "expect: unknown program " prog > "/dev/stderr"; exit 1
        }
        for (k in B) print k, B[k], M[k]
    }' >"$tmp/expect.raw" || return 1
    sort -n -k1,1 -k2,2 "$tmp/expect.raw"
}

# The data lines of a recorded profile, sorted like expect's.
data() { grep -v '^#' "$1" | sort -n -k1,1 -k2,2; }

# same PROFILE PROG ARGS...: the profile holds exactly what PROG sends.
same() {
    f=$1
    shift
    [ -f "$f" ] || { echo "no profile $f"; return 1; }
    expect "$@" >"$tmp/want" && data "$f" >"$tmp/got" || return 1
    diff "$tmp/want" "$tmp/got" >"$tmp/diff" && return 0
    echo "want (<) / recorded (>):"
    cat "$tmp/diff"
    return 1
}

# A launcher-independent way to give one program its environment: mpirun
# starts `sh wrap ENVFILE PROGRAM ARGS`, which sources ENVFILE and execs.
cat >"$tmp/wrap" <<'EOF'
. "$1"
shift
exec "$@"
EOF

# run FLAVOUR NP ENVFILE PROGRAM ARGS...: output in $tmp/run.log, status.
run() {
    rfl=$1 rnp=$2 renv=$3
    shift 3
    case $rfl in
    openmpi) $TO mpirun.openmpi --oversubscribe -np "$rnp" sh "$tmp/wrap" "$renv" "$@" ;;
    mpich) $TO mpiexec.mpich -n "$rnp" sh "$tmp/wrap" "$renv" "$@" ;;
    esac >"$tmp/run.log" 2>&1
}

# envfile NAME VAR=VALUE...: writes $tmp/NAME.env.
envfile() {
    e=$tmp/$1.env
    shift
    : >"$e"
    for kv in "$@"; do
        printf 'export %s=%s\n' "${kv%%=*}" "'${kv#*=}'" >>"$e"
    done
    echo "$e"
}

# ok_run FLAVOUR NP ENVFILE PROGRAM ARGS...: the run succeeds.
ok_run() {
    run "$@"
    rc=$?
    [ $rc -eq 0 ] && return 0
    echo "exit status $rc; output:"
    cat "$tmp/run.log"
    return 1
}

header_ok() { # FILE NRANKS APP LIBRARY-WORD BUILD
    head -n 1 "$1" | grep -qx "# nranks=$2" || { echo "first line: $(head -n 1 "$1")"; return 1; }
    grep -qx "# application=$3" "$1" || { echo "no application=$3"; return 1; }
    grep -q "^# counted=point-to-point sends" "$1" || { echo "no counted="; return 1; }
    grep -q "^# mpi_library=.*$4" "$1" || { echo "mpi_library does not name $4"; return 1; }
    grep -q "^# date=[0-9-]*T[0-9:]*Z\$" "$1" || { echo "no date="; return 1; }
    grep -q "^# profiler=libtopomap-profiler .*($5 build)" "$1" || { echo "not the $5 build"; return 1; }
}

no_files() { # PATTERN...: none of these exists
    for f in "$@"; do
        [ -e "$f" ] && { echo "$f exists"; return 1; }
    done
    return 0
}

# run_same FLAVOUR NP ENVFILE PROFILE EXPECTED... -- PROGRAM ARGS...: the run
# succeeds and PROFILE holds what `expect EXPECTED...` says.
run_same() {
    sfl=$1 snp=$2 senv=$3 sprof=$4
    shift 4
    sexp=
    while [ "$1" != "--" ]; do
        sexp="$sexp $1"
        shift
    done
    shift
    ok_run "$sfl" "$snp" "$senv" "$@" && same "$sprof" $sexp
}

# same_but_date A B: the files are equal once the date line is dropped.
same_but_date() {
    grep -v '^# date=' "$1" >"$tmp/a" && grep -v '^# date=' "$2" >"$tmp/b" && cmp "$tmp/a" "$tmp/b"
}

# bin_same FILE PROG ARGS...: FILE is in the binary format and, read by
# libtopomap (which checks its CRC), holds what PROG sends.
bin_same() {
    bf=$1
    shift
    head -c 8 "$bf" | od -c | grep -q 'T   M   P   R   O   F' || { echo "$bf: not binary"; return 1; }
    "$importer" --import "$bf" >"$bf.txt" || return 1
    same "$bf.txt" "$@"
}

# bin_meta BIN TXT: the binary profile read back has the text profile's
# header lines, apart from the date, the file names and the application.
bin_meta() {
    "$importer" --import "$1" >"$tmp/bm" || return 1
    grep '^#' "$tmp/bm" | grep -v '^# \(date\|collectives_file\)=' >"$tmp/a"
    grep '^#' "$2" | grep -v '^# \(date\|collectives_file\)=' >"$tmp/b"
    diff "$tmp/b" "$tmp/a"
}

# The profile goes to the current directory under its default name.
default_name() {
    (cd "$d/cwd" && run $fl 3 "$e" "$(bin ring)" 1 2) || { cat "$tmp/run.log"; return 1; }
    ls "$d/cwd"/topomap-profile.my.app.*.txt || return 1
    grep -qx '# application=my.app' "$d/cwd"/topomap-profile.my.app.*.txt
}

# The job succeeds without a profile and says why in one line.
unwritable() {
    ok_run $fl 3 "$e" "$(bin ring)" 1 2 || return 1
    cat "$tmp/run.log"
    grep -q "^topomap-profiler: cannot write $d/no/such/dir/p.txt.tmp.[0-9]*: No such file or directory: no profile written\$" "$tmp/run.log" &&
        no_files "$d/no/such/dir/p.txt"
}

# An aborted job (ring without arguments calls MPI_Abort) writes nothing.
aborted() {
    if run $fl 3 "$e" "$(bin ring)"; then
        echo "ring without arguments did not fail"
        return 1
    fi
    no_files "$d/abort.txt" "$d/abort.txt.tmp."*
}

# A recorded profile reads back through libtopomap's loader: same data and
# metadata when written again.
reads_back() {
    "$importer" --import "$d/ring.txt" >"$d/back.txt" || return 1
    grep -qx '# application=ring' "$d/back.txt" || return 1
    data "$d/back.txt" >"$tmp/a" && data "$d/ring.txt" >"$tmp/b" && diff "$tmp/a" "$tmp/b"
}

monitoring_run() {
    $TO mpirun.openmpi --oversubscribe -np 5 --mca pml_monitoring_enable 2 \
        --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$d/mon/prof" \
        "$(bin ring)" 3 10 >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; return 1; }
    ls "$d/mon/prof.0.prof" "$d/mon/prof.4.prof"
}

monitoring_import() {
    "$importer" --import "$d/mon/prof" >"$d/mon.txt" || return 1
    head -n 1 "$d/mon.txt" | grep -qx '# nranks=5'
}

# --------------------------------------------------------------------------
for fl in openmpi mpich; do
    case $fl in
    openmpi) cc=mpicc.openmpi fc=mpif90.openmpi launcher=mpirun.openmpi lib="Open MPI" other=mpich ;;
    mpich) cc=mpicc.mpich fc=mpif90.mpich launcher=mpiexec.mpich lib="MPICH" other=openmpi ;;
    esac
    so=$pdir/libtopomap-profiler-$fl.so
    skip=
    command -v $cc >/dev/null 2>&1 || skip="$cc not installed"
    [ -n "$skip" ] || command -v $launcher >/dev/null 2>&1 || skip="$launcher not installed"
    [ -n "$skip" ] || [ -f "$so" ] || skip="$so not built"
    d=$tmp/$fl
    mkdir -p "$d"
    bin() { echo "$d/$1"; }

    check "$fl: compile the C test programs" sh -c "
        for p in ring halo2d persist intercomm colls threads; do
            $cc -O1 -w -o '$d/'\$p '$mpisrc/'\$p.c -lpthread || exit 1
        done"

    # --- C: every send flavour, sub- and inter-communicators, persistence --
    e=$(envfile $fl-ring LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/ring.txt")
    check "$fl: ring runs under the profiler" ok_run $fl 5 "$e" "$(bin ring)" 3 10
    check "$fl: ring: every send flavour counted, PROC_NULL skipped" same "$d/ring.txt" ring 5 3 10
    check "$fl: ring: header (nranks first, application, counted, date, library)" \
        header_ok "$d/ring.txt" 5 ring "$lib" $fl
    e=$(envfile $fl-halo LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/halo.txt")
    check "$fl: 2D halo over MPI_Cart_sub communicators, world ranks" \
        run_same $fl 6 "$e" "$d/halo.txt" halo2d 3 2 2 5 -- "$(bin halo2d)" 3 2 2 5
    e=$(envfile $fl-persist LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/persist.txt")
    check "$fl: persistent sends counted at Start/Startall" \
        run_same $fl 4 "$e" "$d/persist.txt" persist 4 3 6 -- "$(bin persist)" 3 6
    e=$(envfile $fl-inter LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/inter.txt")
    check "$fl: inter-communicator (remote group) and its merge" \
        run_same $fl 5 "$e" "$d/inter.txt" intercomm 5 2 3 -- "$(bin intercomm)" 2 3

    e=$(envfile $fl-threads LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/threads.txt")
    check "$fl: MPI_THREAD_MULTIPLE, 4 threads per rank, world and sub-communicators" \
        run_same $fl 3 "$e" "$d/threads.txt" threads 3 40 3 -- "$(bin threads)" 40 3

    # --- collectives: off by default, modelled with the switch -------------
    e=$(envfile $fl-c0 LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/c0.txt")
    check "$fl: collectives are not in the default profile" \
        run_same $fl 5 "$e" "$d/c0.txt" colls 5 3 -- "$(bin colls)" 3
    check "$fl: no collectives file without the switch" no_files "$d/c0.txt.coll"
    for np in 5 4; do
        e=$(envfile $fl-c$np LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/c$np.txt" \
            TOPOMAP_PROFILE_COLLECTIVES=1)
        check "$fl: TOPOMAP_PROFILE_COLLECTIVES=1, $np ranks: point-to-point file unchanged" \
            run_same $fl $np "$e" "$d/c$np.txt" colls $np 3 -- "$(bin colls)" 3
        check "$fl: $np ranks: collectives file holds the documented models" \
            same "$d/c$np.txt.coll" colls-coll $np 3
    done

    # --- the write: one writer per group of ranks, or rank 0 alone -----------
    e=$(envfile $fl-g2 LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/g2.txt" TOPOMAP_PROFILE_GROUP=2)
    check "$fl: 3 writers of 2 ranks (TOPOMAP_PROFILE_GROUP=2): exact matrix" \
        run_same $fl 5 "$e" "$d/g2.txt" ring 5 3 10 -- "$(bin ring)" 3 10
    e=$(envfile $fl-r0 LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/r0.txt" TOPOMAP_PROFILE_WRITE=rank0)
    check "$fl: written through rank 0 (TOPOMAP_PROFILE_WRITE=rank0): exact matrix" \
        run_same $fl 5 "$e" "$d/r0.txt" ring 5 3 10 -- "$(bin ring)" 3 10
    check "$fl: both writes give the same file, byte for byte but the date" \
        same_but_date "$d/g2.txt" "$d/r0.txt"
    sk=$skip
    [ -n "$skip" ] || [ -x "$importer" ] || skip="$importer not built"
    for w in g2 r0; do
        case $w in g2) we=TOPOMAP_PROFILE_GROUP=2 ;; r0) we=TOPOMAP_PROFILE_WRITE=rank0 ;; esac
        e=$(envfile $fl-b$w LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/b$w.bin" \
            TOPOMAP_PROFILE_FORMAT=binary TOPOMAP_PROFILE_COLLECTIVES=1 $we)
        check "$fl: TOPOMAP_PROFILE_FORMAT=binary, $we: the run succeeds" \
            ok_run $fl 5 "$e" "$(bin colls)" 3
        check "$fl: binary, $we: read back (checksum), exact point-to-point matrix" \
            bin_same "$d/b$w.bin" colls 5 3
        check "$fl: binary, $we: read back, exact collectives matrix" \
            bin_same "$d/b$w.bin.coll" colls-coll 5 3
    done
    check "$fl: binary: the same metadata as the text profile" bin_meta "$d/bg2.bin" "$d/c5.txt"
    skip=$sk

    # --- Fortran (mpif.h) ---------------------------------------------------
    fskip=$skip
    [ -n "$skip" ] || command -v $fc >/dev/null 2>&1 || skip="$fc not installed"
    check "$fl: compile the Fortran test programs" sh -c "
        $fc -fallow-argument-mismatch -w -o '$d/ring_f' '$mpisrc/ring_f.f90' &&
        $fc -w -o '$d/usempi_f' '$mpisrc/usempi_f.f90'"
    e=$(envfile $fl-f LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/f.txt" TOPOMAP_PROFILE_COLLECTIVES=1)
    check "$fl: Fortran: sends, persistent, sub-communicator, each counted once" \
        run_same $fl 4 "$e" "$d/f.txt" ring_f 4 2 3 -- "$(bin ring_f)" 2 3
    check "$fl: Fortran: collectives through the Fortran bindings" same "$d/f.txt.coll" ring_f-coll 4 2 3
    e=$(envfile $fl-u LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/u.txt")
    check "$fl: Fortran \`use mpi\`" \
        run_same $fl 3 "$e" "$d/u.txt" usempi_f 3 4 5 -- "$(bin usempi_f)" 4 5
    skip=$fskip

    # --- choosing the build ----------------------------------------------------
    e=$(envfile $fl-disp LD_PRELOAD="$(pl "$pdir/libtopomap-profiler.so")" TOPOMAP_PROFILE_OUT="$d/disp.txt")
    check "$fl: the dispatcher re-executes with the $fl build" \
        run_same $fl 4 "$e" "$d/disp.txt" persist 4 2 5 -- "$(bin persist)" 2 5
    check "$fl: dispatcher: profile written by the $fl build" \
        grep -q "(${fl} build)" "$d/disp.txt"
    if [ -f "$pdir/libtopomap-profiler-$other.so" ]; then
        e=$(envfile $fl-wrong LD_PRELOAD="$(pl "$pdir/libtopomap-profiler-$other.so")" \
            TOPOMAP_PROFILE_OUT="$d/wrong.txt")
        check "$fl: the $other build preloaded by mistake hands over to the $fl build" \
            run_same $fl 4 "$e" "$d/wrong.txt" persist 4 2 5 -- "$(bin persist)" 2 5
    else
        sk=$skip
        skip=${skip:-no $other build}
        check "$fl: the $other build preloaded by mistake hands over" true
        skip=$sk
    fi

    # --- names, failures -------------------------------------------------------
    mkdir -p "$d/cwd"
    e=$(envfile $fl-def LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_APP=my.app)
    check "$fl: default name topomap-profile.APP.*.txt, TOPOMAP_PROFILE_APP" default_name
    e=$(envfile $fl-nowrite LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/no/such/dir/p.txt")
    check "$fl: unwritable output: the job succeeds, one line says why" unwritable
    e=$(envfile $fl-abort LD_PRELOAD="$(pl "$so")" TOPOMAP_PROFILE_OUT="$d/abort.txt")
    check "$fl: MPI_Abort: nothing written" aborted
    sk=$skip
    [ -n "$skip" ] || [ -x "$importer" ] || skip="$importer not built"
    check "$fl: the profile reads back with libtopomap's loader" reads_back
    skip=$sk

    # --- Open MPI's own monitoring, imported ------------------------------------
    if [ $fl = openmpi ]; then
        [ -n "$skip" ] || [ -x "$importer" ] || skip="$importer not built"
        mkdir -p "$d/mon"
        check "openmpi: a monitoring run (pml_monitoring_enable=2) writes one file per rank" \
            monitoring_run
        check "openmpi: the importer reads it by PREFIX" monitoring_import
        check "openmpi: imported E lines equal exactly what ring sent" same "$d/mon.txt" ring 5 3 10
    fi
done

# --- outside MPI programs ---------------------------------------------------------
skip=
[ -f "$pdir/libtopomap-profiler.so" ] || skip="$pdir/libtopomap-profiler.so not built"
check "dispatcher in a program without MPI: no effect" sh -c "
    test \"\$(LD_PRELOAD='$(pl "$pdir/libtopomap-profiler.so")' sh -c 'echo hello' 2>&1)\" = hello"
skip=
[ -f "$pdir/libtopomap-profiler-openmpi.so" ] || skip="no openmpi build"
check "the openmpi build preloaded into a program without MPI: no effect" sh -c "
    test \"\$(LD_PRELOAD='$(pl "$pdir/libtopomap-profiler-openmpi.so")' sh -c 'echo hello' 2>&1)\" = hello"
skip=
[ -f "$pdir/libtopomap-profiler-mpich.so" ] || skip="no mpich build"
check "the mpich build preloaded into a program without MPI: no effect" sh -c "
    test \"\$(LD_PRELOAD='$(pl "$pdir/libtopomap-profiler-mpich.so")' sh -c 'echo hello' 2>&1)\" = hello"

echo "1..$n"
