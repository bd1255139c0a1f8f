// SPDX-License-Identifier: GPL-2.0
/*
 * watchmany: block events of many threads, one watch fd against one perf
 * fd and ring per thread; and the sustained event rate of a watch fd.
 *
 * -m watch|perf (default mode): N threads (-n, default 1000) sleep in
 * FUTEX_WAIT, each on its own word.  The main thread sets up the
 * watching of all N, measuring:
 *   setup_us     wall time of the setup: watch: sched_watch_open() and,
 *                per thread, pidfd_open() + SCHED_WATCH_IOC_ADD +
 *                close(); perf: per thread perf_event_open() (dummy
 *                software event, context_switch=1, as in handoff) and
 *                mmap() of a ring of 1 + PERF_PAGES pages, and one epoll
 *                set over all of them.
 *   memfree_kb   MemFree (/proc/meminfo) before minus after the setup:
 *                every page the setup took, ring buffers included.
 *   slab_kb      Slab, after minus before (kernel objects only).
 * Then R rounds (-r, default 2000; -q: 100): the main thread picks a
 * random thread k, drains what the watching produced so far, releases k
 * (FUTEX_WAKE); k takes t0 = CLOCK_MONOTONIC, publishes it with the
 * round and blocks again in FUTEX_WAIT; the main thread sleeps in read()
 * on the watch fd (perf: epoll_wait() over the N rings, then a scan of
 * the ready rings) until it sees a BLOCK of k stamped at or after t0
 * (perf: a switch-out that is not a preemption); the sample is its
 * CLOCK_MONOTONIC then minus t0.  Each wait has a 1 s bound (a round
 * that reaches it is "missed").
 *
 * -m rate: P pairs of threads (-p, default 2 per CPU) ping-pong a token
 * over futexes for S seconds (-t, default 5; -q: 1), all watched by one
 * fd with a buffer of B records (-b, default 64, small on purpose so
 * that the buffer overflows), read by one thread in 64-record reads.
 * It counts the records read and the events the OVERFLOW records say
 * were dropped, and checks what the documentation promises a reader:
 * sequence numbers strictly increase, BLOCK and WAKE alternate per
 * thread unless an OVERFLOW record came in between.  At the end it stops
 * the pairs (every thread then sleeps in FUTEX_WAIT), drains the fd and
 * checks that SCHED_WATCH_IOC_STATE says BLOCKED for every thread: the
 * state survives the overflows.  With -l, the fd is SCHED_WATCH_LAZY: the
 * reader is woken only when the buffer is half full (the pairs never all
 * sleep), and then reads until EAGAIN; the variant is rate-lazy-b<B>.
 * Figures: events_per_s (read + dropped),
 * events_per_s_cpu (per online CPU), read_per_s, dropped_share,
 * overflows, violations (must be 0; any makes the run fail).
 *
 * Output: BENCH,watchmany,<watch|perf>-<N>,{setup_us,memfree_kb,slab_kb,
 *         p50_ns,p90_ns,p99_ns,max_ns,n,missed}
 *         BENCH,watchmany,rate-b<B>,{...}
 */
#include "common.h"
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef SCHED_WATCH_OVERFLOW
#define SCHED_WATCH_OVERFLOW		9
#define SCHED_WATCH_STATE_BLOCKED	2
struct sched_watch_thread {
	__u32 tid;
	__u32 state;
	__u64 seq;
};

struct sched_watch_state {
	__u64 threads;
	__u32 nr;
	__u32 flags;
	__u64 cursor;
};

#define SCHED_WATCH_IOC_STATE \
	_IOWR(0xB9, 0x12, struct sched_watch_state)
#endif

#define PERF_PAGES	2		/* data pages per ring */
#define TIMEOUT_NS	NSEC_PER_SEC
#define STACK_SIZE	(64 << 10)

struct worker {
	atomic_int go;			/* bumped to release the thread */
	atomic_int t0_round;
	atomic_llong t0_ns;
	atomic_int tid;
	int perf_fd;
	struct perf_event_mmap_page *meta;
	char *data;
	pthread_t thr;
} __attribute__((aligned(64)));

