#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make regress: suites nobody here wrote, on the pristine and on the
# patched debug kernel (same configuration: kunit/debug.config,
# kunit/kasan.config, selftests/guest.config, and every KUnit suite the
# configuration allows, kunit/regress.config).  Runs kunit.py and the
# selftests in selftests/regress-targets on both, then compares them
# case by case: the series passes when every case has the same result on
# both kernels.  Suites that exist only on the patched side (the series'
# own) are listed, not compared.  Some upstream suites report kernel
# errors on purpose (KASAN's own tests, for one), so the console is not
# scanned here: make check does that for our tests.
#
# Not part of make check: two more kernels with every KUnit suite.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/regress
mkdir -p "$out" "$BUILD/results"
rm -f "$out"/*
echo "0 1 0" > "$BUILD/results/regress"	# until proven otherwise
base_worktree

for v in regress-pristine regress-patched; do
	banner "$v: KUnit (every suite) and selftests"
	VARIANT=$v "$TOP"/ci/kunit.sh > "$out/$v-kunit.out" 2>&1
	echo "$v kunit.sh: status $? ($(tail -1 "$out/$v-kunit.out"))"
	cp "$BUILD/results/kunit.json" "$out/$v-kunit.json" 2>/dev/null ||
		echo '{}' > "$out/$v-kunit.json"
	rm -f "$BUILD/guest-$v/selftests.log"
	VARIANT=$v "$TOP"/ci/selftests.sh > "$out/$v-selftests.out" 2>&1
	echo "$v selftests.sh: status $? ($(tail -1 "$out/$v-selftests.out"))"
	cp "$BUILD/guest-$v/selftests.log" "$out/$v-selftests.log" 2>/dev/null ||
		: > "$out/$v-selftests.log"
done

banner "comparing pristine and patched, case by case"
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]

def kunit(path):
    res = {}
    def walk(t, prefix):
        name = t.get("name", "")
        p = f"{prefix}.{name}" if prefix and name else (name or prefix)
        for c in t.get("sub_groups", []):
            walk(c, p)
        for c in t.get("test_cases", []):
            res[f"kunit: {p}.{c.get('name')}"] = c.get("status")
    try:
        walk(json.load(open(path)), "")
    except Exception as e:
        print(f"regress: cannot read {path}: {e}")
    return res

def selftests(path):
    res = {}
    line_re = re.compile(r'^(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$')
    for line in open(path, errors="replace"):
        m = line_re.match(line.strip())
        if m:
            st = "SKIP" if "# SKIP" in m.group(4) else \
                 "PASS" if m.group(1) == "ok" else "FAIL"
            res[f"selftest: {m.group(2)}:{m.group(3)}"] = st
    return res

a = {**kunit(f"{out}/regress-pristine-kunit.json"),
     **selftests(f"{out}/regress-pristine-selftests.log")}
b = {**kunit(f"{out}/regress-patched-kunit.json"),
     **selftests(f"{out}/regress-patched-selftests.log")}
same = sorted(k for k in a if k in b and a[k] == b[k])
diff = sorted(k for k in a if k in b and a[k] != b[k])
lost = sorted(k for k in a if k not in b)
new = sorted(k for k in b if k not in a)
count = lambda d, ks, s: sum(1 for k in ks if d[k] == s)
with open(f"{out}/comparison.txt", "w") as f:
    for k in diff:
        print(f"DIFFERENT {k}: pristine {a[k]}, patched {b[k]}", file=f)
    for k in lost:
        print(f"MISSING   {k}: pristine {a[k]}, not run on the patched kernel", file=f)
    for k in new:
        print(f"new       {k}: {b[k]} (patched only)", file=f)
    for k in same:
        print(f"same      {k}: {a[k]}", file=f)
print(f"regress: {len(a)} cases on the pristine kernel, {len(b)} on the patched")
print(f"regress: {len(same)} the same ({count(a, same, 'PASS')} pass, "
      f"{count(a, same, 'SKIP')} skip, {count(a, same, 'FAIL')} fail on both), "
      f"{len(diff)} different, {len(lost)} missing on the patched kernel, "
      f"{len(new)} patched only ({count(b, new, 'PASS')} pass)")
for k in diff + lost:
    print(f"regress: {k}: pristine {a[k]}, patched {b.get(k, 'not run')}")
bad = len(diff) + len(lost) + (0 if a and b else 1) + \
      sum(1 for k in new if b[k] == "FAIL")
with open(f"{out}/../results/regress", "w") as f:
    print(len(same), bad, 0, file=f)
sys.exit(1 if bad else 0)
PY
rc=$?
echo "regress: details in $out/comparison.txt"
exit $rc
