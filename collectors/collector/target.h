/*
 * target.h - one target (target.c): the system-wide CPUs (cgroup NULL) or
 * one cgroup, the plan groups it counts on it (struct tgroup, with their
 * instances, instance.h), its relabelled labels, and what its source
 * kinds attached.  Its own header, like libperf's internal/evlist.h, so
 * that what reads a target's fields says so by its includes; the order
 * of targets (target_cmp) and the look-up by cgroup are here too, as
 * every sorted array of targets (the set, a rebuild's old ones) uses
 * them.  Collector thread only.
 */
#ifndef PMU_COLLECTOR_TARGET_H
#define PMU_COLLECTOR_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/instance.h"
#include "collectors/collector/source.h"

struct asks;
struct inst_ctx;
struct plan;
struct plan_target;


struct target {
	char *cgroup;			/* NULL: system-wide */
	uint64_t id;			/* the cgroup id its instances count
					   (cgroupfs_ino), from its last open;
					   0: never opened.  A cgroup removed
					   and made again at its path has
					   another: a new target takes over
					   its counts (targetset.c) */
	size_t nr_groups, cap_groups;
	struct tgroup *groups;
	uint32_t *at;			/* [at_mask + 1]: position + 1 in
					   groups of each gi, 0 empty; NULL
					   for a few groups (target.c) */
	size_t at_mask;
	size_t nr_labels;		/* from relabel rules */
	char **lname, **lvalue;
	enum target_why state;		/* where its last open left it:
					   TARGET_COUNTED (open) to
					   TARGET_SHARE_REFUSED; a pass
					   (targetset.c) tries every target
					   not open again, but those its
					   subtree's share refuses (share.c) */
	enum target_why declined;	/* the strongest refusal of its
					   entries' kinds, from its planning
					   on (TARGET_COUNTED: none,
					   TARGET_SKIP_ASKED, TARGET_REFUSED):
					   apart from state, as a target
					   another entry gives groups is
					   opened all the same (targetset.c) */
	int seen;			/* a pass's mark (in the next set),
					   not the target's own state */
	int names_held;			/* held out of a snapshot once, for
					   its container's names (snapbuild.c):
					   the snapshot's mark, whatever the
					   state */
	size_t deleg;			/* the length of the prefix of cgroup
					   naming its delegated subtree
					   (cgroupfs_delegated), 0: none */
	int deleg_known;		/* deleg was looked up */
	struct source_hold *attached[SOURCE_KINDS];	/* what each kind's
					   attach left (source.h) */
	uint64_t gone_ns;		/* departed (departed.h): when its
					   cgroup went */
};

/*
 * A rebuild's old targets, whose instances the new ones adopt (targetset.c
 * makes it, target.c finds in it each new group's old one for instance.c):
 * handed down the calls that open the new set, never kept.  In a rescan,
 * the one running target whose cgroup was made again at its path, whose
 * counts the new target takes.  NULL where neither is under way.  An old
 * target whose cgroup id is not the new one's (the cgroup was removed and
 * made again) gives its counts, never its instances (target_open).
 */
struct adopt {
	struct target **old;		/* sorted (target_cmp) */
	size_t nr;
	const struct plan *cfg;		/* the plan they were built from */
};

/* Order: the system-wide target first, then cgroups by path. */
static inline int
target_cmp(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a;
	const struct target *y = *(struct target *const *)b;

	if (x->cgroup == NULL || y->cgroup == NULL)
		return (x->cgroup != NULL) - (y->cgroup != NULL);
	return strcmp(x->cgroup, y->cgroup);
}

/* The target for cgroup (NULL: system-wide) in v, sorted (target_cmp),
 * by binary search; NULL if none. */
static inline struct target *
target_find(struct target *const *v, size_t n, const char *cgroup)
{
	struct target key = { .cgroup = (char *)cgroup }, *kp = &key;
	struct target *const *f;

	f = n ? bsearch(&kp, v, n, sizeof(*v), target_cmp) : NULL;
	return f ? *f : NULL;
}

/* Is t open on another cgroup than the one the walk found at its path
 * with id (0: not known)?  The cgroup was removed and made again. */
static inline int
target_remade(const struct target *t, uint64_t id)
{
	return t->state == TARGET_COUNTED && t->id && id && t->id != id;
}

static inline int
target_is_open(const struct target *t)
{
	return t->state == TARGET_COUNTED;
}

/* The one reason t is not counted (TARGET_COUNTED: it is): a kind's
 * want of room first, then what its entries' kinds declined, then where
 * its last open left it. */
static inline enum target_why
target_why(const struct target *t)
{
	if (t->state == TARGET_NO_ROOM || t->declined == TARGET_COUNTED)
		return t->state;
	return t->declined;
}

static inline const char *
target_name(const struct target *t)
{
	return t->cgroup ? t->cgroup : "system-wide";
}

/*
 * target_new: an empty target (NULL: out of memory); target_free closes
 * and frees it (NULL accepted).  target_plan_cpus, target_plan_entry: its
 * groups from a cpus: entry or a cgroups: one counted by kind unless its
 * fallback: declined it (source.h); 0 or -ENOMEM.  target_open: its instances
 * opened (or adopted from ad) within budget fds, failures asked to be
 * retried in as; the fds it took, or -errno.  target_retire: read one
 * last time, then freed.
 */
void target_free(struct target *t);
struct target *target_new(const char *cgroup);
int target_plan_cpus(const struct inst_ctx *x, struct target *t,
    const struct plan_target *ct);
int target_plan_entry(const struct inst_ctx *x, struct target *t,
    const struct plan_target *ct, const struct source_kind *kind,
    enum target_why declined);
long target_open(const struct inst_ctx *x, struct target *t,
    const struct adopt *ad, struct asks *as, size_t budget, int enable);
size_t target_fds(const struct target *t);	/* perf fds it holds */
void target_enable(struct target *t);
void target_close(struct target *t);
void target_retire(struct target *t);
int target_depart_room(struct target *t, const struct plan *cfg);
void target_depart(struct target *t, const struct plan *cfg);

#endif
