/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the sched_wait_block() guest benchmarks: clocks,
 * CPU pinning, the syscall wrappers (sched_wait_block() and the
 * concurrency groups), futex wrappers, percentiles and the BENCH/CSV
 * output conventions.
 *
 * Every figure a program reports is one stdout line
 *	BENCH,<bench>,<variant>,<metric>,<value>
 * without spaces; anything else on stdout is for humans.  A program
 * exits 1 on any unexpected error so that a smoke test fails loudly.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <linux/time_types.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
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

#ifndef __NR_sched_wait_block
#error "__NR_sched_wait_block undefined: build with HDR= the patched kernel's headers"
#endif

/*
 * Concurrency groups: the patched kernel's headers have the ABI; headers
 * of a build from before the groups do not, hence the copy below (from
 * include/uapi/linux/sched/concurrency.h).
 */
#if defined(__has_include)
#if __has_include(<linux/sched/concurrency.h>)
#include <linux/sched/concurrency.h>
#endif
#endif

#ifndef SCHED_CONC_ATTR_SIZE_VER0
struct sched_concurrency_attr {
	__u64 flags;
	__u32 width;
	__u32 default_role;
	__u64 slice_ns;
};

#define SCHED_CONC_ATTR_SIZE_VER0	24

struct sched_concurrency_member {
	__u64 flags;
	__s32 pidfd;
	__u32 role;
};
#endif

#ifndef SCHED_CONC_ROLE_DEFAULT
#define SCHED_CONC_ROLE_DEFAULT	0
#endif
#ifndef SCHED_CONC_ROLE_FG
#define SCHED_CONC_ROLE_FG	1
#endif
#ifndef SCHED_CONC_ROLE_BG
#define SCHED_CONC_ROLE_BG	2
#endif
#ifndef SCHED_CONC_IOC_MAGIC
#define SCHED_CONC_IOC_MAGIC	0xB9
#endif
#ifndef SCHED_CONC_IOC_JOIN
#define SCHED_CONC_IOC_JOIN \
	_IOW(SCHED_CONC_IOC_MAGIC, 1, struct sched_concurrency_member)
#endif
#ifndef SCHED_CONC_IOC_LEAVE
#define SCHED_CONC_IOC_LEAVE	_IO(SCHED_CONC_IOC_MAGIC, 2)
#endif

/* From the patched headers, as __NR_sched_wait_block above */
#ifndef __NR_sched_concurrency_create
#error "__NR_sched_concurrency_create undefined: build with HDR= the patched kernel's headers"
#endif

/*
 * Watch fds: the patched kernel's headers have the ABI; headers of a
 * build from before them do not, hence the copy below (from
 * include/uapi/linux/sched/watch.h).
 */
#if defined(__has_include)
#if __has_include(<linux/sched/watch.h>)
#include <linux/sched/watch.h>
#endif
#endif

#ifndef SCHED_WATCH_ATTR_SIZE_VER0
struct sched_watch_attr {
	__u64 flags;
	__u32 buffer;
	__u32 reserved;
};

#define SCHED_WATCH_ATTR_SIZE_VER0	16
#define SCHED_WATCH_NONBLOCK		0x1ULL
#define SCHED_WATCH_BLOCK		1
#define SCHED_WATCH_WAKE		2
#define SCHED_WATCH_ADDED		4
#define SCHED_WATCH_ALL_BLOCKED		7
#define SCHED_WATCH_ALL_BLOCKED_END	8

struct sched_watch_event {
	__u64 seq;
	__u64 time_ns;
	__u32 tid;
	__u32 cpu;
	__u16 type;
	__u16 flags;
	__u32 data;
};

struct sched_watch_target {
	__s32 pidfd;
	__u32 flags;
};

#define SCHED_WATCH_IOC_ADD \
	_IOW(0xB9, 0x10, struct sched_watch_target)
#endif

#ifndef __NR_sched_watch_open
#error "__NR_sched_watch_open undefined: build with HDR= the patched kernel's headers"
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* <linux/pidfd.h> clashes with <fcntl.h> */
#endif

#define NSEC_PER_USEC	1000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

