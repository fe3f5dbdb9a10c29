/*
 * targetset.c - the target set (struct targetset), the one pass that
 * changes it whatever the reason (targetset_reconcile: start, reload, CPU
 * change, retry, rescan) and the fd budget.  The pass, step by step:
 * docs/architecture.md, "Layers and threads".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/asks.h"
#include "collectors/collector/cgnews.h"
#include "collectors/collector/departed.h"
#include "collectors/collector/discovery.h"
#include "collectors/collector/planstate.h"
#include "collectors/collector/report.h"
#include "collectors/collector/share.h"
#include "collectors/collector/target.h"
#include "collectors/collector/targetset.h"
#include "collectors/collector/wanted.h"
#include "util/clock.h"
#include "util/utf8.h"

/* Paths named in one line about many cgroups. */
#define NAMED 3

/* A list of cgroups for one line: "a, b, c and 9 more". */
struct namelist {
	size_t n;
	char text[3 * 256];
};

/* What a pass left: the cgroups counted, and why the others are not. */
struct tally {
	size_t matched, counted, skipped, no_room, refused;
	struct namelist skip, full;
};

/* One pass (see the header): what it builds beside the running set. */
struct pass {
	int rebuild;			/* every target made anew, adopting */
	int new_plan;			/* a plan other than the running one */
	int enable;			/* enable what opens (not at start) */
	int took;			/* the opening began: a rebuild's new
					   targets may hold old instances */
	struct asks *as;		/* what to retry or rescan next */
	struct adopt ad;		/* the running set, at a rebuild */
	struct wanted w;		/* the cgroups wanted, in path order */
	struct source_entries e;	/* each cgroups entry's kind */
	struct target **v;		/* the next set */
	size_t n;
	struct target **fresh;		/* the targets made by this pass */
	size_t nfresh;
	size_t fds_in_use;		/* by the next set, so far */
	size_t remade;			/* cgroups made again at their path,
					   counted anew */
	struct shares sh;		/* the delegated subtrees' shares */
	struct cgnews news;		/* cgroups come and gone, to say */
};

static void
namelist_add(struct namelist *l, const char *path)
{
	size_t len = strlen(l->text);

	if (l->n++ < NAMED)
		snprintf(l->text + len, sizeof(l->text) - len, "%s%.*s",
		    len ? ", " : "", (int)utf8_prefix(path, 250), path);
}

static const char *
namelist_str(const struct namelist *l, char *buf, size_t len)
{
	if (l->n > NAMED)
		snprintf(buf, len, "%s and %zu more", l->text, l->n - NAMED);
	else
		snprintf(buf, len, "%s", l->text);
	return buf;
}

/* ---- the plan's tables -------------------------------------------- */

/*
 * The fd budget: max_fds from the config, or a share of the open-files
 * limit that leaves room for HTTP connections and the rest.
 */
static uint64_t
fd_budget(const struct plan *cfg)
{
	struct rlimit rl;

	if (cfg->max_fds)
		return cfg->max_fds;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return rl.rlim_cur > 4096 ? rl.rlim_cur - 2048 : rl.rlim_cur / 2;
}

/* ---- the fd budget ---------------------------------------------- */

/* The fds the kinds hold themselves and those of every target of v. */
static size_t
fds_in_use(const struct targetset *set, struct target *const *v, size_t n)
{
	size_t fds = source_kinds_fds(set->ix.k), i;

	for (i = 0; i < n; i++)
		fds += target_fds(v[i]);
	return fds;
}

size_t
targetset_fds(const struct targetset *set)
{
	return fds_in_use(set, set->v, set->nr);
}

/* ---- planning the next set ---------------------------------------- */

/* The system-wide target anew: the union of every cpus: entry. */
static int
pass_systemwide(struct targetset *set, struct target **out)
{
	const struct plan *cfg = set->ps->cfg;
	struct target *t = NULL;
	size_t i;
	int r = 0;

	for (i = 0; i < cfg->nr_targets && r == 0; i++) {
		if (cfg->targets[i].kind != PLAN_TARGET_CPU)
			continue;
		if (t == NULL && (t = target_new(NULL)) == NULL)
			return -ENOMEM;
		r = target_plan_cpus(&set->ix, t, &cfg->targets[i]);
	}
	if (r < 0) {
		target_free(t);
		return r;
	}
	*out = t;
	return 0;
}

/* Room for each cgroups entry's kind, what it declined, and mode. */
static int
entries_alloc(struct source_entries *e, size_t n)
{
	e->kind = calloc(n + 1, sizeof(*e->kind));
	e->declined = calloc(n + 1, sizeof(*e->declined));
	e->mode = calloc(n + 1, sizeof(*e->mode));
	return e->kind && e->declined && e->mode ? 0 : -ENOMEM;
}

