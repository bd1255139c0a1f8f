#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every stage, each timed, then one summary line
# "N passed, N failed, N skipped".  Exits non-zero if anything failed.
# STAGES picks stages; VARIANT (ci/lib.sh) picks the test kernel.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

STAGES=${STAGES:-"kunit selftests checkpatch warnings bench"}
mkdir -p "$BUILD/results"
rm -f "$BUILD"/results/*
declare -A secs status

t0=$(now)
if ! "$TOP"/ci/tree.sh; then
	echo "check: could not set up the tree"
	echo "0 passed, 1 failed"
	exit 1
fi
secs[tree]=$(($(now) - t0))

for s in $STAGES; do
	t0=$(now)
	# make check runs the benchmark programs as a smoke test only, in a
	# guest of its own test kernel (SMOKE=1: no kernels of their own).
	if QUICK=1 SMOKE=1 "$TOP/ci/$s.sh"; then status[$s]=ok; else status[$s]=FAILED; fi
	secs[$s]=$(($(now) - t0))
	[ -f "$BUILD/results/$s" ] || echo "0 1 0" > "$BUILD/results/$s"
done

total_pass=0 total_fail=0 total_skip=0
printf '\n==> summary\n%-12s %7s %7s %7s %8s  %s\n' stage passed failed skipped seconds status
printf '%-12s %7s %7s %7s %8s  %s\n' tree - - - "${secs[tree]}" ok
for s in $STAGES; do
	read -r p f k < "$BUILD/results/$s"
	printf '%-12s %7d %7d %7d %8d  %s\n' "$s" "$p" "$f" "$k" "${secs[$s]}" "${status[$s]}"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + k))
done
# What failed, by name: CI shows only the end of this output.
if cat "$BUILD"/results/*.failed 2>/dev/null | head -40 | grep .; then
	echo "(the first 40 lines; each stage's log above has the rest)"
fi
echo
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
