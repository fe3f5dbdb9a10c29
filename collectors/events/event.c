/*
 * event.c - parse event names into perf_event_attr (see event.h).
 *
 * The tables mirror what perf's parser accepts for counting: the generic
 * hardware and software names with their aliases, the hw-cache grid with
 * the names of perf's evsel__hw_cache tables, and its modifier rules, so
 * a name copied from `perf list` encodes exactly as `perf stat` encodes
 * it.  PMU syntax is decoded from the sysfs format descriptions handed in
 * through struct event_ctx; nothing here opens an event.
 *
 * Errors quote the whole event and give the 1-based column of the bad
 * part, because the config reports the event's own line and column and
 * the user still has to find the spot inside a long term list.
 *
 * Why one file of 900 lines: it is one grammar, perf's, and its tables
 * (generic names, the hw-cache grid and its aliases, the modifiers) are
 * read by nothing but the parser beside them; split apart, each table
 * would need a header that exists only for this file.
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events/event.h"
#include "collectors/events/event_pfm.h"
#include "collectors/events/tracefs.h"
#include "util/text.h"

struct event_name {
	const char *name;
	unsigned type;
	unsigned long long config;
};

static const struct event_name event_names[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

#define NR_EVENT_NAMES (sizeof(event_names) / sizeof(event_names[0]))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* perf's evsel__hw_cache, evsel__hw_cache_op and evsel__hw_cache_result. */
static const char *const hwc_type[PERF_COUNT_HW_CACHE_MAX][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const hwc_op[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const hwc_result[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
#define R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define W (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
/* The operations perf lets each cache have (evsel__hw_cache_stat). */
static const unsigned hwc_valid[PERF_COUNT_HW_CACHE_MAX] = {
	R | W | P, R | P, R | W | P, R | W | P, R, R, R | W | P,
};
#undef R
#undef W
#undef P

/* Term names perf knows that have no place in counting. */
static const char *const sampling_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size",
	"max-stack", "inherit", "no-inherit", "overwrite", "no-overwrite",
	"percore", "aux-output", "aux-sample-size", "metric-id", NULL
};

/* ---- names -------------------------------------------------------- */

const char *
event_name_at(size_t i, unsigned *type, unsigned long long *config)
{
	if (i >= NR_EVENT_NAMES)
		return NULL;
	if (type)
		*type = event_names[i].type;
	if (config)
		*config = event_names[i].config;
	return event_names[i].name;
}

const char *
event_hwcache_name_at(size_t i, char *buf, size_t len)
{
	size_t t, op, res, n = 0;

	for (t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(hwc_valid[t] & (1u << op)))
				continue;
			for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX;
			    res++, n++) {
				if (n != i)
					continue;
				/* perf: "L1-dcache-loads", "L1-dcache-load-misses" */
				if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(buf, len, "%s-%s",
					    hwc_type[t][0], hwc_op[op][1]);
				else
					snprintf(buf, len, "%s-%s-%s",
					    hwc_type[t][0], hwc_op[op][0],
					    hwc_result[res][0]);
				return buf;
			}
		}
	return NULL;
}


const char *
event_suggest(const char *s)
{
	static char hwc[64];
	const char *best = NULL;
	size_t i, d, bestd = (size_t)-1, limit;
	char base[64], buf[64];
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (n >= sizeof(base))
		return NULL;
	memcpy(base, s, n);
	base[n] = '\0';
	limit = n < 6 ? 1 : 2 + n / 8;
	for (i = 0; i < NR_EVENT_NAMES; i++) {
		d = text_distance(base, event_names[i].name);
		if (d < bestd) {
			bestd = d;
			best = event_names[i].name;
		}
	}
	for (i = 0; event_hwcache_name_at(i, buf, sizeof(buf)); i++) {
		d = text_distance(base, buf);
		if (d < bestd) {
			bestd = d;
			memcpy(hwc, buf, sizeof(hwc));
			best = hwc;
		}
	}
	return bestd <= limit ? best : NULL;
}

/* ---- helpers ------------------------------------------------------ */

struct parse {
	const struct event_ctx *ctx;
	const char *s;			/* the whole event, for messages */
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;
	int off;

	off = snprintf(p->err, p->errlen, "event \"%s\": ", p->s);
	if (off < 0 || (size_t)off >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + off, p->errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Column (1-based) of a pointer into the event string. */
static size_t
col(const struct parse *p, const char *at)
{
	return (size_t)(at - p->s) + 1;
}

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

static const struct event_name *
generic_lookup(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NR_EVENT_NAMES; i++)
		if (strlen(event_names[i].name) == n &&
		    strncmp(event_names[i].name, s, n) == 0)
			return &event_names[i];
	return NULL;
}

/* Longest name of table row that prefixes s[0..n) and ends at '-' or n. */
static int
hwc_match(const char *s, size_t n, const char *const (*tab)[5], size_t rows,
    size_t *len)
{
	size_t r, a, l, best = 0;
	int which = -1;

	for (r = 0; r < rows; r++)
		for (a = 0; a < 5 && tab[r][a]; a++) {
			l = strlen(tab[r][a]);
			if (l <= n && l > best && strncmp(s, tab[r][a], l) == 0 &&
			    (l == n || s[l] == '-')) {
				best = l;
				which = (int)r;
			}
		}
	*len = best;
	return which;
}

/*
 * A hw-cache name, as perf's parse_events_add_cache reads it.  1 and the
 * config when s[0..n) is one; 0 when it is not; -EINVAL (message) when it
 * is one perf refuses (an operation that cache does not have).
 */
static int
hwcache_lookup(struct parse *p, const char *s, size_t n,
    unsigned long long *config)
{
	int type, op = -1, res = -1, x, k;
	size_t l, i;

	if ((type = hwc_match(s, n, hwc_type, NELEM(hwc_type), &l)) < 0)
		return 0;
	i = l;
	for (k = 0; k < 2 && i < n; k++) {
		i++;			/* the '-' */
		if (op < 0 && (x = hwc_match(s + i, n - i, hwc_op,
		    NELEM(hwc_op), &l)) >= 0)
			op = x;
		else if (res < 0 && (x = hwc_match(s + i, n - i, hwc_result,
		    NELEM(hwc_result), &l)) >= 0)
			res = x;
		else
			return 0;
		i += l;
	}
	if (i < n)
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(hwc_valid[type] & (1u << op)))
		return fail(p, "the %s cache has no %s events",
		    hwc_type[type][0], hwc_op[op][0]);
	*config = (unsigned long long)type | ((unsigned long long)op << 8) |
	    ((unsigned long long)res << 16);
	return 1;
}

