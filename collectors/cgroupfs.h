/*
 * cgroupfs.h - where the cgroup hierarchy that perf uses is mounted, and
 * expansion of cgroup path patterns below it.
 *
 * perf's cgroup mode takes an fd of a directory in the hierarchy that
 * carries the perf_event controller: a cgroup v1 perf_event mount when
 * there is one, the unified (v2) hierarchy otherwise.  The mount is always
 * read from mountinfo, never assumed: hybrid hosts have v2 at
 * /sys/fs/cgroup/unified, systemd hosts at /sys/fs/cgroup.
 */
#ifndef PMU_CGROUPFS_H
#define PMU_CGROUPFS_H

#include <stddef.h>

/*
 * Find the mount point from a mountinfo file (normally
 * /proc/self/mountinfo).  *v2 is set to 1 for cgroup2, 0 for a v1
 * perf_event mount.  Returns 0, -ENOENT when there is none, -errno.
 */
int cgroupfs_find(const char *mountinfo, char *root, size_t len, int *v2);

struct cgroup_list {
	size_t nr;
	char **path;		/* relative to the root, each starting '/' */
};

/*
 * Expand pattern (relative to root, '*', '?' and [...] match within one
 * level) into the existing cgroups it names, sorted.  A pattern without
 * wildcards yields itself if it exists.  0 or -errno (-ENOMEM).
 */
int cgroupfs_expand(const char *root, const char *pattern,
    struct cgroup_list *out);

void cgroup_list_free(struct cgroup_list *l);

#endif
