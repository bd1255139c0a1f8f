#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make trinity [TRINITY_SECONDS=N]: Debian's trinity syscall fuzzer in the
# debug guest, unprivileged (user nobody), for a bounded time, while our
# stress selftest keeps sched_wait_block() busy: waiters parked, the
# static key on, the hooks in __schedule() and finish_task_switch() taken
# by whatever trinity's children do.  Trinity does not know the new
# system call by number; the stress test and the fuzz selftest call it,
# trinity shakes the rest of the kernel around it.
#
# Fails if trinity or the stress test did not run, if the stress test
# failed, or if the console shows a kernel report (ci/scan-log.sh).
# Not part of make check: see README.md for why and for the times.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

secs=${TRINITY_SECONDS:-300}
mkdir -p "$BUILD/results"
echo "0 1 0" > "$BUILD/results/trinity"	# until proven otherwise

"$TOP"/ci/deps.sh trinity
"$TOP"/ci/build.sh

banner "packing trinity, its libraries and the stress test"
payload=$BUILD/trinity
rm -rf "$payload" "$GUEST/extra"
mkdir -p "$payload" "$GUEST/extra/etc"
src=$TREE/tools/testing/selftests/sched_wait_block
gcc -O2 -Wall -static -pthread -isystem "$OBJ/usr/include" \
	-I "$TREE/tools/testing/selftests" \
	-o "$payload/sched_wait_block_stress" "$src/sched_wait_block_stress.c"
cp /usr/bin/trinity "$payload/"
# trinity is linked dynamically: its loader and libraries go where
# ldd found them.
for lib in $(ldd /usr/bin/trinity | grep -o '/[^ ]*'); do
	mkdir -p "$GUEST/extra$(dirname "$lib")"
	cp -L "$lib" "$GUEST/extra$lib"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp/nobody:/bin/sh\n' \
	> "$GUEST/extra/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$GUEST/extra/etc/group"
cat > "$GUEST/extra/etc/guest-cmd" <<EOF
SWB_STRESS_SECONDS=$secs ./sched_wait_block_stress > /tmp/stress.log 2>&1 &
stress=\$!
mkdir -p /tmp/nobody/victims && echo data > /tmp/nobody/victims/file &&
	chown -R nobody:nogroup /tmp/nobody
cd /tmp/nobody && cp /guest/trinity .
# Trinity's own watchdog gives up ("locking catastrophe") when its
# children hold its locks for long, which happens under emulation: run
# it again until the time is up, and count the system calls it made.
end=\$((\$(date +%s) + $secs))
runs=0 calls=0
while [ \$(date +%s) -lt \$end ]; do
	left=\$((end - \$(date +%s)))
	su -s /bin/sh nobody -c "timeout \$left ./trinity -l off -C 2 -s \$runs -V /tmp/nobody/victims --disable-fds=sockets" \
		> /tmp/trinity.log 2>&1
	rc=\$?
	n=\$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' /tmp/trinity.log | tail -1)
	runs=\$((runs + 1)) calls=\$((calls + \${n:-0}))
	echo "trinity run \$runs: exit \$rc, \${n:-no count of} syscalls; \$(grep -a -m1 'Bailing\|exit_reason' /tmp/trinity.log)"
done
echo "TRINITY: \$runs runs, \$calls syscalls in $secs s"
wait \$stress
rc=\$?
cat /tmp/stress.log
echo "STRESS-EXIT: \$rc"
[ \$rc -eq 0 ]
EOF
"$TOP"/ci/initramfs.sh "$GUEST/trinity.cpio" "$payload" > /dev/null

banner "booting: trinity for ${secs}s as nobody, with the stress test"
set +e
"$TOP"/ci/qemu.sh -t $((secs + 900)) -l "$GUEST/trinity.log" "$GUEST/trinity.cpio"
rc=$?
set -e
fail=0
summary=$(grep -a 'TRINITY: ' "$GUEST/trinity.log" | tr -d '\r' | tail -1)
echo "trinity: ${summary:-no summary}"
calls=$(sed -n 's/.* \([0-9]*\) syscalls in .*/\1/p' <<< "$summary")
[ "${calls:-0}" -gt 0 ] || { echo "trinity: made no system calls"; fail=1; }
grep -a -q 'STRESS-EXIT: 0' "$GUEST/trinity.log" ||
	{ echo "trinity: the stress test failed"; fail=1; }
"$TOP"/ci/scan-log.sh "$GUEST/trinity.log" || fail=1
[ $rc -eq 0 ] || fail=1
echo "$((1 - fail)) $fail 0" > "$BUILD/results/trinity"
echo "trinity: $([ $fail = 0 ] && echo passed || echo FAILED); console: $GUEST/trinity.log"
[ $fail -eq 0 ]
