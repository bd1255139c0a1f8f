// SPDX-License-Identifier: GPL-2.0
/*
 * The use case of the 2009 proposal: a background worker that works only
 * while a foreground thread is blocked.
 *
 * The foreground thread alternates compute and sleep.  Two ways to keep
 * the background thread off the CPU while the foreground computes:
 *
 *  - sched_wait_block(): the background loops on the call, which returns
 *    at once while the foreground sleeps and waits while it computes, so
 *    the background does a short chunk of work per return;
 *  - a concurrency group of width 1, the foreground a foreground member
 *    and the background a background member: the background just works;
 *    the kernel parks it while the foreground runs and evicts it when
 *    the foreground wakes.
 *
 * At the end the demo prints how the background's work lined up with the
 * foreground's blocked time, for each way, once with both threads on one
 * CPU and once free to use two.
 *
 * Exit status: 0 when the demo ran, 1 when the call is missing or fails
 * in a way it should not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched/concurrency.h>
#include <linux/time_types.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if !defined(__NR_sched_wait_block) || !defined(__NR_sched_concurrency_create)
#error "system call numbers undefined: build with the patched kernel's headers"
#endif

#define CYCLES		20
#define COMPUTE_MS	10
#define SLEEP_MS	10
#define CHUNK_US	500
#define MAX_CHUNKS	100000

struct interval {
	long long start, end;	/* ns, CLOCK_MONOTONIC */
};

static struct interval blocked[CYCLES], computed[CYCLES];
static struct interval chunks[MAX_CHUNKS];
static int nr_chunks;
static atomic_int fg_tid;
static int cpus_allowed;
static int unexpected_errno;
static int group_fd = -1;	/* the group mode: a width-1 group */
static atomic_int fg_done;

