#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A shuffled periodic 3D stencil profile (6 neighbours per rank) as an edge
list: the large inputs of the profile I/O measurements (README).

Usage: stencil-profile.py X Y Z [SEED] > PROFILE.txt
Ranks are the grid points in a random order (SEED, default 1; 0: in order);
each sends 65536 bytes in 16 messages to each of its 6 neighbours."""
import random
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    x, y, z = (int(a) for a in sys.argv[1:4])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    n = x * y * z
    perm = list(range(n))
    if seed:
        random.Random(seed).shuffle(perm)
    out = sys.stdout
    out.write("# nranks=%d\n# application=stencil-%dx%dx%d\n" % (n, x, y, z))
    buf = []
    for c in range(z):
        for b in range(y):
            for a in range(x):
                s = perm[a + x * (b + y * c)]
                for q in ((a - 1) % x, b, c), ((a + 1) % x, b, c), (a, (b - 1) % y, c), \
                         (a, (b + 1) % y, c), (a, b, (c - 1) % z), (a, b, (c + 1) % z):
                    buf.append("%d %d 65536 16\n" % (s, perm[q[0] + x * (q[1] + y * q[2])]))
            if len(buf) > 65536:
                out.write("".join(buf))
                buf = []
    out.write("".join(buf))


main()
