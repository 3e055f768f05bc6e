#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The topomap command line tool, run as a user would, emitting TAP:
#  1. golden output: map/eval/stats/compare/topology show/algorithms on small
#     inputs, compared with tests/cli.expected (as hwloc's
#     utils/hwloc/test-hwloc-distrib.sh.in does with its .output file);
#     CLI_REGENERATE=1 rewrites the golden file instead (check the diff!);
#  2. every usage error exits 2, bad input exits 1, each with one line on
#     stderr starting "topomap: " and naming the problem;
#  3. what users of hwloc's tools and srun expect: the job's
#     allocation from Slurm's variables, profiles from standard input and
#     gzip, mappings in every format read back, topologies by name;
#  4. eval of the block mapping, one rank per node of the 8x8x8 torus, agrees
#     with an independent awk computation of hop-bytes on each shipped example
#     profile (examples/) and each of ../shared/workloads when present;
#  5. map and eval of each of them on every shipped topology.
# Needs $top_builddir (the built tree) and $top_srcdir (the sources).

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
TOPOMAP=$top_builddir/cli/topomap
TOPO=$top_srcdir/topologies
GOLDEN=$top_srcdir/tests/cli.expected
EXAMPLES=$top_srcdir/examples
WORKLOADS=${TOPOMAP_WORKLOADS:-$top_srcdir/../shared/workloads}
# Run as outside a Slurm job (make check may itself run inside one), with no
# directory of topologies by name but the ones a test sets.
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE \
    SLURM_NTASKS SLURM_NPROCS SLURM_CPUS_PER_TASK SLURM_JOB_ID TOPOMAP_TOPOLOGY_PATH
unset TOPOMAP_STORE SLURM_CONF

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
run topology show "$TOPO/fattree-mixed.yaml"
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
run map --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --nodes all --algo block -o "$tmp/ring4.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --mapping "$tmp/ring4.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/ring4.yaml" --mapping "$tmp/ring4.map" --json
run topology show "$tmp/ring4.yaml"
# A dragonfly: eval reports the busiest link of each class (node, local,
# global) and the bytes on global links; seconds use each class's bandwidth.
cat > "$tmp/df.yaml" <<'EOF'
network: {kind: dragonfly, groups: 3, switches_per_group: 2, nodes_per_switch: 2,
          node_bandwidth: 4e9, local_bandwidth: 2e9, global_bandwidth: 1e9}
nodes: "d[00-11]"
EOF
run map --profile "$tmp/ring8.txt" --topology "$tmp/df.yaml" --nodes all --tasks-per-node 1 \
    --algo block -o "$tmp/df.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/df.yaml" --mapping "$tmp/df.map"
run eval --profile "$tmp/ring8.txt" --topology "$tmp/df.yaml" --mapping "$tmp/df.map" --json
run topology show "$tmp/df.yaml"

# Algorithm names in any case, as users type them; the summary of map on stderr.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo OHTMA+Refine -o "$tmp/or.map"
run compare --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algos Block,CYCLIC
# compare's default list runs the algorithms that apply here and names the
# others in one line (exit 0); asked for by --algos, one that does not apply
# fails (exit 1).
run compare --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2
run compare --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algos cyclic,treematch
# auto's summary names the candidate it kept.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo auto -o "$tmp/auto.map"
# map --json: summary, metrics and the mapping as one object; -q: no summary.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic --json -q
# The launch formats: Cray's MPICH_RANK_ORDER and srun's map_cpu list.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic --format mpich-rank-order -q
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic --format map-cpu -q
# eval reads the hostfile and the rankfile map writes (Slurm's and Open MPI's
# layouts): a hostfile gives the k-th rank of a node core k.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo random --seed 3 --format rankfile \
    -o "$tmp/r.rankfile" -q
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/r.rankfile"
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo cyclic --format hostfile \
    -o "$tmp/c.hostfile" -q
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/c.hostfile" \
    --mapping-format hostfile --json
