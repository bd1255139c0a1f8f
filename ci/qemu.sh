#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/qemu.sh [-i] [-t SECONDS] [-l LOG] INITRAMFS [KERNEL-ARGS...]
#
# Boot $KERNEL (default: $OBJ's bzImage) with INITRAMFS in QEMU, with
# $QEMU_EXTRA appended to QEMU's arguments.  The guest reports its
# verdict through the isa-debug-exit device (writing V to port 0xf4 makes
# QEMU exit with 2V+1), so this script exits 0 when the guest wrote 0,
# 1 when it wrote anything else, and 2 when the guest ended without a
# verdict: a panic, a reboot, or the host-side timeout (-t) running out.
# -i boots interactively (make shell); -l keeps the console in LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

interactive=0
timeout=${QEMU_TIMEOUT:-1800}
log=/dev/null
while getopts "it:l:" opt; do
	case $opt in
	i) interactive=1 ;;
	t) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	*) die "usage: $0 [-i] [-t SECONDS] [-l LOG] INITRAMFS [ARGS...]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: $0 [-i] [-t SECONDS] [-l LOG] INITRAMFS [ARGS...]"
initrd=$1
shift

kernel=${KERNEL:-$OBJ/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "no kernel at $kernel; run 'make kernel' first"

# panic=-1 with -no-reboot: a panic ends QEMU at once.  panic_on_warn: a
# WARN in the guest is a failure, not a line in a log nobody reads.
# loglevel=5: KERN_WARNING and worse reach the console, where scan-log.sh
# looks for them (lockdep reports are KERN_WARNING and do not WARN()).
append="console=ttyS0 panic=-1 panic_on_warn=1 kunit.enable=0 loglevel=5 $*"
# shellcheck disable=SC2207
cmd=(qemu-system-x86_64 -nodefaults -no-reboot -m "${QEMU_MEM:-2048}"
     -smp "${QEMU_SMP:-2}" $(qemu_accel_args) -bios qboot.rom
     -kernel "$kernel" -initrd "$initrd" -append "$append"
     -device isa-debug-exit,iobase=0xf4,iosize=0x04)
# After the console's -serial: a -serial in QEMU_EXTRA becomes ttyS1.
read -r -a extra <<< "${QEMU_EXTRA:-}"

if [ $interactive = 1 ]; then
	exec "${cmd[@]}" -nographic -serial mon:stdio "${extra[@]}"
fi

set +e
timeout -k 10 "$timeout" "${cmd[@]}" -display none -serial stdio "${extra[@]}" \
	< /dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
case $rc in
1) exit 0 ;;			# the guest wrote 0
124|137) echo "qemu: no verdict after ${timeout}s: killed" >&2; exit 2 ;;
0) echo "qemu: the guest ended without a verdict (panic or reboot)" >&2; exit 2 ;;
*) [ $((rc % 2)) = 1 ] && exit 1
   echo "qemu: exit status $rc" >&2; exit 2 ;;
esac
