#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-irqsoff.sh COUNTS REPS LOCKED NEXT UNLOCK...: run by ci/irqsoff.sh
# (make irqsoff) in the guest of the irqsoff kernel, as root.
#
# How long does the waiter chain of sched_wait_block() keep interrupts
# off?  The storm (bench/src/storm.c) parks N waiters on one thread that
# then blocks once; the kernel wakes the first waiter and each waiter, as
# it leaves, wakes the next in sched_notify_del_waiter(), under the
# target's raw n->lock, interrupts off.  Three passes, each its own storms
# (COUNTS waiters, REPS times), so that no measurement sees another's
# instruments:
#
# steps  Every step: a kprobe on the instruction after the call of
#        _raw_spin_lock_irqsave() in sched_notify_del_waiter() (LOCKED,
#        an offset: interrupts are off and the lock is held) and one on
#        each call (or tail call) of _raw_spin_unlock_irqrestore()
#        (UNLOCK: still off), joined per CPU by a histogram trigger into
#        a synthetic event swb_step(lat_ns), whose histogram (1 us
#        buckets) is printed per N.  Nothing can interrupt or preempt the code in between; the
#        probes' own int3 handling is part of the figure.  The spin for
#        the lock is not (there is no contention in a chain: one waiter
#        leaves at a time).
# probe  The probes' own cost: the same pair on two adjacent instructions
#        (LOCKED and NEXT), as a floor to read the steps against.
# max    The machine: the irqsoff latency tracer's maximum over each storm
#        (storm -I), where that section started and ended.  Any section
#        counts, the chain's or not; an idle period of the same guest
#        gives the floor.
#
# Output: "IRQSOFF-HIST pass n=N" followed by the histogram, "IRQSOFF-MAX
# n=N rep=R us=X", "IRQSOFF-AT ...: => started/ended at: ...", and the
# storm's own BENCH lines.  A storm that fails, a probe that cannot be
# set, or a histogram that dropped entries fails the script.
set -u
[ $# -ge 5 ] || { echo "usage: $0 COUNTS REPS LOCKED NEXT UNLOCK..."; exit 2; }
COUNTS=$1 REPS=$2 LOCKED=$3 NEXT=$4
shift 4
T=/sys/kernel/tracing
F=sched_notify_del_waiter
HIST='hist:keys=lat_ns.buckets=1000:sort=lat_ns'
fail() { echo "guest-irqsoff: FAIL: $*"; exit 1; }

[ -d $T/events ] || mount -t tracefs nodev $T || fail "no tracefs"
# 10^4 threads, each a pid: the default limits scale with the guest's
# memory and may be lower.
for f in pid_max threads-max; do
	v=$(cat /proc/sys/kernel/$f)
	[ "$v" -ge 32768 ] || echo 32768 > /proc/sys/kernel/$f ||
		fail "cannot raise kernel.$f from $v"
done

# int3 probes throughout: a probe optimized into a jump later in the run
# would change its own cost between the passes.
echo 0 > /proc/sys/debug/kprobes-optimization ||
	fail "cannot turn kprobe optimization off"

# The probes and the two synthetic events, armed only while a trigger
# is on them (a histogram trigger enables its event).
echo "p:swb_locked $F+$LOCKED" >> $T/kprobe_events &&
echo "p:swb_next $F+$NEXT" >> $T/kprobe_events &&
echo 'swb_step u64 lat_ns' >> $T/synthetic_events &&
echo 'swb_probe u64 lat_ns' >> $T/synthetic_events ||
	fail "cannot define the probes at $F+$LOCKED, +$NEXT"
ends=
i=0
for off in "$@"; do
	echo "p:swb_unlock$i $F+$off" >> $T/kprobe_events ||
		fail "cannot define the probe at $F+$off"
	ends="$ends swb_unlock$i"
	i=$((i + 1))
done
echo "guest-irqsoff: probes at $F+$LOCKED (locked), +$NEXT (next), unlock at $*; trace clock $(cat $T/trace_clock)"

# storms: run the storm for each count, REPS times, or fail.
storms() {
	./storm -n "$1" -r "$REPS" > /tmp/storm.out 2>&1
	rc=$?
	cat /tmp/storm.out
	[ $rc -eq 0 ] || fail "storm -n $1 -r $REPS: exit $rc"
}

# pass NAME SYNTH FROM TO...: the histogram of SYNTH, FROM to any TO.
pass() {
	name=$1 synth=$2 from=$3
	shift 3
	start="hist:keys=common_cpu:ts0=common_timestamp"
	for n in $COUNTS; do
		echo "$start" >> $T/events/kprobes/$from/trigger ||
			fail "trigger on $from"
		for to in "$@"; do
			echo "hist:keys=common_cpu:lat=common_timestamp-\$ts0:onmatch(kprobes.$from).trace($synth,\$lat)" \
				>> $T/events/kprobes/$to/trigger || fail "trigger on $to"
		done
		echo "$HIST" >> $T/events/synthetic/$synth/trigger ||
			fail "histogram of $synth"
		storms "$n"
		echo "IRQSOFF-HIST $name n=$n"
		cat $T/events/synthetic/$synth/hist
		for ev in $from "$@"; do
			grep -E 'Dropped: [1-9]' $T/events/kprobes/$ev/hist &&
				fail "$ev: the histogram dropped entries"
		done
		echo "!$HIST" >> $T/events/synthetic/$synth/trigger
		for to in "$@"; do
			echo "!hist:keys=common_cpu:lat=common_timestamp-\$ts0:onmatch(kprobes.$from).trace($synth,\$lat)" \
				>> $T/events/kprobes/$to/trigger
		done
		echo "!$start" >> $T/events/kprobes/$from/trigger
	done
}

# shellcheck disable=SC2086
pass steps swb_step swb_locked $ends
pass probe swb_probe swb_locked swb_next
echo "guest-irqsoff: kprobe hits and misses:"
cat $T/kprobe_profile

echo irqsoff > $T/current_tracer || fail "no irqsoff tracer"
echo 1 > $T/tracing_on
echo 0 > $T/tracing_max_latency
sleep 3
echo 0 > $T/tracing_on
echo "IRQSOFF-MAX idle 3s us=$(cat $T/tracing_max_latency)"
grep -E '=> (started|ended) at' $T/trace | sed 's/^#/IRQSOFF-AT idle:/'
for n in $COUNTS; do
	r=1
	while [ $r -le "$REPS" ]; do
		echo 1 > $T/tracing_on
		./storm -I -n "$n" -r 1 > /tmp/storm.out 2>&1
		rc=$?
		cat /tmp/storm.out
		[ $rc -eq 0 ] || fail "storm -I -n $n: exit $rc"
		us=$(sed -n "s/^BENCH,storm,n$n,irqsoff_max_us,//p" /tmp/storm.out)
		[ -n "$us" ] || fail "storm -I -n $n printed no maximum"
		echo "IRQSOFF-MAX n=$n rep=$r us=$us"
		grep -E '=> (started|ended) at' $T/trace |
			sed "s/^#/IRQSOFF-AT n=$n rep=$r:/"
		r=$((r + 1))
	done
done
echo nop > $T/current_tracer
echo 1 > $T/tracing_on
echo "guest-irqsoff: done"
