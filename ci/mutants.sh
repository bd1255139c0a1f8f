#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants [MUTANTS="name ..."]: prove that the tests can fail.  Each
# mutant breaks the series (or the harness) in one known way, in the
# working copy of the tree; the stage named for it must then fail, by a
# test or a detector that the summary names, and the mutant is undone.
# Exits non-zero if some mutant survived, or its stage failed before it
# tested anything (ERROR in the summary: not counted as caught).  The
# mutants cover the three series: sched_wait_block() and the block
# notification it shares (wait-block), concurrency.c (concurrency), and
# watch.c (watch).  Some are bugs for the kernel's detectors rather than
# for the tests: a wakeup, or a group's slot handed over, under the rq
# lock, a lock dropped (lockdep), a sleeping lock taken with preemption
# off on PREEMPT_RT (DEBUG_ATOMIC_SLEEP, on the RT kernel of make
# check-rt: stage "kunit@rt"), a lost put_task_struct() (kmemleak), a
# waiter's entry left queued, a member that exits with its slot (the
# WARN in sched_notify_free()); the summary names what caught each.
# Several answer findings of the reviews (see the cover letters), and
# some bring back what the 6.12 series did that 7.2 made wrong.
# Not part of make check: each mutant costs an incremental build and a
# boot.  Results go to $BUILD/mutants/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; mutants need a clean tree"

