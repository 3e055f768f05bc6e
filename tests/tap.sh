# SPDX-License-Identifier: BSD-3-Clause
# The shared prelude of the shell tests (sourced), a minimal TAP producer:
#   check STATUS DESCRIPTION   one "ok"/"not ok" line (STATUS 0: ok)
#   ok DESCRIPTION             one "ok" line; notok DESCRIPTION one "not ok"
#   skip REASON                one skipped point
#   tap_done                   the plan; returns the status of the whole test
#   need COMMAND               skips the whole test when COMMAND is not installed
#   need_built FILE [NAME]     skips the whole test when FILE, a program the
#                              build makes, is not there ("NAME not built";
#                              NAME is FILE unless given)
#   tap_tmpdir NAME            $tmp: a new directory under $TMPDIR (or /tmp)
#                              named topomap-NAME.XXXXXX, removed when the test
#                              ends; SIGINT and SIGTERM end it (exit 1)
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # STATUS DESCRIPTION (not through ok: slurm_lib.sh redefines it)
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
tap_done() {
    echo "1..$n"
    [ $failed -eq 0 ]
}
need() {
    command -v "$1" > /dev/null 2>&1 && return 0
    echo "1..0 # SKIP $1 is not installed"
    exit 0
}
need_built() {
    [ -x "$1" ] && return 0
    echo "1..0 # SKIP ${2:-$1} not built"
    exit 0
}
tap_tmpdir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/topomap-$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 1' INT TERM
}
