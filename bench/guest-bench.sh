#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-bench.sh KERNEL-LABEL QUICK OUTDIR
#
# Run the sched_wait_block() guest benchmarks inside a guest (busybox sh).
#   KERNEL-LABEL  "patched" or "pristine" (or any other label: treated as
#                 pristine, i.e. no sched_wait_block() call is made)
#   QUICK         1: smoke test (1 repetition, -q runs), 0: full runs
#   OUTDIR        results.csv, raw sample files and logs go here
#
# pipe (same, cross) and hackbench run R times (5, or 1 when quick).  On
# "patched" every repetition runs in both states, "idle" (nothing waits
# in sched_wait_block()) and "armed" (./armer keeps waiters parked in the
# call), interleaved in ABBA order (odd repetitions idle first, even ones
# armed first); on other labels only "idle" runs.
# On "patched" it then runs handoff (4 methods x same/cross) and usecase
# (all policies x mixes 1:1, 5:1 x 1, 2 CPUs), in state "n/a".
#
# Every BENCH line becomes a row "kernel,state,bench,variant,metric,value,
# rep" of OUTDIR/results.csv.  The exit status is non-zero if any program
# failed; the other runs still go on.
#
# Environment: BIN (directory of the programs, default: this script's
# directory), HANDOFFS (samples per handoff run when not quick, default
# 2000), ARMER_OPTS (e.g. "-f" on a kernel without CFS bandwidth control;
# default none), BOOT (boot index, written to OUTDIR/meta.txt).

label=$1
quick=$2
outdir=$3
if [ -z "$label" ] || [ -z "$quick" ] || [ -z "$outdir" ]; then
	echo "usage: $0 KERNEL-LABEL QUICK(0|1) OUTDIR" >&2
	exit 2
fi
BIN=${BIN:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$outdir" || exit 1
csv=$outdir/results.csv
echo "kernel,state,bench,variant,metric,value,rep" > "$csv"
failures=0
armer_pid=

if [ "$quick" = 1 ]; then
	reps=1
	q=-q
else
	reps=5
	q=
fi

{
	echo "kernel_label=$label"
	echo "quick=$quick"
	echo "boot=${BOOT:-}"
	echo "uname=$(uname -a)"
	echo "cpus=$(nproc)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "armer_opts=${ARMER_OPTS:-}"
} > "$outdir/meta.txt"

fail() {
	echo "FAILED: $*"
	failures=$((failures + 1))
}

# run STATE REP NAME PROGRAM ARGS...: run one program, collect its figures
run() {
	state=$1
	rep=$2
	name=$3
	shift 3
	log=$outdir/$name.$(echo "$state" | tr / _).$rep.log
	echo "[$(date +%H:%M:%S)] $state rep $rep: $*"
	"$@" > "$log" 2>&1
	rc=$?
	grep '^BENCH,' "$log" | sed "s|^BENCH,|$label,$state,|; s|\$|,$rep|" >> "$csv"
	grep -v '^BENCH,' "$log"
	[ $rc = 0 ] || fail "$* (exit $rc)"
	return $rc
}

arm() {
	alog=$outdir/armer.$armed_count.log
	"$BIN/armer" ${ARMER_OPTS:-} > "$alog" 2>&1 &
	armer_pid=$!
	i=0
	while ! grep -q '^ARMED' "$alog" 2>/dev/null; do
		if ! kill -0 "$armer_pid" 2>/dev/null; then
			wait "$armer_pid"
			fail "armer exited with status $? (see $alog)"
			armer_pid=
			return 1
		fi
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			fail "armer not ARMED after 60 s"
			disarm
			return 1
		fi
		sleep 0.1
	done
	return 0
}

disarm() {
	[ -n "$armer_pid" ] || return 0
	kill -TERM "$armer_pid"
	wait "$armer_pid" || fail "armer exited with status $?"
	armer_pid=
	# The static key goes off one second after the last waiter left
	# (a deferred key): an idle run must not start before.
	sleep 2
}

trap 'disarm; exit 1' INT TERM

# cost_runs STATE REP: one repetition of every cost benchmark in STATE.
cost_runs() {
	run "$1" "$2" pipe-same "$BIN/pipe" $q -c same
	run "$1" "$2" pipe-cross "$BIN/pipe" $q -c cross
	run "$1" "$2" hackbench "$BIN/hackbench" $q
}

# armed_runs REP: the same with waiters parked.  The key is switched on
# once per repetition, not once per program: every switch patches kernel
# text, and under QEMU's multi-threaded TCG a switch sometimes ends in
# "Oops: int3" (any key, perf's too: bench/README.md).
armed_count=0
armed_runs() {
	armed_count=$((armed_count + 1))
	arm || return 1
	cost_runs armed "$1"
	disarm
}

echo "guest-bench: kernel $label ($(uname -r)), quick=$quick, $reps reps, $(nproc) CPUs"
# Idle and armed alternate in ABBA order across repetitions.
rep=1
while [ $rep -le $reps ]; do
	if [ "$label" != patched ]; then
		cost_runs idle $rep
	elif [ $((rep % 2)) = 1 ]; then
		cost_runs idle $rep
		armed_runs $rep
	else
		armed_runs $rep
		cost_runs idle $rep
	fi
	rep=$((rep + 1))
done

# Handoffs per method and placement in one boot: make bench pools the
# samples of its 5 boots, 10^4 in all.
if [ "$quick" = 1 ]; then
	handoffs=
else
	handoffs="-n ${HANDOFFS:-2000}"
fi
if [ "$label" = patched ]; then
	for m in futex swb perf proc; do
		for c in same cross; do
			run n/a 1 "handoff-$m-$c" "$BIN/handoff" $q $handoffs -m $m -c $c \
				-o "$outdir/handoff-$m-$c.csv"
		done
	done
	for mix in 1:1 5:1; do
		mname=$(echo $mix | tr : x)
		for p in 1 2; do
			run n/a 1 "usecase-$mname-${p}cpu" "$BIN/usecase" $q \
				-x $mix -p $p -P all \
				-o "$outdir/usecase-timeline-$mname-${p}cpu.csv"
		done
	done
fi

echo "guest-bench: $(($(wc -l < "$csv") - 1)) figures in $csv, $failures failures"
[ $failures = 0 ]
