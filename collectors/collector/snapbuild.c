/*
 * snapbuild.c - turning the collector's state into an immutable snapshot
 * (collectors/collector/snapshot.h) that owns copies of everything it shows: the
 * rows of counts, which events opened anywhere, and the collector's
 * health for the self-metrics.  The HTTP side renders only snapshots.
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/collector/collector_int.h"
#include "names/names.h"

/* The value of t's label name, or NULL. */
static const char *
target_label(const struct target *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_labels; i++)
		if (strcmp(t->lname[i], name) == 0)
			return t->lvalue[i];
	return NULL;
}

/*
 * A target's labels for the snapshot: its own (from relabel rules), then
 * the names its container_id resolved to (names.h), each unless the path
 * gave that label already.  0, or -ENOMEM.
 */
static int
row_labels(struct snapshot *s, const struct target *t,
    const struct namemap_entry *ne, size_t *nr, const char ***ln,
    const char ***lv)
{
	size_t e, n = 0, max = t->nr_labels + (ne ? NAMES_NR : 0);

	*nr = 0;
	*ln = *lv = NULL;
	if (max == 0)
		return 0;
	*ln = snapshot_alloc(s, max * sizeof(**ln));
	*lv = snapshot_alloc(s, max * sizeof(**lv));
	if (!*ln || !*lv)
		return -ENOMEM;
	for (e = 0; e < t->nr_labels; e++, n++)
		if (((*ln)[n] = snapshot_strdup(s, t->lname[e])) == NULL ||
		    ((*lv)[n] = snapshot_strdup(s, t->lvalue[e])) == NULL)
			return -ENOMEM;
	for (e = 0; ne && e < NAMES_NR; e++) {
		if (ne->v[e] == NULL || target_label(t, names_label_name[e]))
			continue;
		(*ln)[n] = names_label_name[e];
		if (((*lv)[n++] = snapshot_strdup(s, ne->v[e])) == NULL)
			return -ENOMEM;
	}
	*nr = n;
	return 0;
}

/*
 * The name map's entry for t's container id, NULL when it has none.  A
 * target whose id the resolver has not looked up yet is held out of its
 * first snapshot (*hold), so that its series start with their names
 * rather than gain them an interval later; its id is added to ids, the
 * set the resolver is told.
 */
static const struct namemap_entry *
target_names(struct target *t, const struct namemap *nm, const char **ids,
    size_t *nids, int *hold)
{
	const struct namemap_entry *ne;
	const char *id;

	*hold = 0;
	if (nm == NULL || t->cgroup == NULL ||
	    (id = target_label(t, NAMES_ID_LABEL)) == NULL ||
	    !names_id_valid(id))
		return NULL;
	ids[(*nids)++] = id;
	if ((ne = namemap_find(nm, id)) == NULL && !t->names_held) {
		t->names_held = 1;
		*hold = 1;
	}
	return ne && ne->found ? ne : NULL;
}