/*
 * The next set: the system-wide target, then one per wanted path, in
 * path order (so it comes out sorted).  A rescan keeps the running
 * targets (and the system-wide one); what is not opened yet takes its
 * entries' labels and groups.  0 or -ENOMEM.
 */
static int
pass_plan(struct targetset *set, struct pass *p)
{
	const struct match *m = p->w.m;
	struct target *t = NULL;
	size_t i, j, nm = p->w.nm;

	if (p->rebuild) {
		if (pass_systemwide(set, &t) < 0)
			return -ENOMEM;
		if (t)
			p->fresh[p->nfresh++] = t;
	} else if (set->nr && set->v[0]->cgroup == NULL)
		t = set->v[0];
	if (t) {
		t->seen = 1;
		p->v[p->n++] = t;
	}
	for (i = 0; i < nm; i = j) {
		t = p->rebuild ? NULL : target_find(set->v, set->nr, m[i].path);
		/* Removed and made again at its path since it opened (a
		 * service or container restarted): a new target, which takes
		 * over the old one's counts (open_one). */
		if (t && target_remade(t, m[i].id))
			t = NULL;
		if (t == NULL) {
			if ((t = target_new(m[i].path)) == NULL)
				return -ENOMEM;
			p->fresh[p->nfresh++] = t;
		}
		t->seen = 1;
		p->v[p->n++] = t;
		for (j = i; j < nm && strcmp(m[j].path, m[i].path) == 0; j++)
			if (!target_is_open(t) && target_plan_entry(&set->ix, t,
			    &set->ps->cfg->targets[m[j].entry],
			    p->e.kind[m[j].entry],
			    p->e.declined[m[j].entry]) < 0)
				return -ENOMEM;
	}
	return 0;
}

/* ---- opening ------------------------------------------------------ */

/*
 * What t takes over from: in a rebuild, the running set; in a rescan,
 * the running target at its path when t replaces it (its cgroup was made
 * again, pass_plan), held in *src; else, or when the rebuild's old
 * target at its path is not open, the counts its cgroup left when it
 * went (departed.h), in *src too; else nothing.
 */
static const struct adopt *
open_from(const struct targetset *set, const struct pass *p,
    const struct target *t, struct target **src, struct adopt *one)
{
	const struct target *o;

	*src = NULL;
	if (t->cgroup == NULL)
		return p->rebuild ? &p->ad : NULL;
	if (p->rebuild) {
		o = target_find(p->ad.old, p->ad.nr, t->cgroup);
		if (o && target_is_open(o))
			return &p->ad;
	} else if ((*src = target_find(set->v, set->nr, t->cgroup)) == t)
		*src = NULL;
	if (*src == NULL &&
	    (*src = departed_find(&set->departed, t->cgroup)) == NULL)
		return p->rebuild ? &p->ad : NULL;
	*one = (struct adopt){ src, 1, set->ps->cfg };
	return one;
}

/*
 * What opening t says: a cgroup that came (also one back at the path a
 * departed one left), a cgroup made again (taking over the counts of
 * src, the old one at its path, or old, the rebuild's); 0 or -ENOMEM.
 */
static int
open_news(struct targetset *set, struct pass *p, const struct target *t,
    const struct target *src)
{
	const struct target *o = src ? src : p->rebuild ?
	    target_find(p->ad.old, p->ad.nr, t->cgroup) : NULL;

	if (o && o->id != t->id && o->id) {
		p->remade++;
		REPORT(set->rp, LOG_DEBUG, t->cgroup, NULL, NULL, -1, 0,
		    "cgroup %s was "
		    "removed and made again (id %llu, was %llu): counting "
		    "the new one, its series go on", t->cgroup,
		    (unsigned long long)t->id, (unsigned long long)o->id);
	}
	/* Out of memory to gather it: the pass fails, as at any other
	 * allocation (a rescan changes nothing). */
	if (o == NULL || !target_is_open(o))
		return cgnews_add(set->rp, &p->news, t, 1);
	return 0;
}

/*
 * Open a target that is new, or was left unopened before (over the
 * budget, no room in its kind); the system-wide one outside the budget.
 * 0 when it is opened or left unopened (and in the set), -ENOENT when
 * its cgroup vanished, -ENOMEM.
 */