# Inside a Slurm job, the job's allocation by default, said in one line.
export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='t[001-002]' SLURM_TASKS_PER_NODE='4(x2)' \
    SLURM_NTASKS=8 SLURM_JOB_CPUS_PER_NODE='8(x2)' SLURM_CPUS_PER_TASK=2
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml"
unset SLURM_NTASKS
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --format hostfile
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --nodes 't[010-013]' \
    --tasks-per-node 2 --format hostfile
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_CPUS_PER_NODE \
    SLURM_CPUS_PER_TASK
# Slurm's topology.conf says nothing about cores: --cores-per-node.
printf 'SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=top Switches=s[0-1]\n' \
    > "$tmp/topology.conf"
run map --profile "$tmp/ring8.txt" --topology "$tmp/topology.conf" --nodes all --cores-per-node 2 \
    --algo greedy
# Slurm's own descriptions: topology/block, topology.yaml's default and named
# topologies (topology.yaml(5)'s example), a mapping on its blocks.
SD=$top_srcdir/tests/data/topologies
run topology show "$SD/block.conf"
run topology show "$SD/slurm-topology.yaml"
run topology show "$SD/slurm-topology.yaml" --topology-name topo2
run topology hops "$SD/slurm-topology.yaml" node04 node13 --topology-name topo2
run topology show "$SD/slurm-topology.yaml" --topology-name topo3
run map --profile "$tmp/ring8.txt" --topology "$SD/slurm-topology.yaml" --topology-name topo2 \
    --nodes 'node[01-02,05-06,09-10,13-14]' --algo greedy -o "$tmp/blocks.map"
cat "$tmp/blocks.map" >> "$out"
run eval --profile "$tmp/ring8.txt" --topology "$SD/slurm-topology.yaml" --topology-name topo2 \
    --mapping "$tmp/blocks.map"
# Slurm 26.05's torus3d and ring topologies (topology.yaml(5)'s example of
# 26.05): a 2x2x2 placement of the torus, two rings, tori with holes.
S26=$SD/slurm-2605.yaml
run topology show "$S26" --topology-name topo5
run topology hops "$S26" node01 node27 --topology-name topo5
run map --profile "$tmp/ring8.txt" --topology "$S26" --topology-name topo5 \
    --nodes 'node[01-02,05-06,17-18,21-22]' --algo greedy -o "$tmp/torus3d.map"
cat "$tmp/torus3d.map" >> "$out"
run eval --profile "$tmp/ring8.txt" --topology "$S26" --topology-name topo5 \
    --mapping "$tmp/torus3d.map"
run topology show "$S26" --topology-name topo4
run map --profile "$tmp/ring8.txt" --topology "$S26" --topology-name topo4 \
    --nodes 'node[01-04,09-12]' --algo greedy -o "$tmp/rings.map"
run eval --profile "$tmp/ring8.txt" --topology "$S26" --topology-name topo4 \
    --mapping "$tmp/rings.map"
run topology show "$SD/slurm-torus3d-regions.yaml"
# Topologies by name, the list of shipped ones, the hops between two nodes.
export TOPOMAP_TOPOLOGY_PATH="$tmp/nothing:$TOPO"
run topology list
run topology show torus-8x8x8 --cores-per-node 2
run topology hops torus-8x8x8 t000 t077
run topology hops tianhe3-prototype cn0000 cn0097
run topology hops fattree-plafrim2 plafrim001 plafrim088
run map --profile "$tmp/ring8.txt" --topology fattree-plafrim2 --nodes 'plafrim[001,023]' \
    --slots 5,3 -q
unset TOPOMAP_TOPOLOGY_PATH
# plan: the plugin's decision for an srun line, outside a job.
run plan --topology "$TOPO/local-4node.yaml" --profile "$top_srcdir/tests/data/slurm/pair8.txt" \
    --nodes 'n[1-4]' -v -o "$tmp/plan.hosts" -- srun -n8 --topomap=greedy ./app
