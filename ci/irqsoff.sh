#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make irqsoff [SMP=N] [IRQSOFF_COUNTS="10 100 1000 10000"] [IRQSOFF_REPS=3]:
# how long the waiter chain of sched_wait_block() keeps interrupts off,
# per step and at most, for 10 to 10^4 waiters on one thread.
#
# Builds the irqsoff kernel (VARIANT=irqsoff: kunit/debug.config without
# lockdep, plus kunit/irqsoff.config: the irqsoff latency tracer, kprobe
# events, histogram triggers) in a folder of its own, boots it with the
# storm (bench/src/storm.c) and bench/guest-irqsoff.sh, which says what
# is measured and how, and prints a table per waiter count: the steps'
# interrupts-off time (p50, p99, max), the probes' own cost, and the
# machine's longest interrupts-off section during each storm.  Under TCG
# the figures are emulated time on a host that also runs other vCPUs.
# Not part of make check.  No figure fails anything; a storm that fails,
# a step not measured (fewer steps than waiters), a missed probe, a
# guest that does not finish or a kernel report does.
set -euo pipefail
export VARIANT=irqsoff
. "$(dirname "$0")/lib.sh"

COUNTS=${IRQSOFF_COUNTS:-10 100 1000 10000}
REPS=${IRQSOFF_REPS:-3}
"$TOP"/ci/tree.sh
"$TOP"/ci/build.sh
banner "building the storm against the irqsoff kernel's headers"
payload=$BUILD/irqsoff
rm -rf "$payload" "$GUEST/extra"
mkdir -p "$payload" "$GUEST/extra/etc" "$BUILD/results"
make -s -C "$TOP/bench/src" HDR="$OBJ/usr/include" O="$payload" "$payload/storm"
cp "$TOP/bench/guest-irqsoff.sh" "$payload/"

