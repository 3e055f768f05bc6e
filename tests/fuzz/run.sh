#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer harnesses of tests/fuzz under AddressSanitizer and
# UBSan (clang), replay the regression inputs of regress/HARNESS/ and the kept
# corpus corpus/HARNESS/, then fuzz each harness for SECONDS from a copy (under
# the output directory: the tree stays clean) of that corpus, seeds/HARNESS/
# and the project's test data (tests/data, topologies/). Any finding (a
# sanitizer error, a crash, a broken property, a timeout, a leak, too much
# memory) makes the exit status 1; its input is kept under the output
# directory, to be added to regress/HARNESS/ once fixed.
#
#   tests/fuzz/run.sh [-t SECONDS | -T TOTAL] [-m] [-o DIR] [-k] [HARNESS...]
#     -t SECONDS  fuzzing time per harness (default: $TOPOMAP_FUZZ_TIME or 30)
#     -T TOTAL    fuzzing time of the whole run, split evenly over the harnesses
#     -m          merge what the run found into corpus/HARNESS/ (libFuzzer's
#                 -merge=1 on edges alone, -use_counters=0: the smallest
#                 inputs that keep every edge covered), then keep the
#                 smallest of them within 600 files and 1 MB (make
#                 fuzz-long); without -m the tree is not written
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
out= keep=0 merge=0 total=
while getopts "t:T:o:kmh" opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    T) total=$OPTARG ;;
    m) merge=1 ;;
    o) out=$OPTARG ;;
    k) keep=1 ;;
    *) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
all="fuzz_profile fuzz_ompi fuzz_yaml fuzz_slurmconf fuzz_hostlist fuzz_mapping fuzz_store
     fuzz_site fuzz_srun fuzz_cpulist fuzz_bind fuzz_profile_bin fuzz_slurmyaml fuzz_slurmblock
     fuzz_reorder"
harnesses=${*:-$all}
if [ -n "$total" ]; then
    seconds=$((total / $(echo $harnesses | wc -w)))
    [ "$seconds" -ge 1 ] || seconds=1
fi
# Bounds of a kept corpus (-m): files and bytes per harness.
max_files=600 max_bytes=1048576
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
    make -j2 -C libtopomap && make -j2 -C spank libtopomap-spank.la && make -j2 -C tests/fuzz) \
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
        # gzip data too: every reader decompresses it (libtopomap/input.c).
        { printf '\000'; gzip -c "$d/profiles/small.txt"; } > "$c/gz" ;;
    fuzz_yaml)
        cp "$src"/topologies/*.yaml "$d"/topologies/*.yaml "$d"/topologies/bad/*.yaml \
            "$d"/slurm/*.yaml "$c"/ ;;
    fuzz_slurmconf | fuzz_slurmblock)
        cp "$d"/topologies/*.conf "$d"/topologies/bad/*.conf "$c"/ ;;
    fuzz_slurmyaml)
        for f in "$d"/topologies/slurm-*.yaml "$d"/topologies/bad/syaml-*.yaml; do
            prefixed 000 "$f" "$c/$k"
            k=$((k + 1))
        done ;;
    esac
    [ -d "$src/tests/fuzz/corpus/${h#fuzz_}" ] && cp "$src/tests/fuzz/corpus/${h#fuzz_}"/* "$c"/ 2>/dev/null
    [ -d "$src/tests/fuzz/seeds/${h#fuzz_}" ] && cp "$src/tests/fuzz/seeds/${h#fuzz_}"/* "$c"/
    [ -d "$src/tests/fuzz/regress/${h#fuzz_}" ] && cp "$src/tests/fuzz/regress/${h#fuzz_}"/* "$c"/
    return 0
}

# -m: corpus/HARNESS becomes the minimal merge of itself and what this run
# fuzzed, then the smallest inputs within the bounds.
merge_corpus() { # HARNESS BINARY
    local name=${1#fuzz_} new=$out/merged/$1 f files=0 bytes=0 size
    local dest=$src/tests/fuzz/corpus/$name
    rm -rf "$new" "$new.kept" && mkdir -p "$new" "$dest" || return 1
    # Edges alone: with hit counts and value profiles as features nearly
    # every input adds one, and the kept corpus only grows.
    "$2" -merge=1 -use_counters=0 -use_value_profile=0 -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len=16384 "$new" "$dest" "$out/corpus/$1" > "$out/$1.merge.log" 2>&1 || return 1
    mkdir -p "$new.kept"
    for f in $(ls -Sr "$new"); do
        size=$(stat -c %s "$new/$f")
        [ $files -lt $max_files ] && [ $((bytes + size)) -le $max_bytes ] || continue
        cp "$new/$f" "$new.kept/" && files=$((files + 1)) && bytes=$((bytes + size))
    done
    rm -f "$dest"/* && { [ $files -eq 0 ] || cp "$new.kept"/* "$dest"/; } || return 1
    echo "fuzz: $1: corpus/$name now $files inputs, $bytes bytes ($(ls "$new" | wc -l) after merging)"
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
    reg=() kept=0
    for f in "$src/tests/fuzz/regress/$name"/*; do [ -e "$f" ] && reg+=("$f"); done
    nreg=${#reg[@]}
    for f in "$src/tests/fuzz/corpus/$name"/*; do [ -e "$f" ] && reg+=("$f") && kept=$((kept + 1)); done
    if [ ${#reg[@]} -gt 0 ]; then
        if ! "$bin" -timeout="$timeout" -rss_limit_mb=2048 "${reg[@]}" > "$out/$h.replay.log" 2>&1; then
            echo "fuzz: $h: FINDING while replaying regress/$name and corpus/$name (log: $out/$h.replay.log)"
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
        echo "fuzz: $h: ${runs:-?} runs in ${seconds}s, $nreg regression inputs, $kept kept" \
            "inputs replayed, no finding"
    fi
    if [ $merge -eq 1 ] && ! merge_corpus "$h" "$bin"; then
        echo "fuzz: $h: merging the corpus failed (log: $out/$h.merge.log)"
        findings=$((findings + 1))
    fi
done
echo "fuzz: $(echo $harnesses | wc -w) harnesses, $findings with findings"
if [ $findings -eq 0 ] && [ $keep -eq 0 ]; then rm -rf "$out"; else echo "fuzz: output kept in $out"; fi
[ $findings -eq 0 ]
