# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the end-to-end tests on a local Slurm cluster (tests/slurm*.sh):
# skips (1..0 # SKIP) when not root, when Slurm or munge is missing, when the
# plugin was not built (configure --without-slurm) or when
# TOPOMAP_SKIP_SLURM=1; takes the ports TOPOMAP_TEST_CTLD_PORT and
# TOPOMAP_TEST_NODE_PORT..+3 (one test at a time: a lock on the ctld port, so
# that `make -j check` runs them one after the other); makes $DIR, removed
# with the cluster at exit; TAP helpers: tests/tap.sh's (skip, tap_done), ok
# (tap.sh's check) and diag.
#   slurm_start CPUS ARGS   start (or reconfigure) the cluster: 4 nodes n1..n4
#                           with CPUS CPUs each, the plugin with ARGS; sets
#                           SLURM_REL (2205, 2411, 2605) and
#                           SLURM_REL_NAME (22.05, ...), skips other releases
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PLUGIN=$top_builddir/spank/.libs/topomap.so
TOPOMAP=$top_builddir/cli/topomap
CLUSTER=$top_srcdir/contrib/slurm-local-cluster.sh
DATA=$top_srcdir/tests/data/slurm
. "$top_srcdir/tests/users.sh"

skip_all() { echo "1..0 # SKIP $*"; exit 0; }
case ${TOPOMAP_SKIP_SLURM:-} in '' | 0) ;; *) skip_all "TOPOMAP_SKIP_SLURM=$TOPOMAP_SKIP_SLURM" ;; esac
[ "$(id -u)" = 0 ] || skip_all "not root (slurmd must run as root)"
for b in slurmctld slurmd srun sbatch salloc scontrol munged munge ss flock; do
    command -v $b > /dev/null 2>&1 || skip_all "$b is not installed (apt-get install slurm-wlm munge iproute2 util-linux)"
done
[ -f "$PLUGIN" ] || skip_all "spank/topomap.so was not built (configure --without-slurm, or no slurm/spank.h)"
[ -x "$TOPOMAP" ] || skip_all "cli/topomap was not built"
# srun and slurmstepd cannot dlopen a plugin built with ASan/UBSan.
ldd "$PLUGIN" 2> /dev/null | grep -Eq 'lib(asan|ubsan|tsan)' &&
    skip_all "the plugin is built with sanitizers, which srun and slurmstepd cannot load"
CTLD_PORT=${TOPOMAP_TEST_CTLD_PORT:-16917}
NODE_PORT=${TOPOMAP_TEST_NODE_PORT:-17101}
exec 9> "/tmp/topomap-slurm-test.$CTLD_PORT.lock"
flock -w 1800 9 || skip_all "another Slurm test held port $CTLD_PORT for 30 minutes"
for p in $CTLD_PORT $NODE_PORT $((NODE_PORT + 1)) $((NODE_PORT + 2)) $((NODE_PORT + 3)); do
    ss -Hltn "sport = :$p" | grep -q . && skip_all "port $p is in use (set TOPOMAP_TEST_CTLD_PORT/NODE_PORT)"
done

DIR=$(mktemp -d /tmp/topomap-slurm-test.XXXXXX) || skip_all "cannot create a temporary directory"
chmod 755 "$DIR"
CL="--dir $DIR/cluster --ctld-port $CTLD_PORT --node-port $NODE_PORT"
cleanup() {
    $CLUSTER stop $CL > /dev/null 2>&1
    rm -rf "$DIR"
    users_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Every allocation is bounded, so that a hung step cannot hang `make check`.
SALLOC="timeout -k 5 120 salloc -Q -t 2"
. "$top_srcdir/tests/tap.sh"
# The Slurm tests write tap.sh's check as ok: ok STATUS DESCRIPTION.
ok() { check "$@"; }
diag() { sed 's/^/# /' "$@"; }

slurm_start() { # CPUS ARGS
    if ! $CLUSTER start $CL --cpus "$1" --plugin "$PLUGIN" --plugin-args "$2" > "$DIR/start.log" 2>&1; then
        diag "$DIR/start.log"
        echo "1..0 # SKIP the local Slurm cluster did not start (log above)"
        exit 0
    fi
    export SLURM_CONF="$DIR/cluster/etc/slurm.conf"
    # The Slurm release under test, as major * 100 + minor (2205, 2411,
    # 2605) and as its name (SLURM_REL_NAME, 24.11): some behaviours differ
    # between releases (spank/release.c). The tests are written for the
    # releases .ci/run starts a cluster of.
    SLURM_REL=$(srun --version 2> /dev/null | awk '{split($2, v, "."); printf "%d%02d", v[1], v[2]}')
    SLURM_REL_NAME=$(srun --version 2> /dev/null | awk '{split($2, v, "."); printf "%d.%02d", v[1], v[2]}')
    case $SLURM_REL in
    2205 | 2411 | 2605) ;;
    *) skip_all "Slurm ${SLURM_REL_NAME:-?}: the end-to-end tests know 22.05, 24.11 and 26.05 (the releases Debian packages)" ;;
    esac
}
