#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/deps.sh [GROUP...]: install what the build and the tests need from
# Debian, when missing; the groups (bench, trinity, arm64, libuv) add what only
# some targets need.  The base's source: BASE=6.12's package is
# installed; BASE=7.2's comes from Debian unstable, fetched (never
# installed) by ci/debian-fetch.sh.
# kunit.py itself comes with the kernel tree (tools/testing/kunit/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	bc bison busybox-static ccache cpio flex gcc git kmod libc6-dev libcap-dev
	libelf-dev libssl-dev make perl python3
	python3-git python3-ply qemu-system-x86 rsync sparse xz-utils
)

# Optional groups, installed by the targets that need them.
for group in "$@"; do
	case $group in
	bench)	pkgs+=(python3-matplotlib)
		[ -n "$BASE_SUITE" ] || pkgs+=("linux-config-$BASE") ;;
	trinity) pkgs+=(trinity) ;;
	arm64)	pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm) ;;
	# libuv/: dpkg-source unpacks Debian's libuv1 source, cmake builds
	# it as Debian's packaging does.
	libuv)	pkgs+=(cmake dpkg-dev) ;;
	*)	echo "deps: unknown group $group" >&2; exit 1 ;;
	esac
done

[ -n "$BASE_SUITE" ] || pkgs+=("$BASE_PKG")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends "${missing[@]}"
fi
# The 7.2 source: fetched once, then found in the cache.
[ -z "$BASE_SUITE" ] || base_tarball > /dev/null