/* Print to stderr and exit 1: an unexpected error. */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* die() with strerror(errno) appended. */
#define die_errno(what)	die("%s: %s (%s:%d)", what, strerror(errno), \
			    __FILE__, __LINE__)

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Spin on the wall clock for @ns nanoseconds. */
static inline void spin_ns(long long ns)
{
	long long end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/*
 * Run intervals, recorded from user space (usecase, pool): a thread that
 * spins on the clock, and sees a gap of more than gap_ns between two
 * reads, did not run in between.
 */
struct ivl {
	long long s, e;
};

struct ivls {
	struct ivl *v;
	long n, cap;
};

/* Room for @cap intervals, zeroed, so that recording never faults */
static inline void ivls_init(struct ivls *l, long cap)
{
	l->v = malloc(cap * sizeof(*l->v));
	if (!l->v)
		die("out of memory");
	memset(l->v, 0, cap * sizeof(*l->v));	/* prefault */
	l->n = 0;
	l->cap = cap;
}

static inline void ivls_add(struct ivls *l, long long s, long long e)
{
	if (l->n == l->cap) {		/* full: extend the last one */
		l->v[l->n - 1].e = e;
		return;
	}
	l->v[l->n].s = s;
	l->v[l->n++].e = e;
}

/*
 * Run for @cpu_ns of our own CPU time, recording run intervals in @l:
 * a gap of more than @gap_ns between two clock reads means that we did
 * not run.
 */
static inline void run_tracked(long long cpu_ns, long long gap_ns,
			       struct ivls *l)
{
	long long start = now_ns(), prev = start, done = 0, t;

	while (done < cpu_ns) {
		t = now_ns();
		if (t - prev > gap_ns) {
			ivls_add(l, start, prev);
			start = t;
		} else {
			done += t - prev;
		}
		prev = t;
	}
	ivls_add(l, start, prev);
}

/*
 * -P LIST: set want[p] for each of the @nr policies @names that the
 * comma-separated @plist names, or for all with "all".
 */
static inline void parse_policies(const char *plist, const char *const *names,
				  int nr, bool *want)
{
	char *copy = strdup(plist), *tok, *save;
	int p;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (p = 0; p < nr; p++)
				want[p] = true;
			continue;
		}
		for (p = 0; p < nr; p++)
			if (!strcmp(tok, names[p]))
				break;
		if (p == nr)
			die("-P: unknown policy '%s'", tok);
		want[p] = true;
	}
	free(copy);
}

static inline void ns_to_timespec(long long ns, struct timespec *ts)
{
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
}

static inline pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Pin the calling thread to CPUs [first, first + n). */
static inline void pin_cpus(int first, int n)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = first; i < first + n; i++)
		CPU_SET(i, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die_errno("sched_setaffinity");
}

static inline void pin_cpu(int cpu)
{
	pin_cpus(cpu, 1);
}

/* Parse "same" or "cross" (-c): returns 1 for cross. */
static inline int parse_cpus_opt(const char *s)
{
	if (!strcmp(s, "same"))
		return 0;
	if (!strcmp(s, "cross"))
		return 1;
	die("-c takes same or cross, not '%s'", s);
}

/* Fail early when a cross-CPU run cannot be pinned as asked. */
static inline void need_cpus(int n)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < n)
		die("this run needs %d CPUs", n);
}

/*
 * The v2 call: @count is NULL (a snapshot of the target's block count is
 * taken on entry) or the count the caller last saw, updated on return.
 */
static inline long sched_wait_block_count(pid_t pid,
					  const struct __kernel_timespec *timeout,
					  unsigned int flags, __u64 *count)
{
	return syscall(__NR_sched_wait_block, pid, timeout, flags, count);
}

static inline long sched_wait_block(pid_t pid,
				    const struct __kernel_timespec *timeout,
				    unsigned int flags)
{
	return sched_wait_block_count(pid, timeout, flags, NULL);
}

/* FUTEX_WAIT with an optional relative timeout in ns (0: none). */
static inline long futex_wait(atomic_int *uaddr, int val, long long timeout_ns)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ns) {
		ns_to_timespec(timeout_ns, &ts);
		tsp = &ts;
	}
	return syscall(SYS_futex, uaddr, FUTEX_WAIT_PRIVATE, val, tsp, NULL, 0);
}

