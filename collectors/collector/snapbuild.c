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
 * rather than gain them an interval later; a pod's sandbox (pause)
 * container is held out of every snapshot once the resolver knows it is
 * one.  Its id is added to ids, the set the resolver is told.
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
	if (ne && ne->found && ne->sandbox)
		*hold = 1;
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
/* The topdown preset's definition per (group, core PMU) where it
 * expanded to events: the rules join their fractions on these. */
static int
snapshot_topdown(struct snapshot *s, const struct plan *cfg,
    const char **gnames)
{
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
		t->group = gnames[i];
		t->pmu = g->pmu ? snapshot_strdup(s, g->pmu) : NULL;
		t->definition = snapshot_strdup(s, g->definition);
		if ((g->pmu && !t->pmu) || !t->definition)
			return -ENOMEM;
		t->level = g->level;
		t->slots_per_cycle = g->slots_per_cycle;
		s->nr_topdown++;
	}
	return 0;
}

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

struct snapshot *
snapbuild(struct collector *c, double duration_s)
{
	const struct plan *cfg = c->cfg;
	struct snapshot *s = snapshot_new();
	const char ***names = NULL;
	const char **gnames = NULL, **ids = NULL;
	struct namemap *nm = c->o.names ? names_map(c->o.names) : NULL;
	size_t nids = 0;
	int hold;
	const char *cg;
	size_t i, j, k, e, nrows = 0, row = 0, ne, *base;
	struct timespec ts;
	unsigned char *cnt;
	double *v;

	if (s == NULL) {
		namemap_unref(nm);
		return NULL;
	}
	if (nm && (ids = calloc(c->nr_targets + 1, sizeof(*ids))) == NULL)
		goto fail;
	names = snapshot_alloc(s, cfg->nr_groups * sizeof(*names));
	gnames = snapshot_alloc(s, cfg->nr_groups * sizeof(*gnames));
	if (!names || !gnames)
		goto fail;
	for (i = 0; i < cfg->nr_groups; i++) {
		ne = cfg->groups[i].nr_events;
		gnames[i] = snapshot_strdup(s, cfg->groups[i].name);
		names[i] = snapshot_alloc(s, ne * sizeof(**names));
		if (!gnames[i] || !names[i])
			goto fail;
		for (e = 0; e < ne; e++)
			if ((names[i][e] = snapshot_strdup(s,
			    cfg->groups[i].events[e].name)) == NULL)
				goto fail;
	}
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			nrows += (c->targets[i]->cgroup == NULL ||
			    tg->per_cpu) ? tg->cpus.nr : 1;
		}
	s->rows = snapshot_alloc(s, (nrows + 1) * sizeof(*s->rows));
	if (s->rows == NULL)
		goto fail;
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = c->targets[i];
		const struct namemap_entry *nent;
		const char **ln = NULL, **lv = NULL;
		size_t nl;

		if (!t->opened)
			continue;
		nent = target_names(t, nm, ids, &nids, &hold);
		if (hold)
			continue;
		cg = NULL;
		if (t->cgroup && (cg = snapshot_strdup(s, t->cgroup)) == NULL)
			goto fail;
		if (row_labels(s, t, nent, &nl, &ln, &lv) < 0)
			goto fail;
		for (j = 0; j < t->nr_groups; j++) {
			struct tgroup *tg = &t->groups[j];
			int split = t->cgroup == NULL || tg->per_cpu;

			ne = cfg->groups[tg->gi].nr_events;
			for (k = 0; k < tg->cpus.nr; k++) {
				struct inst *in = &tg->inst[k];
				struct snap_row *r;

				if (split || k == 0) {
					r = &s->rows[row++];
					r->cgroup = cg;
					r->nr_labels = nl;
					r->label_names = ln;
					r->label_values = lv;
					r->cpu = split ? in->cpu : -1;
					r->group = gnames[tg->gi];
					r->nr_events = ne;
					r->events = names[tg->gi];
					v = snapshot_alloc(s, ne * sizeof(*v));
					cnt = snapshot_alloc(s, ne);
					if (v == NULL || cnt == NULL)
						goto fail;
					memset(v, 0, ne * sizeof(*v));
					memset(cnt, 0, ne);
					r->values = v;
					r->counted = cnt;
					r->enabled_s = r->running_s = 0;
					/* CPUs gone offline, still summed. */
					for (e = 0; !split && tg->gone &&
					    e < ne; e++)
						v[e] += scale_value(&tg->gone[e]) *
						    cfg->groups[tg->gi].events[e].scale;
					if (!split && tg->gone) {
						r->enabled_s += (double)
						    tg->gone_enabled_ns / 1e9;
						r->running_s += (double)
						    tg->gone_running_ns / 1e9;
					}
					r->pmu = cfg->groups[tg->gi].hybrid ?
					    snapshot_strdup(s,
					    cfg->groups[tg->gi].pmu) : NULL;
				} else
					r = &s->rows[row - 1];
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
	}
	s->nr_rows = row;

	/* Event support: opened on at least one instance anywhere. */
	ne = 0;
	for (i = 0; i < cfg->nr_groups; i++)
		ne += cfg->groups[i].nr_events + cfg->groups[i].nr_missing;
	s->support = snapshot_alloc(s, (ne + 1) * sizeof(*s->support));
	base = snapshot_alloc(s, (cfg->nr_groups + 1) * sizeof(*base));
	if (s->support == NULL || base == NULL)
		goto fail;
	for (i = 0, row = 0; i < cfg->nr_groups; i++)
		for (base[i] = row, e = 0; e < cfg->groups[i].nr_events;
		    e++, row++) {
			s->support[row].group = gnames[i];
			s->support[row].event = names[i][e];
			s->support[row].supported = 0;
			s->support[row].pmu = snapshot_strdup(s,
			    cfg->groups[i].events[e].pmu);
			if (s->support[row].pmu == NULL)
				goto fail;
		}
	/* What a preset wanted and this PMU lacks: unsupported, named. */
	for (i = 0; i < cfg->nr_groups; i++)
		for (e = 0; e < cfg->groups[i].nr_missing; e++, row++) {
			s->support[row].group = gnames[i];
			s->support[row].event = snapshot_strdup(s,
			    cfg->groups[i].missing[e]);
			s->support[row].supported = 0;
			s->support[row].pmu = cfg->groups[i].pmu ?
			    snapshot_strdup(s, cfg->groups[i].pmu) : NULL;
			if (s->support[row].event == NULL ||
			    (cfg->groups[i].pmu && !s->support[row].pmu))
				goto fail;
		}
	s->nr_support = row;
	if (snapshot_topdown(s, cfg, gnames) < 0)
		goto fail;
	for (i = 0; i < c->nr_targets; i++)
		for (j = 0; c->targets[i]->opened &&
		    j < c->targets[i]->nr_groups; j++) {
			struct tgroup *tg = &c->targets[i]->groups[j];

			for (k = 0; k < tg->cpus.nr; k++) {
				const struct source *src = tg->inst[k].src;

				for (e = 0; src && e < src->nr; e++)
					s->support[base[tg->gi] +
					    src->evidx[e]].supported = 1;
			}
		}
	if (snapshot_health(c, s, gnames, names) < 0)
		goto fail;

	clock_gettime(CLOCK_REALTIME, &ts);
	s->timestamp_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->duration_s = duration_s;
	s->interval_s = (double)cfg->interval_ns / 1e9;
	s->seq = c->seq;
	s->open_fds = collector_open_fds(c);
	s->cgroups_matched = c->cg_matched;
	s->cgroups_counted = c->cg_counted > s->cgroups_no_perf ?
	    c->cg_counted - s->cgroups_no_perf : 0;
	s->cgroups_skipped = c->cg_skipped;
	s->cgroups_bpf_full = c->cg_bpf_full;
	s->cgroups_bpf_refused = c->cg_bpf_refused;
	s->bpf_wanted = c->bpf_wanted;
	s->bpf_active = c->bpf != NULL;
	bpfmode_stats(c, &s->bpf);
	s->reload_ok = c->reload_ok;
	s->reload_success_s = c->reload_success_s;
	s->nr_groups = cfg->nr_groups;
	s->denied = c->denied != DENIED_NONE;
	for (i = 0; i < s->nr_support; i++)
		s->nr_unsupported += !s->support[i].supported;
	if (nm)
		names_tell(c, ids, nids);
	free(ids);
	namemap_unref(nm);
	return s;
fail:
	free(ids);
	namemap_unref(nm);
	snapshot_unref(s);
	return NULL;
}
