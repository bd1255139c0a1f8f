#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: export the branch of $TREE (base..patchq) to kernel/ as
# git format-patch files and a quilt-style series file, with a cover
# letter (0000-cover-letter.patch: the subject and text of
# kernel/cover-letter, then git's shortlog and diffstat).  Deterministic:
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
cover=$TOP/kernel/cover-letter
[ -f "$cover" ] || die "$cover is missing (line 1: subject, then the text)"
# The cover letter is signed by the series' author and dated with its
# last commit, so that it too is the same on every export.
author=$(git -C "$TREE" log -1 --format='%an' HEAD)
email=$(git -C "$TREE" log -1 --format='%ae' HEAD)
GIT_COMMITTER_NAME=$author GIT_COMMITTER_EMAIL=$email \
GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%cI HEAD) \
git -C "$TREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
	--notes --cover-letter --subject-prefix="PATCH v3" -o "$tmp" base..HEAD
python3 - "$tmp/0000-cover-letter.patch" "$cover" <<'PY'
import sys
path, src = sys.argv[1:]
subject, _, blurb = open(src).read().partition("\n")
text = open(path).read()
for marker, value in (("*** SUBJECT HERE ***", subject.strip()),
                      ("*** BLURB HERE ***", blurb.strip("\n"))):
    if marker not in text:
        sys.exit("series: no %s in the cover letter git made" % marker)
    text = text.replace(marker, value)
open(path, "w").write(text)
PY
{
	echo "# Patch queue for sched_wait_block(), applied in this order by 'make tree'."
	echo "# Base: Linux $(make -s -C "$TREE" kernelversion) from Debian package $(base_pkg_version) ($BASE_PKG)"
	(cd "$tmp" && ls -1 -- *.patch 2>/dev/null | grep -v '^0000-cover-letter') || true
} > "$tmp/series"

rm -f "$TOP"/kernel/*.patch
cp "$tmp"/*.patch "$TOP"/kernel/ 2>/dev/null || true
cp "$tmp/series" "$TOP"/kernel/series
echo "series: exported $(grep -vc '^#' "$TOP"/kernel/series) patches to kernel/"
echo "$(queue_hash) $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/patchq-stamp"
