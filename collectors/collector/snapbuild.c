/*
 * snapbuild.c - the collector's state as an immutable snapshot
 * (snapshot.h) that owns copies of what it shows: the counts, which
 * events opened, the collector's health.  It only reads (layering.test
 * rule 4): what the collector acts on comes back in a struct snapseen.
 * See docs/architecture.md.
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/collector_int.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/online.h"
#include "collectors/collector/plan.h"
#include "collectors/collector/share.h"
#include "collectors/collector/snapbuild.h"
#include "collectors/collector/snapshot.h"
#include "collectors/collector/source.h"
#include "collectors/collector/target.h"
#include "collectors/collector/targetset.h"
#include "names/names.h"
#include "util/clock.h"

/* The value of t's label name, or NULL. */
static const char *
label_value(const struct target *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_labels; i++)
		if (strcmp(t->lname[i], name) == 0)
			return t->lvalue[i];
	return NULL;
}

/* The container id of t, a cgroup target, for the name resolver, or
 * NULL. */
static const char *
container_id(const struct target *t)
{
	const char *id;

	if (t->cgroup == NULL || (id = label_value(t, NAMES_ID_LABEL)) == NULL)
		return NULL;
	return names_id_valid(id) ? id : NULL;
}

/*
 * The model of t's rows (row_new copies it): its cgroup and its labels,
 * its own (from relabel rules) then the names its container_id resolved
 * to (names.h), each unless the path gave that label already.  Which
 * names it takes is worked out first, then everything is copied into
 * the snapshot at once.  0, or -ENOMEM.
 */
static int
row_model(struct snapshot *s, const struct target *t,
    const struct namemap_entry *ne, int hidden, struct snap_row *m)
{
	size_t e, n = 0, nn = 0;
	const char **ln, **lv;
	unsigned char take[NAMES_NR];

	*m = (struct snap_row){ .cgroup = NULL, .cgroup_id = t->id,
	    .hidden = hidden };
	for (e = 0; e < NAMES_NR; e++)
		nn += take[e] = ne && ne->v[e] != NULL &&
		    label_value(t, names_label_name[e]) == NULL;
	if (t->cgroup && (m->cgroup = snapshot_strdup(s, t->cgroup)) == NULL)
		return -ENOMEM;
	if (t->nr_labels + nn == 0)
		return 0;
	ln = snapshot_alloc(s, (t->nr_labels + nn) * sizeof(*ln));
	lv = snapshot_alloc(s, (t->nr_labels + nn) * sizeof(*lv));
	if (!ln || !lv)
		return -ENOMEM;
	for (e = 0; e < t->nr_labels; e++, n++)
		if ((ln[n] = snapshot_strdup(s, t->lname[e])) == NULL ||
		    (lv[n] = snapshot_strdup(s, t->lvalue[e])) == NULL)
			return -ENOMEM;
	for (e = 0; e < NAMES_NR; e++)
		if (take[e]) {
			ln[n] = names_label_name[e];
			lv[n++] = ne->v[e];	/* in s->names */
		}
	m->label_names = ln;
	m->label_values = lv;
	m->nr_labels = n;
	return 0;
}

/*
 * The name map's entry for t's container id in t's cgroup (t is
 * c->set.v[ti]), NULL when it has none.  A target whose id the
 * resolver has not looked up yet is held out of its first snapshot
 * (*hold; seen->held says which, for the collector to mark), so that its
 * series start with their names rather than gain them an interval later;
 * a pod's sandbox (pause) container, once the resolver knows it is one,
 * is shown apart (*hidden: the pmu_cgroup_hidden_* family, without
 * names), never left out.  Its id and cgroup are added to seen->ids and
 * seen->cgs, the set the resolver is told.
 */
static const struct namemap_entry *
container_names(const struct target *t, size_t ti, const struct namemap *nm,
    struct snapseen *seen, int *hold, int *hidden)
{
	const struct namemap_entry *ne;
	const char *id;

	*hold = *hidden = 0;
	if (nm == NULL || (id = container_id(t)) == NULL)
		return NULL;
	seen->ids[seen->nr_ids] = id;
	seen->cgs[seen->nr_ids++] = t->cgroup;
	if ((ne = namemap_find(nm, id, t->cgroup)) == NULL &&
	    !t->names_held) {
		seen->held[seen->nr_held++] = ti;
		*hold = 1;
	}
	if (ne && ne->found && ne->sandbox) {
		*hidden = 1;
		return NULL;
	}
	return ne && ne->found ? ne : NULL;
}

