#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Print one "N passed, N failed, N skipped" line from automake test logs
# (the TAP driver counts every test point). Usage: test-summary.sh BUILDDIR [LABEL]
dir=${1:-.}
label=${2:-tests}
find "$dir" -name '*.trs' -exec cat {} + 2>/dev/null | awk -v label="$label" '
    /^:test-result: PASS/  { p++ }
    /^:test-result: XFAIL/ { p++ }
    /^:test-result: FAIL/  { f++ }
    /^:test-result: XPASS/ { f++ }
    /^:test-result: ERROR/ { f++ }
    /^:test-result: SKIP/  { s++ }
    END { printf "%s: %d passed, %d failed, %d skipped\n", label, p, f, s }'
