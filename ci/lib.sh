# SPDX-License-Identifier: GPL-2.0
# Common settings for the ci/ scripts: where things live, how to log.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Which kernel the series is on: BASE=7.2, mainline and the primary base
# (Debian unstable's linux-source-7.2, fetched by ci/debian-fetch.sh and
# never installed), or BASE=6.12, the backport (bookworm's
# linux-source-6.12, installed by ci/deps.sh).  Each base has its own
# patch queue ($QUEUE: three series, listed in $QUEUE/series) and its own
# build folder.
BASE=${BASE:-7.2}
case $BASE in
7.2)	BUILD=${BUILD:-$TOP/build}
	QUEUE=$TOP/kernel
	BASE_PKG=linux-source-7.2
	BASE_SUITE=unstable
	BASE_DEB_VERSION=7.2.13-1
	BASE_DEB_SHA256=30a8c5fc63f9028a62e6d7b3f7f43bee67425dbce2a05fceba83f9b87c92083d ;;
6.12)	BUILD=${BUILD:-$TOP/build/6.12}
	QUEUE=$TOP/kernel/backport-6.12
	BASE_PKG=linux-source-6.12
	BASE_SUITE= ;;
*)	echo "BASE=$BASE: 7.2 or 6.12" >&2; exit 1 ;;
esac
# The three series, in the order they apply; each is a folder of $QUEUE.
SERIES_NAMES="wait-block concurrency watch"
TREE=$BUILD/linux		# the kernel tree: git, base + kernel/ series
OBJ=$BUILD/obj			# kernel objects (kunit.py --build_dir, O=)
KST=$BUILD/kselftest		# installed selftests (INSTALL_PATH)
GUEST=$BUILD/guest		# initramfs and console logs

KSTOBJ=$BUILD/kselftest-obj	# selftests' objects
SELFTEST_TARGETS=$TOP/selftests/targets

# Which test kernel: kasan (make check), kcsan (make check-kcsan), rt
# (make check-rt), lazy (make check-lazy: PREEMPT_LAZY instead of
# PREEMPT), irqsoff (make irqsoff: tracers, no lockdep), arm64 (make
# check-arm64), or for make regress, the same debug kernel with every
# KUnit suite, from the pristine tree (regress-pristine) or from the
# series (regress-patched).  All but kasan build in folders of their own.
VARIANT=${VARIANT:-kasan}
case $VARIANT in
kasan)	ARCH=x86_64 ;;
kcsan|rt|lazy|irqsoff|regress-pristine|regress-patched)
	ARCH=x86_64 OBJ=$BUILD/obj-$VARIANT GUEST=$BUILD/guest-$VARIANT
	KST=$BUILD/kselftest-$VARIANT KSTOBJ=$BUILD/kselftest-obj-$VARIANT ;;
arm64)	ARCH=arm64 OBJ=$BUILD/obj-arm64 GUEST=$BUILD/guest-arm64 ;;
*)	echo "VARIANT=$VARIANT: kasan, kcsan, rt, lazy, irqsoff, arm64, regress-*" >&2; exit 1 ;;
esac
# Guests' vCPUs (make check SMP=4): the selftests' guest has them as
# one socket of two-thread cores, for core scheduling's tests.
SMP=${SMP:-2}
case $SMP in
1|2|4|8) ;;
*)	echo "SMP=$SMP: 1, 2, 4 or 8" >&2; exit 1 ;;
esac
# Each vCPU count builds the same kernel; only the guests' logs differ.
[ "$SMP" = 2 ] || GUEST=$GUEST-smp$SMP
case $VARIANT in
regress-*)
	SELFTEST_TARGETS=$TOP/selftests/regress-targets ;;
esac
[ "$VARIANT" = regress-pristine ] && TREE=$BUILD/base
JOBS=${JOBS:-$(nproc)}