# name|file|old text|new text|stage that must catch it|what it breaks
MUTANTS_TABLE=$(cat <<'TABLE'
preemption|kernel/sched/core.c|			sched_notify_blocked(rq, prev, prev_state);\n		switch_count = \&prev->nvcsw;\n	}\n|			sched_notify_blocked(rq, prev, prev_state);\n		switch_count = \&prev->nvcsw;\n	} else if (preempt \&\& prev_state) {\n		sched_notify_blocked(rq, prev, prev_state);\n	}\n|kunit|count every switch-out with a sleeping state, preemption included, as the 2009 prototype did (prev->state != 0)
rtlock-is-a-block|kernel/sched/core.c|		if (block \&\& sched_mode != SM_RTLOCK_WAIT)|		if (block)|kunit@rt|count a PREEMPT_RT sleeping spinlock's wait as a block, as the 6.12 series did (it made ALL_BLOCKED true while every thread was runnable)
blocked-now-runnable|kernel/sched/syscalls.c|		ret = sched_notify_task_blocked(p) ? 0 : -EAGAIN;|		ret = task_is_runnable(p) ? -EAGAIN : 0;|kunit|read "blocked now" as "not runnable", as the 6.12 series did: a mutex waiter that proxy execution keeps queued reads as running
blocked-now-on-rq|kernel/sched/syscalls.c|		ret = sched_notify_task_blocked(p) ? 0 : -EAGAIN;|		ret = READ_ONCE(p->on_rq) ? -EAGAIN : 0;|kunit|read "blocked now" as "off the run queue": a task that a delayed dequeue (or proxy execution) keeps queued reads as running
no-exit-wakeup|kernel/sched/sched.h|	WRITE_ONCE(n->seq, n->seq + (prev_state == TASK_DEAD ?\n				     SCHED_NOTIFY_DEAD : SCHED_NOTIFY_BLOCK));|	if (prev_state == TASK_DEAD)\n		return;\n	WRITE_ONCE(n->seq, n->seq + SCHED_NOTIFY_BLOCK);|kunit|do not tell the waiters of a task that it died
level-triggered|kernel/sched/syscalls.c|	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;|	if (!task_is_runnable(wb->p))\n		return 0;|kunit|wait for the blocked state instead of the block event, as the 2009 prototype did
exit-before-block|kernel/sched/syscalls.c|	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;\n	if (seq \& SCHED_NOTIFY_DEAD)\n		return -ESRCH;|	if (seq \& SCHED_NOTIFY_DEAD)\n		return -ESRCH;\n	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;|kunit|report the exit before a block counted earlier, as v1 did (review finding 10)
count-while-waited|kernel/sched/sched.h|	if (!n)\n		return;\n	lockdep_assert_rq_held(rq);|	if (!n)\n		return;\n	if (!READ_ONCE(n->nr_waiters))\n		return;\n	lockdep_assert_rq_held(rq);|kunit|count blocks only while somebody waits, as v1 did: a block between two calls is lost (review finding 4)
no-prewake|kernel/sched/core.c|	sched_notify_submit(tsk);\n|\n|kunit|no wakeup before the switch: two context switches per handoff on one CPU
chain-break|kernel/sched/core.c|	if (first)\n		sched_notify_wake_first(n, 0);|	(void)first;|kunit|a waiter that leaves does not wake the next one: only the first of many waiters learns of a block
key-per-call|kernel/sched/syscalls.c|	wb->p = p;\n	wb->n = NULL;\n	wb->queued = false;\n|	wb->p = p;\n	wb->n = NULL;\n	wb->queued = false;\n	static_branch_inc(\&sched_notify_key.key);\n|kunit|take the static key in every call, as v1 did (review finding 5)
wake-under-rq-lock|kernel/sched/sched.h|	if (READ_ONCE(n->nr_waiters))\n		rq->notify_prev = n;\n|	if (READ_ONCE(n->nr_waiters))\n		__sched_notify_wake(n);\n|kunit|wake the waiters from __schedule(), under the rq lock, as the 2009 prototype did (lockdep)
sleeping-lock-on-rt|kernel/sched/core.c|	raw_spin_lock_irqsave(\&n->lock, flags);\n	sched_notify_wake_first(n, is_idle_task(current) ? WF_CURRENT_CPU : 0);|	__wake_up(__var_waitqueue(n), TASK_NORMAL, 1, NULL);\n	raw_spin_lock_irqsave(\&n->lock, flags);\n	sched_notify_wake_first(n, is_idle_task(current) ? WF_CURRENT_CPU : 0);|kunit@rt|take a spinlock_t in finish_task_switch(), as v1 did (__wake_up() on a hashed wait queue): a sleeping lock on PREEMPT_RT (review finding 1)
no-permission|kernel/sched/syscalls.c|	if (!ptrace_may_access(p, PTRACE_MODE_READ_REALCREDS)) {\n		ret = -EPERM;|	if (0) {\n		ret = -EPERM;|selftests=sched_wait_block:sched_wait_block_security|skip the ptrace_may_access() check
no-exec-recheck|kernel/sched/syscalls.c|	if (p->self_exec_id != wb->exec_id \&\&|	if (0 \&\& p->self_exec_id != wb->exec_id \&\&|selftests=sched_wait_block:sched_wait_block_security|report a block after a setuid exec of the target to a waiter that may not watch the new image (review finding 3)
restart-fresh|kernel/sched/syscalls.c|			ret = -ERESTART_RESTARTBLOCK;|			ret = -ERESTARTNOHAND;|selftests=sched_wait_block:sched_wait_block_test|restart with the full relative timeout and a new snapshot, as v1 did (review finding 4)
warn-in-guest|kernel/sched/syscalls.c|	ret = wait_block_check_args(pid, flags);\n	if (ret)\n		return ret;\n\n	if (timeout) {|	WARN_ON_ONCE(pid == 1);\n	ret = wait_block_check_args(pid, flags);\n	if (ret)\n		return ret;\n\n	if (timeout) {|selftests=sched_wait_block:sched_wait_block_test|a WARN_ON hit while the selftests run
broken-selftest|tools/testing/selftests/sched_wait_block/sched_wait_block_test.c|	EXPECT_EQ(EDEADLK, errno);|	EXPECT_EQ(EPERM, errno);|selftests=sched_wait_block:sched_wait_block_test|a selftest that expects the wrong errno
missing-put|kernel/sched/syscalls.c|	put_task_struct(p);\n\n	return ret;\n}\n\nstatic long sched_wait_block_restart|\n	return ret;\n}\n\nstatic long sched_wait_block_restart|selftests=sched_wait_block:sched_wait_block_test|leak the reference the system call takes on its target (kmemleak)
waiter-left-queued|kernel/sched/syscalls.c|	if (wb->queued)\n		sched_notify_del_waiter(wb->n, \&wb->w);|	if (wb->queued \&\& wait_block_result(wb) != -ESRCH)\n		sched_notify_del_waiter(wb->n, \&wb->w);|kunit|leave the waiter's on-stack entry queued when its target exits (list debugging, KASAN, the WARN in sched_notify_free())
failing-kunit|kernel/sched/tests/wait_block_kunit.c|	KUNIT_EXPECT_EQ(test, -EDEADLK, sched_wait_block_task(current, NULL));|	KUNIT_EXPECT_EQ(test, -EPERM, sched_wait_block_task(current, NULL));|kunit|a KUnit case that expects the wrong error
conc-no-eviction|kernel/sched/concurrency.c|	if (n->conc_role == CONC_FG \&\& v) {|	if (0 \&\& n->conc_role == CONC_FG \&\& v) {|kunit|a foreground member queues behind a background holder instead of evicting it
conc-no-fallback|kernel/sched/sched.h|	if (!sched_conc_holds_slot(n))\n		return false;\n	WRITE_ONCE(n->conc_release_pending, true);|	if (1)\n		return false;\n	WRITE_ONCE(n->conc_release_pending, true);|kunit|blocks that skip sched_submit_work() (rt_mutex, PI futex, RT locks) keep their slot
conc-park-keeps-nothing|kernel/sched/sched.h|	       READ_ONCE(n->conc_state) != SCHED_CONC_NOSLOT \&\&\n	       !n->conc_in_park;|	       READ_ONCE(n->conc_state) != SCHED_CONC_NOSLOT;|kunit|count the park sleep as a block: a parked member loses its place in the queue each time it is woken
conc-release-under-rq-lock|kernel/sched/sched.h|	if (sched_conc_release_later(p, n))\n		rq->notify_prev = n;|	if (sched_conc_release_later(p, n))\n		__sched_conc_release_pending(n);|kunit|hand the slot over from __schedule(), under the rq lock (lockdep)
conc-park-killable|kernel/sched/concurrency.c|		set_current_state(TASK_INTERRUPTIBLE);\n		if (READ_ONCE(n->conc_state) != SCHED_CONC_PARKED)|		set_current_state(TASK_KILLABLE);\n		if (READ_ONCE(n->conc_state) != SCHED_CONC_PARKED)|selftests=sched_concurrency:sched_concurrency_test|park in TASK_KILLABLE: a stop does not reach a parked member
conc-no-exec-leave|fs/exec.c|	sched_concurrency_exec();\n|\n|selftests=sched_concurrency:sched_concurrency_test|a member that executes a new program stays in the group
conc-no-permission|kernel/sched/concurrency.c|	if (!ptrace_may_access(p, PTRACE_MODE_ATTACH_REALCREDS)) {|	if (0) {|selftests=sched_concurrency:sched_concurrency_test|ADD without the ptrace attach check: anybody restrains anybody
conc-no-slice-tick|kernel/sched/core.c|	sched_conc_tick(curr);\n|\n|kunit|the tick never ends a slice: members that never block never take turns
conc-slice-any-role|kernel/sched/concurrency.c|	       READ_ONCE(g->nr_parked[READ_ONCE(n->conc_role)]) \&\&|	       READ_ONCE(g->nr_parked[0]) + READ_ONCE(g->nr_parked[1]) \&\&|kunit|a foreground holder past its slice yields to a parked background member
conc-slice-no-fresh|kernel/sched/concurrency.c|	WRITE_ONCE(n->conc_since, 0);\n	WRITE_ONCE(n->conc_state, SCHED_CONC_HOLDS);|	WRITE_ONCE(n->conc_state, SCHED_CONC_HOLDS);|kunit|a new slot keeps the old slice: a member re-admitted after a rotation is over its slice at once
conc-width-off-by-one|kernel/sched/concurrency.c|	g->free = attr->width;|	g->free = attr->width + 1;|kunit|admission off by one: a group of width N admits N + 1 members
conc-evict-no-kick|kernel/sched/concurrency.c|	set_notify_resume(v->task);\n}|}|kunit|evict without the kick: the victim runs user code on until it enters the kernel by itself
conc-wake-under-lock|kernel/sched/concurrency.c|	g->wake_task = NULL;\n	raw_spin_unlock_irqrestore(\&g->lock, flags);\n	if (p)\n		conc_wake(g, p, wake_flags);\n|	g->wake_task = NULL;\n	if (p)\n		conc_wake(g, p, wake_flags);\n	raw_spin_unlock_irqrestore(\&g->lock, flags);\n|kunit|wake the member a slot is handed to under the group's raw spinlock, as the first 6.12 series did (correct, and no lock cycle: conc_wake()'s lockdep_assert_not_held() in every handoff of the KUnit suite)
conc-handoff-no-wake|kernel/sched/concurrency.c|	if (READ_ONCE(next->conc_in_park)) {|	if (0) {|kunit|hand a slot to a parked member without waking it: it sleeps on with the slot
conc-rotate-not-queued|kernel/sched/concurrency.c|	conc_release(g, n, WF_CURRENT_CPU, SCHED_WATCH_SLOT_ROTATED);\n	conc_admit(g, n);|	conc_release(g, n, WF_CURRENT_CPU, SCHED_WATCH_SLOT_ROTATED);|kunit|a rotated member is not queued again: it runs on without a slot
conc-leave-unlocked|kernel/sched/concurrency.c|	conc_lock_irqsave(g, \&flags);\n	if (n->conc != g) {\n		conc_unlock_irqrestore(g, flags);\n		return false;|	if (n->conc != g) {\n		conc_unlock_irqrestore(g, flags);\n		return false;|kunit|leave without the group's lock (lockdep: the release asserts it, the unlock is unbalanced)
conc-tick-ignores-grant|kernel/sched/concurrency.c| conc_slice_ext_granted(curr))| false)|kunit|the tick kicks a member inside an rseq time slice extension: it parks with a user lock held
conc-exit-keeps-slot|kernel/sched/concurrency.c|	smp_mb();\n	conc_leave_current(0);|	smp_mb();|selftests=sched_concurrency:sched_concurrency_test|a member that exits keeps its slot (and its group, in the freed task: the WARN in sched_notify_free())
watch-no-block-record|kernel/sched/watch.c|		raw_spin_lock(\&e->w->lock);\n		watch_set_state(e, true, cpu_of(rq));|		raw_spin_lock(\&e->w->lock);|kunit|a block writes no BLOCK record
watch-no-wake-record|kernel/sched/watch.c|		raw_spin_lock(\&w->lock);\n		watch_set_state(e, false, cpu_of(rq));|		raw_spin_lock(\&w->lock);|kunit|a wakeup writes no WAKE record
watch-wake-unlocked|kernel/sched/watch.c|		raw_spin_lock(\&w->lock);\n		watch_set_state(e, false, cpu_of(rq));\n		raw_spin_unlock(\&w->lock);|		watch_set_state(e, false, cpu_of(rq));|kunit|write the WAKE without the fd's lock (lockdep)
watch-all-blocked-never-ends|kernel/sched/watch.c|	watch_push(w, 0, all ? SCHED_WATCH_ALL_BLOCKED :\n			       SCHED_WATCH_ALL_BLOCKED_END, 0, 0);|	if (all)\n		watch_push(w, 0, SCHED_WATCH_ALL_BLOCKED, 0, 0);|kunit|ALL_BLOCKED is never ended
watch-overflow-count-wrong|kernel/sched/watch.c|			    w->dropped);\n		WRITE_ONCE(w->dropped, 0);|			    w->dropped - 1);\n		WRITE_ONCE(w->dropped, 0);|kunit|an OVERFLOW record counts one event less than were dropped
watch-no-permission|kernel/sched/watch.c|	if (!ptrace_may_access(p, PTRACE_MODE_READ_REALCREDS)|	if (!true|selftests=sched_watch:sched_watch_test|ADD without the ptrace read check: anybody watches anybody
watch-no-exit-record|kernel/sched/watch.c|	while ((e = watch_first(n)))\n		watch_end(e, SCHED_WATCH_EXIT, 0);\n	rcu_read_unlock();\n}|	while ((e = watch_first(n)))\n		watch_end(e, 0, 0);\n	rcu_read_unlock();\n}|kunit|an exit ends the watch without an EXIT record
watch-lazy-eager|kernel/sched/watch.c|	if (!(w->flags \& SCHED_WATCH_LAZY))\n		return head != tail;|	return head != tail;|kunit|a lazy fd wakes its reader at every record
watch-poll-self|kernel/sched/watch.c|	if (watch_watches_current(w))\n		mask|	if (0)\n		mask|kunit|a thread the fd watches polls it without EPOLLERR: its own BLOCK wakes it for ever
watch-added-runnable|kernel/sched/watch.c|	blocked = sched_notify_task_blocked(p);|	blocked = !task_is_runnable(p);|kunit|ADD reads a mutex waiter that proxy execution keeps queued as runnable, as the 6.12 series did
ttwu-runnable-no-wake|kernel/sched/core.c|	if (blocked)\n		sched_notify_woken(rq, p);\n|	(void)blocked;\n|kunit|the wakeup that undoes a block which left the task queued (a delayed dequeue, or a mutex waiter proxy execution kept), in ttwu_runnable(), records no WAKE
TABLE
)

mkdir -p "$BUILD/mutants"
out=$BUILD/mutants/summary
: > "$out"
survived=0 errors=0
# Six fields a row: a "|" in a text (C's ||) would shift the rest.
bad=$(awk -F'|' 'NF && NF != 6 { print $1 }' <<< "$MUTANTS_TABLE")
[ -z "$bad" ] || die "mutants table: rows without six fields: $bad"
while IFS="|" read -r name file old new catcher why; do
	[ -n "$name" ] || continue
	case " ${MUTANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
	banner "mutant $name: $why"
	python3 - "$TREE/$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
old = old.replace('\\n', '\n').replace('\\&', '&')
new = new.replace('\\n', '\n').replace('\\&', '&')
s = open(path).read()
if s.count(old) != 1:
    sys.exit(f"mutant does not apply to {path}")
open(path, 'w').write(s.replace(old, new))
PY
	set +e
	log=$BUILD/mutants/$name.log
	# make check, limited to the stage that must catch the mutant, on
	# the variant named after "@" (kunit@rt: the PREEMPT_RT kernel).
	# A selftests mutant may name the tests to run after "=" (the
	# collection's own test is enough to catch it, and a run of the four
	# takes twelve minutes here); MUTANT_TESTS overrides every row.
	variant=kasan tests="sched_wait_block:sched_wait_block_test sched_wait_block:sched_wait_block_security sched_concurrency:sched_concurrency_test sched_watch:sched_watch_test"
	case $catcher in *=*) tests=${catcher#*=} catcher=${catcher%%=*} ;; esac
	case $catcher in *@*) variant=${catcher#*@} catcher=${catcher%@*} ;; esac
	VARIANT=$variant STAGES=$catcher \
		TESTS=${MUTANT_TESTS:-$tests} \
		KUNIT_TIMEOUT=600 SELFTESTS_TIMEOUT=1200 \
		"$TOP"/ci/check.sh > "$log" 2>&1
	rc=$?
	set -e
	git -C "$TREE" checkout -q -- "$file"
	# What caught it: the kernel's detectors first, then the tests.
	# (kunit.sh starts each run without a console log: scan-log's count
	# is this boot's.  [CRASHED]: a case that hung until kunit.py's
	# timeout.  "not ok" at the left margin: a selftest collection's
	# own verdict, a TIMEOUT included.  No modpost WARNING, and a clean
	# kmemleak scan is no catch.)
	caught=$( { grep -a -o -E 'possible (recursive|circular) locking[^"]*|BUG: [A-Za-z]+[^"]*|unreferenced object [^"]*|KMEMLEAK: [^"]*|list_[a-z]+ corruption[^"]*|blocked for more than[^"]*|rcu: INFO[^"]*' "$log"
		  grep -a -E '\[FAILED\]|\[CRASHED\]|^# not ok|^not ok |FAIL |WARNING:|Kernel panic|scan-log: [0-9]' "$log" |
		  grep -a -v 'WARNING: modpost'; } | grep -a -v 'KMEMLEAK: clean' |
		 awk '!seen[$0]++' | head -5 | tr -s ' ' | cut -c1-150 || true)
	# A failed stage kills the mutant only if a test or a detector says
	# so: a stage that failed before it tested anything (the tree could
	# not be set up, the build broke) proves nothing either way.
	if [ $rc -eq 0 ]; then
		echo "SURVIVED $name ($catcher)" | tee -a "$out"
		survived=$((survived + 1))
	elif [ -z "$caught" ]; then
		echo "ERROR    $name ($catcher): the stage failed, but no test or detector did; see $log" | tee -a "$out"
		errors=$((errors + 1))
	else
		echo "killed   $name ($catcher): $(echo "$caught" | paste -sd';' -)" | tee -a "$out"
	fi
done <<< "$MUTANTS_TABLE"
"$TOP"/ci/build.sh > /dev/null	# leave the kernel built from the series
echo "mutants: $survived survived, $errors not tested"
[ $survived -eq 0 ] && [ $errors -eq 0 ]
