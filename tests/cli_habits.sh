#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What HPC users take for granted from the topomap command (TAP): profiles
# from standard input and gzip, mappings in every format read back, the
# job's allocation from Slurm's variables and Slurm's spellings, progress
# and time limits, pictures, help and the man page.

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/cli_lib.sh"

cli_fixtures

# --- 3. what HPC users take for granted ------------------------------------
# Profiles from standard input and gzip read as the file itself.
"$TOPOMAP" stats $P > "$tmp/stats.file"
"$TOPOMAP" stats --profile - < "$tmp/ring8.txt" > "$tmp/stats.stdin"
cmp -s "$tmp/stats.file" "$tmp/stats.stdin"
check $? "stats --profile - (standard input) = stats of the file"
gzip -c "$tmp/ring8.txt" > "$tmp/ring8.txt.gz"
"$TOPOMAP" stats --profile "$tmp/ring8.txt.gz" > "$tmp/stats.gz"
cmp -s "$tmp/stats.file" "$tmp/stats.gz"
check $? "stats --profile ring8.txt.gz = stats of the file"
gzip -c "$tmp/ring8.txt" | "$TOPOMAP" map --profile - $T $N -q > "$tmp/gz.map"
"$TOPOMAP" map $P $T $N -q | cmp -s - "$tmp/gz.map"
check $? "gzip data piped to map --profile - maps as the file"
gzip -c "$tmp/ring8.txt" | head -c 60 > "$tmp/cut.txt.gz"
expect 1 "cut.txt.gz" stats --profile "$tmp/cut.txt.gz"
# A mapping written in each format reads back to the same metrics.
for f in slots hostfile rankfile; do
    "$TOPOMAP" map $P $T $N --tasks-per-node 2 --algo ohtma --format $f -q -o "$tmp/m.$f"
    "$TOPOMAP" eval $P $T --mapping "$tmp/m.$f" --json > "$tmp/e.$f"
done
cmp -s "$tmp/e.slots" "$tmp/e.rankfile"
check $? "eval of the rankfile map writes = eval of its slots file"
"$TOPOMAP" eval $P $T --mapping - --json < "$tmp/m.hostfile" > "$tmp/e.stdin"
cmp -s "$tmp/e.hostfile" "$tmp/e.stdin" && grep -q '"hop_bytes"' "$tmp/e.hostfile"
check $? "eval --mapping - reads a hostfile from standard input"
# -v: progress on stderr, the mapping alone on stdout.
"$TOPOMAP" map $P $T $N --algo auto -v > "$tmp/v.out" 2> "$tmp/v.err"
grep -q "^topomap: map: reading the profile" "$tmp/v.err" &&
    grep -q "^topomap: auto: chose " "$tmp/v.err" &&
    grep -q "^topomap: map: auto (chose [a-z+-]*): 8 ranks on 4 nodes" "$tmp/v.err" &&
    [ "$(wc -l < "$tmp/v.out")" -eq 8 ]
check $? "map -v: progress lines and the summary on stderr, 8 mapping lines on stdout"
"$TOPOMAP" compare $P $T $N --algos cyclic,auto -v > /dev/null 2> "$tmp/cv.err"
grep -q "^topomap: compare: running auto (2 of 2)" "$tmp/cv.err"
check $? "compare -v says which algorithm runs"
# Slurm's spellings: -w / --nodelist for --nodes, --ntasks-per-node for
# --tasks-per-node, in map, compare, plan and plot alike.
"$TOPOMAP" map $P $T --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic -q > "$tmp/sp.ref"
"$TOPOMAP" map $P $T -w 't[003,000-002]' --ntasks-per-node 2 --algo cyclic -q > "$tmp/sp.w" &&
    cmp -s "$tmp/sp.ref" "$tmp/sp.w"
check $? "map -w HOSTLIST --ntasks-per-node K is --nodes HOSTLIST --tasks-per-node K"
"$TOPOMAP" map $P $T --nodelist 't[003,000-002]' --ntasks-per-node 2 --algo cyclic -q > "$tmp/sp.nl" &&
    cmp -s "$tmp/sp.ref" "$tmp/sp.nl"
