/*
 * event_terms.c - a sysfs PMU's syntax, "pmu/term=value,alias,.../mods",
 * decoded from its format descriptions (pmu.h), and a bare sysfs alias read as
 * the one PMU's that has it (event_int.h).
 * Design: docs/events.md; docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collectors/events/event_int.h"
#include "collectors/events/pmu.h"
#include "util/text.h"

/* Term names perf knows that have no place in counting. */
static const char *const sampling_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size",
	"max-stack", "inherit", "no-inherit", "overwrite", "no-overwrite",
	"percore", "aux-output", "aux-sample-size", "metric-id", NULL
};

/* A number as perf writes term values: decimal or 0x hex, 64 bits. */
static int
parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -EINVAL;
	for (; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

struct terms {
	struct parse *p;
	const struct pmu *pmu;
	struct event *e;
	int hw;			/* a generic hardware term was given */
	unsigned long long hw_config;
	const struct pmu_alias *alias;	/* the alias being expanded */
};

static void
format_names(const struct pmu *pp, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < pp->nr_formats && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? ", " : "", pp->formats[i].name);
	if (pp->nr_formats == 0)
		snprintf(buf, len, "none");
}

static int terms_apply(struct terms *t, const char *text, size_t len);

/* Where an error inside an alias' text is reported from. */
static int __attribute__((format(printf, 3, 4)))
term_fail(struct terms *t, const char *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->alias)
		return fail(t->p, "%s in the sysfs alias %s/%s (\"%s\")", msg,
		    t->pmu->name, t->alias->name, t->alias->terms);
	return fail(t->p, "%s (column %zu)", msg, col(t->p, at));
}

static int
term_one(struct terms *t, const char *k, size_t kn, const char *v, size_t vn)
{
	const struct pmu_format *f;
	const struct pmu_alias *al;
	const struct event_name *g;
	unsigned long long *field;
	const char *const *st;
	uint64_t val = 1;
	char names[512];
	int r;

	if (kn == 0)
		return term_fail(t, k, "empty term");
	if (v) {
		if (vn == 1 && v[0] == '?')
			return term_fail(t, v, "'%.*s' needs a value", (int)kn,
			    k);
		if (kn == 4 && strncmp(k, "name", 4) == 0)
			return 0;	/* perf's display name; the label is ours */
		if ((r = parse_u64(v, vn, &val)) < 0)
			return term_fail(t, v, "'%.*s' value %s", (int)kn, k,
			    r == -ERANGE ? "is wider than 64 bits" :
			    "is not a number");
	}
	if ((kn == 6 && strncmp(k, "config", 6) == 0) ||
	    (kn == 7 && strncmp(k, "config1", 7) == 0) ||
	    (kn == 7 && strncmp(k, "config2", 7) == 0)) {
		if (!v)
			return term_fail(t, k, "'%.*s' needs a value", (int)kn,
			    k);
		field = kn == 6 ? &t->e->attr.config : k[6] == '1' ?
		    &t->e->attr.config1 : &t->e->attr.config2;
		*field = val;
		return 0;
	}
	if ((f = pmu_find_format(t->pmu, k, kn)) != NULL) {
		if (!pmu_format_fits(f->mask, val)) {
			int w = __builtin_popcountll(f->mask);

			return term_fail(t, v ? v : k, "'%s' value 0x%llx does "
			    "not fit its %d bits (at most 0x%llx)", f->name,
			    (unsigned long long)val, w, w >= 64 ? ~0ULL :
			    (1ULL << w) - 1);
		}
		field = f->field == PMU_CONFIG ? &t->e->attr.config :
		    f->field == PMU_CONFIG1 ? &t->e->attr.config1 :
		    &t->e->attr.config2;
		*field = (*field & ~f->mask) | pmu_format_pack(f->mask, val);
		return 0;
	}
	if (!v && !t->alias && (al = pmu_find_alias(t->pmu, k, kn)) != NULL) {
		t->alias = al;
		r = terms_apply(t, al->terms, strlen(al->terms));
		t->alias = NULL;
		if (r < 0)
			return r;
		t->e->scale = al->scale;
		snprintf(t->e->unit, sizeof(t->e->unit), "%s",
		    al->unit ? al->unit : "");
		return 0;
	}
	if (!v && t->pmu->core && (g = event_generic_lookup(k, kn)) != NULL &&
	    g->type == PERF_TYPE_HARDWARE) {
		t->hw = 1;
		t->hw_config = g->config;
		return 0;
	}
	for (st = sampling_terms; *st; st++)
		if (strlen(*st) == kn && strncmp(*st, k, kn) == 0)
			return term_fail(t, k, "term '%s' is for sampling; "
			    "pmu_exporter only counts", *st);
	format_names(t->pmu, names, sizeof(names));
	if (t->alias)
		return term_fail(t, k, "unknown term '%.*s'", (int)kn, k);
	return fail(t->p, "unknown term '%.*s' for PMU \"%s\" (column %zu); "
	    "its format terms are: %s; its %zu named events are listed by "
	    "--list-events", (int)kn, k, t->pmu->name, col(t->p, k), names,
	    t->pmu->nr_aliases);
}

