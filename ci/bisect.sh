#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bisect [BISECT_CONFIGS="on"] [BISECT_START=K]: build every prefix
# of the series (base+1, ...), each in a worktree of $TREE, so that a bisection
# never lands on a commit that does not build, with our selftests from
# the patch that adds them.  Only x86_64 is built: the arch patch's other
# tables are not compiled here.  Not part of make check (a build per
# step and configuration).
#
# Configurations, each from x86_64's tinyconfig, in a build folder of
# its own:
#   on   the series' kernel/sched/.kunitconfig (SMP, full preemption,
#        futexes, rt-mutexes, proxy execution and the rseq slice
#        extension on 7.2, KUnit, the three features and their KUnit
#        suites) and rseq: every line of the series compiled.
#   off  uniprocessor, the three features off (EXPERT): their stubs,
#        sys_ni.c's cond_syscall()s and every #ifdef around them.
#   test the test kernel's own configuration ($OBJ/.config: KASAN,
#        lockdep, a near-default x86_64 kernel).
# The default is "on": at every prefix.  Eleven of the 32 prefixes change
# a header that every file includes, or a Kconfig symbol (autoconf.h),
# and are a full rebuild: about four minutes for "on" here, fifteen for
# "test".  A prefix fails on a build error, on a wanted option that this
# prefix's Kconfig knows but did not take, and on a compiler warning in
# a file the series has touched up to it (the objects of the touched .c
# files are rebuilt at every prefix, from ccache if nothing changed, so
# that a warning shows at every prefix that still has it).
# After the last prefix, the whole series is built in the others: off,
# "on" without SMP (on-up), and with one feature at a time
# (only-wait-block, only-concurrency, only-watch: the #ifdefs between
# them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CONFIGS=${BISECT_CONFIGS:-on}
WT=$BUILD/bisect
[ -d "$WT" ] || git -C "$TREE" worktree add -q --detach "$WT" base
mkdir -p "$BUILD/results"
kmake() { make -s -C "$WT" ARCH=x86_64 CC="ccache gcc" "$@"; }

# want NAME: the options configuration NAME asks for.
want() {
	local on
	on="$(git -C "$TREE" show HEAD:kernel/sched/.kunitconfig | grep '^CONFIG_')
CONFIG_RSEQ=y"
	case $1 in
	on)	echo "$on" ;;
	on-up)	grep -qx CONFIG_SMP=y <<< "$on" || die "on-up: on has no CONFIG_SMP=y"
		sed 's/^CONFIG_SMP=y$/# CONFIG_SMP is not set/' <<< "$on" ;;
	only-*)
		local keep out f
		keep=SCHED_$(tr a-z- A-Z_ <<< "${1#only-}")
		case $keep in
		SCHED_WAIT_BLOCK|SCHED_CONCURRENCY|SCHED_WATCH) ;;
		*)	return 1 ;;
		esac
		out=$on
		for f in SCHED_WAIT_BLOCK SCHED_CONCURRENCY SCHED_WATCH; do
			[ "$f" = "$keep" ] && continue
			out=$(grep -v -E "^CONFIG_$f(_KUNIT_TEST)?=" <<< "$out"
			      echo "# CONFIG_$f is not set")
		done
		# The other suites build on sched_wait_block's.
		[ "$keep" = SCHED_WAIT_BLOCK ] ||
			out=$(grep -v -E "^CONFIG_${keep}_KUNIT_TEST=" <<< "$out")
		echo "$out" ;;
	off)	echo "# CONFIG_SMP is not set
CONFIG_EXPERT=y
# CONFIG_SCHED_WAIT_BLOCK is not set
# CONFIG_SCHED_CONCURRENCY is not set
# CONFIG_SCHED_WATCH is not set" ;;
	*)	return 1 ;;
	esac
}

# configure NAME OBJ: the .config of configuration NAME at this prefix.
configure() {
	local name=$1 obj=$2 wanted line sym
	if [ "$name" = test ]; then
		[ -f "$OBJ/.config" ] || "$TOP"/ci/build.sh || return 1
		cp "$OBJ/.config" "$obj/.config" || return 1
		kmake O="$obj" olddefconfig || return 1
		return 0
	fi
	wanted=$(want "$name") || return 1
	kmake O="$obj" tinyconfig || return 1
	# The later of two assignments wins (kconfig says "override").
	echo "$wanted" >> "$obj/.config"
	kmake O="$obj" olddefconfig || return 1
	# Every wanted value that this prefix's Kconfig knows must hold.
	while read -r line; do
		sym=$(sed -E 's/^# (CONFIG_[A-Z0-9_]+) is not set$/\1/; s/=.*//' <<< "$line")
		git -C "$WT" grep -q -E "^(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*' ||
			continue
		grep -qxF -- "$line" "$obj/.config" ||
			{ echo "bisect: $name: $line did not hold"; return 1; }
	done <<< "$wanted"
}

