/*
 * discovery.c - matching the plan's cgroup patterns against the hierarchy
 * (see collector_int.h): new cgroups become targets and are opened,
 * vanished ones are closed at once and their series dropped, and the
 * inotify watch set follows the directories where matches can appear.
 * Runs on the collector thread when inotify says something changed and
 * at every cgroup_rescan_interval.
 *
 * The new target set is built aside and swapped in only when it is
 * complete: running out of memory halfway leaves the running set as it
 * was (sorted, nothing freed twice, no cgroup counted twice).  Every
 * entry's matches are sorted once and merged with the sorted targets, so
 * a rescan costs O(n log n) in the cgroups, not a search per match.
 *
 * What a user must act on (cgroups over the fd budget, or without room
 * in their source kind) is said as one line per change, with the count,
 * the first few paths and the key to raise, never one line per cgroup.
 * A cgroup counted or gone is one info line each: the audit trail of a
 * churning node.
 *
 * The fd budget is kept here too: the perf fds the targets hold (also
 * what the exporter reports of itself) and those a target would need.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroup/cgroupfs.h"
#include "collectors/collector/collector_int.h"
#include "collectors/collector/wanted.h"
#include "util/utf8.h"

/* Paths named in one line about many cgroups. */
#define NAMED 3

/* A list of cgroups for one line: "a, b, c and 9 more". */
struct namelist {
	size_t n;
	char text[3 * 256];
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

/* Plan target t for entry ct: its relabelled labels and its groups. */
static int
plan_entry(struct collector *c, struct target *t,
    const struct plan_target *ct)
{
	char value[1024];
	size_t k;
	enum source_answer a;
	const struct source_kind *kind = source_kind_for(c, ct, &a);

	/* Its kind cannot run, and its fallback is no other kind. */
	if (a == SOURCE_REFUSED)
		t->refused = 1;
	else if (a == SOURCE_SKIPPED)
		t->skip_asked = 1;
	for (k = 0; k < ct->nr_relabel; k++)
		if (plan_relabel_apply(&ct->relabel[k], t->cgroup, value,
		    sizeof(value)) && value[0] && target_add_label(t,
		    ct->relabel[k].target_label, value) < 0)
			return -ENOMEM;
	for (k = 0; k < ct->nr_groups && a == SOURCE_MINE; k++)
		if (target_add_pmu_group(c, t, ct->groups[k], &c->online.map,
		    ct->per_cpu, kind) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * Expand every cgroups: entry into lists[i] (and the directories read
 * into dirs), then into the wanted set (wanted.h).  0 or -ENOMEM.
 */
static int
expand_all(struct collector *c, struct cgroup_list *lists,
    struct cgroup_list *dirs, struct wanted *w)
{
	const struct plan *cfg = c->cfg;
	size_t i;
	int r;

	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *ct = &cfg->targets[i];

		if (ct->kind != PLAN_TARGET_CGROUP)
			continue;
		r = cgroupfs_expand(c->cg.path, ct->path, ct->depth,
		    ct->exclude, ct->nr_exclude, &lists[i],
		    c->cg.watch ? dirs : NULL);
		if (r < 0) {
			REPORT(c, 4, ct->path, NULL, NULL, -1, -r,
			    "%s:%d:%d: cgroup path %s: %s",
			    cfg->source, ct->line, ct->col, ct->path,
			    strerror(-r));
			if (r == -ENOMEM)
				return r;
			continue;
		}
		/* A layout's entries match nothing on most machines: the
		 * layout's line says what they hold. */
		if (lists[i].nr == 0 && !c->ps.pattern_empty[i] && !ct->layout) {
			c->ps.pattern_empty[i] = 1;
			REPORT(c, 4, ct->path, NULL, NULL, -1, 0,
			    "%s:%d:%d: cgroup path %s matches no "
			    "cgroup under %s (yet); it is counted as soon as "
			    "it appears", cfg->source, ct->line, ct->col,
			    ct->path, c->cg.path);
		} else if (lists[i].nr > 0)
			c->ps.pattern_empty[i] = 0;
	}
	return wanted_build(cfg, lists, w);
}

/* The old target for path, by binary search: targets are kept sorted. */
static struct target *
find_old(struct target **v, size_t n, const char *path)
{
	struct target key = { .cgroup = (char *)path }, *kp = &key, **f;

	f = n ? bsearch(&kp, v, n, sizeof(*v), target_cmp) : NULL;
	return f ? *f : NULL;
}

/* What one pass found, reported and published only if it completes. */
struct tally {
	size_t matched, counted, skipped, no_room, refused;
	struct namelist skip, full;
	size_t fds_in_use;
};

/* Say what changed, once per change (see the header); 1 when a kind
 * frees room at the next collection for cgroups it had none for. */
static int
report_tally(struct collector *c, const struct tally *t)
{
	char names[1024];

	if (t->skipped != c->set.skipped_logged) {
		if (t->skipped)
			REPORT(c, 4, NULL, NULL, NULL, -1, 0, "%zu cgroup%s "
			    "not counted: over the fd budget (max_fds %llu, "
			    "%zu perf fds in use): %s; raise max_fds and "
			    "LimitNOFILE=", t->skipped, t->skipped == 1 ?
			    " is" : "s are", (unsigned long long)c->set.max_fds,
			    t->fds_in_use, namelist_str(&t->skip, names,
			    sizeof(names)));
		else
			REPORT(c, 6, NULL, NULL, NULL, -1, 0, "every cgroup "
			    "skipped for the fd budget is counted now");
		c->set.skipped_logged = t->skipped;
	}
	namelist_str(&t->full, names, sizeof(names));
	return source_kinds_tally(c, t->no_room, t->refused, names);
}

/*
 * One line per layout whose count or mode changed since it was last
 * said: "layout docker: 12 cgroups (mode perf)", the count of distinct
 * cgroups the wanted set holds for it.
 */
static void
report_layouts(struct collector *c, const struct wanted *w)
{
	const struct plan *cfg = c->cfg;
	const char *mode;
	size_t i, l, n;

	for (l = 0; l < cfg->nr_layouts; l++) {
		struct layout_said *s = &c->ps.layout_said[l];

		mode = NULL;
		for (i = 0; i < cfg->nr_targets && mode == NULL; i++)
			if (cfg->targets[i].layout == l + 1)
				mode = source_mode_text(c, &cfg->targets[i]);
		n = w->per_layout[l];
		/* Never said and nothing found: nothing to say. */
		if ((s->mode == NULL && n == 0) || (s->mode != NULL &&
		    s->cgroups == n && strcmp(s->mode, mode) == 0))
			continue;
		REPORT(c, 6, NULL, NULL, NULL, -1, 0, "layout %s: %zu "
		    "cgroup%s (%s)", cfg->layouts[l], n, n == 1 ? "" : "s",
		    mode);
		s->cgroups = n;
		s->mode = mode;
	}
}

/* ---- the fd budget ---------------------------------------------- */

/* Perf fds a target holds. */
static size_t
fds_held(const struct target *t)
{
	size_t i, k, n = 0;

	for (i = 0; t->opened && i < t->nr_groups; i++)
		for (k = 0; k < t->groups[i].cpus.nr; k++)
			n += t->groups[i].inst[k].src ?
			    t->groups[i].inst[k].src->fds : 0;
	return n;
}

/* Perf fds a target will need. */
static size_t
fds_needed(const struct collector *c, const struct target *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr_groups; i++)
		n += source_need_fds(c, &t->groups[i]);
	return n;
}

/*
 * The fds the kinds hold themselves and those of every source; kept_only:
 * of the targets a rescan keeps only (what vanished is closed, on
 * success, and is not in the budget's way).
 */
static size_t
fds_in_use(const struct collector *c, int kept_only)
{
	size_t n, i, j, k;

	n = source_kinds_fds(c);
	for (i = 0; i < c->set.nr; i++)
		for (j = 0; (!kept_only || c->set.v[i]->seen) &&
		    j < c->set.v[i]->nr_groups; j++) {
			struct tgroup *tg = &c->set.v[i]->groups[j];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++)
				n += tg->inst[k].src ? tg->inst[k].src->fds : 0;
		}
	return n;
}