static inline long futex_wake(atomic_int *uaddr, int n)
{
	return syscall(SYS_futex, uaddr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* futex_wait() that dies on errors other than EAGAIN/EINTR/ETIMEDOUT. */
static inline void futex_wait_checked(atomic_int *uaddr, int val,
				      long long timeout_ns)
{
	if (futex_wait(uaddr, val, timeout_ns) && errno != EAGAIN &&
	    errno != EINTR && errno != ETIMEDOUT)
		die_errno("futex_wait");
}

static inline void futex_wake_checked(atomic_int *uaddr, int n)
{
	if (futex_wake(uaddr, n) < 0)
		die_errno("futex_wake");
}

static inline int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Percentile @p (0..100) of @n values already sorted ascending, nearest
 * rank method: the smallest value with at least p% of the values <= it.
 */
static inline long long percentile(const long long *sorted, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)(p / 100.0 * n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* One machine-readable figure. */
static inline void bench_print(const char *bench, const char *variant,
			       const char *metric, double value)
{
	if (value == (long long)value && value < 1e15 && value > -1e15)
		printf("BENCH,%s,%s,%s,%lld\n", bench, variant, metric,
		       (long long)value);
	else
		printf("BENCH,%s,%s,%s,%.6g\n", bench, variant, metric, value);
	fflush(stdout);
}

/* Open a raw-sample CSV file (truncated) and write its header line. */
static inline FILE *csv_open(const char *path, const char *header)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "%s\n", header);
	return f;
}

static inline void csv_close(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		die("%s: write error", path);
}

/* Parse a positive integer option or die. */
static inline long parse_long(const char *s, const char *opt, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < min)
		die("%s: bad value '%s' (minimum %ld)", opt, s, min);
	return v;
}

/* Small deterministic PRNG (xorshift64*), thread-local state by pointer. */
static inline uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Uniform in [lo, hi). */
static inline long long rnd_range(uint64_t *s, long long lo, long long hi)
{
	return hi > lo ? lo + (long long)(rnd_next(s) % (uint64_t)(hi - lo)) : lo;
}

/* Open /proc/self/task/<tid>/stat for proc_state(). */
static inline int proc_stat_open(pid_t tid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno(path);
	return fd;
}

/*
 * The state letter (R, S, D, ...) of a task whose stat file is open on
 * @fd, read with pread() so that the descriptor can be reused; 0 if the
 * task is gone.
 */
static inline char proc_state(int fd)
{
	char buf[512], *p;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && errno == ESRCH)
		return 0;
	if (n < 0)
		die_errno("pread stat");
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		die("unexpected stat line '%s'", buf);
	return p[2];
}

/*
 * Read a whole /proc file, from offset 0, into @buf (NUL-terminated);
 * the descriptor can be reused.  Returns the length, or -1 if the task
 * the file belongs to is gone (ESRCH).  Dies if @size is too small.
 */
static inline ssize_t proc_read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = pread(fd, buf + len, size - 1 - len, len);
		if (n < 0 && errno == ESRCH)
			return -1;
		if (n < 0)
			die_errno("pread /proc");
		if (!n)
			break;
		len += n;
		if (len == size - 1)
			die("a /proc file is larger than %zu bytes", size - 1);
	}
	buf[len] = '\0';
	return len;
}

/*
 * The number after the line that starts with @name in @buf, past blanks
 * and a colon ("ctxt 123", "voluntary_ctxt_switches:\t4",
 * "notify.blocks      :      5"); -1 if there is no such line.
 */