# Where to probe sched_notify_del_waiter(), from this build's code: the
# instruction after the call that takes n->lock (interrupts off), the one
# after that, and every call (or tail call) that drops it.
offsets=$(objdump -d --no-show-raw-insn \
	--disassemble=sched_notify_del_waiter "$OBJ/vmlinux" | python3 -c '
import re, sys
insns = re.findall(r"^\s*([0-9a-f]+):\t(.*)$", sys.stdin.read(), re.M)
addr = [int(a, 16) - int(insns[0][0], 16) for a, _ in insns]
lock = [i for i, (_, t) in enumerate(insns) if re.search(r"call.*<_raw_spin_lock_irqsave>", t)]
unlock = [hex(addr[i]) for i, (_, t) in enumerate(insns)
	  if re.search(r"(call|jmp).*<_raw_spin_unlock_irqrestore>", t)]
if len(lock) != 1 or not unlock:
	sys.exit(1)
print(hex(addr[lock[0] + 1]), hex(addr[lock[0] + 2]), *unlock)
') || die "sched_notify_del_waiter(): not one lock call and an unlock in $OBJ/vmlinux"
echo "irqsoff: probe offsets (locked, next, unlock...): $offsets"
echo "sh ./guest-irqsoff.sh '$COUNTS' $REPS $offsets" > "$GUEST/extra/etc/guest-cmd"
KSELFTEST=0 "$TOP"/ci/initramfs.sh "$GUEST/irqsoff.cpio" "$payload" > /dev/null

banner "booting the irqsoff kernel, $SMP vCPUs: storms of $COUNTS waiters, $REPS each"
log=$GUEST/irqsoff-smp$SMP.log
set +e
QEMU_SMP=$SMP "$TOP"/ci/qemu.sh -t "${IRQSOFF_TIMEOUT:-3600}" -l "$log" \
	"$GUEST/irqsoff.cpio"
rc=$?
set -e
"$TOP"/ci/scan-log.sh "$log" > /dev/null ||
	{ echo "irqsoff: kernel reports in $log"; rc=1; }

out=$BUILD/results/irqsoff-smp$SMP.txt
python3 - "$log" "$SMP" "$COUNTS" "$REPS" "$(qemu_accel_args)" > "$out" <<'PY' || rc=1
import re, sys
log, smp, counts, reps, accel = sys.argv[1:6]
counts, reps = counts.split(), int(reps)
text = open(log, errors='replace').read().replace('\r', '')
kernel = re.search(r'guest: (\S+), ', text)
print(f"irqsoff: {smp} vCPUs ({accel}); kernel {kernel.group(1) if kernel else '?'}")
bad = []

def hist(name, n):
    m = re.search(rf'IRQSOFF-HIST {name} n={n}\n(.*?)\nTotals:\n\s+Hits: (\d+)',
                  text, re.S)
    if not m:
        return None
    b = sorted((int(a), int(c)) for a, c in
               re.findall(r'lat_ns: ~ (\d+)-\d+\s*\}\s*hitcount:\s*(\d+)', m.group(1)))
    total = sum(c for _, c in b)
    def pct(p):
        acc = 0
        for a, c in b:
            acc += c
            if acc >= p / 100 * total:
                return a // 1000
    return total, pct(50), pct(99), b[-1][0] // 1000 if b else None

print("| waiters | steps | step p50 | step p99 | step max | probe pair p50 / max | storm max irqs-off, each storm | where (the longest) |")
print("|---|---|---|---|---|---|---|---|")
for n in counts:
    s, p = hist('steps', n), hist('probe', n)
    for name, h in (('steps', s), ('probe', p)):
        if not h or h[0] != int(n) * reps:
            bad.append(f"{name} n={n}: {h[0] if h else 'no'} steps, not {int(n) * reps}")
    mx = [int(x) for x in re.findall(rf'IRQSOFF-MAX n={n} rep=\d+ us=(\d+)', text)]
    if len(mx) != reps:
        bad.append(f"max n={n}: {len(mx)} storms, not {reps}")
    worst = mx.index(max(mx)) + 1 if mx else 0
    at = re.findall(rf'IRQSOFF-AT n={n} rep={worst}:\s*=> (started|ended) at:\s*(\S+)', text)
    where = ", ".join(f"{k} {f}" for k, f in at) or "-"
    fmt = lambda h: (f"{h[0]} | {h[1]} us | {h[2]} us | {h[3]} us" if h else "- | - | - | -")
    pp = f"{p[1]} / {p[3]} us" if p else "-"
    print(f"| {n} | {fmt(s)} | {pp} | {', '.join(map(str, mx))} us | {where} |")
idle = re.search(r'IRQSOFF-MAX idle 3s us=(\d+)', text)
idle_at = re.findall(r'IRQSOFF-AT idle:\s*=> (started|ended) at:\s*(\S+)', text)
print(f"idle guest, 3 s: longest interrupts-off section "
      f"{idle.group(1) + ' us' if idle else '-'} ({', '.join(f'{k} {f}' for k, f in idle_at)})")
prof = re.search(r'kprobe hits and misses:\n((?:\s*swb_\S+\s+\d+\s+\d+\n)+)', text)
if prof:
    for ev, hits, miss in re.findall(r'(swb_\S+)\s+(\d+)\s+(\d+)', prof.group(1)):
        if int(miss):
            bad.append(f"kprobe {ev}: {miss} missed")
else:
    bad.append("no kprobe profile")
print("step: from the instruction after n->lock is taken to the call that drops it, "
      "kprobes (int3), per CPU, 1 us buckets (lower edges); probe pair: the same "
      "probes on two adjacent instructions, their own cost. storm max: the irqsoff "
      "tracer's maximum over each storm, any section of the machine.")
for b in bad:
    print(f"irqsoff: FAIL: {b}")
sys.exit(1 if bad else 0)
PY
cat "$out"
[ $rc -eq 0 ] || { echo "irqsoff: failed (qemu.sh or the figures' checks); see $log"; exit 1; }
