// SPDX-License-Identifier: GPL-2.0
/*
 * Ingo's lazy user-space scheduler: a thread pool that starts a spare
 * worker only when every worker is blocked, told so by a watch fd
 * (sched_watch_open(), SCHED_WATCH_ALL_BLOCKED), against a sysmon-style
 * poller that looks every 20 us or every 10 ms, as Go's runtime does.
 *
 * W workers (-w, default 4) run E episodes (-e, default 200).  In an
 * episode each worker computes for a random 0..200 us, marks itself "in
 * I/O" (the flag a runtime sets when it enters a system call, and the
 * time it did) and blocks for 2 ms in clock_nanosleep() (its I/O).  While
 * all W are in I/O the pool has work (a queue the W cannot serve), so the
 * manager should start the spare: a thread parked on a futex, which takes
 * the time it starts, does one item and parks again.
 *
 *   watch  the manager sleeps in read(2) on a watch fd watching the W
 *          workers; on an ALL_BLOCKED record it checks the "in I/O" flags
 *          (the fd also says ALL_BLOCKED when they wait for the next
 *          episode) and starts the spare.
 *   lazy   the same on a SCHED_WATCH_LAZY fd: read(2) returns only at
 *          ALL_BLOCKED (or an EXIT, or a half-full buffer), not at every
 *          block and wakeup of a worker.
 *   poll20us, poll10ms
 *          the manager sleeps 20 us or 10 ms (absolute ticks), then
 *          checks the flags, and starts the spare if all W are in I/O.
 *
 * Time to react: from the last worker's "in I/O" time to the spare's
 * start, per episode in which the spare started; an episode whose I/O
 * ended before the manager noticed is "missed" (the pool lost the chance
 * to run the queued work).  CPU: the manager thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) as a share of the run's wall time.
 *
 * Exit status: 0 when the demo ran, 1 when a call fails that should not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched/watch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Built against the patched kernel's headers (make run does) */
#ifndef __NR_sched_watch_open
#error "__NR_sched_watch_open undefined: build with -isystem build/obj/usr/include"
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* <linux/pidfd.h> clashes with <fcntl.h> */
#endif

#define NSEC_PER_USEC	1000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL
#define IO_NS		(2 * NSEC_PER_MSEC)
#define MAX_WORKERS	64

enum strategy { S_WATCH, S_LAZY, S_POLL20US, S_POLL10MS, NR_STRATEGIES };
static const char *const names[] = { "watch", "lazy", "poll20us", "poll10ms" };
static const long long poll_ns[] = { 0, 0, 20 * NSEC_PER_USEC, 10 * NSEC_PER_MSEC };
#define IS_WATCH(s)	((s) == S_WATCH || (s) == S_LAZY)

static int nr_workers = 4, nr_episodes = 200;

static struct {
	atomic_int episode;		/* released by the driver */
	atomic_int done;		/* workers done with the episode */
	atomic_int in_io;		/* workers in their I/O now */
	atomic_llong last_io_ns;	/* when the last one went in */
	atomic_int spare_go;		/* episode the spare is started for */
	atomic_int spare_done;		/* episode the spare finished */
	atomic_llong spare_start_ns;
	atomic_int stop;
	atomic_int tids[MAX_WORKERS];
} pool;

static void die(const char *what)
{
	fprintf(stderr, "lazy_pool: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void futex_wait(atomic_int *a, int v)
{
	if (syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0) &&
	    errno != EAGAIN && errno != EINTR)
		die("futex_wait");
}

static void futex_wake(atomic_int *a)
{
	if (syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0) < 0)
		die("futex_wake");
}

