#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise sched_wait_block() guest benchmark results.

usage: report.py [-o OUTDIR] RESULT_DIR [RESULT_DIR...]

Each RESULT_DIR is the OUTDIR of one guest-bench.sh run (one boot):
results.csv (kernel,state,bench,variant,metric,value,rep), handoff-*.csv
raw latency samples, usecase-timeline-*.csv and meta.txt.  The boot index
is meta.txt's "boot=" when set, else the position on the command line;
its mode is meta.txt's "mode=" (wall, or icount for the instruction-count
boots), wall when unset (runs from before the icount mode).  Kernel label
"patched" is the patched kernel; any other label counts as pristine.

Writes to OUTDIR (default: report/):
  summary.csv      every figure below, long format
  tables.md        README-ready markdown tables:
                   (a) cost in schedule(): pipe and hackbench, mean and
                       median per kernel/state, ratios idle/pristine,
                       armed/pristine and armed/idle (ratio of means) with
                       a 95% bootstrap confidence interval (2000
                       resamples of the runs within each group, all boots
                       and repetitions pooled)
                   (a2) the same in instructions, from the icount boots:
                       mean +- standard deviation [min, max] over all
                       repetitions, differences and ratios of means
                   (a3) the same without each boot's first
                       ICOUNT_WARMUP repetitions (warm-up): medians,
                       and differences of medians
                   (b) handoff latency p50/p99/p99.9 per method and CPU
                       placement, from the pooled raw samples (from the
                       BENCH percentiles, median over runs, when no raw
                       file exists), with context switches per handoff;
                       ratios swb/futex, swb/futexblk, perf/swb,
                       watch/futex, watch/futexblk, watch/swb, perf/watch
                   (b2) context switches per handoff: system-wide and
                       each thread's own, pooled over runs
                   (b3) the one-CPU handoff of the icount boots in
                       instructions: min/p10/p50/p90/p99 and ratios
                   (c) the use case per mix/CPUs/policy, means over runs
                   (c2) the use case's concurrency group (policy
                       "group"): its targets' figures and the eviction
                       latency, seen in user space (overlap episodes) and
                       by the kernel (fdinfo), per mix and CPUs
                   (d) pre-wakes: blocks, pre-wakes and spurious ones of
                       the watched benchmarks, summed over runs
                   (e) the waiter storm: returns 0 / -ESRCH, time to the
                       last return, per number of waiters
                   (f) the M:N worker pool per N and policy: items/s,
                       concurrency, slot use, item latency, switches per
                       item (median [min, max] over runs); ratios
                       group/sem and group/semblk of items/s
                   (g) watch fds: one fd for N threads against N perf
                       fds (setup, memory, latency) and the event rate
                   Tables without data (older runs) say so.
  handoff_cdf.png, usecase_timeline_1x1_1cpu.png, cost_ratios.png
                   when matplotlib is available and the data exist.
