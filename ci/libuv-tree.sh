#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/libuv-tree.sh: unpack Debian's libuv1 source package (pinned below,
# fetched by ci/debian-fetch.sh, Debian's own patches applied) into
# build/libuv/src, a git repository whose first commit is the package
# ("base" tag), and apply the patch queue libuv/series on branch
# "patchq", as ci/tree.sh does for the kernel.  A tree that carries the
# queue already is left alone; one whose queue changed is rebuilt from
# the base unless it holds commits or changes never exported
# (ci/libuv-tree.sh --export writes base..HEAD back to libuv/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The pin: bookworm's libuv1 and the SHA256 of its .dsc (which holds the
# hashes of the tarballs), as the signed Sources index of bookworm has it.
LIBUV_SUITE=bookworm
LIBUV_VERSION=1.44.2-1+deb12u1
LIBUV_DSC_SHA256=798be0a2bcbcd40bb85302f6ccbf02b240e1958d4ad9cf153b8101c3a82f21b9

LQUEUE=$TOP/libuv
LTREE=$TOP/build/libuv/src
stamp=$LTREE/.git/patchq-stamp

export GIT_COMMITTER_NAME=patchq GIT_COMMITTER_EMAIL=patchq@localhost
export GIT_AUTHOR_NAME=patchq GIT_AUTHOR_EMAIL=patchq@localhost

lqueue_patches() { grep -v -e '^#' -e '^$' "$LQUEUE/series"; }
lqueue_hash() { (cd "$LQUEUE" && cat series $(lqueue_patches)) | sha1sum | cut -d' ' -f1; }
unexported() {
	[ -n "$(git -C "$LTREE" status --porcelain --untracked-files=no)" ] ||
	[ "$(git -C "$LTREE" rev-parse HEAD)" != "$1" ]
}

if [ "${1:-}" = --export ]; then
	banner "exporting $LTREE base..HEAD to $LQUEUE"
	rm -f "$LQUEUE"/0*.patch
	git -C "$LTREE" format-patch -q --zero-commit --no-signature \
		--no-numbered -o "$LQUEUE" base..HEAD
	{ echo "# Base: Debian package libuv1 $LIBUV_VERSION ($LIBUV_SUITE)"
	  (cd "$LQUEUE" && ls 0*.patch); } > "$LQUEUE/series"
	echo "$(lqueue_hash) $(git -C "$LTREE" rev-parse HEAD)" > "$stamp"
	exit 0
fi

"$TOP"/ci/deps.sh libuv
if [ -d "$LTREE/.git" ] && [ -f "$stamp" ]; then
	read -r hash head < "$stamp"
	if [ "$hash" = "$(lqueue_hash)" ]; then
		echo "libuv-tree: $LTREE carries libuv/ already"
		unexported "$head" && echo "libuv-tree: note: it also holds work not exported (ci/libuv-tree.sh --export)"
		exit 0
	fi
	unexported "$head" &&
		die "libuv/ changed, but $LTREE holds unexported work; export it or remove $LTREE"
fi

if [ ! -d "$LTREE/.git" ]; then
	banner "fetching Debian's libuv1 $LIBUV_VERSION ($LIBUV_SUITE)"
	src=$("$TOP"/ci/debian-fetch.sh source "$LIBUV_SUITE" libuv1 \
		"$LIBUV_VERSION" "$LIBUV_DSC_SHA256")
	[ "$(basename "$src")" = "libuv1_$LIBUV_VERSION" ] ||
		die "got $(basename "$src"), not libuv1 $LIBUV_VERSION"
	rm -rf "$LTREE" "$LTREE.tmp"
	mkdir -p "$(dirname "$LTREE")"
	cp -a "$src" "$LTREE.tmp"
	git -C "$LTREE.tmp" init -q -b patchq
	git -C "$LTREE.tmp" add -A -f
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$LTREE.tmp" commit -q -m "libuv1 $LIBUV_VERSION (Debian, its patches applied)"
	git -C "$LTREE.tmp" tag base
	mv "$LTREE.tmp" "$LTREE"
fi

banner "applying libuv/series on base"
git -C "$LTREE" checkout -q -f patchq
git -C "$LTREE" reset -q --hard base
git -C "$LTREE" clean -q -fdx
n=0
for patch in $(lqueue_patches); do
	git -C "$LTREE" am -q --keep-cr "$LQUEUE/$patch" || {
		git -C "$LTREE" am --abort || true
		die "libuv/$patch does not apply to libuv1 $LIBUV_VERSION"
	}
	n=$((n + 1))
done
echo "libuv-tree: applied $n patches"
echo "$(lqueue_hash) $(git -C "$LTREE" rev-parse HEAD)" > "$stamp"