size_t
discovery_fds(const struct collector *c)
{
	return fds_in_use(c, 0);
}

/*
 * Open a target that is new, or was left unopened before (over the
 * budget, no room in its kind).  1 if it is counted now, 0 if it stays unopened
 * (and stays in the set), -ENOENT if it vanished, -ENOMEM.
 */
static int
open_one(struct collector *c, struct target *t, struct tally *ty,
    int enable, const struct adopt *ad, struct asks *as)
{
	size_t need = fds_needed(c, t);
	int r;

	if (t->nr_groups == 0 && (t->refused || t->skip_asked)) {
		/* Every entry matching it has a kind that cannot run, and
		 * refuses or skips. */
		ty->refused++;
		return 0;
	}
	if (need > 0 && ty->fds_in_use + need > c->set.max_fds) {
		t->skipped = 1;
		ty->skipped++;
		namelist_add(&ty->skip, t->cgroup);
		return 0;
	}
	r = target_open(c, t, ad, as);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOSPC && t->no_room) {
		/* No room in its kind: tried again at the next rescan. */
		ty->no_room++;
		namelist_add(&ty->full, t->cgroup);
		return 0;
	}
	if (r < 0)
		return -ENOENT;		/* vanished meanwhile */
	t->skipped = 0;
	ty->fds_in_use += fds_held(t);
	if (!target_was_counted(ad, t->cgroup))
		REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0, "counting cgroup "
		    "%s", t->cgroup);
	if (enable)
		target_enable(t);
	return 1;
}

