# SPDX-License-Identifier: GPL-2.0
#
# sched_wait_block(), concurrency groups and watch fds: three patch series
# on Linux 7.2 (Debian's linux-source-7.2), with a backport to 6.12, tested
# in QEMU.  "make help" lists the targets; README.md explains them.

SHELL := /bin/bash
CI := ci

# make run PROG=/path/to/static/binary ARGS="..." EXTRA=dir
PROG ?=
ARGS ?=
EXTRA ?=
# make kunit FILTER=sched_wait_block.wb_test_timeout
FILTER ?=
# make selftests TESTS="sched_wait_block:sched_wait_block_test"
TESTS ?=
# make bench QUICK=1 (smoke test) or BOOTS=N (boots of each kernel)
QUICK ?=
BOOTS ?=
# make selftests SWB_STRESS_SECONDS=300 SWB_FUZZ_CALLS=1000000
# (any SWB_* or SCHED_CONC_* variable given to make reaches the guest)
SWB_STRESS_SECONDS ?=
SWB_FUZZ_CALLS ?=
TRINITY_SECONDS ?=
# make check BASE=6.12: the backport (kernel/backport-6.12/) instead of 7.2
BASE ?=
# make check SMP=4: guests with 4 (or 1, 8) vCPUs instead of 2
SMP ?=
export BASE SMP
export PROG ARGS EXTRA FILTER TESTS QUICK BOOTS SWB_STRESS_SECONDS \
	SWB_FUZZ_CALLS TRINITY_SECONDS

ifeq ($(V),1)
export SHELLOPTS := xtrace
endif

.PHONY: help deps tree series kernel kunit selftests checkpatch warnings \
	check mutants bisect irqsoff run shell clean distclean bench trinity regress \
	check-kcsan check-rt check-lazy check-arm64 libuv-check libuv-bench libuv-run

help:
	@echo 'Main commands:'
	@echo '  make run         build the patched kernel and boot the demo in QEMU'
	@echo '  make check       set up, then KUnit + selftests (debug kernel) + checkpatch'
	@echo '                   + warnings + make bench QUICK=1'
	@echo ''
	@echo 'Steps:'
	@echo '  make deps        install the Debian packages the build needs'
	@echo '  make tree        unpack linux-source-7.2 into build/linux, apply kernel/series'
	@echo '  make series      export build/linux to kernel/{wait-block,concurrency,watch}/'
	@echo '  make kernel      build the test kernel (kunit.py) in build/obj'
	@echo '  make kunit       kunit.py run [FILTER=suite.case]'
	@echo '  make selftests   kselftests in a QEMU guest [TESTS=collection:test]'
	@echo '  make checkpatch  checkpatch.pl --strict over kernel/ and MAINTAINERS.snippet'
	@echo '  make warnings    sparse + W=1 on the touched files: nothing added over the base'
	@echo '  make mutants     break the series on purpose; every mutant must be caught'
	@echo '  make bisect      build every prefix of the series (x86_64, small config)'
	@echo '  make irqsoff     interrupts-off time of the 10^4-waiter wake chain (tracers)'
	@echo '  make bench       pristine vs patched kernels: cost, latency, use case'
	@echo '                   [QUICK=1: a smoke test] [BOOTS=N, default 5]'
	@echo '  make trinity     trinity as nobody + the stress test [TRINITY_SECONDS=300]'
	@echo '  make regress     futex/pidfd/clone3/sched selftests, pristine vs patched'
	@echo '  make check-kcsan KUnit + selftests on a KCSAN kernel'
	@echo '  make check-rt    KUnit + selftests on a PREEMPT_RT kernel'
	@echo '  make check-lazy  KUnit + selftests on a PREEMPT_LAZY kernel'
	@echo '  make check-arm64 KUnit on arm64 (cross-built, qemu-system-aarch64)'
	@echo '  make libuv-check libuv'"'"'s test suite in the guest: stock libuv, then libuv/series'
	@echo '                   with UV_THREADPOOL_POLICY unset, group, lazy [SMP=N]'
	@echo '  make libuv-bench uv_queue_work benchmark: stock 4 and 64 threads, group, lazy,'
	@echo '                   on 2 and 4 vCPUs; writes libuv/bench-report.md'
	@echo '  make libuv-run SRC=prog.c [POLICY=group|lazy] [ARGS="..."]'
	@echo '                   a libuv program, linked with the patched libuv, in the guest'
	@echo '  make run PROG=/path/to/static/binary ARGS="..." [EXTRA=dir]'
	@echo '  make shell       boot the guest to an interactive shell'
	@echo '  make clean       remove build outputs, keep the tree'
	@echo '  make distclean   remove build/ entirely'
	@echo ''
	@echo 'Variables: BASE=6.12 (the backport: kernel/backport-6.12/, build/6.12/),'
	@echo '  SMP=1|2|4|8 (vCPUs of the guests, default 2), KVM=1 (use KVM if a probe'
	@echo '  boot works), JOBS=N, V=1'

deps:
	@$(CI)/deps.sh

tree:
	@$(CI)/tree.sh

series:
	@$(CI)/series.sh

kernel: tree
	@$(CI)/build.sh

kunit: tree
	@$(CI)/kunit.sh

selftests: tree
	@$(CI)/selftests.sh

checkpatch: tree
	@$(CI)/checkpatch.sh

warnings: tree
	@$(CI)/warnings.sh

check:
	@$(CI)/check.sh

mutants: tree
	@$(CI)/mutants.sh

bisect: tree
	@$(CI)/bisect.sh

bench:
	@$(CI)/bench.sh

trinity: tree
	@$(CI)/trinity.sh

regress: tree
	@$(CI)/regress.sh

irqsoff: tree
	@$(CI)/irqsoff.sh

check-kcsan:
	@VARIANT=kcsan STAGES="kunit selftests" $(CI)/check.sh

check-rt:
	@VARIANT=rt STAGES="kunit selftests" $(CI)/check.sh

check-lazy:
	@VARIANT=lazy STAGES="kunit selftests" $(CI)/check.sh

check-arm64:
	@$(CI)/deps.sh arm64
	@VARIANT=arm64 STAGES=kunit $(CI)/check.sh

run: tree
	@$(CI)/run.sh

libuv-check:
	@$(CI)/libuv-check.sh

libuv-bench:
	@$(CI)/libuv-bench.sh

# make libuv-run SRC=prog.c [POLICY=group|lazy] [ARGS="..."] [EXTRA=dir]
libuv-run:
	@$(CI)/libuv-run.sh

shell: tree
	@$(CI)/run.sh --shell

clean:
	rm -rf build/obj build/obj-* build/bench-* build/bench build/kselftest \
		build/kselftest-obj build/guest build/guest-* build/results \
		build/demo build/trinity

distclean:
	rm -rf build
