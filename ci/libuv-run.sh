#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make libuv-run SRC=prog.c [POLICY=group|lazy] [ARGS="..."] [EXTRA=dir]
# make libuv-run PROG=/static/binary ...
#
# Run a libuv program on the patched kernel in one command: SRC is built
# statically against libuv with libuv/series (build/libuv/obj-patched),
# then booted in the QEMU guest (as make run does) with
# UV_THREADPOOL_POLICY=POLICY (unset: the stock pool).  PROG runs a
# program built by other means.  The kernel is chosen as in make
# libuv-check (KERNEL=... picks one).  Exits with the program's status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LDIR=$TOP/build/libuv
[ -n "${SRC:-}${PROG:-}" ] || die "make libuv-run SRC=prog.c (or PROG=/static/binary) [POLICY=group|lazy] [ARGS=...]"
kernel=${KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$BUILD/bench-patched/arch/x86/boot/bzImage
	[ -f "$kernel" ] || kernel=$OBJ/arch/x86/boot/bzImage
	[ -f "$kernel" ] || { "$TOP"/ci/build.sh; }
fi
[ -f "$kernel" ] || die "no kernel at $kernel"
kobj=$(cd "$(dirname "$kernel")/../../.." && pwd)

payload=$LDIR/run-payload guest=$LDIR/run-guest
rm -rf "$payload" "$guest"
mkdir -p "$payload" "$guest/extra/etc"
if [ -n "${SRC:-}" ]; then
	[ -f "$SRC" ] || die "SRC=$SRC: no such file"
	"$TOP"/ci/libuv-build.sh
	name=$(basename "${SRC%.c}")
	banner "building $SRC against the patched libuv"
	gcc -O2 -Wall -static -pthread -I "$LDIR/src/include" -o "$payload/$name" \
		"$SRC" "$LDIR/obj-patched/libuv_a.a" 2>&1 |
		grep -v -e 'in statically linked applications requires' -e 'in function' || true
	[ -x "$payload/$name" ] || die "$SRC does not build"
else
	[ -f "$PROG" ] || die "PROG=$PROG: no such file"
	name=$(basename "$PROG")
	cp "$PROG" "$payload/"
fi
if [ -n "${EXTRA:-}" ]; then
	[ -d "$EXTRA" ] || die "EXTRA=$EXTRA: not a directory"
	cp -a "$EXTRA/." "$payload/"
fi
cmd="./$name ${ARGS:-}"
[ -z "${POLICY:-}" ] || cmd="UV_THREADPOOL_POLICY=$POLICY $cmd"
echo "$cmd" > "$guest/extra/etc/guest-cmd"
INITRAMFS_ROOT=$guest/root INITRAMFS_EXTRA=$guest/extra KSELFTEST=0 \
GEN_OBJ=$kobj "$TOP"/ci/initramfs.sh "$guest/run.cpio" "$payload" > /dev/null

banner "booting $kernel ($SMP vCPUs): $cmd"
set +e
KERNEL=$kernel QEMU_SMP=$SMP "$TOP"/ci/qemu.sh -t "${RUN_TIMEOUT:-600}" \
	-l "$guest/run.log" "$guest/run.cpio"
rc=$?
set -e
status=$(grep -a 'GUEST-CMD-EXIT:' "$guest/run.log" | tail -1 | tr -dc '0-9')
echo "libuv-run: '$cmd' exited with ${status:-?} in the guest (qemu.sh: $rc)"
[ -n "$status" ] || exit 2
exit "$status"
