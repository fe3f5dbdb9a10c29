/*
 * cgroot.h - the cgroup hierarchy the collector counts in (struct
 * cgroot): found and watched by discovery.c, read for its mount by the
 * files that open (source.c, instance.c, target.c, share.c).  Its own
 * header so that those need nothing of a pass's discovery.  Collector
 * thread only; see docs/architecture.md, "Layers and threads".
 */
#ifndef PMU_COLLECTOR_CGROOT_H
#define PMU_COLLECTOR_CGROOT_H

#include <stddef.h>

#include "collectors/cgroup/cgroupfs.h"

struct cgwatch;

/* The cgroup hierarchy with the perf_event controller, and the inotify
 * watch on where matches appear. */
struct cgroot {
	char path[4096];
	int v2, found;
	const char *mountinfo;		/* where it is looked for */
	struct cgwatch *watch;		/* NULL without inotify */
	int logged_watch;
	size_t skipped[CGROUP_SKIP_REASONS];	/* subtrees the last pass's
					   walks left out, by reason (as
					   the log last said too) */
};

#endif
