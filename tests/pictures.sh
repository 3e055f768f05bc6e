#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README's pictures (doc/pictures/*.png) drawn again by
# contrib/make-pictures.sh with the topomap just built, and compared pixel
# by pixel with the committed ones, so that they cannot drift from the code:
# a change that alters a picture fails here until the pictures are redrawn
# (PICTURES_REGENERATE=1 make check TESTS=pictures.sh, or
# contrib/make-pictures.sh; look at them before committing). Fonts and
# cairo versions change how text is drawn, so the comparison is made only
# where both are the ones doc/pictures/VERSIONS records; elsewhere the test
# says so and skips. Emits TAP.

: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
TOPOMAP=$top_builddir/cli/topomap
PNGCMP=$top_builddir/tests/pngcmp
PIC=$top_srcdir/doc/pictures

. "$top_srcdir/tests/tap.sh"
need_built "$TOPOMAP"
tap_tmpdir pictures
if "$TOPOMAP" plot matrix --profile /dev/null -o "$tmp/x.png" 2>&1 | grep -q 'without cairo'; then
    echo "1..0 # SKIP topomap was built without cairo: no pictures to compare"
    exit 0
fi

if [ -n "${PICTURES_REGENERATE:-}" ]; then
    sh "$top_srcdir/contrib/make-pictures.sh" -b "$top_builddir" -o "$PIC" &&
        echo "ok 1 - pictures redrawn into $PIC (look at them, then commit)" ||
        echo "not ok 1 - contrib/make-pictures.sh failed"
    echo "1..1"
    exit 0
fi

if ! sh "$top_srcdir/contrib/make-pictures.sh" -b "$top_builddir" -o "$tmp" 2> "$tmp/err"; then
    echo "not ok 1 - contrib/make-pictures.sh draws every picture"
    sed 's/^/# /' "$tmp/err"
    echo "1..1"
    exit 1
fi
ok "contrib/make-pictures.sh draws every picture"
if ! cmp -s "$PIC/VERSIONS" "$tmp/VERSIONS"; then
    ok "# SKIP the pictures were drawn with $(tr '\n' ' ' < "$PIC/VERSIONS"); this machine has $(tr '\n' ' ' < "$tmp/VERSIONS"): not compared"
    tap_done
    exit
fi
for ref in "$PIC"/*.png; do
    name=$(basename "$ref")
    if [ ! -f "$tmp/$name" ]; then
        notok "$name: contrib/make-pictures.sh no longer draws it"
    elif msg=$("$PNGCMP" "$ref" "$tmp/$name" 2>&1); then
        ok "$name is what the code draws"
    else
        notok "$name is what the code draws"
        echo "#   $msg: redraw with contrib/make-pictures.sh and look at the difference"
    fi
done
for new in "$tmp"/*.png; do
    [ -f "$PIC/$(basename "$new")" ] && continue
    notok "$(basename "$new") is drawn but not committed in doc/pictures"
done
tap_done
