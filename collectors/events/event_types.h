/*
 * event_types.h - an event as the parser gives it, and what the parser may
 * consult: the words event.h's users and the parser's own files share,
 * below every file of the parser.
 * Design: docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_EVENT_TYPES_H
#define PMU_EVENT_TYPES_H

#include <linux/perf_event.h>

struct pmu;
struct pmu_list;

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

#endif
