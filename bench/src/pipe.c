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
 *
 * Output: BENCH,pipe,<same|cross>,ns_per_roundtrip,<x>
 */
#include "common.h"

#define WARMUP	200

static int pipe_a[2], pipe_b[2];
static long rounds;
static int cross;

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
	for (i = 0; i < rounds + WARMUP; i++) {
		xread(pipe_a[0]);
		xwrite(pipe_b[1]);
	}
	return NULL;
}

static void usage(void)
{
	die("usage: pipe [-q] [-c same|cross] [-n ROUNDTRIPS]");
}

int main(int argc, char **argv)
{
	long long t0, t1;
	pthread_t thr;
	int opt, err, quick = 0;
	long i, n_opt = 0;

	while ((opt = getopt(argc, argv, "qc:n:")) != -1) {
		switch (opt) {
		case 'q':
			quick = 1;
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

	for (i = 0; i < WARMUP; i++) {
		xwrite(pipe_a[1]);
		xread(pipe_b[0]);
	}
	t0 = now_ns();
	for (i = 0; i < rounds; i++) {
		xwrite(pipe_a[1]);
		xread(pipe_b[0]);
	}
	t1 = now_ns();
	err = pthread_join(thr, NULL);
	if (err)
		die("pthread_join: %s", strerror(err));

	printf("pipe %s: %ld round trips in %.3f s\n", cross ? "cross" : "same",
	       rounds, (t1 - t0) / 1e9);
	bench_print("pipe", cross ? "cross" : "same", "ns_per_roundtrip",
		    (double)(t1 - t0) / rounds);
	return 0;
}
