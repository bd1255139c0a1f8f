// SPDX-License-Identifier: GPL-2.0
/*
 * hackbench: many tasks passing small messages, after hackbench and
 * "perf bench sched messaging".
 *
 * G groups of 20 senders and 20 receivers.  Each receiver owns one
 * channel (a socketpair, or a pipe with -P); every sender of a group
 * writes L messages of 100 bytes to every receiver of its group, and
 * every receiver reads 20 * L messages.  All tasks start together after
 * a ready/go handshake; the figure is the wall time from "go" until the
 * last task has finished.  Hundreds of tasks block and wake all the
 * time, with many runnable at once, so the figure weighs the block path
 * of schedule(), wakeups and load balancing.
 *
 *   -g G      groups (default 1)
 *   -l L      messages per sender per receiver (default 50; 100, as perf
 *             bench, took 1.7-5 s for g1 in the TCG debug guest)
 *   -T        threads instead of processes
 *   -P        pipes instead of socketpairs
 *   -q        quick: L = 10
 *   -I        the guest runs under QEMU -icount shift=0 (1 ns of guest
 *             time = 1 instruction): report instructions per message
 *             (G * 20 * 20 * L messages) instead of seconds
 *   -w        watched (sched_wait_block() v2 kernels only): a watcher
 *             thread in the parent keeps a waiter parked on the tasks,
 *             and their pre-wakes are read from the kernel
 *
 * Watched mode: the watcher loops over all tasks,
 *
 *	for (i = 0; ; i = (i + 1) % nr_tasks)
 *		sched_wait_block(tid[i], NULL, 0, NULL);
 *
 * A call on a blocked task returns at once, a call on a running or
 * runnable one parks until that task blocks, so a waiter sits on one of
 * the tasks that run, which then pre-wakes it as it blocks.  In this mode
 * every task, when done, reports to the parent and waits for its release,
 * so that the parent can read notify.blocks, notify.prewakes and
 * notify.prewakes_spurious of every task (/proc/<pid>/task/<tid>/sched)
 * before they exit; the time is taken when the last one reported.
 *
 * Output: BENCH,hackbench,g<G>[-threads][-pipe],seconds,<x>
 *         (-I: insns_per_msg)
 *         -w: BENCH,prewake,hackbench-g<G>[-threads][-pipe],{blocks,
 *             prewakes,spurious,spurious_pct,watcher_returns,seconds},<x>
 */
#include "common.h"
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define TASKS_PER_GROUP	20
#define MSG_SIZE	100

struct task {
	pthread_t thr;
	pid_t pid;
	atomic_int tid;			/* threads: the thread's ID */
	bool sender;
	int fd;				/* receiver: its read end */
	int *out;			/* sender: the group's write ends */
};

static int nr_groups = 1, loops = 50, use_threads, use_pipes, watched;
static int ready_pipe[2], go_pipe[2], done_pipe[2], quit_pipe[2];
static struct task *tasks;
static int nr_tasks;
static atomic_int stop;
static long watcher_returns;

/* Tell the parent we are ready and wait for its "go" (go_pipe closed). */
static void ready_and_wait(void)
{
	struct pollfd pfd = { .fd = go_pipe[0], .events = POLLIN };
	char c = 'r';

	if (write(ready_pipe[1], &c, 1) != 1)
		die_errno("write ready");
	if (poll(&pfd, 1, -1) != 1)
		die_errno("poll go");
}

static void do_sender(struct task *t)
{
	char buf[MSG_SIZE];
	int i, j;

	memset(buf, 's', sizeof(buf));
	ready_and_wait();
	for (i = 0; i < loops; i++) {
		for (j = 0; j < TASKS_PER_GROUP; j++) {
			size_t done = 0;

			while (done < sizeof(buf)) {
				ssize_t n = write(t->out[j], buf + done,
						  sizeof(buf) - done);

				if (n < 0)
					die_errno("sender write");
				done += n;
			}
		}
	}
}

