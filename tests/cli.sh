#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The topomap command line tool, run as a user would, emitting TAP:
#  1. golden output: map/eval/stats/compare/topology show/algorithms on small
#     inputs, compared with tests/cli.expected (as hwloc's
#     utils/hwloc/test-hwloc-distrib.sh.in does with its .output file);
#     CLI_REGENERATE=1 rewrites the golden file instead (check the diff!);
#  2. every usage error exits 2, bad input exits 1, each with one line on
#     stderr starting "topomap: " and naming the problem;
#  3. eval of the block mapping, one rank per node of the 8x8x8 torus, agrees
#     with an independent awk computation of hop-bytes on each workload of
#     /work/shared/workloads (skipped when absent).
# Needs $top_builddir (the built tree) and $top_srcdir (the sources).

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
TOPOMAP=$top_builddir/cli/topomap
TOPO=$top_srcdir/topologies
GOLDEN=$top_srcdir/tests/cli.expected
WORKLOADS=${TOPOMAP_WORKLOADS:-$top_srcdir/../shared/workloads}

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check COND-EXIT-STATUS DESCRIPTION
    if [ "$1" -eq 0 ]; then ok "$2"; else notok "$2"; fi
}

if [ ! -x "$TOPOMAP" ]; then
    echo "1..0 # SKIP $TOPOMAP not built"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# --- inputs ---------------------------------------------------------------
# 8 ranks: a ring (ranks r, r+1 exchange 1000 bytes each way), a heavy pair
# 0 <-> 4, and some self traffic on rank 7. Message counts in column 4.
cat > "$tmp/ring8.txt" <<'EOF'
# nranks=8
# application=cli-test ring
0 1 1000 10
1 0 1000 10
1 2 1000 10
2 1 1000 10
2 3 1000 10
3 2 1000 10
3 4 1000 10
4 3 1000 10
4 5 1000 10
5 4 1000 10
5 6 1000 10
6 5 1000 10
6 7 1000 10
7 6 1000 10
7 0 1000 10
0 7 1000 10
0 4 5000 5
4 0 3000 3
7 7 64 1
EOF
# The same without message counts.
awk '!/^#/ { print $1, $2, $3 }' "$tmp/ring8.txt" > "$tmp/ring8-bytes.txt"

# --- 1. golden output -------------------------------------------------------
out=$tmp/out
: > "$out"
# run ARGS...: append the command, its stdout and stderr and its exit status
# to $out, with the temporary directory and source paths made neutral.
run() {
    echo "\$ topomap $*" | sed -e "s|$tmp|TMP|g" -e "s|$top_srcdir|SRC|g" >> "$out"
    "$TOPOMAP" "$@" > "$tmp/stdout" 2> "$tmp/stderr"
    rc=$?
    sed -e "s|$tmp|TMP|g" -e "s|$top_srcdir|SRC|g" "$tmp/stdout" "$tmp/stderr" >> "$out"
    echo "[exit $rc]" >> "$out"
}

run algorithms
run topology show "$TOPO/torus-8x8x8.yaml"
run topology show "$TOPO/fattree-plafrim2.yaml"
run topology show "$TOPO/tianhe3-prototype.yaml"
run stats --profile "$tmp/ring8.txt" --k 2,4,8
run stats --profile "$tmp/ring8.txt" --k 4 --json
run stats --profile "$top_srcdir/tests/data/profiles/lammps-lj32k-16.txt" --k 4
run stats --profile "$top_srcdir/tests/data/profiles/petsc-ex45-mg65-16.txt" --k 4 --grid-weak 0.5
# Two slots on each of four nodes of a line of the torus, allocation order
# not sorted.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 -o "$tmp/block.map"
cat "$tmp/block.map" >> "$out"
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/block.map"
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/block.map" --json
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo random --seed 7 --format rankfile
run map --profile "$tmp/ring8.txt" --topology "$TOPO/fattree-plafrim2.yaml" \
    --nodes 'plafrim[001,023]' --slots '5,3' --algo block --format hostfile
