/*
 * rebuild.c - the whole target set from a plan: built at start, and
 * rebuilt (keeping every instance that stays the same, see instance.c)
 * at a reload, after a CPU change and when failed instances are retried.
 * The system-wide target is the union of the cpus: entries; the cgroup
 * targets come from discovery.c.  Above target.c, instance.c and
 * discovery.c; called by collector.c and interval.c through one entry,
 * targetset_reconcile, with the reason the set changes.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collectors/collector/collector_int.h"

/* ---- config-dependent state ------------------------------------- */

/* The per-config tables: attrs per group, what was reported. */
int
rebuild_cfgstate_init(struct collector *c, const struct plan *cfg)
{
	size_t i, e;

	c->cfg = cfg;
	c->ps.attrs = calloc(cfg->nr_groups, sizeof(*c->ps.attrs));
	c->ps.ev_logged = calloc(cfg->nr_groups, sizeof(*c->ps.ev_logged));
	c->ps.pattern_empty = calloc(cfg->nr_targets + 1, sizeof(int));
	c->ps.layout_said = calloc(cfg->nr_layouts + 1, sizeof(*c->ps.layout_said));
	if (!c->ps.attrs || !c->ps.ev_logged || !c->ps.pattern_empty || !c->ps.layout_said)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		size_t ne = cfg->groups[i].nr_events;

		c->ps.attrs[i] = calloc(ne, sizeof(**c->ps.attrs));
		c->ps.ev_logged[i] = calloc(ne, sizeof(**c->ps.ev_logged));
		if (!c->ps.attrs[i] || !c->ps.ev_logged[i])
			return -ENOMEM;
		for (e = 0; e < ne; e++)
			c->ps.attrs[i][e] = cfg->groups[i].events[e].attr;
	}
	return 0;
}

void
rebuild_cfgstate_fini(const struct plan *cfg, struct perf_event_attr **attrs,
    int **ev_logged, int *pattern_empty, struct layout_said *layout_said)
{
	size_t i;

	for (i = 0; cfg && i < cfg->nr_groups; i++) {
		if (attrs)
			free(attrs[i]);
		if (ev_logged)
			free(ev_logged[i]);
	}
	free(attrs);
	free(ev_logged);
	free(pattern_empty);
	free(layout_said);
}

/*
 * The target for a cgroup path: binary search over the first nsorted
 * targets (kept sorted between rescans), then the ones added since.
 */
static struct target *
target_find_cgroup(struct collector *c, const char *path,
    size_t nsorted)
{
	struct target key = { .cgroup = (char *)path }, *kp = &key, **f;
	size_t i;

	f = nsorted == 0 ? NULL : bsearch(&kp, c->set.v, nsorted,
	    sizeof(*c->set.v), target_cmp);
	if (f)
		return *f;
	for (i = nsorted; i < c->set.nr; i++)
		if (c->set.v[i]->cgroup &&
		    strcmp(c->set.v[i]->cgroup, path) == 0)
			return c->set.v[i];
	return NULL;
}

