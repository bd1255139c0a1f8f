#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise sched_wait_block() guest benchmark results.

usage: report.py [-o OUTDIR] RESULT_DIR [RESULT_DIR...]

Each RESULT_DIR is the OUTDIR of one guest-bench.sh run (one boot):
results.csv (kernel,state,bench,variant,metric,value,rep), handoff-*.csv
raw latency samples, usecase-timeline-*.csv and meta.txt.  The boot index
is meta.txt's "boot=" when set, else the position on the command line.
Kernel label "patched" is the patched kernel; any other label counts as
pristine.

Writes to OUTDIR (default: report/):
  summary.csv      every figure below, long format
  tables.md        README-ready markdown tables:
                   (a) cost in schedule(): pipe and hackbench, mean and
                       median per kernel/state, ratios idle/pristine,
                       armed/pristine and armed/idle (ratio of means) with
                       a 95% bootstrap confidence interval (2000
                       resamples of the runs within each group, all boots
                       and repetitions pooled)
                   (b) handoff latency p50/p99/p99.9 per method and CPU
                       placement, from the pooled raw samples (from the
                       BENCH percentiles, median over runs, when no raw
                       file exists), ratios swb/futex and perf/swb
                   (c) the use case per mix/CPUs/policy, means over runs
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
METHODS = ("futex", "swb", "perf", "proc")
PLACEMENTS = ("same", "cross")
POLICIES = ("alone", "none", "nice19", "idle", "pinned", "swb")
PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))


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
    """Rows of all results.csv files, with their boot index added."""
    rows = []
    for i, d in enumerate(dirs, 1):
        boot = read_meta(d).get("boot") or str(i)
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
                    rows.append(r)
        except OSError as e:
            warn("%s: %s" % (path, e))
    return rows


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


def fmt_ratio(rc):
    if not rc:
        return "-"
    p, lo, hi = rc
    if math.isnan(lo):
        return "%.3f" % p
    return "%.3f [%.3f, %.3f]" % (p, lo, hi)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


# ---- (a) cost in schedule() -------------------------------------------

def cost_tables(rows, summary):
    groups = {}
    for r in rows:
        if r["bench"] not in COST_BENCHES:
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


# ---- (b) handoff latency ----------------------------------------------

def handoff_samples(dirs):
    samples = {}
    for d in dirs:
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


def handoff_tables(rows, samples, summary):
    bench = {}
    for r in rows:
        if r["bench"] == "handoff":
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
            table.append([m, c, n, int(missed), src] +
                         [fmt(vals[name] / 1000.0) for name, _ in PERCENTILES])
            for name, _ in PERCENTILES:
                summary.append(("handoff", "handoff", var, name + "_ns", "pooled",
                                "value", vals[name]))
            summary.append(("handoff", "handoff", var, "n", "pooled", "value", n))
            summary.append(("handoff", "handoff", var, "missed", "pooled",
                            "value", missed))
    md = md_table(["method", "cpus", "n", "missed", "source"] +
                  ["%s (us)" % name for name, _ in PERCENTILES], table)
    rt = []
    for c in PLACEMENTS:
        for num, den in (("swb", "futex"), ("perf", "swb"), ("proc", "swb")):
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
    kernels = sorted({(r["boot"], r["kernel"]) for r in rows})
    cost_md, ratios = cost_tables(rows, summary)
    samples = handoff_samples(a.dirs)
    handoff_md = handoff_tables(rows, samples, summary)
    usecase_md = usecase_table(rows, summary)

    with open(os.path.join(a.outdir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["table", "bench", "variant", "metric", "group", "stat",
                    "value"])
        for r in summary:
            w.writerow(r)

    quick = sorted({read_meta(d).get("quick", "?") for d in a.dirs})
    uname = sorted({read_meta(d).get("uname", "?") for d in a.dirs})
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
          "## (b) Handoff latency\n",
          "Time from the target entering FUTEX_WAIT to the waiter running "
          "and knowing; percentiles of all raw samples pooled over boots, "
          "in microseconds.\n",
          handoff_md,
          "## (c) Use case\n",
          "Means over runs. fg_slowdown: foreground wall time / the same "
          "invocation's alone run; bg_share_of_blocked: background run time "
          "during foreground blocks / blocked time; overlap_ms: both ran at "
          "once.\n",
          usecase_md]
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