# ohtma with the paper's default number of exchanges, and with none (greedy phase only).
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo ohtma --format hostfile
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo ohtma --loop 0 --format hostfile
run compare --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algos ohtma,ohtma+refine,greedy+refine
run map --profile "$tmp/ring8.txt" --topology "$TOPO/fattree-plafrim2.yaml" \
    --nodes 'plafrim[001,023]' --slots '5,3' --affinity msgs --algo cyclic -o "$tmp/ft.map"
cat "$tmp/ft.map" >> "$out"
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/fattree-plafrim2.yaml" --mapping "$tmp/ft.map"
run compare --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algos block,cyclic,random
# Congestion with a link bandwidth: block puts ranks 2r, 2r+1 on node r of a
# ring of 4. By hand: 0->4 (5000 B) and 4->0 (3000 B) are half the ring apart
# and both go the + way (r0->r1->r2, r2->r3->r0); with the ring's 1000 B per
# channel: r0->r1, r1->r2 6000 B, r2->r3, r3->r0 4000 B, the four - channels
# 1000 B: max 6000 B = 6e-06 s at 1e9 B/s, mean 24000 / 8 = 3000 B.
cat > "$tmp/ring4.yaml" <<'EOF'
network: {kind: torus, dims: [4], link_bandwidth: 1e9}
nodes: "r[0-3]"
node: {cores: 2}
EOF
run map --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --algo block -o "$tmp/ring4.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --mapping "$tmp/ring4.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --mapping "$tmp/ring4.map" --json
run topology show "$tmp/ring4.yaml"
# The time column is the one thing that changes from run to run.
sed -i -E '/^(block|cyclic|random|ohtma|greedy)[a-z+-]* /s/ +[0-9]+\.[0-9]+$/ TIME/' "$out"

if [ -n "$CLI_REGENERATE" ]; then
    cp "$out" "$GOLDEN"
    ok "golden output regenerated in $GOLDEN"
elif diff -u "$GOLDEN" "$out" > "$tmp/diff"; then
    ok "golden output matches tests/cli.expected"
else
    notok "golden output matches tests/cli.expected"
    sed 's/^/# /' "$tmp/diff"
fi

# --- 2. exit statuses and messages ------------------------------------------
# expect STATUS TEXT ARGS...: topomap ARGS exits STATUS with one stderr line
# that starts "topomap: " and contains TEXT, and prints nothing on stdout.
expect() {
    want=$1 text=$2
    shift 2
    "$TOPOMAP" "$@" > "$tmp/stdout" 2> "$tmp/stderr"
    rc=$?
    lines=$(wc -l < "$tmp/stderr")
    desc=$(echo "topomap $* -> $want" | sed -e "s|$tmp|TMP|g" -e "s|$top_srcdir|SRC|g")
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q '^topomap: ' "$tmp/stderr" &&
        grep -qF -- "$text" "$tmp/stderr" && [ ! -s "$tmp/stdout" ]; then
        ok "$desc"
    else
        notok "$desc"
        echo "#   exit $rc (want $want), stderr:"
        sed 's/^/#   /' "$tmp/stderr"
        echo "#   wanted one line containing: $text"
    fi
}

P="--profile $tmp/ring8.txt"
T="--topology $TOPO/torus-8x8x8.yaml"
N="--nodes t[000-003]"