/* The target set a rescan builds beside the old one. */
struct next_set {
	struct target **v;		/* the new set, in path order */
	size_t n;
	struct target **fresh;		/* the targets made by this rescan */
	size_t nfresh;
};

/*
 * The new set: the system-wide target, then one per matched path, in
 * path order (so it comes out sorted), old targets kept.  0 or -ENOMEM.
 */
static int
plan_next(struct collector *c, const struct match *m, size_t nm,
    struct next_set *ns)
{
	struct target *t;
	size_t i, j;

	for (i = 0; i < c->set.nr; i++)
		c->set.v[i]->seen = c->set.v[i]->cgroup == NULL;
	if (c->set.nr && c->set.v[0]->cgroup == NULL)
		ns->v[ns->n++] = c->set.v[0];
	for (i = 0; i < nm; i = j) {
		t = find_old(c->set.v, c->set.nr, m[i].path);
		if (t == NULL) {
			if ((t = target_new(m[i].path)) == NULL)
				return -ENOMEM;
			ns->fresh[ns->nfresh++] = t;
		}
		t->seen = 1;
		for (j = i; j < nm && strcmp(m[j].path, m[i].path) == 0; j++)
			if (!t->opened &&
			    plan_entry(c, t, &c->cfg->targets[m[j].entry]) < 0)
				return -ENOMEM;
		ns->v[ns->n++] = t;
	}
	return 0;
}

/*
 * Open what is new or was left out: the old set stays valid (an old
 * target opened here is complete), so this may still fail.  Targets that
 * vanished meanwhile leave the new set.  0 or -ENOMEM.
 */
static int
open_next(struct collector *c, struct next_set *ns, struct tally *ty,
    int enable, const struct adopt *ad, struct asks *as)
{
	struct target *t;
	size_t i, j;
	int r;

	for (i = 0, j = 0; i < ns->n; i++) {
		t = ns->v[i];
		if (t->cgroup && !t->opened) {
			r = open_one(c, t, ty, enable, ad, as);
			if (r == -ENOMEM)
				return r;
			if (r == -ENOENT) {
				t->seen = 0;	/* dropped below */
				continue;
			}
		}
		if (t->cgroup) {
			ty->matched++;
			ty->counted += t->opened;
		}
		ns->v[j++] = t;
	}
	ns->n = j;
	return 0;
}

