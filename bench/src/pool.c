// SPDX-License-Identifier: GPL-2.0
/*
 * pool: an M:N worker pool that wants N workers computing and no more,
 * the concurrency groups' second use case: a runtime's N "processors"
 * over W threads, or, with N = 1, a global interpreter lock released at
 * every blocking call.
 *
 * W worker threads (-w, default 8) loop over items: C us of their own
 * CPU time (-C, default 500), then a blocking "I/O" of D us (-D, default
 * 500).  The I/O is clock_nanosleep(CLOCK_MONOTONIC, D) with the timer
 * slack set to 1 ns (PR_SET_TIMERSLACK): a block that its own hrtimer
 * ends, with no other thread involved.  A producer thread writing to
 * per-worker pipes after D us would be one more runnable thread that
 * competes with the workers for the CPUs (W of them in "nolimit"), and
 * under slow emulation its writes would be late by whatever CPU time the
 * workers leave it: the I/O time would measure the host, not the policy.
 * Policies (-P):
 *
 *   nolimit  W free threads
 *   sem      a POSIX semaphore of N, taken before the compute and given
 *            back after the I/O: held across the blocking call, as a
 *            naive runtime does
 *   semblk   the same semaphore taken before the compute, given back
 *            before the I/O and taken again after it: the release at
 *            every blocking call done by hand
 *   group    the W threads join one concurrency group of width N (as
 *            foreground members); no code at the call sites.  Skipped,
 *            with a line saying so and no figures, on a kernel without
 *            sched_concurrency_create() (ENOSYS)
 *
 * Who computes when: as in usecase.c, the compute loop reads
 * CLOCK_MONOTONIC and counts the time between two consecutive reads as
 * the thread's own unless it exceeds -g US (default 50): then the thread
 * did not run, and its run interval ends.  Merging every worker's run
 * intervals gives the number of workers computing at every instant.  All
 * figures are over the measured window, from the start signal to the
 * stop (-t MS, default 1000, 150 with -q):
 *
 *   items_per_s      items whose I/O completed in the window / its length
 *   items            the number of those items
 *   max_concurrency  the largest number of workers computing at once
 *   overlap_pct      % of the window with more than N workers computing
 *   slots_busy_pct   % of the window with at least N workers computing
 *   any_busy_pct     % of the window with at least one computing
 *   item_p50_us, item_p99_us
 *                    item latency: from the moment the worker is ready
 *                    for the item (its previous item's I/O completed, or
 *                    the start) to the item's I/O completion as user space
 *                    sees it; every wait for a slot is included, wherever
 *                    the policy puts it (before the compute for sem,
 *                    after the I/O for semblk and group)
 *   vcsw_per_item, ivcsw_per_item
 *                    the workers' voluntary and involuntary context
 *                    switches (getrusage(RUSAGE_THREAD), from the start
 *                    until each leaves its loop) per item they did
 *   handoffs_per_item
 *                    group only: the group's fdinfo "handoffs" (slots
 *                    handed from a blocking member to a parked one) per
 *                    item done
 *
 * Code that runs outside the compute loop (the semaphore calls, the loop
 * itself) is not in the run intervals, and a preemption shorter than the
 * gap counts as running.  nolimit's N only sets the thresholds of the
 * figures: it runs the same in "2-nolimit" and "1-nolimit".
 *
 *   -n N            slots (default 2)
 *   -w W            workers (default 8)
 *   -C US, -D US    compute and I/O per item (default 500 and 500)
 *   -P LIST         comma-separated policies, or "all" (default all)
 *   -t MS           measured window per policy (default 1000; -q: 150)
 *   -p CPUS         pin every worker to CPUs 0..CPUS-1 (default: none)
 *   -g GAP_US       as in usecase (default 50)
 *   -q              quick: a window of 150 ms per policy
 *
 * Output: BENCH,pool,<N>-<policy>,<metric>,<x>
 */
#include "common.h"
#include <limits.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