cat "$tmp/plan.hosts" >> "$out"
run plan --topology "$TOPO/local-4node.yaml" --profile "$top_srcdir/tests/data/slurm/pair8.txt" \
    --nodes 'n[1-4]' --slots '8(x4)' -- srun -N2 -n8 --cpus-per-task 2 -w n1 --topomap=drb ./app
run plan --topology "$TOPO/local-4node.yaml" --profile "$top_srcdir/tests/data/slurm/pair8.txt" \
    --nodes 'n[1-4]' --site 'min_gain=0.5 strict=1' -- srun -n8 --topomap=cyclic ./app
run plan --topology "$TOPO/local-4node.yaml" --nodes 'n[1-4]' -- srun -n8 ./app
# plan --slurm: each release's rules (spank/release.c), one case per release,
# then one per rule where releases differ. Rings of 3, 4, 11 and 12 ranks.
for k in 3 4 11 12; do
    awk -v k=$k 'BEGIN { print "# nranks=" k; for (i = 0; i < k; i++) print i, (i + 1) % k, 1000 }' \
        > "$tmp/ring$k.txt"
done
mkdir -p "$tmp/flat" "$tmp/tree" "$tmp/notopo"
echo 'ClusterName=c' > "$tmp/flat/slurm.conf"
echo 'TopologyPlugin=topology/tree' > "$tmp/tree/slurm.conf"
echo 'SwitchName=s0 Nodes=n[1-4]' > "$tmp/tree/topology.conf"
printf '%s\n' 'TopologyPlugin=topology/tree' 'SelectTypeParameters=CR_Core,CR_NO_DIST_TOPO_BLOCK' \
    > "$tmp/notopo/slurm.conf"
cp "$tmp/tree/topology.conf" "$tmp/notopo/"
# 26.05 reads the cluster's slurm.conf ($SLURM_CONF) for its task order.
export SLURM_CONF="$tmp/flat/slurm.conf"
echo "# SLURM_CONF=TMP/flat/slurm.conf: $(cat "$SLURM_CONF")" >> "$out"
P8="--topology $TOPO/local-4node.yaml --profile $top_srcdir/tests/data/slurm/pair8.txt"
for r in 22.05 23.02 23.11 24.05 24.11 25.05 25.11 26.05; do
    # shellcheck disable=SC2086
    run plan $P8 --nodes 'n[1-4]' --slurm $r -- srun -n8 --topomap=cyclic ./app
done
R="--topology $TOPO/local-4node.yaml --profile"
# cpt_env: -c from salloc's SLURM_CPUS_PER_TASK=2 from 23.11 only.
export SLURM_CPUS_PER_TASK=2
echo "# SLURM_CPUS_PER_TASK=2" >> "$out"
for r in 23.02 23.11; do
    # shellcheck disable=SC2086
    run plan $R "$tmp/ring4.txt" --nodes 'n[1-2]' --slots 4,2 --slurm $r -- srun -n4 --topomap=cyclic ./app
done
unset SLURM_CPUS_PER_TASK
# ntasks_env_reset: inside salloc -n10 -N2, SLURM_NTASKS gives way to
# -N2 --ntasks-per-node=2 from 23.02.
export SLURM_JOB_NODELIST='n[1-2]' SLURM_JOB_CPUS_PER_NODE='4(x2)' SLURM_NTASKS=10
echo "# SLURM_JOB_NODELIST=n[1-2] SLURM_JOB_CPUS_PER_NODE=4(x2) SLURM_NTASKS=10" >> "$out"
for r in 22.05 23.02; do
    # shellcheck disable=SC2086
    run plan $R "$tmp/ring4.txt" --slurm $r -- srun -N2 --ntasks-per-node=2 --topomap=cyclic ./app
