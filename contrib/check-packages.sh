#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-packages.sh: the packages a site installs, built and tried (TAP).
#
#   sh contrib/check-packages.sh [-k]     -k: keep the work directory
#
# From a copy of this checkout (its tracked files as they are in the work
# tree, `git stash create`; untracked files are left out) in a temporary
# directory, so the checkout is not touched: builds the Debian packages
# (dpkg-buildpackage -b -us -uc, debian/) and runs lintian on them; installs
# them with `apt-get install ./*.deb` into a clean Debian 12 root and tries
# them there from the installed files only: the README's worked example
# (topomap map --algo auto and topomap eval on a shipped topology and example
# profile), the man pages, a C program built with `pkg-config --cflags --libs
# topomap` alone, the plugin in Debian's Slurm plugin directory with its
# libraries resolved, and Debian's srun loading it; then a site's whole path
# with nothing built: Debian's slurmctld, slurmd and munge installed beside
# the packages, a private 4-node Slurm cluster started in the root
# (contrib/slurm-local-cluster.sh copied in; ports 18817 and 19001-19004,
# stopped on every exit) with the installed plugin on its plugstack.conf line
# and the shipped local-4node topology, a site profile stored with the
# installed CLI, and `srun -N4 -n16 --topomap=auto` placing every rank on the
# node the installed `topomap map --algo auto` computes, a misspelt
# --topomap refused; then builds the RPMs of topomap.spec from the `make
# dist` tarball (rpmbuild -tb --nodeps).
#
# The clean root is made once with `debootstrap --variant=minbase bookworm`
# (a few minutes) and kept in $TOPOMAP_PACKAGE_ROOTS/bookworm-bare; each run
# works on an overlay of it (a copy where overlayfs is missing), so every run
# starts clean. The .debs apt downloads into the root are kept beside it
# (bookworm-apt-archives), so a second run fetches nothing.
#
# Must run as root (debootstrap, chroot, mount): otherwise `1..0 # SKIP`. What
# it needs is `contrib/install-deps.sh --packaging`; with CI=true it installs
# what is missing, otherwise it skips with the command to run.
#
# Environment:
#   TOPOMAP_PACKAGE_ROOTS  where the root is kept   [/var/cache/topomap-ci]
#   TOPOMAP_DEBIAN_MIRROR  the Debian mirror        [http://deb.debian.org/debian]
#   TOPOMAP_PACKAGE_CTLD_PORT, TOPOMAP_PACKAGE_NODE_PORT
#                          the root's cluster's slurmctld port and first
#                          slurmd port (4 from it)  [18817, 19001]
# Prints TAP, then `packages: N passed, N failed, N skipped`; exits non-zero
# when a test fails.

set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=${TOPOMAP_PACKAGE_ROOTS:-/var/cache/topomap-ci}
MIRROR=${TOPOMAP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CTLD_PORT=${TOPOMAP_PACKAGE_CTLD_PORT:-18817}
NODE_PORT=${TOPOMAP_PACKAGE_NODE_PORT:-19001}
SUITE=bookworm
BARE=$ROOTS/$SUITE-bare
ARCHIVES=$ROOTS/$SUITE-apt-archives
# Bumped when the way the root is made changes: an older root is remade.
ROOT_RECIPE="minbase $SUITE $MIRROR, updates and security, policy-rc.d 101, v1"
keep=no
case ${1:-} in
-k) keep=yes ;;
'') ;;
*) echo "check-packages: unknown option '$1' (-k keeps the work directory)" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "1..0 # SKIP not root"
    exit 0
fi

