// SPDX-License-Identifier: GPL-2.0
/*
 * usecase: the 2009 seed use case of sched_wait_block(): background work
 * that should only use the CPU while a foreground thread is blocked.
 *
 * The foreground thread runs R rounds of C ms of computation followed by
 * B ms blocked in clock_nanosleep() (mix -x C:B).  Computation is C ms
 * of the thread's own CPU time, so being preempted makes the foreground
 * slower in wall time.  A CPU-bound background thread works in chunks of
 * 100-500 us of CPU time (uniformly random, fixed seed).  Policies (-P):
 *
 *   alone   no background: the baseline (always run first)
 *   none    background at default priority, no restriction
 *   nice19  background at nice 19
 *   idle    background at SCHED_IDLE
 *   pinned  both threads pinned to CPU 0 at default priority, whatever
 *           the number of CPUs: what a programmer does to keep the
 *           background off the foreground's other CPU; with -p 1 the
 *           same as "none"
 *   swb     background loops on
 *             while (sched_wait_block(fg_tid, NULL, 0) == 0)
 *                     do_one_chunk();
 *           as in the seed's cover letter
 *   group   both threads join one concurrency group of width 1, the
 *           foreground as SCHED_CONC_ROLE_FG, the background as
 *           SCHED_CONC_ROLE_BG; the background just loops on its chunks
 *           (no call at all): it gets the slot when the foreground
 *           blocks and is evicted when the foreground wakes.  Skipped,
 *           with a line saying so and no figures, on a kernel without
 *           sched_concurrency_create() (ENOSYS)
 *
 * With -p 1 every thread is pinned to CPU 0; with -p 2 both may use
 * CPUs 0 and 1 (except for "pinned").
 *
 * Who ran when: both threads spin on CLOCK_MONOTONIC and count the time
 * between consecutive reads as their own CPU time unless the gap exceeds
 * -g US (default 50): then they were not running, and the interval ends.
 * This yields the threads' actual run intervals, with which
 *   fg_wall_ms           foreground wall time, first compute to last wake
 *   fg_slowdown          fg_wall_ms / fg_wall_ms of "alone" in this
 *                        invocation
 *   bg_work_ms           background run time within the foreground's span
 *   bg_share_of_blocked  background run time overlapping the foreground's
 *                        blocked intervals / total blocked time
 *   overlap_ms           time both ran at once (background run intervals
 *                        overlapping foreground compute run intervals)
 *   overlap_pct          overlap_ms / the foreground's own run time, in %
 *
 * and, for "group" only, the eviction latency as user space sees it: an
 * overlap episode is one background run interval overlapping one
 * foreground run interval (the foreground woke, evicted the background
 * and returned to user mode before the background's last clock read
 * before it parked); its length is the overlap of the two:
 *   nr_overlap_episodes, evict_overlap_p50_us, evict_overlap_p99_us,
 *   evict_overlap_max_us (percentiles over the episodes; 0 if none)
 * and the kernel's own count from the group's fdinfo (eviction to the
 * victim's park, block or leave):
 *   evictions, evict_kernel_max_us, evict_kernel_avg_us
 *
 *   -x C:B          mix in ms (default 1:1)
 *   -p 1|2          CPUs (default 1)
 *   -P LIST         comma-separated policies, or "all" (default all)
 *   -r R            rounds (default: about 1 s of foreground time)
 *   -o FILE         timeline CSV "policy,kind,start_ns,end_ns" (kinds
 *                   fg_run, fg_blocked, bg_run; ns from the start) of
 *                   the first 50 ms of every policy's run
 *   -q              quick: about 0.1 s per policy
 *
 * Output: BENCH,usecase,<C:B>-<p>cpu-<policy>,<metric>,<x>
 */
#include "common.h"
#include <sys/mman.h>
#include <sys/resource.h>

enum policy {
	P_ALONE, P_NONE, P_NICE19, P_IDLE, P_PINNED, P_SWB, P_GROUP, NR_POLICIES
};
static const char *const policy_names[] = {
	"alone", "none", "nice19", "idle", "pinned", "swb", "group",
};

#define TIMELINE_NS	(50 * NSEC_PER_MSEC)