# Usage errors: exit 2.
expect 2 "missing command" 
expect 2 "unknown command 'frobnicate'" frobnicate
expect 2 "unknown option '--bogus' before the command" --bogus
expect 2 "unexpected argument 'x'" --version x
expect 2 "missing required option --profile" map $T
expect 2 "missing required option --topology" map $P
expect 2 "missing required option --mapping" eval $P $T
expect 2 "missing required option --profile" eval $T --mapping x
expect 2 "missing required option --profile" stats
expect 2 "missing required option --topology" compare $P
expect 2 "unknown option '--bogus'" map $P $T --bogus
expect 2 "unknown option '-x'" map $P $T -x
expect 2 "option '--profile' needs an argument" map --profile
expect 2 "option '-o' needs an argument" map $P $T -o
expect 2 "option '--json' takes no argument" eval --json=yes
expect 2 "unknown option '--algo'" eval $P $T --mapping x --algo block
expect 2 "unknown option '--mapping'" map $P $T --mapping x
expect 2 "unexpected argument 'extra'" map $P $T extra
expect 2 "--tasks-per-node: 'two' is not an integer" map $P $T $N --tasks-per-node two
expect 2 "--tasks-per-node: '0' is not an integer" map $P $T $N --tasks-per-node 0
expect 2 "--tasks-per-node: '3x' is not an integer" compare $P $T $N --tasks-per-node 3x
expect 2 "--tasks-per-node and --slots cannot be used together" map $P $T $N --tasks-per-node 2 --slots 2
expect 2 "--seed: '-3' is not an integer" map $P $T --seed -3
expect 2 "--seed: '1e3' is not an integer" map $P $T --seed 1e3
expect 2 "--seed: '99999999999999999999' is not an integer" map $P $T --seed 99999999999999999999
expect 2 "--threads: '0' is not an integer from 1" map $P $T --threads 0
expect 2 "--threads: 'many' is not an integer" compare $P $T --threads many
expect 2 "--time-limit: '-1' is not a positive number" map $P $T --time-limit -1
expect 2 "--time-limit: 'soon' is not a positive number" map $P $T --time-limit soon
expect 2 "--loop: '-1' is not an integer" map $P $T --algo ohtma --loop -1
expect 2 "--loop: 'half' is not an integer" compare $P $T --loop half
expect 2 "--algo: unknown algorithm 'best' (known: block" map $P $T --algo best
expect 2 "--algo: unknown algorithm 'best+refine' (known: block" map $P $T --algo best+refine
expect 2 "--algo: unknown algorithm '+refine' (known: block" map $P $T --algo +refine
expect 2 "--algos: unknown algorithm 'best' (known: block" compare $P $T --algos block,best
expect 2 "--algos: 'block,' is not a comma-separated list" compare $P $T --algos block,
expect 2 "--format: unknown format 'xml'" map $P $T --format xml
expect 2 "--profile-format: unknown format 'csv'" stats $P --profile-format csv
expect 2 "--affinity: unknown affinity 'latency'" map $P $T --affinity latency
expect 2 "--k: '4,,8' is not a comma-separated list" stats $P --k 4,,8
expect 2 "--k: '0' is not a comma-separated list" stats $P --k 0
expect 2 "--k: at most 8 values" stats $P --k 1,2,3,4,5,6,7,8,9
expect 2 "--grid-weak: '1' is not a number between 0 and 1" stats $P --grid-weak 1
expect 2 "missing subcommand" topology
expect 2 "unknown subcommand 'list'" topology list
expect 2 "missing topology file" topology show
expect 2 "unexpected argument 'b'" topology show a b
expect 2 "unexpected argument 'x'" algorithms x
expect 2 "unknown command 'nope'" help nope
expect 2 "add: missing profile file" profile add ring8
expect 2 "unknown subcommand 'ls'" profile ls

# Bad input: exit 1, the message names the file or the host.
expect 1 "$tmp/nope.txt" map --profile "$tmp/nope.txt" $T
printf '0 1 100\n1 0 -5\n' > "$tmp/neg.txt"
expect 1 "neg.txt:2" map --profile "$tmp/neg.txt" $T
expect 1 "neg.txt:2" stats --profile "$tmp/neg.txt"
: > "$tmp/empty.txt"
expect 1 "empty.txt" eval --profile "$tmp/empty.txt" $T --mapping x
expect 1 "$tmp/nope.yaml" map $P --topology "$tmp/nope.yaml"
printf 'kind: torus\nbogus_key: 3\n' > "$tmp/bad.yaml"
expect 1 "bad.yaml:" map $P --topology "$tmp/bad.yaml"
expect 1 "bad.yaml:" topology show "$tmp/bad.yaml"
expect 1 "'x999' is not in the topology" map $P $T --nodes 'x999'
expect 1 "8 ranks do not fit in 4 slots" map $P $T --nodes 't[000-003]' --tasks-per-node 1
expect 1 "slots" map $P $T --nodes 't[000-003]' --slots '2,2'
expect 1 "no message counts" map --profile "$tmp/ring8-bytes.txt" $T --affinity msgs
expect 1 "cannot write '/nonexistent-dir/x.map'" map $P $T $N -o /nonexistent-dir/x.map
printf '0 t000 0\n1 t000 1\n2 zz9 0\n' > "$tmp/badhost.map"
expect 1 "badhost.map:3: unknown host 'zz9'" eval $P $T --mapping "$tmp/badhost.map"
printf '0 t000 0\n1 t000 9\n' > "$tmp/badcore.map"
expect 1 "badcore.map:2: core 9 out of range" eval $P $T --mapping "$tmp/badcore.map"
printf '0 t000 0\n' > "$tmp/short.map"
expect 1 "short.map:1: missing rank 1" eval $P $T --mapping "$tmp/short.map"
expect 1 "$tmp/nope.map" eval $P $T --mapping "$tmp/nope.map"