static void do_receiver(struct task *t)
{
	size_t left = (size_t)TASKS_PER_GROUP * loops * MSG_SIZE;
	char buf[MSG_SIZE];

	ready_and_wait();
	while (left) {
		ssize_t n = read(t->fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0)
			die_errno("receiver read");
		if (n == 0)
			die("receiver: unexpected EOF");
		left -= n;
	}
}

/* Watched: report "done" and wait until the parent read our counts. */
static void done_and_wait(void)
{
	struct pollfd pfd = { .fd = quit_pipe[0], .events = POLLIN };
	char c = 'd';

	if (write(done_pipe[1], &c, 1) != 1)
		die_errno("write done");
	if (poll(&pfd, 1, -1) != 1)
		die_errno("poll quit");
}

static void *task_fn(void *arg)
{
	struct task *t = arg;

	atomic_store(&t->tid, gettid_());
	if (t->sender)
		do_sender(t);
	else
		do_receiver(t);
	if (watched)
		done_and_wait();
	return NULL;
}

static pid_t task_tid(struct task *t)
{
	return use_threads ? atomic_load(&t->tid) : t->pid;
}

static void *watcher(void *arg)
{
	int i;

	for (i = 0; !atomic_load(&stop); i = (i + 1) % nr_tasks) {
		if (sched_wait_block(task_tid(&tasks[i]), NULL, 0))
			die_errno("sched_wait_block");
		watcher_returns++;
	}
	return NULL;
}

/* Every task's counts, summed; false if the kernel has no such lines. */
static bool read_notify(struct notify_stats *sum)
{
	struct notify_stats s;
	bool valid = true;
	int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < nr_tasks; i++) {
		pid_t tid = task_tid(&tasks[i]);

		if (!proc_notify(use_threads ? getpid() : tid, tid, &s))
			die("hackbench: task %d gone", tid);
		valid &= s.valid;
		sum->blocks += s.blocks;
		sum->prewakes += s.prewakes;
		sum->spurious += s.spurious;
	}
	return valid;
}

static void start_task(struct task *t)
{
	int err;

	if (use_threads) {
		err = pthread_create(&t->thr, NULL, task_fn, t);
		if (err)
			die("pthread_create: %s", strerror(err));
		return;
	}
	t->pid = fork();
	if (t->pid < 0)
		die_errno("fork");
	if (t->pid == 0) {
		close(go_pipe[1]);	/* only the parent may hold them */
		if (watched)
			close(quit_pipe[1]);
		task_fn(t);
		_exit(0);
	}
}

static void usage(void)
{
	die("usage: hackbench [-q] [-I] [-w] [-g GROUPS] [-l LOOPS] [-T] [-P]");
}

