#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make selftests [TESTS="sched_wait_block:sched_wait_block_test"]:
# build the kselftest TARGETS listed in selftests/targets statically
# against the patched tree's headers, install them with kselftest's own
# "install", pack them into an initramfs, boot it, and let
# run_kselftest.sh run them.  Writes "pass fail skip" (test programs)
# to $BUILD/results/selftests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD/results" "$GUEST"
echo "0 1 0" > "$BUILD/results/selftests"	# until proven otherwise
"$TOP"/ci/build.sh

banner "building and installing selftests (static, patched headers)"
targets=$(grep -v '^#' "$TOP/selftests/targets" | tr '\n' ' ')
rm -rf "$KST"
LDFLAGS=-static make -s -C "$TREE/tools/testing/selftests" \
	O="$BUILD/kselftest-obj" TARGETS="$targets" \
	KHDR_INCLUDES="-isystem $OBJ/usr/include" \
	INSTALL_PATH="$KST" install

# kselftest's install goes on past a target that does not build: catch it.
for t in $targets; do
	grep -q "^$t:" "$KST/kselftest-list.txt" ||
		die "selftests: target $t was not built or installed"
done

banner "packing the guest"
rm -rf "$GUEST/extra"
mkdir -p "$GUEST/extra/etc"
# Per-test timeout: kselftest's default of 45 s assumes real hardware,
# the guest is emulated.  The host-side timeout still bounds the run.
args="-o ${KSELFTEST_TIMEOUT:-600}"
for t in ${TESTS:-}; do
	args="$args -t $t"
done
echo "$args" > "$GUEST/extra/etc/kselftest-args"
grep -v '^#' "$TOP/selftests/known-failures" | cut -d' ' -f1 \
	> "$GUEST/extra/etc/kselftest-xfail"
"$TOP"/ci/initramfs.sh "$GUEST/selftests.cpio"

banner "booting the selftests guest"
set +e
"$TOP"/ci/qemu.sh -t "${SELFTESTS_TIMEOUT:-2400}" -l "$GUEST/selftests.log" \
	"$GUEST/selftests.cpio"
rc=$?
set -e

summary=$(grep -a 'KSELFTEST-SUMMARY:' "$GUEST/selftests.log" | tail -1 | tr -d '\r')
pass=$(sed -n 's/.* pass=\([0-9]*\).*/\1/p' <<< "$summary")
fail=$(sed -n 's/.* fail=\([0-9]*\).*/\1/p' <<< "$summary")
skip=$(sed -n 's/.* skip=\([0-9]*\).*/\1/p' <<< "$summary")
xfail=$(sed -n 's/.* xfail=\([0-9]*\).*/\1/p' <<< "$summary")
if [ -z "$summary" ]; then
	echo "selftests: the guest printed no summary (qemu.sh status $rc)"
	pass=0 fail=1 skip=0 xfail=0
fi
# A known failure is neither a pass nor a new failure: report it as a skip.
skip=$((skip + xfail))
if ! "$TOP"/ci/scan-log.sh "$GUEST/selftests.log"; then
	fail=$((fail + 1))
fi
[ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
echo "$pass $fail $skip" > "$BUILD/results/selftests"
echo "selftests: $pass passed, $fail failed, $skip skipped (test programs;" \
     "the skips include $xfail known failures, see selftests/known-failures)"
[ "$fail" -eq 0 ]