static int
terms_apply(struct terms *t, const char *text, size_t len)
{
	const char *s = text, *end = text + len, *c, *eq;
	int r;

	if (len == 0)
		return term_fail(t, text, "no terms between the slashes");
	while (s <= end) {
		for (c = s; c < end && *c != ','; c++)
			;
		for (eq = s; eq < c && *eq != '='; eq++)
			;
		/* Alias files may carry spaces around terms. */
		while (s < eq && *s == ' ')
			s++;
		if (eq < c)
			r = term_one(t, s, (size_t)(eq - s), eq + 1,
			    (size_t)(c - eq - 1));
		else
			r = term_one(t, s, (size_t)(c - s), NULL, 0);
		if (r < 0)
			return r;
		s = c + 1;
	}
	return 0;
}

static void
list_pmus(const struct pmu_list *l, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; l && i < l->nr && off + 1 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? ", " : "", l->pmu[i].name);
	if (l == NULL || l->nr == 0)
		snprintf(buf, len, "none found in sysfs");
	else if (off + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

int
event_pmu_syntax(struct parse *p, const char *slash, struct event *out,
    size_t max)
{
	const struct pmu_list *l = p->ctx ? p->ctx->pmus : NULL;
	const char *s = p->s, *close, *mods;
	struct event e;
	struct terms t;
	char name[64], pmus[1024];
	size_t n = (size_t)(slash - s), best = (size_t)-1, d, i;
	const char *sugg = NULL;
	int r;

	if (n == 0 || n >= sizeof(name))
		return fail(p, "expected a PMU name before '/' (column 1)");
	memcpy(name, s, n);
	name[n] = '\0';
	if ((close = strchr(slash + 1, '/')) == NULL)
		return fail(p, "no closing '/' after the terms of PMU \"%s\" "
		    "(column %zu)", name, col(p, s + strlen(s)));
	mods = close[1] == '\0' ? NULL : close[1] == ':' ? close + 2 :
	    close + 1;
	t.pmu = pmu_find(l, name);
	if (t.pmu == NULL) {
		list_pmus(l, pmus, sizeof(pmus));
		for (i = 0; l && i < l->nr; i++)
			if ((d = text_distance(name, l->pmu[i].name)) < best) {
				best = d;
				sugg = l->pmu[i].name;
			}
		if (sugg && best <= 2)
			return fail(p, "unknown PMU \"%s\" (column 1; did you "
			    "mean \"%s\"? this machine has: %s)", name, sugg,
			    pmus);
		return fail(p, "unknown PMU \"%s\" (column 1; this machine "
		    "has: %s)", name, pmus);
	}
	event_init(&e, t.pmu->name, t.pmu, pmu_is_software(t.pmu) ?
	    EVENT_SOFTWARE : EVENT_PMU);
	e.attr.type = t.pmu->type;
	t.p = p;
	t.e = &e;
	t.hw = 0;
	t.hw_config = 0;
	t.alias = NULL;
	if ((r = terms_apply(&t, slash + 1, (size_t)(close - slash - 1))) < 0)
		return r;
	if (t.hw) {
		/* cpu_core/cycles/: the generic event, on this PMU only. */
		e.attr.type = PERF_TYPE_HARDWARE;
		e.attr.config = t.hw_config;
		if (pmu_core_count(l) > 1)
			e.attr.config |= (unsigned long long)t.pmu->type <<
			    PERF_PMU_TYPE_SHIFT;
	}
	if ((r = event_apply_modifiers(p, mods, &e.attr)) < 0)
		return r;
	if (max < 1)
		return fail(p, "no room for the result");
	out[0] = e;
	return 1;
}

/* A sysfs alias written bare ("tsc"): fine when exactly one PMU has it. */
int
event_bare_alias(struct parse *p, const char *base, size_t n, const char *mods,
    struct event *out, size_t max)
{
	const struct pmu_list *l = p->ctx ? p->ctx->pmus : NULL;
	const struct pmu *found = NULL;
	char buf[512], names[256] = "";
	size_t i, off = 0, count = 0;
	struct parse sub;
	int r;

	for (i = 0; l && i < l->nr; i++)
		if (pmu_find_alias(&l->pmu[i], base, n)) {
			found = &l->pmu[i];
			if (off < sizeof(names))
				off += (size_t)snprintf(names + off,
				    sizeof(names) - off, "%s%s/%.*s/",
				    count ? ", " : "", found->name, (int)n,
				    base);
			count++;
		}
	if (count == 0)
		return 0;
	if (count > 1)
		return fail(p, "\"%.*s\" is an event of several PMUs; name "
		    "one: %s", (int)n, base, names);
	snprintf(buf, sizeof(buf), "%s/%.*s/%s%s", found->name, (int)n, base,
	    mods ? ":" : "", mods ? mods : "");
	sub = *p;
	sub.s = buf;
	r = event_pmu_syntax(&sub, buf + strlen(found->name), out, max);
	if (r < 0)	/* say it about what the user wrote */
		fail(p, "%s", strstr(sub.err, "\": ") ?
		    strstr(sub.err, "\": ") + 3 : sub.err);
	return r;
}
