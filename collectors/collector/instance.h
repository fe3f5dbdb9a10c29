/*
 * instance.h - one group instance (instance.c): a plan group on one CPU
 * for one target, its source and accumulators; a target's instances of
 * a group (struct tgroup); what opening one needs (struct inst_ctx) and
 * is told of its target (struct inst_target); what the log said once
 * (struct said).  See docs/architecture.md.
 */
#ifndef PMU_COLLECTOR_INSTANCE_H
#define PMU_COLLECTOR_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/perf/cpumap.h"
#include "collectors/perf/denied.h"
#include "collectors/perf/scale.h"

struct asks;
struct kinds;
struct plan;
struct source;
struct source_hold;
struct source_kind;

enum inst_state { INST_OK, INST_CLOSED, INST_BROKEN };

/* One group on one CPU for one target: a source and its accumulators. */
struct inst {
	int cpu;
	enum inst_state state;
	struct source *src;		/* NULL unless INST_OK */
	int *err;			/* [nr_events] 0, or why it is out */
	struct count *prev;		/* [nr_events] last reading */
	struct count *cur;		/* [nr_events] scratch */
	struct scaled *acc;		/* [nr_events] */
	uint64_t enabled_ns, running_ns;	/* sums of deltas */
	uint64_t prev_enabled, prev_running;
	uint64_t last_de, last_dr;	/* the last interval's deltas */
	uint64_t origin_ns;		/* when it started counting, by
					   perf_ops->now_ns; 0: no clock */
	uint64_t origin_enabled;	/* its enabled time then */
	uint64_t unjumped;		/* enabled time taken off since */
	int no_perf_cgroup;		/* failed: the cgroup, not the events */
};

/* One plan group counted on a target, on its CPUs: its instances. */
struct tgroup {
	size_t gi;			/* index into cfg->groups */
	int per_cpu;
	const struct source_kind *kind;	/* how its instances count */
	struct cpumap cpus;
	struct inst *inst;		/* [cpus.nr] */
	struct scaled *gone;		/* [nr_events] summed cgroup series:
					   the counts of CPUs gone offline */
	uint64_t gone_enabled_ns, gone_running_ns;
	struct inst *off;		/* [nr_off] per-CPU series: closed
					   instances keeping the counts of
					   CPUs gone offline, taken over when
					   they come back (instance.c) */
	size_t nr_off, cap_off;		/* ... and room for them */
	int unscheduled;		/* reported as never scheduled */
};

/*
 * What instance.c is told of the target whose instances it makes
 * (target.c fills one for each open): where they open, its name for
 * the log, what its kinds hold for it, and during a rebuild the plan
 * the old groups (inst_take's og) were built from.
 */
struct inst_target {
	const char *cgroup;		/* NULL: system-wide */
	const char *name;		/* the log's (target_name) */
	int cgfd;			/* the cgroup's directory; -1 */
	struct source_hold *const *attached;	/* [SOURCE_KINDS] (source.h) */
	const struct plan *old_cfg;	/* a rebuild's old plan; NULL: none */
	int renew;			/* the old groups count a cgroup that
					   is gone, made again at this path:
					   never adopted, their counts taken
					   after one last reading */
};

/* What the log says once (instance.c). */
struct said {
	int emfile, no_perf_cgroup;
	enum denied_cause denied;	/* the first EACCES/EPERM, explained */
};

/*
 * What opening an instance needs of the collector (the target set holds
 * one, target.c hands it on): the kinds (the plan, the cgroup mount and
 * the log come with them), what the log said once, and where to read why
 * perf refused us (denied.h).
 */
struct inst_ctx {
	const struct kinds *k;
	struct said *said;
	const char *procfs;
};

/*
 * inst_take: instance j of tg on target it made, by adopting og's (during
 * a rebuild, the old target's group of the same name, per_cpu and kind,
 * which the caller finds; NULL: none) or opening it, failures reported
 * and asked to be retried in as.  inst_carry_gone: tg's series keep the
 * counts of og's CPUs gone offline.  inst_read: one reading, scaled into
 * the sums.
 */
int inst_take(const struct inst_ctx *x, const struct inst_target *it,
    struct tgroup *tg, struct tgroup *og, size_t j, struct asks *as);
void inst_fini(struct inst *in);
void inst_close(struct inst *in, enum inst_state state);
int inst_read(struct inst *in);
int inst_carry_gone(const struct inst_ctx *x, const struct inst_target *it,
    struct tgroup *tg, struct tgroup *og);

#endif
