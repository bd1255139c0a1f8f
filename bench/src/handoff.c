// SPDX-License-Identifier: GPL-2.0
/*
 * handoff: how soon does a watching thread run after the thread it
 * watches blocks?
 *
 * A target thread blocks once per round in FUTEX_WAIT on its own futex
 * word ("go"); right before the futex call it takes
 * t0 = CLOCK_MONOTONIC and publishes it with the round number.  A
 * waiter thread learns of the block by one of seven methods (-m) and
 * takes t1 as soon as it knows; the sample is t1 - t0.
 *
 *   swb    the waiter sleeps in sched_wait_block(target, 1 s, 0).
 *   perf   perf_event_open() on the target thread (software dummy event,
 *          context_switch=1, sample_id_all with TID|TIME, clock
 *          CLOCK_MONOTONIC, watermark=1 and wakeup_watermark=1 so that
 *          every record wakes the reader); the waiter sleeps in poll()
 *          and scans the ring buffer for a PERF_RECORD_SWITCH with
 *          MISC_SWITCH_OUT set and MISC_SWITCH_OUT_PREEMPT clear (a
 *          block, not a preemption) stamped at or after this round's t0.
 *   watch  a watch fd (sched_watch_open()) watching the target; the
 *          waiter sleeps in read(2) on it and stops at a BLOCK record of
 *          the target stamped at or after this round's t0.  The read is
 *          what the fd wakes before the target's switch (one context
 *          switch on one CPU).
 *   watchpoll  the same fd, non-blocking, the waiter sleeping in poll()
 *          as for perf: poll's waiters are woken by an irq_work after
 *          the switch, not before it.
 *   proc   the waiter reads /proc/self/task/<tid>/stat with pread() on
 *          absolute 1 ms clock_nanosleep() ticks and stops at state S
 *          or D, as libdispatch's Linux thread pool does.
 *   futex  the floor: cooperative notification.  The target itself sets
 *          a second futex word and FUTEX_WAKEs the waiter right after
 *          taking t0, then blocks; the waiter sleeps in FUTEX_WAIT.
 *          This latency includes the target's FUTEX_WAKE call.
 *   futexblk  the floor of a cooperative wake that the target's block
 *          hands the CPU to (one CPU only): as futex, but the waiter
 *          runs SCHED_IDLE, so that the wakeup does not preempt the
 *          target (check_preempt_wakeup_fair()); the waiter runs when
 *          the target has blocked in its FUTEX_WAIT, like a
 *          sched_wait_block() waiter.  This latency includes the
 *          target's FUTEX_WAKE call and its whole way into the sleep:
 *          what a runtime pays that wakes a helper before each blocking
 *          call, the alternative to sched_wait_block() that needs no
 *          kernel change.
 *
 * Each waiting call has a 1 s timeout (also for swb, so that a lost
 * block is counted in "missed" instead of hanging the run; for watch, a
 * per-thread timer that interrupts read(2) with SIGALRM).
 *
 * Keeping rounds apart (the call is edge-triggered, and returns at once
 * on a target that is still blocked):
 *   1. the waiter releases the target (go = r, FUTEX_WAKE) and waits
 *      until the target has published "running in round r + 1";
 *   2. only then does it arm (set armed = r + 1 and enter its wait), so
 *      the previous block cannot be reported again;
 *   3. the target waits for armed == r + 1, then (except for proc, and
 *      perf on one CPU: see target()) until the waiter's /proc stat
 *      shows S, i.e. it really sleeps in its wait, then spins a random
 *      0..J us (-j), takes t0 and blocks;
 *   4. a report is only taken if it belongs to the round: swb and futex
 *      check that the published t0 is this round's (a stale report is
 *      counted in "stale" and the wait re-entered); perf and watch
 *      additionally require the record's time >= t0; proc requires that t0 is this
 *      round's when the S/D letter is read.
 * The target only ever waits by sched_yield() between rounds, which is
 * not a block (and is marked as preemption in perf's switch records).
 *
 * Context switches.  After the N latency samples, S more rounds (-s)
 * count the context switches of one handoff: in those rounds the target,
 * right before t0 (after all of the round's synchronisation above),
 * reads the waiter's and its own voluntary/nonvoluntary_ctxt_switches
 * (/proc/self/task/<tid>/status) and then the system-wide count, the
 * "ctxt" line of /proc/stat; the waiter, right after t1, reads /proc/stat
 * again, then both threads' status.  The difference is every switch
 * on every CPU between the last moment the target ran before blocking and
 * the first moment the waiter knew (the guest is otherwise idle): on one
 * CPU, one switch if the waiter is picked straight after the target, two
 * if the CPU went through idle; across CPUs, at least two (target to
 * idle, idle to waiter).  These reads are kept out of the latency rounds,
 * which they would slow down.  For futex the target wakes the waiter
 * before it blocks, so its own block may fall after the window.  The
 * latency rounds are also counted as a whole: /proc/stat's ctxt over the
 * N rounds divided by their number, which includes each round's
 * synchronisation (release, yields, the waiter going back to sleep).
 *
 *   -m swb|perf|proc|futex|futexblk|watch|watchpoll
 *   -c same|cross  both threads on CPU 0, or target on 0 and waiter on 1
 *   -n N           samples (default 10000; -q: 200)
 *   -s S           switch-counting rounds after them (default 500; -q: 50;
 *                  0: none)
 *   -j US          pre-block random spin bound (default 1000 for proc, to
 *                  spread blocks over its 1 ms polling grid; 0 otherwise)
 *   -o FILE        raw samples, CSV "method,cpus,ns"
 *
 * Output: BENCH,handoff,<method>-<same|cross>,{p50_ns,p90_ns,p99_ns,
 *         p999_ns,max_ns,n,missed,stale},<x>
 *         and {rounds,ctxt_per_round} of the latency rounds, and of the
 *         counting rounds sw_n (counted), sw_missed, sw_mean, sw_p50,
 *         sw_min, sw_max (system-wide switches per handoff), sw_target_vol,
 *         sw_target_invol, sw_waiter_vol, sw_waiter_invol (means per
 *         handoff of each thread's own switches).
 */
