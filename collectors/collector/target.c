/*
 * target.c - the target set: system-wide CPUs and cgroups, each with the
 * groups it counts (see collector_int.h).  Building it from the plan,
 * opening and enabling it, the fd budget, and rebuilding it (keeping what
 * did not change) on a reload, a CPU going offline or online, and the
 * full rescan that reopens what failed.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/collector_int.h"

/* ---- targets ------------------------------------------------------ */

void
target_free(struct target *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->nr_groups; i++) {
		for (j = 0; j < t->groups[i].cpus.nr && t->groups[i].inst; j++)
			inst_fini(&t->groups[i].inst[j]);
		free(t->groups[i].inst);
		free(t->groups[i].gone);
		cpumap_free(&t->groups[i].cpus);
	}
	free(t->groups);
	/* After the instances: their sources may read what was attached. */
	for (i = 0; i < SOURCE_KINDS; i++)
		if (t->attached[i] && source_kinds[i]->detach)
			source_kinds[i]->detach(t->attached[i]);
	for (i = 0; i < t->nr_labels; i++) {
		free(t->lname[i]);
		free(t->lvalue[i]);
	}
	free(t->lname);
	free(t->lvalue);
	free(t->cgroup);
	free(t);
}

/* Add label name=value unless the target has that label already. */
int
target_add_label(struct target *t, const char *name, const char *value)
{
	char **n, **v;
	size_t i;

	for (i = 0; i < t->nr_labels; i++)
		if (strcmp(t->lname[i], name) == 0)
			return 0;
	n = realloc(t->lname, (t->nr_labels + 1) * sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	t->lname = n;
	v = realloc(t->lvalue, (t->nr_labels + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	t->lvalue = v;
	if ((n[t->nr_labels] = strdup(name)) == NULL)
		return -ENOMEM;
	if ((v[t->nr_labels] = strdup(value)) == NULL) {
		free(n[t->nr_labels]);
		return -ENOMEM;
	}
	t->nr_labels++;
	return 0;
}

struct target *
target_new(const char *cgroup)
{
	struct target *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (cgroup && (t->cgroup = strdup(cgroup)) == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

static struct tgroup *
target_find_group(struct target *t, size_t gi)
{
	size_t i;

	for (i = 0; i < t->nr_groups; i++)
		if (t->groups[i].gi == gi)
			return &t->groups[i];
	return NULL;
}

/* Add group gi on cpus to t, or widen its CPUs to the union. */
static int
target_add_group(struct target *t, size_t gi, const struct cpumap *cpus,
    int per_cpu, const struct source_kind *kind)
{
	struct tgroup *tg = target_find_group(t, gi), *tmp;
	struct cpumap u;
	size_t i, n;

	if (tg) {
		/* Any entry asking for the per-CPU split gets it; entries
		 * asking for different kinds get the default, perf mode. */
		tg->per_cpu |= per_cpu;
		if (tg->kind != kind)
			tg->kind = &source_perf_kind;
		u.cpu = malloc((tg->cpus.nr + cpus->nr + 1) * sizeof(int));
		if (u.cpu == NULL)
			return -ENOMEM;
		n = 0;
		for (i = 0; i < tg->cpus.nr; i++)
			u.cpu[n++] = tg->cpus.cpu[i];
		for (i = 0; i < cpus->nr; i++)
			if (!cpumap_has(&tg->cpus, cpus->cpu[i]))
				u.cpu[n++] = cpus->cpu[i];
		u.nr = n;
		/* Re-sort through the parser's canonical form. */
		{
			int *a = u.cpu;
			size_t x, y;

			for (x = 1; x < n; x++)
				for (y = x; y > 0 && a[y - 1] > a[y]; y--) {
					int s = a[y];

					a[y] = a[y - 1];
					a[y - 1] = s;
				}
		}
		cpumap_free(&tg->cpus);
		tg->cpus = u;
		return 0;
	}
	tmp = realloc(t->groups, (t->nr_groups + 1) * sizeof(*tmp));
	if (tmp == NULL)
		return -ENOMEM;
	t->groups = tmp;
	tg = &t->groups[t->nr_groups];
	memset(tg, 0, sizeof(*tg));
	tg->gi = gi;
	tg->per_cpu = per_cpu;
	tg->kind = kind;
	if ((tg->cpus.cpu = malloc((cpus->nr + 1) * sizeof(int))) == NULL)
		return -ENOMEM;
	memcpy(tg->cpus.cpu, cpus->cpu, cpus->nr * sizeof(int));
	tg->cpus.nr = cpus->nr;
	t->nr_groups++;
	return 0;
}

/* Let every kind t's groups use attach t (mode: bpf: its slot). */
static int
target_attach(struct collector *c, struct target *t, int cgfd)
{
	size_t i, k;
	int r;

	t->no_room = 0;
	for (k = 0; k < SOURCE_KINDS; k++) {
		const struct source_kind *kind = source_kinds[k];

		if (kind->attach == NULL || t->attached[k])
			continue;
		for (i = 0; i < t->nr_groups; i++)
			if (t->groups[i].kind == kind)
				break;
		if (i < t->nr_groups && (r = kind->attach(c, t, cgfd)) < 0)
			return r;
	}
	return 0;
}

/* Allocate and open every instance of t (adopting during a reload). */
int
target_open(struct collector *c, struct target *t)
{
	char path[8192];
	size_t i, j;
	int cgfd = -1, r;

	if (t->cgroup) {
		snprintf(path, sizeof(path), "%s%s", c->cgroot,
		    strcmp(t->cgroup, "/") == 0 ? "" : t->cgroup);
		cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0) {
			r = -errno;
			REPORT(c, 7, t->cgroup, NULL, NULL, -1, -r,
			    "cgroup %s: %s: %s", t->cgroup, path,
			    strerror(-r));
			return r;
		}
		if ((r = target_attach(c, t, cgfd)) < 0)
			goto out;
	}
	for (i = 0; i < t->nr_groups; i++) {
		struct tgroup *tg = &t->groups[i];
		size_t ne = c->cfg->groups[tg->gi].nr_events;

		tg->inst = calloc(tg->cpus.nr ? tg->cpus.nr : 1,
		    sizeof(*tg->inst));
		if (tg->inst == NULL) {
			r = -ENOMEM;
			goto out;
		}
		for (j = 0; j < tg->cpus.nr; j++) {
			if (c->adopt && (r = inst_adopt(c, t, tg,
			    tg->cpus.cpu[j], &tg->inst[j], cgfd)) != 0) {
				if (r < 0)
					goto out;
				continue;
			}
			if ((r = inst_init(&tg->inst[j], tg->cpus.cpu[j],
			    ne)) < 0)
				goto out;
			r = inst_open(c, t, tg, &tg->inst[j], cgfd);
			if (r == -ENOMEM)
				goto out;
			if (r == -EBADF && t->cgroup)
				goto out;	/* the cgroup went away */
			if (r == 0 && c->adopt)
				inst_inherit(c, t, tg, &tg->inst[j]);
		}
		if (c->adopt && (r = inst_carry_gone(c, t, tg)) < 0)
			goto out;
	}
	t->opened = 1;
	r = 0;
out:
	if (cgfd >= 0)
		close(cgfd);
	return r;
}

void
target_enable(struct target *t)
{
	size_t i, j;

	if (!t->opened)
		return;
	for (i = 0; i < t->nr_groups; i++)
		for (j = 0; j < t->groups[i].cpus.nr; j++)
			if (t->groups[i].inst[j].state == INST_OK)
				source_enable(t->groups[i].inst[j].src);
}

int
target_add(struct collector *c, struct target *t)
{
	struct target **tmp;

	if (c->nr_targets == c->cap_targets) {
		size_t cap = c->cap_targets ? c->cap_targets * 2 : 16;

		tmp = realloc(c->targets, cap * sizeof(*tmp));
		if (tmp == NULL)
			return -ENOMEM;
		c->targets = tmp;
		c->cap_targets = cap;
	}
	c->targets[c->nr_targets++] = t;
	return 0;
}

/* Order: the system-wide target first, then cgroups by path. */
int
target_cmp(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a;
	const struct target *y = *(struct target *const *)b;

	if (x->cgroup == NULL || y->cgroup == NULL)
		return (x->cgroup != NULL) - (y->cgroup != NULL);
	return strcmp(x->cgroup, y->cgroup);
}

/*
 * The target for a cgroup path: binary search over the first nsorted
 * targets (kept sorted between rescans), then the ones added since.
 */
struct target *
target_find_cgroup(struct collector *c, const char *path,
    size_t nsorted)
{
	struct target key = { .cgroup = (char *)path }, *kp = &key, **f;
	size_t i;

	f = nsorted == 0 ? NULL : bsearch(&kp, c->targets, nsorted,
	    sizeof(*c->targets), target_cmp);
	if (f)
		return *f;
	for (i = nsorted; i < c->nr_targets; i++)
		if (c->targets[i]->cgroup &&
		    strcmp(c->targets[i]->cgroup, path) == 0)
			return c->targets[i];
	return NULL;
}

/*
 * Add group gi on cpus, narrowed to the CPUs its PMU covers (an uncore
 * PMU's cpumask, a hybrid core PMU's cpus): an event opens only there.
 */
int
target_add_pmu_group(struct collector *c, struct target *t, size_t gi,
    const struct cpumap *cpus, int per_cpu, const struct source_kind *kind)
{
	const struct plan_group *g = &c->cfg->groups[gi];
	struct cpumap m;
	char want[256], have[256];
	int r;

	if (!g->pmu_cpus)
		return target_add_group(t, gi, cpus, per_cpu, kind);
	if ((r = cpumap_intersect(cpus, &g->cpus, &m)) < 0)
		return r;
	if (m.nr == 0 && t->cgroup == NULL)
		REPORT(c, 4, NULL, g->name, NULL, -1, 0,
		    "%s:%d:%d: group \"%s\" counts PMU \"%s\", which "
		    "covers CPUs %s only, none of the CPUs %s; it is not "
		    "counted there", c->cfg->source, g->line, g->col, g->name,
		    g->pmu, cpumap_format(&g->cpus, have, sizeof(have)),
		    cpumap_format(cpus, want, sizeof(want)));
	r = m.nr ? target_add_group(t, gi, &m, per_cpu, kind) : 0;
	cpumap_free(&m);
	return r;
}

/* The system-wide target: the union of every cpus: entry. */
static int
build_cpu_target(struct collector *c, struct target **out)
{
	const struct plan *cfg = c->cfg;
	struct target *t = NULL;
	struct cpumap m;
	size_t i, j;
	int r;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *ct = &cfg->targets[i];

		if (ct->kind != PLAN_TARGET_CPU)
			continue;
		if (t == NULL && (t = target_new(NULL)) == NULL)
			return -ENOMEM;
		if (ct->all_cpus) {
			m = c->online;
			m.cpu = NULL;
			if ((r = cpumap_intersect(&c->online, &c->online,
			    &m)) < 0)
				goto fail;
		} else {
			if ((r = cpumap_intersect(&ct->cpus, &c->online,
			    &m)) < 0)
				goto fail;
			if (m.nr < ct->cpus.nr) {
				char want[256], have[256];

				REPORT(c, 4, NULL, NULL, NULL, -1, 0,
				    "%s:%d:%d: CPUs %s are listed but "
				    "only %s of them are online; counting "
				    "those", cfg->source, ct->line, ct->col,
				    cpumap_format(&ct->cpus, want,
				    sizeof(want)), m.nr ? cpumap_format(&m,
				    have, sizeof(have)) : "none");
			}
		}
		for (j = 0; j < ct->nr_groups && r == 0; j++)
			r = target_add_pmu_group(c, t, ct->groups[j], &m, 1,
			    &source_perf_kind);
		cpumap_free(&m);
		if (r < 0)
			goto fail;
	}
	*out = t;
	return 0;
fail:
	target_free(t);
	return r;
}

/*
 * During a reload: the old target for the same cgroup (NULL: system-wide),
 * by binary search (the old set is sorted), or NULL.
 */
struct target *
target_old(const struct collector *c, const char *cgroup)
{
	struct target key = { .cgroup = (char *)cgroup }, *kp = &key, **f;

	f = c->nr_adopt ? bsearch(&kp, c->adopt, c->nr_adopt,
	    sizeof(*c->adopt), target_cmp) : NULL;
	return f ? *f : NULL;
}

/* During a reload: was this cgroup counted before it? */
int
target_was_counted(const struct collector *c, const char *cgroup)
{
	const struct target *o = target_old(c, cgroup);

	return o != NULL && o->opened;
}

/* A vanished cgroup: one last read, then its fds are closed. */
void
target_last_read(struct target *t)
{
	size_t i, k;

	if (!t->opened)
		return;
	for (i = 0; i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr; k++) {
			struct inst *in = &t->groups[i].inst[k];

			if (in->state == INST_OK)
				source_read(in->src, in->cur);
		}
}

/* Build and open every target of c->cfg (adopting during a reload). */
int
target_open_all(struct collector *c)
{
	const struct plan *cfg = c->cfg;
	struct target *sys = NULL;
	size_t i;
	int r;

	for (i = 0; i < cfg->nr_targets; i++)
		if (cfg->targets[i].kind == PLAN_TARGET_CGROUP)
			break;
	if (i < cfg->nr_targets && !c->have_cgroot) {
		r = cgroupfs_find(c->o.mountinfo, c->cgroot,
		    sizeof(c->cgroot), &c->cgroot_v2);
		if (r < 0)
			REPORT(c, 4, NULL, NULL, NULL, -1, -r,
			    "no cgroup hierarchy with the perf_event "
			    "controller in %s (%s): cgroup targets are not "
			    "counted", c->o.mountinfo, strerror(-r));
		else
			c->have_cgroot = 1;
	}
	for (i = 0; i < SOURCE_KINDS; i++)
		if (source_kinds[i]->prepare &&
		    (r = source_kinds[i]->prepare(c)) < 0)
			return r;
	if ((r = build_cpu_target(c, &sys)) < 0)
		return r;
	if (sys) {
		if ((r = target_add(c, sys)) < 0) {
			target_free(sys);
			return r;
		}
		if ((r = target_open(c, sys)) == -ENOMEM)
			return r;
	}
	c->last_rescan_ns = now_ns(CLOCK_MONOTONIC);
	return rescan_cgroups(c, 0);
}

/*
 * The fd budget: max_fds from the config, or a share of the open-files
 * limit that leaves room for HTTP connections and the rest.
 */
uint64_t
target_fd_budget(const struct plan *cfg)
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
 * CPU change), adopting the instances that stay the same.
 */
int
target_rebuild(struct collector *c, const struct plan *cfg)
{
	struct perf_event_attr **attrs = c->attrs;
	int **ev_logged = c->ev_logged, *pattern_empty = c->pattern_empty;
	const struct plan *old_cfg = c->cfg;
	struct target **old = c->targets;
	size_t nr_old = c->nr_targets, i;
	int r;

	c->max_fds = target_fd_budget(cfg);
	c->targets = NULL;
	c->nr_targets = c->cap_targets = 0;
	c->attrs = NULL;
	c->ev_logged = NULL;
	c->pattern_empty = NULL;
	/* Sorted already (every rescan leaves them so); adoption searches. */
	if (nr_old > 1)
		qsort(old, nr_old, sizeof(*old), target_cmp);
	c->adopt = old;
	c->nr_adopt = nr_old;
	c->adopt_cfg = old_cfg;
	r = cfgstate_init(c, cfg);
	if (r == 0 && cfg == old_cfg) {
		/* Same config: what was reported stays reported. */
		int **tmp = c->ev_logged, *ptmp = c->pattern_empty;

		c->ev_logged = ev_logged;
		ev_logged = tmp;
		c->pattern_empty = pattern_empty;
		pattern_empty = ptmp;
	}
	if (r == 0)
		r = target_open_all(c);
	c->adopt = NULL;
	c->nr_adopt = 0;
	c->adopt_cfg = NULL;
	/* Whatever was not adopted is closed now. */
	for (i = 0; i < nr_old; i++) {
		if (r == 0 && old[i]->cgroup && old[i]->opened &&
		    target_find_cgroup(c, old[i]->cgroup,
		    c->nr_targets) == NULL)
			REPORT(c, 6, old[i]->cgroup, NULL, NULL, -1, 0,
			    "cgroup %s is gone; its series are dropped",
			    old[i]->cgroup);
		target_free(old[i]);
	}
	free(old);
	cfgstate_fini(old_cfg, attrs, ev_logged, pattern_empty);
	return r;
}
