#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# netemu.sh: an emulated multi-node cluster on this one host, for timing MPI
# applications under different placements (make benefit, benefit.sh).
#
# Each node is a network namespace with one veth link to a Linux bridge (the
# switch); the link is rate-limited in both directions by tc HTB (on the
# host end: traffic to the node; on the node end: traffic from it). Ranks on
# one node talk through shared memory, across nodes through TCP over the
# shaped links. `tree` adds a level: leaf switches of -a nodes each, joined
# to a root switch by shaped uplinks (veth pairs between bridges). Every
# name starts with the prefix, addresses are in a private /24 that exists
# only on this host (the host itself is .254, on the root switch).
#
#   netemu.sh up     [options]   create the cluster (undone if interrupted)
#   netemu.sh down   [options]   remove everything with the prefix: processes
#                                in its namespaces, namespaces, links, state
#   netemu.sh status [options]   list what exists with the prefix; exit 0 if any
#   netemu.sh kill   [options]   end every process inside the cluster's namespaces
#   netemu.sh topology [options] print the topomap topology (YAML) of the cluster
#   netemu.sh exec NODE CMD...   run the shell command CMD (words joined as ssh
#                                does) in NODE's namespace with NODE as hostname;
#                                NODE is a name (n1) or an address
#
# Options:
#   -n N      nodes, 2..200 [4]            -r RATE  link rate, e.g. 25mbit [25mbit]
#   -t KIND   star or tree [star]          -a A     nodes per leaf switch (tree) [2]
#   -u RATE   uplink rate (tree) [= -r]    -c C     cores per node in the topology [4]
#   -p PFX    name prefix, a-z then a-z0-9, 2..6 characters [tmne]
#   -s NET    the /24 as three octets inside 10/8, 172.16/12 or 192.168/16 [10.213.7]
#   -d DIR    state directory [/run/netemu-PFX]
#   -N        dry run: print the commands instead of running them (needs no root)
#
# Node k (1-based) is named nK, has address NET.K and namespace PFX-nK. The
# state directory holds `hosts` (name address namespace per line),
# `topology.yaml` and `rsh`, an Open MPI plm_rsh_agent for the cluster.
# Rates take tc's units kbit, mbit, gbit (decimal). Needs root, iproute2
# (ip, tc), nsenter and unshare (util-linux); the kernel's netem is not
# needed (only rate limiting is emulated, no delay).

set -u
me=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

die() { echo "netemu: $*" >&2; exit 1; }
usage() { echo "netemu: $*" >&2; exit 2; }

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
-h|--help|help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
up|down|status|kill|topology|exec) ;;
'') usage "no command (up, down, status, kill, topology or exec; -h for help)" ;;
*) usage "unknown command '$cmd' (up, down, status, kill, topology or exec)" ;;
esac

NODES=4 RATE=25mbit KIND=star ARITY=2 UPRATE= CORES=4 PFX=tmne NET=10.213.7 DIR= DRY=0
while getopts :n:r:t:a:u:c:p:s:d:Nh o; do
    case $o in
    n) NODES=$OPTARG ;; r) RATE=$OPTARG ;; t) KIND=$OPTARG ;; a) ARITY=$OPTARG ;;
    u) UPRATE=$OPTARG ;; c) CORES=$OPTARG ;; p) PFX=$OPTARG ;; s) NET=$OPTARG ;;
    d) DIR=$OPTARG ;; N) DRY=1 ;;
    h) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    :) usage "option -$OPTARG needs a value (try -h)" ;;
    *) usage "unknown option -$OPTARG (try -h)" ;;
    esac
done
shift $((OPTIND - 1))
[ -n "$UPRATE" ] || UPRATE=$RATE
[ -n "$DIR" ] || DIR=/run/netemu-$PFX

is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ ${#1} -le 6 ]; }
# kbit of a tc rate (decimal units as tc reads them), or fail.
rate_kbit() {
    n=${1%[kmg]bit}
    is_uint "$n" && [ "$n" -gt 0 ] || return 1
    case $1 in
    *kbit) echo "$n" ;;
    *mbit) echo $((n * 1000)) ;;
    *gbit) echo $((n * 1000000)) ;;
    *) return 1 ;;
    esac
}
is_uint "$NODES" && [ "$NODES" -ge 2 ] && [ "$NODES" -le 200 ] ||
    usage "-n must be a node count from 2 to 200, not '$NODES'"