#include "common.h"
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

enum method {
	M_SWB, M_PERF, M_PROC, M_FUTEX, M_FUTEXBLK, M_WATCH, M_WATCHPOLL,
	NR_METHODS
};
static const char *const method_names[] = {
	"swb", "perf", "proc", "futex", "futexblk", "watch", "watchpoll"
};

#define TIMEOUT_NS	NSEC_PER_SEC
#define PERF_PAGES	64		/* data pages of the ring buffer */
#define PROC_TICK_NS	NSEC_PER_MSEC

static enum method method;
static int cross;
static long nr_samples = 10000;
static long nr_count = -1;		/* -s */
static long long jitter_ns = -1;

/* Rounds count from 1; 0 means "none yet". */
static atomic_int running_round;	/* target runs in this round */
static atomic_int armed_round;		/* waiter waits for this round */
static atomic_int go;			/* rounds released by the waiter */
static atomic_int notify;		/* futex method: rounds notified */
static atomic_int t0_round;		/* round of t0_ns */
static atomic_llong t0_ns;
static atomic_int stop;
static atomic_int target_tid, waiter_tid;

static long long *samples;
static long nr_taken, missed, stale;

/* Switch counting (-s): round r counts if count_round == r. */
static atomic_int count_round;
/* The target's readings right before t0, published with t0_round */
static long long pre_ctxt;
static struct csw pre_target, pre_waiter;

struct sw_sample {
	long long ctxt;			/* system-wide, /proc/stat */
	long long tvol, tinvol;		/* the target's own */
	long long wvol, winvol;		/* the waiter's own */
};

static struct sw_sample *sw;
static long nr_sw, sw_missed;
/* The latency rounds as a whole */
static long long lat_rounds, lat_ctxt;

/* ---- target ---------------------------------------------------------- */

