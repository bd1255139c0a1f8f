#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/libuv-build.sh: build Debian's libuv1 twice, static, as Debian's
# packaging does (cmake, dpkg-buildflags with hardening=+all), with
# libuv's test suite (uv_run_tests_a): the package as Debian ships it
# (tag "base" of build/libuv/src, checked out in build/libuv/base-src)
# in build/libuv/obj-stock, and with libuv/series in
# build/libuv/obj-patched.  Executables are linked with -static, for the
# guest.  The patched uapi headers of the kernel build, when there are
# some, give the syscall numbers; libuv/0001 has them as a fallback.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LDIR=$TOP/build/libuv
"$TOP"/ci/libuv-tree.sh

# The base, as a worktree of the tree at tag "base".
[ -d "$LDIR/base-src" ] ||
	git -C "$LDIR/src" worktree add -q --detach "$LDIR/base-src" base
git -C "$LDIR/base-src" checkout -q --detach base

hdr=
for h in "$OBJ/usr/include" "$BUILD/bench-patched/usr/include"; do
	if [ -f "$h/linux/sched/watch.h" ]; then hdr=$h; break; fi
done

export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags="$(dpkg-buildflags --get LDFLAGS) -static"
[ -z "$hdr" ] || cflags="$cflags -isystem $hdr"

for name in stock patched; do
	src=$LDIR/src obj=$LDIR/obj-$name
	[ $name = stock ] && src=$LDIR/base-src
	banner "building libuv ($name) in $obj${hdr:+, kernel headers $hdr}"
	mkdir -p "$obj"
	cmake -S "$src" -B "$obj" -DCMAKE_BUILD_TYPE=None \
		-DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
		-DBUILD_TESTING=ON -DLIBUV_BUILD_TESTS=ON -DLIBUV_BUILD_BENCH=OFF \
		> "$obj/cmake.log"
	# glibc's warning about getaddrinfo() in static programs: the guest's
	# /etc/nsswitch.conf names only "files" and "dns", built into libc.
	make -C "$obj" -j"$JOBS" uv_a uv_run_tests_a > "$obj/make.log" 2>&1 ||
		{ tail -30 "$obj/make.log"; die "libuv ($name) does not build"; }
	grep -E 'warning|error' "$obj/make.log" |
		grep -v -e 'in statically linked applications requires' || true
	[ -x "$obj/uv_run_tests_a" ] || die "libuv ($name): no uv_run_tests_a"
done