check $? "map --nodelist HOSTLIST is --nodes HOSTLIST"
"$TOPOMAP" compare $P $T -w 't[003,000-002]' --ntasks-per-node 2 --algos cyclic > "$tmp/sp.cmp" &&
    grep -q '^cyclic ' "$tmp/sp.cmp"
check $? "compare -w HOSTLIST --ntasks-per-node K"
"$TOPOMAP" plan $T $P -w 't[003,000-002]' --slots '2(x4)' -- srun -n8 --topomap=cyclic ./a \
    > "$tmp/sp.plan" && grep -q '^decision ' "$tmp/sp.plan"
check $? "plan -w HOSTLIST"
expect 2 "unknown option '-w'" stats $P -w 't[000-003]'
# auto's time limit: the summary says when it was hit.
"$TOPOMAP" map --profile "$EXAMPLES/lammps-lj32k-128.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[000-127]' --tasks-per-node 1 --algo auto --time-limit 0.0001 -o /dev/null \
    2> "$tmp/tl.err"
grep -q "stopped by the time limit" "$tmp/tl.err" && grep -q "auto stopped at its time limit of 0.0001 s (--time-limit)" "$tmp/tl.err"
check $? "map --algo auto --time-limit: the summary says the limit stopped it"

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
    expect 2 "--table does not apply to 'plot matrix'" plot matrix $P $X --table t
    expect 2 "--relative, --algos, --per-profile does not apply to 'plot curves'" plot curves \
        --table t $X --relative scotch
    expect 2 "missing required option --table" plot curves $X
    expect 1 "bench-reference.txt: no many-core set" plot curves \
        --table "$top_srcdir/contrib/bench-reference.txt" $X
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
    cat > "$tmp/mc.txt" <<'EOF'
# manycore set: auto's hop-bytes / block's at each time limit (one thread)
# profile              machine          nodes  auto@0.5        auto@2          scotch     s
knn8-4096-random       fat-tree 2x64       32 0.1212 0.50/0.34 0.1212 1.45/0.80 0.1691  0.68
knn8-4096-curve        dragonfly 2x32      64 0.6171 0.25/0.22 0.5102 1.09/1.05 0.6889  0.46
EOF
    "$TOPOMAP" plot curves --table "$tmp/mc.txt" -o "$tmp/c.png" > "$tmp/stdout" &&
        [ "$(magic "$tmp/c.png")" = "211PNG" ] && grep -qx "wrote $tmp/c.png (curves)" "$tmp/stdout"
    check $? "plot curves of a many-core set: a PNG, and one line saying so"
else
    expect 1 "built without cairo" plot matrix $P -o "$tmp/x.png"
    skip "topomap was built without cairo: topomap plot draws nothing"
fi

# Help: every command has man-page style help on stdout with exit 0, and
# every long option the help names is in the man page.
for c in "" map eval compare stats topology algorithms profile plan plot help; do
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
"$TOPOMAP" --version | head -1 | grep -q '^topomap [0-9][0-9.]*$'
check $? "topomap --version"
# The second line names the Slurm release configure found (config.h), or says
# that no plugin was built.
rel=$(sed -n 's/^#define TOPOMAP_SLURM_RELEASE "\(.*\)"$/\1/p' "$top_builddir/config.h" 2> /dev/null)
if [ -n "$rel" ]; then want="SPANK plugin built for Slurm $rel"; else want="SPANK plugin not built (configure found no Slurm headers)"; fi
[ "$("$TOPOMAP" --version | sed -n 2p)" = "$want" ]
check $? "topomap --version: $want"
missing=
for c in map eval compare stats topology plan plot; do
    for o in $("$TOPOMAP" help $c | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        esc=$(echo "$o" | sed 's/-/\\-/g')
        grep -qF -- "$esc" "$top_srcdir/cli/topomap.1" || missing="$missing $o"
    done
done
[ -z "$missing" ]
check $? "every option in the help is in cli/topomap.1${missing:+ (missing:$missing)}"


tap_done
