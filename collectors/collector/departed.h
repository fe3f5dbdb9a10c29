/*
 * departed.h - the counts of cgroups gone from the target set, kept a
 * while by path (departed.c), so that a service or container restarted
 * by removing its cgroup and making it again at the same path, seconds
 * later, goes on counting in the same series: never back, so rate()
 * sees no reset (docs/metrics.md, "Restarts").  Owned by the target set
 * (targetset.h).  Collector thread only.
 */
#ifndef PMU_COLLECTOR_DEPARTED_H
#define PMU_COLLECTOR_DEPARTED_H

#include <stddef.h>
#include <stdint.h>

struct target;

/*
 * How long a departed cgroup's counts are kept: Prometheus' default
 * lookback, past which its series is stale anyway and a new one starting
 * from zero is no reset to anyone's rate().  And how many are kept: each
 * is its path and its folded counts (target_depart), a few hundred bytes
 * for a summed series; past the cap the oldest in a delegated subtree
 * goes first, then the oldest, so that no tenant's churn pushes out the
 * host's services.
 */
#define DEPARTED_NS	(300ULL * 1000000000ULL)
#define DEPARTED_MAX	4096

struct departed {
	struct target **v;		/* sorted (target_cmp), folded */
	size_t nr, cap;
};

/*
 * departed_add: t (folded by target_depart) kept from now (ns), taking
 * it over (freed at once when there is no memory for it, or when it
 * replaces an entry of its path).  departed_find: the entry of path, or
 * NULL.  departed_drop: the entry of path freed (its counts taken).
 * departed_expire: the entries older than DEPARTED_NS at now freed.
 * departed_clear: every entry freed (a new plan: their groups are the
 * old plan's).  departed_room: room for n more entries made now (0 or
 * -ENOMEM), so that adding them later allocates nothing.
 */
void departed_add(struct departed *d, struct target *t, uint64_t now);
struct target *departed_find(const struct departed *d, const char *path);
void departed_drop(struct departed *d, const char *path);
void departed_expire(struct departed *d, uint64_t now);
void departed_clear(struct departed *d);
int departed_room(struct departed *d, size_t n);

#endif