Standard library and matplotlib only; missing pieces are skipped.
"""

import argparse
import csv
import glob
import math
import os
import random
import statistics
import sys

COST_BENCHES = ("pipe", "hackbench")
METHODS = ("futex", "futexblk", "swb", "watch", "watchpoll", "perf", "proc")
PLACEMENTS = ("same", "cross")
POLICIES = ("alone", "none", "nice19", "idle", "pinned", "swb", "group")
POOL_POLICIES = ("nolimit", "sem", "semblk", "group")
PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))
ICOUNT_PERCENTILES = (("min", 0.0), ("p10", 10.0), ("p50", 50.0), ("p90", 90.0),
                      ("p99", 99.0))


def warn(msg):
    print("report: " + msg, file=sys.stderr)


def read_meta(d):
    meta = {}
    try:
        with open(os.path.join(d, "meta.txt")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                meta[k] = v
    except OSError:
        pass
    return meta


def load(dirs):
    """Rows of all results.csv files, with their boot index and mode added."""
    rows = []
    for i, d in enumerate(dirs, 1):
        meta = read_meta(d)
        boot = meta.get("boot") or str(i)
        mode = meta.get("mode") or "wall"
        path = os.path.join(d, "results.csv")
        try:
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    try:
                        r["value"] = float(r["value"])
                    except (KeyError, TypeError, ValueError):
                        continue
                    r["boot"] = boot
                    r["dir"] = d
                    r["mode"] = mode
                    rows.append(r)
        except OSError as e:
            warn("%s: %s" % (path, e))
    return rows


def is_icount(r):
    return r.get("mode") == "icount" or r["metric"].startswith("insns")


def group_of(r):
    if r["kernel"] != "patched":
        return "pristine"
    return "patched-" + r["state"]


def percentile(sorted_vals, p):
    """Nearest-rank percentile, as in common.h."""
    if not sorted_vals:
        return float("nan")
    rank = max(1, min(len(sorted_vals), math.ceil(p / 100.0 * len(sorted_vals))))
    return sorted_vals[rank - 1]


def ratio_ci(num, den, iters=2000, seed=1):
    """Ratio of means and its 95% percentile-bootstrap interval."""
    if not num or not den:
        return None
    point = statistics.fmean(num) / statistics.fmean(den)
    if len(num) < 2 and len(den) < 2:
        return point, float("nan"), float("nan")
    rnd = random.Random(seed)
    boots = []
    for _ in range(iters):
        a = [rnd.choice(num) for _ in num]
        b = [rnd.choice(den) for _ in den]
        boots.append(statistics.fmean(a) / statistics.fmean(b))
    boots.sort()
    return point, boots[int(0.025 * iters)], boots[int(0.975 * iters) - 1]


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 1000:
        return "%.0f" % x
    return "%.*g" % (digits, x)


def fmt_ratio(rc, digits=3):
    if not rc:
        return "-"
    p, lo, hi = rc
    if math.isnan(lo):
        return "%.*f" % (digits, p)
    return "%.*f [%.*f, %.*f]" % (digits, p, digits, lo, digits, hi)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


# ---- (a) cost in schedule() -------------------------------------------

def cost_tables(rows, summary):
    groups = {}
    for r in rows:
        if r["bench"] not in COST_BENCHES or is_icount(r):
            continue
        key = (r["bench"], r["variant"], r["metric"])
        groups.setdefault(key, {}).setdefault(group_of(r), []).append(r["value"])
    table, ratios = [], []
    for key in sorted(groups):
        g = groups[key]
        cells = list(key)
        for name in ("pristine", "patched-idle", "patched-armed"):
            v = g.get(name, [])
            mean = statistics.fmean(v) if v else None
            med = statistics.median(v) if v else None
            cells.append("%s / %s (n=%d)" % (fmt(mean), fmt(med), len(v))
                         if v else "-")
            if v:
                summary.append(("cost", *key, name, "mean", mean))
                summary.append(("cost", *key, name, "median", med))
                summary.append(("cost", *key, name, "n", len(v)))
        rs = {}
        for label, num, den in (("idle/pristine", "patched-idle", "pristine"),
                                ("armed/pristine", "patched-armed", "pristine"),
                                ("armed/idle", "patched-armed", "patched-idle")):
            rc = ratio_ci(g.get(num, []), g.get(den, []))
            rs[label] = rc
            cells.append(fmt_ratio(rc))
            if rc:
                for stat, v in zip(("ratio", "ci_lo", "ci_hi"), rc):
                    summary.append(("cost", *key, label, stat, v))
        table.append(cells)
        ratios.append((key, rs))
    md = md_table(["bench", "variant", "metric",
                   "pristine mean / median", "patched idle mean / median",
                   "patched armed mean / median", "idle/pristine [95% CI]",
                   "armed/pristine [95% CI]", "armed/idle [95% CI]"], table)
    return md, ratios


# ---- (a2) cost in instructions (icount boots) ---------------------------

def spread_cell(v):
    if not v:
        return "-"
    mean = statistics.fmean(v)
    sd = statistics.stdev(v) if len(v) > 1 else float("nan")
    return "%s +- %s [%s, %s] (n=%d)" % (fmt(mean), fmt(sd), fmt(min(v)),
                                         fmt(max(v)), len(v))


def icount_table(rows, summary):
    groups = {}
    for r in rows:
        if r["bench"] not in COST_BENCHES or not is_icount(r):
            continue
        key = (r["bench"], r["variant"], r["metric"])
        groups.setdefault(key, {}).setdefault(group_of(r), []).append(r["value"])
    if not groups:
        return ""
    table = []
    for key in sorted(groups):
        g = groups[key]
        cells = list(key)
        for name in ("pristine", "patched-idle", "patched-armed"):
            v = g.get(name, [])
            cells.append(spread_cell(v))
            if v:
                summary.append(("icount", *key, name, "mean", statistics.fmean(v)))
                if len(v) > 1:
                    summary.append(("icount", *key, name, "sd", statistics.stdev(v)))
                summary.append(("icount", *key, name, "min", min(v)))
                summary.append(("icount", *key, name, "max", max(v)))
                summary.append(("icount", *key, name, "n", len(v)))
        for label, num, den in (("idle-pristine", "patched-idle", "pristine"),
                                ("armed-pristine", "patched-armed", "pristine")):
            a, b = g.get(num, []), g.get(den, [])
            if a and b:
                d = statistics.fmean(a) - statistics.fmean(b)
                cells.append("%+.1f" % d)
                summary.append(("icount", *key, label, "difference", d))
            else:
                cells.append("-")
        for label, num, den in (("idle/pristine", "patched-idle", "pristine"),
                                ("armed/pristine", "patched-armed", "pristine")):
            rc = ratio_ci(g.get(num, []), g.get(den, []))
            cells.append(fmt_ratio(rc, 4))
            if rc:
                for stat, v in zip(("ratio", "ci_lo", "ci_hi"), rc):
                    summary.append(("icount", *key, label, stat, v))
        table.append(cells)
    return md_table(["bench", "variant", "metric", "pristine", "patched idle",
                     "patched armed", "idle - pristine", "armed - pristine",
                     "idle/pristine [95% CI]", "armed/pristine [95% CI]"],
                    table)


# ---- (a3) the same, steady runs only ----------------------------------

# The first runs of a boot are not steady on 7.2: they fall short of the
# later ones by up to ~1,200 instructions per round trip, in both kernels.
# The pristine boots run one state, so its first two repetitions are the
# boot's first two runs; the patched boots alternate idle and armed, so
# only repetition 1 of each is.  Means over all repetitions then mix that
# warm-up into the difference, unequally: (a3) drops the first
# ICOUNT_WARMUP repetitions of every state of every boot and compares
# medians.
ICOUNT_WARMUP = 2


def icount_steady_table(rows, summary):
    groups = {}
    for r in rows:
        if r["bench"] not in COST_BENCHES or not is_icount(r):
            continue
        try:
            rep = int(r.get("rep") or 0)
        except ValueError:
            continue
        if rep <= ICOUNT_WARMUP:
            continue
        key = (r["bench"], r["variant"], r["metric"])
        groups.setdefault(key, {}).setdefault(group_of(r), []).append(r["value"])
    if not groups:
        return ""
    table = []
    for key in sorted(groups):
        g = groups[key]
        cells = list(key)
        med = {}
        for name in ("pristine", "patched-idle", "patched-armed"):
            v = sorted(g.get(name, []))
            if not v:
                cells.append("-")
                continue
            med[name] = statistics.median(v)
            cells.append("%s [%s, %s] (n=%d)" % (fmt(med[name]), fmt(v[0]),
                                                  fmt(v[-1]), len(v)))
            summary.append(("icount_steady", *key, name, "median", med[name]))
            summary.append(("icount_steady", *key, name, "n", len(v)))
        for label, num in (("idle-pristine", "patched-idle"),
                           ("armed-pristine", "patched-armed")):
            if num in med and "pristine" in med:
                d = med[num] - med["pristine"]
                cells.append("%+.1f (%+.2f %%)" % (d, 100.0 * d / med["pristine"]))
                summary.append(("icount_steady", *key, label, "difference", d))
            else:
                cells.append("-")
        table.append(cells)
    return md_table(["bench", "variant", "metric", "pristine", "patched idle",
                     "patched armed", "idle - pristine", "armed - pristine"],
                    table)


# ---- (b) handoff latency ----------------------------------------------

def handoff_samples(dirs, mode="wall"):
    """Raw handoff samples of the boots in MODE, per (method, cpus)."""
    samples = {}
    for d in dirs:
        if (read_meta(d).get("mode") or "wall") != mode:
            continue
        for path in sorted(glob.glob(os.path.join(d, "handoff-*.csv"))):
            try:
                with open(path, newline="") as f:
                    for r in csv.DictReader(f):
                        try:
                            samples.setdefault((r["method"], r["cpus"]), []) \
                                   .append(int(r["ns"]))
                        except (KeyError, TypeError, ValueError):
                            continue
            except OSError as e:
                warn("%s: %s" % (path, e))
    for v in samples.values():
        v.sort()
    return samples


SWITCH_METRICS = ("sw_target_vol", "sw_target_invol", "sw_waiter_vol",
                  "sw_waiter_invol")


def handoff_switches(rows):
    """Per variant, the switch counts of all runs pooled (None if none)."""
    runs = {}
    for r in rows:
        if r["bench"] == "handoff" and not is_icount(r):
            runs.setdefault(r["variant"], {}).setdefault(r["dir"], {}) \
                .setdefault(r["metric"], r["value"])
    out = {}
    for var, per_dir in runs.items():
        counted = [m for m in per_dir.values() if m.get("sw_n")]
        res = {}
        if counted:
            n = sum(m["sw_n"] for m in counted)
            res["n"] = n
            res["missed"] = sum(m.get("sw_missed", 0) for m in counted)
            for k in ("sw_mean",) + SWITCH_METRICS:
                res[k] = sum(m.get(k, 0) * m["sw_n"] for m in counted) / n
            res["p50"] = statistics.median(m["sw_p50"] for m in counted
                                           if "sw_p50" in m)
            res["min"] = min(m["sw_min"] for m in counted if "sw_min" in m)
            res["max"] = max(m["sw_max"] for m in counted if "sw_max" in m)
        rounds = [m for m in per_dir.values() if m.get("rounds")]
        if rounds:
            res["per_round"] = (sum(m.get("ctxt_per_round", 0) * m["rounds"]
                                    for m in rounds) /
                                sum(m["rounds"] for m in rounds))
        if res:
            out[var] = res
    return out


def switches_table(sw, summary):
    table = []
    for m in METHODS:
        for c in PLACEMENTS:
            var = "%s-%s" % (m, c)
            s = sw.get(var)
            if not s or "n" not in s:
                continue
            table.append([m, c, int(s["n"]), int(s["missed"]), fmt(s["sw_mean"]),
                          fmt(s["p50"]), "%d-%d" % (s["min"], s["max"])] +
                         [fmt(s[k]) for k in SWITCH_METRICS] +
                         [fmt(s.get("per_round"))])
            for k in ("n", "missed", "sw_mean", "p50", "min", "max") + \
                    SWITCH_METRICS + ("per_round",):
                if k in s:
                    summary.append(("switches", "handoff", var, k, "pooled",
                                    "value", s[k]))
    if not table:
        return ""
    return md_table(["method", "cpus", "handoffs", "missed",
                     "switches per handoff (mean)", "p50", "range",
                     "target voluntary", "target nonvoluntary",
                     "waiter voluntary", "waiter nonvoluntary",
                     "switches per latency round"], table)


def handoff_tables(rows, samples, summary, sw):
    bench = {}
    for r in rows:
        if r["bench"] == "handoff" and not is_icount(r):
            bench.setdefault((r["variant"], r["metric"]), []).append(r["value"])
    pct = {}
    table = []
    for m in METHODS:
        for c in PLACEMENTS:
            s = samples.get((m, c))
            var = "%s-%s" % (m, c)
            missed = sum(bench.get((var, "missed"), []))
            if s:
                vals = {name: percentile(s, p) for name, p in PERCENTILES}
                n, src = len(s), "raw"
            elif (var, "p50_ns") in bench:
                key = {"p50": "p50_ns", "p99": "p99_ns", "p99.9": "p999_ns"}
                vals = {name: statistics.median(bench[(var, key[name])])
                        for name, _ in PERCENTILES}
                n, src = int(sum(bench.get((var, "n"), []))), "BENCH"
            else:
                continue
            pct[(m, c)] = vals
            s = sw.get(var, {})
            table.append([m, c, n, int(missed), src] +
                         [fmt(vals[name] / 1000.0) for name, _ in PERCENTILES] +
                         [fmt(s.get("sw_mean")), fmt(s.get("p50"))])
            for name, _ in PERCENTILES:
                summary.append(("handoff", "handoff", var, name + "_ns", "pooled",
                                "value", vals[name]))
            summary.append(("handoff", "handoff", var, "n", "pooled", "value", n))
            summary.append(("handoff", "handoff", var, "missed", "pooled",
                            "value", missed))
    md = md_table(["method", "cpus", "n", "missed", "source"] +
                  ["%s (us)" % name for name, _ in PERCENTILES] +
                  ["switches per handoff (mean)", "(p50)"], table)
    rt = []
    for c in PLACEMENTS:
        for num, den in (("swb", "futex"), ("swb", "futexblk"), ("perf", "swb"),
                         ("proc", "swb"), ("watch", "futex"), ("watch", "futexblk"),
                         ("watch", "swb"), ("perf", "watch"), ("watchpoll", "watch")):
            if (num, c) in pct and (den, c) in pct:
                cells = ["%s/%s" % (num, den), c]
                for name, _ in PERCENTILES:
                    d = pct[(den, c)][name]
                    r = pct[(num, c)][name] / d if d else float("nan")
                    cells.append(fmt(r))
                    summary.append(("handoff", "ratio", "%s/%s-%s" % (num, den, c),
                                    name, "pooled", "ratio", r))
                rt.append(cells)
    if rt:
        md += "\n" + md_table(["ratio", "cpus"] + [n for n, _ in PERCENTILES], rt)
    return md


def handoff_icount_table(rows, samples, summary):
    """(b3): the one-CPU handoffs of the icount boots, in instructions."""
    missed = {}
    for r in rows:
        if r["bench"] == "handoff" and is_icount(r) and r["metric"] == "missed":
            missed[r["variant"]] = missed.get(r["variant"], 0) + r["value"]
    pct, table = {}, []
    for m in METHODS:
        s = samples.get((m, "same"))
        if not s:
            continue
        vals = {name: percentile(s, p) for name, p in ICOUNT_PERCENTILES}
        pct[m] = vals
        table.append([m, len(s), int(missed.get(m + "-same", 0))] +
                     [fmt(vals[name]) for name, _ in ICOUNT_PERCENTILES])
        for name, _ in ICOUNT_PERCENTILES:
            summary.append(("handoff_icount", "handoff", m + "-same",
                            name + "_insns", "pooled", "value", vals[name]))
    if not table:
        return ""
    md = md_table(["method", "n", "missed"] +
                  ["%s (insns)" % name for name, _ in ICOUNT_PERCENTILES], table)
    rt = []
    for num, den in (("swb", "futex"), ("swb", "futexblk"), ("perf", "swb"),
                     ("watch", "futex"), ("watch", "futexblk"), ("watch", "swb"),
                     ("perf", "watch")):
        if num in pct and den in pct:
            cells = ["%s/%s" % (num, den)]
            for name, _ in ICOUNT_PERCENTILES:
                d = pct[den][name]
                r = pct[num][name] / d if d else float("nan")
                cells.append(fmt(r))
                summary.append(("handoff_icount", "ratio", "%s/%s-same" % (num, den),
                                name, "pooled", "ratio", r))
            rt.append(cells)
    if rt:
        md += "\n" + md_table(["ratio"] + [n for n, _ in ICOUNT_PERCENTILES], rt)
    return md


# ---- (c) use case -----------------------------------------------------

USECASE_METRICS = ("fg_slowdown", "bg_share_of_blocked", "overlap_ms",
                   "bg_work_ms", "fg_wall_ms")


def split_usecase_variant(v):
    """'1:1-2cpu-swb' -> ('1:1', 2, 'swb')."""
    parts = v.split("-")
    if len(parts) < 3 or not parts[1].endswith("cpu"):
        return None
    try:
        return parts[0], int(parts[1][:-3]), "-".join(parts[2:])
    except ValueError:
        return None


def usecase_table(rows, summary):
    vals = {}
    for r in rows:
        if r["bench"] != "usecase":
            continue
        k = split_usecase_variant(r["variant"])
        if k:
            vals.setdefault(k, {}).setdefault(r["metric"], []).append(r["value"])

    def order(k):
        mix, cpus, pol = k
        return (mix, cpus, POLICIES.index(pol) if pol in POLICIES else 99, pol)

    table = []
    for k in sorted(vals, key=order):
        cells = [k[0], k[1], k[2]]
        n = 0
        for m in USECASE_METRICS:
            v = vals[k].get(m, [])
            n = max(n, len(v))
            mean = statistics.fmean(v) if v else None
            cells.append(fmt(mean))
            if v:
                summary.append(("usecase", "usecase", "%s-%dcpu-%s" % k, m,
                                "all", "mean", mean))
        cells.append(n)
        table.append(cells)
    return md_table(["mix", "cpus", "policy"] + list(USECASE_METRICS) + ["runs"],
                    table)


def med_cell(v, digits=3):
    """median [min, max] of a list of runs, "-" if none."""
    if not v:
        return "-"
    if len(v) == 1:
        return fmt(v[0], digits)
    return "%s [%s, %s]" % (fmt(statistics.median(v), digits),
                            fmt(min(v), digits), fmt(max(v), digits))


def add_spread(summary, table, bench, var, metric, v):
    """median, min, max and n of the runs of one figure, to summary.csv."""
    if not v:
        return
    summary.append((table, bench, var, metric, "all", "median",
                    statistics.median(v)))
    summary.append((table, bench, var, metric, "all", "min", min(v)))
    summary.append((table, bench, var, metric, "all", "max", max(v)))
    summary.append((table, bench, var, metric, "all", "n", len(v)))


# (figure, how the runs combine in its cell)
EVICT_METRICS = (("fg_slowdown", "median"), ("overlap_pct", "median"),
                 ("bg_share_of_blocked", "median"),
                 ("nr_overlap_episodes", "sum"),
                 ("evict_overlap_p50_us", "median"),
                 ("evict_overlap_p99_us", "median"),
                 ("evict_overlap_max_us", "max"), ("evictions", "sum"),
                 ("evict_kernel_avg_us", "weighted"),
                 ("evict_kernel_max_us", "max"))


def usecase_evict_table(rows, summary):
    """(c2): the "group" policy's runs, per mix and CPUs."""
    runs = {}
    for r in rows:
        if r["bench"] != "usecase":
            continue
        k = split_usecase_variant(r["variant"])
        if k and k[2] == "group":
            runs.setdefault(k[:2], {}).setdefault(r["dir"], {}) \
                .setdefault(r["metric"], r["value"])
    table = []
    for k in sorted(runs):
        per_run = list(runs[k].values())
        var = "%s-%dcpu-group" % k
        cells = [k[0], k[1], len(per_run)]
        for m, how in EVICT_METRICS:
            v = [x[m] for x in per_run if m in x]
            if not v:
                cells.append("-")
                continue
            if how == "median":
                cells.append(med_cell(v))
                add_spread(summary, "usecase_evict", "usecase", var, m, v)
                continue
            if how == "sum":
                x = sum(v)
            elif how == "max":
                x = max(v)
            else:
                # The mean over all evictions of all runs.
                ev = [(r[m], r.get("evictions", 0)) for r in per_run
                      if m in r]
                n = sum(e for _, e in ev)
                x = sum(a * e for a, e in ev) / n if n else 0.0
            cells.append(fmt(x))
            summary.append(("usecase_evict", "usecase", var, m, "all", how, x))
        table.append(cells)
    if not table:
        return ""
    return md_table(["mix", "cpus", "runs", "fg_slowdown", "overlap (% of fg "
                     "compute)", "bg_share_of_blocked", "overlap episodes",
                     "episode p50 (us)", "episode p99 (us)",
                     "episode max (us)", "kernel evictions",
                     "kernel avg (us)", "kernel max (us)"], table)


