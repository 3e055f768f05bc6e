# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that need two unprivileged users (the profile store's
# scopes): users_setup creates them (as root, with useradd; names unique to
# this run, so that concurrent runs do not share them) and users_cleanup
# removes what users_setup created. Without root or the tools, users_setup
# returns 1 with the reason in $users_why, for a visible skip.
#   users_setup PREFIX [PATH...]  sets U1 U2 (names), UID1 UID2, G1 G2 (primary
#                       gids); fails (a visible skip) when U1 cannot read each
#                       PATH (a build inside a private directory, e.g. mktemp -d)
#   as_user USER CMD... runs CMD as USER (runuser, the environment kept)
users_made=
users_setup() {
    users_why=
    if [ "$(id -u)" != 0 ]; then
        users_why="not root: cannot create two test users"
        return 1
    fi
    for b in useradd userdel runuser; do
        command -v $b > /dev/null 2>&1 || { users_why="$b is not installed (apt-get install passwd util-linux)"; return 1; }
    done
    U1=$1-$$-a
    U2=$1-$$-b
    for u in "$U1" "$U2"; do
        if ! useradd -M -N -r -s /bin/sh "$u" > /dev/null 2>&1; then
            users_why="useradd $u failed"
            users_cleanup
            return 1
        fi
        users_made="$users_made $u"
    done
    UID1=$(id -u "$U1") UID2=$(id -u "$U2") G1=$(id -g "$U1") G2=$(id -g "$U2")
    shift
    for p in "$@"; do
        if ! runuser -u "$U1" -- test -r "$p" > /dev/null 2>&1; then
            users_why="$p is out of an unprivileged user's reach (a parent directory is private)"
            users_cleanup
            return 1
        fi
    done
    return 0
}
users_cleanup() {
    for u in $users_made; do userdel "$u" > /dev/null 2>&1; done
    users_made=
}
as_user() {
    u=$1
    shift
    runuser -u "$u" -- "$@"
}
