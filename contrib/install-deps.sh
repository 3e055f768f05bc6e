#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Install what topomap needs to build, test and demo on Debian 12 (run as root,
# or it uses sudo). The single list of the project's Debian dependencies.
# cairo draws the pictures of `topomap plot` (optional at build time); the
# DejaVu fonts, fontconfig's fc-match and xmllint serve their tests; clang
# builds the libFuzzer harnesses of tests/fuzz (run by .ci/run); libmetis-doc
# holds the METIS example meshes (copter2, mdual, 4elt) of `make bench`;
# OpenBLAS is the BLAS/LAPACK of the eigensolves (spectral_cluster.c pins it
# to one thread; Debian's reference BLAS gives other last bits, see
# doc/limits.md#limits-and-known-gaps);
# ss (iproute2) and flock (util-linux) serve the local Slurm cluster's tests;
# libfuse3 builds tests/slowfs, the slow filesystem of tests/store_slow.sh;
# debootstrap makes the Debian 13 root where contrib/check-release.sh tests
# against Slurm 24.11, and this same list is installed inside it.
#
#   contrib/install-deps.sh             what the build, make check and CI need
#   contrib/install-deps.sh --benefit   also what `make benefit` needs (the
#                                       emulated cluster and its applications)
#   contrib/install-deps.sh --packaging also what the packages need
#                                       (contrib/check-packages.sh): the Debian
#                                       package tools, rpm, debootstrap, lintian
#   contrib/install-deps.sh --runtime   only the libraries an installed topomap
#                                       runs with (a production node: no
#                                       compilers, Slurm daemons or MPIs)
# The options combine (--benefit --packaging); --runtime stands alone.
set -e
PKGS="build-essential autoconf automake libtool pkg-config
      libhwloc-dev hwloc libmetis-dev libyaml-dev zlib1g-dev libsuitesparse-dev
      liblapacke-dev libopenblas-dev libarpack2-dev
      libslurm-dev slurm-wlm slurmctld slurmd slurm-client munge
      mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran
      libscotch-dev
      libcairo2-dev fonts-dejavu-core fontconfig libxml2-utils
      clang libmetis-doc
      iproute2 util-linux debootstrap libfuse3-dev"
# make benefit only (contrib/netemu/): ip, tc and bridge (iproute2), nsenter
# and unshare (util-linux), and the applications it times: LAMMPS and GROMACS
# (both built against Debian's Open MPI).
BENEFIT_PKGS="lammps gromacs"
# Packages only (debian/, topomap.spec, contrib/check-packages.sh):
# dpkg-buildpackage and debhelper (compat 13, dh-autoreconf), rpmbuild from
# Debian's rpm, debootstrap for the clean root the .debs are installed into,
# and lintian.
PACKAGING_PKGS="dpkg-dev debhelper dh-autoreconf fakeroot rpm debootstrap lintian"
# What the installed libtopomap.so, topomap and the plugin are linked with
# (objdump -p: NEEDED), Debian 12's package names: hwloc, libyaml, zlib,
# METIS, CHOLMOD (SuiteSparse), LAPACKE with OpenBLAS, ARPACK, the OpenMP
# runtime, cairo (topomap plot). Slurm and the MPI are the site's own.
RUNTIME_PKGS="libhwloc15 libyaml-0-2 zlib1g libmetis5 libcholmod3 liblapacke libopenblas0
      libarpack2 libgomp1 libcairo2"
for opt in "$@"; do
    case $opt in
    --benefit) PKGS="$PKGS $BENEFIT_PKGS" ;;
    --packaging) PKGS="$PKGS $PACKAGING_PKGS" ;;
    --runtime) PKGS=$RUNTIME_PKGS ;;
    *) echo "install-deps: unknown option '$opt' (--benefit adds what make benefit needs," \
            "--packaging what the Debian and RPM packages need, --runtime only the" \
            "libraries an installed topomap runs with)" >&2; exit 2 ;;
    esac
done
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    $SUDO apt-get update -q
    # Do not let package scripts start system-wide munged/slurm daemons: the
    # tests and the demo start their own private cluster.
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $SUDO apt-get install -y -q --no-install-recommends $missing
fi