static void *target(void *arg)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	int wfd = -1, sfd = -1, own = -1, wst = -1, r, g;
	char *buf = NULL;

	pin_cpu(0);
	atomic_store(&target_tid, gettid_());
	while (!atomic_load(&waiter_tid))
		sched_yield();
	if (nr_count) {
		buf = malloc(PROC_BUF_SIZE);
		if (!buf)
			die("out of memory");
		sfd = proc_open("/proc/stat");
		own = proc_status_open(gettid_());
		wst = proc_status_open(atomic_load(&waiter_tid));
	}
	/*
	 * Wait for the waiter to sleep, except for proc (its sleep is the
	 * polling tick) and perf on one CPU: there every switch of the
	 * target (the yields here included) is a record that wakes the
	 * reader, so it is never seen asleep; it is runnable inside poll()
	 * when the target blocks, which is how perf behaves anyway.
	 */
	if (method != M_PROC && !(method == M_PERF && !cross))
		wfd = proc_stat_open(atomic_load(&waiter_tid));

	for (r = 1; !atomic_load(&stop); r++) {
		atomic_store(&running_round, r);
		while (atomic_load(&armed_round) != r) {
			if (atomic_load(&stop))
				goto out;
			sched_yield();
		}
		/* Let the waiter really fall asleep in its wait. */
		while (wfd >= 0 && proc_state(wfd) != 'S') {
			if (atomic_load(&stop))
				goto out;
			sched_yield();
		}
		if (jitter_ns > 0)
			spin_ns(rnd_range(&rnd, 0, jitter_ns));
		/* A counting round: the system-wide count last, nearest t0. */
		if (atomic_load(&count_round) == r) {
			proc_csw(wst, buf, &pre_waiter);
			proc_csw(own, buf, &pre_target);
			pre_ctxt = proc_ctxt(sfd, buf);
		}

		atomic_store(&t0_ns, now_ns());
		atomic_store(&t0_round, r);
		if (method == M_FUTEX || method == M_FUTEXBLK) {
			atomic_store(&notify, r);
			futex_wake_checked(&notify, 1);
		}
		/* The block being measured. */
		while ((g = atomic_load(&go)) < r)
			futex_wait_checked(&go, g, TIMEOUT_NS);
	}
out:
	if (wfd >= 0)
		close(wfd);
	if (nr_count) {
		close(sfd);
		close(own);
		close(wst);
		free(buf);
	}
	return NULL;
}

/* ---- waiter methods: return t1, or 0 if the round was missed ---------- */

static long long deadline_left(long long deadline)
{
	long long left = deadline - now_ns();

	return left > 0 ? left : 0;
}

static long long wait_swb(pid_t tid, int r)
{
	long long deadline = now_ns() + TIMEOUT_NS;

	for (;;) {
		long long left = deadline_left(deadline), t1;
		struct __kernel_timespec ts = {
			.tv_sec = left / NSEC_PER_SEC,
			.tv_nsec = left % NSEC_PER_SEC,
		};

		if (sched_wait_block(tid, &ts, 0)) {
			if (errno == ETIMEDOUT)
				return 0;
			die_errno("sched_wait_block");
		}
		t1 = now_ns();
		if (atomic_load(&t0_round) == r)
			return t1;
		stale++;		/* some other block: wait again */
	}
}

static long long wait_futex(int r)
{
	long long deadline = now_ns() + TIMEOUT_NS;
	int v;

	while ((v = atomic_load(&notify)) < r) {
		long long left = deadline_left(deadline);

		if (!left)
			return 0;
		futex_wait_checked(&notify, v, left);
	}
	return now_ns();
}

struct perf_ctx {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	size_t size;		/* data area, a power of two */
};

static void perf_setup(struct perf_ctx *p, pid_t tid)
{
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
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	p->fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (p->fd < 0)
		die_errno("perf_event_open");
	p->size = PERF_PAGES * page;
	m = mmap(NULL, page + p->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 p->fd, 0);
	if (m == MAP_FAILED)
		die_errno("mmap perf ring buffer");
	p->meta = m;
	p->data = (char *)m + page;
}

