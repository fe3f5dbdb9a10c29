/*
 * rawset.h - collect_bench's raw copy of what the collector opens: the
 * same groups, attrs, CPUs and cgroup directories opened by hand with
 * group_open, so that one read() per leader is the floor a collection is
 * measured against (see collect_bench.c).
 */
#ifndef PMU_BENCH_RAWSET_H
#define PMU_BENCH_RAWSET_H

#include <signal.h>
#include <stddef.h>

#include "collectors/perf/cpumap.h"
#include "collectors/perf/group.h"
#include "config/config.h"

/* The hand-opened copy of the collector's targets. */
struct rawset {
	size_t nr, cap;
	struct perf_group *pg;
	size_t fds;
	size_t failed;		/* instances that opened nothing */
};

/*
 * Open what the collector opens for cfg: every group of a cpus: entry on
 * its CPUs (merged per group, online only), and every group of every
 * cgroups: entry on every online CPU of each cgroup it expands to below
 * cgroot (NULL: none), merged per cgroup and group; it stops opening
 * cgroups once *stop is set (a signal).  0 or -errno.
 */
int rawset_open(struct rawset *rs, const struct plan *cfg,
    const struct cpumap *online, const char *cgroot,
    const volatile sig_atomic_t *stop);

/* One instance of the first group system-wide, and one in the perf
 * cgroup root, both on the first online CPU.  0 or -errno. */
int rawset_warm(struct rawset *rs, const struct plan *cfg,
    const struct cpumap *online, const char *cgroot);

/* One raw round: one read() per leader.  Returns the failed reads. */
size_t rawset_read(struct rawset *rs);

void rawset_free(struct rawset *rs);

#endif