# ---- (d) pre-wakes -------------------------------------------------------

PREWAKE_SUMS = ("blocks", "prewakes", "spurious", "watcher_returns")


def prewake_table(rows, summary):
    vals = {}
    for r in rows:
        if r["bench"] == "prewake":
            vals.setdefault(r["variant"], {}).setdefault(r["metric"], []) \
                .append(r["value"])
    table = []
    for var in sorted(vals):
        v = vals[var]
        sums = {k: sum(v.get(k, [])) for k in PREWAKE_SUMS}
        runs = max(len(v.get("watcher_returns", [])), len(v.get("blocks", [])))
        has = "prewakes" in v
        pct = (100.0 * sums["spurious"] / sums["prewakes"]
               if has and sums["prewakes"] else None)
        cover = (sums["prewakes"] / sums["blocks"]
                 if has and sums["blocks"] else None)
        if "ns_per_roundtrip" in v:
            t = "%s us/round trip" % fmt(statistics.fmean(v["ns_per_roundtrip"]) / 1000.0)
        elif "seconds" in v:
            t = "%s s" % fmt(statistics.fmean(v["seconds"]))
        else:
            t = "-"
        table.append([var, runs] +
                     [int(sums[k]) if has or k == "watcher_returns" else "-"
                      for k in PREWAKE_SUMS[:3]] +
                     ["%.3f %%" % pct if pct is not None else "-",
                      fmt(cover), int(sums["watcher_returns"]), t])
        for k in PREWAKE_SUMS:
            if k in v:
                summary.append(("prewake", "prewake", var, k, "all", "sum", sums[k]))
        if pct is not None:
            summary.append(("prewake", "prewake", var, "spurious_pct", "all",
                            "ratio", pct))
        if cover is not None:
            summary.append(("prewake", "prewake", var, "prewakes_per_block",
                            "all", "ratio", cover))
    if not table:
        return ""
    return md_table(["benchmark", "runs", "blocks", "pre-wakes", "spurious",
                     "spurious / pre-wakes", "pre-wakes / blocks",
                     "watcher returns", "time (mean, with watcher)"], table)


