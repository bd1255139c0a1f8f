# SPDX-License-Identifier: GPL-2.0
# Common settings for the ci/ scripts: where things live, how to log.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux		# the kernel tree: git, base + kernel/ series
OBJ=$BUILD/obj			# kernel objects (kunit.py --build_dir, O=)
KST=$BUILD/kselftest		# installed selftests (INSTALL_PATH)
GUEST=$BUILD/guest		# initramfs and console logs

KSTOBJ=$BUILD/kselftest-obj	# selftests' objects
SELFTEST_TARGETS=$TOP/selftests/targets

# Which test kernel: kasan (make check), kcsan (make check-kcsan), rt
# (make check-rt), arm64 (make check-arm64), or for make regress, the
# same debug kernel with every KUnit suite, from the pristine tree
# (regress-pristine) or from the series (regress-patched).  All but kasan
# build in folders of their own.
VARIANT=${VARIANT:-kasan}
case $VARIANT in
kasan)	ARCH=x86_64 ;;
kcsan|rt|regress-pristine|regress-patched)
	ARCH=x86_64 OBJ=$BUILD/obj-$VARIANT GUEST=$BUILD/guest-$VARIANT
	KST=$BUILD/kselftest-$VARIANT KSTOBJ=$BUILD/kselftest-obj-$VARIANT ;;
arm64)	ARCH=arm64 OBJ=$BUILD/obj-arm64 GUEST=$BUILD/guest-arm64 ;;
*)	echo "VARIANT=$VARIANT: kasan, kcsan, rt, arm64, regress-*" >&2; exit 1 ;;
esac
case $VARIANT in
regress-*)
	SELFTEST_TARGETS=$TOP/selftests/regress-targets ;;
esac
[ "$VARIANT" = regress-pristine ] && TREE=$BUILD/base
BASE_PKG=linux-source-6.12
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
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

# Debian version of the installed base package, e.g. 6.12.118-1~deb12u1.
base_pkg_version() {
	dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null
}

# A hash of the patch queue as committed in kernel/.
queue_hash() {
	cat "$TOP"/kernel/series "$TOP"/kernel/*.patch 2>/dev/null | sha1sum | cut -d' ' -f1
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

# What kunit.py is told in every stage: same build folder, same configs.
KUNIT_ARGS=(
	--arch="$ARCH"
	--build_dir="$OBJ"
	--kunitconfig="$TOP/kunit/debug.config"
	--jobs="$JOBS"
)
case $VARIANT in
arm64)	KUNIT_ARGS+=(--kunitconfig="$TREE/kernel/sched/.kunitconfig"
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
[ "$VARIANT" = rt ] && KUNIT_ARGS+=(--kconfig_add=CONFIG_PREEMPT=n)
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
