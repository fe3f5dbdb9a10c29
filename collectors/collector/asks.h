/*
 * asks.h - what a pass asks of the schedule (struct asks): the one
 * struct the passes that open, the reads and a kind's hook all set, and
 * only the schedule (interval.c) reads or clears.  It stands alone, at
 * the bottom of the folder, so that a file which sets a field (an
 * instance, the target set, source.c) names it without reaching up to
 * the collector's time.
 */
#ifndef PMU_COLLECTOR_ASKS_H
#define PMU_COLLECTOR_ASKS_H

#include <stdint.h>

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
	uint64_t rebuilt_ns;		/* a rebuild began then, which
					   rescans every cgroup: the rescan
					   interval starts again (0: none) */
};

#endif
