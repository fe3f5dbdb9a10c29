/*
 * cgnews.c - what a pass says of the cgroups it began counting and those
 * gone: one info line per subtree (a delegated subtree's root, else the
 * parent) with the counts, each cgroup at debug, a subtree's single
 * change by name.  See docs/architecture.md's table.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/cgnews.h"
#include "collectors/collector/report.h"
#include "collectors/collector/target.h"

/* One subtree's news in this pass, and its first change, to be said by
 * name when it stays the only one. */
struct cgnews_sub {
	char *subtree;
	size_t came, went;
	char *first;			/* the first cgroup's path */
	int first_came;
};

static void
say_one(const struct report *rp, int prio, const char *path, int came)
{
	if (came)
		REPORT(rp, prio, path, NULL, NULL, -1, 0, "counting cgroup %s",
		    path);
	else
		REPORT(rp, prio, path, NULL, NULL, -1, 0, "cgroup %s is gone; "
		    "its series are dropped", path);
}

/* The length of t's subtree's path: its delegated root, or its parent. */
static size_t
subtree_len(const struct target *t)
{
	const char *slash;

	if (t->deleg)
		return t->deleg;
	slash = strrchr(t->cgroup, '/');
	return slash && slash != t->cgroup ? (size_t)(slash - t->cgroup) : 1;
}

static struct cgnews_sub *
sub_find(struct cgnews *n, const char *path, size_t len)
{
	size_t i;

	/* A pass meets cgroups in path order: mostly the last subtree. */
	if (n->nr && strncmp(n->v[n->nr - 1].subtree, path, len) == 0 &&
	    n->v[n->nr - 1].subtree[len] == '\0')
		return &n->v[n->nr - 1];
	for (i = 0; i < n->nr; i++)
		if (strncmp(n->v[i].subtree, path, len) == 0 &&
		    n->v[i].subtree[len] == '\0')
			return &n->v[i];
	return NULL;
}

/* A new subtree in n; NULL out of memory. */
static struct cgnews_sub *
sub_add(struct cgnews *n, const char *path, size_t len)
{
	struct cgnews_sub *tmp, *s;

	tmp = realloc(n->v, (n->nr + 1) * sizeof(*tmp));
	if (tmp == NULL)
		return NULL;
	n->v = tmp;
	s = &tmp[n->nr];
	memset(s, 0, sizeof(*s));
	if ((s->subtree = strndup(path, len)) == NULL)
		return NULL;
	n->nr++;
	return s;
}

int
cgnews_add(const struct report *rp, struct cgnews *n, const struct target *t,
    int came)
{
	size_t len = subtree_len(t);
	struct cgnews_sub *s = sub_find(n, t->cgroup, len);

	if (s == NULL && (s = sub_add(n, t->cgroup, len)) == NULL) {
		/* No memory to gather it: said alone. */
		say_one(rp, LOG_INFO, t->cgroup, came);
		return -ENOMEM;
	}
	if (s->came + s->went == 0) {
		/* Said at the end: by name if it stays alone. */
		s->first = strdup(t->cgroup);
		s->first_came = came;
		if (s->first == NULL) {
			say_one(rp, LOG_INFO, t->cgroup, came);
			return -ENOMEM;
		}
	} else {
		if (s->came + s->went == 1 && s->first)
			say_one(rp, LOG_DEBUG, s->first, s->first_came);
		say_one(rp, LOG_DEBUG, t->cgroup, came);
	}
	if (came)
		s->came++;
	else
		s->went++;
	return 0;
}

void
cgnews_say(const struct report *rp, struct cgnews *n)
{
	const struct cgnews_sub *s;
	size_t i;

	for (i = 0; i < n->nr; i++) {
		s = &n->v[i];
		if (s->came + s->went == 1 && s->first)
			say_one(rp, LOG_INFO, s->first, s->first_came);
		else if (s->came + s->went > 1)
			REPORT(rp, LOG_INFO, s->subtree, NULL, NULL, -1, 0,
			    "cgroups under %s: %zu counted, %zu gone "
			    "(each at debug)",
			    s->subtree, s->came, s->went);
	}
	cgnews_free(n);
}

void
cgnews_free(struct cgnews *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		free(n->v[i].subtree);
		free(n->v[i].first);
	}
	free(n->v);
	n->v = NULL;
	n->nr = 0;
}
