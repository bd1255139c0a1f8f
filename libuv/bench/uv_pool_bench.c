/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uv_pool_bench: libuv's thread pool (uv_queue_work) under a mix of
 * CPU-bound and blocking work items, for UV_THREADPOOL_POLICY and
 * UV_THREADPOOL_SIZE set by the caller (libuv/guest-bench.sh).
 *
 *   uv_pool_bench LABEL SCENARIO [CPU_ITEMS]
 *
 * Work items:
 *   cpu     computation until the worker thread has used CPU_US (5000) us
 *           of CPU time (CLOCK_THREAD_CPUTIME_ID, read every few us of
 *           work): the same work whatever the emulated CPU's speed, which
 *           varies too much under emulation for a calibrated loop count;
 *   disk    a read that waits for the device: clock_nanosleep() of
 *           DISK_US (10000) us, since the guest has no disk whose page
 *           cache could be dropped;
 *   lookup  a getaddrinfo()-like request to a local resolver (nscd-style,
 *           over an AF_UNIX datagram socket: the guest kernel has no
 *           TCP/IP), whose thread answers after LOOKUP_US (20000) us.
 *
 * Scenarios:
 *   mixed   BLOCKERS (16) blocking items are kept in flight (as many disk
 *           as lookup ones; each completion queues the next), while cpu
 *           items arrive from a timer at 50 % of what the CPUs can do, up
 *           to CPU_ITEMS (default 300);
 *   burst   CPU_ITEMS (default 100) cpu items queued at once, nothing else;
 *   stall   4 items block for STALL_US (200000) us, the whole of a stock
 *           pool; 20 ms later CPU_ITEMS (default 20) cpu items are queued
 *           at once: how long until they run is what each pool does about
 *           starvation.
 *
 * One CSV line on stdout:
 *   label,scenario,cpus,wall_s,cpu_items_per_s,blocking_items_per_s,
 *   cpu_p50_us,cpu_p99_us,done_p50_us,done_p99_us,cpu_time_s,ctx_switches,
 *   threads_max,kernel_fd
 * cpu_pNN: latency of the cpu items, from uv_queue_work() to the after-work
 * callback (done_pNN: to the end of the item on its worker, before the
 * loop thread hears of it); cpu_time_s: user + system time of the process (getrusage);
 * ctx_switches: voluntary + involuntary, all threads; threads_max: the
 * most threads the process had (sampled every 10 ms); kernel_fd: the
 * file the pool opened, "group" ([sched_concurrency]), "watch"
 * ([sched_watch]) or "none" (a stock pool, or a policy that fell back).
 *
 * A benchmark: it reports, it never fails on a figure.  Exit status 1
 * only when a call fails that should not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <uv.h>

#define CPU_US		5000
#define DISK_US		10000
#define LOOKUP_US	20000
#define STALL_US	200000
#define STALLERS	4
#define BLOCKERS	16
#define LOAD_PERCENT	50
#define MAX_CPU_ITEMS	100000

enum kind { K_CPU, K_DISK, K_LOOKUP, K_STALL };

struct item {
	uv_work_t req;
	enum kind kind;
	uint64_t submit_ns;
	uint64_t done_ns;	/* work_cb returned */
};

static uv_loop_t *loop;
static uint64_t spins_per_us;
static volatile uint64_t sink;
static int nr_cpu_items, cpu_submitted, cpu_done, blocking_done, stopping;
static uint64_t *cpu_lat_ns, *cpu_run_ns;
static int threads_max;
static uv_timer_t arrival, sampler;
static struct sockaddr_un resolver;
static socklen_t resolver_len;

static void die(const char *what, int err)
{
	fprintf(stderr, "uv_pool_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void spin(uint64_t n)
{
	uint64_t x = sink + 1;

	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* Spins per microsecond: the best of a few 20 ms tries. */
static void calibrate(void)
{
	uint64_t n = 100000, best = 0;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t = now_ns(), us;

		spin(n);
		us = (now_ns() - t) / 1000;
		if (us < 20000) {
			n *= 2;
			i--;
			continue;
		}
		if (n / us > best)
			best = n / us;
	}
	spins_per_us = best ? best : 1;
}

/* The resolver: answers each datagram after LOOKUP_US, in order. */
static void *resolver_main(void *arg)
{
	int fd = *(int *)arg;
	struct {
		struct sockaddr_un from;
		socklen_t len;
		uint64_t due;
	} q[256];
	unsigned int head = 0, tail = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int timeout = -1;
		char buf[64];

		if (head != tail) {
			uint64_t t = now_ns();

			timeout = q[head % 256].due > t ?
				  (q[head % 256].due - t + 999999) / 1000000 : 0;
		}
		if (poll(&p, 1, timeout) < 0 && errno != EINTR)
			die("poll", errno);
		if ((p.revents & POLLIN) && tail - head < 256) {
			q[tail % 256].len = sizeof(q[0].from);
			if (recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&q[tail % 256].from,
				     &q[tail % 256].len) > 0) {
				q[tail % 256].due = now_ns() + LOOKUP_US * 1000ull;
				tail++;
			}
		}
		while (head != tail && q[head % 256].due <= now_ns()) {
			sendto(fd, "A 192.0.2.1", 11, 0,
			       (struct sockaddr *)&q[head % 256].from,
			       q[head % 256].len);
			head++;
		}
	}
	return NULL;
}

