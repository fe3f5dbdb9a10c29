/*
 * names.h - container ids resolved to the names operators use, read from the
 * runtimes' own state on the node by one thread, published as an immutable map
 * that the collector reads without I/O or lock.
 * Design: docs/containers.md, "Container names"; docs/architecture.md,
 * "names/".
 */
#ifndef PMU_NAMES_H
#define PMU_NAMES_H

#include <stddef.h>

#include "names/names_resolve.h"
#include "names/names_types.h"
#include "util/publish.h"

/*
 * What the resolver knows about one id in one cgroup.  v[i] NULL: no
 * such label.  Names are given only when the record of the runtime that
 * owns the container places it in that cgroup (or a cgroup below it):
 * the id in a cgroup's path is anyone's to choose (a user names the
 * cgroups of a subtree systemd delegated to it), the runtime's record is
 * not.
 */
struct namemap_entry {
	const char *id;
	const char *cgroup;		/* as the collector gave it */
	int found;			/* 0: no runtime places id here (yet) */
	int sandbox;			/* a pod's sandbox (pause) container, as
					   its runtime's own record says, in a
					   cgroup no user was delegated: the
					   collector shows its series apart,
					   in the pmu_cgroup_hidden_* family */
	const char *v[NAMES_NR];
};

/* An immutable map, sorted by id, then cgroup. */
struct namemap {
	struct publish_ref ref;		/* util/publish.h */
	size_t nr;
	struct namemap_entry *e;
};

/* The entry for id in cgroup, or NULL if the resolver has not looked it
 * up yet. */
const struct namemap_entry *namemap_find(const struct namemap *m,
    const char *id, const char *cgroup);
void namemap_unref(struct namemap *m);

struct names;

/* A resolver, its thread not started.  0 or -ENOMEM. */
int names_new(const struct names_opts *o, struct names **out);

/* Start the thread.  0 or -errno. */
int names_start(struct names *n);

/* Stop the thread (if started) and free everything; NULL is fine.  It
 * waits 2 s at most: a thread stuck in a lookup (a hung file system) is
 * left running, with what it uses, for the exiting process to end. */
void names_free(struct names *n);

/*
 * The ids counted now, each with the cgroup it was read from (a path
 * from the cgroup mount, "/a/b"), the whole set, and the mount they are
 * under (cgroot; NULL: unknown, then no cgroup is taken for a sandbox).
 * Any thread; never blocks for long: one short lock to swap a pointer.
 * Ids not valid are ignored; pairs no longer in the set are forgotten,
 * which is what bounds the memory.  A set taken is never lost: if the
 * resolver runs out of memory merging it, it keeps it and merges it
 * again later.  0 or -ENOMEM (the previous set stays: tell it again).
 */
int names_want(struct names *n, const char *cgroot, const char *const *ids,
    const char *const *cgroups, size_t nr);

/* The newest map with a reference (namemap_unref it); never NULL. */
struct namemap *names_map(struct names *n);

#endif
