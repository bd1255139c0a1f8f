#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series [BASE=7.2|6.12]: export the branch of $TREE to $QUEUE as the
# three series that are posted, each in its own folder, in the order
# they apply:
#
#   wait-block   base..series/wait-block          sched_wait_block()
#   concurrency  series/wait-block..series/concurrency
#   watch        series/concurrency..HEAD
#
# Each folder gets git format-patch files numbered from 0001 and a cover
# letter (0000-cover-letter.patch: the subject prefix, subject and text of
# NAME/cover-letter, then git's shortlog and diffstat, and b4's
# "base-commit:" and "prerequisite-patch-id:" lines naming what the
# series is based on).  $QUEUE/series lists every patch in order, for
# "make tree".  Deterministic: an unchanged branch rewrites identical
# files.  To move a commit from one series to another, move the
# series/NAME tags in the tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no tree at $TREE; run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; commit them first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The cover letters are signed by the series' author and dated with its
# last commit, so that they too are the same on every export.
author=$(git -C "$TREE" log -1 --format='%an' HEAD)
email=$(git -C "$TREE" log -1 --format='%ae' HEAD)

{
	echo "# Patch queue: three series, applied in this order by 'make tree'."
	echo "# Base: Linux $(make -s -C "$TREE" kernelversion) from Debian package $(base_pkg_version) ($BASE_PKG)"
} > "$tmp/series"

from=base
for name in $SERIES_NAMES; do
	to=series/$name
	[ "$name" = watch ] && to=HEAD
	git -C "$TREE" rev-parse -q --verify "$to" > /dev/null ||
		die "no tag $to in $TREE (make tree sets them)"
	cover=$QUEUE/$name/cover-letter
	[ -f "$cover" ] ||
		die "$cover is missing (line 1: subject prefix, line 2: subject, then the text)"
	prefix=$(sed -n 1p "$cover")
	mkdir -p "$tmp/$name"
	# --notes: a commit's git note (e.g. a justified checkpatch
	# exception) goes below the "---" line, where reviewers read it and
	# git am drops it.  --base: b4's base-commit and the patch IDs of
	# the series this one needs.
	GIT_COMMITTER_NAME=$author GIT_COMMITTER_EMAIL=$email \
	GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%cI "$to") \
	git -C "$TREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
		--notes --cover-letter --subject-prefix="$prefix" --base=base \
		-o "$tmp/$name" "$from..$to"
	python3 - "$tmp/$name/0000-cover-letter.patch" "$cover" <<'PY'
import sys
path, src = sys.argv[1:]
_, subject, blurb = open(src).read().split("\n", 2)
text = open(path).read()
for marker, value in (("*** SUBJECT HERE ***", subject.strip()),
                      ("*** BLURB HERE ***", blurb.strip("\n"))):
    if marker not in text:
        sys.exit("series: no %s in the cover letter git made" % marker)
    text = text.replace(marker, value)
open(path, "w").write(text)
PY
	(cd "$tmp" && ls -1 -- "$name"/*.patch | grep -v '/0000-cover-letter') >> "$tmp/series"
	# b4 finds a series' prerequisites by the stable patch IDs of the
	# patches as posted; git format-patch --base computes some of them
	# otherwise (patch 2 of wait-block, with git 2.39), so write the
	# lines from the exported files of the series before this one.
	prereq=$tmp/$name.prereq
	: > "$prereq"
	for p in $(cd "$tmp" && grep -v -e '^#' -e '^$' series); do
		case $p in "$name"/*) continue ;; esac
		echo "prerequisite-patch-id: $(git patch-id --stable < "$tmp/$p" | cut -d' ' -f1)" >> "$prereq"
	done
	python3 - "$tmp/$name/0000-cover-letter.patch" "$prereq" <<'PY'
import sys
path, prereq = sys.argv[1:]
lines = [l for l in open(path).read().split("\n") if not l.startswith("prerequisite-patch-id: ")]
i = next(i for i, l in enumerate(lines) if l.startswith("base-commit: "))
lines[i + 1:i + 1] = open(prereq).read().split("\n")[:-1]
open(path, "w").write("\n".join(lines))
PY
	from=$to
done

for name in $SERIES_NAMES; do
	mkdir -p "$QUEUE/$name"
	rm -f "$QUEUE/$name"/*.patch
	cp "$tmp/$name"/*.patch "$QUEUE/$name/"
done
cp "$tmp/series" "$QUEUE/series"
echo "series: exported $(queue_patches | wc -l) patches to $QUEUE ($SERIES_NAMES)"
echo "$(queue_hash) $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/patchq-stamp"