stage=0
banner() {
	stage=$((stage + 1))
	printf '\n==> [%s.%d] %s\n' "$(basename "$0" .sh)" "$stage" "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The base's source tarball: 6.12's is installed in /usr/src; 7.2's is
# unpacked from the .deb that ci/debian-fetch.sh fetched (ci/deps.sh).
base_tarball() {
	if [ -z "$BASE_SUITE" ]; then
		echo "/usr/src/$BASE_PKG.tar.xz"
	else
		echo "$("$TOP"/ci/debian-fetch.sh binary "$BASE_SUITE" "$BASE_PKG" \
			"$BASE_DEB_VERSION" "$BASE_DEB_SHA256")/usr/src/$BASE_PKG.tar.xz"
	fi
}

# Debian version of the base package, e.g. 7.2.13-1 or 6.12.118-1~deb12u1.
base_pkg_version() {
	if [ -z "$BASE_SUITE" ]; then
		dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null
	else
		basename "$(dirname "$(dirname "$(dirname "$(base_tarball)")")")" |
			sed "s/^${BASE_PKG}_//"
	fi
}

# The patches of $QUEUE/series, one path (relative to $QUEUE) a line.
queue_patches() {
	grep -v -e '^#' -e '^$' "$QUEUE/series"
}

# A hash of the patch queue as committed in kernel/.
queue_hash() {
	(cd "$QUEUE" && cat series $(queue_patches)) 2>/dev/null | sha1sum | cut -d' ' -f1
}

# The accelerator QEMU should use: $ACCEL if set (the KVM probe sets it),
# else KVM only when asked for (KVM=1) and when a short probe boot shows
# that it works here, else emulation.
qemu_accel_args() {
	if [ -n "${ACCEL:-}" ]; then
		echo "$ACCEL"
	elif [ "${KVM:-0}" = 1 ] && "$TOP"/ci/kvm-probe.sh >&2; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi"
	fi
}

# arm64_kunitconfig: the series' .kunitconfig less what arm64 cannot
# have, written to $BUILD/arm64.kunitconfig for make check-arm64.  arm64
# has no GENERIC_ENTRY (6.12 and 7.2), and concurrency groups depend on it
# (admission sleeps in resume_user_mode_work(), after which the generic
# exit loop re-reads the work flags), as does 7.2's rseq slice extension
# (with HAVE_GENERIC_TIF_BITS).  kunit.py would refuse the rest as
# "not all Kconfig options selected"; what arm64 runs is sched_wait_block()
# and the watch fds.
arm64_kunitconfig() {
	grep -v -e '^CONFIG_SCHED_CONCURRENCY' -e '^CONFIG_RSEQ_SLICE_EXTENSION=' \
		"$TREE/kernel/sched/.kunitconfig" > "$BUILD/arm64.kunitconfig"
}

# What kunit.py is told in every stage: same build folder, same configs.
KUNIT_ARGS=(
	--arch="$ARCH"
	--build_dir="$OBJ"
	--kunitconfig="$TOP/kunit/debug.config"
	--kunitconfig="$TOP/kunit/base-$BASE.config"
	--jobs="$JOBS"
)
case $VARIANT in
arm64)	KUNIT_ARGS+=(--kunitconfig="$BUILD/arm64.kunitconfig"
		     --cross_compile=aarch64-linux-gnu-
		     "--make_options=CC=ccache aarch64-linux-gnu-gcc") ;;
regress-*)
	KUNIT_ARGS+=(--kunitconfig="$TOP/kunit/regress.config"
		     --kunitconfig="$TOP/kunit/kasan.config"
		     --kunitconfig="$TOP/selftests/guest.config"
		     "--make_options=CC=ccache gcc") ;;
*)	KUNIT_ARGS+=(--kunitconfig="$TREE/kernel/sched/.kunitconfig"
		     --kunitconfig="$TOP/kunit/$VARIANT.config"
		     --kunitconfig="$TOP/selftests/guest.config"
		     "--make_options=CC=ccache gcc") ;;
esac
# PREEMPT_RT (kunit/rt.config) and PREEMPT, which debug.config and the
# series' .kunitconfig may ask for, are members of one Kconfig choice.
# kunit.py rejects two values for one option across --kunitconfig files,
# but --kconfig_add overrides them all: PREEMPT off, then PREEMPT_RT wins
# the choice and kunit.py's check of the .config passes.
# The same for PREEMPT_LAZY.  Proxy execution (kernel/sched/.kunitconfig
# on 7.2) depends on !PREEMPT_RT: off on the RT kernel.
case $VARIANT in
rt)	KUNIT_ARGS+=(--kconfig_add=CONFIG_PREEMPT=n)
	[ "$BASE" = 6.12 ] || KUNIT_ARGS+=(--kconfig_add=CONFIG_SCHED_PROXY_EXEC=n) ;;
lazy)	KUNIT_ARGS+=(--kconfig_add=CONFIG_PREEMPT=n) ;;
# Lockdep keeps interrupts off while it checks each lock: it would be
# most of what the irqsoff tracer measures.
irqsoff) KUNIT_ARGS+=(--kconfig_add=CONFIG_PROVE_LOCKING=n) ;;
esac
# kernel/sched/Makefile turns KCSAN off for the whole folder (noise and
# speed), which hides every access of the series from it.  The groups'
# lockless paths (the tick, the return to user mode, fdinfo) are in
# concurrency.c, compiled as part of build_policy.o: instrument that unit
# here.  Its other files (idle, rt, deadline, cputime, syscalls) come
# along; a report there is upstream's, and says so by its stack.
[ "$VARIANT" = kcsan ] &&
	KUNIT_ARGS+=("--make_options=KCSAN_SANITIZE_build_policy.o=y")

# ccache, shared by every checkout on the machine: paths under $BUILD are
# hashed relative to it, so a fresh clone in another folder (as CI makes)
# hits the objects of an earlier build.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=true

# The pristine package tree, as a worktree of $TREE at tag "base", in
# $BUILD/base: for make warnings, make bench and make regress.
base_worktree() {
	local t=$BUILD/linux
	[ -d "$BUILD/base" ] || git -C "$t" worktree add -q --detach "$BUILD/base" base
	[ "$(git -C "$BUILD/base" rev-parse HEAD)" = "$(git -C "$t" rev-parse base)" ] ||
		git -C "$BUILD/base" checkout -q --detach base
}

# Wall time of a stage, for the summary.
now() { date +%s; }
