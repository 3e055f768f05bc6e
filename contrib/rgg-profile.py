#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A random geometric graph profile (about 6 neighbours per rank) as an edge
list: the irregular input of the scaling measurements (doc/scaling.md).

Usage: rgg-profile.py N [SEED] > PROFILE.txt
bench_rgg of contrib/bench_gen.c (topomap-bench's rgg-N) transcribed, SEED
defaulting to its 20240607 (not compared entry by entry): N points uniform in the unit cube, from
splitmix64; two ranks within distance r (N 4/3 pi r^3 = 6) exchange
floor(1 + 1e4 (1 - d / r)) bytes each way in one message."""
import math
import sys

MASK = (1 << 64) - 1


def points(n, seed):
    st = seed
    out = []
    for _ in range(3 * n):
        st = (st + 0x9E3779B97F4A7C15) & MASK
        z = st
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out.append((z >> 11) * 2.0 ** -53)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240607
    xyz = points(n, seed)
    r = (3 * 6.0 / (4 * math.pi * max(n, 1))) ** (1 / 3)
    g = min(max(int(1 / r), 1), 1024)
    cells = {}
    for i in range(n):
        c = tuple(min(int(xyz[3 * i + d] * g), g - 1) for d in range(3))
        cells.setdefault(c, []).append(i)
    out = sys.stdout
    out.write("# nranks=%d\n# application=rgg-%d\n" % (n, n))
    buf = []
    r2 = r * r
    for (cx, cy, cz), members in sorted(cells.items()):
        near = []
        for dz in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    near.extend(cells.get((cx + dx, cy + dy, cz + dz), ()))
        for i in members:
            xi, yi, zi = xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]
            for j in near:
                if j == i:
                    continue
                d2 = (xi - xyz[3 * j]) ** 2 + (yi - xyz[3 * j + 1]) ** 2 + (zi - xyz[3 * j + 2]) ** 2
                if d2 < r2:
                    buf.append("%d %d %d 1\n" % (i, j, math.floor(1 + 1e4 * (1 - math.sqrt(d2) / r))))
        if len(buf) > 65536:
            out.write("".join(buf))
            buf = []
    out.write("".join(buf))


main()
