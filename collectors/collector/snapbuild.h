/*
 * snapbuild.h - the snapshot of the collector now (snapbuild.c), built
 * by reading only.  What the collector acts on after comes back in a
 * struct snapseen: the container ids of the targets counted and their
 * cgroups, which it tells the name resolver when the set changed, and the targets held out
 * of this snapshot until the resolver has looked their id up, which it
 * marks so that they are held out once only (target.names_held).
 */
#ifndef PMU_SNAPBUILD_H
#define PMU_SNAPBUILD_H

#include <stddef.h>

struct collector;
struct namemap;
struct snapshot;

struct snapseen {
	const char **ids;	/* [nr_ids], pointing into the targets' labels */
	const char **cgs;	/* [nr_ids]: each id's cgroup (the target's) */
	size_t nr_ids;
	size_t *held;		/* [nr_held]: indexes into c->set.v */
	size_t nr_held;
};

/*
 * A new snapshot (one reference, the caller's) of c with the name map nm
 * (NULL: no resolver), whose reference the snapshot takes over (freed
 * with it, or at once on failure), and in
 * *seen what it saw (NULLs and 0s when nm is NULL; snapseen_free it).
 * Its times (interval_s, began_ns, duration_s) are the collection's to
 * fill (interval.c), which alone knows them.  NULL on ENOMEM, *seen then
 * empty.
 */
struct snapshot *snapbuild(const struct collector *c, struct namemap *nm,
    struct snapseen *seen);
void snapseen_free(struct snapseen *seen);

/* How many of c's targets have a container id the name map nm (whose
 * reference this takes; NULL: none) has no entry for yet. */
size_t snapbuild_unlooked(const struct collector *c, struct namemap *nm);

#endif
