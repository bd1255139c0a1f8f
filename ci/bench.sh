#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench [QUICK=1] [BOOTS=N]: benchmark the series against the kernel
# it applies to.
#
# Builds two kernels from the same Debian base with the same production-
# like configuration (bench/bench.config: Debian's own settings for all
# that the benchmarks exercise, no debugging options): the pristine
# package tree ($BUILD/base, tag "base") and the patched one ($TREE).  Boots them in alternation, pristine first, BOOTS
# times each, and runs bench/guest-bench.sh in every guest; the guest
# sends its results back as a tarball over a second serial port.  Then
# bench/report.py turns all boots into tables and plots.
#
# The full run writes the committed report, bench/report/.  QUICK=1 (the
# smoke test make check runs) uses one boot each and short runs, and
# writes to $BUILD/bench/quick-report instead.  Benchmarks are not tests:
# no figure fails this script; a program that fails, a guest that does
# not come back, or a report that cannot be made does.
#
# Every boot of each kernel is followed by an instruction-count boot of
# each (ICOUNT=0: none): single-threaded TCG with -icount shift=0,
# sleep=off and one vCPU, where the guest's clock counts executed
# instructions, running only the one-CPU cost benchmarks (pipe -c same,
# hackbench) in their instruction-count form, and on the patched kernel
# the one-CPU handoff (futex, futexblk, swb, watch, watchpoll, perf), whose
# latency is a path length in instructions.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# SMOKE=1, make check's bench stage: no kernels of its own.  The programs,
# built against the test kernel's headers, run once and briefly (QUICK)
# in a guest of the debug kernel that make check built for its other
# stages: whether they build and run, not what they measure (no figure of
# a KASAN kernel means anything, and no report is kept).  The pristine and
# patched production kernels are make bench's, QUICK=1 included.
SMOKE=${SMOKE:-0}
[ "$SMOKE" = 1 ] && QUICK=1 BOOTS=1 ICOUNT=0
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	BOOTS=${BOOTS:-1}
	report=${BENCH_REPORT:-$BUILD/bench/quick-report}
	guest_timeout=900
else
	BOOTS=${BOOTS:-5}
	report=${BENCH_REPORT:-$TOP/bench/report}
	# A boot takes 3 minutes here; guest-bench.sh's own watchdog ends a
	# hung program after 10.
	guest_timeout=1800
fi
BASE_TREE=$BUILD/base
# Debian's own configuration of the base, to hold bench/*.config to.
if [ "$SMOKE" = 1 ]; then
	DEBIAN_CONFIG=
elif [ -z "$BASE_SUITE" ]; then
	DEBIAN_CONFIG=/usr/src/linux-config-$BASE/config.amd64_none_cloud-amd64.xz
else
	DEBIAN_CONFIG=$("$TOP"/ci/debian-fetch.sh binary "$BASE_SUITE" \
		"linux-config-$BASE" "$BASE_DEB_VERSION")/usr/src/linux-config-$BASE/config.amd64_none_cloud-amd64.xz
fi
BENCH_CONFIGS=("$TOP/bench/bench.config" "$TOP/bench/base-$BASE.config")
runs=$BUILD/bench/runs
[ "$SMOKE" = 1 ] && runs=$BUILD/bench/smoke report=$BUILD/bench/smoke-report
mkdir -p "$BUILD/results" "$BUILD/bench"
echo "0 1 0" > "$BUILD/results/bench"	# until proven otherwise

"$TOP"/ci/deps.sh bench
# REPORT_ONLY=1: only render the report again from the boots of the last
# run, in $BUILD/bench/runs (after a change to bench/report.py).
if [ "${REPORT_ONLY:-0}" != 1 ]; then
"$TOP"/ci/tree.sh

if [ "$SMOKE" = 1 ]; then
	"$TOP"/ci/build.sh > /dev/null
	banner "building the benchmark programs (static, the test kernel's headers)"
	payload=$BUILD/bench/payload
	rm -rf "$payload"
	mkdir -p "$payload"
	make -s -C "$TOP/bench/src" HDR="$OBJ/usr/include" O="$payload"
	cp "$TOP/bench/guest-bench.sh" "$payload/"
else
base_worktree

