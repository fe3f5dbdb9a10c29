/*
 * rawset.c - collect_bench's raw copy (see rawset.h): the collector's
 * targets opened a second time by hand, group by group, from the plan
 * alone: a cpus: entry's groups on its CPUs, merged per group within the
 * online ones; a cgroups: entry's groups on every online CPU of each
 * cgroup its pattern expands to, each distinct (cgroup, group) pair once
 * and each cgroup's directory opened once for all its groups, as the
 * collector merges them.  Nothing here is timed: collect_bench.c times
 * rawset_read against a collection.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "bench/rawset.h"
#include "collectors/cgroup/cgroupfs.h"

static int
rawset_add(struct rawset *rs, const struct perf_event_attr *attrs,
    size_t nr_events, int pid, int cpu, unsigned long flags)
{
	struct perf_group *pg;
	int r;

	if (rs->nr == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;

		if ((pg = realloc(rs->pg, cap * sizeof(*pg))) == NULL)
			return -ENOMEM;
		rs->pg = pg;
		rs->cap = cap;
	}
	pg = &rs->pg[rs->nr];
	if ((r = group_init(pg, nr_events)) < 0)
		return r;
	rs->nr++;
	r = group_open(pg, attrs, pid, cpu, flags);
	if (r < 0) {
		rs->failed++;
		return r == -EMFILE || r == -ENFILE ? r : 0;
	}
	rs->fds += pg->nr;
	return 0;
}

void
rawset_free(struct rawset *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		group_fini(&rs->pg[i]);
	free(rs->pg);
	memset(rs, 0, sizeof(*rs));
}

struct cgpair {
	char *path;
	size_t gi;
};

static int
cmp_cgpair(const void *a, const void *b)
{
	const struct cgpair *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return (x->gi > y->gi) - (x->gi < y->gi);
}

static void
attrs_free(struct perf_event_attr **attrs, size_t nr_groups)
{
	size_t i;

	for (i = 0; attrs && i < nr_groups; i++)
		free(attrs[i]);
	free(attrs);
}

/* Every group's attrs, as group_open takes them; NULL when out of
 * memory. */
static struct perf_event_attr **
attrs_of(const struct plan *cfg)
{
	struct perf_event_attr **attrs;
	size_t i, e;

	if ((attrs = calloc(cfg->nr_groups, sizeof(*attrs))) == NULL)
		return NULL;
	for (i = 0; i < cfg->nr_groups; i++) {
		attrs[i] = calloc(cfg->groups[i].nr_events, sizeof(**attrs));
		if (attrs[i] == NULL) {
			attrs_free(attrs, cfg->nr_groups);
			return NULL;
		}
		for (e = 0; e < cfg->groups[i].nr_events; e++)
			attrs[i][e] = cfg->groups[i].events[e].perf.attr;
	}
	return attrs;
}

/* Does a cpus: entry of cfg count group gi on cpu? */
static int
cpu_wants(const struct plan *cfg, size_t gi, int cpu)
{
	size_t j, g;

	for (j = 0; j < cfg->nr_targets; j++) {
		const struct plan_target *t = &cfg->targets[j];

		if (t->kind != PLAN_TARGET_CPU)
			continue;
		for (g = 0; g < t->nr_groups; g++)
			if (t->groups[g] == gi &&
			    (t->all_cpus || cpumap_has(&t->cpus, cpu)))
				return 1;
	}
	return 0;
}

/* System-wide: per group, the union of its CPUs (online only). */
static int
rawset_open_cpus(struct rawset *rs, const struct plan *cfg,
    struct perf_event_attr **attrs, const struct cpumap *online)
{
	size_t i, k;
	int r = 0;

	for (i = 0; i < cfg->nr_groups && r == 0; i++)
		for (k = 0; k < online->nr && r == 0; k++)
			if (cpu_wants(cfg, i, online->cpu[k]))
				r = rawset_add(rs, attrs[i],
				    cfg->groups[i].nr_events, -1,
				    online->cpu[k], 0);
	return r;
}

static void
cgpairs_free(struct cgpair *pairs, size_t npairs)
{
	size_t i;

	for (i = 0; i < npairs; i++)
		free(pairs[i].path);
	free(pairs);
}

/* Appends (path, gi) to *pairs: 0 or -ENOMEM. */
static int
cgpairs_add(struct cgpair **pairs, size_t *npairs, size_t *cap,
    const char *path, size_t gi)
{
	struct cgpair *tmp;

	if (*npairs == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((tmp = realloc(*pairs, *cap * sizeof(*tmp))) == NULL)
			return -ENOMEM;
		*pairs = tmp;
	}
	if (((*pairs)[*npairs].path = strdup(path)) == NULL)
		return -ENOMEM;
	(*pairs)[(*npairs)++].gi = gi;
	return 0;
}

