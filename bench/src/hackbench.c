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
 *
 * Output: BENCH,hackbench,g<G>[-threads][-pipe],seconds,<x>
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
	bool sender;
	int fd;				/* receiver: its read end */
	int *out;			/* sender: the group's write ends */
};

static int nr_groups = 1, loops = 50, use_threads, use_pipes;
static int ready_pipe[2], go_pipe[2];

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

static void *task_fn(void *arg)
{
	struct task *t = arg;

	if (t->sender)
		do_sender(t);
	else
		do_receiver(t);
	return NULL;
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
		close(go_pipe[1]);	/* only the parent may hold it */
		task_fn(t);
		_exit(0);
	}
}

static void usage(void)
{
	die("usage: hackbench [-q] [-g GROUPS] [-l LOOPS] [-T] [-P]");
}

int main(int argc, char **argv)
{
	int nr_tasks, g, i, opt, failed = 0, err;
	struct task *tasks;
	long long t0, t1;
	char variant[64];

	while ((opt = getopt(argc, argv, "qg:l:TP")) != -1) {
		switch (opt) {
		case 'q':
			loops = 10;
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
	if (pipe(ready_pipe) || pipe(go_pipe))
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
	t0 = now_ns();
	close(go_pipe[1]);

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
	t1 = now_ns();
	if (failed)
		die("hackbench: %d tasks failed", failed);

	snprintf(variant, sizeof(variant), "g%d%s%s", nr_groups,
		 use_threads ? "-threads" : "", use_pipes ? "-pipe" : "");
	printf("hackbench: %d groups, %d %s, %d loops, %s: %.3f s\n",
	       nr_groups, nr_tasks, use_threads ? "threads" : "processes",
	       loops, use_pipes ? "pipes" : "socketpairs", (t1 - t0) / 1e9);
	bench_print("hackbench", variant, "seconds", (t1 - t0) / 1e9);
	return 0;
}
