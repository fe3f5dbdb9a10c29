/*
 * event.h - event names, the way perf spells them, to perf_event_attr: a pure
 * parser over the PMU table (and one tracefs file for a tracepoint).
 * Grammar: docs/events.md; design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_H
#define PMU_EVENT_H

#include <stddef.h>
#include <linux/perf_event.h>

#include "collectors/events/pmu.h"

/* Enough for every core PMU of a hybrid machine. */
#define EVENT_MAX_VARIANTS 8

struct topdown_cpu;

/* What the parser may consult.  All fields may be NULL. */
struct event_ctx {
	const struct pmu_list *pmus;	/* NULL: generic names only */
	const char *tracefs;		/* NULL: tracefs not mounted */
	int no_pfm;			/* do not try libpfm4 names */
	const struct topdown_cpu *cpu;	/* for presets; NULL: unknown */
};

/* How an event may share a group. */
enum event_kind {
	EVENT_SOFTWARE,		/* software-context: joins any group */
	EVENT_GENERIC,		/* generic/hw-cache/raw: follows the core PMU */
	EVENT_PMU,		/* bound to the PMU it names */
};

struct event {
	struct perf_event_attr attr;
	char pmu[64];			/* "cpu", "software", "power", ... */
	const struct pmu *p;		/* its sysfs PMU, or NULL */
	enum event_kind kind;
	double scale;			/* from the alias' .scale, else 1 */
	char unit[32];			/* from the alias' .unit, else "" */
};

/*
 * Parse one event string into its variants (one, or one per core PMU on
 * a hybrid machine), at most max.  Only type, config*, the exclude bits
 * and pinned are set in attr; the caller sets read_format and the rest.
 * Returns the number of variants, or -EINVAL with a message in err that
 * quotes the event and points at the column, or names the event it
 * resembles.  out is untouched on failure.
 */
int event_parse(const struct event_ctx *ctx, const char *s,
    struct event *out, size_t max, char *err, size_t errlen);

/* The closest known event name to s, or NULL if nothing is close. */
const char *event_suggest(const char *s);


/* Iterate over the generic names: returns NULL past the end. */
const char *event_name_at(size_t i, unsigned *type, unsigned long long *config);

/*
 * Iterate over perf's canonical hw-cache names ("L1-dcache-load-misses"):
 * returns the i'th into buf, or NULL past the end.
 */
const char *event_hwcache_name_at(size_t i, char *buf, size_t len);

#endif
