#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every --json output of the topomap command stays one well-formed JSON
# document when names are hostile: node names with a quote, a backslash and
# non-ASCII UTF-8, paths with control characters and bytes that are not
# UTF-8. Each output is parsed by python3's json module (strict: control
# characters inside strings are errors) and the names read back compared with
# what went in.
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
TOPOMAP=$top_builddir/cli/topomap
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE \
    SLURM_NTASKS SLURM_NPROCS SLURM_CPUS_PER_TASK SLURM_JOB_ID TOPOMAP_TOPOLOGY_PATH TOPOMAP_STORE

. "$top_srcdir/tests/tap.sh"
need_built "$TOPOMAP"
if ! python3 -c 'import json' 2>/dev/null; then
    echo "1..0 # SKIP python3 not found (it parses the outputs)"
    exit 0
fi
tap_tmpdir json
# valid FILE PYTHON-EXPRESSION: FILE is one JSON document (strict) and the
# expression, of the parsed document d, is true.
valid() {
    python3 -c '
import json, sys
with open(sys.argv[1], "rb") as f:
    d = json.loads(f.read().decode("utf-8"), strict=True)
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2> "$tmp/py.err"
}

# Four nodes: a quote, a backslash ("\b" would be a backspace unescaped),
# UTF-8 (two- and three-byte characters) and a plain one.
cat > "$tmp/h.yaml" <<'YAML'
network: {kind: torus, dims: [4]}
nodes: ["a\"b1", "a\\b1", "nœud€1", "x1"]
node: {cores: 2}
YAML
printf '# nranks=4\n0 1 100\n1 2 100\n2 3 100\n3 0 100\n' > "$tmp/p.txt"
names='["a\"b1", "a\\b1", "n\u0153ud\u20ac1", "x1"]'

"$TOPOMAP" topology show "$tmp/h.yaml" --json > "$tmp/show.json"
check $? "topology show --json exits 0"
valid "$tmp/show.json" "d['nodes'] == $names and d['nnodes'] == 4 and d['node_types'][0]['count'] == 4"
check $? "topology show --json: valid, node names read back $(cat "$tmp/py.err")"

"$TOPOMAP" map --profile "$tmp/p.txt" --topology "$tmp/h.yaml" --nodes all --tasks-per-node 1 \
    --algo block --json -q > "$tmp/map.json"
check $? "map --json exits 0"
valid "$tmp/map.json" "[h for h, c in d['mapping']] == $names"
check $? "map --json: valid, the mapping's node names read back $(cat "$tmp/py.err")"

# An output path with a tab, a newline, 0x01, a quote and a byte that is not
# UTF-8 (0xff): escaped, the stray byte as U+FFFD.
out=$(printf '%s/o\t\n\001"\377.map' "$tmp")
"$TOPOMAP" map --profile "$tmp/p.txt" --topology "$tmp/h.yaml" --nodes all --tasks-per-node 1 \
    --algo block --json -q -o "$out" > "$tmp/mapo.json"
check $? "map --json -o PATH exits 0"
valid "$tmp/mapo.json" "d['output'] == '$tmp/o\\t\\n\\x01\"\\ufffd.map'"
check $? "map --json -o PATH: control characters escaped, a stray byte as U+FFFD $(cat "$tmp/py.err")"

"$TOPOMAP" eval --profile "$tmp/p.txt" --topology "$tmp/h.yaml" --mapping "$out" --json \
    > "$tmp/eval.json"
check $? "eval --json exits 0"
valid "$tmp/eval.json" "d['nranks'] == 4"
check $? "eval --json: valid $(cat "$tmp/py.err")"

"$TOPOMAP" compare --profile "$tmp/p.txt" --topology "$tmp/h.yaml" --nodes all \
    --tasks-per-node 1 --algos block,cyclic --json > "$tmp/cmp.json" 2>/dev/null
check $? "compare --json exits 0"
valid "$tmp/cmp.json" "[a['name'] for a in d['algorithms']] == ['block', 'cyclic']"
check $? "compare --json: valid $(cat "$tmp/py.err")"

