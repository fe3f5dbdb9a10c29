/*
 * event.c - parse event names into perf_event_attr (event.h): the order in
 * which a name's readings are tried, and the readings that need more than a
 * table (tracepoints, libpfm4, a variant per core PMU).
 * Design: docs/events.md; docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collectors/events/event.h"
#include "collectors/events/event_int.h"
#include "collectors/events/event_pfm.h"
#include "collectors/events/tracefs.h"

/*
 * A generic hardware, hw-cache or raw event: one variant per core PMU
 * on a hybrid machine (PERF_PMU_TYPE_SHIFT carries the PMU for generic
 * ones, a raw config goes to that PMU's own type), else one on "cpu".
 */
static size_t
core_variants(const struct parse *p, unsigned type, unsigned long long cfg,
    struct event *out, size_t max)
{
	const struct pmu_list *l = p->ctx ? p->ctx->pmus : NULL;
	size_t i, n = 0, cores = pmu_core_count(l);

	for (i = 0; cores > 1 && i < l->nr && n < max; i++) {
		const struct pmu *pp = &l->pmu[i];

		if (!pp->core)
			continue;
		event_init(&out[n], pp->name, pp, EVENT_GENERIC);
		if (type == PERF_TYPE_RAW) {
			out[n].attr.type = pp->type;
			out[n].attr.config = cfg;
		} else {
			out[n].attr.type = type;
			out[n].attr.config = cfg |
			    ((unsigned long long)pp->type << PERF_PMU_TYPE_SHIFT);
		}
		n++;
	}
	if (cores > 1)
		return n;
	for (i = 0; l && i < l->nr && !l->pmu[i].core; i++)
		;
	event_init(&out[0], l && i < l->nr ? l->pmu[i].name : "cpu",
	    l && i < l->nr ? &l->pmu[i] : NULL, EVENT_GENERIC);
	out[0].attr.type = type;
	out[0].attr.config = cfg;
	return 1;
}

static int
tracepoint(struct parse *p, const char *colon, struct event *out, size_t max)
{
	const char *s = p->s, *name = colon + 1, *mods;
	char sys[256], tp[256];
	size_t n = (size_t)(colon - s), m;
	uint64_t id;
	int r;

	mods = strchr(name, ':');
	m = mods ? (size_t)(mods - name) : strlen(name);
	if (mods)
		mods++;
	if (n >= sizeof(sys) || m >= sizeof(tp) || m == 0)
		return -ENOENT;
	memcpy(sys, s, n);
	sys[n] = '\0';
	memcpy(tp, name, m);
	tp[m] = '\0';
	if (p->ctx == NULL || p->ctx->tracefs == NULL)
		return -ENOENT;
	r = tracefs_event_id(p->ctx->tracefs, sys, tp, &id);
	if (r == -ENOENT || r == -EINVAL)
		return -ENOENT;
	if (r < 0)
		return fail(p, "tracepoint %s:%s: %s/events/%s/%s/id: %s", sys,
		    tp, p->ctx->tracefs, sys, tp, strerror(-r));
	if (max < 1)
		return fail(p, "no room for the result");
	event_init(&out[0], "tracepoint", pmu_find(p->ctx->pmus,
	    "tracepoint"), EVENT_SOFTWARE);
	out[0].attr.type = PERF_TYPE_TRACEPOINT;
	out[0].attr.config = id;
	if ((r = event_apply_modifiers(p, mods, &out[0].attr)) < 0)
		return r;
	return 1;
}

static int
has_upper(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isupper((unsigned char)s[i]))
			return 1;
	return 0;
}

/*
 * A libpfm4 name ("pmu::EVENT", or upper case): 1 with ev filled, 0 when
 * libpfm4 does not know it (or is absent), or -EINVAL with its reason.
 */
static int
pfm_event(struct parse *p, struct event *ev)
{
	const struct event_ctx *ctx = p->ctx;
	struct event_pfm_attr pa;
	const struct pmu *pp;
	char pfmerr[256] = "";
	int r;

	event_init(ev, "cpu", NULL, EVENT_GENERIC);
	if ((r = event_pfm_encode(p->s, &pa, pfmerr, sizeof(pfmerr))) < 0)
		return r == -ENOENT ? 0 : fail(p, "libpfm4: %s", pfmerr);
	ev->attr.type = pa.type;
	ev->attr.config = pa.config;
	ev->attr.config1 = pa.config1;
	ev->attr.config2 = pa.config2;
	ev->attr.exclude_user = pa.exclude_user & 1;
	ev->attr.exclude_kernel = pa.exclude_kernel & 1;
	ev->attr.exclude_hv = pa.exclude_hv & 1;
	ev->attr.exclude_host = pa.exclude_host & 1;
	ev->attr.exclude_guest = pa.exclude_guest & 1;
	ev->attr.pinned = pa.pinned & 1;
	pp = ctx ? pmu_find_type(ctx->pmus, ev->attr.type) : NULL;
	if (ev->attr.type == PERF_TYPE_SOFTWARE) {
		snprintf(ev->pmu, sizeof(ev->pmu), "software");
		ev->kind = EVENT_SOFTWARE;
	} else if (pp && ev->attr.type > PERF_TYPE_MAX) {
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", pp->name);
		ev->p = pp;
		ev->kind = EVENT_PMU;
	}
	return 1;
}