static struct worker *workers;
static int nr_workers = 1000;
static atomic_int stop;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int g = atomic_load(&w->go);

	atomic_store(&w->tid, gettid_());
	for (;;) {
		int r;

		while ((r = atomic_load(&w->go)) == g)
			futex_wait_checked(&w->go, g, 0);
		g = r;
		if (atomic_load(&stop))
			return NULL;
		atomic_store(&w->t0_ns, now_ns());
		atomic_store(&w->t0_round, r);
	}
}

static void start_workers(int n)
{
	pthread_attr_t attr;
	int i, err;

	workers = aligned_alloc(64, n * sizeof(*workers));
	if (!workers)
		die("out of memory");
	memset(workers, 0, n * sizeof(*workers));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (i = 0; i < n; i++) {
		workers[i].perf_fd = -1;
		err = pthread_create(&workers[i].thr, &attr, worker_fn, &workers[i]);
		if (err)
			die("pthread_create %d: %s", i, strerror(err));
	}
	for (i = 0; i < n; i++)
		while (!atomic_load(&workers[i].tid))
			sched_yield();
}

static void stop_workers(int n)
{
	int i;

	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		atomic_fetch_add(&workers[i].go, 1);
		futex_wake_checked(&workers[i].go, 1);
	}
	for (i = 0; i < n; i++)
		pthread_join(workers[i].thr, NULL);
}

static long long meminfo_kb(const char *name);

/*
 * Wait until MemFree holds still (within 256 kB over 200 ms, 10 s at
 * most): the previous program's memory (the storm's 10^4 threads) is
 * freed after it exits, through RCU, and would count as our gain.
 */
static void meminfo_settle(void)
{
	long long last = meminfo_kb("MemFree"), now;
	int i;

	for (i = 0; i < 50; i++) {
		usleep(200000);
		now = meminfo_kb("MemFree");
		if (now - last < 256 && last - now < 256)
			return;
		last = now;
	}
	printf("watchmany: MemFree did not settle in 10 s\n");
}

static long long meminfo_kb(const char *name)
{
	char buf[8192];
	int fd = proc_open("/proc/meminfo");
	long long v;

	proc_read_all(fd, buf, sizeof(buf));
	close(fd);
	v = proc_field(buf, name);
	if (v < 0)
		die("/proc/meminfo: no %s", name);
	return v;
}

/* ---- the watch fd ------------------------------------------------------ */

static int watch_fd;
static struct sched_watch_event rec[64];

static void watch_setup_all(int n)
{
	struct sched_watch_attr attr = { .flags = 0 };
	int i;

	watch_fd = syscall(__NR_sched_watch_open, &attr, sizeof(attr));
	if (watch_fd < 0)
		die_errno("sched_watch_open");
	for (i = 0; i < n; i++) {
		struct sched_watch_target t = { .flags = 0 };

		t.pidfd = syscall(SYS_pidfd_open, atomic_load(&workers[i].tid),
				  PIDFD_THREAD);
		if (t.pidfd < 0)
			die_errno("pidfd_open");
		if (ioctl(watch_fd, SCHED_WATCH_IOC_ADD, &t))
			die_errno("SCHED_WATCH_IOC_ADD");
		close(t.pidfd);
	}
}

static bool watch_found(ssize_t n, pid_t tid, long long t0)
{
	bool found = false;
	int i;

	if (n < 0 || n % sizeof(rec[0]))
		die("watch: read returned %zd", n);
	for (i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
		if (rec[i].type == SCHED_WATCH_OVERFLOW)
			die("watch: overflow with one thread running");
		if (rec[i].type == SCHED_WATCH_BLOCK && (pid_t)rec[i].tid == tid &&
		    t0 >= 0 && (long long)rec[i].time_ns >= t0)
			found = true;
	}
	return found;
}

static void watch_drain_all(void)
{
	struct pollfd pfd = { .fd = watch_fd, .events = POLLIN };

	while (poll(&pfd, 1, 0) > 0)
		watch_found(read(watch_fd, rec, sizeof(rec)), 0, -1);
}

