#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtopomap's files follow its layers (doc/architecture.md, "Inside
# libtopomap"), checked on the built objects (TAP):
#  - calls: the graph of which object calls which (an undefined symbol of
#    one .o that another defines, nm) has no circle but the one documented
#    object split by concern, the topology (topology.c, topo_nodetypes.c,
#    topo_gpu.c);
#  - headers: no file includes the private header named after a file above
#    it (N.h or N_priv.h of N.c, where N calls the file, directly or not,
#    and the file does not call N): the bottom of a family includes no
#    header of the top (the exchange engine's xchg.h apart from the
#    refinement's refine.h, the hostlist builder's hostlist.h apart from the
#    topology model's topology_priv.h).
#
#   layers.sh [DIR]   (another directory of objects and sources, to show that
#                      the check can fail)
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
. "$top_srcdir/tests/tap.sh"
need nm
src=${1:-$top_srcdir/libtopomap}
obj=${1:-$top_builddir/libtopomap}
# The documented circle: one object in three files.
allowed="topo_gpu topo_nodetypes topology"
tap_tmpdir layers

# "FILE KIND SYMBOL" for every object of libtopomap-internal (PIC objects
# under .libs/ with a shared build, beside the sources without).
found=0
for o in "$obj"/.libs/libtopomap_internal_la-*.o "$obj"/libtopomap_internal_la-*.o \
    "$obj"/*.o; do
    [ -e "$o" ] || continue
    f=$(basename "$o" .o)
    f=${f#libtopomap_internal_la-}
    [ -e "$src/$f.c" ] || continue
    grep -qx "$f" "$tmp/files" 2> /dev/null && continue
    echo "$f" >> "$tmp/files"
    found=$((found + 1))
    nm "$o" | awk -v f="$f" 'NF == 2 && $1 == "U" { print f, "U", $2 }
        NF == 3 && $2 ~ /^[TDBRGS]$/ { print f, "D", $3 }' >> "$tmp/syms"
done
if [ "$found" -lt 10 ]; then
    echo "1..0 # SKIP libtopomap's objects are not built in $obj"
    exit 0
fi
# Edges "A B": A calls (or reads) something B defines.
awk '$2 == "D" { def[$3] = $1 } $2 == "U" { u[++n] = $1 " " $3 }
     END { for (i = 1; i <= n; i++) { split(u[i], a, " ");
               if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' \
    "$tmp/syms" | sort -u > "$tmp/edges"
# Reachability "A B": A reaches B (transitively).
awk '{ out[$1] = out[$1] " " $2; node[$1]; node[$2] }
     END { for (s in node) { delete seen; k = 0; q[++k] = s; h = 1;
               while (h <= k) { v = q[h++]; m = split(out[v], nx, " ");
                   for (i = 1; i <= m; i++) if (!(nx[i] in seen)) { seen[nx[i]]; q[++k] = nx[i] } }
               for (v in seen) print s, v } }' "$tmp/edges" | sort -u > "$tmp/reach"
check $? "the call graph of $found objects ($(wc -l < "$tmp/edges") arrows)"

# Circles: files that reach each other, grouped.
awk 'NR == FNR { r[$1 " " $2]; next } { if (($2 " " $1) in r && $1 != $2) print $1, $2 }' \
    "$tmp/reach" "$tmp/reach" > "$tmp/mutual"
awk '{ g[$1] = g[$1] " " $2 } END { for (f in g) { n = split(g[f], a, " "); a[++n] = f;
         # sort the members for a canonical name
         for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
         s = a[1]; for (i = 2; i <= n; i++) s = s " " a[i]; print s } }' "$tmp/mutual" |
    sort -u > "$tmp/circles"
grep -vxF "$allowed" "$tmp/circles" > "$tmp/bad"
[ ! -s "$tmp/bad" ]
check $? "no circle of calls but the topology object ($(wc -l < "$tmp/bad") others)"
while read -r c; do
    echo "# circle: $c"
    for a in $c; do for b in $c; do
        grep -qx "$a $b" "$tmp/edges" && echo "#   $a -> $b: $(awk -v a="$a" -v b="$b" \
            'NR == FNR { if ($2 == "D" && $1 == b) d[$3]; next } $1 == a && $2 == "U" && ($3 in d) { printf "%s ", $3 }' \
            "$tmp/syms" "$tmp/syms")"
    done; done
done < "$tmp/bad"
grep -qxF "$allowed" "$tmp/circles"
check $? "the topology object is still one circle ($allowed; else update this test and doc/architecture.md)"

# Includes going up: F includes N.h or N_priv.h, N reaches F, F does not reach N.
: > "$tmp/up"
for c in "$src"/*.c; do
    f=$(basename "$c" .c)
    grep -qx "$f" "$tmp/files" || continue
    for h in $(sed -n 's/^#include "\([a-z0-9_]*\)\.h".*/\1/p' "$c"); do
        owner=${h%_priv}
        [ "$owner" = "$f" ] && continue
        grep -qx "$owner" "$tmp/files" || continue
        if grep -qx "$owner $f" "$tmp/reach" && ! grep -qx "$f $owner" "$tmp/reach"; then
            echo "# $f.c includes $h.h, the header of $owner.c, which is above it (calls it)" >> "$tmp/up"
        fi
    done
done
[ ! -s "$tmp/up" ]
check $? "no file includes the header of a file above it ($(wc -l < "$tmp/up"))"
cat "$tmp/up"
tap_done
