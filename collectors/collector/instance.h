/*
 * instance.h - one group instance (instance.c): one plan group on one
 * CPU for one target, the source it reads (source.h) and the accumulators
 * its scaled deltas go into; and what the log has said once of why
 * instances do not open (struct said), which only instance.c writes.
 * Its own header, like libperf's internal/evsel.h, so that what reads
 * or writes an instance's fields (the collection, the snapshot builder,
 * the target that owns it) says so by its includes.  Collector thread
 * only.
 */
#ifndef PMU_COLLECTOR_INSTANCE_H
#define PMU_COLLECTOR_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "collectors/perf/denied.h"
#include "collectors/perf/scale.h"

struct adopt;
struct asks;
struct collector;
struct source;
struct target;
struct tgroup;

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
	int no_perf_cgroup;		/* failed: the cgroup, not the events */
};

/* What the log says once (instance.c). */
struct said {
	int emfile, no_perf_cgroup;
	enum denied_cause denied;	/* the first EACCES/EPERM, explained */
};

/*
 * inst_take: instance j of tg on t made, by adopting the old set's (ad)
 * or opening it on cgfd, failures reported and asked to be retried in
 * as.  inst_carry_gone: tg's series keep the counts of CPUs gone offline
 * (ad's old group).  inst_read: one reading, scaled into the sums.
 */
int inst_take(struct collector *c, const struct adopt *ad, struct target *t,
    struct tgroup *tg, size_t j, int cgfd, struct asks *as);
void inst_fini(struct inst *in);
void inst_close(struct inst *in, enum inst_state state);
int inst_read(struct inst *in);
int inst_carry_gone(struct collector *c, const struct adopt *ad,
    const struct target *t, struct tgroup *tg);

#endif