/* The calling thread joins the group with @role. */
static int join(int role)
{
	struct sched_concurrency_member m = { .pidfd = -1, .role = role };

	if (ioctl(group_fd, SCHED_CONC_IOC_JOIN, &m)) {
		unexpected_errno = errno;
		return -1;
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spin_ns(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void pin(int cpus)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < cpus; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *foreground(void *arg)
{
	struct timespec ts = { 0, SLEEP_MS * 1000000L };
	int i;

	pin(cpus_allowed);
	if (group_fd >= 0 && join(SCHED_CONC_ROLE_FG))
		return NULL;
	atomic_store(&fg_tid, syscall(SYS_gettid));
	usleep(20000);		/* a first blocked period: the background starts in it */
	for (i = 0; i < CYCLES; i++) {
		computed[i].start = now_ns();
		spin_ns(COMPUTE_MS * 1000000LL);
		computed[i].end = blocked[i].start = now_ns();
		nanosleep(&ts, NULL);
		blocked[i].end = now_ns();
	}
	atomic_store(&fg_done, 1);
	return NULL;	/* exit leaves the group: the background gets the slot */
}

/*
 * One chunk: CHUNK_US of the background's own run time.  It reads the
 * clock all along, and a gap of more than GAP_US between two reads means
 * that it was off the CPU (preempted, or parked by its group): the run
 * interval ends there and a new one starts, so that the intervals are
 * the times it really ran, not the chunk's wall-clock span.
 */
#define GAP_US		50

static void chunk(void)
{
	long long left = CHUNK_US * 1000LL, last = now_ns(), t;

	chunks[nr_chunks].start = last;
	while (left > 0) {
		t = now_ns();
		if (t - last > GAP_US * 1000LL) {
			chunks[nr_chunks++].end = last;
			if (nr_chunks == MAX_CHUNKS)
				return;
			chunks[nr_chunks].start = t;
		} else {
			left -= t - last;
		}
		last = t;
	}
	chunks[nr_chunks++].end = last;
}

/* Group mode: no system call in the loop; the kernel keeps us off. */
static void *background_member(void *arg)
{
	pin(cpus_allowed);
	while (!atomic_load(&fg_tid))
		sched_yield();
	if (join(SCHED_CONC_ROLE_BG))
		return NULL;
	while (!atomic_load(&fg_done) && nr_chunks < MAX_CHUNKS - 1)
		chunk();
	return NULL;
}

static void *background(void *arg)
{
	__u64 count = 0;	/* the foreground's block count last seen */
	pid_t tid;

	pin(cpus_allowed);
	while (!(tid = atomic_load(&fg_tid)))
		sched_yield();
	for (;;) {
		/*
		 * With the count, a sleep of the foreground that falls between
		 * two calls (while we do a chunk) is not lost: the next call
		 * returns at once.
		 */
		long ret = syscall(__NR_sched_wait_block, tid, NULL, 0, &count);

		if (ret == 0 && nr_chunks < MAX_CHUNKS - 1) {
			chunk();
		} else if (ret == 0) {
			continue;
		} else if (errno == ESRCH) {
			break;		/* the foreground is gone */
		} else {
			unexpected_errno = errno;
			break;
		}
	}
	return NULL;
}

static long long overlap(const struct interval *a, const struct interval *b)
{
	long long s = a->start > b->start ? a->start : b->start;
	long long e = a->end < b->end ? a->end : b->end;

	return e > s ? e - s : 0;
}

static long long overlap_all(const struct interval *c, const struct interval *v)
{
	long long sum = 0;
	int i;

	for (i = 0; i < CYCLES; i++)
		sum += overlap(c, &v[i]);
	return sum;
}

/* One character per millisecond: F foreground computes, b background works. */
static void timeline(long long t0, int cycles)
{
	int ms, total = cycles * (COMPUTE_MS + SLEEP_MS), i, c;
	char fg[512], bg[512];

	if (total >= (int)sizeof(fg))
		total = sizeof(fg) - 1;
	for (ms = 0; ms < total; ms++) {
		struct interval slot = { t0 + ms * 1000000LL,
					 t0 + (ms + 1) * 1000000LL };

		fg[ms] = '.';
		for (i = 0; i < CYCLES; i++)
			if (overlap(&slot, &computed[i]) > 500000)
				fg[ms] = 'F';
		bg[ms] = '.';
		for (c = 0; c < nr_chunks; c++)
			if (overlap(&slot, &chunks[c]) > 500000)
				bg[ms] = 'b';
	}
	fg[total] = bg[total] = '\0';
	printf("  foreground  %s\n  background  %s\n", fg, bg);
}

static int run(int cpus, bool group)
{
	long long work = 0, in_blocked = 0, blocked_total = 0, both = 0;
	pthread_t f, b;
	int i;

	cpus_allowed = cpus;
	nr_chunks = 0;
	atomic_store(&fg_tid, 0);
	atomic_store(&fg_done, 0);
	if (group) {
		struct sched_concurrency_attr attr = { .width = 1 };

		group_fd = syscall(__NR_sched_concurrency_create, &attr,
				   sizeof(attr));
		if (group_fd < 0) {
			perror("sched_concurrency_create");
			return 1;
		}
	}
	pthread_create(&b, NULL, group ? background_member : background, NULL);
	pthread_create(&f, NULL, foreground, NULL);
	pthread_join(f, NULL);
	pthread_join(b, NULL);
	if (group) {
		close(group_fd);
		group_fd = -1;
	}
	if (unexpected_errno) {
		fprintf(stderr, "%s: %s\n", group ? "SCHED_CONC_IOC_JOIN" :
			"sched_wait_block", strerror(unexpected_errno));
		return 1;
	}

	for (i = 0; i < CYCLES; i++)
		blocked_total += blocked[i].end - blocked[i].start;
	for (i = 0; i < nr_chunks; i++) {
		work += chunks[i].end - chunks[i].start;
		in_blocked += overlap_all(&chunks[i], blocked);
		both += overlap_all(&chunks[i], computed);
	}

	printf("\n%s, %d CPU%s: foreground %d x (%d ms compute, %d ms sleep), "
	       "background chunks of %d us\n",
	       group ? "concurrency group (width 1, background member)" :
	       "sched_wait_block() loop", cpus, cpus > 1 ? "s" : "",
	       CYCLES, COMPUTE_MS, SLEEP_MS, CHUNK_US);
	timeline(computed[0].start, 4);
	printf("  foreground blocked      %8.1f ms\n", blocked_total / 1e6);
	printf("  background worked       %8.1f ms in %d run intervals\n",
	       work / 1e6, nr_chunks);
	printf("  ... while fg blocked    %8.1f ms (%.0f%% of its work, "
	       "%.0f%% of the blocked time)\n", in_blocked / 1e6,
	       work ? 100.0 * in_blocked / work : 0.0,
	       blocked_total ? 100.0 * in_blocked / blocked_total : 0.0);
	printf("  ... while fg computed   %8.1f ms (overlap: %s)\n", both / 1e6,
	       group ? "until the evicted background parked" :
	       "chunks under way when the foreground woke;\n"
	       "                                     the call reports blocks, "
	       "not wakeups");
	return 0;
}

int main(void)
{
	struct utsname u;
	long ret;
	int cpus;

	uname(&u);
	printf("kernel %s %s\n", u.release, u.version);
	ret = syscall(__NR_sched_wait_block, syscall(SYS_gettid), NULL, 0, NULL);
	if (ret == -1 && errno == ENOSYS) {
		printf("sched_wait_block (%d): not present\n",
		       __NR_sched_wait_block);
		return 1;
	}
	printf("sched_wait_block (%d): present (self: %s, as expected)\n",
	       __NR_sched_wait_block, strerror(errno));
	cpus = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if (run(1, false) || run(cpus, false) || run(1, true) || run(cpus, true))
		return 1;
	return 0;
}