size_t
snapbuild_unlooked(const struct collector *c, struct namemap *nm)
{
	const struct target *t;
	const char *id;
	size_t i, n = 0;

	for (i = 0; nm && i < c->set.nr; i++) {
		t = c->set.v[i];
		n += (id = container_id(t)) && !namemap_find(nm, id, t->cgroup);
	}
	namemap_unref(nm);
	return n;
}

void
snapseen_free(struct snapseen *seen)
{
	free(seen->ids);
	free(seen->cgs);
	free(seen->held);
	*seen = (struct snapseen){ NULL, NULL, 0, NULL, 0 };
}

/* What one snapshot's building shares between its steps. */
struct build {
	const struct collector *c;
	struct snapshot *s;
	const char **gnames;		/* [group] */
	const char ***names;		/* [group][event] */
	const char **pmus;		/* [group]: its PMU's name, or NULL */
	size_t *base;			/* [group]: its first support entry */
	size_t row;			/* rows filled */
	double *values;			/* [nvalues]: the rows' values, */
	unsigned char *counted;		/* [nvalues]: and what counted them */
	size_t nvalues;			/* taken so far by row_new */
	/* Health: online CPUs counted system-wide, and by anything. */
	unsigned char *cpus, *cov;	/* [online.nr] */
	/* Open errors by (group, event, errno, reason): positions + 1 in
	 * s->open_errors, open addressing. */
	size_t *oe_at, oe_mask;
	struct scaled *sum;		/* [sum_cap]: the row being summed */
	size_t sum_cap;
};


/* The topdown preset's definition per (group, core PMU) where it
 * expanded to events: the rules join their fractions on these. */
static int
build_topdown(struct build *b)
{
	const struct plan *cfg = b->c->ps.cfg;
	struct snapshot *s = b->s;
	size_t i, n = 0;

	for (i = 0; i < cfg->nr_groups; i++)
		n += cfg->groups[i].definition != NULL;
	if ((s->topdown = snapshot_alloc(s, (n + 1) *
	    sizeof(*s->topdown))) == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		const struct plan_group *g = &cfg->groups[i];
		struct snap_topdown *t = &s->topdown[s->nr_topdown];

		if (g->definition == NULL)
			continue;
		t->group = b->gnames[i];
		t->pmu = b->pmus[i];
		if ((t->definition = snapshot_strdup(s, g->definition)) == NULL)
			return -ENOMEM;
		t->level = g->level;
		t->slots_per_cycle = g->slots_per_cycle;
		s->nr_topdown++;
	}
	return 0;
}

/* The groups' and events' names, copied once into the snapshot. */
static int
build_names(struct build *b)
{
	const struct plan *cfg = b->c->ps.cfg;
	size_t i, e, ne;

	b->names = snapshot_alloc(b->s, cfg->nr_groups * sizeof(*b->names));
	b->gnames = snapshot_alloc(b->s, cfg->nr_groups * sizeof(*b->gnames));
	b->pmus = snapshot_alloc(b->s, cfg->nr_groups * sizeof(*b->pmus));
	if (!b->names || !b->gnames || !b->pmus)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		const char *pmu = cfg->groups[i].pmu;

		ne = cfg->groups[i].nr_events;
		b->gnames[i] = snapshot_strdup(b->s, cfg->groups[i].name);
		b->pmus[i] = pmu ? snapshot_strdup(b->s, pmu) : NULL;
		b->names[i] = snapshot_alloc(b->s, ne * sizeof(**b->names));
		if (!b->gnames[i] || !b->names[i] || (pmu && !b->pmus[i]))
			return -ENOMEM;
		for (e = 0; e < ne; e++)
			if ((b->names[i][e] = snapshot_strdup(b->s,
			    cfg->groups[i].events[e].name)) == NULL)
				return -ENOMEM;
	}
	return 0;
}