# build NAME COMMIT: configure and build NAME at the checked-out prefix.
build() {
	local name=$1 c=$2 obj=$BUILD/obj-bisect-$1 log files touched
	mkdir -p "$obj"
	log=$obj/build-$c.log
	if ! configure "$name" "$obj" > "$log" 2>&1; then
		echo "FAIL ($name, configuration): $subject"
		tail -20 "$log"
		return 1
	fi
	# Recompile what the series touched so far (ccache hits, with their
	# warnings, unless the code changed): a warning left in a file that
	# this prefix would not rebuild still shows.
	# (By their paths in the tree: a .o.cmd names a .c that another
	# includes, as build_utility.c does debug.c, relative to $obj.)
	touched=$(git -C "$WT" diff --name-only base HEAD -- '*.c' | sed 's|^|/|')
	if [ -n "$touched" ]; then
		find "$obj" -name '.*.o.cmd' -print0 |
			xargs -0 grep -l -F -f <(echo "$touched") |
			sed -E 's|/[.]([^/]*[.]o)[.]cmd$|/\1|' | xargs -r rm -f
	fi
	if ! kmake O="$obj" -j"$JOBS" >> "$log" 2>&1; then
		echo "FAIL ($name): $subject"
		tail -20 "$log"
		return 1
	fi
	# Warnings in what the series touched so far, by path.
	files=$(git -C "$WT" diff --name-only base HEAD -- '*.c' '*.h' |
		sed 's/[.]/[.]/g' | paste -sd'|')
	if [ -n "$files" ] && grep -E "(^|/)($files):[0-9]+:[0-9]+: warning:" "$log"; then
		echo "FAIL ($name, warnings): $subject"
		return 1
	fi
}

for name in $CONFIGS; do
	[ "$name" = test ] || want "$name" > /dev/null ||
		die "BISECT_CONFIGS: on, off or test, not $name"
done
# BISECT_START=K: begin at the K-th prefix (an interrupted run goes on).
start=${BISECT_START:-1}
ok=0 bad=0 k=0
for c in $(git -C "$TREE" rev-list --reverse base..HEAD); do
	k=$((k + 1))
	[ $k -ge "$start" ] || continue
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	banner "building $(git -C "$TREE" log -1 --format=%h "$c") $subject ($CONFIGS)"
	git -C "$WT" checkout -q --detach "$c"
	good=1
	for name in $CONFIGS; do
		build "$name" "$c" || good=0
	done
	# Our selftests (from the patch that adds them) against this
	# prefix's uapi headers: the test patches change no kernel build
	# input, their bisectability is the selftests build.
	targets=
	for t in sched_wait_block sched_concurrency sched_watch; do
		[ ! -d "$WT/tools/testing/selftests/$t" ] || targets="$targets $t"
	done
	sobj=$BUILD/obj-bisect-selftests
	if [ -n "$targets" ]; then
		mkdir -p "$sobj"
		{ kmake O="$sobj" headers &&
		  rm -rf "$sobj/kselftest" &&
		  LDFLAGS=-static make -s -C "$WT/tools/testing/selftests" \
			O="$sobj" TARGETS="${targets# }" \
			KHDR_INCLUDES="-isystem $sobj/usr/include"; } \
			> "$sobj/build-$c.log" 2>&1 ||
			{ echo "FAIL (selftests:$targets): $subject"
			  tail -20 "$sobj/build-$c.log"; good=0; }
	fi
	if [ $good = 1 ]; then
		echo "ok: $subject"
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
	fi
done
# The whole series in the other configurations.
case " $CONFIGS " in
*" on "*)
	# The tip, also when BISECT_START skipped every prefix.
	c=$(git -C "$TREE" rev-parse HEAD)
	git -C "$WT" checkout -q --detach "$c"
	for name in off on-up only-wait-block only-concurrency only-watch; do
		case " $CONFIGS " in *" $name "*) continue ;; esac
		subject="the series, $name"
		banner "building the whole series: $name"
		if build "$name" "$c"; then
			echo "ok: $subject"
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
	done ;;
esac
echo "$ok $bad 0" > "$BUILD/results/bisect"
echo "bisect: $ok builds good, $bad not ($CONFIGS; the selftests at every prefix that has them)"
[ $bad -eq 0 ]