is_uint "$CORES" && [ "$CORES" -ge 1 ] || usage "-c must be a positive core count, not '$CORES'"
RATE_K=$(rate_kbit "$RATE") || usage "-r must be a rate like 25mbit (kbit, mbit, gbit), not '$RATE'"
UPRATE_K=$(rate_kbit "$UPRATE") || usage "-u must be a rate like 25mbit (kbit, mbit, gbit), not '$UPRATE'"
case $PFX in
[a-z][a-z0-9] | [a-z][a-z0-9][a-z0-9] | [a-z][a-z0-9][a-z0-9][a-z0-9] | \
    [a-z][a-z0-9][a-z0-9][a-z0-9][a-z0-9] | [a-z][a-z0-9][a-z0-9][a-z0-9][a-z0-9][a-z0-9]) ;;
*) usage "-p must be 2 to 6 characters, a-z then a-z or 0-9, not '$PFX'" ;;
esac
# The three octets, each 0..255, inside a private range (RFC 1918).
oct_ok() { is_uint "$1" && [ "$1" -le 255 ]; }
o1=${NET%%.*} rest=${NET#*.}
o2=${rest%%.*} o3=${rest#*.}
private=0
if oct_ok "$o1" && oct_ok "$o2" && oct_ok "$o3" && [ "$NET" = "$o1.$o2.$o3" ]; then
    { [ "$o1" -eq 10 ] || { [ "$o1" -eq 172 ] && [ "$o2" -ge 16 ] && [ "$o2" -le 31 ]; } ||
        { [ "$o1" -eq 192 ] && [ "$o2" -eq 168 ]; }; } && private=1
fi
[ $private -eq 1 ] || usage "-s must be three octets of a private /24 (10.x.y, 172.16-31.y, 192.168.y), not '$NET'"
case $KIND in
star) LEAVES=1 ;;
tree)
    is_uint "$ARITY" && [ "$ARITY" -ge 1 ] || usage "-a must be a positive node count, not '$ARITY'"
    [ $((NODES % ARITY)) -eq 0 ] && [ $((NODES / ARITY)) -ge 2 ] ||
        usage "-t tree needs -n a multiple of -a with at least 2 leaf switches (-n $NODES -a $ARITY)"
    LEAVES=$((NODES / ARITY)) ;;
*) usage "-t must be star or tree, not '$KIND'" ;;
esac

BR=${PFX}br0                          # the root switch (the only one of a star)
ns_of() { echo "$PFX-n$1"; }          # namespace of node K
leaf_of() {                           # switch that node K hangs off
    if [ "$KIND" = star ]; then echo "$BR"; else echo "${PFX}s$(((($1 - 1) / ARITY) + 1))"; fi
}

# The YAML description topomap reads: a star is a one-level tree.
topology_yaml() {
    echo "# SPDX-License-Identifier: BSD-3-Clause"
    echo "# Written by contrib/netemu/netemu.sh: $KIND of $NODES nodes, links $RATE$(
        [ "$KIND" = tree ] && echo ", uplinks $UPRATE")."
    [ "$KIND" = tree ] && [ "$UPRATE_K" -ne "$RATE_K" ] &&
        echo "# link_bandwidth is the node links' rate; topomap models every cable alike."
    echo "name: netemu-$PFX"
    echo "network:"
    echo "  kind: fat-tree"
    echo "  link_bandwidth: $((RATE_K * 125))     # bytes/s: $RATE"
    echo "  levels:"
    [ "$KIND" = tree ] && echo "    - {arity: $LEAVES}"
    echo "    - {arity: $([ "$KIND" = tree ] && echo "$ARITY" || echo "$NODES")}"
    echo "nodes: \"n[1-$NODES]\""
    echo "node:"
    echo "  cores: $CORES"
}

# ---------------------------------------------------------------------------
run() { # a command of the plan: printed in a dry run, else run (fail: undo)
    if [ $DRY -eq 1 ]; then
        echo "$*"
    else
        "$@" || die "failed: $*"
    fi
}

try() { # like run, for steps that may find their object gone already
    if [ $DRY -eq 1 ]; then echo "$*"; else "$@" 2>/dev/null; fi
    return 0
}

