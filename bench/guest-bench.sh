#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-bench.sh KERNEL-LABEL QUICK OUTDIR
#
# Run the sched_wait_block() guest benchmarks inside a guest (busybox sh).
#   KERNEL-LABEL  "patched" or "pristine" (or any other label: treated as
#                 pristine, i.e. no sched_wait_block() or
#                 sched_concurrency_create() call is made)
#   QUICK         1: smoke test (1 repetition, -q runs), 0: full runs
#   OUTDIR        results.csv, raw sample files and logs go here
#
# pipe (same, cross) and hackbench run R times (5, or 1 when quick).  On
# "patched" every repetition runs in both states, "idle" (no task is
# watched: the static key is off) and "armed" (./armer keeps waiters
# parked in the call on a spinning child: the key is on), interleaved in
# ABBA order (odd repetitions idle first, even ones armed first); on other
# labels only "idle" runs.
# On "patched" it then runs, in state "n/a": handoff (7 methods x
# same/cross, latency and context switches per handoff), usecase (all
# policies, the concurrency group's included, x mixes 1:1, 5:1 x 1, 2
# CPUs), the M:N worker pool (pool, every policy, with N = 2 and N = 1
# slots), the pre-wake counts (pipe -w same and cross, hackbench -w -T),
# the waiter storm (storm) and the watch fd figures (watchmany: 1000
# threads on one fd against 1000 perf fds, and the event rate).
#
# BENCH_MODE=icount: the guest runs under QEMU's -icount shift=0,sleep=off,
# where guest time counts instructions.  Only the cost benchmarks that run
# on one CPU run, pipe -c same and hackbench, with -I (figures in
# instructions), R = 5 (2 when quick) repetitions per state, ABBA as
# above; nothing else.
#
# The static key (second version of the series) is held by every watched
# task, a task that somebody called sched_wait_block() on, from the first
# call until the task is freed, plus one second.  A watched task has
# notify.* lines in /proc/<pid>/task/<tid>/sched: before every idle run,
# unwatched() waits until no task has them.
#
# Every BENCH line becomes a row "kernel,state,bench,variant,metric,value,
# rep" of OUTDIR/results.csv.  The exit status is non-zero if any program
# failed; the other runs still go on.
#
# Environment: BIN (directory of the programs, default: this script's
# directory), HANDOFFS (samples per handoff run when not quick, default
# 2000), SWITCH_ROUNDS (handoff's -s: rounds that count context switches,
# default the program's: 500, 50 when quick), ARMER_OPTS (e.g. "-f" on a
# kernel without CFS bandwidth control; default none), BOOT (boot index,
# written to OUTDIR/meta.txt), BENCH_MODE (wall, the default, or icount).

label=$1
quick=$2
outdir=$3
if [ -z "$label" ] || [ -z "$quick" ] || [ -z "$outdir" ]; then
	echo "usage: $0 KERNEL-LABEL QUICK(0|1) OUTDIR" >&2
	exit 2
fi
BIN=${BIN:-$(cd "$(dirname "$0")" && pwd)}
mode=${BENCH_MODE:-wall}
case $mode in
wall|icount) ;;
*)	echo "$0: BENCH_MODE=$mode: wall or icount" >&2; exit 2 ;;
esac
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
# Instruction counts vary little: two repetitions give a spread in QUICK.
[ "$mode" = icount ] && [ "$quick" = 1 ] && reps=2

{
	echo "kernel_label=$label"
	echo "quick=$quick"
	echo "boot=${BOOT:-}"
	echo "uname=$(uname -a)"
	echo "cpus=$(nproc)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "armer_opts=${ARMER_OPTS:-}"
	echo "mode=$mode"
} > "$outdir/meta.txt"

fail() {
	echo "FAILED: $*"
	failures=$((failures + 1))
}

# hang_report PID WHAT: the state, wait channel and kernel stack of each
# thread of PID, then every blocked task (sysrq w), on the console.
hang_report() {
	echo "HANG: $2 (pid $1) still runs after ${BENCH_PROG_LIMIT:-600} s"
	for t in /proc/$1/task/*; do
		echo "$t: $(cut -d' ' -f3 "$t/stat" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
		cat "$t/stack" 2>/dev/null
	done
	echo w > /proc/sysrq-trigger 2>/dev/null
}

# run STATE REP NAME PROGRAM ARGS...: run one program, collect its figures
run() {
	state=$1
	rep=$2
	name=$3
	shift 3
	log=$outdir/$name.$(echo "$state" | tr / _).$rep.log
	echo "[$(date +%H:%M:%S)] $state rep $rep: $*"
	"$@" > "$log" 2>&1 &
	pid=$!
	# A watchdog that sleeps, rather than polls, so as not to disturb
	# the figures: after BENCH_PROG_LIMIT seconds (default 600; no
	# program takes 60 here) it reports where the program's threads
	# sleep and kills it, so that a hang is diagnosed and costs one run,
	# not the guest's whole time.
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "${BENCH_PROG_LIMIT:-600}" &
		s=$!
		wait $s
		hang_report "$pid" "$*"
		kill -9 "$pid" 2>/dev/null
	) &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	grep '^BENCH,' "$log" | sed "s|^BENCH,|$label,$state,|; s|\$|,$rep|" >> "$csv"
	grep -v '^BENCH,' "$log"
	[ $rc = 0 ] || fail "$* (exit $rc)"
	return $rc
}

# watched: the tasks that have notify.* lines in their sched file, i.e.
# that somebody called sched_wait_block() on (none on other kernels).
watched() {
	grep -ls '^notify\.blocks' /proc/[0-9]*/task/[0-9]*/sched 2>/dev/null
}

