#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""libuv/bench-report.py ENVIRONMENT CSV...: the tables of make libuv-bench.

Each CSV line is one run of uv_pool_bench (libuv/guest-bench.sh adds the
repetition first).  For every scenario and vCPU count, one row per pool:
the median of each figure over the repetitions, with [min, max], and the
ratio of the medians to stock libuv's pool of 4 threads."""
import csv
import statistics
import sys

COLS = ["rep", "label", "scenario", "cpus", "wall_s", "cpu_items_per_s",
        "blocking_items_per_s", "cpu_p50_us", "cpu_p99_us", "done_p50_us",
        "done_p99_us", "cpu_time_s", "ctx_switches", "threads_max",
        "kernel_fd"]
POOLS = ["stock4", "stock64", "group", "lazy"]
FIGS = [("cpu_items_per_s", "cpu items/s", "%.0f"),
        ("blocking_items_per_s", "blocking items/s", "%.0f"),
        ("cpu_p50_us", "cpu p50 (ms)", "ms"),
        ("cpu_p99_us", "cpu p99 (ms)", "ms"),
        ("done_p50_us", "done p50 (ms)", "ms"),
        ("done_p99_us", "done p99 (ms)", "ms"),
        ("cpu_time_s", "CPU time (s)", "%.2f"),
        ("ctx_switches", "ctx switches", "%.0f"),
        ("threads_max", "threads", "%.0f")]


def fmt(v, f):
    return "%.1f" % (v / 1000) if f == "ms" else f % v


def main():
    env = open(sys.argv[1]).read().strip()
    rows = []
    for path in sys.argv[2:]:
        with open(path) as fh:
            for r in csv.reader(fh):
                if len(r) == len(COLS):
                    rows.append(dict(zip(COLS, r)))
    print("# libuv's thread pool on the patched kernel: make libuv-bench\n")
    print("```\n%s\n```\n" % env)
    print("uv_pool_bench (libuv/bench/uv_pool_bench.c): *mixed* keeps 16 "
          "blocking items in flight (10 ms sleeps standing for disk reads, "
          "20 ms nscd-style lookups over an AF_UNIX socket) while CPU items "
          "of 5 ms of CPU time each arrive at 50 % of the CPUs' capacity "
          "(300 of them); "
          "*burst* queues 100 CPU items at once; *stall*: 4 items block for "
          "200 ms (the whole of a stock pool) and 20 ms later 20 CPU items "
          "are queued.  CPU-item latency is from "
          "uv_queue_work() to the after-work callback on the loop thread; "
          "*done*: to the end of the item on its worker.  *kernel fd*: the "
          "file the pool held (group: a concurrency group, watch: a watch "
          "fd, none: the stock pool), proof that a policy did not fall back.  "
          "Each cell: median "
          "[min, max] over the repetitions (n), interleaved in one boot per "
          "vCPU count; ×: ratio of the medians to stock4.  Emulated "
          "(TCG) guests: compare pools within a table, not with hardware.\n")
    for scen in ["mixed", "burst", "stall"]:
        for cpus in sorted({r["cpus"] for r in rows}, key=int):
            sel = [r for r in rows if r["scenario"] == scen and r["cpus"] == cpus]
            if not sel:
                continue
            print("## %s, %s vCPUs\n" % (scen, cpus))
            print("| pool | n | " + " | ".join(f[1] for f in FIGS) +
                  " | kernel fd |")
            print("|---|---|" + "---|" * (len(FIGS) + 1))
            base = {}
            for pool in POOLS:
                pr = [r for r in sel if r["label"] == pool]
                if not pr:
                    continue
                cells = []
                for key, _, f in FIGS:
                    vals = [float(r[key]) for r in pr]
                    med = statistics.median(vals)
                    if pool == "stock4":
                        base[key] = med
                    cell = "%s [%s, %s]" % (fmt(med, f), fmt(min(vals), f),
                                            fmt(max(vals), f))
                    if pool != "stock4" and base.get(key):
                        cell += " ×%.2f" % (med / base[key])
                    cells.append(cell)
                fds = sorted({r["kernel_fd"] for r in pr})
                print("| %s | %d | %s | %s |" % (pool, len(pr), " | ".join(cells),
                                                 "/".join(fds)))
            print()
    if not rows:
        print("No run reported results.")


main()
