/*
 * departed.c - the cgroups gone from the target set, their counts kept a
 * while by path (departed.h): a sorted array of folded targets (no fd,
 * no slot, only their accumulators), found by binary search when a
 * cgroup appears at a path, bounded in time and in number.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/departed.h"
#include "collectors/collector/target.h"

/* Where path is, or would go, in d->v. */
static size_t
departed_at(const struct departed *d, const char *path)
{
	size_t lo = 0, hi = d->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(d->v[mid]->cgroup, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
departed_remove(struct departed *d, size_t i)
{
	target_free(d->v[i]);
	memmove(&d->v[i], &d->v[i + 1], (d->nr - i - 1) * sizeof(*d->v));
	d->nr--;
}

/* The entry to give up for room: the oldest of a delegated subtree, else
 * the oldest. */
static size_t
departed_victim(const struct departed *d)
{
	size_t i, old = 0, deleg = d->nr;

	for (i = 0; i < d->nr; i++) {
		if (d->v[i]->gone_ns < d->v[old]->gone_ns)
			old = i;
		if (d->v[i]->deleg && (deleg == d->nr ||
		    d->v[i]->gone_ns < d->v[deleg]->gone_ns))
			deleg = i;
	}
	return deleg < d->nr ? deleg : old;
}

int
departed_room(struct departed *d, size_t n)
{
	struct target **v;
	size_t want = d->nr + n < DEPARTED_MAX ? d->nr + n : DEPARTED_MAX;

	if (want <= d->cap)
		return 0;
	if ((v = realloc(d->v, want * sizeof(*v))) == NULL)
		return -ENOMEM;
	d->v = v;
	d->cap = want;
	return 0;
}

void
departed_add(struct departed *d, struct target *t, uint64_t now)
{
	size_t i;

	t->gone_ns = now;
	i = departed_at(d, t->cgroup);
	if (i < d->nr && strcmp(d->v[i]->cgroup, t->cgroup) == 0) {
		target_free(d->v[i]);	/* gone twice: the newer counts */
		d->v[i] = t;
		return;
	}
	if (d->nr == DEPARTED_MAX) {
		departed_remove(d, departed_victim(d));
		i = departed_at(d, t->cgroup);
	}
	if (d->nr == d->cap && departed_room(d, d->cap ? d->cap : 16) < 0) {
		target_free(t);		/* its series start anew, if back */
		return;
	}
	memmove(&d->v[i + 1], &d->v[i], (d->nr - i) * sizeof(*d->v));
	d->v[i] = t;
	d->nr++;
}

struct target *
departed_find(const struct departed *d, const char *path)
{
	size_t i = departed_at(d, path);

	return i < d->nr && strcmp(d->v[i]->cgroup, path) == 0 ? d->v[i] :
	    NULL;
}

void
departed_drop(struct departed *d, const char *path)
{
	size_t i = departed_at(d, path);

	if (i < d->nr && strcmp(d->v[i]->cgroup, path) == 0)
		departed_remove(d, i);
}

void
departed_expire(struct departed *d, uint64_t now)
{
	size_t i, j;

	for (i = 0, j = 0; i < d->nr; i++)
		if (now - d->v[i]->gone_ns >= DEPARTED_NS)
			target_free(d->v[i]);
		else
			d->v[j++] = d->v[i];
	d->nr = j;
}

void
departed_clear(struct departed *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		target_free(d->v[i]);
	free(d->v);
	*d = (struct departed){ NULL, 0, 0 };
}