static int
open_one(struct targetset *set, struct pass *p, struct target *t)
{
	size_t left = set->max_fds > p->fds_in_use ?
	    set->max_fds - p->fds_in_use : 0;
	struct target *src;
	struct adopt one;
	long r;

	/* Every entry matching it has a kind that cannot run, and refuses
	 * or skips: left unopened. */
	if (t->cgroup && t->nr_groups == 0 && t->declined != TARGET_COUNTED)
		return 0;
	r = target_open(&set->ix, t, open_from(set, p, t, &src, &one), p->as,
	    t->cgroup ? left : SIZE_MAX, p->enable);
	if (r == -ENOMEM)
		return -ENOMEM;
	/* Over the budget, no room in its kind: again at the next rescan. */
	if (r == -E2BIG || (r == -ENOSPC && t->state == TARGET_NO_ROOM))
		return 0;
	if (r < 0)
		return t->cgroup ? -ENOENT : 0;	/* vanished meanwhile */
	p->fds_in_use += (size_t)r;
	return t->cgroup ? open_news(set, p, t, src) : 0;
}

/*
 * Open t within its delegated subtree's share; a cgroup not delegated
 * that finds no room (the fd budget, a kind's slots) takes it from a
 * delegated one (share.c).  As open_one.
 */
static int
open_fair(struct targetset *set, struct pass *p, struct target *t)
{
	size_t freed;
	int r;

	if (!shares_admit(set->ps->cfg, &p->sh, t))
		return 0;
	r = open_one(set, p, t);
	while (r == 0 && t->cgroup && t->deleg == 0 &&
	    (t->state == TARGET_SKIPPED || t->state == TARGET_NO_ROOM) &&
	    shares_evict(set->rp, &p->sh, p->v, p->n, t, &freed)) {
		p->fds_in_use -= freed;
		if (t->state != TARGET_SKIPPED)
			break;	/* a kind's slot is free after its refresh:
				   this cgroup has it at the next pass */
		r = open_one(set, p, t);
	}
	if (r == 0 && target_is_open(t))
		shares_opened(&p->sh, t);
	return r;
}

/*
 * Open what is new or was left out, in order (the system-wide target
 * first), enabling it but at start: the cgroups not delegated, then the
 * delegated ones, so that no tenant's cgroup takes room for being found
 * first.  Targets that vanished meanwhile leave the next set.  The
 * running set stays valid.  0 or -ENOMEM, with every target not yet
 * opened still in the set.
 */
static int
open_next(struct targetset *set, struct pass *p)
{
	struct target *t;
	size_t i, j;
	int r = 0, round;

	p->took = 1;			/* instances change hands from here */
	p->fds_in_use = fds_in_use(set, p->v, p->n);
	if (shares_begin(set->cg->path, p->v, p->n, &p->sh) < 0)
		return -ENOMEM;
	for (round = 0; round < 2 && r != -ENOMEM; round++)
		for (i = 0; i < p->n && r != -ENOMEM; i++) {
			t = p->v[i];
			if (target_is_open(t) ||
			    (t->cgroup && t->deleg) != round)
				continue;
			if ((r = open_fair(set, p, t)) == -ENOENT)
				t->seen = 0;	/* dropped at the swap */
		}
	for (i = 0, j = 0; i < p->n; i++)
		if (p->v[i]->seen)
			p->v[j++] = p->v[i];
	p->n = j;
	return r == -ENOMEM ? r : 0;
}

/* ---- the swap ----------------------------------------------------- */

/*
 * The departed cgroups' counts (departed.h) as the swap leaves them: a
 * new plan's groups are not theirs (all dropped); those a target of the
 * next set opened on took are dropped, and those past their time.
 */
static void
departed_tend(struct targetset *set, struct pass *p, uint64_t now)
{
	struct target *t;
	size_t i;

	if (p->new_plan) {
		departed_clear(&set->departed);
		return;
	}
	for (i = 0; i < p->nfresh && set->departed.nr; i++) {
		t = p->fresh[i];
		if (t->seen && t->cgroup && target_is_open(t))
			departed_drop(&set->departed, t->cgroup);
	}
	departed_expire(&set->departed, now);
}

/*
 * The next set in; the running targets it does not hold read one last
 * time and closed, those whose cgroup is gone keeping their counts a
 * while (departed.h); the targets made for cgroups that vanished freed.
 */
static void
swap_in(struct targetset *set, struct pass *p, const struct plan *old_cfg,
    struct planstate *old_ps)
{
	uint64_t now = mono_ns();
	struct target *t, *n;
	size_t i;

