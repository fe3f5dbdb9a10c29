/*
 * model.c - one page of metrics to top's rows and header (model.h), and the
 * rates between two pages.
 * Design: docs/top.md, "How it is built".
 */
#include "autoconf.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/model.h"
#include "top/textfmt.h"

static const char *const td_events[TD_N] = {
	[TD_RETIRING] = "topdown-retiring", [TD_BAD_SPEC] = "topdown-bad-spec",
	[TD_FE_BOUND] = "topdown-fe-bound", [TD_BE_BOUND] = "topdown-be-bound",
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int
grow(void **v, size_t *cap, size_t nr, size_t size)
{
	size_t n = *cap ? *cap * 2 : 8;
	void *p;

	if (nr < *cap)
		return 0;
	if (!(p = realloc(*v, n * size)))
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

static int
rehash(struct top_snap *s)
{
	size_t cap = s->hash_cap ? s->hash_cap * 2 : 64, i, j;
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		j = hash_str(s->rows[i].cgroup) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(s->hash);
	s->hash = h;
	s->hash_cap = cap;
	return 0;
}

static size_t *
slot_of(const struct top_snap *s, const char *cgroup)
{
	size_t j;

	if (!s->hash_cap)
		return NULL;
	j = hash_str(cgroup) & (s->hash_cap - 1);
	while (s->hash[j] && strcmp(s->rows[s->hash[j] - 1].cgroup, cgroup))
		j = (j + 1) & (s->hash_cap - 1);
	return &s->hash[j];
}

/* A row by its cgroup path, or NULL. */
static const struct top_row *
top_snap_find(const struct top_snap *s, const char *cgroup)
{
	size_t *slot = slot_of(s, cgroup);

	return slot && *slot ? &s->rows[*slot - 1] : NULL;
}

/* The name operators use: namespace/pod/container, a unit, a machine,
 * a container's name, else the cgroup's path.  prefix: "" or "suspect_". */
static char *
name_of(const struct textfmt_sample *m, const char *prefix, const char *path)
{
	static const char *const keys[] = { "namespace", "pod", "container",
	    "unit", "machine" };
	const char *v[5];
	char key[64], *out;
	size_t i;

	for (i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, keys[i]);
		v[i] = textfmt_label(m, key);
		if (v[i] && !*v[i])
			v[i] = NULL;
	}
	if (v[1] && asprintf(&out, "%s/%s%s%s", v[0] ? v[0] : "", v[1],
	    v[2] ? "/" : "", v[2] ? v[2] : "") >= 0)
		return out;
	for (i = 2; i < 5; i++)
		if (v[i])
			return strdup(v[i]);
	return strdup(path);
}

static struct top_row *
row_get(struct top_snap *s, const struct textfmt_sample *m)
{
	const char *cg = textfmt_label(m, "cgroup");
	struct top_row *r;
	size_t *slot;

	if (!cg)
		return NULL;
	if ((slot = slot_of(s, cg)) && *slot)
		return &s->rows[*slot - 1];
	if (grow((void **)&s->rows, &s->cap, s->nr, sizeof(*s->rows)) < 0)
		return NULL;
	if ((s->nr + 1) * 2 > s->hash_cap && rehash(s) < 0)
		return NULL;
	r = &s->rows[s->nr];
	memset(r, 0, sizeof(*r));
	r->victim = -1;
	r->cgroup = strdup(cg);
	r->name = name_of(m, "", cg);
	if (!r->cgroup || !r->name) {
		free(r->cgroup);
		free(r->name);
		return NULL;
	}
	s->nr++;
	*slot_of(s, cg) = s->nr;
	return r;
}

static int
same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int
add_event(struct top_row *r, const struct textfmt_sample *m, int enabled)
{
	const char *group = textfmt_label(m, "group"), *pmu;
	const char *event = enabled ? "" : textfmt_label(m, "event");
	struct top_event *e;
	size_t i;

	pmu = enabled ? NULL : textfmt_label(m, "pmu");
	if (!group || !event)
		return 0;
	for (i = 0; i < r->nr_ev; i++) {
		e = &r->ev[i];
		if (e->enabled == enabled && !strcmp(e->group, group) &&
		    !strcmp(e->event, event) && same(e->pmu, pmu)) {
			e->value += m->value;
			return 0;
		}
	}
	if (grow((void **)&r->ev, &r->cap_ev, r->nr_ev, sizeof(*r->ev)) < 0)
		return -ENOMEM;
	e = &r->ev[r->nr_ev];
	*e = (struct top_event){ .group = strdup(group), .event = strdup(event),
	    .pmu = pmu ? strdup(pmu) : NULL, .enabled = enabled,
	    .value = m->value };
	if (!e->group || !e->event || (pmu && !e->pmu)) {
		free(e->group);
		free(e->event);
		free(e->pmu);
		return -ENOMEM;
	}
	r->nr_ev++;
	return 0;
}

static int
add_suspect(struct top_row *r, const struct textfmt_sample *m)
{
	const char *cg = textfmt_label(m, "suspect_cgroup");
	const char *rank = textfmt_label(m, "rank");
	struct top_suspect *x;

	if (!cg)
		return 0;
	if (grow((void **)&r->sus, &r->cap_sus, r->nr_sus, sizeof(*r->sus)) < 0)
		return -ENOMEM;
	x = &r->sus[r->nr_sus];
	*x = (struct top_suspect){ .cgroup = strdup(cg),
	    .name = name_of(m, "suspect_", cg), .rank = rank ? atoi(rank) : 0,
	    .strength = m->value };
	if (!x->cgroup || !x->name) {
		free(x->cgroup);
		free(x->name);
		return -ENOMEM;
	}
	r->nr_sus++;
	return 0;
}

static int
add_tddef(struct top_snap *s, const struct textfmt_sample *m)
{
	const char *g = textfmt_label(m, "group"), *p = textfmt_label(m, "pmu");
	const char *d = textfmt_label(m, "definition");
	struct top_tddef *t;

	if (!g || !p || !d)
		return 0;
	if (grow((void **)&s->tdd, &s->cap_tdd, s->nr_tdd, sizeof(*s->tdd)) < 0)
		return -ENOMEM;
	t = &s->tdd[s->nr_tdd];
	*t = (struct top_tddef){ strdup(g), strdup(p), strdup(d) };
	if (!t->group || !t->pmu || !t->definition) {
		free(t->group);
		free(t->pmu);
		free(t->definition);
		return -ENOMEM;
	}
	s->nr_tdd++;
	return 0;
}

/* The header's gauges: exact names to fields, summed where labelled. */
static void
head_sample(struct top_head *h, const struct textfmt_sample *m)
{
	static const struct { const char *name; size_t off; } gauges[] = {
#define G(n, f) { n, offsetof(struct top_head, f) }
		G("pmu_exporter_collections_total", collections),
		G("pmu_exporter_collection_interval_seconds", interval),
		G("pmu_exporter_collection_duration_seconds", duration),
		G("pmu_exporter_last_collection_timestamp_seconds", last_ts),
		G("pmu_exporter_config_last_reload_successful", reload_ok),
		G("pmu_exporter_interference_enabled", interference),
		G("pmu_exporter_bpf_active", bpf_active),
		G("pmu_exporter_cgroups_counted", counted),
		G("pmu_exporter_cgroups_matched", matched),
		G("pmu_exporter_cgroups_skipped", skipped),
		G("pmu_exporter_open_errors", open_errors),
		G("pmu_cpu_running_seconds_total", run),
		G("pmu_cpu_enabled_seconds_total", en),
		G("pmu_cgroup_running_seconds_total", cg_run),
		G("pmu_cgroup_enabled_seconds_total", cg_en),
#undef G
	};
	const char *pmu;
	size_t i;

	for (i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++) {
		if (strcmp(m->name, gauges[i].name) == 0) {
			*(double *)((char *)h + gauges[i].off) += m->value;
			h->seen |= m->name[4] == 'e';
			return;
		}
	}
	if (strcmp(m->name, "pmu_exporter_event_supported") == 0 &&
	    m->value == 1 && (pmu = textfmt_label(m, "pmu")) &&
	    strcmp(pmu, "software") && strcmp(pmu, "tracepoint"))
		h->hw = 1;
}

static int
on_sample(const struct textfmt_sample *m, void *ctx)
{
	struct top_snap *s = ctx;
	struct top_row *r = NULL;
	int cg = strncmp(m->name, "pmu_cgroup_", 11) == 0;

	head_sample(&s->h, m);
	if (!cg) {
		if (strcmp(m->name, "pmu_exporter_topdown_info") == 0)
			return add_tddef(s, m);
		return 0;
	}
	if (strcmp(m->name, "pmu_cgroup_events_total") &&
	    strcmp(m->name, "pmu_cgroup_enabled_seconds_total") &&
	    strcmp(m->name, "pmu_cgroup_interference_victim") &&
	    strcmp(m->name, "pmu_cgroup_interference_suspect"))
		return 0;
	if (!isfinite(m->value) || !textfmt_label(m, "cgroup"))
		return 0;
	if (!(r = row_get(s, m)))
		return -ENOMEM;
	if (strcmp(m->name, "pmu_cgroup_interference_victim") == 0) {
		r->victim = m->value != 0;
		return 0;
	}
	if (strcmp(m->name, "pmu_cgroup_interference_suspect") == 0)
		return add_suspect(r, m);
	return add_event(r, m, m->name[11] == 'e' && m->name[12] == 'n');
}

/* Is (group, pmu) a top-down group whose definition top computes?
 * Level 1 of intel_perf_metrics only: each topdown-* over the sum of
 * the four (docs/topdown.md); the other definitions need their own
 * formulas, which the recording rules have and top does not yet. */
static int
td_group(const struct top_snap *s, const struct top_event *e)
{
	size_t i;

	for (i = 0; i < s->nr_tdd; i++)
		if (!strcmp(s->tdd[i].group, e->group) && e->pmu &&
		    !strcmp(s->tdd[i].pmu, e->pmu) &&
		    !strcmp(s->tdd[i].definition, "intel_perf_metrics"))
			return 1;
	return 0;
}

/* The group whose cycles and instructions make IPC: the first that
 * counts both. */
static const char *
ipc_group(const struct top_row *r)
{
	size_t i, j;

	for (i = 0; i < r->nr_ev; i++) {
		if (r->ev[i].enabled || strcmp(r->ev[i].event, "cycles"))
			continue;
		for (j = 0; j < r->nr_ev; j++)
			if (!r->ev[j].enabled &&
			    !strcmp(r->ev[j].group, r->ev[i].group) &&
			    !strcmp(r->ev[j].event, "instructions"))
				return r->ev[i].group;
	}
	return NULL;
}

static int
by_rank(const void *a, const void *b)
{
	const struct top_suspect *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
row_finish(const struct top_snap *s, struct top_row *r)
{
	const char *g = ipc_group(r);
	size_t i, k;

	for (i = 0; i < r->nr_ev; i++) {
		const struct top_event *e = &r->ev[i];

		if (e->enabled)
			continue;
		if (g && !strcmp(e->group, g)) {
			r->has_ipc = 1;
			if (!strcmp(e->event, "cycles"))
				r->cyc += e->value;
			else if (!strcmp(e->event, "instructions"))
				r->ins += e->value;
		}
		for (k = 0; k < TD_N; k++)
			if (!strcmp(e->event, td_events[k]) && td_group(s, e)) {
				r->td[k] += e->value;
				r->has_td = 1;
			}
	}
	if (r->nr_sus > 1)
		qsort(r->sus, r->nr_sus, sizeof(*r->sus), by_rank);
}

struct top_snap *
top_snap_parse(char *text, size_t len, double t, char *err, size_t errlen)
{
	struct top_snap *s = calloc(1, sizeof(*s));
	size_t i;
	int r;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->t = t;
	r = textfmt_parse(text, len, on_sample, s, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r < 0) {
		top_snap_free(s);
		return NULL;
	}
	if (!s->h.seen && !s->nr) {
		snprintf(err, errlen, "no pmu_exporter metrics on the page");
		top_snap_free(s);
		return NULL;
	}
	for (i = 0; i < s->nr; i++)
		row_finish(s, &s->rows[i]);
	/* The counts are as of the daemon's last collection: its time is
	 * the one their rates are over, not when top happened to ask. */
	if (s->h.last_ts > 0)
		s->t = s->h.last_ts;
	return s;
}

static const struct top_event *
event_in(const struct top_row *p, const struct top_event *e)
{
	size_t i;

	for (i = 0; i < p->nr_ev; i++)
		if (p->ev[i].enabled == e->enabled &&
		    !strcmp(p->ev[i].group, e->group) &&
		    !strcmp(p->ev[i].event, e->event) && same(p->ev[i].pmu, e->pmu))
			return &p->ev[i];
	return NULL;
}

/* Keep a checkpoint when the last is TOP_CKPT_EVERY old; then IPC's
 * change against the oldest. */
static void
row_history(struct top_row *r, double t)
{
	const struct top_ckpt *o;
	double dc, base;

	if (!r->has_ipc)
		return;
	if (!r->nr_ck || t - r->ck[r->nr_ck - 1].t >= TOP_CKPT_EVERY) {
		if (r->nr_ck == TOP_CKPTS)
			memmove(r->ck, r->ck + 1, --r->nr_ck * sizeof(r->ck[0]));
		r->ck[r->nr_ck++] = (struct top_ckpt){ t, r->cyc, r->ins };
	}
	o = &r->ck[0];
	dc = r->cyc - o->cyc;
	if (!r->ipc_ok || dc <= 0 || t <= o->t)
		return;
	base = (r->ins - o->ins) / dc;
	if (base <= 0)
		return;
	r->change = r->ipc / base - 1;
	r->change_span = t - o->t;
	r->change_ok = 1;
}

/* Rates from p, the same cgroup on the page before; 0, or -1 when a
 * count went back (a restarted daemon: the cgroup starts again). */
static int
row_rates(struct top_row *r, const struct top_row *p, double dt)
{
	const struct top_event *o;
	double d[TD_N], sum = 0, dc = r->cyc - p->cyc, di = r->ins - p->ins;
	size_t i;

	for (i = 0; i < r->nr_ev; i++) {
		struct top_event *e = &r->ev[i];

		if (!(o = event_in(p, e)))
			continue;
		if (e->value < o->value)
			return -1;
		e->rate = (e->value - o->value) / dt;
		e->rated = 1;
		if (e->enabled && e->rate > r->cpu)
			r->cpu = e->rate;
	}
	r->rated = 1;
	if (r->has_ipc && p->has_ipc && dc > 0 && di >= 0) {
		r->ipc = di / dc;
		r->ipc_ok = 1;
	}
	for (i = 0; r->has_td && p->has_td && i < TD_N; i++)
		sum += d[i] = r->td[i] - p->td[i];
	if (r->has_td && p->has_td && sum > 0) {
		for (i = 0; i < TD_N; i++)
			r->td_share[i] = d[i] / sum;
		r->td_share[TD_BAD_SPEC] = fmax(0, 1 - r->td_share[TD_RETIRING] -
		    r->td_share[TD_FE_BOUND] - r->td_share[TD_BE_BOUND]);
		r->td_ok = 1;
	}
	return 0;
}

static void
head_rates(struct top_head *h, const struct top_head *p)
{
	double den = h->en - p->en, drun = h->run - p->run;

	if (den <= 0) {
		den = h->cg_en - p->cg_en;
		drun = h->cg_run - p->cg_run;
	}
	if (den > 0 && drun >= 0) {
		h->coverage = drun / den;
		h->coverage_ok = 1;
	}
	h->new_collections = h->collections - p->collections;
}

void
top_snap_derive(struct top_snap *cur, const struct top_snap *prev)
{
	double dt = prev ? cur->t - prev->t : 0;
	const struct top_row *p;
	size_t i;

	if (prev && dt > 0 && cur->h.collections >= prev->h.collections) {
		head_rates(&cur->h, &prev->h);
		cur->derived = 1;
	}
	for (i = 0; i < cur->nr; i++) {
		struct top_row *r = &cur->rows[i];

		p = cur->derived ? top_snap_find(prev, r->cgroup) : NULL;
		if (p && row_rates(r, p, dt) == 0) {
			memcpy(r->ck, p->ck, sizeof(r->ck));
			r->nr_ck = p->nr_ck;
		} else {
			size_t k;

			for (k = 0; k < r->nr_ev; k++)
				r->ev[k].rated = 0;
			r->rated = r->ipc_ok = r->td_ok = 0;
			r->cpu = 0;
		}
		row_history(r, cur->t);
	}
}

static void
row_free(struct top_row *r)
{
	size_t i;

	for (i = 0; i < r->nr_ev; i++) {
		free(r->ev[i].group);
		free(r->ev[i].event);
		free(r->ev[i].pmu);
	}
	for (i = 0; i < r->nr_sus; i++) {
		free(r->sus[i].name);
		free(r->sus[i].cgroup);
	}
	free(r->ev);
	free(r->sus);
	free(r->cgroup);
	free(r->name);
}

void
top_snap_free(struct top_snap *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		row_free(&s->rows[i]);
	for (i = 0; i < s->nr_tdd; i++) {
		free(s->tdd[i].group);
		free(s->tdd[i].pmu);
		free(s->tdd[i].definition);
	}
	free(s->rows);
	free(s->hash);
	free(s->tdd);
	free(s);
}
