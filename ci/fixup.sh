#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fold the uncommitted changes of the kernel tree into the commit that
# matches a subject prefix: ci/fixup.sh "sched: Add sched_wait_block"
# A developer's convenience for keeping the series bisectable.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 SUBJECT-PREFIX"
commit=$(git -C "$TREE" log --format='%H %s' base..HEAD |
	 awk -v p="$1" 'index(substr($0, 42), p) == 1 { print $1; exit }')
[ -n "$commit" ] || die "no commit in base..HEAD starts with '$1'"
git -C "$TREE" add -A
git -C "$TREE" commit -q --fixup="$commit"
# --update-refs: the series/NAME branches move with their commits.
GIT_SEQUENCE_EDITOR=: git -C "$TREE" rebase -q -i --autosquash --update-refs base
git -C "$TREE" log --oneline base..HEAD