static timer_t watch_timer;

static void on_alarm(int sig)
{
}

/* The bound of a blocking read(): SIGALRM to this thread, no SA_RESTART */
static void watch_timer_setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGALRM,
	};

	if (sigaction(SIGALRM, &sa, NULL))
		die_errno("sigaction");
	sev._sigev_un._tid = gettid_();
	if (timer_create(CLOCK_MONOTONIC, &sev, &watch_timer))
		die_errno("timer_create");
}

/* Sleep in read(2), the path the fd wakes before the blocking switch */
static long long watch_wait(struct worker *w, int r)
{
	struct itimerspec its = { .it_value = { .tv_sec = 1 } };
	long long deadline = now_ns() + TIMEOUT_NS;
	pid_t tid = atomic_load(&w->tid);

	if (timer_settime(watch_timer, 0, &its, NULL))
		die_errno("timer_settime");
	for (;;) {
		long long t1;
		ssize_t n;

		n = read(watch_fd, rec, sizeof(rec));
		t1 = now_ns();
		if (n < 0 && errno == EINTR) {
			if (t1 >= deadline)
				return 0;
			continue;
		}
		if (watch_found(n, tid, atomic_load(&w->t0_round) == r ?
				atomic_load(&w->t0_ns) : -1))
			return t1;
	}
}

/* ---- perf: one fd and ring per thread ---------------------------------- */

static int epfd;
static size_t ring_size;

static void perf_setup_all(int n)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	ring_size = PERF_PAGES * page;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		die_errno("epoll_create1");
	for (i = 0; i < n; i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY,
			.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
			.context_switch = 1,
			.sample_id_all = 1,
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
			.watermark = 1,
			.wakeup_watermark = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
		struct worker *w = &workers[i];
		void *m;

		w->perf_fd = syscall(SYS_perf_event_open, &attr,
				     atomic_load(&w->tid), -1, -1,
				     PERF_FLAG_FD_CLOEXEC);
		if (w->perf_fd < 0)
			die_errno("perf_event_open");
		m = mmap(NULL, page + ring_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, w->perf_fd, 0);
		if (m == MAP_FAILED)
			die_errno("mmap perf ring");
		w->meta = m;
		w->data = (char *)m + page;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, w->perf_fd, &ev))
			die_errno("epoll_ctl");
	}
}

/* Consume @w's ring; true if it holds a block of @tid at or after @t0. */
static bool perf_found(struct worker *w, pid_t tid, long long t0)
{
	return perf_ring_scan(w->meta, w->data, ring_size,
			      __atomic_load_n(&w->meta->data_head, __ATOMIC_ACQUIRE),
			      t0, tid);
}

static void perf_drain_all(int n)
{
	int i;

	for (i = 0; i < n; i++)
		perf_found(&workers[i], 0, -1);
}

