#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Generate ./configure from configure.ac (needs autoconf, automake, libtool).
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