# ---- (e) waiter storm ----------------------------------------------------

def storm_table(rows, summary):
    vals = {}
    for r in rows:
        if r["bench"] == "storm":
            vals.setdefault(r["variant"], {}).setdefault(r["metric"], []) \
                .append(r["value"])

    def n_of(var):
        try:
            return int(var.lstrip("n"))
        except ValueError:
            return 0

    table = []
    for var in sorted(vals, key=n_of):
        v = vals[var]
        last = sorted(v.get("last_ms", []))
        first = sorted(v.get("first_ms", []))
        sums = {k: int(sum(v.get(k, []))) for k in ("ret0", "esrch", "early")}
        runs = len(v.get("ret0", []))
        table.append([n_of(var), runs, sums["ret0"], sums["esrch"],
                      sums["early"],
                      fmt(percentile(first, 50)) if first else "-",
                      fmt(percentile(last, 50)) if last else "-",
                      fmt(last[-1]) if last else "-"])
        for k, x in sums.items():
            summary.append(("storm", "storm", var, k, "all", "sum", x))
        summary.append(("storm", "storm", var, "runs", "all", "count", runs))
        if last:
            summary.append(("storm", "storm", var, "last_ms", "all", "p50",
                            percentile(last, 50)))
            summary.append(("storm", "storm", var, "last_ms", "all", "max",
                            last[-1]))
        if first:
            summary.append(("storm", "storm", var, "first_ms", "all", "p50",
                            percentile(first, 50)))
    if not table:
        return ""
    return md_table(["waiters", "runs", "returned 0", "returned -ESRCH",
                     "early", "first return p50 (ms)", "last return p50 (ms)",
                     "last return max (ms)"], table)