	planstate_fini(old_cfg, old_ps);	/* what was said of the old */
	departed_tend(set, p, now);
	for (i = 0; i < set->nr; i++) {
		t = set->v[i];
		if (t->seen)
			continue;
		n = t->cgroup ? target_find(p->v, p->n, t->cgroup) : NULL;
		if (target_is_open(t) && t->cgroup && n == NULL)
			(void)cgnews_add(set->rp, &p->news, t, 0); /* said */
		/* Its counts wait for a target at its path to open. */
		if (target_is_open(t) && t->cgroup && !p->new_plan &&
		    (n == NULL || !target_is_open(n))) {
			target_depart(t, old_cfg);
			departed_add(&set->departed, t, now);
		} else
			target_retire(t);
	}
	for (i = 0; i < p->nfresh; i++)
		if (!p->fresh[i]->seen)
			target_free(p->fresh[i]);	/* vanished meanwhile */
	p->nfresh = 0;
	free(set->v);
	set->v = p->v;
	set->nr = p->n;
	p->v = NULL;
}

/* ---- what changed, said once -------------------------------------- */

/*
 * What the pass left, said once per change (see the header): the
 * cgroups over the fd budget, and to each kind the cgroups it had no room
 * for or refused.  1 when a kind frees room at the next collection for
 * cgroups it had none for.
 */
static int
report_tally(struct targetset *set, size_t fds_in_use)
{
	struct tally t = { 0 };
	char names[1024];
	size_t i;

	for (i = 0; i < set->nr; i++) {
		const struct target *x = set->v[i];

		if (x->cgroup == NULL)
			continue;
		t.matched++;
		t.counted += target_is_open(x);
		if (target_is_open(x) || x->state == TARGET_SHARE_REFUSED)
			continue;
		if (x->nr_groups == 0 && x->declined != TARGET_COUNTED)
			t.refused++;
		else if (x->state == TARGET_SKIPPED && ++t.skipped)
			namelist_add(&t.skip, x->cgroup);
		else if (x->state == TARGET_NO_ROOM && ++t.no_room)
			namelist_add(&t.full, x->cgroup);
	}
	set->matched = t.matched;
	set->counted = t.counted;
	set->skipped = t.skipped;
	if (t.skipped != set->skipped_logged) {
		if (t.skipped)
			SAY(set->rp, LOG_WARNING, 0, "%zu cgroup%s "
			    "not counted: %s (max_fds %llu, "
			    "%zu perf fds in use): %s; raise max_fds and "
			    "LimitNOFILE=", t.skipped, t.skipped == 1 ?
			    " is" : "s are", target_why_text(TARGET_SKIPPED),
			    (unsigned long long)set->max_fds,
			    fds_in_use, namelist_str(&t.skip, names,
			    sizeof(names)));
		else
			SAY(set->rp, LOG_INFO, 0, "every cgroup "
			    "skipped for the fd budget is counted now");
		set->skipped_logged = t.skipped;
	}
	namelist_str(&t.full, names, sizeof(names));
	return source_kinds_tally(set->ix.k, t.no_room, t.refused, names);
}

/*
 * One line per layout whose count or mode changed since it was last
 * said: "layout docker: 12 cgroups (mode perf)", the count of distinct
 * cgroups the wanted set holds for it.
 */
static void
report_layouts(struct targetset *set, const struct wanted *w,
    const char *const *modes)
{
	const struct plan *cfg = set->ps->cfg;
	const char *mode;
	size_t i, l, n;

	for (l = 0; l < cfg->nr_layouts; l++) {
		struct layout_said *s = &set->ps->layout_said[l];

		mode = NULL;
		for (i = 0; i < cfg->nr_targets && mode == NULL; i++)
			if (cfg->targets[i].layout == l + 1)
				mode = modes[i];
		n = w->per_layout ? w->per_layout[l] : 0;
		/* Never said and nothing found: nothing to say. */
		if ((s->mode == NULL && n == 0) || (s->mode != NULL &&
		    s->cgroups == n && strcmp(s->mode, mode) == 0))
			continue;
		SAY(set->rp, LOG_INFO, 0, "layout %s: %zu "
		    "cgroup%s (%s)", cfg->layouts[l], n, n == 1 ? "" : "s",
		    mode);
		s->cgroups = n;
		s->mode = mode;
	}
}

/* ---- the pass ----------------------------------------------------- */

/*
 * Before anything changes: room for the counts of the running targets
 * whose cgroups the next set no longer holds (they depart at the swap:
 * departed.h), and in a rescan that closes a target, the kinds' counts
 * gathered once, as a collection does, for the last readings of what
 * closes (a removed cgroup's, one made again).  0 or -ENOMEM.
 */
