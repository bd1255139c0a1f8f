# SPDX-License-Identifier: GPL-2.0
# Common settings for the ci/ scripts: where things live, how to log.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux		# the kernel tree: git, base + kernel/ series
OBJ=$BUILD/obj			# kernel objects (kunit.py --build_dir, O=)
KST=$BUILD/kselftest		# installed selftests (INSTALL_PATH)
GUEST=$BUILD/guest		# initramfs and console logs
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
	--arch=x86_64
	--build_dir="$OBJ"
	--kunitconfig="$TREE/kernel/sched/.kunitconfig"
	--kunitconfig="$TOP/kunit/debug.config"
	--kunitconfig="$TOP/selftests/guest.config"
	"--make_options=CC=ccache gcc"
	--jobs="$JOBS"
)

# ccache, shared by every checkout on the machine: paths under $BUILD are
# hashed relative to it, so a fresh clone in another folder (as CI makes)
# hits the objects of an earlier build.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=true

# Wall time of a stage, for the summary.
now() { date +%s; }