# ---- (f) M:N worker pool ---------------------------------------------------

POOL_METRICS = ("items_per_s", "max_concurrency", "overlap_pct",
                "slots_busy_pct", "any_busy_pct", "item_p50_us", "item_p99_us",
                "vcsw_per_item", "ivcsw_per_item", "handoffs_per_item")


def split_pool_variant(v):
    """'2-group' -> (2, 'group')."""
    n, _, pol = v.partition("-")
    try:
        return int(n), pol
    except ValueError:
        return None


def pool_table(rows, summary):
    vals = {}
    for r in rows:
        if r["bench"] != "pool":
            continue
        k = split_pool_variant(r["variant"])
        if k:
            vals.setdefault(k, {}).setdefault(r["metric"], []) \
                .append(r["value"])

    def order(k):
        n, pol = k
        return (-n, POOL_POLICIES.index(pol) if pol in POOL_POLICIES else 99,
                pol)

    table = []
    for k in sorted(vals, key=order):
        v = vals[k]
        var = "%d-%s" % k
        runs = len(v.get("items_per_s", []))
        cells = [k[0], k[1], runs]
        for m in POOL_METRICS:
            x = v.get(m, [])
            if m == "max_concurrency":
                # The largest over all runs is the one the target is about.
                cells.append("%d" % max(x) if x else "-")
            else:
                cells.append(med_cell(x))
            add_spread(summary, "pool", "pool", var, m, x)
        table.append(cells)
    if not table:
        return ""
    md = md_table(["N", "policy", "runs", "items/s", "max concurrency (all "
                   "runs)", "> N (% of time)", ">= N (% of time)",
                   ">= 1 (% of time)", "item p50 (us)", "item p99 (us)",
                   "voluntary switches / item", "involuntary switches / item",
                   "group handoffs / item"], table)
    rt = []
    for n in sorted({k[0] for k in vals}, reverse=True):
        for den in ("sem", "semblk", "nolimit"):
            num_v = vals.get((n, "group"), {}).get("items_per_s", [])
            den_v = vals.get((n, den), {}).get("items_per_s", [])
            rc = ratio_ci(num_v, den_v)
            if not rc:
                continue
            rt.append(["group/%s" % den, n, fmt_ratio(rc)])
            for stat, x in zip(("ratio", "ci_lo", "ci_hi"), rc):
                summary.append(("pool", "ratio", "group/%s-%d" % (den, n),
                                "items_per_s", "all", stat, x))
    if rt:
        md += "\n" + md_table(["items/s ratio", "N", "ratio of means "
                               "[95% CI]"], rt)
    return md