# build NAME TREE: bzImage of TREE in $BUILD/bench-NAME, configured from
# selftests/guest.config + bench/bench.config (Debian's choices for what
# is measured, checked below) and Kconfig's defaults, like kunit.py does.
build() {
	local name=$1 tree=$2 obj=$BUILD/bench-$1
	banner "building the $name kernel in $obj"
	mkdir -p "$obj"
	{ cat "$TOP/selftests/guest.config" "${BENCH_CONFIGS[@]}"
	  # The series' own options, which the pristine tree does not know;
	  # SCHED_WATCH (an RFC's) defaults to n.
	  [ "$name" = pristine ] ||
		printf 'CONFIG_SCHED_WAIT_BLOCK=y\nCONFIG_SCHED_CONCURRENCY=y\nCONFIG_SCHED_WATCH=y\n'
	  echo "CONFIG_LOCALVERSION=\"-bench-$name\""; } > "$obj/.config.new"
	# Keep the old .config (and so the objects) if nothing changed.
	if ! cmp -s "$obj/.config.new" "$obj/.config.src"; then
		cp "$obj/.config.new" "$obj/.config"
		cp "$obj/.config.new" "$obj/.config.src"
	fi
	make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" olddefconfig
	local opt
	while read -r opt; do
		grep -qx -- "$opt" "$obj/.config" ||
			die "$name kernel: $opt did not stick (a dependency is missing)"
	done < <(cat "${BENCH_CONFIGS[@]}" | grep -E '^(CONFIG_|# CONFIG_.* is not set)')
	make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" bzImage
	make -s -C "$tree" O="$obj" ARCH=x86_64 headers
}

# bench/bench.config claims Debian's values: hold it to that.
banner "checking bench/bench.config against Debian's $(basename "$DEBIAN_CONFIG")"
xzcat "$DEBIAN_CONFIG" > "$BUILD/bench/debian.config"
while read -r opt; do
	grep -qx -- "$opt" "$BUILD/bench/debian.config" ||
		die "bench/*.config: $opt is not Debian's setting"
done < <(cat "${BENCH_CONFIGS[@]}" | grep -E '^(CONFIG_|# CONFIG_.* is not set)')

build pristine "$BASE_TREE"
build patched "$TREE"
grep -q '^CONFIG_SCHED_WAIT_BLOCK=y' "$BUILD/bench-patched/.config" ||
	die "the patched bench kernel lacks CONFIG_SCHED_WAIT_BLOCK"
grep -q '^CONFIG_SCHED_CONCURRENCY=y' "$BUILD/bench-patched/.config" ||
	die "the patched bench kernel lacks CONFIG_SCHED_CONCURRENCY"
grep -q '^CONFIG_SCHED_WATCH=y' "$BUILD/bench-patched/.config" ||
	die "the patched bench kernel lacks CONFIG_SCHED_WATCH"
# SCHED_NOTIFY: the scheduler side, which SCHED_WAIT_BLOCK,
# SCHED_CONCURRENCY and SCHED_WATCH select.
series_opts=(-e SCHED_WAIT_BLOCK -e SCHED_NOTIFY -e SCHED_CONCURRENCY -e SCHED_WATCH
	     -e '^CONFIG_LOCALVERSION=')
if ! diff <(grep -v "${series_opts[@]}" "$BUILD/bench-pristine/.config") \
	  <(grep -v "${series_opts[@]}" "$BUILD/bench-patched/.config") > /dev/null; then
	die "the two bench kernels differ in more than the series' options"
fi

banner "building the benchmark programs (static, patched headers)"
payload=$BUILD/bench/payload
rm -rf "$payload"
mkdir -p "$payload"
make -s -C "$TOP/bench/src" HDR="$BUILD/bench-patched/usr/include" O="$payload"
cp "$TOP/bench/guest-bench.sh" "$payload/"
fi	# SMOKE

# The instruction-count boots: one vCPU (icount with several runs them
# round-robin on one host thread, and the benchmarks measured need one),
# single-threaded TCG (icount is incompatible with MTTCG), guest time = 1 ns
# per instruction (shift=0), no sleeping when the guest idles (sleep=off:
# the clock jumps to the next timer instead).
ICOUNT=${ICOUNT:-1}
ICOUNT_ACCEL="-accel tcg,thread=single"
ICOUNT_ARGS="-icount shift=0,sleep=off"