# Egress shaping of IF (in namespace NS, or the host's when empty): HTB at
# KBIT, small packets (IP length < 128: ACKs, MPI headers) first, long FIFOs
# so that TCP never sees a drop.
shape() {
    # (sh has no local variables: sh_* belong to this function alone)
    sh_t="tc"
    [ -n "$1" ] && sh_t="tc -n $1"
    sh_dev=$2 sh_k=$3
    sh_small=$((sh_k / 10))
    sh_bulk=$((sh_k - sh_small))
    run $sh_t qdisc add dev "$sh_dev" root handle 1: htb default 20
    run $sh_t class add dev "$sh_dev" parent 1: classid 1:1 htb rate "${sh_k}kbit" ceil "${sh_k}kbit" quantum 1514
    run $sh_t class add dev "$sh_dev" parent 1:1 classid 1:10 htb rate "${sh_small}kbit" ceil "${sh_k}kbit" prio 0 quantum 1514
    run $sh_t class add dev "$sh_dev" parent 1:1 classid 1:20 htb rate "${sh_bulk}kbit" ceil "${sh_k}kbit" prio 1 quantum 1514
    run $sh_t qdisc add dev "$sh_dev" parent 1:10 handle 10: pfifo limit 100000
    run $sh_t qdisc add dev "$sh_dev" parent 1:20 handle 20: pfifo limit 100000
    run $sh_t filter add dev "$sh_dev" parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff80 at 2 flowid 1:10
}

bridge_up() {
    run ip link add "$1" type bridge forward_delay 0 stp_state 0
    run ip link set "$1" up
}

# Everything with the prefix, in removal order: processes in the
# namespaces, the namespaces (their veth ends go with them), host links.
leftover_ns() { ip netns list 2>/dev/null | awk -v p="$PFX-n" 'index($1, p) == 1 {print $1}'; }
leftover_links() {
    ip -o link show 2>/dev/null | awk -F': ' -v p="$PFX" '{sub(/@.*/, "", $2)}
        index($2, p) == 1 && $2 ~ ("^" p "(br0|s[0-9]+|h[0-9]+|u[0-9]+|d[0-9]+)$") {print $2}'
}
# End the processes inside the namespaces (TERM, then KILL after 2 s).
kill_all() {
    for td_ns in $(leftover_ns); do
        td_pids=$(ip netns pids "$td_ns" 2>/dev/null)
        [ -n "$td_pids" ] && try kill $td_pids
    done
    for td_ns in $(leftover_ns); do
        td_i=0
        while [ $DRY -eq 0 ] && [ -n "$(ip netns pids "$td_ns" 2>/dev/null)" ] && [ $td_i -lt 20 ]; do
            sleep 0.1
            td_i=$((td_i + 1))
        done
        td_pids=$(ip netns pids "$td_ns" 2>/dev/null)
        [ -n "$td_pids" ] && try kill -9 $td_pids
    done
    return 0
}
teardown() {
    kill_all
    for td_ns in $(leftover_ns); do
        run ip netns delete "$td_ns"
    done
    # Switch ports first (veths), then switches; a veth end deleted takes
    # its peer with it, so tolerate links already gone.
    for td_l in $(leftover_links | sort -r); do
        try ip link delete "$td_l"
    done
    if [ -d "$DIR" ] && [ -f "$DIR/hosts" ]; then run rm -rf "$DIR"; fi
}