# What the run needs, by command, and the Debian package that has it.
need() {
    missing=
    for c in dpkg-buildpackage:dpkg-dev dh:debhelper dh_autoreconf:dh-autoreconf fakeroot:fakeroot \
        rpmbuild:rpm debootstrap:debootstrap lintian:lintian git:git flock:util-linux; do
        command -v "${c%%:*}" > /dev/null 2>&1 || missing="$missing ${c#*:}"
    done
    # The build dependencies of debian/control.
    (cd "$SRC" && dpkg-checkbuilddeps > /dev/null 2>&1) || missing="$missing build-deps"
}
need
if [ -n "$missing" ]; then
    if [ "${CI:-}" = true ]; then
        echo "# check-packages: installing what is missing:$missing" >&2
        sh "$SRC/contrib/install-deps.sh" --packaging > /tmp/topomap-check-packages-deps.log 2>&1
        need
    fi
    if [ -n "$missing" ]; then
        echo "1..0 # SKIP missing:$missing (run: sh contrib/install-deps.sh --packaging)"
        exit 0
    fi
fi

n=0
passed=0
failed=0
skipped=0
ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n - # SKIP $*"; }
check() { r=$1; shift; if [ "$r" -eq 0 ]; then ok "$*"; else notok "$*"; fi; }
# The last lines of a log, as TAP comments.
show() { tail -"${2:-15}" "$1" | sed 's/^/#   /'; }
now() { date +%s; }
finish() {
    echo "1..$n"
    echo "packages: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit $?
}

work=$(mktemp -d /tmp/topomap-packages.XXXXXX) || exit 1
chmod 755 "$work"
root=$work/root
mounted=
cluster_up=no
# The root's Slurm cluster (below), by the helper, then by its pid files.
stop_cluster() {
    [ $cluster_up = yes ] || return 0
    cluster_up=no
    # shellcheck disable=SC2086
    in_root sh /tmp/slurm-local-cluster.sh stop $CL > "$work/cluster-stop.log" 2>&1
    left=
    for f in "$root"/tmp/cluster/run/*.pid; do
        [ -s "$f" ] && kill -0 "$(cat "$f")" 2> /dev/null && left="$left $(cat "$f")"
    done
    [ -z "$left" ] && return 0
    # shellcheck disable=SC2086
    kill -9 $left 2> /dev/null
    echo "#   killed what the cluster's stop left:$left"
    return 1
}
cleanup() {
    stop_cluster > /dev/null
    for m in $mounted; do umount "$m" 2> /dev/null || umount -R "$m" 2> /dev/null || umount -l "$m" 2> /dev/null; done
    mounted=
    if [ $keep = yes ]; then echo "# kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------
# The sources, and versions that agree.
rev=$(git -C "$SRC" stash create 2> /dev/null)
[ -n "$rev" ] || rev=HEAD
mkdir -p "$work/build"
git -C "$SRC" archive --prefix=topomap/ "$rev" | tar -x -C "$work/build"
tree=$work/build/topomap
v_h=$(sed -n 's/^#define TOPOMAP_VERSION "\(.*\)"$/\1/p' "$tree/libtopomap/topomap.h")
v_deb=$(cd "$tree" && dpkg-parsechangelog -S Version)
v_rpm=$(sed -n 's/^Version: *//p' "$tree/topomap.spec")
[ -n "$v_h" ] && [ "$v_h" = "$v_deb" ] && [ "$v_h" = "$v_rpm" ]
check $? "one version: libtopomap/topomap.h $v_h, debian/changelog $v_deb, topomap.spec $v_rpm"

# ---------------------------------------------------------------------------
# The Debian packages.
t0=$(now)
(cd "$tree" && dpkg-buildpackage -b -us -uc) > "$work/deb-build.log" 2>&1
rc=$?
check $rc "dpkg-buildpackage -b -us -uc ($(($(now) - t0)) s)"
[ $rc -eq 0 ] || show "$work/deb-build.log" 30
debs=$work/build
pkgs="libtopomap1 libtopomap-dev topomap topomap-profiler slurm-spank-topomap"
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
absent=
for p in $pkgs; do [ -f "$debs/${p}_${v_deb}_$arch.deb" ] || absent="$absent $p"; done
[ -z "$absent" ]
check $? "binary packages $pkgs${absent:+ (missing:$absent)}"
for p in $pkgs; do
    f=$debs/${p}_${v_deb}_$arch.deb
    [ -f "$f" ] && echo "#   $p: $(dpkg-deb -c "$f" | grep -vc '/$') files; Depends: $(dpkg-deb -f "$f" Depends)"
done

if command -v lintian > /dev/null 2>&1; then
    lintian --fail-on error "$debs/topomap_${v_deb}_$arch.changes" > "$work/lintian.log" 2>&1
    rc=$?
    check $rc "lintian: no errors ($(grep -c '^W:' "$work/lintian.log") warnings)"
    grep '^[EW]:' "$work/lintian.log" | sed 's/^/#   /'
else
    skip "lintian is not installed"
fi

# The plugin is tied to the release of the Slurm header it was built
# against (Slurm refuses a plugin of another release).
n_slurm=$(sed -n 's/^#define SLURM_VERSION_NUMBER //p' /usr/include/slurm/slurm_version.h 2> /dev/null)
rel=$(printf '%d.%02d' $((n_slurm >> 16)) $(((n_slurm >> 8) & 255)))
next=$(printf '%d.%02d' $((n_slurm >> 16)) $((((n_slurm >> 8) & 255) + 1)))
dep=$(dpkg-deb -f "$debs/slurm-spank-topomap_${v_deb}_$arch.deb" Depends 2> /dev/null)
case $dep in
*"slurm-wlm-basic-plugins (>= $rel~)"*"slurm-wlm-basic-plugins (<< $next~)"*) rc=0 ;;
*) rc=1 ;;
esac
check $rc "slurm-spank-topomap depends on Slurm $rel only (the header's release):" \
    "$(echo "$dep" | grep -o 'slurm-wlm-basic-plugins ([^)]*)' | tr '\n' ' ')"