static inline long long proc_field(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *line = buf;

	while (line && *line) {
		if (!strncmp(line, name, len) &&
		    line[len] && strchr(" \t:", line[len])) {
			const char *p = line + len;

			while (*p == ' ' || *p == '\t' || *p == ':')
				p++;
			return strtoll(p, NULL, 10);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

/* Open a /proc file read-only or die. */
static inline int proc_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_errno(path);
	return fd;
}

#define PROC_BUF_SIZE	65536

/*
 * System-wide context switches so far: the "ctxt" line of /proc/stat
 * (the sum of every CPU's rq->nr_switches), read through @fd.
 */
static inline long long proc_ctxt(int fd, char *buf)
{
	long long v;

	proc_read_all(fd, buf, PROC_BUF_SIZE);
	v = proc_field(buf, "ctxt");
	if (v < 0)
		die("/proc/stat: no ctxt line");
	return v;
}

/* A thread's context switches, from /proc/.../status. */
struct csw {
	long long vol;		/* voluntary_ctxt_switches: blocked */
	long long invol;	/* nonvoluntary_ctxt_switches: preempted, yielded */
};

/* Open /proc/self/task/<tid>/status for proc_csw(). */
static inline int proc_status_open(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	return proc_open(path);
}

static inline void proc_csw(int fd, char *buf, struct csw *c)
{
	if (proc_read_all(fd, buf, PROC_BUF_SIZE) < 0)
		die("proc_csw: task gone");
	c->vol = proc_field(buf, "voluntary_ctxt_switches");
	c->invol = proc_field(buf, "nonvoluntary_ctxt_switches");
	if (c->vol < 0 || c->invol < 0)
		die("/proc/.../status: no *ctxt_switches lines");
}

/*
 * What the v2 kernel counts for a watched thread (kernel/sched/debug.c,
 * in /proc/<pid>/task/<tid>/sched): its blocks, the pre-wakes of a waiter
 * before its __schedule(), and the pre-wakes not followed by a block.
 * A thread nobody ever waited for has no such lines: all 0, @valid false.
 */
struct notify_stats {
	long long blocks, prewakes, spurious;
	bool valid;
};

/* Read them for thread @tid of process @pid; false if the task is gone. */
static inline bool proc_notify(pid_t pid, pid_t tid, struct notify_stats *s)
{
	char path[80], *buf = malloc(PROC_BUF_SIZE);
	ssize_t n;
	int fd;

	if (!buf)
		die("out of memory");
	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		free(buf);
		return false;
	}
	if (fd < 0)
		die_errno(path);
	n = proc_read_all(fd, buf, PROC_BUF_SIZE);
	close(fd);
	if (n >= 0) {
		s->blocks = proc_field(buf, "notify.blocks");
		s->prewakes = proc_field(buf, "notify.prewakes");
		s->spurious = proc_field(buf, "notify.prewakes_spurious");
		s->valid = s->blocks >= 0 && s->prewakes >= 0 && s->spurious >= 0;
		if (!s->valid)
			s->blocks = s->prewakes = s->spurious = 0;
	}
	free(buf);
	return n >= 0;
}

/*
 * A concurrency group of @width slots (role 0 of JOIN means foreground):
 * its file descriptor, or -1 with errno set.  ENOSYS: a kernel without
 * the groups (pristine), which the callers skip.
 */
static inline int sched_concurrency_create(unsigned int width)
{
	struct sched_concurrency_attr attr = { .width = width };

	return syscall(__NR_sched_concurrency_create, &attr, sizeof(attr));
}

/* The calling thread joins group @fd as @role (SCHED_CONC_ROLE_*). */
static inline int conc_join(int fd, unsigned int role)
{
	struct sched_concurrency_member m = { .pidfd = -1, .role = role };

	return ioctl(fd, SCHED_CONC_IOC_JOIN, &m);
}

static inline int conc_leave(int fd)
{
	return ioctl(fd, SCHED_CONC_IOC_LEAVE, 0);
}

/* What /proc/self/fdinfo/<fd> of a group says (-1: no such line). */
struct conc_stats {
	long long width, members, handoffs, evictions;
	long long evict_ns_max, evict_ns_avg;
};

/*
 * Read them; false if @fd is not open or its fdinfo has no "width:" line,
 * i.e. it is not a concurrency group (a kernel with another call at that
 * number).
 */
static inline bool conc_fdinfo(int fd, struct conc_stats *s)
{
	char path[64], buf[4096];
	int pfd;

	memset(s, 0xff, sizeof(*s));	/* all -1 */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	if (pfd < 0)
		return false;
	proc_read_all(pfd, buf, sizeof(buf));
	close(pfd);
	s->width = proc_field(buf, "width");
	s->members = proc_field(buf, "members");
	s->handoffs = proc_field(buf, "handoffs");
	s->evictions = proc_field(buf, "evictions");
	s->evict_ns_max = proc_field(buf, "evict_ns_max");
	s->evict_ns_avg = proc_field(buf, "evict_ns_avg");
	return s->width >= 0;
}

/*
 * sched_concurrency_create(@width) for a benchmark: the group's fd, or
 * -1 after printing "<bench> <variant>: skipped: ..." if the kernel has
 * no groups (ENOSYS) or the call at that number is something else.  Any
 * other failure is a bug of the patched kernel: die.
 */
static inline int conc_create_or_skip(unsigned int width, const char *bench,
				      const char *variant)
{
	struct conc_stats cs;
	int fd = sched_concurrency_create(width);

	if (fd < 0 && errno == ENOSYS) {
		printf("%s %s: skipped: no sched_concurrency_create() on this "
		       "kernel (ENOSYS)\n", bench, variant);
		return -1;
	}
	if (fd < 0)
		die("sched_concurrency_create: %s (is call %d another one on "
		    "this kernel?)", strerror(errno),
		    (int)__NR_sched_concurrency_create);
	if (!conc_fdinfo(fd, &cs) || cs.width != width) {
		printf("%s %s: skipped: system call %d is not "
		       "sched_concurrency_create()\n", bench, variant,
		       (int)__NR_sched_concurrency_create);
		return -1;	/* not ours to close */
	}
	return fd;
}

/*
 * A watch fd (@flags: SCHED_WATCH_NONBLOCK or 0) that watches thread
 * @tid; dies on any failure (the benchmarks run on the patched kernel).
 */
static inline int watch_open_on(pid_t tid, unsigned long long flags)
{
	struct sched_watch_attr attr = { .flags = flags };
	struct sched_watch_target t = { .flags = 0 };
	int fd;

	fd = syscall(__NR_sched_watch_open, &attr, sizeof(attr));
	if (fd < 0)
		die_errno("sched_watch_open");
	t.pidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t.pidfd < 0)
		die_errno("pidfd_open");
	if (ioctl(fd, SCHED_WATCH_IOC_ADD, &t))
		die_errno("SCHED_WATCH_IOC_ADD");
	close(t.pidfd);
	return fd;
}

