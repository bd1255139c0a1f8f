#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make kunit [FILTER=suite.case]: build, then run the KUnit suites with
# kunit.py under QEMU (two vCPUs: the suite has cross-CPU cases).  Writes
# "pass fail skip" to $BUILD/results/kunit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD/results"
echo "0 1 0" > "$BUILD/results/kunit"	# until proven otherwise
# An earlier run's results must not be read as this one's (make regress
# once compared two stale copies when kunit.py stopped at configuration).
rm -f "$BUILD/results/kunit.json" "$BUILD/results/kunit.failed"
# Nor an earlier boot's console: kunit.py leaves test.log alone when it
# stops before QEMU, and scan-log would read the old one.
rm -f "$OBJ/test.log"

banner "kunit.py run: configure, build, boot the suites in QEMU"
accel=$(qemu_accel_args)
[ "$VARIANT" != arm64 ] || arm64_kunitconfig
cd "$TREE"
set +e
python3 tools/testing/kunit/kunit.py run "${KUNIT_ARGS[@]}" \
	--qemu_args="-smp $SMP $accel" --timeout="${KUNIT_TIMEOUT:-1200}" \
	--json="$BUILD/results/kunit.json" ${FILTER:+"$FILTER"} |
	tee "$BUILD/results/kunit.out"
rc=${PIPESTATUS[0]}
set -e

# The counts, and the names of the failed cases for make check's summary
# (CI shows only the end of the output).
counts=$(python3 - "$BUILD/results/kunit.json" "$BUILD/results/kunit.failed" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    print("0 1 0"); sys.exit()
n = {"PASS": 0, "FAIL": 0, "SKIP": 0}
failed = []
def walk(t, path):
    for c in t.get("sub_groups", []):
        walk(c, path + [c.get("name", "?")])
    for c in t.get("test_cases", []):
        s = c.get("status", "FAIL")
        n["PASS" if s == "PASS" else "SKIP" if s == "SKIP" else "FAIL"] += 1
        if s not in ("PASS", "SKIP"):
            failed.append("kunit: %s: %s" % (".".join(path + [c.get("name", "?")]), s))
walk(doc, [])
if failed:
    open(sys.argv[2], "w").write("\n".join(failed) + "\n")
print(n["PASS"], n["FAIL"], n["SKIP"])
PY
)
read -r pass fail skip <<< "$counts"
if [ -s "$BUILD/results/kunit.failed" ]; then
	{ grep -a -A3 -e 'EXPECTATION FAILED' -e 'ASSERTION FAILED' "$OBJ/test.log" || true; } |
		head -24 | sed 's/^/kunit: log: /' >> "$BUILD/results/kunit.failed"
fi
if ! "$TOP"/ci/scan-log.sh "$OBJ/test.log"; then
	fail=$((fail + 1))
	sed 's/^/kunit: console: /' "$OBJ/test.log.reports" 2>/dev/null | head -5 \
		>> "$BUILD/results/kunit.failed"
fi
[ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
[ $((pass + fail)) -gt 0 ] || fail=1	# ran nothing: a failure
echo "$pass $fail $skip" > "$BUILD/results/kunit"
echo "kunit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
