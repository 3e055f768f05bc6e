#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# slurm-local-cluster.sh: a real Slurm cluster on this one host, for topomap's
# tests, its demo and anyone who wants to try the plugin without a cluster.
#
# One private munged (own key and socket), one slurmctld and N slurmd
# (Debian's slurmd is built with MULTIPLE_SLURMD: each runs as `slurmd -N nK`
# on its own port). Everything lives under one directory; nothing under /etc
# or /run is touched. Must run as root (slurmd starts jobs as any user).
#
#   contrib/slurm-local-cluster.sh start  [options]   start, wait until idle
#   contrib/slurm-local-cluster.sh stop   [options]   stop what start started
#   contrib/slurm-local-cluster.sh status [options]   exit 0 when all is up
#   contrib/slurm-local-cluster.sh env    [options]   print "export SLURM_CONF=..."
#
# Options (also as environment variables, given in brackets):
#   --dir DIR            state, logs, config [TOPOMAP_SLURM_DIR, /tmp/topomap-slurm]
#   --nodes N            number of nodes [TOPOMAP_SLURM_NODES, 4]
#   --prefix P           node names P1..PN [TOPOMAP_SLURM_PREFIX, n]
#   --cpus C             CPUs per node (may exceed the host's) [TOPOMAP_SLURM_CPUS, 4]
#   --ctld-port P        slurmctld port [TOPOMAP_SLURM_CTLD_PORT, 16817]
#   --node-port P        port of the first slurmd, then P+1... [TOPOMAP_SLURM_NODE_PORT, 17001]
#   --task-plugin T      task/affinity or task/none [TOPOMAP_SLURM_TASK_PLUGIN; default
#                        task/affinity when the host has at least --cpus cores, else
#                        task/none: task/affinity cannot lay out more tasks than the
#                        host really has cores ("only 2 bits in avail_map")]
#   --plugin SO          SPANK plugin to load (topomap.so) [TOPOMAP_SLURM_PLUGIN]
#   --plugin-args ARGS   its plugstack.conf arguments [TOPOMAP_SLURM_PLUGIN_ARGS]
#   --oversubscribe N    let N jobs share each core (the partition's
#                        OverSubscribe=FORCE:N), so that hundreds of steps can
#                        run at once on a few CPUs (tests/soak.sh)
#                        [TOPOMAP_SLURM_OVERSUBSCRIBE, 1: no sharing]
#   --select-params P    slurm.conf's SelectTypeParameters, e.g.
#                        CR_Core,CR_NO_DIST_TOPO_BLOCK (Slurm 26.05: steps laid
#                        out in node order under a topology plugin)
#                        [TOPOMAP_SLURM_SELECT_PARAMS, CR_Core]
#   --plugin-kind K      optional (what README.md recommends) or required: the
#                        plugstack.conf keyword of the plugin line
#                        [TOPOMAP_SLURM_PLUGIN_KIND, optional]
#   --netns DIR          run each slurmd in a node of the emulated cluster whose
#                        state is in DIR (contrib/netemu/netemu.sh up -d DIR): in
#                        its network namespace, with its address and hostname;
#                        slurmctld is reached at the host's address on the
#                        cluster's bridge. Nodes take the emulated names (n1..),
#                        --nodes and --prefix must match them [TOPOMAP_SLURM_NETNS]
#
# Use the cluster with:  eval "$(contrib/slurm-local-cluster.sh env)"; srun -N4 -n8 hostname
#
# `start` is idempotent: when everything is already running it only rewrites
# plugstack.conf (srun and slurmstepd read it at every launch, so a new
# --plugin/--plugin-args takes effect without a restart). When only part of
# the cluster is running, that part is stopped and the cluster restarted.
# `stop` kills only the processes whose pids it recorded, after cancelling the
# cluster's jobs so that no slurmstepd is left behind.

set -u

die() { echo "slurm-local-cluster: $*" >&2; exit 1; }
say() { echo "slurm-local-cluster: $*"; }