enum policy { P_NOLIMIT, P_SEM, P_SEMBLK, P_GROUP, NR_POLICIES };
static const char *const policy_names[] = {
	"nolimit", "sem", "semblk", "group",
};

#define STACK_SIZE	(256 * 1024)

struct worker {
	pthread_t thread;
	struct ivls run;	/* compute run intervals */
	long long *done;	/* I/O completion times */
	long nr_done, cap_done;
	long items;		/* all items, in the window or not */
	long long vcsw, ivcsw;
} __attribute__((aligned(64)));

/* A merged interval boundary: +1 starts computing, -1 stops. */
struct edge {
	long long t;
	int d;
};

static long long compute_ns = 500 * NSEC_PER_USEC, io_ns = 500 * NSEC_PER_USEC;
static long long window_ns, gap_ns = 50 * NSEC_PER_USEC;
static int nr_workers = 8, width = 2, nr_pin;
static enum policy policy;

static struct worker *workers;
static struct edge *edges;
static long long *lat;
static sem_t sem;
static int conc_fd = -1;
static atomic_int nr_ready, started, stop;
static long long t_start;

static void *zalloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		die("out of memory");
	memset(p, 0, size);	/* prefault */
	return p;
}

static void sem_take(void)
{
	while (sem_wait(&sem))
		if (errno != EINTR)
			die_errno("sem_wait");
}

static void sem_give(void)
{
	if (sem_post(&sem))
		die_errno("sem_post");
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct rusage r0, r1;
	struct timespec io;
	long long t;

	if (nr_pin)
		pin_cpus(0, nr_pin);
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL))
		die_errno("PR_SET_TIMERSLACK");
	/*
	 * Members beyond the width park in the JOIN until a holder blocks:
	 * in the futex wait below, so that all end up there.
	 */
	if (policy == P_GROUP && conc_join(conc_fd, SCHED_CONC_ROLE_FG))
		die_errno("SCHED_CONC_IOC_JOIN");
	atomic_fetch_add(&nr_ready, 1);
	while (!atomic_load(&started))
		futex_wait_checked(&started, 0, 0);

	if (getrusage(RUSAGE_THREAD, &r0))
		die_errno("getrusage");
	ns_to_timespec(io_ns, &io);
	if (policy == P_SEMBLK)
		sem_take();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (policy == P_SEM)
			sem_take();
		run_tracked(compute_ns, gap_ns, &w->run);
		if (policy == P_SEMBLK)
			sem_give();
		errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &io, NULL);
		if (errno)
			die_errno("clock_nanosleep");
		if (policy == P_SEMBLK)
			sem_take();
		t = now_ns();
		if (policy == P_SEM)
			sem_give();
		if (w->nr_done < w->cap_done)
			w->done[w->nr_done++] = t;
		w->items++;
	}
	if (policy == P_SEMBLK)
		sem_give();
	if (getrusage(RUSAGE_THREAD, &r1))
		die_errno("getrusage");
	w->vcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	w->ivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	return NULL;		/* exiting leaves the group */
}

/* Edges by time; at the same time a stop before a start (no overlap). */
static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d;
}