/* No reading of the name fits: say so, with a suggestion.  -EINVAL. */
static int
unknown_event(struct parse *p, const char *colon, size_t n)
{
	const char *s = p->s, *sugg = event_suggest(s);

	if (sugg)
		snprintf(p->err, p->errlen, "unknown event \"%s\" (did you "
		    "mean \"%s\"?)", s, sugg);
	else if (colon && !has_upper(s, n) && !(p->ctx && p->ctx->tracefs))
		return fail(p, "looks like a tracepoint, but tracefs is not "
		    "mounted (none in mountinfo)");
	else if (colon && !has_upper(s, n))
		snprintf(p->err, p->errlen, "unknown event \"%s\" (no such "
		    "event, and no tracepoint %.*s:%.*s)", s, (int)n, s,
		    (int)strcspn(colon + 1, ":"), colon + 1);
	else
		snprintf(p->err, p->errlen, "unknown event \"%s\"", s);
	return -EINVAL;
}

/*
 * perf's own names, which take perf's modifiers: a generic event, a
 * hardware cache event, rNNN.  1 with *nr variants in out, modifiers
 * applied; 0 when the name is none of them; or -EINVAL with its reason.
 */
static int
perf_name(struct parse *p, size_t n, const char *mods, struct event *out,
    size_t max, size_t *nr)
{
	const struct event_name *g;
	unsigned long long config = 0;
	size_t i;
	int r;

	if ((g = event_generic_lookup(p->s, n)) != NULL) {
		if (g->type == PERF_TYPE_SOFTWARE) {
			event_init(&out[0], "software", p->ctx ?
			    pmu_find(p->ctx->pmus, "software") : NULL,
			    EVENT_SOFTWARE);
			out[0].attr.type = g->type;
			out[0].attr.config = g->config;
			*nr = 1;
		} else
			*nr = core_variants(p, g->type, g->config, out, max);
	} else if ((r = event_hwcache_lookup(p, p->s, n, &config)) < 0)
		return r;
	else if (r > 0)
		*nr = core_variants(p, PERF_TYPE_HW_CACHE, config, out, max);
	else if (event_raw_lookup(p->s, n, &config))
		*nr = core_variants(p, PERF_TYPE_RAW, config, out, max);
	else
		return 0;
	for (i = 0; i < *nr; i++)
		if ((r = event_apply_modifiers(p, mods, &out[i].attr)) < 0)
			return r;
	return 1;
}

/*
 * The other readings, in turn: an event of one PMU's sysfs events
 * named bare, a libpfm4 name, a tracepoint.  The variants' count, or
 * -EINVAL with the reason (unknown_event's when none fits).
 */
static int
other_name(struct parse *p, const char *colon, size_t n, const char *mods,
    struct event *out, size_t max)
{
	const struct event_ctx *ctx = p->ctx;
	const char *s = p->s;
	int r;

	if ((r = event_bare_alias(p, s, n, mods, out, max)) != 0)
		return r;
	/*
	 * libpfm4 spells events in upper case, perf's own names are lower;
	 * "pmu::EVENT" names a libpfm4 PMU explicitly.
	 */
	if ((has_upper(s, n) || strstr(s, "::")) && !(ctx && ctx->no_pfm) &&
	    (r = pfm_event(p, &out[0])) != 0)
		return r;
	if (colon && (r = tracepoint(p, colon, out, max)) != -ENOENT)
		return r;
	return unknown_event(p, colon, n);
}

int
event_parse(const struct event_ctx *ctx, const char *s, struct event *out,
    size_t max, char *err, size_t errlen)
{
	struct parse p = { ctx, s, err, errlen };
	struct event tmp[EVENT_MAX_VARIANTS];
	const char *colon = strchr(s, ':'), *slash = strchr(s, '/');
	size_t n = colon ? (size_t)(colon - s) : strlen(s), nr = 0;
	const char *mods = colon ? colon + 1 : NULL;
	int r;

	if (max > EVENT_MAX_VARIANTS)
		max = EVENT_MAX_VARIANTS;
	if (s[0] == '\0') {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	if (slash && (!colon || slash < colon)) {
		if ((r = event_pmu_syntax(&p, slash, tmp, max)) < 0)
			return r;
		nr = (size_t)r;
	} else if (n == 0)
		return fail(&p, "no event name before ':' (column 1)");
	else if ((r = perf_name(&p, n, mods, tmp, max, &nr)) < 0)
		return r;
	else if (r == 0) {
		if ((r = other_name(&p, colon, n, mods, tmp, max)) < 0)
			return r;
		nr = (size_t)r;
	}
	if (nr == 0)
		return fail(&p, "no core PMU to count it on");
	memcpy(out, tmp, nr * sizeof(*out));
	return (int)nr;
}