int main(int argc, char **argv)
{
	int g, i, opt, failed = 0, err, icount = 0;
	struct notify_stats before, after;
	bool valid = false;
	pthread_t thr_w;
	long long t0, t1 = 0;
	char variant[64];

	while ((opt = getopt(argc, argv, "qIwg:l:TP")) != -1) {
		switch (opt) {
		case 'q':
			loops = 10;
			break;
		case 'I':
			icount = 1;
			break;
		case 'w':
			watched = 1;
			break;
		case 'g':
			nr_groups = parse_long(optarg, "-g", 1);
			break;
		case 'l':
			loops = parse_long(optarg, "-l", 1);
			break;
		case 'T':
			use_threads = 1;
			break;
		case 'P':
			use_pipes = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	nr_tasks = nr_groups * 2 * TASKS_PER_GROUP;
	tasks = calloc(nr_tasks, sizeof(*tasks));
	if (!tasks)
		die("out of memory");
	if (pipe(ready_pipe) || pipe(go_pipe) || pipe(done_pipe) ||
	    pipe(quit_pipe))
		die_errno("pipe");

	for (g = 0; g < nr_groups; g++) {
		struct task *grp = tasks + g * 2 * TASKS_PER_GROUP;
		int *out = calloc(TASKS_PER_GROUP, sizeof(int));

		if (!out)
			die("out of memory");
		for (i = 0; i < TASKS_PER_GROUP; i++) {
			int fds[2];

			if (use_pipes ? pipe(fds) :
			    socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
				die_errno(use_pipes ? "pipe" : "socketpair");
			grp[i].fd = fds[0];
			out[i] = fds[1];
		}
		for (i = 0; i < TASKS_PER_GROUP; i++) {
			grp[TASKS_PER_GROUP + i].sender = true;
			grp[TASKS_PER_GROUP + i].out = out;
		}
		for (i = 0; i < 2 * TASKS_PER_GROUP; i++)
			start_task(&grp[i]);
	}

	/* Wait until every task is ready, then release them all at once. */
	for (i = 0; i < nr_tasks; i++) {
		char c;

		if (read(ready_pipe[0], &c, 1) != 1)
			die_errno("read ready");
	}
	if (watched) {
		/* Before anybody watches them: no counts yet, or old ones. */
		read_notify(&before);
		err = pthread_create(&thr_w, NULL, watcher, NULL);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	t0 = now_ns();
	close(go_pipe[1]);

	if (watched) {
		for (i = 0; i < nr_tasks; i++) {
			char c;

			if (read(done_pipe[0], &c, 1) != 1)
				die_errno("read done");
		}
		t1 = now_ns();
		/* Every task blocks in poll() now, which ends the watcher's call. */
		atomic_store(&stop, 1);
		err = pthread_join(thr_w, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
		valid = read_notify(&after);
		close(quit_pipe[1]);
	}

	for (i = 0; i < nr_tasks; i++) {
		if (use_threads) {
			err = pthread_join(tasks[i].thr, NULL);
			if (err)
				die("pthread_join: %s", strerror(err));
		} else {
			int status;

			if (waitpid(tasks[i].pid, &status, 0) < 0)
				die_errno("waitpid");
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed++;
		}
	}
	if (!watched)
		t1 = now_ns();
	if (failed)
		die("hackbench: %d tasks failed", failed);

	snprintf(variant, sizeof(variant), "g%d%s%s", nr_groups,
		 use_threads ? "-threads" : "", use_pipes ? "-pipe" : "");
	printf("hackbench: %d groups, %d %s, %d loops, %s: %.3f s%s\n",
	       nr_groups, nr_tasks, use_threads ? "threads" : "processes",
	       loops, use_pipes ? "pipes" : "socketpairs", (t1 - t0) / 1e9,
	       icount ? " of guest time (-I: instructions / 1e9)" :
	       watched ? ", watched" : "");
	if (watched) {
		char pv[80];

		snprintf(pv, sizeof(pv), "hackbench-%s", variant);
		after.blocks -= before.blocks;
		after.prewakes -= before.prewakes;
		after.spurious -= before.spurious;
		printf("hackbench: %lld blocks, %lld pre-wakes, %lld spurious, "
		       "%ld watcher returns\n", after.blocks, after.prewakes,
		       after.spurious, watcher_returns);
		if (valid) {
			bench_print("prewake", pv, "blocks", after.blocks);
			bench_print("prewake", pv, "prewakes", after.prewakes);
			bench_print("prewake", pv, "spurious", after.spurious);
			if (after.prewakes)
				bench_print("prewake", pv, "spurious_pct",
					    100.0 * after.spurious / after.prewakes);
		} else {
			fprintf(stderr, "hackbench: no notify.* lines in "
				"/proc/<pid>/task/<tid>/sched: no pre-wake figures\n");
		}
		bench_print("prewake", pv, "watcher_returns", watcher_returns);
		bench_print("prewake", pv, "seconds", (t1 - t0) / 1e9);
	} else if (icount) {
		bench_print("hackbench", variant, "insns_per_msg",
			    (double)(t1 - t0) / ((double)nr_groups *
			    TASKS_PER_GROUP * TASKS_PER_GROUP * loops));
	} else {
		bench_print("hackbench", variant, "seconds", (t1 - t0) / 1e9);
	}
	return 0;
}
