#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The install, as an admin and a library user see it (TAP): `make install
# DESTDIR=...` puts the library, header, pkg-config file, command, man pages,
# documentation, examples and topologies in place; a C program built with
# `pkg-config --cflags --libs topomap` alone loads a shipped topology and an
# example profile, maps and evaluates; the installed topomap finds shipped
# topologies by name; the .pc variables name the plugin, profiler and
# topology directories.
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"

. "$top_srcdir/tests/tap.sh"
need pkg-config
tap_tmpdir install
root=$tmp/root

# A make of its own, not a job of the make running the tests.
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$top_builddir" install DESTDIR="$root" > "$tmp/install.log" 2>&1
rc=$?
check $rc "make install DESTDIR=$tmp/root"
if [ $rc -ne 0 ]; then
    sed 's/^/# /' "$tmp/install.log" | tail -20
    echo "1..$n"
    exit 1
fi

pc=$top_builddir/libtopomap/topomap.pc
var() { sed -n "s|^$1=||p" "$pc"; }
prefix=$(var prefix)
export PKG_CONFIG_PATH="$root$(var libdir | sed "s|\${exec_prefix}|$prefix|; s|\${prefix}|$prefix|")/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$root"
libdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=libdir topomap)
# A build configured --disable-shared installs libtopomap.a alone: then a
# user links with --static (the .pc's private requirements).
static=
[ -e "$root$libdir/libtopomap.so" ] || static=--static
flags=$(pkg-config --cflags --libs $static topomap)
check $? "pkg-config --cflags --libs $static topomap: $flags"
docdir=$prefix/share/doc/topomap

for v in plugindir profilerdir topologiesdir; do
    d=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=$v topomap)
    [ -n "$d" ]
    check $? "topomap.pc: $v=$d"
done
tdir=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=topologiesdir topomap)
[ -f "$root$tdir/torus-8x8x8.yaml" ]
check $? "shipped topologies in topologiesdir"

for f in "$prefix/include/topomap.h" "$prefix/include/topomap/profile.h" "$prefix/bin/topomap" \
    "$prefix/share/man/man1/topomap.1" "$prefix/share/man/man1/topomap-profiler.1" \
    "$prefix/share/man/man8/topomap-spank.8" "$docdir/README.md" \
    "$docdir/LICENSE" "$docdir/doc/admin-guide.md" "$docdir/doc/reference.md" \
    "$docdir/doc/pictures/mapping.png" \
    "$docdir/topologies/README.md" "$docdir/plugstack.conf.d/topomap.conf" \
    "$docdir/profiler/README.md" "$prefix/share/topomap/examples/lammps-lj32k-16.txt" \
    "$prefix/share/topomap/examples/lammps-lj32k-16.txt.meta"; do
    [ -f "$root$f" ]
    check $? "installed: $f"
done

cat > "$tmp/user.c" <<'EOC'
/* A library user: only <topomap.h> and pkg-config. */
#include <stdio.h>
#include <topomap.h>
#if !defined(TOPOMAP_VERSION_NUMBER) || TOPOMAP_VERSION_NUMBER < 0x000100
#error "TOPOMAP_VERSION_NUMBER missing or too old"
#endif
int main(int argc, char **argv)
{
    char err[TOPOMAP_ERRLEN];
    if (argc != 3)
        return 2;
    topomap_topology_t *t = topomap_topology_load(argv[1], err, sizeof err);
    topomap_profile_t *p = t ? topomap_profile_load(argv[2], TOPOMAP_FMT_AUTO, err, sizeof err) : NULL;
    topomap_alloc_t *a = p ? topomap_alloc_create(t, "t[000-003]", "4", err, sizeof err) : NULL;
    int r2s[16];
    topomap_metrics_t mb = TOPOMAP_METRICS_INIT, ma = TOPOMAP_METRICS_INIT;
    if (!a || topomap_map("block", p, a, NULL, r2s, err, sizeof err) < 0 ||
        topomap_eval_slots(p, a, r2s, &mb) < 0 ||
        topomap_map("auto", p, a, NULL, r2s, err, sizeof err) < 0 ||
        topomap_eval_slots(p, a, r2s, &ma) < 0) {
        fprintf(stderr, "user: %s\n", err);
        return 1;
    }
    printf("%s %s %.0f %.0f\n", TOPOMAP_VERSION, topomap_version(), mb.hop_bytes, ma.hop_bytes);
    topomap_alloc_free(a);
    topomap_profile_free(p);
    topomap_topology_free(t);
    return ma.hop_bytes <= mb.hop_bytes ? 0 : 1;
}
EOC
# shellcheck disable=SC2086
# The build's compiler and flags (sanitizers, when the build has them).
${TOPOMAP_TEST_CC:-cc} $TOPOMAP_TEST_CFLAGS -o "$tmp/user" "$tmp/user.c" $flags \
    $TOPOMAP_TEST_LDFLAGS 2> "$tmp/cc.log"
check $? "a program built with the pkg-config flags alone compiles and links"
sed 's/^/# /' "$tmp/cc.log"
out=$(LD_LIBRARY_PATH="$root$libdir" "$tmp/user" "$root$tdir/torus-8x8x8.yaml" \
    "$root$prefix/share/topomap/examples/lammps-lj32k-16.txt" 2>&1)
rc=$?
echo "# $out"
check $rc "it loads, maps (block, auto) and evaluates; auto is no worse than block"

# The installed command finds shipped topologies by name, in the installed
# directory it was built for: point it there through the environment, since
# DESTDIR is not where it was configured to look.
out=$(LD_LIBRARY_PATH="$root$libdir" TOPOMAP_TOPOLOGY_PATH="$root$tdir" \
    "$root$prefix/bin/topomap" topology show torus-8x8x8 2>&1)
echo "$out" | grep -q "kind: torus"
check $? "installed topomap: topology show torus-8x8x8 (by name)"
LD_LIBRARY_PATH="$root$libdir" "$root$prefix/bin/topomap" --version | grep -q "^topomap "
check $? "installed topomap --version"
tap_done