static long long compute_ns, block_ns, gap_ns = 50 * NSEC_PER_USEC;
static long rounds;
static int nr_cpus = 1;
static enum policy policy;

static struct ivls fg_run, fg_blk, bg_run;
static atomic_int fg_tid, bg_ready, fg_done;
static long long fg_start, fg_end;
static int bg_errno;
static int conc_fd = -1;	/* the group of policy "group" */
static long long *episodes;	/* overlap episode lengths, for "group" */

static void place(bool background)
{
	if (nr_cpus == 1)
		pin_cpu(0);
	else if (policy == P_PINNED)
		pin_cpu(0);
	else
		pin_cpus(0, 2);
}

static void *foreground(void *arg)
{
	struct timespec ts;
	long i;

	place(false);
	/* First: the foreground holds the slot before the background joins. */
	if (policy == P_GROUP && conc_join(conc_fd, SCHED_CONC_ROLE_FG))
		die_errno("SCHED_CONC_IOC_JOIN (foreground)");
	atomic_store(&fg_tid, gettid_());
	while (policy != P_ALONE && !atomic_load(&bg_ready))
		sched_yield();
	ns_to_timespec(block_ns, &ts);
	fg_start = now_ns();
	for (i = 0; i < rounds; i++) {
		long long b0;

		run_tracked(compute_ns, gap_ns, &fg_run);
		b0 = now_ns();
		errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (errno)
			die_errno("clock_nanosleep");
		ivls_add(&fg_blk, b0, now_ns());
	}
	fg_end = now_ns();
	atomic_store(&fg_done, 1);
	/*
	 * Exiting ends the swb background (ESRCH), and gives the group's
	 * slot to the background, which then sees fg_done.
	 */
	return NULL;
}

static void *background(void *arg)
{
	uint64_t rnd = 0x2545f4914f6cdd1dULL;
	struct sched_param sp = { 0 };
	pid_t tid;

	place(true);
	if (policy == P_NICE19 && setpriority(PRIO_PROCESS, gettid_(), 19))
		die_errno("setpriority");
	if (policy == P_IDLE && sched_setscheduler(0, SCHED_IDLE, &sp))
		die_errno("sched_setscheduler(SCHED_IDLE)");
	while (!(tid = atomic_load(&fg_tid)))
		sched_yield();
	atomic_store(&bg_ready, 1);
	/*
	 * After bg_ready: the foreground, which waits for it with the slot,
	 * is a member already, so this parks until the foreground blocks.
	 */
	if (policy == P_GROUP && conc_join(conc_fd, SCHED_CONC_ROLE_BG))
		die_errno("SCHED_CONC_IOC_JOIN (background)");

	for (;;) {
		if (policy == P_SWB) {
			if (sched_wait_block(tid, NULL, 0)) {
				if (errno != ESRCH)
					bg_errno = errno;
				break;
			}
		} else if (atomic_load(&fg_done)) {
			break;
		}
		run_tracked(rnd_range(&rnd, 100 * NSEC_PER_USEC,
				      500 * NSEC_PER_USEC + 1), gap_ns, &bg_run);
	}
	return NULL;
}