/* Event support, one entry per (group, event), none supported yet. */
static int
build_support(struct build *b)
{
	const struct plan *cfg = b->c->ps.cfg;
	struct snapshot *s = b->s;
	size_t i, e, n = 0;

	for (i = 0; i < cfg->nr_groups; i++)
		n += cfg->groups[i].nr_events + cfg->groups[i].nr_missing;
	s->support = snapshot_alloc(s, (n + 1) * sizeof(*s->support));
	b->base = snapshot_alloc(s, (cfg->nr_groups + 1) * sizeof(*b->base));
	if (s->support == NULL || b->base == NULL)
		return -ENOMEM;
	for (i = 0, n = 0; i < cfg->nr_groups; i++)
		for (b->base[i] = n, e = 0; e < cfg->groups[i].nr_events;
		    e++, n++) {
			s->support[n].group = b->gnames[i];
			s->support[n].event = b->names[i][e];
			s->support[n].supported = 0;
			s->support[n].pmu = snapshot_strdup(s,
			    cfg->groups[i].events[e].pmu);
			if (s->support[n].pmu == NULL)
				return -ENOMEM;
		}
	/* What a preset wanted and this PMU lacks: unsupported, named. */
	for (i = 0; i < cfg->nr_groups; i++)
		for (e = 0; e < cfg->groups[i].nr_missing; e++, n++) {
			s->support[n].group = b->gnames[i];
			s->support[n].event = snapshot_strdup(s,
			    cfg->groups[i].missing[e]);
			s->support[n].supported = 0;
			s->support[n].pmu = b->pmus[i];
			if (s->support[n].event == NULL)
				return -ENOMEM;
		}
	s->nr_support = n;
	return 0;
}

/* Support: the events t's instances opened (held targets' too). */
static void
mark_support(struct build *b, const struct target *t)
{
	size_t j, k, e;

	for (j = 0; j < t->nr_groups; j++) {
		const struct tgroup *tg = &t->groups[j];

		for (k = 0; k < tg->cpus.nr; k++) {
			const struct source *src = tg->inst[k].src;

			for (e = 0; src && e < src->nr; e++)
				b->s->support[b->base[tg->gi] +
				    src->evidx[e]].supported = 1;
		}
	}
}

/*
 * What the snapshot's arrays need: the rows the opened targets fill and
 * their values (one per event), and at most one open error per failed
 * (instance, event).
 */
static void
count_rows(const struct collector *c, size_t *rows, size_t *values,
    size_t *errors)
{
	const struct plan *cfg = c->ps.cfg;
	size_t i, j, k, e, n;

	*rows = *values = *errors = 0;
	for (i = 0; i < c->set.nr; i++)
		for (j = 0; j < c->set.v[i]->nr_groups; j++) {
			struct tgroup *tg = &c->set.v[i]->groups[j];

			if (target_is_open(c->set.v[i])) {
				n = (c->set.v[i]->cgroup == NULL ||
				    tg->per_cpu) ? tg->cpus.nr : 1;
				*rows += n;
				*values += n * cfg->groups[tg->gi].nr_events;
			}
			for (k = 0; k < tg->cpus.nr && tg->inst; k++)
				for (e = 0; tg->inst[k].err &&
				    e < cfg->groups[tg->gi].nr_events; e++)
					*errors += tg->inst[k].err[e] != 0;
		}
}

/* Room for the health figures: per group, per CPU, the error table. */
static int
health_init(struct build *b, size_t errors)
{
	const struct plan *cfg = b->c->ps.cfg;
	struct snapshot *s = b->s;
	size_t i, n = 4;

	s->health = snapshot_alloc(s, (cfg->nr_groups + 1) *
	    sizeof(*s->health));
	s->open_errors = snapshot_alloc(s, (errors + 1) *
	    sizeof(*s->open_errors));
	while (n < 2 * errors)
		n *= 2;
	b->oe_mask = n - 1;
	b->oe_at = calloc(n, sizeof(*b->oe_at));
	b->cpus = calloc((size_t)b->c->online.map.nr + 1, 1);
	b->cov = calloc((size_t)b->c->online.map.nr + 1, 1);
	if (!s->health || !s->open_errors || !b->oe_at || !b->cpus || !b->cov)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++)
		s->health[i] = (struct snap_group_health){ b->gnames[i], 0,
		    NAN, 0 };
	s->nr_health = cfg->nr_groups;
	return 0;
}