# Enabling the plugin is the admin's decision: no conffile, the line is an
# example in the documentation.
conf=$(dpkg-deb -I "$debs/slurm-spank-topomap_${v_deb}_$arch.deb" conffiles 2> /dev/null)
example=./usr/share/doc/slurm-spank-topomap/examples/plugstack.conf.d/topomap.conf
dpkg-deb -c "$debs/slurm-spank-topomap_${v_deb}_$arch.deb" | grep -q " $example\$" && [ -z "$conf" ] &&
    ! dpkg-deb -c "$debs/slurm-spank-topomap_${v_deb}_$arch.deb" | grep -q ' \./etc/'
check $? "the plugstack.conf line is documentation (${example#.}), not a conffile"

# ---------------------------------------------------------------------------
# The clean Debian 12 root, made once, then an overlay of it per run.
make_bare() {
    mkdir -p "$ROOTS" || return 1
    exec 8> "$ROOTS/.$SUITE-bare.lock"
    flock -w 1800 8 || { echo "another run has held $ROOTS/.$SUITE-bare.lock for 30 minutes"; return 1; }
    if [ -f "$BARE/.topomap-stamp" ] && [ "$(cat "$BARE/.topomap-stamp")" = "$ROOT_RECIPE" ]; then
        exec 8>&-
        return 0
    fi
    rm -rf "$BARE" "$BARE.new"
    echo "debootstrap --variant=minbase $SUITE $BARE.new $MIRROR"
    debootstrap --variant=minbase "$SUITE" "$BARE.new" "$MIRROR" || return 1
    # The same suites as the host that builds the packages.
    cat > "$BARE.new/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb ${MIRROR%/debian}/debian-security $SUITE-security main
EOF
    # No service starts in the root (munge, slurm).
    printf '#!/bin/sh\nexit 101\n' > "$BARE.new/usr/sbin/policy-rc.d"
    chmod 755 "$BARE.new/usr/sbin/policy-rc.d"
    cp /etc/resolv.conf "$BARE.new/etc/resolv.conf"
    mount -t proc proc "$BARE.new/proc" || return 1
    chroot "$BARE.new" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get update -q
    rc=$?
    chroot "$BARE.new" apt-get clean
    umount "$BARE.new/proc"
    [ $rc -eq 0 ] || return 1
    echo "$ROOT_RECIPE" > "$BARE.new/.topomap-stamp"
    mv "$BARE.new" "$BARE" || return 1
    exec 8>&-
}
t0=$(now)
make_bare > "$work/root.log" 2>&1
rc=$?
check $rc "clean Debian 12 root $BARE ($(($(now) - t0)) s)"
if [ $rc -ne 0 ]; then
    show "$work/root.log"
    finish
