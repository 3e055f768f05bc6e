#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The topomap command's exit statuses and messages (TAP): every usage error
# exits 2, bad input exits 1, each with one line on stderr starting
# "topomap: " and naming the problem; then the errors an admin meets first
# with plan --site.

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/cli_lib.sh"

cli_fixtures

# --- 2. exit statuses and messages ------------------------------------------
# (expect, $P, $T, $N: tests/cli_lib.sh)
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
expect 2 "no allocation: give --nodes HOSTLIST" map $P $T
expect 2 "no allocation: give --nodes HOSTLIST" compare $P $T
expect 2 "unknown option '--bogus'" map $P $T --bogus
expect 2 "unknown option '-x'" map $P $T -x
expect 2 "--objective: unknown objective 'links' (known: hop-bytes, congestion)" \
    map $P $T $N --objective links
# --objective congestion: the summary adds the busiest link against block's.
"$TOPOMAP" map $P $T $N --algo auto --objective congestion > /dev/null 2> "$tmp/stderr"
rc=$?
grep -q "^topomap: map: busiest link [0-9.e+]* = [0-9.]* x block's [0-9.e+]*$" "$tmp/stderr"
check $(( rc + $? )) "map --objective congestion: summary gives the busiest link against block's"
# --threads auto (the plugin's threads=auto): auto's mapping that of one thread.
"$TOPOMAP" map $P $T $N --algo auto --threads auto -q > "$tmp/auto-t.map" 2>&1 &&
    "$TOPOMAP" map $P $T $N --algo auto --threads 1 -q | cmp -s - "$tmp/auto-t.map"
check $? "map --threads auto: the mapping of --threads 1"
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
expect 2 "--threads: '0' is not auto or an integer from 1 to 1024" map $P $T --threads 0
expect 2 "--threads: 'many' is not auto or an integer" compare $P $T --threads many
expect 2 "--time-limit: '-1' is not a positive duration" map $P $T --time-limit -1
expect 2 "--time-limit: 'soon' is not a positive duration" map $P $T --time-limit soon
expect 2 "--loop: '-1' is not an integer" map $P $T --algo ohtma --loop -1
expect 2 "--loop: 'half' is not an integer" compare $P $T --loop half
expect 2 "--algo: unknown algorithm 'best' (known: block" map $P $T --algo best
expect 2 "--algo: unknown algorithm 'best+refine' (known: block" map $P $T --algo best+refine
expect 2 "--algo: unknown algorithm '+refine' (known: block" map $P $T --algo +refine
expect 2 "--algos: unknown algorithm 'best' (known: block" compare $P $T --algos block,best
expect 2 "--algos: 'block,' is not a comma-separated list" compare $P $T --algos block,
expect 2 "--format: unknown format 'xml'" map $P $T --format xml
expect 2 "--profile-format: unknown format 'csv'" stats $P --profile-format csv
expect 2 "--to: 'mtx' is not a format profiles are written in (edges, binary)" profile convert \
    "$tmp/ring8.txt" "$tmp/x" --to mtx
expect 2 "--to only applies to convert" profile add app "$tmp/ring8.txt" --to binary
expect 2 "convert: missing output file" profile convert "$tmp/ring8.txt"
expect 2 "unexpected argument 'z'" profile convert "$tmp/ring8.txt" y z
expect 2 "--affinity: unknown affinity 'latency'" map $P $T --affinity latency
expect 2 "--k: '4,,8' is not a comma-separated list" stats $P --k 4,,8
expect 2 "--k: '0' is not a comma-separated list" stats $P --k 0
expect 2 "--k: at most 8 values" stats $P --k 1,2,3,4,5,6,7,8,9
expect 2 "--grid-weak: '1' is not a number between 0 and 1" stats $P --grid-weak 1
expect 2 "missing subcommand" topology
expect 2 "unknown subcommand 'frob'" topology frob
expect 2 "show: missing topology" topology show
expect 2 "unexpected argument 'b'" topology show a b
expect 2 "hops: missing node name" topology hops torus t000
expect 2 "unexpected argument 'x'" topology list x
expect 2 "--mapping-format: unknown format 'xml'" eval $P $T --mapping x --mapping-format xml
expect 2 "--format: unknown format 'auto'" map $P $T $N --format auto
expect 2 "--profile and --mapping cannot both be standard input" eval --profile - $T --mapping -
expect 2 "--cores-per-node: '0' is not an integer" map $P $T $N --cores-per-node 0
expect 2 "missing the srun command line" plan $T $N
expect 2 "no topology: give --topology T, or topology= in --site" plan -- srun ./app
expect 2 "no allocation: give --nodes" plan $T -- srun -n8 ./app
expect 2 "--site: " plan $T $N --site 'bogus=1' -- srun -n8 ./app
expect 2 "srun line: " plan $T $N -- srun -n
expect 2 "--slurm: 'x' is not a release MAJOR.MINOR (known: 22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05)" plan $T $N --slurm x -- srun -n8 ./app
expect 2 "--slurm: '24.11.3' is not a release MAJOR.MINOR" plan $T $N --slurm 24.11.3 -- srun -n8 ./app
expect 2 "unexpected argument 'x'" algorithms x
expect 2 "unknown command 'nope'" help nope
expect 2 "add: missing profile file" profile add ring8
expect 2 "unknown subcommand 'ls'" profile ls