/* Complete: swap the new set in, then close what vanished. */
static void
swap_in(struct collector *c, struct next_set *ns)
{
	struct target *t;
	size_t i;

	for (i = 0; i < c->set.nr; i++) {
		t = c->set.v[i];
		if (t->seen)
			continue;
		if (t->opened)
			REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0, "cgroup %s "
			    "is gone; its series are dropped", t->cgroup);
		target_last_read(t);
		target_free(t);
	}
	for (i = 0; i < ns->nfresh; i++)
		if (!ns->fresh[i]->seen)
			target_free(ns->fresh[i]);	/* vanished meanwhile */
	ns->nfresh = 0;
	free(c->set.v);
	c->set.v = ns->v;
	c->set.nr = c->set.cap = ns->n;
	ns->v = NULL;
}

/* Point the inotify watches at the directories read.  0 or -ENOMEM. */
static int
watch_dirs(struct collector *c, struct cgroup_list *dirs)
{
	int r;

	if (c->cg.watch == NULL)
		return 0;
	cgroup_list_sort_unique(dirs);
	r = cgwatch_set(c->cg.watch, c->cg.path, dirs);
	if (r == -ENOSPC && !c->cg.logged_watch++)
		REPORT(c, 4, NULL, NULL, NULL, -1, ENOSPC, "inotify watch "
		    "limit reached (fs.inotify.max_user_watches): some new "
		    "cgroups are found only by the rescan every %llus",
		    (unsigned long long)(c->cfg->rescan_ns / 1000000000ULL));
	return r == -ENOMEM ? r : 0;
}

/*
 * Expand every cgroups: entry; open targets for new cgroups (within the fd
 * budget) and close the ones that are gone; then point the inotify
 * watches at the directories the expansion read.  rebuild: the whole set
 * is being built again (see source_kind.prepare), adopting from ad's old
 * targets (NULL at a plain rescan); what to retry or rescan goes in as.
 * 0 or -ENOMEM, which leaves the target set as it was.
 */
int
discovery_rescan(struct collector *c, int enable, int rebuild,
    const struct adopt *ad, struct asks *as)
{
	const struct plan *cfg = c->cfg;
	struct cgroup_list *lists, dirs = { 0, 0, NULL };
	struct next_set ns = { NULL, 0, NULL, 0 };
	struct wanted w = { NULL, 0, NULL };
	struct tally ty;
	size_t i, any = 0;
	int r = -ENOMEM, soon;

	for (i = 0; i < cfg->nr_targets; i++)
		any |= cfg->targets[i].kind == PLAN_TARGET_CGROUP;
	if (!any || !c->cg.found)
		return source_kinds_prepare(c, NULL, rebuild, as);
	if ((lists = calloc(cfg->nr_targets + 1, sizeof(*lists))) == NULL)
		return -ENOMEM;
	if (expand_all(c, lists, &dirs, &w) < 0 ||
	    source_kinds_prepare(c, lists, rebuild, as) < 0)
		goto out;
	ns.v = malloc((c->set.nr + w.nm + 1) * sizeof(*ns.v));
	ns.fresh = malloc((w.nm + 1) * sizeof(*ns.fresh));
	if (ns.v == NULL || ns.fresh == NULL)
		goto out;
	if (plan_next(c, w.m, w.nm, &ns) < 0)
		goto out;
	memset(&ty, 0, sizeof(ty));
	ty.fds_in_use = fds_in_use(c, 1);
	if (open_next(c, &ns, &ty, enable, ad, as) < 0)
		goto out;
	swap_in(c, &ns);
	c->set.matched = ty.matched;
	c->set.counted = ty.counted;
	c->set.skipped = ty.skipped;
	soon = report_tally(c, &ty);
	report_layouts(c, &w);
	r = watch_dirs(c, &dirs);
	/* A slot freed this interval is reusable after the next refresh:
	 * rescan then, not a whole rescan interval later. */
	if (soon)
		as->rescan_soon = 1;
out:
	/* On failure the targets made here go; the old set is untouched. */
	for (i = 0; i < ns.nfresh; i++)
		target_free(ns.fresh[i]);
	free(ns.fresh);
	free(ns.v);
	wanted_free(&w);
	for (i = 0; i < cfg->nr_targets; i++)
		cgroup_list_free(&lists[i]);
	free(lists);
	cgroup_list_free(&dirs);
	return r;
}
