/*
 * discovery.c - the cgroup side of a pass (struct discovery): every
 * entry's matches, what matched nothing or was left out said once, the
 * inotify watch set, the wanted set (wanted.c).  See
 * docs/architecture.md's table.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/discovery.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/report.h"
#include "collectors/collector/wanted.h"

/*
 * The directories a walk reads in one delegated subtree, at most: its
 * share counts delegated_max_cgroups at once, so what is read past a few
 * times that only holds watches and memory for the tenant (share.c).
 */
#define DELEG_DIRS(cfg) (4 * (cfg)->delegated_max + 64)

/* The subtrees a pass's walks left out (cgroupfs_expand), by reason,
 * and the first of each with its entry. */
struct pass_skips {
	struct cgroup_skips sk;
	const struct plan_target *entry[CGROUP_SKIP_REASONS];
};

static void
skips_add(struct pass_skips *ps, const struct plan_target *ct,
    const struct cgroup_skips *sk)
{
	size_t k;

	for (k = 0; k < CGROUP_SKIP_REASONS; k++) {
		if (sk->n[k] && ps->entry[k] == NULL) {
			ps->entry[k] = ct;
			memcpy(ps->sk.first[k], sk->first[k],
			    sizeof(sk->first[k]));
		}
		ps->sk.n[k] += sk->n[k];
	}
}

/*
 * What the walks left out, said when a reason's count changes from what
 * the log last said: a tenant's chain of directories is one warning, not
 * one per rescan.
 */
static void
skips_done(const struct discovery *d, const struct pass_skips *ps)
{
	const struct plan_target *ct;
	size_t k, n;

	for (k = 0; k < CGROUP_SKIP_REASONS; k++) {
		n = ps->sk.n[k];
		ct = ps->entry[k];
		if (n && n != d->cg->skipped[k])
			REPORT(d->rp, LOG_WARNING, ps->sk.first[k], NULL, NULL,
			    -1, 0, "%s:%d:%d: cgroup path %s: %zu subtree%s "
			    "left out (%s), the first %s; %s",
			    d->ps->cfg->source, ct->line, ct->col, ct->path, n,
			    n == 1 ? "" : "s", cgroup_skip_reason(k),
			    ps->sk.first[k], k == CGROUP_SKIP_CAP ?
			    "what is not delegated is read first, then each "
			    "delegated subtree up to its share of max_cgroups" :
			    "each alone, what else the entry matches is counted");
		else if (n == 0 && d->cg->skipped[k])
			SAY(d->rp, LOG_INFO, 0, "no cgroup "
			    "subtree is left out (%s) any more",
			    cgroup_skip_reason(k));
		d->cg->skipped[k] = n;
	}
}

/*
 * Expand every cgroups: entry into lists[i], and the directories read
 * into dirs.  0 or -ENOMEM.
 */
static int
expand_all(const struct discovery *d, struct cgroup_list *lists,
    struct cgroup_list *dirs)
{
	const struct plan *cfg = d->ps->cfg;
	struct pass_skips ps = { 0 };
	struct cgroup_skips sk;
	size_t i;
	int r;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *ct = &cfg->targets[i];

		if (ct->kind != PLAN_TARGET_CGROUP)
			continue;
		r = cgroupfs_expand_fair(d->cg->path, ct->path, ct->depth,
		    ct->max_dirs, DELEG_DIRS(cfg), ct->exclude,
		    ct->nr_exclude, &lists[i], d->cg->watch ? dirs : NULL, &sk);
		if (r == 0)
			skips_add(&ps, ct, &sk);
		if (r < 0) {
			REPORT(d->rp, LOG_WARNING, ct->path, NULL, NULL, -1, -r,
			    "%s:%d:%d: cgroup path %s: %s",
			    cfg->source, ct->line, ct->col, ct->path,
			    strerror(-r));
			if (r == -ENOMEM)
				return r;
			continue;
		}
		/* A layout's entries match nothing on most machines: the
		 * layout's line says what they hold. */
		if (lists[i].nr == 0 && !d->ps->pattern_empty[i] &&
		    !ct->layout) {
			d->ps->pattern_empty[i] = 1;
			REPORT(d->rp, LOG_WARNING, ct->path, NULL, NULL, -1, 0,
			    "%s:%d:%d: cgroup path %s matches no "
			    "cgroup under %s (yet); it is counted as soon as "
			    "it appears", cfg->source, ct->line, ct->col,
			    ct->path, d->cg->path);
		} else if (lists[i].nr > 0)
			d->ps->pattern_empty[i] = 0;
	}
	skips_done(d, &ps);
	return 0;
}

/* Point the inotify watches at the directories read.  0 or -ENOMEM. */
static int
watch_dirs(const struct discovery *d, struct cgroup_list *dirs)
{
	int r;

	if (d->cg->watch == NULL)
		return 0;
	(void)cgroup_list_sort_unique(dirs);	/* no ids: no allocation */
	r = cgwatch_set(d->cg->watch, d->cg->path, dirs);
	if (r == -ENOSPC && !d->cg->logged_watch++)
		SAY(d->rp, LOG_WARNING, ENOSPC, "inotify watch "
		    "limit reached (fs.inotify.max_user_watches): some new "
		    "cgroups are found only by the rescan every %llus",
		    (unsigned long long)(d->ps->cfg->rescan_ns /
		    1000000000ULL));
	return r == -ENOMEM ? r : 0;
}

/*
 * What a plan with cgroups: entries needs before its targets are built:
 * the cgroup hierarchy with the perf_event controller (found once) and
 * the inotify watch, both made when the first such plan arrives (at
 * start or at a reload: new_plan) and kept after.  1 when the plan
 * names cgroups and the hierarchy is there.
 */
static int
ensure(const struct discovery *d, int new_plan)
{
	const struct plan *cfg = d->ps->cfg;
	size_t i;
	int r;

	for (i = 0; i < cfg->nr_targets; i++)
		if (cfg->targets[i].kind == PLAN_TARGET_CGROUP)
			break;
	if (i == cfg->nr_targets)
		return 0;
	if (!new_plan)
		return d->cg->found;
	if (!d->cg->found) {
		r = cgroupfs_find(d->cg->mountinfo, d->cg->path,
		    sizeof(d->cg->path), &d->cg->v2);
		if (r < 0)
			SAY(d->rp, LOG_WARNING, -r,
			    "no cgroup hierarchy with the perf_event "
			    "controller in %s (%s): cgroup targets are not "
			    "counted", d->cg->mountinfo, strerror(-r));
		else
			d->cg->found = 1;
	}
	/* Before the targets are built: the pass fills the watch set. */
	if (d->cg->watch == NULL && (r = cgwatch_new(&d->cg->watch)) < 0)
		SAY(d->rp, LOG_WARNING, -r, "inotify: %s; new "
		    "cgroups are found only by the rescan every %llus",
		    strerror(-r), (unsigned long long)(cfg->rescan_ns /
		    1000000000ULL));
	return d->cg->found;
}

/* See discovery.h. */
int
discovery_expand(const struct discovery *d, int new_plan,
    struct cgroup_list *lists, struct wanted *w)
{
	struct cgroup_list dirs = { 0, 0, NULL, NULL };
	int r;

	if (!ensure(d, new_plan))
		return 0;
	if ((r = expand_all(d, lists, &dirs)) == 0 &&
	    (r = watch_dirs(d, &dirs)) == 0 &&
	    (r = wanted_build(d->ps->cfg, lists, w)) == 0)
		r = 1;
	cgroup_list_free(&dirs);
	return r;
}