# Bad input: exit 1, the message names the file or the host.
expect 1 "$tmp/nope.txt" map --profile "$tmp/nope.txt" $T $N
printf '0 1 100\n1 0 -5\n' > "$tmp/neg.txt"
expect 1 "neg.txt:2" map --profile "$tmp/neg.txt" $T $N
expect 1 "neg.txt:2" stats --profile "$tmp/neg.txt"
# A damaged binary profile: one line naming the file and the problem.
head -c 100 "$tmp/ring8.bin" > "$tmp/cut.bin"
expect 1 "$tmp/cut.bin: truncated: 100 of the " stats --profile "$tmp/cut.bin"
expect 1 "$tmp/cut.bin: truncated: 100 of the " profile convert "$tmp/cut.bin" "$tmp/x.txt"
expect 1 "$tmp/ring8.txt: not a topomap binary profile" stats $P --profile-format binary
: > "$tmp/empty.txt"
expect 1 "empty.txt" eval --profile "$tmp/empty.txt" $T --mapping x
expect 1 "$tmp/nope.yaml" map $P --topology "$tmp/nope.yaml" $N
expect 1 "nosuch: no such file, nor a shipped topology of that name (see 'topomap topology list')" \
    map $P --topology nosuch $N
printf 'kind: torus\nbogus_key: 3\n' > "$tmp/bad.yaml"
expect 1 "bad.yaml:" map $P --topology "$tmp/bad.yaml" $N
expect 1 "bad.yaml:" topology show "$tmp/bad.yaml"
expect 1 "'x999' is not in the topology" map $P $T --nodes 'x999'
expect 1 "8 ranks do not fit in 4 slots" map $P $T --nodes 't[000-003]' --tasks-per-node 1
expect 1 "slots" map $P $T --nodes 't[000-003]' --slots '2,2'
expect 1 "no message counts" map --profile "$tmp/ring8-bytes.txt" $T $N --affinity msgs
# At most one rank per core, said in one line (8 tasks on 4 cores).
expect 1 "--tasks-per-node gives 8 slots on t000, which has 4 cores" map $P $T $N --tasks-per-node 8
expect 1 "--slots gives 5 slots on t001" map $P $T $N --slots 1,5,1,1
SLURM_JOB_NODELIST='t[000-001]' SLURM_TASKS_PER_NODE='6,2' SLURM_NTASKS=8 \
    expect 1 "SLURM_TASKS_PER_NODE gives 6 slots on t000, which has 4 cores" map $P $T
SLURM_JOB_NODELIST='n[7-8]' expect 1 "node 'n7' is not in the topology (its nodes: t[000-511]); these are the nodes of SLURM_JOB_NODELIST (--nodes chooses others)" map $P $T
# A topology.conf: one core per node, and the messages say what to do.
expect 1 "8 ranks do not fit in 4 slots of the allocation (the topology gives each node one core, as a Slurm topology.conf does: --cores-per-node N" \
    map $P --topology "$tmp/topology.conf" --nodes all
expect 1 "--tasks-per-node gives 2 slots on n1, which has 1 core: topomap places at most one rank on a core (the topology gives each node one core" \
    map $P --topology "$tmp/topology.conf" --nodes all --tasks-per-node 2
# Slurm's topology.yaml and topology/block files: a topology name that is not
# there, a name for a file without names, errors with the file's line;
# Scotch's formats are named, not misread.
printf -- '---\n- topology: topo1\n  cluster_default: true\n  tree:\n    switches:\n      - switch: s1\n        nodes: n[1-2]\n' \
    > "$tmp/topology.yaml"
expect 1 "topology.yaml:2:1: no topology named 'topo2' (the file has: topo1)" \
    topology show "$tmp/topology.yaml" --topology-name topo2
expect 1 "topology.conf: no topology named 'x': a topology.conf describes one topology" \
    map $P --topology "$tmp/topology.conf" --topology-name x --nodes all
printf 'BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\nBlockSizes=4,6\n' > "$tmp/block.conf"
expect 1 "block.conf:3: BlockSizes=: 6 is not 4 times a power of two" \
    map $P --topology "$tmp/block.conf" --nodes all
expect 2 "option '--topology-name' needs an argument" topology show "$tmp/topology.yaml" \
    --topology-name