/* The system-wide target: the union of every cpus: entry. */
static int
build_cpu_target(struct collector *c, struct target **out)
{
	const struct plan *cfg = c->cfg;
	struct target *t = NULL;
	struct cpumap m = { 0, NULL };
	size_t i, j;
	int r = 0;

	for (i = 0; i < cfg->nr_targets && r == 0; i++) {
		const struct plan_target *ct = &cfg->targets[i];
		char want[256], have[256];

		if (ct->kind != PLAN_TARGET_CPU)
			continue;
		if (t == NULL && (t = target_new(NULL)) == NULL)
			return -ENOMEM;
		/* target_add_pmu_group takes the online ones. */
		for (j = 0; j < ct->nr_groups && r == 0; j++)
			r = target_add_pmu_group(c, t, ct->groups[j],
			    ct->all_cpus ? &c->online.map : &ct->cpus, 1,
			    &source_perf_kind);
		if (r == 0 && !ct->all_cpus && (r = cpumap_merge(&m,
		    &ct->cpus, &c->online.map, NULL)) >= 0 &&
		    (size_t)r < ct->cpus.nr)
			REPORT(c, 4, NULL, NULL, NULL, -1, 0,
			    "%s:%d:%d: CPUs %s are listed but only %s of "
			    "them are online; counting those", cfg->source,
			    ct->line, ct->col, cpumap_format(&ct->cpus, want,
			    sizeof(want)), m.nr ? cpumap_format(&m, have,
			    sizeof(have)) : "none");
		cpumap_free(&m);
		r = r < 0 ? r : 0;
	}
	if (r < 0) {
		target_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/*
 * Build and open every target of c->cfg (adopting during a reload),
 * enabling each as it opens if enable is set; what to retry or rescan
 * goes in as, for the schedule (interval.c).
 */
static int
rebuild_open_all(struct collector *c, const struct adopt *ad, int enable,
    struct asks *as)
{
	struct target *sys = NULL;
	int r;

	if ((r = build_cpu_target(c, &sys)) < 0)
		return r;
	if (sys) {
		if ((r = target_add(c, sys)) < 0) {
			target_free(sys);
			return r;
		}
		if ((r = target_open(c, sys, ad, as)) == -ENOMEM)
			return r;
		if (enable)
			target_enable(sys);
	}
	return discovery_rescan(c, enable, 1, ad, as);
}

/*
 * The fd budget: max_fds from the config, or a share of the open-files
 * limit that leaves room for HTTP connections and the rest.
 */
uint64_t
rebuild_fd_budget(const struct plan *cfg)
{
	struct rlimit rl;

	if (cfg->max_fds)
		return cfg->max_fds;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return rl.rlim_cur > 4096 ? rl.rlim_cur - 2048 : rl.rlim_cur / 2;
}

/*
 * Rebuild every target for cfg (which may be the current config, after a
 * CPU change), adopting the instances that stay the same and enabling
 * each target as it opens.
 */
static int
rebuild_targets(struct collector *c, const struct plan *cfg, struct asks *as)
{
	struct perf_event_attr **attrs = c->ps.attrs;
	int **ev_logged = c->ps.ev_logged, *pattern_empty = c->ps.pattern_empty;
	struct layout_said *layout_said = c->ps.layout_said;
	const struct plan *old_cfg = c->cfg;
	struct target **old = c->set.v;
	size_t nr_old = c->set.nr, i;
	struct adopt ad = { old, nr_old, old_cfg };
	int r;

	c->set.max_fds = rebuild_fd_budget(cfg);
	c->set.v = NULL;
	c->set.nr = c->set.cap = 0;
	c->ps.attrs = NULL;
	c->ps.ev_logged = NULL;
	c->ps.pattern_empty = NULL;
	c->ps.layout_said = NULL;
	/* Sorted already (every rescan leaves them so); adoption searches. */
	if (nr_old > 1)
		qsort(old, nr_old, sizeof(*old), target_cmp);
	r = rebuild_cfgstate_init(c, cfg);
	if (r == 0 && cfg == old_cfg) {
		/* Same config: what was reported stays reported. */
		int **tmp = c->ps.ev_logged, *ptmp = c->ps.pattern_empty;
		struct layout_said *ltmp = c->ps.layout_said;

		c->ps.ev_logged = ev_logged;
		ev_logged = tmp;
		c->ps.pattern_empty = pattern_empty;
		pattern_empty = ptmp;
		c->ps.layout_said = layout_said;
		layout_said = ltmp;
	}
	if (r == 0)
		r = rebuild_open_all(c, &ad, 1, as);
	for (i = 0; r == 0 && i < nr_old; i++)
		if (old[i]->cgroup && old[i]->opened &&
		    target_find_cgroup(c, old[i]->cgroup,
		    c->set.nr) == NULL)
			REPORT(c, 6, old[i]->cgroup, NULL, NULL, -1, 0,
			    "cgroup %s is gone; its series are dropped",
			    old[i]->cgroup);
	rebuild_cfgstate_fini(old_cfg, attrs, ev_logged, pattern_empty,
	    layout_said);
	/* Whatever was not adopted is closed now. */
	for (i = 0; i < nr_old; i++)
		target_free(old[i]);
	free(old);
	return r;
}

/* The one way the target set changes (see collector_int.h). */
int
targetset_reconcile(struct collector *c, const struct plan *cfg,
    enum reconcile_reason why, struct asks *as)
{
	if (why == RECONCILE_RESCAN)
		return discovery_rescan(c, 1, 0, NULL, as);
	/* Every cgroup is rescanned from here. */
	c->sched.last_rescan_ns = mono_ns();
	if (why == RECONCILE_START)
		return rebuild_open_all(c, NULL, 0, as);
	return rebuild_targets(c, cfg, as);
}

/* Enable every open instance. */
void
rebuild_enable(struct collector *c)
{
	size_t i;

	for (i = 0; i < c->set.nr; i++)
		target_enable(c->set.v[i]);
}
