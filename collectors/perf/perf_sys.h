/*
 * perf_sys.h - the perf syscall boundary, as a table of operations (perf_ops)
 * that tests swap for a fake PMU.
 * Design: docs/architecture.md, "collectors/perf/".
 */
#ifndef PMU_PERF_SYS_H
#define PMU_PERF_SYS_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct perf_ops {
	int (*open)(struct perf_event_attr *attr, pid_t pid, int cpu,
	    int group_fd, unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*close)(int fd);
	/* The clock an event's enabled time runs by, in ns: on one CPU it
	 * cannot grow faster (collectors/collector/instance.c bounds each
	 * reading by it).  NULL: no bound (a fake's scripted times). */
	uint64_t (*now_ns)(void);
};

/* The real kernel: returns -1 and sets errno like the syscalls do. */
extern const struct perf_ops perf_ops_kernel;

/* The ops in use; tests point this at a fake. */
extern const struct perf_ops *perf_ops;

#endif
