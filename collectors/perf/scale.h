/*
 * scale.h - turning multiplexed perf readings (value/enabled/running) into
 * monotonic counters: each interval's deltas scaled and added up.
 * Design: docs/metrics.md, "How scaling works".
 */
#ifndef PMU_SCALE_H
#define PMU_SCALE_H

#include <stdint.h>

/* One reading of one event: the kernel's triple. */
struct count {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

/* The monotonic accumulator for one event. */
struct scaled {
	uint64_t total;		/* sum of the scaled deltas, whole events */
	double frac;		/* carried fractional part, in [0, 1) */
};

/*
 * Scale the delta between two readings: dvalue * denabled / drunning.
 * Returns the estimate and sets *counted to 0 when the interval had no
 * running time (then the estimate is 0 and must not be read as a count).
 * A reading that went backwards (which the kernel never does for one fd)
 * contributes nothing.
 */
double scale_delta(const struct count *prev, const struct count *cur,
    int *counted);

/* Add the scaled delta between prev and cur to acc; never decreases acc. */
void scale_accumulate(struct scaled *acc, const struct count *prev,
    const struct count *cur);

/* Add one accumulator to another (saturating, never decreasing). */
void scale_add(struct scaled *acc, const struct scaled *more);

/* The accumulator's value as a float, for export. */
double scale_value(const struct scaled *acc);

#endif
