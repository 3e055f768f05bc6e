# shellcheck shell=sh
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by benefit.sh and train-step.sh: what both do on a netemu.sh
# cluster. The caller sets HOSTS (netemu's hosts file), OUT (whose cluster/
# holds netemu's state), NET (its /24), RANKS and TLIMIT.

# to_hostfile SLOTS HOSTFILE: a slots file ("RANK NODE SLOT") as a hostfile
# of the nodes' addresses in rank order.
to_hostfile() {
    sort -n "$1" | awk 'NR == FNR {addr[$1] = $2; next} {print addr[$2]}' "$HOSTS" - > "$2"
}

# mpirun_netemu HOSTFILE WDIR ARGS...: Open MPI's mpirun of RANKS ranks in
# hostfile order (one address per rank), started through the netemu agent,
# TCP between nodes only over the cluster's subnet, shared memory inside a
# node, no busy polling (2 cores), within TLIMIT seconds; ARGS are more
# mpirun options and the program.
mpirun_netemu() {
    mn_hosts=$1 mn_wd=$2
    shift 2
    timeout "$TLIMIT" mpirun.openmpi --allow-run-as-root -np "$RANKS" --hostfile "$mn_hosts" \
        --mca rmaps seq --mca plm_rsh_agent "$OUT/cluster/rsh" --mca plm_rsh_no_tree_spawn 1 \
        --mca pml ob1 --mca btl self,vader,tcp \
        --mca btl_tcp_if_include "$NET.0/24" --mca oob_tcp_if_include "$NET.0/24" \
        --mca mpi_yield_when_idle 1 --oversubscribe --bind-to none --wdir "$mn_wd" "$@"
}

# alternate ROUNDS FN PLACEMENT...: FN PLACEMENT ROUND for every round and
# placement, round r starting at the r-th placement of the list (mod its
# length), so that no placement always runs first.
alternate() {
    al_rounds=$1 al_fn=$2
    shift 2
    al_r=1
    while [ $al_r -le "$al_rounds" ]; do
        al_k=0
        while [ $al_k -lt $# ]; do
            al_i=$(((al_k + al_r - 1) % $# + 1))
            eval "al_p=\${$al_i}"
            # shellcheck disable=SC2154
            "$al_fn" "$al_p" "$al_r"
            al_k=$((al_k + 1))
        done
        al_r=$((al_r + 1))
    done
}

# metric_line APP PLACEMENT PROFILE SLOTS: topomap eval's figures of a
# placement on the cluster's topology (TOPOMAP, TOPO), as benefit-report's
# "metric" line.
metric_line() {
    "$TOPOMAP" eval --profile "$3" --topology "$TOPO" --mapping "$4" |
        awk -v a="$1" -v p="$2" '/^hop-bytes/ {hb = $2} /^SumCom/ {sc = $2}
            /^internode bytes/ {ib = $3} /^busiest link / && $3 != "time" {cm = $3}
            END {print "metric", a, p, hb, sc, ib, cm}'
}