# ---- (g) watch fds: many threads, event rate --------------------------

WATCHMANY_METRICS = ("setup_us", "memfree_kb", "slab_kb", "p50_ns", "p90_ns",
                     "p99_ns", "max_ns", "missed")
RATE_METRICS = ("events_per_s", "events_per_s_cpu", "read_per_s",
                "dropped_share", "overflows", "violations")


def watchmany_table(rows, summary):
    vals = {}
    for r in rows:
        if r["bench"] == "watchmany":
            vals.setdefault(r["variant"], {}).setdefault(r["metric"], []) \
                .append(r["value"])
    many = [v for v in sorted(vals) if not v.startswith("rate-")]
    rate = [v for v in sorted(vals) if v.startswith("rate-")]
    md = ""
    table = []
    for var in many:
        v = vals[var]
        cells = [var, len(v.get("setup_us", []))]
        for m in WATCHMANY_METRICS:
            x = v.get(m, [])
            if m == "missed":
                cells.append("%d" % sum(x) if x else "-")
            elif m.endswith("_ns"):
                cells.append(med_cell([y / 1000.0 for y in x]))
            else:
                cells.append(med_cell(x))
            add_spread(summary, "watchmany", "watchmany", var, m, x)
        table.append(cells)
    if table:
        md += md_table(["variant", "runs", "setup (us)", "MemFree taken (kB)",
                        "Slab (kB)", "p50 (us)", "p90 (us)", "p99 (us)",
                        "max (us)", "missed (sum)"], table)
    rt = []
    for n in sorted({v.split("-", 1)[1] for v in many}):
        for m in ("setup_us", "memfree_kb", "p50_ns", "p99_ns"):
            rc = ratio_ci(vals.get("perf-" + n, {}).get(m, []),
                          vals.get("watch-" + n, {}).get(m, []))
            if not rc:
                continue
            rt.append(["perf/watch", n, m, fmt_ratio(rc)])
            for stat, x in zip(("ratio", "ci_lo", "ci_hi"), rc):
                summary.append(("watchmany", "ratio", "perf/watch-" + n, m,
                                "all", stat, x))
    if rt:
        md += "\n" + md_table(["ratio", "threads", "figure",
                               "ratio of means [95% CI]"], rt)
    table = []
    for var in rate:
        v = vals[var]
        cells = [var, len(v.get("events_per_s", []))]
        for m in RATE_METRICS:
            x = v.get(m, [])
            if m in ("overflows", "violations"):
                cells.append("%d" % sum(x) if x else "-")
            else:
                cells.append(med_cell(x))
            add_spread(summary, "watchmany", "watchmany", var, m, x)
        table.append(cells)
    if table:
        md += "\n" + md_table(["variant", "runs", "events/s", "events/s per CPU",
                               "records read/s", "dropped share",
                               "overflow records (sum)", "violations (sum)"],
                              table)
    # SCHED_WATCH_LAZY against the same buffer, woken at every record
    rc = ratio_ci(vals.get("rate-lazy-b1024", {}).get("events_per_s", []),
                  vals.get("rate-b1024", {}).get("events_per_s", []))
    if rc:
        md += "\n" + md_table(["ratio", "figure", "ratio of means [95% CI]"],
                              [["rate-lazy-b1024/rate-b1024", "events_per_s",
                                fmt_ratio(rc)]])
        for stat, x in zip(("ratio", "ci_lo", "ci_hi"), rc):
            summary.append(("watchmany", "ratio", "lazy/eager-b1024",
                            "events_per_s", "all", stat, x))
    return md


# ---- plots --------------------------------------------------------------