/* rNNNN: 1 to 16 hex digits. */
static int
raw_lookup(const char *s, size_t n, unsigned long long *config)
{
	uint64_t v = 0;
	size_t i;

	if (n < 2 || n > 17 || s[0] != 'r')
		return 0;
	for (i = 1; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	for (i = 1; i < n; i++)
		v = v * 16 + (uint64_t)(isdigit((unsigned char)s[i]) ?
		    s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
	*config = v;
	return 1;
}

/*
 * Modifiers, with perf's rules (parse-events.c, get_event_modifier): the
 * first of u/k/h excludes every level, then each one named is counted;
 * u alone also excludes guest counting; G counts only the guest and H
 * only the host; with no modifier at all perf excludes the guest.
 */
static int
apply_modifiers(struct parse *p, const char *m, struct perf_event_attr *a)
{
	int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, pinned = 0;
	int excl = 0, excl_GH = 0;
	char seen[128] = { 0 };
	const char *c;

	if (m == NULL) {
		a->exclude_guest = 1;
		return 0;
	}
	if (*m == '\0')
		return fail(p, "empty modifier after ':' (column %zu)",
		    col(p, m));
	for (c = m; *c; c++) {
		unsigned char ch = (unsigned char)*c;

		if (ch < 128 && seen[ch])
			return fail(p, "modifier '%c' given twice (column %zu)",
			    *c, col(p, c));
		switch (*c) {
		case 'u': case 'k': case 'h':
			if (!excl)
				excl = eu = ek = eh = 1;
			if (*c == 'u') {
				if (!excl_GH)
					eG = 1;
				eu = 0;
			} else if (*c == 'k')
				ek = 0;
			else
				eh = 0;
			break;
		case 'G': case 'H':
			if (!excl_GH)
				excl_GH = eG = eH = 1;
			if (*c == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'D':
			pinned = 1;
			break;
		default:
			if (isprint(ch))
				return fail(p, "unknown modifier '%c' (column %zu; "
				    "expected u, k, h, G, H or D)", *c, col(p, c));
			return fail(p, "unknown modifier (column %zu; expected "
			    "u, k, h, G, H or D)", col(p, c));
		}
		seen[ch] = 1;
	}
	a->exclude_user = (unsigned)eu;
	a->exclude_kernel = (unsigned)ek;
	a->exclude_hv = (unsigned)eh;
	a->exclude_guest = (unsigned)eG;
	a->exclude_host = (unsigned)eH;
	a->pinned = (unsigned)pinned;
	return 0;
}

static void
event_init(struct event *e, const char *pmu, const struct pmu *pp,
    enum event_kind kind)
{
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	e->p = pp;
	e->kind = kind;
	e->scale = 1.0;
}

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

/* ---- PMU syntax --------------------------------------------------- */

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
	if (!v && t->pmu->core && (g = generic_lookup(k, kn)) != NULL &&
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

static int
parse_pmu_syntax(struct parse *p, const char *slash, struct event *out,
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
	if ((r = apply_modifiers(p, mods, &e.attr)) < 0)
		return r;
	if (max < 1)
		return fail(p, "no room for the result");
	out[0] = e;
	return 1;
}

/* ---- the rest ----------------------------------------------------- */

/* A sysfs alias written bare ("tsc"): fine when exactly one PMU has it. */
static int
bare_alias(struct parse *p, const char *base, size_t n, const char *mods,
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
	r = parse_pmu_syntax(&sub, buf + strlen(found->name), out, max);
	if (r < 0)	/* say it about what the user wrote */
		fail(p, "%s", strstr(sub.err, "\": ") ?
		    strstr(sub.err, "\": ") + 3 : sub.err);
	return r;
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
	if ((r = apply_modifiers(p, mods, &out[0].attr)) < 0)
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

	if ((g = generic_lookup(p->s, n)) != NULL) {
		if (g->type == PERF_TYPE_SOFTWARE) {
			event_init(&out[0], "software", p->ctx ?
			    pmu_find(p->ctx->pmus, "software") : NULL,
			    EVENT_SOFTWARE);
			out[0].attr.type = g->type;
			out[0].attr.config = g->config;
			*nr = 1;
		} else
			*nr = core_variants(p, g->type, g->config, out, max);
	} else if ((r = hwcache_lookup(p, p->s, n, &config)) < 0)
		return r;
	else if (r > 0)
		*nr = core_variants(p, PERF_TYPE_HW_CACHE, config, out, max);
	else if (raw_lookup(p->s, n, &config))
		*nr = core_variants(p, PERF_TYPE_RAW, config, out, max);
	else
		return 0;
	for (i = 0; i < *nr; i++)
		if ((r = apply_modifiers(p, mods, &out[i].attr)) < 0)
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

	if ((r = bare_alias(p, s, n, mods, out, max)) != 0)
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
		if ((r = parse_pmu_syntax(&p, slash, tmp, max)) < 0)
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
