/*
 * discovery.h - the cgroup side of a pass over the target set
 * (discovery.c): the hierarchy with the perf_event controller, found
 * when a plan first names cgroups, the inotify watch on where matches
 * appear, and every cgroups: entry's matches.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_DISCOVERY_H
#define PMU_COLLECTOR_DISCOVERY_H

#include <stddef.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/cgroup/cgwatch.h"
#include "collectors/collector/cgroot.h"

struct planstate;
struct report;
struct wanted;

/* What a pass hands discovery: the cgroup root (its to find and
 * watch), the running plan and its tables (what was said of each
 * pattern), the log. */
struct discovery {
	struct cgroot *cg;
	const struct planstate *ps;
	const struct report *rp;
};

/*
 * The cgroup hierarchy and the inotify watch made when a new plan
 * (new_plan) first names cgroups, the cgroups each cgroups: entry
 * matches into lists[] (cfg->nr_targets + 1 of them, the caller's), the
 * inotify watch set on where matches can appear, and the wanted set into
 * w (wanted.h).  1; 0 when there is nothing to match (no entry names
 * cgroups, or no cgroup hierarchy); -ENOMEM.
 */
int discovery_expand(const struct discovery *d, int new_plan,
    struct cgroup_list *lists, struct wanted *w);

#endif