cmd=${1:-}
[ $# -gt 0 ] && shift

DIR=${TOPOMAP_SLURM_DIR:-/tmp/topomap-slurm}
NODES=${TOPOMAP_SLURM_NODES:-4}
PREFIX=${TOPOMAP_SLURM_PREFIX:-n}
CPUS=${TOPOMAP_SLURM_CPUS:-4}
CTLD_PORT=${TOPOMAP_SLURM_CTLD_PORT:-16817}
NODE_PORT=${TOPOMAP_SLURM_NODE_PORT:-17001}
TASK_PLUGIN=${TOPOMAP_SLURM_TASK_PLUGIN:-}
PLUGIN=${TOPOMAP_SLURM_PLUGIN:-}
PLUGIN_ARGS=${TOPOMAP_SLURM_PLUGIN_ARGS:-}
PLUGIN_KIND=${TOPOMAP_SLURM_PLUGIN_KIND:-optional}
NETNS=${TOPOMAP_SLURM_NETNS:-}
OVERSUB=${TOPOMAP_SLURM_OVERSUBSCRIBE:-1}
SELECT_PARAMS=${TOPOMAP_SLURM_SELECT_PARAMS:-CR_Core}

need_arg() { [ $# -ge 2 ] || die "option $1 needs a value"; }
while [ $# -gt 0 ]; do
    case $1 in
    --dir) need_arg "$@"; DIR=$2; shift 2 ;;
    --nodes) need_arg "$@"; NODES=$2; shift 2 ;;
    --prefix) need_arg "$@"; PREFIX=$2; shift 2 ;;
    --cpus) need_arg "$@"; CPUS=$2; shift 2 ;;
    --ctld-port) need_arg "$@"; CTLD_PORT=$2; shift 2 ;;
    --node-port) need_arg "$@"; NODE_PORT=$2; shift 2 ;;
    --task-plugin) need_arg "$@"; TASK_PLUGIN=$2; shift 2 ;;
    --plugin) need_arg "$@"; PLUGIN=$2; shift 2 ;;
    --plugin-args) need_arg "$@"; PLUGIN_ARGS=$2; shift 2 ;;
    --plugin-kind) need_arg "$@"; PLUGIN_KIND=$2; shift 2 ;;
    --netns) need_arg "$@"; NETNS=$2; shift 2 ;;
    --oversubscribe) need_arg "$@"; OVERSUB=$2; shift 2 ;;
    --select-params) need_arg "$@"; SELECT_PARAMS=$2; shift 2 ;;
    -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (try --help)" ;;
    esac
done

is_uint() { case $1 in ''|*[!0-9]*) return 1 ;; esac; return 0; }
is_uint "$NODES" && [ "$NODES" -ge 1 ] || die "--nodes must be a positive integer, not '$NODES'"
is_uint "$CPUS" && [ "$CPUS" -ge 1 ] || die "--cpus must be a positive integer, not '$CPUS'"
is_uint "$OVERSUB" && [ "$OVERSUB" -ge 1 ] && [ "$OVERSUB" -le 32767 ] ||
    die "--oversubscribe must be an integer from 1 to 32767, not '$OVERSUB'"
is_uint "$CTLD_PORT" || die "--ctld-port must be a port number, not '$CTLD_PORT'"
is_uint "$NODE_PORT" || die "--node-port must be a port number, not '$NODE_PORT'"
case $PREFIX in ''|*[!A-Za-z_-]*) die "--prefix must be letters, '_' or '-', not '$PREFIX'" ;; esac
if [ -z "$TASK_PLUGIN" ]; then
    TASK_PLUGIN=task/none
    [ "$(nproc 2>/dev/null || echo 1)" -ge "$CPUS" ] && TASK_PLUGIN=task/affinity
