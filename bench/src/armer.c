// SPDX-License-Identifier: GPL-2.0
/*
 * armer: hold the kernel in the "armed" state of sched_wait_block() at
 * near-zero CPU cost, so that the scheduler benchmarks (pipe, hackbench)
 * can be run with the feature's static key enabled.
 *
 * W waiter threads loop on sched_wait_block(child, NULL, 0) on a child
 * process that must never block; a waiter on a blocked task returns at
 * once, so the child has to stay runnable.  It spins, but is starved of
 * CPU by cgroup v2 CPU bandwidth: it lives in a cgroup with cpu.max
 * "1000 1000000" (1 ms per second).  cgroup2 is mounted on
 * /sys/fs/cgroup if need be, +cpu is enabled in the root's
 * subtree_control and the group /sys/fs/cgroup/swb-armer.<pid> is
 * created (and removed on exit).
 *
 * Without CONFIG_CFS_BANDWIDTH there is no cpu.max: the armer then
 * exits 2, unless -f is given; -f (fallback, for functional tests only)
 * runs the child at SCHED_IDLE and nice 19 instead, where it still eats
 * all otherwise-idle CPU time, which skews measurements.
 *
 * Once every waiter sleeps in the call (state S in
 * /proc/self/task/<tid>/stat) the armer prints "ARMED" and waits for
 * SIGTERM/SIGINT or the end of -t SECONDS; then it kills the child,
 * reports how many times the waiters returned before that (expected: 0
 * with the cgroup; a return means the child blocked, e.g. on a page
 * fault) and exits 0.
 *
 * In the second version of the series the static key is held by each
 * watched task (a task somebody called sched_wait_block() on), from the
 * first call until the task is freed, plus one second; the waiters no
 * longer matter to it.  So the armed state lasts as long as the child
 * exists, and the armer reaps the child (waitpid()) before it lets its
 * waiters go and exits: once the armer has exited, the child is gone
 * and the key goes off a second later, after an RCU grace period.
 *
 *   -w W      waiter threads (default 4)
 *   -t S      run for S seconds (default: until killed)
 *   -f        fallback: SCHED_IDLE child instead of the cgroup
 *   -q        quick: -t 2 unless -t is given
 *
 * Output at exit: BENCH,armer,<cgroup|idle>,waiter_returns,<n>
 */
#include "common.h"
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define CG_ROOT		"/sys/fs/cgroup"
#define CPU_MAX		"1000 1000000"
#define MAX_WAITERS	64

static pid_t child;
static atomic_long returns;
static atomic_int killing;		/* returns from now on are the kill's */
static atomic_int waiter_errno;
static atomic_int tids[MAX_WAITERS];
static char cg_dir[128];

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	if (close(fd) || n != (ssize_t)strlen(s))
		return -1;
	return 0;
}