static void start_resolver(void)
{
	static int fd;
	pthread_t t;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket", errno);
	memset(&resolver, 0, sizeof(resolver));
	resolver.sun_family = AF_UNIX;
	snprintf(resolver.sun_path + 1, sizeof(resolver.sun_path) - 1,
		 "uv_pool_bench-%d", getpid());
	resolver_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		       strlen(resolver.sun_path + 1);
	if (bind(fd, (struct sockaddr *)&resolver, resolver_len))
		die("bind", errno);
	if (pthread_create(&t, NULL, resolver_main, &fd))
		die("pthread_create", EAGAIN);
}

/* One lookup: a socket of its own (as glibc's nscd client opens one per
 * request), an autobound address for the answer, a blocking recv(). */
static void lookup(void)
{
	sa_family_t autobind = AF_UNIX;
	char buf[64];
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket", errno);
	if (bind(fd, (struct sockaddr *)&autobind, sizeof(autobind)))
		die("bind", errno);
	if (sendto(fd, "example.org", 11, 0, (struct sockaddr *)&resolver,
		   resolver_len) < 0)
		die("sendto", errno);
	if (recv(fd, buf, sizeof(buf), 0) < 0)
		die("recv", errno);
	close(fd);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* CPU_US of this thread's CPU time, in steps of about 5 us of work. */
static void compute(void)
{
	uint64_t end = thread_cpu_ns() + CPU_US * 1000ull;

	do
		spin(5 * spins_per_us);
	while (thread_cpu_ns() < end);
}

static void work_cb(uv_work_t *req)
{
	struct item *it = req->data;
	struct timespec ts = { 0, DISK_US * 1000L };
	struct timespec stall = { 0, STALL_US * 1000L };

	switch (it->kind) {
	case K_CPU:
		compute();
		break;
	case K_DISK:
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		break;
	case K_LOOKUP:
		lookup();
		break;
	case K_STALL:
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &stall, &stall) == EINTR)
			;
		break;
	}
	it->done_ns = now_ns();
}

static void submit(enum kind kind);

static void after_cb(uv_work_t *req, int status)
{
	struct item *it = req->data;

	if (status)
		die("after_work", -status);
	if (it->kind == K_CPU) {
		cpu_run_ns[cpu_done] = it->done_ns - it->submit_ns;
		cpu_lat_ns[cpu_done++] = now_ns() - it->submit_ns;
		if (cpu_done == nr_cpu_items) {
			stopping = 1;
			uv_timer_stop(&arrival);
			uv_timer_stop(&sampler);
		}
	} else {
		blocking_done++;
		if (!stopping && it->kind != K_STALL)
			submit(it->kind);
	}
	free(it);
}

static void submit(enum kind kind)
{
	struct item *it = calloc(1, sizeof(*it));
	int err;

	if (!it)
		die("calloc", ENOMEM);
	it->kind = kind;
	it->req.data = it;
	it->submit_ns = now_ns();
	err = uv_queue_work(loop, &it->req, work_cb, after_cb);
	if (err)
		die("uv_queue_work", -err);
}

static void arrival_cb(uv_timer_t *t)
{
	/* Items due by now at the arrival rate (the timer is coarse). */
	static uint64_t start;
	uint64_t due, period_ns = *(uint64_t *)t->data;

	if (!start)
		start = now_ns() - period_ns;
	due = (now_ns() - start) / period_ns;
	while (cpu_submitted < nr_cpu_items && (uint64_t)cpu_submitted < due) {
		submit(K_CPU);
		cpu_submitted++;
	}
}

static void stall_cb(uv_timer_t *t)
{
	int i;

	for (i = 0; i < nr_cpu_items; i++)
		submit(K_CPU);
	cpu_submitted = nr_cpu_items;
}