: > "$tmp/machine.tgt"
expect 1 "machine.tgt: Scotch target architectures (.tgt) are not read" topology show "$tmp/machine.tgt"
: > "$tmp/graph.grf"
expect 1 "graph.grf: Scotch graph files are not read as profiles" stats --profile "$tmp/graph.grf"
# Formats that cannot say a mapping.
expect 1 "cannot be written as map-cpu" map $P $T --nodes 't[000-001]' --algo random --seed 5 \
    --format map-cpu
printf '0 1 10\n1 0 10\n' > "$tmp/two.txt"
expect 1 "cannot be written as mpich-rank-order" map --profile "$tmp/two.txt" $T --nodes 't[000-001]' \
    --tasks-per-node 4 --algo cyclic --format mpich-rank-order
expect 1 "'zz' is not a node of" topology hops "$TOPO/torus-8x8x8.yaml" t000 zz
expect 1 "cannot write '/nonexistent-dir/x.map'" map $P $T $N -o /nonexistent-dir/x.map
# bad_mapping FILE CONTENT TEXT: eval of the mapping CONTENT (printf format)
# in FILE is bad input whose message contains TEXT.
bad_mapping() {
    printf "$2" > "$tmp/$1"
    expect 1 "$3" eval $P $T --mapping "$tmp/$1"
}
bad_mapping badhost.map '0 t000 0\n1 t000 1\n2 zz9 0\n' "badhost.map:3: unknown host 'zz9'"
bad_mapping badcore.map '0 t000 0\n1 t000 9\n' "badcore.map:2: core 9 out of range"
bad_mapping short.map '0 t000 0\n' "short.map:1: missing rank 1"
expect 1 "$tmp/nope.map" eval $P $T --mapping "$tmp/nope.map"
bad_mapping full.hostfile 't000\nt000\nt000\nt000\nt000\nt001\nt001\nt001\n' \
    "full.hostfile:5: more ranks on 't000' than its 4 cores"
bad_mapping socket.rankfile 'rank 0=t000 slot=0:1\n' "socket.rankfile:1: slot '0:1' is not a core number"
bad_mapping short.hostfile 't000\nt001\n' "short.hostfile:2: missing rank 2"

# A failed mapping leaves an existing output file alone.
echo keep > "$tmp/keep.map"
"$TOPOMAP" map $P $T --nodes 't000' --tasks-per-node 1 -o "$tmp/keep.map" 2> /dev/null
[ "$(cat "$tmp/keep.map")" = keep ]
check $? "failed map does not truncate the -o file"

# --- plan --site: errors an admin meets first ---------------------------------
expect 1 "--site: topology=/nonexistent/site.yaml: No such file or directory; the plugin would keep Slurm's layout for every step" \
    plan --site 'topology=/nonexistent/site.yaml' --nodes 'n[1-4]' -- srun -n8 ./app
expect 1 "(a shipped topology: " plan --site 'topology=local-4node' --nodes 'n[1-4]' -- srun -n8 ./app
expect 2 "--site: plugstack.conf: gain_metric=links is not hop-bytes or congestion" \
    plan $T $N --site 'gain_metric=links' -- srun -n8 ./app
expect 2 "--site: plugstack.conf: time_limit=2sec is not a positive duration" \
    plan $T $N --site 'time_limit=2sec' -- srun -n8 ./app
export SLURM_CONF="$tmp/nothing.conf"
expect 1 "slurm (the topology beside $tmp/nothing.conf)" topology show slurm
unset SLURM_CONF
expect 1 "shipped: " topology show torus-8x8
"$TOPOMAP" plan --site "topology=$TOPO/local-4node.yaml strict=1 profiles=$tmp/site-store" \
    --nodes 'n[1-4]' -- srun -n8 --topomap=auto ./other > "$tmp/fail.out" 2>&1
check $(($? != 3)) "plan exits 3 on decision fail (strict=1)"
# The annotated plugstack.conf file, comments and all, as --site.
"$TOPOMAP" plan --site "$(cat "$top_srcdir/etc/plugstack.conf.d/topomap.conf")" --topology "$TOPO/local-4node.yaml" --nodes 'n[1-4]' \
    -- srun -n8 ./app > "$tmp/conf.out" 2>&1 && grep -q '^site .* min_gain=0.05 .* time_limit=2000ms' "$tmp/conf.out"
check $? "plan --site takes etc/plugstack.conf.d/topomap.conf whole, its comments skipped"
# A build tree finds the shipped topologies by name, without TOPOMAP_TOPOLOGY_PATH.
"$TOPOMAP" topology list > "$tmp/list.out" 2>&1 && grep -q '^torus-8x8x8 ' "$tmp/list.out" &&
    [ "$(grep -c '^torus-8x8x8 ' "$tmp/list.out")" -eq 1 ]
check $? "topology list from the build tree lists each shipped topology once"


tap_done