fi
case $TASK_PLUGIN in task/affinity|task/none) ;; *) die "--task-plugin must be task/affinity or task/none" ;; esac
case $PLUGIN_KIND in optional|required) ;; *) die "--plugin-kind must be optional or required" ;; esac
case $DIR in /*) ;; *) DIR=$(pwd)/$DIR ;; esac
if [ -n "$PLUGIN" ]; then
    case $PLUGIN in /*) ;; *) PLUGIN=$(pwd)/$PLUGIN ;; esac
fi

# The emulated cluster: "name address namespace" per node.
CTLD_ADDR=127.0.0.1
if [ -n "$NETNS" ]; then
    [ -f "$NETNS/hosts" ] || die "--netns $NETNS: no emulated cluster there (netemu.sh up -d $NETNS)"
    [ "$(wc -l < "$NETNS/hosts")" -eq "$NODES" ] ||
        die "--netns $NETNS has $(wc -l < "$NETNS/hosts") nodes, not --nodes $NODES"
    awk -v p="$PREFIX" '$1 != p NR {exit 1}' "$NETNS/hosts" ||
        die "--netns $NETNS: node names are not $PREFIX""1..$PREFIX$NODES"
    CTLD_ADDR=$(awk 'NR == 1 {sub(/\.[0-9]+$/, ".254", $2); print $2}' "$NETNS/hosts")
fi

CONF=$DIR/etc/slurm.conf
PLUGSTACK=$DIR/etc/plugstack.conf
SOCKET=$DIR/munge/munge.socket
RUN=$DIR/run
LOG=$DIR/log
LAST_PORT=$((NODE_PORT + NODES - 1))
NODELIST="${PREFIX}[1-$NODES]"
[ "$NODES" -eq 1 ] && NODELIST="${PREFIX}1"

node_names() { i=1; while [ "$i" -le "$NODES" ]; do echo "$PREFIX$i"; i=$((i + 1)); done; }

# pid from a pid file if that process is alive.
alive() { [ -s "$1" ] && p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

export SLURM_CONF="$CONF"

write_plugstack() {
    if [ -n "$PLUGIN" ]; then
        [ -f "$PLUGIN" ] || die "plugin '$PLUGIN' does not exist (build it first: make -C spank)"
        printf '# written by slurm-local-cluster.sh\n%s %s %s\n' "$PLUGIN_KIND" "$PLUGIN" "$PLUGIN_ARGS" \
            >"$PLUGSTACK.tmp" && mv -f "$PLUGSTACK.tmp" "$PLUGSTACK"
    else
        printf '# written by slurm-local-cluster.sh: no plugin\n' >"$PLUGSTACK.tmp" &&
            mv -f "$PLUGSTACK.tmp" "$PLUGSTACK"
    fi
}

# Write slurm.conf to $1.
write_conf() {
    cat >"$1" <<EOF
# written by slurm-local-cluster.sh: $NODES nodes on this host
ClusterName=topomap
SlurmctldHost=localhost($CTLD_ADDR)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$NODE_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=$TASK_PLUGIN
TmpFS=$DIR/tmp/%n
PlugStackConfig=$PLUGSTACK
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=$SELECT_PARAMS
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MaxTasksPerNode=1024
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=30
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$NODELIST NodeHostname=localhost NodeAddr=127.0.0.1 Port=$NODE_PORT-$LAST_PORT CPUs=$CPUS State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    [ "$OVERSUB" -gt 1 ] && sed -i "s/^PartitionName=local .*/& OverSubscribe=FORCE:$OVERSUB/" "$1"
    # Port= takes a range only in brackets.
    sed -i "s/Port=$NODE_PORT-$LAST_PORT/Port=[$NODE_PORT-$LAST_PORT]/" "$1"
    [ "$NODES" -eq 1 ] && sed -i "s/Port=\[$NODE_PORT-$LAST_PORT\]/Port=$NODE_PORT/" "$1"
    # Emulated nodes: one line each, with the node's own address.
    if [ -n "$NETNS" ]; then
        awk -v port="$NODE_PORT" -v cpus="$CPUS" '
            /^NodeName=/ {while ((getline l < hosts) > 0) {split(l, f, " ")
                printf "NodeName=%s NodeHostname=%s NodeAddr=%s Port=%d CPUs=%d State=UNKNOWN\n",
                    f[1], f[1], f[2], port++, cpus}; next} {print}' hosts="$NETNS/hosts" "$1" > "$1.ns" &&
            mv -f "$1.ns" "$1"
    fi
    return 0
}

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# 0 when munged, slurmctld and every slurmd run.
all_up() {
    alive "$RUN/munged.pid" && alive "$RUN/slurmctld.pid" || return 1
    for n in $(node_names); do alive "$RUN/slurmd-$n.pid" || return 1; done
    return 0
}
any_up() {
    for f in "$RUN"/*.pid; do [ -e "$f" ] && alive "$f" && return 0; done
    return 1
}

stop_pidfile() { # FILE NAME
    alive "$1" || { rm -f "$1"; return 0; }
    p=$(cat "$1")
    kill "$p" 2>/dev/null
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$p" 2>/dev/null; then
        say "$2 (pid $p) ignored SIGTERM for 10 s, sending SIGKILL"
        kill -9 "$p" 2>/dev/null
    fi
    rm -f "$1"
}

do_stop() {
    [ -d "$RUN" ] || { say "nothing to stop in $DIR"; return 0; }
    if alive "$RUN/slurmctld.pid" && [ -f "$CONF" ]; then
        # Let the slurmds end their steps so no slurmstepd outlives them.
        if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
            scancel --quiet --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null
            i=0
            while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
        fi
    fi
    for f in "$RUN"/slurmd-*.pid; do
        [ -e "$f" ] || continue
        n=${f##*/slurmd-}; stop_pidfile "$f" "slurmd ${n%.pid}"
    done
    stop_pidfile "$RUN/slurmctld.pid" slurmctld
    stop_pidfile "$RUN/munged.pid" munged
    say "stopped (state kept in $DIR)"
}