/* Tell the resolver the ids counted now, when the set changed. */
static void
names_tell(struct collector *c, const char **ids, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	const char *p;

	for (i = 0; i < n; i++) {
		for (p = ids[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	if (h == c->names_told && n == c->names_told_nr)
		return;
	if (names_want(c->o.names, ids, n) == 0) {
		c->names_told = h;
		c->names_told_nr = n;
	}
}

/*
 * The collector's health for the self-metrics: targets, and per group its
 * open instances, the worst running/enabled ratio of the last interval,
 * the instances that were enabled but never ran (the PMU taken by someone
 * else, or too many events), and open errors per (group, event, errno).
 */
static int
snapshot_health(const struct collector *c, struct snapshot *s,
    const char **gnames, const char ***names)
{
	const struct plan *cfg = c->cfg;
	struct snap_open_error *oe;
	size_t i, j, k, e, n, cap = 0;
	int *cpus, *cov;

	s->health = snapshot_alloc(s, (cfg->nr_groups + 1) * sizeof(*s->health));
	if (s->health == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++)
		s->health[i] = (struct snap_group_health){ gnames[i], 0, NAN, 0 };
	s->nr_health = cfg->nr_groups;
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++)
				for (e = 0; tg->inst[k].err &&
				    e < cfg->groups[tg->gi].nr_events; e++)
					cap += tg->inst[k].err[e] != 0;
		}
	s->open_errors = snapshot_alloc(s, (cap + 1) * sizeof(*oe));
	cpus = calloc((size_t)c->online.nr + 1, sizeof(*cpus));
	cov = calloc((size_t)c->online.nr + 1, sizeof(*cov));
	if (s->open_errors == NULL || cpus == NULL || cov == NULL) {
		free(cpus);
		free(cov);
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];
		int no_perf = 0;

		s->nr_cgroups += t->cgroup != NULL;
		s->cgroups_opened += t->cgroup != NULL && t->opened;
		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			struct snap_group_health *h = &s->health[tg->gi];

			for (k = 0; k < tg->cpus.nr && tg->inst; k++) {
				struct inst *in = &tg->inst[k];

				for (n = 0; t->opened && n < c->online.nr; n++)
					if (c->online.cpu[n] == in->cpu) {
						cov[n] = 1;
						cpus[n] |= t->cgroup == NULL;
					}
				for (e = 0; in->err &&
				    e < cfg->groups[tg->gi].nr_events; e++) {
					if (in->err[e] == 0)
						continue;
					for (n = 0; n < s->nr_open_errors; n++)
						if (s->open_errors[n].group ==
						    gnames[tg->gi] &&
						    s->open_errors[n].event ==
						    names[tg->gi][e] &&
						    s->open_errors[n].err ==
						    in->err[e] &&
						    s->open_errors[n].no_perf_cgroup
						    == in->no_perf_cgroup)
							break;
					oe = &s->open_errors[n];
					if (n == s->nr_open_errors) {
						*oe = (struct snap_open_error){
						    gnames[tg->gi],
						    names[tg->gi][e],
						    in->err[e],
						    in->no_perf_cgroup, 0 };
						s->nr_open_errors++;
					}
					oe->count++;
				}
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
	for (n = 0; n < c->online.nr; n++) {
		s->nr_cpus += (size_t)cpus[n];
		s->cpus_covered += (size_t)cov[n];
	}
	free(cpus);
	free(cov);
	return 0;
}

/* What one snapshot's building shares between its steps. */
struct build {
	struct collector *c;
	struct snapshot *s;
	const char **gnames;		/* [group] */
	const char ***names;		/* [group][event] */
	size_t *base;			/* [group]: its first support entry */
	size_t row;			/* rows filled */
};

/* The groups' and events' names, copied once into the snapshot. */
static int
build_names(struct build *b)
{
	const struct plan *cfg = b->c->cfg;
	size_t i, e, ne;

	b->names = snapshot_alloc(b->s, cfg->nr_groups * sizeof(*b->names));
	b->gnames = snapshot_alloc(b->s, cfg->nr_groups * sizeof(*b->gnames));
	if (!b->names || !b->gnames)
		return -ENOMEM;
	for (i = 0; i < cfg->nr_groups; i++) {
		ne = cfg->groups[i].nr_events;
		b->gnames[i] = snapshot_strdup(b->s, cfg->groups[i].name);
		b->names[i] = snapshot_alloc(b->s, ne * sizeof(**b->names));
		if (!b->gnames[i] || !b->names[i])
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
	const struct plan *cfg = b->c->cfg;
	struct snapshot *s = b->s;
	size_t i, e, n = 0;

	for (i = 0; i < cfg->nr_groups; i++)
		n += cfg->groups[i].nr_events;
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

/* Rows the opened targets will fill. */
static size_t
count_rows(const struct collector *c)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			n += (c->targets[i]->cgroup == NULL || tg->per_cpu) ?
			    tg->cpus.nr : 1;
		}
	return n;
}

/*
 * A new row for tg on t, its values zero but for what CPUs gone offline
 * counted (summed rows only); row is a model with the target's cgroup
 * and labels.  NULL on ENOMEM.
 */
static struct snap_row *
row_new(struct build *b, const struct snap_row *model,
    const struct tgroup *tg, int cpu, int split)
{
	const struct plan_group *pg = &b->c->cfg->groups[tg->gi];
	struct snap_row *r = &b->s->rows[b->row++];
	size_t e, ne = pg->nr_events;
	unsigned char *cnt;
	double *v;

	*r = *model;
	r->cpu = split ? cpu : -1;
	r->group = b->gnames[tg->gi];
	r->nr_events = ne;
	r->events = b->names[tg->gi];
	v = snapshot_alloc(b->s, ne * sizeof(*v));
	cnt = snapshot_alloc(b->s, ne);
	if (v == NULL || cnt == NULL)
		return NULL;
	memset(v, 0, ne * sizeof(*v));
	memset(cnt, 0, ne);
	r->values = v;
	r->counted = cnt;
	r->enabled_s = r->running_s = 0;
	if (!split && tg->gone) {
		/* CPUs gone offline, still summed. */
		for (e = 0; e < ne; e++)
			v[e] += scale_value(&tg->gone[e]) *
			    pg->events[e].scale;
		r->enabled_s += (double)tg->gone_enabled_ns / 1e9;
		r->running_s += (double)tg->gone_running_ns / 1e9;
	}
	r->pmu = pg->hybrid ? snapshot_strdup(b->s, pg->pmu) : NULL;
	if (pg->hybrid && r->pmu == NULL)
		return NULL;
	return r;
}

/* The rows of one opened target: per CPU, or summed over its CPUs. */
static int
target_rows(struct build *b, const struct target *t,
    const struct namemap_entry *nent)
{
	const struct plan *cfg = b->c->cfg;
	struct snap_row model = { .cgroup = NULL }, *r = NULL;
	size_t j, k, e, ne;

	if (t->cgroup && (model.cgroup = snapshot_strdup(b->s,
	    t->cgroup)) == NULL)
		return -ENOMEM;
	if (row_labels(b->s, t, nent, &model.nr_labels, &model.label_names,
	    &model.label_values) < 0)
		return -ENOMEM;
	for (j = 0; j < t->nr_groups; j++) {
		const struct tgroup *tg = &t->groups[j];
		int split = t->cgroup == NULL || tg->per_cpu;

		ne = cfg->groups[tg->gi].nr_events;
		for (k = 0; k < tg->cpus.nr; k++) {
			const struct inst *in = &tg->inst[k];
			double *v;
			unsigned char *cnt;

			if ((split || k == 0) && (r = row_new(b, &model, tg,
			    in->cpu, split)) == NULL)
				return -ENOMEM;
			v = (double *)r->values;
			cnt = (unsigned char *)r->counted;
			for (e = 0; e < ne; e++)
				v[e] += scale_value(&in->acc[e]) *
				    cfg->groups[tg->gi].events[e].scale;
			for (e = 0; in->src && e < in->src->nr; e++)
				cnt[in->src->evidx[e]] = 1;
			r->enabled_s += (double)in->enabled_ns / 1e9;
			r->running_s += (double)in->running_ns / 1e9;
		}
	}
	return 0;
}

/* The collector's own figures: times, fds, cgroups, the kinds' parts. */
static void
build_status(struct build *b, double duration_s)
{
	const struct collector *c = b->c;
	struct snapshot *s = b->s;
	size_t i;

	s->timestamp_s = wall_s();
	s->duration_s = duration_s;
	s->interval_s = (double)c->cfg->interval_ns / 1e9;
	s->seq = c->seq;
	s->open_fds = inst_all_fds(c);
	s->cgroups_matched = c->cg_matched;
	s->cgroups_counted = c->cg_counted > s->cgroups_no_perf ?
	    c->cg_counted - s->cgroups_no_perf : 0;
	s->cgroups_skipped = c->cg_skipped;
	for (i = 0; i < SOURCE_KINDS; i++)
		if (source_kinds[i]->stats)
			source_kinds[i]->stats(c->kstate[i], s);
	s->reload_ok = c->reload_ok;
	s->reload_success_s = c->reload_success_s;
	s->nr_groups = c->cfg->nr_groups;
	s->denied = c->denied != DENIED_NONE;
	for (i = 0; i < s->nr_support; i++)
		s->nr_unsupported += !s->support[i].supported;
}

/*
 * The snapshot of the collector now: names and the support table from
 * the plan, then one pass over the opened targets for support and rows,
 * then health and status.  NULL on ENOMEM.
 */
struct snapshot *
snapbuild(struct collector *c, double duration_s)
{
	struct build b = { .c = c, .s = snapshot_new() };
	struct namemap *nm = c->o.names ? names_map(c->o.names) : NULL;
	const char **ids = NULL;
	size_t nids = 0, i;
	int hold;

	if (b.s == NULL) {
		namemap_unref(nm);
		return NULL;
	}
	if (nm && (ids = calloc(c->nr_targets + 1, sizeof(*ids))) == NULL)
		goto fail;
	if (build_names(&b) < 0 || build_support(&b) < 0)
		goto fail;
	b.s->rows = snapshot_alloc(b.s, (count_rows(c) + 1) *
	    sizeof(*b.s->rows));
	if (b.s->rows == NULL)
		goto fail;
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];
		const struct namemap_entry *nent;

		if (!t->opened)
			continue;
		mark_support(&b, t);
		nent = target_names(t, nm, ids, &nids, &hold);
		if (!hold && target_rows(&b, t, nent) < 0)
			goto fail;
	}
	b.s->nr_rows = b.row;
	if (snapshot_health(c, b.s, b.gnames, b.names) < 0)
		goto fail;
	build_status(&b, duration_s);
	if (nm)
		names_tell(c, ids, nids);
	free(ids);
	namemap_unref(nm);
	return b.s;
fail:
	free(ids);
	namemap_unref(nm);
	snapshot_unref(b.s);
	return NULL;
}
