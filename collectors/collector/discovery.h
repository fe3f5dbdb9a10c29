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

struct collector;
struct wanted;

/* The cgroup hierarchy with the perf_event controller, and the inotify
 * watch on where matches appear. */
struct cgroot {
	char path[4096];
	int v2, found;
	struct cgwatch *watch;		/* NULL without inotify */
	int logged_watch;
	size_t skipped[CGROUP_SKIP_REASONS];	/* subtrees the last pass's
					   walks left out, by reason (as
					   the log last said too) */
};

/*
 * The cgroup hierarchy and the inotify watch made when a new plan
 * (new_plan) first names cgroups, the cgroups each cgroups: entry
 * matches into lists[] (cfg->nr_targets + 1 of them, the caller's), the
 * inotify watch set on where matches can appear, and the wanted set into
 * w (wanted.h).  1; 0 when there is nothing to match (no entry names
 * cgroups, or no cgroup hierarchy); -ENOMEM.
 */
int discovery_expand(struct collector *c, int new_plan,
    struct cgroup_list *lists, struct wanted *w);

#endif
