#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make checkpatch: scripts/checkpatch.pl --strict over every patch of the
# queue ($QUEUE/series), and a check that MAINTAINERS.snippet is what the series puts
# into MAINTAINERS.  Writes "pass fail skip" (one per file) to
# $BUILD/results/checkpatch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD/results"
failed=$BUILD/results/checkpatch.failed	# for make check's summary
rm -f "$failed"
# scripts/spdxcheck.py wants Debian's python3-ply and python3-git, which
# a python3 earlier in PATH (pyenv, a venv) does not see.
export PATH=/usr/bin:$PATH

pass=0 fail=0
banner "checkpatch.pl --strict"
for patch in $(queue_patches); do
	# An exception is accepted only with its reason, below "---":
	#     checkpatch: TYPE: why this report is wrong here
	ignore=$(sed -n '/^---$/,/^diff --git/s/^    checkpatch: \([A-Z_]*\):.*/\1/p' \
		 "$QUEUE/$patch" | paste -sd, -)
	[ -z "$ignore" ] || echo "$patch: justified exceptions: $ignore"
	if (cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet --show-types \
		${ignore:+--ignore "$ignore"} "$QUEUE/$patch"); then
		echo "ok: $patch"
		pass=$((pass + 1))
	else
		echo "checkpatch: FAIL: $patch" | tee -a "$failed"
		fail=$((fail + 1))
	fi
done

banner "MAINTAINERS.snippet"
# checkpatch checks a MAINTAINERS entry only in a diff of MAINTAINERS, so
# check the series' diff of it, after making sure it adds the snippet.
if ! git -C "$TREE" show HEAD:MAINTAINERS | grep -qzF -- "$(cat "$TOP/MAINTAINERS.snippet")"; then
	echo "checkpatch: FAIL: MAINTAINERS.snippet is not the entry the series adds to MAINTAINERS" |
		tee -a "$failed"
	fail=$((fail + 1))
elif (cd "$TREE" && git diff base HEAD -- MAINTAINERS |
	./scripts/checkpatch.pl --strict --quiet --show-types --no-signoff -); then
	echo "ok: MAINTAINERS.snippet"
	pass=$((pass + 1))
else
	echo "checkpatch: FAIL: MAINTAINERS.snippet" | tee -a "$failed"
	fail=$((fail + 1))
fi
echo "$pass $fail 0" > "$BUILD/results/checkpatch"
echo "checkpatch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
