#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make benefit's pure logic, without root or namespaces (emitting TAP):
# netemu.sh's options and its dry-run plan (-N), the topology it writes
# (loaded by topomap), benefit.sh's and train-step.sh's options,
# benefit-report on a fixture whose figures were worked out by hand. The
# emulated cluster itself only runs under make benefit (and benefit-train).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
NETEMU=$top_srcdir/contrib/netemu/netemu.sh
BENEFIT=$top_srcdir/contrib/netemu/benefit.sh
REPORT=$top_builddir/contrib/benefit-report
TOPOMAP=$top_builddir/cli/topomap
FIX=$top_srcdir/tests/data/benefit/results.txt
tmp=$(mktemp -d /tmp/topomap-netemu.XXXXXX) || { echo "1..0 # SKIP no temporary directory"; exit 0; }
trap 'rm -rf "$tmp"' EXIT

. "$top_srcdir/tests/tap.sh"
# bad RC PATTERN COMMAND ARGS...: exit status RC, nothing on stdout and
# exactly one line on stderr, containing PATTERN. A COMMAND ending in .sh
# runs under sh.
bad() {
    rc=$1 pat=$2 cmd=$3
    shift 3
    args=$(echo "$*" | sed 's|/tmp/[^ ]*/||g')
    case $cmd in *.sh) set -- sh "$cmd" "$@" ;; *) set -- "$cmd" "$@" ;; esac
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    [ $got -eq "$rc" ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
        grep -qF -- "$pat" "$tmp/err"
    check $? "$(basename "$cmd") $args -> exit $rc, one line '$pat'"
    [ $got -eq "$rc" ] && grep -qF -- "$pat" "$tmp/err" || sed 's/^/# /' "$tmp/err" "$tmp/out"
}

# has N PATTERN FILE: exactly N lines of FILE match PATTERN.
has() { [ "$(grep -c -- "$2" "$3")" -eq "$1" ]; }

# --- netemu.sh: usage errors --------------------------------------------------
bad 2 "no command" "$NETEMU"
bad 2 "unknown command 'start'" "$NETEMU" start
bad 2 "-n must be a node count from 2 to 200, not '1'" "$NETEMU" up -N -n 1
bad 2 "-n must be a node count from 2 to 200, not 'four'" "$NETEMU" up -N -n four
bad 2 "-r must be a rate like 25mbit" "$NETEMU" up -N -r fast
bad 2 "-r must be a rate like 25mbit" "$NETEMU" up -N -r 0mbit
bad 2 "-u must be a rate like 25mbit" "$NETEMU" up -N -t tree -u 10
bad 2 "-s must be three octets of a private /24" "$NETEMU" up -N -s 8.8.8
bad 2 "-s must be three octets of a private /24" "$NETEMU" up -N -s 172.32.0
bad 2 "-s must be three octets of a private /24" "$NETEMU" up -N -s 10.300.1
bad 2 "-s must be three octets of a private /24" "$NETEMU" up -N -s 10.1.2.3
bad 2 "-p must be 2 to 6 characters" "$NETEMU" up -N -p Tm
bad 2 "-p must be 2 to 6 characters" "$NETEMU" up -N -p toolong1
bad 2 "-t must be star or tree, not 'ring'" "$NETEMU" up -N -t ring
bad 2 "-t tree needs -n a multiple of -a" "$NETEMU" up -N -t tree -n 5 -a 2
bad 2 "-t tree needs -n a multiple of -a with at least 2 leaf switches" "$NETEMU" up -N -t tree -n 4 -a 4
bad 2 "exec needs a node and a command" "$NETEMU" exec -d "$tmp/none" n1
bad 2 "unknown option -x" "$NETEMU" up -x
bad 2 "option -n needs a value" "$NETEMU" up -n

# --- netemu.sh: the plan of a star --------------------------------------------
sh "$NETEMU" up -N -n 4 -r 25mbit -p tmt -s 192.168.77 > "$tmp/star" 2>&1
check $? "up -N (star of 4) runs without root"
has 4 '^ip netns add tmt-n[1-4]$' "$tmp/star"
check $? "star: 4 namespaces tmt-n1..tmt-n4"
# Both ends of every node link shaped: host end in the host, node end in its namespace.
has 4 '^tc qdisc add dev tmth[1-4] root handle 1: htb' "$tmp/star" &&
    has 4 '^tc -n tmt-n[1-4] qdisc add dev eth0 root handle 1: htb' "$tmp/star"
check $? "star: HTB at the root of both ends of the 4 links"
has 8 'classid 1:1 htb rate 25000kbit ceil 25000kbit' "$tmp/star"
check $? "star: every link at 25000 kbit"
has 16 'pfifo limit 100000' "$tmp/star" &&
    has 8 'u32 match u16 0x0000 0xff80 at 2 flowid 1:10' "$tmp/star"
check $? "star: long FIFOs under both classes, small packets to the priority class"
grep -q '^ip addr add 192.168.77.254/24 dev tmtbr0$' "$tmp/star" &&
    has 4 '^ip -n tmt-n[1-4] addr add 192.168.77.[1-4]/24 dev eth0$' "$tmp/star"
