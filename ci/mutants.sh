#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants [MUTANTS="name ..."]: prove that the tests can fail.  Each
# mutant breaks the series (or the harness) in one known way, in the
# working copy of the tree; the stage named for it must then fail, and
# the mutant is undone.  Exits non-zero if some mutant survived.  Three
# mutants are bugs for the kernel's detectors rather than for the tests:
# a wakeup under the rq lock (lockdep), a lost put_task_struct()
# (kmemleak), a wait-queue entry left behind (caught first by
# __might_sleep(): the task is left TASK_INTERRUPTIBLE); the summary
# names what caught each.
# Not part of make check: each mutant costs an incremental build and a
# boot.  Results go to $BUILD/mutants/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; mutants need a clean tree"

# name|file|old text|new text|stage that must catch it|what it breaks
MUTANTS_TABLE=$(cat <<'TABLE'
preemption|kernel/sched/core.c|		if (try_to_block_task(rq, prev, \&prev_state))\n			sched_wait_block_blocked(rq, prev);\n		switch_count = \&prev->nvcsw;\n	}\n|		try_to_block_task(rq, prev, \&prev_state);\n		switch_count = \&prev->nvcsw;\n	}\n	if (prev_state)\n		sched_wait_block_blocked(rq, prev);\n|kunit|count every switch-out with a sleeping state, preemption included, as the 2009 prototype did (prev->state != 0)
no-exit-wakeup|kernel/sched/sched.h|	if (static_branch_unlikely(&sched_wait_block_active.key) \&\&\n	    p->sched_wait_block_waiters) {|	if (static_branch_unlikely(\&sched_wait_block_active.key) \&\&\n	    p->sched_wait_block_waiters \&\& !(p->flags \& PF_EXITING)) {|kunit|do not wake the waiters of an exiting task
level-triggered|kernel/sched/wait_block.c|	if (READ_ONCE(p->sched_wait_block_seq) != w->seq)|	if (!task_is_runnable(p))|kunit|wait for the blocked state instead of the block event, as the 2009 prototype did
no-permission|kernel/sched/wait_block.c|	else if (!ptrace_may_access(p, PTRACE_MODE_READ_REALCREDS))|	else if (0)|selftests|skip the ptrace_may_access() check
warn-in-guest|kernel/sched/wait_block.c|	ret = wait_block_check_args(pid, flags);|	WARN_ON_ONCE(pid == 1);\n	ret = wait_block_check_args(pid, flags);|selftests|a WARN_ON hit while the selftests run
broken-selftest|tools/testing/selftests/sched_wait_block/sched_wait_block_test.c|	EXPECT_EQ(EDEADLK, errno);\n	EXPECT_EQ(-1, sys_sched_wait_block(sys_gettid(), NULL, 0));|	EXPECT_EQ(EPERM, errno);\n	EXPECT_EQ(-1, sys_sched_wait_block(sys_gettid(), NULL, 0));|selftests|a selftest that expects the wrong errno
wake-under-rq-lock|kernel/sched/sched.h|		rq->wait_block_seq = \&p->sched_wait_block_seq;\n|		rq->wait_block_seq = \&p->sched_wait_block_seq;\n		sched_wait_block_wake(\&p->sched_wait_block_seq);\n|kunit|wake the waiters from __schedule(), under the rq lock, as the 2009 prototype did (lockdep)
missing-put|kernel/sched/wait_block.c|		ret = sched_wait_block_task(p, ktp);\n\n	put_task_struct(p);\n|		ret = sched_wait_block_task(p, ktp);\n\n|selftests|leak the reference the system call takes on its target (kmemleak)
wq-entry-left|kernel/sched/wait_block.c|	finish_wait(wq_head, \&wbq_entry.wq_entry);|	if (ret != -ESRCH)\n		finish_wait(wq_head, \&wbq_entry.wq_entry);|selftests|leave the waiter's wait-queue entry queued when its target exits (DEBUG_ATOMIC_SLEEP, KASAN, list debugging)
failing-kunit|kernel/sched/tests/wait_block_kunit.c|	KUNIT_EXPECT_EQ(test, -EDEADLK, sched_wait_block_task(current, NULL));|	KUNIT_EXPECT_EQ(test, -EPERM, sched_wait_block_task(current, NULL));|kunit|a KUnit case that expects the wrong error
TABLE
)

mkdir -p "$BUILD/mutants"
out=$BUILD/mutants/summary
: > "$out"
survived=0
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
	# make check, limited to the stage that must catch the mutant.
	STAGES=$catcher TESTS=sched_wait_block:sched_wait_block_test \
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
