// SPDX-License-Identifier: GPL-2.0
/*
 * pipe: scheduler round-trip cost, the "perf bench sched pipe" pattern.
 *
 * Two threads of one process pass a 1-byte message back and forth over
 * two pipes: the main thread writes to pipe A and reads pipe B, the
 * partner reads A and writes B.  Every round trip is two blocks and two
 * wakeups, so the time per round trip is dominated by schedule(),
 * try_to_wake_up() and the pipe code, which is what a change to the
 * block path of the scheduler can slow down.  The figure is the wall
 * time of N round trips (after a short warm-up) divided by N.
 *
 *   -c same   both threads pinned to CPU 0 (a switch per message)
 *   -c cross  main thread on CPU 0, partner on CPU 1 (cross-CPU wakeups)
 *   -n N      round trips (default 10000 same, 2000 cross: 1-2 s each in
 *             the TCG debug guest, where a round trip took ~115 us same
 *             and ~900 us cross)
 *   -q        quick: a tenth of the default
 *   -I        the guest runs under QEMU -icount shift=0: its clock counts
 *             instructions (1 ns = 1 instruction), so report the figure
 *             as insns_per_roundtrip
 *   -w        watched (sched_wait_block() v2 kernels only): a third
 *             thread keeps a waiter parked on the ping-pong, and the
 *             pre-wakes of both threads are read from the kernel, see
 *             below
 *
 * Watched mode measures how often sched_wait_block()'s pre-wake (a waiter
 * woken in sched_submit_work(), before the watched thread's __schedule())
 * is spurious, i.e. not followed by a block, in a workload that blocks and
 * wakes all the time.  The watcher loops
 *
 *	for (i = 0; ; i ^= 1)
 *		sched_wait_block(tid[i], NULL, 0, &count[i]);
 *
 * over the two threads.  It alternates because a call on a thread that is
 * blocked returns at once: a loop on one thread of a ping-pong would spin
 * for as long as that thread waits for the other.  When one thread blocks
 * the other holds the message and is runnable, so the watcher parks on
 * it: a waiter is queued at (nearly) every block of both threads.  With
 * -c same the watcher shares CPU 0; with -c cross it may use both CPUs
 * (pre-wakes put it on the CPU of the thread that blocks).  The figures
 * are the differences, over the timed round trips, of notify.blocks,
 * notify.prewakes and notify.prewakes_spurious of both threads
 * (/proc/<pid>/task/<tid>/sched), and the round-trip time with the
 * watcher.  A kernel without these lines gives no pre-wake figures.
 *
 * Output: BENCH,pipe,<same|cross>,ns_per_roundtrip,<x>
 *         (-I: insns_per_roundtrip)
 *         -w: BENCH,prewake,pipe-<same|cross>,{blocks,prewakes,spurious,
 *             spurious_pct,watcher_returns,ns_per_roundtrip},<x>
 */
#include "common.h"

#define WARMUP	200

static int pipe_a[2], pipe_b[2];
static long rounds;
static int cross, watched;
static atomic_int partner_tid, watcher_tid, stop;
static long watcher_returns;

static void xread(int fd)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	if (n != 1)
		die(n < 0 ? "read: %s" : "read: short read%s",
		    n < 0 ? strerror(errno) : "");
}

static void xwrite(int fd)
{
	char c = 'x';

	if (write(fd, &c, 1) != 1)
		die_errno("write");
}

static void *partner(void *arg)
{
	long i;

	pin_cpu(cross ? 1 : 0);
	atomic_store(&partner_tid, gettid_());
	for (i = 0; i < rounds + WARMUP; i++) {
		xread(pipe_a[0]);
		xwrite(pipe_b[1]);
	}
	/* Watched: stay until the main thread has read our counts. */
	if (watched)
		xread(pipe_a[0]);
	return NULL;
}

static void *watcher(void *arg)
{
	pid_t tid[2] = { getpid(), atomic_load(&partner_tid) };
	__u64 count[2] = { 0, 0 };
	int i;

	if (cross)
		pin_cpus(0, 2);
	else
		pin_cpu(0);
	atomic_store(&watcher_tid, gettid_());
	for (i = 0; !atomic_load(&stop); i ^= 1) {
		if (sched_wait_block_count(tid[i], NULL, 0, &count[i])) {
			/* The partner exits at the end. */
			if (errno == ESRCH && atomic_load(&stop))
				break;
			die_errno("sched_wait_block");
		}
		watcher_returns++;
	}
	return NULL;
}

