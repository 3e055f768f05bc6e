# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests of the topomap command (cli.sh, cli_errors.sh,
# cli_habits.sh, cli_eval.sh): the paths, tests/tap.sh (TAP, a temporary
# directory removed at exit), the small profiles they share (ring8.txt,
# ring8-bytes.txt), expect() and the common options $P, $T, $N.
# cli_fixtures makes the files cli.sh makes on its way (and records in
# cli.expected) for the scripts that run without it.
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

. "$top_srcdir/tests/tap.sh"
need_built "$TOPOMAP"
tap_tmpdir cli

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

# --- expect -----------------------------------------------------------------
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

# cli_fixtures: the binary ring8.bin, the topology.conf of four one-core nodes,
# block.map (block on a line of the torus) and the site store holding "app".
cli_fixtures() {
    "$TOPOMAP" profile convert "$tmp/ring8.txt" "$tmp/ring8.bin" > /dev/null
    printf 'SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\nSwitchName=top Switches=s[0-1]\n' \
        > "$tmp/topology.conf"
    "$TOPOMAP" map --profile "$tmp/ring8.txt" --topology "$TOPO/torus-8x8x8.yaml" \
        --nodes 't[003,000-002]' --tasks-per-node 2 -q -o "$tmp/block.map"
    mkdir -p "$tmp/site-store" && chmod 755 "$tmp/site-store"
    "$TOPOMAP" profile add app "$top_srcdir/tests/data/slurm/pair8.txt" --site \
        --store "$tmp/site-store" > /dev/null
}