static long long perf_wait(struct worker *w, int r)
{
	long long deadline = now_ns() + TIMEOUT_NS;
	pid_t tid = atomic_load(&w->tid);
	struct epoll_event ev[64];

	for (;;) {
		long long t1, left = deadline - now_ns(), t0;
		bool found = false;
		int n, i;

		if (left <= 0)
			return 0;
		n = epoll_wait(epfd, ev, 64, (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
		if (n < 0 && errno != EINTR)
			die_errno("epoll_wait");
		t1 = now_ns();
		t0 = atomic_load(&w->t0_round) == r ? atomic_load(&w->t0_ns) : -1;
		for (i = 0; i < n; i++)
			if (perf_found(&workers[ev[i].data.u32], tid, t0))
				found = true;
		if (found)
			return t1;
	}
}

/* ---- -m watch|perf ----------------------------------------------------- */

static void run_many(bool perf, long rounds)
{
	long long t, mem0, slab0, mem_kb, *samples;
	long nr = 0, missed = 0, r;
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	char variant[32];
	struct rlimit rl;

	/* N perf fds, and pidfds for the watch: raise the fd limit */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		die_errno("getrlimit");
	if (rl.rlim_cur < (rlim_t)nr_workers + 64) {
		rl.rlim_cur = rl.rlim_max = nr_workers + 64 > rl.rlim_max ?
					    nr_workers + 64 : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die_errno("setrlimit(RLIMIT_NOFILE)");
	}
	samples = calloc(rounds, sizeof(*samples));
	if (!samples)
		die("out of memory");
	start_workers(nr_workers);
	snprintf(variant, sizeof(variant), "%s-%d", perf ? "perf" : "watch",
		 nr_workers);

	meminfo_settle();
	mem0 = meminfo_kb("MemFree");
	slab0 = meminfo_kb("Slab");
	t = now_ns();
	if (perf)
		perf_setup_all(nr_workers);
	else
		watch_setup_all(nr_workers);
	t = now_ns() - t;
	if (!perf)
		watch_timer_setup();
	bench_print("watchmany", variant, "setup_us", t / 1000.0);
	mem_kb = mem0 - meminfo_kb("MemFree");
	bench_print("watchmany", variant, "memfree_kb", mem_kb);
	bench_print("watchmany", variant, "slab_kb", meminfo_kb("Slab") - slab0);

	for (r = 0; r < rounds; r++) {
		struct worker *w = &workers[rnd_range(&rnd, 0, nr_workers - 1)];
		int g = atomic_load(&w->go) + 1;
		long long t1;

		if (perf)
			perf_drain_all(nr_workers);
		else
			watch_drain_all();
		atomic_store(&w->go, g);
		futex_wake_checked(&w->go, 1);
		t1 = perf ? perf_wait(w, g) : watch_wait(w, g);
		if (t1)
			samples[nr++] = t1 - atomic_load(&w->t0_ns);
		else if (++missed > rounds / 10 + 10)
			die("watchmany: too many missed rounds (%ld)", missed);
	}
	stop_workers(nr_workers);

	qsort(samples, nr, sizeof(*samples), cmp_ll);
	printf("watchmany %s: setup %.0f us, %lld kB MemFree, %ld samples, "
	       "%ld missed, p50 %lld ns, p99 %lld ns\n", variant, t / 1000.0,
	       mem_kb, nr, missed,
	       percentile(samples, nr, 50), percentile(samples, nr, 99));
	bench_print("watchmany", variant, "p50_ns", percentile(samples, nr, 50));
	bench_print("watchmany", variant, "p90_ns", percentile(samples, nr, 90));
	bench_print("watchmany", variant, "p99_ns", percentile(samples, nr, 99));
	bench_print("watchmany", variant, "max_ns", nr ? samples[nr - 1] : 0);
	bench_print("watchmany", variant, "n", nr);
	bench_print("watchmany", variant, "missed", missed);
	free(samples);
}

/* ---- -m rate ----------------------------------------------------------- */

struct pair {
	atomic_int turn;		/* whose turn: 0 or 1 */
} __attribute__((aligned(64)));

static atomic_int arrived;		/* pingers that stopped */

struct pinger {
	struct pair *p;
	int side;
	atomic_int tid;
};

static void *pinger_fn(void *arg)
{
	struct pinger *pg = arg;
	int v;

	atomic_store(&pg->tid, gettid_());
	while (!atomic_load(&stop)) {
		while ((v = atomic_load(&pg->p->turn)) != pg->side) {
			if (atomic_load(&stop))
				goto out;
			futex_wait_checked(&pg->p->turn, v, 0);
		}
		atomic_store(&pg->p->turn, !pg->side);
		futex_wake_checked(&pg->p->turn, 1);
	}
out:
	/* Every thread ends asleep here, until the main thread lets it go */
	atomic_fetch_add(&arrived, 1);
	while (atomic_load(&stop) == 1)
		futex_wait_checked(&stop, 1, 0);
	return NULL;
}

struct thread_log {
	pid_t tid;
	int last;			/* last BLOCK/WAKE, 0 if none since overflow */
};

static struct thread_log *tlog;
static int nr_tlog;
static long nr_read, nr_dropped, nr_overflows, violations;
static uint64_t last_seq;

static struct thread_log *tlog_find(pid_t tid)
{
	int i;

	for (i = 0; i < nr_tlog; i++)
		if (tlog[i].tid == tid)
			return &tlog[i];
	return NULL;
}

static void rate_consume(ssize_t n)
{
	int i, j;

	if (n < 0 || n % sizeof(rec[0]))
		die("rate: read returned %zd", n);
	for (i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
		struct sched_watch_event *e = &rec[i];
		struct thread_log *t;

		nr_read++;
		if (last_seq && e->seq <= last_seq)
			violations++;	/* sequence numbers must increase */
		last_seq = e->seq;
		if (e->type == SCHED_WATCH_OVERFLOW) {
			nr_overflows++;
			nr_dropped += e->data;
			for (j = 0; j < nr_tlog; j++)
				tlog[j].last = 0;
			continue;
		}
		if (e->type != SCHED_WATCH_BLOCK && e->type != SCHED_WATCH_WAKE)
			continue;
		t = tlog_find(e->tid);
		if (!t) {
			violations++;	/* a thread nobody watches */
			continue;
		}
		if (t->last == e->type)
			violations++;	/* two BLOCKs or two WAKEs in a row */
		t->last = e->type;
	}
}

static void run_rate(int pairs, int seconds, unsigned int buffer, bool lazy)
{
	struct sched_watch_attr attr = { .buffer = buffer };
	struct sched_watch_thread *st;
	struct sched_watch_state sq;
	struct pinger *pg;
	struct pair *pr;
	pthread_t *thr;
	long long t, end;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char variant[32];
	int i, err, fd, blocked = 0;

	nr_tlog = 2 * pairs;
	pr = aligned_alloc(64, pairs * sizeof(*pr));
	pg = calloc(nr_tlog, sizeof(*pg));
	thr = calloc(nr_tlog, sizeof(*thr));
	tlog = calloc(nr_tlog, sizeof(*tlog));
	st = calloc(nr_tlog, sizeof(*st));
	if (!pr || !pg || !thr || !tlog || !st)
		die("out of memory");
	memset(pr, 0, pairs * sizeof(*pr));

	attr.flags = SCHED_WATCH_NONBLOCK | (lazy ? SCHED_WATCH_LAZY : 0);
	fd = syscall(__NR_sched_watch_open, &attr, sizeof(attr));
	if (fd < 0)
		die_errno("sched_watch_open");
	watch_fd = fd;
	for (i = 0; i < nr_tlog; i++) {
		struct sched_watch_target tg = { .flags = 0 };

		pg[i].p = &pr[i / 2];
		pg[i].side = i % 2;
		err = pthread_create(&thr[i], NULL, pinger_fn, &pg[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
		while (!atomic_load(&pg[i].tid))
			sched_yield();
		tlog[i].tid = atomic_load(&pg[i].tid);
		tg.pidfd = syscall(SYS_pidfd_open, tlog[i].tid, PIDFD_THREAD);
		if (tg.pidfd < 0)
			die_errno("pidfd_open");
		if (ioctl(fd, SCHED_WATCH_IOC_ADD, &tg))
			die_errno("SCHED_WATCH_IOC_ADD");
		close(tg.pidfd);
	}

	/* The reader: this thread, reading as fast as it can */
	t = now_ns();
	end = t + seconds * NSEC_PER_SEC;
	while (now_ns() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		do {
			n = read(fd, rec, sizeof(rec));
			if (n < 0 && errno == EAGAIN)
				break;
			rate_consume(n);
		} while (lazy);
	}
	t = now_ns() - t;

	/* Stop the pairs: each ends asleep in FUTEX_WAIT on &stop */
	atomic_store(&stop, 1);
	while (atomic_load(&arrived) < nr_tlog) {
		for (i = 0; i < pairs; i++) {
			atomic_store(&pr[i].turn, 2);
			futex_wake_checked(&pr[i].turn, 2);
		}
		usleep(1000);
	}
	/* Wait until every thread sleeps (its /proc state is S) */
	for (i = 0; i < nr_tlog; i++) {
		int sfd = proc_stat_open(tlog[i].tid);

		while (proc_state(sfd) != 'S')
			usleep(1000);
		close(sfd);
	}
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));

		if (n < 0 && errno == EAGAIN)
			break;
		rate_consume(n);
	}
	sq = (struct sched_watch_state){
		.threads = (uintptr_t)st, .nr = nr_tlog,
	};
	if (ioctl(fd, SCHED_WATCH_IOC_STATE, &sq))
		die_errno("SCHED_WATCH_IOC_STATE");
	for (i = 0; i < (int)sq.nr; i++)
		blocked += st[i].state == SCHED_WATCH_STATE_BLOCKED;
	if (sq.nr != (unsigned int)nr_tlog || blocked != nr_tlog)
		violations++;
	/* Where the records still tell, the last one is a BLOCK */
	for (i = 0; i < nr_tlog; i++)
		if (tlog[i].last && tlog[i].last != SCHED_WATCH_BLOCK)
			violations++;

	atomic_store(&stop, 2);
	futex_wake_checked(&stop, INT32_MAX);
	for (i = 0; i < nr_tlog; i++)
		pthread_join(thr[i], NULL);
	close(fd);

	snprintf(variant, sizeof(variant), "rate-%sb%u", lazy ? "lazy-" : "",
		 buffer);
	printf("watchmany %s: %d pairs, %.2f s: %ld records read, %ld events "
	       "dropped in %ld overflows, %.0f events/s (%.0f per CPU), "
	       "STATE: %u threads, %d blocked, %ld violations\n", variant,
	       pairs, t / 1e9, nr_read, nr_dropped, nr_overflows,
	       (nr_read + nr_dropped) / (t / 1e9),
	       (nr_read + nr_dropped) / (t / 1e9) / ncpu, sq.nr, blocked,
	       violations);
	bench_print("watchmany", variant, "events_per_s",
		    (nr_read + nr_dropped) / (t / 1e9));
	bench_print("watchmany", variant, "events_per_s_cpu",
		    (nr_read + nr_dropped) / (t / 1e9) / ncpu);
	bench_print("watchmany", variant, "read_per_s", nr_read / (t / 1e9));
	bench_print("watchmany", variant, "dropped_share",
		    nr_read + nr_dropped ?
		    (double)nr_dropped / (nr_read + nr_dropped) : 0);
	bench_print("watchmany", variant, "overflows", nr_overflows);
	bench_print("watchmany", variant, "violations", violations);
	if (violations)
		die("watchmany: %ld violations of the documented ordering or "
		    "state", violations);
}

static void usage(void)
{
	die("usage: watchmany [-q] [-m watch|perf|rate] [-n THREADS] "
	    "[-r ROUNDS] [-p PAIRS] [-t SECONDS] [-b BUFFER] [-l]");
}

int main(int argc, char **argv)
{
	const char *mode = "watch";
	long rounds = 2000, seconds = 5, buffer = 64, pairs = -1;
	bool lazy = false;
	int opt;

	while ((opt = getopt(argc, argv, "qm:n:r:p:t:b:l")) != -1) {
		switch (opt) {
		case 'l':
			lazy = true;
			break;
		case 'q':
			rounds = 100;
			seconds = 1;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'n':
			nr_workers = parse_long(optarg, "-n", 1);
			break;
		case 'r':
			rounds = parse_long(optarg, "-r", 1);
			break;
		case 'p':
			pairs = parse_long(optarg, "-p", 1);
			break;
		case 't':
			seconds = parse_long(optarg, "-t", 1);
			break;
		case 'b':
			buffer = parse_long(optarg, "-b", 8);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (pairs < 0)
		pairs = 2 * sysconf(_SC_NPROCESSORS_ONLN);
	if (!strcmp(mode, "watch"))
		run_many(false, rounds);
	else if (!strcmp(mode, "perf"))
		run_many(true, rounds);
	else if (!strcmp(mode, "rate"))
		run_rate(pairs, seconds, buffer, lazy);
	else
		usage();
	return 0;
}