static int
pass_departures(struct targetset *set, struct pass *p)
{
	struct target *t;
	size_t i, n = 0, closing = 0;

	for (i = 0; i < set->nr; i++) {
		t = set->v[i];
		if (t->seen || !target_is_open(t) || t->cgroup == NULL)
			continue;
		closing++;
		if (p->new_plan || target_find(p->v, p->n, t->cgroup))
			continue;
		if (target_depart_room(t, set->ps->cfg) < 0)
			return -ENOMEM;
		n++;
	}
	if (n && departed_room(&set->departed, n) < 0)
		return -ENOMEM;
	if (closing && !p->rebuild)
		source_kinds_refresh(set->ix.k);
	return 0;
}

/* Steps 2 to 4 (see the header).  0 or -ENOMEM. */
static int
pass_build(struct targetset *set, struct pass *p, struct cgroup_list *lists)
{
	int r;

	if (entries_alloc(&p->e, set->ps->cfg->nr_targets) < 0 ||
	    (r = discovery_expand(&(const struct discovery){
	    set->cg, set->ps, set->rp }, p->new_plan, lists, &p->w)) < 0 ||
	    source_kinds_begin(set->ix.k, r ? lists : NULL, p->rebuild, p->as,
	    &p->e) < 0)
		return -ENOMEM;
	p->v = malloc((p->w.nm + 2) * sizeof(*p->v));
	p->fresh = malloc((p->w.nm + 2) * sizeof(*p->fresh));
	if (p->v == NULL || p->fresh == NULL || pass_plan(set, p) < 0 ||
	    pass_departures(set, p) < 0)
		return -ENOMEM;
	return open_next(set, p);
}

/* The one way the target set changes (see targetset.h). */
int
targetset_reconcile(struct targetset *set, const struct plan *cfg,
    enum reconcile_reason why, struct asks *as)
{
	struct pass p = { .rebuild = why != RECONCILE_RESCAN,
	    .new_plan = cfg != set->ps->cfg, .enable = why != RECONCILE_START,
	    .as = as };
	const struct plan *old_cfg = set->ps->cfg;
	struct planstate old_ps = { 0 };
	struct cgroup_list *lists;
	size_t i, n;
	int r;

	for (i = 0; i < set->nr; i++)
		set->v[i]->seen = 0;	/* kept: marked by pass_plan */
	if (p.rebuild) {
		/* Every cgroup is rescanned from here: the schedule's
		 * rescan interval starts again now. */
		as->rebuilt_ns = mono_ns();
		if (planstate_take(set->ps, cfg, &old_ps) < 0)
			return old_cfg ? -ECANCELED : -ENOMEM;
		set->max_fds = fd_budget(cfg);
		p.ad = (struct adopt){ set->v, set->nr, old_cfg };
	}
	n = set->ps->cfg->nr_targets + 1;
	if ((lists = calloc(n, sizeof(*lists))) == NULL)
		r = -ENOMEM;
	else
		r = pass_build(set, &p, lists);
	/* A rebuild's targets may hold what they took over: swapped in
	 * anyway.  Before that, a failure gives the plan back. */
	if (r == 0 || (p.rebuild && p.took))
		swap_in(set, &p, old_cfg, &old_ps);
	else if (old_cfg != NULL) {
		if (p.rebuild) {
			planstate_give_back(set->ps, &old_ps);
			set->max_fds = fd_budget(old_cfg);
			planstate_fini(cfg, &old_ps);	/* the new plan's */
		}
		r = -ECANCELED;		/* nothing changed */
	}
	cgnews_say(set->rp, &p.news);	/* as the old lines were: at once */
	if (r == 0) {
		set->share_refused = shares_end(set->rp, set->ps->cfg, &p.sh,
		    &set->shares, set->v, set->nr);
		shares_free(&set->shares);
		set->shares = p.sh;
		p.sh = (struct shares){ NULL, 0 };
		set->remade += p.remade;
	}
	if (r == 0 && report_tally(set, p.fds_in_use))
		p.as->rescan_soon = 1;	/* room is freed: at the next
					   collection, not a rescan later */
	if (r == 0)
		report_layouts(set, &p.w, p.e.mode);
	for (i = 0; i < p.nfresh; i++)
		target_free(p.fresh[i]);
	free(p.fresh);
	free(p.v);
	free(p.e.kind);
	free(p.e.declined);
	free(p.e.mode);
	wanted_free(&p.w);
	shares_free(&p.sh);
	cgnews_free(&p.news);
	for (i = 0; lists && i < n; i++)
		cgroup_list_free(&lists[i]);
	free(lists);
	return r;
}

/* Enable every open instance. */
void
targetset_enable(struct targetset *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		target_enable(set->v[i]);
}

void
targetset_fini(struct targetset *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		target_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->nr = 0;
	departed_clear(&set->departed);
	shares_free(&set->shares);
}