# guest KERNEL BOOT DIR [MODE]: one boot of KERNEL (pristine or patched)
# running every benchmark (MODE wall, the default) or the instruction
# counts (MODE icount); results in DIR/out.  Fails if the guest did not
# run the right kernel, sent no results, or the console shows a report.
guest() {
	local kernel=$1 boot=$2 dir=$3 mode=${4:-wall} rc
	local accel=${ACCEL:-} smp=2 extra= armer=
	# The debug kernel of SMOKE has no cpu controller (CGROUP_SCHED):
	# the armer's child throttles itself with SCHED_IDLE instead.
	[ "$SMOKE" = 1 ] && armer="ARMER_OPTS=-f "
	if [ "$mode" = icount ]; then
		accel=$ICOUNT_ACCEL smp=1 extra=$ICOUNT_ARGS
	fi
	rm -rf "$dir" "$GUEST/extra"
	mkdir -p "$dir" "$GUEST/extra/etc"
	# The results go out through ttyS1, base64 (the tty adds CRs).
	cat > "$GUEST/extra/etc/guest-cmd" <<-EOF
		echo "BENCH-KERNEL: \$(uname -r)"
		${armer}BOOT=$boot BENCH_MODE=$mode BENCH_PROG_LIMIT=${BENCH_PROG_LIMIT:-600} sh ./guest-bench.sh $kernel $QUICK /tmp/out
		rc=\$?
		tar -C /tmp -cz out | base64 > /dev/ttyS1
		exit \$rc
	EOF
	local kobj=$BUILD/bench-$kernel release=-bench-$kernel
	[ "$SMOKE" = 1 ] && kobj=$OBJ release=
	KSELFTEST=0 GEN_OBJ=$kobj \
		"$TOP"/ci/initramfs.sh "$GUEST/bench.cpio" "$payload" > /dev/null
	set +e
	ACCEL=$accel KERNEL=$kobj/arch/x86/boot/bzImage \
	QEMU_SMP=$smp QEMU_EXTRA="-serial file:$dir/ttyS1.b64 $extra" \
		"$TOP"/ci/qemu.sh -t "$guest_timeout" -l "$dir/console.log" \
		"$GUEST/bench.cpio" > /dev/null
	rc=$?
	set -e
	grep -a -q "BENCH-KERNEL: .*$release" "$dir/console.log" ||
		{ echo "bench: boot $boot did not run the $kernel kernel"; rc=1; }
	tr -d '\r' < "$dir/ttyS1.b64" | base64 -d 2>/dev/null | tar -xz -C "$dir" 2>/dev/null ||
		{ echo "bench: no results from boot $boot ($kernel)"; rc=1; }
	"$TOP"/ci/scan-log.sh "$dir/console.log" > /dev/null ||
		{ echo "bench: kernel reports in $dir/console.log"; rc=1; }
	return $rc
}

# Boots that fail are tried again (BENCH_RETRIES times, default 2 in a
# full run, none in QUICK): under QEMU's multi-threaded TCG, switching a
# static key (ours, or perf's) sometimes makes the guest hit the int3 of
# text_poke_bp() after the patching ended ("Oops: int3"; bench/README.md).
# Every failed attempt is kept and listed in the report's ENVIRONMENT.
if [ "$QUICK" = 1 ]; then
	# The smoke test wants no figure, only a run that does not fail:
	# single-threaded TCG, where that Oops was never seen.
	export ACCEL=${ACCEL:-"-accel tcg,thread=single"}
	retries=${BENCH_RETRIES:-0}
else
	retries=${BENCH_RETRIES:-2}
fi
rm -rf "$runs"
mkdir -p "$runs"
failed=0
: > "$BUILD/bench/attempts"
modes=wall
[ "$ICOUNT" = 0 ] || modes="wall icount"
kernels="pristine patched"
[ "$SMOKE" = 1 ] && kernels=patched
for boot in $(seq 1 "$BOOTS"); do
	for mode in $modes; do
	for kernel in $kernels; do
		dir=$runs/$(printf 'boot%02d-%s' "$boot" "$kernel")
		[ "$mode" = wall ] || dir=$dir-$mode
		for attempt in $(seq 0 "$retries"); do
			banner "boot $boot of $BOOTS: $kernel kernel, $mode, attempt $((attempt + 1))"
			guest "$kernel" "$boot" "$dir" "$mode" && break
			echo "bench: boot $boot ($kernel, $mode) failed; console: $dir/console.log"
			grep -a -v '^\s*$' "$dir/console.log" | tail -20
			why=$(grep -a -m1 -E 'Oops|BUG:|WARNING:|panic' "$dir/console.log" | tr -d '\r')
			rip=$(grep -a -m1 'RIP: 0010' "$dir/console.log" | tr -d '\r')
			echo "boot $boot $kernel $mode attempt $((attempt + 1)): ${why:-no kernel report} ${rip}" \
				>> "$BUILD/bench/attempts"
			mv "$dir" "$dir.failed$((attempt + 1))"
			[ "$attempt" -lt "$retries" ] || { failed=$((failed + 1)); break; }
		done
	done
	done