"$TOPOMAP" stats --profile "$tmp/p.txt" --k 2 --json > "$tmp/stats.json"
check $? "stats --json exits 0"
valid "$tmp/stats.json" "isinstance(d['grid']['description'], str)"
check $? "stats --json: valid $(cat "$tmp/py.err")"

# A store whose path has a quote, a backslash and a control character.
store=$(printf '%s/st"o\\re\001' "$tmp")
mkdir "$store" && chmod 755 "$store"
"$TOPOMAP" profile add app "$tmp/p.txt" --site --store "$store" > /dev/null
check $? "profile add to a store with a hostile path"
"$TOPOMAP" profile list --store "$store" --json > "$tmp/list.json"
check $? "profile list --json exits 0"
valid "$tmp/list.json" "d['store'] == '$tmp/st\"o\\\\re\\x01' and [(p['name'], p['ranks'], p['scope']) for p in d['profiles']] == [('app', 4, 'site')]"
check $? "profile list --json: valid, the store and the profile read back $(cat "$tmp/py.err")"
"$TOPOMAP" profile list --store "$tmp/empty" --json > "$tmp/empty.json" 2>/dev/null
check $? "profile list --json of a store not made yet exits 0"
valid "$tmp/empty.json" "d['profiles'] == []"
check $? "profile list --json of a store not made yet: no profiles $(cat "$tmp/py.err")"
# Every field of map, compare, eval and plan --json is documented in
# doc/reference.md (as `field`): on a dragonfly, whose metrics have link
# classes, with -o (output) and without (mapping), and a plan that remaps.
T=$top_srcdir/topologies
P=$top_srcdir/tests/data/slurm/pair8.txt
"$TOPOMAP" map --profile "$P" --topology "$T/dragonfly-slingshot-2048.yaml" \
    --nodes 'nid[0000-0001]' --algo auto --json -q > "$tmp/f.map.json" &&
    "$TOPOMAP" map --profile "$P" --topology "$T/dragonfly-slingshot-2048.yaml" \
        --nodes 'nid[0000-0001]' --json -q -o "$tmp/f.map" > "$tmp/f.mapo.json" &&
    "$TOPOMAP" eval --profile "$P" --topology "$T/dragonfly-slingshot-2048.yaml" \
        --mapping "$tmp/f.map" --json > "$tmp/f.eval.json" &&
    "$TOPOMAP" compare --profile "$P" --topology "$T/local-4node.yaml" --nodes all \
        --json > "$tmp/f.compare.json" 2> /dev/null &&
    "$TOPOMAP" plan --topology "$T/local-4node.yaml" --profile "$P" --nodes 'n[1-4]' --json \
        -- srun -n8 --topomap=greedy ./app > "$tmp/f.plan.json"
check $? "map, eval, compare and plan --json on the documented cases exit 0"
python3 - "$top_srcdir/doc/reference.md" "$tmp"/f.*.json > "$tmp/undoc" 2>&1 <<'PY'
import json, re, sys
doc = set(re.findall(r"`([a-z0-9_]+)`", open(sys.argv[1]).read()))
def keys(d, out):
    if isinstance(d, dict):
        for k, v in d.items():
            out.add(k)
            if k != "traffic_by_level":  # its keys are level names
                keys(v, out)
    elif isinstance(d, list):
        for v in d:
            keys(v, out)
for f in sys.argv[2:]:
    found = set()
    keys(json.load(open(f)), found)
    for k in sorted(found - doc):
        print(f.rsplit("/", 1)[1], k)
PY
undoc=$(tr '\n' ' ' < "$tmp/undoc")
[ -z "$undoc" ]
check $? "every JSON field of map, eval, compare and plan is in doc/reference.md${undoc:+; missing: $undoc}"

"$TOPOMAP" profile show app --store "$store" --json > /dev/null 2>&1
check $(($? != 2)) "--json with profile show: a usage error (exit 2)"
"$TOPOMAP" topology list --json > /dev/null 2>&1
check $(($? != 2)) "--json with topology list: a usage error (exit 2)"

tap_done