static uint64_t perf_head(struct perf_ctx *p)
{
	return __atomic_load_n(&p->meta->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Consume the records up to @head; with @t0 >= 0, return 1 if one of
 * them is a block (switch-out, not preemption) of the target at or after
 * @t0.
 */
static int perf_scan(struct perf_ctx *p, uint64_t head, long long t0,
		     pid_t tid)
{
	return perf_ring_scan(p->meta, p->data, p->size, head, t0, tid);
}

static long long wait_perf(struct perf_ctx *p, pid_t tid, int r)
{
	long long deadline = now_ns() + TIMEOUT_NS;
	uint64_t head;

	for (;;) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		long long left = deadline_left(deadline);
		int n;

		if (!left)
			return 0;
		n = poll(&pfd, 1, (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
		if (n < 0 && errno != EINTR)
			die_errno("poll perf");
		if (n > 0 && (pfd.revents & (POLLHUP | POLLERR)))
			die("perf: poll revents %#x", pfd.revents);
		/*
		 * Head first: a block record of round r below it was written
		 * after the target published t0_round = r, so if t0_round is
		 * not r yet, none of these records is the round's block.
		 */
		head = perf_head(p);
		if (perf_scan(p, head, atomic_load(&t0_round) == r ?
			      atomic_load(&t0_ns) : -1, tid))
			return now_ns();
	}
}

/* The watch methods: the fd, and the timer that bounds a read(2) */
struct watch_ctx {
	int fd;
	timer_t timer;
	struct sched_watch_event buf[64];
};

static void on_alarm(int sig)
{
}

static void watch_setup(struct watch_ctx *w, pid_t tid, bool poll_mode)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGALRM,
	};

	w->fd = watch_open_on(tid, poll_mode ? SCHED_WATCH_NONBLOCK : 0);
	if (poll_mode)
		return;
	if (sigaction(SIGALRM, &sa, NULL))
		die_errno("sigaction");
	sev._sigev_un._tid = gettid_();
	if (timer_create(CLOCK_MONOTONIC, &sev, &w->timer))
		die_errno("timer_create");
}

/*
 * Consume the @n bytes of records read; with @t0 >= 0, return 1 if one
 * of them is a BLOCK of the target at or after @t0.
 */
static int watch_scan(struct watch_ctx *w, ssize_t n, long long t0, pid_t tid)
{
	int i, found = 0;

	if (n % sizeof(w->buf[0]))
		die("watch: read %zd bytes, not whole records", n);
	for (i = 0; i < n / (ssize_t)sizeof(w->buf[0]); i++) {
		struct sched_watch_event *e = &w->buf[i];

		/* ADDED first; one thread watched: its BLOCK is the set's */
		if (e->type != SCHED_WATCH_BLOCK && e->type != SCHED_WATCH_WAKE &&
		    e->type != SCHED_WATCH_ADDED &&
		    e->type != SCHED_WATCH_ALL_BLOCKED &&
		    e->type != SCHED_WATCH_ALL_BLOCKED_END)
			die("watch: unexpected record type %u", e->type);
		if (e->type == SCHED_WATCH_BLOCK && (pid_t)e->tid == tid &&
		    t0 >= 0 && (long long)e->time_ns >= t0)
			found = 1;
	}
	return found;
}

/* Drop the records of earlier rounds (the target's last WAKE, say). */
static void watch_drain(struct watch_ctx *w, pid_t tid)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	ssize_t n;

	while (poll(&pfd, 1, 0) > 0) {
		n = read(w->fd, w->buf, sizeof(w->buf));
		if (n < 0 && errno != EAGAIN)
			die_errno("read watch fd");
		if (n > 0)
			watch_scan(w, n, -1, tid);
	}
}

