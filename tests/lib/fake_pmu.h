/*
 * fake_pmu.h - a scripted PMU for the collector's tests: perf_ops pointed
 * at fake_ops (collectors/perf/perf_sys.h) answers perf_event_open, the
 * group ioctls and reads from a table, so that the arithmetic and the
 * error handling can be checked exactly without hardware.  What a test
 * sets (multiplexing, a missing event, a cgroup that vanishes or has no
 * perf_event state, a refusal, too few counters, a short or reordered
 * read) are the knobs of fake; tests/collector_test.c and the unit tests
 * of target, instance and target set (tests/unit/) share it.
 */
#ifndef PMU_TEST_FAKE_PMU_H
#define PMU_TEST_FAKE_PMU_H

#include <stdint.h>
#include <sys/types.h>

#include "collectors/collector/collector.h"
#include "collectors/perf/perf_sys.h"

#define FAKE_MAXFD 512
#define FAKE_FD(i) (1000 + (i))

struct fake_fd {
	int used, closed, leader, cpu, enabled;
	unsigned long long config;
	uint64_t value, time_enabled, time_running;
};

struct fake_pmu {
	struct fake_fd fds[FAKE_MAXFD];
	uint64_t step_enabled, step_running;	/* next read's increments */
	double rate;			/* events per ns running */
	int zero_read_cpu;		/* this CPU's reads return 0 */
	unsigned long long missing;	/* this config is ENOENT */
	int vanish;			/* cgroup opens fail EBADF */
	int no_perf_cgroup;		/* cgroup opens fail ENOENT */
	int deny;			/* >0: opens fail with it */
	int counters;			/* >0: bigger groups never run */
	int read_reversed;		/* members in reverse order */
	int read_short;			/* one word short */
	uint64_t jump_ns;		/* added to every read's enabled and
					   running, not its values: the
					   kernel's cgroup clock starting
					   from zero (instance.c) */
	uint64_t clock_ns;		/* perf_ops->now_ns; 0: a clock far
					   ahead of any reading (no bound) */
	uint64_t open_delay_ns;		/* each counting open sleeps it */
	unsigned delayed;		/* ... how many opens slept */
	int max_prio;			/* the most urgent line logged */
	char log[65536];		/* what fake_capture logged */
	const char *mountinfo;		/* for fake_make ("/nonexistent") */
	const char *procfs;		/* ... NULL: /proc */
	int broken;			/* what it expected and did not get:
					   a test's main checks it is 0 */
};

extern struct fake_pmu fake;
extern const struct perf_ops fake_ops;

/* The collector's log hook: each line appended to fake.log. */
void fake_capture(int prio, const struct log_fields *lf, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/* The system-wide row of cpu in s, or NULL. */
const struct snap_row *fake_row(const struct snapshot *s, int cpu);
/* The fake fds open now. */
int fake_open_fds(void);
/* A collector from yaml (its plan in *cfg) on the sysfs given, reading
 * fake.mountinfo and fake.procfs, logging to fake_capture. */
struct collector *fake_make(const char *yaml, struct plan **cfg,
    const char *sysfs);
/* c and cfg freed, fake.mountinfo back at "/nonexistent": the fake fds
 * still open (0 unless something leaked). */
int fake_free(struct collector *c, struct plan *cfg);
/* dir/name as the cgroup2 mount: a mountinfo naming it written to mi
 * (len bytes), and fake.mountinfo pointed at it. */
void fake_mount(const char *dir, const char *name, char *mi, size_t len);
/* One tick of the collector thread: what is due, then a collection. */
void fake_tick(struct collector *c);
/*
 * The tests that need a real fd: a collector from yaml on the real
 * kernel (perf_ops_kernel, the real sysfs), or NULL (*cfg too) with why
 * printed when it does not let this process count a software event
 * system-wide.  fake_kernel_free frees both and puts the fake back.
 */
struct collector *fake_kernel_make(const char *yaml, struct plan **cfg);
void fake_kernel_free(struct collector *c, struct plan *cfg);
/*
 * A test's start and end: perf_ops at the fake and a scratch sysfs made
 * in dir (a mkdtemp template) with CPUs 0-1 online, 0 or -1; then dir
 * removed, 0, or -1 when it was not or the fake saw something a kernel
 * would refuse (fake.broken).
 */
int fake_begin(char *dir);
int fake_end(const char *dir);

#endif
