#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# release-packages.sh: the Debian packages of topomap built inside the root of
# another Debian release, against that release's Slurm, and tried there; run
# by contrib/check-release.sh inside the root (as root).
#
#   sh contrib/release-packages.sh SRCDIR TRS
#
# SRCDIR: a clean copy of the tree (dpkg-buildpackage writes the .debs beside
# it). Checks, in TAP on standard output and as automake test results in TRS
# (contrib/test-summary.sh counts them): the packages build; the plugin's
# package depends on exactly the root's Slurm release (debian/rules:
# slurm-wlm-basic-plugins >= R~ and << NEXT~); they install with apt; the
# installed `topomap --version` names that release; the root's srun loads the
# installed plugin (its options in `srun --help`) and a job script's
# `#SBATCH --topomap` is accepted by sbatch's option parsing. The packages are
# purged at the end, so the cached root stays as it was.
set -u
src=${1:?SRCDIR}
trs=${2:?TRS}
n=0
failed=0
: > "$trs"
t() { # STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then r=PASS; echo "ok $n - $2"; else r=FAIL; failed=$((failed + 1)); echo "not ok $n - $2"; fi
    echo ":test-result: $r $2" >> "$trs"
}
out=$(dirname "$src")
rel=$(dpkg-query -W -f='${Version}' libslurm-dev | sed 's/^\([0-9]*\)\.\([0-9]*\)\..*/\1.\2/')
(cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/dpkg-buildpackage.log" 2>&1
t $? "dpkg-buildpackage -b -us -uc against Slurm $rel"
[ $failed -eq 0 ] || { tail -20 "$out/dpkg-buildpackage.log" | sed 's/^/# /'; echo "1..$n"; exit 1; }
deb=$(ls "$out"/slurm-spank-topomap_*.deb 2> /dev/null | head -1)
dep=$(dpkg-deb -f "$deb" Depends 2> /dev/null)
echo "$dep" | grep -q "slurm-wlm-basic-plugins (>= $rel~)" && echo "$dep" | grep -q "slurm-wlm-basic-plugins (<< "
t $? "slurm-spank-topomap depends on Slurm $rel exactly ($(echo "$dep" | grep -o 'slurm-wlm-basic-plugins[^,]*' | tr '\n' ' '))"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$out"/*.deb > "$out/apt.log" 2>&1
t $? "the packages install with apt"
/usr/bin/topomap --version 2>&1 | grep -q "^SPANK plugin built for Slurm $rel\$"
t $? "the installed topomap --version: $(/usr/bin/topomap --version 2>&1 | sed -n 2p)"
so=$(dpkg -L slurm-spank-topomap 2> /dev/null | grep '/topomap\.so$' | head -1)
tmp=$(mktemp -d)
printf 'ClusterName=pkg\nSlurmctldHost=localhost\nSlurmctldPort=16998\nNodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1 Default=YES\nPlugStackConfig=%s/plugstack.conf\n' \
    "$tmp" > "$tmp/slurm.conf"
echo "required $so" > "$tmp/plugstack.conf"
SLURM_CONF=$tmp/slurm.conf srun --help 2>&1 | grep -q -- '--topomap'
t $? "the root's srun loads the installed plugin ($so): --topomap in srun --help"
printf '#!/bin/sh\n#SBATCH --topomap=auto\ntrue\n' > "$tmp/job.sh"
# No controller runs: sbatch gets past its options, then fails to reach it.
SLURM_CONF=$tmp/slurm.conf timeout 20 sbatch "$tmp/job.sh" > "$tmp/sbatch.out" 2>&1
! grep -q "unrecognized option" "$tmp/sbatch.out"
t $? "sbatch accepts #SBATCH --topomap=auto with the installed plugin"
rm -rf "$tmp"
pkgs=$(for f in "$out"/*.deb; do dpkg-deb -f "$f" Package; done)
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $pkgs > "$out/purge.log" 2>&1
t $? "the packages purge, leaving the root as it was"
echo "1..$n"
[ $failed -eq 0 ]