static void spin_ns(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg * 7919 + 1;
	int i = (int)(long)arg, e = 0, v;
	struct timespec io = { .tv_nsec = IO_NS };
	long long t, old;

	atomic_store(&pool.tids[i], syscall(SYS_gettid));
	for (;;) {
		while ((v = atomic_load(&pool.episode)) == e)
			futex_wait(&pool.episode, v);
		e = v;
		if (atomic_load(&pool.stop))
			return NULL;
		spin_ns(rand_r(&seed) % (200 * NSEC_PER_USEC));
		/* Enter "I/O": the latest time of the episode stays */
		t = now_ns();
		old = atomic_load(&pool.last_io_ns);
		while (old < t &&
		       !atomic_compare_exchange_weak(&pool.last_io_ns, &old, t))
			;
		atomic_fetch_add(&pool.in_io, 1);
		nanosleep(&io, NULL);
		atomic_fetch_sub(&pool.in_io, 1);
		atomic_fetch_add(&pool.done, 1);
		futex_wake(&pool.done);
	}
}

static void *spare(void *arg)
{
	int e = 0, v;

	for (;;) {
		while ((v = atomic_load(&pool.spare_go)) == e)
			futex_wait(&pool.spare_go, v);
		e = v;
		if (atomic_load(&pool.stop))
			return NULL;
		atomic_store(&pool.spare_start_ns, now_ns());
		spin_ns(50 * NSEC_PER_USEC);		/* one queued item */
		atomic_store(&pool.spare_done, e);
		futex_wake(&pool.spare_done);
	}
}

/* Start the spare for the current episode if every worker is in I/O. */
static void maybe_start_spare(void)
{
	int e = atomic_load(&pool.episode);

	if (atomic_load(&pool.in_io) == nr_workers &&
	    atomic_load(&pool.spare_go) != e) {
		atomic_store(&pool.spare_go, e);
		futex_wake(&pool.spare_go);
	}
}

static enum strategy strategy;
static int watch_fd = -1;
static atomic_llong manager_cpu_ns;
static long manager_looks;		/* reads returned, or poll ticks */

