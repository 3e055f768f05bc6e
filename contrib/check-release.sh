#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-release.sh: build topomap inside the Debian root of another release
# (contrib/release-root.sh) and run its Slurm tests there, against that
# release's Slurm: the plugin's unit tests, the CLI's store tests and the
# end-to-end tests on a private local cluster (tests/slurm.sh,
# tests/slurm_layout.sh), started inside the root.
#
#   contrib/check-release.sh [SUITE] [TEST...]
#
# SUITE: trixie (Debian 13, Slurm 24.11; the default) or forky (Debian 14,
# Slurm 26.05). TEST: the tests to run
# (default: the Slurm ones above, then the Debian packages of that release
# built, installed and tried in the root: contrib/release-packages.sh). The
# tree is copied from this checkout's
# files (tracked and untracked, not ignored) into the root, so a build here
# is untouched. Prints the tests' TAP logs and one line
# "slurm-SUITE: N passed, N failed, N skipped"; exits non-zero when a test
# failed or the build did. Must run as root.

set -u
die() { echo "check-release: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP not root (debootstrap, chroot)"; exit 0; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
SUITE=trixie
case ${1:-} in trixie|forky) SUITE=$1; shift ;; esac
TESTS=${*:-"spank_site.t spank_srun.t spank_layout.t spank_decide.t spank_release.t spank_bind.t spank_pmi2.t spank_record.t store.t store_cli.sh slurm.sh slurm_layout.sh"}

ROOT=$(sh "$SRC/contrib/release-root.sh" make "$SUITE") || die "no $SUITE root"
BUILD=/build/topomap
# copy_tree DIR: this checkout's files as they are (committed or not),
# without build output, into a fresh DIR. One tar reads the whole list (xargs
# would split a long list over several tars, whose concatenated archives the
# reader stops after the first of).
copy_tree() {
    rm -rf "$1"
    mkdir -p "$1" || die "cannot create $1"
    (cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
        tar cf - --null --no-recursion -T - 2> /dev/null) |
        tar xf - -C "$1" || die "cannot copy the tree into $1"
}
copy_tree "$ROOT$BUILD"

log=$ROOT/build/check.log
# Inside: the same build as .ci/run's, then the tests; users of the store
# tests are made inside the root (tests/users.sh).
sh "$SRC/contrib/release-root.sh" run "$SUITE" -- sh -c "
    cd $BUILD && ./autogen.sh > /dev/null 2>&1 && ./configure -q --with-slurm > /dev/null 2>&1 &&
    make -j2 > /build/make.log 2>&1 || { tail -30 /build/make.log; echo 'check-release: build failed'; exit 3; }
    echo \"check-release: built against Slurm \$(dpkg-query -W -f='\${Version}' libslurm-dev)\"
    make -C tests -j1 check TESTS='$TESTS' > /build/check.log 2>&1
    rc=\$?
    for t in $TESTS; do
        echo \"---- \$t\"
        grep -E '^(not ok|ok .*# SKIP|1\.\.0)' tests/\${t%.*}.log | head -40
    done
    exit \$rc" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "slurm-$SUITE: 0 passed, 1 failed, 0 skipped"; exit 1; }
[ $rc -eq 0 ] || tail -40 "$log" 2> /dev/null
# The packages of this release (contrib/release-packages.sh), from a second
# clean copy of the tree, when the default tests ran; counted in the summary.
if [ -z "$*" ]; then
    rm -rf "$ROOT/build/pkg"
    copy_tree "$ROOT/build/pkg/topomap"
    echo "---- packages built and installed in the $SUITE root"
    sh "$SRC/contrib/release-root.sh" run "$SUITE" -- \
        sh /build/pkg/topomap/contrib/release-packages.sh /build/pkg/topomap $BUILD/tests/release-packages.trs 2>&1 ||
        rc=1
fi
sh "$SRC/contrib/test-summary.sh" "$ROOT$BUILD/tests" "slurm-$SUITE"
[ $rc -eq 0 ]
