#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libtopomap-reorder (reorder) on real MPI programs (tests/mpi/reorder.c)
# under Open MPI and MPICH, 8 ranks oversubscribed on this host, which
# TOPOMAP_REORDER_HOSTS (the library's test hook) spreads over the nodes
# n1..n4 of the shipped topology local-4node, cyclically (the worst case for
# neighbours in rank order). For MPI_Cart_create, MPI_Dist_graph_create_adjacent
# (weighted and not), MPI_Dist_graph_create (weighted) and MPI_Graph_create: reorder = 0 gives the identity;
# reorder = 1 gives a communicator that is valid for the vertex each rank
# plays (the program checks coordinates, shifts, neighbour lists and a
# neighbour exchange, and that every rank agrees), and the graph's hop-bytes
# over the real placement are those of `topomap map --algo auto` on the same
# graph and allocation. Error paths (no topology, unknown host) give MPI's own
# numbering. Fortran (tests/mpi/reorder_f.f90, `use mpi`): MPI_CART_CREATE,
# MPI_DIST_GRAPH_CREATE_ADJACENT (with the Fortran MPI_UNWEIGHTED and with
# weights) and MPI_DIST_GRAPH_CREATE give valid communicators with the
# numbering of the C program. An MPI library whose compiler, launcher or build is missing is
# skipped, with the reason.
set -u
case ${TOPOMAP_SKIP_MPI:-} in '' | 0) ;; *) echo "1..0 # SKIP TOPOMAP_SKIP_MPI=$TOPOMAP_SKIP_MPI"; exit 0 ;; esac
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$(pwd)/..}"
rdir=$top_builddir/reorder
topomap=$top_builddir/cli/topomap
. "$top_srcdir/tests/tap.sh"
tap_tmpdir reorder
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 60"
HOSTS=n1,n2,n3,n4,n1,n2,n3,n4
NP=8

skip=
# t DESCRIPTION COMMAND...: one test, passed when COMMAND succeeds; its output
# explains a failure. Under $skip, a skip with the reason.
t() {
    tdesc=$1
    shift
    if [ -n "$skip" ]; then
        skip "$tdesc: $skip"
        return 0
    fi
    "$@" >"$tmp/why" 2>&1
    trc=$?
    check $trc "$tdesc"
    [ $trc -eq 0 ] || sed 's/^/#   /' "$tmp/why" | head -n 30
}

# run NAME MODE REORDER [VAR=VALUE...]: the program under $launcher, with the
# library preloaded unless NOLIB=1; output in $tmp/NAME.out, graph in NAME.edges.
# MODE fortran (its Cartesian case) or f-*: the Fortran program.
run() {
    rname=$1 rmode=$2 rre=$3 prog=$tmp/prog-$fl
    case $rmode in fortran | f-*) prog=$tmp/progf-$fl ;; esac
    shift 3
    pre="LD_PRELOAD=$so"
    case " $* " in *" NOLIB=1 "*) pre="NOLIB=1" ;; esac
    case $fl in
    openmpi) set -- mpiexec.openmpi --oversubscribe -n $NP env "$pre" "$@" ;;
    mpich) set -- mpiexec.mpich -n $NP env "$pre" "$@" ;;
    esac
    for try in 1 2; do
        $TO "$@" LD_LIBRARY_PATH="$top_builddir/libtopomap/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            TOPOMAP_TOPOLOGY_PATH="$top_srcdir/topologies" TOPOMAP_REORDER_VERBOSE=1 \
            "$prog" "$rmode" "$rre" "$tmp/$rname.edges" >"$tmp/$rname.out" 2>&1
        # MPICH 4.0 on this oversubscribed host very rarely loses a process
        # to SIGSEGV with no output at all (1 run in hundreds, also with
        # reorder = 0, where the library only calls PMPI): such a run is
        # started once more, and said; a second crash is a failure.
        grep -q 'BAD TERMINATION' "$tmp/$rname.out" && ! grep -q '^topomap-reorder:' "$tmp/$rname.out" ||
            break
        [ $try = 1 ] && echo "# $lib: $rname: a process died before any output; run again" &&
            cp "$tmp/$rname.out" "$tmp/$rname.out.1"
    done
}
perm() { sed -n 's/^perm //p' "$tmp/$1.out"; }
# the run went through and the program found no error
clean() {
    cat "$tmp/$1.out"
    grep -q '^errors 0$' "$tmp/$1.out" && ! grep -q FAIL "$tmp/$1.out"
}
identity() { clean "$1" && [ "$(perm "$1")" = "0 1 2 3 4 5 6 7" ]; }
said() { cat "$tmp/$1.out"; grep "^topomap-reorder: .*$2" "$tmp/$1.out"; }
same_perm() { cat "$tmp/$1.out" "$tmp/$2.out"; clean "$1" && [ "$(perm "$1")" = "$(perm "$2")" ]; }
bad_topology() { identity "$1" && said "$1" "no such topology"; }
one_line() { [ "$(grep -c '^topomap-reorder:' "$tmp/$1.out")" = 1 ]; }
# a permutation of 0..NP-1 that is not the identity
reordered() {
    clean "$1" || return 1
    p=$(perm "$1")
    [ "$p" != "0 1 2 3 4 5 6 7" ] &&
        [ "$(echo "$p" | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 " ]
}
# hop-bytes of the graph where the ranks really run (vertex v on the host of
# world rank perm[v]) = topomap map --algo auto's = the library's own line.
same_hop_bytes() {
    echo "$HOSTS" | tr ',' '\n' >"$tmp/hosts"
    for w in $(perm "$1"); do sed -n "$((w + 1))p" "$tmp/hosts"; done >"$tmp/$1.hostfile"
    topo=$top_srcdir/topologies/local-4node.yaml
    real=$("$topomap" eval --profile "$tmp/$1.edges" --topology "$topo" \
        --mapping "$tmp/$1.hostfile" --mapping-format hostfile |
        awk '$1 == "hop-bytes" { print $2 }')
    auto=$("$topomap" map --profile "$tmp/$1.edges" --topology "$topo" \
        --nodes 'n[1-4]' --tasks-per-node 2 --algo auto -o /dev/null 2>&1 |
        sed -n 's/.*; hop-bytes \([0-9.e+]*\) .*/\1/p')
    mine=$(sed -n 's/.* -> \([0-9.e+]*\) (auto).*/\1/p' "$tmp/$1.out")
    echo "real placement $real, topomap map --algo auto $auto, library $mine"
    [ -n "$real" ] && [ "$real" = "$auto" ] && [ "$real" = "$mine" ]
}

