/*
 * clock.h - the one clock: monotonic nanoseconds for every thread's timing
 * (collection durations, deadlines, budgets, the watchdog), any clock in
 * seconds for the benchmarks and tests, the wall clock for timestamps. Inline:
 * one call each, used in hot paths.
 * Design: docs/architecture.md, "util/".
 */
#ifndef PMU_CLOCK_H
#define PMU_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Any clock in seconds: what a benchmark or a test times with. */
static inline double
clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC, the clock of every interval and deadline. */
static inline uint64_t
mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_REALTIME in seconds: timestamps people and Prometheus read. */
static inline double
wall_s(void)
{
	return clock_s(CLOCK_REALTIME);
}

#endif
