#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bisect: build every prefix of the series (base+1, base+2, ...) with
# the test kernel's configuration, in a worktree of $TREE and a build
# folder of its own, so that a bisection never lands on a commit that
# does not build, with our selftests from the patch that adds them.
# Only x86_64 is built: the arch patch's other tables
# are not compiled here.  Not part of make check (a build per step).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

WT=$BUILD/bisect
BOBJ=$BUILD/obj-bisect
[ -f "$OBJ/.config" ] || "$TOP"/ci/build.sh
[ -d "$WT" ] || git -C "$TREE" worktree add -q --detach "$WT" base
mkdir -p "$BOBJ" "$BUILD/results"
ok=0 bad=0
for c in $(git -C "$TREE" rev-list --reverse base..HEAD); do
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	banner "building $(git -C "$TREE" log -1 --format=%h "$c") $subject"
	git -C "$WT" checkout -q --detach "$c"
	# The full test configuration each time, so that options a patch
	# adds (the KUnit suite) are on from the patch that adds them.
	cp "$OBJ/.config" "$BOBJ/.config"
	make -s -C "$WT" O="$BOBJ" ARCH=x86_64 CC="ccache gcc" olddefconfig
	# The kernel, then (from the patch that adds them) our selftests
	# against this prefix's uapi headers: the test patches change no
	# kernel build input, their bisectability is the selftests build.
	targets=
	for t in sched_wait_block sched_concurrency sched_watch; do
		[ ! -d "$WT/tools/testing/selftests/$t" ] || targets="$targets $t"
	done
	if make -s -C "$WT" O="$BOBJ" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" \
		> "$BOBJ/build-$c.log" 2>&1 &&
	   { [ -z "$targets" ] ||
	     { make -s -C "$WT" O="$BOBJ" ARCH=x86_64 headers &&
	       rm -rf "$BOBJ/kselftest" &&
	       LDFLAGS=-static make -s -C "$WT/tools/testing/selftests" \
		O="$BOBJ" TARGETS="${targets# }" \
		KHDR_INCLUDES="-isystem $BOBJ/usr/include"; } \
		>> "$BOBJ/build-$c.log" 2>&1; }; then
		echo "ok: $subject"
		ok=$((ok + 1))
	else
		echo "FAIL: $subject"
		tail -20 "$BOBJ/build-$c.log"
		bad=$((bad + 1))
	fi
done
echo "$ok $bad 0" > "$BUILD/results/bisect"
echo "bisect: $ok prefixes build, $bad do not"
[ $bad -eq 0 ]
