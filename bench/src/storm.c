// SPDX-License-Identifier: GPL-2.0
/*
 * storm: many waiters on one thread that blocks once, then exits.
 *
 * A target thread spins (on CPU 1 when there are two CPUs); N waiter
 * threads (64 KiB stacks, on CPU 0) each call
 *
 *	sched_wait_block(target, NULL, 0, NULL)
 *
 * once.  When every waiter sleeps in the call (state S in
 * /proc/self/task/<tid>/stat), the target takes t0, sleeps in nanosleep()
 * (100 ms) and exits.  Each waiter takes t1 as the call returns.
 *
 * The sleep is a block, and a block counted before the target's exit is
 * reported as a block to every waiter that was waiting then, even to one
 * that only runs after the exit: every waiter must return 0.  -ESRCH (the
 * exit) is what the first version gave the waiters that had not run
 * before the target exited.  Both are counted; any other error fails the
 * program.  The kernel wakes the first waiter, and each waiter wakes the
 * next as it leaves, so the last return measures the whole chain.
 *
 * Figures, per N and per repetition: the waiters that returned 0 and
 * -ESRCH, those that returned before t0 ("early": the target blocked
 * before its sleep, which a spinning thread should not), and the time
 * from t0 to the first and to the last waiter's return (ms).
 *
 *   -n LIST   comma-separated waiter counts (default 1,10,100,1000,10000)
 *   -r R      repetitions per count (default 5)
 *   -s MS     the target's sleep (default 100)
 *   -q        quick: -n 1,10,100 -r 3
 *   -I        the irqsoff latency tracer's maximum over each storm: reset
 *             (tracing_max_latency) as the target is let go, read once
 *             every waiter has returned, with tracing stopped first
 *             (tracing_on), so that the trace shows that section until
 *             the next storm starts it again.  Needs the irqsoff tracer set up
 *             (bench/guest-irqsoff.sh); every interrupts-off section of
 *             the machine counts, the chain's steps among them.
 *
 * 10^4 threads need /proc/sys/kernel/pid_max and threads-max above that
 * (guest-bench.sh raises them if need be) and 64 KiB stacks (1 GiB of
 * address space, a few pages of memory each).
 *
 * Output, one set per repetition:
 *	BENCH,storm,n<N>,{ret0,esrch,early,first_ms,last_ms},<x>
 * and with -I
 *	BENCH,storm,n<N>,irqsoff_max_us,<x>
 */
#include "common.h"

#define STACK_SIZE	(64 * 1024)
#define MAX_WAITERS	100000
#define MAX_COUNTS	16
#define PARK_TIMEOUT_NS	(300 * NSEC_PER_SEC)

struct waiter {
	pthread_t thr;
	atomic_int tid;
	atomic_int calling;	/* about to enter the call */
	atomic_int done;	/* the call returned */
	int err;		/* 0, or its errno */
	long long t1;
};

static atomic_int target_tid, go;
static atomic_llong t0;
static long long sleep_ns = 100 * NSEC_PER_MSEC;
static int target_cpu, irqsoff;

#define MAX_LATENCY	"/sys/kernel/tracing/tracing_max_latency"
#define TRACING_ON	"/sys/kernel/tracing/tracing_on"

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die_errno(path);
	close(fd);
}

/*
 * -I: reset the irqsoff tracer's maximum and start tracing (@reset), or
 * stop tracing and read the maximum, us: stopped, the trace file keeps
 * the section that set it until the next reset.
 */
static long max_latency(int reset)
{
	char buf[32];
	ssize_t len;
	int fd;

	if (reset) {
		write_str(MAX_LATENCY, "0");
		write_str(TRACING_ON, "1");
		return 0;
	}
	write_str(TRACING_ON, "0");
	fd = open(MAX_LATENCY, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno(MAX_LATENCY);
	len = read(fd, buf, sizeof(buf) - 1);
	if (len <= 0)
		die_errno(MAX_LATENCY);
	close(fd);
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_long(buf, MAX_LATENCY, 0);
}

static void *target_fn(void *arg)
{
	struct timespec ts;

	pin_cpu(target_cpu);
	atomic_store(&target_tid, gettid_());
	while (!atomic_load(&go))
		;		/* runnable, never blocks */
	ns_to_timespec(sleep_ns, &ts);
	atomic_store(&t0, now_ns());
	if (nanosleep(&ts, NULL))
		die_errno("nanosleep");
	return NULL;		/* and exit */
}

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	pid_t tid = atomic_load(&target_tid);

	atomic_store(&w->tid, gettid_());
	atomic_store(&w->calling, 1);
	w->err = sched_wait_block(tid, NULL, 0) ? errno : 0;
	w->t1 = now_ns();
	atomic_store(&w->done, 1);
	return NULL;
}

