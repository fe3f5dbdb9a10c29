/*
 * event.c - parse event names into perf_event_attr (see event.h).
 *
 * The table mirrors the names `perf list` prints for generic hardware and
 * software events, aliases included, so a name copied from perf works here
 * unchanged.  Modifiers follow perf: any of u/k/h names the privilege levels
 * to count, and the ones not named are excluded.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/event.h"

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

size_t
event_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, best;
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *
event_suggest(const char *s)
{
	const char *best = NULL;
	size_t i, d, bestd = (size_t)-1, limit;
	char base[64];
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (n >= sizeof(base))
		return NULL;
	memcpy(base, s, n);
	base[n] = '\0';
	limit = n < 6 ? 1 : 2 + n / 8;
	for (i = 0; i < NR_EVENT_NAMES; i++) {
		d = event_distance(base, event_names[i].name);
		if (d < bestd) {
			bestd = d;
			best = event_names[i].name;
		}
	}
	return bestd <= limit ? best : NULL;
}

int
event_is_hardware(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_SOFTWARE;
}

int
event_parse(const char *s, struct perf_event_attr *attr, char *err,
    size_t errlen)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s), i;
	const struct event_name *e = NULL;
	int u = 0, k = 0, h = 0;
	const char *m, *sugg;

	if (n == 0) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	for (i = 0; i < NR_EVENT_NAMES; i++)
		if (strlen(event_names[i].name) == n &&
		    strncmp(event_names[i].name, s, n) == 0) {
			e = &event_names[i];
			break;
		}
	if (e == NULL) {
		sugg = event_suggest(s);
		if (sugg)
			snprintf(err, errlen,
			    "unknown event \"%s\" (did you mean \"%s\"?)", s, sugg);
		else
			snprintf(err, errlen, "unknown event \"%s\"", s);
		return -EINVAL;
	}
	if (colon) {
		if (colon[1] == '\0') {
			snprintf(err, errlen,
			    "event \"%s\": empty modifier after ':' (column %zu)",
			    s, n + 2);
			return -EINVAL;
		}
		for (m = colon + 1; *m; m++) {
			int *flag;

			switch (*m) {
			case 'u': flag = &u; break;
			case 'k': flag = &k; break;
			case 'h': flag = &h; break;
			default:
				snprintf(err, errlen,
				    "event \"%s\": unknown modifier '%c' "
				    "(column %zu; expected u, k or h)",
				    s, *m, (size_t)(m - s) + 1);
				return -EINVAL;
			}
			if (*flag) {
				snprintf(err, errlen,
				    "event \"%s\": modifier '%c' given twice "
				    "(column %zu)", s, *m, (size_t)(m - s) + 1);
				return -EINVAL;
			}
			*flag = 1;
		}
	}
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = e->type;
	attr->config = e->config;
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return 0;
}