done
unset SLURM_JOB_NODELIST SLURM_JOB_CPUS_PER_NODE SLURM_NTASKS
# tpn_max: --ntasks-per-node=3 kept for 11 tasks on 4 nodes from 24.05;
# overcommit_cpt: -O tasks count -c CPUs from 24.05.
for r in 23.11 24.05; do
    # shellcheck disable=SC2086
    run plan $R "$tmp/ring11.txt" --nodes 'n[1-4]' --slots 4,4,1,1 --slurm $r -- \
        srun -n11 -O --ntasks-per-node=3 --topomap=cyclic ./app
    # shellcheck disable=SC2086
    run plan $R "$tmp/ring12.txt" --nodes 'n[1-4]' --slots 4,4,1,1 --slurm $r -- \
        srun -n12 -O -c2 --topomap=cyclic ./app
done
# step_cursor: a step on 3 of 4 nodes is declined from 24.11.
for r in 24.05 24.11; do
    # shellcheck disable=SC2086
    run plan $R "$tmp/ring3.txt" --nodes 'n[1-4]' --slurm $r -- srun -n3 --topomap=cyclic ./app
done
# topo_order: 26.05 under topology/tree declines, unless CR_NO_DIST_TOPO_BLOCK.
for c in tree notopo; do
    SLURM_CONF="$tmp/$c/slurm.conf"
    echo "# SLURM_CONF=TMP/$c/slurm.conf: $(tr '\n' ' ' < "$SLURM_CONF")" >> "$out"
    # shellcheck disable=SC2086
    run plan $P8 --nodes 'n[1-4]' --slurm 26.05 -- srun -n8 --topomap=cyclic ./app
done
unset SLURM_CONF
# A release without a row: declined in one line, even under strict=1.
# shellcheck disable=SC2086
run plan $P8 --nodes 'n[1-4]' --slurm 27.05 --site strict=1 -- srun -n8 --topomap=cyclic ./app
# shellcheck disable=SC2086
run plan $P8 --nodes 'n[1-4]' --slurm 21.08 -- srun -n8 --topomap=cyclic ./app
# shellcheck disable=SC2086
run plan $P8 --nodes 'n[1-4]' --slurm 23.05 -- srun -n8 --topomap=cyclic ./app
# profile convert: binary and back gives the same text; the binary file is
# read by its magic, or named by --profile-format binary.
run profile convert "$tmp/ring8.txt" "$tmp/ring8.bin"
run profile convert "$tmp/ring8.bin" - --profile-format binary
run profile convert "$tmp/ring8.txt" "$tmp/ring8.data" --to binary
run stats --profile "$tmp/ring8.data" --k 4
# stats with the verdict's node size.
run stats --profile "$top_srcdir/examples/metis-4elt-k256.txt" --k 4 --tasks-per-node 16
# --- profile synth (GPU training layouts; doc/training.md) ---
# TP 2 x PP 2 x DP 2, bytes given, Megatron's order and another: the pairs
# move (TP 1 apart, then PP 1 apart), the totals do not.
run profile synth "$tmp/synth.txt" --tp 2 --pp 2 --dp 2 --bytes tp=1000,dp=100,pp=10
cat "$tmp/synth.txt" >> "$out"
run profile synth - --tp 2 --pp 2 --dp 2 --bytes tp=1000,dp=100,pp=10 --order pp-dp-tp
run profile synth "$tmp/synth-model.txt" --tp 2 --pp 2 --dp 2 --layers 4 --hidden 8 --seq 16 \
    --micro-batch 1 --micro-batches 2 --zero 1
run profile synth - --tp 2 --ep 3 --dp 4 --bytes tp=1
run profile synth - --tp 2 --dp 2 --bytes tp=1 --order tp-xx
run profile synth - --tp 2 --dp 2
run profile synth - --tp 2 --pp 2 --dp 2 --layers 3 --hidden 8 --seq 16 --micro-batch 1 \
    --micro-batches 1
