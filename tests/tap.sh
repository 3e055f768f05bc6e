# SPDX-License-Identifier: BSD-3-Clause
# A minimal TAP producer for the shell tests (sourced): check STATUS
# DESCRIPTION prints one "ok"/"not ok" line, skip REASON one skipped test;
# tap_done prints the plan and returns the status of the whole test.
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
