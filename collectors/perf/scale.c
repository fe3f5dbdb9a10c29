/*
 * scale.c - delta scaling of multiplexed counts (scale.h), kept pure and tiny
 * so it can be tested exhaustively without a PMU.
 * Design: docs/metrics.md, "How scaling works".
 */
#include "autoconf.h"

#include <math.h>

#include "collectors/perf/scale.h"

double
scale_delta(const struct count *prev, const struct count *cur, int *counted)
{
	uint64_t dv, de, dr;

	*counted = 0;
	if (cur->value < prev->value || cur->enabled < prev->enabled ||
	    cur->running < prev->running)
		return 0.0;
	dv = cur->value - prev->value;
	de = cur->enabled - prev->enabled;
	dr = cur->running - prev->running;
	if (dr == 0)
		return 0.0;
	*counted = 1;
	/* The kernel keeps running <= enabled; clamp in case of skew. */
	if (de <= dr)
		return (double)dv;
	return (double)dv * ((double)de / (double)dr);
}

void
scale_accumulate(struct scaled *acc, const struct count *prev,
    const struct count *cur)
{
	int counted;
	double d, whole;

	d = scale_delta(prev, cur, &counted);
	if (!counted || !(d > 0.0) || !isfinite(d))
		return;
	d += acc->frac;
	whole = floor(d);
	if (whole >= 18446744073709551615.0 - (double)acc->total) {
		/* Saturate rather than wrap: a counter must never go back. */
		acc->total = UINT64_MAX;
		acc->frac = 0.0;
		return;
	}
	acc->total += (uint64_t)whole;
	acc->frac = d - whole;
}

double
scale_value(const struct scaled *acc)
{
	return (double)acc->total + acc->frac;
}

void
scale_add(struct scaled *acc, const struct scaled *more)
{
	double f = acc->frac + more->frac;

	if (more->total >= UINT64_MAX - acc->total) {
		acc->total = UINT64_MAX;
		acc->frac = 0.0;
		return;
	}
	acc->total += more->total + (uint64_t)floor(f);
	acc->frac = f - floor(f);
}
