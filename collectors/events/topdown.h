/*
 * topdown.h - the "topdown" preset: the events each CPU family needs to split
 * its pipeline slots into retiring, bad speculation, frontend and backend
 * bound, chosen per core PMU from sysfs and the CPU's identity.
 * Design: docs/topdown.md; docs/architecture.md, "collectors/events/".
 */
#ifndef PMU_TOPDOWN_H
#define PMU_TOPDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/events/pmu.h"

/* What the CPU says it is, beyond sysfs' PMUs. */
struct topdown_cpu {
	char vendor[32];	/* cpuinfo vendor_id ("GenuineIntel"), or "" */
	int family, model;	/* cpuinfo "cpu family", "model"; -1: unknown */
	int smt;		/* devices/system/cpu/smt/active; -1: unknown
				   (intel_gp opens its SMT pair unless 0) */
	uint64_t midr;		/* arm64: cpu0's MIDR_EL1; 0: unknown (the
				   N2 erratum is then not assumed) */
};

/*
 * Read the identity from <procfs>/cpuinfo, <sysfs>/devices/system/cpu/
 * smt/active and cpu0's regs/identification/midr_el1.  A file that is
 * missing leaves its fields unknown; never fails.
 */
void topdown_cpu_read(const char *sysfs, const char *procfs,
    struct topdown_cpu *out);

#define TOPDOWN_MAX_EVENTS 12

struct topdown_event {
	const char *name;	/* perf's name: the event label */
	char spec[160];		/* the event string, for event_parse */
	int present;		/* the PMU offers it */
	int part;		/* 0: the leader's group; 1: a second group,
				   led by its first event (events that do not
				   fit beside the first: intel_gp's SMT pair) */
};

struct topdown_set {
	const char *definition;	/* NULL: this PMU has no top-down events */
	int level;		/* deepest level the present events give */
	unsigned slots_per_cycle;	/* pipeline width the formulas use;
					   0 when they need none */
	size_t nr;		/* events, the group leader first */
	struct topdown_event ev[TOPDOWN_MAX_EVENTS];
	char why[256];		/* no definition, or events missing: why */
};

/* The set for core PMU p.  Never fails: no definition is an answer. */
void topdown_expand(const struct topdown_cpu *cpu, const struct pmu *p,
    struct topdown_set *out);

/* How many of the set's events the PMU offers. */
size_t topdown_present(const struct topdown_set *s);

#endif