static void run_policy(enum policy p)
{
	long long t_stop, win, over = 0, busy_n = 0, busy_1 = 0, prev;
	long long vcsw = 0, ivcsw = 0, s, e;
	long i, j, n_edges = 0, n_lat = 0, items_all = 0;
	struct conc_stats cs = { .handoffs = -1 };
	struct timespec ts;
	pthread_attr_t attr;
	char variant[64];
	int err, level = 0, max_level = 0;

	snprintf(variant, sizeof(variant), "%d-%s", width, policy_names[p]);
	if (p == P_GROUP) {
		conc_fd = conc_create_or_skip(width, "pool", variant);
		if (conc_fd < 0)
			return;
	}
	policy = p;
	if ((p == P_SEM || p == P_SEMBLK) && sem_init(&sem, 0, width))
		die_errno("sem_init");
	atomic_store(&nr_ready, 0);
	atomic_store(&started, 0);
	atomic_store(&stop, 0);
	for (i = 0; i < nr_workers; i++) {
		workers[i].run.n = 0;
		workers[i].nr_done = workers[i].items = 0;
	}

	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, STACK_SIZE);
	if (err)
		die("pthread_attr: %s", strerror(err));
	for (i = 0; i < nr_workers; i++) {
		err = pthread_create(&workers[i].thread, &attr, worker,
				     &workers[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	pthread_attr_destroy(&attr);
	ns_to_timespec(NSEC_PER_MSEC, &ts);
	while (atomic_load(&nr_ready) < nr_workers)
		nanosleep(&ts, NULL);

	t_start = now_ns();
	atomic_store(&started, 1);
	futex_wake_checked(&started, INT_MAX);
	ns_to_timespec(window_ns, &ts);
	errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	if (errno)
		die_errno("clock_nanosleep");
	t_stop = now_ns();
	atomic_store(&stop, 1);
	for (i = 0; i < nr_workers; i++)
		if (pthread_join(workers[i].thread, NULL))
			die("pthread_join");
	if (p == P_GROUP) {
		if (!conc_fdinfo(conc_fd, &cs) || cs.handoffs < 0)
			die("pool: the group's fdinfo lacks \"handoffs:\"");
		close(conc_fd);
		conc_fd = -1;
	}
	if (p == P_SEM || p == P_SEMBLK)
		sem_destroy(&sem);

	/* Everything below is after the run. */
	win = t_stop - t_start;
	for (i = 0; i < nr_workers; i++) {
		struct worker *w = &workers[i];

		for (j = 0; j < w->run.n; j++) {
			s = w->run.v[j].s > t_start ? w->run.v[j].s : t_start;
			e = w->run.v[j].e < t_stop ? w->run.v[j].e : t_stop;
			if (e <= s)
				continue;
			edges[n_edges].t = s;
			edges[n_edges++].d = 1;
			edges[n_edges].t = e;
			edges[n_edges++].d = -1;
		}
		prev = t_start;
		for (j = 0; j < w->nr_done && w->done[j] <= t_stop; j++) {
			lat[n_lat++] = w->done[j] - prev;
			prev = w->done[j];
		}
		items_all += w->items;
		vcsw += w->vcsw;
		ivcsw += w->ivcsw;
	}
	qsort(edges, n_edges, sizeof(*edges), cmp_edge);
	prev = t_start;
	for (i = 0; i < n_edges; i++) {
		long long dt = edges[i].t - prev;

		if (level > width)
			over += dt;
		if (level >= width)
			busy_n += dt;
		if (level >= 1)
			busy_1 += dt;
		level += edges[i].d;
		if (level > max_level)
			max_level = level;
		prev = edges[i].t;
	}
	qsort(lat, n_lat, sizeof(*lat), cmp_ll);

	printf("pool %s: %.0f items/s (%ld), computing at once: max %d, > %d "
	       "%.2f %%, >= %d %.1f %%, >= 1 %.1f %% of the time; item p50 "
	       "%.0f us, p99 %.0f us; per item %.2f voluntary, %.2f "
	       "involuntary switches",
	       variant, n_lat * 1e9 / win, n_lat, max_level, width,
	       100.0 * over / win, width, 100.0 * busy_n / win,
	       100.0 * busy_1 / win, percentile(lat, n_lat, 50) / 1e3,
	       percentile(lat, n_lat, 99) / 1e3,
	       items_all ? (double)vcsw / items_all : 0,
	       items_all ? (double)ivcsw / items_all : 0);
	if (p == P_GROUP)
		printf(", %.2f handoffs",
		       items_all ? (double)cs.handoffs / items_all : 0);
	printf("\n");
	bench_print("pool", variant, "items_per_s", n_lat * 1e9 / win);
	bench_print("pool", variant, "items", n_lat);
	bench_print("pool", variant, "max_concurrency", max_level);
	bench_print("pool", variant, "overlap_pct", 100.0 * over / win);
	bench_print("pool", variant, "slots_busy_pct", 100.0 * busy_n / win);
	bench_print("pool", variant, "any_busy_pct", 100.0 * busy_1 / win);
	bench_print("pool", variant, "item_p50_us",
		    percentile(lat, n_lat, 50) / 1e3);
	bench_print("pool", variant, "item_p99_us",
		    percentile(lat, n_lat, 99) / 1e3);
	bench_print("pool", variant, "vcsw_per_item",
		    items_all ? (double)vcsw / items_all : 0);
	bench_print("pool", variant, "ivcsw_per_item",
		    items_all ? (double)ivcsw / items_all : 0);
	if (p == P_GROUP)
		bench_print("pool", variant, "handoffs_per_item",
			    items_all ? (double)cs.handoffs / items_all : 0);
}

static void usage(void)
{
	die("usage: pool [-q] [-n N] [-w W] [-C US] [-D US] [-P all|LIST] "
	    "[-t MS] [-p CPUS] [-g GAP_US]");
}

int main(int argc, char **argv)
{
	const char *plist = "all";
	bool want[NR_POLICIES] = { false };
	long cap_done, cap_run, i, window_ms = 0;
	int opt, quick = 0, p;

	while ((opt = getopt(argc, argv, "qn:w:C:D:P:t:p:g:")) != -1) {
		switch (opt) {
		case 'q':
			quick = 1;
			break;
		case 'n':
			width = parse_long(optarg, "-n", 1);
			break;
		case 'w':
			nr_workers = parse_long(optarg, "-w", 1);
			break;
		case 'C':
			compute_ns = parse_long(optarg, "-C", 1) * NSEC_PER_USEC;
			break;
		case 'D':
			io_ns = parse_long(optarg, "-D", 1) * NSEC_PER_USEC;
			break;
		case 'P':
			plist = optarg;
			break;
		case 't':
			window_ms = parse_long(optarg, "-t", 1);
			break;
		case 'p':
			nr_pin = parse_long(optarg, "-p", 1);
			break;
		case 'g':
			gap_ns = parse_long(optarg, "-g", 1) * NSEC_PER_USEC;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || width > 65536 || nr_workers > 4096)
		usage();
	if (!window_ms)
		window_ms = quick ? 150 : 1000;
	window_ns = window_ms * NSEC_PER_MSEC;
	if (nr_pin)
		need_cpus(nr_pin);

	parse_policies(plist, policy_names, NR_POLICIES, want);

	/*
	 * A page fault that sleeps is a block (it would give a group slot
	 * away): keep everything resident, and allocate everything here.
	 * Every item takes at least C + D; an interval ends at an item's end
	 * or at a gap.
	 */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	cap_done = window_ns / (compute_ns + io_ns) + 64;
	cap_run = cap_done + window_ns / gap_ns + 64;
	workers = zalloc(nr_workers * sizeof(*workers));
	for (i = 0; i < nr_workers; i++) {
		workers[i].run.v = zalloc(cap_run * sizeof(struct ivl));
		workers[i].run.cap = cap_run;
		workers[i].done = zalloc(cap_done * sizeof(long long));
		workers[i].cap_done = cap_done;
	}
	edges = zalloc(2 * nr_workers * cap_run * sizeof(*edges));
	lat = zalloc(nr_workers * cap_done * sizeof(*lat));

	printf("pool: %d workers, %lld us compute + %lld us sleep per item, "
	       "%d slots, %ld ms per policy, %ld CPUs%s\n", nr_workers,
	       compute_ns / NSEC_PER_USEC, io_ns / NSEC_PER_USEC, width,
	       window_ms, sysconf(_SC_NPROCESSORS_ONLN),
	       nr_pin ? " (workers pinned)" : "");
	for (p = 0; p < NR_POLICIES; p++)
		if (want[p])
			run_policy(p);
	return 0;
}