/* Wait until waiter @w sleeps in the call (or is done); die at @deadline. */
static void wait_parked(struct waiter *w, long long deadline)
{
	char path[64];
	int fd;

	while (!atomic_load(&w->calling)) {
		if (now_ns() > deadline)
			die("storm: a waiter did not start");
		usleep(100);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
		 atomic_load(&w->tid));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (atomic_load(&w->done))
			return;
		die_errno(path);
	}
	while (!atomic_load(&w->done) && proc_state(fd) != 'S') {
		if (now_ns() > deadline)
			die("storm: a waiter did not park");
		usleep(100);
	}
	close(fd);
}

/* One storm of @n waiters: returns the time to the last return, ns. */
static long long run(int n)
{
	long long dl, first = -1, last = -1, start, max_irqsoff = 0;
	int i, err, ret0 = 0, esrch = 0, early = 0, other = 0, other_err = 0;
	char variant[32];
	pthread_attr_t attr;
	struct waiter *w;
	pthread_t thr_t;

	w = calloc(n, sizeof(*w));
	if (!w)
		die("out of memory");
	atomic_store(&go, 0);
	atomic_store(&target_tid, 0);
	err = pthread_create(&thr_t, NULL, target_fn, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	while (!atomic_load(&target_tid))
		sched_yield();

	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, STACK_SIZE);
	if (err)
		die("pthread_attr: %s", strerror(err));
	for (i = 0; i < n; i++) {
		err = pthread_create(&w[i].thr, &attr, waiter_fn, &w[i]);
		if (err)
			die("storm: pthread_create of waiter %d of %d: %s "
			    "(kernel.pid_max, kernel.threads-max?)", i + 1, n,
			    strerror(err));
	}
	pthread_attr_destroy(&attr);
	start = now_ns();
	dl = start + PARK_TIMEOUT_NS;
	for (i = 0; i < n; i++)
		wait_parked(&w[i], dl);

	if (irqsoff)
		max_latency(1);
	atomic_store(&go, 1);
	for (i = 0; i < n; i++) {
		err = pthread_join(w[i].thr, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	err = pthread_join(thr_t, NULL);
	if (err)
		die("pthread_join: %s", strerror(err));
	if (irqsoff)
		max_irqsoff = max_latency(0);

	for (i = 0; i < n; i++) {
		long long d = w[i].t1 - atomic_load(&t0);

		if (!w[i].err) {
			ret0++;
		} else if (w[i].err == ESRCH) {
			esrch++;
		} else {
			other++;
			other_err = w[i].err;
		}
		if (d < 0) {
			early++;
			continue;
		}
		if (first < 0 || d < first)
			first = d;
		if (d > last)
			last = d;
	}
	if (other)
		die("storm: %d of %d waiters failed, e.g. with %s", other, n,
		    strerror(other_err));
	free(w);

	snprintf(variant, sizeof(variant), "n%d", n);
	printf("storm %d waiters: %d returned 0, %d -ESRCH, %d early; "
	       "first %.3f ms, last %.3f ms after the target's sleep began\n",
	       n, ret0, esrch, early, first / 1e6, last / 1e6);
	bench_print("storm", variant, "ret0", ret0);
	bench_print("storm", variant, "esrch", esrch);
	bench_print("storm", variant, "early", early);
	if (last >= 0) {
		bench_print("storm", variant, "first_ms", first / 1e6);
		bench_print("storm", variant, "last_ms", last / 1e6);
	}
	if (irqsoff)
		bench_print("storm", variant, "irqsoff_max_us", max_irqsoff);
	return last;
}

static void usage(void)
{
	die("usage: storm [-q] [-I] [-n N[,N...]] [-r REPS] [-s MS]");
}

int main(int argc, char **argv)
{
	int counts[MAX_COUNTS] = { 1, 10, 100, 1000, 10000 };
	int nr_counts = 5, reps = 5, opt, i, r;
	long long last[64];
	char *tok, *save;

	while ((opt = getopt(argc, argv, "qIn:r:s:")) != -1) {
		switch (opt) {
		case 'I':
			irqsoff = 1;
			break;
		case 'q':
			nr_counts = 3;
			reps = 3;
			break;
		case 'n':
			nr_counts = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nr_counts == MAX_COUNTS)
					die("-n: at most %d counts", MAX_COUNTS);
				counts[nr_counts] = parse_long(tok, "-n", 1);
				if (counts[nr_counts] > MAX_WAITERS)
					die("-n: at most %d waiters", MAX_WAITERS);
				nr_counts++;
			}
			if (!nr_counts)
				usage();
			break;
		case 'r':
			reps = parse_long(optarg, "-r", 1);
			if (reps > 64)
				die("-r: at most 64");
			break;
		case 's':
			sleep_ns = parse_long(optarg, "-s", 0) * NSEC_PER_MSEC;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	target_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	pin_cpu(0);		/* the waiters inherit it */

	for (i = 0; i < nr_counts; i++) {
		for (r = 0; r < reps; r++)
			last[r] = run(counts[i]);
		qsort(last, reps, sizeof(*last), cmp_ll);
		printf("storm %d waiters: last return p50 %.3f ms over %d runs\n",
		       counts[i], percentile(last, reps, 50) / 1e6, reps);
	}
	return 0;
}