fi

mkdir -p "$root" "$work/upper" "$work/ovl" "$ARCHIVES/partial"
if mount -t overlay overlay -o "lowerdir=$BARE,upperdir=$work/upper,workdir=$work/ovl" "$root" 2> /dev/null; then
    mounted="$root"
else
    cp -a "$BARE/." "$root/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/var/cache/apt/archives" "$root/tmp/debs"
mount -t proc proc "$root/proc" && mounted="$root/proc $mounted"
mount --bind /dev "$root/dev" && mounted="$root/dev $mounted"
mount --bind "$ARCHIVES" "$root/var/cache/apt/archives" && mounted="$root/var/cache/apt/archives $mounted"
cp "$debs"/*.deb "$root/tmp/debs/"
chmod -R a+rX "$root/tmp/debs"
in_root() {
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}
# apt-get install, with a fresh package list when the cached one is stale;
# one run at a time on the shared download cache.
apt_install() {
    flock "$ARCHIVES/.lock" chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Options::=--force-unsafe-io "$@" ||
    { in_root apt-get update -q &&
      flock "$ARCHIVES/.lock" chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Options::=--force-unsafe-io "$@"; }
}

# All the packages (their Recommends too, as apt does by default), and
# man-db to read the manual pages; nothing else.
t0=$(now)
# shellcheck disable=SC2046
apt_install $(cd "$root/tmp/debs" && ls ./*.deb | sed 's|^\./|/tmp/debs/|') man-db > "$work/apt.log" 2>&1
rc=$?
check $rc "apt-get install ./*.deb in the clean root ($(($(now) - t0)) s)"
[ $rc -eq 0 ] || show "$work/apt.log" 30
in_root dpkg-query -W -f='${Package} ${Version}\n' $pkgs 2>&1 | sed 's/^/#   /'

# The README's worked example, from the installed files only.
T=/usr/share/topomap/topologies/tianhe3-prototype.yaml
P=/usr/share/topomap/examples/petsc-ex45-mg65-128.txt
N='cn[0000-0003,0048-0051,0096-0099,0384-0387]'
out=$(in_root topomap map --profile $P --topology $T --nodes "$N" --tasks-per-node 8 --algo auto \
    -o /tmp/auto.map 2>&1)
rc=$?
echo "#   $out"
hb=$(echo "$out" | sed -n 's/.*; hop-bytes \([0-9]*\) = .*/\1/p')
[ $rc -eq 0 ] && [ -n "$hb" ] && [ "$(wc -l < "$root/tmp/auto.map")" -eq 128 ]
check $? "topomap map --algo auto: 128 ranks of an installed example on an installed topology"
out=$(in_root topomap eval --profile $P --topology $T --mapping /tmp/auto.map 2>&1)
rc=$?
echo "$out" | grep '^hop-bytes' | sed 's/^/#   /'
[ $rc -eq 0 ] && echo "$out" | grep -q "^hop-bytes *$hb\$"
check $? "topomap eval of that mapping: the same hop-bytes ($hb)"

rc=0
for m in topomap topomap-profiler topomap-spank; do
    page=$(in_root man -w "$m" 2>&1) && echo "#   man $m: $page" || rc=1
done
in_root sh -c 'MANPAGER=cat MANWIDTH=80 man topomap 2>/dev/null' | grep -q 'topomap map' || rc=1
check $rc "man topomap (and topomap-profiler, topomap-spank)"