# A failed mapping leaves an existing output file alone.
echo keep > "$tmp/keep.map"
"$TOPOMAP" map $P $T --nodes 't000' --tasks-per-node 1 -o "$tmp/keep.map" 2> /dev/null
[ "$(cat "$tmp/keep.map")" = keep ]
check $? "failed map does not truncate the -o file"

# Pictures (topomap plot): with cairo, usage errors exit 2, bad input 1, and
# each kind writes a file of its format (tests/plot.t checks what the
# pictures show); without cairo the command says so in one line.
png_size() { # FILE: "WIDTH HEIGHT" from the PNG's IHDR
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
                                             $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
magic() { od -An -c -N4 "$1" | tr -d ' \n'; }
if "$TOPOMAP" plot matrix $P -o "$tmp/probe.png" 2> "$tmp/stderr"; then
    X="-o $tmp/x.png"
    expect 2 "missing picture kind" plot $X
    expect 2 "unknown picture kind 'pie'" plot pie $X
    expect 2 "missing required option --output" plot matrix $P
    expect 2 "cannot tell the picture format from the name" plot matrix $P -o "$tmp/x.gif"
    expect 2 "--format: unknown picture format 'gif'" plot matrix $P $X --format gif
    expect 2 "--size: '10x10' is not W or WxH" plot matrix $P $X --size 10x10
    expect 2 "--size: '800x' is not W or WxH" plot matrix $P $X --size 800x
    expect 2 "--compare does not apply to 'plot matrix'" plot matrix $P $X --compare block
    expect 2 "--pairs does not apply to 'plot links'" plot links $P $T $X --pairs 3
    expect 2 "--table, --relative, --algos, --per-profile does not apply" plot matrix $P $X --table t
    expect 2 "--mapping and --algo cannot be used together" plot mapping $P $T $X --mapping m --algo block
    expect 2 "--compare and --compare-mapping cannot be used together" plot mapping $P $T $X \
        --compare block --compare-mapping m
    expect 2 "--compare: unknown algorithm 'best'" plot mapping $P $T $X --compare best
    expect 2 "missing required option --topology" plot mapping $P $X
    expect 2 "--topology needs --mapping or --algo" plot matrix $P $T $X
    expect 2 "missing required option --table" plot bench $X
    expect 2 "the allocation does not apply to 'plot bench'" plot bench --table t $X $N
    expect 1 "cannot write '/nonexistent-dir/x.png'" plot matrix $P -o /nonexistent-dir/x.png
    expect 1 "$tmp/nope.txt" plot matrix --profile "$tmp/nope.txt" $X
    expect 1 "ring8.txt:" plot bench --table "$tmp/ring8.txt" $X
    expect 1 "8 ranks do not fit in 4 slots" plot mapping $P $T $X --nodes 't[000-003]' --tasks-per-node 1
    [ ! -e "$tmp/x.png" ]
    check $? "topomap plot leaves no picture behind when it fails"
    "$TOPOMAP" plot matrix $P --size 640x500 -o "$tmp/m.png" &&
        [ "$(magic "$tmp/m.png")" = "211PNG" ] && [ "$(png_size "$tmp/m.png")" = "640 500" ]
    check $? "plot matrix: a 640 x 500 PNG"
    "$TOPOMAP" plot matrix $P $T --mapping "$tmp/block.map" -o "$tmp/mg.svg" &&
        grep -q '<svg' "$tmp/mg.svg"
    check $? "plot matrix grouped by the nodes of a mapping file: an SVG"
    "$TOPOMAP" plot mapping $P $T $N --tasks-per-node 2 --algo ohtma --compare block \
        -o "$tmp/map.pdf" && [ "$(magic "$tmp/map.pdf")" = "%PDF" ]
    check $? "plot mapping --compare: a PDF"
    "$TOPOMAP" plot mapping $P $T --mapping "$tmp/block.map" --compare-mapping "$tmp/block.map" \
        --format png -o "$tmp/map.out" && [ "$(magic "$tmp/map.out")" = "211PNG" ]
    check $? "plot mapping of two mapping files, --format png whatever the name"
    "$TOPOMAP" plot links $P $T $N --tasks-per-node 2 --whole --size 900 -o "$tmp/l.png" &&
        [ "$(png_size "$tmp/l.png" | cut -d' ' -f1)" = 900 ]
    check $? "plot links --whole: a PNG 900 wide"
    "$TOPOMAP" plot bench --table "$top_srcdir/contrib/bench-reference.txt" --algos ohtma,auto \
        --relative scotch --per-profile none -o "$tmp/b.svg" && grep -q '<svg' "$tmp/b.svg"
    check $? "plot bench of the saved run, relative to scotch"
else
    expect 1 "built without cairo" plot matrix $P -o "$tmp/x.png"
    n=$((n + 1))
    echo "ok $n # SKIP topomap was built without cairo: topomap plot draws nothing"
fi

# Help: every command has man-page style help on stdout with exit 0, and
# every long option the help names is in the man page.
for c in "" map eval compare stats topology algorithms profile plot help; do
    "$TOPOMAP" help $c > "$tmp/help" 2>&1
    rc=$?
    grep -q '^Usage: topomap' "$tmp/help" && grep -qi 'exit status' "$tmp/help"
    check $(( rc + $? )) "topomap help $c: usage and exit status, exit 0"
done
for c in map eval compare stats plot; do
    "$TOPOMAP" $c --help > "$tmp/help2" 2>&1 && "$TOPOMAP" help $c | cmp -s - "$tmp/help2"
    check $? "topomap $c --help is topomap help $c"
done
"$TOPOMAP" --help > "$tmp/help"
grep -q '^Commands:' "$tmp/help"
check $? "topomap --help lists the commands"
"$TOPOMAP" --version | grep -q '^topomap [0-9][0-9.]*'
check $? "topomap --version"
missing=
for c in map eval compare stats plot; do
    for o in $("$TOPOMAP" help $c | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        esc=$(echo "$o" | sed 's/-/\\-/g')
        grep -qF -- "$esc" "$top_srcdir/cli/topomap.1" || missing="$missing $o"
    done
done
[ -z "$missing" ]
check $? "every option in the help is in cli/topomap.1${missing:+ (missing:$missing)}"

# --- 3. eval against an independent computation ------------------------------
# Block mapping, one rank per node of torus-8x8x8: rank r on t<r>, node index
# r = x + 8y + 64z, 8-periodic in each dimension.
found=0
for w in "$WORKLOADS"/*.txt; do
    [ -f "$w" ] || continue
    name=$(basename "$w" .txt)
    nr=$(sed -n 's/^nranks=//p' "$w.meta" 2> /dev/null)
    [ -n "$nr" ] ||
        nr=$(awk '!/^#/ && NF { if ($1 > m) m = $1; if ($2 > m) m = $2 } END { print m + 1 }' "$w")
    [ "$nr" -le 512 ] || continue
    found=1
    "$TOPOMAP" map --profile "$w" --topology "$TOPO/torus-8x8x8.yaml" --tasks-per-node 1 \
        --algo block -o "$tmp/$name.map" 2> "$tmp/stderr"
    check $? "$name: map block on torus-8x8x8, 1 task per node"
    awk '{ if ($1 != NR - 1 || $2 != sprintf("t%03d", NR - 1) || $3 != 0) bad = 1 }
         END { exit bad }' "$tmp/$name.map"
    check $? "$name: block puts rank r on t<r> core 0"
    "$TOPOMAP" eval --profile "$w" --topology "$TOPO/torus-8x8x8.yaml" \
        --mapping "$tmp/$name.map" --json > "$tmp/$name.json" 2> "$tmp/stderr"
    check $? "$name: eval --json"
    awk -v json="$(cat "$tmp/$name.json")" '
        function d(a, b) { a = a - b; if (a < 0) a = -a; return a < 8 - a ? a : 8 - a }
        function hops(r, s) {
            return d(r % 8, s % 8) + d(int(r / 8) % 8, int(s / 8) % 8) + d(int(r / 64), int(s / 64))
        }
        function key(k,   m) {
            if (!match(json, "\"" k "\": [-0-9.eE+]+")) return "missing"
            m = substr(json, RSTART, RLENGTH); sub(/^[^:]*: /, "", m); return m + 0
        }
        function close_to(got, want) {
            if (got == "missing") return 0
            return got == want || (got - want) ^ 2 <= (1e-12 * want) ^ 2
        }
        !/^#/ && NF >= 3 {
            h = hops($1, $2); hb += $3 * h; tot += $3
            if ($1 != $2) inter += $3
            if ($3 > 0 && h > dil) dil = h
        }
        END {
            bad = 0
            if (!close_to(key("hop_bytes"), hb)) { print "# hop_bytes " key("hop_bytes") " want " hb; bad = 1 }
            if (!close_to(key("total_bytes"), tot)) { print "# total_bytes " key("total_bytes") " want " tot; bad = 1 }
            if (!close_to(key("avg_hops_per_byte"), hb / tot)) { print "# avg_hops_per_byte wrong"; bad = 1 }
            if (key("max_dilation") != dil) { print "# max_dilation " key("max_dilation") " want " dil; bad = 1 }
            if (!close_to(key("internode_bytes"), inter)) { print "# internode_bytes wrong"; bad = 1 }
            if (!close_to(key("internode_fraction"), inter / tot)) { print "# internode_fraction wrong"; bad = 1 }
            exit bad
        }' "$w"
    check $? "$name: eval matches an independent torus hop-bytes computation"
done
if [ $found -eq 0 ]; then
    n=$((n + 1))
    echo "ok $n # SKIP no workload of at most 512 ranks in $WORKLOADS"
fi

# --- 4. every workload on every shipped topology ------------------------------
# map (block and ohtma) then eval must work for each pair; every shipped
# topology has enough cores for the largest workload (1024 ranks). ohtma's
# hop-bytes must not exceed those of the random mapping.
found=0
for w in "$WORKLOADS"/*.txt; do
    [ -f "$w" ] || continue
    found=1
    for t in "$TOPO"/tianhe3-prototype.yaml "$TOPO"/torus-8x8x8.yaml \
        "$TOPO"/torus-16x16x16.yaml "$TOPO"/fattree-plafrim2.yaml; do
        pair="$(basename "$w" .txt) on $(basename "$t" .yaml)"
        good=1
        for algo in block ohtma random; do
            if ! "$TOPOMAP" map --profile "$w" --topology "$t" --algo $algo \
                -o "$tmp/all-$algo.map" 2> "$tmp/stderr" ||
                ! "$TOPOMAP" eval --profile "$w" --topology "$t" --mapping "$tmp/all-$algo.map" \
                --json > "$tmp/all-$algo.json" 2>> "$tmp/stderr"; then
                good=0
                sed 's/^/#   /' "$tmp/stderr"
            fi
        done
        hb() { sed -E 's/.*"hop_bytes": ([0-9.e+]+).*/\1/' "$tmp/all-$1.json"; }
        [ $good -eq 1 ] && awk -v o="$(hb ohtma)" -v r="$(hb random)" 'BEGIN { exit !(o <= r) }'
        check $? "$pair: map (block, ohtma, random) and eval work, ohtma <= random"
    done
done
if [ $found -eq 0 ]; then
    n=$((n + 1))
    echo "ok $n # SKIP no workloads in $WORKLOADS"
fi

echo "1..$n"
[ $failed -eq 0 ]
