#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Split the one-file libtopomap/topomap.h into the umbrella topomap.h and
its topic headers libtopomap/topomap/*.h (doc/api.md#headers), section by
section, without changing a declaration: each section between two banners

    /* ====...==== */
    /* Title                                                              */
    /* ====...==== */

becomes one header, picked by the title's first words (TOPICS below); what
comes before the first banner (version, the BLAS pool) stays in topomap.h,
which then includes the topic headers in the sections' order.

    contrib/split-topomap-h.py    (from anywhere in the checkout)

Re-runnable after a merge that brought a one-file topomap.h back (a branch
made before the split): it splits that one. Says so and changes nothing
when topomap.h is split already. Stops, changing nothing, on a banner it
does not know (add its title to TOPICS)."""
import os
import re
import subprocess
import sys
import textwrap

# Title prefix -> (header, what it declares: the umbrella's index line).
TOPICS = [
    ("Input limits", "base.h", "input limits, strict number parsers, printable strings"),
    ("Hostlists", "hostlist.h", "Slurm hostlist expressions"),
    ("Communication profiles", "profile.h", "communication profiles: load, create, write, CSR view"),
    ("Training jobs", "training.h", "training jobs' layouts and their synthesized profiles"),
    ("Topologies", "topology.h", "machines: networks, node levels, GPUs, routes"),
    ("Allocations", "alloc.h", "allocations: the slots a job may use"),
    ("Mapping algorithms", "mapping.h", "topomap_opts_t, topomap_map() and the algorithms"),
    ("Metrics", "metrics.h", "topomap_metrics_t, eval, congestion, GPU fabrics, statistics"),
    ("Process grids", "grid.h", "process grids: detection, rescaling, topomap_profile_adapt()"),
    ("Mapping files", "mapfile.h", "mapping files: write and read"),
    ("Profile store", "store.h", "the profile store"),
    ("Importers", "import.h", "profiles recorded by other tools (Open MPI's monitoring)"),
]
BANNER = "/* " + "=" * 72 + " */"
ONE_FILE = """ * The one public header of libtopomap. Everything it declares is prefixed
 * topomap_ / TOPOMAP_. Conventions (hwloc's):"""
UMBRELLA = """ * The public header of libtopomap: this umbrella and the topic headers of
 * its topomap/ directory, which it includes (listed at its end; include
 * this one). Everything they declare is prefixed topomap_ / TOPOMAP_.
 * Conventions (hwloc's):"""


def topic(title):
    for prefix, name, what in TOPICS:
        if title.startswith(prefix):
            return name, what
    sys.exit("split-topomap-h: no header for the section '%s': add it to TOPICS" % title)


def main():
    top = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    path = os.path.join(top, "libtopomap", "topomap.h")
    lines = open(path).read().split("\n")
    # A banner, title lines, a banner: a section's header.
    sections, i = [], 0
    while i < len(lines):
        if lines[i] != BANNER:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != BANNER:
            j += 1
        title = " ".join(re.sub(r"^/\* *| *\*/$", "", l).strip() for l in lines[i + 1:j])
        sections.append((i, j + 1, title))
        i = j + 1
    if not sections:
        print("split-topomap-h: libtopomap/topomap.h has no sections: split already")
        return
    end = max(i for i, l in enumerate(lines) if l.startswith("#if defined(__GNUC__)"))
    bounds = [s[0] for s in sections[1:]] + [end]
    out = {}
    for (i, body, title), stop in zip(sections, bounds):
        name, what = topic(title)
        guard = "TOPOMAP_API_" + name[:-2].upper() + "_H"
        text = lines[body:stop]
        while text and not text[0].strip():
            text.pop(0)
        while text and not text[-1].strip():
            text.pop()
        head = ["/* SPDX-License-Identifier: BSD-3-Clause */",
                "/**",
                " * @file topomap/%s" % name,
] + textwrap.wrap("libtopomap: %s." % title, 76, initial_indent=" * @brief ",
                          subsequent_indent=" *        ") + [
                " *",
                " * Part of <topomap.h>, which includes it with the others in order:",
                " * include <topomap.h>, not this file.",
                " */",
                "#ifndef " + guard,
                "#define " + guard,
                "#ifndef TOPOMAP_H",
                '#error "include <topomap.h>, not <topomap/%s>"' % name,
                "#endif",
                ""]
        out[name] = (what, head + text + ["", "#endif /* %s */" % guard, ""])
    index = ["", "/* The topics, in this order (doc/api.md#headers): */"]
    for name, (what, _) in out.items():
        index.append('#include "topomap/%s" /* %s */' % (name, what))
    index.append("")
    umbrella = "\n".join(lines[:sections[0][0]]).replace(ONE_FILE, UMBRELLA).split("\n")
    while umbrella and not umbrella[-1].strip():
        umbrella.pop()
    umbrella = umbrella + index + lines[end:]
    os.makedirs(os.path.join(top, "libtopomap", "topomap"), exist_ok=True)
    for name, (_, text) in out.items():
        with open(os.path.join(top, "libtopomap", "topomap", name), "w") as f:
            f.write("\n".join(text))
    with open(path, "w") as f:
        f.write("\n".join(umbrella))
    print("split-topomap-h: topomap.h and %d topic headers: %s" % (len(out), " ".join(out)))


if __name__ == "__main__":
    main()