static bool file_has_word(const char *path, const char *word)
{
	char buf[512], *tok, *save;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

/* Put the child into a cpu.max-limited cgroup; 2 if unsupported. */
static int throttle_child_cgroup(void)
{
	char path[192], buf[32];

	if (access(CG_ROOT "/cgroup.controllers", F_OK)) {
		mkdir(CG_ROOT, 0755);
		if (mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
			die_errno("mount cgroup2 on " CG_ROOT);
	}
	if (!file_has_word(CG_ROOT "/cgroup.controllers", "cpu")) {
		fprintf(stderr, "armer: no cpu controller in " CG_ROOT
			"/cgroup.controllers: kernel without CONFIG_CGROUP_SCHED/"
			"CONFIG_CFS_BANDWIDTH? (-f: SCHED_IDLE fallback)\n");
		return 2;
	}
	if (!file_has_word(CG_ROOT "/cgroup.subtree_control", "cpu") &&
	    write_file(CG_ROOT "/cgroup.subtree_control", "+cpu"))
		die_errno("enable +cpu in " CG_ROOT "/cgroup.subtree_control");
	snprintf(cg_dir, sizeof(cg_dir), CG_ROOT "/swb-armer.%d", getpid());
	if (mkdir(cg_dir, 0755))
		die_errno(cg_dir);
	snprintf(path, sizeof(path), "%s/cpu.max", cg_dir);
	if (access(path, F_OK)) {
		fprintf(stderr, "armer: %s missing: kernel without "
			"CONFIG_CFS_BANDWIDTH (-f: SCHED_IDLE fallback)\n", path);
		rmdir(cg_dir);
		cg_dir[0] = '\0';
		return 2;
	}
	if (write_file(path, CPU_MAX))
		die_errno(path);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
	snprintf(buf, sizeof(buf), "%d", child);
	if (write_file(path, buf))
		die_errno(path);
	return 0;
}

static void throttle_child_idle(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(child, SCHED_IDLE, &sp))
		die_errno("sched_setscheduler(SCHED_IDLE)");
	if (setpriority(PRIO_PROCESS, child, 19))
		die_errno("setpriority");
}

static void cleanup(void)
{
	atomic_store(&killing, 1);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	if (cg_dir[0] && rmdir(cg_dir))
		fprintf(stderr, "armer: rmdir %s: %s\n", cg_dir, strerror(errno));
	cg_dir[0] = '\0';
}

static void *waiter(void *arg)
{
	atomic_int *tid = arg;

	atomic_store(tid, gettid_());
	for (;;) {
		if (sched_wait_block(child, NULL, 0) == 0) {
			/* A block inside do_exit() is a block too (v2). */
			if (!atomic_load(&killing))
				atomic_fetch_add(&returns, 1);
			continue;
		}
		if (errno != ESRCH)	/* ESRCH: the child was killed */
			atomic_store(&waiter_errno, errno);
		return NULL;
	}
}

/* Wait until every waiter sleeps (state S); false after 30 s. */
static bool waiters_parked(int nr)
{
	long long deadline = now_ns() + 30 * NSEC_PER_SEC;
	int i, fd;

	for (i = 0; i < nr; i++) {
		while (!atomic_load(&tids[i]))
			usleep(1000);
		fd = proc_stat_open(atomic_load(&tids[i]));
		while (proc_state(fd) != 'S') {
			if (atomic_load(&waiter_errno) || now_ns() > deadline) {
				close(fd);
				return false;
			}
			usleep(1000);
		}
		close(fd);
	}
	return true;
}

static void usage(void)
{
	die("usage: armer [-q] [-f] [-w WAITERS] [-t SECONDS]");
}

int main(int argc, char **argv)
{
	int opt, i, nr = 4, fallback = 0, quick = 0, sig, err, ret;
	pthread_t thr[MAX_WAITERS];
	struct timespec ts = { 0 };
	long secs = -1;
	sigset_t set;

	while ((opt = getopt(argc, argv, "qfw:t:")) != -1) {
		switch (opt) {
		case 'q':
			quick = 1;
			break;
		case 'f':
			fallback = 1;
			break;
		case 'w':
			nr = parse_long(optarg, "-w", 1);
			if (nr > MAX_WAITERS)
				die("-w: at most %d", MAX_WAITERS);
			break;
		case 't':
			secs = parse_long(optarg, "-t", 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (quick && secs < 0)
		secs = 2;

	/* Signals are taken by sigtimedwait() below, never by the waiters. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		die("pthread_sigmask");

	child = fork();
	if (child < 0)
		die_errno("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			;	/* runnable forever, never blocks */
	}
	if (fallback) {
		throttle_child_idle();
	} else {
		ret = throttle_child_cgroup();
		if (ret) {
			cleanup();
			return ret;
		}
	}

	for (i = 0; i < nr; i++) {
		err = pthread_create(&thr[i], NULL, waiter, &tids[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	if (!waiters_parked(nr)) {
		err = atomic_load(&waiter_errno);
		cleanup();
		die("armer: waiters did not park: %s",
		    err ? strerror(err) : "timeout");
	}
	printf("ARMED %d waiters on pid %d (%s)\n", nr, child,
	       fallback ? "SCHED_IDLE fallback" : "cgroup cpu.max " CPU_MAX);
	fflush(stdout);

	ts.tv_sec = secs;
	do {
		sig = sigtimedwait(&set, NULL, secs >= 0 ? &ts : NULL);
	} while (sig < 0 && errno == EINTR);
	if (sig < 0 && errno != EAGAIN)
		die_errno("sigtimedwait");

	cleanup();
	for (i = 0; i < nr; i++) {
		err = pthread_join(thr[i], NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	err = atomic_load(&waiter_errno);
	if (err)
		die("armer: sched_wait_block: %s", strerror(err));
	printf("armer: %s after %ld waiter returns\n",
	       sig > 0 ? "signalled" : "timed out", atomic_load(&returns));
	bench_print("armer", fallback ? "idle" : "cgroup", "waiter_returns",
		    atomic_load(&returns));
	return 0;
}