/*
 * A perf ring buffer (@meta, data area @data of @size bytes, a power of
 * two) of a PERF_RECORD_SWITCH event with sample_id_all TID|TIME:
 * consume the records up to @head; with @t0 >= 0, return 1 if one of
 * them is a block (switch-out, not preemption) of @tid at or after @t0.
 */
static inline int perf_ring_scan(struct perf_event_mmap_page *meta, char *data,
				 size_t size, uint64_t head, long long t0,
				 pid_t tid)
{
	uint64_t tail = meta->data_tail;
	int found = 0;

	while (tail < head) {
		struct perf_event_header hdr;
		char rec[256];
		size_t off = tail & (size - 1), first;

		first = size - off < sizeof(hdr) ? size - off : sizeof(hdr);
		memcpy(&hdr, data + off, first);
		memcpy((char *)&hdr + first, data, sizeof(hdr) - first);
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec))
			die("perf: corrupt record");
		if (hdr.type == PERF_RECORD_LOST)
			die("perf: records lost");
		if (hdr.type == PERF_RECORD_SWITCH && t0 >= 0 &&
		    hdr.size == sizeof(hdr) + 16 &&
		    (hdr.misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    !(hdr.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)) {
			struct { uint32_t pid, tid; uint64_t time; } id;

			first = size - off < hdr.size ? size - off : hdr.size;
			memcpy(rec, data + off, first);
			memcpy(rec + first, data, hdr.size - first);
			memcpy(&id, rec + sizeof(hdr), sizeof(id));
			if ((pid_t)id.tid == tid && (long long)id.time >= t0)
				found = 1;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return found;
}

#endif /* BENCH_COMMON_H */