static long long wait_watch(struct watch_ctx *w, pid_t tid, int r,
			    bool poll_mode)
{
	long long deadline = now_ns() + TIMEOUT_NS;

	if (!poll_mode) {
		struct itimerspec its = { .it_value = { .tv_sec = 1 } };

		if (timer_settime(w->timer, 0, &its, NULL))
			die_errno("timer_settime");
	}
	for (;;) {
		long long left = deadline_left(deadline), t1;
		ssize_t n;

		if (!left)
			return 0;
		if (poll_mode) {
			struct pollfd pfd = { .fd = w->fd, .events = POLLIN };

			n = poll(&pfd, 1, (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
			if (n < 0 && errno != EINTR)
				die_errno("poll watch fd");
			if (n <= 0)
				continue;
		}
		n = read(w->fd, w->buf, sizeof(w->buf));
		t1 = now_ns();
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			die_errno("read watch fd");
		/* As for perf: a BLOCK of round r follows t0_round = r. */
		if (watch_scan(w, n, atomic_load(&t0_round) == r ?
			       atomic_load(&t0_ns) : -1, tid))
			return t1;
	}
}

static long long wait_proc(int fd, int r, long long *tick)
{
	long long deadline = now_ns() + TIMEOUT_NS;

	for (;;) {
		struct timespec ts;
		long long t1;
		int round;
		char st;

		*tick += PROC_TICK_NS;
		t1 = now_ns();
		if (*tick < t1)		/* fell behind: next grid point */
			*tick += (t1 - *tick) / PROC_TICK_NS * PROC_TICK_NS +
				 PROC_TICK_NS;
		ns_to_timespec(*tick, &ts);
		while ((errno = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL)) == EINTR)
			;
		if (errno)
			die_errno("clock_nanosleep");
		/* Round first: a letter read after it is from this round. */
		round = atomic_load(&t0_round);
		st = proc_state(fd);
		t1 = now_ns();
		if ((st == 'S' || st == 'D') && round == r)
			return t1;
		if (!st)
			die("proc: target gone");
		if (t1 > deadline)
			return 0;
	}
}

/* ---- waiter ---------------------------------------------------------- */

/* A counting round's readings right after t1. */
static void count_switches(int sfd, int own, int tst, char *buf)
{
	struct sw_sample *s = &sw[nr_sw++];
	struct csw w, t;

	s->ctxt = proc_ctxt(sfd, buf) - pre_ctxt;
	proc_csw(own, buf, &w);
	proc_csw(tst, buf, &t);
	s->tvol = t.vol - pre_target.vol;
	s->tinvol = t.invol - pre_target.invol;
	s->wvol = w.vol - pre_waiter.vol;
	s->winvol = w.invol - pre_waiter.invol;
}

static void *waiter(void *arg)
{
	struct perf_ctx perf = { .fd = -1 };
	struct watch_ctx watch = { .fd = -1 };
	long long tick = 0, t1, ctxt_start;
	int pfd = -1, sfd, own = -1, tst = -1, r;
	bool counting;
	char *buf;
	pid_t tid;

	pin_cpu(cross ? 1 : 0);
	atomic_store(&waiter_tid, gettid_());
	while (!(tid = atomic_load(&target_tid)))
		sched_yield();
	if (method == M_PERF)
		perf_setup(&perf, tid);
	if (method == M_WATCH || method == M_WATCHPOLL)
		watch_setup(&watch, tid, method == M_WATCHPOLL);
	if (method == M_PROC) {
		pfd = proc_stat_open(tid);
		tick = now_ns();
	}
	if (method == M_FUTEXBLK) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &sp))
			die_errno("sched_setscheduler(SCHED_IDLE)");
	}
	buf = malloc(PROC_BUF_SIZE);
	if (!buf)
		die("out of memory");
	sfd = proc_open("/proc/stat");
	if (nr_count) {
		own = proc_status_open(gettid_());
		tst = proc_status_open(tid);
	}

	ctxt_start = proc_ctxt(sfd, buf);
	for (r = 1; ; r++) {
		counting = nr_taken >= nr_samples;
		if (counting && !lat_rounds) {
			lat_rounds = r - 1;
			lat_ctxt = proc_ctxt(sfd, buf) - ctxt_start;
		}
		if (counting && nr_sw + sw_missed >= nr_count)
			break;
		/* The target must run in round r before we arm for it. */
		while (atomic_load(&running_round) < r)
			sched_yield();
		if (method == M_PERF)
			perf_scan(&perf, perf_head(&perf), -1, tid); /* drop old */
		if (watch.fd >= 0)
			watch_drain(&watch, tid);
		atomic_store(&count_round, counting ? r : 0);
		atomic_store(&armed_round, r);

		switch (method) {
		case M_SWB:
			t1 = wait_swb(tid, r);
			break;
		case M_PERF:
			t1 = wait_perf(&perf, tid, r);
			break;
		case M_PROC:
			t1 = wait_proc(pfd, r, &tick);
			break;
		case M_WATCH:
		case M_WATCHPOLL:
			t1 = wait_watch(&watch, tid, r, method == M_WATCHPOLL);
			break;
		default:
			t1 = wait_futex(r);
			break;
		}
		if (counting && t1)
			count_switches(sfd, own, tst, buf);
		else if (counting && ++sw_missed > nr_count / 10 + 10)
			die("handoff: too many missed rounds (%ld)", sw_missed);
		else if (!counting && t1)
			samples[nr_taken++] = t1 - atomic_load(&t0_ns);
		else if (!counting && ++missed > nr_samples / 10 + 10)
			die("handoff: too many missed rounds (%ld)", missed);

		atomic_store(&go, r);		/* release the target */
		futex_wake_checked(&go, 1);
	}

	atomic_store(&stop, 1);
	atomic_store(&go, INT32_MAX);
	futex_wake_checked(&go, 1);
	if (perf.fd >= 0)
		close(perf.fd);
	if (watch.fd >= 0)
		close(watch.fd);
	if (method == M_WATCH)
		timer_delete(watch.timer);
	if (pfd >= 0)
		close(pfd);
	close(sfd);
	if (nr_count) {
		close(own);
		close(tst);
	}
	free(buf);
	return NULL;
}

