/*
 * group.h - one perf group: a leader and its members, opened on one CPU (for
 * one cgroup, or system-wide), enabled and read as a unit so that the ratios
 * between its events come from the same time window.
 * Design: docs/architecture.md, "collectors/perf/".
 */
#ifndef PMU_GROUP_H
#define PMU_GROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "collectors/perf/scale.h"

struct perf_group {
	size_t nr_cfg;		/* events asked for */
	size_t nr;		/* events opened */
	int *fd;		/* [nr_cfg], -1 when not open; fd[0] leads */
	uint64_t *id;		/* [nr_cfg], kernel ids of opened events */
	size_t *evidx;		/* [nr_cfg], opened slot -> asked-for index */
	int *err;		/* [nr_cfg], 0 or the errno of its open */
	uint64_t *buf;		/* read buffer for PERF_FORMAT_GROUP */
	size_t buflen;		/* bytes */
};

#define GROUP_READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
	PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Fill pg with no fds open; always safe to group_close afterwards. */
int group_init(struct perf_group *pg, size_t nr_events);

/*
 * Open the group on cpu for pid (a cgroup directory fd with
 * PERF_FLAG_PID_CGROUP in flags, or -1 system-wide), leader disabled.
 * Per-event failures land in pg->err[].  Returns 0 when at least one event
 * opened, else the errno that stopped everything (negative): -EMFILE,
 * -EACCES, -EBADF... or the first event's error when none opened.
 */
int group_open(struct perf_group *pg, const struct perf_event_attr *attrs,
    pid_t pid, int cpu, unsigned long flags);

/*
 * Does the event take a PMU counter?  Software, tracepoint and breakpoint
 * events do not: they are never left unscheduled for want of one.
 */
int group_uses_counter(const struct perf_event_attr *attr);

/*
 * Can the kernel open attr for (pid, cpu, flags)?  Opens one event,
 * disabled, outside any group, and closes it: 0, or -errno.
 */
int group_probe(const struct perf_event_attr *attr, pid_t pid, int cpu,
    unsigned long flags);

/*
 * Can perf count the cgroup at all?  group_probe of the dummy software
 * event in cgroup mode on cpu: for telling, after every event of a group
 * failed with ENOENT, whether the events or the cgroup are at fault.  0;
 * -ENOENT when the kernel has no perf_event state for the cgroup (cgroup
 * v2 on which nothing was ever written to the root's
 * cgroup.subtree_control); other -errno as the kernel says.
 */
int group_probe_cgroup(int cgfd, int cpu);

/* Enable (or disable) the whole group through its leader. 0 or -errno. */
int group_enable(struct perf_group *pg, int on);

/*
 * One read() of the group.  Fills out[i] for every opened asked-for
 * event i (others untouched).  Returns 0; -ENODATA when the kernel
 * returns 0 bytes (a pinned group in error state); -EIO on a short or
 * inconsistent read; -errno otherwise.
 */
int group_read(struct perf_group *pg, struct count *out);

/* Close every open fd; idempotent.  pg stays reusable by group_open. */
void group_close(struct perf_group *pg);

/* Close and free the arrays. */
void group_fini(struct perf_group *pg);

#endif
