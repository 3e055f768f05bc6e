#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# gpu_bind=yes end to end on the local Slurm cluster (tests/slurm_lib.sh says
# when it skips), emitting TAP. The nodes get a fake GPU description
# (tests/data/slurm/mesh-2x2-2gpu.yaml: 2 GPUs per node, GPU g near core
# 1 - g). A step with GPUs (SLURM_STEP_GPUS in its environment, which is
# what gres/gpu sets; the test cluster has no GPUs) must give every rank the
# node and GPU 'topomap map' computes, CUDA_VISIBLE_DEVICES = that GPU, the
# CPUs of the core near it and its NIC; the same step without GPUs must be
# placed and bound exactly as with gpu_bind=no, with no GPU variable.
. "$(dirname "$0")/slurm_lib.sh"
TOPO=$DATA/mesh-2x2-2gpu.yaml
CL="$CL --cpus 2"
mkdir -p "$DIR/store"
"$TOPOMAP" profile add pair8 "$DATA/pair8.txt" --site --store "$DIR/store" > /dev/null
ALGO=ohtma
"$TOPOMAP" algorithms | grep -q "^ohtma " || ALGO=cyclic
SHOW='echo "$SLURM_PROCID $SLURMD_NODENAME ${CUDA_VISIBLE_DEVICES:--} ${TOPOMAP_GPU_NIC:--} $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"'
run() { # OUT ENV-ASSIGNMENTS...: the step, one line per rank
    out=$1
    shift
    # shellcheck disable=SC2086
    env "$@" $SALLOC -N4 --exclusive srun -n8 --topomap=$ALGO --topomap-profile=pair8 \
        sh -c "$SHOW" 2> "$out.err" | sort -n > "$out"
}
# The PUs of core C, as Cpus_allowed_list writes them.
pus() { hwloc-calc --physical-output --intersect PU "core:$1" 2> /dev/null || echo "$1"; }

slurm_start 2 "topology=$TOPO profiles=$DIR/store"
run "$DIR/nogpu.off" PATH="$PATH"
slurm_start 2 "topology=$TOPO profiles=$DIR/store gpu_bind=yes"
ok 0 "local cluster: 4 nodes with 2 CPUs and 2 fake GPUs, gpu_bind=yes"
run "$DIR/gpu" SLURM_STEP_GPUS=0,1
run "$DIR/nogpu" PATH="$PATH"

"$TOPOMAP" map --profile "$DATA/pair8.txt" --topology "$TOPO" --nodes 'n[1-4]' \
    --tasks-per-node 2 --algo "$ALGO" > "$DIR/want.map" 2> /dev/null
# Expected per rank: node, GPU (the slot), NIC, the CPUs of core 1 - GPU.
while read -r rank host gpu; do
    echo "$rank $host $gpu mlx5_$((1 - gpu)):1 $(pus $((1 - gpu)))"
done < "$DIR/want.map" > "$DIR/gpu.want"
cmp -s "$DIR/gpu.want" "$DIR/gpu"
ok $? "step with GPUs: every rank on the node and GPU 'topomap map' computes, CUDA_VISIBLE_DEVICES, TOPOMAP_GPU_NIC and the CPUs near its GPU"
cmp -s "$DIR/gpu.want" "$DIR/gpu" || diag "$DIR/gpu" "$DIR/gpu.want" "$DIR/gpu.err"
awk '{print $1, $2, $5}' "$DIR/gpu" > "$DIR/gpu.cpus"
awk '{print $1, $2, $5}' "$DIR/nogpu" > "$DIR/nogpu.cpus"
[ "$(wc -l < "$DIR/gpu")" -eq 8 ] && ! cmp -s "$DIR/gpu.cpus" "$DIR/nogpu.cpus"
ok $? "... on other cores than the core binding of the same slots (the test is not vacuous)"
[ "$(wc -l < "$DIR/nogpu")" -eq 8 ] && awk '$3 != "-" || $4 != "-" {exit 1}' "$DIR/nogpu"
ok $? "step without GPUs: no CUDA_VISIBLE_DEVICES, no TOPOMAP_GPU_NIC"
cmp -s "$DIR/nogpu.off" "$DIR/nogpu"
ok $? "step without GPUs: the same nodes and CPUs as with gpu_bind=no"
cmp -s "$DIR/nogpu.off" "$DIR/nogpu" || diag "$DIR/nogpu" "$DIR/nogpu.off" "$DIR/nogpu.err"

tap_done
