#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make libuv-check [SMP=N] [KERNEL=bzImage] [LIBUV_RUNS="..."]: libuv's own
# test suite (uv_run_tests_a, static) in the QEMU guest on the patched
# kernel: Debian's libuv as shipped, then libuv with libuv/series under
# each thread-pool policy (unset, group, lazy), every test on its own
# (libuv/guest-check.sh), the tests listed in libuv/guest-excluded
# excluded and counted apart.
#
# The kernel: KERNEL, else the production-like patched kernel of make
# bench (build/bench-patched) when built, else the debug kernel (build/obj,
# built by ci/build.sh when missing).  Fails on a failed test, a guest
# without a verdict, or a kernel report in the console (ci/scan-log.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LDIR=$TOP/build/libuv
RUNS=${LIBUV_RUNS:-"stock:stock patched:stock patched:group patched:lazy"}
mkdir -p "$BUILD/results"
echo "0 1 0" > "$BUILD/results/libuv-check"	# until proven otherwise

kernel=${KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$BUILD/bench-patched/arch/x86/boot/bzImage
	[ -f "$kernel" ] || kernel=$OBJ/arch/x86/boot/bzImage
	[ -f "$kernel" ] || { "$TOP"/ci/build.sh; }
fi
[ -f "$kernel" ] || die "no kernel at $kernel"
kobj=$(cd "$(dirname "$kernel")/../../.." && pwd)

"$TOP"/ci/libuv-build.sh

banner "packing the guest: libuv's tests, runs: $RUNS"
payload=$LDIR/payload guest=$LDIR/guest-smp$SMP
rm -rf "$payload" "$guest"
mkdir -p "$payload" "$guest/extra/etc"
cp "$LDIR/obj-stock/uv_run_tests_a" "$payload/run-tests-stock"
cp "$LDIR/obj-patched/uv_run_tests_a" "$payload/run-tests-patched"
cp -a "$LDIR/src/test/fixtures" "$payload/fixtures"
cp "$TOP/libuv/guest-check.sh" "$TOP/libuv/guest-excluded" "$payload/"
gcc -O2 -Wall -static -pthread -I "$LDIR/src/include" \
	-o "$payload/uv_pool_bench" "$TOP/libuv/bench/uv_pool_bench.c" \
	"$LDIR/obj-patched/libuv_a.a" 2>&1 |
	grep -v -e 'in statically linked applications requires' -e 'in function' || true
echo "${LIBUV_TESTS:+LIBUV_TESTS='$LIBUV_TESTS' }sh ./guest-check.sh $RUNS" \
	> "$guest/extra/etc/guest-cmd"
INITRAMFS_ROOT=$guest/root INITRAMFS_EXTRA=$guest/extra KSELFTEST=0 \
GEN_OBJ=$kobj "$TOP"/ci/initramfs.sh "$guest/check.cpio" "$payload" > /dev/null

banner "booting $kernel, $SMP vCPUs"
set +e
KERNEL=$kernel QEMU_SMP=$SMP "$TOP"/ci/qemu.sh -t "${LIBUV_TIMEOUT:-5400}" \
	-l "$guest/console.log" "$guest/check.cpio" > /dev/null
rc=$?
set -e
log=$guest/console.log
tr -d '\r' < "$log" | grep -a -E '^LIBUV-(TEST|SUMMARY|PROBE):|^    ' > "$guest/results" || true
grep -a -A40 'LIBUV-TEST: .* fail' "$log" | tr -d '\r' | head -200 || true
kv=$(tr -d '\r' < "$log" | sed -n 's/^libuv-check: //p' | head -1)
echo "libuv-check: $kernel: ${kv:-no guest output}"
grep -a -E '^LIBUV-(SUMMARY|PROBE):' "$guest/results" || true
scan=0
"$TOP"/ci/scan-log.sh "$log" > /dev/null || { echo "libuv-check: kernel reports in $log"; scan=1; }

# Every test of every run counts once: excluded ones and known failures
# as skipped, never as passed.
read -r pass fail skip < <(awk '/^LIBUV-SUMMARY:/ {
	for (i = 1; i <= NF; i++) {
		if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i
		if ($(i+1) ~ /^(skipped|excluded|known)/) s += $i } }
	END { print p + 0, f + 0, s + 0 }' "$guest/results")
nruns=$(echo "$RUNS" | wc -w)
got=$(grep -c '^LIBUV-SUMMARY:' "$guest/results" || true)
[ "$got" = "$nruns" ] || { echo "libuv-check: $got of $nruns runs reported"; fail=$((fail + 1)); }
[ "$rc" = 0 ] || [ "$fail" -gt 0 ] || { echo "libuv-check: guest verdict $rc"; fail=$((fail + 1)); }
# A policy that fell back to the stock pool was not tested.
for run in $RUNS; do
	case $run in
	patched:group) want=group ;;
	patched:lazy) want=watch ;;
	*) continue ;;
	esac
	grep -q "^LIBUV-PROBE: ${run%%:*} ${run#*:}: kernel fd $want," "$guest/results" ||
		{ echo "libuv-check: policy ${run#*:} was not in force (no $want fd)"; fail=$((fail + 1)); }
done
fail=$((fail + scan))
echo "$pass $fail $skip" > "$BUILD/results/libuv-check"
echo "libuv-check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
