#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make libuv-bench [LIBUV_BENCH_REPS=N] [LIBUV_BENCH_SMP="2 4"] [KERNEL=...]:
# libuv/bench/uv_pool_bench (uv_queue_work with CPU-bound and blocking
# items) on the patched kernel, in one QEMU guest per vCPU count, with
# stock libuv's pool of 4 and of 64 threads and the two policies of
# libuv/series, interleaved (libuv/guest-bench.sh).  Writes
# libuv/bench-report.md (LIBUV_BENCH_REPORT=file elsewhere) with the
# median and the spread of every figure, and keeps the raw CSV beside it.
#
# The kernel: KERNEL, else make bench's production-like patched kernel
# (build/bench-patched), else the debug kernel of make check (build/obj;
# KASAN and lockdep make its figures no guide to production).  A benchmark:
# no figure fails it; a run that fails, or a guest without results, does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LDIR=$TOP/build/libuv
REPS=${LIBUV_BENCH_REPS:-5}
SMPS=${LIBUV_BENCH_SMP:-"2 4"}
report=${LIBUV_BENCH_REPORT:-$TOP/libuv/bench-report.md}
mkdir -p "$BUILD/results"
echo "0 1 0" > "$BUILD/results/libuv-bench"

load0=$(cut -d" " -f1-3 /proc/loadavg)
kernel=${KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$BUILD/bench-patched/arch/x86/boot/bzImage
	[ -f "$kernel" ] || kernel=$OBJ/arch/x86/boot/bzImage
	[ -f "$kernel" ] || { "$TOP"/ci/build.sh; }
fi
[ -f "$kernel" ] || die "no kernel at $kernel"
kobj=$(cd "$(dirname "$kernel")/../../.." && pwd)

"$TOP"/ci/libuv-build.sh

banner "building uv_pool_bench (static, patched libuv)"
payload=$LDIR/bench-payload out=$LDIR/bench
rm -rf "$payload"
mkdir -p "$payload" "$out"
gcc -O2 -Wall -static -pthread -I "$LDIR/src/include" \
	-o "$payload/uv_pool_bench" "$TOP/libuv/bench/uv_pool_bench.c" \
	"$LDIR/obj-patched/libuv_a.a"
cp "$TOP/libuv/guest-bench.sh" "$payload/"

pass=0 failed=0
csvs=()
for smp in $SMPS; do
	guest=$out/guest-smp$smp
	rm -rf "$guest"
	mkdir -p "$guest/extra/etc"
	echo "sh ./guest-bench.sh $REPS" > "$guest/extra/etc/guest-cmd"
	INITRAMFS_ROOT=$guest/root INITRAMFS_EXTRA=$guest/extra KSELFTEST=0 \
	GEN_OBJ=$kobj "$TOP"/ci/initramfs.sh "$guest/bench.cpio" "$payload" > /dev/null
	banner "booting $kernel, $smp vCPUs, $REPS repetitions"
	set +e
	KERNEL=$kernel QEMU_SMP=$smp "$TOP"/ci/qemu.sh -t "${LIBUV_TIMEOUT:-3600}" \
		-l "$guest/console.log" "$guest/bench.cpio" > /dev/null
	rc=$?
	set -e
	tr -d '\r' < "$guest/console.log" | sed -n 's/^LIBUV-BENCH: //p' > "$out/smp$smp.csv"
	tr -d '\r' < "$guest/console.log" | grep -a -E '^libuv-bench:' || true
	ok=1
	[ "$rc" = 0 ] || { echo "libuv-bench: guest with $smp vCPUs: verdict $rc"; ok=0; }
	[ -s "$out/smp$smp.csv" ] || { echo "libuv-bench: no results with $smp vCPUs"; ok=0; }
	"$TOP"/ci/scan-log.sh "$guest/console.log" > /dev/null ||
		{ echo "libuv-bench: kernel reports in $guest/console.log"; ok=0; }
	if [ $ok = 1 ]; then pass=$((pass + 1)); else failed=$((failed + 1)); fi
	csvs+=("$out/smp$smp.csv")
done

banner "writing $report"
{
	echo "command: make libuv-bench LIBUV_BENCH_REPS=$REPS LIBUV_BENCH_SMP=\"$SMPS\""
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel: ${kernel#$TOP/} ($(tr -d '\r' < "$out/guest-smp${SMPS%% *}/console.log" | sed -n 's/^libuv-bench: \([^,]*\),.*/\1/p' | head -1))"
	echo "libuv: Debian libuv1 $(sed -n 's/^# Base: Debian package libuv1 \([^ ]*\).*/\1/p' "$TOP/libuv/series") + libuv/series ($(git -C "$LDIR/src" rev-list --count base..HEAD) patches)"
	echo "qemu: $(qemu-system-x86_64 --version | head -1), $(qemu_accel_args), -m ${QEMU_MEM:-2048}"
	echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load average at the start: $load0, at the end: $(cut -d" " -f1-3 /proc/loadavg)"
} > "$out/environment"
/usr/bin/python3 "$TOP/libuv/bench-report.py" "$out/environment" "${csvs[@]}" > "$report"
mkdir -p "$(dirname "$report")/bench-raw"
cp "${csvs[@]}" "$(dirname "$report")/bench-raw/"
cat "$report"
echo "$pass $failed 0" > "$BUILD/results/libuv-bench"
echo "libuv-bench: $pass passed, $failed failed, 0 skipped (guests)"
[ "$failed" -eq 0 ]