static int nr_threads(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void sampler_cb(uv_timer_t *t)
{
	int n = nr_threads();

	if (n > threads_max)
		threads_max = n;
}

/* Which of the kernel's files the pool holds: the proof that a policy
 * is in force, and did not fall back to the stock pool. */
static const char *kernel_fd(void)
{
	const char *what = "none";
	struct dirent *d;
	char path[300], link[64];
	DIR *dir = opendir("/proc/self/fd");
	ssize_t n;

	if (!dir)
		return "unknown";
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "[sched_concurrency]"))
			what = "group";
		else if (strstr(link, "[sched_watch]"))
			what = "watch";
	}
	closedir(dir);
	return what;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct rusage r0, r1;
	uint64_t t0, wall, period_ns;
	const char *label, *scenario;
	cpu_set_t set;
	int cpus, i;

	if (argc < 3) {
		fprintf(stderr, "usage: uv_pool_bench LABEL mixed|burst|stall [CPU_ITEMS]\n");
		return 1;
	}
	label = argv[1];
	scenario = argv[2];
	if (strcmp(scenario, "mixed") && strcmp(scenario, "burst") &&
	    strcmp(scenario, "stall")) {
		fprintf(stderr, "uv_pool_bench: scenario mixed, burst or stall\n");
		return 1;
	}
	nr_cpu_items = argc > 3 ? atoi(argv[3]) :
		       !strcmp(scenario, "mixed") ? 300 :
		       !strcmp(scenario, "burst") ? 100 : 20;
	if (nr_cpu_items < 1 || nr_cpu_items > MAX_CPU_ITEMS) {
		fprintf(stderr, "uv_pool_bench: 1..%d cpu items\n", MAX_CPU_ITEMS);
		return 1;
	}
	cpu_lat_ns = calloc(nr_cpu_items, sizeof(*cpu_lat_ns));
	cpu_run_ns = calloc(nr_cpu_items, sizeof(*cpu_run_ns));
	if (!cpu_lat_ns || !cpu_run_ns)
		die("calloc", ENOMEM);
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity", errno);
	cpus = CPU_COUNT(&set);

	calibrate();
	start_resolver();
	loop = uv_default_loop();

	/* Start the pool outside the measurement: one item. */
	stopping = 1;
	submit(K_DISK);
	uv_run(loop, UV_RUN_DEFAULT);
	stopping = 0;
	blocking_done = 0;

	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	threads_max = nr_threads();
	if (uv_timer_init(loop, &sampler) || uv_timer_start(&sampler, sampler_cb, 10, 10))
		die("uv_timer", EINVAL);
	if (!strcmp(scenario, "burst")) {
		for (i = 0; i < nr_cpu_items; i++)
			submit(K_CPU);
		cpu_submitted = nr_cpu_items;
	} else if (!strcmp(scenario, "stall")) {
		for (i = 0; i < STALLERS; i++)
			submit(K_STALL);
		if (uv_timer_init(loop, &arrival) ||
		    uv_timer_start(&arrival, stall_cb, 20, 0))
			die("uv_timer", EINVAL);
	} else {
		for (i = 0; i < BLOCKERS; i++)
			submit(i % 2 ? K_LOOKUP : K_DISK);
		period_ns = CPU_US * 1000ull * 100 / LOAD_PERCENT / cpus;
		arrival.data = &period_ns;
		if (uv_timer_init(loop, &arrival) ||
		    uv_timer_start(&arrival, arrival_cb, 1, 1))
			die("uv_timer", EINVAL);
	}
	uv_run(loop, UV_RUN_DEFAULT);
	wall = now_ns() - t0;
	getrusage(RUSAGE_SELF, &r1);

	qsort(cpu_lat_ns, nr_cpu_items, sizeof(*cpu_lat_ns), cmp_u64);
	qsort(cpu_run_ns, nr_cpu_items, sizeof(*cpu_run_ns), cmp_u64);
	printf("%s,%s,%d,%.3f,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f,%.3f,%ld,%d,%s\n",
	       label, scenario, cpus, wall / 1e9,
	       nr_cpu_items / (wall / 1e9), blocking_done / (wall / 1e9),
	       cpu_lat_ns[nr_cpu_items / 2] / 1e3,
	       cpu_lat_ns[(nr_cpu_items * 99 + 99) / 100 - 1] / 1e3,
	       cpu_run_ns[nr_cpu_items / 2] / 1e3,
	       cpu_run_ns[(nr_cpu_items * 99 + 99) / 100 - 1] / 1e3,
	       (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
	       (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6 +
	       (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
	       (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6,
	       (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw),
	       threads_max, kernel_fd());
	fprintf(stderr, "uv_pool_bench: %s %s: %llu spins/us, pool policy %s, size %s\n",
		label, scenario, (unsigned long long)spins_per_us,
		getenv("UV_THREADPOOL_POLICY") ? getenv("UV_THREADPOOL_POLICY") : "(unset)",
		getenv("UV_THREADPOOL_SIZE") ? getenv("UV_THREADPOOL_SIZE") : "(unset)");
	return 0;
}
