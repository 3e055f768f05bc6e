#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# make-pictures.sh: draw the README's pictures with `topomap plot` from data
# that ships with topomap (tests/data/profiles, topologies/, the saved
# benchmark runs contrib/bench-reference.txt and bench-manycore.txt, examples/),
# into doc/pictures/:
#   matrix.png          the PETSc multigrid profile (16 ranks) as a heat map
#   mapping.png         an 8x8 halo exchange, 4 ranks per node on a 4x4 box of
#                       the 8x8x8 torus: block against auto
#   links.png           the same two placements' link loads
#   mapping-tianhe3.png the PETSc profile on 8 nodes of 3 Tianhe-3 chips
#   mapping-plafrim.png its 128-rank version on 16 nodes of the PlaFRIM-like
#                       fat-tree (examples/), 8 ranks a node
#   bench.png           the saved benchmark run
#   manycore-curves.png the saved run of the many-core set
#                       (contrib/bench-manycore.txt): quality against time
#   benefit-links.png   make benefit's LAMMPS run (the recorded profile) on
#                       its emulated star of 4 nodes: block against auto
# and VERSIONS, the cairo and font the pictures were drawn with: the test
# tests/pictures.sh draws them again and compares them pixel by pixel where
# both are the same, so that the pictures cannot drift from the code.
#
#   contrib/make-pictures.sh [-b BUILDDIR] [-o DIR]
#     -b BUILDDIR  where cli/topomap was built [TOPOMAP_BUILD, else the source tree]
#     -o DIR       write the pictures there [doc/pictures of the source tree]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
BUILD=${TOPOMAP_BUILD:-$src}
OUT=$src/doc/pictures
while getopts b:o:h c; do
    case $c in
    b) BUILD=$OPTARG ;;
    o) OUT=$OPTARG ;;
    h) sed -n '3,/^set -u/s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
    *) echo "make-pictures: unknown option (try -h)" >&2; exit 2 ;;
    esac
done
die() { echo "make-pictures: $*" >&2; exit 1; }
TOPOMAP=$BUILD/cli/topomap
[ -x "$TOPOMAP" ] || die "$TOPOMAP not found: build first, or give -b BUILDDIR"
mkdir -p "$OUT" || die "cannot create $OUT"
P=$src/tests/data/profiles
T=$src/topologies
run() { "$TOPOMAP" plot "$@" || die "topomap plot $1 failed"; }

run matrix --profile "$P/petsc-ex45-mg65-16.txt" --size 720 -o "$OUT/matrix.png" \
    --title "PETSc ex45 multigrid, 16 ranks: bytes from rank to rank"
BOX='t[000-003,008-011,016-019,024-027]'
run mapping --profile "$P/halo-8x8.txt" --topology "$T/torus-8x8x8.yaml" --nodes "$BOX" \
    --tasks-per-node 4 --compare block --algo auto -o "$OUT/mapping.png" \
    --title "8x8 halo, 4 ranks per node on a 4x4 box of the 8x8x8 torus: block (left), auto (right)"
run links --profile "$P/halo-8x8.txt" --topology "$T/torus-8x8x8.yaml" --nodes "$BOX" \
    --tasks-per-node 4 --compare block --algo auto -o "$OUT/links.png" \
    --title "The same: bytes on every link, block (left) and auto (right)"
run mapping --profile "$P/petsc-ex45-mg65-16.txt" --topology "$T/tianhe3-prototype.yaml" \
    --nodes 'cn[0000-0001,0048-0049,0096-0097,0384-0385]' --tasks-per-node 2 \
    --compare block --algo auto -o "$OUT/mapping-tianhe3.png" \
    --title "PETSc ex45, 16 ranks on 8 Tianhe-3 nodes of 3 chips: block (left), auto (right)"
run mapping --profile "$src/examples/petsc-ex45-mg65-128.txt" --topology "$T/fattree-plafrim2.yaml" \
    --nodes 'plafrim[015-030]' --tasks-per-node 8 --compare block --algo auto \
    -o "$OUT/mapping-plafrim.png" \
    --title "PETSc ex45, 128 ranks on 16 PlaFRIM nodes under two leaf switches: block (left), auto (right)"
# The emulated cluster's topology as netemu.sh writes it (a star of 4 nodes).
star=$(mktemp "${TMPDIR:-/tmp}/make-pictures.XXXXXX") || die "no temporary file"
sh "$here/netemu/netemu.sh" topology -n 4 -c 4 > "$star" || { rm -f "$star"; die "netemu.sh topology failed"; }
"$TOPOMAP" plot links --profile "$P/lammps-walls-16.txt" --topology "$star" --nodes 'n[1-4]' \
    --tasks-per-node 4 --compare block --algo auto -o "$OUT/benefit-links.png" \
    --title "LAMMPS between walls, 16 ranks on the emulated star of make benefit: bytes per link, block (left) and auto (right)"
rc=$?
rm -f "$star"
[ $rc -eq 0 ] || die "topomap plot links failed"
run bench --table "$here/bench-reference.txt" -o "$OUT/bench.png" \
    --title "The saved benchmark run (contrib/bench-reference.txt)"
run curves --table "$here/bench-manycore.txt" -o "$OUT/manycore-curves.png" \
    --title "Many-core nodes: auto's hop-bytes / block's at each time limit, Scotch's at its time (contrib/bench-manycore.txt)"

font=$(fc-match -f '%{file}' 'DejaVu Sans' 2>/dev/null || echo unknown)
printf 'cairo %s\nfont %s\n' "$(pkg-config --modversion cairo 2>/dev/null || echo unknown)" \
    "$(basename "$font")" > "$OUT/VERSIONS"