# eval on a GPU fabric: 4 NVL72 nodes, 2 in each of two racks; the spread
# of the layout's groups.
run profile synth "$tmp/synth-gpu.txt" --tp 4 --pp 2 --dp 2 --bytes tp=1e9,dp=1e8,pp=1e7
run map --profile "$tmp/synth-gpu.txt" --topology "$TOPO/nvl72-16racks.yaml" \
    --nodes 'gb[017-020]' --algo block -q -o "$tmp/gpu-block.map"
run eval --profile "$tmp/synth-gpu.txt" --topology "$TOPO/nvl72-16racks.yaml" \
    --mapping "$tmp/gpu-block.map" --layout tp=4,pp=2,dp=2
run eval --profile "$tmp/synth-gpu.txt" --topology "$TOPO/nvl72-16racks.yaml" \
    --mapping "$tmp/gpu-block.map" --layout tp=4,dp=2
run eval --profile "$tmp/synth-gpu.txt" --topology "$TOPO/nvl72-16racks.yaml" \
    --mapping "$tmp/gpu-block.map" --layout tp=4,pp=2,dp=2,order=tp-zz
# --- plan --site: the admin's check of a plugstack.conf line ---------------
# The whole line, as deployed: its path skipped, every key honoured
# (topology=, profiles=, default=, time_limit= with a unit, gain_metric=
# hop-bytes); the store's profile found under the site default.
mkdir -p "$tmp/site-store" && chmod 755 "$tmp/site-store"
"$TOPOMAP" profile add app "$top_srcdir/tests/data/slurm/pair8.txt" --site \
    --store "$tmp/site-store" > /dev/null
run plan --site "optional /usr/lib/x86_64-linux-gnu/slurm-wlm/topomap.so \
topology=$TOPO/local-4node.yaml profiles=$tmp/site-store default=greedy time_limit=2s \
gain_metric=hop-bytes" --nodes 'n[1-4]' -- srun -n8 ./app
# strict=1 and a program without a profile: decision fail, exit 3, in JSON.
run plan --site "topology=$TOPO/local-4node.yaml profiles=$tmp/site-store strict=1" \
    --nodes 'n[1-4]' --json -- srun -n8 --topomap=auto ./other
# topology=slurm: the file beside $SLURM_CONF (the topology.conf above), for
# plan and topology show.
printf 'TopologyPlugin=topology/tree\n' > "$tmp/slurm.conf"
export SLURM_CONF="$tmp/slurm.conf"
run plan --site 'topology=slurm default=greedy bind=none' \
    --profile "$top_srcdir/tests/data/slurm/pair8.txt" --nodes 'n[1-4]' --slots '2(x4)' -- srun -n8 ./app
run topology show slurm
unset SLURM_CONF
# Durations with a unit wherever a time limit is given.
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo auto --time-limit 1500ms -q

# The time of an algorithm is the one thing that changes from run to run: the
# last column of compare, "in N s" in the summary of map, "seconds" in JSON.
sed -i -E -e '/^[a-z][a-z0-9+-]* +([0-9]+|failed) +[-0-9.]+ +/Is/ +[0-9]+\.[0-9]+$/ TIME/' \
    -e 's/ in [0-9]+\.[0-9]+ s;/ in TIME s;/' -e 's/"seconds": [0-9.e+-]+/"seconds": TIME/' \
    -e 's/, [0-9]+\.[0-9]+ ms: /, TIME ms: /' -e 's/ \([0-9]+\.[0-9]+ s\)$/ (TIME s)/' "$out"

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
    n=$((n + 1))
    echo "ok $n # SKIP no profile of at most 512 ranks in $EXAMPLES or $WORKLOADS"
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
    n=$((n + 1))
    echo "ok $n # SKIP no profiles in $EXAMPLES or $WORKLOADS"
fi

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

echo "1..$n"
[ $failed -eq 0 ]
