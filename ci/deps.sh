#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build and the tests need from Debian, when missing.
# kunit.py itself comes with the kernel tree (tools/testing/kunit/).
set -euo pipefail

pkgs=(
	bc bison busybox-static ccache cpio flex gcc git kmod libc6-dev libcap-dev
	libelf-dev libssl-dev linux-source-6.12 make perl python3
	python3-git python3-ply qemu-system-x86 rsync sparse xz-utils
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
