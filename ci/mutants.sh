#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants [MUTANTS="name ..."]: prove that the tests can fail.  Each
# mutant breaks the series (or the harness) in one known way, in the
# working copy of the tree; the stage named for it must then fail, and
# the mutant is undone.  Exits non-zero if some mutant survived.  Five
# mutants are bugs for the kernel's detectors rather than for the tests:
# a wakeup, or a group's slot handed over, under the rq lock (lockdep),
# a sleeping lock taken with
# preemption off on PREEMPT_RT (DEBUG_ATOMIC_SLEEP, on the RT kernel of
# make check-rt: stage "kunit@rt"), a lost put_task_struct() (kmemleak),
# a waiter's entry left queued; the summary names what caught each.
# Several answer findings of the review of v1 (see the cover letter).
# Not part of make check: each mutant costs an incremental build and a
# boot.  Results go to $BUILD/mutants/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; mutants need a clean tree"

# name|file|old text|new text|stage that must catch it|what it breaks
MUTANTS_TABLE=$(cat <<'TABLE'
preemption|kernel/sched/core.c|		if (try_to_block_task(rq, prev, \&prev_state))\n			sched_notify_blocked(rq, prev, prev_state);\n		switch_count = \&prev->nvcsw;\n	}\n|		try_to_block_task(rq, prev, \&prev_state);\n		switch_count = \&prev->nvcsw;\n	}\n	if (prev_state)\n		sched_notify_blocked(rq, prev, prev_state);\n|kunit|count every switch-out with a sleeping state, preemption included, as the 2009 prototype did (prev->state != 0)
no-exit-wakeup|kernel/sched/sched.h|	WRITE_ONCE(n->seq, n->seq + (prev_state == TASK_DEAD ?\n				     SCHED_NOTIFY_DEAD : SCHED_NOTIFY_BLOCK));|	if (prev_state == TASK_DEAD)\n		return;\n	WRITE_ONCE(n->seq, n->seq + SCHED_NOTIFY_BLOCK);|kunit|do not tell the waiters of a task that it died
level-triggered|kernel/sched/syscalls.c|	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;|	if (!task_is_runnable(wb->p))\n		return 0;|kunit|wait for the blocked state instead of the block event, as the 2009 prototype did
exit-before-block|kernel/sched/syscalls.c|	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;\n	if (seq \& SCHED_NOTIFY_DEAD)\n		return -ESRCH;|	if (seq \& SCHED_NOTIFY_DEAD)\n		return -ESRCH;\n	if ((seq \& ~SCHED_NOTIFY_DEAD) != wb->w.seq)\n		return 0;|kunit|report the exit before a block counted earlier, as v1 did (review finding 10)
count-while-waited|kernel/sched/sched.h|	if (!n)\n		return;\n	lockdep_assert_rq_held(rq);|	if (!n)\n		return;\n	if (!READ_ONCE(n->nr_waiters))\n		return;\n	lockdep_assert_rq_held(rq);|kunit|count blocks only while somebody waits, as v1 did: a block between two calls is lost (review finding 4)
no-prewake|kernel/sched/core.c|	sched_notify_submit(tsk);\n|\n|kunit|no wakeup before the switch: two context switches per handoff on one CPU
chain-break|kernel/sched/core.c|	if (first)\n		sched_notify_wake_first(n, 0);|	(void)first;|kunit|a waiter that leaves does not wake the next one: only the first of many waiters learns of a block
key-per-call|kernel/sched/syscalls.c|	wb->p = p;\n	wb->n = NULL;\n	wb->queued = false;\n|	wb->p = p;\n	wb->n = NULL;\n	wb->queued = false;\n	static_branch_inc(\&sched_notify_key.key);\n|kunit|take the static key in every call, as v1 did (review finding 5)
wake-under-rq-lock|kernel/sched/sched.h|	if (READ_ONCE(n->nr_waiters))\n		rq->notify_prev = n;\n|	if (READ_ONCE(n->nr_waiters))\n		__sched_notify_wake(n);\n|kunit|wake the waiters from __schedule(), under the rq lock, as the 2009 prototype did (lockdep)
sleeping-lock-on-rt|kernel/sched/core.c|	raw_spin_lock_irqsave(\&n->lock, flags);\n	/* If the blocked task left this CPU idle|	__wake_up(__var_waitqueue(n), TASK_NORMAL, 1, NULL);\n	raw_spin_lock_irqsave(\&n->lock, flags);\n	/* If the blocked task left this CPU idle|kunit@rt|take a spinlock_t in finish_task_switch(), as v1 did (__wake_up() on a hashed wait queue): a sleeping lock on PREEMPT_RT (review finding 1)
no-permission|kernel/sched/syscalls.c|	if (!ptrace_may_access(p, PTRACE_MODE_READ_REALCREDS)) {\n		ret = -EPERM;|	if (0) {\n		ret = -EPERM;|selftests|skip the ptrace_may_access() check
no-exec-recheck|kernel/sched/syscalls.c|	if (p->self_exec_id != wb->exec_id \&\&|	if (0 \&\& p->self_exec_id != wb->exec_id \&\&|selftests|report a block after a setuid exec of the target to a waiter that may not watch the new image (review finding 3)
restart-fresh|kernel/sched/syscalls.c|			ret = -ERESTART_RESTARTBLOCK;|			ret = -ERESTARTNOHAND;|selftests|restart with the full relative timeout and a new snapshot, as v1 did (review finding 4)
warn-in-guest|kernel/sched/syscalls.c|	ret = wait_block_check_args(pid, flags);\n	if (ret)\n		return ret;\n\n	if (timeout) {|	WARN_ON_ONCE(pid == 1);\n	ret = wait_block_check_args(pid, flags);\n	if (ret)\n		return ret;\n\n	if (timeout) {|selftests|a WARN_ON hit while the selftests run
broken-selftest|tools/testing/selftests/sched_wait_block/sched_wait_block_test.c|	EXPECT_EQ(EDEADLK, errno);|	EXPECT_EQ(EPERM, errno);|selftests|a selftest that expects the wrong errno
missing-put|kernel/sched/syscalls.c|	put_task_struct(p);\n\n	return ret;\n}\n\nstatic long sched_wait_block_restart|\n	return ret;\n}\n\nstatic long sched_wait_block_restart|selftests|leak the reference the system call takes on its target (kmemleak)
waiter-left-queued|kernel/sched/syscalls.c|	if (wb->queued)\n		sched_notify_del_waiter(wb->n, \&wb->w);|	if (wb->queued \&\& wait_block_result(wb) != -ESRCH)\n		sched_notify_del_waiter(wb->n, \&wb->w);|kunit|leave the waiter's on-stack entry queued when its target exits (list debugging, KASAN, the WARN in sched_notify_free())
failing-kunit|kernel/sched/tests/wait_block_kunit.c|	KUNIT_EXPECT_EQ(test, -EDEADLK, sched_wait_block_task(current, NULL));|	KUNIT_EXPECT_EQ(test, -EPERM, sched_wait_block_task(current, NULL));|kunit|a KUnit case that expects the wrong error
conc-no-eviction|kernel/sched/concurrency.c|	if (n->conc_role == CONC_FG \&\& v) {|	if (0 \&\& n->conc_role == CONC_FG \&\& v) {|kunit|a foreground member queues behind a background holder instead of evicting it
conc-no-fallback|kernel/sched/sched.h|	if (sched_conc_holds_slot(n)) {\n		WRITE_ONCE(n->conc_release_pending, true);|	if (0) {\n		WRITE_ONCE(n->conc_release_pending, true);|kunit|blocks that skip sched_submit_work() (rt_mutex, PI futex, RT locks) keep their slot
conc-park-keeps-nothing|kernel/sched/sched.h|	       READ_ONCE(n->conc_state) != SCHED_CONC_NOSLOT \&\&\n	       !n->conc_in_park;|	       READ_ONCE(n->conc_state) != SCHED_CONC_NOSLOT;|kunit|count the park sleep as a block: a parked member loses its place in the queue each time it is woken
conc-release-under-rq-lock|kernel/sched/sched.h|		WRITE_ONCE(n->conc_release_pending, true);\n		set_tsk_thread_flag(p, TIF_NOTIFY_RESUME);\n		rq->notify_prev = n;|		WRITE_ONCE(n->conc_release_pending, true);\n		set_tsk_thread_flag(p, TIF_NOTIFY_RESUME);\n		__sched_conc_release_pending(n);|kunit|hand the slot over from __schedule(), under the rq lock (lockdep)
conc-park-killable|kernel/sched/concurrency.c|		set_current_state(TASK_INTERRUPTIBLE);\n		if (READ_ONCE(n->conc_state) != SCHED_CONC_PARKED)|		set_current_state(TASK_KILLABLE);\n		if (READ_ONCE(n->conc_state) != SCHED_CONC_PARKED)|selftests|park in TASK_KILLABLE: a stop does not reach a parked member
conc-no-exec-leave|fs/exec.c|	sched_concurrency_exec();\n|\n|selftests|a member that executes a new program stays in the group
conc-no-permission|kernel/sched/concurrency.c|	if (!ptrace_may_access(p, PTRACE_MODE_ATTACH_REALCREDS)) {|	if (0) {|selftests|ADD without the ptrace attach check: anybody restrains anybody
conc-no-slice-tick|kernel/sched/core.c|	sched_conc_tick(curr);\n|\n|kunit|the tick never ends a slice: members that never block never take turns
conc-slice-any-role|kernel/sched/concurrency.c|	       READ_ONCE(g->nr_parked[READ_ONCE(n->conc_role)]) \&\&|	       READ_ONCE(g->nr_parked[0]) + READ_ONCE(g->nr_parked[1]) \&\&|kunit|a foreground holder past its slice yields to a parked background member
conc-slice-no-fresh|kernel/sched/concurrency.c|	WRITE_ONCE(n->conc_since, 0);\n	WRITE_ONCE(n->conc_state, SCHED_CONC_HOLDS);|	WRITE_ONCE(n->conc_state, SCHED_CONC_HOLDS);|kunit|a new slot keeps the old slice: a member re-admitted after a rotation is over its slice at once
TABLE
)

mkdir -p "$BUILD/mutants"
out=$BUILD/mutants/summary
: > "$out"
survived=0
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
	variant=kasan
	case $catcher in *@*) variant=${catcher#*@} catcher=${catcher%@*} ;; esac
	VARIANT=$variant STAGES=$catcher \
		TESTS=${MUTANT_TESTS:-sched_wait_block:sched_wait_block_test sched_wait_block:sched_wait_block_security sched_concurrency:sched_concurrency_test} \
		KUNIT_TIMEOUT=600 SELFTESTS_TIMEOUT=1200 \
		"$TOP"/ci/check.sh > "$log" 2>&1
	rc=$?
	set -e
	git -C "$TREE" checkout -q -- "$file"
	# What caught it: the kernel's detectors first, then the tests.
	caught=$( { grep -a -o -E 'possible (recursive|circular) locking[^"]*|BUG: [A-Za-z]+[^"]*|unreferenced object [^"]*|KMEMLEAK: [^"]*|list_[a-z]+ corruption[^"]*|blocked for more than[^"]*|rcu: INFO[^"]*' "$log"
		  grep -a -E '\[FAILED\]|^# not ok|FAIL |WARNING:|Kernel panic|scan-log: [0-9]' "$log"; } |
		 awk '!seen[$0]++' | head -5 | tr -s ' ' | cut -c1-150 || true)
	if [ $rc -ne 0 ]; then
		echo "killed   $name ($catcher): $(echo "$caught" | paste -sd';' -)" | tee -a "$out"
	else
		echo "SURVIVED $name ($catcher)" | tee -a "$out"
		survived=$((survived + 1))
	fi
done <<< "$MUTANTS_TABLE"
"$TOP"/ci/build.sh > /dev/null	# leave the kernel built from the series
echo "mutants: $survived survived"
[ $survived -eq 0 ]