up() {
    if [ $DRY -eq 0 ]; then
        [ "$(id -u)" -eq 0 ] || die "up needs root (network namespaces, tc)"
        for t in ip tc nsenter unshare; do
            command -v $t > /dev/null || die "$t not found (Debian: iproute2, util-linux)"
        done
        [ -z "$(leftover_ns)$(leftover_links)" ] ||
            die "a cluster with prefix $PFX exists (netemu.sh down -p $PFX removes it)"
        # An interrupted or failed `up` leaves nothing behind.
        trap 'trap - EXIT; teardown; exit 130' INT TERM HUP
        trap 'rc=$?; trap - EXIT; [ $rc -eq 0 ] || teardown; exit $rc' EXIT
        mkdir -p "$DIR" || die "cannot create $DIR"
        : > "$DIR/hosts"
    fi
    bridge_up "$BR"
    run ip addr add "$NET.254/24" dev "$BR"
    if [ "$KIND" = tree ]; then
        s=1
        while [ $s -le "$LEAVES" ]; do
            bridge_up "${PFX}s$s"
            run ip link add "${PFX}u$s" type veth peer name "${PFX}d$s"
            run ip link set "${PFX}u$s" master "${PFX}s$s" up
            run ip link set "${PFX}d$s" master "$BR" up
            shape "" "${PFX}u$s" "$UPRATE_K"
            shape "" "${PFX}d$s" "$UPRATE_K"
            s=$((s + 1))
        done
    fi
    k=1
    while [ $k -le "$NODES" ]; do
        ns=$(ns_of $k)
        run ip netns add "$ns"
        run ip link add "${PFX}h$k" type veth peer name "${PFX}c$k"
        run ip link set "${PFX}c$k" netns "$ns"
        run ip -n "$ns" link set "${PFX}c$k" name eth0
        run ip -n "$ns" addr add "$NET.$k/24" dev eth0
        run ip -n "$ns" link set eth0 up
        run ip -n "$ns" link set lo up
        run ip link set "${PFX}h$k" master "$(leaf_of $k)" up
        shape "" "${PFX}h$k" "$RATE_K"
        shape "$ns" eth0 "$RATE_K"
        [ $DRY -eq 1 ] || echo "n$k $NET.$k $ns" >> "$DIR/hosts"
        k=$((k + 1))
    done
    if [ $DRY -eq 0 ]; then
        topology_yaml > "$DIR/topology.yaml"
        {
            echo "#!/bin/sh"
            echo "# Open MPI plm_rsh_agent of the netemu cluster $PFX: rsh HOST CMD..."
            echo "exec /bin/sh $me exec -p $PFX -d $DIR \"\$@\""
        } > "$DIR/rsh" && chmod +x "$DIR/rsh"
        # Every link is up and every switch port forwards before we say so
        # (no ping on a minimal host: carrier and bridge port state instead).
        k=1
        while [ $k -le "$NODES" ]; do
            i=0
            until ip -n "$(ns_of $k)" -o link show eth0 | grep -q 'LOWER_UP' &&
                bridge link show dev "${PFX}h$k" | grep -q 'state forwarding'; do
                [ $i -lt 50 ] || die "node n$k: link not up or switch port not forwarding"
                sleep 0.1
                i=$((i + 1))
            done
            k=$((k + 1))
        done
        trap - INT TERM HUP EXIT
        echo "netemu: $KIND of $NODES nodes up (prefix $PFX, $NET.0/24, links $RATE$(
            [ "$KIND" = tree ] && echo ", uplinks $UPRATE")); state in $DIR"
    fi
}

node_exec() {
    [ $# -ge 2 ] || usage "exec needs a node and a command"
    host=$1
    shift
    [ -f "$DIR/hosts" ] || die "no cluster state in $DIR (netemu.sh up first)"
    line=$(awk -v h="$host" '$1 == h || $2 == h {print $1, $3; exit}' "$DIR/hosts")
    [ -n "$line" ] || die "$host is no node of the cluster in $DIR"
    name=${line% *} ns=${line#* }
    # ssh semantics: the words make one command line for a shell.
    exec nsenter --net="/run/netns/$ns" unshare --uts \
        sh -c 'hostname "$1" && exec sh -c "$2"' netemu-exec "$name" "$*"
}

case $cmd in
up) up ;;
down)
    [ $DRY -eq 1 ] || [ "$(id -u)" -eq 0 ] || die "down needs root"
    teardown
    [ $DRY -eq 1 ] || [ -z "$(leftover_ns)$(leftover_links)" ] || die "could not remove everything with prefix $PFX"
    ;;
status)
    found="$(leftover_ns) $(leftover_links)"
    [ -z "${found# }" ] && { echo "netemu: nothing with prefix $PFX"; exit 1; }
    echo "netemu: prefix $PFX:" $found
    [ -f "$DIR/hosts" ] && cat "$DIR/hosts"
    exit 0 ;;
kill)
    [ $DRY -eq 1 ] || [ "$(id -u)" -eq 0 ] || die "kill needs root"
    kill_all ;;
topology) topology_yaml ;;
exec) node_exec "$@" ;;
esac