check $? "star: host .254 on the bridge, node k at .k"
has 4 '^ip link set tmth[1-4] master tmtbr0 up$' "$tmp/star" &&
    ! grep -q 'tmtu\|tmts' "$tmp/star"
check $? "star: every node on the one bridge, no uplinks"

# --- netemu.sh: the plan of a tree --------------------------------------------
sh "$NETEMU" up -N -t tree -n 8 -a 4 -r 25mbit -u 10mbit -p tmt > "$tmp/tree" 2>&1
check $? "up -N (tree of 8, 4 per leaf) runs without root"
has 2 '^ip link add tmts[12] type bridge' "$tmp/tree" &&
    grep -q '^ip link set tmtd1 master tmtbr0 up$' "$tmp/tree" &&
    grep -q '^ip link set tmtu2 master tmts2 up$' "$tmp/tree"
check $? "tree: 2 leaf switches joined to the root switch by uplinks"
has 4 'dev tmt[ud][12] parent 1: classid 1:1 htb rate 10000kbit' "$tmp/tree"
check $? "tree: both ends of both uplinks at 10000 kbit"
has 4 '^ip link set tmth[1-4] master tmts1 up$' "$tmp/tree" &&
    has 4 '^ip link set tmth[5-8] master tmts2 up$' "$tmp/tree"
check $? "tree: nodes 1-4 on the first leaf switch, 5-8 on the second"

# Interface names fit Linux's 15 characters at the longest prefix and node count.
sh "$NETEMU" up -N -n 200 -t tree -a 2 -p abcdef 2>&1 |
    awk '{for (i = 1; i < NF; i++) if ($i == "dev" || $i == "add" || $i == "name" || $i == "set") print $(i + 1)}' |
    awk 'length($0) > 15 {bad = 1; print "# too long: " $0} END {exit bad}'
check $? "names stay within 15 characters (prefix of 6, 200 nodes, 100 leaf switches)"

# --- the topology the cluster is described by --------------------------------
if [ -x "$TOPOMAP" ]; then
    sh "$NETEMU" topology -n 4 -c 4 > "$tmp/star.yaml" &&
        "$TOPOMAP" topology show "$tmp/star.yaml" > "$tmp/show" 2>&1
    check $? "topology (star of 4) loads in topomap"
    grep -q '^nodes: 4 (n1 \.\. n4)$' "$tmp/show" && grep -q '^diameter: 2 hops$' "$tmp/show"
    check $? "star: 4 nodes n1..n4, any two 2 hops apart"
    sh "$NETEMU" topology -t tree -n 8 -a 2 -c 2 > "$tmp/tree.yaml" &&
        "$TOPOMAP" topology show "$tmp/tree.yaml" > "$tmp/show" 2>&1 &&
        grep -q '^nodes: 8 (n1 \.\. n8)$' "$tmp/show" && grep -q '^diameter: 4 hops$' "$tmp/show" &&
        grep -q 'from the top: arity 4 2;' "$tmp/show"
    check $? "tree of 8 (4 leaf switches of 2) loads: 8 nodes, diameter 4"
    grep -q 'link_bandwidth: 3125000 ' "$tmp/star.yaml"
    check $? "link_bandwidth is 25 Mbit/s in bytes per second"
    # block on the star: congestion of the busiest link equals what node 1 sends out
    printf '# nranks=4\n0 2 100\n1 2 50\n2 0 70\n' > "$tmp/p.txt"
    printf '0 n1 0\n1 n1 1\n2 n2 0\n3 n2 1\n' > "$tmp/m.txt"
    "$TOPOMAP" eval --profile "$tmp/p.txt" --topology "$tmp/star.yaml" --mapping "$tmp/m.txt" |
        grep -q '^busiest link *150 bytes'
    check $? "star: busiest link = node n1's link out (150 bytes)"
else
    for i in 1 2 3 4 5; do check 1 "topomap not built at $TOPOMAP"; done
fi

# --- benefit.sh: options are checked before anything needs root --------------
bad 2 "-r, -n, -k, -T take positive integers, not '0'" "$BENEFIT" -r 0
bad 2 "-r is at most 64" "$BENEFIT" -r 65
bad 2 "unknown option -Z" "$BENEFIT" -Z
bad 2 "option -r needs a value" "$BENEFIT" -r
sh "$BENEFIT" -h | grep -q 'benefit.sh \[options\]'
check $? "benefit.sh -h prints the usage"
# train-step.sh (make benefit-train) likewise.
TRAIN=$top_srcdir/contrib/netemu/train-step.sh
bad 2 "-S, -r, -T take positive integers, not '0'" "$TRAIN" -S 0
bad 2 "-r is at most 64" "$TRAIN" -r 65
bad 2 "unknown option -Z" "$TRAIN" -Z
bad 2 "option -w needs a value" "$TRAIN" -w
sh "$TRAIN" -h | grep -q 'train-step.sh \[options\]'
check $? "train-step.sh -h prints the usage"

