#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make warnings: compile the C files the series touches with sparse (C=2)
# and W=1, on the base and on the series, and fail if the series adds a
# warning.  Warnings are compared by file and message, without line
# numbers, so that moved code does not count as new.  Writes
# "pass fail skip" (one per file) to $BUILD/results/warnings.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_TREE=$BUILD/base
BASE_OBJ=$BUILD/obj-base
mkdir -p "$BUILD/results"
echo "0 1 0" > "$BUILD/results/warnings"
[ -f "$OBJ/.config" ] || "$TOP"/ci/build.sh

files=$(git -C "$TREE" diff --name-only base HEAD -- '*.c' |
	grep -v -e '^tools/' -e '^Documentation/' -e '/tests/' || true)
# Files that kernel/sched/build_{policy,utility}.c include (syscalls.c,
# debug.c, ...) do not compile on their own: check them through the
# unity build that includes them.
objs=""
for f in $files; do
	for unit in kernel/sched/build_policy.c kernel/sched/build_utility.c; do
		case $f in kernel/sched/*)
			if grep -q "^# *include \"${f#kernel/sched/}\"" "$TREE/$unit"; then
				f=$unit
			fi ;;
		esac
	done
	objs="$objs ${f%.c}.o"
done
objs=$(tr ' ' '\n' <<< "$objs" | sort -u | tr '\n' ' ')

banner "preparing the base tree for comparison"
base_worktree
mkdir -p "$BASE_OBJ"
cp "$OBJ/.config" "$BASE_OBJ/.config"
make -s -C "$BASE_TREE" O="$BASE_OBJ" ARCH=x86_64 CC="ccache gcc" olddefconfig
make -s -C "$BASE_TREE" O="$BASE_OBJ" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" prepare

# check TREE OBJDIR OUT: warnings of $objs, as "file: message" lines.
check() {
	local tree=$1 obj=$2 out=$3 o
	for o in $objs; do
		[ -f "$tree/${o%.o}.c" ] || continue
		rm -f "$obj/$o"
		make -s -C "$tree" O="$obj" ARCH=x86_64 CC="ccache gcc" \
			C=2 W=1 "$o" 2>&1 | grep -a ': warning: ' || true
	done | sed -e "s|^$tree/||" -e 's|:[0-9]*:[0-9]*: warning: |: warning: |' |
		sort > "$out"
}

banner "sparse and W=1 on:$objs"
check "$BASE_TREE" "$BASE_OBJ" "$BUILD/results/warnings.base"
check "$TREE" "$OBJ" "$BUILD/results/warnings.series"
# Lines in the series' list beyond their count in the base's list.
added=$(comm -13 "$BUILD/results/warnings.base" "$BUILD/results/warnings.series")
echo "warnings: base $(wc -l < "$BUILD/results/warnings.base")," \
     "series $(wc -l < "$BUILD/results/warnings.series")"
n=$(wc -w <<< "$objs")
if [ -n "$added" ]; then
	echo "warnings: the series adds:"
	echo "$added"
	echo "0 $n 0" > "$BUILD/results/warnings"
	exit 1
fi
echo "warnings: none added in$objs"
echo "$n 0 0" > "$BUILD/results/warnings"