/* The switch figures: system-wide per handoff, and each thread's own. */
static void print_switches(const char *variant)
{
	long long *v = calloc(nr_sw + 1, sizeof(*v));
	double sum = 0, tvol = 0, tinvol = 0, wvol = 0, winvol = 0;
	long i;

	if (!v)
		die("out of memory");
	bench_print("handoff", variant, "rounds", lat_rounds);
	bench_print("handoff", variant, "ctxt_per_round",
		    lat_rounds ? (double)lat_ctxt / lat_rounds : 0);
	if (!nr_count) {
		free(v);
		return;
	}
	for (i = 0; i < nr_sw; i++) {
		v[i] = sw[i].ctxt;
		sum += sw[i].ctxt;
		tvol += sw[i].tvol;
		tinvol += sw[i].tinvol;
		wvol += sw[i].wvol;
		winvol += sw[i].winvol;
	}
	qsort(v, nr_sw, sizeof(*v), cmp_ll);
	printf("handoff %s: %ld handoffs counted, %ld missed: %.3f context "
	       "switches each (p50 %lld, min %lld, max %lld); target %.3f+%.3f, "
	       "waiter %.3f+%.3f (voluntary+nonvoluntary); %.2f per latency "
	       "round\n", variant, nr_sw, sw_missed,
	       nr_sw ? sum / nr_sw : 0, percentile(v, nr_sw, 50),
	       nr_sw ? v[0] : 0, nr_sw ? v[nr_sw - 1] : 0,
	       nr_sw ? tvol / nr_sw : 0, nr_sw ? tinvol / nr_sw : 0,
	       nr_sw ? wvol / nr_sw : 0, nr_sw ? winvol / nr_sw : 0,
	       lat_rounds ? (double)lat_ctxt / lat_rounds : 0);
	bench_print("handoff", variant, "sw_n", nr_sw);
	bench_print("handoff", variant, "sw_missed", sw_missed);
	if (nr_sw) {
		bench_print("handoff", variant, "sw_mean", sum / nr_sw);
		bench_print("handoff", variant, "sw_p50", percentile(v, nr_sw, 50));
		bench_print("handoff", variant, "sw_min", v[0]);
		bench_print("handoff", variant, "sw_max", v[nr_sw - 1]);
		bench_print("handoff", variant, "sw_target_vol", tvol / nr_sw);
		bench_print("handoff", variant, "sw_target_invol", tinvol / nr_sw);
		bench_print("handoff", variant, "sw_waiter_vol", wvol / nr_sw);
		bench_print("handoff", variant, "sw_waiter_invol", winvol / nr_sw);
	}
	free(v);
}

