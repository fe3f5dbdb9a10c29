/*
 * wanted.h - the wanted target set, worked out without perf: which
 * cgroups the plan's cgroups: entries match, as one array sorted by path
 * (a cgroup several entries match appears once per entry, in entry
 * order), and how many distinct cgroups each layout holds.
 *
 * Pure: it reads the plan and the expanded lists (what cgroupfs_expand
 * found, one list per entry) and touches no target, no fd, no file.
 * targetset.c opens, keeps and closes targets from what it returns;
 * tests/unit/wanted_test.c checks it alone.
 */
#ifndef PMU_WANTED_H
#define PMU_WANTED_H

#include <stddef.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/plan.h"

/* One cgroup matched by one cgroups: entry. */
struct match {
	const char *path;	/* owned by the entry's list */
	size_t entry;		/* index in cfg->targets */
	uint64_t id;		/* the cgroup's id as the walk found it
				   (cgroupfs.h); 0: not known */
};

/* The wanted set: what the cgroups: entries match, and per layout. */
struct wanted {
	struct match *m;	/* sorted by path, then by entry */
	size_t nm;
	size_t *per_layout;	/* [cfg->nr_layouts]: the distinct cgroups
				   the entries of layout l + 1 match */
};

/*
 * The wanted set of lists[0 .. cfg->nr_targets) (lists[i] is entry i's)
 * into w (wanted_free it, also after a failure).  0 or -ENOMEM.
 */
int wanted_build(const struct plan *cfg, const struct cgroup_list *lists,
    struct wanted *w);
void wanted_free(struct wanted *w);

#endif