/* One more instance of (group gi, event e) failed with err. */
static void
open_error(struct build *b, size_t gi, size_t e, int err, int no_perf)
{
	struct snapshot *s = b->s;
	struct snap_open_error *oe;
	uint64_t h = ((uint64_t)gi * 0x9e3779b97f4a7c15ULL) ^
	    ((uint64_t)e * 0xc2b2ae3d27d4eb4fULL) ^ ((uint64_t)err << 1) ^
	    (uint64_t)(no_perf != 0);
	size_t i = (size_t)(h ^ (h >> 29)) & b->oe_mask;

	/* Names are the snapshot's own copies: equal pointers, equal names. */
	for (; b->oe_at[i]; i = (i + 1) & b->oe_mask) {
		oe = &s->open_errors[b->oe_at[i] - 1];
		if (oe->group == b->gnames[gi] &&
		    oe->event == b->names[gi][e] && oe->err == err &&
		    oe->no_perf_cgroup == no_perf) {
			oe->count++;
			return;
		}
	}
	s->open_errors[s->nr_open_errors] = (struct snap_open_error){
	    b->gnames[gi], b->names[gi][e], err, no_perf, 1 };
	b->oe_at[i] = ++s->nr_open_errors;
}

/*
 * One target's part of the collector's health for the self-metrics: per
 * group its open instances, the worst running/enabled ratio of the last
 * interval, the instances that were enabled but never ran (the PMU taken
 * by someone else, or too many events), and open errors per (group,
 * event, errno); the CPUs it covers.
 */
static void
health_target(struct build *b, const struct target *t)
{
	const struct collector *c = b->c;
	struct snapshot *s = b->s;
	size_t j, k, e, n;
	int no_perf = 0;

	s->nr_cgroups += t->cgroup != NULL;
	s->cgroups_opened += t->cgroup != NULL && target_is_open(t);
	for (j = 0; j < t->nr_groups; j++) {
		const struct tgroup *tg = &t->groups[j];
		struct snap_group_health *h = &s->health[tg->gi];

		for (k = 0; k < tg->cpus.nr && tg->inst; k++) {
			const struct inst *in = &tg->inst[k];

			for (n = 0; target_is_open(t) &&
			    n < c->online.map.nr; n++)
				if (c->online.map.cpu[n] == in->cpu) {
					b->cov[n] = 1;
					b->cpus[n] |= t->cgroup == NULL;
				}
			for (e = 0; in->err &&
			    e < c->ps.cfg->groups[tg->gi].nr_events; e++)
				if (in->err[e] != 0)
					open_error(b, tg->gi, e, in->err[e],
					    in->no_perf_cgroup);
			no_perf |= in->no_perf_cgroup;
			if (in->state != INST_OK)
				continue;
			h->instances++;
			if (in->last_de == 0)
				continue;
			if (in->last_dr == 0)
				h->starved++;
			if (!(h->worst_ratio <= (double)in->last_dr /
			    (double)in->last_de))
				h->worst_ratio = (double)in->last_dr /
				    (double)in->last_de;
		}
	}
	s->cgroups_no_perf += (size_t)no_perf;
}

/*
 * A new row for tg on t, its values zero (row_set fills them), taken from
 * the arrays snapbuild sized; model has the target's cgroup and labels.
 */
static struct snap_row *
row_new(struct build *b, const struct snap_row *model,
    const struct tgroup *tg, int cpu, int split)
{
	const struct plan_group *pg = &b->c->ps.cfg->groups[tg->gi];
	struct snap_row *r = &b->s->rows[b->row++];

	*r = *model;
	r->cpu = split ? cpu : -1;
	r->group = b->gnames[tg->gi];
	r->nr_events = pg->nr_events;
	r->events = b->names[tg->gi];
	r->values = b->values + b->nvalues;
	r->counted = b->counted + b->nvalues;
	b->nvalues += pg->nr_events;
	r->enabled_s = r->running_s = 0;
	r->pmu = pg->hybrid ? b->pmus[tg->gi] : NULL;
	return r;
}

/*
 * A row's values and times from its sums, each converted once: a summed
 * series comes out the same to the last bit whichever CPUs (or CPUs gone
 * offline, tg->gone) its counts are summed from, so it never goes back
 * by a rounding when a CPU goes.  The sums start again at 0.
 */
static void
row_set(struct build *b, struct snap_row *r, const struct plan_group *pg,
    uint64_t *en, uint64_t *ru)
{
	double *v = (double *)r->values;
	size_t e;

	for (e = 0; e < pg->nr_events; e++)
		v[e] = scale_value(&b->sum[e]) * pg->events[e].scale;
	memset(b->sum, 0, pg->nr_events * sizeof(*b->sum));
	r->enabled_s = (double)*en / 1e9;
	r->running_s = (double)*ru / 1e9;
	*en = *ru = 0;
}

