/*
 * topdown.h - the "topdown" preset: the events each CPU family needs to
 * split its pipeline slots into retiring, bad speculation, frontend bound
 * and backend bound (Yasin's top-down method, as perf computes it with
 * "perf stat -M TopdownL1"), chosen per core PMU from sysfs and the CPU's
 * identity.
 *
 * One definition per core PMU, named as the exporter labels it:
 *
 *   intel_perf_metrics  Icelake and later P-cores: slots leading the
 *                       topdown-* events (sysfs aliases), level 2 where
 *                       sysfs has its four events
 *   intel_gp            Skylake-family cores: general-purpose counters
 *   intel_atom          Gracemont E-cores (cpu_atom of Alder/Raptor Lake)
 *   amd_pipeline        Zen 4 and Zen 5 (perf's PipelineL1)
 *   arm_sbsa            Arm PMUv3 with the STALL_SLOT events (sbsa.json)
 *   arm_n2_r0p0         the same events on Neoverse N2 r0p0-r0p2, whose
 *                       erratum perf's neoverse-n2-v2 metrics correct
 *
 * The encodings are perf's (tools/perf/pmu-events/arch/...json) and the
 * kernel's sysfs aliases; docs/topdown.md cites file and commit.
 * Expansion is pure: it reads only the PMU table and the identity, which
 * topdown_cpu_read takes once from files below the roots it is given.
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