static void *manager(void *arg)
{
	struct timespec cpu, tick;
	long long next = now_ns();

	while (!atomic_load(&pool.stop)) {
		if (IS_WATCH(strategy)) {
			struct sched_watch_event ev[64];
			ssize_t n = read(watch_fd, ev, sizeof(ev));
			int i;

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				die("read watch fd");
			manager_looks++;
			for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
				if (ev[i].type == SCHED_WATCH_ALL_BLOCKED)
					maybe_start_spare();
		} else {
			next += poll_ns[strategy];
			tick.tv_sec = next / NSEC_PER_SEC;
			tick.tv_nsec = next % NSEC_PER_SEC;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
			manager_looks++;
			maybe_start_spare();
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	atomic_store(&manager_cpu_ns, cpu.tv_sec * NSEC_PER_SEC + cpu.tv_nsec);
	return NULL;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int run(enum strategy s)
{
	pthread_t w[MAX_WORKERS], sp, mg;
	long long *react, t, wall;
	int i, e, nr = 0, missed = 0;

	memset(&pool, 0, sizeof(pool));
	manager_looks = 0;
	strategy = s;
	react = calloc(nr_episodes, sizeof(*react));
	if (!react)
		die("calloc");
	for (i = 0; i < nr_workers; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)(long)i))
			die("pthread_create");
	if (pthread_create(&sp, NULL, spare, NULL))
		die("pthread_create");
	for (i = 0; i < nr_workers; i++)
		while (!atomic_load(&pool.tids[i]))
			sched_yield();

	if (IS_WATCH(s)) {
		struct sched_watch_attr attr = {
			.flags = s == S_LAZY ? SCHED_WATCH_LAZY : 0,
		};

		watch_fd = syscall(__NR_sched_watch_open, &attr, sizeof(attr));
		if (watch_fd < 0)
			die("sched_watch_open");
		for (i = 0; i < nr_workers; i++) {
			struct sched_watch_target tg = { .flags = 0 };

			tg.pidfd = syscall(SYS_pidfd_open, pool.tids[i], PIDFD_THREAD);
			if (tg.pidfd < 0)
				die("pidfd_open");
			if (ioctl(watch_fd, SCHED_WATCH_IOC_ADD, &tg))
				die("SCHED_WATCH_IOC_ADD");
			close(tg.pidfd);
		}
	}
	if (pthread_create(&mg, NULL, manager, NULL))
		die("pthread_create");

	t = now_ns();
	for (e = 1; e <= nr_episodes; e++) {
		int d;

		atomic_store(&pool.done, 0);
		atomic_store(&pool.last_io_ns, 0);
		atomic_store(&pool.episode, e);
		futex_wake(&pool.episode);
		while ((d = atomic_load(&pool.done)) < nr_workers)
			futex_wait(&pool.done, d);
		if (atomic_load(&pool.spare_go) == e) {
			int sd;

			while ((sd = atomic_load(&pool.spare_done)) != e)
				futex_wait(&pool.spare_done, sd);
			react[nr++] = atomic_load(&pool.spare_start_ns) -
				      atomic_load(&pool.last_io_ns);
		} else {
			missed++;
		}
	}
	wall = now_ns() - t;

	atomic_store(&pool.stop, 1);
	atomic_fetch_add(&pool.episode, 1);
	futex_wake(&pool.episode);
	atomic_fetch_add(&pool.spare_go, 1);
	futex_wake(&pool.spare_go);
	if (IS_WATCH(s)) {
		/* The workers exit: EXIT records and ALL_BLOCKED end the read */
		for (i = 0; i < nr_workers; i++)
			pthread_join(w[i], NULL);
		pthread_join(mg, NULL);
		close(watch_fd);
	} else {
		for (i = 0; i < nr_workers; i++)
			pthread_join(w[i], NULL);
		pthread_join(mg, NULL);
	}
	pthread_join(sp, NULL);

	qsort(react, nr, sizeof(*react), cmp_ll);
	printf("%-9s %4d/%-4d %10.1f %10.1f %10.1f %7d %8.2f%% %9.0f\n", names[s],
	       nr, nr_episodes,
	       nr ? react[nr / 2] / 1000.0 : 0.0,
	       nr ? react[(nr * 99 + 99) / 100 - 1] / 1000.0 : 0.0,
	       nr ? react[nr - 1] / 1000.0 : 0.0, missed,
	       100.0 * atomic_load(&manager_cpu_ns) / wall,
	       manager_looks / (wall / 1e9));
	free(react);
	return 0;
}

int main(int argc, char **argv)
{
	struct sched_watch_attr probe = { .flags = 0 };
	int opt, fd;

	while ((opt = getopt(argc, argv, "w:e:")) != -1) {
		switch (opt) {
		case 'w':
			nr_workers = atoi(optarg);
			break;
		case 'e':
			nr_episodes = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: lazy_pool [-w WORKERS] [-e EPISODES]\n");
			return 1;
		}
	}
	if (nr_workers < 1 || nr_workers > MAX_WORKERS || nr_episodes < 1) {
		fprintf(stderr, "lazy_pool: 1..%d workers, >= 1 episode\n",
			MAX_WORKERS);
		return 1;
	}
	fd = syscall(__NR_sched_watch_open, &probe, sizeof(probe));
	if (fd < 0) {
		perror("lazy_pool: sched_watch_open");
		return 1;
	}
	close(fd);

	printf("lazy_pool: %d workers, %d episodes of 0-200 us compute + 2 ms "
	       "I/O each;\nthe spare starts when all %d are in I/O.\n\n",
	       nr_workers, nr_episodes, nr_workers);
	printf("%-9s %9s %10s %10s %10s %7s %9s %9s\n", "manager", "started",
	       "p50 (us)", "p99 (us)", "max (us)", "missed", "CPU", "looks/s");
	for (int s = 0; s < NR_STRATEGIES; s++)
		run(s);
	printf("\nstarted: episodes in which the spare ran while all workers "
	       "were in I/O;\np50/p99/max: from the last worker entering I/O "
	       "to the spare running;\nmissed: episodes whose I/O ended "
	       "before the manager looked;\nCPU: the manager thread's CPU "
	       "time / wall time; looks/s: the manager's reads that returned, "
	       "or its poll ticks, per second.\n");
	return 0;
}
