#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The surface of the built shared objects (TAP), from their dynamic symbol
# tables (nm -D):
#  - libtopomap.so names topomap_* alone, holds no data a caller could
#    change (only code and read-only constants), and has every function
#    topomap.h declares. The internals are hidden (doc/architecture.md,
#    "The library's surface"): a name such as tm_match must not clash with
#    TreeMatch's own, and the tuning the tests turn (libtopomap/tuning.h) is
#    no exported variable.
#  - the SPANK plugin topomap.so exports what Slurm looks up alone: the
#    slurm_spank_* callbacks and the plugin's identity (plugin_name,
#    plugin_type, plugin_version, spank_plugin_version; spank_options if it
#    had one). srun and slurmstepd load every plugin of plugstack.conf and
#    libslurm in one process: a helper named like another's would be called
#    in its place.
#  - libtopomap-profiler and libtopomap-reorder, preloaded into MPI programs,
#    export MPI's entry points alone (MPI_* and the Fortran mpi_* and
#    MPI_* spellings; PMPI_* if they ever define one).
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"

need nm
tap_tmpdir exports

# show FILE WHAT: the offenders, one diagnostic line each.
show() { sed "s/^/# $2: /" "$1" | head -40; }
# only SO NAME REGEX: every symbol SO defines in its dynamic table matches
# the extended REGEX (a whole name); NAME says what the test checks.
only() {
    nm -D --defined-only "$1" > "$tmp/nm"
    check $? "nm -D --defined-only $(basename "$1")"
    awk '{ print $NF }' "$tmp/nm" | grep -Ev "^($3)\$" > "$tmp/other"
    [ ! -s "$tmp/other" ]
    check $? "$(basename "$1") exports $2 alone ($(wc -l < "$tmp/other") others)"
    show "$tmp/other" "$(basename "$1") exports"
}

so=$top_builddir/libtopomap/.libs/libtopomap.so
if [ -e "$so" ]; then
    only "$so" "topomap_*" 'topomap_[A-Za-z0-9_]*'
    # nm's letters: T code, R read-only data, i indirect function; anything
    # else (D, B, G, S, C, V, ...) is data a caller could write.
    awk 'NF == 3 && $2 !~ /^[TRi]$/ { print $2, $3 }' "$tmp/nm" > "$tmp/mutable"
    [ ! -s "$tmp/mutable" ]
    check $? "no writable data exported ($(wc -l < "$tmp/mutable") symbols)"
    show "$tmp/mutable" "writable"

    # The functions topomap.h declares, read after the preprocessor
    # (comments gone), against what the library exports.
    ${TOPOMAP_TEST_CC:-cc} -E -P "$top_srcdir/libtopomap/topomap.h" > "$tmp/h" 2> "$tmp/cc.log"
    check $? "topomap.h preprocesses"
    grep -oE '\btopomap_[a-z0-9_]+ *\(' "$tmp/h" | sed 's/ *($//' | sort -u > "$tmp/api"
    [ -s "$tmp/api" ]
    check $? "topomap.h declares $(wc -l < "$tmp/api") functions"
    awk '{ print $NF }' "$tmp/nm" | sort -u > "$tmp/exported"
    comm -23 "$tmp/api" "$tmp/exported" > "$tmp/missing"
    [ ! -s "$tmp/missing" ]
    check $? "every function of topomap.h is exported ($(wc -l < "$tmp/missing") missing)"
    show "$tmp/missing" "not exported"

    # The SONAME follows -version-info (libtopomap/Makefile.am's rule), and
    # the packages follow the SONAME.
    vi=$(sed -n 's/.*-version-info \([0-9]*\):[0-9]*:\([0-9]*\).*/\1 \2/p' \
        "$top_srcdir/libtopomap/Makefile.am")
    major=$(echo "$vi" | awk 'NF == 2 { print $1 - $2 }')
    soname=$(objdump -p "$so" 2> /dev/null | awk '$1 == "SONAME" { print $2 }')
    [ -n "$major" ] && [ "$soname" = "libtopomap.so.$major" ]
    check $? "SONAME $soname is libtopomap.so.(CURRENT - AGE) of -version-info ($vi)"
    grep -q "^Package: libtopomap$major\$" "$top_srcdir/debian/control" &&
        [ -f "$top_srcdir/debian/libtopomap$major.install" ] &&
        grep -q "^%{_libdir}/libtopomap.so.$major\*\$" "$top_srcdir/topomap.spec" &&
        grep -q "libtopomap$major libtopomap-dev" "$top_srcdir/contrib/check-packages.sh" &&
        grep -q "libtopomap.so.$major " "$top_srcdir/contrib/check-packages.sh"
    check $? "debian/control, debian/*.install, topomap.spec, check-packages.sh name libtopomap$major"
else
    skip "no shared libtopomap (configured --disable-shared)"
fi

plugin=$top_builddir/spank/.libs/topomap.so
if [ -e "$plugin" ]; then
    only "$plugin" "Slurm's entry points and its identity" \
        'slurm_spank_[a-z_]+|plugin_name|plugin_type|plugin_version|spank_plugin_version|spank_options'
    # What it must export for Slurm to load it and call it at all.
    for sym in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init; do
        grep -qE " $sym\$" "$tmp/nm"
        check $? "topomap.so exports $sym"
    done
else
    skip "no SPANK plugin (built without Slurm's headers)"
fi

mpi='P?MPI_[A-Za-z0-9_]+|p?mpi_[a-z0-9_]+'
found=
for lib in "$top_builddir"/profiler/libtopomap-profiler*.so "$top_builddir"/reorder/libtopomap-reorder-*.so; do
    [ -e "$lib" ] || continue
    found=1
    only "$lib" "MPI's entry points" "$mpi"
done
[ -n "$found" ] || skip "no libtopomap-profiler or libtopomap-reorder (no MPI compiler found)"
tap_done
