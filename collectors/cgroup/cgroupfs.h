/*
 * cgroupfs.h - where the cgroup hierarchy that perf uses is mounted
 * (docs/architecture.md, "What it does"), and expansion of cgroup path
 * patterns below it.
 * Design: docs/architecture.md, "collectors/cgroup/".
 */
#ifndef PMU_CGROUPFS_H
#define PMU_CGROUPFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Find the mount point from a mountinfo file (normally
 * /proc/self/mountinfo).  *v2 is set to 1 for cgroup2, 0 for a v1
 * perf_event mount.  Returns 0, -ENOENT when there is none, -errno.
 */
int cgroupfs_find(const char *mountinfo, char *root, size_t len, int *v2);

/* The cgroup id of the directory dirfd is open on, as the walk reports
 * it (its inode); 0 or -errno. */
int cgroupfs_ino(int dirfd, uint64_t *id);

/* Does the cgroup whose directory dirfd is open still exist?  A removed
 * cgroup's directory has no files left.  1 or 0. */
int cgroupfs_alive(int dirfd);

/*
 * The cgroup id of the cgroup2 directory dirfd is open on: what the
 * kernel's bpf_get_current_cgroup_id() returns for its tasks (the file
 * handle name_to_handle_at gives, as systemd reads it).  0 or -errno.
 */
int cgroupfs_id(int dirfd, uint64_t *id);

/* The controllers enabled in root's cgroup.subtree_control (cgroup v2),
 * space-separated, "" for none.  0 or -errno. */
int cgroupfs_subtree_control(const char *root, char *buf, size_t len);

struct cgroup_list {
	size_t nr, cap;
	char **path;		/* relative to the root, each starting '/' */
	uint64_t *id;		/* [cap]: each one's cgroup id (its
				   directory's inode, as kernfs numbers
				   it), 0 where not known */
};

/*
 * Patterns are paths relative to the root.  '*', '?' and [...] match
 * within one level; a component "**" matches zero or more levels, at most
 * max_depth of them (0: no limit).
 */

/* Does path match pattern?  Pure: no filesystem access. */
int cgroupfs_match(const char *pattern, const char *path,
    unsigned max_depth);

/*
 * The longest path, root included, expansion reports: what open(2),
 * inotify and the cgroup label take whole.  A deeper cgroup is skipped.
 */
#define CGROUPFS_PATH_MAX 4096

/* Why expansion left a subtree out, alone: the rest of the entry is
 * expanded as usual. */
enum cgroup_skip {
	CGROUP_SKIP_UNREADABLE,		/* opening or reading it failed */
	CGROUP_SKIP_TOO_LONG,		/* its path passes CGROUPFS_PATH_MAX */
	CGROUP_SKIP_DEPTH,		/* below what "**" may span */
	CGROUP_SKIP_CAP,		/* past the entry's directory cap */
	CGROUP_SKIP_REASONS
};

/* Subtrees left out by one expansion, by reason, and the first of each
 * (its path, cut to fit). */
struct cgroup_skips {
	size_t n[CGROUP_SKIP_REASONS];
	char first[CGROUP_SKIP_REASONS][256];
};

/* The reason's name, as pmu_exporter_cgroups_skipped labels it. */
const char *cgroup_skip_reason(enum cgroup_skip why);

/*
 * Expand pattern into the existing cgroups it names, sorted and unique,
 * each with its cgroup id (the inode of the directory the walk opened:
 * on kernfs, the id perf's cgroup mode and BPF's cgroup helpers know it
 * by, so a cgroup removed and made again at the same path has another),
 * leaving out any that match one of the nr_exclude exclude patterns.  If
 * dirs is not NULL, every directory whose new children could match is
 * added to it (unsorted, possibly repeated): what an inotify watch set
 * needs.  A pattern without wildcards yields itself if it exists.
 *
 * The walk opens each directory from its parent's fd (no path length
 * limits it), never follows a link, keeps a fixed number of directories
 * open however deep the tree, and opens at most max_dirs directories (0:
 * no cap).  A subtree it cannot read, whose path is too long, below what
 * max_depth lets "**" span or past max_dirs is left out alone and counted
 * in *sk (when not NULL).  0 or -errno (-ENOMEM; the root unreadable).
 */
int cgroupfs_expand(const char *root, const char *pattern, unsigned max_depth,
    size_t max_dirs, char *const *exclude, size_t nr_exclude,
    struct cgroup_list *out, struct cgroup_list *dirs,
    struct cgroup_skips *sk);

/*
 * cgroupfs_expand, with a tenant's directories last: what is not
 * delegated (cgroupfs_delegated) is walked first, whatever the directory
 * order, and each delegated subtree after, in the order met, with its
 * share of the max_dirs left (divided by the subtrees still to walk, and
 * at most deleg_dirs, 0: no such bound), so no tenant takes the cap from
 * the machine's own cgroups or another tenant's, and the directories
 * read in a subtree (those given to dirs) are at most its share.
 */
int cgroupfs_expand_fair(const char *root, const char *pattern,
    unsigned max_depth, size_t max_dirs, size_t deleg_dirs,
    char *const *exclude, size_t nr_exclude, struct cgroup_list *out,
    struct cgroup_list *dirs, struct cgroup_skips *sk);

/*
 * Does path (relative to root) lie in a delegated subtree: is it, or one
 * of its ancestors below the root, owned by a user other than the root's
 * owner (root, or whom a user namespace maps root to), as
 * systemd's Delegate= (a user@UID.service) and container runtimes that
 * hand a subtree to a user leave them?  *len is set to the length of the
 * prefix of path that names the topmost such directory, the subtree's
 * root, or 0 when there is none.  Opened from the root down without
 * following links.  0 or -errno (-ENOENT: gone).
 */
int cgroupfs_delegated(const char *root, const char *path, size_t *len);

/*
 * The directory of the cgroup path (relative to root), opened for reading
 * (what perf_event_open and name_to_handle_at take) from the root down one
 * component at a time, never through a link, never blocking.  An fd or
 * -errno.
 */
int cgroupfs_open_dir(const char *root, const char *path);

/* Append a copy of path, its id not known; 0 or -ENOMEM. */
int cgroup_list_add(struct cgroup_list *l, const char *path);

/* Append a copy of path whose cgroup id is id; 0 or -ENOMEM. */
int cgroup_list_add_id(struct cgroup_list *l, const char *path, uint64_t id);

/* Sort by path and drop duplicates, each path keeping its id; 0, or
 * -ENOMEM with l as it was (a list with no ids allocates nothing). */
int cgroup_list_sort_unique(struct cgroup_list *l);

void cgroup_list_free(struct cgroup_list *l);

#endif