for fl in openmpi mpich; do
    case $fl in
    openmpi) cc=mpicc.openmpi fc=mpif90.openmpi launcher=mpiexec.openmpi lib="Open MPI" ;;
    mpich) cc=mpicc.mpich fc=mpif90.mpich launcher=mpiexec.mpich lib="MPICH" ;;
    esac
    so=$rdir/libtopomap-reorder-$fl.so
    skip=
    if ! command -v $cc >/dev/null 2>&1; then skip="$lib: no $cc"
    elif ! command -v $launcher >/dev/null 2>&1; then skip="$lib: no $launcher"
    elif [ ! -f "$so" ]; then skip="$lib: $so not built"
    elif ! $cc -O2 -o "$tmp/prog-$fl" "$top_srcdir/tests/mpi/reorder.c" 2>"$tmp/why"; then
        skip="$lib: tests/mpi/reorder.c does not build"
    fi
    if [ -z "$skip" ]; then
        export TOPOMAP_REORDER_HOSTS=$HOSTS TOPOMAP_TOPOLOGY=local-4node
        for m in cart adj adjw distw graph; do
            run $m-1 $m 1
        done
        run cart-0 cart 0
        run adjw-0 adjw 0
        run cart-mpi cart 1 NOLIB=1
        run adjw-mpi adjw 1 NOLIB=1
        run adjw-notopo adjw 1 TOPOMAP_TOPOLOGY=
        run cart-unknown cart 1 TOPOMAP_REORDER_HOSTS=n1,n2,zz9,n4,n1,n2,n3,n4
        run graph-badtopo graph 1 TOPOMAP_TOPOLOGY=no-such-machine
        fskip=
        if ! command -v $fc >/dev/null 2>&1; then fskip="$lib: no $fc"
        elif ! $fc -O2 -o "$tmp/progf-$fl" "$top_srcdir/tests/mpi/reorder_f.f90" 2>"$tmp/why"
        then fskip="$lib: tests/mpi/reorder_f.f90 does not build"
        else
            run fortran-1 fortran 1
            for m in adj adjw distw; do
                run f-$m-1 f-$m 1
            done
        fi
    fi
    for m in cart adj adjw distw graph; do
        t "$lib: $m, reorder = 1: reordered, valid for the vertex each rank plays" \
            reordered $m-1
        t "$lib: $m: hop-bytes of the real placement = topomap map --algo auto's" \
            same_hop_bytes $m-1
    done
    t "$lib: cart, reorder = 0: identity" identity cart-0
    t "$lib: adjw, reorder = 0: identity" identity adjw-0
    t "$lib: reorder = 0 said (verbose)" said cart-0 \
        "MPI_Cart_create: MPI's numbering kept (reorder = 0)"
    t "$lib: no TOPOMAP_TOPOLOGY: MPI's numbering" same_perm adjw-notopo adjw-mpi
    t "$lib: no TOPOMAP_TOPOLOGY: said" said adjw-notopo "TOPOMAP_TOPOLOGY is not set"
    t "$lib: unknown host: MPI's numbering" same_perm cart-unknown cart-mpi
    t "$lib: unknown host: said" said cart-unknown "host not in the topology: zz9"
    t "$lib: unknown topology name: identity, said" bad_topology graph-badtopo
    t "$lib: one verbose line per call" one_line adjw-1
    [ -z "$skip" ] && skip=$fskip
    t "$lib: Fortran MPI_CART_CREATE: reordered, valid" reordered fortran-1
    t "$lib: Fortran MPI_CART_CREATE: the C program's numbering" same_perm fortran-1 cart-1
    for m in adj adjw distw; do
        case $m in
        adj) fn="MPI_DIST_GRAPH_CREATE_ADJACENT, MPI_UNWEIGHTED" ;;
        adjw) fn="MPI_DIST_GRAPH_CREATE_ADJACENT, weighted" ;;
        distw) fn="MPI_DIST_GRAPH_CREATE, weighted" ;;
        esac
        t "$lib: Fortran $fn: reordered, valid" reordered f-$m-1
        t "$lib: Fortran $fn: the C program's numbering" same_perm f-$m-1 $m-1
    done
done
tap_done
