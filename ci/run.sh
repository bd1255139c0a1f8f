#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: build the patched kernel and the demos, boot QEMU, run them
# (demo/background_worker.c, then demo/lazy_pool.c), and exit with their
# status (2: no status).
# make run PROG=/path/to/static/binary ARGS="..." [EXTRA=dir]: run that
# program instead, from /guest, where EXTRA's contents are copied too.
# make shell (ci/run.sh --shell): boot to an interactive shell.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

shell=0
[ "${1:-}" = --shell ] && shell=1

"$TOP"/ci/build.sh
payload=$BUILD/demo
rm -rf "$payload" "$GUEST/extra"
mkdir -p "$payload" "$GUEST/extra/etc"

if [ -n "${PROG:-}" ]; then
	[ -f "$PROG" ] || die "PROG=$PROG: no such file"
	cp "$PROG" "$payload/"
	cmd="./$(basename "$PROG") ${ARGS:-}"
else
	banner "building the demos against the patched headers"
	for demo in background_worker lazy_pool; do
		gcc -O2 -Wall -static -pthread -isystem "$OBJ/usr/include" \
			-o "$payload/$demo" "$TOP/demo/$demo.c"
	done
	cmd="./background_worker ${ARGS:-} && ./lazy_pool"
fi
if [ -n "${EXTRA:-}" ]; then
	[ -d "$EXTRA" ] || die "EXTRA=$EXTRA: not a directory"
	cp -a "$EXTRA/." "$payload/"
fi
if [ $shell = 1 ]; then
	touch "$GUEST/extra/etc/guest-shell"
else
	echo "$cmd" > "$GUEST/extra/etc/guest-cmd"
fi
"$TOP"/ci/initramfs.sh "$GUEST/run.cpio" "$payload" >/dev/null

if [ $shell = 1 ]; then
	banner "booting to a shell; the payload is in /guest"
	exec "$TOP"/ci/qemu.sh -i "$GUEST/run.cpio"
fi
banner "booting QEMU: $cmd"
set +e
"$TOP"/ci/qemu.sh -t "${RUN_TIMEOUT:-600}" -l "$GUEST/run.log" "$GUEST/run.cpio"
rc=$?
set -e
status=$(grep -a 'GUEST-CMD-EXIT:' "$GUEST/run.log" | tail -1 | tr -dc '0-9')
echo "run: '$cmd' exited with ${status:-?} in the guest (qemu.sh: $rc)"
# Exit with the program's own status; 2 if the guest never reported one.
[ -n "$status" ] || exit 2
exit "$status"