/* Total length of the parts of @a within [lo, hi]. */
static long long total_in(const struct ivls *a, long long lo, long long hi)
{
	long long sum = 0, s, e;
	long i;

	for (i = 0; i < a->n; i++) {
		s = a->v[i].s > lo ? a->v[i].s : lo;
		e = a->v[i].e < hi ? a->v[i].e : hi;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

/*
 * The overlap episodes of two lists of sorted, disjoint intervals: the
 * length of every non-empty overlap of an interval of @a with one of @b,
 * into @out (room for a->n + b->n); returns their number.
 */
static long overlap_episodes(const struct ivls *a, const struct ivls *b,
			     long long *out)
{
	long long s, e;
	long i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		s = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
		e = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
		if (e > s)
			out[n++] = e - s;
		if (a->v[i].e < b->v[j].e)
			i++;
		else
			j++;
	}
	return n;
}

/* Overlap of two lists of sorted, disjoint intervals. */
static long long overlap(const struct ivls *a, const struct ivls *b)
{
	long long sum = 0, s, e;
	long i = 0, j = 0;

	while (i < a->n && j < b->n) {
		s = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
		e = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
		if (e > s)
			sum += e - s;
		if (a->v[i].e < b->v[j].e)
			i++;
		else
			j++;
	}
	return sum;
}

static void dump_timeline(FILE *f, const char *name, const struct ivls *l,
			  const char *kind)
{
	long i;

	for (i = 0; i < l->n && l->v[i].s - fg_start < TIMELINE_NS; i++)
		if (l->v[i].e > fg_start)
			fprintf(f, "%s,%s,%lld,%lld\n", name, kind,
				l->v[i].s - fg_start, l->v[i].e - fg_start);
}

/*
 * The eviction latency of "group": the overlap episodes seen in user
 * space, and the kernel's figures from the group's fdinfo.  Closes the
 * group.
 */
static void group_figures(const char *variant)
{
	struct conc_stats cs;
	long n;

	n = overlap_episodes(&bg_run, &fg_run, episodes);
	qsort(episodes, n, sizeof(*episodes), cmp_ll);
	if (!conc_fdinfo(conc_fd, &cs) || cs.evictions < 0 ||
	    cs.evict_ns_max < 0 || cs.evict_ns_avg < 0)
		die("usecase: the group's fdinfo lacks the eviction lines");
	close(conc_fd);
	conc_fd = -1;

	printf("usecase %s: %ld overlap episodes, p50 %.1f us, p99 %.1f us, "
	       "max %.1f us; kernel: %lld evictions, max %.1f us, avg %.1f us\n",
	       variant, n, percentile(episodes, n, 50) / 1e3,
	       percentile(episodes, n, 99) / 1e3,
	       n ? episodes[n - 1] / 1e3 : 0.0, cs.evictions,
	       cs.evict_ns_max / 1e3, cs.evict_ns_avg / 1e3);
	bench_print("usecase", variant, "nr_overlap_episodes", n);
	bench_print("usecase", variant, "evict_overlap_p50_us",
		    percentile(episodes, n, 50) / 1e3);
	bench_print("usecase", variant, "evict_overlap_p99_us",
		    percentile(episodes, n, 99) / 1e3);
	bench_print("usecase", variant, "evict_overlap_max_us",
		    n ? episodes[n - 1] / 1e3 : 0);
	bench_print("usecase", variant, "evictions", cs.evictions);
	bench_print("usecase", variant, "evict_kernel_max_us",
		    cs.evict_ns_max / 1e3);
	bench_print("usecase", variant, "evict_kernel_avg_us",
		    cs.evict_ns_avg / 1e3);
}

/*
 * One run of @p; returns the foreground's wall time in ns (0 if "group"
 * was skipped).
 */
static long long run_policy(enum policy p, const char *mix,
			    long long alone_ns, FILE *tl)
{
	pthread_t f, b;
	long long blocked, in_blocked, both, work, wall, fg_cpu;
	char variant[64];
	int err;

	snprintf(variant, sizeof(variant), "%s-%dcpu-%s", mix, nr_cpus,
		 policy_names[p]);
	if (p == P_GROUP) {
		conc_fd = conc_create_or_skip(1, "usecase", variant);
		if (conc_fd < 0)
			return 0;
	}
	policy = p;
	fg_run.n = fg_blk.n = bg_run.n = 0;
	atomic_store(&fg_tid, 0);
	atomic_store(&bg_ready, 0);
	atomic_store(&fg_done, 0);
	bg_errno = 0;

	err = pthread_create(&f, NULL, foreground, NULL);
	if (!err && p != P_ALONE)
		err = pthread_create(&b, NULL, background, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	if (pthread_join(f, NULL) || (p != P_ALONE && pthread_join(b, NULL)))
		die("pthread_join");
	if (bg_errno)
		die("sched_wait_block: %s", strerror(bg_errno));

	wall = fg_end - fg_start;
	blocked = total_in(&fg_blk, fg_start, fg_end);
	work = total_in(&bg_run, fg_start, fg_end);
	in_blocked = overlap(&bg_run, &fg_blk);
	both = overlap(&bg_run, &fg_run);
	fg_cpu = total_in(&fg_run, fg_start, fg_end);

	printf("usecase %s: fg %.1f ms (x%.3f), blocked %.1f ms, bg %.1f ms "
	       "(%.1f ms while fg blocked, %.1f ms overlapping fg compute)%s\n",
	       variant, wall / 1e6, alone_ns ? (double)wall / alone_ns : 1.0,
	       blocked / 1e6, work / 1e6, in_blocked / 1e6, both / 1e6,
	       p == P_PINNED && nr_cpus == 1 ? " [pinned on 1 CPU = none]" : "");
	bench_print("usecase", variant, "fg_wall_ms", wall / 1e6);
	bench_print("usecase", variant, "fg_slowdown",
		    alone_ns ? (double)wall / alone_ns : 1.0);
	bench_print("usecase", variant, "bg_share_of_blocked",
		    blocked ? (double)in_blocked / blocked : 0);
	bench_print("usecase", variant, "overlap_ms", both / 1e6);
	bench_print("usecase", variant, "bg_work_ms", work / 1e6);
	bench_print("usecase", variant, "overlap_pct",
		    fg_cpu ? 100.0 * both / fg_cpu : 0);
	if (p == P_GROUP)
		group_figures(variant);

	if (tl) {
		dump_timeline(tl, policy_names[p], &fg_run, "fg_run");
		dump_timeline(tl, policy_names[p], &fg_blk, "fg_blocked");
		dump_timeline(tl, policy_names[p], &bg_run, "bg_run");
	}
	return wall;
}

static void usage(void)
{
	die("usage: usecase [-q] [-x C:B] [-p 1|2] [-P all|LIST] [-r ROUNDS] "
	    "[-g GAP_US] [-o FILE]");
}

int main(int argc, char **argv)
{
	const char *mix = "1:1", *plist = "all", *out = NULL;
	bool want[NR_POLICIES] = { false };
	long c_ms, b_ms, cap;
	int opt, quick = 0, p;
	long long alone_ns;
	char *end;
	FILE *tl = NULL;

	while ((opt = getopt(argc, argv, "qx:p:P:r:g:o:")) != -1) {
		switch (opt) {
		case 'q':
			quick = 1;
			break;
		case 'x':
			mix = optarg;
			break;
		case 'p':
			nr_cpus = parse_long(optarg, "-p", 1);
			if (nr_cpus > 2)
				usage();
			break;
		case 'P':
			plist = optarg;
			break;
		case 'r':
			rounds = parse_long(optarg, "-r", 1);
			break;
		case 'g':
			gap_ns = parse_long(optarg, "-g", 1) * NSEC_PER_USEC;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	c_ms = strtol(mix, &end, 10);
	if (*end != ':' || c_ms < 1)
		die("-x: C:B in ms, e.g. 1:1");
	b_ms = parse_long(end + 1, "-x", 1);
	compute_ns = c_ms * NSEC_PER_MSEC;
	block_ns = b_ms * NSEC_PER_MSEC;
	if (!rounds)
		rounds = (quick ? 100 : 1000) / (c_ms + b_ms);
	if (rounds < 5)
		rounds = 5;
	need_cpus(nr_cpus);

	parse_policies(plist, policy_names, NR_POLICIES, want);

	/* Page faults could block the foreground: keep everything resident. */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	cap = rounds * (c_ms + b_ms) * 50 + 4096;	/* up to 50 per ms */
	ivls_init(&fg_run, cap);
	ivls_init(&fg_blk, rounds + 1);
	ivls_init(&bg_run, cap);
	episodes = malloc(2 * cap * sizeof(*episodes));
	if (!episodes)
		die("out of memory");
	memset(episodes, 0, 2 * cap * sizeof(*episodes));	/* prefault */
	if (out)
		tl = csv_open(out, "policy,kind,start_ns,end_ns");

	printf("usecase: %ld rounds of %ld ms compute + %ld ms blocked, %d CPU%s\n",
	       rounds, c_ms, b_ms, nr_cpus, nr_cpus > 1 ? "s" : "");
	alone_ns = run_policy(P_ALONE, mix, 0, tl);
	for (p = P_NONE; p < NR_POLICIES; p++)
		if (want[p])
			run_policy(p, mix, alone_ns, tl);
	if (tl)
		csv_close(tl, out);
	return 0;
}