# The plugin where Debian's Slurm loads plugins (PluginDir, the directory of
# slurm-wlm-basic-plugins), with every library it needs.
plugdir=/usr/lib/$ma/slurm-wlm
[ -f "$root$plugdir/topomap.so" ] &&
    in_root dpkg -L slurm-wlm-basic-plugins | grep -q "^$plugdir/auth_munge.so\$"
check $? "the plugin is $plugdir/topomap.so, beside slurm-wlm-basic-plugins' auth_munge.so"
rc=0
for f in /usr/bin/topomap /usr/lib/$ma/libtopomap.so.1 $plugdir/topomap.so \
    /usr/lib/$ma/topomap/libtopomap-profiler.so /usr/lib/$ma/topomap/libtopomap-profiler-openmpi.so \
    /usr/lib/$ma/topomap/libtopomap-profiler-mpich.so /usr/lib/$ma/topomap/libtopomap-reorder-openmpi.so \
    /usr/lib/$ma/topomap/libtopomap-reorder-mpich.so; do
    out=$(in_root ldd "$f" 2>&1)
    if [ $? -ne 0 ] || echo "$out" | grep -q 'not found'; then
        rc=1
        echo "$out" | grep 'not found' | sed "s|^|#   $f: |"
    fi
done
check $rc "ldd resolves every library of topomap, libtopomap, the plugin and the profiler and reorder builds"

# A library user: the compiler, pkg-config, and Slurm's srun, installed only
# now, after the packages proved their own dependencies.
t0=$(now)
apt_install gcc libc6-dev pkg-config slurm-client > "$work/apt2.log" 2>&1
rc=$?
check $rc "apt-get install gcc libc6-dev pkg-config slurm-client ($(($(now) - t0)) s)"
[ $rc -eq 0 ] || show "$work/apt2.log"
flags=$(in_root pkg-config --cflags --libs topomap 2>&1)
check $? "pkg-config --cflags --libs topomap: $flags"
cat > "$root/tmp/user.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <topomap.h>
int main(void)
{
    char err[TOPOMAP_ERRLEN];
    topomap_topology_t *t = topomap_topology_load("/usr/share/topomap/topologies/torus-8x8x8.yaml", err, sizeof err);
    topomap_profile_t *p = topomap_profile_load("/usr/share/topomap/examples/lammps-lj32k-16.txt", TOPOMAP_FMT_AUTO, err, sizeof err);
    topomap_alloc_t *a = t && p ? topomap_alloc_create(t, "t[000-003]", "4", err, sizeof err) : NULL;
    int r2s[16];
    topomap_metrics_t m = TOPOMAP_METRICS_INIT;
    if (!a || topomap_map("auto", p, a, NULL, r2s, err, sizeof err) < 0 || topomap_eval_slots(p, a, r2s, &m) < 0)
        return fprintf(stderr, "user: %s\n", err), 1;
    printf("topomap %s (header %s): hop-bytes %.0f\n", topomap_version(), TOPOMAP_VERSION, m.hop_bytes);
    return strcmp(topomap_version(), TOPOMAP_VERSION) != 0;
}
EOF
out=$(in_root sh -c 'cc -o /tmp/user /tmp/user.c $(pkg-config --cflags --libs topomap) && /tmp/user' 2>&1)
rc=$?
echo "$out" | sed 's/^/#   /'
check $rc "a C program built with pkg-config's flags alone runs against the installed libtopomap"

# Debian's srun loads the installed plugin (Slurm checks its release): its
# options appear in srun --help. A configuration of its own, no daemon.
mkdir -p "$root/tmp/slurm"
cat > "$root/tmp/slurm/slurm.conf" <<'EOF'
ClusterName=pkgcheck
SlurmctldHost=localhost
PlugStackConfig=/tmp/slurm/plugstack.conf
NodeName=localhost CPUs=1 State=UNKNOWN
PartitionName=p Nodes=localhost Default=YES
EOF
echo "required $plugdir/topomap.so" > "$root/tmp/slurm/plugstack.conf"
out=$(in_root env SLURM_CONF=/tmp/slurm/slurm.conf srun --help 2>&1)
echo "$out" | grep -q -- '--topomap=ALGO'
rc=$?
[ $rc -eq 0 ] || echo "$out" | tail -5 | sed 's/^/#   /'
check $rc "srun $(in_root env SLURM_CONF=/tmp/slurm/slurm.conf srun --version 2> /dev/null | cut -d' ' -f2) loads the installed plugin (srun --help lists --topomap)"

