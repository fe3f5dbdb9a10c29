/*
 * source_perf.c - the default source (see source.h): the instance's own
 * perf group (collectors/perf/group.h), on its CPU, system-wide or for
 * its cgroup in cgroup mode (PERF_FLAG_PID_CGROUP).  Every event of the
 * group is one fd; one read() returns them all.
 *
 * It is also the model for a new kind: one file that includes source.h
 * and what it counts with (never the collector's internals: what a hook
 * needs comes in its source_ctx), ends with its struct source_kind, and
 * is named by one line of source_kinds[] in source.c.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/source.h"
#include "collectors/perf/group.h"

struct source_perf {
	struct source s;
	struct perf_group pg;
};

static int
perf_read(struct source *s, struct count *out)
{
	struct source_perf *p = (struct source_perf *)s;

	return group_read(&p->pg, out);
}

static int
perf_enable(struct source *s)
{
	return group_enable(&((struct source_perf *)s)->pg, 1);
}

static void
perf_close(struct source *s)
{
	struct source_perf *p = (struct source_perf *)s;

	group_fini(&p->pg);
	free(p);
}

static const struct source_ops perf_ops_table = {
	.read = perf_read,
	.enable = perf_enable,
	.close = perf_close,
};

static int
perf_open(const struct source_ctx *x, const struct source_at *at, int cgfd,
    struct source_opened *o, struct source **out)
{
	size_t ne = x->cfg->groups[at->gi].nr_events;
	struct source_perf *p;
	int r;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	if ((r = group_init(&p->pg, ne)) < 0) {
		free(p);
		return r;
	}
	r = group_open(&p->pg, x->attrs[at->gi], at->cgroup ? cgfd : -1,
	    at->cpu, at->cgroup ? PERF_FLAG_PID_CGROUP : 0);
	memcpy(o->err, p->pg.err, ne * sizeof(*o->err));
	/* All ENOENT in cgroup mode: the events, or the cgroup? */
	o->no_perf_cgroup = r == -ENOENT && at->cgroup && cgfd >= 0 &&
	    cgroupfs_alive(cgfd) &&
	    group_probe_cgroup(cgfd, at->cpu) == -ENOENT;
	if (r < 0) {
		perf_close(&p->s);
		return r;
	}
	p->s.ops = &perf_ops_table;
	p->s.nr = p->pg.nr;
	p->s.evidx = p->pg.evidx;
	p->s.fds = p->pg.nr;
	*out = &p->s;
	return 0;
}

/* The default mode: it runs wherever perf does, on any group. */
static const struct plan_kind perf_desc = {
	.name = "perf",
};

const struct source_kind source_perf_kind = {
	.desc = &perf_desc,
	.open = perf_open,
	.own_fds = 1,
};
