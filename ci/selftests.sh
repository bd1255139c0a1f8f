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
rm -f "$BUILD/results/selftests.failed"
"$TOP"/ci/build.sh

banner "building and installing selftests (static, patched headers)"
targets=$(grep -v '^#' "$SELFTEST_TARGETS" | tr '\n' ' ')
rm -rf "$KST"
LDFLAGS=-static make -s -C "$TREE/tools/testing/selftests" \
	O="$KSTOBJ" TARGETS="$targets" \
	KHDR_INCLUDES="-isystem $OBJ/usr/include" \
	INSTALL_PATH="$KST" install

# kselftest's install goes on past a target that does not build: catch it.
for t in $targets; do
	grep -q "^$t:" "$KST/kselftest-list.txt" ||
		die "selftests: target $t was not built or installed"
done
# sched/Makefile lists cs_prctl_test both as generated (TEST_GEN_FILES)
# and as a script (TEST_PROGS), which install copies from the source
# folder, where an O= build does not put it.  Install such programs from
# the build folder; a program missing from both still fails in the guest.
while IFS=: read -r coll prog; do
	if [ ! -e "$KST/$coll/$prog" ] && [ -x "$KSTOBJ/kselftest/$coll/$prog" ]; then
		cp "$KSTOBJ/kselftest/$coll/$prog" "$KST/$coll/"
	fi
done < "$KST/kselftest-list.txt"

banner "packing the guest"
rm -rf "$GUEST/extra"
mkdir -p "$GUEST/extra/etc"
# Per-test timeout: kselftest's default of 45 s assumes real hardware,
# the guest is emulated.  The host-side timeout still bounds the run.
args="-o ${KSELFTEST_TIMEOUT:-600}"
for t in ${TESTS:-}; do
	args="$args -t $t"
done
# Upstream tests not run here (selftests/skipped says why), unless asked
# for by name with TESTS; each counts as a skip.  They leave the guest's
# kselftest-list.txt, the list run_kselftest.sh runs: its -S option, which
# does the same, is newer than 6.12.
skipped=0
if [ -z "${TESTS:-}" ] && [[ $VARIANT != regress-* ]]; then
	while read -r t reason; do
		grep -q "^$t\$" "$KST/kselftest-list.txt" || continue
		grep -v -x -F "$t" "$KST/kselftest-list.txt" > "$KST/kselftest-list.new"
		mv "$KST/kselftest-list.new" "$KST/kselftest-list.txt"
		skipped=$((skipped + 1))
		echo "selftests: not run: $t ($reason)"
	done < <(grep -v -e '^#' -e '^$' "$TOP/selftests/skipped")
fi
echo "$args" > "$GUEST/extra/etc/kselftest-args"
# The tests' own knobs (SWB_STRESS_SECONDS, SCHED_CONC_FUZZ_CALLS, SCHED_WATCH_*, ...),
# given to make, go to the guest's environment: the guest's /init reads
# this file before it runs the tests.
env | grep -E '^(SWB|SCHED_CONC|SCHED_WATCH)_[A-Z0-9_]+=.' | sed "s/^\([^=]*\)=\(.*\)$/export \1='\2'/" \
	> "$GUEST/extra/etc/kselftest-env" || true
# An entry "COLLECTION:TEST@BASE" is known to fail on that base only.
grep -v -e '^#' -e '^$' "$TOP/selftests/known-failures" |
	awk -v base="$BASE" '{ n = split($1, t, "@"); if (n == 1 || t[2] == base) print t[1] }' \
	> "$GUEST/extra/etc/kselftest-xfail"
"$TOP"/ci/initramfs.sh "$GUEST/selftests.cpio"

banner "booting the selftests guest"
# Two vCPUs as the two threads of one core: the sched selftest
# (core scheduling) needs SMT siblings.
set +e
QEMU_SMP=${QEMU_SMP:-$SMP,sockets=1,cores=$(((SMP + 1) / 2)),threads=$((SMP > 1 ? 2 : 1))} "$TOP"/ci/qemu.sh -t "${SELFTESTS_TIMEOUT:-2400}" -l "$GUEST/selftests.log" \
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
# A known failure is neither a pass nor a new failure: report it as a skip,
# as the tests not run at all are.
skip=$((skip + xfail + skipped))
if ! "$TOP"/ci/scan-log.sh "$GUEST/selftests.log"; then
	fail=$((fail + 1))
fi
# A kernel with kmemleak must have scanned clean at the end of the run
# (selftests/init); a scan that never happened is a failure too.
if grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$OBJ/.config" &&
   ! grep -a -q 'KMEMLEAK: clean' "$GUEST/selftests.log"; then
	echo "selftests: no clean kmemleak scan: $(grep -a 'KMEMLEAK:' \
		"$GUEST/selftests.log" | tr -d '\r' || echo none)"
	fail=$((fail + 1))
fi
[ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
# The failed programs and the kernel's reports, for make check's summary.
if [ "$fail" -gt 0 ]; then
	{ tr -d '\r' < "$GUEST/selftests.log" |
		grep -a -E '^not ok [0-9]+ selftests: ' |
		grep -v -F -f <(sed 's/:/: /' "$GUEST/extra/etc/kselftest-xfail") || true; } |
		sed 's/^/selftests: /' > "$BUILD/results/selftests.failed"
	sed 's/^/selftests: console: /' "$GUEST/selftests.log.reports" 2>/dev/null |
		head -5 >> "$BUILD/results/selftests.failed"
fi
echo "$pass $fail $skip" > "$BUILD/results/selftests"
echo "selftests: $pass passed, $fail failed, $skip skipped (test programs;" \
     "the skips include $xfail known failures, see selftests/known-failures," \
     "and $skipped not run, see selftests/skipped)"
# The counts are of programs, and a program that skipped some of its
# cases still passes: name those cases, so that no skip reads as a pass.
cskip=$(tr -d '\r' < "$GUEST/selftests.log" |
	awk '/^# selftests: / { prog = $3 " " $4 }
	     /^# +ok [0-9]+ .*# SKIP/ { sub(/^# +/, ""); print prog " " $0 }')
if [ -n "$cskip" ]; then
	echo "selftests: $(wc -l <<< "$cskip") cases skipped inside the programs:"
	sed 's/^/selftests:   /' <<< "$cskip"
fi
[ "$fail" -eq 0 ]
