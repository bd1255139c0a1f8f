#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: export the branch of $TREE (base..patchq) to kernel/ as
# git format-patch files and a quilt-style series file.  Deterministic:
# an unchanged branch rewrites identical files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; commit them first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --notes: a commit's git note (e.g. a justified checkpatch exception)
# goes below the "---" line, where reviewers read it and git am drops it.
git -C "$TREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
	--notes -o "$tmp" base..HEAD
{
	echo "# Patch queue for sched_wait_block(), applied in this order by 'make tree'."
	echo "# Base: Linux $(make -s -C "$TREE" kernelversion) from Debian package $(base_pkg_version) ($BASE_PKG)"
	(cd "$tmp" && ls -1 -- *.patch 2>/dev/null) || true
} > "$tmp/series"

rm -f "$TOP"/kernel/*.patch
cp "$tmp"/*.patch "$TOP"/kernel/ 2>/dev/null || true
cp "$tmp/series" "$TOP"/kernel/series
echo "series: exported $(grep -vc '^#' "$TOP"/kernel/series) patches to kernel/"
echo "$(queue_hash) $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/patchq-stamp"