show_logs() {
    for f in "$LOG/munged.log" "$LOG/slurmctld.log" "$LOG"/slurmd-*.log; do
        [ -s "$f" ] || continue
        echo "---- last lines of $f" >&2
        tail -n 8 "$f" >&2
    done
}

start_munge() {
    mkdir -p "$DIR/munge" && chmod 700 "$DIR/munge" || die "cannot create $DIR/munge"
    if [ ! -s "$DIR/munge/munge.key" ]; then
        umask 077
        dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 2>/dev/null ||
            die "cannot write $DIR/munge/munge.key"
        umask 022
    fi
    chmod 400 "$DIR/munge/munge.key"
    # --force: munged refuses to run as root without it, and the key is ours.
    munged --force --socket="$SOCKET" --key-file="$DIR/munge/munge.key" \
        --pid-file="$RUN/munged.pid" --log-file="$LOG/munged.log" \
        --seed-file="$DIR/munge/munged.seed" >"$LOG/munged.out" 2>&1 ||
        { cat "$LOG/munged.out" >&2; die "munged failed to start (see $LOG/munged.log)"; }
    i=0
    while ! munge -n -S "$SOCKET" </dev/null >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -ge 50 ] && { show_logs; die "munged does not answer on $SOCKET"; }
        sleep 0.1
    done
}

