/*
 * share.c - each delegated subtree's share of what a pass opens: at most
 * delegated_max_cgroups counted in a subtree a user owns, and a cgroup
 * not delegated that finds no room taking it from one that is.  Why:
 * docs/configuration.md, "Delegated subtrees"; docs/architecture.md.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/report.h"
#include "collectors/collector/share.h"
#include "collectors/collector/target.h"

static struct share *
share_find(const struct shares *sh, const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < sh->nr; i++)
		if (strlen(sh->v[i].subtree) == len &&
		    memcmp(sh->v[i].subtree, path, len) == 0)
			return &sh->v[i];
	return NULL;
}

/* t's subtree's share, made when first met.  NULL: out of memory. */
static struct share *
share_of(struct shares *sh, const struct target *t)
{
	struct share *s = share_find(sh, t->cgroup, t->deleg), *tmp;

	if (s)
		return s;
	tmp = realloc(sh->v, (sh->nr + 1) * sizeof(*tmp));
	if (tmp == NULL)
		return NULL;
	sh->v = tmp;
	s = &tmp[sh->nr];
	if ((s->subtree = strndup(t->cgroup, t->deleg)) == NULL)
		return NULL;
	s->counted = s->refused = 0;
	sh->nr++;
	return s;
}

int
shares_begin(const char *cgroot, struct target *const *v, size_t n,
    struct shares *sh)
{
	struct share *s;
	size_t i;

	for (i = 0; i < n; i++) {
		struct target *t = v[i];

		if (t->cgroup == NULL)
			continue;
		if (t->state == TARGET_SHARE_REFUSED)
			t->state = TARGET_UNOPENED;
		/* Gone meanwhile: not delegated, and its open fails. */
		if (!t->deleg_known && cgroupfs_delegated(cgroot,
		    t->cgroup, &t->deleg) < 0)
			t->deleg = 0;
		t->deleg_known = 1;
		if (t->deleg == 0)
			continue;
		if ((s = share_of(sh, t)) == NULL)
			return -ENOMEM;
		s->counted += target_is_open(t);
	}
	return 0;
}

int
shares_admit(const struct plan *cfg, struct shares *sh, struct target *t)
{
	struct share *s;

	if (t->state == TARGET_SHARE_REFUSED)
		return 0;		/* it gave its room up in this pass */
	if (t->cgroup == NULL || t->deleg == 0)
		return 1;
	s = share_find(sh, t->cgroup, t->deleg);
	if (s && s->counted >= cfg->delegated_max) {
		t->state = TARGET_SHARE_REFUSED;
		return 0;
	}
	return 1;
}

void
shares_opened(struct shares *sh, const struct target *t)
{
	struct share *s;

	if (t->cgroup && t->deleg &&
	    (s = share_find(sh, t->cgroup, t->deleg)) != NULL)
		s->counted++;
}

int
shares_evict(const struct report *rp, struct shares *sh,
    struct target *const *v, size_t n, const struct target *for_whom,
    size_t *fds)
{
	struct share *s;
	struct target *t;
	size_t i;

	/* The last one opened in path order: a subtree's first cgroups,
	 * which it has counted longest, stay. */
	for (i = n; i-- > 0;) {
		t = v[i];
		if (!target_is_open(t) || t->cgroup == NULL || t->deleg == 0 ||
		    (s = share_find(sh, t->cgroup, t->deleg)) == NULL)
			continue;
		*fds = target_fds(t);
		target_close(t);
		t->state = TARGET_SHARE_REFUSED;
		s->counted--;
		REPORT(rp, LOG_DEBUG, t->cgroup, NULL, NULL, -1, 0,
		    "cgroup %s, of the "
		    "delegated subtree %s, is not counted any more: its room "
		    "goes to %s", t->cgroup, s->subtree, for_whom->cgroup);
		return 1;
	}
	return 0;
}

void
shares_free(struct shares *sh)
{
	size_t i;

	for (i = 0; i < sh->nr; i++)
		free(sh->v[i].subtree);
	free(sh->v);
	sh->v = NULL;
	sh->nr = 0;
}

/* What the log last said of subtree path: its refusals then. */
static size_t
said_before(const struct shares *old, const char *path)
{
	const struct share *s = share_find(old, path, strlen(path));

	return s ? s->refused : 0;
}

/*
 * What the pass left of each subtree: its cgroups in the set v not
 * counted, for its share or for want of room (the set is the pass's,
 * swapped in); the number refused for the share alone.
 */
static size_t
shares_tally(struct shares *sh, struct target *const *v, size_t n)
{
	struct share *s;
	size_t i, refused = 0;

	for (i = 0; i < n; i++) {
		const struct target *t = v[i];

		if (t->cgroup == NULL || t->deleg == 0 || target_is_open(t) ||
		    (s = share_find(sh, t->cgroup, t->deleg)) == NULL)
			continue;
		s->refused++;
		refused += t->state == TARGET_SHARE_REFUSED;
	}
	return refused;
}

size_t
shares_end(const struct report *rp, const struct plan *cfg,
    struct shares *sh, const struct shares *last, struct target *const *v,
    size_t n)
{
	const struct share *s;
	size_t i, before, refused = shares_tally(sh, v, n);

	for (i = 0; i < sh->nr; i++) {
		s = &sh->v[i];
		before = said_before(last, s->subtree);
		if (s->refused && s->refused != before)
			REPORT(rp, LOG_WARNING, s->subtree, NULL, NULL, -1, 0,
			    "delegated subtree %s: %zu cgroup%s not counted: "
			    "it has its share, %zu (delegated_max_cgroups), "
			    "or no room is left, and cgroups not delegated "
			    "go first", s->subtree, s->refused,
			    s->refused == 1 ? " is" : "s are",
			    cfg->delegated_max);
		else if (s->refused == 0 && before)
			REPORT(rp, LOG_INFO, s->subtree, NULL, NULL, -1, 0,
			    "delegated subtree %s: every cgroup is counted "
			    "now", s->subtree);
	}
	return refused;
}