# unwatched: wait until no task is watched (30 s at most).  Every watched
# task holds the static key until it is freed, plus one second.
unwatched() {
	i=0
	while [ -n "$(watched)" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			fail "watched tasks still alive after 30 s: $(watched | tr '\n' ' ')"
			return 1
		fi
		sleep 0.1
	done
	[ $i = 0 ] || { echo "unwatched: waited $i x 0.1 s"; sleep 2; }
	return 0
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
	# For the log: the child the waiters park on is a watched task.
	cpid=$(sed -n 's/^ARMED .* on pid \([0-9]*\).*/\1/p' "$alog")
	if [ -n "$cpid" ] && grep -qs '^notify\.blocks' "/proc/$cpid/task/$cpid/sched"; then
		echo "armer: child $cpid is watched"
	else
		echo "armer: child ${cpid:-?} shows no notify.* lines (first version of the series?)"
	fi
	return 0
}

disarm() {
	[ -n "$armer_pid" ] || return 0
	kill -TERM "$armer_pid"
	wait "$armer_pid" || fail "armer exited with status $?"
	armer_pid=
	# The armer reaps its child before it exits.  The static key goes
	# off one second after the child, the last watched task, is freed
	# (a deferred key): an idle run must not start before.
	unwatched
	sleep 2
}

trap 'disarm; exit 1' INT TERM

# cost_runs STATE REP: one repetition of every cost benchmark in STATE.
cost_runs() {
	[ "$1" != idle ] || unwatched
	if [ "$mode" = icount ]; then
		run "$1" "$2" pipe-same "$BIN/pipe" $q -I -c same
		run "$1" "$2" hackbench "$BIN/hackbench" $q -I
		return
	fi
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

echo "guest-bench: kernel $label ($(uname -r)), $mode mode, quick=$quick, $reps reps, $(nproc) CPUs"
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
[ -z "${SWITCH_ROUNDS:-}" ] || handoffs="$handoffs -s $SWITCH_ROUNDS"
if [ "$label" = patched ] && [ "$mode" = wall ]; then
	for m in futex futexblk swb watch watchpoll perf proc; do
		for c in same cross; do
			[ "$m.$c" != futexblk.cross ] || continue
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
	# The M:N pool: 8 workers, N slots (a concurrency group of width N
	# against semaphores); N = 1 is a global lock released at every block.
	for n in 2 1; do
		run n/a 1 "pool-$n" "$BIN/pool" $q -n $n -P all
	done
	# Pre-wakes: a waiter parked on the benchmarks' own threads.
	run n/a 1 prewake-pipe-same "$BIN/pipe" $q -w -c same
	run n/a 1 prewake-pipe-cross "$BIN/pipe" $q -w -c cross
	run n/a 1 prewake-hackbench "$BIN/hackbench" $q -w -T
	# The waiter storm: up to 10^4 threads (each also a pid).
	for f in pid_max threads-max; do
		v=$(cat /proc/sys/kernel/$f)
		if [ "$v" -lt 32768 ]; then
			echo 32768 > /proc/sys/kernel/$f ||
				fail "cannot raise kernel.$f from $v"
		fi
		echo "storm: kernel.$f=$(cat /proc/sys/kernel/$f)"
	done
	run n/a 1 storm "$BIN/storm" $q
	# Watch fds: 1000 threads on one fd against 1000 perf fds, then the
	# event rate with a small buffer (overflows on purpose) and the default,
	# and with the default on a lazy fd (the reader wakes at half full).
	for m in watch perf; do
		run n/a 1 "watchmany-$m" "$BIN/watchmany" $q -m $m -n 1000
	done
	for b in 64 1024; do
		run n/a 1 "watchmany-rate-b$b" "$BIN/watchmany" $q -m rate -b $b
	done
	run n/a 1 watchmany-rate-lazy-b1024 "$BIN/watchmany" $q -m rate -b 1024 -l
fi
# The one-CPU handoff in instructions: no switch counting (its /proc reads
# are not part of a handoff), no proc method (its 1 ms polling grid is
# time, not path length).
if [ "$label" = patched ] && [ "$mode" = icount ]; then
	for m in futex futexblk swb watch watchpoll perf; do
		run n/a 1 "handoff-$m-same" "$BIN/handoff" $q $handoffs -s 0 \
			-m $m -c same -o "$outdir/handoff-$m-same.csv"
	done
fi

echo "guest-bench: $(($(wc -l < "$csv") - 1)) figures in $csv, $failures failures"
[ $failures = 0 ]
