#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The topomap command line tool, run as a user would, emitting TAP: its
# golden output, map/eval/stats/compare/topology show/algorithms/plan/profile
# on small inputs, compared with tests/cli.expected (as hwloc's
# utils/hwloc/test-hwloc-distrib.sh.in does with its .output file);
# CLI_REGENERATE=1 rewrites the golden file instead (check the diff!).
# The other tests of the command: cli_errors.sh (exit statuses and
# messages), cli_habits.sh (what users of hwloc's tools and srun expect),
# cli_eval.sh (eval against an independent computation, every profile on
# every shipped topology). Needs $top_builddir (the built tree) and
# $top_srcdir (the sources).

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/cli_lib.sh"

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
# The hop-bytes bound (eval --bound), and exact: LAMMPS's 16 ranks on the
# first 16 nodes (an 8 x 2 patch), proven optimal, then judged against the
# bound; exact refuses two slots on a node.
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/block.map" --bound
run eval --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" --mapping "$tmp/block.map" --bound --json
run map --profile "$top_srcdir/tests/data/profiles/lammps-lj32k-16.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[000-015]' --tasks-per-node 1 --algo exact -o "$tmp/exact.map"
run eval --profile "$top_srcdir/tests/data/profiles/lammps-lj32k-16.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --mapping "$tmp/exact.map" --bound
run map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
    --nodes 't[003,000-002]' --tasks-per-node 2 --algo exact
# --bound refuses more than 2048 ranks, in one line (a ring of 2049).
awk 'BEGIN { for (i = 0; i < 2049; i++) print i, (i + 1) % 2049, 100 }' > "$tmp/ring2049.txt"
awk 'BEGIN { for (i = 0; i < 2049; i++) printf "%d t%04d 0\n", i, i }' > "$tmp/ring2049.map"
run eval --profile "$tmp/ring2049.txt" --topology "$TOPO/torus-16x16x16.yaml" \
    --mapping "$tmp/ring2049.map" --bound
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

tap_done