/* The rows of one opened target: per CPU, or summed over its CPUs. */
static int
build_rows(struct build *b, const struct target *t,
    const struct namemap_entry *nent, int hidden)
{
	const struct plan *cfg = b->c->ps.cfg;
	struct snap_row model, *r = NULL;
	size_t j, k, e, ne;
	uint64_t en, ru;

	if (row_model(b->s, t, nent, hidden, &model) < 0)
		return -ENOMEM;
	for (j = 0; j < t->nr_groups; j++) {
		const struct tgroup *tg = &t->groups[j];
		int split = t->cgroup == NULL || tg->per_cpu;

		ne = cfg->groups[tg->gi].nr_events;
		if (ne > b->sum_cap) {
			struct scaled *sum = realloc(b->sum, ne * sizeof(*sum));

			if (sum == NULL)
				return -ENOMEM;
			b->sum = sum;
			b->sum_cap = ne;
		}
		memset(b->sum, 0, ne * sizeof(*b->sum));
		en = ru = 0;
		if (!split && tg->gone) {
			/* CPUs gone offline, still summed. */
			for (e = 0; e < ne; e++)
				scale_add(&b->sum[e], &tg->gone[e]);
			en = tg->gone_enabled_ns;
			ru = tg->gone_running_ns;
		}
		for (k = 0; k < tg->cpus.nr; k++) {
			const struct inst *in = &tg->inst[k];
			unsigned char *cnt;

			if (split || k == 0)
				r = row_new(b, &model, tg, in->cpu, split);
			cnt = (unsigned char *)r->counted;
			for (e = 0; e < ne; e++)
				scale_add(&b->sum[e], &in->acc[e]);
			for (e = 0; in->src && e < in->src->nr; e++)
				cnt[in->src->evidx[e]] = 1;
			en += in->enabled_ns;
			ru += in->running_ns;
			if (split || k + 1 == tg->cpus.nr)
				row_set(b, r, &cfg->groups[tg->gi], &en, &ru);
		}
	}
	return 0;
}

/* Each delegated subtree's cgroups not counted (share.c), as one family
 * with a subtree label; none while no subtree is delegated. */
static int
own_shares(const struct collector *c, struct snapshot *s)
{
	const struct shares *sh = &c->set.shares;
	struct snap_metric *m;
	const char **lv;
	double *v;
	size_t i;

	if (sh->nr == 0)
		return 0;
	m = snapshot_alloc(s, sizeof(*m));
	lv = snapshot_alloc(s, sh->nr * sizeof(*lv));
	v = snapshot_alloc(s, sh->nr * sizeof(*v));
	if (m == NULL || lv == NULL || v == NULL)
		return -ENOMEM;
	for (i = 0; i < sh->nr; i++) {
		if ((lv[i] = snapshot_strdup(s, sh->v[i].subtree)) == NULL)
			return -ENOMEM;
		v[i] = (double)sh->v[i].refused;
	}
	*m = (struct snap_metric){ "pmu_exporter_delegated_cgroups_refused",
	    "gauge", "Cgroups of a delegated subtree not counted: over its "
	    "share (delegated_max_cgroups), or no room left for them.", sh->nr, "subtree", lv, v };
	s->own.metrics = m;
	s->own.nr_metrics = 1;
	return 0;
}

/* What the collector shows of itself beside the kinds (snapshot.h): the
 * subtrees the cgroup walks left out, by reason, and the delegated
 * subtrees' refusals. */
static int
own_stats(const struct collector *c, struct snapshot *s)
{
	size_t k;

	s->own.kind = "collector";
	s->own.wanted = 1;
	s->own.skipped = snapshot_alloc(s, (CGROUP_SKIP_REASONS + 1) *
	    sizeof(*s->own.skipped));
	if (s->own.skipped == NULL || own_shares(c, s) < 0)
		return -ENOMEM;
	for (k = 0; k < CGROUP_SKIP_REASONS; k++)
		s->own.skipped[k] = (struct snap_skip){
		    cgroup_skip_reason(k), c->cg.skipped[k] };
	s->own.skipped[k] = (struct snap_skip){
	    target_why_label(TARGET_SHARE_REFUSED), c->set.share_refused };
	s->own.nr_skipped = CGROUP_SKIP_REASONS + 1;
	return 0;
}