do_start() {
    [ "$(id -u)" = 0 ] || die "must run as root (slurmd launches jobs as their users)"
    for b in munged munge slurmctld slurmd sinfo; do
        command -v $b >/dev/null 2>&1 || die "$b not found: apt-get install slurm-wlm munge"
    done
    [ -z "$PLUGIN" ] || [ -f "$PLUGIN" ] || die "plugin '$PLUGIN' does not exist (build it first: make -C spank)"
    mkdir -p "$DIR/etc" "$DIR/state" "$RUN" "$LOG" || die "cannot create directories under $DIR"
    chmod 755 "$DIR" "$DIR/etc"
    for n in $(node_names); do mkdir -p "$DIR/spool/$n" "$DIR/tmp/$n" || die "cannot create $DIR/spool/$n"; done
    chmod 1777 "$DIR/tmp" "$DIR"/tmp/*

    write_conf "$CONF.new" || die "cannot write $CONF.new"
    if all_up; then
        if cmp -s "$CONF.new" "$CONF"; then
            rm -f "$CONF.new"
            write_plugstack
            say "already running in $DIR ($NODELIST); plugstack.conf rewritten"
            return 0
        fi
        say "configuration changed: restarting"
        do_stop >/dev/null
    elif any_up; then
        say "partly running: restarting"
        do_stop >/dev/null
    fi

    for p in "$CTLD_PORT" $(seq "$NODE_PORT" "$LAST_PORT"); do
        port_busy "$p" && die "port $p is in use by another program (choose --ctld-port/--node-port)"
    done
    mv -f "$CONF.new" "$CONF"
    write_plugstack

    start_munge
    slurmctld -f "$CONF" >"$LOG/slurmctld.out" 2>&1 ||
        { cat "$LOG/slurmctld.out" >&2; show_logs; do_stop >/dev/null; die "slurmctld failed to start"; }
    for n in $(node_names); do
        ns=
        [ -n "$NETNS" ] && ns=$(awk -v n="$n" '$1 == n {print $3}' "$NETNS/hosts")
        if [ -n "$ns" ]; then
            # In the node's namespace, under its own hostname (its tasks see it too).
            nsenter --net="/run/netns/$ns" unshare --uts sh -c \
                'hostname "$1" && exec slurmd -f "$2" -N "$1"' slurmd "$n" "$CONF"
        else
            slurmd -f "$CONF" -N "$n"
        fi >"$LOG/slurmd-$n.out" 2>&1 ||
            { cat "$LOG/slurmd-$n.out" >&2; show_logs; do_stop >/dev/null; die "slurmd $n failed to start"; }
    done

    # Wait until every node is idle (or still idle after a restart).
    i=0
    while :; do
        states=$(sinfo -h -N -o '%N %t' 2>/dev/null)
        nidle=$(echo "$states" | awk '$2 == "idle" || $2 == "mix" || $2 == "alloc"' | sort -u | wc -l)
        [ "$nidle" -ge "$NODES" ] && break
        # Nodes an earlier run left drained or down (state is kept in
        # StateSaveLocation) come back once their slurmd answers.
        if echo "$states" | awk '$2 ~ /^(drain|drng|down|fail)$/ {f = 1} END {exit !f}'; then
            scontrol update nodename="$NODELIST" state=resume >/dev/null 2>&1
        fi
        i=$((i + 1))
        if [ $i -ge 150 ]; then
            echo "$states" >&2
            show_logs
            do_stop >/dev/null
            die "nodes did not become idle within 30 s"
        fi
        sleep 0.2
    done
    say "running: $NODES nodes $NODELIST with $CPUS CPUs each, $TASK_PLUGIN, ctld port $CTLD_PORT, slurmd ports $NODE_PORT-$LAST_PORT"
    say "use it with: export SLURM_CONF=$CONF"
}

do_status() {
    if all_up; then
        sinfo -N -o '%N %t %c' 2>/dev/null
        say "running in $DIR"
        return 0
    fi
    for f in "$RUN/munged.pid" "$RUN/slurmctld.pid" $(for n in $(node_names); do echo "$RUN/slurmd-$n.pid"; done); do
        if alive "$f"; then s=running; else s=stopped; fi
        echo "${f##*/}: $s"
    done
    say "not (fully) running in $DIR"
    return 1
}

case $cmd in
start) do_start ;;
stop) do_stop ;;
status) do_status ;;
env) echo "export SLURM_CONF=$CONF" ;;
''|-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; [ -n "$cmd" ] ;;
*) die "unknown command '$cmd' (start, stop, status, env)" ;;
esac
