#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/debian-fetch.sh binary|source SUITE PACKAGE [VERSION [SHA256]]
#
# Fetch a Debian package (binary: the .deb, unpacked with dpkg-deb -x) or
# source package (apt-get source, unpacked) from SUITE of the Debian
# archive this machine already uses, without touching the machine's apt
# configuration or its installed packages: apt runs on a private sources
# list, lists and cache under $SWB_CACHE, with the machine's own keyring,
# so the InRelease signature and the package's hash are checked as for
# any install.  With VERSION, that version is fetched (and, with SHA256,
# the .deb must have that hash); when the suite has moved on, the
# current version is fetched instead, with a warning.  For a source
# package, SHA256 is the hash of its .dsc.
#
# Prints the folder the package was unpacked into.  Nothing is fetched
# when that folder exists already.
set -euo pipefail

kind=$1 suite=$2 pkg=$3 want=${4:-} sha=${5:-}
cache=${SWB_CACHE:-$HOME/.cache/swb}
apt=$cache/apt-$suite
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$cache/pkg"

# The machine's Debian archive: the URI and keyring of the entry for its
# own release, read from its sources (deb822 or one-line format).
mirror() {
	python3 - <<'PY'
import glob, re
codename = dict(l.strip().split("=", 1) for l in open("/etc/os-release")
                if "=" in l).get("VERSION_CODENAME", "").strip('"')
paths = glob.glob("/etc/apt/sources.list.d/*.sources")
for p in paths:
    for stanza in open(p).read().split("\n\n"):
        f = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            k, v = line.split(":", 1)
            f[k.strip().lower()] = v.strip()
        if codename in f.get("suites", "").split() and "main" in f.get("components", ""):
            print(f["uris"].split()[0], f.get("signed-by", "/usr/share/keyrings/debian-archive-keyring.gpg"))
            raise SystemExit
for p in ["/etc/apt/sources.list"] + glob.glob("/etc/apt/sources.list.d/*.list"):
    try:
        lines = open(p).read().splitlines()
    except OSError:
        continue
    for line in lines:
        m = re.match(r"deb\s+(\[[^]]*\]\s+)?(\S+)\s+(\S+)\s+.*\bmain\b", line)
        if m and m.group(3) == codename:
            print(m.group(2), "/usr/share/keyrings/debian-archive-keyring.gpg")
            raise SystemExit
raise SystemExit("debian-fetch: no Debian archive for %r in the apt sources" % codename)
PY
}

read -r uri keyring < <(mirror)
types=deb
[ "$kind" = source ] && types=deb-src
printf '%s [signed-by=%s] %s %s main\n' "$types" "$keyring" "$uri" "$suite" \
	> "$apt/sources.list"
O=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt"
   -o Dir::Cache::Archives="$apt/archives" -o APT::Get::List-Cleanup=0
   -o APT::Sandbox::User=root)

# Reuse the lists of the last hour; the suite moves daily.  (The lists'
# own mtimes are the archive's, hence a stamp of our own.)
if [ -z "$(find "$apt/updated" -mmin -60 2>/dev/null)" ]; then
	apt-get "${O[@]}" -q update >&2
	touch "$apt/updated"
fi

if [ "$kind" = binary ]; then
	have=$(apt-cache "${O[@]}" policy "$pkg" | sed -n 's/^ *Candidate: //p')
else
	have=$(apt-cache "${O[@]}" showsrc "$pkg" | sed -n 's/^Version: //p' | head -1)
fi
[ -n "$have" ] && [ "$have" != "(none)" ] || {
	echo "debian-fetch: $pkg is not in $suite" >&2; exit 1; }
ver=${want:-$have}
if [ -n "$want" ] && [ "$want" != "$have" ]; then
	if ! apt-cache "${O[@]}" madison "$pkg" | grep -q " $want "; then
		echo "debian-fetch: warning: $suite has $pkg $have, not $want; using $have" >&2
		ver=$have sha=
	fi
fi

dest=$cache/pkg/${pkg}_$ver
if [ -d "$dest" ]; then
	echo "$dest"
	exit 0
fi
tmp=$(mktemp -d "$cache/pkg/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$kind" = binary ]; then
	(cd "$tmp" && apt-get "${O[@]}" -q download "$pkg=$ver" >&2)
	deb=$(ls "$tmp"/*.deb)
	if [ -n "$sha" ]; then
		echo "$sha  $deb" | sha256sum -c --quiet - >&2 ||
			{ echo "debian-fetch: $deb: wrong SHA256" >&2; exit 1; }
	fi
	dpkg-deb -x "$deb" "$tmp/root"
	mv "$tmp/root" "$dest"
else
	# apt-get source checks the .dsc's hashes; dpkg-source its signature
	# is not required (the .dsc's hash is in the signed Sources index).
	(cd "$tmp" && apt-get "${O[@]}" -q source --download-only "$pkg=$ver" >&2)
	# With SHA256, the .dsc (which holds the hashes of the tarballs) must
	# have that hash: the pin of a source package.
	if [ -n "$sha" ]; then
		echo "$sha  $(ls "$tmp"/*.dsc)" | sha256sum -c --quiet - >&2 ||
			{ echo "debian-fetch: $pkg $ver: wrong .dsc SHA256" >&2; exit 1; }
	fi
	(cd "$tmp" && dpkg-source --no-check -x ./*.dsc src >&2)
	mv "$tmp/src" "$dest"
fi
echo "$dest"
