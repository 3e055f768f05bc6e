#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer harnesses of tests/fuzz under AddressSanitizer and
# UBSan (clang), replay the regression inputs of regress/HARNESS/, then fuzz
# each harness for SECONDS from a seed corpus made of the project's test data
# (tests/data, topologies/) and seeds/HARNESS/. Any finding (a sanitizer
# error, a crash, a broken property, a timeout, a leak, too much memory)
# makes the exit status 1; its input is kept under the output directory, to
# be added to regress/HARNESS/ once fixed.
#
#   tests/fuzz/run.sh [-t SECONDS] [-o DIR] [-k] [HARNESS...]
#     -t SECONDS  fuzzing time per harness (default: $TOPOMAP_FUZZ_TIME or 30)
#     -o DIR      where the build, corpora and findings go (default: a new
#                 directory under /tmp, removed at the end unless -k or a finding)
#     -k          keep the output directory
#     HARNESS     fuzz_profile, fuzz_yaml, ... (default: all)
# An input that runs longer than $TOPOMAP_FUZZ_TIMEOUT seconds (60) is a
# finding too (quadratic or endless work); on a loaded machine raise it.
# The working tree is copied (tracked and untracked files git does not ignore),
# so uncommitted changes are fuzzed too.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${TOPOMAP_FUZZ_TIME:-30}
timeout=${TOPOMAP_FUZZ_TIMEOUT:-60}
out= keep=0
while getopts "t:o:kh" opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    o) out=$OPTARG ;;
    k) keep=1 ;;
    *) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
all="fuzz_profile fuzz_ompi fuzz_yaml fuzz_slurmconf fuzz_hostlist fuzz_mapping fuzz_store
     fuzz_site fuzz_srun fuzz_cpulist fuzz_bind"
harnesses=${*:-$all}
command -v clang >/dev/null || { echo "fuzz: clang not found (contrib/install-deps.sh installs it)"; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/topomap-fuzz.XXXXXX)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
build=$out/build
log=$out/build.log

# ---- build ------------------------------------------------------------------
# The tree is copied over the build each time (file times kept, so make
# rebuilds what changed); configure runs once per output directory.
mkdir -p "$build"
if git -C "$src" rev-parse >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z -c -o --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -xf - -C "$build"
else
    cp -a "$src/." "$build/"
fi
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
echo "fuzz: building the harnesses in $build (clang, ASan + UBSan)"
(cd "$build" && { [ -f Makefile ] || { ./autogen.sh && ./configure -q --enable-fuzzing \
    --disable-shared --enable-static --without-slurm --disable-openmp CC=clang \
    CFLAGS="-g -O1 -fsanitize=fuzzer-no-link $san" LDFLAGS="$san"; }; } &&
    make -j2 -C core && make -j2 -C spank libtopomap-spank.la && make -j2 -C tests/fuzz) \
    > "$log" 2>&1 ||
    { tail -30 "$log"; echo "fuzz: build failed (log: $log)"; exit 1; }

# ---- corpora ------------------------------------------------------------------
# Seed file with a leading byte (the harnesses' option byte).
prefixed() { # BYTE(octal) FILE DEST
    { printf "\\$1"; cat "$2"; } > "$3"
}
corpus() { # HARNESS: fill $out/corpus/HARNESS
    local h=$1 c=$out/corpus/$1 d=$src/tests/data f k=0
    rm -rf "$c" && mkdir -p "$c"
    case $h in
    fuzz_profile | fuzz_store)
        for f in "$d"/profiles/* "$d"/slurm/*.txt; do
            case $f in
            *.meta) continue ;;
            *.mtx) prefixed 002 "$f" "$c/$k" ;;
            *.mat) prefixed 001 "$f" "$c/$k" ;;
            *.dense) prefixed 003 "$f" "$c/$k" ;;
            *) prefixed 000 "$f" "$c/$k" ;;
            esac
            k=$((k + 1))
        done
        # gzip data too: every reader decompresses it (core/input.c).
        { printf '\000'; gzip -c "$d/profiles/small.txt"; } > "$c/gz" ;;
    fuzz_yaml)
        cp "$src"/topologies/*.yaml "$d"/topologies/*.yaml "$d"/topologies/bad/*.yaml \
            "$d"/slurm/*.yaml "$c"/ ;;
    fuzz_slurmconf)
        cp "$d"/topologies/*.conf "$d"/topologies/bad/*.conf "$c"/ ;;
    esac
    [ -d "$src/tests/fuzz/seeds/${h#fuzz_}" ] && cp "$src/tests/fuzz/seeds/${h#fuzz_}"/* "$c"/
    [ -d "$src/tests/fuzz/regress/${h#fuzz_}" ] && cp "$src/tests/fuzz/regress/${h#fuzz_}"/* "$c"/
    return 0
}

# ---- replay and fuzz ------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
findings=0
for h in $harnesses; do
    bin=$build/tests/fuzz/$h
    [ -x "$bin" ] || { echo "fuzz: $h: no such harness"; findings=$((findings + 1)); continue; }
    name=${h#fuzz_}
    dict=()
    [ -f "$src/tests/fuzz/dicts/$name.dict" ] && dict=(-dict="$src/tests/fuzz/dicts/$name.dict")
    mkdir -p "$out/findings"
    # Every regression input once: they must all pass.
    reg=()
    for f in "$src/tests/fuzz/regress/$name"/*; do [ -e "$f" ] && reg+=("$f"); done
    if [ ${#reg[@]} -gt 0 ]; then
        if ! "$bin" -timeout="$timeout" -rss_limit_mb=2048 "${reg[@]}" > "$out/$h.replay.log" 2>&1; then
            echo "fuzz: $h: FINDING while replaying regress/$name (log: $out/$h.replay.log)"
            tail -20 "$out/$h.replay.log"
            findings=$((findings + 1))
            continue
        fi
    fi
    corpus "$h"
    "$bin" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$out/findings/$h-" "${dict[@]}" \
        "$out/corpus/$h" > "$out/$h.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log" | tail -1)
    if [ $rc -ne 0 ]; then
        echo "fuzz: $h: FINDING after ${runs:-?} runs (log: $out/$h.log)"
        grep -E "^(==[0-9]+==ERROR|SUMMARY|fuzz: property|.*runtime error)" "$out/$h.log" | head -5
        ls "$out/findings/$h-"* 2>/dev/null | sed 's/^/  input: /'
        findings=$((findings + 1))
    else
        echo "fuzz: $h: ${runs:-?} runs in ${seconds}s, ${#reg[@]} regression inputs, no finding"
    fi
done
echo "fuzz: $(echo $harnesses | wc -w) harnesses, $findings with findings"
if [ $findings -eq 0 ] && [ $keep -eq 0 ]; then rm -rf "$out"; else echo "fuzz: output kept in $out"; fi
[ $findings -eq 0 ]
