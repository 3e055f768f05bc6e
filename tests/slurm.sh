#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end test of the SPANK plugin on a real Slurm cluster started on this
# host by contrib/slurm-local-cluster.sh (4 nodes n1..n4 with 2 CPUs each,
# on its own ports and directory), emitting TAP; skips as tests/slurm_lib.sh
# says (not root, no Slurm, no plugin, TOPOMAP_SKIP_SLURM=1).
#
# Checks: topomap's prediction of Slurm's default layout against the real one
# for several srun shapes, and --topomap=block == no option; a non-trivial
# algorithm places every rank on the node and core `topomap map` computes;
# sbatch/salloc options reach srun; missing/corrupt profiles and -w keep
# Slurm's layout with a "topomap:" line; strict=1 fails the step with the
# plugin optional or required; a binding problem is one line per node; MPICH (and
# Open MPI when it can run here) under a remapped layout, with the size of
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) per rank; --topomap-record (an
# MPICH program with libtopomap-profiler from the build tree): the stored
# matrix byte for byte, a placement from it, sbatch, a non-MPI program, an
# abort, concurrent recordings of one name, a missing profiler, an unusable
# spool; two unprivileged users (made for the test): each one's recordings
# are his own and used for his jobs, the site's profiles root's, a directory
# planted under another's uid refused.
. "$(dirname "$0")/slurm_lib.sh"
TOPO=$DATA/mesh-2x2-2core.yaml
ARGS="topology=$TOPO profiles=$DIR/store"
CL="$CL --cpus 2"
slurm_start 2 "$ARGS"
# The plugin's hostfiles go here, so that the test can see them go away.
export TMPDIR="$DIR/tmp"
mkdir -p "$TMPDIR" "$DIR/store"
ok 0 "local cluster: 4 nodes with 2 CPUs, the plugin loaded"

# Profiles: pair8 (ranks i and i+4 talk) and rings of every size used below.
# Site profiles (--site; root owns the store).
"$TOPOMAP" profile add pair8 "$DATA/pair8.txt" --site --store "$DIR/store" > /dev/null
for k in 1 2 3 4 5 6 8 12 300; do
    i=0
    while [ $i -lt $k ]; do echo "$i $(((i + 1) % k)) 100"; i=$((i + 1)); done > "$DIR/ring$k.txt"
    echo "# nranks=$k" >> "$DIR/ring$k.txt"
    "$TOPOMAP" profile add "ring$k" "$DIR/ring$k.txt" --site --store "$DIR/store" > /dev/null
done
i=0
while [ $i -lt 300 ]; do echo "$i $(((i + 75) % 300)) 100"; i=$((i + 1)); done > "$DIR/far300.txt"
echo "# nranks=300" >> "$DIR/far300.txt"
"$TOPOMAP" profile add far300 "$DIR/far300.txt" --site --store "$DIR/store" > /dev/null
printf '# nranks=8\n0 1 100\n1 two 100\n' > "$DIR/store/corrupt.profile"

# One line per rank, in rank order: "RANK NODE CPUS".
SHOW='echo "$SLURM_PROCID $SLURMD_NODENAME $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"'
# layout OUT ERR SRUN-OPTIONS...: run a step inside a fresh 4-node allocation.
layout() {
    out=$1 err=$2
    shift 2
    $SALLOC -N4 --exclusive srun "$@" sh -c "$SHOW" 2> "$err" | sort -n > "$out"
}
# Tasks per node, in node order, of a layout file: "2,2,1,1".
per_node() { awk '{c[$2]++} END {for (h in c) print h, c[h]}' "$1" | sort -V | awk '{printf "%s%s", s, $2; s=","}'; }
nodes_of() { awk '{print $1, $2}' "$1"; }

# --- 1. Slurm's default layout, as topomap predicts it ------------------------
for shape in "-n8" "-n5" "-n3" "-N2 -n4" "-n6 --ntasks-per-node=2" "" "-n4 -c2" "-n12 -O" "-n1"; do
    # shellcheck disable=SC2086
    layout "$DIR/def" "$DIR/def.err" $shape
    want=$(per_node "$DIR/def")
    count=$(wc -l < "$DIR/def")
    # shellcheck disable=SC2086
    layout "$DIR/blk" "$DIR/blk.err" $shape --topomap=block --topomap-profile=ring$count --topomap-verbose
    got=$(sed -n 's/.*(\([0-9,]*\) tasks per node).*/\1/p' "$DIR/blk.err")
    if [ "$SLURM_REL" -ge 2411 ] && [ "$(echo "$want" | tr , '\n' | wc -l)" -lt 4 ]; then
        # 24.11 and later pick a partial step's nodes from the job's history.
        grep -q "^srun: topomap: cannot predict Slurm's layout: Slurm $SLURM_REL_NAME picks the nodes of a step" "$DIR/blk.err"
        ok $? "srun ${shape:-(no options)} on part of the allocation: declined on $SLURM_REL_NAME ($(grep -m1 -o 'picks.*' "$DIR/blk.err"))"
        [ "$(wc -l < "$DIR/blk")" = "$count" ]
        ok $? "... and the step runs with Slurm's layout"
        continue
    fi
    [ -n "$want" ] && [ "$got" = "$want" ]
    ok $? "srun ${shape:-(no options)}: topomap predicts Slurm's $want tasks per node (got ${got:-nothing})"
    [ "$got" = "$want" ] || diag "$DIR/blk.err"
    nodes_of "$DIR/blk" > "$DIR/blk.nodes"
    nodes_of "$DIR/def" | cmp -s - "$DIR/blk.nodes"
    ok $? "srun ${shape:-(no options)} --topomap=block places every rank where Slurm does"
done

# --- 2. Non-trivial algorithms: where `topomap map` says, bound to its core --
# ohtma (or cyclic before it existed) for placement; rcm also puts a higher
# rank on a lower core of some node (rank 6 on n1 core 0, rank 2 on core 1),
# which Slurm's own binding never does, so that the core check can fail.
ALGO=ohtma
"$TOPOMAP" algorithms | grep -q "^ohtma " || ALGO=cyclic
ALGOS=$ALGO
"$TOPOMAP" algorithms | grep -q "^rcm " && ALGOS="$ALGO rcm"
layout "$DIR/def" "$DIR/def.err" -n8
reversed=0
for algo in $ALGOS; do
    "$TOPOMAP" map --profile "$DATA/pair8.txt" --topology "$TOPO" --nodes 'n[1-4]' \
        --tasks-per-node 2 --algo "$algo" > "$DIR/want.map"
    layout "$DIR/got" "$DIR/got.err" -n8 --topomap="$algo" --topomap-profile=pair8 --topomap-verbose
    nodes_of "$DIR/got" > "$DIR/got.$algo"
    cp "$DIR/got" "$DIR/got.full.$algo"
    awk '{print $1, $2}' "$DIR/want.map" | cmp -s - "$DIR/got.$algo"
    ok $? "--topomap=$algo: every rank on the node 'topomap map --algo $algo' computes"
    awk '{print $1, $2}' "$DIR/want.map" | cmp -s - "$DIR/got.$algo" || diag "$DIR/got" "$DIR/want.map" "$DIR/got.err"
    ! nodes_of "$DIR/def" | cmp -s - "$DIR/got.$algo"
    ok $? "... which is not Slurm's default layout (the test is not vacuous)"
    grep -q "^srun: topomap: $algo on 8 ranks.*hop-bytes 8000 -> [0-9.]* (.*%), [0-9.]* ms: remapped" "$DIR/got.err"
    ok $? "--topomap-verbose: algorithm, hop-bytes before and after, time ($(grep -o 'hop-bytes.*' "$DIR/got.err"))"
    # Expected CPUs of each rank: the PUs of its core (hwloc-calc when there).
    good=0
    while read -r rank host core; do
        if command -v hwloc-calc > /dev/null 2>&1; then
            cpus=$(hwloc-calc --physical-output --intersect PU "core:$core" 2> /dev/null)
        else
            cpus=$core
        fi
        got=$(awk -v r="$rank" '$1 == r {print $3}' "$DIR/got")
        # Cpus_allowed_list writes ranges; expand to compare.
        exp_got=$(echo "$got" | awk -F, '{for (i = 1; i <= NF; i++) {n = split($i, a, "-"); if (n == 1) a[2] = a[1]; for (c = a[1]; c <= a[2]; c++) {printf "%s%d", s, c; s = ","}}}')
        [ "$exp_got" = "$cpus" ] || { good=1; echo "# rank $rank: Cpus_allowed_list $got, core $core is CPUs $cpus"; }
    done < "$DIR/want.map"
    if [ "$(nproc)" -ge 2 ]; then
        ok $good "--topomap=$algo: every rank's Cpus_allowed_list is the core 'topomap map' computes"
    else
        skip "one CPU: cannot check binding to 2 cores per node"
    fi
    # A node where a higher rank got a lower core than a lower rank.
    awk '{if (($2 in lo) && $3 < lo[$2]) r = 1; if (!($2 in lo) || $3 < lo[$2]) lo[$2] = $3} END {exit !r}' \
        "$DIR/want.map" && reversed=1
done
[ $reversed -eq 1 ]
ok $? "some rank is bound to a core Slurm's own binding would not give it"
cp "$DIR/got.$ALGO" "$DIR/got.nodes"
# -N on the command line, the common form: 23.11+ srun refuses it beside a
# hostfile, so the plugin runs srun again without it (spank/release.c).
for nopt in "-N4" "--nodes 4" "-N 4 -Q"; do
    # shellcheck disable=SC2086
    layout "$DIR/gotN" "$DIR/gotN.err" $nopt -n8 --topomap=$ALGO --topomap-profile=pair8 --topomap-verbose
    cmp -s "$DIR/gotN" "$DIR/got.full.$ALGO"
    ok $? "srun $nopt -n8 --topomap=$ALGO: runs, every rank on the node and core of srun -n8 --topomap=$ALGO"
    cmp -s "$DIR/gotN" "$DIR/got.full.$ALGO" || diag "$DIR/gotN" "$DIR/gotN.err"
    [ "$(grep -c ': remapped' "$DIR/gotN.err")" = 1 ] && ! grep -q 'incompatible' "$DIR/gotN.err"
    ok $? "... one 'remapped' line, no error from srun"
done
[ -z "$(ls "$TMPDIR")" ]
ok $? "... and no hostfile left behind"
# Every decision is in the slurmd log of global task 0's node, one line per step.
grep -h "topomap: step [0-9]*\.0: $ALGO on 8 ranks.*: remapped" "$DIR"/cluster/log/slurmd-*.log > "$DIR/logged"
[ "$(wc -l < "$DIR/logged")" -ge 4 ]
ok $? "each placed step is logged once in a slurmd log ($(wc -l < "$DIR/logged") lines: $(head -1 "$DIR/logged" | sed 's/.*topomap: //'))"

# --- 2b. --topomap's value is checked when srun or sbatch reads it ------------
$SALLOC -N4 --exclusive srun -n8 --topomap=ohmta echo ran > "$DIR/typo.out" 2> "$DIR/typo.err"
rc=$?
[ $rc -ne 0 ] && [ ! -s "$DIR/typo.out" ] &&
    grep -q "topomap: --topomap=ohmta: unknown algorithm 'ohmta' (known: off, .*ohtma" "$DIR/typo.err"
ok $? "srun --topomap=ohmta: refused (exit $rc), nothing runs, the valid names listed"
[ $rc -ne 0 ] || diag "$DIR/typo.err"
timeout 60 sbatch -Q --wrap "true" --topomap=ohmta > "$DIR/sbtypo.out" 2> "$DIR/sbtypo.err"
rc=$?
[ $rc -ne 0 ] && grep -q "unknown algorithm 'ohmta'" "$DIR/sbtypo.err"
ok $? "sbatch --topomap=ohmta: the job is not submitted (exit $rc)"
$SALLOC -N4 --exclusive srun -n8 --topomap=help true > "$DIR/help.out" 2> "$DIR/help.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^  $ALGO " "$DIR/help.out" && grep -q "^  auto " "$DIR/help.out"
ok $? "srun --topomap=help: lists the algorithms, exit $rc"
layout "$DIR/sub" "$DIR/sub.err" -n8 --topomap=$ALGO,verbose,profile=pair8
nodes_of "$DIR/sub" | cmp -s - "$DIR/got.nodes" && grep -q ': remapped' "$DIR/sub.err"
ok $? "--topomap=$ALGO,verbose,profile=pair8: the same placement, the verbose line"
$SALLOC -N4 --exclusive srun -n8 --topomap=$ALGO --topomap-profile=pair8 \
    sh -c 'env | grep -E "^(SLURM_HOSTFILE|TOPOMAP_(BIND|PMI2_MAPPING|RECORD))" || true' > "$DIR/env" 2>&1
[ ! -s "$DIR/env" ]
ok $? "tasks see neither SLURM_HOSTFILE nor topomap's TOPOMAP_* variables"
[ -s "$DIR/env" ] && diag "$DIR/env"
[ -z "$(ls "$TMPDIR")" ]
ok $? "the private hostfiles are removed"

# --- 2c. topology=slurm: the network as the cluster describes it to Slurm -----
# A Slurm topology.yaml (topology/block, blocks n[1-2] and n[3-4]) beside the
# cluster's slurm.conf; the plugin finds it from SLURM_CONF.
printf '%s\n' '- topology: blocks' '  cluster_default: true' '  block:' '    block_sizes: [2]' \
    '    blocks:' '      - block: b1' '        nodes: n[1-2]' '      - block: b2' \
    '        nodes: n[3-4]' > "$DIR/cluster/etc/topology.yaml"
if [ "$SLURM_REL" -ge 2605 ]; then
    # 26.05 gives out a step's tasks in the order of its nodes' topology ranks
    # under topology/block (spank/order.c): declined with one line, the step
    # runs; with CR_NO_DIST_TOPO_BLOCK, node order again, placed below.
    slurm_start 2 "topology=slurm profiles=$DIR/store"
    layout "$DIR/topo" "$DIR/topo.err" -N4 -n8 --topomap=$ALGO,verbose,profile=pair8
    grep -q "^srun: topomap: cannot predict Slurm's layout: Slurm 26.05 gives out a step's tasks in the order of its nodes' topology ranks" "$DIR/topo.err" &&
        [ "$(wc -l < "$DIR/topo")" -eq 8 ]
    ok $? "26.05, topology/block: a step on several nodes declined with one line, run with Slurm's layout ($(grep -m1 -o 'gives out.*ranks' "$DIR/topo.err"))"
    CL="$CL --select-params CR_Core,CR_NO_DIST_TOPO_BLOCK"
fi
slurm_start 2 "topology=slurm profiles=$DIR/store"
"$TOPOMAP" map --profile "$DATA/pair8.txt" --topology "$DIR/cluster/etc/topology.yaml" \
    --nodes 'n[1-4]' --tasks-per-node 2 --cores-per-node 2 --algo "$ALGO" > "$DIR/want.blk"
layout "$DIR/gotblk" "$DIR/gotblk.err" -N4 -n8 --topomap=$ALGO,verbose,profile=pair8
nodes_of "$DIR/gotblk" > "$DIR/gotblk.nodes"
awk '{print $1, $2}' "$DIR/want.blk" | cmp -s - "$DIR/gotblk.nodes" && grep -q ': remapped' "$DIR/gotblk.err"
ok $? "topology=slurm (a topology.yaml of blocks beside slurm.conf): every rank where 'topomap map' on that file puts it"
grep -q 'binding left to Slurm' "$DIR/gotblk.err"
ok $? "... the file describes no cores, so Slurm binds (not two ranks to one core)"
# A configless cluster's login or compute node: no SLURM_CONF, no
# /etc/slurm/slurm.conf, the controller's files where slurmd and sackd cache
# them (/run/slurm/conf, a link to the cluster's etc/ here: the private
# munged cannot serve a real configless slurmd, which authenticates through
# the default munge socket before it has any configuration). srun itself and
# topology=slurm both find slurm.conf and topology.yaml there.
if [ ! -e /etc/slurm/slurm.conf ] && [ ! -e /run/slurm/conf ] && mkdir -p /run/slurm &&
    ln -s "$DIR/cluster/etc" /run/slurm/conf; then
    (unset SLURM_CONF && layout "$DIR/gotcl" "$DIR/gotcl.err" -N4 -n8 --topomap=$ALGO,verbose,profile=pair8)
    rm -f /run/slurm/conf
    rmdir /run/slurm 2> /dev/null
    nodes_of "$DIR/gotcl" | cmp -s - "$DIR/gotblk.nodes" && grep -q ': remapped' "$DIR/gotcl.err"
    ok $? "topology=slurm, configless (slurm.conf and topology.yaml only in /run/slurm/conf): the same placement"
    grep -q ': remapped' "$DIR/gotcl.err" || diag "$DIR/gotcl.err"
else
    skip "topology=slurm, configless: this host has /etc/slurm/slurm.conf or /run/slurm/conf, which srun would read first"
fi
rm -f "$DIR/cluster/etc/topology.yaml"
if [ "$SLURM_REL" -ge 2605 ]; then
    CL=$(echo "$CL" | sed 's/ --select-params [^ ]*//')
    slurm_start 2 "topology=slurm profiles=$DIR/store"
fi
$SALLOC -N4 --exclusive srun -n8 --topomap=$ALGO --topomap-profile=pair8 true > /dev/null 2> "$DIR/notopo.err"
grep -q "topomap: topology=slurm: .*slurm.conf" "$DIR/notopo.err"
ok $? "topology=slurm on a cluster with no topology file: one line ($(grep -m1 'topomap:' "$DIR/notopo.err"))"
grep -hq "topomap: step [0-9.]*: topology=slurm: " "$DIR"/cluster/log/slurmd-*.log
ok $? "... which the admin finds in the slurmd log too"
slurm_start 2 "$ARGS"

# --- 3. sbatch and salloc options reach the steps -----------------------------
cat > "$DIR/job.sh" << EOF
#!/bin/sh
srun -n8 sh -c '$SHOW' | sort -n
EOF
timeout -k 5 120 sbatch -Q --wait -t 2 -N4 --exclusive --topomap=$ALGO --topomap-profile=pair8 \
    -o "$DIR/job.out" -e "$DIR/job.err" "$DIR/job.sh" > /dev/null 2>&1
nodes_of "$DIR/job.out" | cmp -s - "$DIR/got.nodes"
ok $? "sbatch --topomap=$ALGO --topomap-profile=pair8: srun in the script remaps the same way"
$SALLOC -N4 --exclusive --topomap=$ALGO --topomap-profile=pair8 srun -n8 sh -c "$SHOW" 2> /dev/null |
    sort -n | awk '{print $1, $2}' | cmp -s - "$DIR/got.nodes"
ok $? "salloc --topomap=$ALGO --topomap-profile=pair8: srun inside remaps the same way"

# srun's own options win over those the batch job was submitted with.
cat > "$DIR/job2.sh" << EOF
#!/bin/sh
srun -n8 --topomap=$ALGO --topomap-profile=pair8 sh -c '$SHOW' | sort -n
EOF
timeout -k 5 120 sbatch -Q --wait -t 2 -N4 --exclusive --topomap=off --topomap-profile=nothere \
    -o "$DIR/job2.out" -e "$DIR/job2.err" "$DIR/job2.sh" > /dev/null 2>&1
nodes_of "$DIR/job2.out" | cmp -s - "$DIR/got.nodes" && ! grep -q topomap: "$DIR/job2.err"
ok $? "srun --topomap=$ALGO --topomap-profile=pair8 in a job submitted with --topomap=off --topomap-profile=nothere: srun's options win"

# --- 4. Failures keep Slurm's layout and say so in one line -------------------
check_fallback() { # DESCRIPTION PATTERN REFERENCE-OPTION SRUN-OPTIONS...
    what=$1 pat=$2 ref=$3
    shift 3
    # shellcheck disable=SC2086
    set -f; layout "$DIR/ref" "$DIR/ref.err" -n8 $ref; set +f
    layout "$DIR/fb" "$DIR/fb.err" -n8 "$@"
    nodes_of "$DIR/ref" > "$DIR/ref.nodes"
    [ "$(wc -l < "$DIR/fb")" -eq 8 ] && nodes_of "$DIR/fb" | cmp -s - "$DIR/ref.nodes"
    ok $? "$what: the job runs with Slurm's layout"
    [ "$(grep -c 'topomap:' "$DIR/fb.err")" -eq 1 ] && grep -q "topomap: .*$pat" "$DIR/fb.err"
    ok $? "$what: one 'topomap:' line ($(grep 'topomap:' "$DIR/fb.err" | head -1))"
}
check_fallback "missing profile" "no profile 'nothere'" "" --topomap=$ALGO --topomap-profile=nothere
check_fallback "corrupt profile" "corrupt.profile:3" "" --topomap=$ALGO --topomap-profile=corrupt
check_fallback "profile for 5 ranks" "recorded with 5 ranks" "" --topomap=$ALGO --topomap-profile=ring5
check_fallback "-w given" "-w given" "-wn[1-4]" --topomap=$ALGO --topomap-profile=pair8 -w "n[1-4]"
# A launcher that numbers the ranks itself (spank/launcher.c): a stand-in
# named torchrun that runs its argument.
printf '#!/bin/sh\nexec sh -c "$1"\n' > "$DIR/torchrun"
chmod +x "$DIR/torchrun"
layout "$DIR/ref" "$DIR/ref.err" -n8
nodes_of "$DIR/ref" > "$DIR/ref.nodes"
# check_launcher WHAT PROGRAM PATTERN: srun PROGRAM keeps Slurm's layout with
# one line matching PATTERN.
check_launcher() {
    $SALLOC -N4 --exclusive srun -n8 --topomap=$ALGO --topomap-profile=pair8 "$2" "$SHOW" \
        2> "$DIR/tr.err" | sort -n > "$DIR/tr"
    [ "$(wc -l < "$DIR/tr")" -eq 8 ] && nodes_of "$DIR/tr" | cmp -s - "$DIR/ref.nodes" &&
        [ "$(grep -c 'topomap:' "$DIR/tr.err")" -eq 1 ] && grep -q "topomap: $3" "$DIR/tr.err"
    ok $? "$1: Slurm's layout, one line ($(grep -m1 'topomap:' "$DIR/tr.err"))"
}
check_launcher "srun torchrun" "$DIR/torchrun" \
    "torchrun numbers the ranks itself.*training.md.*Slurm's default layout"
# The same launcher run by a shell script srun runs (spank/launcher_script.c):
# the line names the script.
printf '#!/bin/sh\n# the agent\nexec "%s" "$1"\n' "$DIR/torchrun" > "$DIR/train.sh"
chmod +x "$DIR/train.sh"
check_launcher "srun train.sh running torchrun" "$DIR/train.sh" \
    "torchrun, started by $DIR/train.sh, numbers the ranks itself"

# strict=1: the same failure fails the step (plugstack.conf is re-read at
# every launch, so rewriting it is enough), whether the plugin is "optional"
# (what README.md recommends; Slurm ignores what an optional plugin's
# callbacks return, so the plugin makes the tasks exit before exec) or
# "required" (srun stops at once). The program must not run.
for kind in optional required; do
    $CLUSTER start $CL --plugin-kind $kind --plugin "$PLUGIN" --plugin-args "$ARGS strict=1" > /dev/null 2>&1
    $SALLOC -N4 --exclusive srun -n8 --topomap=$ALGO --topomap-profile=nothere echo ran \
        > "$DIR/strict.out" 2> "$DIR/strict.err"
    rc=$?
    [ $rc -ne 0 ] && ! grep -q ran "$DIR/strict.out" && [ "$(grep -c 'topomap:' "$DIR/strict.err")" -eq 1 ] &&
        grep -q "topomap: no profile 'nothere'.*failing the step (strict=1)" "$DIR/strict.err"
    ok $? "strict=1, plugin $kind: a missing profile fails the step (exit $rc), the program does not run, one topomap: line"
    [ $rc -ne 0 ] || diag "$DIR/strict.err"
    $SALLOC -N4 --exclusive srun -n8 true > /dev/null 2>&1
    ok $? "strict=1, plugin $kind: steps without --topomap still run"
done
# srun --export=NONE keeps only SLURM_* variables: the failure still reaches
# the nodes (SLURM_TOPOMAP_FAIL).
$CLUSTER start $CL --plugin-kind optional --plugin "$PLUGIN" --plugin-args "$ARGS strict=1" > /dev/null 2>&1
$SALLOC -N4 --exclusive srun -n8 --export=NONE --topomap=$ALGO --topomap-profile=nothere /bin/echo ran \
    > "$DIR/strict.out" 2> "$DIR/strict.err"
rc=$?
[ $rc -ne 0 ] && ! grep -q ran "$DIR/strict.out"
ok $? "strict=1, plugin optional, srun --export=NONE: the step fails too (exit $rc)"

# A binding problem on every node: the topology says 4 cores per node, the
# nodes have 2, so 16 ranks (-O) get core indices the nodes do not have. One
# line per node, naming it (it used to be two: Slurm's log and the task's).
sed 's/cores: 2/cores: 4/' "$TOPO" > "$DIR/mesh4.yaml"
i=0
while [ $i -lt 16 ]; do echo "$i $(((i + 8) % 16)) 100"; i=$((i + 1)); done > "$DIR/pair16.txt"
"$TOPOMAP" profile add pair16 "$DIR/pair16.txt" --site --store "$DIR/store" > /dev/null
for strict in 0 1; do
    $CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "topology=$DIR/mesh4.yaml profiles=$DIR/store strict=$strict" > /dev/null 2>&1
    $SALLOC -N4 --exclusive srun -n16 -O --topomap=$ALGO --topomap-profile=pair16 echo ran \
        > "$DIR/bind.out" 2> "$DIR/bind.err"
    rc=$?
    if [ $strict = 0 ]; then
        want="keeping Slurm's binding for them"
        [ $rc -eq 0 ] && [ "$(grep -c ran "$DIR/bind.out")" -eq 16 ]
    else
        want="failing the step (strict=1)"
        [ $rc -ne 0 ] && ! grep -q ran "$DIR/bind.out"
    fi
    ok $? "binding problem on every node, strict=$strict: exit $rc, $(grep -c ran "$DIR/bind.out") tasks ran"
    [ "$(grep -c 'topomap:' "$DIR/bind.err")" -eq 4 ] &&
        [ "$(grep -c "^topomap: n[1-4]: rank [0-9]*: .*; $want\$" "$DIR/bind.err")" -eq 4 ] &&
        [ "$(grep -o '^topomap: n[1-4]' "$DIR/bind.err" | sort -u | wc -l)" -eq 4 ]
    ok $? "... one line per node, naming it ($(grep -m1 'topomap:' "$DIR/bind.err"))"
    [ "$(grep -c 'topomap:' "$DIR/bind.err")" -eq 4 ] || diag "$DIR/bind.err"
done
$CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$ARGS" > /dev/null 2>&1

# A layout too irregular for a PMI2 process mapping (a random one of 300
# ranks on a profile where ranks i and i+75 talk: Slurm's block layout puts
# every pair on two nodes 1.5 hops apart on average, a random one 1 hop, so
# it passes min_gain): rank 0 warns once, and only when the step uses pmi2.
$SALLOC -N4 --exclusive srun -n300 -O --mpi=pmi2 --topomap=random --topomap-profile=far300 true \
    > /dev/null 2> "$DIR/pmi2.err"
[ "$(grep -c 'topomap: this layout is too irregular for --mpi=pmi2' "$DIR/pmi2.err")" -eq 1 ]
ok $? "a random layout of 300 ranks under --mpi=pmi2: one warning that MPI loses locality"
$SALLOC -N4 --exclusive srun -n300 -O --mpi=none --topomap=random --topomap-profile=far300 true \
    > /dev/null 2> "$DIR/pmi2.err"
! grep -q 'topomap:' "$DIR/pmi2.err"
ok $? "... and none under --mpi=none"
$CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$ARGS" > /dev/null 2>&1

# --- 5. MPI under a remapped layout -------------------------------------------
cat > "$DIR/shm.c" << 'EOF'
/* Rank, node, size of the shared-memory communicator, and a correctness
 * check (ring exchange and allreduce). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, ssize, got = -1, sum = 0;
    MPI_Comm shm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &ssize);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *node = getenv("SLURMD_NODENAME");
    printf("%d %s %d %d %d\n", rank, node ? node : "?", ssize, size,
           got == left && sum == size * (size - 1) / 2);
    MPI_Comm_free(&shm);
    MPI_Finalize();
    return 0;
}
EOF
# mpi_check OUT: every rank ran, computed right, and its shared-memory
# communicator holds exactly the ranks on its node. Prints the sizes.
mpi_ok() {
    [ "$(wc -l < "$1")" -eq 8 ] && awk '{c[$2]++; s[$1] = $3; h[$1] = $2; ok += $5}
        END {bad = (ok != 8); for (r in s) if (s[r] != c[h[r]]) bad = 1; exit bad}' "$1"
}
sizes() { sort -n "$1" | awk '{printf "%s%s", s, $3; s=","}'; }
if command -v mpicc.mpich > /dev/null 2>&1 && mpicc.mpich -o "$DIR/shm-mpich" "$DIR/shm.c" 2> "$DIR/cc.err"; then
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap=$ALGO --topomap-profile=pair8 \
        "$DIR/shm-mpich" > "$DIR/mpich.out" 2> "$DIR/mpich.err"
    nodes_of "$DIR/mpich.out" | sort -n | awk '{print $1, $2}' | cmp -s - "$DIR/got.nodes"
    ok $? "MPICH --mpi=pmi2 --topomap=$ALGO: ranks placed as computed"
    # What this MPICH makes of Slurm's own layout first: MPICH 5 (Debian 14)
    # under Slurm 26.05's pmi2 puts every rank in a shared-memory group of
    # its own even then, so there the remapped step must match that.
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 "$DIR/shm-mpich" > "$DIR/mpichblk.out" 2> /dev/null
    if mpi_ok "$DIR/mpichblk.out"; then
        mpi_ok "$DIR/mpich.out"
        ok $? "MPICH --mpi=pmi2: correct results, shared-memory sizes = ranks per node ($(sizes "$DIR/mpich.out"))"
        mpi_ok "$DIR/mpich.out" || diag "$DIR/mpich.out" "$DIR/mpich.err"
    else
        [ "$(wc -l < "$DIR/mpich.out")" -eq 8 ] && [ "$(awk '{s += $5} END {print s}' "$DIR/mpich.out")" -eq 8 ] &&
            [ "$(sizes "$DIR/mpich.out")" = "$(sizes "$DIR/mpichblk.out")" ]
        ok $? "MPICH --mpi=pmi2: correct results, shared-memory sizes as under Slurm's own layout ($(sizes "$DIR/mpich.out"); Slurm's layout: $(sizes "$DIR/mpichblk.out"), this MPICH forms no shared-memory groups through Slurm's pmi2 here)"
    fi
    # What Slurm alone does with the same layout (for the README).
    awk '{print $2}' "$DIR/got.nodes" > "$DIR/hostfile"
    SLURM_HOSTFILE="$DIR/hostfile" $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 "$DIR/shm-mpich" \
        > "$DIR/raw.out" 2> /dev/null
    echo "# note: same layout from a plain SLURM_HOSTFILE, MPICH --mpi=pmi2: shared-memory sizes $(sizes "$DIR/raw.out") (Slurm publishes one node per rank)"
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmix --topomap=$ALGO --topomap-profile=pair8 \
        "$DIR/shm-mpich" > "$DIR/mpichx.out" 2> /dev/null
    echo "# note: MPICH --mpi=pmix: ranks $(awk '{printf "%s%s", s, $1; s=","}' "$DIR/mpichx.out") (Debian's MPICH has no PMIx client: every process is a singleton)"
else
    skip "mpicc.mpich not available"
    skip "mpicc.mpich not available"
fi
if command -v mpicc.openmpi > /dev/null 2>&1 && mpicc.openmpi -o "$DIR/shm-ompi" "$DIR/shm.c" 2> "$DIR/cc.err"; then
    # All "nodes" share one kernel here, and Open MPI's shared-memory paths
    # (btl vader, pml ucx) crash or hang when peers on different "nodes" are
    # in fact on one host: use ob1 over TCP on loopback. Even so about one
    # start in ten fails in Open MPI's TCP wire-up, with Slurm's layout as
    # well, so up to three tries.
    for try in 1 2 3; do
        OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
            OMPI_MCA_oob_tcp_if_include=lo $SALLOC -N4 --exclusive srun -n8 --mpi=pmix \
            --topomap=$ALGO --topomap-profile=pair8 "$DIR/shm-ompi" > "$DIR/ompi.out" 2> "$DIR/ompi.err" &&
            break
        : > "$DIR/ompi.out"
    done
    if [ -s "$DIR/ompi.out" ]; then
        mpi_ok "$DIR/ompi.out"
        ok $? "Open MPI --mpi=pmix --topomap=$ALGO: correct results, shared-memory sizes = ranks per node ($(sizes "$DIR/ompi.out"))"
    else
        skip "Open MPI did not start under srun --mpi=pmix here ($(head -1 "$DIR/ompi.err"))"
    fi
else
    skip "mpicc.openmpi not available"
fi

# --- 6. Recording profiles: --topomap-record ----------------------------------
# An MPICH program whose pattern block placement gets wrong: rank i sends K
# messages of 100 + i ints to rank i + n/2 and one int to rank i + 1 (mod n),
# and prints "RANK NODE". With "abort", rank 1 calls MPI_Abort.
PROFILER=$top_builddir/profiler/libtopomap-profiler.so
cat > "$DIR/pairs.c" << 'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    int rank, size, k = argc > 1 ? atoi(argv[1]) : 3;
    static int out[300], in[300];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && !strcmp(argv[2], "abort") && rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int partner = (rank + size / 2) % size;
    for (int i = 0; i < k; i++)
        MPI_Sendrecv(out, 100 + rank, MPI_INT, partner, i, in, 300, MPI_INT, partner, i,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, 1, MPI_INT, (rank + 1) % size, 9, in, 1, MPI_INT,
                 (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const char *node = getenv("SLURMD_NODENAME");
    printf("%d %s\n", rank, node ? node : "?");
    MPI_Finalize();
    return 0;
}
EOF
# What the profiler must record for N ranks and K messages: "src dst bytes msgs".
expect_pairs() {
    awk -v n="$1" -v k="$2" 'BEGIN {
        for (i = 0; i < n; i++) {
            p = (i + n / 2) % n; r = (i + 1) % n
            b[i " " p] += k * (100 + i) * 4; m[i " " p] += k
            b[i " " r] += 4; m[i " " r] += 1
        }
        for (e in b) print e, b[e], m[e]
    }' | sort -n -k1,1 -k2,2
}
# The matrix of profile NAME recorded by user UID (default root: 0).
matrix() { grep -v '^#' "$DIR/store/users/${2:-0}/$1.profile" 2> /dev/null; }
REC=$DIR/store/users/0
# The nodes' slurmstepd remove their directories as the step ends, which can
# be just after srun returns: wait up to 5 s.
spool_empty() {
    i=0
    while [ -n "$(ls -A "$DIR/spool" 2> /dev/null)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ -z "$(ls -A "$DIR/spool" 2> /dev/null)" ]
}
NUSERS=10
NREC=$((24 + NUSERS))
if ! command -v mpicc.mpich > /dev/null 2>&1; then
    i=0; while [ $i -lt $NREC ]; do skip "--topomap-record: mpicc.mpich not available"; i=$((i + 1)); done
elif [ ! -f "$PROFILER" ] || [ ! -f "${PROFILER%.so}-mpich.so" ]; then
    i=0; while [ $i -lt $NREC ]; do skip "--topomap-record: libtopomap-profiler (MPICH build) not built"; i=$((i + 1)); done
elif ! mpicc.mpich -o "$DIR/pairs" "$DIR/pairs.c" 2> "$DIR/cc.err"; then
    i=0; while [ $i -lt $NREC ]; do skip "--topomap-record: mpicc.mpich failed ($(head -1 "$DIR/cc.err"))"; i=$((i + 1)); done
else
    REC_ARGS="$ARGS profiler=$PROFILER spool=$DIR/spool"
    $CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$REC_ARGS" > /dev/null 2>&1
    expect_pairs 8 3 > "$DIR/pairs8.want"

    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=pairs8rec "$DIR/pairs" \
        > "$DIR/rec.out" 2> "$DIR/rec.err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(wc -l < "$DIR/rec.out")" -eq 8 ] && ! grep -q topomap: "$DIR/rec.err"
    ok $? "srun --topomap-record=pairs8rec of an MPICH program: runs, quietly (exit $rc)"
    matrix pairs8rec | cmp -s - "$DIR/pairs8.want"
    ok $? "the store holds pairs8rec with the exact matrix (bytes and messages per pair)"
    matrix pairs8rec | cmp -s - "$DIR/pairs8.want" || { diag "$DIR/rec.err"; matrix pairs8rec | diag; }
    head -1 "$REC/pairs8rec.profile" 2> /dev/null | grep -qx '# nranks=8' &&
        grep -qx '# application=pairs8rec' "$REC/pairs8rec.profile"
    ok $? "... recorded for 8 ranks, application pairs8rec"
    spool_empty
    ok $? "the recording directories are removed from the spool"

    # Place with the recorded profile while recording again (allowed).
    layout "$DIR/recdef" "$DIR/recdef.err" -n8
    "$TOPOMAP" map --profile "$REC/pairs8rec.profile" --topology "$TOPO" --nodes 'n[1-4]' \
        --tasks-per-node 2 --algo "$ALGO" > "$DIR/rec.want" 2> "$DIR/rec.want.err"
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap=$ALGO --topomap-profile=pairs8rec \
        --topomap-record=again --topomap-verbose "$DIR/pairs" 2> "$DIR/again.err" | sort -n > "$DIR/again.out"
    awk '{print $1, $2}' "$DIR/rec.want" | cmp -s - "$DIR/again.out"
    ok $? "--topomap=$ALGO --topomap-profile=pairs8rec: every rank on the node 'topomap map' computes from the recorded profile"
    awk '{print $1, $2}' "$DIR/rec.want" | cmp -s - "$DIR/again.out" || diag "$DIR/again.out" "$DIR/rec.want" "$DIR/rec.want.err" "$DIR/again.err"
    [ -s "$DIR/again.out" ] && ! nodes_of "$DIR/recdef" | cmp -s - "$DIR/again.out"
    ok $? "... which is not Slurm's block layout (pairs i, i+4 apart there)"
    matrix again | cmp -s - "$DIR/pairs8.want"
    ok $? "recording while placed: 'again' holds the same matrix"
    grep -q "^topomap: recorded profile 'again' (8 ranks, $(awk '{s += $3} END {print s}' "$DIR/pairs8.want") bytes) in $REC\$" "$DIR/again.err"
    ok $? "--topomap-verbose: one line says what was recorded ($(grep 'recorded profile' "$DIR/again.err"))"

    # What the tasks see: the profiler first in LD_PRELOAD, the output in the
    # spool, not srun's TOPOMAP_RECORD.
    $SALLOC -N4 --exclusive srun -n8 --topomap-record=envcheck \
        sh -c 'echo "$LD_PRELOAD|$TOPOMAP_PROFILE_OUT|$TOPOMAP_PROFILE_APP|${TOPOMAP_RECORD:-unset}"' \
        2> /dev/null | sort -u > "$DIR/recenv"
    [ "$(wc -l < "$DIR/recenv")" -eq 4 ] &&
        ! grep -v "^$PROFILER|$DIR/spool/topomap-record\.[0-9]*\.0\.[A-Za-z0-9]\{6\}/profile|envcheck|unset\$" "$DIR/recenv"
    ok $? "tasks get LD_PRELOAD=profiler, TOPOMAP_PROFILE_OUT in one spool directory per node, TOPOMAP_PROFILE_APP, not TOPOMAP_RECORD"
    [ "$(wc -l < "$DIR/recenv")" -eq 4 ] || diag "$DIR/recenv"

    # sbatch --topomap-record without a name: each srun step records under
    # its executable's name.
    printf '#!/bin/sh\nsrun -n8 --mpi=pmi2 %s/pairs 5\n' "$DIR" > "$DIR/recjob.sh"
    timeout -k 5 120 sbatch -Q --wait -t 2 -N4 --exclusive --topomap-record \
        -o "$DIR/recjob.out" -e "$DIR/recjob.err" "$DIR/recjob.sh" > /dev/null 2>&1
    rc=$?
    expect_pairs 8 5 > "$DIR/pairs8k5.want"
    matrix pairs | cmp -s - "$DIR/pairs8k5.want"
    ok $? "sbatch --topomap-record: the step in the script is stored as 'pairs' (exit $rc)"

    # Not MPI: nothing written, one line, the job succeeds.
    $SALLOC -N4 --exclusive srun -n8 --topomap-record=nothing true > /dev/null 2> "$DIR/true.err"
    ok $? "srun --topomap-record=nothing true: the job succeeds"
    [ "$(grep -c 'topomap:' "$DIR/true.err")" -eq 1 ] &&
        grep -q "^topomap: step [0-9]*\.0 wrote no profile for 'nothing' (rank 0 did not reach MPI_Finalize.*nothing recorded" "$DIR/true.err"
    ok $? "... one 'topomap:' line ($(grep 'topomap:' "$DIR/true.err"))"
    [ ! -e "$REC/nothing.profile" ] && spool_empty
    ok $? "... no store entry, spool empty"

    # An abort: nothing written, one line; the step fails by itself.
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=aborted "$DIR/pairs" 3 abort \
        > /dev/null 2> "$DIR/abort.err"
    rc=$?
    [ $rc -ne 0 ] && [ "$(grep -c 'topomap:' "$DIR/abort.err")" -eq 1 ] &&
        grep -q "^topomap: step [0-9]*\.0 wrote no profile for 'aborted'" "$DIR/abort.err"
    ok $? "MPI_Abort: one 'topomap:' line (exit $rc: the abort's)"
    [ ! -e "$REC/aborted.profile" ] && spool_empty
    ok $? "... no store entry, spool empty"

    # Two recordings of one name at once: the store ends with one of them,
    # complete, and no temporary file.
    expect_pairs 4 3 > "$DIR/p4k3.want"
    expect_pairs 4 5 > "$DIR/p4k5.want"
    $SALLOC -N4 --exclusive sh -c "
        srun -n4 -N2 --mpi=pmi2 --topomap-record=same --topomap-verbose '$DIR/pairs' 3 > /dev/null 2> '$DIR/same3.err' &
        srun -n4 -N2 --mpi=pmi2 --topomap-record=same --topomap-verbose '$DIR/pairs' 5 > /dev/null 2> '$DIR/same5.err' &
        wait" > /dev/null 2>&1
    matrix same > "$DIR/same.got"
    grep -q "^topomap: recorded profile 'same' (4 ranks" "$DIR/same3.err" &&
        grep -q "^topomap: recorded profile 'same' (4 ranks" "$DIR/same5.err" &&
        { cmp -s "$DIR/same.got" "$DIR/p4k3.want" || cmp -s "$DIR/same.got" "$DIR/p4k5.want"; }
    ok $? "two concurrent recordings of 'same' both stored: the store holds one of them exactly"
    [ -z "$(ls -A "$REC" | grep -v '\.profile$')" ]
    ok $? "... and no temporary file"

    # Recording problems never fail the step, even with strict=1.
    $CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$REC_ARGS profiler=$DIR/no-profiler.so strict=1" > /dev/null 2>&1
    $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=noprof "$DIR/pairs" > "$DIR/np.out" 2> "$DIR/np.err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(wc -l < "$DIR/np.out")" -eq 8 ] && [ ! -e "$REC/noprof.profile" ]
    ok $? "a missing profiler under strict=1: the job runs (exit $rc), nothing stored"
    [ "$(grep -c 'topomap:' "$DIR/np.err")" -eq 1 ] &&
        grep -q "^topomap: --topomap-record: the profiler $DIR/no-profiler.so: No such file or directory.*not recording" "$DIR/np.err"
    ok $? "... one 'topomap:' line ($(grep 'topomap:' "$DIR/np.err"))"
    # An unusable spool: rank 0 keeps the profile in its working directory.
    $CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$ARGS profiler=$PROFILER spool=/dev/null/spool" > /dev/null 2>&1
    mkdir -p "$DIR/cwd"
    (cd "$DIR/cwd" && $SALLOC -N4 --exclusive srun -n8 --mpi=pmi2 --topomap-record=nospool "$DIR/pairs") \
        > /dev/null 2> "$DIR/ns.err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -e "$REC/nospool.profile" ] &&
        [ "$(grep -c 'topomap:' "$DIR/ns.err")" -eq 1 ] &&
        grep -q "^topomap: --topomap-record: cannot create the spool directory /dev/null/spool.*working directory, not stored" "$DIR/ns.err"
    ok $? "an unusable spool: the job runs (exit $rc), one 'topomap:' line, nothing stored"
    f=$(ls "$DIR/cwd" 2> /dev/null | head -1)
    [ -n "$f" ] && grep -v '^#' "$DIR/cwd/$f" | cmp -s - "$DIR/pairs8.want"
    ok $? "... and rank 0 left the profile in its working directory (${f:-none})"
    $CLUSTER start $CL --plugin "$PLUGIN" --plugin-args "$REC_ARGS" > /dev/null 2>&1

    # A name srun refuses.
    $SALLOC -N4 --exclusive srun -n8 --topomap-record=../x true > /dev/null 2> "$DIR/bn.err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c 'topomap:' "$DIR/bn.err")" -eq 1 ] &&
        grep -q "^srun: topomap: --topomap-record: '../x' (--topomap-record) is not a valid profile name" "$DIR/bn.err"
    ok $? "--topomap-record=../x: the job runs (exit $rc), one 'topomap:' line from srun"

    # srun --export=NONE: the option reaches the nodes, srun's environment
    # (TOPOMAP_RECORD) does not: say so rather than nothing.
    $SALLOC -N4 --exclusive srun -n8 --export=NONE --topomap-record=noexport /bin/true > /dev/null 2> "$DIR/ne.err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c 'topomap:' "$DIR/ne.err")" -eq 1 ] &&
        grep -q "^topomap: --topomap-record: srun's environment did not reach the step" "$DIR/ne.err"
    ok $? "srun --export=NONE --topomap-record: the job runs (exit $rc), one 'topomap:' line"

    # Two unprivileged users (tests/users.sh): each one's recordings are his
    # own (DIR/users/UID), used for his jobs only; the site's profiles are
    # root's; a directory planted under another user's uid is refused.
    if ! users_setup topomap-sl; then
        i=0; while [ $i -lt $NUSERS ]; do skip "two users: $users_why"; i=$((i + 1)); done
    else
        chmod 755 "$DIR/cluster/munge"
        # run_as USER OUT ERR SRUN-OPTIONS...: a step of USER in a fresh allocation.
        run_as() {
            who=$1 out=$2 err=$3
            shift 3
            (cd "$DIR" && as_user "$who" env SLURM_CONF="$SLURM_CONF" \
                $SALLOC -N4 --exclusive srun "$@" > "$out" 2> "$err")
        }
        run_as "$U1" "$DIR/u1.out" "$DIR/u1.err" -n8 --mpi=pmi2 --topomap-record=app "$DIR/pairs" 3
        rc=$?
        [ $rc -eq 0 ] && matrix app "$UID1" | cmp -s - "$DIR/pairs8.want" && spool_empty &&
            ! grep -q topomap: "$DIR/u1.err"
        ok $? "$U1 records 'app' (exit $rc), quietly, spool empty afterwards"
        [ $rc -eq 0 ] || diag "$DIR/u1.err"
        [ "$(stat -c %u "$DIR/store/users/$UID1")" = "$UID1" ] &&
            [ "$(stat -c %u "$DIR/store/users/$UID1/app.profile")" = "$UID1" ] &&
            [ ! -e "$DIR/store/app.profile" ]
        ok $? "... stored in DIR/users/$UID1, his, not in the site's profiles"
        run_as "$U2" "$DIR/u2.out" "$DIR/u2.err" -n8 --mpi=pmi2 --topomap-record=app "$DIR/pairs" 5
        matrix app "$UID2" | cmp -s - "$DIR/pairs8k5.want" && matrix app "$UID1" | cmp -s - "$DIR/pairs8.want"
        ok $? "$U2 records 'app' too: his own, $U1's is unchanged (it used to be overwritten)"
        # Each one's jobs use his own: the hop-bytes of Slurm's layout in the
        # --topomap-verbose line are those of a placement from his file.
        before() { sed -n 's/.*hop-bytes \([0-9.e+]*\) -> .*/\1/p' "$1"; }
        for u in 1 2; do
            eval "who=\$U$u id=\$UID$u"
            run_as "$who" "$DIR/p$u.out" "$DIR/p$u.err" -n8 --topomap=$ALGO --topomap-profile=app --topomap-verbose true
            layout "$DIR/ref$u" "$DIR/ref$u.err" -n8 --topomap=$ALGO \
                --topomap-profile="$DIR/store/users/$id/app.profile" --topomap-verbose
            [ -n "$(before "$DIR/p$u.err")" ] && [ "$(before "$DIR/p$u.err")" = "$(before "$DIR/ref$u.err")" ]
            ok $? "user $u's --topomap-profile=app is his own (hop-bytes of Slurm's layout $(before "$DIR/p$u.err"))"
        done
        [ "$(before "$DIR/p1.err")" != "$(before "$DIR/p2.err")" ]
        ok $? "... which differ between the two users (the test is not vacuous)"
        # Without a profile of his own, a user gets the site's.
        run_as "$U2" "$DIR/s2.out" "$DIR/s2.err" -n8 --topomap=$ALGO --topomap-profile=pair8 sh -c "$SHOW"
        sort -n "$DIR/s2.out" | awk '{print $1, $2}' | cmp -s - "$DIR/got.nodes"
        ok $? "$U2 without a 'pair8' of his own is placed from the site's"
        # The site's profiles are root's only.
        as_user "$U2" "$TOPOMAP" profile add pair8 "$DIR/ring8.txt" --site --store "$DIR/store" > /dev/null 2>&1
        [ $? -eq 1 ] && [ "$(head -1 "$DIR/store/pair8.profile")" = "# nranks=8" ] &&
            ! grep -q '^7 0 100' "$DIR/store/pair8.profile"
        ok $? "$U2 cannot replace the site's pair8"
        # $U2 plants DIR/users/UID1 (after the admin removed $U1's): $U1's
        # jobs refuse it, one line, Slurm's layout; his recording too.
        rm -rf "$DIR/store/users/$UID1"
        as_user "$U2" sh -c "mkdir -m 755 '$DIR/store/users/$UID1' && grep -v '^#' '$DIR/pair16.txt' > '$DIR/store/users/$UID1/app.profile'"
        run_as "$U1" "$DIR/pl.out" "$DIR/pl.err" -n8 --topomap=$ALGO --topomap-profile=app sh -c "$SHOW"
        rc=$?
        sort -n "$DIR/pl.out" | awk '{print $1, $2}' > "$DIR/pl.nodes"
        nodes_of "$DIR/def" | cmp -s - "$DIR/pl.nodes" && [ $rc -eq 0 ] &&
            [ "$(grep -c 'topomap:' "$DIR/pl.err")" -eq 1 ] &&
            grep -q "topomap: .*users/$UID1 belongs to uid $UID2, not to user $UID1: not used.*Slurm's default layout" "$DIR/pl.err"
        ok $? "a directory $U2 planted under $U1's uid: $U1's job refuses it, Slurm's layout, one line"
        [ $rc -eq 0 ] || diag "$DIR/pl.err"
        run_as "$U1" "$DIR/pr.out" "$DIR/pr.err" -n8 --mpi=pmi2 --topomap-record=app "$DIR/pairs" 3
        rc=$?
        [ $rc -eq 0 ] && [ "$(grep -c 'topomap:' "$DIR/pr.err")" -eq 1 ] &&
            grep -q "^topomap: cannot store profile 'app': .*belongs to uid $UID2.*nothing recorded" "$DIR/pr.err" &&
            [ "$(stat -c %u "$DIR/store/users/$UID1/app.profile")" = "$UID2" ] && spool_empty
        ok $? "... and root does not store $U1's recording there (exit $rc, one line)"
        rm -rf "$DIR/store/users/$UID1"
        chmod 700 "$DIR/cluster/munge"
        users_cleanup
    fi
    [ -z "$(ls "$TMPDIR")" ]
    ok $? "no hostfile left behind"
fi

tap_done
