#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build the kernel that every test boots, with kunit.py, in
# $OBJ.  One configuration serves KUnit and the selftests guest: the
# series' kernel/sched/.kunitconfig, kunit/debug.config and
# selftests/guest.config, merged by kunit.py.  A second run with nothing
# changed rebuilds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

banner "building the kernel in $OBJ"
cd "$TREE"
python3 tools/testing/kunit/kunit.py build "${KUNIT_ARGS[@]}"
make -s ARCH="$ARCH" O="$OBJ" headers
