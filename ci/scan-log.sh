#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/scan-log.sh LOG: fail when a kernel console log holds a report of the
# kernel's own detectors (as the sched_ext CI does): BUG, WARNING, Oops,
# lockdep, KASAN/UBSAN, hung tasks, RCU stalls, kmemleak, panics; and the
# kernel's warnings about deprecated interfaces, which a new series must
# not use (7.2's system_wq, for one).
set -euo pipefail

log=$1
[ -s "$log" ] || { echo "scan-log: no console log $log"; exit 1; }
patterns=(
	'BUG:'
	'WARNING:'
	'Oops'
	'Kernel panic'
	'general protection fault'
	'possible recursive locking'
	'possible circular locking'
	'inconsistent lock state'
	'DEBUG_LOCKS_WARN_ON'
	'suspicious RCU usage'
	'KASAN:'
	'UBSAN:'
	'KCSAN:'
	'blocked for more than'
	'rcu: INFO:'
	'unreferenced object'
	'kmemleak: .* new suspected memory leaks'
	'enqueued on deprecated workqueue'
)
args=()
for p in "${patterns[@]}"; do
	args+=(-e "$p")
done
if grep -n "${args[@]}" "$log" > "$log.reports"; then
	echo "scan-log: $(wc -l < "$log.reports") kernel reports in $log:"
	head -20 "$log.reports"
	exit 1
fi
rm -f "$log.reports"
echo "scan-log: no kernel reports in $log"
