#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Does KVM work here?  Nested KVM on the project's machines starts and then
# hangs in early boot or dies with "KVM internal error", so KVM is used only
# when asked for (KVM=1) and when this probe boots the built kernel, with
# ci/qemu.sh, to a trivial /init that reports through isa-debug-exit
# within a minute.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -w /dev/kvm ] || { echo "kvm-probe: no usable /dev/kvm"; exit 1; }
[ -f "$OBJ/arch/x86/boot/bzImage" ] || { echo "kvm-probe: no kernel yet"; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs dev /dev
printf '\000' | /bin/busybox dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
INIT
cat > "$dir/list" <<LIST
dir /bin 755 0 0
dir /dev 755 0 0
file /bin/busybox /bin/busybox 755 0 0
file /init $dir/init 755 0 0
LIST
"$OBJ/usr/gen_init_cpio" "$dir/list" > "$dir/probe.cpio"
if ACCEL="-accel kvm -cpu host" QEMU_MEM=512 "$TOP"/ci/qemu.sh -t 60 \
	-l "$dir/log" "$dir/probe.cpio" > /dev/null 2>&1; then
	echo "kvm-probe: KVM works"
	exit 0
fi
echo "kvm-probe: KVM failed ($(tail -1 "$dir/log")); using emulation"
exit 1
