#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The man pages agree with the code: every option that `topomap help CMD`
# lists is in cli/topomap.1, and in the SYNOPSIS of that command; every
# plugstack.conf key the plugin accepts (the "known:" list of spank/site.c)
# and every option it registers (spank/srun.c) is in doc/topomap-spank.8 and
# in doc/admin-guide.md.
#
#   manpages.sh [TOPOMAP_1 [TOPOMAP_SPANK_8 [ADMIN_GUIDE]]]  (to show a check can fail)
: "${top_srcdir:?top_srcdir must be set (make check sets it)}"
: "${top_builddir:?top_builddir must be set (make check sets it)}"
topomap=$top_builddir/cli/topomap
man1=${1:-$top_srcdir/cli/topomap.1}
man8=${2:-$top_srcdir/doc/topomap-spank.8}
guide=${3:-$top_srcdir/doc/admin-guide.md}
. "$top_srcdir/tests/tap.sh"
need_built "$topomap" cli/topomap
tap_tmpdir manpages
# A man page's text with roff's escaped hyphens and font changes undone.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/-/g' "$1"; }
plain "$man1" > "$tmp/man1"
plain "$man8" > "$tmp/man8"

# The commands, from `topomap help`'s list.
cmds=$("$topomap" help | sed -n '/^Commands:/,/^$/p' | awk '/^  [a-z]/ {print $1}' | grep -v '^help$')
[ -n "$cmds" ]
check $? "topomap help lists the commands ($(echo $cmds))"
for cmd in $cmds; do
    # Options are the --long names at the start of an option line ("  -o, --out FILE").
    opts=$("$topomap" help "$cmd" |
        sed -n -e 's/^  *-[A-Za-z], \(--[a-z][a-z0-9-]*\).*/\1/p' -e 's/^  *\(--[a-z][a-z0-9-]*\).*/\1/p' |
        sort -u)
    missing=
    for o in $opts; do
        grep -qE -e "$o([^a-z0-9-]|$)" "$tmp/man1" || missing="$missing $o"
    done
    [ -n "$opts" ] && [ -z "$missing" ]
    check $? "every option of 'topomap help $cmd' is in topomap.1 ($(echo $opts | wc -w) options)${missing:+; missing:$missing}"
done

# Each command's SYNOPSIS names every option of its help (the long name, or
# the short one the help pairs it with): from ".B topomap CMD" to the next
# command's line.
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$tmp/man1" > "$tmp/syn"
for cmd in $cmds; do
    block=$(awk -v c="topomap $cmd" '/^\.BR? "?topomap / { cur = $0 } index(cur, c)' "$tmp/syn")
    missing=
    for line in $("$topomap" help "$cmd" |
        sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\1\2/p' | tr -d ' '); do
        long=${line#-?,}
        short=${line%%,*}
        [ "$long" = --help ] && continue
        echo "$block" | grep -qE -e "$long([^a-z0-9-]|\$)" && continue
        [ "$short" != "$line" ] && echo "$block" | grep -qE -e "(^|[^a-z-])$short([^a-z]|\$)" && continue
        missing="$missing $long"
    done
    [ -n "$block" ] && [ -z "$missing" ]
    check $? "the SYNOPSIS of topomap $cmd in topomap.1 names its options${missing:+; missing:$missing}"
done

# The plugstack.conf keys the plugin accepts.
keys=$(tr '\n' ' ' < "$top_srcdir/spank/site.c" | sed -n 's/.*(known: \([a-z_, "]*\)).*/\1/p' |
    tr -d '" ' | tr ',' ' ')
[ -n "$keys" ]
check $? "spank/site.c lists the keys it accepts ($keys)"
for f in man8 guide; do
    if [ $f = man8 ]; then file="$tmp/man8"; name=topomap-spank.8; else file=$guide; name=admin-guide.md; fi
    missing=
    for k in $keys; do
        grep -qe "\\b$k=" "$file" || missing="$missing $k="
    done
    [ -z "$missing" ]
    check $? "every plugstack.conf key is in $name${missing:+; missing:$missing}"
done

# The options the plugin registers with srun, sbatch and salloc.
sopts=$(sed -n 's/^ *{\.name = "\(topomap[a-z-]*\)",.*/\1/p' "$top_srcdir/spank/topomap.c" | sort -u)
missing=
for o in $sopts; do
    grep -qE -e "--$o([^a-z-]|$)" "$tmp/man8" || missing="$missing --$o"
    grep -qE -e "--$o([^a-z-]|$)" "$top_srcdir/doc/user-guide.md" || missing="$missing --$o(user-guide)"
done
[ -n "$sopts" ] && [ -z "$missing" ]
check $? "every srun option of the plugin is in topomap-spank.8 and the user guide ($(echo $sopts))${missing:+; missing:$missing}"
tap_done