static void usage(void)
{
	die("usage: handoff [-q] -m swb|perf|proc|futex|futexblk|watch|watchpoll "
	    "[-c same|cross] "
	    "[-n SAMPLES] [-s SWITCH_ROUNDS] [-j US] [-o FILE]");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *cpus;
	pthread_t thr_t, thr_w;
	int opt, err, m = -1, quick = 0;
	char variant[32];
	long i;

	while ((opt = getopt(argc, argv, "qm:c:n:s:j:o:")) != -1) {
		switch (opt) {
		case 'q':
			nr_samples = 200;
			quick = 1;
			break;
		case 'm':
			for (m = 0; m < NR_METHODS; m++)
				if (!strcmp(optarg, method_names[m]))
					break;
			if (m == NR_METHODS)
				usage();
			method = m;
			break;
		case 'c':
			cross = parse_cpus_opt(optarg);
			break;
		case 'n':
			nr_samples = parse_long(optarg, "-n", 1);
			break;
		case 's':
			nr_count = parse_long(optarg, "-s", 0);
			break;
		case 'j':
			jitter_ns = parse_long(optarg, "-j", 0) * NSEC_PER_USEC;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || m < 0)
		usage();
	if (jitter_ns < 0)
		jitter_ns = method == M_PROC ? 1000 * NSEC_PER_USEC : 0;
	if (nr_count < 0)
		nr_count = quick ? 50 : 500;
	if (cross && method == M_FUTEXBLK)
		die("handoff: futexblk is a one-CPU floor (-c same)");
	need_cpus(cross ? 2 : 1);
	cpus = cross ? "cross" : "same";

	samples = calloc(nr_samples, sizeof(*samples));
	if (!samples)
		die("out of memory");
	memset(samples, 0, nr_samples * sizeof(*samples));	/* prefault */
	sw = calloc(nr_count + 1, sizeof(*sw));
	if (!sw)
		die("out of memory");
	memset(sw, 0, (nr_count + 1) * sizeof(*sw));

	err = pthread_create(&thr_w, NULL, waiter, NULL);
	if (!err)
		err = pthread_create(&thr_t, NULL, target, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	if (pthread_join(thr_w, NULL) || pthread_join(thr_t, NULL))
		die("pthread_join");

	if (out) {
		FILE *f = csv_open(out, "method,cpus,ns");

		for (i = 0; i < nr_taken; i++)
			fprintf(f, "%s,%s,%lld\n", method_names[method], cpus,
				samples[i]);
		csv_close(f, out);
	}
	qsort(samples, nr_taken, sizeof(*samples), cmp_ll);
	snprintf(variant, sizeof(variant), "%s-%s", method_names[method], cpus);
	printf("handoff %s: %ld samples, %ld missed, %ld stale, "
	       "p50 %lld ns, p99 %lld ns, max %lld ns\n", variant, nr_taken,
	       missed, stale, percentile(samples, nr_taken, 50),
	       percentile(samples, nr_taken, 99),
	       nr_taken ? samples[nr_taken - 1] : 0);
	bench_print("handoff", variant, "p50_ns", percentile(samples, nr_taken, 50));
	bench_print("handoff", variant, "p90_ns", percentile(samples, nr_taken, 90));
	bench_print("handoff", variant, "p99_ns", percentile(samples, nr_taken, 99));
	bench_print("handoff", variant, "p999_ns", percentile(samples, nr_taken, 99.9));
	bench_print("handoff", variant, "max_ns", nr_taken ? samples[nr_taken - 1] : 0);
	bench_print("handoff", variant, "n", nr_taken);
	bench_print("handoff", variant, "missed", missed);
	bench_print("handoff", variant, "stale", stale);
	print_switches(variant);
	return 0;
}