# ---------------------------------------------------------------------------
# A site's whole path from the packages: Slurm's daemons, one plugstack.conf
# line, a site profile stored with the installed CLI, and `srun
# --topomap=auto` placing a job, nothing built. The cluster is
# contrib/slurm-local-cluster.sh (a helper of the source tree, not packaged,
# copied into the root): munged, slurmctld and 4 slurmd n1..n4 of 4 CPUs, the
# nodes of the shipped local-4node topology, on ports of its own (the tests
# take 16817/17001.. and 16917/17101..). The root shares the host's network
# and processes: the cluster is stopped on every way out (cleanup).
t0=$(now)
apt_install slurmctld slurmd munge > "$work/apt3.log" 2>&1
rc=$?
check $rc "apt-get install slurmctld slurmd munge ($(($(now) - t0)) s)"
[ $rc -eq 0 ] || show "$work/apt3.log"
# What munged and slurmd need: /sys with its cgroup file system (slurmd
# starts its cgroup plugin even under proctrack/linuxproc), /dev/pts, a
# /dev/shm of their own, the host's name resolving (slurmd and munged look
# it up).
mkdir -p "$root/sys" "$root/dev/pts" "$root/dev/shm"
mount --rbind /sys "$root/sys" && mounted="$root/sys $mounted"
mount --bind /dev/pts "$root/dev/pts" && mounted="$root/dev/pts $mounted"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm" && mounted="$root/dev/shm $mounted"
cp /etc/hosts "$root/etc/hosts"
grep -qw "$(hostname)" "$root/etc/hosts" || echo "127.0.1.1 $(hostname)" >> "$root/etc/hosts"
chmod 1777 "$root/tmp"
cp "$SRC/contrib/slurm-local-cluster.sh" "$root/tmp/slurm-local-cluster.sh"
CL="--dir /tmp/cluster --nodes 4 --cpus 4 --ctld-port $CTLD_PORT --node-port $NODE_PORT"
T=/usr/share/topomap/topologies/local-4node.yaml
# petsc-ex45-mg65-16, not lammps-lj32k-16: on the 2x2 mesh auto keeps
# Slurm's block layout for LAMMPS's halo (no gain), and moves PETSc's.
P=/usr/share/topomap/examples/petsc-ex45-mg65-16.txt
busy=
: > "$work/cluster.log"
for p in $CTLD_PORT $NODE_PORT $((NODE_PORT + 1)) $((NODE_PORT + 2)) $((NODE_PORT + 3)); do
    ss -Hltnp "sport = :$p" 2> /dev/null | grep . >> "$work/cluster.log" && busy="$busy $p"
done
cluster_up=yes
t0=$(now)
# shellcheck disable=SC2086
[ -z "$busy" ] && in_root sh /tmp/slurm-local-cluster.sh start $CL --plugin "$plugdir/topomap.so" \
    --plugin-args "topology=$T profiles=/var/lib/topomap/profiles" > "$work/cluster.log" 2>&1
rc=$?
crc=$rc
check $rc "a local Slurm cluster in the root, the installed plugin in its plugstack.conf ($(($(now) - t0)) s)${busy:+ (ports in use:$busy)}"
[ $rc -eq 0 ] && sed 's/^/#   /' "$root/tmp/cluster/etc/plugstack.conf" | grep -v '^#   #'
[ $rc -eq 0 ] || show "$work/cluster.log" 40
# Without a cluster the steps below fail at once (salloc would retry).
in_slurm() {
    [ $crc -eq 0 ] || { echo "no cluster (above)" >&2; return 1; }
    in_root env SLURM_CONF=/tmp/cluster/etc/slurm.conf timeout -k 5 120 "$@"
}