# --- benefit-report on the fixture (figures by hand) -------------------------
if [ -x "$REPORT" ]; then
    "$REPORT" "$FIX" > "$tmp/rep" 2>&1
    check $? "benefit-report reads the fixture"
    # block 3.0 3.1 3.2 -> median 3.1; metis 1.5 1.55 1.6 -> every ratio 0.5
    grep -q '^block  *3.100  *3.000  *3.200  1.000' "$tmp/rep"
    check $? "block: median 3.100, min 3.000, max 3.200"
    grep -q '^metis  *1.550  *1.500  *1.600  0.500 \[0.500-0.500\]' "$tmp/rep"
    check $? "metis: paired ratio 0.5 in every round"
    # cyclic: round 2 failed; 4.0/3.0 and 4.8/3.2 -> 1.333 and 1.500, median 1.417
    grep -q '^cyclic  *4.400 .*1.417 \[1.333-1.500\].*(1 of 3 runs failed)' "$tmp/rep"
    check $? "cyclic: the failed round drops out of its ratios and is reported"
    # A/A: 3.03/3.0, 3.069/3.1, 3.2/3.2 -> 1.01, 0.99, 1.0
    grep -q "A/A control (block on renamed nodes): ratio 0.990-1.010 over 3 rounds, noise +-1.0%" "$tmp/rep"
    check $? "A/A control: ratios 0.99-1.01, noise 1.0%"
    grep -q "A/A control (the same layout again): ratio 0.990-1.010 over 2 rounds" "$tmp/rep"
    check $? "an A/A control without a description is the same layout again"
    grep -q '^verdict: halo: auto = metis x0.500 of block (rounds 0.500-0.500), A/A noise +-1.0%: faster' "$tmp/rep"
    check $? "verdict follows auto to the placement it equals"
    # reorder 1.5/3.0 and 1.28/3.2 -> 0.5 and 0.4, median 0.45
    grep -q '^verdict: halo-dist: reorder x0.450 of block (rounds 0.400-0.500)' "$tmp/rep"
    check $? "without auto, the verdict is on reorder (the halo declared to MPI)"
    grep -q '^verdict: water: auto keeps block' "$tmp/rep"
    check $? "auto with block's node groups: kept, no comparison invented"
    # hop-bytes 100 200 50 against median times 3.1 4.4 1.55: r = 0.9712 (by hand)
    grep -q 'with the median loop time, 3 placements: hop-bytes r=0.971 rho=1.000' "$tmp/rep"
    check $? "correlation: Pearson 0.971 and Spearman 1 over the 3 placements (A/A left out)"
    grep -q 'with the median loop time, 2 placements: hop-bytes r=n/a' "$tmp/rep"
    check $? "correlation of 2 placements: n/a"
    # walls: block 4.0+4.1+4.2, metis 3 x 2.5, A/A 3 x 4, cyclic 5+1+5
    grep -q '^wall time: 43 s for all runs; auto and block, 3 rounds each: 20 s$' "$tmp/rep"
    check $? "wall time of all runs (42.8 s) and of the auto/block comparison (19.8 s)"
    grep -q '^| water | 2.000 | 2.000 | 1.000' "$tmp/rep"
    check $? "summary table row"
    grep -q '^grid  *not run: the network is a fat-tree' "$tmp/rep"
    check $? "a skipped placement says why"

    printf 'time halo block 1 3.0\n' > "$tmp/r1"
    bad 1 "r1:1: application not introduced by an 'app' line" "$REPORT" "$tmp/r1"
    printf 'app a x\nmetric a block 1 2 3\n' > "$tmp/r2"
    bad 1 "r2:2: metric needs HB SUMCOM INTERNODE MAXLINK" "$REPORT" "$tmp/r2"
    printf 'app a x\ntime a block 0 3.0\n' > "$tmp/r3"
    bad 1 "r3:2: time needs ROUND (1..64) SECONDS [WALL]" "$REPORT" "$tmp/r3"
    printf 'app a x\ntime a block 1 fast\n' > "$tmp/r4"
    bad 1 "r4:2: SECONDS is not a number" "$REPORT" "$tmp/r4"
    printf 'app a x\nsame a auto greedy\n' > "$tmp/r5"
    bad 1 "r5:2: same needs another placement named before it" "$REPORT" "$tmp/r5"
    printf 'app a x\ntime a block 1 2.0 -1\n' > "$tmp/r7"
    bad 1 "r7:2: time needs ROUND (1..64) SECONDS [WALL]" "$REPORT" "$tmp/r7"
    printf 'app a x\nfoo a b\n' > "$tmp/r6"
    bad 1 "r6:2: unknown record" "$REPORT" "$tmp/r6"
    bad 1 "no application in the results" "$REPORT" /dev/null
    bad 1 "No such file or directory" "$REPORT" "$tmp/missing"
else
    check 1 "benefit-report not built at $REPORT"
fi

tap_done
