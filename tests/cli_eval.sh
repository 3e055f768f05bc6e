#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# topomap eval against an independent awk computation of hop-bytes (the
# block mapping, one rank per node of the 8x8x8 torus), on each shipped
# example profile (examples/) and each of ../shared/workloads when present;
# then map and eval of each of them on every shipped topology (TAP).

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/cli_lib.sh"

# --- 4. eval against an independent computation ------------------------------
# Block mapping, one rank per node of torus-8x8x8: rank r on t<r>, node index
# r = x + 8y + 64z, 8-periodic in each dimension.
# The shipped examples, and the profiles of ../shared/workloads the project
# does not ship (benchmark material; said when absent).
profiles=$(ls "$EXAMPLES"/*.txt)
if [ -d "$WORKLOADS" ]; then
    for w in "$WORKLOADS"/*.txt; do
        [ -f "$EXAMPLES/$(basename "$w")" ] || profiles="$profiles $w"
    done
else
    echo "# $WORKLOADS is absent: the shipped examples/ only"
fi
found=0
for w in $profiles; do
    [ -f "$w" ] || continue
    name=$(basename "$w" .txt)
    nr=$(sed -n 's/^nranks=//p' "$w.meta" 2> /dev/null)
    [ -n "$nr" ] ||
        nr=$(awk '!/^#/ && NF { if ($1 > m) m = $1; if ($2 > m) m = $2 } END { print m + 1 }' "$w")
    [ "$nr" -le 512 ] || continue
    found=1
    "$TOPOMAP" map --profile "$w" --topology "$TOPO/torus-8x8x8.yaml" --nodes all --tasks-per-node 1 -q \
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
    skip "no profile of at most 512 ranks in $EXAMPLES or $WORKLOADS"
fi

# --- 5. every profile on every shipped topology ------------------------------
# map (block and ohtma) then eval must work for each pair; every shipped
# topology has enough cores for the largest workload (1024 ranks). ohtma's
# hop-bytes must not exceed those of the random mapping.
found=0
for w in $profiles; do
    [ -f "$w" ] || continue
    found=1
    for t in "$TOPO"/tianhe3-prototype.yaml "$TOPO"/torus-8x8x8.yaml \
        "$TOPO"/torus-16x16x16.yaml "$TOPO"/fattree-plafrim2.yaml; do
        pair="$(basename "$w" .txt) on $(basename "$t" .yaml)"
        good=1
        for algo in block ohtma random; do
            if ! "$TOPOMAP" map --profile "$w" --topology "$t" --nodes all --algo $algo -q \
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
    skip "no profiles in $EXAMPLES or $WORKLOADS"
fi


tap_done
