#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make tree [BASE=7.2|6.12]: unpack Debian's linux-source-$BASE into $TREE,
# make it a git repository whose first commit is the pristine package
# ("base" tag), and apply the patch queue ($QUEUE/series: kernel/ for
# 7.2, kernel/backport-6.12/ for 6.12) on branch "patchq".  The last
# commit of each of the three series is marked by a branch series/NAME
# (wait-block, concurrency, watch): "make series" exports each range to
# its folder.  Branches, not tags, so that "git rebase --update-refs"
# (ci/fixup.sh) moves them with the commits.
#
# An existing tree is left alone when it already carries the queue as
# committed in kernel/.  When kernel/ changed (a pull, a checkout) the tree
# is rebuilt from the base, unless it holds work that was never exported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stamp=$TREE/.git/patchq-stamp	# queue_hash() and HEAD after the last apply

# Who records the base and applies the queue; a developer's own commits
# in the tree use the developer's git identity.
export GIT_COMMITTER_NAME=patchq GIT_COMMITTER_EMAIL=patchq@localhost
export GIT_AUTHOR_NAME=patchq GIT_AUTHOR_EMAIL=patchq@localhost

# Debian's linux-source .gitignore ends with "/*": every top-level entry is
# ignored, so git would not see a new file such as kernel/sched/foo.c.  Drop
# that block from the working copy only and tell git to leave the file be.
unhide_top_level() {
	git -C "$TREE" update-index --skip-worktree .gitignore
	sed -i '/^# Debian packaging: ignore everything/,$d' "$TREE/.gitignore"
}

"$TOP"/ci/deps.sh
BASE_TARBALL=$(base_tarball)

want_base=$(sed -n 's/^# Base: .*package \([^ ]*\) .*/\1/p' "$QUEUE"/series)
have_base=$(base_pkg_version)
if [ -n "$want_base" ] && [ "$want_base" != "$have_base" ]; then
	echo "warning: kernel/series was made on $BASE_PKG $want_base;" \
	     "this machine has $have_base" >&2
fi

if [ -d "$TREE/.git" ] && [ -f "$stamp" ]; then
	read -r hash head < "$stamp"
	if [ "$hash" = "$(queue_hash)" ]; then
		echo "tree: $TREE carries kernel/ already"
		if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		   [ "$(git -C "$TREE" rev-parse HEAD)" != "$head" ]; then
			echo "tree: note: it also holds work not exported to $QUEUE (make series)"
		fi
		exit 0
	fi
	if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	   [ "$(git -C "$TREE" rev-parse HEAD)" != "$head" ]; then
		die "kernel/ changed, but $TREE holds unexported work; run 'make series' or remove $TREE"
	fi
fi

if [ ! -d "$TREE/.git" ]; then
	banner "unpacking $BASE_TARBALL ($BASE_PKG $have_base)"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -C "$TREE.tmp" -xf "$BASE_TARBALL" --strip-components=1
	banner "recording the pristine base in git"
	git -C "$TREE.tmp" init -q -b patchq
	git -C "$TREE.tmp" config core.abbrev 12
	git -C "$TREE.tmp" config notes.rewriteRef refs/notes/commits
	git -C "$TREE.tmp" add -A -f
	version=$(make -s -C "$TREE.tmp" kernelversion)
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$TREE.tmp" commit -q -m "Linux $version (Debian $BASE_PKG $have_base)"
	git -C "$TREE.tmp" tag base
	mv "$TREE.tmp" "$TREE"
fi

banner "applying kernel/series on base"
git -C "$TREE" checkout -q -f patchq
git -C "$TREE" reset -q --hard base
git -C "$TREE" clean -q -fdx
n=0
git -C "$TREE" tag -l 'series/*' | xargs -r git -C "$TREE" tag -d > /dev/null
git -C "$TREE" branch -l 'series/*' | xargs -r git -C "$TREE" branch -q -D
prev=
for patch in $(queue_patches); do
	name=${patch%%/*}
	if [ -n "$prev" ] && [ "$name" != "$prev" ]; then
		git -C "$TREE" branch -f "series/$prev"
	fi
	prev=$name
	if ! git -C "$TREE" am -q --keep-cr "$QUEUE/$patch"; then
		git -C "$TREE" am --abort || true
		die "$QUEUE/$patch does not apply to $BASE_PKG $have_base (made for ${want_base:-?})"
	fi
	# Restore the note that "make series" put below "---".
	note=$(awk '/^---$/ { cut = 1 } cut && /^Notes:$/ { on = 1; next }
		    on && /^$/ { exit } on { sub(/^    /, ""); print }' \
		"$QUEUE/$patch")
	[ -z "$note" ] || git -C "$TREE" notes add -f -m "$note" HEAD
	n=$((n + 1))
done
[ -z "$prev" ] || git -C "$TREE" branch -f "series/$prev"
echo "tree: applied $n patches"
unhide_top_level
echo "$(queue_hash) $(git -C "$TREE" rev-parse HEAD)" > "$stamp"
