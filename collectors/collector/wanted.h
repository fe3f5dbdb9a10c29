/*
 * wanted.h - the wanted target set, worked out without perf: which
 * cgroups the plan's cgroups: entries match, as one array sorted by path
 * (a cgroup several entries match appears once per entry, in entry
 * order), and how many distinct cgroups each layout holds.
 *
 * Pure: it reads the plan and the expanded lists (what cgroupfs_expand
 * found, one list per entry) and touches no target, no fd, no file.
 * discovery.c opens, keeps and closes targets from what it returns;
 * tests/wanted_test.c checks it alone.
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
};

/*
 * The matches of lists[0 .. cfg->nr_targets) (lists[i] is entry i's),
 * sorted by path, then by entry, into a new array *out of *nout (free()
 * it).  0 or -ENOMEM.
 */
int wanted_matches(const struct plan *cfg, const struct cgroup_list *lists,
    struct match **out, size_t *nout);

/*
 * Distinct cgroups the entries of layout (1-based, as plan_target.layout)
 * match, in m of nm sorted by wanted_matches.
 */
size_t wanted_layout_count(const struct plan *cfg, const struct match *m,
    size_t nm, size_t layout);

#endif