/* The collector's own figures: the wall-clock time, fds, cgroups, the
 * kinds' parts (the collection's times are interval.c's).
 * 0 or -ENOMEM. */
static int
build_status(struct build *b)
{
	const struct collector *c = b->c;
	struct snapshot *s = b->s;
	size_t i;
	int r;

	s->timestamp_s = wall_s();
	s->seq = c->col.seq;
	s->open_fds = targetset_fds(&c->set);
	s->cgroups_matched = c->set.matched;
	s->cgroups_counted = c->set.counted > s->cgroups_no_perf ?
	    c->set.counted - s->cgroups_no_perf : 0;
	s->cgroups_skipped = c->set.skipped;
	s->cgroups_remade = c->set.remade;
	if (own_stats(c, s) < 0)
		return -ENOMEM;
	if ((s->sources = snapshot_alloc(s, SOURCE_KINDS *
	    sizeof(*s->sources))) == NULL)
		return -ENOMEM;
	memset(s->sources, 0, SOURCE_KINDS * sizeof(*s->sources));
	if ((r = source_kinds_stats(&c->kinds, s, s->sources)) < 0)
		return -ENOMEM;
	s->nr_sources = (size_t)r;
	s->reload_ok = c->th.reload_ok;
	s->reload_success_s = c->th.reload_success_s;
	s->nr_groups = c->ps.cfg->nr_groups;
	s->denied = c->said.denied != DENIED_NONE;
	for (i = 0; i < s->nr_support; i++)
		s->nr_unsupported += !s->support[i].supported;
	return 0;
}

/*
 * The snapshot of the collector now: names and the support table from
 * the plan, then one pass over the targets for health, support and rows
 * (after one that sizes the arrays), then the status.  NULL on ENOMEM.
 */
struct snapshot *
snapbuild(const struct collector *c, struct namemap *nm,
    struct snapseen *seen)
{
	struct build b = { .c = c, .s = snapshot_new() };
	size_t nrows, nvalues, nerrors, i;
	int hold, hidden;

	*seen = (struct snapseen){ NULL, NULL, 0, NULL, 0 };
	if (b.s == NULL) {
		namemap_unref(nm);
		return NULL;
	}
	if (nm) {
		/* The rows' name labels point into it: the caller's
		 * reference is the snapshot's now. */
		b.s->names = nm;
		seen->ids = calloc(c->set.nr + 1, sizeof(*seen->ids));
		seen->cgs = calloc(c->set.nr + 1, sizeof(*seen->cgs));
		seen->held = calloc(c->set.nr + 1, sizeof(*seen->held));
		if (!seen->ids || !seen->cgs || !seen->held)
			goto fail;
	}
	count_rows(c, &nrows, &nvalues, &nerrors);
	if (build_names(&b) < 0 || build_support(&b) < 0 ||
	    build_topdown(&b) < 0 || health_init(&b, nerrors) < 0)
		goto fail;
	b.s->rows = snapshot_alloc(b.s, (nrows + 1) * sizeof(*b.s->rows));
	b.values = snapshot_alloc(b.s, (nvalues + 1) * sizeof(*b.values));
	b.counted = snapshot_alloc(b.s, nvalues + 1);
	if (b.s->rows == NULL || b.values == NULL || b.counted == NULL)
		goto fail;
	memset(b.values, 0, nvalues * sizeof(*b.values));
	memset(b.counted, 0, nvalues);
	for (i = 0; i < c->set.nr; i++) {
		const struct target *t = c->set.v[i];
		const struct namemap_entry *nent;

		health_target(&b, t);
		if (!target_is_open(t))
			continue;
		mark_support(&b, t);
		nent = container_names(t, i, nm, seen, &hold, &hidden);
		if (!hold && build_rows(&b, t, nent, hidden) < 0)
			goto fail;
	}
	b.s->nr_rows = b.row;
	for (i = 0; i < c->online.map.nr; i++) {
		b.s->nr_cpus += b.cpus[i];
		b.s->cpus_covered += b.cov[i];
	}
	if (build_status(&b) < 0)
		goto fail;
	free(b.oe_at);
	free(b.sum);
	free(b.cpus);
	free(b.cov);
	return b.s;
fail:
	snapseen_free(seen);
	free(b.oe_at);
	free(b.sum);
	free(b.cpus);
	free(b.cov);
	snapshot_unref(b.s);
	return NULL;
}