/* Both threads' counts, summed; false if the kernel has no such lines. */
static bool read_notify(struct notify_stats *sum)
{
	pid_t tid[2] = { getpid(), atomic_load(&partner_tid) };
	struct notify_stats s;
	bool valid = true;
	int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < 2; i++) {
		if (!proc_notify(getpid(), tid[i], &s))
			die("pipe: thread %d gone", tid[i]);
		valid &= s.valid;
		sum->blocks += s.blocks;
		sum->prewakes += s.prewakes;
		sum->spurious += s.spurious;
	}
	return valid;
}

static void usage(void)
{
	die("usage: pipe [-q] [-I] [-w] [-c same|cross] [-n ROUNDTRIPS]");
}

int main(int argc, char **argv)
{
	struct notify_stats before, after;
	pthread_t thr, thr_w;
	int opt, err, quick = 0, icount = 0;
	long long t0, t1;
	long i, n_opt = 0;
	char variant[32];
	double per;

	while ((opt = getopt(argc, argv, "qIwc:n:")) != -1) {
		switch (opt) {
		case 'q':
			quick = 1;
			break;
		case 'I':
			icount = 1;
			break;
		case 'w':
			watched = 1;
			break;
		case 'c':
			cross = parse_cpus_opt(optarg);
			break;
		case 'n':
			n_opt = parse_long(optarg, "-n", 1);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	rounds = n_opt ? n_opt : (cross ? 2000 : 10000) / (quick ? 10 : 1);
	need_cpus(cross ? 2 : 1);
	if (pipe(pipe_a) || pipe(pipe_b))
		die_errno("pipe");
	pin_cpu(0);
	err = pthread_create(&thr, NULL, partner, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	if (watched) {
		while (!atomic_load(&partner_tid))
			sched_yield();
		err = pthread_create(&thr_w, NULL, watcher, NULL);
		if (err)
			die("pthread_create: %s", strerror(err));
	}

	/* The watcher has looked at both threads before the counts are read. */
	for (i = 0; i < WARMUP; i++) {
		xwrite(pipe_a[1]);
		xread(pipe_b[0]);
	}
	if (watched)
		read_notify(&before);
	t0 = now_ns();
	for (i = 0; i < rounds; i++) {
		xwrite(pipe_a[1]);
		xread(pipe_b[0]);
	}
	t1 = now_ns();
	per = (double)(t1 - t0) / rounds;
	if (watched) {
		bool valid = read_notify(&after);

		/* Release the partner; blocking in the joins frees the watcher. */
		atomic_store(&stop, 1);
		xwrite(pipe_a[1]);
		err = pthread_join(thr, NULL);
		if (!err)
			err = pthread_join(thr_w, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));

		snprintf(variant, sizeof(variant), "pipe-%s",
			 cross ? "cross" : "same");
		after.blocks -= before.blocks;
		after.prewakes -= before.prewakes;
		after.spurious -= before.spurious;
		printf("pipe %s, watched: %ld round trips in %.3f s; %lld blocks, "
		       "%lld pre-wakes, %lld spurious, %ld watcher returns\n",
		       cross ? "cross" : "same", rounds, (t1 - t0) / 1e9,
		       after.blocks, after.prewakes, after.spurious,
		       watcher_returns);
		if (valid) {
			bench_print("prewake", variant, "blocks", after.blocks);
			bench_print("prewake", variant, "prewakes", after.prewakes);
			bench_print("prewake", variant, "spurious", after.spurious);
			if (after.prewakes)
				bench_print("prewake", variant, "spurious_pct",
					    100.0 * after.spurious / after.prewakes);
		} else {
			fprintf(stderr, "pipe: no notify.* lines in "
				"/proc/<pid>/task/<tid>/sched: no pre-wake figures\n");
		}
		bench_print("prewake", variant, "watcher_returns", watcher_returns);
		bench_print("prewake", variant, "ns_per_roundtrip", per);
		return 0;
	}
	err = pthread_join(thr, NULL);
	if (err)
		die("pthread_join: %s", strerror(err));

	printf("pipe %s: %ld round trips in %.3f s%s\n", cross ? "cross" : "same",
	       rounds, (t1 - t0) / 1e9,
	       icount ? " of guest time (-I: instructions / 1e9)" : "");
	bench_print("pipe", cross ? "cross" : "same",
		    icount ? "insns_per_roundtrip" : "ns_per_roundtrip", per);
	return 0;
}
