/*
 * event_names.c - perf's own names for events (generic, hw-cache, raw) and its
 * ":ukhGHD" modifiers, as tables and their look-ups (event_int.h).
 * Design: docs/events.md; docs/architecture.md, "collectors/events/".
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collectors/events/event_int.h"
#include "collectors/events/event_names.h"
#include "util/text.h"

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

const struct event_name *
event_generic_lookup(const char *s, size_t n)
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
int
event_hwcache_lookup(struct parse *p, const char *s, size_t n,
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
int
event_raw_lookup(const char *s, size_t n, unsigned long long *config)
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
int
event_apply_modifiers(struct parse *p, const char *m, struct perf_event_attr *a)
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
