/*
 * interval.h - the collector's time (interval.c): the schedule of what
 * is due before a collection (a rebuild, a retry, a rescan) and what the
 * passes that open ask of it (struct asks), the collections so far, and
 * the calls a tick makes.  The schedule is interval.c's alone: other
 * files reach it only through the functions here, and the passes set
 * what they found in the struct asks they are handed as an argument.
 * Collector thread only, but the heartbeat.
 */
#ifndef PMU_COLLECTOR_INTERVAL_H
#define PMU_COLLECTOR_INTERVAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct collector;

/*
 * What the passes that open (a build or a rescan of the target set) and
 * the reads found for the schedule to do.  The schedule hands its own to
 * each pass as an argument; only those passes, the reads (interval.c)
 * and a kind's hook (source_retry_soon) set a field, and only the
 * schedule reads or clears one.
 */
struct asks {
	int retry;			/* instances failed: reopen them at
					   the next rescan */
	int retry_soon;			/* ... on a CPU just online (ENODEV):
					   at the next collection */
	int rescan_soon;		/* a cgroup came or went, a kind has
					   room again: rescan at the next
					   collection */
};

/* When the next collection rebuilds, retries or rescans. */
struct schedule {
	uint64_t last_rescan_ns;
	struct asks asks;
	unsigned soon_tries;		/* retries soon since the CPU change */
};

/* Collections so far. */
struct collection {
	uint64_t seq;
	atomic_uint_fast64_t heartbeat;
	uint64_t names_told;		/* a hash of the container ids last
					   told the name resolver */
	size_t names_told_nr;
};

/* A cgroup came or went (inotify): rescan at the next collection. */
void interval_cgroups_changed(struct collector *c);

/*
 * One tick, the two calls the thread makes every interval (collector.h's
 * collector_tend and collector_collect are these, for tests and
 * benchmarks): interval_tend does what is due first (a rebuild after a
 * CPU change, reopening what failed, a cgroup rescan); interval_collect
 * reads every open instance and publishes the snapshot.
 */
void interval_tend(struct collector *c);
void interval_collect(struct collector *c);

#endif