out=$(in_root topomap profile add petsc16 $P --site --store /var/lib/topomap/profiles 2>&1)
check $? "topomap profile add petsc16 ${P##*/} --site --store /var/lib/topomap/profiles"
echo "$out" | sed 's/^/#   /'
# shellcheck disable=SC2016
in_slurm salloc -Q -t 2 -N4 --exclusive srun -N4 -n16 --topomap=auto --topomap-profile=petsc16 \
    --topomap-verbose sh -c 'echo $SLURM_PROCID $SLURMD_NODENAME' > "$work/job.out" 2> "$work/job.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l < "$work/job.out")" -eq 16 ]
check $? "srun -N4 -n16 --topomap=auto --topomap-profile=petsc16: exit $rc, $(wc -l < "$work/job.out") lines"
grep -q '^srun: topomap: auto.*: remapped$' "$work/job.err"
check $? "the plugin's verbose line: remapped"
show "$work/job.err" 5
in_root topomap map --algo auto --topology $T --profile $P --nodes 'n[1-4]' --tasks-per-node 4 \
    -o /tmp/want.map 2>&1 | sed 's/^/#   /'
awk '{print $1, $2}' "$root/tmp/want.map" > "$work/want.nodes"
sort -n "$work/job.out" | cmp -s "$work/want.nodes" - && [ -s "$work/want.nodes" ]
rc=$?
check $rc "every rank on the node the installed 'topomap map --algo auto' computes"
[ $rc -eq 0 ] || sort -n "$work/job.out" | paste "$work/want.nodes" - | sed 's/^/#   want, got: /'
in_slurm srun -N4 -n16 --topomap=ohmta true > "$work/typo.out" 2> "$work/typo.err"
rc=$?
[ $rc -ne 0 ] && grep -q "unknown algorithm 'ohmta' (known: .*auto" "$work/typo.err"
check $? "srun --topomap=ohmta: refused (exit $rc), the valid names listed"
show "$work/typo.err" 3
t0=$(now)
stop_cluster
check $? "the cluster stops, no daemon left ($(($(now) - t0)) s)"

# ---------------------------------------------------------------------------
# The RPMs, from the `make dist` tarball of the tree the .debs were built in.
t0=$(now)
make -C "$tree" dist > "$work/dist.log" 2>&1
rc=$?
tarball=$tree/topomap-$v_h.tar.gz
[ $rc -eq 0 ] && [ -f "$tarball" ] && tar -tzf "$tarball" | grep -q "^topomap-$v_h/topomap.spec\$"
rc=$?
check $rc "make dist: topomap-$v_h.tar.gz carries topomap.spec"
[ $rc -eq 0 ] || show "$work/dist.log"
rpmbuild -tb --nodeps --define "_topdir $work/rpmbuild" "$tarball" > "$work/rpm.log" 2>&1
rc=$?
rpms=$(cd "$work/rpmbuild/RPMS" 2> /dev/null && ls ./*/*.rpm 2> /dev/null)
for r in topomap topomap-devel topomap-profiler slurm-spank-topomap; do
    echo "$rpms" | grep -q "/$r-$v_h-" || rc=1
done
check $rc "rpmbuild -tb --nodeps: topomap, -devel, -profiler, slurm-spank-topomap ($(($(now) - t0)) s)"
[ $rc -eq 0 ] || show "$work/rpm.log" 30
for r in $rpms; do
    echo "#   ${r#./*/}: $(rpm -qpl "$work/rpmbuild/RPMS/$r" 2> /dev/null | grep -vc '^/usr/lib/.build-id') files"
done
req=$(rpm -qp --requires "$work"/rpmbuild/RPMS/*/slurm-spank-topomap-*.rpm 2> /dev/null | grep '^slurm ' | tr '\n' ' ')
case $req in
*"slurm >= $rel "*"slurm < $next "*) rc=0 ;;
*) rc=1 ;;
esac
check $rc "the plugin RPM requires Slurm $rel only: $req"

finish
