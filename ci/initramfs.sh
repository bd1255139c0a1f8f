#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/initramfs.sh OUT.cpio [DIR]: pack the guest root (busybox-static, the
# guest's /init, the installed selftests in $KST if any, and DIR, if given,
# as /guest) with the kernel's own usr/gen_initramfs.sh.  Extra files for
# the root can be staged by the caller in $GUEST/extra before.
# KSELFTEST=0 leaves the selftests out; GEN_OBJ names the kernel build
# whose usr/gen_init_cpio packs the archive (default $OBJ).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
extra_dir=${2:-}
# INITRAMFS_ROOT, INITRAMFS_EXTRA: other folders for the root and the
# extra files (ci/libuv-*.sh, which may pack beside a running make check).
root=${INITRAMFS_ROOT:-$GUEST/root}
extra=${INITRAMFS_EXTRA:-$GUEST/extra}
rm -rf "$root"
mkdir -p "$root"/{bin,usr/bin,proc,sys,dev,tmp,etc,root,guest}
cp /bin/busybox "$root/bin/busybox"
install -m 755 "$TOP/selftests/init" "$root/init"
install -m 755 "$TOP/selftests/timeout" "$root/usr/bin/timeout"
[ "${KSELFTEST:-1}" = 1 ] && [ -d "$KST" ] && cp -a "$KST" "$root/kselftest"
[ -d "$extra" ] && cp -a "$extra/." "$root/"
[ -n "$extra_dir" ] && cp -a "$extra_dir/." "$root/guest/"
(cd "${GEN_OBJ:-$OBJ}" && "$TREE/usr/gen_initramfs.sh" -o "$out" "$root")
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