done
echo "$modes" > "$BUILD/bench/modes"

if [ "$SMOKE" = 1 ]; then
	echo "$((BOOTS - failed)) $failed 0" > "$BUILD/results/bench"
	echo "bench: smoke test: $((BOOTS - failed)) of $BOOTS boots of the test kernel ran every benchmark (results in $runs, not a report)"
	[ $failed -eq 0 ]
	exit
fi

fi	# REPORT_ONLY

banner "writing the report to $report"
[ "${REPORT_ONLY:-0}" != 1 ] || [ -f "$BUILD/bench/environment" ] ||
	die "no boots to report on: run make bench first"
rm -rf "$report"
mkdir -p "$report"
[ "${REPORT_ONLY:-0}" = 1 ] || {
	echo "command: make bench QUICK=$QUICK BOOTS=$BOOTS"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "base: $BASE_PKG $(base_pkg_version)"
	echo "series: $(git -C "$TREE" log --oneline base..HEAD | wc -l) patches, kernel/ $(queue_hash | cut -c1-12)"
	echo "config: selftests/guest.config + bench/bench.config + bench/base-$BASE.config (checked against $(basename "$DEBIAN_CONFIG")) + Kconfig defaults"
	echo "qemu: $(qemu-system-x86_64 --version | head -1), $(qemu_accel_args), -smp 2 -m ${QEMU_MEM:-2048}"
	if [ "$ICOUNT" != 0 ]; then
		echo "qemu, instruction-count boots: $ICOUNT_ACCEL $ICOUNT_ARGS -smp 1 -m ${QEMU_MEM:-2048}"
	fi
	echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "failed attempts (tried again): $(wc -l < "$BUILD/bench/attempts")"
	sed 's/^/  /' "$BUILD/bench/attempts"
} > "$BUILD/bench/environment"
cp "$BUILD/bench/environment" "$report/ENVIRONMENT"
# The raw data: every figure of every boot, and every handoff sample.
# Boots of older runs may lack the instruction-count ones.
shopt -s nullglob
outs=("$runs"/boot??-{pristine,patched}{,-icount}/out)
shopt -u nullglob
# None at all: report.py says so and writes empty tables.
[ ${#outs[@]} -gt 0 ] || outs=("$runs/no-boot-sent-results")
mkdir -p "$report/raw"
for d in "$runs"/boot??-{pristine,patched}{,-icount}; do
	[ -f "$d/out/results.csv" ] || continue
	b=$(basename "$d")
	cp "$d/out/results.csv" "$report/raw/$b-results.csv"
	if ls "$d"/out/handoff-*.csv > /dev/null 2>&1; then
		{ echo "method,cpus,ns"; tail -q -n +2 "$d"/out/handoff-*.csv; } |
			gzip -9n > "$report/raw/$b-handoff.csv.gz"
	fi
done
# Debian's python3, for Debian's matplotlib.
/usr/bin/python3 "$TOP/bench/report.py" -o "$report" "${outs[@]}"
cat "$report/ENVIRONMENT"

[ "${REPORT_ONLY:-0}" = 1 ] && failed=0
nr_modes=1
[ ! -f "$BUILD/bench/modes" ] || nr_modes=$(wc -w < "$BUILD/bench/modes")
boots=$((2 * BOOTS * nr_modes))
[ "$SMOKE" = 1 ] && boots=$BOOTS
pass=$((boots - failed))
echo "$pass $failed 0" > "$BUILD/results/bench"
echo "bench: $pass of $boots boots ran every benchmark; report in $report"
[ $failed -eq 0 ]
