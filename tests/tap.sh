# SPDX-License-Identifier: BSD-3-Clause
# A minimal TAP producer for the shell tests (sourced): check STATUS
# DESCRIPTION prints one "ok"/"not ok" line, skip REASON one skipped test;
# tap_done prints the plan and returns the status of the whole test;
# need COMMAND skips the whole test when COMMAND is not installed.
n=0
failed=0
check() { # STATUS DESCRIPTION
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
