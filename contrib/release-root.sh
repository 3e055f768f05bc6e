#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# release-root.sh: a Debian root of another release, for building topomap and
# running its end-to-end Slurm tests against that release's Slurm (Debian 13
# "trixie" ships Slurm 24.11; the host, Debian 12, ships 22.05). The root is
# made with debootstrap and kept under a fixed directory, so that a second run
# (and CI on the same machine) reuses it; the project's own
# contrib/install-deps.sh installs the packages inside it, so the list of
# dependencies stays in one place.
#
#   contrib/release-root.sh make   [SUITE]   make or update the root; print its path
#   contrib/release-root.sh run    [SUITE] -- CMD...   run CMD in the root, with
#                                  /proc, /sys, /dev, /dev/pts and /dev/shm
#                                  mounted and this checkout at /src
#   contrib/release-root.sh path   [SUITE]   print where the root is (or would be)
#
# SUITE: trixie (Debian 13, Slurm 24.11; the default) or forky (Debian 14,
# Slurm 26.05; made with sid's debootstrap script). Environment:
#   TOPOMAP_RELEASE_ROOTS  where the roots live [/var/cache/topomap-ci]
#   TOPOMAP_DEBIAN_MIRROR  the Debian mirror debootstrap uses
#                          [http://deb.debian.org/debian]
# Must run as root (debootstrap, chroot, mount).

set -u
die() { echo "release-root: $*" >&2; exit 1; }

cmd=${1:-}
[ $# -gt 0 ] && shift
SUITE=trixie
case ${1:-} in ''|--) ;; *) SUITE=$1; shift ;; esac
case $SUITE in trixie|forky) ;; *) die "unknown suite '$SUITE' (trixie: Debian 13, Slurm 24.11; forky: Debian 14, Slurm 26.05)" ;; esac
ROOTS=${TOPOMAP_RELEASE_ROOTS:-/var/cache/topomap-ci}
MIRROR=${TOPOMAP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOT=$ROOTS/$SUITE
SRC=$(cd "$(dirname "$0")/.." && pwd)

# The root is up to date when it was made from this install-deps.sh, with
# what the packages need too (check-release.sh builds them there).
stamp() { echo "$(cksum < "$SRC/contrib/install-deps.sh" | cut -d' ' -f1) --packaging"; }

do_make() {
    [ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"
    mkdir -p "$ROOTS" || die "cannot create $ROOTS"
    exec 8> "$ROOTS/.$SUITE.lock"
    flock -w 1800 8 || die "another run has held $ROOTS/.$SUITE.lock for 30 minutes"
    if [ -f "$ROOT/.topomap-stamp" ] && [ "$(cat "$ROOT/.topomap-stamp")" = "$(stamp)" ]; then
        echo "$ROOT"
        return 0
    fi
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        command -v debootstrap > /dev/null 2>&1 || die "debootstrap is not installed (apt-get install debootstrap)"
        rm -rf "$ROOT.new"
        echo "release-root: debootstrap $SUITE into $ROOT (a few minutes, once)" >&2
        # Debian 12's debootstrap has no script for forky (Debian 14,
        # testing): sid's fits it.
        script=
        [ "$SUITE" = forky ] && [ ! -e /usr/share/debootstrap/scripts/forky ] &&
            script=/usr/share/debootstrap/scripts/sid
        debootstrap --variant=minbase "$SUITE" "$ROOT.new" "$MIRROR" $script > "$ROOTS/$SUITE.debootstrap.log" 2>&1 ||
            { tail -5 "$ROOTS/$SUITE.debootstrap.log" >&2; die "debootstrap $SUITE failed (log: $ROOTS/$SUITE.debootstrap.log)"; }
        # Testing's index is served past its Valid-Until date; apt would
        # refuse it.
        [ "$SUITE" = forky ] &&
            echo 'Acquire::Check-Valid-Until "false";' > "$ROOT.new/etc/apt/apt.conf.d/99topomap-valid-until"
        mv "$ROOT.new" "$ROOT" || die "cannot move $ROOT.new to $ROOT"
    fi
    mkdir -p "$ROOT/src" "$ROOT/tmp/install"
    cp "$SRC/contrib/install-deps.sh" "$ROOT/tmp/install/install-deps.sh"
    # Services must not start in the root (install-deps.sh also says RUNLEVEL=1).
    printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d" && chmod 755 "$ROOT/usr/sbin/policy-rc.d"
    echo "release-root: installing topomap's dependencies in $ROOT" >&2
    in_root sh /tmp/install/install-deps.sh --packaging > "$ROOTS/$SUITE.install.log" 2>&1 ||
        { tail -20 "$ROOTS/$SUITE.install.log" >&2; die "install-deps.sh failed in $ROOT (log: $ROOTS/$SUITE.install.log)"; }
    in_root apt-get clean > /dev/null 2>&1
    stamp > "$ROOT/.topomap-stamp"
    echo "$ROOT"
}

# Mount what a build and a local Slurm cluster need, run, unmount.
in_root() {
    [ -x "$ROOT/usr/bin/env" ] || die "no root in $ROOT (contrib/release-root.sh make $SUITE)"
    cp /etc/hosts "$ROOT/etc/hosts" 2> /dev/null
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2> /dev/null
    # The host name must resolve inside (slurmd, munged).
    grep -qw "$(hostname)" "$ROOT/etc/hosts" || echo "127.0.1.1 $(hostname)" >> "$ROOT/etc/hosts"
    # Unmount on any exit, in reverse order.
    mounted=
    for m in proc sys dev dev/pts dev/shm src; do
        mkdir -p "$ROOT/$m"
        mountpoint -q "$ROOT/$m" && continue
        case $m in
        proc) mount -t proc proc "$ROOT/proc" ;;
        sys) mount --rbind /sys "$ROOT/sys" ;;
        dev) mount --bind /dev "$ROOT/dev" ;;
        dev/pts) mount --bind /dev/pts "$ROOT/dev/pts" ;;
        dev/shm) mount -t tmpfs -o mode=1777 shm "$ROOT/dev/shm" ;;
        src) mount --bind "$SRC" "$ROOT/src" ;;
        esac || { umount_all; die "cannot mount $ROOT/$m"; }
        mounted="$m $mounted"
    done
    chmod 1777 "$ROOT/tmp"
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
        TOPOMAP_SKIP_MPI="${TOPOMAP_SKIP_MPI:-}" TOPOMAP_SKIP_SLURM="${TOPOMAP_SKIP_SLURM:-}" \
        TOPOMAP_TEST_CTLD_PORT="${TOPOMAP_TEST_CTLD_PORT:-}" TOPOMAP_TEST_NODE_PORT="${TOPOMAP_TEST_NODE_PORT:-}" \
        DEBIAN_FRONTEND=noninteractive chroot "$ROOT" "$@"
    rc=$?
    umount_all
    return $rc
}
umount_all() {
    for m in $mounted; do
        case $m in sys) umount -R "$ROOT/sys" ;; *) umount "$ROOT/$m" ;; esac 2> /dev/null ||
            umount -l "$ROOT/$m" 2> /dev/null
    done
    mounted=
}

case $cmd in
make) do_make ;;
path) echo "$ROOT" ;;
run)
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || die "run: no command"
    in_root "$@"
    ;;
''|-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; [ -n "$cmd" ] ;;
*) die "unknown command '$cmd' (make, run, path)" ;;
esac