/* Every cgroups: pattern expanded, as (path, group) pairs sorted, so
 * that equal pairs and one cgroup's groups are neighbours.  0 or
 * -errno. */
static int
cgpairs_expand(const struct plan *cfg, const char *cgroot,
    struct cgpair **pairs, size_t *npairs)
{
	size_t cap = 0, i, j, k;
	int r = 0;

	*pairs = NULL;
	*npairs = 0;
	for (j = 0; j < cfg->nr_targets && cgroot && r == 0; j++) {
		const struct plan_target *t = &cfg->targets[j];
		struct cgroup_list l;

		if (t->kind != PLAN_TARGET_CGROUP)
			continue;
		if ((r = cgroupfs_expand(cgroot, t->path, t->depth,
		    t->max_dirs, t->exclude, t->nr_exclude, &l, NULL, NULL)) < 0)
			break;
		for (i = 0; i < l.nr && r == 0; i++)
			for (k = 0; k < t->nr_groups && r == 0; k++)
				r = cgpairs_add(pairs, npairs, &cap, l.path[i],
				    t->groups[k]);
		cgroup_list_free(&l);
	}
	if (r == 0 && *npairs > 1)
		qsort(*pairs, *npairs, sizeof(**pairs), cmp_cgpair);
	return r;
}

/* Each distinct (cgroup, group) pair on every online CPU, the cgroup's
 * directory opened once for all its groups. */
static int
rawset_open_cgroups(struct rawset *rs, const struct plan *cfg,
    struct perf_event_attr **attrs, const struct cpumap *online,
    const char *cgroot, const struct cgpair *pairs, size_t npairs,
    const volatile sig_atomic_t *stop)
{
	char path[8192];
	size_t i, k;
	int r = 0, cgfd = -1;

	for (i = 0; i < npairs && r == 0 && !*stop; i++) {
		if (i > 0 && cmp_cgpair(&pairs[i - 1], &pairs[i]) == 0)
			continue;
		if (i == 0 || strcmp(pairs[i - 1].path, pairs[i].path) != 0) {
			if (cgfd >= 0)
				close(cgfd);
			snprintf(path, sizeof(path), "%s%s", cgroot,
			    strcmp(pairs[i].path, "/") == 0 ? "" :
			    pairs[i].path);
			cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (cgfd < 0) {
				fprintf(stderr, "collect_bench: %s: %s\n",
				    path, strerror(errno));
				continue;
			}
		}
		if (cgfd < 0)
			continue;
		for (k = 0; k < online->nr && r == 0; k++)
			r = rawset_add(rs, attrs[pairs[i].gi],
			    cfg->groups[pairs[i].gi].nr_events, cgfd,
			    online->cpu[k], PERF_FLAG_PID_CGROUP);
	}
	if (cgfd >= 0)
		close(cgfd);
	return r;
}

int
rawset_open(struct rawset *rs, const struct plan *cfg,
    const struct cpumap *online, const char *cgroot,
    const volatile sig_atomic_t *stop)
{
	struct perf_event_attr **attrs;
	struct cgpair *pairs = NULL;
	size_t npairs = 0;
	int r;

	if ((attrs = attrs_of(cfg)) == NULL)
		return -ENOMEM;
	if ((r = rawset_open_cpus(rs, cfg, attrs, online)) == 0 &&
	    (r = cgpairs_expand(cfg, cgroot, &pairs, &npairs)) == 0)
		r = rawset_open_cgroups(rs, cfg, attrs, online, cgroot, pairs,
		    npairs, stop);
	cgpairs_free(pairs, npairs);
	attrs_free(attrs, cfg->nr_groups);
	return r;
}

int
rawset_warm(struct rawset *rs, const struct plan *cfg,
    const struct cpumap *online, const char *cgroot)
{
	struct perf_event_attr *attrs;
	size_t e, n = cfg->nr_groups ? cfg->groups[0].nr_events : 0;
	int r, cgfd;

	if (n == 0 || online->nr == 0)
		return 0;
	if ((attrs = calloc(n, sizeof(*attrs))) == NULL)
		return -ENOMEM;
	for (e = 0; e < n; e++)
		attrs[e] = cfg->groups[0].events[e].perf.attr;
	r = rawset_add(rs, attrs, n, -1, online->cpu[0], 0);
	if (r == 0 && cgroot &&
	    (cgfd = open(cgroot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		r = rawset_add(rs, attrs, n, cgfd, online->cpu[0],
		    PERF_FLAG_PID_CGROUP);
		close(cgfd);
	}
	free(attrs);
	return r;
}

size_t
rawset_read(struct rawset *rs)
{
	size_t i, bad = 0;

	for (i = 0; i < rs->nr; i++) {
		struct perf_group *pg = &rs->pg[i];

		if (pg->nr == 0)
			continue;
		if (read(pg->fd[0], pg->buf, pg->buflen) <= 0)
			bad++;
	}
	return bad;
}
