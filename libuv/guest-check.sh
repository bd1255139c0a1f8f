#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libuv/guest-check.sh RUN...: libuv's test suite in the QEMU guest, run by
# ci/libuv-check.sh.  Each RUN is BINARY:POLICY: uv_run_tests_a of the
# stock or the patched libuv (./run-tests-stock, ./run-tests-patched, both
# static), with UV_THREADPOOL_POLICY=POLICY (unset: "stock").  Every test
# runs on its own (uv_run_tests_a NAME), as nobody, in a fresh copy of
# test/fixtures, except those that guest-excluded excludes here (WHEN
# "always", or "no-inet" on a kernel without TCP/IP): they are counted as
# excluded, never run, never passed.  A test listed with WHEN
# "known:POLICY" runs, and its failure under that policy is counted as a
# known failure (xfail), apart, never as a pass.  Prints one "LIBUV-TEST:"
# line per test and one "LIBUV-SUMMARY:" line per run; exits 1 when a
# test failed (known failures aside).
# LIBUV_TESTS="a b c" runs only those tests.
set -u
here=$(pwd)

# What libuv's tests expect of a machine: loopback up, a hosts file, a
# user that is not root (the suite refuses root), a writable cwd and /tmp.
ip link set lo up 2>/dev/null
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' > /etc/hosts
printf 'hosts: files dns\n' > /etc/nsswitch.conf
: > /etc/resolv.conf
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n' > /etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' > /etc/group
chmod 1777 /tmp
# As Debian's build: no DNS retries, time-sensitive tests given more time
# (more again here: emulation).
export RES_OPTIONS=attempts:0
export UV_TEST_TIMEOUT_MULTIPLIER=${UV_TEST_TIMEOUT_MULTIPLIER:-10}

# The kernel's TCP/IP (CONFIG_INET) shows in /proc/net/tcp.
inet=no
[ -e /proc/net/tcp ] && inet=yes
echo "libuv-check: $(uname -r), $(nproc) CPUs, TCP/IP: $inet"

listed() {	# TEST WHEN...: prints the reason if guest-excluded lists it so
	awk -v t="$1" -v when="$2 ${3:-}" '
		BEGIN { n = split(when, w, " ") }
		/^#/ || NF < 3 { next }
		$1 == t { for (i = 1; i <= n; i++) if ($2 == w[i]) {
			$1 = ""; $2 = ""; sub(/^  */, ""); print; exit } }' \
		"$here/guest-excluded"
}

status=0
for run in "$@"; do
	bin=${run%%:*} policy=${run#*:}
	work=/tmp/libuv-$bin-$policy
	rm -rf "$work"
	mkdir -p "$work/test"
	cp -a "$here/fixtures" "$work/test/fixtures"
	cp "$here/run-tests-$bin" "$work/run-tests"
	chown -R nobody:nogroup "$work"
	if [ "$policy" = stock ]; then
		pol="unset UV_THREADPOOL_POLICY"
	else
		pol="export UV_THREADPOOL_POLICY=$policy"
	fi
	# The proof that the policy is in force in this guest: the patched
	# pool holds a concurrency group or a watch fd (uv_pool_bench).
	if [ "$bin" = patched ] && [ -x "$here/uv_pool_bench" ]; then
		probe=$(cd /tmp && su -p -s /bin/sh nobody -c \
			"$pol; $here/uv_pool_bench probe burst 8" 2>/dev/null)
		echo "LIBUV-PROBE: $bin $policy: kernel fd ${probe##*,}, $(echo "$probe" | cut -d, -f13) threads"
	fi
	tests=${LIBUV_TESTS:-$(cd "$work" && su -p -s /bin/sh nobody -c './run-tests --list' | awk '{ print $1 }')}
	pass=0 fail=0 skip=0 excl=0 xfail=0
	never=always
	[ $inet = yes ] || never="always no-inet"
	start=$(date +%s)
	for t in $tests; do
		why=$(listed "$t" $never)
		if [ -n "$why" ]; then
			echo "LIBUV-TEST: $bin $policy $t excluded ($why)"
			excl=$((excl + 1))
			continue
		fi
		out=$(cd "$work" && su -p -s /bin/sh nobody -c "$pol; ./run-tests $t" 2>&1)
		rc=$?
		line=$(echo "$out" | grep -E '^(not )?ok 1 - ' | head -1)
		case "$line" in
		"ok 1 - $t # SKIP"*)
			echo "LIBUV-TEST: $bin $policy $t skip (${line#*# SKIP })"
			skip=$((skip + 1)) ;;
		"ok 1 - $t")
			if [ $rc -eq 0 ]; then
				echo "LIBUV-TEST: $bin $policy $t pass"
				pass=$((pass + 1))
			else
				echo "LIBUV-TEST: $bin $policy $t fail (exit $rc)"
				fail=$((fail + 1))
			fi ;;
		*)	known=$(listed "$t" "known:$policy")
			if [ -n "$known" ]; then
				echo "LIBUV-TEST: $bin $policy $t xfail ($known)"
				xfail=$((xfail + 1))
			else
				echo "LIBUV-TEST: $bin $policy $t fail"
				fail=$((fail + 1))
			fi
			echo "$out" | sed 's/^/    /' | head -40 ;;
		esac
	done
	echo "LIBUV-SUMMARY: $bin $policy: $pass passed, $fail failed, $skip skipped, $excl excluded, $xfail known failures ($(($(date +%s) - start)) s)"
	[ $fail -eq 0 ] || status=1
	rm -rf "$work"
done
exit $status
