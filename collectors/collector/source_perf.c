/*
 * source_perf.c - the default source kind (source.h): the instance's own
 * perf group on its CPU, system-wide or in cgroup mode; the model a new
 * kind copies.
 * Design: docs/architecture.md, "collectors/collector/: the source kinds".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define PROBE_MAX 32		/* counters probed for at most */

/*
 * How many copies of attr the PMU schedules at once on cpu: open groups of
 * 1, 2, ... copies and keep the largest one that gets running time (or that
 * the kernel accepts at all: some PMUs refuse an impossible group at open).
 * sysfs does not tell the number of counters, so this asks the PMU itself.
 * Returns the count, or -1 if not even one copy could be measured.
 */
static int
probe_counters(const struct perf_event_attr *attr, int cpu)
{
	struct perf_event_attr copies[PROBE_MAX];
	struct timespec ts = { 0, 20000000 };
	struct perf_group pg;
	struct count cur[PROBE_MAX];
	int k, fits = -1;
	size_t i;

	for (i = 0; i < PROBE_MAX; i++)
		copies[i] = *attr;
	for (k = 1; k <= PROBE_MAX; k++) {
		if (group_init(&pg, (size_t)k) < 0)
			break;
		if (group_open(&pg, copies, -1, cpu, 0) < 0 ||
		    pg.nr != (size_t)k) {
			group_fini(&pg);
			break;
		}
		group_enable(&pg, 1);
		nanosleep(&ts, NULL);
		if (group_read(&pg, cur) < 0 || cur[0].running == 0) {
			group_fini(&pg);
			break;
		}
		group_fini(&pg);
		fits = k;
	}
	return fits;
}

/*
 * --check-config: group gi was enabled and never ran on unsched CPUs.
 * Only a group with an event that takes a counter can wait for one: a
 * software group of a cgroup can show enabled time and no running time
 * on a CPU where the cgroup did not run since it was opened (seen for an
 * idle service on Linux 6.18): nothing to explain.  Else the PMU is
 * asked how many counters it has for the first hardware event.
 */
static int
perf_unscheduled(const struct source_ctx *x, size_t gi, size_t unsched,
    int cpu, FILE *out)
{
	const struct plan_group *g = &x->cfg->groups[gi];
	const struct perf_event_attr *hw = NULL;
	size_t e, nhw = 0;
	int n = -1;

	for (e = 0; e < g->nr_events; e++)
		if (group_uses_counter(&g->events[e].perf.attr)) {
			nhw++;
			if (hw == NULL)
				hw = &x->attrs[gi][e];
		}
	if (nhw == 0)
		return 0;
	if (hw)
		n = probe_counters(hw, cpu);
	if (n >= 0 && (size_t)n < nhw)
		fprintf(out, "  never scheduled on %zu CPUs: the group has %zu "
		    "hardware events and the PMU showed %d counters for them "
		    "(cpu %d): split the group\n", unsched, nhw, n, cpu);
	else
		fprintf(out, "  never scheduled on %zu CPUs: the PMU showed %d "
		    "counters for its %zu hardware events (cpu %d), so it is "
		    "busy: pinned events or another user hold them\n",
		    unsched, n, nhw, cpu);
	return 1;
}

static const struct source_check_ops perf_check_ops = {
	.unscheduled = perf_unscheduled,
};

/* The default mode: it runs wherever perf does, on any group. */
static const struct plan_kind perf_desc = {
	.name = "perf",
};

const struct source_kind source_perf_kind = {
	.desc = &perf_desc,
	.open = perf_open,
	.own_fds = 1,
	.check = &perf_check_ops,
};
