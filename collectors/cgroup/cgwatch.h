/*
 * cgwatch.h - inotify on the cgroup directories whose new children could match
 * a configured path, so that a container is counted within one interval of its
 * birth and closed promptly when it dies.
 * Design: docs/architecture.md, "collectors/cgroup/".
 */
#ifndef PMU_CGWATCH_H
#define PMU_CGWATCH_H

#include "collectors/cgroup/cgroupfs.h"

struct cgwatch;

/* 0 or -errno (no inotify: the caller falls back on rescans alone). */
int cgwatch_new(struct cgwatch **out);

/* The fd to poll for POLLIN. */
int cgwatch_fd(const struct cgwatch *w);

/*
 * Watch exactly the directories in dirs (paths relative to root; sorted
 * and unique).  Returns 0, or -ENOSPC when the inotify watch limit was
 * hit (some directories are then not watched), or another -errno.
 */
int cgwatch_set(struct cgwatch *w, const char *root,
    const struct cgroup_list *dirs);

/*
 * Read every pending event.  Returns 1 if a directory was created,
 * removed or moved (or the queue overflowed), 0 if nothing relevant,
 * -errno on error.
 */
int cgwatch_drain(struct cgwatch *w);

void cgwatch_free(struct cgwatch *w);

#endif