def plots(outdir, samples, ratios, dirs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warn("matplotlib missing: no PNGs (apt-get install python3-matplotlib)")
        return []
    made = []

    if samples:
        fig, axes = plt.subplots(1, len(PLACEMENTS), figsize=(11, 4.2),
                                 sharey=True)
        for ax, c in zip(axes, PLACEMENTS):
            for m in METHODS:
                s = samples.get((m, c))
                if not s:
                    continue
                y = [(i + 1) / len(s) for i in range(len(s))]
                ax.step([max(x, 1) / 1000.0 for x in s], y, where="post",
                        label="%s (n=%d)" % (m, len(s)))
            ax.set_xscale("log")
            ax.set_xlabel("block-to-waiter latency (us, log)")
            ax.set_title("target and waiter: %s CPU" % c)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(loc="lower right", fontsize=8)
        axes[0].set_ylabel("CDF")
        fig.tight_layout()
        path = os.path.join(outdir, "handoff_cdf.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        made.append(path)

    tl = None
    for d in dirs:
        p = os.path.join(d, "usecase-timeline-1x1-1cpu.csv")
        if os.path.exists(p):
            tl = p
            break
    if tl:
        ivls = {}
        with open(tl, newline="") as f:
            for r in csv.DictReader(f):
                try:
                    ivls.setdefault(r["policy"], {}).setdefault(r["kind"], []) \
                        .append((int(r["start_ns"]) / 1e6, int(r["end_ns"]) / 1e6))
                except (KeyError, ValueError):
                    continue
        pols = [p for p in POLICIES if p in ivls]
        fig, ax = plt.subplots(figsize=(11, 0.7 * len(pols) + 1.2))
        span = 20.0
        colors = {"fg_blocked": "#dddddd", "fg_run": "tab:blue",
                  "bg_run": "tab:orange"}
        labelled = set()
        for i, p in enumerate(pols):
            y = len(pols) - 1 - i
            for kind, (off, h) in (("fg_blocked", (0.0, 0.8)),
                                   ("fg_run", (0.42, 0.38)),
                                   ("bg_run", (0.0, 0.38))):
                bars = [(s, e - s) for s, e in ivls[p].get(kind, []) if s < span]
                if bars:
                    ax.broken_barh(bars, (y - 0.4 + off, h),
                                   facecolors=colors[kind],
                                   label=None if kind in labelled else kind)
                    labelled.add(kind)
        ax.set_yticks(range(len(pols)))
        ax.set_yticklabels(list(reversed(pols)))
        ax.set_xlim(0, span)
        ax.set_xlabel("ms from the start (first %.0f ms); %s" %
                      (span, os.path.relpath(tl)))
        ax.set_title("use case 1:1 on 1 CPU: foreground runs (top half), "
                     "background runs (bottom half), fg blocked (grey)")
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.legend(loc="upper right", fontsize=8, ncol=3)
        fig.tight_layout()
        path = os.path.join(outdir, "usecase_timeline_1x1_1cpu.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        made.append(path)

    bars = []
    for key, rs in ratios:
        for label in ("idle/pristine", "armed/pristine", "armed/idle"):
            if rs.get(label):
                bars.append(("%s %s\n%s" % (key[0], key[1], label), rs[label]))
    if bars:
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(bars)), 4.2))
        xs = range(len(bars))
        pts = [b[1][0] for b in bars]
        err = [[0 if math.isnan(b[1][1]) else b[1][0] - b[1][1] for b in bars],
               [0 if math.isnan(b[1][2]) else b[1][2] - b[1][0] for b in bars]]
        ax.bar(xs, pts, yerr=err, capsize=3,
               color=["tab:blue" if "idle/" in b[0] else
                      "tab:red" if "armed/pristine" in b[0] else "tab:purple"
                      for b in bars])
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([b[0] for b in bars], fontsize=7, rotation=45,
                           ha="right")
        ax.set_ylabel("ratio of means (95% bootstrap CI); >1 slower")
        ax.set_title("cost in schedule(): time per op relative to baseline")
        fig.tight_layout()
        path = os.path.join(outdir, "cost_ratios.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--outdir", default="report")
    ap.add_argument("dirs", nargs="+", help="guest-bench.sh result directories")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)

    rows = load(a.dirs)
    if not rows:
        warn("no results found")
    summary = []
    cost_md, ratios = cost_tables(rows, summary)
    icount_md = icount_table(rows, summary)
    icount_steady_md = icount_steady_table(rows, summary)
    samples = handoff_samples(a.dirs)
    sw = handoff_switches(rows)
    handoff_md = handoff_tables(rows, samples, summary, sw)
    switches_md = switches_table(sw, summary)
    icount_samples = handoff_samples(a.dirs, "icount")
    handoff_icount_md = handoff_icount_table(rows, icount_samples, summary)
    usecase_md = usecase_table(rows, summary)
    usecase_evict_md = usecase_evict_table(rows, summary)
    prewake_md = prewake_table(rows, summary)
    storm_md = storm_table(rows, summary)
    pool_md = pool_table(rows, summary)
    watchmany_md = watchmany_table(rows, summary)

    with open(os.path.join(a.outdir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["table", "bench", "variant", "metric", "group", "stat",
                    "value"])
        for r in summary:
            w.writerow(r)

    quick = sorted({read_meta(d).get("quick", "?") for d in a.dirs})
    uname = sorted({read_meta(d).get("uname", "?") for d in a.dirs})
    kernels = sorted({(r["boot"], r["kernel"] +
                       ("" if r["mode"] == "wall" else ", " + r["mode"]))
                      for r in rows})
    md = ["# sched_wait_block() benchmark results\n",
          "Boots: %s. Quick mode: %s. Kernels: %s.\n" %
          (", ".join("%s (%s)" % bk for bk in kernels) or "none",
           "/".join(quick), "; ".join(uname)),
          "## (a) Cost in schedule()\n",
          "Cells: mean / median of all runs (all boots and repetitions). "
          "Ratios: ratio of means with a 95% percentile bootstrap interval "
          "(2000 resamples of the runs within each group). Lower is better "
          "for all metrics.\n",
          cost_md or "No pipe/hackbench data.\n",
          "## (a2) Cost in instructions (icount boots)\n",
          "QEMU -icount shift=0,sleep=off, one vCPU: the guest's clock "
          "counts executed instructions (1 ns = 1 instruction), so these "
          "are instructions per pipe round trip (one CPU) and per hackbench "
          "message. Cells: mean +- standard deviation [min, max] (n) over "
          "all repetitions of all icount boots; differences of means in "
          "instructions; ratios of means with a 95% bootstrap interval.\n",
          icount_md or "No instruction-count boots in this run.\n",
          "## (a3) Cost in instructions, steady runs\n",
          "The same boots without the first %d repetitions of each state "
          "in each boot, whose counts are still warming up (bench/README.md "
          "section 0): median [min, max] (n) of the remaining runs, and the "
          "differences of medians. This is the idle cost to quote; (a2)'s "
          "means carry the warm-up, unequally for the two kernels.\n"
          % ICOUNT_WARMUP,
          icount_steady_md or "No instruction-count boots in this run.\n",
          "## (b) Handoff latency\n",
          "Time from the target entering FUTEX_WAIT to the waiter running "
          "and knowing; percentiles of all raw samples pooled over boots, "
          "in microseconds. Switches per handoff: system-wide context "
          "switches (/proc/stat ctxt) from the target's last reading before "
          "it blocked to the waiter's first after it knew, in separate "
          "counting rounds; see (b2). Floors: futex, the target wakes the "
          "waiter and is preempted by it, its own way into the sleep "
          "falls after t1; futexblk (one CPU), the target wakes a "
          "SCHED_IDLE waiter and then blocks, so that the window holds the "
          "target's way into the sleep, as for swb and perf "
          "(bench/README.md).\n",
          handoff_md,
          "## (b2) Context switches per handoff\n",
          "Counting rounds pooled over boots. System-wide: /proc/stat's "
          "ctxt, every CPU (p50: median of the runs' medians; range: "
          "smallest and largest single handoff). Per thread: the means of "
          "each thread's own voluntary_ctxt_switches (it blocked) and "
          "nonvoluntary_ctxt_switches (it was preempted or yielded) over "
          "the same window. Last column: ctxt over the latency rounds as a "
          "whole, divided by their number: the round's own synchronisation "
          "included.\n",
          switches_md or "No context-switch counts in this run.\n",
          "## (b3) Handoff in instructions (icount boots)\n",
          "The same handoff on the icount boots of the patched kernel (one "
          "vCPU, both threads on it): the time from t0 to the waiter "
          "knowing is the number of instructions executed in between, the "
          "same from run to run up to interrupts and timer ticks that fall "
          "inside a sample. Pooled over the icount boots; ratios of the "
          "same percentiles.\n",
          handoff_icount_md or "No icount handoff data in this run.\n",
          "## (c) Use case\n",
          "Means over runs. fg_slowdown: foreground wall time / the same "
          "invocation's alone run; bg_share_of_blocked: background run time "
          "during foreground blocks / blocked time; overlap_ms: both ran at "
          "once. group: both threads in one concurrency group of width 1, "
          "the foreground as FG, the background as BG (patched kernel).\n",
          usecase_md,
          "## (c2) Use case: the concurrency group's eviction latency\n",
          "Policy group only. Cells: median [min, max] over runs, except "
          "overlap episodes and kernel evictions (summed over runs), the "
          "episode and kernel maxima (largest over runs) and the kernel "
          "mean (over all evictions of all runs). An overlap episode: a "
          "background run interval overlapping a foreground compute run "
          "interval, i.e. the foreground back in user code before the "
          "evicted background's last clock read; its length is the "
          "eviction latency seen from user space (p50/p99: each run's "
          "percentiles over its episodes). Kernel: the group's fdinfo, "
          "eviction to the victim's park, block or leave. Targets (2 CPUs): "
          "fg_slowdown <= 1.02, overlap <= 1 % of the foreground's compute "
          "time, bg_share_of_blocked >= 0.90.\n",
          usecase_evict_md or "No concurrency-group use case runs in this "
          "run.\n",
          "## (d) Pre-wakes\n",
          "A sched_wait_block() waiter parked on the benchmark's own threads "
          "(pipe -w: on the two ping-pong threads in turn; hackbench -w -T: "
          "on the 40 tasks in turn); differences of notify.blocks, "
          "notify.prewakes and notify.prewakes_spurious of the watched "
          "threads over the run, summed over threads and boots. A pre-wake "
          "is spurious if no block followed it.\n",
          prewake_md or "No pre-wake counts in this run.\n",
          "## (e) Waiter storm\n",
          "N waiters in sched_wait_block(target, NULL, 0, NULL) on one "
          "spinning thread, which then sleeps 100 ms and exits. Returns 0 "
          "and -ESRCH summed over runs (all must be 0); early: returned "
          "before the sleep; times from the start of the target's sleep to "
          "the first and the last waiter's return, over all runs.\n",
          storm_md or "No waiter-storm data in this run.\n",
          "## (f) M:N worker pool\n",
          "W = 8 workers, each item C = 500 us of the worker's CPU time "
          "then a 500 us sleep (its I/O); N slots: nolimit (no limit; N only "
          "sets the thresholds), sem (a semaphore of N held across the "
          "sleep), semblk (released around the sleep by hand), group (a "
          "concurrency group of width N). Cells: median [min, max] over "
          "runs (one per boot). Concurrency: workers inside their compute "
          "loops at once, from their merged run intervals; > N, >= N, >= 1: "
          "share of the measured window with more than N, at least N, at "
          "least one computing. Item latency: from the worker being ready "
          "for the item to its I/O completion as seen in user space, slot "
          "waits included. Switches: getrusage(RUSAGE_THREAD) of the workers "
          "per item. Targets: concurrency never above N (group), N slots "
          "busy >= 95 % of the time. Ratios of mean items/s with a 95 % "
          "bootstrap interval.\n",
          pool_md or "No pool data in this run.\n",
          "## (g) Watch fds: many threads, event rate\n",
          "watch-N / perf-N: N threads asleep in FUTEX_WAIT watched by one "
          "watch fd (pidfd_open + SCHED_WATCH_IOC_ADD each) or by N perf "
          "fds (PERF_RECORD_SWITCH, a ring of 1 + 2 pages each, one epoll "
          "set). Setup: wall time of the setup; MemFree taken and Slab "
          "grown over it. Latency: a random thread is released, takes t0 "
          "and blocks again; the main thread, asleep in read() on the watch "
          "fd or in epoll_wait() over the perf fds, knows at t1; t1 - t0, "
          "each run's percentiles, median [min, max] over runs. rate-bB: "
          "2 ping-pong pairs per CPU watched by one fd of B records, read "
          "by one thread; events = records read + events the OVERFLOW "
          "records say were dropped; violations: sequence numbers not "
          "increasing, BLOCK/WAKE not alternating without an OVERFLOW in "
          "between, or SCHED_WATCH_IOC_STATE not saying BLOCKED for every "
          "thread once all sleep (must be 0). rate-lazy-bB: the same on a "
          "SCHED_WATCH_LAZY fd, whose reader is woken only at half full "
          "(the pairs never all sleep) and then reads until EAGAIN.\n",
          watchmany_md or "No watch fd data in this run.\n"]
    made = plots(a.outdir, samples, ratios, a.dirs)
    if made:
        md.append("## Figures\n")
        md += ["![%s](%s)\n" % (os.path.basename(p), os.path.basename(p))
               for p in made]
    with open(os.path.join(a.outdir, "tables.md"), "w") as f:
        f.write("\n".join(md))
    print("report: %d rows from %d dirs -> %s (summary.csv, tables.md%s)" %
          (len(rows), len(a.dirs), a.outdir,
           "".join(", " + os.path.basename(p) for p in made)))


if __name__ == "__main__":
    main()
