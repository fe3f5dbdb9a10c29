/*
 * fake_ipc.h - a faked perf boundary (perf_ops) that counts group ipc =
 * {cycles, instructions} in cgroups whose CPU use and CPI the caller sets
 * before each interval: every read of a group is one interval, at once.
 * No PMU is needed.  tests/unit/interference_test.c drives the whole daemon's
 * path through it, bench/interference_bench.c times the analysis against
 * the collection with it.
 *
 * A group leader opened in cgroup mode (PERF_FLAG_PID_CGROUP) belongs to
 * the cgroup whose directory the pid names, found by the caller's
 * cgroup_index; each read adds, to the leader's time enabled and to its
 * instructions, the cgroup's CPU use times ns_per_read (1e9 over the
 * CPUs counted on: the use is split evenly between them), and to its
 * cycles those instructions times the cgroup's CPI.  Ids are the fd
 * times 7.  Anything but PERF_EVENT_IOC_ID and PERF_EVENT_IOC_ENABLE is
 * EINVAL; more than max_fds open at once is EMFILE.
 */
#ifndef PMU_FAKE_IPC_H
#define PMU_FAKE_IPC_H

#include <stddef.h>

#include "collectors/collector/collector.h"
#include "collectors/perf/perf_sys.h"

struct fake_ipc {
	const double *cpu;	/* per cgroup: the CPUs it uses this interval */
	const double *cpi;	/* per cgroup: its cycles per instruction */
	double ns_per_read;	/* of one CPU used, what one read counts */
	/* A cgroup directory's name -> its index in cpu and cpi, or -1. */
	int (*cgroup_index)(const char *name);
	int fd_base;		/* the first fd it hands out */
};

/* Sets up room for max_fds open fds: 0, or -ENOMEM. */
int fake_ipc_init(const struct fake_ipc *how, size_t max_fds);
void fake_ipc_fini(void);

extern const struct perf_ops fake_ipc_ops;

/* A collector_log_fn that says nothing. */
void fake_ipc_quiet(int prio, const struct log_fields *lf, const char *fmt,
    ...);

#endif
